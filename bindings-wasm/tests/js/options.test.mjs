// options.js against the oracle (the wasm build): thousands of generated option objects, named
// config texts and node arguments, valid and invalid, must give the same Config (as the
// `config` getter's text, the node and the layout) or the same error; and the named-config
// vectors' snowflake cases replay. Errors that only the generator raises (core Packing::new:
// ring size, vibrate offset, rollback field, state bits, node required) are not options.js's:
// when only the oracle fails, the test checks that the oracle gives that same error for the
// config options.js read, and that it is one the generator raises.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'

import { readOptions, parseConfig, configText, nodeArg } from '../../js/options.js'
import { Layout, parseLayout } from '../../js/layout.js'
import { rng } from './support/random.mjs'
const oracle = createRequire(import.meta.url)('../../pkg/node/wasm/idmint.js')
const vectors = JSON.parse(readFileSync(new URL('../../../vectors/named.json', import.meta.url), 'utf8'))

// ---- helpers ----


const show = (v) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'symbol' ? v.toString() : v)

/** An exception as the fields a user sees: class, code, message and every own property. */
function errorShape(e) {
  if (!(e instanceof Error)) return { thrown: String(e) }
  const shape = { class: e.constructor.name, message: e.message }
  for (const k of Object.keys(e)) shape[k] = show(e[k])
  return shape
}

function attempt(f) {
  try {
    return { ok: f() }
  } catch (e) {
    return { err: e }
  }
}

// The errors only the generator raises (core Packing::new, and the node range it checks for fromConfig).
// What the clocked Snowflake adds to AtomicSnowflake's construction: the page clock's reading.
const CLOCK_CODES = new Set(['ERR_LAYOUT_EXPIRED', 'ERR_BEFORE_EPOCH'])
const PACKING_CODES = new Set(['ERR_INVALID_CONFIG', 'ERR_NODE_REQUIRED', 'ERR_OUT_OF_RANGE'])

/**
 * Compares the oracle's outcome `o` (a generator or an error) with options.js's `m` (a Config
 * or an error) for the same input `what`; `packingOk` says whether a node range error may be the
 * generator's (fromConfig) rather than options.js's (an options object checks it first).
 */
function compare(o, m, what, packingOk) {
  if (o.err && m.err) {
    assert.deepEqual(errorShape(m.err), errorShape(o.err), what)
    return 'error'
  }
  if (m.err) assert.fail(`${what}: oracle accepts (${o.ok.config}) but options.js throws ${m.err.stack}`)
  const text = configText(m.ok)
  if (o.err) {
    // Only the generator may refuse a config options.js read: it must refuse the same config.
    const again = attempt(() => oracle.AtomicSnowflake.fromConfig(text))
    assert.ok(again.err, `${what}: oracle throws ${o.err.message} but accepts ${text}`)
    assert.deepEqual(errorShape(again.err), errorShape(o.err), `${what} (as ${text})`)
    assert.ok(PACKING_CODES.has(o.err.code), `${what}: ${o.err.code} is not the generator's`)
    if (!packingOk) assert.notEqual(o.err.code, 'ERR_OUT_OF_RANGE', `${what}: node range is options.js's`)
    return 'generator'
  }
  assert.equal(text, o.ok.config, what)
  assert.equal(m.ok.node, o.ok.node, `${what}: node`)
  assert.equal(m.ok.layout.spec, o.ok.layout.spec, `${what}: layout`)
  assert.equal(m.ok.layout._preset, o.ok.layout.presetName, `${what}: preset`)
  // The text form reads back to the same Config.
  const back = parseConfig(text)
  assert.deepEqual({ ...back, layout: back.layout.spec }, { ...m.ok, layout: m.ok.layout.spec }, `${what}: round trip`)
  return 'ok'
}

function tally(counts, k) {
  counts[k] = (counts[k] ?? 0) + 1
}

// ---- generated options objects ----

