// Text forms of 64-bit IDs: the core's codecs (core/src/codec/: decimal, hex, base32, base62,
// and `parse_id`, which tells the codec by the text's shape) and the package's `encode` and
// `parseId` (bindings-js values.rs). A codec is held as its canonical name; every u64 is a
// bigint. Errors carry the core's `at`: a 0-based index in characters (code points), which a
// lone surrogate counts as one, as the U+FFFD the WebAssembly build receives for it.
import { coreError } from './error.js'
import { isNullish, stringArg, u64Arg } from './convert.js'
import { byteLen } from './text.js'

const BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

const bad = (codec, at, reason) => coreError('InvalidEncoding', { codec, at, reason })

/**
 * How each codec reads digits (core radix.rs `DigitSpec`): radix, the value of one character
 * (or -1), the reason for a bad character, the exact width and its reason (fixed-width codecs),
 * u64::MAX in the codec, and the overflow reason.
 */
const SPECS = {
  decimal: [10, (c) => (c >= '0' && c <= '9' ? c.charCodeAt(0) - 48 : -1), 'not a decimal digit', 0, '', '18446744073709551615', 'value exceeds 64 bits (largest is 18446744073709551615)'],
  hex: [16, (c) => (/^[0-9a-f]$/i.test(c) ? parseInt(c, 16) : -1), 'not a hexadecimal digit', 0, '', 'ffffffffffffffff', 'value exceeds 64 bits (at most 16 significant hex digits)'],
  base32: [
    32,
    // ASCII case-insensitive, with Crockford's look-alikes: I and L read as 1, O as 0.
    (c) => {
      const u = c < '\x80' ? c.toUpperCase() : c
      return BASE32.indexOf(u === 'I' || u === 'L' ? '1' : u === 'O' ? '0' : u)
    },
    'not a Crockford base32 character',
    13,
    'base32 IDs are exactly 13 characters',
    'FZZZZZZZZZZZZ',
    'value exceeds 64 bits (the first base32 character must be 0-F)',
  ],
  base62: [62, (c) => (c.length === 1 ? BASE62.indexOf(c) : -1), 'not a base62 character', 11, 'base62 IDs are exactly 11 characters', 'LygHa16AHYF', 'value exceeds 64 bits (largest is LygHa16AHYF)'],
}

/**
 * Core `decode_digits`: `s` (at character `offset` of the user's text) digit by digit. The
 * first bad character wins, then a wrong length, then overflow, blamed on the first digit that
 * makes the value too large (a digit-wise comparison with u64::MAX past the leading zeros).
 */
function decodeDigits(codec, s, offset) {
  const [radix, value, badChar, width, widthReason, max, overflow] = SPECS[codec]
  if (!s) throw bad(codec, offset, 'empty input')
  const chars = [...s]
  const digits = []
  let zeros = 0
  for (let i = 0; i < chars.length; i++) {
    const d = value(chars[i])
    if (d < 0) throw bad(codec, offset + i, badChar)
    if (d === 0 && zeros === i) zeros++
    digits.push(d)
  }
  if (width && chars.length !== width) throw bad(codec, offset + chars.length, widthReason)
  const significant = chars.length - zeros
  if (significant > max.length) throw bad(codec, offset + zeros, overflow)
  if (significant === max.length) {
    for (let i = 0; i < max.length; i++) {
      const d = digits[zeros + i]
      const m = value(max[i])
      if (d > m) throw bad(codec, offset + zeros + i, overflow)
      if (d < m) break
    }
  }
  let acc = 0n
  const r = BigInt(radix)
  for (const d of digits) acc = acc * r + BigInt(d)
  return acc
}

/** Core `Codec::decode`: `s` in `codec` (a canonical name). */
function decode(codec, s) {
  if (codec !== 'hex') return decodeDigits(codec, s, 0)
  // Hex, with or without its 0x/0X prefix (an error's `at` counts the prefix).
  const prefixed = s.startsWith('0x') || s.startsWith('0X')
  if (prefixed && s.length === 2) throw bad('hex', 2, 'no digits after the 0x prefix')
  return prefixed ? decodeDigits('hex', s.slice(2), 2) : decodeDigits('hex', s, 0)
}

