// js/layout.js against the oracle (the WebAssembly build of the core, pkg/node/wasm/idmint.js) and
// the layout vectors: presets, thousands of generated specs (valid and invalid), every member
// on random arguments (bad types too), receivers that are not Layouts, free(), randomNode and
// the module functions the other modules use. Inputs come from a seeded PRNG: a failure names
// its seed and case, and reproduces.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, test } from 'node:test'
import { inspect } from 'node:util'

import * as js from '../../js/layout.js'
import { mulberry32 } from './support/random.mjs'

const oracle = createRequire(import.meta.url)('../../pkg/node/wasm/idmint.js')
const vectors = (name) => JSON.parse(readFileSync(new URL(`../../../vectors/${name}`, import.meta.url), 'utf8'))

// ---- seeded randomness ----

const prng = mulberry32

function randomTools(seed) {
  const r = prng(seed)
  const int = (lo, hi) => lo + Math.floor(r() * (hi - lo + 1))
  const pick = (xs) => xs[int(0, xs.length - 1)]
  const chance = (p) => r() < p
  /** A bigint of `bits` random bits. */
  const big = (bits) => {
    let v = 0n
    for (let i = 0; i < bits; i += 16) v = (v << 16n) | BigInt(int(0, 0xffff))
    return bits <= 0 ? 0n : v & ((1n << BigInt(bits)) - 1n)
  }
  const shuffle = (xs) => {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = int(0, i)
      ;[xs[i], xs[j]] = [xs[j], xs[i]]
    }
    return xs
  }
  return { r, int, pick, chance, big, shuffle }
}

// ---- comparing outcomes ----

function run(f) {
  try {
    return { value: f() }
  } catch (e) {
    return { error: e }
  }
}

/** A value in a comparable form: Layouts by spec and preset, Dates by time, key order kept. */
function norm(v) {
  if (v instanceof js.Layout || v instanceof oracle.Layout) return { layout: v.spec, preset: v.presetName }
  if (v instanceof Date) return { date: String(v.getTime()) }
  if (Array.isArray(v)) return { array: v.map(norm) }
  if (typeof v === 'object' && v !== null) return { object: Object.entries(v).map(([k, x]) => [k, norm(x)]) }
  return v
}

/** An exception in a comparable form: class, code, message, and every other own property. */
function errorForm(e) {
  if (!(e instanceof Error)) return { thrown: e }
  const props = Object.getOwnPropertyNames(e)
    .filter((k) => k !== 'stack' && k !== 'message')
    .sort()
    .map((k) => [k, e[k]])
  return { class: e.constructor.name, message: e.message, props }
}

function outcomeForm(o) {
  return 'error' in o ? { error: errorForm(o.error) } : { value: norm(o.value) }
}

/** `mine()` and `theirs()` return the same value or throw the same error. */
function same(mine, theirs, what) {
  const a = outcomeForm(run(mine))
  const b = outcomeForm(run(theirs))
  assert.deepStrictEqual(a, b, what)
  return a
}

const GETTERS = [
  'spec',
  'presetName',
  'width',
  'epochMs',
  'epoch',
  'tickMs',
  'maxId',
  'maxNode',
  'maxSequence',
  'maxTime',
  'nodeBits',
  'nodeNames',
  'isJsSafe',
  'capacityPerSecond',
  'lifetimeEndMs',
  'lifetimeEnd',
  'fields',
]
const METHODS = [
  'toString',
  'toJSON',
  'compose',
  'decompose',
  'timestampMs',
  'timestamp',
  'tickAt',
  'tickStartMs',
  'isExpiredAt',
  'splitNode',
  'joinNode',
  'equals',
]

/** Every getter and the text methods of two layouts agree. */
function sameLayout(a, b, what) {
  for (const g of GETTERS) same(() => a[g], () => b[g], `${what}: ${g}`)
  same(() => a.toString(), () => b.toString(), `${what}: toString`)
  same(() => a.toJSON(), () => b.toJSON(), `${what}: toJSON`)
  same(() => JSON.stringify({ a }), () => JSON.stringify({ a: b }), `${what}: JSON`)
}

// ---- generated specs ----

const WS = [' ', '  ', '\t', '\n', '\r', '\u0085', '\u00a0', '\ufeff', '\u3000', '\u2028', '\u200b', '\u180e']
const JUNK = ['a', 'Z', 'T', '=', ',', '@', ' ', '\t', 'é', '😀', '\u0085', '\ufeff', '0', '9', '-', ':', '.', '+', 'ms', '\u0000', '\ud800']
const NODE_NAMES = [
  'worker', 'datacenter', 'process', 'shard', 'machine', 'node', 'w', 'a1', 'x_y', 'z9_', 'abcdefghijklmno',
  // bad or reserved
  'abcdefghijklmnop', 'Worker', '1w', '_w', 'w-1', 'wörker', '', 'epoch', 'width', 'time', 'seq', 'sequence',
  'rollback', 'constructor', '__proto__', 'toString', 'worker ', ' worker', 'wo rker', 'id',
]
const TICKS = [
  '1ms', '10ms', '1s', '2m', '1h', '1000ms', '60000ms', '3600000ms', '60s', '120m', '24h', '0ms', '0s', 'ms', '1', '',
  '1xs', '1MS', '1 ms', '+1ms', '-1ms', '01ms', '18446744073709551615ms', '18446744073709551616ms',
  '5124095576030431h', '5124095576030432h', '18446744073709551s', '99999999999999999999999s', '7@1ms',
]