const PRESETS = ['twitter', 'discord', 'instagram', 'sonyflake', 'baidu', 'shardingsphere', 'leaf', 'js53']
const SPECS = [
  'time=41@1ms,worker=10,seq=12,epoch=2020-01-01',
  'time=41@1ms,datacenter=5,worker=5,seq=12,epoch=1288834974657',
  'time=40@1ms,rollback=2,worker=8,seq=13,epoch=2010-11-04T01:42:54.657Z',
  'time=39@10ms,node=16,seq=8,epoch=2014-09-01',
  'time=41@1ms,seq=12,epoch=0',
  'time=30@1ms,w=3,seq=2,epoch=0',
  'time=41@1ms,workerxxxxxxxxx=4,seq=12,epoch=0',
  'time=41@1ms,a=1,b=1,c=1,d=1,e=1,f=1,seq=12,epoch=0',
  'time=41@1ms,worker=10,seq=14,epoch=0',
  'time=41@1ms,worker=10,seq=x,epoch=0',
  'nope',
  '',
  ' twitter',
]
// A layout value: a preset or spec string, or a Layout (js/layout.js's for options.js, the
// oracle's for the oracle), given as a marker materialised per side.
const asLayout = (spec) => ({ layoutOf: spec })

const U64_MAX = (1n << 64n) - 1n
const NUMBERS = () => [
  0, 1, 5, 31, 32, 1023, 1024, 65535, 2 ** 53 - 1, 2 ** 53, 2 ** 64, -1, -0, 1.5, NaN, Infinity, -Infinity,
  0n, 1n, 1023n, 1024n, U64_MAX, U64_MAX + 1n, -1n, 1700000000000, 1700000000000n,
  '5', '', 'x', true, false, Symbol('s'), () => 1, [], [1], {}, new Number(5), new Date(0), null, undefined,
]
const POLICY_NAMES = [
  'fail', 'wait', 'logical', 'rollback_counter', 'ring', 'borrow', 'zero', 'random', 'vibrate',
  'Wait', 'FAIL', 'waits', 'rollback-counter', '', 'ring ', ' wait',
]
const POLICY_ARGS = [
  null, '', '0', '1', '7', '0005', '255', '256', '1000', '65536', '65537', '4294967295', '4294967296',
  '18446744073709551615', '18446744073709551616', '-1', '1.5', '1:2', ' 5', '5 ', 'x', '１',
]
const PADS = ['', '', '', ' ', '\t', '\n ', '\u00a0', '\u0085', '\ufeff', '\u3000', '\u2028', '\u200b']

const VALID_POLICIES = {
  on_backwards: ['fail', 'wait', 'wait:0', 'wait:5', 'logical', 'logical:500', 'rollback_counter', 'ring', 'ring:2', 'ring:70000'],
  on_exhausted: ['wait', 'fail', 'borrow', 'borrow:0', 'borrow:3'],
  sequence_start: ['zero', 'random', 'vibrate', 'vibrate:0', 'vibrate:3', 'vibrate:255'],
}

function policyText(r, key) {
  const valid = VALID_POLICIES[key.replace(/[A-Z]/, (c) => '_' + c.toLowerCase())]
  if (valid && r.chance(0.6)) return r.pick(PADS.slice(0, 5)) + r.pick(valid) + r.pick(PADS.slice(0, 5))
  const name = r.pick(POLICY_NAMES)
  const arg = r.pick(POLICY_ARGS)
  return r.pick(PADS) + name + (arg === null ? '' : ':' + arg) + r.pick(PADS)
}

const NODE_NAMES = ['worker', 'datacenter', 'process', 'node', 'w', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i',
  'seq', 'time', 'workerxxxxxxxxx', 'workerxxxxxxxxxjunk', 'worker\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9', '0', '10', '\ud800', '__proto__']

function nodeValue(r) {
  switch (r.int(4)) {
    case 0: {
      const rec = {}
      const n = r.int(11)
      for (let i = 0; i < n; i++) {
        const v = r.chance(0.8) ? r.pick([0, 1, 2, 3, 31, 32, 1023, 5n]) : r.pick(NUMBERS())
        Object.defineProperty(rec, r.pick(NODE_NAMES), { value: v, enumerable: true, configurable: true, writable: true })
      }
      return rec
    }
    case 1:
      return r.pick([[], [1, 2], { worker: { x: 1 } }])
    default:
      return r.pick(NUMBERS())
  }
}

const OPTION_KEYS = ['layout', 'node', 'onBackwards', 'on_backwards', 'onExhausted', 'on_exhausted', 'sequenceStart',
  'sequence_start', 'seed', 'fenceMs', 'fence_ms']