const attempt = (f) => {
  try {
    return [f()]
  } catch (e) {
    return [undefined, e]
  }
}

/**
 * Core `codec::parse_id` when `codec` is null (the codec told by the text's shape: all digits
 * decimal, `0x` hex, 13 characters base32, 11 base62; 11 characters after `0x` that read both
 * as hex and as base62 are ambiguous), else `Codec::decode` in `codec`.
 */
export function parseIdWith(s, codec) {
  if (codec) return decode(codec, s)
  if (!s) throw bad('auto', 0, 'empty input')
  if (/^[0-9]+$/.test(s)) return decode('decimal', s)
  const p = s.slice(0, 2)
  if (p === '0x' || p === '0X') {
    // Lengths here are UTF-8 bytes, as the core's `str::len`.
    const n = byteLen(s)
    if (n === 11) {
      const [hex, hexErr] = attempt(() => decode('hex', s))
      const [b62, b62Err] = attempt(() => decode('base62', s))
      if (!hexErr && !b62Err)
        throw bad('auto', 0, 'ambiguous: 11 characters starting 0x read as hex and as base62; name the codec')
      if (!hexErr) return hex
      if (!b62Err) return b62
      throw hexErr
    }
    // Base32 text may begin with an upper-case 0X: 13 characters of it stay base32.
    if (p === '0x' || n !== 13) return decode('hex', s)
  }
  const n = [...s].length
  if (n === 13) return decode('base32', s)
  if (n === 11) return decode('base62', s)
  throw bad(
    'auto',
    0,
    n <= 16 && /^[0-9a-f]+$/i.test(s)
      ? 'cannot tell the codec: bare hex is ambiguous, write it with its 0x prefix or name the hex codec'
      : 'cannot tell the codec: expected digits, a 0x prefix, 13 base32 or 11 base62 characters',
  )
}

/** Core `Codec::format`: `id` (a bigint in 0..=2^64-1) as text in `codec` (a canonical name). */
export function encodeWith(id, codec) {
  if (codec === 'decimal') return id.toString()
  if (codec === 'hex') return '0x' + id.toString(16)
  const [alphabet, width] = codec === 'base32' ? [BASE32, 13] : [BASE62, 11]
  const radix = BigInt(alphabet.length)
  let out = ''
  for (let i = 0; i < width; i++, id /= radix) out = alphabet[Number(id % radix)] + out
  return out
}

const UNKNOWN = () => coreError('InvalidConfig', { reason: 'unknown codec (decimal, hex, base32, base62)' })

/**
 * Core `Codec::parse`: a codec's canonical name from one of its names, ASCII case-insensitive
 * (a regular expression's `i` without `u` never maps non-ASCII letters such as U+017F to ASCII).
 */
function codecName(name) {
  if (/^dec(imal)?$/i.test(name)) return 'decimal'
  if (/^(hex|base32|base62)$/i.test(name)) return name.toLowerCase()
  throw UNKNOWN()
}

/**
 * The `codec` argument of the parsing functions (bindings-js values `codec_arg`): absent,
 * `null` or `"auto"` (any ASCII case) give null (told by the shape), else a codec's name.
 */
export function codecArg(v) {
  if (isNullish(v)) return null
  const name = stringArg(v, 'codec')
  return /^auto$/i.test(name) ? null : codecName(name)
}

/** `encode(id, codec?)`: the ID as text in `codec` (default decimal). */
export function encode(id, codec) {
  id = u64Arg(id, 'id')
  return encodeWith(id, isNullish(codec) ? 'decimal' : codecName(stringArg(codec, 'codec')))
}

/** `parseId(text, codec?)`: without a codec (or with `"auto"`) the codec is told by the text's shape. */
export function parseId(text, codec) {
  text = stringArg(text, 'text')
  return parseIdWith(text, codecArg(codec))
}

