// js/uuid.js against the oracle, the WebAssembly build of the core:
// * every sans-IO function with thousands of seeded arguments, valid and hostile (UUID texts in
//   every form and mutated, u64/u16 values at and past their edges, byte arrays of the wrong
//   length or kind, proxies, symbols): the same value, or the same error (class, code, message
//   and every own property);
// * the generators' state machines call by call: `Uuid7Generator.nextAt` for each method, and the
//   core generators `Uuid1Core`, `Uuid6Core`, `Uuid7Core` against the oracle's `UuidGenerator`;
// * the random functions byte for byte from one seeded Web Crypto stream (support/entropy.mjs),
//   with the same getRandomValues calls;
// * the clocked functions for order, format and time;
// * RFC 9562's test vectors and the core's own unit-test cases for what the oracle cannot reach
//   (a counter running out).
//
//   node --test bindings-wasm/tests/js/uuid.test.mjs   (IDMINT_SEED=n: another seed)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { rng } from './support/random.mjs'
import { sameEntropy } from './support/entropy.mjs'
import * as port from '../../js/uuid.js'

const oracle = createRequire(import.meta.url)('../../pkg/node/wasm/idmint.js')
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

/** Describes arguments for a failure message (bigints, symbols and bytes included). */
const show = (args) =>
  args
    .map((a) =>
      typeof a === 'bigint' ? `${a}n` : typeof a === 'symbol' ? 'Symbol' : a instanceof Uint8Array ? `bytes(${outcome(() => a.length).ok})` : typeof a === 'string' ? JSON.stringify(a) : String(a),
    )
    .join(', ')

/** Calls `name` with `args` on both and requires the same outcome. */
function same(name, args, ctx = '') {
  const want = outcome(() => oracle[name](...args))
  const before = args.map((a) => (a instanceof Uint8Array && !ArrayBuffer.isView(Object.getPrototypeOf(a)) ? outcome(() => Array.from(a)) : null))
  const got = outcome(() => port[name](...args))
  assert.deepEqual(got, want, `${name}(${show(args)}) ${ctx} seed ${SEED}`)
  // The caller's bytes are read, never written.
  args.forEach((a, i) => before[i] && assert.deepEqual(outcome(() => Array.from(a)), before[i], `${name} changed its argument ${i}`))
  return want
}

// ---- argument generators -----------------------------------------------------------------

const HOSTILE = [
  undefined,
  null,
  0,
  1,
  -1,
  1.5,
  NaN,
  Infinity,
  -0,
  2 ** 53,
  0n,
  -1n,
  2n ** 64n,
  '',
  'abc',
  true,
  {},
  [],
  [1, 2],
  Symbol('s'),
  () => 1,
  new String('dns'),
  new Date(0),
  new ArrayBuffer(16),
  new Uint8ClampedArray(16),
  new Int8Array(16),
  new Uint16Array(8),
  new DataView(new ArrayBuffer(16)),
  new Proxy({}, {}),
  new Proxy(new Uint8Array(16), {}),
  new Proxy(new Uint8Array(10), {}),
  new Proxy(new Uint8Array(6), {}),
  Object.create(Uint8Array.prototype),
  Buffer.alloc(16, 7),
  Buffer.alloc(10, 9),
  Buffer.alloc(6, 1),
]

const hexOf = (b) => Buffer.from(b).toString('hex')

/** A UUID's text in one of the forms parseUuid reads; often with an interesting version/variant. */
function uuidText(r, version) {
  const b = r.bytes(16)
  if (version !== undefined || r.chance(0.6)) {
    b[6] = (b[6] & 0x0f) | ((version ?? r.pick([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15])) << 4)
    b[8] = r.chance(0.8) ? (b[8] & 0x3f) | 0x80 : r.pick([0x00, 0x7f, 0xc0, 0xdf, 0xe0, 0xff])
  }
  if (r.chance(0.05)) b.fill(r.pick([0, 255]))
  if (r.chance(0.1)) b.fill(0, 0, 8) // v1/v6 times before 1970
  const h = hexOf(b)
  const hy = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
  let s = r.pick([hy, hy, h, `{${hy}}`, `urn:uuid:${hy}`, `{${h}}`, `urn:uuid:${h}`])
  if (r.chance(0.3)) s = s.toUpperCase()
  return s
}

const ODD = ['g', 'G', '-', '{', '}', ' ', '\t', ':', 'é', '😀', '\uD800', '\uDC00', '\u0000', '\uFFFD', 'x', '0', 'f', 'F', 'u', 'urn:uuid:', '--']

