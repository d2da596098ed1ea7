// ULID: 48 bits of Unix ms and 80 random bits as 26 Crockford base32 characters that sort by
// time. A port of core/src/formats/ulid.rs (`Ulid`, `UlidGenerator`), of the browser binding's
// functions (bindings-js/src/values.rs `ulid_at`, `ulid_from_uuid`, `parse_ulid`) and of the
// module's clocked `ulid()` (bindings-wasm/src/uuid.rs), drawing the same random bytes.
//
// A ULID is kept as its 16 big-endian bytes.
import { coreError, notInstance } from './error.js'
import { u64Arg, stringArg } from './convert.js'
import { utf8 } from './text.js'
import { decode128, encode128 } from './crockford.js'
import { moduleClock } from './clock.js'
import { fill } from './random.js'
import { bytesArg, uuidArg, uuidText } from './uuid.js'

/** The largest ULID time: 2^48 - 1 ms. */
const MAX_MS = 2 ** 48 - 1

/** The 16 bytes of a ULID text, either case (core `Ulid::parse`; `ERR_INVALID_ENCODING`). */
export const parseUlidBytes = (text) => decode128(utf8(text), false, 'ulid', 0)

/** The canonical (upper-case) text of 16 ULID bytes. */
export const ulidText = (bytes) => encode128(bytes, false)

/** A ULID's time, Unix ms (a bigint). */
export const ulidUnixMs = (bytes) => BigInt(msOf(bytes))

/** The 48-bit time of 16 ULID bytes, a number. */
const msOf = (b) => ((b[0] << 8) | b[1]) * 2 ** 32 + (((b[2] << 24) | (b[3] << 16) | (b[4] << 8) | b[5]) >>> 0)

/** The ULID of `ms` (a number, at most 2^48 - 1) and 10 random bytes. */
function at(ms, random) {
  const b = new Uint8Array(16)
  const hi = Math.floor(ms / 2 ** 32)
  const lo = ms % 2 ** 32
  b[0] = hi >> 8
  b[1] = hi
  b[2] = lo >>> 24
  b[3] = lo >>> 16
  b[4] = lo >>> 8
  b[5] = lo
  b.set(random, 6)
  return b
}

/**
 * The core's `UlidGenerator.next_at_with` on the state `g` (`{ last }`, the last ULID's bytes
 * or null): within the last ULID's millisecond, or when the time steps back, the last plus
 * one (`WouldBlock` until the next millisecond once its 80-bit part is all ones); on a new
 * millisecond 10 bytes from `random()`, asked for only then. `ms` is a number or a bigint.
 *
 * As the wasm build's `draw_outside`: the bytes are drawn before the state is touched, and the
 * state is looked at again after the draw — a replaced `crypto.getRandomValues` may have called
 * `ulid()` meanwhile, and then this one follows that ULID.
 */
function next(g, ms, random) {
  const now = Number(ms > MAX_MS ? MAX_MS : ms)
  let drawn = null
  for (;;) {
    const last = g.last
    if (last !== null && now <= msOf(last)) {
      const u = Uint8Array.from(last)
      let i = 15
      while (i >= 6 && u[i] === 255) u[i--] = 0
      if (i < 6) throw coreError('WouldBlock', { until_ms: msOf(last) + 1 })
      u[i]++
      return issue(g, u)
    }
    if (drawn !== null) return issue(g, at(now, drawn))
    drawn = random()
  }
}

const issue = (g, u) => {
  g.last = u
  return ulidText(u)
}

/** The module's generator, as src/uuid.rs's `ULID`. */
const shared = { last: null }

/** Fresh random bytes, drawn from the module's pool (src/random.rs) as the wasm build does. */
const draw10 = () => {
  const r = new Uint8Array(10)
  fill(r)
  return r
}

/**
 * A ULID from the module-wide monotonic generator on the module clock; `ERR_WOULD_BLOCK`
 * should the 80-bit part run out within a millisecond (a page cannot sleep).
 */
export const ulid = () => next(shared, moduleClock().nowMs(), draw10)

/** The ULID of `timestampMs` (at most 48 bits, else `ERR_OUT_OF_RANGE`) and 10 random bytes. */
export function ulidAt(timestampMs, random) {
  const ms = u64Arg(timestampMs, 'timestampMs')
  const r = bytesArg(random, 'random', 10)
  if (ms > MAX_MS) throw coreError('OutOfRange', { field: 'timestamp_ms', value: ms, max: MAX_MS })
  return ulidText(at(Number(ms), r))
}

/** The ULID with the same 128 bits as a UUID. */
export const ulidFromUuid = (uuid) => ulidText(uuidArg(uuid, 'uuid'))

const hex = (bytes) => Array.from(bytes, (x) => (x + 256).toString(16).slice(1)).join('')

/** Reads a ULID: `{ ulid, timestampMs, random, uuid }`. */
export function parseUlid(text) {
  const b = parseUlidBytes(stringArg(text, 'text'))
  return { ulid: ulidText(b), timestampMs: ulidUnixMs(b), random: hex(b.subarray(6)), uuid: uuidText(b) }
}

/** Class names as text: a minifier renames the classes themselves. */
const NAME = 'UlidGenerator'

/** Monotonic ULIDs at the times and random bytes given (core `UlidGenerator`). */
export class UlidGenerator {
  /** The state `{ last }`, or null once freed. */
  #g = { last: null }

  /** The live state of `o`: TypeError for anything not a UlidGenerator, ERR_CLOSED once freed. */
  static #live(o) {
    const g = UlidGenerator.#of(o)
    if (g === null) throw coreError('Closed', { what: NAME })
    return g
  }

  static #of(o) {
    if (Object(o) !== o || !(#g in o)) throw notInstance(NAME)
    return o.#g
  }

  /** The next ULID at `unixMs` with 10 random bytes (used only on a new millisecond). */
  nextAt(unixMs, random) {
    const g = UlidGenerator.#live(this)
    const ms = u64Arg(unixMs, 'unixMs')
    const r = bytesArg(random, 'random', 10)
    return next(g, ms, () => r)
  }

  free() {
    UlidGenerator.#of(this)
    this.#g = null
  }
}

if (typeof Symbol.dispose === 'symbol') UlidGenerator.prototype[Symbol.dispose] = UlidGenerator.prototype.free
