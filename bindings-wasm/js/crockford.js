// 128 bits as 26 Crockford base32 characters, most significant first, the top character
// carrying the 3 bits left over (so it is at most `7`): the text form shared by ULID and the
// TypeID suffix. A port of core/src/formats/crockford.rs. Decoding works on the UTF-8 bytes the
// core sees (positions in errors are byte offsets) and is strict: no hyphens, no `I L O U`, no
// value above 2^128 - 1.
import { coreError } from './error.js'

/** Characters in the text form. */
export const LEN = 26

const UPPER = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const LOWER = UPPER.toLowerCase()

/** Digit values by ASCII code (upper case; -1 for none). */
const VALUE = new Int8Array(128).fill(-1)
for (let i = 0; i < 32; i++) VALUE[UPPER.charCodeAt(i)] = i

/** The 26 characters of the 16 big-endian `bytes`, upper or lower case. */
export function encode128(bytes, lower) {
  const digits = lower ? LOWER : UPPER
  let out = ''
  // Two leading zero bits make 130 = 26 * 5.
  let acc = 0
  let n = 2
  for (let i = 0; i < 16; i++) {
    acc = ((acc << 8) | bytes[i]) & 0x1fff
    n += 8
    while (n >= 5) {
      n -= 5
      out += digits[(acc >> n) & 31]
    }
  }
  return out
}

/**
 * Decodes exactly 26 characters of the UTF-8 `text` (a Uint8Array) into 16 bytes: `lower` takes
 * lower case only (TypeID), else either case (ULID). Throws `ERR_INVALID_ENCODING` naming
 * `codec` and the failing byte, counted from `offset`.
 */
export function decode128(text, lower, codec, offset) {
  const bad = (at, reason) => coreError('InvalidEncoding', { codec, at: offset + at, reason })
  if (text.length !== LEN) throw bad(Math.min(text.length, LEN), 'expected exactly 26 base32 characters')
  const out = new Uint8Array(16)
  let acc = 0
  let n = -2 // the first character's top 2 bits are not stored
  let k = 0
  for (let i = 0; i < LEN; i++) {
    let c = text[i]
    if (c >= 0x61 && c <= 0x7a) c -= 32
    else if (lower && c >= 0x41 && c <= 0x5a) c = 0
    const d = c < 128 ? VALUE[c] : -1
    if (d < 0) {
      throw bad(
        i,
        lower
          ? 'not a character of the lower-case base32 alphabet 0-9 a-z without i l o u'
          : 'not a Crockford base32 character (0-9 A-Z without I L O U)',
      )
    }
    if (i === 0 && d > 7) throw bad(0, 'the first character must be 0-7 (the value is 128 bits)')
    acc = ((acc << 5) | d) & 0x1fff
    n += 5
    if (n >= 8) {
      n -= 8
      out[k++] = acc >> n
    }
  }
  return out
}