/** `s` with a few edits that usually (not always) make it invalid. */
function mutate(r, s) {
  const edits = 1 + r.int(3)
  for (let i = 0; i < edits; i++) {
    const chars = [...s]
    const at = r.int(chars.length + 1)
    switch (r.int(7)) {
      case 0:
        chars[at] = r.pick(ODD)
        break
      case 1:
        chars.splice(at, 0, r.pick(ODD))
        break
      case 2:
        chars.splice(at, 1)
        break
      case 3:
        chars.length = at
        break
      case 4:
        chars.splice(at, 1 + r.int(3), '-')
        break
      case 5:
        return r.pick(['', '{', '}', '{}', 'urn:uuid:', 'URN:UUID:' + s, ' ' + s, s + ' ', `{${s}`, `${s}}`])
      default:
        chars.reverse()
    }
    s = chars.join('')
  }
  return s
}

/** A text argument for the UUID-taking functions. */
function textArg(r, version) {
  const x = r.int(10)
  if (x < 5) return uuidText(r, version)
  if (x < 9) return mutate(r, uuidText(r, version))
  return r.pick(HOSTILE)
}

/** A u64 argument: bigints of every width (past 64 bits too), numbers safe and not, hostile. */
function u64Arg(r) {
  switch (r.int(8)) {
    case 0:
    case 1:
      return r.big(1 + r.int(66))
    case 2:
      return r.pick([0n, 1n, 2n ** 48n - 1n, 2n ** 48n, 2n ** 60n - 1n, 2n ** 60n, 2n ** 64n - 1n, 2n ** 64n, -1n, 2n ** 62n - 1n, 2n ** 62n, 2n ** 12n - 1n, 2n ** 12n])
    case 3:
      return r.int(2 ** 31)
    case 4:
      return Number(r.big(53))
    case 5:
      return r.pick([2 ** 53, 2 ** 64, -1, -0, 0.5, 1e300, NaN, -Infinity, 1_700_000_000_000, 4095, 4096])
    case 6:
      return r.pick(['1', '0x10', null, undefined, {}, true])
    default:
      return r.int(20000)
  }
}

/** A u16 argument (clock sequences, extra ticks). */
function u16Arg(r) {
  const x = r.int(6)
  if (x < 3) return r.int(65536)
  if (x === 3) return r.pick([0, 9999, 10000, 16383, 16384, 65535, 65536, 70000n, 65535n, -1, 1.5, 2 ** 53])
  if (x === 4) return r.int(10001)
  return u64Arg(r)
}

/** A byte-array argument of `n` bytes, often right, sometimes wrong. */
function bytesArg(r, n) {
  const x = r.int(10)
  if (x < 7) return r.bytes(n)
  if (x < 9) return r.bytes(r.pick([0, n - 1, n + 1, 2 * n]))
  return r.pick(HOSTILE)
}

/** A name for the name-based UUIDs: text (any Unicode, lone surrogates too) or bytes. */
function nameArg(r) {
  const x = r.int(10)
  if (x < 4) return Array.from({ length: r.int(80) }, () => r.pick(['a', 'Z', '.', 'é', '😀', '\uD800', '\uDC00', 'ß', '\u0000', 'www.example.com', 'python.org'])).join('')
  if (x < 8) return r.bytes(r.pick([0, 1, 39, 40, 47, 48, 55, 56, 63, 64, 100, 1000, r.int(300)]))
  return r.pick(HOSTILE)
}

/** A namespace argument: the four names (and near misses), UUIDs, bad text, hostile values. */
function nsArg(r) {
  const x = r.int(10)
  if (x < 4) return r.pick(['dns', 'url', 'oid', 'x500', 'DNS', 'x5', '', 'toString', '__proto__', 'hasOwnProperty', 'constructor'])
  if (x < 7) return uuidText(r)
  if (x < 9) return mutate(r, uuidText(r))
  return r.pick(HOSTILE)
}

// ---- the sans-IO functions ---------------------------------------------------------------

const CASES = Number(process.env.IDMINT_CASES ?? 1500)

