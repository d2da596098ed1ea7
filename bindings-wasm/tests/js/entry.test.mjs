// The built Snowflake-only entry (JavaScript) against the full entry (the WebAssembly build of
// the core) through the public API alone: generated option objects and config texts, then
// generated sans-IO call sequences on the clock's worst days (steps back and forward, repeats,
// jumps past fences and to the layout's end), compared call by call: every ID, run, decoded
// value, counter and error (class, code, message, fields). The per-module tests next to this
// one go deeper into each part; this one checks the entry as a page gets it.
//
//   node --test tests/js/entry.test.mjs        (IDMINT_JS_ENTRY, IDMINT_ORACLE: other builds)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { rng } from './support/random.mjs'

const require = createRequire(import.meta.url)
const here = new URL('.', import.meta.url).pathname
const js = require(resolve(here, process.env.IDMINT_JS_ENTRY ?? '../../pkg/node/snowflake/idmint.js'))
const wasm = require(resolve(here, process.env.IDMINT_ORACLE ?? '../../pkg/node/wasm/idmint.js'))


/** What a call did, in comparable form: its value, or its exception's class, code, message and fields. */
function outcome(f) {
  try {
    return { ok: plain(f()) }
  } catch (e) {
    if (!(e instanceof Error)) return { threw: plain(e) }
    return { error: e.constructor.name, ...plain(Object.fromEntries(Object.entries(e))), message: e.message }
  }
}

/** Values made comparable across the two packages (class instances by their public shape). */
function plain(v) {
  if (typeof v === 'bigint' || v === null || typeof v !== 'object') return v
  if (v instanceof BigUint64Array) return Array.from(v)
  if (Array.isArray(v)) return v.map(plain)
  if (v.constructor?.name === 'Layout') return { layout: v.spec }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
}

const PRESETS = wasm.Layout.presets()
const NAMES = ['worker', 'dc', 'shard', 'process', 'w', 'a1', 'node', 'region']

function spec(r) {
  const fields = []
  const timeBits = r.chance(0.9) ? r.pick([8, 12, 20, 31, 39, 41, 42]) : r.pick([44, 63, 64, 0])
  const tick = r.chance(0.9) ? r.pick(['1ms', '1ms', '10ms', '1s', '5ms', '1m']) : r.pick(['0ms', '2x', ''])
  fields.push(`time=${timeBits}@${tick}`)
  fields.push(`seq=${r.chance(0.9) ? r.pick([1, 2, 3, 4, 8, 12, 22]) : r.pick([32, 33, 0])}`)
  if (r.chance(0.3)) fields.push(`rollback=${r.chance(0.95) ? r.pick([1, 2, 3, 8]) : 9}`)
  for (let i = r.int(3); i > 0; i--) fields.push(`${r.pick(NAMES)}=${r.chance(0.95) ? r.pick([1, 2, 5, 10]) : r.pick([16, 0])}`)
  for (let i = fields.length - 1; i > 0; i--) {
    const j = r.int(i + 1)
    ;[fields[i], fields[j]] = [fields[j], fields[i]]
  }
  if (r.chance(0.98)) fields.push(`epoch=${r.chance(0.95) ? r.pick(['2020-01-01', '2010-11-04T01:42:54.657Z', '1288834974657', '0']) : r.pick(['2024-02-30', '2020-1-1', '1e3'])}`)
  if (r.chance(0.1)) fields.push(`width=${r.int(70)}`)
  return fields.join(r.pick([',', ', ', ',']))
}

function options(r) {
  const o = {}
  if (r.chance(0.9)) o.layout = r.chance(0.4) ? r.pick(PRESETS) : spec(r)
  if (r.chance(0.97)) o.node = r.chance(0.85) ? r.pick([0, 1, 1, 3n]) : r.pick([5, 1023, 1024, 2 ** 20, -1, 1.5, '7', { worker: 1 }, { dc: 1, worker: 2 }])
  if (r.chance(0.6)) o.onBackwards = r.chance(0.9) ? r.pick(['fail', 'wait:5', 'wait', 'logical:20', 'logical', 'rollback_counter', 'rollback_counter', 'ring:16', 'ring']) : r.pick(['ring:1', 'wait:0', 'bogus'])
  if (r.chance(0.5)) o.onExhausted = r.chance(0.9) ? r.pick(['wait', 'fail', 'borrow:3', 'borrow']) : r.pick(['borrow:0', 'nope'])
  if (r.chance(0.4)) o.sequenceStart = r.chance(0.9) ? r.pick(['zero', 'random', 'vibrate:3', 'vibrate']) : r.pick(['vibrate:0', 'vibrate:256'])
  if (r.chance(0.3)) o.seed = r.pick([1, 42n, 2n ** 64n - 1n, -2])
  if (r.chance(0.2)) o.fenceMs = r.pick([0, 1_600_000_000_000, 1_700_000_000_123n])
  return o
}