/** Specs from `seed`; with `noise` also bad names, junk items, odd whitespace and bent bytes. */
function specGenerator(seed, noise = true) {
  const t = randomTools(seed)
  const { int, pick, big, shuffle } = t
  const chance = (p) => t.chance(p)
  const odd = (p) => noise && t.chance(p)
  const bitsText = (lo, hi) =>
    !odd(0.03) ? String(int(lo, hi)) : pick(['', 'x', '0', '64', '65', '999', '1000', '007', '+4', '4 ', ' 4', '4.0', '١'])
  const date = () => {
    const y = chance(0.9) ? int(1970, 2400) : pick([1969, 1, 9999, 10000, 0])
    const m = chance(0.9) ? int(1, 12) : pick([0, 13, 99])
    const d = chance(0.9) ? int(1, 28) : pick([0, 29, 30, 31, 32])
    const p = (n, w) => String(n).padStart(w, '0')
    let s = `${p(y, 4)}-${p(m, 2)}-${p(d, 2)}`
    if (chance(0.4)) {
      const hh = chance(0.9) ? int(0, 23) : 24
      const mm = chance(0.9) ? int(0, 59) : 60
      const ss = chance(0.9) ? int(0, 59) : 60
      s += `T${p(hh, 2)}:${p(mm, 2)}:${p(ss, 2)}`
      if (chance(0.5)) s += `.${p(int(0, 999), 3)}`
      s += chance(0.9) ? 'Z' : pick(['', 'z', '+00:00', 'ZZ', 'Z '])
    }
    if (chance(0.1)) {
      // cut short or bent
      const i = int(0, s.length)
      s = chance(0.5) ? s.slice(0, i) : s.slice(0, i) + pick(JUNK) + s.slice(i)
    }
    return s
  }
  const epoch = () => {
    switch (int(0, 5)) {
      case 0:
        return String(big(int(0, 44)))
      case 1:
        return pick(['0', '18446744073709551615', '18446744073709551616', '99999999999999999999999', '253402300800000', '253402300799999', '86400000', '1288834974657', '00'])
      case 2:
        return String(big(int(0, 64)))
      default:
        return date()
    }
  }
  const nodeName = () => (!odd(0.04) ? pick(NODE_NAMES.slice(0, 11)) : pick(NODE_NAMES))
  const junk = () => Array.from({ length: int(0, 6) }, () => pick(JUNK)).join('')
  const pad = (s) => (odd(0.08) ? pick(WS) : '') + s + (odd(0.08) ? pick(WS) : '')

  return () => {
    if (chance(0.05)) return pad(pick([...oracle.Layout.presets(), 'Twitter', 'twiter', 'js54', '', 'nope', 'constructor', '__proto__']))
    const items = []
    const timeBits = chance(0.9) ? int(10, 41) : int(0, 70)
    if (chance(0.95)) items.push(chance(0.95) ? `time=${bitsText(timeBits, timeBits)}@${chance(0.8) ? pick(TICKS.slice(0, 11)) : pick(TICKS)}` : pick(['time=41', 'time=@1ms', 'time=', 'time']))
    const nodes = int(0, chance(0.9) ? 3 : 7)
    for (let i = 0; i < nodes; i++) items.push(`${nodeName()}=${bitsText(1, chance(0.9) ? 6 : 70)}`)
    if (chance(0.95)) items.push(`${chance(0.7) ? 'seq' : 'sequence'}=${bitsText(1, chance(0.9) ? 14 : 40)}`)
    if (chance(0.2)) items.push(`rollback=${bitsText(0, 10)}`)
    if (chance(0.05)) items.push(pick(['seq=4', 'time=10@1ms', 'rollback=1']))
    if (chance(0.15)) items.push(`width=${bitsText(0, 70)}`)
    if (chance(0.9)) items.push(`epoch=${epoch()}`)
    if (chance(0.04)) items.push(`epoch=${epoch()}`)
    if (odd(0.08)) items.push(junk())
    if (chance(0.25)) shuffle(items)
    let s = items.map(pad).join(',')
    if (chance(0.05)) s += ','
    if (odd(0.1)) {
      const i = t.int(0, s.length)
      const op = int(0, 2)
      s = op === 0 ? s.slice(0, i) + pick(JUNK) + s.slice(i) : op === 1 ? s.slice(0, i) + s.slice(i + 1) : s.slice(0, i) + pick(JUNK) + s.slice(i + 1)
    }
    return pad(s)
  }
}

/** Specs with a width field that matches (so `width=` is exercised on valid layouts too). */
function withDeclaredWidth(spec, width) {
  return `${spec},width=${width}`
}

// ---- argument generators ----

/** A value for a u64-ish argument: in range, out of range, or of a wrong type. */
function u64Value(t, max) {
  const { int, pick, chance, big } = t
  if (chance(0.55)) {
    const v = max <= 0n ? 0n : big(max.toString(2).length) % (max + 1n)
    return chance(0.3) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v
  }
  if (chance(0.3)) return pick([max + 1n, max, 0n, 0, (1n << 64n) - 1n, 1n << 64n, 1n << 100n, -1n, -(1n << 70n)])
  return pick([
    -1, -0, 1.5, 0.1, NaN, Infinity, -Infinity, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, 2 ** 64, 1e21,
    '12', 'abc', '', ' 1', '-1', '1e3', '18446744073709551616', null, undefined, true, false, {}, [], [1], () => 1,
    Symbol('s'), new Date(0), Object(5n), int(0, 1000),
  ])
}

