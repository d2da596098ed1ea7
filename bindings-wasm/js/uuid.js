// UUIDs (RFC 9562) as lower-case hyphenated strings: parsing (with the core's diagnosis of bad
// text), inspection, the sans-IO constructors v1..v8 and the v1 <-> v6 conversions, the core's
// generators (`Uuid1Core`, `Uuid6Core`, `Uuid7Core`, also for named.js), the module's clocked
// `uuid1()`, `uuid4()`, `uuid6()`, `uuid7()`, `uuid7s(n)` and the `Uuid7Generator` class.
// A port of core/src/formats/uuid (with the `uuid` crate's bit layouts), the UUID functions of
// bindings-js/src/values.rs and bindings-wasm/src/uuid.rs: the same values, errors and random
// draws (count and order) as the WebAssembly build, which the differential tests compare.
//
// A UUID inside this module is a Uint8Array(16); times are bigints where the core takes a u64.
import { coreError, notInstance, rangeError } from './error.js'
import { batchArg, boundedArg, isNullish, stringArg, u64Arg, wrong } from './convert.js'
import { bytes as randomBytes } from './random.js'
import { moduleClock } from './clock.js'
import { utf8 } from './text.js'
import { md5, sha1, sha256 } from './hash.js'

const HEX = Array.from({ length: 256 }, (_, i) => (i + 0x100).toString(16).slice(1))

/** The lower-case hyphenated text of the 16 bytes `b`. */
export function uuidText(b) {
  let s = ''
  for (let i = 0; i < 16; i++) s += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + HEX[b[i]]
  return s
}

export const NIL_UUID = '00000000-0000-0000-0000-000000000000'
export const MAX_UUID = 'ffffffff-ffff-ffff-ffff-ffffffffffff'

// ---- text --------------------------------------------------------------------------------

/** Hex digits' values by character code; -1 for anything else. */
const HEX_VALUE = new Int8Array(128).fill(-1)
for (let i = 0; i < 22; i++) HEX_VALUE['0123456789abcdefABCDEF'.charCodeAt(i)] = i < 16 ? i : i - 6

/** The `uuid` crate's `try_parse`: 32 hex digits, or 8-4-4-4-12 bare, `{braced}` or
 *  `urn:uuid:`-prefixed (its lengths are UTF-8 bytes; anything non-ASCII fails either way). */
function tryParse(s) {
  const n = s.length
  let at = 0
  if (n === 45 && s.startsWith('urn:uuid:')) at = 9
  else if (n === 38 && s[0] === '{' && s[37] === '}') at = 1
  else if (n !== 36 && n !== 32) return null
  const dashed = n !== 32
  const from = at
  const b = new Uint8Array(16)
  for (let k = 0; k < 32; k++) {
    const i = at - from
    if (dashed && (i === 8 || i === 13 || i === 18 || i === 23) && s.charCodeAt(at++) !== 45) return null
    const c = s.charCodeAt(at++)
    const v = c < 128 ? HEX_VALUE[c] : -1
    if (v < 0) return null
    b[k >> 1] = (b[k >> 1] << 4) | v
  }
  return b
}

const FORMS = 'a UUID is 32 hex digits, optionally hyphenated 8-4-4-4-12, braced or urn:uuid:-prefixed'
const GROUPS = 'hyphenated UUIDs are groups of 8-4-4-4-12 hex digits'
const isHex = (c) => /^[0-9a-fA-F]$/.test(c)
const dashAt = (i) => i === 8 || i === 13 || i === 18 || i === 23

