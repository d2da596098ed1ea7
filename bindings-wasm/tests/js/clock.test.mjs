// The page clock (js/clock.js): the Rust tests of bindings-wasm/src/clock.rs and
// core/src/clock/anchor.rs, on injected fake sources (a `performance` whose `now()` the test
// moves, a `Date.now()` that steps, a `queueMicrotask` whose tasks the test ends), so no
// assertion depends on real timing. The oracle (the wasm build) checks the time source the
// generators report and meets a clock stepped back through its onBackwards policy.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

import { Anchor, CALLS_PER_READ, Clock, MAX_SPIN_MS, MIN_STEP_MS, PERIOD_MS, PageClock, benchFloors } from '../../js/clock.js'
import { mulberry32 } from './support/random.mjs'

const oracle = createRequire(import.meta.url)('../../pkg/node/wasm/idmint.js')

const ORIGIN = 1_700_000_000_000

/** A fake page: `performance.now()` returns `mono` (then moves it on by `step`), `Date.now()`
 *  is the whole ms of ORIGIN + mono + shift; calls are counted, microtasks queued. */
function page({ mono = 5_000, shift = 0, step = 0 } = {}) {
  const env = {
    mono,
    shift,
    step,
    perfCalls: 0,
    dateCalls: 0,
    queued: [],
    performance: {
      timeOrigin: ORIGIN,
      now() {
        env.perfCalls++
        const m = env.mono
        env.mono += env.step
        return m
      },
    },
    dateNow() {
      env.dateCalls++
      return Math.floor(ORIGIN + env.mono + env.shift)
    },
    queueMicrotask(f) {
      env.queued.push(f)
    },
    /** Runs the queued microtasks: the current task ends. */
    endTask() {
      const q = env.queued
      env.queued = []
      for (const f of q) f()
    },
    clock(extra = {}) {
      const c = new PageClock({ performance: env.performance, dateNow: env.dateNow, queueMicrotask: env.queueMicrotask, ...extra })
      env.perfCalls = 0
      env.dateCalls = 0
      return c
    },
  }
  return env
}

const prng = mulberry32

test('constants are the Rust ones', () => {
  assert.equal(MAX_SPIN_MS, 10)
  assert.equal(MIN_STEP_MS, 2)
  assert.equal(PERIOD_MS, 1000)
  assert.equal(CALLS_PER_READ, 8)
})

// ---- core/src/clock/anchor.rs, in ms: the Rust tests' 1 ns nudges are EPS (2^-10 ms, exact
// next to Unix times in a double).
const S = 1000
const EPS = 2 ** -10
const anchor = () => new Anchor(1_700_000_000 * S, 10 * S, 1000, 1)

test('anchor: due once a period and claimed once', () => {
  const a = anchor()
  assert.equal(a.isDue(11 * S - EPS), false)
  assert.equal(a.claim(11 * S - EPS), false)
  assert.equal(a.isDue(11 * S), true)
  assert.equal(a.claim(11 * S + 5 * EPS), true)
  assert.equal(a.claim(11 * S + 6 * EPS), false, 'a second caller in the same period')
  assert.equal(a.isDue(12 * S + 4 * EPS), false)
  assert.equal(a.isDue(12 * S + 5 * EPS), true)
  a.postpone(20 * S)
  assert.equal(a.isDue(20 * S + 5 * EPS), false)
  assert.equal(a.claim(21 * S), true)
  // postpone never pulls the check earlier
  a.postpone(0)
  assert.equal(a.isDue(21 * S + 1), false)
})

test('anchor: the documented example', () => {
  const mono = 5_000
  const a = new Anchor(1_700_000_000_000 - mono, mono, 1000, 1)
  assert.equal(a.msAt(mono + 3), 1_700_000_000_003)
  const later = mono + 1000
  assert.ok(a.isDue(later) && a.claim(later) && !a.claim(later))
  assert.equal(a.observe(1_700_000_001_000 - 2_000, later, 0), -2_000)
  assert.equal(a.msAt(later), 1_699_999_999_000)
})

test('anchor: noise within the tolerance is not followed', () => {
  const a = anchor()
  const off = a.offset
  const mono = 11 * S
  assert.equal(a.observe(mono + off - 1, mono, 0), 0)
  assert.equal(a.observe(mono + off + 1, mono, 0), 0)
  assert.equal(a.observe(mono + off - 3, mono, 2), 0)
  assert.equal(a.observe(mono + off + 3, mono, -5), 3, 'a negative uncertainty counts as 0')
  const a2 = anchor()
  assert.equal(a2.offset, off)
  // Small drifts add up against the kept offset and are followed once past it.
  assert.equal(a2.observe(mono + off - 1 - EPS, mono, 0), -(1 + EPS))
  assert.equal(a2.offset, off - 1 - EPS)
})

