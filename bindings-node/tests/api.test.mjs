// The JavaScript API beyond the vectors: BigInt edges, every argument's bad inputs, error
// shapes, batches, JSON-safe forms. Runs against any implementation (see support/impl.mjs).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import m, { implUrl, isAddon, lacks } from './support/impl.mjs'
import { throwsCode } from './support/check.mjs'

const U63 = 2n ** 63n - 1n
const U64 = 2n ** 64n - 1n
const FULL = 'time=44@1ms,shard=8,seq=12,epoch=0' // 64 bits: max ID 2^64-1

/** Bad values for a 64-bit integer argument, with what each must throw. */
const BAD_U64 = [
  ['abc', TypeError, 'ERR_INVALID_ARG_TYPE'],
  [null, TypeError, 'ERR_INVALID_ARG_TYPE'],
  [undefined, TypeError, 'ERR_INVALID_ARG_TYPE'],
  [{}, TypeError, 'ERR_INVALID_ARG_TYPE'],
  [[1], TypeError, 'ERR_INVALID_ARG_TYPE'],
  [true, TypeError, 'ERR_INVALID_ARG_TYPE'],
  [Symbol('x'), TypeError, 'ERR_INVALID_ARG_TYPE'],
  [() => 1, TypeError, 'ERR_INVALID_ARG_TYPE'],
  [-1, RangeError, 'ERR_OUT_OF_RANGE'],
  [-1n, RangeError, 'ERR_OUT_OF_RANGE'],
  [-(2n ** 70n), RangeError, 'ERR_OUT_OF_RANGE'],
  [1.5, RangeError, 'ERR_OUT_OF_RANGE'],
  [NaN, RangeError, 'ERR_OUT_OF_RANGE'],
  [Infinity, RangeError, 'ERR_OUT_OF_RANGE'],
  [-Infinity, RangeError, 'ERR_OUT_OF_RANGE'],
  [2 ** 53, RangeError, 'ERR_OUT_OF_RANGE'], // not a safe integer: pass a bigint
  [2n ** 64n, RangeError, 'ERR_OUT_OF_RANGE'],
  [2n ** 200n, RangeError, 'ERR_OUT_OF_RANGE'],
]

/** Bad values for an ID argument, which also takes decimal strings. */
const BAD_ID = [
  ...BAD_U64.filter(([v]) => typeof v !== 'string'),
  ['abc', Error, 'ERR_INVALID_ENCODING'],
  ['12a', Error, 'ERR_INVALID_ENCODING'],
  ['-1', Error, 'ERR_INVALID_ENCODING'],
  ['1.5', Error, 'ERR_INVALID_ENCODING'],
  ['', Error, 'ERR_INVALID_ENCODING'],
  [' 1', Error, 'ERR_INVALID_ENCODING'],
  ['18446744073709551616', Error, 'ERR_INVALID_ENCODING'],
  ['١٢', Error, 'ERR_INVALID_ENCODING'], // Arabic-Indic digits are not decimal digits here
]

/** Bad values for a string argument. */
const BAD_STRING = [
  [5, TypeError, 'ERR_INVALID_ARG_TYPE'],
  [5n, TypeError, 'ERR_INVALID_ARG_TYPE'],
  [null, TypeError, 'ERR_INVALID_ARG_TYPE'],
  [undefined, TypeError, 'ERR_INVALID_ARG_TYPE'],
  [{}, TypeError, 'ERR_INVALID_ARG_TYPE'],
  [['twitter'], TypeError, 'ERR_INVALID_ARG_TYPE'],
]

function each(cases, call, what) {
  for (const [v, cls, code] of cases) {
    const shown = typeof v === 'bigint' ? `${v}n` : typeof v === 'symbol' ? 'Symbol' : JSON.stringify(v) ?? String(v)
    throwsCode(() => call(v), cls, code, `${what}(${shown})`)
  }
}

const gen = () => new m.Snowflake({ layout: 'twitter', node: 1 })

describe('exports', () => {
  test('no internal or benchmark-only name', async () => {
    // Names starting with `_` are the bindings' own plumbing (benchmark floors, a per-ID
    // method's parked error, the lease window): module-local, or kept under a symbol.
    assert.deepEqual(Object.keys(m).filter((k) => k.startsWith('_')), [])
    const raw = await import(implUrl)
    assert.deepEqual(Object.keys(raw).filter((k) => k.startsWith('_')), [])
    if (raw.default && typeof raw.default === 'object') {
      assert.deepEqual(Object.keys(raw.default).filter((k) => k.startsWith('_')), [])
    }
  })
})

