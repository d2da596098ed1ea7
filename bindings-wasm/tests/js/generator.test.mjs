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
import { rng } from './support/random.mjs'

register('./support/generator-loader.mjs', import.meta.url)
const { Snowflake, AtomicSnowflake } = await import('../../js/generator.js')
const { fake, resetFake } = await import('./support/clock-shim.mjs')
const { Layout } = await import('../../js/layout.js')
const oracle = createRequire(import.meta.url)('../../pkg/node/wasm/idmint.js')

const SEED = Number(process.env.IDMINT_SEED ?? 20261129)
const T0 = 1_700_000_000_000


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

/** The next clock reading of a run: repeats, steps forward and back, jumps; `high` the latest yet. */
function step(r, now, g, high = now) {
  const l = g.layout
  const tick = Number(l.tickMs)
  const end = Number(l.lifetimeEndMs)
  const x = r.next()
  if (x < 0.35) return now
  if (x < 0.55) return now + tick * r.int(2)
  if (x < 0.65) return now + tick * r.int(50)
  if (x < 0.75) return Math.max(0, now - tick * (1 + r.int(3)))
  if (x < 0.8) return Math.max(0, now - tick * r.int(3000))
  if (x < 0.9) return Math.min(high, end - tick) + tick * r.int(3) // back to the front
  if (x < 0.93) return end - r.int(3) * tick // the layout's end (and past it)
  if (x < 0.95) return Number(l.epochMs) - r.int(2) // before the epoch (and at it)
  return T0 + r.int(40) - 20 // around the fence
}

/** How many compared calls ended how (an error code, or `ok`), to show what the runs reached. */
const tally = {}

/** Calls `op` on both generators and compares. */
function same(ours, theirs, what, op) {
  const a = outcome(() => op(ours))
  const b = outcome(() => op(theirs))
  assert.deepStrictEqual(a, b, what)
  const k = a.code ?? 'ok'
  tally[k] = (tally[k] ?? 0) + 1
  return a
}

