// `Snowflake` (clocked, on the page clock) and `AtomicSnowflake` (sans-IO): a port of the core's
// Snowflake state machine (core/src/snowflake/state.rs `Packing`, atomic.rs, clocked.rs, stats.rs)
// with identical results, and of the browser binding's classes (bindings-wasm/src/snowflake.rs,
// bindings-js/src/api.rs, the receiver checks and own per-ID methods of scripts/glue.mjs).
//
// Exact arithmetic is BigInt (the core's u64). The hot path, a single ID within the current tick
// or opening a later one, runs on plain numbers and adds the stride to the next ID kept as a
// bigint; it declines (and the exact path decides) whenever a value could exceed 2^53.
import { coreError, notInstance, notJsSafe, rangeError } from './error.js'
import { batchArg, u64Arg } from './convert.js'
import { copyLayout, lifetimeEndMs, nodeToBits } from './layout.js'
import { configText, nodeArg, parseConfig, readOptions } from './options.js'
import { PageClock } from './clock.js'
import { randomU64 } from './random.js'

const M64 = (1n << 64n) - 1n
const TWO53 = 2 ** 53
const B53 = 1n << 53n
/** IDs per reserve in batch calls: the wasm binding fills its batches in chunks this long. */
const CHUNK = 8192
/** Waits one clocked call sits through at most before it gives up with the last WouldBlock. */
const MAX_WAITS = 64

const min = (a, b) => (a < b ? a : b)
const subSat = (a, b) => (a > b ? a - b : 0n)
const capU64 = (v) => (v > M64 ? M64 : v)
const mask = (bits) => (1n << BigInt(bits)) - 1n

/** SplitMix64's finalizer (core `mix64`). */
function mix64(z) {
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64
  return z ^ (z >> 31n)
}

/** A core error not thrown yet: the state machine answers these; the front doors throw them. */
class Fail {
  constructor(variant, fields) {
    this.v = variant
    this.f = fields
  }
}
const fail = (variant, fields) => new Fail(variant, fields)
const invalid = (reason) => fail('InvalidConfig', { reason })
const raise = (f) => {
  throw coreError(f.v, f.f)
}

/** Core `Layout::tick_at`: the tick of `now` (bigint) under `layout`, or a Fail. */
function tickAt(layout, now) {
  const epoch = layout._epochMs
  if (now < epoch) return fail('BeforeEpoch', { now_ms: now, epoch_ms: epoch })
  const t = (now - epoch) / layout._tickMs
  return t > mask(layout._time.bits) ? fail('LayoutExpired', { end_ms: lifetimeEndMs(layout) }) : t
}

/** A run of IDs: `first`, `first + stride`, ... (`count` of them, a bigint here). */
const run = (first, count, stride) => ({ first, count, stride })

/**
 * The core's `AtomicSnowflake` over `Packing` (single-threaded, so a compare-and-swap is a plain
 * store): validated config, state, ring, stats and node.
 */