/** An ID argument: also decimal strings, good and bad. */
function idValue(t, maxId) {
  const { pick, chance, big } = t
  if (chance(0.25)) {
    return pick([
      String(big(64)), String(big(20)), String(maxId), String(maxId + 1n), '0', '000000000000000000000000012',
      '18446744073709551615', '18446744073709551616', '99999999999999999999', '', ' 1', '1 ', '+1', '-1', '1a', '١٢', '１',
      '0x10', '1_000', '😀', '\u00001',
    ])
  }
  return u64Value(t, chance(0.5) ? maxId : (1n << 64n) - 1n)
}

/** A node argument as an object of sub-field values (good, missing, extra, bad values). */
function nodeObject(t, layout) {
  const { pick, chance } = t
  const o = {}
  for (const f of layout.fields.filter((f) => f.kind === 'node')) {
    if (chance(0.92)) o[f.name] = u64Value(t, f.max)
  }
  if (chance(0.1)) o[pick(['bogus', 'time', 'seq', '0', 'Worker', 'node'])] = pick([1n, 0, null, undefined, 'x'])
  if (chance(0.05)) return pick([[], [1n, 2n], new Map([['worker', 1n]]), Object.create({ worker: 1n })])
  return o
}

function partsValue(t, layout) {
  const { pick, chance } = t
  if (chance(0.05)) return pick([null, undefined, 5, 'time=1', () => ({}), Symbol('p'), 1n])
  const fields = layout.fields
  const maxOf = (kind) => fields.find((f) => f.kind === kind)?.max ?? 0n
  const p = {}
  const keys = t.shuffle(['time', 'node', 'sequence', 'rollback'])
  for (const k of keys) {
    if (!chance(0.8)) continue
    if (k === 'node') p.node = chance(0.3) ? nodeObject(t, layout) : u64Value(t, layout.maxNode)
    else p[k] = k === 'rollback' && chance(0.7) ? (chance(0.5) ? 0 : u64Value(t, maxOf(k))) : u64Value(t, maxOf(k))
  }
  if (chance(0.1)) p.nodeFields = pick([{}, 5, null])
  if (chance(0.1)) p.timestampMs = pick([1n, 'x'])
  if (chance(0.05)) p[pick(['bogus', 'Time', '0', 'averyveryverylongpartname'])] = 1n
  return p
}

// ---- the tests ----

test('the class has every member of the wasm Layout, of the same kind', () => {
  const members = (proto) =>
    Object.getOwnPropertyNames(proto)
      .filter((k) => !['constructor', '__destroy_into_raw', '__idmintPostLayout'].includes(k))
      .map((k) => {
        const d = Object.getOwnPropertyDescriptor(proto, k)
        return [k, d.get ? 'getter' : typeof d.value]
      })
      .sort()
  assert.deepStrictEqual(members(js.Layout.prototype), members(oracle.Layout.prototype))
  const statics = (c) => ['parse', 'preset', 'presets'].map((k) => typeof c[k])
  assert.deepStrictEqual(statics(js.Layout), statics(oracle.Layout))
  assert.equal(js.Layout.prototype[Symbol.dispose], js.Layout.prototype.free)
  assert.deepStrictEqual([...GETTERS, ...METHODS, 'free'].sort(), members(js.Layout.prototype).map(([k]) => k).sort())
})

test('every preset, by constructor, parse and preset(), with spaces around the name', () => {
  assert.deepStrictEqual(js.Layout.presets(), oracle.Layout.presets())
  assert.notEqual(js.Layout.presets(), js.Layout.presets(), 'a fresh array each call')
  for (const name of oracle.Layout.presets()) {
    sameLayout(new js.Layout(name), new oracle.Layout(name), name)
    sameLayout(js.Layout.parse(` ${name}\t`), oracle.Layout.parse(` ${name}\t`), name)
    sameLayout(js.Layout.preset(name), oracle.Layout.preset(name), name)
    sameLayout(js.parseLayout(name), oracle.Layout.parse(name), name)
    // A preset equals the parse of its own spec, which carries no preset name.
    const spec = new js.Layout(name).spec
    assert.ok(new js.Layout(spec).equals(name))
    sameLayout(new js.Layout(spec), new oracle.Layout(spec), spec)
  }
  for (const bad of [' twitter', 'Twitter', '', 'time=41@1ms,seq=12,epoch=0', 5, null, undefined, {}, 'constructor', '__proto__']) {
    same(() => js.Layout.preset(bad), () => oracle.Layout.preset(bad), `preset(${inspect(bad)})`)
  }
})

test('constructor arguments that are not strings', () => {
  for (const v of [undefined, null, 5, 5n, true, {}, [], ['twitter'], () => 'twitter', Symbol('x'), new String('twitter')]) {
    same(() => new js.Layout(v), () => new oracle.Layout(v), `new Layout(${typeof v})`)
    same(() => js.Layout.parse(v), () => oracle.Layout.parse(v), `Layout.parse(${typeof v})`)
  }
})

