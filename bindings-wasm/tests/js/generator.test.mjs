// generator.js (Snowflake, AtomicSnowflake) against the oracle, the WebAssembly build of the
// core: generated layouts and configs under every policy, then generated sans-IO call sequences
// (clock steps back and forward, repeats, jumps past the fence, exhaustion, the layout's end,
// batches across the binding's 8192-ID chunks, node changes), compared call by call: every ID,
// run, decoded value, counter and error (class, code, message, fields). The clocked methods run
// on a hand-moved clock (support/clock-shim.mjs) against the oracle's sans-IO generator driven
// the way the core's Clocked drives it. The shared test vectors (vectors/generators.json) are
// replayed too.
//
//   node --test bindings-wasm/tests/js/generator.test.mjs   (IDMINT_SEED=n: another seed)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire, register } from 'node:module'
import { readFileSync } from 'node:fs'

register('./support/generator-loader.mjs', import.meta.url)
const { Snowflake, AtomicSnowflake } = await import('../../js/generator.js')
const { fake } = await import('./support/clock-shim.mjs')
const oracle = createRequire(import.meta.url)('../../pkg/node/idmint.js')

const SEED = Number(process.env.IDMINT_SEED ?? 20261129)
const T0 = 1_700_000_000_000

/** A seeded PRNG (mulberry32), so a failure names its seed and replays. */
function rng(seed) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n) => Math.floor(next() * n)
  const big = (bits) => {
    let v = 0n
    for (let i = 0; i < bits; i += 16) v = (v << 16n) | BigInt(int(65536))
    return v & ((1n << BigInt(bits)) - 1n)
  }
  return { next, int, big, pick: (xs) => xs[int(xs.length)], chance: (p) => next() < p }
}

/** What a call did, comparably: its value, or its exception's class, code, message and fields. */
function outcome(f) {
  try {
    return { ok: plain(f()) }
  } catch (e) {
    if (!(e instanceof Error)) return { threw: e }
    return { error: e.constructor.name, props: Object.getOwnPropertyNames(e).filter((k) => k !== 'stack'), ...plain({ ...e }), message: e.message }
  }
}

function plain(v) {
  if (typeof v === 'bigint' || v === null || typeof v !== 'object') return v
  if (v instanceof BigUint64Array) return Array.from(v)
  if (Array.isArray(v)) return v.map(plain)
  if (typeof v.spec === 'string' && 'nodeNames' in v) return { layout: v.spec }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
}

const NAMES = ['worker', 'dc', 'shard', 'w']

/** A layout spec: time (sometimes short, so its end is reachable), node fields, seq, rollback. */
function spec(r, epochMs) {
  const seqBits = r.pick([1, 1, 2, 3, 4, 6, 8, 12, 16, 22])
  const rollbackBits = r.chance(0.4) ? r.pick([1, 2, 3, 4]) : 0
  const timeBits = Math.min(64 - seqBits - rollbackBits, r.chance(0.3) ? r.pick([6, 8, 10, 12]) : r.pick([20, 31, 39, 41, 44]))
  const tick = r.pick(['1ms', '1ms', '1ms', '2ms', '10ms', '1s'])
  const parts = [[`time=${timeBits}@${tick}`, timeBits]]
  const nodes = r.int(3)
  let room = 64 - seqBits - timeBits - rollbackBits
  for (let i = 0; i < nodes && room > 0; i++) {
    const bits = 1 + r.int(Math.min(8, room))
    room -= bits
    parts.push([`${NAMES[i]}=${bits}`, 0])
  }
  parts.push([`seq=${seqBits}`, seqBits])
  if (rollbackBits) parts.push([`rollback=${rollbackBits}`, 0])
  // Shuffle everything but time to the top half of the time (orders such as Sonyflake's).
  const rest = parts.slice(1)
  for (let i = rest.length - 1; i > 0; i--) {
    const j = r.int(i + 1)
    ;[rest[i], rest[j]] = [rest[j], rest[i]]
  }
  const fields = r.chance(0.8) ? [parts[0], ...rest] : [...rest.slice(0, 1), parts[0], ...rest.slice(1)]
  const date = new Date(epochMs).toISOString().replace(/\.000Z$/, 'Z')
  return `${fields.map((f) => f[0]).join(',')},epoch=${date}`
}