/** Where (a character index) and why `s` is not a UUID: the core's `text::diagnose`. */
function diagnose(s) {
  if (!s) return [0, 'empty input']
  let body = s
  let offset = 0
  let wrapped = true
  if (s.startsWith('urn:uuid:')) (body = s.slice(9)), (offset = 9)
  else if (s[0] === '{') {
    const inner = s.slice(1)
    if (!inner.endsWith('}')) return [[...s].length, 'missing closing brace']
    ;(body = inner.slice(0, -1)), (offset = 1)
  } else wrapped = false
  // Characters as Rust counts them: a lone surrogate (U+FFFD there) is one, like a pair.
  const chars = [...body]
  const len = chars.length
  const hyphenated = wrapped || body.includes('-')
  for (let i = 0; i < len; i++) {
    const c = chars[i]
    if (hyphenated && len === 36) {
      if (dashAt(i) && c !== '-') return [offset + i, 'expected a hyphen (groups are 8-4-4-4-12 hex digits)']
      if (!dashAt(i) && !isHex(c)) return [offset + i, 'not a hexadecimal digit']
    } else if (c !== '-' && !isHex(c)) return [offset + i, 'not a hexadecimal digit']
  }
  if (hyphenated && len !== 36) {
    // Blame the first hyphen out of place, or the end.
    const i = chars.findIndex((c, i) => dashAt(i) !== (c === '-'))
    return [offset + (i < 0 ? len : i), GROUPS]
  }
  return [hyphenated ? 0 : len === 32 ? 0 : len, FORMS]
}

/** The 16 bytes of a UUID in any form `parseUuid` reads (core `uuid::parse`); throws the
 *  core's `ERR_INVALID_ENCODING` (codec `uuid`, the character index of the first problem). */
export function parseUuidBytes(text) {
  const b = tryParse(text)
  if (b) return b
  const [at, reason] = diagnose(text)
  throw coreError('InvalidEncoding', { codec: 'uuid', at, reason })
}

/** A UUID argument given as text (bindings-js `values::uuid_arg`): its 16 bytes. */
export const uuidArg = (v, what) => parseUuidBytes(stringArg(v, what))

/** Exactly `n` bytes from a Uint8Array (bindings-js `convert::bytes_arg`), copied. */
export function bytesArg(v, what, n) {
  if (!(v instanceof Uint8Array)) throw wrong(v, what, `a Uint8Array of ${n} bytes`)
  if (v.length !== n) throw rangeError(`${what} must hold exactly ${n} bytes; received ${v.length}`)
  return Uint8Array.from(v)
}

/** A u16 argument (a clock sequence, extra ticks), as a number. */
const u16Arg = (v, what) => Number(boundedArg(v, what, 65535))

// ---- layouts (the `uuid` crate's builders) -----------------------------------------------

/** Sets the version nibble and the RFC 9562 variant of `b` in place; returns `b`. */
export function stamp(b, version) {
  b[6] = (b[6] & 0x0f) | (version << 4)
  b[8] = (b[8] & 0x3f) | 0x80
  return b
}

/** 100 ns intervals from the Gregorian epoch (1582-10-15) to the Unix epoch. */
const GREGORIAN_TO_UNIX = 0x01b21dd213814000n
const MAX_TICKS = (1n << 60n) - 1n
const MAX_V7_MS = 2 ** 48 - 1

/** A v1 (or, `sorted`, v6) UUID of 60-bit `ticks`, a clock sequence and a node, as given. */
function gregorian(ticks, seq, node, sorted) {
  const b = new Uint8Array(16)
  const v = new DataView(b.buffer)
  if (sorted) {
    v.setUint32(0, Number(ticks >> 28n))
    v.setUint16(4, Number((ticks >> 12n) & 0xffffn))
    v.setUint16(6, Number(ticks & 0xfffn) | 0x6000)
  } else {
    v.setUint32(0, Number(ticks & 0xffffffffn))
    v.setUint16(4, Number((ticks >> 32n) & 0xffffn))
    v.setUint16(6, Number(ticks >> 48n) | 0x1000)
  }
  b[8] = ((seq >> 8) & 0x3f) | 0x80
  b[9] = seq & 0xff
  b.set(node, 10)
  return b
}

