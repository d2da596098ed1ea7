// Every exported function, constructor and method, called with bad values in every argument
// position it might have: whatever it throws is an Error with a stable `ERR_` code and a
// message, never a crash, a plain string, an untyped TypeError from the glue or a hang. New
// exports are covered without being listed. Runs against any implementation (see
// support/impl.mjs); the ones that reach a store or a lease service are left to their own tests.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import m, { lacks } from './support/impl.mjs'

const BAD = [
  undefined, null, -1, 0, 1.5, NaN, Infinity, -Infinity, 2 ** 53, -(2n ** 70n), 2n ** 64n,
  2n ** 128n, '', 'x'.repeat(10_000), 'User', 'user_', '_user', 'a'.repeat(64), 'ü\u0000',
  '01ARYZ6S41YYYYYYYYYYYYYYYY', 'user_01h455vb4pex5vsknk084sn02q',
  'ffffffff-ffff-ffff-ffff-ffffffffffff', new Uint8Array(0), new Uint8Array(3),
  new Uint8Array(100).fill(255), [], [1, 2], {}, { layout: 42 }, Symbol('s'), () => 1,
  () => { throw new Error('from a callback') }, true,
]

/** Argument lists of 0 to 3 values: each bad value alone, and mixed pairs and triples. */
function* argLists() {
  yield []
  for (const v of BAD) yield [v]
  for (let i = 0; i < BAD.length; i++) {
    yield [BAD[i], BAD[(i * 7 + 3) % BAD.length]]
    yield [BAD[i], BAD[(i * 5 + 1) % BAD.length], BAD[(i * 11 + 2) % BAD.length]]
  }
}

/** Reaches a store or a lease service, or builds one from its arguments: tested elsewhere. */
const OUTSIDE = /Leased|Segment/

function check(what, f) {
  try {
    f()
  } catch (e) {
    // A `random` callback's own exception passes on as it was thrown.
    if (e?.message === 'from a callback') return
    const shown = `${what}: ${e?.constructor?.name} ${String(e?.message ?? e).slice(0, 120)}`
    assert.ok(e instanceof Error, `${shown} is not an Error`)
    assert.equal(typeof e.code, 'string', `${shown} has no code`)
    assert.match(e.code, /^ERR_[A-Z_]+$/, shown)
    assert.ok(e.message.length > 0, `${shown} has no message`)
  }
}

const exported = Object.entries(m).filter(
  ([name, v]) => typeof v === 'function' && !name.startsWith('_') && !OUTSIDE.test(name),
)

test('every exported function and constructor takes bad arguments without a crash', () => {
  let calls = 0
  for (const [name, f] of exported) {
    const isClass = /^[A-Z]/.test(name)
    for (const args of argLists()) {
      calls++
      check(`${name}(${args.length} args)`, () => (isClass ? new f(...args) : f(...args)))
    }
    if (isClass) {
      for (const key of Object.getOwnPropertyNames(f)) {
        const s = f[key]
        if (typeof s !== 'function' || key.startsWith('_') || ['length', 'name', 'prototype'].includes(key)) continue
        for (const args of argLists()) {
          calls++
          check(`${name}.${key}`, () => s.apply(f, args))
        }
      }
    }
  }
  // The Snowflake entry of the browser package (5 functions and classes) makes exactly 1000.
  assert.ok(calls >= 1000)
})

/** Instances built with good arguments, whose methods then get the bad ones. */
const instances = () => [
  ['Snowflake', () => new m.Snowflake({ layout: 'twitter', node: 1 })],
  ['AtomicSnowflake', () => new m.AtomicSnowflake({ layout: 'twitter', node: 1 })],
  ['Layout', () => new m.Layout('twitter')],
  ['UuidGenerator', () => new m.UuidGenerator(7)],
  ['Uuid7Generator', () => new m.Uuid7Generator()],
  ['UlidGenerator', () => new m.UlidGenerator()],
  ['KsuidGenerator', () => new m.KsuidGenerator()],
  ['NamedGenerator', () => new m.NamedGenerator('type=snowflake,layout=twitter,node=5')],
  ['Obfuscator', () => new m.Obfuscator(12345n, 63)],
  ['SortableObfuscator', () => new m.SortableObfuscator(12345n, 'twitter')],
]

test('every method of every generator, layout and obfuscator takes bad arguments', { skip: lacks('Layout', 'Snowflake') }, () => {
  let calls = 0
  for (const [name, make] of instances()) {
    if (typeof m[name] !== 'function') continue
    let obj
    try {
      obj = make()
    } catch (e) {
      // A constructor shape this implementation does not take: its own tests cover it.
      check(`new ${name}`, () => { throw e })
      continue
    }
    const proto = Object.getPrototypeOf(obj)
    const keys = new Set([...Object.getOwnPropertyNames(proto), ...Object.getOwnPropertyNames(obj)])
    for (const key of keys) {
      if (key === 'constructor' || key.startsWith('_') || key === 'free') continue
      const desc = Object.getOwnPropertyDescriptor(proto, key) ?? Object.getOwnPropertyDescriptor(obj, key)
      if (!desc || typeof desc.value !== 'function') continue
      for (const args of argLists()) {
        calls++
        check(`${name}#${key}`, () => obj[key](...args))
      }
    }
  }
  assert.ok(calls > 1000)
})
