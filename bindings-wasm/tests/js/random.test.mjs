// js/random.js against the WebAssembly build's draws (src/random.rs): the same 256-byte pool,
// refilled by one crypto.getRandomValues call when a draw does not fit, draws over 64 bytes
// straight from Web Crypto; the same bytes behind it give the same values in either build.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

import { bytes, fill, randomU64 } from '../../js/random.js'
import { randomNode } from '../../js/layout.js'
import { sameEntropy } from './support/entropy.mjs'

const oracle = createRequire(import.meta.url)('../../pkg/node/wasm/idmint.js')
const js = { randomNode }

test('random nodes are drawn as the WebAssembly build draws them, value for value', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const layouts = ['twitter', 'js53', 'time=19@1ms,a=32,b=12,seq=1,epoch=0', 'leaf']
    const body = (lib) => Array.from({ length: 80 }, (_, i) => lib.randomNode(layouts[(i * seed) % layouts.length]))
    const a = sameEntropy(seed, js, (l) => l.randomNode('twitter'), body)
    const b = sameEntropy(seed, oracle, (l) => l.randomNode('twitter'), body)
    assert.deepEqual(a, b, `seed ${seed}`)
    // 80 draws of 8 bytes: two more pool refills after the first.
    assert.deepEqual(a.fills, [256, 256], `seed ${seed}`)
  }
})

test('the pool: each byte handed out once, refilled when a draw does not fit, large draws direct', () => {
  const seen = []
  const real = Object.getOwnPropertyDescriptor(globalThis, 'crypto')
  let counter = 0
  const stub = { getRandomValues: (b) => (seen.push(b.length), b.fill(++counter)) }
  Object.defineProperty(globalThis, 'crypto', { value: stub, configurable: true, writable: true })
  try {
    // Use up what is left of the pool, whatever it holds, then start from a fresh one.
    while (!seen.includes(256)) fill(new Uint8Array(1))
    seen.length = 0
    const first = counter
    // 255 more single bytes come from the same fill; the next needs a new one.
    const out = []
    for (let i = 0; i < 255; i++) out.push(bytes(1)[0])
    assert.deepEqual(seen, [])
    assert.ok(out.every((b) => b === first))
    assert.equal(bytes(1)[0], first + 1)
    assert.deepEqual(seen, [256])
    // A draw of 65 bytes goes straight to Web Crypto, leaving the pool as it was.
    assert.ok(bytes(65).every((b) => b === first + 2))
    assert.deepEqual(seen, [256, 65])
    assert.equal(bytes(64)[0], first + 1)
    assert.deepEqual(seen, [256, 65])
    // The pool has 191 bytes left: a u64 comes from it.
    assert.equal(randomU64(), BigInt.asUintN(64, BigInt(first + 1) * 0x0101010101010101n))
    assert.deepEqual(seen, [256, 65])
  } finally {
    Object.defineProperty(globalThis, 'crypto', real)
  }
})

test('Web Crypto failing or missing is the core RandomSource error, and the pool stays usable', () => {
  const real = Object.getOwnPropertyDescriptor(globalThis, 'crypto')
  try {
    for (const broken of [undefined, {}, { getRandomValues() { throw new Error('no entropy') } }]) {
      Object.defineProperty(globalThis, 'crypto', { value: broken, configurable: true, writable: true })
      assert.throws(
        () => {
          for (let i = 0; i < 257; i++) fill(new Uint8Array(1))
        },
        (e) => e.constructor === Error && e.code === 'ERR_RANDOM_SOURCE' && e.message === 'random source failed',
      )
      assert.throws(() => bytes(100), (e) => e.code === 'ERR_RANDOM_SOURCE')
    }
  } finally {
    Object.defineProperty(globalThis, 'crypto', real)
  }
  assert.equal(bytes(16).length, 16)
})