function policies(r) {
  const onBackwards = r.pick(['fail', 'wait:' + r.pick([1, 5, 100, 1000]), 'logical:' + r.pick([1, 3, 50, 2000]), 'rollback_counter', 'rollback_counter', 'ring:' + r.pick([2, 3, 16, 1000]), r.pick(['ring:1', 'ring:65537', 'wait:0', 'logical:0', 'ring:65536'])])
  const onExhausted = r.pick(['wait', 'fail', 'borrow:' + r.pick([1, 2, 7, 1000]), r.chance(0.1) ? 'borrow:0' : 'wait'])
  const sequenceStart = r.pick(['zero', 'random', 'random', 'vibrate:' + r.pick([0, 1, 2, 3, 7, 255])])
  return { onBackwards, onExhausted, sequenceStart }
}

/** Generated options; `epochMs` near the times the run will use. */
function options(r) {
  const epochMs = T0 - r.pick([0, 1000, 86_400_000, 3_600_000 * 24 * 365])
  const layout = r.chance(0.15) ? r.pick(['twitter', 'sonyflake', 'discord', 'instagram', 'js53', 'leaf', 'baidu', 'shardingsphere']) : spec(r, epochMs)
  const o = { layout, ...policies(r) }
  const l = new oracle.Layout(layout)
  if (!r.chance(0.03)) o.node = r.chance(0.05) ? l.maxNode + 1n : r.chance(0.5) ? l.maxNode : BigInt(r.int(Number(l.maxNode < 1000n ? l.maxNode + 1n : 1000n)))
  if (r.chance(0.5)) o.seed = r.chance(0.2) ? 0n : r.big(64)
  if (r.chance(0.3)) o.fenceMs = BigInt(T0 + r.int(50) - 25) + (r.chance(0.2) ? -(10n ** 12n) : 0n)
  return o
}

/** The next clock reading of a run: repeats, steps forward and back, jumps. */
function step(r, now, g) {
  const l = g.layout
  const tick = Number(l.tickMs)
  const x = r.next()
  if (x < 0.35) return now
  if (x < 0.6) return now + tick * r.int(2)
  if (x < 0.7) return now + tick * r.int(50)
  if (x < 0.8) return Math.max(0, now - tick * (1 + r.int(3)))
  if (x < 0.85) return Math.max(0, now - tick * r.int(3000))
  if (x < 0.9) return Number(l.lifetimeEndMs) - r.int(3) * tick // the layout's end (and past it)
  if (x < 0.93) return Number(l.epochMs) - r.int(2) // before the epoch (and at it)
  return T0 + r.int(40) - 20 // around the fence
}

/** Calls `op` on both generators and compares. */
function same(ours, theirs, what, op) {
  const a = outcome(() => op(ours))
  const b = outcome(() => op(theirs))
  assert.deepStrictEqual(a, b, what)
  return a
}

/** One generated sans-IO run on both generators (AtomicSnowflake or Snowflake's nextIdAt). */
function replay(r, ours, theirs, label, sansIoOnly) {
  let now = T0
  let lastId = null
  const steps = 20 + r.int(120)
  for (let i = 0; i < steps; i++) {
    now = step(r, now, theirs)
    const at = r.chance(0.8) ? now : BigInt(now)
    const what = `${label} step ${i} at ${now}`
    const x = r.next()
    let res
    if (sansIoOnly || x < 0.7) res = same(ours, theirs, what, (g) => g.nextIdAt(at))
    else if (x < 0.8) {
      const max = r.pick([0, 1, 2, 5, 100, 5000, 2 ** 40])
      res = same(ours, theirs, what + ` reserveAt ${max}`, (g) => g.reserveAt(at, max))
    } else if (x < 0.9) {
      const n = r.chance(0.1) ? r.pick([8191, 8192, 8193, 20000]) : r.int(12)
      res = same(ours, theirs, what + ` nextIdsAt ${n}`, (g) => {
        const a = g.nextIdsAt(at, n)
        return [a.length, a[0], a[a.length - 1], a.length > 8192 ? a[8192] : null, a.slice(0, 50)]
      })
    } else if (x < 0.95) {
      const node = r.chance(0.9) ? BigInt(r.int(Number(theirs.layout.maxNode < 100000n ? theirs.layout.maxNode + 1n : 100000n))) : theirs.layout.maxNode + 1n
      same(ours, theirs, what + ' setNode', (g) => [g.setNode(node), g.node])
    } else {
      same(ours, theirs, what + ' decode', (g) => (lastId === null ? null : g.decode(lastId)))
    }
    if (res && typeof res.ok === 'bigint') lastId = res.ok
    if (r.chance(0.2)) same(ours, theirs, what + ' stats', (g) => g.stats())
  }
  same(ours, theirs, `${label} final stats`, (g) => g.stats())
  same(ours, theirs, `${label} node`, (g) => g.node)
}

