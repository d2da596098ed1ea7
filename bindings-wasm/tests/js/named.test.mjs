// named.js against the oracle (the wasm build): generated named-config texts (compact and JSON,
// every type and key, valid and hostile) must give the same generator (kind, canonical config)
// or the same error through every front door (new NamedGenerator, fromConfig,
// UuidGenerator.fromConfig, Snowflake.fromConfig); generated nextAt call sequences the same IDs
// and errors, with a deterministic `random` callback, hostile ones (throwing, wrong types and
// lengths, re-entering the generator) and the module's own randomness (sameEntropy); and
// vectors/named.json replays in full.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'

import * as mine from '../../js/named.js'
import { Snowflake } from '../../js/generator.js'
import { mulberry32, rng } from './support/random.mjs'
import { sameEntropy } from './support/entropy.mjs'
const oracle = createRequire(import.meta.url)('../../pkg/node/wasm/idmint.js')
const vectors = JSON.parse(readFileSync(new URL('../../../vectors/named.json', import.meta.url), 'utf8'))

// ---- helpers ----


const show = (v) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'symbol' ? v.toString() : v)

/** What a user sees of an exception: class, message and every own property (the code among them). */
function errorShape(e) {
  if (!(e instanceof Error)) return { thrown: show(e) }
  const shape = { class: e.constructor.name, message: e.message }
  for (const k of Object.keys(e)) shape[k] = show(e[k])
  return shape
}

/** What a user sees of a value a front door returned. */
function view(v) {
  if (v === null || typeof v !== 'object') return v
  const o = { class: v.constructor.name, config: v.config }
  if (v.constructor.name !== 'Snowflake') o.kind = v.kind
  if (v.constructor.name === 'UuidGenerator') {
    o.version = v.version
    o.lastUnixMs = v.lastUnixMs
  }
  return o
}

function outcome(f) {
  try {
    return { ok: view(f()) }
  } catch (e) {
    return { err: errorShape(e) }
  }
}

function tally(counts, k) {
  counts[k] = (counts[k] ?? 0) + 1
}

const quote = (s) => JSON.stringify(s.length > 300 ? s.slice(0, 300) + `...(${s.length})` : s)

// ---- generated config texts ----

const PRESETS = ['twitter', 'discord', 'instagram', 'sonyflake', 'baidu', 'shardingsphere', 'leaf', 'js53']
const SPECS = [
  'time=41@1ms,worker=10,seq=12,epoch=2020-01-01',
  'time=40@1ms,rollback=2,worker=8,seq=13,epoch=2010-11-04T01:42:54.657Z',
  'time=39@10ms,node=16,seq=8,epoch=2014-09-01',
  'time=41@1ms,seq=12,epoch=0',
  'time=41@1ms,worker=10,seq=12,epoch=2100-01-01',
  'time=20@1ms,worker=10,seq=12,epoch=0',
  'time=41@1ms,worker=10,seq=x,epoch=0',
  'time=60@1ms,worker=10,seq=12,epoch=0',
  'nope',
  '',
]
const TYPES = ['snowflake', 'uuid4', 'uuid7', 'uuid6', 'uuid1', 'segment', 'Snowflake', 'uuid9', 'uuid', '', 'uuid7 ']
const KEYS = ['type', 'layout', 'node', 'on_backwards', 'on_exhausted', 'sequence_start', 'seed', 'fence_ms', 'method']
const ODD_KEYS = ['lease', 'nod', 'TYPE', 'Method', 'onBackwards', 'é', '\ud800', '😀', 'store', 'key']
const METHODS = ['counter', 'random_increment', 'sub_millisecond', 'Counter', 'nope', 'sub-millisecond', 'counter ']
const POLICIES = {
  on_backwards: ['fail', 'wait', 'wait:0', 'wait:5', 'logical', 'logical:500', 'rollback_counter', 'ring', 'ring:2', 'ring:1', 'sideways', 'wait:x'],
  on_exhausted: ['wait', 'fail', 'borrow', 'borrow:0', 'borrow:3', 'borrow:x', 'nope'],
  sequence_start: ['zero', 'random', 'vibrate', 'vibrate:0', 'vibrate:3', 'vibrate:256', 'nope'],
}
const NUMS = ['0', '1', '5', '31', '1023', '1024', '65535', '1700000000000', '18446744073709551615', '18446744073709551616', '007', 'x', '-1', '1.5', '']
const JUNK = ['(', ')', ',', '=', '{', '}', '"', '\\', ':', ' ', '\t', '\n', '\u00a0', '\u0085', '\ufeff', 'é', '😀', '\ud800', '\udc00',
  'x', '0', '9', '\u0000', '\u001f', 'true', 'null', '-', '.', 'e', '[', ']', 'method', 'uuid7', '\\u0041']