describe('layouts.json', () => {
  const v = vectors('layouts.json')
  // The shared suite (bindings-node/tests/vectors.test.mjs) replays layouts.json against the
  // built entry; here each vector layout is compared with the oracle's, and the internal fields
  // the other modules read are checked.
  for (const c of v.layouts) {
    test(`layout ${JSON.stringify(c.spec)}`, () => {
      const l = new js.Layout(c.spec)
      assert.equal(l.spec, c.canonical)
      assert.deepEqual(
        l._fields.map(({ name, kind, bits, shift }) => ({ name, kind, bits, shift })),
        c.fields,
        'the internal _fields the other modules read',
      )
      sameLayout(l, new oracle.Layout(c.spec), c.spec)
    })
  }
  test('invalid specs', () => {
    for (const c of v.invalid) {
      same(() => new js.Layout(c.spec), () => new oracle.Layout(c.spec), `spec ${JSON.stringify(c.spec)}`)
    }
  })
  test('the layouts of the generator, named-config and obfuscation vectors', () => {
    const specs = new Set()
    const walk = (x) => {
      if (Array.isArray(x)) x.forEach(walk)
      else if (typeof x === 'object' && x !== null) {
        for (const [k, y] of Object.entries(x)) {
          if (k === 'layout' && typeof y === 'string') specs.add(y)
          else walk(y)
        }
      }
    }
    for (const f of ['generators.json', 'named.json', 'obfuscation.json']) walk(vectors(f))
    assert.ok(specs.size >= 5, `found ${specs.size} layouts`)
    for (const s of specs) {
      const o = same(() => new js.Layout(s), () => new oracle.Layout(s), s)
      if ('value' in o) sameLayout(new js.Layout(s), new oracle.Layout(s), s)
    }
  })
})

/** Layouts the method tests run on: the presets and valid generated specs. */
const POOL_SEED = 20261129
function layoutPool(n) {
  const next = specGenerator(POOL_SEED)
  const specs = [...oracle.Layout.presets(), 'time=40@1ms,rollback=2,worker=8,seq=13,epoch=2010-11-04T01:42:54.657Z',
    'time=63@1ms,seq=1,epoch=0', 'time=1@1ms,seq=1,epoch=0', 'time=31@1ms,seq=32,a=1,epoch=18446744069414584320',
    'time=20@1h,a=1,b=2,c=3,d=4,e=5,seq=3,epoch=9999-12-31T23:59:59.999Z']
  while (specs.length < n) {
    const s = next()
    if ('value' in run(() => new oracle.Layout(s))) specs.push(s)
  }
  return specs
}

