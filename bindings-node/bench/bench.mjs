// Side-by-side benchmark of idmint's Node binding against peers, in one process and one run.
//
//   npm run bench                        # from bindings-node/, after test.sh (or npm ci + build)
//   node --expose-gc bench/bench.mjs --rounds 5 --time 500 --md /tmp/bench.md
//
// Every row times a batch of BATCH calls per sample (so the timer's own ~50 ns is amortised)
// and reports ns per call (per ID for nextIds). The whole set runs ROUNDS times, interleaved,
// and each row's figure is the median over the rounds of tinybench's median sample: ratios
// between rows of one run are what to read on a shared machine. With --expose-gc a full
// collection runs before each row, so one row's garbage (nextIds allocates 800 kB arrays) is not
// collected on another row's time.
import { randomUUID } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

import { Snowflake as SapphireSnowflake } from '@sapphire/snowflake'
import { nanoid } from 'nanoid'
import nodejsSnowflake from 'nodejs-snowflake'
import { Bench } from 'tinybench'
import { typeid as typeidJs } from 'typeid-js'
import { monotonicFactory, ulid as ulidPkg } from 'ulid'
import { v7 as uuidV7 } from 'uuid'
import { uuidv7 } from 'uuidv7'

import m from '../index.js'

// The floor is no export of the package; index.js keeps it under this symbol.
// Called as a method of an object, as the package's functions are, so the floor pays the same
// property lookup as the rows it is compared with.
const floor0 = { _benchFloor: m[Symbol.for('idmint.benchFloor')] }

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    time: { type: 'string', default: '300' },
    md: { type: 'string' },
  },
})
const ROUNDS = Number(args.rounds)
const TIME = Number(args.time)
const BATCH = 1000
const BULK = 100_000

// Twitter layout (4,096 IDs per ms per node). `borrow:1000000000` lets a flat-out benchmark run
// ahead of the clock instead of sleeping at the cap, so the row is the cost of a call — the same
// setting as the core's Rust benchmarks (BENCHMARKS.md).
const ours = new m.Snowflake({ layout: 'twitter', node: 1, onExhausted: 'borrow:1000000000' })
const oursWait = new m.Snowflake({ layout: 'twitter', node: 2 })
const atomic = new m.AtomicSnowflake({ layout: 'twitter', node: 3, onExhausted: 'borrow:1000000000' })
const layout = new m.Layout('twitter')
const sapphire = new SapphireSnowflake(new Date('2010-11-04T01:42:54.657Z'))
const nodejsSf = new nodejsSnowflake.Snowflake({ custom_epoch: 1288834974657, instance_id: 1 })

const ulidMonotonic = monotonicFactory()
const UUID7S = 1000

let sink // keeps results alive so no call is optimised away
const rows = [
  ['floor: _benchFloor() (empty Node-API call returning a bigint)', () => floor0._benchFloor()],
  ['idmint Snowflake.nextId()', () => ours.nextId()],
  ['idmint Snowflake.nextIds(100000), per ID', null],
  ['idmint Snowflake.nextIdString()', () => ours.nextIdString()],
  ['idmint Snowflake.nextId(), wait policy (capped at 4,096/ms)', () => oursWait.nextId()],
  ['idmint AtomicSnowflake.nextIdAt(now) (napi-rs generated method)', () => atomic.nextIdAt(1_700_000_000_000)],
  ['idmint Layout.width getter (napi-rs generated, no work)', () => layout.width],
  ['idmint uuid7()', () => m.uuid7()],
  [`idmint uuid7s(${UUID7S}), per ID`, () => m.uuid7s(UUID7S), UUID7S],
  ["idmint typeid('user')", () => m.typeid('user')],
  ['idmint ulid()', () => m.ulid()],
  ['@sapphire/snowflake generate()', () => sapphire.generate()],
  ['nodejs-snowflake getUniqueID()', () => nodejsSf.getUniqueID()],
  ['uuid v7()', () => uuidV7()],
  ['uuidv7 uuidv7()', () => uuidv7()],
  ['crypto.randomUUID()', () => randomUUID()],
  ["typeid-js typeid('user').toString()", () => typeidJs('user').toString()],
  ['ulid monotonicFactory()()', () => ulidMonotonic()],
  ['ulid ulid()', () => ulidPkg()],
  ['nanoid()', () => nanoid()],
]

function task(name, f, ids) {
  if (ids) {
    // One call of `ids` IDs per sample; reported per ID.
    return [name, () => { sink = f() }, ids]
  }
  if (f === null) {
    // One nextIds(100000) call per sample; reported per ID.
    return [name, () => { sink = ours.nextIds(BULK) }, BULK]
  }
  return [
    name,
    () => {
      for (let i = 0; i < BATCH; i++) sink = f()
    },
    BATCH,
  ]
}