function value(r, key) {
  switch (key) {
    case 'type':
      return r.pick(TYPES)
    case 'layout':
      return r.pick([...PRESETS, ...PRESETS, ...SPECS])
    case 'method':
      return r.pick(METHODS)
    case 'node':
    case 'seed':
    case 'fence_ms':
      return r.chance(0.6) ? r.pick(['0', '1', '5', '31', '1700000000000']) : r.pick(NUMS)
    default:
      if (POLICIES[key]) return r.pick(POLICIES[key])
      return r.pick([...NUMS, 'x', 'twitter'])
  }
}

function entries(r) {
  const type = r.chance(0.9) ? r.pick(TYPES.slice(0, 5)) : r.pick(TYPES)
  const out = r.chance(0.97) ? [['type', type]] : []
  if (type === 'snowflake' || r.chance(0.05)) {
    if (r.chance(0.93)) out.push(['layout', value(r, 'layout')])
    if (r.chance(0.85)) out.push(['node', r.pick(['0', '1', '5', '31', '1023'])])
  }
  if (type === 'uuid7' && r.chance(0.5)) out.push(['method', value(r, 'method')])
  const n = type === 'snowflake' ? r.int(5) : r.chance(0.7) ? 0 : r.int(3)
  for (let i = 0; i < n; i++) {
    const key = r.chance(0.9) ? r.pick(KEYS) : r.pick(ODD_KEYS)
    if (r.chance(0.85) && out.some(([k]) => k === key)) continue
    out.push([key, value(r, key)])
  }
  if (r.chance(0.3)) out.reverse()
  return out
}

const ws = (r) => (r.chance(0.7) ? '' : r.chance(0.95) ? r.pick([' ', '  ', '\t', '\n', '\r\n']) : r.pick(['\u00a0', '\u3000', '\u0085']))

function compact(r) {
  return entries(r)
    .map(([k, v]) => {
      const paren = k === 'layout' ? r.chance(0.85) : r.chance(0.1)
      return ws(r) + k + ws(r) + '=' + ws(r) + (paren ? `(${ws(r)}${v}${ws(r)})` : v) + ws(r)
    })
    .join(',')
}

