// obfuscate.js against the oracle (the wasm build): `Obfuscator` and `SortableObfuscator` built
// from keys of every type and range (bigint, number, 16-byte Uint8Array, wrong lengths, wrong
// types), every `bits` in 0..=255 and out of range, layouts by name, spec and object (and freed
// or foreign ones), must construct alike or fail alike (class, code, message, every own
// property); encode/decode must agree over random and edge values of every width, round-trip,
// and be a bijection on small widths; receiver checks and free() as the wasm glue;
// vectors/obfuscation.json replays.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'

import { Obfuscator, SortableObfuscator } from '../../js/obfuscate.js'
import { Layout } from '../../js/layout.js'
import { ODD_VALUES, outcome, rng, show } from './support/outcome.mjs'
const oracle = createRequire(import.meta.url)('../../pkg/node/wasm/idmint.js')
const vectors = JSON.parse(readFileSync(new URL('../../../vectors/obfuscation.json', import.meta.url), 'utf8'))

const U64_MAX = (1n << 64n) - 1n
const U128_MAX = (1n << 128n) - 1n

const same = (f, g, what) => {
  const a = outcome(f)
  assert.deepStrictEqual(a, outcome(g), what)
  return a
}

/** A random bigint of `bits` random bits. */
function big(r, bits) {
  let v = 0n
  for (let i = 0; i < bits; i += 16) v = (v << 16n) | BigInt(r.int(65536))
  return v & ((1n << BigInt(bits)) - 1n)
}

/** Keys of every type and range. */
function keys(r) {
  const ks = [...ODD_VALUES, 0n, 1n, U64_MAX, 1n << 64n, U128_MAX, U128_MAX + 1n, -(1n << 127n), 2 ** 53 - 1, 2 ** 53]
  for (let i = 0; i < 12; i++) ks.push(big(r, 1 + r.int(128)), r.int(2 ** 53))
  const bytes = (n) => Uint8Array.from({ length: n }, () => r.int(256))
  for (let i = 0; i < 4; i++) ks.push(bytes(16))
  ks.push(new Uint8Array(16).fill(255), bytes(0), bytes(15), bytes(17), bytes(32), Buffer.from(bytes(16)), Buffer.alloc(15))
  ks.push(new Uint16Array(8), new Int8Array(16), new Uint8ClampedArray(16), new ArrayBuffer(16), new DataView(new ArrayBuffer(16)))
  ks.push(new Proxy(new Uint8Array(16), {}), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16])
  return ks
}

/** Values to encode/decode with a domain of `max`: edges, random ones inside, and a few outside. */
function values(r, max, n) {
  const vs = [0n, 1n, max, max - 1n, max >> 1n, (max >> 1n) + 1n, max + 1n, U64_MAX]
  const width = max.toString(2).length
  for (let i = 0; i < n; i++) vs.push(big(r, width) & max)
  return vs.filter((v) => v >= 0n)
}

/** The obfuscator's behaviour over `vs` (and the arguments of every type) as plain data. */
function behaviour(o, vs, methods) {
  const out = []
  for (const m of methods) for (const v of vs) out.push(outcome(() => o[m](v)))
  return out
}

test('Obfuscator: keys of every type by bits 0..=255 and beyond construct alike, and map alike', () => {
  const r = rng(21)
  const bitsArgs = [...Array(256).keys(), 256, 1000, -1, 1.5, 64n, 2n ** 64n, '8', null, undefined, {}, NaN, 2 ** 53]
  let built = 0
  let refused = 0
  for (const key of keys(r)) {
    for (const bits of bitsArgs) {
      // Neither side writes to a Uint8Array key: both may read the same one.
      const k2 = key
      const ours = outcome(() => new Obfuscator(key, bits))
      const theirs = outcome(() => new oracle.Obfuscator(k2, bits))
      if (ours.error || theirs.error) {
        assert.deepStrictEqual(ours, theirs, `new Obfuscator(${show(key)}, ${show(bits)})`)
        refused++
        continue
      }
      const a = new Obfuscator(key, bits)
      const b = new oracle.Obfuscator(k2, bits)
      assert.equal(a.bits, b.bits)
      assert.equal(a.max, b.max)
      const vs = values(r, a.max, 3)
      assert.deepStrictEqual(behaviour(a, vs, ['encode', 'decode']), behaviour(b, vs, ['encode', 'decode']), `${show(key)}, ${bits}`)
      built++
    }
  }
  same(() => new Obfuscator(), () => new oracle.Obfuscator(), 'new Obfuscator()')
  assert.ok(built > 2000 && refused > 10000, `${built} built, ${refused} refused`)
})