class Engine {
  constructor(cfg) {
    // The generator's own copy: freeing the caller's Layout leaves it working, as in wasm.
    const l = copyLayout(cfg.layout)
    cfg = { ...cfg, layout: l }
    const time = l._time
    const seq = l._seq
    const rb = l._rollback
    const maxSeq = mask(seq.bits)
    const ob = cfg.onBackwards
    const oe = cfg.onExhausted
    const ss = cfg.sequenceStart
    // Packing::new, its checks in its order.
    let phaseBits = 0
    if (ss.kind === 'vibrate') {
      if (ss.maxOffset === 0 || BigInt(ss.maxOffset) > maxSeq) {
        raise(invalid('vibrate offset must be 1..=255 and below the sequence range'))
      }
      phaseBits = 32 - Math.clz32(ss.maxOffset + 1)
    }
    let counterBits = 0
    if (ob.kind === 'rollback_counter') {
      if (!rb) raise(invalid('rollback_counter needs a layout with a rollback field (e.g. rollback=2 in the spec)'))
      counterBits = rb.bits
    }
    if (ob.kind === 'ring') {
      if (!(ob.ticks >= 2 && ob.ticks <= 65536)) raise(invalid('ring size must be 2..=65536 ticks'))
      if (ss.kind === 'vibrate') raise(invalid('the ring policy keeps no vibration state; use zero or random starts'))
      if (oe.kind === 'borrow') {
        raise(invalid('the ring policy cannot borrow future ticks (their slots would collide); use wait or fail'))
      }
    } else if ((ob.kind === 'wait' || ob.kind === 'logical') && ob.maxMs === 0n) {
      raise(invalid('wait and logical bounds must be at least 1 ms'))
    }
    if (oe.kind === 'borrow' && oe.maxTicks === 0n) raise(invalid('borrow bound must be at least 1 tick'))
    const used = time.bits + 1 + seq.bits + phaseBits + counterBits
    if (used > 64) {
      raise(invalid('layout leaves no room for the generator state (time bits + sequence bits must be at most 63)'))
    }
    let markBits = 0
    if (counterBits > 0) {
      if (64 - used < 2) {
        raise(invalid('rollback_counter needs at least 2 spare state bits; use fewer time or sequence bits'))
      }
      markBits = Math.min(64 - used, 40)
    }
    // Checked last, so a config's own mistakes are reported before the missing node.
    if (cfg.node === null || cfg.node === undefined) raise(fail('NodeRequired', {}))
    this.nodePlaced = nodeToBits(l, cfg.node)
    this.nodeValue = cfg.node
    this.cfg = cfg
    this.layout = l
    this.epoch = l._epochMs
    this.tickMs = l._tickMs
    this.maxTime = mask(time.bits)
    this.endMs = lifetimeEndMs(l)
    this.maxSeq = maxSeq
    this.timeShift = BigInt(time.shift)
    this.seqShift = BigInt(seq.shift)
    this.rbShift = BigInt(rb ? rb.shift : 0)
    this.counterMask = mask(counterBits)
    this.markBias = markBits > 0 ? 1n << BigInt(markBits - 1) : 0n
    this.stride = 1n << this.seqShift
    this.ob = ob
    this.oe = oe
    this.ss = ss
    this.seed = cfg.seed
    this.absorb = oe.kind === 'borrow' ? oe.maxTicks : 0n
    this.fenceTick1 = 0n
    // State (core `St`): tick+1 (0: nothing issued), sequence, vibration phase, rollback
    // counter, mark. `seq` is a number (at most 32 bits) for the hot path, the rest bigints.
    this.t1 = 0n
    this.seq = 0
    this.phase = 0n
    this.counter = 0n
    this.mark = 0n
    if (cfg.fenceMs !== null && cfg.fenceMs !== undefined && cfg.fenceMs >= this.epoch) {
      const t = min((cfg.fenceMs - this.epoch) / this.tickMs, this.maxTime)
      this.fenceTick1 = t + 1n
      this.t1 = t + 1n
      this.seq = Number(maxSeq)
      this.mark = this.markBias
    }
    this.ring = ob.kind === 'ring' ? new Array(ob.ticks).fill(0n) : null
    this.high1 = this.fenceTick1
    // Counters (core AtomicStats).
    this.rollbacks = 0n
    this.waitMs = 0n
    this.maxAheadMs = 0n
    this.exhaustions = 0n
    // What the last attempt observed (core `Notes`).
    this.nRollback = false
    this.nExhausted = false
    this.nAhead = 0n
    // The hot path's numbers: a clock reading below 2^53 maps to a tick as the core's does.
    // (epochN is Infinity where the hot path never applies: the ring, a huge epoch or tick.)
    this.epochN = this.ring === null && this.epoch < B53 && this.tickMs < B53 ? Number(this.epoch) : Infinity
    this.tickN = Number(this.tickMs)
    this.maxTimeN = Number(this.maxTime)
    this.maxSeqN = Number(maxSeq)
    this.absorbN = Number(this.absorb)
    this.zeroOpen = ss.kind === 'zero'
    this.sync()
  }

  /** After the state or the node changed: the hot path's copy of the tick and its next ID. */
  sync() {
    const t1 = this.t1
    this.t1N = t1 <= B53 ? Number(t1) : Infinity
    this.low = (this.counter << this.rbShift) | this.nodePlaced
    this.next = t1 === 0n ? 0n : ((t1 - 1n) << this.timeShift) | ((BigInt(this.seq) + 1n) << this.seqShift) | this.low
  }

  id(tick, seq, counter) {
    return (tick << this.timeShift) | (seq << this.seqShift) | (counter << this.rbShift)
  }