describe('BigInt round trips at the 2^63-1 and 2^64-1 edges', () => {
  test('compose and decompose', { skip: lacks('Layout', 'Snowflake', 'AtomicSnowflake') }, () => {
    const full = new m.Layout(FULL)
    assert.equal(full.width, 64)
    assert.equal(full.maxId, U64)
    const max = { time: full.maxTime, node: full.maxNode, sequence: full.maxSequence }
    assert.equal(full.compose(max), U64)
    const p = full.decompose(U64)
    assert.deepEqual([p.time, p.node, p.sequence, p.rollback], [full.maxTime, full.maxNode, full.maxSequence, 0])
    assert.equal(full.decompose('18446744073709551615').time, full.maxTime)
    assert.equal(full.compose(full.decompose(U64 - 1n)), U64 - 1n)
    assert.equal(full.compose(full.decompose(2n ** 63n)), 2n ** 63n)

    const tw = new m.Layout('twitter')
    assert.equal(tw.maxId, U63)
    assert.equal(tw.compose(tw.decompose(U63)), U63)
    const e = throwsCode(() => tw.decompose(2n ** 63n), RangeError, 'ERR_OUT_OF_RANGE', 'above maxId')
    assert.equal(e.field, 'id')
    assert.equal(e.value, 2n ** 63n)
    assert.equal(e.max, U63)
    throwsCode(() => tw.decompose(U64), RangeError, 'ERR_OUT_OF_RANGE', 'u64 max on a 63-bit layout')
  })

  test('codecs', { skip: lacks('encode', 'parseId') }, () => {
    for (const id of [0n, 1n, U63 - 1n, U63, 2n ** 63n, U64 - 1n, U64]) {
      for (const codec of ['decimal', 'hex', 'base32', 'base62']) {
        const s = m.encode(id, codec)
        assert.equal(m.parseId(s, codec), id, `${codec} ${id}`)
        // Automatic decoding reads every codec's text back (hex carries its 0x), but all-digit
        // text is always read as decimal.
        if (codec === 'decimal' || !/^[0-9]+$/.test(s)) assert.equal(m.parseId(s), id, `auto ${s}`)
      }
    }
    assert.equal(m.encode(U64), '18446744073709551615')
    assert.equal(m.encode(U64, 'hex'), '0xffffffffffffffff')
    assert.equal(m.encode(U63, 'hex'), '0x7fffffffffffffff')
    assert.equal(m.parseId('7fffffffffffffff', 'hex'), U63)
    // Bare hex without a codec: refused at its first character, saying how to read it.
    const bare = throwsCode(() => m.parseId('1d83a82428800000'), Error, 'ERR_INVALID_ENCODING', 'bare hex')
    assert.equal(bare.at, 0)
    assert.match(bare.message, /0x prefix/)
    assert.equal(m.encode(2 ** 53 - 1), '9007199254740991') // the largest safe number is accepted
  })

  test('obfuscation over the full 64 bits', { skip: lacks('Obfuscator', 'SortableObfuscator') }, () => {
    const ob = new m.Obfuscator(2n ** 128n - 1n, 64)
    assert.equal(ob.max, U64)
    for (const x of [0n, U63, 2n ** 63n, U64]) assert.equal(ob.decode(ob.encode(x)), x)
    const s = new m.SortableObfuscator(1n, 'twitter')
    assert.equal(s.decode(s.encode(U63)), U63)
    throwsCode(() => s.encode(2n ** 63n), RangeError, 'ERR_OUT_OF_RANGE', 'sortable above maxId')
  })

  test('node values and epochs as bigints', { skip: lacks('Layout', 'Snowflake', 'AtomicSnowflake') }, () => {
    const wide = new m.Layout('time=2@1ms,node=60,seq=2,epoch=18446744073709551000')
    assert.equal(wide.maxNode, 2n ** 60n - 1n)
    assert.equal(wide.epochMs, 18446744073709551000n)
    const id = wide.compose({ node: 2n ** 60n - 1n })
    assert.equal(wide.decompose(id).node, 2n ** 60n - 1n)
    assert.ok(Number.isNaN(wide.epoch.getTime()), 'an epoch past JavaScript Date range is an Invalid Date')
  })
})

describe('Layout', { skip: lacks('Layout', 'Snowflake', 'AtomicSnowflake') }, () => {
  test('construction, presets and text', () => {
    assert.deepEqual(m.Layout.presets(), ['twitter', 'discord', 'instagram', 'sonyflake', 'baidu', 'shardingsphere', 'leaf', 'js53'])
    const l = m.Layout.parse('twitter')
    assert.ok(l.equals(new m.Layout(l.spec)))
    assert.ok(l.equals(l.spec), 'a preset equals its own spec')
    assert.ok(!l.equals('leaf'), 'leaf splits the node differently')
    assert.equal(m.Layout.preset('js53').isJsSafe, true)
    throwsCode(() => m.Layout.preset('time=41@1ms,seq=12,epoch=0'), Error, 'ERR_INVALID_LAYOUT', 'preset() takes names only')
    assert.equal(JSON.stringify({ l }), JSON.stringify({ l: l.spec }))
    assert.equal(`${l}`, l.spec)
    assert.deepEqual(l.nodeNames, ['datacenter', 'worker'])
    assert.equal(l.nodeBits, 10)
  })

  test('dates', () => {
    const l = new m.Layout('twitter')
    assert.ok(l.lifetimeEnd instanceof Date)
    assert.equal(l.lifetimeEnd.getTime(), Number(l.lifetimeEndMs))
    assert.equal(l.lifetimeEnd.toISOString(), '2080-07-10T17:30:30.209Z')
    assert.equal(l.epoch.toISOString(), '2010-11-04T01:42:54.657Z')
    const id = l.compose({ time: 1000n })
    assert.equal(l.timestamp(id).getTime(), Number(l.timestampMs(id)))
    assert.equal(l.timestampMs(id), l.epochMs + 1000n)
    assert.equal(l.tickStartMs(1000), l.epochMs + 1000n)
    assert.equal(l.isExpiredAt(l.lifetimeEndMs), true)
    assert.equal(l.isExpiredAt(l.lifetimeEndMs - 1n), false)
  })

  test('node sub-fields by name', () => {
    const l = new m.Layout('twitter')
    assert.equal(l.joinNode({ datacenter: 1, worker: 2n }), 34n)
    assert.deepEqual(l.splitNode(34), { datacenter: 1n, worker: 2n })
    assert.equal(l.compose({ node: { datacenter: 1, worker: 2 } }), 34n << 12n)
    const missing = throwsCode(() => l.joinNode({ worker: 2 }), TypeError, 'ERR_INVALID_ARGUMENT', 'missing sub-field')
    // The core's fields, and `name` stays the class's: String(e) reads "TypeError: ...".
    assert.equal(missing.argument, 'datacenter')
    assert.equal(missing.reason, 'is a node sub-field of the layout and missing')
    assert.equal(missing.name, 'TypeError')
    assert.ok(String(missing).startsWith('TypeError: invalid argument `datacenter`'))
    throwsCode(() => l.joinNode({ datacenter: 1, worker: 2, rack: 3 }), TypeError, 'ERR_INVALID_ARGUMENT', 'unknown sub-field')
    throwsCode(() => l.joinNode({ datacenter: 32, worker: 0 }), RangeError, 'ERR_OUT_OF_RANGE', 'sub-field too large')
    const big = throwsCode(() => l.splitNode(1024), RangeError, 'ERR_OUT_OF_RANGE', 'node too large')
    assert.deepEqual([big.field, big.value, big.max], ['node', 1024n, 1023n])
  })

  test('bad arguments', () => {
    const l = new m.Layout('twitter')
    each(BAD_STRING, (v) => new m.Layout(v), 'new Layout')
    each(BAD_STRING, (v) => m.Layout.parse(v), 'Layout.parse')
    throwsCode(() => new m.Layout('twitter,'), Error, 'ERR_INVALID_LAYOUT', 'bad spec')
    throwsCode(() => new m.Layout('time=41@1ms,worker=10,seq=x,epoch=0'), Error, 'ERR_INVALID_LAYOUT', 'bad bits')
    each(BAD_ID, (v) => l.decompose(v), 'decompose')
    each(BAD_ID, (v) => l.timestampMs(v), 'timestampMs')
    each(BAD_U64, (v) => l.tickAt(v), 'tickAt')
    each(BAD_U64, (v) => l.isExpiredAt(v), 'isExpiredAt')
    each(BAD_U64, (v) => l.splitNode(v), 'splitNode')
    for (const k of ['time', 'sequence', 'rollback']) {
      each(BAD_U64.filter(([v]) => v !== undefined && v !== null), (v) => l.compose({ [k]: v }), `compose({${k}})`)
    }
    each([['x', TypeError, 'ERR_INVALID_ARG_TYPE'], [-1, RangeError, 'ERR_OUT_OF_RANGE']], (v) => l.compose({ node: v }), 'compose({node})')
    each([[5, TypeError, 'ERR_INVALID_ARG_TYPE'], [null, TypeError, 'ERR_INVALID_ARG_TYPE']], (v) => l.compose(v), 'compose')
    throwsCode(() => l.compose({ tyme: 1 }), TypeError, 'ERR_INVALID_ARGUMENT', 'unknown key')
    throwsCode(() => l.compose({ sequence: 4096 }), RangeError, 'ERR_OUT_OF_RANGE', 'sequence too large')
    throwsCode(() => l.compose({ rollback: 1 }), RangeError, 'ERR_OUT_OF_RANGE', 'no rollback field')
    each([[5, TypeError, 'ERR_INVALID_ARG_TYPE'], [{}, TypeError, 'ERR_INVALID_ARG_TYPE']], (v) => l.equals(v), 'equals')
  })
})