function jsonValue(r, v) {
  if (/^[0-9]+$/.test(v) && r.chance(0.6)) return v
  const choice = r.int(20)
  if (choice === 0) return r.pick(['true', 'false', 'null', '-1', '1.5', '1e3', '01', '{}', '[1]', 'nul', 'tru', '7'])
  let s = JSON.stringify(v)
  if (choice === 1) s = s.replace(/[a-z0-9]/, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
  if (choice === 2) s = s.replace(/=/, '\\u003D')
  if (choice === 3) s = s.slice(0, -1) + r.pick(['\\/', '\\n', '\\"', '\\ud83d\\ude00', '\\ud800', '\\udc00x', '\\u12', '\\x', '\u0001', 'é']) + '"'
  return s
}

function json(r) {
  const parts = entries(r).map(([k, v]) => {
    const key = r.chance(0.05) ? JSON.stringify(k).replace(/e/, '\\u0065') : JSON.stringify(k)
    return ws(r) + key + ws(r) + ':' + ws(r) + jsonValue(r, v) + ws(r)
  })
  if (r.chance(0.05)) parts.push(r.pick(['', '"x"', '"type":"uuid4"', '"method":"counter"']))
  return ws(r) + '{' + parts.join(',') + '}' + ws(r)
}

function mutate(r, s) {
  const chars = [...s]
  for (let i = 1 + r.int(3); i > 0; i--) {
    const at = r.int(chars.length + 1)
    const op = r.int(3)
    if (op === 0) chars.splice(at, 0, r.pick(JUNK))
    else if (op === 1) chars.splice(at, 1)
    else chars.splice(at, 1, r.pick(JUNK))
  }
  return chars.join('')
}

const LONG = [
  ' '.repeat(70000) + 'type=uuid4',
  'type=uuid7,method=' + 'x'.repeat(100000),
  '{"type":"uuid7","method":"' + 'é'.repeat(50000) + '"}',
  'type=snowflake,layout=(' + 'time=41@1ms,'.repeat(5000) + '),node=1',
  'type=uuid4,' + 'k=v,'.repeat(20000) + 'k=v',
  '{' + '"type":"uuid4",'.repeat(5000) + '"x":1}',
  '{"type":"uuid1"' + ' '.repeat(100000),
  'type=uuid6' + '\ud800'.repeat(1000),
]

function configText(r) {
  let s = r.chance(0.5) ? compact(r) : json(r)
  if (r.chance(0.25)) s = mutate(r, s)
  if (r.chance(0.02)) s = r.pick(['', ' ', '{', '{}', 'type', 'type=', '=x', 'type=uuid4,', ',', '((', 'type=(uuid7', '\ud800', '{"\ud800":1}'])
  return s
}

/** A clocked front door's ERR_BEFORE_EPOCH names the clock's reading, which may differ by a ms. */
function clockFree(x) {
  if (x.err?.code !== 'ERR_BEFORE_EPOCH') return x
  return { err: { ...x.err, nowMs: 'now', message: x.err.message.replace(/^time [0-9]+ ms/, 'time now') } }
}

/** The Snowflake of a clocked front door prints a random seed for `sequence_start=random` without one. */
function sameSnowflake(o, m, named, what) {
  o = clockFree(o)
  m = clockFree(m)
  if (o.ok?.class === 'Snowflake' && m.ok?.class === 'Snowflake' && /sequence_start=random/.test(named) && !/seed=/.test(named)) {
    const strip = (c) => c.replace(/,seed=[0-9]+/, '')
    assert.match(o.ok.config, /,seed=[0-9]+/, what)
    assert.match(m.ok.config, /,seed=[0-9]+/, what)
    assert.equal(strip(m.ok.config), strip(o.ok.config), what)
    return
  }
  assert.deepEqual(m, o, what)
}

/** One config text through every front door of both builds. */
function compareText(text, counts, what) {
  const o = outcome(() => new oracle.NamedGenerator(text))
  const m = outcome(() => new mine.NamedGenerator(text))
  assert.deepEqual(m, o, `${what}: new NamedGenerator`)
  tally(counts, o.err ? o.err.code : o.ok.kind)
  if (o.ok) {
    // The canonical text parses back to the same config.
    assert.equal(new mine.NamedGenerator(m.ok.config).config, m.ok.config, `${what}: canonical round trip`)
  }
  const named = o.ok?.config ?? ''
  sameSnowflake(outcome(() => oracle.fromConfig(text)), outcome(() => mine.fromConfig(text)), named, `${what}: fromConfig`)
  assert.deepEqual(outcome(() => mine.UuidGenerator.fromConfig(text)), outcome(() => oracle.UuidGenerator.fromConfig(text)), `${what}: UuidGenerator.fromConfig`)
  sameSnowflake(outcome(() => oracle.Snowflake.fromConfig(text)), outcome(() => Snowflake.fromConfig(text)), named, `${what}: Snowflake.fromConfig`)
}

test('config texts: the same generator or the same error through every front door', () => {
  const r = rng(0x4e4d0001)
  const counts = {}
  for (let i = 0; i < 12000; i++) {
    const text = configText(r)
    compareText(text, counts, `case ${i} (seed 0x4e4d0001): ${quote(text)}`)
  }
  for (const [i, text] of LONG.entries()) compareText(text, counts, `long ${i}`)
  if (process.env.SHOW_COUNTS) console.log('configs', counts)
  for (const k of ['snowflake', 'uuid4', 'uuid7', 'uuid6', 'uuid1', 'ERR_INVALID_LAYOUT', 'ERR_INVALID_CONFIG', 'ERR_NODE_REQUIRED', 'ERR_OUT_OF_RANGE']) {
    assert.ok(counts[k] > 20, `${k}: ${JSON.stringify(counts)}`)
  }
  // Not a string at all.
  for (const v of [undefined, null, 5, 5n, true, {}, ['type=uuid4'], Symbol('c'), () => 1, new String('type=uuid4'), new Proxy({}, {}), new Proxy(new String('type=uuid4'), {})]) {
    for (const call of [(l, x) => new l.NamedGenerator(x), (l, x) => l.fromConfig(x), (l, x) => l.UuidGenerator.fromConfig(x)]) {
      assert.deepEqual(outcome(() => call(mine, v)), outcome(() => call(oracle, v)), String(typeof v))
    }
  }
})

test('new UuidGenerator(version): every argument type', () => {
  const args = [undefined, null, 1, 4, 6, 7, 1n, 4n, 6n, 7n, 0, 2, 3, 5, 8, 256 + 7, 2 ** 32 + 7, 2 ** 53 - 1, 2 ** 53, -1, -0, 1.5, NaN, Infinity,
    -7n, 7n + (1n << 64n), (1n << 64n) - 1n, '7', '', true, {}, [], [7], Symbol('v'), () => 7, new Number(7), new Proxy({}, {}), Object(7n)]
  for (const v of args) {
    assert.deepEqual(outcome(() => new mine.UuidGenerator(v)), outcome(() => new oracle.UuidGenerator(v)), String(show(v)))
  }
  assert.deepEqual(outcome(() => new mine.UuidGenerator()), outcome(() => new oracle.UuidGenerator()))
  // Without `new`: the language's own TypeError.
  assert.deepEqual(outcome(() => mine.UuidGenerator(7)), outcome(() => oracle.UuidGenerator(7)))
  assert.deepEqual(outcome(() => mine.NamedGenerator('type=uuid4')), outcome(() => oracle.NamedGenerator('type=uuid4')))
})

// ---- nextAt sequences ----

/** Valid configs of every type (the oracle accepts each). */
function validConfigs() {
  const r = rng(0x4e4d0002)
  const byType = {}
  for (let i = 0; i < 4000; i++) {
    const text = configText(r)
    const o = outcome(() => new oracle.NamedGenerator(text))
    if (o.ok) (byType[o.ok.kind] ??= []).push(text)
  }
  byType.uuid7.push('type=uuid7,method=sub_millisecond', 'type=uuid7,method=random_increment')
  byType.snowflake.push('type=snowflake,layout=(time=41@1ms,worker=10,seq=2,epoch=2020-01-01),node=3,on_exhausted=fail',
    'type=snowflake,layout=(time=40@1ms,rollback=2,worker=8,seq=13,epoch=2010-11-04T01:42:54.657Z),node=0,on_backwards=rollback_counter',
    'type=snowflake,layout=sonyflake,node=1,on_backwards=ring:8,sequence_start=random',
    'type=snowflake,layout=js53,node=1,fence_ms=1700000000100,on_backwards=fail',
    'type=snowflake,layout=(time=10@1ms,worker=10,seq=12,epoch=1700000000000),node=1,on_exhausted=borrow:2')
  return byType
}

const BAD_NOW = [-1, 1.5, NaN, 2 ** 53, -1n, 1n << 64n, '1700000000000', null, undefined, {}, Symbol('t'), true]
const BAD_RETURNS = (n) => [
  undefined, null, 5, 'x'.repeat(n), Array(n).fill(1), new Uint8ClampedArray(n), new Int8Array(n), new Uint16Array(n),
  new ArrayBuffer(n), new DataView(new ArrayBuffer(n)), new Uint8Array(n + 1), new Uint8Array(Math.max(0, n - 1)), new Uint8Array(0),
  { length: n }, Symbol('r'), 7n, () => new Uint8Array(n),
  // A proxy of a Uint8Array, a subclass's instance, an own `length` that lies.
  new Proxy(new Uint8Array(n), {}), new (class Bytes extends Uint8Array {})(n).fill(9),
  Object.defineProperty(new Uint8Array(n).fill(5), 'length', { value: n + 3 }),
]

/**
 * One generated sequence of calls on `gen` (of `lib`): `steps` describes each call abstractly,
 * so both builds get the same calls; randomness comes from a stream seeded per sequence.
 */
function runSequence(lib, gen, steps, seed, isUuid) {
  const stream = mulberry32(seed)
  const draw = (n) => Uint8Array.from({ length: n }, () => Math.floor(stream() * 256))
  const log = []
  let depth = 0
  const randomOf = (kind, now) => {
    switch (kind.k) {
      case 'none':
        return undefined
      case 'null':
        return null
      case 'det':
        return (n) => {
          log.push(['asked', n])
          return draw(n)
        }
      case 'throw':
        return (n) => {
          log.push(['asked', n])
          throw kind.error ? new RangeError(`boom ${n}`) : `boom ${n}`
        }
      case 'bad':
        return (n) => {
          log.push(['asked', n])
          return BAD_RETURNS(n)[kind.which % BAD_RETURNS(n).length]
        }
      case 'notfn':
        return kind.value
      case 'buffer':
        // A Uint8Array view into a larger buffer, and a Node Buffer (a Uint8Array too).
        return (n) => (kind.which ? Buffer.from(draw(n)) : new Uint8Array(draw(n + 8).buffer, 4, n))
      case 'reenter':
        return (n) => {
          log.push(['asked', n])
          if (depth < 3) {
            depth++
            try {
              for (let i = 0; i < kind.times; i++) {
                const inner = kind.inner === 'throw' ? () => { throw new Error('inner') } : randomOf({ k: kind.inner }, now)
                try {
                  // A v4 UuidGenerator's next() (the module's randomness; v4 reads no clock) from inside, too.
                  if (kind.inner === 'next' && isUuid && gen.kind === 'uuid4') log.push(['inner next', gen.next()])
                  else log.push(['inner', show(gen.nextAt(now + BigInt(kind.shift), inner))])
                } catch (e) {
                  log.push(['inner error', errorShape(e)])
                }
                log.push(['peek', gen.kind, isUuid ? show(gen.lastUnixMs) : null])
              }
            } finally {
              depth--
            }
          }
          return draw(n)
        }
      case 'free':
        return (n) => {
          log.push(['asked', n])
          gen.free()
          return draw(n)
        }
    }
  }
  const out = []
  for (const s of steps) {
    const now = s.badNow !== undefined ? BAD_NOW[s.badNow] : s.now
    const random = randomOf(s.random, typeof now === 'bigint' ? now : 0n)
    let r
    try {
      r = { id: show(gen.nextAt(s.asNumber && typeof now === 'bigint' ? Number(now) : now, random)) }
    } catch (e) {
      r = { err: errorShape(e) }
    }
    if (isUuid) r.last = outcome(() => gen.lastUnixMs)
    r.log = log.splice(0)
    out.push(r)
  }
  return out
}

function genSteps(r, count) {
  let now = BigInt(r.pick([0, 1, 1700000000000, 1700000000000, 1700000000000, 2 ** 48, 2 ** 53 - 5, 4102444800000]))
  if (r.chance(0.05)) now = (1n << 64n) - 3n
  const steps = []
  for (let i = 0; i < count; i++) {
    const d = r.int(10)
    if (d < 4) now += 0n
    else if (d < 7) now += BigInt(r.int(3) + 1)
    else if (d < 8) now -= BigInt(r.int(3) + 1)
    else if (d < 9) now += BigInt(r.int(100000))
    else now -= BigInt(r.int(5000))
    if (now < 0n) now = 0n
    if (now >= 1n << 64n) now = (1n << 64n) - 1n
    const step = { now, asNumber: now < 2n ** 53n && r.chance(0.3) }
    if (r.chance(0.04)) step.badNow = r.int(BAD_NOW.length)
    const k = r.int(100)
    step.random =
      k < 45 ? { k: 'det' }
        : k < 52 ? { k: r.pick(['none', 'null']) }
          : k < 60 ? { k: 'throw', error: r.chance(0.5) }
            : k < 72 ? { k: 'bad', which: r.int(100) }
              : k < 76 ? { k: 'notfn', value: r.pick([5, 'f', {}, true, 1n, Symbol('x')]) }
                : k < 80 ? { k: 'buffer', which: r.int(2) }
                  : k < 99 ? { k: 'reenter', times: 1 + r.int(2), shift: r.int(3) - 1, inner: r.pick(['det', 'det', 'reenter', 'throw', 'none', 'next']) }
                    : { k: 'free' }
    if (step.random.k === 'reenter' && step.random.inner === 'reenter') step.random = { ...step.random, times: 1, shift: 0 }
    steps.push(step)
  }
  return steps
}

/** The module pools of both builds are lined up by a call drawing 16 bytes (a v4 UUID). */
const align = (lib) => new lib.UuidGenerator(4).nextAt(0)

test('nextAt sequences: the same IDs, errors and random draws, value by value', () => {
  const configs = validConfigs()
  const counts = {}
  let calls = 0
  for (const [type, texts] of Object.entries(configs)) {
    const r = rng(0x4e4d0100 + type.length * 7 + type.charCodeAt(type.length - 1))
    const n = type === 'snowflake' ? 250 : 150
    for (let i = 0; i < n; i++) {
      const text = r.pick(texts)
      const steps = genSteps(r, 1 + r.int(30))
      const seed = r.int(2 ** 31)
      // A NamedGenerator, or for a UUID type one of the UuidGenerator's front doors.
      const door = type === 'snowflake' ? 0 : r.int(3)
      const make = (lib) =>
        door === 0 ? new lib.NamedGenerator(text) : door === 1 ? lib.UuidGenerator.fromConfig(text) : new lib.UuidGenerator(Number(type.slice(4)))
      const run = (lib) => sameEntropy(seed, lib, align, (l) => runSequence(l, make(l), steps, seed, door > 0)).value
      const o = run(oracle)
      const m = run(mine)
      calls += steps.length
      for (let k = 0; k < steps.length; k++) {
        assert.deepEqual(m[k], o[k], `${type} ${quote(text)} door ${door}, sequence ${i}, step ${k}: ${JSON.stringify(steps[k], (_, v) => show(v))}`)
        tally(counts, o[k].err ? o[k].err.code ?? o[k].err.class : 'ok')
      }
    }
  }
  if (process.env.SHOW_COUNTS) console.log('sequences', calls, counts)
  for (const k of ['ok', 'ERR_INVALID_ARG_TYPE', 'ERR_OUT_OF_RANGE', 'ERR_CLOSED', 'ERR_WOULD_BLOCK', 'ERR_CLOCK_BACKWARDS']) {
    assert.ok(counts[k] > 20, `${k}: ${JSON.stringify(counts)}`)
  }
})

test('next(): the module clock and randomness, as the oracle draws them', () => {
  for (const v of [1, 4, 6, 7]) {
    for (const cfg of v === 7 ? ['type=uuid7', 'type=uuid7,method=random_increment', 'type=uuid7,method=sub_millisecond'] : [`type=uuid${v}`]) {
      const run = (lib) =>
        sameEntropy(v * 31 + cfg.length, lib, align, (l) => {
          const g = l.UuidGenerator.fromConfig(cfg)
          const before = BigInt(Date.now())
          const ids = Array.from({ length: 50 }, () => g.next())
          return { ids, before, after: BigInt(Date.now()), last: g.lastUnixMs }
        })
      const o = run(oracle)
      const m = run(mine)
      // The same draws from Web Crypto.
      assert.deepEqual(m.fills, o.fills, cfg)
      const ids = m.value.ids
      for (const id of ids) {
        assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, cfg)
        assert.equal(id[14], String(v), cfg)
      }
      if (v === 4) assert.deepEqual(ids, o.value.ids, cfg)
      else {
        assert.ok(m.value.last >= m.value.before && m.value.last <= m.value.after + 1n, `${cfg}: lastUnixMs ${m.value.last}`)
        if (v !== 1) for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1], `${cfg}: increasing`)
        // v1 and v6 draw their clock sequence and node once: the same bytes as the oracle's.
        if (v === 1 || v === 6) assert.equal(ids[0].slice(19), o.value.ids[0].slice(19), cfg)
      }
      if (v === 4) assert.equal(m.value.last, null)
    }
  }
})

