// anyid.js against the oracle (the wasm build): `parseAny` over thousands of generated texts —
// UUIDs in every form, version and variant; TypeIDs with and without prefix; ULIDs in either
// case; KSUIDs up to and past the largest; 64-bit IDs in every codec — mutated (case, length,
// separators, wrong alphabets, whitespace, non-ASCII, lone surrogates), under every spelling of
// the codec argument, must give the same `{ kind, value, unixMs }` or the same error (class,
// code, message, every own property); the any_id_kind vectors of vectors/formats.json replay.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'

import { parseAny } from '../../js/anyid.js'
import { ODD_VALUES, outcome, rng, show } from './support/outcome.mjs'
const oracle = createRequire(import.meta.url)('../../pkg/node/wasm/idmint.js')
const vectors = JSON.parse(readFileSync(new URL('../../../vectors/formats.json', import.meta.url), 'utf8'))

const CODECS = ['decimal', 'hex', 'base32', 'base62']
const SPELLINGS = [undefined, null, 'auto', 'AUTO', 'dec', 'HEX', 'Base32', 'base62', 'uuid', 'ulid', 'base64', '', 'ſ', 5, {}, 1n, true, Symbol('c')]
const POOL = [...'0123456789abcdefghjkmnpqrstvwxyzABCDEFGHJKMNPQRSTVWXYZiIlLoOuU_-{}:. ', '\t', '\u00a0', 'é', '€', '😀', '\ud800', '\udc00', '\u0000', 'ſ', 'K', 'ı']
const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')

/** 16 random bytes with a random (often valid) version and variant. */
function uuidBytes(r) {
  const b = Uint8Array.from({ length: 16 }, () => r.int(256))
  if (r.chance(0.3)) b.fill(r.pick([0, 255]), r.int(16))
  if (r.chance(0.8)) b[6] = (b[6] & 0x0f) | (r.chance(0.5) ? 0x70 : r.int(16) << 4)
  if (r.chance(0.8)) b[8] = (b[8] & 0x3f) | r.pick([0x80, 0x80, 0x00, 0xc0, 0xe0])
  return b
}

