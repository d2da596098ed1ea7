// The text formats (js/crockford.js, ulid.js, typeid.js, ksuid.js) against the oracle, the
// WebAssembly build of the core: thousands of generated texts and arguments, valid and hostile
// (wrong lengths and alphabets, the first character's overflow, either case, prefixes at and
// over the limit, non-ASCII, lone surrogates, values of every JavaScript type), compared call
// by call: the value, or the error's class, code, message and every own property. Also the
// TypeID spec's cases, the shared vectors (vectors/formats.json), the sans-IO UlidGenerator
// step by step, the module's clocked ulid()/typeid()/ksuid() byte for byte on one seeded random
// stream (support/entropy.mjs), their ERR_WOULD_BLOCK and ERR_RANDOM_SOURCE, and the receiver
// checks.
//
//   node --test bindings-wasm/tests/js/text.test.mjs   (IDMINT_SEED=n: another seed)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { rng } from './support/random.mjs'
import { sameEntropy } from './support/entropy.mjs'

const ulidJs = await import('../../js/ulid.js')
const typeidJs = await import('../../js/typeid.js')
const ksuidJs = await import('../../js/ksuid.js')
const { bytes: randomBytes } = await import('../../js/random.js')
const oracle = createRequire(import.meta.url)('../../pkg/node/wasm/idmint.js')
const port = { ...ulidJs, ...typeidJs, ...ksuidJs }
const vectors = JSON.parse(readFileSync(new URL('../../../vectors/formats.json', import.meta.url), 'utf8'))

const SEED = Number(process.env.IDMINT_SEED ?? 20261129)


/** What a call did, comparably: its value, or its exception's class, code, message and fields. */
function outcome(f) {
  try {
    return { ok: f() }
  } catch (e) {
    if (!(e instanceof Error)) return { threw: e }
    return { error: e.constructor.name, props: Object.getOwnPropertyNames(e).filter((k) => k !== 'stack'), ...e, message: e.message }
  }
}