test('fromConfig: a Snowflake of random starts draws its seed as the oracle does', () => {
  for (const text of ['type=snowflake,layout=twitter,node=1,sequence_start=random', '{"type":"snowflake","layout":"leaf","node":2,"sequence_start":"random"}']) {
    const run = (lib) => sameEntropy(text.length, lib, align, (l) => [l.fromConfig(text).config, l.fromConfig(text).config, new l.NamedGenerator(text).config])
    const o = run(oracle)
    assert.deepEqual(run(mine), o, text)
    assert.match(o.value[0], /,seed=[0-9]+$/)
    assert.notEqual(o.value[0], o.value[1])
  }
})

test('next() of a sub_millisecond v7 generator takes the fraction of the millisecond the clock gives', () => {
  // performance.now() held at half past a millisecond: rand_a starts each new millisecond near 2048.
  const real = performance.now.bind(performance)
  const frac = performance.timeOrigin % 1
  performance.now = () => Math.floor(real()) + 1.5 - frac
  try {
    for (const lib of [oracle, mine]) {
      const g = lib.UuidGenerator.fromConfig('type=uuid7,method=sub_millisecond')
      for (let i = 0; i < 50; i++) {
        const randA = parseInt(g.next().slice(15, 18), 16)
        assert.ok(randA >= 2040 && randA < 2200, `${lib === mine ? 'named.js' : 'oracle'}: rand_a ${randA}`)
      }
    }
  } finally {
    delete performance.now
  }
  assert.equal(typeof performance.now(), 'number')
})