const ODD_KEYS = ['nodes', 'Layout', 'on-backwards', 'fence', 'abcdefghijklmnopqrstu', '\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9',
  '\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00x', '\ud800', '0', '__proto__', 'constructor', 'toString', 'type']

function optionValue(r, key) {
  if (r.chance(0.1)) return r.pick(NUMBERS())
  switch (key) {
    case 'layout':
      if (r.chance(0.3)) return asLayout(r.pick([...PRESETS, ...SPECS.slice(0, 9)]))
      return r.pick([...PRESETS, ...SPECS])
    case 'node':
      return nodeValue(r)
    case 'seed':
    case 'fenceMs':
    case 'fence_ms':
      return r.chance(0.7) ? r.pick([0, 1, 42, 1700000000000, 2 ** 53 - 1, 0n, U64_MAX, 123456789012345678n]) : r.pick(NUMBERS())
    default:
      if (key.startsWith('on') || key.startsWith('seq')) return policyText(r, key)
      return r.pick(NUMBERS())
  }
}

/** An abstract options description: [key, value] pairs, materialised per side. */
function optionsSpec(r) {
  if (r.chance(0.03)) return { whole: r.pick([undefined, null, 5, 'x', true, () => 1, [], [5], new Date(0), Symbol('o')]) }
  const pairs = []
  const n = r.int(7)
  for (let i = 0; i < n; i++) {
    const key = r.chance(0.9) ? r.pick(OPTION_KEYS) : r.pick(ODD_KEYS)
    pairs.push([key, optionValue(r, key)])
  }
  if (r.chance(0.7) && !pairs.some(([k]) => k === 'node')) pairs.push(['node', r.pick([0, 1, 5, 31n, 1023])])
  return { pairs }
}

function materialise(spec, side) {
  if ('whole' in spec) return spec.whole
  const o = {}
  for (const [k, v] of spec.pairs) {
    let x = v
    if (v && typeof v === 'object' && 'layoutOf' in v) {
      x = side === 'oracle' ? new oracle.Layout(v.layoutOf) : new Layout(v.layoutOf)
    }
    Object.defineProperty(o, k, { value: x, enumerable: true, configurable: true, writable: true })
  }
  return o
}

test('options objects: the same Config or the same error as new AtomicSnowflake(options)', () => {
  const r = rng(0x5eed0001)
  const counts = {}
  for (let i = 0; i < 20000; i++) {
    const spec = optionsSpec(r)
    const o = attempt(() => new oracle.AtomicSnowflake(materialise(spec, 'oracle')))
    const m = attempt(() => readOptions(materialise(spec, 'mine'), 'options'))
    const what = `case ${i}: ${JSON.stringify(spec, (k, v) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'symbol' || typeof v === 'function' ? String(v) : v))}`
    tally(counts, compare(o, m, what, false))
    if (i % 10 === 0) {
      // The clocked Snowflake reads its options the same way.
      const c = attempt(() => new oracle.Snowflake(materialise(spec, 'oracle')))
      if (m.err) assert.deepEqual(errorShape(c.err), errorShape(m.err), what)
      else if (c.err && o.err) assert.ok(c.err.code === o.err.code || CLOCK_CODES.has(c.err.code), what)
      else if (c.err) assert.ok(CLOCK_CODES.has(c.err.code), `${what}: ${c.err.stack}`)
      else if (m.ok.sequenceStart.kind !== 'random') assert.equal(c.ok.config, o.ok.config, what)
    }
  }
  // Every outcome is exercised, not only errors.
  if (process.env.SHOW_COUNTS) console.log('options', counts)
  assert.ok(counts.ok > 3000 && counts.error > 3000 && counts.generator > 200, JSON.stringify(counts))
})