test('Obfuscator: every width 2..=64 with random keys agrees with the oracle and round-trips', () => {
  const r = rng(22)
  let n = 0
  for (let bits = 2; bits <= 64; bits++) {
    for (let k = 0; k < 6; k++) {
      const key = k === 0 ? 0n : k === 1 ? U128_MAX : big(r, 128)
      const a = new Obfuscator(key, bits)
      const b = new oracle.Obfuscator(key, bits)
      for (const x of values(r, a.max, 40)) {
        const y = outcome(() => a.encode(x))
        assert.deepStrictEqual(y, outcome(() => b.encode(x)), `bits ${bits} key ${key}: encode ${x}`)
        assert.deepStrictEqual(outcome(() => a.decode(x)), outcome(() => b.decode(x)), `bits ${bits} key ${key}: decode ${x}`)
        if (!y.error) {
          assert.ok(y.ok <= a.max)
          assert.equal(a.decode(y.ok), x)
          assert.equal(a.encode(a.decode(x)), x)
        }
        n++
      }
    }
  }
  assert.ok(n > 15000, `${n}`)
})

test('Obfuscator: a bijection on every small width, equal to the oracle\'s image', () => {
  for (let bits = 2; bits <= 10; bits++) {
    for (const key of [0n, 0x0123456789abcdeffedcba9876543210n, U128_MAX]) {
      const a = new Obfuscator(key, bits)
      const b = new oracle.Obfuscator(key, bits)
      const seen = new Set()
      for (let x = 0n; x <= a.max; x++) {
        const y = a.encode(x)
        assert.equal(y, b.encode(x))
        assert.ok(y <= a.max && !seen.has(y), `bits ${bits}: ${x} -> ${y}`)
        seen.add(y)
        assert.equal(a.decode(y), x)
      }
      assert.equal(seen.size, 2 ** bits)
    }
  }
})

test('encode/decode arguments of every type', () => {
  const a = [new Obfuscator(5n, 20), new SortableObfuscator(5n, 'twitter')]
  const b = [new oracle.Obfuscator(5n, 20), new oracle.SortableObfuscator(5n, 'twitter')]
  const args = [...ODD_VALUES, '1', '', 2 ** 20, 2 ** 20 - 1, (1n << 63n) - 1n, 1n << 63n]
  for (let i = 0; i < 2; i++) {
    for (const m of ['encode', 'decode']) {
      for (const v of args) same(() => a[i][m](v), () => b[i][m](v), `${a[i].constructor.name}.${m}(${show(v)})`)
      same(() => a[i][m](), () => b[i][m](), `${m}()`)
    }
  }
})

/** Layout specs: presets, hand-picked edges, and random field orders and widths the oracle accepts. */
function specs(r) {
  const out = [
    ...oracle.Layout.presets(),
    'time=41@1ms,seq=1,epoch=2020-01-01',
    'time=41@1ms,seq=2,epoch=2020-01-01',
    'time=1@1ms,node=31,seq=32,epoch=2020-01-01',
    'seq=12,time=41@1ms,epoch=2020-01-01',
    'time=10@1ms,a=20,seq=32,rb=2,epoch=2020-01-01',
    'nope',
    '',
    'time=41@1ms,seq=0,epoch=2020-01-01',
    'time=41@1ms,worker=10,seq=12',
  ]
  while (out.length < 60) {
    const t = 1 + r.int(50)
    const s = 1 + r.int(Math.min(32, 63 - t))
    const n = r.int(Math.max(1, 64 - t - s))
    const parts = [`time=${t}@${r.pick(['1ms', '10ms', '1s'])}`, `seq=${s}`]
    if (n) parts.splice(r.int(3), 0, `node=${n}`)
    if (r.chance(0.3)) parts.reverse()
    const spec = `${parts.join(',')},epoch=2020-01-01`
    if (outcome(() => new oracle.Layout(spec)).ok !== undefined) out.push(spec)
  }
  return out
}

