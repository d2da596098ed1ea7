// Keyed obfuscation of IDs: the core's `Obfuscator` (an 8-round alternating Feistel network
// over all `bits` bits, round function the SplitMix64 finaliser; core/src/obfuscate.rs) and
// `SortableObfuscator` (the bits below a layout's time field only), as the classes the package
// exports (bindings-js values.rs and api.rs, bindings-wasm/src/obfuscate.rs). Every u64 is a
// bigint. This is obfuscation, not encryption: see the core's notes.
import { coreError, notInstance, rangeError } from './error.js'
import { boundedArg, u64Arg, wrong } from './convert.js'
import { layoutArg } from './layout.js'

const U64 = (1n << 64n) - 1n
const U128 = (1n << 128n) - 1n
const GOLDEN = 0x9e3779b97f4a7c15n
const ROUNDS = 8
const mask = (bits) => (1n << BigInt(bits)) - 1n

/** SplitMix64's finaliser, wrapping at 64 bits as the core's `mix`. */
function mix(z) {
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & U64
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & U64
  return z ^ (z >> 31n)
}

/**
 * The 128-bit key argument (bindings-js convert.rs `u128_arg`): a bigint in 0..2^128, a safe
 * non-negative integer number, or 16 bytes read big-endian.
 */
function u128Arg(v, what) {
  if (typeof v === 'bigint') {
    if (v < 0n) throw rangeError(`${what} must not be negative`)
    if (v > U128) throw rangeError(`${what} must be at most 2^128-1`)
    return v
  }
  if (typeof v === 'number') return u64Arg(v, what)
  if (v instanceof Uint8Array) {
    if (v.length !== 16) throw rangeError(`${what} must hold exactly 16 bytes; received ${v.length}`)
    return v.reduce((k, b) => (k << 8n) | BigInt(b), 0n)
  }
  throw wrong(v, what, 'a bigint, an integer number or a 16-byte Uint8Array')
}

/** Core `Obfuscator`: the permutation of [0, 2^bits) that `key` selects (bits 2..=64). */
class Feistel {
  constructor(key, bits) {
    if (bits < 2 || bits > 64) throw coreError('InvalidConfig', { reason: 'obfuscation needs a width of 2..=64 bits' })
    const lo = key & U64
    const hi = key >> 64n
    let state = lo ^ mix(hi ^ mix(BigInt(bits) ^ GOLDEN))
    this.bits = bits
    this.max = mask(bits)
    this.keys = []
    for (let i = 0; i < ROUNDS; i++) {
      state = (state + GOLDEN) & U64
      const a = mix(state)
      state = (state + GOLDEN) & U64
      this.keys.push([a, mix(state ^ hi)])
    }
  }

  /** OutOfRange (field `id`) for `x` past `max`. */
  check(x, max = this.max) {
    if (x > max) throw coreError('OutOfRange', { field: 'id', value: x, max })
    return x
  }

  /** The round function, truncated to its `outBits` high bits. */
  round(i, r, outBits) {
    const [a, b] = this.keys[i]
    return mix(mix(r ^ a) ^ b) >> BigInt(64 - outBits)
  }

  /** (L, R) -> (R, L ^ F(R)) eight times; the halves trade widths when the width is odd. */
  permute(x) {
    let lb = this.bits >> 1
    let rb = this.bits - lb
    let l = x >> BigInt(rb)
    let r = x & mask(rb)
    for (let i = 0; i < ROUNDS; i++) {
      ;[l, r] = [r, l ^ this.round(i, r, lb)]
      ;[lb, rb] = [rb, lb]
    }
    return (l << BigInt(rb)) | r
  }

  /** The inverse of `permute`: the rounds backwards (ROUNDS is even, so the widths end as they began). */
  unpermute(y) {
    let lb = this.bits >> 1
    let rb = this.bits - lb
    let l = y >> BigInt(rb)
    let r = y & mask(rb)
    for (let i = ROUNDS - 1; i >= 0; i--) {
      ;[l, r] = [r ^ this.round(i, l, rb), l]
      ;[lb, rb] = [rb, lb]
    }
    return (l << BigInt(rb)) | r
  }
}