test('hand-picked specs: byte offsets after multi-byte text, dates, ticks, widths, overflow', () => {
  const base = 'time=41@1ms,worker=10,seq=12'
  const specs = [
    'é,epoch=0', 'wörker=3,epoch=0', `${base},épôch=0`, `😀${base},epoch=0`, `${base},epoch=2020-01-0😀`,
    `${base},epoch=20😀`, `${base},epoch=2😀`, `${base},epoch=😀`, `\u0085${base},epoch=0`, `\ufeff${base},epoch=0`,
    `${base},epoch=0\u0085`, `${base},epoch=0\ufeff`, `\u3000twitter\u3000`, '\u0085twitter', '\ufefftwitter',
    ' twiter', 'twitter,', ',twitter', '=', ',', ',,', ' , ', 'a=', '=a', 'time=41@1ms,seq=12,epoch=0,', `${base},epoch=0,,`,
    `${base},epoch=1970-01-01`, `${base},epoch=1969-12-31`, `${base},epoch=2024-02-29`, `${base},epoch=2023-02-29`,
    `${base},epoch=2100-02-29`, `${base},epoch=2000-02-29`, `${base},epoch=2020-04-31`, `${base},epoch=2020-00-10`,
    `${base},epoch=2020-1-10`, `${base},epoch=2020/01/10`, `${base},epoch=2020-01-10T`, `${base},epoch=2020-01-10T00:00:00`,
    `${base},epoch=2020-01-10T00:00:00.Z`, `${base},epoch=2020-01-10T00:00:00.1Z`, `${base},epoch=2020-01-10T00:00:00.123`,
    `${base},epoch=2020-01-10T00:00:00.123Zx`, `${base},epoch=2020-01-10t00:00:00Z`, `${base},epoch=2020-01-10 00:00:00Z`,
    `${base},epoch=2020-01-10T23:59:59.999Z`, `${base},epoch=2020-01-10T24:00:00Z`, `${base},epoch=9999-12-31`,
    `${base},epoch=9999-12-31T23:59:59.999Z`, `${base},epoch=10000-01-01`, `${base},epoch=253402300800000`,
    'time=20@1ms,seq=12,epoch=253402300800000', 'time=20@1ms,seq=12,epoch=253402300799999', 'time=20@1ms,seq=12,epoch=86400000',
    `${base},epoch=-1`, `${base},epoch=+1`, `${base},epoch=1.5`, `${base},epoch= 1`, `${base},epoch =1`, `${base}, epoch=1 `,
    `${base},epoch=18446744073709551615`, 'time=1@1ms,seq=1,epoch=18446744073709551613', 'time=1@1ms,seq=1,epoch=18446744073709551612',
    'time=63@1ms,seq=1,epoch=0', 'time=63@2ms,seq=1,epoch=0', 'time=62@4ms,seq=1,epoch=0', 'time=62@3ms,seq=1,epoch=0',
    'time=1@18446744073709551614ms,seq=1,epoch=0', 'time=1@9223372036854775807ms,seq=1,epoch=0', 'time=1@5124095576030431h,seq=1,epoch=0',
    'time=41@1ms,seq=12,width=53,epoch=0', 'time=41@1ms,seq=12,width=65,epoch=0', 'time=41@1ms,seq=12,width=064,epoch=0',
    'time=41@1ms,seq=12,width=0053,epoch=0', 'time=41@1ms,seq=12,width=,epoch=0', 'width=53,time=41@1ms,seq=12,width=52,epoch=0',
    'time=41@1ms,seq=33,epoch=0', 'time=41@1ms,seq=0,epoch=0', 'time=0@1ms,seq=1,epoch=0', 'time=64@1ms,seq=1,epoch=0',
    'time=65@1ms,seq=1,epoch=0', 'time=41@1ms,seq=1,rollback=9,epoch=0', 'time=41@1ms,seq=1,rollback=0,epoch=0',
    'time=41@1ms,rollback=1,rollback=1,seq=1,epoch=0', 'time=41@1ms,seq=1,sequence=1,epoch=0', 'time=41@1ms,time=41@1ms,seq=1,epoch=0',
    'time=41@1ms,time=41@xs,seq=1,epoch=0', 'time=41@1ms,a=0,seq=1,epoch=0', 'time=41@1ms,a=1,a=1,seq=1,epoch=0',
    'time=20@1ms,a=1,b=1,c=1,d=1,e=1,f=1,seq=1,epoch=0', 'time=20@1ms,a=1,b=1,c=1,d=1,e=1,f=1,rollback=1,seq=1,epoch=0',
    'time=20@1ms,a=1,b=1,c=1,d=1,e=1,f=1,g=1,time=2@1ms,seq=1,epoch=0', 'time=20@1ms,a=1,b=1,c=1,d=1,e=1,f=1,g=1,time=2@1ms,epoch=0',
    'a=1,b=1,c=1,d=1,e=1,f=1,g=1,h=1,time=2@1s,seq=1,epoch=0', 'time=41@1ms,seq=1,epoch=0,epoch=0', 'time=41@1ms,seq=1,epoch=0,epoch=x',
    'time=41@1ms,seq=1,epoch=x,epoch=0', 'time=41@1ms,seq=1', 'seq=1,epoch=0', 'time=41@1ms,epoch=0', 'epoch=0', 'time=41@1ms@1ms,seq=1,epoch=0',
    'time=41@ 1ms,seq=1,epoch=0', 'time=41 @1ms,seq=1,epoch=0', 'time= 41@1ms,seq=1,epoch=0', 'time=41@1ms ,seq=1,epoch=0',
    'time=41@0h,seq=1,epoch=0', 'time=41@0001s,seq=1,epoch=0', 'time=41@1000ms,seq=1,epoch=0', 'time=41@3600s,seq=1,epoch=0',
    'time=41@90s,seq=1,epoch=0', 'time=41@1500ms,seq=1,epoch=0', 'time=41@7m,seq=1,epoch=0', 'time=41@60m,seq=1,epoch=0',
    'time=41@1d,seq=1,epoch=0', 'time=41@1,seq=1,epoch=0', 'time=41@ms,seq=1,epoch=0', 'time=41@,seq=1,epoch=0',
    'abcdefghijklmno=1,time=41@1ms,seq=1,epoch=0', 'abcdefghijklmnop=1,time=41@1ms,seq=1,epoch=0', 'a_=1,time=41@1ms,seq=1,epoch=0',
    'TIME=41@1ms,seq=1,epoch=0', 'Seq=1,time=41@1ms,epoch=0', 'x=1=2,time=41@1ms,seq=1,epoch=0', 'x==1,time=41@1ms,seq=1,epoch=0',
  ]
  for (const s of specs) {
    const o = same(() => new js.Layout(s), () => new oracle.Layout(s), JSON.stringify(s))
    if ('value' in o) sameLayout(new js.Layout(s), new oracle.Layout(s), JSON.stringify(s))
  }
})

describe('generated specs', () => {
  for (const [seed, noise] of [[1, true], [2, true], [3, true], [4, false], [5, false]]) {
    test(`seed ${seed}${noise ? ' with noise' : ''}: 1500 specs, valid and invalid, construct alike`, (ctx) => {
      const next = specGenerator(seed, noise)
      const t = randomTools(seed + 1000)
      let valid = 0
      for (let i = 0; i < 1500; i++) {
        const spec = next()
        const what = `seed ${seed} #${i} ${JSON.stringify(spec)}`
        const o = same(() => new js.Layout(spec), () => new oracle.Layout(spec), what)
        if (!('value' in o)) continue
        valid++
        const a = new js.Layout(spec)
        const b = new oracle.Layout(spec)
        sameLayout(a, b, what)
        // The canonical spec parses back to an equal layout, and a declared width is checked.
        assert.ok(js.Layout.parse(a.spec).equals(a), what)
        const w = t.chance(0.7) ? a.width : t.int(0, 70)
        same(() => new js.Layout(withDeclaredWidth(spec, w)).spec, () => new oracle.Layout(withDeclaredWidth(spec, w)).spec, what)
      }
      // The generator must reach both sides (a generator producing only errors proves little).
      ctx.diagnostic(`${valid} valid of 1500`)
      assert.ok(valid > 200 && valid < 1400, `seed ${seed}: ${valid} valid of 1500`)
    })
  }
})