/** Core `v1`: ticks clamped to 60 bits, the node's multicast bit forced on (RFC 9562 6.10). */
function v1(ticks, seq, node) {
  const n = Uint8Array.from(node)
  n[0] |= 1
  return gregorian(ticks > MAX_TICKS ? MAX_TICKS : ticks, seq, n, false)
}

/** Core `v1_random_node`: `unixMs` (bigint) plus up to 9 999 ticks of 100 ns. */
const v1RandomNode = (unixMs, extra, seq, node) =>
  v1(GREGORIAN_TO_UNIX + unixMs * 10000n + BigInt(Math.min(extra, 9999)), seq, node)

const word = (b, i) => BigInt((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) & 0xffffffffn
const half = (b, i) => BigInt((b[i] << 8) | b[i + 1])

/** The 60-bit tick count of a v1 (time_low, time_mid, time_high) or v6 (the reverse) UUID. */
const v1Ticks = (b) => ((half(b, 6) & 0xfffn) << 48n) | (half(b, 4) << 32n) | word(b, 0)
const v6Ticks = (b) => (word(b, 0) << 28n) | (half(b, 4) << 12n) | (half(b, 6) & 0xfffn)
const seqOf = (b) => ((b[8] << 8) | b[9]) & 0x3fff

/** A v1 UUID's bits in v6 order: clock sequence and node stay as they are. */
const reorder = (b) => gregorian(v1Ticks(b), seqOf(b), b.subarray(10), true)

/** A fresh UUID's 16 bytes with `ms` (a number, at most 48 bits) in the first 6. */
function withMs(ms) {
  const b = new Uint8Array(16)
  const hi = Math.floor(ms / 2 ** 32)
  const lo = ms >>> 0
  // Stores into a Uint8Array keep the low 8 bits.
  b[0] = hi >> 8
  b[1] = hi
  b[2] = lo >>> 24
  b[3] = lo >> 16
  b[4] = lo >> 8
  b[5] = lo
  return b
}

/** A v7 UUID of `ms` (a number, at most 48 bits) and 10 random bytes (74 bits used). */
function v7(ms, r) {
  const b = withMs(ms)
  b[6] = 0x70 | (r[0] & 0x0f)
  b[7] = r[1]
  b[8] = (r[2] & 0x3f) | 0x80
  b.set(r.subarray(3, 10), 9)
  return b
}

const isRfc = (b, version) => b[6] >> 4 === version && (b[8] & 0xc0) === 0x80

// ---- inspection --------------------------------------------------------------------------

/** Core `uuid::inspect`: `{ version, variant, unixMs }` (unixMs a bigint or null). */
function inspect(b) {
  const x = b[8]
  const variant = x < 0x80 ? 'ncs' : x < 0xc0 ? 'rfc9562' : x < 0xe0 ? 'microsoft' : 'future'
  const version = b[6] >> 4
  let unixMs = null
  if (variant === 'rfc9562') {
    if (version === 7) unixMs = (half(b, 0) << 32n) | word(b, 2)
    else if (version === 1 || version === 6) {
      // The Gregorian tick count is exact; times before 1970 have none.
      const t = (version === 1 ? v1Ticks : v6Ticks)(b) - GREGORIAN_TO_UNIX
      unixMs = t < 0n ? null : t / 10000n
    }
  }
  return { version, variant, unixMs }
}

/** The creation time a UUID carries (v1, v6, v7), in Unix ms, or null (what `AnyId::unix_ms`
 *  gives for a UUID). */
export const uuidUnixMs = (b) => inspect(b).unixMs

// ---- the core's generators ---------------------------------------------------------------

/**
 * Core `Uuid1Generator`: v1 UUIDs with a random clock sequence and node, drawn once (8 bytes,
 * by `fill(8)`, a function returning that many random bytes, on the first call only); within a
 * millisecond, or while the clock is behind, it counts 100 ns ticks (then moves 1 ms on).
 */
export class Uuid1Core {
  constructor() {
    this._started = false
    this._ms = 0n
    this._extra = 0
  }

  /** The millisecond (bigint) of the last UUID, or null before the first. */
  get lastUnixMs() {
    return this._started ? this._ms : null
  }

  /** The next UUID (16 bytes) at `nowMs` (a u64 as a bigint or a safe integer number). */
  nextAt(nowMs, fill) {
    const now = BigInt(nowMs)
    // Drawn before any state changes, so a failing draw changes nothing; the state is read
    // after it, as the core's `draw_outside` calls the generator again once the bytes are in
    // (a replaced getRandomValues may have called this generator meanwhile).
    const b = this._started ? null : fill(8)
    if (!this._started) {
      this._seq = ((b[0] << 8) | b[1]) & 0x3fff
      this._node = Uint8Array.from(b.subarray(2, 8))
      this._started = true
      this._ms = now
      this._extra = 0
    } else if (now > this._ms) {
      this._ms = now
      this._extra = 0
    } else if (this._extra < 9999) this._extra++
    else {
      if (this._ms < 0xffffffffffffffffn) this._ms++
      this._extra = 0
    }
    return v1RandomNode(this._ms, this._extra, this._seq, this._node)
  }
}

/** Core `Uuid6Generator`: a `Uuid1Core` whose UUIDs are reordered into v6. */
export class Uuid6Core extends Uuid1Core {
  nextAt(nowMs, fill) {
    return reorder(super.nextAt(nowMs, fill))
  }
}

const METHODS = ['counter', 'random_increment', 'sub_millisecond']
const COUNTER_MAX = 2 ** 42 - 1
const RANDOM_MAX = (1n << 74n) - 1n
const be32 = (r, i) => ((r[i] << 24) | (r[i + 1] << 16) | (r[i + 2] << 8) | r[i + 3]) >>> 0

/**
 * Core `Uuid7Generator`: monotonic v7 UUIDs by one of RFC 9562's methods (`counter`, a 42-bit
 * counter; `random_increment`, a 74-bit number stepped by 1..2^32; `sub_millisecond`, 1/4096 ms
 * steps in rand_a). Time comes in, 10 random bytes per UUID come in.
 */
export class Uuid7Core {
  /** `method` one of the three names (checked by the caller). */
  constructor(method = 'counter') {
    this.method = method
    this._started = false
    this._ms = 0
    // The counter (a number), the 74-bit number (a bigint) or the step (a number).
    this._c = method === 'random_increment' ? 0n : 0
  }

  /** The ms (bigint) in the last UUID issued, or null before the first. */
  get lastUnixMs() {
    return this._started ? BigInt(this._ms) : null
  }

  /** The next UUID at `unixMs` (a u64 as a bigint or a number) with 10 random bytes. */
  nextAt(unixMs, random) {
    return this.nextAtPrecise(unixMs, 0, random)
  }

  /** The next UUID at `unixMs` plus `subMsNanos` (clamped to 999 999; only the
   *  `sub_millisecond` method uses it), with 10 random bytes. */
  nextAtPrecise(unixMs, subMsNanos, r) {
    const now = unixMs > MAX_V7_MS ? MAX_V7_MS : Number(unixMs)
    if (this.method === 'counter') {
      // 41 bits of seed (top bit clear), 32 fresh bits below the counter. Numbers: 42 bits fit.
      const seed = (r[0] & 1) * 2 ** 40 + r[1] * 2 ** 32 + be32(r, 2)
      let c = this._c
      if (!this._started || now > this._ms) (this._started = true), (this._ms = now), (c = seed)
      else if (c < COUNTER_MAX) c++
      else {
        if (this._ms < MAX_V7_MS) this._ms++
        c = seed
      }
      this._c = c
      // The counter across rand_a (12 bits) and the top 30 bits of rand_b; `tail` below.
      const hi = Math.floor(c / 2 ** 30)
      const lo = c % 2 ** 30
      const b = withMs(this._ms)
      b[6] = 0x70 | (hi >> 8)
      b[7] = hi
      b[8] = 0x80 | (lo >>> 24)
      b[9] = lo >> 16
      b[10] = lo >> 8
      b[11] = lo
      b[12] = r[6]
      b[13] = r[7]
      b[14] = r[8]
      b[15] = r[9]
      return b
    }
    if (this.method === 'random_increment') {
      let fresh = 0n
      for (const x of r) fresh = (fresh << 8n) | BigInt(x)
      const seed = fresh & (RANDOM_MAX >> 1n)
      const step = 1n + BigInt(be32(r, 6))
      let n = this._c
      if (!this._started || now > this._ms) (this._started = true), (this._ms = now), (n = seed)
      else if (n <= RANDOM_MAX - step) n += step
      else {
        if (this._ms < MAX_V7_MS) this._ms++
        n = seed
      }
      this._c = n
      // rand_a: bits 62..73 of the number; rand_b: its low 64 bits (the top 2 give way to
      // the variant).
      const out = new Uint8Array(10)
      const v = new DataView(out.buffer)
      v.setUint16(0, Number(n >> 62n))
      v.setBigUint64(2, n & 0xffffffffffffffffn)
      return v7(this._ms, out)
    }
    // sub_millisecond: (ms, step) compared as one number of 1/4096 ms.
    const step = Math.floor((Math.min(subMsNanos, 999999) * 4096) / 1e6)
    let ms = now
    let c = step
    if (this._started && !(now > this._ms || (now === this._ms && step > this._c))) {
      ms = this._ms
      c = this._c + 1
      if (c === 4096) (ms++, (c = 0))
      if (ms > MAX_V7_MS) (ms = MAX_V7_MS), (c = 4095)
    }
    this._started = true
    this._ms = ms
    this._c = c
    const out = Uint8Array.from(r)
    out[0] = c >> 8
    out[1] = c & 0xff
    return v7(ms, out)
  }
}

// ---- the module's clocked generators (src/uuid.rs) ---------------------------------------

const V7 = new Uuid7Core()
const V1 = new Uuid1Core()
const V6 = new Uuid6Core()

/** The next v7 UUID (16 bytes) of the module's generator, the one `uuid7()` and `typeid()`
 *  share: 10 random bytes drawn first, then the clock read (src/uuid.rs `next_v7`). */
export function nextV7() {
  const r = randomBytes(10)
  return V7.nextAt(moduleClock().nowMs(), r)
}

/** A version 7 UUID from the module-wide monotonic generator. */
export const uuid7 = () => uuidText(nextV7())

/** `n` version 7 UUIDs of the module-wide generator: one clock reading, one draw of 10n bytes. */
export function uuid7s(n) {
  n = batchArg(n)
  const now = moduleClock().nowMs()
  const r = randomBytes(n * 10)
  const out = new Array(n)
  for (let i = 0; i < n; i++) out[i] = uuidText(V7.nextAt(now, r.subarray(i * 10, i * 10 + 10)))
  return out
}

/** A version 1 UUID (random node) from the module-wide generator. */
export const uuid1 = () => uuidText(V1.nextAt(moduleClock().nowMs(), randomBytes))

/** A version 6 UUID (random node) from the module-wide generator. */
export const uuid6 = () => uuidText(V6.nextAt(moduleClock().nowMs(), randomBytes))

/** A version 4 UUID from `crypto.getRandomValues`, or from the 16 bytes given. */
export const uuid4 = (random) =>
  uuidText(stamp(isNullish(random) ? randomBytes(16) : bytesArg(random, 'random', 16), 4))

// ---- the sans-IO functions (bindings-js `format_functions_api!`) -------------------------

/** Parses a UUID in any usual form; returns the lower-case hyphenated text. */
export const parseUuid = (text) => uuidText(uuidArg(text, 'text'))

/** Version, variant and (v1, v6, v7) creation time of a UUID string. */
export const uuidInfo = (uuid) => inspect(uuidArg(uuid, 'uuid'))

/** `uuid1At` and `uuid6At`: ticks, clock sequence and node converted in that order. */
function gregorianAt(ticks, clockSeq, node, sorted) {
  const t = u64Arg(ticks, 'ticks')
  const b = v1(t, u16Arg(clockSeq, 'clockSeq'), bytesArg(node, 'node', 6))
  return uuidText(sorted ? reorder(b) : b)
}

/** A version 1 UUID from 60-bit ticks since 1582-10-15, a 14-bit clock sequence, a node. */
export const uuid1At = (ticks, clockSeq, node) => gregorianAt(ticks, clockSeq, node, false)

/** A version 6 UUID from 60-bit ticks since 1582-10-15, a 14-bit clock sequence, a node. */
export const uuid6At = (ticks, clockSeq, node) => gregorianAt(ticks, clockSeq, node, true)

/** A version 1 UUID at `unixMs` plus `extraTicks` (clamped to 9 999) 100 ns ticks. */
export function uuid1RandomNode(unixMs, extraTicks, clockSeq, node) {
  const ms = u64Arg(unixMs, 'unixMs')
  const extra = u16Arg(extraTicks, 'extraTicks')
  const seq = u16Arg(clockSeq, 'clockSeq')
  return uuidText(v1RandomNode(ms, extra, seq, bytesArg(node, 'node', 6)))
}

/** A version 7 UUID from a time (clamped to 48 bits) and 10 random bytes. */
export function uuid7At(unixMs, random) {
  const ms = u64Arg(unixMs, 'unixMs')
  return uuidText(v7(ms > MAX_V7_MS ? MAX_V7_MS : Number(ms), bytesArg(random, 'random', 10)))
}

/** The RFC 9562 namespaces by name. */
const NAMESPACES = {
  dns: '6ba7b8109dad11d180b400c04fd430c8',
  url: '6ba7b8119dad11d180b400c04fd430c8',
  oid: '6ba7b8129dad11d180b400c04fd430c8',
  x500: '6ba7b8149dad11d180b400c04fd430c8',
}

/** A name-based UUID (`version` 3: MD5, 5: SHA-1, 8: SHA-256) of a namespace (a UUID or
 *  `dns`, `url`, `oid`, `x500`) and a name (text as UTF-8, or bytes). */
function nameBased(version, namespace, name) {
  const ns = stringArg(namespace, 'namespace')
  const nsBytes = Object.prototype.hasOwnProperty.call(NAMESPACES, ns) ? tryParse(NAMESPACES[ns]) : parseUuidBytes(ns)
  let n = name
  if (typeof n === 'string') n = utf8(n)
  else if (!(n instanceof Uint8Array)) throw wrong(n, 'name', 'a string or a Uint8Array')
  const data = new Uint8Array(16 + n.length)
  data.set(nsBytes)
  data.set(n, 16)
  const digest = (version === 3 ? md5 : version === 5 ? sha1 : sha256)(data)
  return uuidText(stamp(digest.subarray(0, 16), version))
}

/** A version 3 (MD5, name-based) UUID. */
export const uuid3 = (namespace, name) => nameBased(3, namespace, name)

/** A version 5 (SHA-1, name-based) UUID. */
export const uuid5 = (namespace, name) => nameBased(5, namespace, name)

/** A name-based version 8 UUID: the first 16 bytes of SHA-256 (RFC 9562 appendix B.2). */
export const uuid8Sha256 = (namespace, name) => nameBased(8, namespace, name)

/** A version 8 UUID from 16 bytes (version and variant set, 122 bits kept). */
export const uuid8 = (bytes) => uuidText(stamp(bytesArg(bytes, 'bytes', 16), 8))

/** A version 8 UUID from RFC 9562's custom fields: 48, 12 and 62 bits. */
export function uuid8FromFields(customA, customB, customC) {
  const values = [u64Arg(customA, 'customA'), u64Arg(customB, 'customB'), u64Arg(customC, 'customC')]
  ;[48n, 12n, 62n].forEach((bits, i) => {
    const max = (1n << bits) - 1n
    if (values[i] > max) throw coreError('OutOfRange', { field: `custom_${'abc'[i]}`, value: values[i], max })
  })
  const [a, b, c] = values
  const out = new Uint8Array(16)
  const v = new DataView(out.buffer)
  v.setBigUint64(0, (a << 16n) | b)
  v.setBigUint64(8, c)
  return uuidText(stamp(out, 8))
}

/** The custom fields of a version 8 UUID (`customB` a number), or null for another version. */
export function uuid8Fields(uuid) {
  const b = uuidArg(uuid, 'uuid')
  if (!isRfc(b, 8)) return null
  const v = new DataView(b.buffer)
  return {
    customA: v.getBigUint64(0) >> 16n,
    customB: v.getUint16(6) & 0xfff,
    customC: v.getBigUint64(8) & ((1n << 62n) - 1n),
  }
}

/** The core's refusal of a UUID of the wrong version for a conversion. */
const notVersion = (n) => coreError('InvalidArgument', { argument: 'uuid', reason: `not a version ${n} UUID` })

/** The v6 UUID with the same time, clock sequence and node as a v1 UUID. */
export function uuid1ToUuid6(uuid) {
  const b = uuidArg(uuid, 'uuid')
  if (!isRfc(b, 1)) throw notVersion(1)
  return uuidText(reorder(b))
}

/** The v1 UUID of a v6 UUID. */
export function uuid6ToUuid1(uuid) {
  const b = uuidArg(uuid, 'uuid')
  if (!isRfc(b, 6)) throw notVersion(6)
  return uuidText(gregorian(v6Ticks(b), seqOf(b), b.subarray(10), false))
}

// ---- Uuid7Generator ----------------------------------------------------------------------

// The class name as text: a minifier renames the class itself.
const U7 = 'Uuid7Generator'

/**
 * Version 7 UUIDs of one RFC 9562 method, monotonic per generator: on the module clock with
 * `crypto.getRandomValues` (`next()`), or at a given time with given bytes (`nextAt`).
 */
export class Uuid7Generator {
  #g

  constructor(method) {
    const name = isNullish(method) ? 'counter' : stringArg(method, 'method')
    if (!METHODS.includes(name))
      throw coreError('InvalidConfig', { reason: 'unknown UUID v7 method (counter, random_increment, sub_millisecond)' })
    this.#g = new Uuid7Core(name)
  }

  /** The live core of `o`: TypeError for anything not a Uuid7Generator, ERR_CLOSED once freed. */
  static #live(o) {
    if (Object(o) !== o || !(#g in o)) throw notInstance(U7)
    return o.#g ?? (() => { throw coreError('Closed', { what: U7 }) })()
  }

  next() {
    const g = Uuid7Generator.#live(this)
    const r = randomBytes(10)
    const clock = moduleClock()
    const [ms, ns] = g.method === 'sub_millisecond' ? clock.nowMsNanos() : [clock.nowMs(), 0]
    return uuidText(g.nextAtPrecise(ms, ns, r))
  }

  nextAt(nowMs, random, subMsNanos) {
    const g = Uuid7Generator.#live(this)
    const now = u64Arg(nowMs, 'nowMs')
    const r = bytesArg(random, 'random', 10)
    const ns = isNullish(subMsNanos) ? 0 : Number(boundedArg(subMsNanos, 'subMsNanos', 0xffffffff))
    return uuidText(g.nextAtPrecise(now, ns, r))
  }

  get method() {
    return Uuid7Generator.#live(this).method
  }

  get lastUnixMs() {
    return Uuid7Generator.#live(this).lastUnixMs
  }

  free() {
    if (Object(this) !== this || !(#g in this)) throw notInstance(U7)
    this.#g = null
  }
}
if (Symbol.dispose) Uuid7Generator.prototype[Symbol.dispose] = Uuid7Generator.prototype.free