const results = new Map(rows.map(([name]) => [name, []]))
for (let round = 0; round < ROUNDS; round++) {
  const bench = new Bench({ time: TIME, warmupTime: 100 })
  const per = new Map()
  for (const [name, f, ids] of rows) {
    const [n, fn, count] = task(name, f, ids)
    bench.add(n, fn, { beforeAll: () => globalThis.gc?.() })
    per.set(n, count)
  }
  bench.runSync()
  for (const t of bench.tasks) {
    // latency is in ms per sample
    results.get(t.name).push((t.result.latency.p50 * 1e6) / per.get(t.name))
  }
  process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`)
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const ns = new Map([...results].map(([k, v]) => [k, median(v)]))


// Duplicates when minting flat out: one generator, 1,000,000 IDs as fast as it goes (collected
// first, counted after, so the count does not slow the minting down).
function duplicates(f, n = 1_000_000) {
  const ids = new Array(n)
  for (let i = 0; i < n; i++) ids[i] = f()
  return n - new Set(ids).size
}
const dupSapphire = duplicates(() => sapphire.generate())
const dupNodejs = duplicates(() => nodejsSf.getUniqueID())
const dupOurs = duplicates(() => ours.nextId())
const dupOursWait = duplicates(() => oursWait.nextId())

const floor = ns.get(rows[0][0])
const sap = ns.get('@sapphire/snowflake generate()')

// The target ratios, measured in pairs: A and B timed back to back (CALLS calls each, order
// alternating), PAIRS times; the ratio is the median of the per-pair ratios. Noise from other
// processes hits both halves of a pair alike, so these are the figures to judge targets by.
const PAIRS = 41
const CALLS = 20_000
function timeCalls(f, calls) {
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < calls; i++) sink = f()
  return Number(process.hrtime.bigint() - t0) / calls
}
function perIdBulk(reps) {
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < reps; i++) sink = ours.nextIds(BULK)
  return Number(process.hrtime.bigint() - t0) / (reps * BULK)
}
function paired(a, b) {
  const ratios = []
  for (let i = 0; i < PAIRS; i++) {
    globalThis.gc?.()
    let ta, tb
    if (i % 2) {
      ta = a()
      tb = b()
    } else {
      tb = b()
      ta = a()
    }
    ratios.push(tb / ta)
  }
  return median(ratios)
}
const callsOf = (f) => () => timeCalls(f, CALLS)
const pairNextFloor = paired(callsOf(() => floor0._benchFloor()), callsOf(() => ours.nextId()))
const pairSapNext = paired(callsOf(() => ours.nextId()), callsOf(() => sapphire.generate()))
const pairSapBulk = paired(() => perIdBulk(2), callsOf(() => sapphire.generate()))
const pairUuid7 = paired(callsOf(() => m.uuid7()), callsOf(() => randomUUID()))
const pairUuid7s = paired(() => timeCalls(() => m.uuid7s(UUID7S), CALLS / UUID7S) / UUID7S, callsOf(() => randomUUID()))

const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2))
const lines = []
lines.push(`Node ${process.version}, ${process.platform}-${process.arch}; ${ROUNDS} rounds × ${TIME} ms per row; batches of ${BATCH} calls per sample; gc between rows: ${typeof globalThis.gc === 'function' ? 'yes' : 'no (run with --expose-gc)'}.`)
lines.push('')
lines.push('| row | ns per call (median of rounds) | rounds min–max | × floor | @sapphire/snowflake ÷ row |')
lines.push('|---|---|---|---|---|')
for (const [name] of rows) {
  const v = ns.get(name)
  const r = results.get(name)
  lines.push(`| ${name} | **${fmt(v)}** | ${fmt(Math.min(...r))}–${fmt(Math.max(...r))} | ${(v / floor).toFixed(2)} | ${(sap / v).toFixed(2)} |`)
}
lines.push('')
lines.push(`Target ratios, each the median of ${PAIRS} back-to-back pairs of ${CALLS.toLocaleString('en')}-call timings (nextIds: two 100,000-ID calls):`)
lines.push('')
lines.push('| target | paired ratio | met | from the table above |')
lines.push('|---|---|---|---|')
const tNext = ns.get('idmint Snowflake.nextId()')
const tBulk = ns.get('idmint Snowflake.nextIds(100000), per ID')
lines.push(`| \`nextId()\` ≤ 1.3 × floor | ${pairNextFloor.toFixed(2)} × | ${pairNextFloor <= 1.3 ? 'yes' : 'no'} | ${(tNext / floor).toFixed(2)} × |`)
lines.push(`| \`nextId()\` ≥ 1.7 × faster than @sapphire/snowflake | ${pairSapNext.toFixed(2)} × | ${pairSapNext >= 1.7 ? 'yes' : 'no'} | ${(sap / tNext).toFixed(2)} × |`)
lines.push(`| \`nextIds(100000)\` per ID ≥ 10 × faster than @sapphire/snowflake | ${pairSapBulk.toFixed(1)} × | ${pairSapBulk >= 10 ? 'yes' : 'no'} | ${(sap / tBulk).toFixed(1)} × |`)
const tU7 = ns.get('idmint uuid7()')
const tU7s = ns.get(`idmint uuid7s(${UUID7S}), per ID`)
const tRand = ns.get('crypto.randomUUID()')
lines.push(`| \`uuid7()\` faster than \`crypto.randomUUID()\` | ${pairUuid7.toFixed(2)} × | ${pairUuid7 > 1 ? 'yes' : 'no'} | ${(tRand / tU7).toFixed(2)} × |`)
lines.push(`| \`uuid7s(${UUID7S})\` per ID faster than \`crypto.randomUUID()\` | ${pairUuid7s.toFixed(2)} × | ${pairUuid7s > 1 ? 'yes' : 'no'} | ${(tRand / tU7s).toFixed(2)} × |`)
lines.push('')
lines.push('Duplicates among 1,000,000 IDs minted flat out by one generator:')
lines.push('')
lines.push(`- @sapphire/snowflake: **${dupSapphire}** (its 12-bit increment wraps, \`increment + 1n & 4095n\`, with no check of the millisecond: past 4,096 IDs in one ms it repeats IDs)`)
lines.push(`- nodejs-snowflake: **${dupNodejs}**`)
lines.push(`- idmint nextId(), borrow: **${dupOurs}**; wait policy: **${dupOursWait}**`)
const out = lines.join('\n')
console.log(out)
if (args.md) writeFileSync(args.md, `${out}\n`)
void sink
