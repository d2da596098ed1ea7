// codec.js against the oracle (the wasm build): `encode` and `parseId` over thousands of
// generated inputs (valid encodings in every codec, mutated: case, leading zeros, prefixes,
// overflow by one, wrong alphabets, whitespace, non-ASCII and lone surrogates; random text; every
// spelling of the codec argument and every wrong type) must give the same value or the same
// error (class, code, message, every own property); vectors/codecs.json replays.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'

import { encode, parseId, codecArg, parseIdWith, encodeWith } from '../../js/codec.js'
import { ODD_VALUES, outcome, rng, show } from './support/outcome.mjs'
const oracle = createRequire(import.meta.url)('../../pkg/node/wasm/idmint.js')
const vectors = JSON.parse(readFileSync(new URL('../../../vectors/codecs.json', import.meta.url), 'utf8'))

const U64_MAX = (1n << 64n) - 1n
const CODECS = ['decimal', 'hex', 'base32', 'base62']

/** Every spelling of the codec argument worth trying: names in any case, near misses, wrong types. */
const SPELLINGS = [
  undefined, null, 'auto', 'AUTO', 'aUtO', 'decimal', 'dec', 'DEC', 'Dec', 'DECIMAL', 'hex', 'Hex', 'HEX', 'base32',
  'BASE32', 'Base32', 'base62', 'BASE62', 'bAsE62', '', ' hex', 'hex ', 'he x', 'base64', 'decimals', 'de', 'auto ',
  'baſe32', 'ʜex', 'hEX\n', '\ud800', 'hex\u0000', 'İex', 'ｈex', 'automatic', 'base 32',
  ...ODD_VALUES.filter((v) => v !== undefined && v !== null),
]

const POOL = [...'0123456789abcdefABCDEFxXgGzZiIlLoOuUvVwWyY-+_ .', '\t', '\n', '\u0085', '\u00a0', '\u3000', 'é', '€', '😀', '\ud800', '\udc00', '\u0000', '\uffff', '\ufeff', 'ſ', 'K', 'İ', 'ı', '٣', '０']

/** u64 values at the edges: 0, powers of two and their neighbours, 2^64-1. */
const EDGES = [0n, 1n, 2n, 9n, 10n, 15n, 16n, 31n, 32n, 61n, 62n, U64_MAX, U64_MAX - 1n]
for (const b of [32n, 36n, 40n, 52n, 53n, 60n, 63n]) EDGES.push((1n << b) - 1n, 1n << b, (1n << b) + 1n)