/** The receiver of a method of class `name`: a live instance (`core(o)` its core, null once freed). */
function live(o, core, name) {
  const c = core(o)
  if (c === undefined) throw notInstance(name)
  if (c === null) throw coreError('Closed', { what: name })
  return c
}

/** A core value handed to a constructor (not reachable from outside): `forLayout`'s result. */
class Made {
  constructor(core) {
    this.core = core
  }
}

// Class names as text: a minifier renames the classes themselves.
const OBF = 'Obfuscator'
const SORT = 'SortableObfuscator'

/** A keyed permutation of [0, 2^bits) for `bits` in 2..=64. */
export class Obfuscator {
  #f
  static #core = (o) => (Object(o) === o && #f in o ? o.#f : undefined)

  constructor(key, bits) {
    if (key instanceof Made) {
      this.#f = key.core
    } else {
      key = u128Arg(key, 'key')
      this.#f = new Feistel(key, Number(boundedArg(bits, 'bits', 255n)))
    }
  }

  /** A full-width permutation for IDs of `layout` (time hidden too: they no longer sort). */
  static forLayout(key, layout) {
    key = u128Arg(key, 'key')
    return new Obfuscator(new Made(new Feistel(key, layoutArg(layout, 'layout')._width)))
  }

  get bits() {
    return live(this, Obfuscator.#core, OBF).bits
  }

  get max() {
    return live(this, Obfuscator.#core, OBF).max
  }

  encode(x) {
    const f = live(this, Obfuscator.#core, OBF)
    return f.permute(f.check(u64Arg(x, 'x')))
  }

  decode(y) {
    const f = live(this, Obfuscator.#core, OBF)
    return f.unpermute(f.check(u64Arg(y, 'y')))
  }

  /** Releases nothing (there is no wasm memory): later calls throw ERR_CLOSED, as the wasm build's do. */
  free() {
    if (Obfuscator.#core(this) === undefined) live(this, Obfuscator.#core, OBF)
    this.#f = null
  }
}

/** Obfuscates the bits below a layout's time field and keeps the time field: IDs stay time-sorted. */
export class SortableObfuscator {
  #s
  static #core = (o) => (Object(o) === o && #s in o ? o.#s : undefined)

  constructor(key, layout) {
    key = u128Arg(key, 'key')
    const l = layoutArg(layout, 'layout')
    const low = l._time.shift
    if (low < 2) throw coreError('InvalidConfig', { reason: 'sortable obfuscation needs at least 2 bits below the time field' })
    this.#s = { f: new Feistel(key, low), maxId: mask(l._width) }
  }

  get lowBits() {
    return live(this, SortableObfuscator.#core, SORT).f.bits
  }

  encode(id) {
    const { f, maxId } = live(this, SortableObfuscator.#core, SORT)
    id = f.check(u64Arg(id, 'id'), maxId)
    return (id & ~f.max) | f.permute(id & f.max)
  }

  decode(id) {
    const { f, maxId } = live(this, SortableObfuscator.#core, SORT)
    id = f.check(u64Arg(id, 'id'), maxId)
    return (id & ~f.max) | f.unpermute(id & f.max)
  }

  /** Releases nothing (there is no wasm memory): later calls throw ERR_CLOSED, as the wasm build's do. */
  free() {
    if (SortableObfuscator.#core(this) === undefined) live(this, SortableObfuscator.#core, SORT)
    this.#s = null
  }
}

if (typeof Symbol.dispose === 'symbol') {
  Obfuscator.prototype[Symbol.dispose] = Obfuscator.prototype.free
  SortableObfuscator.prototype[Symbol.dispose] = SortableObfuscator.prototype.free
}