test('options objects: defaults, key order, spellings and node records', () => {
  const l = new Layout('discord')
  const cases = [
    [undefined, null],
    [{}, null],
    [{ node: 5 }, 'type=snowflake,layout=twitter,node=5,on_backwards=wait:1000,on_exhausted=wait,sequence_start=zero'],
    [{ node: { process: 2, worker: 3 }, layout: l }, 'type=snowflake,layout=discord,node=98,on_backwards=wait:1000,on_exhausted=wait,sequence_start=zero'],
    [{ node: 1, on_backwards: 'fail', onBackwards: 'logical' }, 'type=snowflake,layout=twitter,node=1,on_backwards=logical:1000,on_exhausted=wait,sequence_start=zero'],
    [{ node: 1, seed: 0n, fence_ms: 0, onExhausted: ' borrow ', sequenceStart: 'vibrate:07' },
      'type=snowflake,layout=twitter,node=1,on_backwards=wait:1000,on_exhausted=borrow:16,sequence_start=vibrate:7,fence_ms=0'],
  ]
  // Sub-field names are kept to 15 bytes (core Name::lossy) before they are matched; lone
  // surrogates in keys read as U+FFFD (so the key is not found and its value is absent).
  const long = 'time=41@1ms,workerxxxxxxxxx=4,seq=12,epoch=0'
  for (const node of [{ workerxxxxxxxxxjunk: 3 }, { workerxxxxxxxxx: 3, workerxxxxxxxxxy: 4 }, { workerxxxxxxxxxy: 3, workerxxxxxxxxxz: 4 },
    { ['\ud800']: 3 }, { a: 1, b: 2, ['é'.repeat(9)]: 3 }, { ['é'.repeat(9)]: 1 }, { ['😀'.repeat(5)]: 1 }, { ['x'.repeat(15) + 'é']: 1 }]) {
    for (const layout of [long, 'twitter']) {
      const opts = { layout, node }
      compare(attempt(() => new oracle.AtomicSnowflake(opts)), attempt(() => readOptions(opts, 'options')), JSON.stringify(opts), false)
    }
  }
  for (const [opts, text] of cases) {
    const cfg = readOptions(opts, 'options')
    if (text === null) assert.equal(cfg.node, null)
    else assert.equal(configText(cfg), text)
  }
  const cfg = readOptions({ node: 1, onBackwards: 'ring', onExhausted: 'borrow:3', sequenceStart: 'vibrate', seed: 7, fenceMs: 9 }, 'options')
  assert.deepEqual(cfg.onBackwards, { kind: 'ring', ticks: 256 })
  assert.deepEqual(cfg.onExhausted, { kind: 'borrow', maxTicks: 3n })
  assert.deepEqual(cfg.sequenceStart, { kind: 'vibrate', maxOffset: 1 })
  assert.equal(cfg.seed, 7n)
  assert.equal(cfg.fenceMs, 9n)
  assert.deepEqual(readOptions({ node: 1, onBackwards: 'wait:5' }).onBackwards, { kind: 'wait', maxMs: 5n })
  // The first problem in key order wins; the node is checked after every key is read.
  const e = attempt(() => readOptions({ node: 5000, seed: 'x', onBackwards: 'nope' }, 'options')).err
  assert.equal(e.message, "options.seed must be a bigint or an integer number; received type string ('x')")
  const n = attempt(() => readOptions({ node: 5000, layout: 'twitter' }, 'options')).err
  assert.equal(n.code, 'ERR_OUT_OF_RANGE')
})

// ---- generated config texts ----

const TYPES = ['snowflake', 'snowflake', 'snowflake', 'uuid4', 'uuid7', 'uuid1', 'uuid6', 'segment', 'Snowflake', 'uuid9', '']
const CONFIG_KEYS = ['type', 'layout', 'node', 'on_backwards', 'on_exhausted', 'sequence_start', 'seed', 'fence_ms', 'method',
  'onBackwards', 'nod', 'lease', 'TYPE', '']
const JUNK = ['(', ')', ',', '=', '{', '}', '"', '\\', ':', ' ', '\t', '\n', '\u00a0', '\u0085', '\ufeff', 'é', '😀', '\ud800',
  'x', '0', '9', '\u0000', '\u001f', 'true', 'null', '-', '.', 'e', '[', ']']

function configValue(r, key) {
  switch (key) {
    case 'type':
      return r.pick(TYPES)
    case 'layout':
      return r.pick([...PRESETS, ...SPECS])
    case 'node':
    case 'seed':
    case 'fence_ms':
      if (r.chance(0.7)) return r.pick(['0', '1', '5', '31', '1700000000000', '18446744073709551615'])
      return r.pick(['0', '1', '5', '1023', '1024', '31', '18446744073709551615', '18446744073709551616', '007', 'x', '-1', '1.5', ''])
    case 'method':
      return r.pick(['counter', 'random_increment', 'nope'])
    default:
      return r.chance(0.9) ? policyText(r, key).replace(/[,()]/g, '') : r.pick(['5', 'x', ''])
  }
}