describe('Snowflake', { skip: lacks('Layout', 'Snowflake', 'AtomicSnowflake') }, () => {
  test('mints unique, increasing bigints and decodes them', () => {
    const g = gen()
    let prev = -1n
    for (let i = 0; i < 10_000; i++) {
      const id = g.nextId()
      assert.equal(typeof id, 'bigint')
      assert.ok(id > prev)
      prev = id
    }
    const p = g.decode(prev)
    assert.equal(p.node, 1n)
    assert.deepEqual(p.nodeFields, { datacenter: 0n, worker: 1n })
    assert.ok(Math.abs(Number(p.timestampMs) - Date.now()) < 60_000)
    assert.deepEqual(g.decode(prev.toString()), p)
    assert.equal(typeof g.tryNextId(), 'bigint')
  })

  test('nextIds(n) fills a BigUint64Array', () => {
    const g = gen()
    const ids = g.nextIds(100_000)
    assert.ok(ids instanceof BigUint64Array)
    assert.equal(ids.length, 100_000)
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1], `at ${i}`)
    assert.ok(g.nextId() > ids[ids.length - 1])
    assert.equal(g.nextIds(0).length, 0)
    each(
      [
        ['5', TypeError, 'ERR_INVALID_ARG_TYPE'],
        [undefined, TypeError, 'ERR_INVALID_ARG_TYPE'],
        [-1, RangeError, 'ERR_OUT_OF_RANGE'],
        [1.5, RangeError, 'ERR_OUT_OF_RANGE'],
        [NaN, RangeError, 'ERR_OUT_OF_RANGE'],
        [2 ** 24 + 1, RangeError, 'ERR_LIMIT_EXCEEDED'],
        [2 ** 29, RangeError, 'ERR_LIMIT_EXCEEDED'],
        [2n ** 64n, RangeError, 'ERR_OUT_OF_RANGE'],
      ],
      (v) => g.nextIds(v),
      'nextIds'
    )
  })

  test('reserve', () => {
    const g = gen()
    const r = g.reserve(10)
    assert.equal(typeof r.first, 'bigint')
    assert.ok(r.count >= 1 && r.count <= 10)
    assert.equal(r.stride, 1n)
    throwsCode(() => g.reserve(0), Error, 'ERR_INVALID_CONFIG', 'reserve(0)')
    each(BAD_U64, (v) => g.reserve(v), 'reserve')
  })

  test('string and number forms', () => {
    const g = gen()
    const s = g.nextIdString()
    assert.match(s, /^[1-9][0-9]*$/)
    assert.ok(BigInt(s) < g.nextId())
    // JSON: bigints do not serialise; the string form does, and decodes back.
    assert.throws(() => JSON.stringify({ id: g.nextId() }), TypeError)
    const json = JSON.stringify({ id: g.nextIdString() })
    const back = BigInt(JSON.parse(json).id)
    assert.equal(g.decode(JSON.parse(json).id).time, g.decode(back).time)

    const e = throwsCode(() => g.nextIdNumber(), RangeError, 'ERR_NOT_JS_SAFE', 'nextIdNumber on twitter')
    assert.equal(e.width, 63)
    const safe = new m.Snowflake({ layout: 'js53', node: 3 })
    const n = safe.nextIdNumber()
    assert.equal(typeof n, 'number')
    assert.ok(Number.isSafeInteger(n))
    assert.equal(safe.decode(n).node, 3n)
    assert.ok(BigInt(n) < safe.nextId())
  })

  test('sans-IO nextIdAt and WouldBlock', () => {
    const g = new m.Snowflake({ layout: 'time=41@1ms,worker=10,seq=2,epoch=2020-01-01', node: 5, onBackwards: 'fail' })
    const t = 1_700_000_000_000
    for (let i = 0; i < 4; i++) g.nextIdAt(t)
    const e = throwsCode(() => g.nextIdAt(BigInt(t)), Error, 'ERR_WOULD_BLOCK', 'exhausted tick')
    assert.equal(e.untilMs, BigInt(t + 1))
    assert.equal(e.message, `would block until ${t + 1} ms`)
    const back = throwsCode(() => g.nextIdAt(t - 10), Error, 'ERR_CLOCK_BACKWARDS', 'clock behind')
    assert.equal(back.byMs, 10n)
    assert.equal(back.lastMs, BigInt(t))
    assert.deepEqual(g.stats(), { rollbacks: 1n, waitMs: 1n, maxAheadMs: 0n, exhaustions: 1n })
    each(BAD_U64, (v) => g.nextIdAt(v), 'nextIdAt')
  })

  test('policies that fail are errors with codes', () => {
    const g = new m.AtomicSnowflake({ layout: 'time=41@1ms,worker=10,seq=2,epoch=2020-01-01', node: 1, onExhausted: 'fail' })
    for (let i = 0; i < 4; i++) g.nextIdAt(1_700_000_000_000)
    const e = throwsCode(() => g.nextIdAt(1_700_000_000_000), Error, 'ERR_SEQUENCE_EXHAUSTED', 'fail policy')
    assert.equal(e.tickMs, 1_700_000_000_000n)
    const expired = new m.AtomicSnowflake({ layout: 'baidu', node: 0 })
    const x = throwsCode(() => expired.nextIdAt(Date.now()), Error, 'ERR_LAYOUT_EXPIRED', 'baidu')
    assert.equal(x.endMs, 1_732_137_856_000n)
    throwsCode(() => new m.Snowflake({ layout: 'baidu', node: 0 }), Error, 'ERR_LAYOUT_EXPIRED', 'clocked baidu')
    throwsCode(() => new m.Snowflake({ layout: 'time=41@1ms,seq=12,epoch=2999-01-01', node: 0 }), Error, 'ERR_BEFORE_EPOCH', 'future epoch')
  })

  test('nodes', () => {
    const g = gen()
    assert.equal(g.node, 1n)
    g.setNode({ datacenter: 2, worker: 3 })
    assert.equal(g.node, 67n)
    assert.deepEqual(g.decode(g.nextId()).nodeFields, { datacenter: 2n, worker: 3n })
    g.setNode(5n)
    assert.equal(g.decode(g.nextId()).node, 5n)
    throwsCode(() => g.setNode(1024), RangeError, 'ERR_OUT_OF_RANGE', 'setNode too large')
    each(BAD_U64.filter(([v]) => typeof v !== 'object' || v === null), (v) => g.setNode(v), 'setNode')
    throwsCode(() => new m.Snowflake({ node: { datacenter: 1 } }), TypeError, 'ERR_INVALID_ARGUMENT', 'missing sub-field')
  })

  test('options', () => {
    const g = new m.Snowflake({
      layout: new m.Layout('sonyflake'),
      node: 7,
      onBackwards: 'logical:500',
      onExhausted: 'borrow',
      sequenceStart: 'vibrate',
      seed: 42n,
      fenceMs: 1_700_000_000_000,
    })
    assert.equal(g.config, 'type=snowflake,layout=sonyflake,node=7,on_backwards=logical:500,on_exhausted=borrow:16,sequence_start=vibrate:1,seed=42,fence_ms=1700000000000')
    assert.equal(g.layout.presetName, 'sonyflake')
    // No node, no generator (see defaults.test.mjs); node 0 on purpose is fine.
    assert.equal(new m.Snowflake({ node: 0 }).config, 'type=snowflake,layout=twitter,node=0,on_backwards=wait:1000,on_exhausted=wait,sequence_start=zero')
    throwsCode(() => new m.Snowflake(null), Error, 'ERR_NODE_REQUIRED', 'null options')
    throwsCode(() => new m.Snowflake({ layout: undefined, node: null }), Error, 'ERR_NODE_REQUIRED', 'node: null')

    each([[5, TypeError, 'ERR_INVALID_ARG_TYPE'], ['twitter', TypeError, 'ERR_INVALID_ARG_TYPE'], [true, TypeError, 'ERR_INVALID_ARG_TYPE']], (v) => new m.Snowflake(v), 'new Snowflake')
    const misspelt = throwsCode(() => new m.Snowflake({ nodes: 1 }), TypeError, 'ERR_INVALID_ARGUMENT', 'misspelt option')
    // The keys are listed as JavaScript spells them (the README's camelCase), not snake_case.
    assert.equal(misspelt.message, 'invalid argument `nodes`: is not an option (layout, node, onBackwards, onExhausted, sequenceStart, seed, fenceMs)')
    assert.equal(misspelt.argument, 'nodes')
    each([[5, TypeError, 'ERR_INVALID_ARG_TYPE'], [{}, TypeError, 'ERR_INVALID_ARG_TYPE'], [gen(), TypeError, 'ERR_INVALID_ARG_TYPE'], ['nope', Error, 'ERR_INVALID_LAYOUT']], (v) => new m.Snowflake({ layout: v }), 'options.layout')
    each(BAD_U64.filter(([v]) => v !== undefined && v !== null && typeof v !== 'object'), (v) => new m.Snowflake({ node: v }), 'options.node')
    for (const key of ['onBackwards', 'onExhausted', 'sequenceStart']) {
      each([[5, TypeError, 'ERR_INVALID_ARG_TYPE'], [{}, TypeError, 'ERR_INVALID_ARG_TYPE'], ['nope', Error, 'ERR_INVALID_CONFIG']], (v) => new m.Snowflake({ [key]: v }), `options.${key}`)
    }
    each(BAD_U64.filter(([v]) => v !== undefined && v !== null), (v) => new m.Snowflake({ seed: v }), 'options.seed')
    each(BAD_U64.filter(([v]) => v !== undefined && v !== null), (v) => new m.Snowflake({ fenceMs: v }), 'options.fenceMs')
    throwsCode(() => new m.Snowflake({ onBackwards: 'rollback_counter' }), Error, 'ERR_INVALID_CONFIG', 'rollback_counter without a rollback field')
  })

  test('a method called on another object throws a TypeError', () => {
    const g = gen()
    for (const name of ['nextId', 'nextIdString', 'nextIdNumber', 'tryNextId', 'nextIds', 'decode', 'stats']) {
      assert.throws(() => m.Snowflake.prototype[name].call({}, 1), TypeError, name)
      assert.throws(() => m.Snowflake.prototype[name].call(new m.Layout('twitter'), 1), TypeError, name)
    }
    // A detached method still mints from its own generator.
    const next = g.nextId
    assert.equal(g.decode(next()).node, 1n)
  })

  test('a JavaScript subclass keeps its overrides', () => {
    class Tagged extends m.Snowflake {
      nextId() {
        return `id-${super.nextId()}`
      }
    }
    const t = new Tagged({ node: 9 })
    assert.match(t.nextId(), /^id-\d+$/)
    assert.equal(t.decode(BigInt(t.nextId().slice(3))).node, 9n)
    assert.equal(typeof t.nextIdString(), 'string')
  })

  test('Snowflake.fromConfig and AtomicSnowflake.fromConfig', () => {
    const g = m.Snowflake.fromConfig('type=snowflake,layout=twitter,node=5')
    assert.ok(g instanceof m.Snowflake)
    assert.equal(g.decode(g.nextId()).node, 5n)
    throwsCode(() => m.Snowflake.fromConfig('type=uuid7'), Error, 'ERR_INVALID_CONFIG', 'not a snowflake')
    throwsCode(() => m.AtomicSnowflake.fromConfig('type=uuid4'), Error, 'ERR_INVALID_CONFIG', 'not a snowflake')
    // The same answers as every surface: the core decides which types a front door takes.
    assert.match(throwsCode(() => m.Snowflake.fromConfig('type=uuid7'), Error, 'ERR_INVALID_CONFIG').message, /not a snowflake config/)
    const bad = throwsCode(() => m.Snowflake.fromConfig('type=snowflake,layout=twitter,nod=5'), Error, 'ERR_INVALID_LAYOUT', 'typo')
    assert.equal(bad.at, 30)
    each(BAD_STRING, (v) => m.Snowflake.fromConfig(v), 'Snowflake.fromConfig')
  })

  test('fromConfig, UuidGenerator.fromConfig and NamedGenerator', { skip: lacks('fromConfig', 'UuidGenerator', 'NamedGenerator') }, () => {
    const any = m.fromConfig('{"type":"snowflake","layout":"leaf","node":6}')
    assert.ok(any instanceof m.Snowflake)
    assert.equal(any.node, 6n)
    assert.ok(m.fromConfig('type=uuid7') instanceof m.UuidGenerator)
    throwsCode(() => m.UuidGenerator.fromConfig('type=snowflake,layout=twitter,node=1'), Error, 'ERR_INVALID_CONFIG', 'not a uuid')
    const bad = throwsCode(() => m.fromConfig('type=snowflake,layout=twitter,nod=5'), Error, 'ERR_INVALID_LAYOUT', 'typo')
    assert.equal(bad.at, 30)
    each(BAD_STRING, (v) => m.fromConfig(v), 'fromConfig')
    each(BAD_STRING, (v) => new m.NamedGenerator(v), 'new NamedGenerator')
  })
})