const hyphenated = (b) => {
  const h = hex(b)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

const PREFIXES = ['', 'user', 'a', 'ab_cd', 'x'.repeat(63), 'x'.repeat(64), '_a', 'a_', 'User', 'a1', 'é', 'a__b']

/** A text of some ID kind, from the oracle's own printers where they exist. */
function valid(r) {
  const b = uuidBytes(r)
  const u = hyphenated(b)
  switch (r.int(9)) {
    case 0:
      return r.pick([u, u.toUpperCase(), `{${u}}`, `urn:uuid:${u}`, u.replace(/-/g, ''), `{${u.replace(/-/g, '')}}`, `urn:uuid:${u.toUpperCase()}`])
    case 1:
    case 2: {
      const p = r.pick(PREFIXES)
      const t = oracle.typeidFromUuid('', u)
      return p ? `${p}_${t}` : t
    }
    case 3: {
      const t = oracle.ulidFromUuid(u)
      return r.pick([t, t.toLowerCase(), t[0].toLowerCase() + t.slice(1)])
    }
    case 4: {
      // 27 base62 characters: KSUIDs, mostly at or below the largest (first character 0-a).
      let s = r.chance(0.3) ? r.pick(['a', 'b', 'z', '0x']) : B62[r.int(37)]
      while (s.length < 27) s += B62[r.int(62)]
      return s.slice(0, 27)
    }
    default: {
      const v = (BigInt(r.int(2 ** 32)) << 32n) | BigInt(r.int(2 ** 32))
      return oracle.encode(r.chance(0.3) ? v >> BigInt(r.int(64)) : v, r.pick(CODECS))
    }
  }
}

function mutate(r, s) {
  const chars = [...s]
  const at = r.int(chars.length + 1)
  switch (r.int(8)) {
    case 0:
      return r.chance(0.5) ? s.toUpperCase() : s.toLowerCase()
    case 1:
      chars[Math.min(at, chars.length - 1)] = r.pick(POOL)
      return chars.join('')
    case 2:
      chars.splice(at, 1)
      return chars.join('')
    case 3:
      chars.splice(at, 0, r.pick(POOL))
      return chars.join('')
    case 4:
      return r.pick([' ', '{', 'urn:uuid:', '_', 'x_', '0x']) + s
    case 5:
      return s + r.pick([' ', '}', '_', '\n', 'é'])
    case 6:
      return s.replace(r.pick(['-', '_', '0']), r.pick(['', '_', '-', 'é', '\ud800']))
    default:
      return chars.slice(0, at).join('')
  }
}

function text(r) {
  if (r.chance(0.08)) {
    let s = ''
    for (let n = r.int(40); n > 0; n--) s += r.pick(POOL)
    return s
  }
  let s = valid(r)
  for (let k = r.chance(0.45) ? 0 : 1 + r.int(2); k > 0; k--) s = mutate(r, s)
  return s
}

test('parseAny: generated texts of every kind under every codec spelling give the oracle\'s value or error', () => {
  const kinds = {}
  let n = 0
  for (const seed of [31, 32, 33]) {
    const r = rng(seed)
    for (let i = 0; i < 4000; i++) {
      const t = text(r)
      const codecs = i % 25 === 0 ? SPELLINGS : [undefined, r.chance(0.5) ? r.pick(['auto', ...CODECS]) : r.pick(SPELLINGS)]
      for (const c of codecs) {
        const a = outcome(() => parseAny(t, c))
        assert.deepStrictEqual(a, outcome(() => oracle.parseAny(t, c)), `seed ${seed} #${i}: parseAny(${show(t)}, ${show(c)})`)
        const k = a.error ? `error ${a.codec ?? a.code}` : a.ok.kind
        kinds[k] = (kinds[k] ?? 0) + 1
        n++
      }
    }
  }
  // Every kind is reached, read and refused.
  for (const k of ['uuid', 'typeid', 'ulid', 'ksuid', 'snowflake', 'error uuid', 'error typeid', 'error ulid', 'error ksuid', 'error auto', 'error ERR_INVALID_ARG_TYPE', 'error ERR_INVALID_CONFIG'])
    assert.ok(kinds[k] > 20, `${k}: ${JSON.stringify(kinds)}`)
  assert.ok(n > 15000, `${n}`)
})

test('parseAny: text arguments of every type, and the order of the checks', () => {
  for (const t of [...ODD_VALUES, '']) {
    for (const c of [undefined, 'hex', 'base64', 5]) {
      assert.deepStrictEqual(outcome(() => parseAny(t, c)), outcome(() => oracle.parseAny(t, c)), `parseAny(${show(t)}, ${show(c)})`)
    }
  }
  assert.deepStrictEqual(outcome(() => parseAny()), outcome(() => oracle.parseAny()))
})

test('parseAny: the edges between the shapes', () => {
  const v7 = '01890a5d-ac96-774b-bcce-b302099a8057'
  const texts = [
    v7, `{${v7}}`, `urn:uuid:${v7}`, `{${v7}`, `${v7}}`, 'urn:uuid:', '{', '{}', '_', 'a_', '_a', '__', 'a_b_01h455vb4pex5vsknk084sn02q',
    '01h455vb4pex5vsknk084sn02q', '01H455VB4PEX5VSKNK084SN02Q', '01h455vb4pex5vsknk084sn02Q', '7zzzzzzzzzzzzzzzzzzzzzzzzz', '8zzzzzzzzzzzzzzzzzzzzzzzzz',
    '00000000000000000000000000', 'zzzzzzzzzzzzzzzzzzzzzzzzzz', '0'.repeat(25) + 'é', '0'.repeat(24) + 'é', '0'.repeat(27), '0'.repeat(26), '0'.repeat(28),
    'aWgEPTl1tmebfsQzFP4bxwgy80V', 'aWgEPTl1tmebfsQzFP4bxwgy80W', 'zzzzzzzzzzzzzzzzzzzzzzzzzzz', '0'.repeat(25) + 'é', '\ud800'.repeat(9),
    '-'.repeat(36), v7.replace(/-/g, ''), v7.toUpperCase().replace('-', '\u2010'), v7.slice(0, 35) + 'é', '0x' + '0'.repeat(25), '0X' + '0'.repeat(11),
  ]
  for (const t of texts) {
    for (const c of [undefined, 'auto', 'hex', 'base62']) {
      assert.deepStrictEqual(outcome(() => parseAny(t, c)), outcome(() => oracle.parseAny(t, c)), `parseAny(${show(t)}, ${show(c)})`)
    }
  }
})

test('vectors/formats.json any_id_kind replays', () => {
  for (const v of vectors.any_id_kind) {
    const got = outcome(() => parseAny(v.text, v.codec))
    const what = `${show(v.text)} ${v.codec ?? ''}`
    if (v.expect.error) {
      const { error, ...fields } = v.expect
      assert.equal(got.code, error, what)
      for (const [k, x] of Object.entries(fields)) assert.equal(got[k], x, `${what}: ${k}`)
      continue
    }
    const { kind, value, unix_ms } = v.expect
    assert.deepStrictEqual(got, { ok: { kind, value: kind === 'snowflake' ? BigInt(value) : value, unixMs: unix_ms === null ? null : BigInt(unix_ms) } }, what)
  }
  assert.equal(vectors.any_id_kind.length, 36)
})