test('AtomicSnowflake: generated configs and sans-IO runs match the oracle', () => {
  const r = rng(SEED)
  let built = 0
  let cases = 0
  for (let c = 0; c < 1500; c++) {
    const o = options(r)
    const label = `case ${c} (seed ${SEED}) ${JSON.stringify(o, (k, v) => (typeof v === 'bigint' ? `${v}n` : v))}`
    const ours = outcome(() => new AtomicSnowflake(o))
    const theirs = outcome(() => new oracle.AtomicSnowflake(o))
    assert.deepStrictEqual(ours.error && ours, theirs.error && theirs, label)
    cases++
    if (theirs.error) continue
    const a = new AtomicSnowflake(o)
    const b = new oracle.AtomicSnowflake(o)
    for (const k of ['config', 'maxRollbackTicks', 'node']) same(a, b, `${label} ${k}`, (g) => g[k])
    same(a, b, `${label} layout`, (g) => g.layout.spec)
    replay(r, a, b, label, false)
    // The named config builds the same generator.
    const a2 = AtomicSnowflake.fromConfig(b.config)
    const b2 = oracle.AtomicSnowflake.fromConfig(b.config)
    same(a2, b2, `${label} fromConfig`, (g) => [g.config, g.nextIdAt(T0), g.nextIdAt(T0), g.stats()])
    built++
  }
  assert.ok(built > 600, `only ${built} of ${cases} configs built`)
})

test("Snowflake's sans-IO nextIdAt and its other members match the oracle's Snowflake", () => {
  const r = rng(SEED + 1)
  let built = 0
  for (let c = 0; c < 400; c++) {
    const o = options(r)
    // The clocked constructor checks the layout against the clock: ours reads the shim's.
    fake.now = Date.now()
    if (o.sequenceStart === 'random' && !o.seed) o.seed = 7n // a drawn seed differs by design
    const label = `snowflake case ${c} (seed ${SEED}) ${JSON.stringify(o, (k, v) => (typeof v === 'bigint' ? `${v}n` : v))}`
    const ours = outcome(() => new Snowflake(o))
    const theirs = outcome(() => new oracle.Snowflake(o))
    assert.deepStrictEqual(ours.error && ours, theirs.error && theirs, label)
    if (theirs.error) continue
    const a = new Snowflake(o)
    const b = new oracle.Snowflake(o)
    for (const k of ['config', 'maxRollbackTicks', 'node']) same(a, b, `${label} ${k}`, (g) => g[k])
    replay(r, a, b, label, true)
    built++
  }
  assert.ok(built > 80, `only ${built} configs built`)
})

test('construction errors come in the core order (layout time, then config, then node)', () => {
  fake.now = T0
  const cases = [
    { layout: 'time=8@1ms,seq=4,epoch=2020-01-01', node: 0 }, // expired at the clock's time
    { layout: 'time=41@1ms,seq=4,epoch=2030-01-01', node: 0 }, // epoch after the clock's time
    { layout: 'time=8@1ms,seq=4,epoch=2020-01-01', onBackwards: 'ring:1' }, // expired wins
    { layout: 'twitter', onBackwards: 'ring:1', sequenceStart: 'vibrate:2' }, // ring size first
    { layout: 'twitter', onBackwards: 'ring:8', sequenceStart: 'vibrate:2' },
    { layout: 'twitter', onBackwards: 'ring:8', onExhausted: 'borrow:2' },
    { layout: 'twitter', onBackwards: 'rollback_counter', sequenceStart: 'vibrate:0' }, // vibrate first
    { layout: 'twitter', onBackwards: 'rollback_counter' },
    { layout: 'time=41@1ms,rollback=2,seq=22,epoch=2020-01-01', onBackwards: 'rollback_counter', node: 0 }, // no room
    { layout: 'time=41@1ms,rollback=2,seq=20,epoch=2020-01-01', onBackwards: 'rollback_counter', node: 0 }, // < 2 spare
    { layout: 'time=41@1ms,rollback=2,seq=19,epoch=2020-01-01', onBackwards: 'rollback_counter', node: 0 },
    { layout: 'time=41@1ms,seq=22,epoch=2020-01-01', node: 0 },
    { layout: 'time=41@1ms,seq=22,epoch=2020-01-01', sequenceStart: 'vibrate:3', node: 0 },
    { layout: 'twitter', onExhausted: 'borrow:0' },
    { layout: 'twitter', onBackwards: 'wait:0', onExhausted: 'borrow:0' },
    { layout: 'twitter', node: 1024 },
    { layout: 'twitter', node: { worker: 3 } },
    { layout: 'twitter' },
    { layout: 'time=41@1ms,seq=1,epoch=2020-01-01', sequenceStart: 'vibrate:2', node: 0 },
    { layout: 'time=41@1ms,seq=1,epoch=2020-01-01', sequenceStart: 'vibrate:1', node: 0 },
  ]
  for (const o of cases) {
    for (const [Ours, Theirs] of [[Snowflake, oracle.Snowflake], [AtomicSnowflake, oracle.AtomicSnowflake]]) {
      fake.now = Date.now()
      const a = outcome(() => new Ours(o).config)
      const b = outcome(() => new Theirs(o).config)
      assert.deepStrictEqual(a, b, `${Ours.name} ${JSON.stringify(o)}`)
    }
  }
})

