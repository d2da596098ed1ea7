// MD5, SHA-1 and SHA-256 over bytes, synchronously: name-based UUIDs (v3, v5, v8 by SHA-256)
// must be computed in a plain function call, and Web Crypto's `digest` is asynchronous (and
// has no MD5). Small, straightforward implementations of RFC 1321 and FIPS 180-4; the tests
// hold them to the standards' vectors and to node:crypto.

/** The message padded to whole 64-byte blocks with its bit length (big- or little-endian). */
function pad(data, littleEndian) {
  const n = data.length
  const out = new Uint8Array(Math.ceil((n + 9) / 64) * 64)
  out.set(data)
  out[n] = 0x80
  const v = new DataView(out.buffer)
  const bits = BigInt(n) * 8n
  v.setBigUint64(out.length - 8, bits, littleEndian)
  return v
}

const rotl = (x, n) => (x << n) | (x >>> (32 - n))

// MD5's per-round shifts and the sines table K[i] = floor(|sin(i + 1)| * 2^32).
const MD5_S = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21]
const MD5_K = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) | 0)

/** The MD5 digest (16 bytes) of `data` (a Uint8Array). */
export function md5(data) {
  const v = pad(data, true)
  const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476]
  const m = new Array(16)
  for (let off = 0; off < v.byteLength; off += 64) {
    for (let i = 0; i < 16; i++) m[i] = v.getUint32(off + i * 4, true)
    let [a, b, c, d] = h
    for (let i = 0; i < 64; i++) {
      const r = i >> 4
      let f, g
      if (r === 0) (f = (b & c) | (~b & d)), (g = i)
      else if (r === 1) (f = (d & b) | (~d & c)), (g = (5 * i + 1) & 15)
      else if (r === 2) (f = b ^ c ^ d), (g = (3 * i + 5) & 15)
      else (f = c ^ (b | ~d)), (g = (7 * i) & 15)
      const t = d
      d = c
      c = b
      b = (b + rotl((a + f + MD5_K[i] + m[g]) | 0, MD5_S[(r << 2) | (i & 3)])) | 0
      a = t
    }
    h[0] = (h[0] + a) | 0
    h[1] = (h[1] + b) | 0
    h[2] = (h[2] + c) | 0
    h[3] = (h[3] + d) | 0
  }
  const out = new DataView(new ArrayBuffer(16))
  h.forEach((x, i) => out.setUint32(i * 4, x, true))
  return new Uint8Array(out.buffer)
}

/** The big-endian bytes of the 32-bit words `h`. */
function words(h) {
  const out = new DataView(new ArrayBuffer(h.length * 4))
  h.forEach((x, i) => out.setUint32(i * 4, x))
  return new Uint8Array(out.buffer)
}

/** The SHA-1 digest (20 bytes) of `data` (a Uint8Array). */
export function sha1(data) {
  const v = pad(data, false)
  const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0]
  const w = new Int32Array(80)
  for (let off = 0; off < v.byteLength; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = v.getUint32(off + i * 4)
    for (let i = 16; i < 80; i++) w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1)
    let [a, b, c, d, e] = h
    for (let i = 0; i < 80; i++) {
      const f =
        i < 20
          ? ((b & c) | (~b & d)) + 0x5a827999
          : i < 40
            ? (b ^ c ^ d) + 0x6ed9eba1
            : i < 60
              ? ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdc
              : (b ^ c ^ d) + 0xca62c1d6
      const t = (rotl(a, 5) + f + e + w[i]) | 0
      e = d
      d = c
      c = rotl(b, 30)
      b = a
      a = t
    }
    h[0] = (h[0] + a) | 0
    h[1] = (h[1] + b) | 0
    h[2] = (h[2] + c) | 0
    h[3] = (h[3] + d) | 0
    h[4] = (h[4] + e) | 0
  }
  return words(h)
}

// SHA-256's round constants: the first 32 bits of the fractional parts of the cube roots of
// the first 64 primes (FIPS 180-4 section 4.2.2).
const SHA256_K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
])

const rotr = (x, n) => (x >>> n) | (x << (32 - n))

/** The SHA-256 digest (32 bytes) of `data` (a Uint8Array). */
export function sha256(data) {
  const v = pad(data, false)
  const h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
  const w = new Int32Array(64)
  for (let off = 0; off < v.byteLength; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = v.getUint32(off + i * 4)
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15]
      const y = w[i - 2]
      const s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3)
      const s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10)
      w[i] = w[i - 16] + s0 + w[i - 7] + s1
    }
    let [a, b, c, d, e, f, g, k] = h
    for (let i = 0; i < 64; i++) {
      const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + SHA256_K[i] + w[i]) | 0
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0
      k = g
      g = f
      f = e
      e = (d + t1) | 0
      d = c
      c = b
      b = a
      a = (t1 + t2) | 0
    }
    ;[a, b, c, d, e, f, g, k].forEach((x, i) => (h[i] = (h[i] + x) | 0))
  }
  return words(h)
}