  tickStart(tick) {
    return capU64(this.epoch + capU64(tick * this.tickMs))
  }

  /** The tick of `now` (bigint), or a Fail (core `Packing::tick`). */
  tick(now) {
    if (now < this.epoch) return fail('BeforeEpoch', { now_ms: now, epoch_ms: this.epoch })
    const t = (now - this.epoch) / this.tickMs
    return t > this.maxTime ? fail('LayoutExpired', { end_ms: this.endMs }) : t
  }

  /**
   * The single-ID hot path at `now` (a number of ms) for a reading that may lag by `lag` ticks:
   * the ID, or undefined for the exact path. Core `Packing::fast_one` (the current tick has
   * room), and for exact readings (`lag` 0) the plain case of `step` that opens a later tick:
   * a zero sequence start, no rollback mark to age.
   */
  fastOne(now, lag) {
    if (!(now >= this.epochN && now < TWO53)) return undefined
    const d = now - this.epochN
    const t = this.tickN === 1 ? d : Math.floor(d / this.tickN)
    if (t > this.maxTimeN) return undefined
    const t1 = this.t1N
    if (t1 > t) {
      if (t1 - 1 - t > lag + this.absorbN || this.seq >= this.maxSeqN) return undefined
      this.seq++
      const id = this.next
      this.next = id + this.stride
      return id
    }
    if (lag !== 0 || !this.zeroOpen || this.mark !== 0n) return undefined
    const tick = BigInt(t)
    const id = (tick << this.timeShift) | this.low
    this.t1 = tick + 1n
    this.t1N = t + 1
    this.seq = 0
    this.next = id + this.stride
    return id
  }

  /** The sequence start of a newly opened tick (core `Packing::open`'s first half). */
  start(tick, st) {
    const ss = this.ss
    if (ss.kind === 'random') {
      const range = (this.maxSeq + 1n) >> 1n
      return range <= 1n ? 0n : mix64(this.seed ^ ((tick * 0x9e3779b97f4a7c15n) & M64)) % range
    }
    if (ss.kind === 'vibrate') {
      // phase stores the last offset + 1 (0 = none yet), so the first tick starts at 0.
      const offset = st.phase === 0n || st.phase > BigInt(ss.maxOffset) ? 0n : st.phase
      st.phase = offset + 1n
      return offset
    }
    return 0n
  }

  /** Opens `tick` with state `st` and takes up to `want` values: a run (no node bits) or a Fail. */
  open(st, tick, want) {
    if (tick > this.maxTime) return fail('LayoutExpired', { end_ms: this.endMs })
    const seq0 = this.start(tick, st)
    const count = min(want, this.maxSeq - seq0 + 1n)
    st.t1 = tick + 1n
    st.seq = seq0 + count - 1n
    return run(this.id(tick, seq0, st.counter), count, this.stride)
  }

  /** Core `Packing::step` on state `st` (changed in place; committed by the caller on success). */
  step(st, now, lag, want) {
    const t = this.tick(now)
    if (t instanceof Fail) return t
    if (st.t1 > t && st.t1 - 1n - t <= lag + this.absorb && st.seq < this.maxSeq) {
      const count = min(want, this.maxSeq - st.seq)
      const first = st.seq + 1n
      st.seq += count
      return run(this.id(st.t1 - 1n, first, st.counter), count, this.stride)
    }
    if (st.t1 === 0n) return this.open(st, t, want)
    const last = st.t1 - 1n
    if (t > last) {
      st.mark = subSat(st.mark, t - last)
      return this.open(st, t, want)
    }
    const behind = last - t
    if (behind <= lag + this.absorb) {
      const r = this.continueTick(st, last, t, now, want, null)
      // A coarse clock lagging the last tick is not the generator running ahead.
      if (behind <= lag && this.nAhead <= lag) this.nAhead = 0n
      return r
    }
    const lastMs = this.tickStart(last)
    const backwards = fail('ClockBackwards', { by_ms: subSat(lastMs, now), last_ms: lastMs })
    if (lag > 0n) return backwards
    this.nRollback = true
    const ob = this.ob
    switch (ob.kind) {
      case 'wait':
        return subSat(lastMs, now) <= ob.maxMs ? fail('WouldBlock', { until_ms: lastMs }) : backwards
      case 'logical':
        return subSat(lastMs, now) <= ob.maxMs ? this.continueTick(st, last, t, now, want, ob.maxMs) : backwards
      case 'rollback_counter':
        // The previous epochs' high-water tick is last + mark - B; a new epoch may start only
        // above it, with the next counter value.
        if (st.mark < this.markBias && behind < this.markBias - st.mark) {
          st.counter = (st.counter + 1n) & this.counterMask
          st.mark = behind + this.markBias
          return this.open(st, t, want)
        }
        return backwards
      default:
        return backwards
    }
  }