test('the sans-IO functions: the same value or the same error as the oracle', () => {
  const r = rng(SEED)
  const calls = {
    parseUuid: () => [textArg(r)],
    uuidInfo: () => [textArg(r)],
    uuid8Fields: () => [textArg(r, r.chance(0.7) ? 8 : undefined)],
    uuid1ToUuid6: () => [textArg(r, r.chance(0.7) ? 1 : undefined)],
    uuid6ToUuid1: () => [textArg(r, r.chance(0.7) ? 6 : undefined)],
    uuid3: () => [nsArg(r), nameArg(r)],
    uuid5: () => [nsArg(r), nameArg(r)],
    uuid8Sha256: () => [nsArg(r), nameArg(r)],
    uuid1At: () => [u64Arg(r), u16Arg(r), bytesArg(r, 6)],
    uuid6At: () => [u64Arg(r), u16Arg(r), bytesArg(r, 6)],
    uuid1RandomNode: () => [u64Arg(r), u16Arg(r), u16Arg(r), bytesArg(r, 6)],
    uuid7At: () => [u64Arg(r), bytesArg(r, 10)],
    uuid8: () => [bytesArg(r, 16)],
    uuid4: () => [bytesArg(r, 16)],
    uuid8FromFields: () => [u64Arg(r), r.chance(0.5) ? r.int(8192) : u64Arg(r), u64Arg(r)],
  }
  let values = 0
  let errors = 0
  for (const [name, gen] of Object.entries(calls)) {
    for (let i = 0; i < CASES; i++) {
      const args = gen()
      // uuid4 without bytes draws from the OS: compared byte for byte further down.
      if (name === 'uuid4' && (args[0] === undefined || args[0] === null)) continue
      if ('ok' in same(name, args)) values++
      else errors++
    }
  }
  // Fewer or extra arguments: the missing ones are undefined, extra ones ignored.
  for (const name of Object.keys(calls)) {
    if (name !== 'uuid4') same(name, [])
    same(name, ['dns', 'x', 1, 2, 3, 4, 5])
  }
  // Both outcomes are well represented.
  assert.ok(values > CASES * 4 && errors > CASES * 4, `${values} values, ${errors} errors`)
})