function configEntries(r) {
  const entries = [['type', r.chance(0.85) ? 'snowflake' : r.pick(TYPES)]]
  if (r.chance(0.9)) entries.push(['layout', configValue(r, 'layout')])
  if (r.chance(0.85)) entries.push(['node', r.pick(['0', '1', '5', '31', '1023'])])
  const n = r.int(5)
  for (let i = 0; i < n; i++) {
    const key = r.chance(0.95) ? r.pick(CONFIG_KEYS.slice(3, 8)) : r.pick(CONFIG_KEYS)
    // Mostly each key once (a repeat is an error that hides the rest).
    if (r.chance(0.9) && entries.some(([k]) => k === key)) continue
    entries.push([key, configValue(r, key)])
  }
  // Shuffle a little: the type need not come first.
  if (r.chance(0.3)) entries.reverse()
  return entries
}

const ws = (r) => (r.chance(0.7) ? '' : r.chance(0.97) ? r.pick([' ', '  ', '\t', '\n', '\r\n']) : r.pick([' \u00a0', '\u3000', '\u0085']))

function compactText(r) {
  return configEntries(r)
    .map(([k, v]) => {
      const paren = k === 'layout' ? r.chance(0.85) : r.chance(0.1)
      const val = paren ? `(${ws(r)}${v}${ws(r)})` : v
      return ws(r) + k + ws(r) + '=' + ws(r) + val + ws(r)
    })
    .join(',')
}