/** The layout argument in each form: the spec, a Layout, a freed Layout, or another's Layout. */
function layoutForms(spec) {
  const ok = outcome(() => new oracle.Layout(spec)).ok !== undefined
  const forms = [[spec, spec]]
  if (ok) {
    forms.push([new Layout(spec), new oracle.Layout(spec)])
    const freed = [new Layout(spec), new oracle.Layout(spec)]
    freed.forEach((l) => l.free())
    forms.push(freed)
    forms.push([new oracle.Layout(spec), new Layout(spec)])
  }
  return forms
}

test('Obfuscator.forLayout and SortableObfuscator: layouts by name, spec and object, keys of every type', () => {
  const r = rng(23)
  const ks = keys(r).filter((_, i) => i % 3 === 0)
  let built = 0
  for (const spec of specs(r)) {
    for (const [mine, theirs] of layoutForms(spec)) {
      for (const key of [...ks, big(r, 128), 0n]) {
        const k2 = key
        const what = `(${show(key)}, ${show(mine instanceof Layout ? 'Layout ' + spec : mine)})`
        same(() => Obfuscator.forLayout(key, mine).bits, () => oracle.Obfuscator.forLayout(k2, theirs).bits, `forLayout${what}`)
        const s = same(() => new SortableObfuscator(key, mine).lowBits, () => new oracle.SortableObfuscator(k2, theirs).lowBits, `Sortable${what}`)
        if (s.error || typeof key !== 'bigint') continue
        const a = new SortableObfuscator(key, mine)
        const b = new oracle.SortableObfuscator(key, theirs)
        const f = Obfuscator.forLayout(key, mine)
        const g = oracle.Obfuscator.forLayout(key, theirs)
        const max = new oracle.Layout(spec).maxId
        const vs = values(r, max, 25)
        assert.deepStrictEqual(behaviour(a, vs, ['encode', 'decode']), behaviour(b, vs, ['encode', 'decode']), `Sortable${what}`)
        assert.deepStrictEqual(behaviour(f, vs, ['encode', 'decode']), behaviour(g, vs, ['encode', 'decode']), `forLayout${what}`)
        // The time field and everything above it stay; decode undoes encode.
        for (const v of vs.filter((v) => v <= max)) {
          const e = a.encode(v)
          assert.equal(e >> BigInt(a.lowBits), v >> BigInt(a.lowBits))
          assert.equal(a.decode(e), v)
        }
        built++
      }
    }
  }
  for (const [k, l] of [[], [1n], [1n, null], [undefined, 'twitter']]) {
    same(() => Obfuscator.forLayout(k, l), () => oracle.Obfuscator.forLayout(k, l), `forLayout(${show(k)}, ${show(l)})`)
    same(() => new SortableObfuscator(k, l), () => new oracle.SortableObfuscator(k, l), `Sortable(${show(k)}, ${show(l)})`)
  }
  assert.ok(built > 300, `${built}`)
})