  continueTick(st, last, t, now, want, logicalMs) {
    if (st.seq < this.maxSeq) {
      const count = min(want, this.maxSeq - st.seq)
      const first = st.seq + 1n
      st.seq += count
      this.nAhead = last - t
      return run(this.id(last, first, st.counter), count, this.stride)
    }
    this.nExhausted = true
    const next = last + 1n
    const nextMs = this.tickStart(next)
    const oe = this.oe
    if (logicalMs !== null) {
      if (subSat(nextMs, now) > logicalMs) return fail('WouldBlock', { until_ms: nextMs - logicalMs })
    } else if (oe.kind === 'fail') {
      return fail('SequenceExhausted', { tick_ms: this.tickStart(last) })
    } else if (oe.kind === 'wait') {
      return fail('WouldBlock', { until_ms: nextMs })
    } else if (next - t > oe.maxTicks) {
      return fail('WouldBlock', { until_ms: this.tickStart(next - oe.maxTicks) })
    }
    const r = this.open(st, next, want)
    if (!(r instanceof Fail)) this.nAhead = next - t
    return r
  }

  /** Core `AtomicSnowflake::try_reserve`: one attempt (notes left in `n*`, stats untouched). */
  tryReserve(now, lag, max) {
    this.nRollback = false
    this.nExhausted = false
    this.nAhead = 0n
    if (max === 0n) return invalid('reserve at least one ID')
    if (this.ring !== null) return this.ringReserve(now, lag, max)
    const st = { t1: this.t1, seq: BigInt(this.seq), phase: this.phase, counter: this.counter, mark: this.mark }
    const r = this.step(st, now, lag, max)
    if (r instanceof Fail) return r
    this.t1 = st.t1
    this.seq = Number(st.seq)
    this.phase = st.phase
    this.counter = st.counter
    this.mark = st.mark
    this.sync()
    r.first |= this.nodePlaced
    return r
  }

  /** Core `AtomicSnowflake::reserve_at`: an attempt, recorded in the stats. */
  reserveAt(now, max) {
    const r = this.tryReserve(now, 0n, max)
    this.record(r, now)
    return r
  }

  /** Core `AtomicSnowflake::next_id_at`: an ID (bigint) or a Fail. */
  nextIdAt(now) {
    if (now < B53) {
      const id = this.fastOne(Number(now), 0)
      if (id !== undefined) return id
    }
    const r = this.reserveAt(now, 1n)
    return r instanceof Fail ? r : r.first
  }

  record(r, now) {
    const isFail = r instanceof Fail
    if (this.nRollback || this.nExhausted || this.nAhead > 0n || isFail) {
      if (this.nRollback) this.rollbacks++
      if (this.nExhausted) this.exhaustions++
      const ahead = capU64(this.nAhead * this.tickMs)
      if (ahead > this.maxAheadMs) this.maxAheadMs = ahead
      // fetch_add on an AtomicU64: wrapping.
      if (isFail && r.v === 'WouldBlock') this.waitMs = (this.waitMs + subSat(r.f.until_ms, now)) & M64
    }
  }

  ringReserve(now, lag, max) {
    const n = BigInt(this.ring.length)
    // Core Packing::ring_coarse: the reading a ring step uses for a possibly coarse one (a time
    // the layout cannot hold is its own error).
    const t0 = this.tick(now)
    if (t0 instanceof Fail) return t0
    let at = null
    if (lag === 0n || this.high1 <= t0 + 1n) at = now
    else if (this.high1 - 1n - t0 <= lag) at = this.tickStart(this.high1 - 1n)
    if (at === null) {
      const lastMs = this.high1 > 0n ? this.tickStart(this.high1 - 1n) : now
      return fail('ClockBackwards', { by_ms: subSat(lastMs, now), last_ms: lastMs })
    }
    now = at
    const t = this.tick(now)
    if (t instanceof Fail) return t
    const i = Number(t % n)
    const r = this.ringStep(n, this.ring[i], this.high1, now, t, max)
    if (r instanceof Fail) return r
    this.ring[i] = r.slot
    if (r.high1 > this.high1) this.high1 = r.high1
    return run(r.first | this.nodePlaced, r.count, this.stride)
  }