/** A 64-bit value past 2^64-1 (by one, or more) written in `codec`, without a library. */
function past(codec, v) {
  const [radix, alphabet, width] = {
    decimal: [10n, '0123456789', 0],
    hex: [16n, '0123456789abcdef', 0],
    base32: [32n, '0123456789ABCDEFGHJKMNPQRSTVWXYZ', 13],
    base62: [62n, '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 11],
  }[codec]
  let s = ''
  do {
    s = alphabet[Number(v % radix)] + s
    v /= radix
  } while (v > 0n)
  return (codec === 'hex' ? '0x' : '') + s.padStart(width, '0')
}

const HOSTILE = [
  '', ' ', '0', '00', '0x', '0X', '0x0', '0X0', 'x', '-1', '+1', ' 1', '1 ', '1\n', '٣', '０', 'ff', 'FF', '0xg', '0x 1',
  '18446744073709551615', '18446744073709551616', '0018446744073709551616', '100000000000000000000', '99999999999999999999',
  '0xffffffffffffffff', '0x10000000000000000', '1ffffffffffffffff', '0x00000000000000000001', 'ffffffffffffffff',
  'fffffffffffffffff', 'FZZZZZZZZZZZZ', 'G000000000000', 'fzzzzzzzzzzzz', '00000000000IO', '0000000000U00', 'ZZZZZZZZZZZZZ',
  'LygHa16AHYF', 'LygHa16AHYG', 'Lz000000000', 'zzzzzzzzzzz', '0000000000-', '0x000000000', '0X123456789', '0x00000000g',
  '0x0000000000', '0X00000000000', '0X0000000000', '0x00000000000', '0xZZZZZZZZZZZ', '0X1ZZZZZZZZZZ', '0Xé0000000', '0x\ud8000000000',
  '1d83a82428800000', '0x1d83a82428800000', 'ééééééééééééé', '\ud800\ud800\ud800\ud800\ud800\ud800\ud800\ud800\ud800\ud800\ud800',
  '😀😀😀😀😀😀😀😀😀😀😀😀😀', '0000000000\ud800', '000000000000\udc00', 'xyz', '0000000000042', '12345678901', '1234567890123',
  'ééééé', '\u0000', '0x\u0000', '0xFfFf', 'OOOOOOOOOOOOO', 'lllllllllllll', 'iiiiiiiiiiiii', 'uuuuuuuuuuuuu',
]
for (const c of CODECS) for (const v of [U64_MAX + 1n, U64_MAX + 2n, 1n << 65n, 1n << 80n]) HOSTILE.push(past(c, v))

/** A text: a valid encoding (mutated or not), random characters, or a hostile case. */
function text(r) {
  const roll = r.next()
  if (roll < 0.1) return r.pick(HOSTILE)
  if (roll < 0.25) {
    const n = r.int(26)
    let s = ''
    for (let i = 0; i < n; i++) s += r.pick(POOL)
    return s
  }
  let s = oracle.encode(r.chance(0.2) ? r.pick(EDGES) : r.u64(), r.pick(CODECS))
  for (let k = r.chance(0.4) ? 0 : 1 + r.int(3); k > 0; k--) s = mutate(r, s)
  return s
}

function mutate(r, s) {
  const chars = [...s]
  const at = r.int(chars.length + 1)
  switch (r.int(10)) {
    case 0:
      return r.chance(0.5) ? s.toUpperCase() : s.toLowerCase()
    case 1: {
      const hex = s.startsWith('0x') || s.startsWith('0X')
      const zeros = '0'.repeat(1 + r.int(8))
      return hex ? s.slice(0, 2) + zeros + s.slice(2) : zeros + s
    }
    case 2:
      chars[Math.min(at, chars.length - 1)] = r.pick(POOL)
      return chars.join('')
    case 3:
      chars.splice(at, 1)
      return chars.join('')
    case 4:
      chars.splice(at, 0, r.pick(POOL))
      return chars.join('')
    case 5:
      return r.pick(['0x', '0X', '']) + (s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s)
    case 6:
      return r.pick([' ', '\t', '\n', '\u00a0']) + s + r.pick(['', ' ', '\n'])
    case 7: {
      const i = Math.min(at, chars.length - 1)
      const c = chars[i] ?? 'a'
      chars[i] = c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()
      return chars.join('')
    }
    case 8:
      return chars.slice(0, at).join('')
    default:
      return s + r.pick(POOL)
  }
}

const same = (f, g, what) => {
  const a = outcome(f)
  const b = outcome(g)
  assert.deepStrictEqual(a, b, what)
  return a
}

test('parseId: generated texts under every codec spelling give the oracle\'s value or error', () => {
  let ok = 0
  let err = 0
  for (const seed of [1, 2, 3, 4]) {
    const r = rng(seed)
    for (let i = 0; i < 1500; i++) {
      const t = text(r)
      const codecs = i % 10 === 0 ? SPELLINGS : [undefined, 'auto', ...CODECS, r.pick(SPELLINGS)]
      for (const c of codecs) {
        const o = same(() => parseId(t, c), () => oracle.parseId(t, c), `seed ${seed} #${i}: parseId(${show(t)}, ${show(c)})`)
        o.error ? err++ : ok++
      }
    }
  }
  // The generator reaches both sides.
  assert.ok(ok > 10000 && err > 10000, `${ok} values, ${err} errors`)
})

test('parseId: hostile texts and every codec spelling, and text arguments of every type', () => {
  let n = 0
  for (const t of HOSTILE) {
    for (const c of SPELLINGS) {
      same(() => parseId(t, c), () => oracle.parseId(t, c), `parseId(${show(t)}, ${show(c)})`)
      n++
    }
  }
  // The text is checked first, then the codec.
  for (const t of ODD_VALUES) {
    for (const c of [undefined, 'hex', 'base64', 5]) {
      same(() => parseId(t, c), () => oracle.parseId(t, c), `parseId(${show(t)}, ${show(c)})`)
      n++
    }
  }
  same(() => parseId(), () => oracle.parseId(), 'parseId()')
  assert.ok(n > 3000)
})

test('encode: ids of every type and range under every codec spelling', () => {
  const r = rng(7)
  const ids = [...ODD_VALUES, '42', '0', ...EDGES, ...EDGES.filter((v) => v <= 2n ** 53n - 1n).map(Number), U64_MAX + 1n, -(2n ** 64n)]
  for (let i = 0; i < 3000; i++) ids.push(r.u64())
  for (let i = 0; i < 300; i++) ids.push(r.int(2 ** 53), -r.int(1000) - 1, r.next() * 1e6, 2 ** 53 + r.int(1e6) * 2)
  let n = 0
  for (const [i, id] of ids.entries()) {
    const codecs = i < ODD_VALUES.length + 60 ? SPELLINGS : [undefined, null, ...CODECS, 'dec', 'auto', r.pick(SPELLINGS)]
    for (const c of codecs) {
      same(() => encode(id, c), () => oracle.encode(id, c), `encode(${show(id)}, ${show(c)})`)
      n++
    }
  }
  same(() => encode(), () => oracle.encode(), 'encode()')
  assert.ok(n > 20000, `${n}`)
})

test('round trips: every codec reads back what it writes; parseId guesses it except where documented', () => {
  const r = rng(11)
  const values = [...EDGES]
  for (let i = 0; i < 4000; i++) values.push(r.u64())
  for (const id of values) {
    for (const c of CODECS) {
      const s = encodeWith(id, c)
      assert.equal(s, oracle.encode(id, c), `${id} ${c}`)
      assert.equal(parseIdWith(s, c), id, `${s} as ${c}`)
      if (c !== 'base62') assert.equal(parseIdWith(s.toLowerCase(), c), id)
      // Without a codec: the oracle decides which texts are ambiguous or read as decimal.
      same(() => parseIdWith(s, null), () => oracle.parseId(s), `auto ${s}`)
    }
    // Bare hex reads with the hex codec.
    assert.equal(parseIdWith(id.toString(16), 'hex'), id)
  }
})

test('codecArg: the codec argument as the parsing functions read it', () => {
  const expected = { auto: null, dec: 'decimal', decimal: 'decimal', hex: 'hex', base32: 'base32', base62: 'base62' }
  for (const c of SPELLINGS) {
    const a = outcome(() => codecArg(c))
    if (c === undefined || c === null) assert.deepStrictEqual(a, { ok: null })
    else if (typeof c === 'string' && /^(auto|dec|decimal|hex|base32|base62)$/i.test(c) && !/[^\x00-\x7f]/.test(c))
      assert.deepStrictEqual(a, { ok: expected[c.toLowerCase()] }, show(c))
    else {
      // The oracle's error for the same argument (parseId checks the text first: give it one).
      const b = outcome(() => oracle.parseId('0', c))
      assert.deepStrictEqual(a, b, show(c))
    }
  }
})

test('vectors/codecs.json replays', () => {
  for (const v of vectors.encode) {
    const id = BigInt(v.id)
    for (const c of CODECS) {
      assert.equal(encode(id, c), v[c], `${v.id} ${c}`)
      assert.equal(parseId(v[c], c), id)
    }
  }
  for (const v of vectors.decode) {
    const got = outcome(() => parseId(v.text, v.decoder))
    if (v.expect.id !== undefined) {
      assert.deepStrictEqual(got, { ok: BigInt(v.expect.id) }, `${v.decoder} ${v.text}`)
    } else {
      const { error, ...fields } = v.expect
      assert.equal(got.code, error, `${v.decoder} ${v.text}`)
      for (const [k, x] of Object.entries(fields)) assert.equal(got[k], x, `${v.decoder} ${show(v.text)}: ${k}`)
    }
  }
  assert.equal(vectors.encode.length + vectors.decode.length, 88)
})
