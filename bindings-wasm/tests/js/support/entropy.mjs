// Deterministic Web Crypto for the differential tests: both builds draw their random bytes from
// `crypto.getRandomValues` through a 256-byte pool (src/random.rs, js/random.js), so with the
// same bytes behind it and the same pool position, the same calls give the same IDs.
//
//   const out = sameEntropy(seed, lib, () => lib.uuid4(), (lib) => [lib.uuid7(), lib.ulid()])
//
// replaces `globalThis.crypto` with a seeded stream, runs `align` until one of its calls
// refills `lib`'s pool (its pool is then fresh, at the same position for either build), runs
// `body`, and puts the real `crypto` back. Run it once per build with the same seed and `align`
// and compare what `body` returned.
import { mulberry32 } from './random.mjs'

/** How many calls `align` may take to use up a pool (a call drawing one byte: 256). */
const MAX_ALIGN_CALLS = 300

/**
 * Runs `body(lib)` with `crypto.getRandomValues` filling from a stream seeded with `seed`,
 * after aligning `lib`'s pool with `align` (a call that draws a fixed number of bytes from the
 * pool, at most 64). Returns `body`'s result; `calls` of the result's companion array record
 * each getRandomValues length seen during `body` (`{ value, fills }`).
 */
export function sameEntropy(seed, lib, align, body) {
  const real = Object.getOwnPropertyDescriptor(globalThis, 'crypto')
  let next = mulberry32(seed)
  let fills = []
  const stub = {
    getRandomValues(buf) {
      const b = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
      for (let i = 0; i < b.length; i++) b[i] = Math.floor(next() * 256)
      fills.push(b.length)
      return buf
    },
  }
  Object.defineProperty(globalThis, 'crypto', { value: stub, configurable: true, writable: true })
  try {
    let aligned = false
    for (let i = 0; i < MAX_ALIGN_CALLS && !aligned; i++) {
      fills = []
      align(lib)
      aligned = fills.includes(256)
    }
    if (!aligned) throw new Error('sameEntropy: align never refilled the pool')
    // The stream restarts after the refill, so each build continues from the same bytes.
    next = mulberry32(seed ^ 0x5bd1e995)
    fills = []
    const value = body(lib)
    return { value, fills }
  } finally {
    Object.defineProperty(globalThis, 'crypto', real)
  }
}