test('anchor: steps are followed both ways', () => {
  const a = anchor()
  const mono = 11 * S
  const before = a.msAt(mono)
  assert.equal(a.observe(mono + a.offset + 10 * S, mono, 100e-6), 10 * S)
  assert.equal(a.msAt(mono), before + 10_000)
  assert.equal(a.observe(mono + a.offset - 15 * S, mono, 100e-6), -15 * S)
  assert.equal(a.msAt(mono), before - 5_000)
})

test('anchor: extreme readings neither overflow nor wrap', () => {
  for (const big of [Infinity, Number.MAX_VALUE]) {
    const a = new Anchor(big, big, big, big)
    assert.equal(a.isDue(Number.MAX_VALUE / 2), false)
    assert.ok(a.msAt(2 ** 61 / 1e6) > 0)
    assert.ok(Number.isFinite(a.offset))
  }
  const b = anchor()
  assert.equal(b.msAt(-(2 ** 62) / 1e6 - 1_700_000_000 * S), 0)
  assert.equal(b.observe(-Infinity, Infinity, Infinity), 0)
  assert.ok(b.observe(-Infinity, Infinity, 0) < 0)
  assert.equal(b.msAt(0), 0)
  assert.ok(b.observe(Infinity, -Infinity, 0) > 0)
  assert.ok(b.msAt(0) > 0)
  const off = b.offset
  assert.equal(b.observe(NaN, 0, 0), 0, 'NaN is no step')
  assert.equal(b.offset, off)
  // a zero period still moves the check on (the core's 1 ns floor)
  const z = new Anchor(0, 0, 0, 0)
  assert.equal(z.claim(0), false)
  assert.equal(z.claim(1e-6), true)
  assert.equal(z.claim(1e-6), false)
})

// ---- bindings-wasm/src/clock.rs

test('source: performance when it is usable, else Date.now()', () => {
  const env = page()
  const now = () => 1
  const bad = [null, undefined, 0, 'performance', {}, { now: 1, timeOrigin: ORIGIN }, { timeOrigin: ORIGIN }]
  for (const timeOrigin of [0, -1, NaN, Infinity, -Infinity, String(ORIGIN), undefined, null, BigInt(ORIGIN)]) bad.push({ now, timeOrigin })
  for (const performance of bad) {
    assert.equal(env.clock({ performance }).source, 'Date', `performance ${String(performance?.timeOrigin ?? performance)}`)
  }
  assert.equal(env.clock().source, 'performance')
  assert.equal(new PageClock({ performance: { now, timeOrigin: 0.5 } }).source, 'performance')
  // performance.now is found on the prototype, as Reflect.get finds it
  const proto = { now }
  assert.equal(new PageClock({ performance: Object.assign(Object.create(proto), { timeOrigin: ORIGIN }) }).source, 'performance')
})

test('the globals: Node has performance, as the oracle reports for its generators', () => {
  const ours = new PageClock()
  const theirs = new oracle.Snowflake({ layout: 'twitter', node: 1 })
  try {
    assert.equal(ours.source, theirs.__timeSource)
  } finally {
    theirs.free()
  }
  const t = ours.nowMs()
  assert.ok(Number.isInteger(t) && t > 1_600_000_000_000)
  // the floors of the benchmark page
  const f = benchFloors(ours)
  for (const k of ['floor', 'floorClock', 'floorDate', 'floorPrecise']) assert.equal(typeof f[k](), 'bigint', k)
  // a wait of 2 ms is spun through: afterwards the clock has reached it
  const until = ours.nowMs() + 2
  assert.equal(ours.waitOrRetry(until), true)
  assert.ok(ours.nowMs() >= until)
  assert.equal(ours.waitOrRetry(ours.nowMs() + 1000), false)
})

test('performance.timeOrigin + performance.now(), checked against Date.now() at the start', () => {
  const env = page({ mono: 5_000.75 })
  const c = env.clock()
  assert.equal(c.preciseMs(), ORIGIN + 5_000)
  env.mono = 5_001.25
  assert.equal(c.preciseMs(), ORIGIN + 5_001)
  assert.deepEqual(c.nowMsNanos(), [ORIGIN + 5_001, 250_000])
  // The page ran long (the device slept): its time origin is a minute behind the wall clock,
  // which the first reading already follows.
  const slept = page({ shift: 60_000 })
  assert.equal(slept.clock().preciseMs(), ORIGIN + 5_000 + 60_000)
  assert.equal(slept.clock().nowMs(), ORIGIN + 5_000 + 60_000)
  // A Date.now() that is not finite is not observed.
  const broken = page()
  const c2 = broken.clock({ dateNow: () => NaN })
  assert.equal(c2.preciseMs(), ORIGIN + 5_000)
})