test('the shared vectors (vectors/generators.json) replay exactly', () => {
  const v = JSON.parse(readFileSync(new URL('../../../vectors/generators.json', import.meta.url), 'utf8'))
  const opts = (c) => ({
    layout: c.layout,
    node: BigInt(c.node),
    onBackwards: c.on_backwards,
    onExhausted: c.on_exhausted,
    sequenceStart: c.sequence_start,
    seed: BigInt(c.seed),
    ...(c.fence_ms === null ? {} : { fenceMs: BigInt(c.fence_ms) }),
  })
  let steps = 0
  for (const c of v.cases) {
    const a = new AtomicSnowflake(opts(c))
    const b = new oracle.AtomicSnowflake(opts(c))
    assert.equal(a.maxRollbackTicks, c.max_rollback_ticks === null ? null : BigInt(c.max_rollback_ticks))
    assert.equal(a.config, b.config)
    for (const s of c.steps) {
      const op = 'reserve' in s ? (g) => g.reserveAt(BigInt(s.now_ms), BigInt(s.reserve)) : 'next_ids' in s ? (g) => g.nextIdsAt(BigInt(s.now_ms), Number(s.next_ids)) : (g) => g.nextIdAt(BigInt(s.now_ms))
      const got = same(a, b, `${c.name} step ${steps}`, op)
      const e = s.expect
      if (e.error) {
        assert.equal(got.code, e.error, c.name)
        assert.equal(got.message, e.message, c.name)
      } else if ('id' in e) assert.equal(got.ok, BigInt(e.id), c.name)
      else if ('ids' in e) assert.deepEqual(got.ok, e.ids.map(BigInt), c.name)
      else assert.deepEqual(got.ok, { first: BigInt(e.first), count: Number(e.count), stride: BigInt(e.stride) }, c.name)
      steps++
    }
    const st = a.stats()
    assert.deepEqual(st, Object.fromEntries(Object.entries(c.stats).map(([k, x]) => [k.replace(/_(\w)/g, (_, ch) => ch.toUpperCase()), BigInt(x)])), c.name)
  }
  // Those that reach the generator's own checks (policy texts and layouts are other modules').
  const parsed = (c) =>
    /^(fail|wait:\d+|logical:\d+|rollback_counter|ring:\d+)$/.test(c.on_backwards) &&
    /^(wait|fail|borrow:\d+)$/.test(c.on_exhausted) &&
    /^(zero|random|vibrate:\d{1,3})$/.test(c.sequence_start) &&
    !outcome(() => new oracle.Layout(c.layout)).error
  let invalid = 0
  for (const c of v.invalid_configs) {
    if (!parsed(c)) continue
    invalid++
    const o = { layout: c.layout, node: BigInt(c.node ?? 1), onBackwards: c.on_backwards, onExhausted: c.on_exhausted, sequenceStart: c.sequence_start }
    assert.deepStrictEqual(outcome(() => new AtomicSnowflake(o).config), outcome(() => new oracle.AtomicSnowflake(o).config), JSON.stringify(c))
  }
  assert.ok(steps > 20 && invalid > 5, `${steps} steps, ${invalid} invalid configs`)
})
