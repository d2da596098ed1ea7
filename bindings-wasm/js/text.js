// Text as the core sees it: a JavaScript string crosses into Rust as UTF-8 (lone surrogates
// become U+FFFD), positions in messages are byte offsets, and `str::trim` trims Unicode
// White_Space (which counts U+0085 and not U+FEFF, unlike `String#trim`).

const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { ignoreBOM: true })

/** Largest u64. */
export const U64_MAX = (1n << 64n) - 1n
/** A string's UTF-8 bytes. */
export const utf8 = (s) => encoder.encode(s)
/** Its length in UTF-8 bytes. */
export const byteLen = (s) => utf8(s).length
/** UTF-8 bytes `from..to` of `bytes` as a string. */
export const decodeUtf8 = (bytes, from, to) => decoder.decode(bytes.subarray(from, to))
/** A string as Rust receives it: lone surrogates become U+FFFD. */
export const wellFormed = (s) => decoder.decode(utf8(s))
/** Whether `s` is one or more ASCII digits. */
export const isDigits = (s) => /^[0-9]+$/.test(s)
/** Whether `v` is an object (not `null`). */
export const isObject = (v) => typeof v === 'object' && v !== null

const WS = '[\\t-\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+'
const LEAD = new RegExp('^' + WS)
const TRAIL = new RegExp(WS + '$')
/** Rust `str::trim_start`. */
export const trimStart = (s) => s.replace(LEAD, '')
/** Rust `str::trim_end`. */
export const trimEnd = (s) => s.replace(TRAIL, '')
/** Rust `str::trim`. */
export const trim = (s) => trimEnd(trimStart(s))

/** A name kept for a message (core `Name::lossy`): its first 15 UTF-8 bytes, cut at a character boundary. */
export function lossy(s) {
  const b = utf8(String(s))
  let end = Math.min(b.length, 15)
  while (end < b.length && (b[end] & 0xc0) === 0x80) end--
  return decodeUtf8(b, 0, end)
}