describe('members on random arguments', () => {
  const specs = layoutPool(60)
  const cases = (name, body) =>
    test(name, () => {
      const t = randomTools(name.length * 7919)
      for (const spec of specs) {
        const a = new js.Layout(spec)
        const b = new oracle.Layout(spec)
        for (let i = 0; i < 40; i++) body(t, a, b, `${name} on ${spec} #${i}`)
      }
    })

  cases('compose', (t, a, b, what) => {
    const p = partsValue(t, b)
    const o = same(() => a.compose(p), () => b.compose(p), `${what}: ${inspect(p)}`)
    if ('value' in o && t.chance(0.5)) {
      const id = a.compose(p)
      same(() => a.compose(a.decompose(id)), () => b.compose(b.decompose(id)), `${what}: decompose and back`)
    }
  })
  cases('decompose, timestampMs, timestamp', (t, a, b, what) => {
    const id = idValue(t, b.maxId)
    same(() => a.decompose(id), () => b.decompose(id), `${what}: decompose(${inspect(id)})`)
    same(() => a.timestampMs(id), () => b.timestampMs(id), `${what}: timestampMs(${inspect(id)})`)
    same(() => a.timestamp(id), () => b.timestamp(id), `${what}: timestamp(${inspect(id)})`)
  })
  cases('tickAt, tickStartMs, isExpiredAt', (t, a, b, what) => {
    const end = b.lifetimeEndMs
    const near = t.pick([b.epochMs, end, end - 1n, b.epochMs - 1n, end + 1n])
    const now = t.chance(0.3) && near >= 0n ? near : u64Value(t, t.chance(0.5) ? end : (1n << 64n) - 1n)
    same(() => a.tickAt(now), () => b.tickAt(now), `${what}: tickAt(${inspect(now)})`)
    same(() => a.isExpiredAt(now), () => b.isExpiredAt(now), `${what}: isExpiredAt(${inspect(now)})`)
    const tick = u64Value(t, t.chance(0.5) ? b.maxTime : (1n << 64n) - 1n)
    same(() => a.tickStartMs(tick), () => b.tickStartMs(tick), `${what}: tickStartMs(${inspect(tick)})`)
  })
  cases('splitNode, joinNode', (t, a, b, what) => {
    const n = u64Value(t, b.maxNode)
    same(() => a.splitNode(n), () => b.splitNode(n), `${what}: splitNode(${inspect(n)})`)
    const v = t.chance(0.1) ? u64Value(t, b.maxNode) : nodeObject(t, b)
    same(() => a.joinNode(v), () => b.joinNode(v), `${what}: joinNode(${inspect(v)})`)
  })
  cases('equals', (t, a, b, what) => {
    const other = t.pick(specs)
    const kind = t.int(0, 5)
    const args =
      kind === 0
        ? [other, other]
        : kind === 1
          ? [new js.Layout(other), new oracle.Layout(other)]
          : kind === 2
            ? [new js.Layout(a.spec), new oracle.Layout(b.spec)]
            : kind === 3
              ? Array(2).fill(t.pick([5, 5n, null, undefined, {}, [], 'nope', '', Symbol('l'), () => 1]))
              : kind === 4
                ? [new js.Layout(`  ${other} `), new oracle.Layout(`  ${other} `)]
                : [a, b]
    same(() => a.equals(args[0]), () => b.equals(args[1]), `${what}: equals(${inspect(other)})`)
  })
})

describe('receivers, free() and Symbol.dispose', () => {
  const call = (L, name, self, arg) => {
    const d = Object.getOwnPropertyDescriptor(L.prototype, name)
    return d.get ? d.get.call(self) : d.value.call(self, arg)
  }
  const ARGS = { compose: { time: 1 }, decompose: 1, timestampMs: 1, timestamp: 1, tickAt: 1n << 50n, tickStartMs: 1, isExpiredAt: 1, splitNode: 1, joinNode: {}, equals: 'twitter' }

  test('members called on something that is not a Layout throw the glue TypeError', () => {
    for (const name of [...GETTERS, ...METHODS]) {
      for (const [label, self] of [['{}', {}], ['null', null], ['undefined', undefined], ['5', 5], ['a bare prototype object', 0]]) {
        const mine = self === 0 ? Object.create(js.Layout.prototype) : self
        const theirs = self === 0 ? Object.create(oracle.Layout.prototype) : self
        same(() => call(js.Layout, name, mine, ARGS[name]), () => call(oracle.Layout, name, theirs, ARGS[name]), `${name} on ${label}`)
      }
      // The other implementation's Layout is not one either.
      same(() => call(js.Layout, name, new oracle.Layout('twitter'), ARGS[name]), () => call(oracle.Layout, name, new js.Layout('twitter'), ARGS[name]), `${name} across`)
    }
  })

  test('after free() every member throws ERR_CLOSED; free() again does nothing', () => {
    for (const spec of ['twitter', 'time=41@1ms,worker=10,seq=12,epoch=2020-01-01']) {
      const a = new js.Layout(spec)
      const b = new oracle.Layout(spec)
      same(() => a.free(), () => b.free(), 'free')
      for (const name of [...GETTERS, ...METHODS]) {
        const o = same(() => call(js.Layout, name, a, ARGS[name]), () => call(oracle.Layout, name, b, ARGS[name]), `${name} after free`)
        assert.equal(o.error.class, 'Error', name)
        assert.deepStrictEqual(o.error.props, [['code', 'ERR_CLOSED'], ['what', 'Layout']], name)
      }
      same(() => a.free(), () => b.free(), 'second free')
      // A freed layout is no layout argument.
      same(() => new js.Layout('leaf').equals(a), () => new oracle.Layout('leaf').equals(b), 'equals(freed)')
      same(() => js.randomNode(a), () => oracle.randomNode(b), 'randomNode(freed)')
      assert.throws(() => js.layoutArg(a, 'layout'), { code: 'ERR_INVALID_ARG_TYPE' })
    }
    const c = new js.Layout('js53')
    const d = new oracle.Layout('js53')
    same(() => c[Symbol.dispose](), () => d[Symbol.dispose](), 'dispose')
    same(() => c.width, () => d.width, 'width after dispose')
    // free() on a bare prototype object: the glue's coded TypeError.
    same(() => js.Layout.prototype.free.call(Object.create(js.Layout.prototype)), () => oracle.Layout.prototype.free.call(Object.create(oracle.Layout.prototype)), 'free on a bare object')
  })

  test('free() on a plain object or null throws a TypeError (coded here; the glue reads a missing method)', () => {
    for (const [mine, theirs] of [[{}, {}], [null, null], [undefined, undefined], [new oracle.Layout('leaf'), new js.Layout('leaf')]]) {
      assert.throws(() => js.Layout.prototype.free.call(mine), (e) => e instanceof TypeError && e.code === 'ERR_INVALID_ARG_TYPE')
      assert.throws(() => oracle.Layout.prototype.free.call(theirs), TypeError)
    }
  })
})

