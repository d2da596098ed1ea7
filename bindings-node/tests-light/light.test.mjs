// The package `idmint` without the store add-on (`idmint-stores` not installed): what it mints,
// the file lease store, and the error a store URL it lacks gives. bindings-node/test.sh and
// scripts/dist-smoke.sh run this file against the light addon alone (IDMINT_IMPL names its
// entry point); tests/ runs on the add-on.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'

const entry = process.env.IDMINT_IMPL
assert.ok(entry, 'IDMINT_IMPL names the light package entry point (index.mjs)')
const m = await import(pathToFileURL(entry).href)
const INSTALL = /install the stores add-on: npm install idmint-stores/

test('the add-on is not installed', () => {
  const require = createRequire(entry)
  assert.throws(() => require.resolve('idmint-stores'), { code: 'MODULE_NOT_FOUND' })
})

test('Snowflake, UUIDs, codecs and obfuscation', () => {
  const gen = new m.Snowflake({ layout: 'twitter', node: 42 })
  const ids = gen.nextIds(100)
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1])
  assert.equal(gen.decode(ids[0]).node, 42n)
  assert.equal(m.parseId(m.encode(ids[0], 'base62'), 'base62'), ids[0])
  assert.match(m.uuid7(), /^[0-9a-f-]{36}$/)
  assert.equal(m.ulid().length, 26)
})

test('the file lease store and the memory segment store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'idmint-light-'))
  try {
    const a = new m.LeasedSnowflake(`file:${dir}`)
    const b = new m.LeasedSnowflake(`file:${dir}`)
    assert.notEqual(a.node, b.node)
    assert.notEqual(a.nextId(), b.nextId())
    a.close()
    b.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const seg = new m.SegmentAllocator('memory:')
  assert.deepEqual([seg.nextId('k'), seg.nextId('k')], [1n, 2n])
  seg.close()
})

for (const url of ['redis://127.0.0.1:1/', 'postgres://u@127.0.0.1:1/db', 'mysql://u@127.0.0.1:1/db', 'etcd://127.0.0.1:1/p', 'zk://127.0.0.1:1/p']) {
  test(`a lease store URL names the add-on: ${url}`, () => {
    assert.throws(() => new m.LeasedSnowflake(url), (e) => e.code === 'ERR_INVALID_CONFIG' && INSTALL.test(e.message))
  })
}

for (const url of ['sqlite:/tmp/idmint-light.db', 'idmint+http://127.0.0.1:1/', 'redis://127.0.0.1:1/']) {
  test(`a segment store URL names the add-on: ${url}`, () => {
    assert.throws(() => new m.SegmentAllocator(url), (e) => e.code === 'ERR_INVALID_CONFIG' && INSTALL.test(e.message))
  })
}

test('an add-on of another release is refused at load, naming both versions', () => {
  // A stand-in idmint-stores found through NODE_PATH (one of the folders the loader's lookup
  // always includes) that reports another version.
  const root = mkdtempSync(join(tmpdir(), 'idmint-other-addon-'))
  try {
    const fake = join(root, 'idmint-stores')
    mkdirSync(fake)
    writeFileSync(join(fake, 'package.json'), JSON.stringify({ name: 'idmint-stores', version: '0.0.0-other', main: 'index.js' }))
    writeFileSync(join(fake, 'index.js'), "exports.load = () => ({ version: () => '0.0.0-other' })\n")
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(entry).href)})`], {
      env: { ...process.env, NODE_PATH: root },
      encoding: 'utf8',
    })
    assert.notEqual(run.status, 0, 'the package loaded with an add-on of another release')
    assert.match(run.stderr, /found the add-on idmint-stores 0\.0\.0-other: install the same release of both \(npm install idmint-stores@/)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})
