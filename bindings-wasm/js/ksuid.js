// KSUID (Segment's K-Sortable Unique ID): 20 bytes, a 32-bit big-endian count of seconds since
// 1400000000 (2014-05-13T16:53:20Z) and a 16-byte random payload, as 27 base62 characters
// that sort as the bytes do. A port of core/src/formats/ksuid.rs (`Ksuid` text, `KsuidGenerator`)
// and of the module's clocked `ksuid()` (bindings-wasm/src/uuid.rs), drawing the same random
// bytes.
import { coreError } from './error.js'
import { utf8 } from './text.js'
import { moduleClock } from './clock.js'
import { fill } from './random.js'

const EPOCH_S = 1400000000
const EPOCH_MS = EPOCH_S * 1000
const LEN = 27
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const TWO32 = 2 ** 32

/** The 20 bytes as five big-endian 32-bit words. */
const words = (b) => Array.from({ length: 5 }, (_, w) => new DataView(b.buffer, b.byteOffset).getUint32(4 * w))

/** The text of 20 KSUID bytes: 27 base62 characters. */
export function ksuidText(bytes) {
  const w = words(bytes)
  let out = ''
  for (let i = 0; i < LEN; i++) {
    // The 160-bit value divided by 62 once per character; every step is below 2^38.
    let rem = 0
    for (let j = 0; j < 5; j++) {
      const cur = rem * TWO32 + w[j]
      w[j] = Math.floor(cur / 62)
      rem = cur % 62
    }
    out = ALPHABET[rem] + out
  }
  return out
}

/** The 20 bytes of a KSUID text (core `Ksuid::parse`; `ERR_INVALID_ENCODING`). */
export function parseKsuidBytes(text) {
  const b = utf8(text)
  const bad = (at, reason) => coreError('InvalidEncoding', { codec: 'ksuid', at, reason })
  if (b.length !== LEN) throw bad(Math.min(b.length, LEN), 'expected exactly 27 base62 characters')
  const w = [0, 0, 0, 0, 0]
  for (let i = 0; i < LEN; i++) {
    const c = b[i]
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x5a ? c - 55 : c >= 0x61 && c <= 0x7a ? c - 61 : -1
    if (d < 0) throw bad(i, 'not a base62 character (0-9 A-Z a-z)')
    // w = w * 62 + d, from the least significant word up.
    let carry = d
    for (let j = 4; j >= 0; j--) {
      const cur = w[j] * 62 + carry
      w[j] = cur % TWO32
      carry = Math.floor(cur / TWO32)
    }
    if (carry) throw bad(i, 'above the largest KSUID, aWgEPTl1tmebfsQzFP4bxwgy80V (the value is 160 bits)')
  }
  const out = new Uint8Array(20)
  const v = new DataView(out.buffer)
  for (let j = 0; j < 5; j++) v.setUint32(4 * j, w[j])
  return out
}

/** A KSUID's time, Unix ms (whole seconds), a bigint. */
export const ksuidUnixMs = (bytes) => BigInt(msOf(bytes))

const msOf = (b) => (EPOCH_S + words(b)[0]) * 1000

/**
 * The core's `KsuidGenerator.next_at_with` on the state `g` (`{ last }`, the last KSUID's
 * bytes or null) at `now` (Unix ms, a number): a payload of 16 bytes from `random()` on a new
 * second, asked for only then; within the last KSUID's second, or when the clock steps back,
 * the last plus one (`WouldBlock` until the next second once the payload is all ones).
 *
 * As the wasm build's `draw_outside`: the payload is drawn before the state is touched, and the
 * state looked at again after the draw (a replaced `crypto.getRandomValues` may have called
 * `ksuid()` meanwhile: this one then follows that KSUID).
 */
export function ksuidNextAt(g, now, random) {
  let drawn = null
  for (;;) {
    const k = g.last === null ? null : Uint8Array.from(g.last)
    if (k !== null && now < msOf(k) + 1000) {
      let i = 19
      while (i >= 4 && k[i] === 255) k[i--] = 0
      if (i < 4) throw coreError('WouldBlock', { until_ms: msOf(k) + 1000 })
      k[i]++
      return issue(g, k)
    }
    if (now < EPOCH_MS) throw coreError('BeforeEpoch', { now_ms: now, epoch_ms: EPOCH_MS })
    const s = Math.floor(now / 1000) - EPOCH_S
    if (s >= TWO32) throw coreError('OutOfRange', { field: 'timestamp', value: s, max: TWO32 - 1 })
    if (drawn !== null) {
      const n = new Uint8Array(20)
      new DataView(n.buffer).setUint32(0, s)
      n.set(drawn, 4)
      return issue(g, n)
    }
    drawn = random()
  }
}

function issue(g, k) {
  g.last = k
  return ksuidText(k)
}

/** The module's generator (src/uuid.rs `KSUID`). */
const shared = { last: null }

const draw16 = () => {
  const r = new Uint8Array(16)
  fill(r)
  return r
}

/**
 * A KSUID from the module-wide generator on the module clock: a random payload on a new
 * second, the last plus one within it; `ERR_WOULD_BLOCK` should the payload run out within a
 * second (a page cannot sleep).
 */
export const ksuid = () => ksuidNextAt(shared, moduleClock().nowMs(), draw16)