test('free() from a replaced crypto.getRandomValues during next() or nextAt()', () => {
  for (const call of ['next', 'nextAt']) {
    for (const rethrow of [false, true]) {
      const run = (lib) =>
        sameEntropy(7, lib, align, (l) => {
          const g = new l.UuidGenerator(4)
          const stub = globalThis.crypto
          const fill = stub.getRandomValues
          const log = []
          let freed = false
          stub.getRandomValues = (buf) => {
            if (!freed) {
              freed = true
              try {
                g.free()
                log.push('freed')
              } catch (e) {
                log.push(errorShape(e))
                if (rethrow) throw e
              }
            }
            return fill.call(stub, buf)
          }
          // The pool is fresh: the 17th v4 UUID refills it.
          for (let i = 0; i < 20; i++) log.push(outcome(() => (call === 'next' ? g.next() : g.nextAt(0))))
          return log
        }).value
      assert.deepEqual(run(mine), run(oracle), `${call}, rethrow ${rethrow}`)
    }
  }
})

// ---- receivers, free, dispose ----

test('receiver checks, free() and Symbol.dispose as the oracle has them', () => {
  const members = {
    NamedGenerator: { make: (l) => new l.NamedGenerator('type=uuid7'), methods: [['nextAt', [1]]], getters: ['kind', 'config'] },
    UuidGenerator: {
      make: (l) => new l.UuidGenerator(7),
      methods: [['nextAt', [1]], ['next', []]],
      getters: ['kind', 'config', 'version', 'lastUnixMs'],
    },
  }
  for (const [name, m] of Object.entries(members)) {
    const call = (lib, recv, kind, member, args) => {
      const proto = lib[name].prototype
      if (kind === 'get') return Object.getOwnPropertyDescriptor(proto, member).get.call(recv)
      return proto[member].apply(recv, args)
    }
    const foreign = (lib) => [{}, Object.create(lib[name].prototype), new lib.Layout('twitter'), name === 'NamedGenerator' ? new lib.UuidGenerator(4) : new lib.NamedGenerator('type=uuid4')]
    const mineLib = { ...mine, Layout: oracle.Layout }
    for (let f = 0; f < 4; f++) {
      for (const [member, args] of m.methods) {
        assert.deepEqual(outcome(() => call(mineLib, foreign(mineLib)[f], 'call', member, args)), outcome(() => call(oracle, foreign(oracle)[f], 'call', member, args)), `${name}.${member} on foreign ${f}`)
      }
      for (const g of m.getters) {
        assert.deepEqual(outcome(() => call(mineLib, foreign(mineLib)[f], 'get', g)), outcome(() => call(oracle, foreign(oracle)[f], 'get', g)), `${name}.${g} on foreign ${f}`)
      }
    }
    // Freed (by free() or Symbol.dispose): ERR_CLOSED everywhere, a second free() is a no-op.
    for (const how of ['free', 'dispose']) {
      const [a, b] = [m.make(mine), m.make(oracle)]
      for (const x of [a, b]) (how === 'free' ? x.free() : x[Symbol.dispose]())
      assert.deepEqual(outcome(() => a.free()), outcome(() => b.free()), `${name} second free`)
      for (const [member, args] of m.methods) {
        assert.deepEqual(outcome(() => a[member](...args)), outcome(() => b[member](...args)), `${name}.${member} freed`)
        // Closed wins over a bad argument.
        assert.deepEqual(outcome(() => a[member]('x', 5)), outcome(() => b[member]('x', 5)), `${name}.${member} freed, bad args`)
      }
      for (const g of m.getters) assert.deepEqual(outcome(() => a[g]), outcome(() => b[g]), `${name}.${g} freed`)
    }
    assert.equal(mine[name].prototype[Symbol.dispose], mine[name].prototype.free)
    assert.equal(typeof mine[name].prototype.free, 'function')
  }
  // A static method needs no receiver.
  assert.deepEqual(outcome(() => mine.UuidGenerator.fromConfig.call(null, 'type=uuid6')), outcome(() => oracle.UuidGenerator.fromConfig.call(null, 'type=uuid6')))
  // The argument checks' order: nowMs before random.
  for (const l of [mine, oracle]) assert.equal(outcome(() => new l.NamedGenerator('type=uuid4').nextAt(-1, 5)).err.code, 'ERR_OUT_OF_RANGE')
  // A snowflake NamedGenerator checks `random` though it never calls it.
  for (const l of [mine, oracle]) {
    const g = new l.NamedGenerator('type=snowflake,layout=twitter,node=1')
    assert.equal(outcome(() => g.nextAt(1700000000000, 5)).err.code, 'ERR_INVALID_ARG_TYPE')
    assert.equal(typeof g.nextAt(1700000000000, () => assert.fail('called')), 'bigint')
  }
})