describe('AtomicSnowflake', { skip: lacks('Layout', 'Snowflake', 'AtomicSnowflake') }, () => {
  test('batches at a given time', () => {
    const g = new m.AtomicSnowflake({ layout: 'twitter', node: 2 })
    const ids = g.nextIdsAt(1_700_000_000_000, 5000)
    assert.equal(ids.length, 4096, 'one tick holds 4096; the rest would wait')
    assert.equal(new Set(ids).size, 4096)
    const r = g.reserveAt(1_700_000_000_001, 100)
    assert.deepEqual([r.count, r.stride], [100, 1n])
    assert.equal(g.layout.presetName, 'twitter')
    assert.equal(g.maxRollbackTicks, null)
    each(BAD_U64, (v) => g.nextIdsAt(v, 1), 'nextIdsAt nowMs')
    each([['1', TypeError, 'ERR_INVALID_ARG_TYPE'], [-1, RangeError, 'ERR_OUT_OF_RANGE']], (v) => g.nextIdsAt(1_700_000_000_002, v), 'nextIdsAt n')
    each(BAD_U64, (v) => g.reserveAt(1_700_000_000_002, v), 'reserveAt max')
    each(BAD_ID, (v) => g.decode(v), 'decode')
  })
})

describe('codecs', { skip: lacks('encode', 'parseId') }, () => {
  test('bad arguments', () => {
    each(BAD_U64, (v) => m.encode(v), 'encode')
    each(BAD_U64, (v) => m.encode(v, 'hex'), 'encode hex')
    throwsCode(() => m.encode(1n, 'base64'), Error, 'ERR_INVALID_CONFIG', 'unknown codec')
    each(BAD_STRING.filter(([v]) => v !== undefined && v !== null), (v) => m.encode(1n, v), 'encode codec')
    each(BAD_STRING, (v) => m.parseId(v), 'parseId')
    each(BAD_STRING.filter(([v]) => v !== undefined && v !== null), (v) => m.parseId('1', v), 'parseId codec')
    const e = throwsCode(() => m.parseId('0000000000U0Z', 'base32'), Error, 'ERR_INVALID_ENCODING', 'base32 U')
    assert.equal(e.codec, 'base32')
    assert.equal(e.at, 10)
    assert.equal(typeof e.reason, 'string')
    assert.equal(m.parseId('0x2A', 'auto'), 42n)
    assert.equal(m.parseId('0x2A', 'AUTO'), 42n) // as a codec's name: ASCII case-insensitive, on every surface
  })
})

