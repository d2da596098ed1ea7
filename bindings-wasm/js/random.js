// Randomness from `crypto.getRandomValues` (Web Crypto: windows, workers and Node >= 19), as
// the WebAssembly build draws it (src/random.rs): requests of up to 64 bytes are served from a
// pool of 256 bytes filled by one call (each byte handed out once), larger ones directly. The
// same draws in the same order give the same bytes, which the differential tests rely on.
import { coreError } from './error.js'

const POOL = 256
let pool = new Uint8Array(POOL)
let used = POOL

/** Fills `buf` straight from `crypto.getRandomValues`, or throws `ERR_RANDOM_SOURCE`. */
function fillDirect(buf) {
  // getRandomValues takes at most 65,536 bytes per call; it fills an array of its own.
  for (let at = 0; at < buf.length; at += 65536) {
    const own = new Uint8Array(Math.min(65536, buf.length - at))
    try {
      globalThis.crypto.getRandomValues(own)
    } catch {
      throw coreError('RandomSource')
    }
    buf.set(own, at)
  }
}

/** Fills `buf` (a Uint8Array) with cryptographically secure random bytes. */
export function fill(buf) {
  if (buf.length > POOL / 4) return fillDirect(buf)
  if (used + buf.length > POOL) {
    const fresh = new Uint8Array(POOL)
    fillDirect(fresh)
    pool = fresh
    used = 0
  }
  buf.set(pool.subarray(used, used + buf.length))
  // Handed-out bytes are not kept.
  pool.fill(0, used, used + buf.length)
  used += buf.length
}

/** `n` fresh random bytes. */
export function bytes(n) {
  const b = new Uint8Array(n)
  fill(b)
  return b
}

/** A random u64 (little-endian bytes), as a bigint. */
export const randomU64 = () => new DataView(bytes(8).buffer).getBigUint64(0, true)
