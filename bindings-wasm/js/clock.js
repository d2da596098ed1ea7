// The browser's time source, and how the clocked generators "wait" where nothing may block.
// A port of bindings-wasm/src/clock.rs (PageClock) and of the core pieces it uses:
// core/src/clock/mod.rs (the Clock trait's defaults) and core/src/clock/anchor.rs (Anchor).
//
// The clock is `performance.timeOrigin + performance.now()`: Unix ms carried on the monotonic
// clock the page started with, re-anchored to the wall clock (`Date.now()`) once every
// PERIOD_MS of monotonic time by an Anchor, so that a step of the wall clock is followed,
// forward or back (a generator then finds the clock behind its last tick and applies its
// `onBackwards` policy). Where `performance` is missing or unusable, `Date.now()` is the clock
// itself. A difference of up to MIN_STEP_MS ms (plus half a millisecond for `Date.now()`'s
// resolution) is noise and not followed.
//
// Reading it cheaply (it runs once per ID; `performance.now()` costs about 300 ns in Chromium,
// `Date.now()` about 60 ns):
// 1. The last precise reading is kept with the `Date.now()` value seen just before it; a call
//    that finds `Date.now()` on the same millisecond returns that reading again.
// 2. Within one task (synchronous script up to the next microtask checkpoint) the last reading
//    is returned again for up to CALLS_PER_READ calls without reading `Date.now()` at all; the
//    end of the task is noticed through `queueMicrotask`, so no reading is reused across tasks.
// Between steps of the wall clock readings never go backwards, are never later than the true
// time, and lag it by less than 1 ms plus the caller's own time in the reused calls.
//
// Waiting: a page cannot sleep, so `waitOrRetry` spins when the wait is at most MAX_SPIN_MS and
// otherwise answers false (the core's `Retry`: the call throws ERR_WOULD_BLOCK with `untilMs`).
//
// Times are numbers of ms (Unix ms fit in 2^53); the Rust code counts integer ns, which a
// double cannot hold for Unix times, so the anchor keeps fractional ms instead (same rules,
// same whole-ms results up to the sub-microsecond rounding of either).

/** How often the clock compares its monotonic time with the wall clock, ms of monotonic time. */
export const PERIOD_MS = 1000

/** Differences between the anchored time and `Date.now()` up to this many ms (plus half a ms
 *  for `Date.now()`'s resolution) are noise, not a step. */
export const MIN_STEP_MS = 2

/** Longest single wait spun through on the calling thread, in ms: well under a 60 Hz frame. */
export const MAX_SPIN_MS = 10

/** Calls within one task that may reuse a reading before `Date.now()` is read again. */
export const CALLS_PER_READ = 8

/** Offsets are kept within ±2^62 ns (±146 years around 1970), as the core's. */
const OFFSET_LIMIT = 2 ** 62 / 1e6

/** Whole ms since the Unix epoch of a time in ms: fractions dropped, NaN or negative give 0
 *  (as Rust's saturating `as u64`; the layout then refuses 0 with ERR_BEFORE_EPOCH). */
const wholeMs = (ms) => (ms > 0 ? Math.floor(ms) : 0)

/**
 * Wall time carried on a monotonic clock: `mono + offset`, the offset (wall − monotonic) being
 * re-measured once a period, off the hot path. Sans-IO: the caller reads both clocks. Times
 * are ms (fractional): monotonic ones from any fixed origin, wall ones since the Unix epoch.
 */
export class Anchor {
  /** An anchor at `offset` measured at monotonic time `mono`; the wall clock is next due
   *  `periodMs` later. Differences up to `minStep` ms are not followed. */
  constructor(offset, mono, periodMs, minStep) {
    this._offset = clampOffset(offset)
    this._period = periodMs > 1e-6 ? periodMs : 1e-6 // the core's 1 ns floor
    this._due = mono + this._period
    this._minStep = minStep > 0 ? minStep : 0
  }

  /** Whether a reading at monotonic time `mono` should re-anchor first. */
  isDue(mono) {
    return mono >= this._due
  }

  /** The wall time at monotonic time `mono`, whole ms since the Unix epoch (0 before it). */
  msAt(mono) {
    return wholeMs(mono + this._offset)
  }

  /** The current offset, wall − monotonic, ms. */
  get offset() {
    return this._offset
  }

