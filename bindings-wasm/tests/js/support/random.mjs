// Seeded randomness for the differential tests: a failure names its seed and replays.

/** mulberry32: a small seeded PRNG; each call of the function it returns gives a number in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Seeded draws on mulberry32: numbers, integers below `n`, picks, coin flips, `bits`-wide
 * bigints, byte arrays and u64s (64 random bits, masked to a random width half of the time).
 */
export function rng(seed) {
  const next = mulberry32(seed)
  const int = (n) => Math.floor(next() * n)
  const big = (bits) => {
    let v = 0n
    for (let i = 0; i < bits; i += 16) v = (v << 16n) | BigInt(int(65536))
    return v & ((1n << BigInt(bits)) - 1n)
  }
  return {
    next,
    int,
    big,
    bytes: (n) => Uint8Array.from({ length: n }, () => int(256)),
    pick: (a) => a[int(a.length)],
    chance: (p) => next() < p,
    u64() {
      const v = (BigInt(int(2 ** 32)) << 32n) | BigInt(int(2 ** 32))
      return next() < 0.5 ? v : v & ((1n << BigInt(int(65))) - 1n)
    },
  }
}