describe('randomNode', () => {
  test('arguments: Layouts, specs, and wrong ones, as the oracle', () => {
    const args = [
      ['twitter', 'twitter'], ['time=41@1ms,seq=12,epoch=0', 'time=41@1ms,seq=12,epoch=0'], ['nope', 'nope'],
      ['time=41@1ms,seq=12', 'time=41@1ms,seq=12'], [5, 5], [5n, 5n], [null, null], [undefined, undefined], [{}, {}],
      [[], []], [new js.Layout('leaf'), new oracle.Layout('leaf')], [new oracle.Layout('leaf'), new js.Layout('leaf')],
    ]
    for (const [a, b] of args) {
      const o = run(() => oracle.randomNode(b))
      if ('error' in o) same(() => js.randomNode(a), () => oracle.randomNode(b), `randomNode(${inspect(a)})`)
      else assert.equal(typeof js.randomNode(a), 'bigint')
    }
  })
  test('uniform over 0..=maxNode: every value of a 4-bit node, none above', () => {
    const seen = new Set()
    for (let i = 0; i < 2000; i++) {
      const n = js.randomNode('js53')
      assert.ok(n >= 0n && n <= 15n, String(n))
      seen.add(n)
    }
    assert.equal(seen.size, 16)
    const wide = new js.Layout('time=19@1ms,a=32,b=12,seq=1,epoch=0')
    let high = false
    for (let i = 0; i < 64; i++) {
      const n = js.randomNode(wide)
      assert.ok(n <= wide.maxNode)
      if (n >= 1n << 43n) high = true
    }
    assert.ok(high, 'the top bit of a 44-bit node is drawn')
    assert.equal(js.randomNode('time=41@1ms,seq=12,epoch=0'), 0n, 'a layout without node bits')
  })
  test('a failing Web Crypto is the core RandomSource error', () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'crypto')
    Object.defineProperty(globalThis, 'crypto', {
      configurable: true,
      value: { getRandomValues() { throw new Error('no entropy') } },
    })
    try {
      // Up to 32 nodes come from the 256-byte pool filled before; the next needs Web Crypto.
      assert.throws(
        () => {
          for (let i = 0; i < 33; i++) js.randomNode('twitter')
        },
        (e) => e.code === 'ERR_RANDOM_SOURCE' && e.message === 'random source failed',
      )
    } finally {
      Object.defineProperty(globalThis, 'crypto', saved)
    }
    assert.equal(typeof js.randomNode('twitter'), 'bigint')
  })
})