test('parseUuid: every form and case of every UUID gives its canonical text; every single-character edit the same diagnosis', () => {
  const r = rng(SEED + 1)
  for (let i = 0; i < 300; i++) {
    const s = uuidText(r)
    const want = same('parseUuid', [s])
    // Braced and URN forms hold hyphenated UUIDs only, and `urn:uuid:` is lower case.
    if ('ok' in want) assert.match(want.ok, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    else assert.ok(/^(\{[0-9a-fA-F]{32}\}|urn:uuid:[0-9a-fA-F]{32}|URN:UUID:.*)$/.test(s), s)
    // Each position replaced by each odd character, deleted, doubled.
    const chars = [...s]
    for (let at = 0; at < chars.length; at += 1 + r.int(3)) {
      for (const c of [r.pick(ODD), '-', 'g']) same('parseUuid', [[...chars.slice(0, at), c, ...chars.slice(at + 1)].join('')])
      same('parseUuid', [[...chars.slice(0, at), ...chars.slice(at + 1)].join('')])
      same('parseUuid', [[...chars.slice(0, at), chars[at], ...chars.slice(at)].join('')])
    }
  }
  for (const s of ['', '{', '}', '{}', 'urn:uuid:', 'urn:uuid', '-', '----', '😀', '\uD800'.repeat(36), '0'.repeat(31), '0'.repeat(33), '{' + '0'.repeat(32) + '}', 'urn:uuid:' + '0'.repeat(32)])
    same('parseUuid', [s])
  assert.equal(port.NIL_UUID, oracle.NIL_UUID)
  assert.equal(port.MAX_UUID, oracle.MAX_UUID)
})

test('RFC 9562 test vectors and the well-known name-based UUIDs', () => {
  const node = Uint8Array.from([0x9f, 0x6b, 0xde, 0xce, 0xd8, 0x46])
  // Appendix A.1 (v1) and A.5 (v6): the same time, clock sequence and node.
  assert.equal(port.uuid1At(0x1ec9414c232ab00n, 0x33c8, node), 'c232ab00-9414-11ec-b3c8-9f6bdeced846')
  assert.equal(port.uuid6At(0x1ec9414c232ab00n, 0x33c8, node), '1ec9414c-232a-6b00-b3c8-9f6bdeced846')
  assert.equal(port.uuid1ToUuid6('C232AB00-9414-11EC-B3C8-9F6BDECED846'), '1ec9414c-232a-6b00-b3c8-9f6bdeced846')
  assert.equal(port.uuid6ToUuid1('1EC9414C-232A-6B00-B3C8-9F6BDECED846'), 'c232ab00-9414-11ec-b3c8-9f6bdeced846')
  // A.2 (v3) and A.4 (v5): the DNS namespace and "www.example.com".
  assert.equal(port.uuid3('dns', 'www.example.com'), '5df41881-3aed-3515-88a7-2f4a814cf09e')
  assert.equal(port.uuid5('dns', 'www.example.com'), '2ed6657d-e927-568b-95e1-2665a8aea6a2')
  assert.equal(port.uuid3('6ba7b810-9dad-11d1-80b4-00c04fd430c8', new TextEncoder().encode('python.org')), '6fa459ea-ee8a-3ca4-894e-db77e160355e')
  assert.equal(port.uuid5('dns', 'python.org'), '886313e1-3b8a-5372-9b90-0c9aee199e5d')
  // A.3 (v4): 122 random bits kept, version and variant set.
  assert.equal(port.uuid4(Uint8Array.from(Buffer.from('919108f752d133205bacf847db4148a8', 'hex'))), '919108f7-52d1-4320-9bac-f847db4148a8')
  // A.6 (v7).
  const rand = Uint8Array.from([0x0c, 0xc3, 0x18, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f])
  assert.equal(port.uuid7At(0x017f22e279b0n, rand), '017f22e2-79b0-7cc3-98c4-dc0c0c07398f')
  assert.deepEqual(port.uuidInfo('017F22E2-79B0-7CC3-98C4-DC0C0C07398F'), { version: 7, variant: 'rfc9562', unixMs: 0x017f22e279b0n })
  // B.1 and B.2 (v8).
  assert.equal(port.uuid8FromFields(0x2489e9ad2ee2n, 0xe00, 0x0ec932d5f69181c0n), '2489e9ad-2ee2-8e00-8ec9-32d5f69181c0')
  assert.deepEqual(port.uuid8Fields('2489e9ad-2ee2-8e00-8ec9-32d5f69181c0'), { customA: 0x2489e9ad2ee2n, customB: 0xe00, customC: 0x0ec932d5f69181c0n })
  assert.equal(port.uuid8Sha256('dns', 'www.example.com'), '5c146b14-3c52-8afd-938a-375d0df1fbf6')
  const digest = Uint8Array.from(Buffer.from('5c146b143c524afd938a375d0df1fbf6', 'hex'))
  assert.equal(port.uuid8(digest), '5c146b14-3c52-8afd-938a-375d0df1fbf6')
  // Sections 5.9 and 5.10.
  assert.deepEqual(port.uuidInfo(port.NIL_UUID), { version: 0, variant: 'ncs', unixMs: null })
  assert.deepEqual(port.uuidInfo(port.MAX_UUID), { version: 15, variant: 'future', unixMs: null })
  // The core's doc examples: v1 with a random node, v1 times before 1970.
  const u = port.uuid1RandomNode(1_700_000_000_000, 5, 0x1234, Uint8Array.from([0, 1, 2, 3, 4, 5]))
  assert.equal(port.uuidInfo(u).unixMs, 1_700_000_000_000n)
  assert.equal(parseInt(u.slice(24, 26), 16) & 1, 1, 'multicast: never a MAC')
  assert.equal(port.uuidInfo(port.uuid1At(0n, 0, new Uint8Array(6))).unixMs, null)
})

// ---- the cross-module helpers ------------------------------------------------------------

test('uuidArg, uuidText, parseUuidBytes and uuidUnixMs agree with parseUuid and uuidInfo', () => {
  const r = rng(SEED + 2)
  for (let i = 0; i < 1000; i++) {
    const s = textArg(r)
    const want = outcome(() => oracle.parseUuid(s))
    const bytes = outcome(() => port.uuidArg(s, 'text'))
    if ('ok' in want) {
      assert.equal(port.uuidText(bytes.ok), want.ok)
      assert.deepEqual(port.parseUuidBytes(s), bytes.ok)
      assert.equal(bytes.ok.length, 16)
      assert.equal(port.uuidUnixMs(bytes.ok), oracle.uuidInfo(s).unixMs)
    } else {
      assert.deepEqual(bytes, want, show([s]))
      if (typeof s === 'string') assert.deepEqual(outcome(() => port.parseUuidBytes(s)), want)
    }
  }
  // The argument's name is the caller's.
  assert.throws(() => port.uuidArg(5, 'prefix'), { message: 'prefix must be a string; received number 5' })
})

// ---- generators --------------------------------------------------------------------------

/** A walk of times: mostly the same or the next ms, steps back, jumps, the 48-bit end. */
function timeWalk(r, start) {
  let ms = start
  return () => {
    const x = r.int(20)
    if (x < 8) return ms
    if (x < 13) return (ms += BigInt(1 + r.int(3)))
    if (x < 16) return ms - BigInt(r.int(5000))
    if (x < 17) return (ms += BigInt(r.int(1e6)))
    if (x < 18) return r.pick([0n, 2n ** 48n - 1n, 2n ** 48n, 2n ** 64n - 1n])
    if (x < 19) return r.pick([-1, 1.5, 'now', 2 ** 53, null])
    return Number(ms)
  }
}

test('Uuid7Generator.nextAt, each method: every UUID, lastUnixMs and error as the oracle', () => {
  const r = rng(SEED + 3)
  for (const method of ['counter', 'random_increment', 'sub_millisecond', undefined, null]) {
    for (let run = 0; run < 12; run++) {
      const a = new port.Uuid7Generator(method)
      const b = new oracle.Uuid7Generator(method)
      assert.equal(a.method, b.method)
      assert.equal(a.lastUnixMs, null)
      const time = timeWalk(r, BigInt(run < 2 ? 2 ** 48 - 3 : 1_700_000_000_000 + r.int(1e6)))
      for (let i = 0; i < 400; i++) {
        const args = [time(), r.chance(0.97) ? r.bytes(10) : bytesArg(r, 10)]
        const x = r.int(10)
        if (x < 5) args.push(r.int(1_000_000))
        else if (x < 7) args.push(r.pick([undefined, null, 0, 999_999, 1_000_000, 2 ** 32 - 1, 2 ** 32, -1, 0.5, 5n, 'x']))
        const want = outcome(() => b.nextAt(...args))
        assert.deepEqual(outcome(() => a.nextAt(...args)), want, `${method} step ${i} nextAt(${show(args)}) seed ${SEED}`)
        assert.equal(a.lastUnixMs, b.lastUnixMs)
      }
    }
  }
  // Constructor arguments.
  for (const m of ['counter', 'random_increment', 'sub_millisecond', 'Counter', 'fast', '', ...HOSTILE]) {
    const want = outcome(() => new oracle.Uuid7Generator(m).method)
    assert.deepEqual(outcome(() => new port.Uuid7Generator(m).method), want, show([m]))
  }
})

test('Uuid7Generator: receiver checks, free() and Symbol.dispose as the oracle', () => {
  for (const lib of [port, oracle]) {
    const g = new lib.Uuid7Generator('random_increment')
    g.nextAt(5n, new Uint8Array(10))
    const foreign = [{}, Object.create(lib.Uuid7Generator.prototype)]
    for (const o of foreign) {
      for (const f of [() => lib.Uuid7Generator.prototype.next.call(o), () => lib.Uuid7Generator.prototype.nextAt.call(o, 1, new Uint8Array(10))]) {
        assert.throws(f, { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: 'Uuid7Generator method called on an object that is not a Uuid7Generator' })
      }
      const getter = Object.getOwnPropertyDescriptor(lib.Uuid7Generator.prototype, 'lastUnixMs').get
      assert.throws(() => getter.call(o), { code: 'ERR_INVALID_ARG_TYPE' })
    }
    assert.throws(() => lib.Uuid7Generator.prototype.free.call(Object.create(lib.Uuid7Generator.prototype)), { name: 'TypeError' })
    assert.equal(lib.Uuid7Generator.prototype[Symbol.dispose], lib.Uuid7Generator.prototype.free)
    g.free()
    g.free()
    for (const f of [() => g.next(), () => g.nextAt(1, new Uint8Array(10)), () => g.method, () => g.lastUnixMs]) {
      const e = outcome(f)
      assert.deepEqual(e, { error: 'Error', props: ['message', 'code', 'what'], code: 'ERR_CLOSED', what: 'Uuid7Generator', message: 'Uuid7Generator is closed' })
    }
    // The receiver is checked before the arguments.
    const h = new lib.Uuid7Generator()
    h[Symbol.dispose]()
    assert.throws(() => h.nextAt('bad', null), { code: 'ERR_CLOSED' })
  }
  // The same members (wasm-bindgen's own internal helper aside).
  const members = (c) => Object.getOwnPropertyNames(c.prototype).filter((k) => k !== '__destroy_into_raw').sort()
  assert.deepEqual(members(port.Uuid7Generator), members(oracle.Uuid7Generator))
})

/** `(n) => bytes` from a seeded stream, counting its calls. */
function replay(seed) {
  const r = rng(seed)
  const asks = []
  return { asks, fill: (n) => (asks.push(n), r.bytes(n)) }
}

test('Uuid1Core, Uuid6Core, Uuid7Core: the core generators as the oracle`s UuidGenerator drives them', () => {
  const r = rng(SEED + 4)
  for (const [version, Core] of [
    [1, port.Uuid1Core],
    [6, port.Uuid6Core],
    [7, port.Uuid7Core],
  ]) {
    for (let run = 0; run < 6; run++) {
      const mine = new Core()
      const theirs = new oracle.UuidGenerator(version)
      const s = r.int(2 ** 31)
      const p = replay(s)
      const q = replay(s)
      const walk = timeWalk(r, BigInt(run === 0 ? 2n ** 64n - 3n : 1_700_000_000_000 + r.int(1e6)))
      const time = () => {
        const t = walk()
        return typeof t === 'bigint' && t >= 0n && t < 2n ** 64n ? t : 7n
      }
      // A long run in one millisecond: v1/v6 count 10 000 ticks of 100 ns, then move on.
      const steps = run === 1 ? 10_050 : 500
      for (let i = 0; i < steps; i++) {
        const now = run === 1 ? 1_700_000_000_000n : time()
        const want = theirs.nextAt(now, q.fill)
        const got = version === 7 ? mine.nextAt(now, p.fill(10)) : mine.nextAt(now, p.fill)
        assert.equal(port.uuidText(got), want, `v${version} run ${run} step ${i} at ${now} seed ${SEED}`)
        assert.equal(mine.lastUnixMs, theirs.lastUnixMs)
      }
      assert.deepEqual(p.asks, q.asks, 'the same draws')
    }
  }
  // A random source that calls the generator back (a replaced getRandomValues may): the state
  // is read after the draw, as the core's draw_outside does.
  for (const [v, Core] of [
    [1, port.Uuid1Core],
    [6, port.Uuid6Core],
  ]) {
    const mine = new Core()
    const theirs = new oracle.UuidGenerator(v)
    const reenter = (g, next) => {
      let depth = 0
      return (n) => (depth++ === 0 && next(g, 9n, (k) => new Uint8Array(k).fill(2)), new Uint8Array(n).fill(1))
    }
    const a = port.uuidText(mine.nextAt(5n, reenter(mine, (g, t, f) => g.nextAt(t, f))))
    assert.equal(a, theirs.nextAt(5n, reenter(theirs, (g, t, f) => g.nextAt(t, f))))
    assert.equal(port.uuidText(mine.nextAt(5n, () => assert.fail('no second draw'))), theirs.nextAt(5n, () => assert.fail('no second draw')))
  }
  // A failing draw changes nothing: the next call draws again.
  const g = new port.Uuid1Core()
  assert.throws(() => g.nextAt(5n, () => { throw new Error('no entropy') }), { message: 'no entropy' })
  assert.equal(g.lastUnixMs, null)
  assert.equal(port.uuidText(g.nextAt(5n, (n) => new Uint8Array(n))), oracle.uuid1RandomNode(5, 0, 0, new Uint8Array(6)))
})

test('Uuid7Core where the oracle cannot reach: counters running out (the core`s unit tests)', () => {
  const ff = new Uint8Array(10).fill(0xff)
  // Counter: at the top the time advances 1 ms and the counter is reseeded (top bit clear).
  const g = new port.Uuid7Core('counter')
  g.nextAt(5000, ff)
  g._c = 2 ** 42 - 2
  const a = g.nextAt(5000, ff)
  assert.equal(g._c, 2 ** 42 - 1)
  const b = g.nextAt(5000, ff)
  assert.ok(port.uuidText(b) > port.uuidText(a))
  assert.equal(port.uuidUnixMs(b), 5001n)
  assert.equal(g._c, 2 ** 41 - 1)
  assert.equal(port.uuidText(a), '00000000-1388-7fff-bfff-ffffffffffff')
  // Random increment: past 2^74 - 1 the time advances.
  const h = new port.Uuid7Core('random_increment')
  h.nextAt(5000, ff)
  h._c = (1n << 74n) - 4n
  assert.equal(port.uuidUnixMs(h.nextAt(5000, ff)), 5001n)
  // ... while a step that lands exactly on 2^74 - 1 still fits (0xff.. bytes: a step of 2^32).
  const k = new port.Uuid7Core('random_increment')
  k.nextAt(5000, ff)
  k._c = (1n << 74n) - 1n - (1n << 32n)
  assert.equal(port.uuidText(k.nextAt(5000, ff)), '00000000-1388-7fff-bfff-ffffffffffff')
  assert.equal(k._c, (1n << 74n) - 1n)
  // At the very end of the 48-bit range the time stays and the counter wraps (the one case
  // where order is not kept).
  const end = new port.Uuid7Core('counter')
  end.nextAt(2n ** 64n - 1n, ff)
  end._c = 2 ** 42 - 1
  assert.equal(port.uuidText(end.nextAt(2 ** 48, ff)), 'ffffffff-ffff-77ff-bfff-ffffffffffff')
  assert.equal(end.lastUnixMs, 2n ** 48n - 1n)
  assert.equal(end._c, 2 ** 41 - 1)
  // Sub-millisecond: the fraction in rand_a; the same step twice takes the next; 4095 + 1 carries.
  const p = new port.Uuid7Core('sub_millisecond')
  const randA = (u) => ((u[6] & 0x0f) << 8) | u[7]
  assert.deepEqual([randA(p.nextAtPrecise(7000, 250_000, new Uint8Array(10))), randA(p.nextAtPrecise(7000, 250_000, new Uint8Array(10)))], [1024, 1025])
  const q = new port.Uuid7Core('sub_millisecond')
  q.nextAtPrecise(7000, 999_999, new Uint8Array(10))
  const z = q.nextAtPrecise(7000, 999_999, new Uint8Array(10))
  assert.deepEqual([port.uuidUnixMs(z), randA(z)], [7001n, 0])
  // The core's doc example: half a millisecond in is step 2048.
  assert.equal(new port.Uuid7Core('sub_millisecond').nextAtPrecise(1_700_000_000_000, 500_000, new Uint8Array(10).fill(3))[6] & 0x0f, 0x08)
})

// ---- randomness, byte for byte -----------------------------------------------------------

/** The bytes of a UUID's text. */
const raw = (s) => Buffer.from(s.replace(/-/g, ''), 'hex')

test('random draws: the same bytes from the same stream, with the same getRandomValues calls', () => {
  // uuid1()/uuid6() draw once per module: their first calls happen here, in both builds.
  const tail = (s) => raw(s).subarray(12).toString('hex') // v7 counter: the 32 fresh bits
  const seqNode = (s) => raw(s).subarray(8).toString('hex')
  const subMs = (s) => {
    const b = raw(s)
    return [b[8] & 0x3f, ...b.subarray(9)].join()
  }
  const body = (lib) => {
    const out = []
    out.push(lib.uuid4(), lib.uuid4())
    out.push(seqNode(lib.uuid1()), seqNode(lib.uuid6()))
    out.push(lib.uuid7s(3).map(tail), lib.uuid4())
    out.push(lib.uuid7s(7).map(tail), lib.uuid4()) // 70 bytes: past the pool
    out.push(lib.uuid7s(0), lib.uuid4())
    out.push(tail(lib.uuid7()), lib.uuid4(new Uint8Array(16)), lib.uuid4(null), lib.uuid4(undefined))
    out.push(seqNode(lib.uuid1()), seqNode(lib.uuid6()), lib.uuid4()) // no draw after the first
    const c = new lib.Uuid7Generator()
    const s = new lib.Uuid7Generator('sub_millisecond')
    out.push(tail(c.next()), subMs(s.next()), tail(c.next()), subMs(s.next()), lib.uuid4())
    const ri = new lib.Uuid7Generator('random_increment')
    ri.next()
    out.push(lib.uuid4())
    for (let i = 0; i < 30; i++) out.push(lib.uuid4())
    out.push(lib.uuid7s(100).map(tail).join(), lib.uuid4())
    out.push(lib.uuid7s(6600).map(tail).join(), lib.uuid4()) // 66 000 bytes: two getRandomValues calls
    return out
  }
  const first = {}
  for (let seed = SEED; seed < SEED + 8; seed++) {
    const mine = sameEntropy(seed, port, (l) => l.uuid4(), body)
    const want = sameEntropy(seed, oracle, (l) => l.uuid4(), body)
    assert.deepEqual(mine, want, `seed ${seed}`)
    first[seed] = mine.value
  }
  // Distinct seeds, distinct bytes (the comparison is not of constants).
  assert.notDeepEqual(first[SEED][0], first[SEED + 1][0])
  // Errors draw nothing: a bad argument, then the same stream.
  const bad = (lib) => [outcome(() => lib.uuid7s(-1)).code, outcome(() => lib.uuid4(new Uint8Array(3))).code, lib.uuid4()]
  assert.deepEqual(sameEntropy(SEED, port, (l) => l.uuid4(), bad), sameEntropy(SEED, oracle, (l) => l.uuid4(), bad))
})

test('a failing crypto.getRandomValues: ERR_RANDOM_SOURCE from every random function, nothing changed', () => {
  const body = (lib) => {
    for (let i = 0; i < 15; i++) lib.uuid4() // the pool is now empty
    const g = new lib.Uuid7Generator()
    const stream = globalThis.crypto
    globalThis.crypto = { getRandomValues: () => { throw new Error('no entropy') } }
    const out = [() => lib.uuid4(), () => lib.uuid7(), () => lib.uuid7s(2), () => lib.uuid7s(100), () => g.next(), () => g.lastUnixMs].map(outcome)
    globalThis.crypto = stream
    out.push(lib.uuid4(), g.lastUnixMs)
    return out
  }
  const mine = sameEntropy(SEED, port, (l) => l.uuid4(), body)
  assert.deepEqual(mine, sameEntropy(SEED, oracle, (l) => l.uuid4(), body))
  assert.equal(mine.value[0].code, 'ERR_RANDOM_SOURCE')
  assert.equal(mine.value.at(-1), null)
})

test('uuid7s and the clocked functions refuse bad arguments as the oracle', () => {
  for (const n of [-1, 1.5, 2 ** 24 + 1, 2n ** 64n, 2n ** 64n - 1n, '3', null, undefined, {}, Symbol('n'), NaN]) {
    const want = outcome(() => oracle.uuid7s(n))
    assert.ok('error' in want)
    assert.deepEqual(outcome(() => port.uuid7s(n)), want, show([n]))
  }
  assert.equal(port.uuid7s(5n).length, 5)
})

// ---- the clocked functions ---------------------------------------------------------------

/** Checks that `u` is a version `v` RFC 9562 UUID made between `before` and `after` (ms), with
 *  a few ms of slack for the page clock's anchoring to the wall clock. */
function madeBetween(u, v, before, after) {
  const info = port.uuidInfo(u)
  assert.equal(info.version, v)
  assert.equal(info.variant, 'rfc9562')
  assert.deepEqual(oracle.uuidInfo(u), info)
  assert.ok(info.unixMs >= BigInt(before) - 5n && info.unixMs <= BigInt(after) + 5n, `${u}: ${info.unixMs} not in ${before}..${after}`)
}

test('uuid7(), uuid7s(), uuid1(), uuid6() and Uuid7Generator.next(): format, order, time', () => {
  const before = Date.now()
  let last = ''
  for (let i = 0; i < 3000; i++) {
    const u = i % 100 === 50 ? port.uuid7s(20) : [port.uuid7()]
    for (const x of u) {
      assert.ok(x > last, `${x} after ${last}`)
      last = x
    }
  }
  const v1 = Array.from({ length: 3000 }, () => port.uuid1())
  const v6 = Array.from({ length: 3000 }, () => port.uuid6())
  const gens = ['counter', 'random_increment', 'sub_millisecond'].map((m) => new port.Uuid7Generator(m))
  const byGen = gens.map((g) => Array.from({ length: 2000 }, () => g.next()))
  const after = Date.now()
  for (const u of [last, v1[0], v1.at(-1)]) madeBetween(u, u === last ? 7 : 1, before, after)
  madeBetween(v6[0], 6, before, after)
  madeBetween(v6.at(-1), 6, before, after)
  // v1: one node and clock sequence per module, distinct and non-decreasing times; v6 sorts.
  assert.equal(new Set(v1).size, v1.length)
  assert.equal(new Set(v1.map((u) => u.slice(19))).size, 1)
  const v1as6 = v1.map(port.uuid1ToUuid6)
  for (let i = 1; i < v1.length; i++) assert.ok(v1as6[i] > v1as6[i - 1])
  for (let i = 1; i < v6.length; i++) assert.ok(v6[i] > v6[i - 1])
  assert.equal(new Set(v6.map((u) => u.slice(19))).size, 1)
  for (const [i, us] of byGen.entries()) {
    for (let k = 1; k < us.length; k++) assert.ok(us[k] > us[k - 1], `${gens[i].method} ${k}`)
    madeBetween(us[0], 7, before, after)
    madeBetween(us.at(-1), 7, before, after)
    assert.equal(gens[i].lastUnixMs, port.uuidInfo(us.at(-1)).unixMs)
  }
  // nextV7 is the generator uuid7() uses.
  const next = port.uuidText(port.nextV7())
  assert.ok(next > last && port.uuid7() > next)
})