  /** Core `Packing::ring_step` for the slot of tick `t` (of `now`). */
  ringStep(ring, slot, high1, now, t, want) {
    const refuse = (tick1) => {
      const lastMs = this.tickStart(tick1 - 1n)
      return fail('ClockBackwards', { by_ms: subSat(lastMs, now), last_ms: lastMs })
    }
    if (high1 > t + 1n) {
      this.nRollback = true
      if (t + ring < high1) return refuse(high1)
    }
    if (this.fenceTick1 > 0n && t < this.fenceTick1) {
      // The fenced tick itself: wait for the next one, as the packed policies do.
      if (t + 1n === this.fenceTick1) return fail('WouldBlock', { until_ms: this.tickStart(t + 1n) })
      this.nRollback = true
      return refuse(this.fenceTick1)
    }
    const seqBits = BigInt(this.layout._seq.bits)
    const slotTick1 = slot >> seqBits
    const slotSeq = slot & this.maxSeq
    if (slotTick1 > t + 1n) return refuse(slotTick1)
    let seq0
    let count
    if (slotTick1 === t + 1n) {
      if (slotSeq >= this.maxSeq) {
        this.nExhausted = true
        return this.oe.kind === 'fail'
          ? fail('SequenceExhausted', { tick_ms: this.tickStart(t) })
          : fail('WouldBlock', { until_ms: this.tickStart(t + 1n) })
      }
      seq0 = slotSeq + 1n
      count = min(want, this.maxSeq - slotSeq)
    } else {
      seq0 = this.start(t, { phase: 0n })
      count = min(want, this.maxSeq - seq0 + 1n)
    }
    return {
      slot: ((t + 1n) << seqBits) | (seq0 + count - 1n),
      first: this.id(t, seq0, 0n),
      count,
      high1: high1 > t + 1n ? high1 : t + 1n,
    }
  }

  /**
   * Core `fill_from_runs` into `out` from the runs `reserve(max)` answers, in the binding's
   * chunks: reserves of at most what is left of the current chunk. Returns [filled, Fail or null].
   */
  fill(out, reserve) {
    const n = out.length
    let filled = 0
    while (filled < n) {
      const chunkEnd = Math.min(n, (Math.floor(filled / CHUNK) + 1) * CHUNK)
      const r = reserve(BigInt(chunkEnd - filled))
      if (r instanceof Fail) return [filled, r]
      const end = filled + Number(r.count)
      let id = r.first
      for (let i = filled; i < end; i++) {
        out[i] = id
        id += r.stride
      }
      filled = end
    }
    return [filled, null]
  }

  setNode(node) {
    this.nodePlaced = nodeToBits(this.layout, node)
    this.nodeValue = node
    this.sync()
  }

  stats() {
    return { rollbacks: this.rollbacks, waitMs: this.waitMs, maxAheadMs: this.maxAheadMs, exhaustions: this.exhaustions }
  }

  maxRollbackTicks() {
    return this.ob.kind === 'rollback_counter' ? subSat(this.markBias, 1n) : null
  }
}

/** A `BigUint64Array` of `n` elements, or the binding's RangeError when it cannot be allocated. */
function idArray(n) {
  try {
    return new BigUint64Array(n)
  } catch {
    throw rangeError(`cannot allocate an array of ${n} IDs`)
  }
}


// Class names as text: a minifier renames the classes themselves.
const SNOWFLAKE = 'Snowflake'
const ATOMIC = 'AtomicSnowflake'

/** The core's `Closed` error for a freed instance of class `name`. */
const closed = (name) => raise(fail('Closed', { what: name }))

/** The `Run` object of the JavaScript API. */
const runValue = (r) => ({ first: r.first, count: Number(r.count), stride: r.stride })

/** A config from `fromConfig`, handed to a constructor (not reachable from outside). */
class Parsed {
  constructor(cfg) {
    this.cfg = cfg
  }
}