describe('module functions', () => {
  const twitter = js.parseLayout('twitter')

  test('internal state the other modules read', () => {
    for (const spec of layoutPool(30)) {
      const l = js.parseLayout(spec)
      const o = new oracle.Layout(spec)
      assert.equal(l._width, o.width)
      assert.equal(l._nodeBits, o.nodeBits)
      assert.equal(l._epochMs, o.epochMs)
      assert.equal(l._tickMs, o.tickMs)
      assert.equal(l._preset, o.presetName)
      assert.deepStrictEqual(l._fields, o.fields.map(({ kind, name, bits, shift }) => ({ kind, name, bits, shift })))
      assert.equal(l._time, l._fields.find((f) => f.kind === 'time'))
      assert.equal(l._seq, l._fields.find((f) => f.kind === 'sequence'))
      assert.equal(l._rollback, l._fields.find((f) => f.kind === 'rollback') ?? null)
      assert.equal(js.lifetimeEndMs(l), o.lifetimeEndMs)
    }
  })

  test('copyLayout: a live, equal, independent Layout, even of a freed one', () => {
    const l = js.parseLayout('leaf')
    const c = js.copyLayout(l)
    assert.ok(c instanceof js.Layout && c !== l)
    l.free()
    assert.equal(c.spec, 'time=41@1ms,worker=10,seq=12,epoch=2010-11-04T01:42:54.657Z')
    assert.equal(c.presetName, 'leaf')
    const d = js.copyLayout(l)
    assert.ok(d.equals(c))
    d.free()
    assert.equal(c.width, 63)
    assert.throws(() => d.width, { code: 'ERR_CLOSED' })
  })

  test('layoutArg: a live Layout as is, a string parsed, anything else a TypeError', () => {
    assert.equal(js.layoutArg(twitter, 'layout'), twitter)
    assert.equal(js.layoutArg(' leaf ', 'layout').presetName, 'leaf')
    const t = randomTools(77)
    for (const v of [5, null, undefined, {}, [], 'nope', 'time=1@1ms', Symbol('x'), Object.create(js.Layout.prototype)]) {
      // The oracle's own layout_arg, seen through randomNode's argument.
      same(() => js.layoutArg(v, 'layout'), () => oracle.randomNode(v), `layoutArg(${inspect(v)})`)
    }
    assert.ok(t)
  })

  test('nodeToBits places each sub-field at its shift, as compose does', () => {
    const t = randomTools(5)
    for (const spec of layoutPool(30)) {
      const l = js.parseLayout(spec)
      const o = new oracle.Layout(spec)
      for (let i = 0; i < 30; i++) {
        const node = t.chance(0.9) ? t.big(l._nodeBits) : o.maxNode + 1n + t.big(8)
        same(() => js.nodeToBits(l, node), () => o.compose({ node }), `${spec} node ${node}`)
      }
    }
  })

  test('nodeFromParts and nodeArg: the core rule (each sub-field once, no other name)', () => {
    const t = randomTools(6)
    for (const spec of layoutPool(30)) {
      const l = js.parseLayout(spec)
      const o = new oracle.Layout(spec)
      for (let i = 0; i < 30; i++) {
        const obj = nodeObject(t, o)
        same(() => js.nodeArg(l, obj, 'values'), () => o.joinNode(obj), `${spec} nodeArg`)
        const pairs = Object.entries(obj).filter(([, v]) => typeof v === 'bigint' && v >= 0n && v < 1n << 64n)
        if (pairs.length === Object.keys(obj).length && !Array.isArray(obj)) {
          same(() => js.nodeFromParts(l, pairs), () => o.joinNode(obj), `${spec} nodeFromParts`)
        }
      }
    }
    assert.throws(() => js.nodeFromParts(twitter, [['worker', 1n], ['worker', 2n], ['datacenter', 0n]]), {
      name: 'TypeError',
      code: 'ERR_INVALID_ARGUMENT',
      message: 'invalid argument `worker`: is given twice',
      argument: 'worker',
    })
    assert.equal(js.nodeFromParts(twitter, [['worker', 5n], ['datacenter', 1n]]), 37n)
    assert.throws(() => js.nodeArg(twitter, 'x', 'options.node'), {
      message: "options.node must be a bigint, an integer number or an object of node sub-field values; received type string ('x')",
    })
    assert.equal(js.nodeArg(twitter, 5000n, 'node'), 5000n, 'a whole value is range-checked later, by its user')
  })

  test('parseNode: a whole value or name=value pairs (core Layout::parse_node)', () => {
    const l = twitter
    assert.equal(js.parseNode(l, '0'), 0n)
    assert.equal(js.parseNode(l, ' 37 '), 37n)
    assert.equal(js.parseNode(l, '+37'), 37n, 'Rust integer parsing takes a plus sign')
    assert.equal(js.parseNode(l, 'datacenter=1,worker=3'), 35n)
    assert.equal(js.parseNode(l, ' worker = 3 , datacenter=1'), 35n)
    assert.equal(js.parseNode(l, 'worker=+3,datacenter=1'), 35n)
    const err = (text, argument, reason, code = 'ERR_INVALID_ARGUMENT') =>
      assert.throws(() => js.parseNode(l, text), (e) => {
        assert.equal(e.code, code, text)
        if (argument !== undefined) assert.equal(e.argument, argument, text)
        if (reason !== undefined) assert.equal(e.reason, reason, text)
        return true
      })
    err('', 'node', 'expected a number or name=value pairs')
    err('x', 'node', 'expected a number or name=value pairs')
    err('-1', 'node', 'expected a number or name=value pairs')
    err('18446744073709551616', 'node', 'expected a number or name=value pairs')
    err('1024', undefined, undefined, 'ERR_OUT_OF_RANGE')
    err('worker=3', 'datacenter', 'is a node sub-field of the layout and missing')
    err('worker=32,datacenter=0', undefined, undefined, 'ERR_OUT_OF_RANGE')
    err('worker=x,datacenter=1', 'worker', 'expected name=number')
    err('worker,datacenter=1', 'worker', 'expected name=number')
    err('worker=1,worker=1', 'worker', 'is given twice')
    err('bogus=1', 'bogus', 'is not a node sub-field of the layout')
    err('a=1,b=1,c=1,d=1,e=1,f=1,g=1,h=1,i=1', 'i', 'is one node sub-field too many')
    err('averyveryverylongname=x', 'averyveryverylo', 'expected name=number')
    // Against the oracle's rule for sub-fields given by name, on random texts.
    const t = randomTools(8)
    for (const spec of layoutPool(20)) {
      const m = js.parseLayout(spec)
      const o = new oracle.Layout(spec)
      for (let i = 0; i < 20; i++) {
        const obj = {}
        for (const f of o.fields.filter((f) => f.kind === 'node')) {
          if (t.chance(0.95)) obj[f.name] = t.chance(0.9) ? t.big(f.bits) : f.max + 1n
        }
        const text = t.shuffle(Object.entries(obj).map(([k, v]) => `${t.pick(['', ' '])}${k}=${v}`)).join(',')
        if (!text) continue
        same(() => js.parseNode(m, text), () => o.joinNode(obj), `${spec}: ${text}`)
      }
    }
  })
})