  /** Claims the re-anchoring due at `mono` (true once a period) and pushes the next check a
   *  period past `mono`. */
  claim(mono) {
    if (!(mono >= this._due)) return false
    this._due = mono + this._period
    return true
  }

  /** Pushes the next check a period past `mono` (after a re-anchoring out of turn). */
  postpone(mono) {
    this._due = Math.max(this._due, mono + this._period)
  }

  /** Compares the wall clock `wall` read at monotonic time `mono` (± `uncertainty` ms) with
   *  the anchored time and follows it if they differ by more than the minimum step plus the
   *  uncertainty. Returns the step followed in ms: 0 none (the core's `Step::None`), > 0
   *  forward (`Step::Forward`), < 0 backward (`Step::Backward`). */
  observe(wall, mono, uncertainty) {
    const next = clampOffset(wall - mono)
    const diff = next - this._offset
    // `!(… > …)`: a NaN (a broken clock) is no step either.
    if (!(Math.abs(diff) > this._minStep + (uncertainty > 0 ? uncertainty : 0))) return 0
    this._offset = next
    return diff
  }
}

function clampOffset(offset) {
  return offset < -OFFSET_LIMIT ? -OFFSET_LIMIT : offset > OFFSET_LIMIT ? OFFSET_LIMIT : offset
}

/**
 * The core's `Clock` trait: a source of Unix-ms time that can also wait (or say it cannot).
 * Only `nowMs` is required; the rest are the trait's defaults.
 */
export class Clock {
  /** A cheaper reading that may lag `nowMs` by up to `coarseLagMs()` but never leads it. */
  coarseMs() {
    return this.nowMs()
  }

  /** The most `coarseMs` can lag. */
  coarseLagMs() {
    return 0
  }

  /** `[nowMs, ns into that ms]` (UUID v7's sub-millisecond method); 0 ns without finer time. */
  nowMsNanos() {
    return [this.nowMs(), 0]
  }

  /** Spins until `nowMs` reaches `untilMs` (the no-std default: nothing may sleep here). */
  waitUntil(untilMs) {
    while (!(this.nowMs() >= untilMs)) {
      // spin
    }
  }

  /** Waits until `untilMs` (true), or answers false for a wait not sat through (the core's
   *  `Retry { until_ms }`). True may come early; the caller asks its generator again. */
  waitOrRetry(untilMs) {
    this.waitUntil(untilMs)
    return true
  }
}

/**
 * The page's clock: `performance.timeOrigin + performance.now()` re-anchored to `Date.now()`,
 * or `Date.now()` alone, read through the cache described above.
 *
 * `sources` (for tests; each defaults to globalThis's): `performance` (an object with `now()`
 * and `timeOrigin`; null = missing), `dateNow` (a function returning `Date.now()`),
 * `queueMicrotask` (null = missing), `periodMs` (re-anchoring period).
 */
export class PageClock extends Clock {
  constructor(sources) {
    super()
    const o = sources || {}
    const perf = 'performance' in o ? o.performance : globalThis.performance
    /** Where `Date.now()` is read: `Date` itself, or the injected function as `now`. */
    this._date = 'dateNow' in o ? { now: o.dateNow } : Date
    /** `queueMicrotask`, or undefined/null where there is none (then no reading is reused). */
    this._queue = 'queueMicrotask' in o ? o.queueMicrotask : globalThis.queueMicrotask
    /** The `Date.now()` value just before the last precise reading (NaN: none yet). */
    this._seenDate = NaN
    /** The last precise reading, whole Unix ms. */
    this._seenMs = 0
    /** Calls left that may reuse `_seenMs` in this task without reading `Date.now()`. */
    this._budget = 0
    /** Whether the end of the current task is already being waited for. */
    this._scheduled = false
    /** The microtask that marks the end of a task: no reuse after it. */
    this._taskEnd = () => {
      this._budget = 0
      this._scheduled = false
    }
    const origin = perf !== null && typeof perf === 'object' && typeof perf.now === 'function' ? perf.timeOrigin : undefined
    if (typeof origin === 'number' && Number.isFinite(origin) && origin > 0) {
      this._perf = perf
      this._anchor = new Anchor(origin, perf.now(), o.periodMs ?? PERIOD_MS, MIN_STEP_MS)
      // The page may have run for long: its time origin is not the wall clock now.
      this._observe()
    } else {
      this._perf = null
      /** Wall time on `performance.now()`, or null to use `Date.now()` alone. */
      this._anchor = null
    }
  }