test('wall clock steps are followed a period later, forward and back', () => {
  const env = page()
  const c = env.clock({ periodMs: 20 })
  const start = c.preciseMs()
  assert.equal(start, ORIGIN + 5_000)
  env.shift = 10_000
  env.mono += 19
  assert.equal(c.preciseMs(), ORIGIN + 5_019, 'followed before a period passed')
  assert.equal(c.nowMs(), ORIGIN + 5_019)
  env.mono += 1
  const ahead = c.preciseMs()
  assert.equal(ahead, env.dateNow(), 'does not follow Date.now() forward')
  assert.ok(ahead >= start + 10_000)
  env.shift = 0
  env.mono += 10
  assert.equal(c.preciseMs(), ahead + 10, 'the clock runs on until the next check')
  env.mono += 10
  const back = c.preciseMs()
  assert.equal(back, env.dateNow(), 'does not follow Date.now() back')
  assert.ok(back + 9_000 < ahead, 'the clock did not go back')
  // and through the cheap readings, in a new task
  env.endTask()
  env.shift = 5_000
  env.mono += 20
  assert.equal(c.nowMs(), env.dateNow())
})

test('the tolerance: up to MIN_STEP_MS plus half a millisecond is noise', () => {
  const followed = (shift) => {
    const env = page()
    const c = env.clock({ periodMs: 20 })
    env.shift = shift
    env.mono += 20
    const t = c.preciseMs() // re-anchors first
    assert.ok(t === ORIGIN + 5_020 || t === ORIGIN + 5_020 + shift, `${t - ORIGIN}`)
    return t !== ORIGIN + 5_020
  }
  // Date.now() is taken as the middle of its millisecond: +0.5 ms against the anchored time.
  assert.equal(followed(0), false)
  assert.equal(followed(2), false) // |2.5| <= 2.5
  assert.equal(followed(3), true)
  assert.equal(followed(-3), false) // |-2.5| <= 2.5
  assert.equal(followed(-4), true)
  assert.equal(followed(100), true)
  assert.equal(followed(-100), true)
  // Readings around the Date.now() call 4 ms apart widen the tolerance by half of that.
  {
    const env = page()
    const c = env.clock({ periodMs: 20 })
    env.mono += 20
    env.shift = -6
    env.step = 4 // before = m, Date.now() at m + 4, after = m + 4, reading at m + 8
    assert.equal(followed(-6), true)
    assert.equal(c.preciseMs(), ORIGIN + 5_020, 'a step within the wider tolerance was followed')
  }
})

test('re-anchoring noise is never a step back: readings never go backwards', () => {
  const random = prng(0x5eed)
  const env = page()
  const c = env.clock({ periodMs: 5 })
  let last = c.preciseMs()
  let lastNow = c.nowMs()
  let checks = 0
  for (let i = 0; i < 50_000; i++) {
    env.mono += Math.floor(random() * 64) / 256 // 0 to 0.25 ms, exact in a double
    // Date.now() off the true time by up to ±1.5 ms before flooring: at most ±2 after the
    // +0.5, within the tolerance.
    env.shift = Math.floor(random() * 97) / 32 - 1.5
    if (env.mono >= 5_000 + 5 * (checks + 1)) checks++
    const t = c.preciseMs()
    assert.ok(t >= last, `went back from ${last} to ${t} at ${i}`)
    last = t
    if (random() < 0.01) env.endTask()
    const n = c.nowMs()
    assert.ok(n >= lastNow, `nowMs went back from ${lastNow} to ${n} at ${i}`)
    assert.ok(n <= t, 'nowMs ahead of the precise reading')
    lastNow = n
  }
  assert.ok(checks > 1000, 'the clock was not re-anchored often')
  assert.equal(c.preciseMs(), Math.floor(ORIGIN + env.mono), 'noise was followed')
})

