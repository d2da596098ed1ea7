// Node-only checks (not shared with the WebAssembly build): package metadata, the CommonJS and
// ES module entry points, and generators in worker threads and child processes.
import assert from 'node:assert/strict'
import { fork } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, test } from 'node:test'
import { Worker } from 'node:worker_threads'

import m, { implUrl, lacks } from './support/impl.mjs'

const here = new URL('.', import.meta.url)
const mintScript = new URL('./support/mint.mjs', here)

/** `version = "..."` of a TOML table. */
function tomlVersion(path, table) {
  const text = readFileSync(new URL(path, here), 'utf8')
  const start = text.indexOf(`[${table}]`)
  assert.ok(start >= 0, `[${table}] in ${path}`)
  const body = text.slice(start + table.length + 2).split(/\n\[/)[0]
  const match = /^version\s*=\s*"([^"]+)"/m.exec(body)
  assert.ok(match, `version in [${table}] of ${path}`)
  return match[1]
}

test('one version: workspace Cargo.toml = package.json = bindings-node/Cargo.toml = addon', () => {
  const workspace = tomlVersion('../../Cargo.toml', 'workspace.package')
  const pkg = JSON.parse(readFileSync(new URL('../package.json', here), 'utf8'))
  assert.equal(pkg.version, workspace)
  assert.equal(tomlVersion('../Cargo.toml', 'package'), workspace)
  if (!process.env.IDMINT_IMPL) assert.equal(m.version(), workspace)
})

test('CommonJS and ES module entry points export the same API', { skip: !!process.env.IDMINT_IMPL }, async () => {
  const cjs = createRequire(import.meta.url)('../index.js')
  const esm = await import('../index.mjs')
  const names = Object.keys(cjs).sort()
  assert.deepEqual(Object.keys(esm).filter((k) => k !== 'default').sort(), names)
  for (const k of names) assert.equal(esm[k], cjs[k], k)
  assert.equal(esm.default, cjs)
  assert.ok(names.includes('Snowflake'))
  // The benchmark floor is no export: only bench/bench.mjs reaches it, under a symbol.
  assert.ok(!names.some((k) => k.startsWith('_bench')))
  assert.equal(typeof cjs[Symbol.for('idmint.benchFloor')], 'function')
})

/** Runs `job` in a worker thread; resolves to its IDs. */
function inWorker(job) {
  return new Promise((resolve, reject) => {
    const w = new Worker(mintScript, { workerData: job })
    w.once('message', resolve)
    w.once('error', reject)
    w.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)))
  })
}

/** Runs `job` in a child process (child_process.fork); resolves to its IDs. */
function inChild(job) {
  return new Promise((resolve, reject) => {
    const c = fork(mintScript, [JSON.stringify(job)], { serialization: 'advanced', stdio: 'inherit' })
    let ids = null
    c.once('message', (msg) => (ids = msg))
    c.once('error', reject)
    c.once('close', (code) => (code === 0 && ids ? resolve(ids) : reject(new Error(`child exited with ${code}`))))
  })
}

function duplicates(arrays) {
  const seen = new Set()
  let dup = 0
  let total = 0
  for (const ids of arrays) {
    for (const id of ids) {
      total++
      if (seen.has(id)) dup++
      else seen.add(id)
    }
  }
  return { dup, total }
}

describe('several threads and processes', { skip: lacks('Snowflake') }, () => {
  const N = 100_000

  test('worker_threads with distinct nodes mint no duplicate', async () => {
    const results = await Promise.all([1, 2, 3].map((node) => inWorker({ mode: 'clocked', node, n: N })))
    // ... and alongside them, the main thread with a fourth node.
    const main = new m.Snowflake({ layout: 'twitter', node: 4 }).nextIds(N)
    const { dup, total } = duplicates([...results, main])
    assert.equal(total, 4 * N)
    assert.equal(dup, 0)
    for (const [i, ids] of results.entries()) {
      assert.ok(ids instanceof BigUint64Array)
      const g = new m.AtomicSnowflake({ layout: 'twitter', node: 0 })
      assert.equal(g.decode(ids[0]).node, BigInt(i + 1))
    }
  })

  test('worker_threads do not share generator state: the same node mints the same IDs', async () => {
    // Two workers, same node, same (fixed) time: each has its own generator, so both mint the
    // very same IDs. With the system clock the same happens whenever their ticks coincide —
    // which is why every worker needs its own node.
    const [a, b] = await Promise.all([inWorker({ mode: 'fixed', node: 7, n: 1000 }), inWorker({ mode: 'fixed', node: 7, n: 1000 })])
    assert.deepEqual(Array.from(a), Array.from(b))
    const [c, d] = await Promise.all([inWorker({ mode: 'fixed', node: 7, n: 1000 }), inWorker({ mode: 'fixed', node: 8, n: 1000 })])
    assert.equal(duplicates([c, d]).dup, 0)
  })

  test('child processes (child_process.fork) with distinct nodes mint no duplicate', async () => {
    const results = await Promise.all([5, 6].map((node) => inChild({ mode: 'clocked', node, n: N })))
    const { dup, total } = duplicates(results)
    assert.equal(total, 2 * N)
    assert.equal(dup, 0)
  })

  test('child processes do not share state either (and are not fork() children)', async () => {
    // child_process.fork starts a new Node process (spawn + exec, not fork(2)): the core's fork
    // guard has nothing to detect, and nothing is shared — the same node means the same IDs.
    const [a, b] = await Promise.all([inChild({ mode: 'fixed', node: 9, n: 500 }), inChild({ mode: 'fixed', node: 9, n: 500 })])
    assert.deepEqual(Array.from(a), Array.from(b))
  })
})

test('implementation under test', (t) => {
  t.diagnostic(implUrl)
  assert.ok(implUrl.length > 0)
})