/** One generated sans-IO run on both generators (AtomicSnowflake or Snowflake's nextIdAt). */
function replay(r, ours, theirs, label, sansIoOnly) {
  // Short layouts have ended by T0: their runs start inside their life.
  const end = Number(theirs.layout.lifetimeEndMs)
  const epoch = Number(theirs.layout.epochMs)
  let now = T0 < end || sansIoOnly ? T0 : epoch + r.int(Math.floor((end - epoch) / 2))
  let high = now
  let lastId = null
  const steps = 20 + r.int(120)
  for (let i = 0; i < steps; i++) {
    now = step(r, now, theirs, high)
    if (now > high && now < Number(theirs.layout.lifetimeEndMs)) high = now
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
  // The runs reached every outcome of the state machine, many times over.
  for (const [code, least] of Object.entries({ ok: 30000, ERR_WOULD_BLOCK: 500, ERR_CLOCK_BACKWARDS: 500, ERR_SEQUENCE_EXHAUSTED: 100, ERR_LAYOUT_EXPIRED: 500, ERR_BEFORE_EPOCH: 500, ERR_INVALID_CONFIG: 100, ERR_OUT_OF_RANGE: 100 })) {
    assert.ok(tally[code] >= least, `${code}: ${tally[code]} calls (${JSON.stringify(tally)})`)
  }
  console.log(`# ${cases} configs, ${built} generators, compared calls by outcome: ${JSON.stringify(tally)}`)
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
  assert.ok(built > 60, `only ${built} configs built`)
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
      if (a.code === 'ERR_BEFORE_EPOCH' && Ours === Snowflake) {
        // The time is the clock's: the shim's for ours, the real one for the oracle's.
        assert.equal(a.nowMs, BigInt(fake.now))
        for (const e of [a, b]) {
          e.nowMs = 0n
          e.message = e.message.replace(/^time \d+/, 'time T')
        }
      }
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

/**
 * The oracle's sans-IO generator driven as the core's Clocked drives one on the shim clock
 * (at most MAX_WAITS waits of at most MAX_SPIN_MS each, the clock moved to each wait's end).
 */
function clockedOracle(b, clock) {
  const reserve = (max) => {
    for (let waits = 0; ; waits++) {
      try {
        return b.reserveAt(BigInt(clock.now), max)
      } catch (e) {
        if (e.code !== 'ERR_WOULD_BLOCK' || waits >= 64 || Number(e.untilMs) - clock.now > 10) throw e
        if (!clock.stuck) clock.now = Math.max(clock.now, Number(e.untilMs))
      }
    }
  }
  return {
    nextId: () => reserve(1).first,
    nextIdString: () => reserve(1).first.toString(),
    tryNextId: () => b.reserveAt(BigInt(clock.now), 1).first,
    reserve: (max) => reserve(max),
    nextIds: (n) => {
      const out = []
      while (out.length < n) {
        const chunkEnd = Math.min(n, (Math.floor(out.length / 8192) + 1) * 8192)
        const r = reserve(chunkEnd - out.length)
        for (let i = 0; i < r.count; i++) out.push(r.first + BigInt(i) * r.stride)
      }
      return out
    },
    stats: () => b.stats(),
  }
}

test('the clocked methods wait (spinning at most MAX_SPIN_MS) or throw ERR_WOULD_BLOCK as the core Clocked does', () => {
  const r = rng(SEED + 2)
  let built = 0
  let waited = 0
  let blocked = 0
  for (let c = 0; c < 300; c++) {
    const o = options(r)
    if (o.sequenceStart === 'random' && !o.seed) o.seed = 11n
    fake.now = Date.now()
    fake.coarseLag = 0
    fake.stuck = false
    if (outcome(() => new oracle.Snowflake(o)).error) continue
    const layout = new oracle.Layout(o.layout)
    // Time starts inside the layout's life, near its end for short ones.
    const end = Number(layout.lifetimeEndMs)
    const start = end < T0 ? end - r.int(40) * Number(layout.tickMs) : T0
    if (start < Number(layout.epochMs)) continue
    fake.now = start
    const ours = outcome(() => new Snowflake(o))
    const emulated = { now: start, stuck: false }
    if (ours.error) {
      // Only the layout's time is checked against the clock, at the shim's time here.
      assert.deepStrictEqual(ours, outcome(() => new oracle.AtomicSnowflake(o) && layout.tickAt(start)), JSON.stringify(o, (k, v) => (typeof v === 'bigint' ? `${v}n` : v)))
      continue
    }
    fake.now = start
    const a = new Snowflake(o)
    const b = clockedOracle(new oracle.AtomicSnowflake(o), emulated)
    built++
    for (let i = 0; i < 60; i++) {
      const t = step(r, emulated.now, { layout })
      fake.now = emulated.now = t
      fake.stuck = emulated.stuck = r.chance(0.05)
      fake.log = []
      const op = r.pick(['nextId', 'nextId', 'nextId', 'nextIdString', 'tryNextId', 'reserve', 'nextIds'])
      const arg = op === 'reserve' ? r.pick([1, 3, 100, 5000]) : op === 'nextIds' ? r.pick([1, 2, 7, 300, 9000]) : undefined
      const what = `clocked case ${c} op ${i} ${op}(${arg ?? ''}) at ${t} ${JSON.stringify(o, (k, v) => (typeof v === 'bigint' ? `${v}n` : v))}`
      const x = outcome(() => {
        const v = a[op](arg)
        return v instanceof BigUint64Array ? Array.from(v) : v
      })
      const y = outcome(() => b[op](arg))
      assert.deepStrictEqual(x, y, what)
      assert.equal(fake.now, emulated.now, `${what}: the clock was moved elsewhere`)
      assert.deepStrictEqual(a.stats(), b.stats(), `${what} stats`)
      if (fake.log.some(([k]) => k === 'wait')) waited++
      if (x.code === 'ERR_WOULD_BLOCK') blocked++
    }
  }
  assert.ok(built > 50 && waited > 50 && blocked > 20, `${built} generators, ${waited} calls waited, ${blocked} blocked`)
})

test('a coarse clock is read first and confirmed with a precise reading', () => {
  const o = { layout: 'time=41@1ms,worker=10,seq=3,epoch=2020-01-01', node: 7, onBackwards: 'fail' }
  resetFake(T0, 3)
  const a = new Snowflake(o)
  const b = new oracle.AtomicSnowflake(o)
  assert.equal(a.nextId(), b.nextIdAt(T0))
  // A coarse reading behind the last tick by at most its lag: the tick goes on, no precise reading.
  fake.coarse = T0 - 3
  fake.log = []
  assert.equal(a.nextId(), b.nextIdAt(T0))
  assert.deepEqual(fake.log, [['coarse', T0 - 3]])
  // Further behind: confirmed with the precise clock, which is not behind: no rollback.
  fake.coarse = T0 - 4
  fake.log = []
  assert.equal(a.nextId(), b.nextIdAt(T0))
  assert.deepEqual(fake.log.map(([k]) => k), ['coarse', 'coarse', 'coarse', 'now'])
  assert.deepStrictEqual(a.stats(), b.stats())
  assert.deepStrictEqual(a.reserve(10), b.reserveAt(T0, 10))
  // The tick used up: the coarse reading does not wait by itself; the precise one decides.
  fake.log = []
  const e = outcome(() => a.tryNextId())
  assert.deepStrictEqual(e, outcome(() => b.nextIdAt(T0)))
  assert.equal(e.code, 'ERR_WOULD_BLOCK')
  assert.deepStrictEqual(a.stats(), b.stats())
  // Precise reading behind for real: the policy (fail) acts on it.
  fake.coarse = null
  fake.now = T0 - 100
  assert.deepStrictEqual(outcome(() => a.nextId()), outcome(() => b.nextIdAt(T0 - 100)))
  assert.deepStrictEqual(a.stats(), b.stats())
  fake.coarseLag = 0
})

test('a clock that never reaches the time asked for: the call gives up after 64 waits', () => {
  fake.now = T0
  fake.coarseLag = 0
  fake.stuck = true
  const a = new Snowflake({ layout: 'time=41@1ms,worker=10,seq=1,epoch=2020-01-01', node: 1 })
  a.nextId()
  a.nextId()
  fake.log = []
  const e = outcome(() => a.nextId())
  assert.equal(e.code, 'ERR_WOULD_BLOCK')
  assert.equal(e.untilMs, BigInt(T0 + 1))
  assert.equal(fake.log.filter(([k]) => k === 'wait').length, 64)
  fake.stuck = false
  assert.equal(outcome(() => a.nextId()).ok, new oracle.AtomicSnowflake({ layout: 'time=41@1ms,worker=10,seq=1,epoch=2020-01-01', node: 1 }).nextIdAt(T0 + 1))
})

test('a coarse reading lagging the last tick is not counted as running ahead', () => {
  const o = { layout: 'time=41@1ms,worker=10,seq=1,epoch=2020-01-01', node: 2, onExhausted: 'borrow:5' }
  resetFake(T0, 3)
  const a = new Snowflake(o)
  const b = new oracle.AtomicSnowflake(o)
  assert.deepEqual([a.nextId(), a.nextId()], [b.nextIdAt(T0), b.nextIdAt(T0)])
  // Tick T0 used up; the coarse reading (2 behind) borrows T0+1, 3 ticks past it, within the lag.
  fake.coarse = T0 - 2
  assert.equal(a.nextId(), b.nextIdAt(T0))
  assert.deepStrictEqual(a.stats(), { rollbacks: 0n, waitMs: 0n, maxAheadMs: 0n, exhaustions: 1n })
  // The oracle's precise reading counts the 1 tick it ran ahead.
  assert.equal(b.stats().maxAheadMs, 1n)
  fake.coarse = null
  fake.coarseLag = 0
})

test('receiver checks, free(), Symbol.dispose and the own per-ID methods behave as the wasm glue', () => {
  fake.now = Date.now()
  fake.coarseLag = 0
  fake.stuck = false
  const o = { layout: 'js53', node: 3 }
  const pairs = [
    [Snowflake, oracle.Snowflake],
    [AtomicSnowflake, oracle.AtomicSnowflake],
  ]
  const args = { nextIdAt: [T0], reserveAt: [T0, 1], nextIdsAt: [T0, 1], reserve: [1], nextIds: [1], decode: [1n], setNode: [1] }
  let checked = 0
  for (const [Ours, Theirs] of pairs) {
    const names = Object.getOwnPropertyNames(Theirs.prototype).filter((n) => !['constructor', '__destroy_into_raw', '__timeSource'].includes(n))
    assert.deepEqual(names.filter((n) => !(n in Ours.prototype)), [], `${Ours.name}: members missing`)
    assert.deepEqual(Object.getOwnPropertyNames(Ours.prototype).filter((n) => !names.includes(n)), ['constructor'], `${Ours.name}: extra members`)
    assert.equal(Ours.prototype[Symbol.dispose], Ours.prototype.free)
    const live = [new Ours(o), new Theirs(o)]
    const freed = [new Ours(o), new Theirs(o)]
    for (const g of freed) {
      g.free()
      g.free() // a second free() does nothing
    }
    for (const name of names) {
      for (const kind of ['plain object', 'other class', 'freed']) {
        const [ours, theirs] =
          kind === 'plain object' ? [{}, {}] : kind === 'other class' ? [new Layout2(), new Layout2()] : freed
        const get = (Cls, target) => () => {
          const d = Object.getOwnPropertyDescriptor(Cls.prototype, name)
          return d.get ? d.get.call(target) : d.value.apply(target, args[name] ?? [])
        }
        const a = outcome(get(Ours, ours))
        const b = outcome(get(Theirs, theirs))
        if (name === 'free' && kind === 'freed') assert.deepStrictEqual(a, { ok: undefined })
        if (name === 'free' && kind !== 'freed') {
          // The glue's free() on a non-instance fails before its receiver check, with a bare
          // TypeError ("this.__destroy_into_raw is not a function"); ours is the check's own.
          assert.equal(b.error, 'TypeError')
          assert.deepStrictEqual(a, { error: 'TypeError', props: ['message', 'code'], code: 'ERR_INVALID_ARG_TYPE', message: `${Ours.name} method called on an object that is not a ${Ours.name}` })
          continue
        }
        assert.deepStrictEqual(a, b, `${Ours.name}.${name} on ${kind}`)
        checked++
      }
    }
    // The own per-ID methods of a Snowflake: non-enumerable, detachable, ERR_CLOSED once freed.
    if (Ours === Snowflake) {
      const [a, b] = live
      // No enumerable own properties (the wasm object's one is its pointer, `__wbg_ptr`).
      assert.deepEqual(Object.keys(a), [])
      assert.deepEqual(Object.keys(b), ['__wbg_ptr'])
      for (const name of ['nextId', 'nextIdString', 'nextIdNumber', 'tryNextId']) {
        const d = Object.getOwnPropertyDescriptor(a, name)
        assert.deepEqual({ ...d, value: typeof d.value }, { value: 'function', writable: true, enumerable: false, configurable: true }, name)
      }
      const detached = a.nextId
      const first = detached()
      assert.equal(typeof first, 'bigint')
      assert.equal(typeof a.nextIdNumber(), 'number')
      assert.ok(BigInt(a.nextIdString()) > first)
      class Sub extends Snowflake {}
      const s = new Sub(o)
      assert.deepEqual(Object.getOwnPropertyNames(s), [])
      assert.equal(typeof s.nextId(), 'bigint')
      a[Symbol.dispose]()
      for (const name of ['nextId', 'nextIdString', 'nextIdNumber', 'tryNextId']) {
        const x = outcome(() => a[name]())
        b.free()
        assert.deepStrictEqual(x, outcome(() => b[name]()), name)
        assert.equal(x.code, 'ERR_CLOSED')
      }
      assert.equal(outcome(() => detached()).code, 'ERR_CLOSED')
    }
  }
  assert.ok(checked > 50)
})

/** A class of neither generator, for the receiver checks. */
class Layout2 {}

test('argument checks and per-call errors match the oracle', () => {
  fake.now = Date.now()
  const o = { layout: 'twitter', node: 3, onExhausted: 'fail' }
  const cases = [
    ['nextIdNumber', []],
    ['nextIds', [2 ** 24 + 1]],
    ['nextIds', [-1]],
    ['nextIds', ['3']],
    ['nextIds', [0]],
    ['reserve', [0]],
    ['reserve', [1.5]],
    ['reserve', [2n ** 64n]],
    ['reserve', [undefined]],
    ['nextIdAt', [-1]],
    ['nextIdAt', [2n ** 64n - 1n]],
    ['nextIdAt', ['1700000000000']],
    ['decode', ['x']],
    ['decode', [2n ** 64n - 1n]],
    ['decode', [-5]],
    ['setNode', [1024]],
    ['setNode', [{ worker: 3, datacenter: 4 }]],
    ['setNode', [{ nope: 1 }]],
    ['setNode', ['1']],
  ]
  for (const [Ours, Theirs] of [[Snowflake, oracle.Snowflake], [AtomicSnowflake, oracle.AtomicSnowflake]]) {
    const a = new Ours(o)
    const b = new Theirs(o)
    const more = Ours === AtomicSnowflake ? [['reserveAt', [T0, 0]], ['reserveAt', [T0, -1]], ['nextIdsAt', [T0, 2 ** 24 + 1]], ['nextIdsAt', [T0, 0]], ['nextIdsAt', [1, 1]], ['nextIdsAt', [T0, 5000]]] : []
    for (const [name, xs] of [...cases, ...more]) {
      if (!(name in b)) continue
      same(a, b, `${Ours.name}.${name}(${xs.map(String)})`, (g) => {
        const v = g[name](...xs)
        return [v instanceof BigUint64Array ? v.length : v, g.node, g.stats()]
      })
    }
  }
})

test('a random sequence start draws its seed with crypto.getRandomValues for Snowflake only', () => {
  fake.now = Date.now()
  const o = { layout: 'twitter', node: 9, sequenceStart: 'random' }
  const seen = []
  const real = globalThis.crypto
  const spy = { getRandomValues: (b) => (seen.push(b.length), real.getRandomValues(b)) }
  Object.defineProperty(globalThis, 'crypto', { value: spy, configurable: true, writable: true })
  try {
    const s = new Snowflake(o)
    // Eight bytes from the 256-byte pool, as the WebAssembly build draws them (src/random.rs):
    // Web Crypto is called only when the pool runs out.
    assert.ok(seen.length === 0 || (seen.length === 1 && seen[0] === 256), String(seen))
    const seed = BigInt(/seed=(\d+)/.exec(s.config)[1])
    assert.ok(seed > 0n)
    // The drawn seed is the one the IDs use: the same as a generator given that seed.
    const b = new oracle.AtomicSnowflake({ ...o, seed })
    assert.deepEqual([s.nextIdAt(T0), s.nextIdAt(T0 + 5)], [b.nextIdAt(T0), b.nextIdAt(T0 + 5)])
    assert.equal(s.config, b.config)
    // AtomicSnowflake keeps seed 0, as the core does.
    seen.length = 0
    const a = new AtomicSnowflake(o)
    const c = new oracle.AtomicSnowflake(o)
    assert.deepEqual(seen, [])
    assert.equal(a.config, c.config)
    assert.deepEqual([a.nextIdAt(T0), a.nextIdAt(T0 + 9)], [c.nextIdAt(T0), c.nextIdAt(T0 + 9)])
    // An explicit seed is kept.
    new Snowflake({ ...o, seed: 5n })
    assert.deepEqual(seen, [])
    // Without Web Crypto: ERR_RANDOM_SOURCE once the pool is used up (at most 32 seeds).
    Object.defineProperty(globalThis, 'crypto', { value: undefined, configurable: true, writable: true })
    const e = outcome(() => {
      for (let i = 0; i < 33; i++) new Snowflake(o)
    })
    assert.deepStrictEqual(e, { error: 'Error', props: ['message', 'code'], code: 'ERR_RANDOM_SOURCE', message: 'random source failed' })
  } finally {
    Object.defineProperty(globalThis, 'crypto', { value: real, configurable: true, writable: true })
  }
})

test("a generator keeps its own layout: freeing the caller's or a handed-out one changes nothing", () => {
  fake.now = Date.now()
  for (const Cls of [Snowflake, AtomicSnowflake]) {
    const given = new Layout('time=41@1ms,worker=10,seq=12,epoch=2020-01-01')
    const g = new Cls({ layout: given, node: 5 })
    given.free()
    const out = g.layout
    assert.notEqual(out, g.layout)
    out.free()
    const id = g.nextIdAt(T0)
    assert.equal(g.layout.spec, 'time=41@1ms,worker=10,seq=12,epoch=2020-01-01')
    assert.equal(g.decode(id).node, 5n)
    assert.match(g.config, /layout=\(time=41@1ms/)
  }
})
