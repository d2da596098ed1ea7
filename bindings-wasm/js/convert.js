// JavaScript arguments in, checked values out: a `TypeError` (`ERR_INVALID_ARG_TYPE`) for the
// wrong type, a `RangeError` (`ERR_OUT_OF_RANGE`) for a value out of range. A port of
// bindings-js/src/convert.rs, whose rules every surface's JavaScript shares:
//
// * a 64-bit value (ID, node, time in ms, seed) is a bigint in 0..=2^64-1 or a number that is a
//   non-negative safe integer; a larger number is refused because it has already lost digits;
// * an ID may also be a decimal string (what `nextIdString()` and JSON give);
// * `what` names the argument in messages (`nowMs`, `options.seed`).
import { coreError, rangeError, typeError } from './error.js'
import { wellFormed } from './text.js'

const U64_MAX = (1n << 64n) - 1n
/** The most IDs one call returns (core `limits::MAX_BATCH`). */
export const MAX_BATCH = 1 << 24

/** Whether `v` is `undefined` or `null` (an omitted optional argument or option). */
export const isNullish = (v) => v === undefined || v === null

/** A short description of a value for messages, in the style of Node's own. */
export function describe(v) {
  switch (typeof v) {
    case 'undefined':
      return 'undefined'
    case 'number':
      return `number ${v}`
    case 'string': {
      // As Rust receives it: a lone surrogate is U+FFFD.
      v = wellFormed(v)
      const chars = [...v]
      return chars.length > 24 ? `type string ('${chars.slice(0, 24).join('')}...')` : `type string ('${v}')`
    }
    case 'object':
      return v === null ? 'null' : 'an object'
    default:
      return `type ${typeof v}`
  }
}

/** The `TypeError` for `v` given as `what`, which must be `must`. */
export const wrong = (v, what, must) => typeError(`${what} must be ${must}; received ${describe(v)}`)

/** A 64-bit unsigned value (a bigint) from a bigint or a safe non-negative integer number. */
export function u64Arg(v, what) {
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw rangeError(`${what} must be an integer; received ${v}`)
    if (v < 0) throw rangeError(`${what} must not be negative; received ${v}`)
    if (v > Number.MAX_SAFE_INTEGER)
      throw rangeError(
        `${what} as a number must be at most Number.MAX_SAFE_INTEGER; received ${v} (pass a bigint for larger values)`,
      )
    return BigInt(v)
  }
  if (typeof v === 'bigint') {
    if (v < 0n) throw rangeError(`${what} must not be negative; received a negative bigint`)
    if (v > U64_MAX)
      throw rangeError(`${what} must be at most 2^64-1 (18446744073709551615n); received a larger bigint`)
    return v
  }
  throw wrong(v, what, 'a bigint or an integer number')
}

/** An unsigned value of at most `max` (a bigint) from a bigint or an integer number. */
export function boundedArg(v, what, max) {
  const n = u64Arg(v, what)
  if (n > max) throw rangeError(`${what} must be at most ${max}; received ${n}`)
  return n
}

/** A batch count `n` (a number): at most `MAX_BATCH`, or `ERR_LIMIT_EXCEEDED`. */
export function batchArg(v) {
  const n = u64Arg(v, 'n')
  if (n > BigInt(MAX_BATCH)) throw coreError('LimitExceeded', { what: 'IDs in one call', limit: MAX_BATCH })
  return Number(n)
}

const OVERFLOW = 'value exceeds 64 bits (largest is 18446744073709551615)'
const err = (at, reason) => coreError('InvalidEncoding', { codec: 'decimal', at, reason })

/** A decimal ID string (core `Codec::Decimal.decode`): ASCII digits, at most 2^64-1. */
export function decodeDecimal(s) {
  const chars = [...s]
  if (!chars.length) throw err(0, 'empty input')
  let zeros = 0
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]
    if (c < '0' || c > '9' || c.length !== 1) throw err(i, 'not a decimal digit')
    if (c === '0' && zeros === i) zeros++
  }
  const significant = chars.length - zeros
  if (significant > 20) throw err(zeros, OVERFLOW)
  if (significant === 20) {
    const max = '18446744073709551615'
    for (let i = 0; i < 20; i++) {
      const d = chars[zeros + i]
      if (d > max[i]) throw err(zeros + i, OVERFLOW)
      if (d < max[i]) break
    }
  }
  return BigInt(s)
}

/** An ID: a bigint, a safe integer number, or a decimal string. */
export function idArg(v, what) {
  if (typeof v === 'string') return decodeDecimal(v)
  if (typeof v === 'bigint' || typeof v === 'number') return u64Arg(v, what)
  throw wrong(v, what, 'a bigint, an integer number or a decimal string')
}

/** A string. */
export function stringArg(v, what) {
  if (typeof v !== 'string') throw wrong(v, what, 'a string')
  return v
}

/** Checks that `v` is an object (not `null`, not a function) for an options argument. */
export function expectObject(v, what) {
  if (typeof v !== 'object' || v === null) throw wrong(v, what, 'an object')
}