test('a generator meets a 5 s step back within a period: ClockBackwards (oracle AtomicSnowflake)', () => {
  const env = page()
  const c = env.clock({ periodMs: 20 })
  const g = new oracle.AtomicSnowflake({ layout: 'time=41@1ms,worker=10,seq=12,epoch=2020-01-01', node: 1, onBackwards: 'fail' })
  const ids = [g.nextIdAt(c.nowMs())]
  env.shift = -5_000
  let e
  for (let i = 0; i < 100_000 && !e; i++) {
    env.mono += 0.01 // about a hundred IDs a millisecond
    try {
      ids.push(g.nextIdAt(c.nowMs()))
    } catch (err) {
      if (err.code !== 'ERR_WOULD_BLOCK') e = err
    }
    if (i % 100 === 0) env.endTask()
  }
  assert.ok(e, 'the step was never seen')
  assert.equal(e.code, 'ERR_CLOCK_BACKWARDS')
  assert.ok(e.byMs >= 4_900n)
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i])
  g.free()
})

test('cheap readings: reused within a task, Date.now() cached per millisecond', () => {
  const env = page()
  const c = env.clock()
  const t0 = c.nowMs()
  assert.equal(t0, ORIGIN + 5_000)
  assert.deepEqual([env.dateCalls, env.perfCalls, env.queued.length], [1, 1, 1])
  // The next CALLS_PER_READ - 1 calls of the task read nothing, however much time passed.
  env.mono += 5
  for (let i = 1; i < CALLS_PER_READ; i++) assert.equal(c.nowMs(), t0)
  assert.deepEqual([env.dateCalls, env.perfCalls], [1, 1])
  // Then Date.now() is read; it moved, so performance.now() too.
  assert.equal(c.nowMs(), ORIGIN + 5_005)
  assert.deepEqual([env.dateCalls, env.perfCalls, env.queued.length], [2, 2, 1], 'the task end is awaited once')
  // Same millisecond of Date.now(): the last reading again, performance not read.
  for (let i = 1; i < CALLS_PER_READ; i++) c.nowMs()
  env.mono += 0.5
  assert.equal(c.nowMs(), ORIGIN + 5_005)
  assert.deepEqual([env.dateCalls, env.perfCalls], [3, 2])
  // coarseMs is nowMs (the trait's default), with no lag.
  assert.equal(c.coarseLagMs(), 0)
  assert.equal(c.coarseMs(), ORIGIN + 5_005)
})

test('cheap readings: reuse ends with the task (a microtask)', () => {
  const env = page()
  const c = env.clock()
  const t0 = c.nowMs()
  env.mono += 3
  assert.equal(c.nowMs(), t0)
  env.endTask()
  // a budget was left, but a new task starts from a fresh reading
  assert.equal(c.nowMs(), ORIGIN + 5_003)
  assert.deepEqual([env.dateCalls, env.perfCalls, env.queued.length], [2, 2, 1])
  // the new task reuses again
  env.mono += 3
  assert.equal(c.nowMs(), ORIGIN + 5_003)
  assert.equal(env.dateCalls, 2)
})

test('cheap readings: the real queueMicrotask ends the reuse at the next await', async () => {
  const env = page()
  const c = env.clock({ queueMicrotask: globalThis.queueMicrotask })
  const t0 = c.nowMs()
  env.mono += 7
  assert.equal(c.nowMs(), t0)
  await null
  assert.equal(c.nowMs(), t0 + 7)
  env.mono += 7
  assert.equal(c.nowMs(), t0 + 7)
  await new Promise((resolve) => setTimeout(resolve, 0))
  assert.equal(c.nowMs(), t0 + 14)
})

test('cheap readings: without queueMicrotask no reading is reused', () => {
  for (const queueMicrotask of [null, undefined, () => { throw new Error('no microtasks') }]) {
    const env = page()
    const c = env.clock({ queueMicrotask })
    for (let i = 0; i < 3 * CALLS_PER_READ; i++) {
      env.mono += 0.125
      assert.equal(c.nowMs(), Math.floor(ORIGIN + env.mono))
    }
    assert.equal(env.dateCalls, 3 * CALLS_PER_READ, 'Date.now() read by every call')
    assert.equal(env.perfCalls, 4, 'performance read once per millisecond (5000 to 5003)')
  }
})