describe('parseAny', { skip: lacks('parseAny') }, () => {
  test('bad arguments, and the kind narrows the value', () => {
    each(BAD_STRING, (v) => m.parseAny(v), 'parseAny')
    each(BAD_STRING.filter(([v]) => v !== undefined && v !== null), (v) => m.parseAny('1', v), 'parseAny codec')
    throwsCode(() => m.parseAny('12', 'base64'), Error, 'ERR_INVALID_CONFIG', 'unknown codec')
    const e = throwsCode(() => m.parseAny('01ARZ3NDEKTSV4RRFFQ69G5FAU'), Error, 'ERR_INVALID_ENCODING', 'ULID U')
    assert.deepEqual([e.codec, e.at], ['ulid', 25])
    assert.deepEqual(m.parseAny('0x2A', 'auto'), { kind: 'snowflake', value: 42n, unixMs: null })
    assert.deepEqual(m.parseAny('2a', 'hex'), m.parseAny('42', null))
    const u = m.uuid7()
    assert.deepEqual(m.parseAny(u.toUpperCase()), { kind: 'uuid', value: u, unixMs: m.uuidInfo(u).unixMs })
  })
})

describe('obfuscation', { skip: lacks('Obfuscator', 'SortableObfuscator') }, () => {
  test('keys and bad arguments', () => {
    const key = new Uint8Array(16).fill(7)
    const fromBytes = new m.Obfuscator(key, 20)
    const fromBig = new m.Obfuscator(BigInt(`0x${'07'.repeat(16)}`), 20)
    assert.equal(fromBytes.encode(12345), fromBig.encode(12345))
    assert.equal(new m.Obfuscator(5, 8).encode(1), new m.Obfuscator(5n, 8).encode(1))
    assert.equal(m.Obfuscator.forLayout(1n, 'sonyflake').bits, 63)
    each(
      [
        [-1n, RangeError, 'ERR_OUT_OF_RANGE'],
        [2n ** 128n, RangeError, 'ERR_OUT_OF_RANGE'],
        [1.5, RangeError, 'ERR_OUT_OF_RANGE'],
        [new Uint8Array(15), RangeError, 'ERR_OUT_OF_RANGE'],
        [new Uint16Array(8), TypeError, 'ERR_INVALID_ARG_TYPE'],
        ['key', TypeError, 'ERR_INVALID_ARG_TYPE'],
        [null, TypeError, 'ERR_INVALID_ARG_TYPE'],
      ],
      (v) => new m.Obfuscator(v, 16),
      'Obfuscator key'
    )
    each(
      [
        ['16', TypeError, 'ERR_INVALID_ARG_TYPE'],
        [-1, RangeError, 'ERR_OUT_OF_RANGE'],
        [256, RangeError, 'ERR_OUT_OF_RANGE'],
        [65, Error, 'ERR_INVALID_CONFIG'],
        [1, Error, 'ERR_INVALID_CONFIG'],
      ],
      (v) => new m.Obfuscator(1n, v),
      'Obfuscator bits'
    )
    const ob = new m.Obfuscator(1n, 16)
    each(BAD_U64, (v) => ob.encode(v), 'encode')
    each(BAD_U64, (v) => ob.decode(v), 'decode')
    throwsCode(() => ob.encode(65536), RangeError, 'ERR_OUT_OF_RANGE', 'outside the domain')
    each([[5, TypeError, 'ERR_INVALID_ARG_TYPE'], ['nope', Error, 'ERR_INVALID_LAYOUT']], (v) => new m.SortableObfuscator(1n, v), 'SortableObfuscator layout')
    const so = new m.SortableObfuscator(1n, new m.Layout('twitter'))
    assert.equal(so.lowBits, 22)
    each(BAD_U64, (v) => so.encode(v), 'sortable encode')
  })
})