/**
 * A `Class` (Snowflake or AtomicSnowflake) of a named config's Snowflake config (options.js
 * `parseConfig`): the core's parse ends with the generator's checks (Packing::new), so they
 * come before the clocked Snowflake's reading of the clock. For named.js and `fromConfig`.
 */
export function fromNamed(Class, cfg) {
  if (Class === Snowflake) new Engine(cfg)
  return new Class(new Parsed(cfg))
}

/**
 * Internal (leased.js): a `Snowflake` for an already checked config, as the constructor makes one
 * from options; a leased generator's config carries the grant's layout, node and fence.
 */
export const snowflakeFor = (cfg) => new Snowflake(new Parsed(cfg))

export class Snowflake {
  #e
  #clock
  #lag
  #lagN

  constructor(options) {
    this.#init(options instanceof Parsed ? options.cfg : readOptions(options, 'options'))
  }

  static fromConfig(config) {
    return fromNamed(Snowflake, parseConfig(config))
  }

  /** Core `Clocked::snowflake` on a page clock, with max_waits. */
  #init(cfg) {
    if (cfg.sequenceStart.kind === 'random' && cfg.seed === 0n) cfg = { ...cfg, seed: randomU64() }
    const clock = new PageClock()
    const covers = () => {
      const t = tickAt(cfg.layout, BigInt(clock.nowMs()))
      if (t instanceof Fail) raise(t)
    }
    covers()
    const e = new Engine(cfg)
    covers()
    this.#e = e
    this.#clock = clock
    const lagMs = BigInt(clock.coarseLagMs())
    this.#lag = (lagMs + e.tickMs - 1n) / e.tickMs
    this.#lagN = Number(this.#lag)
    if (Object.getPrototypeOf(this) === Snowflake.prototype) this.#adopt()
  }

  /** Own, non-enumerable per-ID methods closed over this object (glue.mjs items 1-3). */
  #adopt() {
    const obj = this
    const own = {
      nextId() {
        const e = obj.#e ?? closed(SNOWFLAKE)
        const id = e.fastOne(obj.#lagN > 0 ? obj.#clock.coarseMs() : obj.#clock.nowMs(), obj.#lagN)
        return id !== undefined ? id : obj.#nextSlow()
      },
      nextIdString() {
        return obj.#mint().toString()
      },
      nextIdNumber() {
        return obj.#mintNumber()
      },
      tryNextId() {
        return obj.#tryNext()
      },
    }
    for (const name of ['nextId', 'nextIdString', 'nextIdNumber', 'tryNextId']) {
      Object.defineProperty(obj, name, { value: own[name], writable: true, configurable: true })
    }
  }

  /** The live engine of `s`: TypeError for anything not a Snowflake, ERR_CLOSED once freed. */
  static #live(s) {
    if (!(#e in s)) throw notInstance(SNOWFLAKE)
    return s.#e ?? closed(SNOWFLAKE)
  }

  #fast() {
    const e = this.#e ?? closed(SNOWFLAKE)
    return e.fastOne(this.#lagN > 0 ? this.#clock.coarseMs() : this.#clock.nowMs(), this.#lagN)
  }

  #mint() {
    const id = this.#fast()
    return id !== undefined ? id : this.#nextSlow()
  }

  #mintNumber() {
    const e = this.#e ?? closed(SNOWFLAKE)
    if (e.layout._width > 53) throw notJsSafe(e.layout._width)
    return Number(this.#mint())
  }

  /** Clocked::next_id past the binding's fast path: its own fast path again, then waiting. */
  #nextSlow() {
    const id = this.#fast()
    return id !== undefined ? id : this.#reserve(1n).first
  }

  #tryNext() {
    const id = this.#fast()
    if (id !== undefined) return id
    const r = this.#tryReserve(1n)
    return r instanceof Fail ? raise(r) : r.first
  }

  /** Clocked::try_reserve: a run or a Fail, never waiting. */
  #tryReserve(max) {
    const e = this.#e
    const clock = this.#clock
    if (this.#lag > 0n) {
      const now = BigInt(clock.coarseMs())
      const r = e.tryReserve(now, this.#lag, max)
      if (!(r instanceof Fail)) {
        e.record(r, now)
        return r
      }
    }
    return e.reserveAt(BigInt(clock.nowMs()), max)
  }

  /** Clocked::reserve with max_waits: a run, waiting through WouldBlock, or throws. */
  #reserve(max) {
    for (let waits = 0; ; waits++) {
      const r = this.#tryReserve(max)
      if (!(r instanceof Fail)) return r
      if (r.v !== 'WouldBlock' || waits >= MAX_WAITS || !this.#clock.waitOrRetry(Number(r.f.until_ms))) raise(r)
    }
  }

  nextId() {
    Snowflake.#live(this)
    return this.#mint()
  }

  nextIdString() {
    Snowflake.#live(this)
    return this.#mint().toString()
  }

  nextIdNumber() {
    Snowflake.#live(this)
    return this.#mintNumber()
  }

  tryNextId() {
    Snowflake.#live(this)
    return this.#tryNext()
  }

  nextIds(n) {
    const e = Snowflake.#live(this)
    const out = idArray(batchArg(n))
    const [, f] = e.fill(out, (max) => this.#reserve(max))
    if (f) raise(f)
    return out
  }

  reserve(max) {
    Snowflake.#live(this)
    return runValue(this.#reserve(u64Arg(max, 'max')))
  }

  nextIdAt(nowMs) {
    const e = Snowflake.#live(this)
    const id = e.nextIdAt(u64Arg(nowMs, 'nowMs'))
    return id instanceof Fail ? raise(id) : id
  }

  decode(id) {
    return Snowflake.#live(this).layout.decompose(id)
  }

  stats() {
    return Snowflake.#live(this).stats()
  }

  setNode(node) {
    const e = Snowflake.#live(this)
    e.setNode(nodeArg(e.layout, node, 'node'))
  }

  get node() {
    return Snowflake.#live(this).nodeValue
  }

  get layout() {
    return copyLayout(Snowflake.#live(this).layout)
  }

  get config() {
    return configText(Snowflake.#live(this).cfg)
  }

  get maxRollbackTicks() {
    return Snowflake.#live(this).maxRollbackTicks()
  }

  free() {
    if (!(#e in this)) throw notInstance(SNOWFLAKE)
    this.#e = null
  }
}

export class AtomicSnowflake {
  #e

  constructor(options) {
    this.#e = new Engine(options instanceof Parsed ? options.cfg : readOptions(options, 'options'))
  }

  static fromConfig(config) {
    return new AtomicSnowflake(new Parsed(parseConfig(config)))
  }

  static #live(s) {
    if (!(#e in s)) throw notInstance(ATOMIC)
    return s.#e ?? closed(ATOMIC)
  }

  nextIdAt(nowMs) {
    const e = AtomicSnowflake.#live(this)
    const id = e.nextIdAt(u64Arg(nowMs, 'nowMs'))
    return id instanceof Fail ? raise(id) : id
  }

  reserveAt(nowMs, max) {
    const e = AtomicSnowflake.#live(this)
    const now = u64Arg(nowMs, 'nowMs')
    const r = e.reserveAt(now, u64Arg(max, 'max'))
    return r instanceof Fail ? raise(r) : runValue(r)
  }

  nextIdsAt(nowMs, n) {
    const e = AtomicSnowflake.#live(this)
    const now = u64Arg(nowMs, 'nowMs')
    const out = idArray(batchArg(n))
    const [filled, f] = e.fill(out, (max) => e.reserveAt(now, max))
    if (f && filled === 0) raise(f)
    return filled < out.length ? out.subarray(0, filled) : out
  }

  decode(id) {
    return AtomicSnowflake.#live(this).layout.decompose(id)
  }

  stats() {
    return AtomicSnowflake.#live(this).stats()
  }

  setNode(node) {
    const e = AtomicSnowflake.#live(this)
    e.setNode(nodeArg(e.layout, node, 'node'))
  }

  get node() {
    return AtomicSnowflake.#live(this).nodeValue
  }

  get layout() {
    return copyLayout(AtomicSnowflake.#live(this).layout)
  }

  get config() {
    return configText(AtomicSnowflake.#live(this).cfg)
  }

  get maxRollbackTicks() {
    return AtomicSnowflake.#live(this).maxRollbackTicks()
  }

  free() {
    if (!(#e in this)) throw notInstance(ATOMIC)
    this.#e = null
  }
}

if (typeof Symbol.dispose === 'symbol') {
  Snowflake.prototype[Symbol.dispose] = Snowflake.prototype.free
  AtomicSnowflake.prototype[Symbol.dispose] = AtomicSnowflake.prototype.free
}