test('receiver checks, free() and Symbol.dispose behave as the wasm glue', () => {
  const pairs = [
    [Obfuscator, oracle.Obfuscator, [7n, 12], { encode: [1], decode: [1] }],
    [SortableObfuscator, oracle.SortableObfuscator, [7n, 'twitter'], { encode: [1], decode: [1] }],
  ]
  let checked = 0
  for (const [Ours, Theirs, args, methodArgs] of pairs) {
    const names = Object.getOwnPropertyNames(Theirs.prototype).filter((n) => !['constructor', '__destroy_into_raw'].includes(n))
    assert.deepEqual(names.filter((n) => !(n in Ours.prototype)), [], `${Ours.name}: members missing`)
    assert.deepEqual(Object.getOwnPropertyNames(Ours.prototype).filter((n) => !names.includes(n)), ['constructor'], `${Ours.name}: extra members`)
    const statics = (C) => Object.getOwnPropertyNames(C).filter((n) => !['length', 'name', 'prototype', '__wrap'].includes(n))
    assert.deepEqual(statics(Ours), statics(Theirs))
    assert.equal(Ours.prototype[Symbol.dispose], Ours.prototype.free)
    const live = [new Ours(...args), new Theirs(...args)]
    assert.deepEqual(Object.keys(live[0]), [])
    const freed = [new Ours(...args), new Theirs(...args)]
    for (const o of freed) {
      o.free()
      o.free() // a second free() does nothing
    }
    const disposed = [new Ours(...args), new Theirs(...args)]
    for (const o of disposed) o[Symbol.dispose]()
    const foreign = Ours === Obfuscator ? [new SortableObfuscator(1n, 'twitter'), new oracle.SortableObfuscator(1n, 'twitter')] : [new Obfuscator(1n, 9), new oracle.Obfuscator(1n, 9)]
    for (const name of names) {
      for (const kind of ['live', 'plain object', 'prototype', 'other class', 'number', 'freed', 'disposed']) {
        const [ours, theirs] = {
          live,
          'plain object': [{}, {}],
          prototype: [Object.create(Ours.prototype), Object.create(Theirs.prototype)],
          'other class': foreign,
          number: [5, 5],
          freed,
          disposed,
        }[kind]
        const call = (Cls, target) => () => {
          const d = Object.getOwnPropertyDescriptor(Cls.prototype, name)
          return d.get ? d.get.call(target) : d.value.apply(target, methodArgs[name] ?? [])
        }
        if (name === 'free' || name === Symbol.dispose) continue
        assert.deepStrictEqual(outcome(call(Ours, ours)), outcome(call(Theirs, theirs)), `${Ours.name}.${name} on ${kind}`)
        checked++
      }
    }
    // free() on a non-instance: the glue fails before its receiver check with a bare TypeError
    // ("this.__destroy_into_raw is not a function"), or frees another class's object; ours
    // throws the receiver check's own TypeError.
    for (const target of [{}, 5, Object.create(Ours.prototype), foreign[0]]) {
      assert.deepStrictEqual(outcome(() => Ours.prototype.free.call(target)), {
        error: 'TypeError',
        props: ['message', 'code'],
        code: 'ERR_INVALID_ARG_TYPE',
        message: `${Ours.name} method called on an object that is not a ${Ours.name}`,
      })
    }
    assert.equal(outcome(() => Theirs.prototype.free.call({})).error, 'TypeError')
    // A subclass instance is an instance.
    class Sub extends Ours {}
    const s = new Sub(...args)
    assert.equal(typeof s.encode(1), 'bigint')
  }
  assert.equal(checked, 7 * (4 + 3))
})

test('vectors/obfuscation.json replays', () => {
  const key = (hex) => BigInt('0x' + hex)
  const check = (o, c) => {
    const input = BigInt(c.input)
    if (c.expect.output !== undefined) {
      const out = BigInt(c.expect.output)
      assert.equal(o.encode(input), out)
      assert.equal(o.decode(out), input)
    } else {
      for (const m of ['encode', 'decode']) {
        const e = outcome(() => o[m](input))
        assert.deepStrictEqual(
          { code: e.code, message: e.message, field: e.field, max: e.max, value: e.value },
          { code: c.expect.error, message: c.expect.message, field: c.expect.field, max: BigInt(c.expect.max), value: BigInt(c.expect.value) },
        )
      }
    }
  }
  let n = 0
  for (const v of vectors.full) {
    const o = new Obfuscator(key(v.key_hex), v.bits)
    // The key as 16 big-endian bytes is the same key.
    const bytes = Uint8Array.from(v.key_hex.match(/../g), (h) => parseInt(h, 16))
    assert.equal(new Obfuscator(bytes, v.bits).encode(0), o.encode(0))
    for (const c of v.cases) check(o, c), n++
  }
  for (const v of vectors.sortable) {
    const o = new SortableObfuscator(key(v.key_hex), v.layout)
    assert.equal(o.lowBits, v.low_bits)
    for (const c of v.cases) check(o, c), n++
  }
  for (const v of vectors.invalid) {
    const make = () => (v.kind === 'full' ? new Obfuscator(key(v.key_hex), v.bits) : new SortableObfuscator(key(v.key_hex), v.layout))
    const e = outcome(make)
    assert.deepStrictEqual({ code: e.code, message: e.message, reason: e.reason }, { code: v.expect.error, message: v.expect.message, reason: v.expect.reason })
    n++
  }
  assert.ok(n > 100, `${n}`)
})