describe('UUIDs', { skip: lacks('uuid1', 'uuid4', 'uuid5', 'uuid7', 'UuidGenerator', 'Uuid7Generator') }, () => {
  test('clocked helpers', () => {
    const re = /^[0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
    for (const [f, v] of [[m.uuid1, '1'], [m.uuid4, '4'], [m.uuid7, '7']]) {
      const u = f()
      assert.equal(re.exec(u)?.[1], v, u)
    }
    const a = Array.from({ length: 10_000 }, () => m.uuid7())
    for (let i = 1; i < a.length; i++) assert.ok(a[i] > a[i - 1], 'uuid7 is monotonic')
    const info = m.uuidInfo(a[0])
    assert.equal(info.version, 7)
    assert.ok(Math.abs(Number(info.unixMs) - Date.now()) < 60_000)
    const ones = new Set(Array.from({ length: 10_000 }, () => m.uuid1()))
    assert.equal(ones.size, 10_000, 'uuid1 is unique')
    assert.equal(m.uuidInfo(m.uuid4()).unixMs, null)
  })

  test('generators', { skip: lacks('NamedGenerator') }, () => {
    for (const v of [1, 4, 7]) {
      const g = new m.UuidGenerator(v)
      assert.equal(g.version, v)
      assert.equal(g.kind, `uuid${v}`)
      assert.equal(g.config, `type=uuid${v}`)
      assert.equal(m.uuidInfo(g.next()).version, v)
    }
    assert.equal(new m.UuidGenerator().version, 7)
    each([[5, Error, 'ERR_INVALID_CONFIG'], [256, Error, 'ERR_INVALID_CONFIG'], ['7', TypeError, 'ERR_INVALID_ARG_TYPE'], [-1, RangeError, 'ERR_OUT_OF_RANGE']], (v) => new m.UuidGenerator(v), 'UuidGenerator version')
    const g = new m.UuidGenerator(7)
    throwsCode(() => g.nextAt(1, () => new Uint8Array(9)), RangeError, 'ERR_OUT_OF_RANGE', 'random too short')
    throwsCode(() => g.nextAt(1, () => 'xx'), TypeError, 'ERR_INVALID_ARG_TYPE', 'random not bytes')
    throwsCode(() => g.nextAt(1, 5), TypeError, 'ERR_INVALID_ARG_TYPE', 'random not a function')
    const boom = new Error('boom')
    assert.throws(() => g.nextAt(1, () => { throw boom }), (e) => e === boom, 'the callback error passes through')
    each(BAD_U64, (v) => g.nextAt(v), 'nextAt nowMs')
    // Still usable after all that.
    assert.equal(m.uuidInfo(g.nextAt(1_700_000_000_000)).unixMs, 1_700_000_000_000n)
    // The random callback runs with the generator neither locked nor borrowed (the core's
    // draw_outside), so it may call the same generator again: the inner call comes first, the
    // outer one follows it, and nothing waits for itself. Both classes, every UUID version.
    const T = 1_700_000_000_000
    for (const make of [(v) => new m.UuidGenerator(v), (v) => new m.NamedGenerator(`type=uuid${v}`)]) {
      for (const v of [1, 4, 6, 7]) {
        const r = make(v)
        const inner = []
        const outer = r.nextAt(T, (n) => {
          inner.push(r.nextAt(T, (k) => new Uint8Array(k).fill(3)))
          return new Uint8Array(n).fill(5)
        })
        assert.equal(inner.length, 1, `${r.constructor.name} v${v}: the inner call ran`)
        assert.notEqual(outer, inner[0], `${r.constructor.name} v${v}`)
        if (v !== 4) assert.ok(outer > inner[0], `${r.constructor.name} v${v}: the outer call follows`)
        assert.equal(m.uuidInfo(outer).version, v)
      }
    }
    if (isAddon) {
      // Node's NamedGenerator can be closed: from inside its own callback too, and the outer
      // call then throws ERR_CLOSED instead of minting from a closed generator.
      const g = new m.NamedGenerator('type=uuid7')
      throwsCode(() => g.nextAt(T, (n) => (g.close(), new Uint8Array(n))), Error, 'ERR_CLOSED', 'closed by its callback')
      assert.equal(g.closed, true)
      throwsCode(() => g.nextId(), Error, 'ERR_CLOSED', 'after close')
    }
    const r = new m.UuidGenerator(7)
    const seen = r.nextAt(T, (n) => (r.next(), new Uint8Array(n)))
    assert.ok(r.nextAt(T - 1000, (n) => new Uint8Array(n)) > seen, 'a clock behind keeps the order')
    assert.throws(() => r.nextAt(T, () => { throw boom }), (e) => e === boom)
    assert.equal(m.uuidInfo(r.next()).version, 7)
    const g1 = new m.UuidGenerator(1)
    assert.throws(() => g1.nextAt(1, () => { throw boom }), (e) => e === boom)
    assert.equal(g1.lastUnixMs, null, 'a failed call changes nothing')
    const sizes = []
    const once = (n) => (sizes.push(n), new Uint8Array(n).fill(2))
    const first = g1.nextAt(1, once)
    assert.notEqual(g1.nextAt(1, once), first)
    assert.deepEqual(sizes, [8], 'v1 draws 8 bytes on its first call only')
    assert.equal(g1.lastUnixMs, 1n)
  })

  test('bad arguments', () => {
    each(BAD_STRING, (v) => m.uuid5(v, 'x'), 'uuid5 namespace')
    throwsCode(() => m.uuid5('nope', 'x'), Error, 'ERR_INVALID_ENCODING', 'bad namespace')
    each([[5, TypeError, 'ERR_INVALID_ARG_TYPE'], [null, TypeError, 'ERR_INVALID_ARG_TYPE']], (v) => m.uuid3('dns', v), 'uuid3 name')
    assert.equal(m.uuid5('dns', new TextEncoder().encode('python.org')), m.uuid5('dns', 'python.org'))
    each([[new Uint8Array(15), RangeError, 'ERR_OUT_OF_RANGE'], ['x', TypeError, 'ERR_INVALID_ARG_TYPE'], [[1, 2], TypeError, 'ERR_INVALID_ARG_TYPE']], (v) => m.uuid4(v), 'uuid4 random')
    each(BAD_U64, (v) => m.uuid7At(v, new Uint8Array(10)), 'uuid7At unixMs')
    each([[new Uint8Array(11), RangeError, 'ERR_OUT_OF_RANGE'], [undefined, TypeError, 'ERR_INVALID_ARG_TYPE']], (v) => m.uuid7At(1, v), 'uuid7At random')
    each([[65536, RangeError, 'ERR_OUT_OF_RANGE'], ['1', TypeError, 'ERR_INVALID_ARG_TYPE']], (v) => m.uuid1At(0, v, new Uint8Array(6)), 'uuid1At clockSeq')
    each([[new Uint8Array(5), RangeError, 'ERR_OUT_OF_RANGE']], (v) => m.uuid1At(0, 0, v), 'uuid1At node')
    each(BAD_U64, (v) => m.uuid1RandomNode(v, 0, 0, new Uint8Array(6)), 'uuid1RandomNode unixMs')
    each(BAD_STRING, (v) => m.parseUuid(v), 'parseUuid')
    each(BAD_STRING, (v) => m.uuidInfo(v), 'uuidInfo')
    const e = throwsCode(() => m.uuidInfo('not-a-uuid'), Error, 'ERR_INVALID_ENCODING', 'uuidInfo text')
    assert.equal(e.codec, 'uuid')
  })
})

/** Each call throws an Error with an ERR_ code, a message and a stack. */
function errorsWithCodes(cases) {
  for (const f of cases) {
    try {
      f()
      assert.fail('should throw')
    } catch (e) {
      assert.ok(e instanceof Error)
      assert.match(e.code, /^ERR_[A-Z_]+$/)
      assert.ok(e.message.length > 0)
      assert.ok(typeof e.stack === 'string')
    }
  }
}

test('errors are Error objects with a stable code', { skip: lacks('Layout', 'Snowflake', 'AtomicSnowflake') }, () => {
  errorsWithCodes([() => new m.Layout(''), () => new m.Snowflake({ node: 5000 })])
})

test('errors of the codecs are Error objects with a stable code', { skip: lacks('encode', 'parseId') }, () => {
  errorsWithCodes([() => m.parseId('!'), () => m.encode(-1), () => m.encode('1')])
})

test('version', () => {
  assert.match(m.version(), /^\d+\.\d+\.\d+/)
})

describe('a replaced crypto.getRandomValues', { skip: lacks('Uuid7Generator', 'UuidGenerator', 'NamedGenerator', 'uuid7', 'uuid4') }, () => {
  // Page code may replace crypto.getRandomValues with a function of its own that calls back
  // into the package (the browser package draws from it; the Node addon from the OS, where the
  // replacement is never called). The package must not be in the middle of a generator or of
  // its random pool when that happens: each nested call works, and so does the outer one.
  test('may call back into the package', () => {
    const c = globalThis.crypto
    const original = c.getRandomValues
    const inner = []
    let depth = 0
    let grown = 0
    // Objects the outer calls use too: the nested call must find them free.
    const shared7 = new m.Uuid7Generator()
    const sharedGen = new m.UuidGenerator(7)
    const sharedNamed = new m.NamedGenerator('type=uuid4')
    Object.defineProperty(c, 'getRandomValues', {
      configurable: true,
      writable: true,
      value(buf) {
        if (depth === 0) {
          depth++
          try {
            inner.push(m.uuid1(), m.uuid4(), m.uuid6(), m.uuid7(), m.ulid(), m.typeid('user'))
            const g = new m.UuidGenerator(7)
            inner.push(g.next(), g.next(), shared7.next(), sharedGen.next(), sharedNamed.nextAt(Date.now()))
            // A nested call that grows the module's memory: the outer call's buffer must
            // still be filled (a view of the memory taken before would now be detached).
            if (grown++ === 0) m.uuid7s(1 << 18)
          } finally {
            depth--
          }
        }
        return original.call(c, buf)
      },
    })
    const outer = []
    try {
      for (let i = 0; i < 300; i++) {
        outer.push(m.uuid1(), m.uuid4(), m.uuid6(), m.uuid7(), m.ulid(), shared7.next(), sharedGen.next(), sharedNamed.nextAt(Date.now()))
        if (i % 50 === 0) outer.push(new m.UuidGenerator(4).next(), m.uuid7s(3).join())
      }
    } finally {
      delete c.getRandomValues
    }
    assert.equal(c.getRandomValues, original, 'the replacement is gone')
    const all = [...inner, ...outer]
    assert.equal(new Set(all).size, all.length, 'no UUID or ULID twice')
    const zeros = all.filter((u) => /^00000000-0000-4000-8000-000000000000$/.test(u))
    assert.deepEqual(zeros, [], 'random bytes were drawn, not left as zeros')
    // The browser package draws from Web Crypto: the replacement must have been called.
    if (!isAddon) assert.ok(inner.length >= 11 && inner.length % 11 === 0, 'the nested calls all ran')
    else assert.equal(inner.length, 0, 'the addon draws from the OS')
  })
})

describe('formats: v6, v7 batches, v8, TypeID, ULID', { skip: lacks('uuid6', 'uuid7s', 'uuid8', 'typeid', 'ulid', 'UuidGenerator', 'Uuid7Generator') }, () => {
  test('uuid6() increases; UuidGenerator(6)', () => {
    const a = m.uuid6()
    const b = m.uuid6()
    assert.ok(b > a)
    assert.equal(m.uuidInfo(a).version, 6)
    assert.equal(m.uuid1ToUuid6(m.uuid6ToUuid1(a)), a)
    const g = new m.UuidGenerator(6)
    const x = g.next()
    assert.ok(g.next() > x)
    assert.equal(g.version, 6)
    assert.equal(g.config, 'type=uuid6')
    assert.equal(typeof g.lastUnixMs, 'bigint')
  })

  test('UuidGenerator of each RFC 9562 v7 method, by config', { skip: lacks('fromConfig') }, () => {
    for (const method of ['counter', 'random_increment', 'sub_millisecond']) {
      const g = m.fromConfig(`type=uuid7,method=${method}`)
      assert.ok(g instanceof m.UuidGenerator)
      assert.equal(g.config, method === 'counter' ? 'type=uuid7' : `type=uuid7,method=${method}`)
      const ids = Array.from({ length: 3000 }, () => g.next())
      assert.deepEqual([...ids].sort(), ids)
      assert.equal(new Set(ids).size, ids.length)
      assert.ok(ids.every((u) => m.uuidInfo(u).version === 7))
    }
    const e = throwsCode(() => m.fromConfig('type=uuid4,method=counter'), Error, 'ERR_INVALID_LAYOUT', 'method on uuid4')
    assert.match(e.message, /applies to type uuid7 only/)
  })

  test('uuid7s(n): increasing, after and before uuid7()', () => {
    const before = m.uuid7()
    const batch = m.uuid7s(1000)
    assert.equal(batch.length, 1000)
    assert.ok(batch[0] > before)
    for (let i = 1; i < batch.length; i++) assert.ok(batch[i] > batch[i - 1])
    assert.ok(m.uuid7() > batch[999])
    assert.deepEqual(m.uuid7s(0), [])
    assert.equal(m.uuid7s(3n).length, 3)
    // Past 2^20 (the Node package's chunk, one string each): still one increasing array.
    const big = m.uuid7s((1 << 20) + 3)
    assert.equal(big.length, (1 << 20) + 3)
    for (const i of [1, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, (1 << 20) + 2]) assert.ok(big[i] > big[i - 1], `at ${i}`)
    assert.equal(new Set(big).size, big.length)
    throwsCode(() => m.uuid7s(-1), RangeError, 'ERR_OUT_OF_RANGE')
    assert.throws(() => m.uuid7s(2 ** 24 + 1), { code: 'ERR_LIMIT_EXCEEDED' })
  })

  test('Uuid7Generator: every method increases; bad method names throw', () => {
    for (const method of ['counter', 'random_increment', 'sub_millisecond']) {
      const g = new m.Uuid7Generator(method)
      let last = g.next()
      for (let i = 0; i < 500; i++) {
        const u = g.next()
        assert.ok(u > last, method)
        last = u
      }
      assert.equal(m.uuidInfo(last).version, 7)
      assert.equal(typeof g.lastUnixMs, 'bigint')
    }
    assert.equal(new m.Uuid7Generator().method, 'counter')
    assert.throws(() => new m.Uuid7Generator('fast'), { code: 'ERR_INVALID_CONFIG' })
    assert.throws(() => new m.Uuid7Generator().nextAt(1, new Uint8Array(9)), RangeError)
  })

  test('uuid8 and its fields', () => {
    const u = m.uuid8(new Uint8Array(16).fill(0xff))
    assert.equal(u, 'ffffffff-ffff-8fff-bfff-ffffffffffff')
    assert.deepEqual(m.uuid8Fields(u), { customA: 0xffffffffffffn, customB: 0xfff, customC: (1n << 62n) - 1n })
    assert.throws(() => m.uuid8FromFields(0, 70000, 0), { code: 'ERR_OUT_OF_RANGE', field: 'custom_b', value: 70000n })
    assert.throws(() => m.uuid8(new Uint8Array(15)), RangeError)
  })

  test('typeid(prefix) round-trips and increases; bad prefixes throw', () => {
    const a = m.typeid('user')
    const b = m.typeid('user')
    assert.match(a, /^user_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
    assert.ok(b > a)
    const p = m.parseTypeId(a)
    assert.equal(p.prefix, 'user')
    assert.equal(m.uuidInfo(p.uuid).version, 7)
    assert.equal(m.typeidFromUuid('user', p.uuid), a)
    assert.equal(m.typeid('').length, 26)
    assert.throws(() => m.typeid('User'), { code: 'ERR_INVALID_ENCODING', codec: 'typeid', at: 0 })
    assert.throws(() => m.typeid(5), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' })
    assert.throws(() => m.typeid(), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' })
    assert.throws(() => m.typeid('a'.repeat(64)), { code: 'ERR_INVALID_ENCODING', at: 63 })
    assert.throws(() => m.typeid('a_'), { code: 'ERR_INVALID_ENCODING', at: 1 })
    // The longest prefix fits the text: 63 + 1 + 26 characters.
    assert.equal(m.typeid('z'.repeat(63)).length, 90)
  })

  test('ulid() round-trips and increases', () => {
    const a = m.ulid()
    const b = m.ulid()
    assert.match(a, /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/)
    assert.ok(b > a)
    const p = m.parseUlid(a)
    assert.equal(p.ulid, a)
    assert.ok(p.timestampMs > 1_700_000_000_000n)
    assert.equal(m.ulidFromUuid(p.uuid), a)
    assert.equal(m.ulidAt(p.timestampMs, new Uint8Array(10)).slice(0, 10), a.slice(0, 10))
    assert.throws(() => m.ulidAt(2n ** 48n, new Uint8Array(10)), { code: 'ERR_OUT_OF_RANGE' })
    assert.throws(() => m.parseUlid('x'), { code: 'ERR_INVALID_ENCODING', codec: 'ulid' })
  })
})

// The browser package: every entry, whichever of these classes it has.
test('free(): later calls are ERR_CLOSED, a second free() does nothing', { skip: isAddon ? 'the native addon has no free(): its objects go with the garbage collector' : false }, () => {
  const made = [
    ['Layout', () => new m.Layout('twitter'), (o) => o.maxNode],
    ['Snowflake', () => new m.Snowflake({ node: 1 }), (o) => o.decode(1n)],
    ['UuidGenerator', () => new m.UuidGenerator(7), (o) => o.next()],
  ].filter(([name]) => name in m)
  assert.ok(made.length > 0)
  for (const [name, make, use] of made) {
    const o = make()
    use(o)
    o.free()
    o.free()
    const e = throwsCode(() => use(o), Error, 'ERR_CLOSED', name)
    assert.equal(e.message, `${name} is closed`)
    assert.equal(e.what, name)
  }
  if ('Snowflake' in m) {
    // A generator's own per-ID methods, detached before free(), too.
    const g = new m.Snowflake({ node: 1 })
    const next = g.nextId
    const string = g.nextIdString
    next()
    g.free()
    for (const f of [next, string, () => g.nextIdNumber(), () => g.tryNextId()]) throwsCode(f, Error, 'ERR_CLOSED', 'Snowflake is closed')
  }
})
