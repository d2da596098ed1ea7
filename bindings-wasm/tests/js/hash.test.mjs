// js/hash.js (MD5, SHA-1, SHA-256) against the standards' own test vectors (RFC 1321, FIPS 180
// examples and NIST's "million a") and against node:crypto for seeded inputs of every length
// from 0 to 300 bytes (all the padding cases around the 55/56 and 63/64/65 byte block edges)
// and a few of several KB.
//
//   node --test bindings-wasm/tests/js/hash.test.mjs   (IDMINT_SEED=n: another seed)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mulberry32 } from './support/random.mjs'
import { md5, sha1, sha256 } from '../../js/hash.js'

const SEED = Number(process.env.IDMINT_SEED ?? 20261129)
const hex = (b) => Buffer.from(b).toString('hex')
const text = (s) => new TextEncoder().encode(s)
const ALGS = [
  ['md5', md5, 16],
  ['sha1', sha1, 20],
  ['sha256', sha256, 32],
]

test('RFC 1321 appendix A.5: the MD5 test suite', () => {
  const cases = {
    '': 'd41d8cd98f00b204e9800998ecf8427e',
    a: '0cc175b9c0f1b6a831c399e269772661',
    abc: '900150983cd24fb0d6963f7d28e17f72',
    'message digest': 'f96b697d7cb7938d525a2f31aaf161d0',
    abcdefghijklmnopqrstuvwxyz: 'c3fcd3d76192e4007dfb496cca67e13b',
    ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789: 'd174ab98d277d9f5a5611c2c9f419d9f',
    ['1234567890'.repeat(8)]: '57edf4a22be3c955ac49da2e2107b67a',
  }
  for (const [m, d] of Object.entries(cases)) assert.equal(hex(md5(text(m))), d, JSON.stringify(m))
})

test('FIPS 180 examples: SHA-1 and SHA-256 of one-, two-block and million-byte messages', () => {
  const two = 'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'
  const four = 'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu'
  const million = new Uint8Array(1_000_000).fill(0x61)
  assert.equal(hex(sha1(text('abc'))), 'a9993e364706816aba3e25717850c26c9cd0d89d')
  assert.equal(hex(sha1(text(two))), '84983e441c3bd26ebaae4aa1f95129e5e54670f1')
  assert.equal(hex(sha1(text(four))), 'a49b2446a02c645bf419f995b67091253a04a259')
  assert.equal(hex(sha1(million)), '34aa973cd4c4daa4f61eeb2bdbad27316534016f')
  assert.equal(hex(sha1(new Uint8Array())), 'da39a3ee5e6b4b0d3255bfef95601890afd80709')
  assert.equal(hex(sha256(text('abc'))), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  assert.equal(hex(sha256(text(two))), '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1')
  assert.equal(hex(sha256(text(four))), 'cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1')
  assert.equal(hex(sha256(million)), 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0')
  assert.equal(hex(sha256(new Uint8Array())), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
})

test('every length 0..300 and some of several KB agree with node:crypto', () => {
  const next = mulberry32(SEED)
  const lengths = [...Array(301).keys(), 1000, 1023, 1024, 1025, 4095, 4096, 4097, 8191, 10_000]
  for (const n of lengths) {
    for (let round = 0; round < 2; round++) {
      const data = Uint8Array.from({ length: n }, () => Math.floor(next() * 256))
      for (const [name, f, size] of ALGS) {
        const got = f(data)
        assert.ok(got instanceof Uint8Array && got.length === size)
        assert.equal(hex(got), createHash(name).update(data).digest('hex'), `${name} of ${n} bytes, seed ${SEED}`)
      }
    }
  }
})

test('a subarray is hashed as its own bytes, and the input is not changed', () => {
  const whole = Uint8Array.from({ length: 200 }, (_, i) => i)
  const part = whole.subarray(37, 137)
  for (const [name, f] of ALGS) {
    assert.equal(hex(f(part)), createHash(name).update(part).digest('hex'))
    assert.deepEqual(whole, Uint8Array.from({ length: 200 }, (_, i) => i))
  }
})