// ---- vectors ----

const camel = (k) => k.replace(/_(.)/g, (_, c) => c.toUpperCase())

function expectError(e, exp, what) {
  assert.ok(e, `${what}: expected ${exp.error}`)
  assert.equal(e.code, exp.error, `${what}: code`)
  // The browser adds how a page chooses a node to the core's NodeRequired message.
  if (exp.error === 'ERR_NODE_REQUIRED') assert.ok(e.message.startsWith(exp.message + ' (in the browser: '), `${what}: message`)
  else assert.equal(e.message, exp.message, `${what}: message`)
  for (const [k, v] of Object.entries(exp)) {
    if (k !== 'error' && k !== 'message') assert.equal(String(e[camel(k)]), String(v), `${what}: ${k}`)
  }
}

const caught = (f) => {
  try {
    f()
  } catch (e) {
    return e
  }
  return null
}

test('vectors/named.json replays in full', () => {
  for (const c of vectors.configs) {
    const g = new mine.NamedGenerator(c.config)
    assert.equal(g.kind, c.type, c.config)
    assert.equal(g.config, c.canonical, c.config)
    assert.equal(new mine.NamedGenerator(c.canonical).config, c.canonical)
    const random = Uint8Array.from(c.random_hex.match(/../g) ?? [], (h) => parseInt(h, 16))
    let used = 0
    const fill = (n) => random.slice(used, (used += n))
    for (const [i, s] of c.steps.entries()) {
      const what = `${c.config} step ${i}`
      let id
      const e = caught(() => (id = g.nextAt(BigInt(s.now_ms), fill)))
      if (s.expect.error) expectError(e, s.expect, what)
      else {
        assert.equal(e, null, `${what}: ${e?.message}`)
        assert.equal(String(id), s.expect.id, what)
      }
    }
    assert.equal(used, c.random_used, `${c.config}: random bytes used`)
    // The UUID front doors give the same UUIDs.
    if (c.type !== 'snowflake') {
      const u = mine.UuidGenerator.fromConfig(c.config)
      used = 0
      for (const s of c.steps) assert.equal(u.nextAt(BigInt(s.now_ms), fill), s.expect.id)
    }
  }
  for (const c of vectors.invalid) {
    expectError(caught(() => new mine.NamedGenerator(c.config)), c.expect, `new NamedGenerator ${c.config}`)
    expectError(caught(() => mine.fromConfig(c.config)), c.expect, `fromConfig ${c.config}`)
    expectError(caught(() => Snowflake.fromConfig(c.config)), c.expect_snowflake ?? c.expect, `Snowflake.fromConfig ${c.config}`)
    expectError(caught(() => mine.UuidGenerator.fromConfig(c.config)), c.expect_uuid ?? c.expect, `UuidGenerator.fromConfig ${c.config}`)
  }
})