/** Asserts `f` gives the same outcome on the port and on the oracle; returns it. */
function same(what, f) {
  const a = outcome(() => f(port))
  const b = outcome(() => f(oracle))
  assert.deepEqual(a, b, what)
  return a
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
/** Characters that break a text: outside every alphabet, near it, non-ASCII, lone surrogates. */
const HOSTILE = ['I', 'L', 'O', 'U', 'i', 'l', 'o', 'u', '-', '_', ' ', '!', '~', '\0', '\x7f', 'é', '€', '😀', '\ud800', '\udc00', 'ÿ', '\u0130', '{', '8', 'Z', 'z']

/** A text of `n` characters from `alphabet`. */
const textOf = (r, n, alphabet) => Array.from({ length: n }, () => alphabet[r.int(alphabet.length)]).join('')

/** Mutates `s` now and then: a hostile character in, a character out or in, the case changed. */
function mutate(r, s) {
  const chars = [...s]
  const k = r.int(7)
  if (k === 0) chars[r.int(chars.length)] = r.pick(HOSTILE)
  else if (k === 1) chars.splice(r.int(chars.length), 1)
  else if (k === 2) chars.splice(r.int(chars.length + 1), 0, r.pick([...HOSTILE, '0', 'a', 'A']))
  else if (k === 3) return s.toUpperCase()
  else if (k === 4) return s.toLowerCase()
  else if (k === 5) chars[0] = r.pick(['8', '9', 'Z', 'z', 'g', 'v', '7'])
  return chars.join('')
}

/** Arguments of the wrong type (and a few right ones), for every argument position. */
const WRONG = [undefined, null, 0, 1.5, -1, NaN, 2 ** 53, 1n, -1n, 2n ** 64n, true, 'x', '', {}, [], () => 0, Symbol('s'),
  new Proxy({}, {}), new String('01ARYZ6S41YYYYYYYYYYYYYYYY'), new Date(0)]

test('parseUlid: generated valid and hostile texts, and arguments of every type', () => {
  const r = rng(SEED)
  let n = 0
  for (let i = 0; i < 4000; i++) {
    let s = r.pick(['0', '1', '7']) + textOf(r, 25, CROCKFORD)
    if (r.chance(0.5)) s = r.chance(0.5) ? s.toLowerCase() : [...s].map((c) => (r.chance(0.5) ? c.toLowerCase() : c)).join('')
    if (r.chance(0.7)) s = mutate(r, s)
    if (r.chance(0.2)) s = mutate(r, s)
    if (r.chance(0.05)) s = s.slice(0, r.int(30)) + textOf(r, r.int(5), CROCKFORD)
    same(`seed ${SEED} case ${i}: parseUlid(${JSON.stringify(s)})`, (m) => m.parseUlid(s))
    n++
  }
  for (const v of WRONG) same(`parseUlid(${String(typeof v)})`, (m) => m.parseUlid(v))
  for (const s of ['', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', '80000000000000000000000000', '7zzzzzzzzzzzzzzzzzzzzzzzzz', '0'.repeat(27), '0'.repeat(25) + 'é', 'é'.repeat(13), '\ud800'.repeat(9)])
    same(`parseUlid(${JSON.stringify(s)})`, (m) => m.parseUlid(s))
  assert.ok(n === 4000)
})

test('ulidAt and ulidFromUuid: generated times, random bytes and UUIDs, valid and not', () => {
  const r = rng(SEED + 1)
  const times = () =>
    r.pick([
      0, 1, 2 ** 48 - 1, 2 ** 48, 2n ** 48n - 1n, 2n ** 48n, 2n ** 64n - 1n, 2n ** 64n, -1, 1.5, 2 ** 53, Number.MAX_SAFE_INTEGER,
      r.int(2 ** 31) * 2 ** 17 + r.int(2 ** 17), BigInt(r.int(2 ** 30)) << BigInt(r.int(40)), '5', null, undefined, NaN, Infinity,
    ])
  const randoms = () => {
    const k = r.int(12)
    if (k === 0) return new Uint8Array(r.int(20))
    if (k === 1) return Array.from({ length: 10 }, () => r.int(256))
    if (k === 2) return new Uint8ClampedArray(10)
    if (k === 3) return Buffer.from(Array.from({ length: 10 }, () => r.int(256)))
    if (k === 4) return new Int8Array(10)
    if (k === 5) return new Uint8Array(20).subarray(3, 13).fill(r.int(256))
    if (k === 6) return r.pick([...WRONG, new Proxy(new Uint8Array(10), {}), new (class Sub extends Uint8Array {})(10).fill(7)])
    return Uint8Array.from({ length: 10 }, () => (r.chance(0.3) ? 255 : r.int(256)))
  }
  for (let i = 0; i < 3000; i++) {
    const t = times()
    const b = randoms()
    same(`seed ${SEED + 1} case ${i}: ulidAt`, (m) => m.ulidAt(t, b))
  }
  const hex = '0123456789abcdefABCDEF'
  for (let i = 0; i < 2000; i++) {
    const h = textOf(r, 32, hex)
    let u = r.pick([
      `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
      h,
      `{${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}}`,
      `urn:uuid:${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
    ])
    if (r.chance(0.3)) u = mutate(r, u)
    same(`seed ${SEED + 1} case ${i}: ulidFromUuid(${JSON.stringify(u)})`, (m) => m.ulidFromUuid(u))
  }
  for (const v of WRONG) same(`ulidFromUuid(${String(typeof v)})`, (m) => m.ulidFromUuid(v))
  // The first argument's error wins over the second's.
  same('ulidAt(bad, bad)', (m) => m.ulidAt(-1, 5))
  same('ulidAt(too big, bad)', (m) => m.ulidAt(2n ** 48n, new Uint8Array(9)))
})

test('parseTypeId and typeidFromUuid: generated prefixes at and over the limit, suffixes, UUIDs', () => {
  const r = rng(SEED + 2)
  const PREFIX = 'abcdefghijklmnopqrstuvwxyz_'
  const prefix = () => {
    const n = r.pick([0, 0, 1, 2, 5, 20, 62, 63, 63, 64, 65, 80, r.int(70)])
    let p = textOf(r, n, r.chance(0.5) ? 'abcdefghijklmnopqrstuvwxyz' : PREFIX)
    if (r.chance(0.25) && p) p = mutate(r, p)
    return p
  }
  const suffix = () => {
    let s = r.pick(['0', '1', '7']) + textOf(r, 25, CROCKFORD).toLowerCase()
    if (r.chance(0.4)) s = mutate(r, s)
    return s
  }
  for (let i = 0; i < 4000; i++) {
    const p = prefix()
    const text = r.pick([p + '_' + suffix(), p + suffix(), suffix(), '_' + suffix(), p + '__' + suffix(), p + '_', p])
    same(`seed ${SEED + 2} case ${i}: parseTypeId(${JSON.stringify(text)})`, (m) => m.parseTypeId(text))
  }
  const hex = '0123456789abcdef'
  for (let i = 0; i < 2000; i++) {
    const p = r.chance(0.1) ? r.pick(WRONG) : prefix()
    const h = textOf(r, 32, hex)
    let u = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
    if (r.chance(0.2)) u = mutate(r, u)
    if (r.chance(0.05)) u = r.pick(WRONG)
    same(`seed ${SEED + 2} case ${i}: typeidFromUuid`, (m) => m.typeidFromUuid(p, u))
  }
  for (const v of WRONG) same(`parseTypeId(${String(typeof v)})`, (m) => m.parseTypeId(v))
  // A bad UUID is reported before a bad prefix (the UUID argument is read first).
  same('typeidFromUuid(bad prefix, bad uuid)', (m) => m.typeidFromUuid('A', 'nope'))
})

test('typeid(prefix): every bad prefix throws as the oracle, before any UUID is drawn', () => {
  const r = rng(SEED + 3)
  const cases = [...WRONG, '', 'a', 'User', 'a_', '_a', 'a'.repeat(63), 'a'.repeat(64), 'é', '\ud800', 'a-b', 'ab'.repeat(40)]
  for (let i = 0; i < 500; i++) cases.push(mutate(r, textOf(r, r.int(70), 'abcdefghijklmnopqrstuvwxyz_')))
  for (const p of cases) {
    const a = outcome(() => port.typeid(p))
    const b = outcome(() => oracle.typeid(p))
    if ('ok' in a || 'ok' in b) {
      assert.ok('ok' in a && 'ok' in b, `typeid(${JSON.stringify(p)})`)
      assert.equal(a.ok.slice(0, -26), b.ok.slice(0, -26))
    } else assert.deepEqual(a, b, `typeid(${String(p)})`)
  }
})

/** The case names of jetify-com/typeid spec/valid.json and spec/invalid.json (spec v0.3). */
const SPEC_VALID = ['nil', 'one', 'ten', 'sixteen', 'thirty-two', 'max-valid', 'valid-alphabet', 'valid-uuidv7', 'prefix-underscore']
const SPEC_INVALID = ['prefix-uppercase', 'prefix-numeric', 'prefix-period', 'prefix-non-ascii', 'prefix-spaces', 'prefix-64-chars',
  'separator-empty-prefix', 'separator-empty', 'suffix-short', 'suffix-long', 'suffix-spaces', 'suffix-uppercase', 'suffix-hyphens',
  'suffix-wrong-alphabet', 'suffix-ambiguous-crockford', 'suffix-hyphens-crockford', 'suffix-overflow', 'prefix-underscore-start',
  'prefix-underscore-end']

test('the TypeID spec (jetify-com/typeid spec/valid.json, invalid.json) and the shared vectors', () => {
  for (const c of vectors.typeid_valid) {
    const t = port.parseTypeId(c.typeid)
    assert.deepEqual([t.prefix, t.uuid], [c.expect.prefix, c.expect.uuid], c.name)
    assert.equal(port.typeidFromUuid(t.prefix, t.uuid), c.typeid, c.name)
    same(c.name, (m) => m.parseTypeId(c.typeid))
  }
  // Every case of the spec's files is among the vectors (which add a few of their own).
  const names = (cases) => cases.map((c) => c.name)
  assert.deepEqual(names(vectors.typeid_valid).filter((n) => SPEC_VALID.includes(n)), SPEC_VALID)
  assert.deepEqual(names(vectors.typeid_invalid).filter((n) => SPEC_INVALID.includes(n)), SPEC_INVALID)
  for (const c of vectors.typeid_invalid) {
    const o = outcome(() => port.parseTypeId(c.typeid))
    const { error, ...fields } = c.expect
    assert.equal(o.code, error, c.name)
    for (const [k, v] of Object.entries(fields)) assert.equal(o[k], v, `${c.name}: ${k}`)
    same(c.name, (m) => m.parseTypeId(c.typeid))
  }
  for (const c of vectors.typeid_encode) {
    const o = outcome(() => port.typeidFromUuid(c.prefix, c.uuid))
    if ('typeid' in c.expect) assert.equal(o.ok, c.expect.typeid)
    else assert.equal(o.code, c.expect.error)
  }
  for (const c of vectors.ulid_encode) {
    const rnd = Uint8Array.from(c.random.match(/../g), (h) => parseInt(h, 16))
    assert.equal(port.ulidAt(BigInt(c.timestamp_ms), rnd), c.expect.ulid)
  }
  for (const c of vectors.ulid_decode) {
    const o = outcome(() => port.parseUlid(c.text))
    if ('ulid' in c.expect) {
      assert.deepEqual(o.ok, { ulid: c.expect.ulid, timestampMs: BigInt(c.expect.timestamp_ms), random: c.expect.random_hex, uuid: c.expect.uuid })
    } else assert.equal(o.code, c.expect.error, c.text)
  }
  for (const c of vectors.ulid_generator) {
    const g = new port.UlidGenerator()
    for (const s of c.steps) {
      const rnd = Uint8Array.from(s.random.match(/../g), (h) => parseInt(h, 16))
      const o = outcome(() => g.nextAt(BigInt(s.unix_ms), rnd))
      if ('ulid' in s.expect) assert.equal(o.ok, s.expect.ulid)
      else assert.equal(o.code, s.expect.error)
    }
  }
  for (const c of vectors.ksuid_decode) {
    const o = outcome(() => port.parseKsuidBytes(c.text))
    if ('ksuid' in c.expect) {
      assert.equal(Buffer.from(o.ok).toString('hex'), c.expect.bytes_hex)
      assert.equal(port.ksuidText(o.ok), c.expect.ksuid)
      assert.equal(port.ksuidUnixMs(o.ok), BigInt(c.expect.unix_ms))
    } else {
      const { error, ...fields } = c.expect
      assert.equal(o.code, error, c.text)
      for (const [k, v] of Object.entries(fields)) assert.equal(o[k], v, `${c.text}: ${k}`)
    }
  }
  for (const c of vectors.ksuid_encode) {
    const b = new Uint8Array(20)
    new DataView(b.buffer).setUint32(0, Number(c.timestamp))
    b.set(Uint8Array.from(c.payload.match(/../g), (h) => parseInt(h, 16)), 4)
    assert.equal(port.ksuidText(b), c.expect.ksuid)
  }
})

test('KSUID text: generated texts read as parseAny reads a 27-character KSUID; bytes back to text', () => {
  const r = rng(SEED + 4)
  const asAny = (text) => {
    const b = port.parseKsuidBytes(text)
    return { kind: 'ksuid', value: port.ksuidText(b), unixMs: port.ksuidUnixMs(b) }
  }
  for (let i = 0; i < 3000; i++) {
    let s = r.pick(['0', '1', 'Z', 'a', 'aWgEPTl1tmebfsQzFP4bxwgy80', 'aWgEPTl1tmebfsQzFP4bxwgy8']) + textOf(r, 26, BASE62)
    s = s.slice(0, 27)
    if (r.chance(0.4)) s = [...s].map((c) => (r.chance(0.05) ? r.pick(HOSTILE.filter((h) => h !== '_' && h !== '{')) : c)).join('')
    // parseAny reads 27 UTF-8 bytes (and no `_`, `{` or `urn:uuid:`) as a KSUID.
    if (new TextEncoder().encode(s).length !== 27 || s.includes('_') || s.startsWith('{') || s.startsWith('urn:uuid:')) continue
    const a = outcome(() => asAny(s))
    const b = outcome(() => oracle.parseAny(s))
    assert.deepEqual(a, b, `seed ${SEED + 4} case ${i}: ${JSON.stringify(s)}`)
  }
  for (let i = 0; i < 1000; i++) {
    const b = Uint8Array.from({ length: 20 }, () => (r.chance(0.3) ? r.pick([0, 255]) : r.int(256)))
    const text = port.ksuidText(b)
    assert.equal(text.length, 27)
    assert.deepEqual(port.parseKsuidBytes(text), b)
    assert.equal(oracle.parseAny(text).value, text)
  }
  for (const s of ['', '0'.repeat(26), '0'.repeat(28), 'aWgEPTl1tmebfsQzFP4bxwgy80W', 'zzzzzzzzzzzzzzzzzzzzzzzzzzz', 'é'.repeat(14)]) {
    const o = outcome(() => port.parseKsuidBytes(s))
    assert.equal(o.code, 'ERR_INVALID_ENCODING', s)
    assert.equal(o.codec, 'ksuid')
  }
  assert.equal(outcome(() => port.parseKsuidBytes('0'.repeat(26))).at, 26)
  assert.equal(outcome(() => port.parseKsuidBytes('é'.repeat(14))).at, 27)
})

test('UlidGenerator.nextAt: generated sequences step by step (same ms, steps back, run-outs)', () => {
  const r = rng(SEED + 5)
  for (let k = 0; k < 300; k++) {
    const a = new port.UlidGenerator()
    const b = new oracle.UlidGenerator()
    let t = r.pick([0, 1, 1_700_000_000_000, 2 ** 48 - 3])
    for (let i = 0; i < 40; i++) {
      const step = r.pick([0, 0, 0, 1, 2, -1, -1000, 5000])
      t = Math.max(0, t + step)
      let ms = r.chance(0.1) ? r.pick([2n ** 48n, 2n ** 64n - 1n, -1, 1.5, 'x', null]) : r.chance(0.5) ? BigInt(t) : t
      const full = r.chance(0.3)
      const rnd = r.chance(0.05) ? r.pick([new Uint8Array(9), [1], null]) : Uint8Array.from({ length: 10 }, (_, j) => (full || j < 2 ? 255 : r.int(256)))
      const x = outcome(() => a.nextAt(ms, rnd))
      const y = outcome(() => b.nextAt(ms, rnd))
      assert.deepEqual(x, y, `seed ${SEED + 5} run ${k} step ${i}`)
    }
  }
})

test('UlidGenerator: receiver checks, free(), Symbol.dispose', () => {
  for (const lib of [port, oracle]) assert.equal(typeof lib.UlidGenerator.prototype[Symbol.dispose], typeof Symbol.dispose === 'symbol' ? 'function' : 'undefined')
  const foreign = [{}, null, undefined, 5, 'x', 'proto', 'other']
  for (const f of foreign) {
    const self = (m) => (f === 'proto' ? Object.create(m.UlidGenerator.prototype) : f === 'other' ? new m.Uuid7Generator() : f)
    // Port: the Uuid7Generator is the oracle's (no other class of this port exists).
    const selfOf = (m) => (m === port && f === 'other' ? new oracle.Uuid7Generator() : self(m))
    same(`nextAt on a foreign receiver (${String(f)})`, (m) => m.UlidGenerator.prototype.nextAt.call(selfOf(m), 1, new Uint8Array(10)))
    const a = outcome(() => port.UlidGenerator.prototype.free.call(selfOf(port)))
    const b = outcome(() => oracle.UlidGenerator.prototype.free.call(selfOf(oracle)))
    // The glue's free() on most non-instances fails before its receiver check, with a bare
    // TypeError ("this.__destroy_into_raw is not a function"); ours is the check's own, as
    // generator.js's. On another class's instance the glue's free() frees THAT object (its
    // own __destroy_into_raw checks for its own class): ours refuses.
    assert.equal(b.error ?? (f === 'other' && b.ok === undefined ? 'TypeError' : b.ok), 'TypeError')
    assert.deepEqual(a, { error: 'TypeError', props: ['message', 'code'], code: 'ERR_INVALID_ARG_TYPE', message: 'UlidGenerator method called on an object that is not a UlidGenerator' })
    if (f === 'proto') assert.deepEqual(a, b)
  }
  same('after free(): ERR_CLOSED, a second free() is nothing', (m) => {
    const g = new m.UlidGenerator()
    g.nextAt(1, new Uint8Array(10))
    g.free()
    g.free()
    return g.nextAt(1, new Uint8Array(10))
  })
  same('the receiver is checked before the arguments', (m) => {
    const g = new m.UlidGenerator()
    g.free()
    return g.nextAt('bad', null)
  })
  same('[Symbol.dispose]() frees', (m) => {
    const g = new m.UlidGenerator()
    g[Symbol.dispose]()
    return g.nextAt(1, new Uint8Array(10))
  })
  same('a constructor call without new', (m) => m.UlidGenerator())
})

const sleep = (ms) => new Promise((res) => setTimeout(res, ms))
/** Waits until both builds' next ksuid() opens a new second (and so draws its payload): one
 *  KSUID each now, then the next second of the clock (both builds read the same clock). */
async function freshKsuidSecond() {
  const ends = [port, oracle].map((l) => {
    try {
      return Number(port.ksuidUnixMs(port.parseKsuidBytes(l.ksuid()))) + 1000
    } catch (e) {
      return Number(e.untilMs) // ERR_WOULD_BLOCK: a payload run out (the test before this one)
    }
  })
  await sleep(Math.max(...ends) - Date.now() + 3)
}
const hexOf = (b) => Buffer.from(b).toString('hex')
/** A pool-aligning call drawing 16 bytes on either build. */
const align = (lib) => (lib === oracle ? oracle.uuid4() : randomBytes(16))
const ulidBytes = (s) => port.parseUlidBytes(s)

test('ulid(), typeid() and ksuid(): the same random bytes as the oracle, in order, on a fresh tick', async () => {
  for (let k = 0; k < 6; k++) {
    const seed = SEED + 100 + k
    const got = []
    for (const lib of [port, oracle]) {
      // A ULID and a v7 UUID of an earlier millisecond: the next call opens a new one and draws.
      lib.ulid()
      lib.typeid('x')
      await sleep(3)
      const before = Date.now()
      const { value, fills } = sameEntropy(seed, lib, align, (l) => [l.ulid(), l.typeid('user')])
      got.push({ value, fills, before, after: Date.now() })
    }
    const [p, o] = got
    assert.deepEqual(p.fills, o.fills, `seed ${seed}: the getRandomValues calls`)
    const [pu, pt] = p.value
    const [ou, ot] = o.value
    // The random part (bytes 6..16) drawn from the same place of the same stream.
    assert.equal(hexOf(ulidBytes(pu).subarray(6)), hexOf(ulidBytes(ou).subarray(6)), `seed ${seed}: ulid ${pu} ${ou}`)
    for (const [u, w] of [[pu, p], [ou, o]]) {
      const ms = Number(port.ulidUnixMs(ulidBytes(u)))
      assert.ok(ms >= w.before - 1 && ms <= w.after, `ulid time ${ms} in [${w.before}, ${w.after}]`)
    }
    // typeid: the v7 UUID's bits past its 48-bit time (the counter's seed and the tail).
    const pp = port.parseTypeId(pt)
    const op = oracle.parseTypeId(ot)
    assert.equal(pp.prefix, 'user')
    assert.equal(pp.uuid.slice(14), op.uuid.slice(14), `seed ${seed}: typeid ${pt} ${ot}`)
    assert.equal(pp.uuid[14], '7')
  }
})

test('ksuid(): a fresh second draws the same 16 payload bytes as the oracle; within it, plus one', async () => {
  const got = []
  const seed = SEED + 200
  await freshKsuidSecond()
  for (const lib of [port, oracle]) {
    const before = Date.now()
    const { value, fills } = sameEntropy(seed, lib, align, (l) => [l.ksuid(), l.ksuid()])
    got.push({ value, fills, before, after: Date.now() })
  }
  const [p, o] = got
  assert.deepEqual(p.fills, o.fills)
  const pb = p.value.map(port.parseKsuidBytes)
  const ob = o.value.map(port.parseKsuidBytes)
  assert.equal(hexOf(pb[0].subarray(4)), hexOf(ob[0].subarray(4)))
  for (const [b, w] of [[pb, p], [ob, o]]) {
    const ms = Number(port.ksuidUnixMs(b[0]))
    assert.ok(ms <= w.after && ms > w.before - 1000, `ksuid second ${ms} around [${w.before}, ${w.after}]`)
    // Within the same second the second KSUID is the first plus one; else a fresh draw.
    if (port.ksuidUnixMs(b[1]) === port.ksuidUnixMs(b[0])) assert.equal(BigInt('0x' + hexOf(b[1])) - BigInt('0x' + hexOf(b[0])), 1n)
    else assert.ok(hexOf(b[1]) > hexOf(b[0]))
  }
})

test('ksuid(): a payload drawn across a pool refill is still one 16-byte draw, as the oracle draws it', async () => {
  const got = []
  const seed = SEED + 201
  await freshKsuidSecond()
  // After `align` the pool has handed out 16 of its 256 bytes; 232 more leave 8, fewer than a
  // payload: the payload comes whole from the next fill, not 8 old bytes and 8 new.
  const drain = (l) => {
    for (let i = 0; i < 14; i++) align(l)
    if (l === oracle) oracle.randomNode('twitter')
    else randomBytes(8)
  }
  for (const lib of [port, oracle]) {
    const { value, fills } = sameEntropy(seed, lib, align, (l) => (drain(l), l.ksuid()))
    got.push({ value, fills })
  }
  const [p, o] = got
  assert.deepEqual(p.fills, [256])
  assert.deepEqual(p.fills, o.fills)
  assert.equal(hexOf(port.parseKsuidBytes(p.value).subarray(4)), hexOf(port.parseKsuidBytes(o.value).subarray(4)))
})

/** Runs `body(lib)` with `crypto.getRandomValues` giving `byte` everywhere (or throwing when
 *  `byte` is null), after using up `lib`'s pool, and puts the real `crypto` back. */
function withCrypto(byte, lib, body) {
  const real = Object.getOwnPropertyDescriptor(globalThis, 'crypto')
  let fills = 0
  const stub = {
    getRandomValues(buf) {
      fills++
      if (byte === null) throw new Error('no entropy')
      new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength).fill(byte)
      return buf
    },
  }
  Object.defineProperty(globalThis, 'crypto', { value: stub, configurable: true, writable: true })
  try {
    // Use up the pool (a call that refills it, with the stub's bytes, or fails).
    for (let i = 0; i < 300 && fills === 0; i++) outcome(() => align(lib))
    return body(lib)
  } finally {
    Object.defineProperty(globalThis, 'crypto', real)
  }
}

test('ulid() and ksuid() throw ERR_WOULD_BLOCK as the oracle when their random part is all ones', async () => {
  for (const lib of [port, oracle]) {
    lib.ulid()
    await sleep(3)
    const [u, e] = withCrypto(255, lib, (l) => [l.ulid(), outcome(() => l.ulid())])
    const ms = port.ulidUnixMs(ulidBytes(u))
    assert.equal(u.slice(10), 'Z'.repeat(16))
    assert.deepEqual(e, { error: 'Error', props: ['message', 'code', 'untilMs'], code: 'ERR_WOULD_BLOCK', untilMs: ms + 1n, message: `would block until ${ms + 1n} ms` })
  }
  await freshKsuidSecond()
  for (const lib of [port, oracle]) {
    const [k, e] = withCrypto(255, lib, (l) => [l.ksuid(), outcome(() => l.ksuid())])
    const until = port.ksuidUnixMs(port.parseKsuidBytes(k)) + 1000n
    assert.deepEqual(e, { error: 'Error', props: ['message', 'code', 'untilMs'], code: 'ERR_WOULD_BLOCK', untilMs: until, message: `would block until ${until} ms` })
  }
})

test('without Web Crypto: ERR_RANDOM_SOURCE as the oracle, and the generators are as they were', async () => {
  for (const make of [(l) => l.ulid(), (l) => l.typeid('a')]) {
    const seen = []
    for (const lib of [port, oracle]) {
      const before = make(lib)
      await sleep(3)
      // Draw until the pool's leftovers run out (new milliseconds draw 10 bytes each).
      const e = withCrypto(null, lib, (l) => {
        for (let i = 0; i < 30; i++) {
          const o = outcome(() => make(l))
          if (!('ok' in o)) return o
          const t = Date.now()
          while (Date.now() < t + 2) {
            /* a new millisecond */
          }
          // The clock's reading is reused within a task; a fresh one needs a microtask: none
          // here, so draws may continue in one millisecond (no draw then) until one fails.
        }
        return null
      })
      seen.push(e)
      assert.ok(make(lib) > before)
    }
    assert.deepEqual(seen[0], { error: 'Error', props: ['message', 'code'], code: 'ERR_RANDOM_SOURCE', message: 'random source failed' })
    assert.deepEqual(seen[0], seen[1])
  }
})

/** Runs `outer(lib)` with a `crypto.getRandomValues` that first calls `inner(lib)` once (page
 *  code calling back into the package), after using up the pool so the call draws. */
function reentrant(lib, inner, outer) {
  const real = Object.getOwnPropertyDescriptor(globalThis, 'crypto')
  const webCrypto = globalThis.crypto
  const innerValues = []
  let armed = false
  const stub = {
    getRandomValues(buf) {
      if (armed) {
        armed = false
        innerValues.push(inner(lib))
      }
      return webCrypto.getRandomValues(buf)
    },
  }
  Object.defineProperty(globalThis, 'crypto', { value: stub, configurable: true, writable: true })
  try {
    for (let i = 0; i < 300; i++) {
      // Use up the pool: the next draw calls getRandomValues.
      let called = false
      const spy = stub.getRandomValues
      stub.getRandomValues = (b) => ((called = true), spy(b))
      align(lib)
      stub.getRandomValues = spy
      if (called) break
    }
    // 240 bytes left after the refill: draw them (15 x 16) so the outer call refills.
    for (let i = 0; i < 15; i++) align(lib)
    armed = true
    const value = outer(lib)
    return { inner: innerValues, value }
  } finally {
    Object.defineProperty(globalThis, 'crypto', real)
  }
}

test('a replaced crypto.getRandomValues calling back: the outer ULID and KSUID follow the inner one, as the oracle', async () => {
  for (const lib of [port, oracle]) {
    lib.ulid()
    await sleep(3)
    const { inner, value } = reentrant(lib, (l) => l.ulid(), (l) => l.ulid())
    assert.equal(inner.length, 1)
    const a = BigInt('0x' + hexOf(ulidBytes(inner[0])))
    assert.equal(BigInt('0x' + hexOf(ulidBytes(value))), a + 1n, `${lib === port ? 'port' : 'oracle'}: ${inner[0]} then ${value}`)
  }
  await freshKsuidSecond()
  for (const lib of [port, oracle]) {
    const { inner, value } = reentrant(lib, (l) => l.ksuid(), (l) => l.ksuid())
    assert.equal(inner.length, 1)
    const a = BigInt('0x' + hexOf(port.parseKsuidBytes(inner[0])))
    assert.equal(BigInt('0x' + hexOf(port.parseKsuidBytes(value))), a + 1n, `${lib === port ? 'port' : 'oracle'}: ${inner[0]} then ${value}`)
  }
})

test('the KSUID generator (sans-IO, under ksuid()): the shared vectors and the ends of its range', () => {
  const bytes = (h) => Uint8Array.from(h.match(/../g), (x) => parseInt(x, 16))
  let steps = 0
  for (const c of vectors.ksuid_generator) {
    const g = { last: null }
    for (const s of c.steps) {
      let asked = 0
      const o = outcome(() => port.ksuidNextAt(g, Number(s.unix_ms), () => (asked++, bytes(s.random))))
      if ('ksuid' in s.expect) assert.equal(o.ok, s.expect.ksuid)
      else {
        const { error, ...fields } = s.expect
        assert.equal(o.code, error)
        for (const [k, v] of Object.entries(fields)) assert.equal(String(o[k.replace(/_(.)/g, (_, x) => x.toUpperCase())]), v, k)
      }
      // Random bytes are asked for only on a new second (and not for a time out of range).
      assert.ok(asked <= 1)
      steps++
    }
  }
  assert.ok(steps >= 10)
  const lastMs = (1400000000 + 2 ** 32 - 1) * 1000 + 999
  const g = { last: null }
  assert.equal(port.ksuidNextAt(g, lastMs, () => new Uint8Array(16).fill(255)), 'aWgEPTl1tmebfsQzFP4bxwgy80V')
  assert.deepEqual(outcome(() => port.ksuidNextAt({ last: null }, lastMs + 1, () => new Uint8Array(16))), {
    error: 'RangeError', props: ['message', 'code', 'field', 'value', 'max'], code: 'ERR_OUT_OF_RANGE',
    field: 'timestamp', value: 4294967296n, max: 4294967295n, message: 'value 4294967296 does not fit field `timestamp` (max 4294967295)',
  })
  // A failing random source leaves the generator as it was.
  const h = { last: null }
  const a = port.ksuidNextAt(h, 1700000000000, () => new Uint8Array(16))
  assert.throws(() => port.ksuidNextAt(h, 1700000005000, () => { throw new Error('no entropy') }), /no entropy/)
  assert.equal(port.ksuidNextAt(h, 1700000000001, () => new Uint8Array(16)).slice(0, -1), a.slice(0, -1))
})