test('the Date.now() fallback: the wall clock itself, steps seen at once', () => {
  const env = page()
  let date = ORIGIN
  let dateCalls = 0
  const c = env.clock({ performance: null, dateNow: () => (dateCalls++, date) })
  assert.equal(c.source, 'Date')
  assert.equal(c.nowMs(), ORIGIN)
  assert.equal(dateCalls, 2, 'a new millisecond: Date.now() again for the reading')
  date += 10_000
  assert.equal(c.nowMs(), ORIGIN, 'reused within the task')
  env.endTask()
  assert.equal(c.nowMs(), ORIGIN + 10_000)
  env.endTask()
  date -= 20_000
  assert.equal(c.nowMs(), ORIGIN - 10_000, 'a step back is seen at once')
  assert.equal(c.preciseMs(), ORIGIN - 10_000)
  assert.deepEqual(c.nowMsNanos(), [ORIGIN - 10_000, 0])
  assert.equal(env.perfCalls, 0)
  // fractions dropped; NaN and negative times give 0 (the layout refuses them)
  for (const [d, ms] of [[ORIGIN + 0.75, ORIGIN], [NaN, 0], [-5, 0], [-Infinity, 0]]) {
    date = d
    env.endTask()
    assert.equal(c.nowMs(), ms, `Date.now() = ${d}`)
    assert.equal(c.preciseMs(), ms)
  }
})

test('waiting: spins up to MAX_SPIN_MS, else Retry at once', () => {
  const env = page({ step: 0.25 })
  const c = env.clock()
  const now = c.nowMs()
  // too far: false at once, after one reading
  let before = env.perfCalls
  assert.equal(c.waitOrRetry(now + MAX_SPIN_MS + 2), false)
  assert.equal(env.perfCalls - before, 1, 'spun before answering Retry')
  assert.equal(c.waitOrRetry(NaN), false)
  // within reach: spins until the clock gets there, and the cache holds the time it ended at
  for (const wait of [1, 5, MAX_SPIN_MS]) {
    env.endTask()
    const from = c.nowMs()
    before = env.perfCalls
    assert.equal(c.waitOrRetry(from + wait), true)
    // each reading moves performance.now() on by 0.25 ms; `from` lags it by less than 1 ms
    assert.ok(env.perfCalls - before >= (wait - 1) * 4, 'did not spin')
    const t = c.nowMs()
    assert.ok(t >= from + wait, `woke at ${t} before ${from + wait}`)
    assert.ok(t <= from + wait + 1)
  }
  // a time already passed: no wait
  before = env.perfCalls
  assert.equal(c.waitOrRetry(0), true)
  assert.equal(env.perfCalls - before, 2)
})

test('waiting on the Date.now() fallback stops early when the wall clock steps back', () => {
  const env = page()
  const dates = [1000, 1000, 1000, 1000, 1001, 1001, 995, 995]
  let i = 0
  const dateNow = () => {
    // a clock that is not left once it stepped back would spin here for ever: fail instead
    if (i > 1_000) throw new Error('still spinning after the wall clock stepped back')
    return dates[Math.min(i++, dates.length - 1)]
  }
  const c = env.clock({ performance: null, dateNow })
  assert.equal(c.waitOrRetry(1005), true)
  assert.equal(c.nowMs(), 995, 'the retry sees the time the wait ended at')
  // and a waited time reached on a fallback clock that moves on
  let d = 2000
  const c2 = env.clock({ performance: null, dateNow: () => d++ })
  assert.equal(c2.waitOrRetry(2008), true)
  assert.ok(c2.nowMs() >= 2008)
  assert.equal(c2.waitOrRetry(c2.nowMs() + MAX_SPIN_MS + 20), false)
})

test("the Clock trait's defaults", () => {
  class Manual extends Clock {
    constructor() {
      super()
      this.t = 100
    }
    nowMs() {
      return this.t++
    }
  }
  const m = new Manual()
  assert.equal(m.coarseMs(), 100)
  assert.equal(m.coarseLagMs(), 0)
  assert.deepEqual(m.nowMsNanos(), [101, 0])
  m.waitUntil(110)
  assert.equal(m.t, 111)
  m.waitUntil(50)
  assert.equal(m.t, 112, 'a time passed needs one reading')
  assert.equal(m.waitOrRetry(120), true)
  assert.equal(m.t, 121)
  assert.ok(new PageClock() instanceof Clock)
})

test('the benchmark floors', () => {
  const env = page()
  const c = env.clock()
  const f = benchFloors(c)
  assert.equal(f.floor(), 0x0123456789abcdefn)
  assert.equal(f.floorClock(), BigInt(ORIGIN + 5_000))
  assert.equal(env.queued.length, 1, 'floorClock reads as a generator does')
  env.mono += 2.5
  assert.equal(f.floorClock(), BigInt(ORIGIN + 5_000), 'reused as a generator does')
  assert.equal(f.floorDate(), BigInt(ORIGIN + 5_002))
  assert.equal(f.floorPrecise(), BigInt(ORIGIN + 5_002))
  assert.equal(benchFloors(new PageClock({ performance: null, dateNow: () => 1.5 })).floorDate(), 1n)
})