function jsonValue(r, v) {
  if (/^[0-9]+$/.test(v) && r.chance(0.6)) return v
  const choice = r.int(20)
  if (choice === 0) return r.pick(['true', 'false', 'null', '-1', '1.5', '1e3', '01', '00', '{}', '[1]', 'nul', 'tru', '1E2', '2.'])
  let s = JSON.stringify(v)
  if (choice === 1) s = s.replace(/[a-z]/, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
  if (choice === 2) s = s.replace(/=/, '\\u003D')
  if (choice === 3) s = s.slice(0, -1) + r.pick(['\\/', '\\n', '\\t', '\\"', '\\\\', '\\ud83d\\ude00', '\\ud800', '\\udc00x', '\\u12', '\\x', '\\uD83D\\uDE00', '\u0001', 'é']) + '"'
  return s
}

function jsonText(r) {
  const parts = configEntries(r).map(([k, v]) => {
    const key = r.chance(0.05) ? JSON.stringify(k).replace(/e/, '\\u0065') : JSON.stringify(k)
    return ws(r) + key + ws(r) + ':' + ws(r) + jsonValue(r, v) + ws(r)
  })
  if (r.chance(0.05)) parts.push(r.pick(['', '"x"', '"type":"snowflake"']))
  return ws(r) + '{' + parts.join(',') + '}' + ws(r)
}

function mutate(r, s) {
  const chars = [...s]
  const n = 1 + r.int(3)
  for (let i = 0; i < n; i++) {
    const at = r.int(chars.length + 1)
    const op = r.int(3)
    if (op === 0) chars.splice(at, 0, r.pick(JUNK))
    else if (op === 1) chars.splice(at, 1)
    else chars.splice(at, 1, r.pick(JUNK))
  }
  return chars.join('')
}

function configTextCase(r) {
  let s = r.chance(0.5) ? compactText(r) : jsonText(r)
  if (r.chance(0.25)) s = mutate(r, s)
  if (r.chance(0.02)) s = r.pick(['', ' ', '{', '{}', '\u00a0{}', '\u00a0', 'type', 'type=', '=x', 'type=snowflake,', ',', '((', 'type=(snowflake'])
  return s
}

test('config texts: the same Config or the same error as AtomicSnowflake.fromConfig(text)', () => {
  const r = rng(0x5eed0002)
  const counts = {}
  for (let i = 0; i < 30000; i++) {
    const text = configTextCase(r)
    const o = attempt(() => oracle.AtomicSnowflake.fromConfig(text))
    const m = attempt(() => parseConfig(text))
    tally(counts, compare(o, m, `case ${i}: ${JSON.stringify(text)}`, true))
    if (process.env.DEBUG_REASONS && o.err) tally(counts, o.err.reason ?? o.err.code)
    if (i % 10 === 0) {
      const c = attempt(() => oracle.Snowflake.fromConfig(text))
      if (o.err) assert.deepEqual(errorShape(c.err), errorShape(o.err), text)
    }
  }
  if (process.env.SHOW_COUNTS) console.log('configs', counts)
  assert.ok(counts.ok > 3000 && counts.error > 5000 && counts.generator > 300, JSON.stringify(counts))
  // Not a string at all.
  for (const v of [undefined, null, 5, 5n, {}, ['type=snowflake'], Symbol('c'), () => 1]) {
    const o = attempt(() => oracle.AtomicSnowflake.fromConfig(v))
    compare(o, attempt(() => parseConfig(v)), String(typeof v), true)
  }
})

test('config texts: byte offsets count UTF-8 bytes, and layout errors are re-based', () => {
  const cases = [
    'type=snowflake,layout=(time=41@1ms,seq=x,epoch=0),node=1',
    'type=snowflake,layout=(  time=41@1ms,seq=x,epoch=0),node=1',
    'type=snowflake,layout=time=41@1ms,node=1',
    'éé=1,type=snowflake',
    '\u00a0type=snowflake,layout=twitter,node=1',
    '\u00a0{"type":"snowflake"}',
    '{"type":"snowflake","layout":"time=41@1ms,seq=x,epoch=0","node":1}',
    '{"type":"snowflake","layout":"time=41@1ms,s\\u0065q=x,epoch=0","node":1}',
    '{"type":"snowflake","layout":"twitter","node":"5","seed":"18446744073709551615"}',
    '{"type":"snowflake","layout":"twitter","node":1,"node":2}',
    '{"😀":"x"}',
    '{"type":"snowflake","layout":"twitter","node":1}x',
    '{"type":"snowflake","layout":"twitter","node":18446744073709551616}',
    '{"type":"uuid7","method":"nope"}',
    'type=uuid7,method=nope',
    'type=snowflake,layout=twitter,node=1,method=counter',
    'type=snowflake,node=1',
    'type=segment',
    'type=snowflake,layout=twitter,node=1,on_backwards=ring:70000',
    '{"type":"snowflake","layout":"\\udfff"}',
    '{"type":"snowflake","layout":"\\udbff\\udfff"}',
    '{"type":"snowflake","layout":"\\ud800\\ue000"}',
    '{"type":"snowflake","layout":"\\u00e9x"}',
    '{"type":"snowflake","layout":"\\uDBFFx"}',
    '{"type":"snowflake","layout":"\\u00"}',
    '{"type":"snowflake","layout":"\\u00é"}',
    '{"type":"snowflake","layout":"\\é"}',
    '{"type":"snowflake","layout":"\\',
    '{"type":"snowflake","layout":"twitter","node":0,"seed":0}',
    '{"type":"snowflake","layout":"twitter","node":00}',
    '{"type":"snowflake","layout":"twitter","node":0.0}',
    '{"type":"snowflake","layout":"twitter","node":1e2}',
    '{"type":"snowflake","layout":"twitter","node":true}',
    '{"type":"snowflake","layout":5,"node":1}',
    '{"type":5}',
    '{ }',
    '{"type":"snowflake",}',
    '{"type" "snowflake"}',
    '{"type":"snowflake"',
    '{"type":"snowflake" ',
    '{"type":',
    '\ufeff{"type":"snowflake"}',
    '\ufefftype=snowflake,layout=twitter,node=1',
    'type=snowflake,layout=twitter,node=1,seed=\ufeff',
    'type=snowflake,layout=\u00a0twitter,node=1',
    'type=snowflake,layout=( twitter\u00a0),node=1,on_backwards=(\u00a0wait:5\u2028)',
    'type=snowflake,layout=(a(b),node=1',
    'type=snowflake,layout=(twitter)x,node=1',
    'type=snowflake,layout=tw)itter,node=1',
    'type=snowflake,layout=(),node=1',
    'type=snowflake , layout = twitter , node = 1 , ',
    'type=snowflake,,layout=twitter',
  ]
  for (const text of cases) {
    compare(attempt(() => oracle.AtomicSnowflake.fromConfig(text)), attempt(() => parseConfig(text)), text, true)
  }
  const e = attempt(() => parseConfig('éé=1,type=snowflake')).err
  assert.equal(e.at, 0)
  assert.equal(attempt(() => parseConfig('type=snowflake,éé=1')).err.at, 15)
  assert.equal(attempt(() => parseConfig('type=snowflake,layout=twitter,nod=5')).err.at, 30)
})

// ---- the shared vectors ----

const camel = (k) => k.replace(/_(.)/g, (_, c) => c.toUpperCase())

function assertVectorError(e, expect, what, generator = false) {
  assert.equal(e.code, expect.error, what)
  // The browser's NodeRequired adds how a page chooses a node to the core's message.
  if (generator) assert.ok(e.message.startsWith(expect.message), what)
  else assert.equal(e.message, expect.message, what)
  for (const [k, v] of Object.entries(expect)) {
    if (k !== 'error' && k !== 'message') assert.equal(String(e[camel(k)]), String(v), `${what}: ${k}`)
  }
}

test('vectors/named.json: the snowflake configs and what Snowflake.fromConfig answers to the invalid ones', () => {
  let n = 0
  for (const c of vectors.configs.filter((c) => c.type === 'snowflake')) {
    assert.equal(configText(parseConfig(c.config)), c.canonical, c.config)
    assert.equal(configText(parseConfig(c.canonical)), c.canonical, c.canonical)
    n++
  }
  for (const c of vectors.configs.filter((c) => c.type !== 'snowflake')) {
    const e = attempt(() => parseConfig(c.config)).err
    assert.match(e.message, /not a snowflake config/, c.config)
    n++
  }
  for (const c of vectors.invalid) {
    const expect = c.expect_snowflake ?? c.expect
    const m = attempt(() => parseConfig(c.config))
    if (m.err) assertVectorError(m.err, expect, c.config)
    else {
      // A generator's refusal (core Packing::new): the same error for the config read.
      const again = attempt(() => oracle.AtomicSnowflake.fromConfig(configText(m.ok)))
      assert.ok(again.err, c.config)
      assertVectorError(again.err, expect, c.config, true)
      assert.ok(PACKING_CODES.has(expect.error), c.config)
    }
    n++
  }
  assert.ok(n >= 40, `${n} vectors`)
})

// ---- setNode's argument ----

test('node arguments: the same node or the same error as setNode', () => {
  const r = rng(0x5eed0003)
  const specs = ['twitter', 'discord', 'sonyflake', 'js53', 'time=41@1ms,seq=12,epoch=0', 'time=41@1ms,a=1,b=1,c=1,d=1,e=1,f=1,seq=12,epoch=0', 'time=41@1ms,workerxxxxxxxxx=4,seq=12,epoch=0']
  const counts = {}
  for (let i = 0; i < 6000; i++) {
    const spec = r.pick(specs)
    const v = nodeValue(r)
    const g = new oracle.AtomicSnowflake({ layout: spec, node: 0 })
    const o = attempt(() => (g.setNode(v), g.node))
    const m = attempt(() => nodeArg(parseLayout(spec), v, 'node'))
    const what = `case ${i}: ${spec} ${String(typeof v === 'object' && v ? JSON.stringify(v, (k, x) => show(x)) : show(v))}`
    if (o.err && m.err) {
      assert.deepEqual(errorShape(m.err), errorShape(o.err), what)
      tally(counts, 'error')
    } else if (o.err) {
      // The generator's range check of a whole node value.
      assert.equal(o.err.code, 'ERR_OUT_OF_RANGE', what)
      assert.equal(o.err.value, m.ok, what)
      tally(counts, 'generator')
    } else {
      assert.ok(!m.err, `${what}: ${m.err?.stack}`)
      assert.equal(m.ok, o.ok, what)
      tally(counts, 'ok')
    }
  }
  if (process.env.SHOW_COUNTS) console.log('nodes', counts)
  assert.ok(counts.ok > 600 && counts.error > 600 && counts.generator > 60, JSON.stringify(counts))
})