test('generated options: the same generator or the same error, then the same sans-IO calls', () => {
  let built = 0
  for (let seed = 1; seed <= 3000; seed++) {
    const r = rng(seed)
    const o = options(r)
    const make = (m) => () => new m.AtomicSnowflake({ ...o })
    const a = outcome(make(js)), b = outcome(make(wasm))
    assert.deepEqual(a.error ? a : 'built', b.error ? b : 'built', `seed ${seed}: new AtomicSnowflake(${JSON.stringify(o, (k, v) => (typeof v === 'bigint' ? `${v}n` : v))})`)
    if (a.error) continue
    built++
    const g = [new js.AtomicSnowflake({ ...o }), new wasm.AtomicSnowflake({ ...o })]
    const same = (what, f) => assert.deepEqual(outcome(() => f(g[0])), outcome(() => f(g[1])), `seed ${seed}: ${what}`)
    same('config', (x) => [x.config, x.node, x.layout.spec, x.maxRollbackTicks])
    const layout = g[1].layout
    let now = Number(layout.epochMs) + r.pick([0, 1, 1000, 1_000_000_000, 50_000_000_000])
    for (let i = 0; i < 60; i++) {
      const step = r.pick([0, 0, 1, 1, 2, -1, -3, -50, 7, 1000, -2000, 10_000_000])
      now = Math.max(0, now + step)
      const at = r.chance(0.02) ? r.pick([0, 2 ** 53 - 1, 2n ** 64n - 1n]) : now
      // Arguments are drawn before the calls: both generators get the same ones.
      const max = r.pick([1, 3, 100, 5000]), n = r.pick([0, 1, 17, 9000])
      const id = r.pick([0, 123456789n, 2n ** 63n - 1n, '42']), node = r.pick([2, 0, 1n << 40n, { worker: 3 }])
      switch (r.int(6)) {
        case 0:
        case 1:
          same(`nextIdAt(${at})`, (x) => x.nextIdAt(at))
          break
        case 2:
          same(`reserveAt(${at}, ${max})`, (x) => x.reserveAt(at, max))
          break
        case 3:
          same(`nextIdsAt(${at}, ${n})`, (x) => x.nextIdsAt(at, n))
          break
        case 4:
          same('stats/decode', (x) => [x.stats(), x.decode(id)])
          break
        case 5:
          if (r.chance(0.2)) same('setNode', (x) => (x.setNode(node), x.node))
          break
      }
    }
  }
  assert.ok(built > 900, `only ${built} of 3000 generated option sets built a generator`)
})

test('config texts: the same generator or the same error', () => {
  for (let seed = 1; seed <= 600; seed++) {
    const r = rng(seed * 7919)
    const o = options(r)
    let text
    try {
      text = new wasm.Snowflake({ ...o, node: o.node ?? 1 }).config
    } catch {
      text = `type=snowflake,layout=${o.layout ?? 'twitter'},node=${String(o.node)}`
    }
    if (r.chance(0.3)) text = text.replace(r.pick([',', '=', 'node', 'layout']), r.pick(['', ';', '==', 'Node']))
    const a = outcome(() => js.Snowflake.fromConfig(text).config)
    const b = outcome(() => wasm.Snowflake.fromConfig(text).config)
    assert.deepEqual(a, b, `seed ${seed}: fromConfig(${JSON.stringify(text)})`)
  }
})

test('Layout: every preset and generated specs give the same values or the same error', () => {
  const shape = (l) => [l.spec, l.presetName, l.width, l.epochMs, l.tickMs, l.maxId, l.maxNode, l.maxSequence, l.maxTime, l.nodeBits, l.nodeNames, l.isJsSafe, l.capacityPerSecond, l.lifetimeEndMs, l.fields, String(l), l.toJSON()]
  const texts = [...PRESETS, ...Array.from({ length: 2000 }, (_, i) => spec(rng(i + 99)))]
  for (const t of texts) assert.deepEqual(outcome(() => shape(new js.Layout(t))), outcome(() => shape(new wasm.Layout(t))), t)
})