  /** Which source the clock reads: "performance" or "Date" (the generators' `__timeSource`). */
  get source() {
    return this._anchor === null ? 'Date' : 'performance'
  }

  /** The current time, whole Unix ms: the last reading again for up to CALLS_PER_READ calls
   *  within one task, else one `Date.now()` call, plus a precise reading when `Date.now()`
   *  has moved on since the last one. */
  nowMs() {
    if (this._budget > 0) {
      this._budget--
      return this._seenMs
    }
    return this._read()
  }

  /** One precise reading with the ns into its millisecond (0 on the `Date.now()` fallback). */
  nowMsNanos() {
    const w = this._wall()
    const ms = wholeMs(w)
    if (this._anchor === null || !(w > 0)) return [ms, 0]
    return [ms, Math.min(Math.floor((w - ms) * 1e6), 999999)]
  }

  /** Spins until `untilMs` when that is at most MAX_SPIN_MS away (true), else answers false
   *  at once (Retry: the clocked call throws ERR_WOULD_BLOCK with `untilMs`). */
  waitOrRetry(untilMs) {
    const now = this._refresh(this._date.now())
    if (!(untilMs - now <= MAX_SPIN_MS)) return false
    // Spin until the wait is over; stop early if a wall clock (the Date.now fallback) steps
    // back and let the generator's policy judge the new time. Every reading refreshes the
    // cache, so the retry sees the time the wait ended at.
    for (;;) {
      const t = this._refresh(this._date.now())
      if (t >= untilMs || t < now) return true
    }
  }

  /** A fresh reading of the precise clock, whole Unix ms, re-anchoring first when due (not
   *  remembered: the benchmarks' precise floor). */
  preciseMs() {
    return wholeMs(this._wall())
  }

  /** The cache's slow path: one `Date.now()`, a precise reading if it moved, and the reuse
   *  budget for the rest of this task when the task's end can be noticed. */
  _read() {
    const d = this._date.now()
    const ms = d === this._seenDate ? this._seenMs : this._refresh(d)
    if (!this._scheduled) {
      try {
        const queue = this._queue
        queue(this._taskEnd)
      } catch {
        return ms // no queueMicrotask: never reuse a reading
      }
      this._scheduled = true
    }
    this._budget = CALLS_PER_READ - 1
    return ms
  }

  /** Takes a precise reading and remembers it with `date`, the `Date.now()` read just before. */
  _refresh(date) {
    const ms = wholeMs(this._wall())
    this._seenDate = date
    this._seenMs = ms
    return ms
  }

  /** The precise clock in fractional Unix ms (re-anchoring first when due), or `Date.now()`. */
  _wall() {
    const a = this._anchor
    if (a === null) return this._date.now()
    const mono = this._perf.now()
    if (mono >= a._due && a.claim(mono)) this._observe()
    return mono + a._offset
  }

  /** Compares `Date.now()` with the anchored time and follows a step: `Date.now()` is taken as
   *  the middle of its millisecond, at the middle of two `performance.now()` readings around it. */
  _observe() {
    const before = this._perf.now()
    const date = this._date.now()
    const after = this._perf.now()
    if (!Number.isFinite(date)) return
    const half = (after - before) / 2
    this._anchor.observe(date + 0.5, before + half, 0.5 + half)
  }
}

/**
 * The benchmark page's floors for a generator on `clock` (the glue keeps them under
 * `Snowflake[Symbol.for('idmint.bench')]`): the cheapest call returning a bigint, and that
 * plus one clock reading as the generator takes it, one `Date.now()`, one precise reading.
 */
export function benchFloors(clock) {
  const date = clock._date
  return {
    floor: () => 0x0123456789abcdefn,
    floorClock: () => BigInt(clock.nowMs()),
    floorDate: () => BigInt(wholeMs(date.now())),
    floorPrecise: () => BigInt(clock.preciseMs()),
  }
}

let shared = null
/** The module's own clock, for the calls that belong to no generator (`uuid7()`, `ulid()`), as
 *  the WebAssembly build's (src/clock.rs `now_ms`): made on first use. */
export const moduleClock = () => (shared ??= new PageClock())
