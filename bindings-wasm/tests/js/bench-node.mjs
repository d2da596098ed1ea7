// Times Snowflake.nextId() of the JavaScript entry against @sapphire/snowflake and the oracle
// (the WebAssembly builds: full entry and Snowflake-only entry) in one Node process, the cases
// interleaved round by round as in tests/bench/bench.mjs, so a slow moment hits all alike. Each
// round runs a case for at least ROUND_MS; a case's result is the median of its rounds.
// A benchmark, not a test: it prints numbers and asserts nothing about them.
//
//   node tests/js/bench-node.mjs [--module PATH] [--rounds N] [--round-ms MS] [--json]
//
// --module: any ES or CommonJS module exporting `Snowflake` (default ../../js/snowflake.js next
// to this file; a relative PATH is taken from the current directory). Needs `npm ci` (the peer)
// and the wasm build in pkg/ (scripts/build.sh) for the oracle rows.
import { createRequire } from 'node:module'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

import { Snowflake as SapphireSnowflake } from '@sapphire/snowflake'

import { PageClock, benchFloors } from '../../js/clock.js'

const { values: opts } = parseArgs({
  options: {
    module: { type: 'string' },
    rounds: { type: 'string', default: '15' },
    'round-ms': { type: 'string', default: '40' },
    json: { type: 'boolean', default: false },
  },
})
const ROUNDS = Number(opts.rounds)
const ROUND_MS = Number(opts['round-ms'])

const require = createRequire(import.meta.url)
const modulePath = opts.module ? resolve(opts.module) : fileURLToPath(new URL('../../js/snowflake.js', import.meta.url))
if (!existsSync(modulePath)) {
  console.error(`${modulePath} does not exist (yet): give --module PATH, a module exporting Snowflake`)
  process.exit(2)
}
const mod = await import(pathToFileURL(modulePath).href)
const JsSnowflake = mod.Snowflake ?? mod.default?.Snowflake
if (typeof JsSnowflake !== 'function') {
  console.error(`${modulePath} exports no Snowflake class`)
  process.exit(2)
}
const oracle = require('../../pkg/node/idmint.js')
const oracleEntry = require('../../pkg/node/snowflake/idmint.js')

// Twitter layout, node 1, as the page benchmark: `borrow` lets the generator run ahead of the
// clock when a millisecond's 4,096 IDs are used up, so the rows are the cost of a call, not the
// layout's cap; the `wait` rows show the cap.
const BORROW = { layout: 'twitter', node: 1, onExhausted: 'borrow:1000000000' }
const CAPPED = { layout: 'twitter', node: 1 }
const js = new JsSnowflake(BORROW)
const jsCapped = new JsSnowflake(CAPPED)
const wasm = new oracle.Snowflake(BORROW)
const wasmEntry = new oracleEntry.Snowflake(BORROW)
const wasmEntryCapped = new oracleEntry.Snowflake(CAPPED)
const sapphire = new SapphireSnowflake(1288834974657n)

// The floors: the module's own if its glue keeps them under the symbol, else the clock's.
const ownFloors = JsSnowflake[Symbol.for('idmint.bench')]
const floors = ownFloors ?? benchFloors(new PageClock())
const F = ownFloors ? 'module' : 'clock.js'
const wasmFloors = oracle.Snowflake[Symbol.for('idmint.bench')]

let sink = 0n
const JS_ROW = 'JS Snowflake.nextId() (borrow)'
const SAPPHIRE_ROW = '@sapphire/snowflake generate()'
const ENTRY_ROW = 'wasm idmint-web/snowflake Snowflake.nextId() (borrow)'
const CASES = [
  [`floor (${F}): floor()`, () => { sink ^= floors.floor() }],
  [`floor + Date.now() (${F}): floorDate()`, () => { sink ^= floors.floorDate() }],
  [`floor + clock as generators read it (${F}): floorClock()`, () => { sink ^= floors.floorClock() }],
  [`floor + performance.now() (${F}): floorPrecise()`, () => { sink ^= floors.floorPrecise() }],
  ['floor + clock as generators read it (wasm): _benchFloorClock()', () => { sink ^= wasmFloors.floorClock() }],
  [JS_ROW, () => { sink ^= js.nextId() }],
  ['JS Snowflake.nextId() (wait: 4,096/ms cap)', () => { sink ^= jsCapped.nextId() }],
  [ENTRY_ROW, () => { sink ^= wasmEntry.nextId() }],
  ['wasm idmint-web/snowflake Snowflake.nextId() (wait: 4,096/ms cap)', () => { sink ^= wasmEntryCapped.nextId() }],
  ['wasm idmint-web Snowflake.nextId() (borrow)', () => { sink ^= wasm.nextId() }],
  [SAPPHIRE_ROW, () => { sink ^= sapphire.generate() }],
]

/** Calls `f` in blocks until ROUND_MS passed; ns per call. */
function round(f) {
  let calls = 0
  const start = performance.now()
  let now = start
  let block = 64
  while (now - start < ROUND_MS) {
    for (let i = 0; i < block; i++) f()
    calls += block
    block = Math.min(block * 2, 65_536)
    now = performance.now()
  }
  return ((now - start) * 1e6) / calls
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

const samples = CASES.map(() => [])
for (const [, f] of CASES) round(f) // warm-up: JIT tiers, wasm tiering
for (let r = 0; r < ROUNDS; r++) {
  for (const [i, [, f]] of CASES.entries()) samples[i].push(round(f))
}
const results = CASES.map(([name], i) => ({ name, ns: median(samples[i]), min: Math.min(...samples[i]), max: Math.max(...samples[i]) }))
const ns = Object.fromEntries(results.map((c) => [c.name, c.ns]))

if (opts.json) {
  console.log(JSON.stringify({ node: process.version, module: modulePath, rounds: ROUNDS, roundMs: ROUND_MS, cases: results, sink: String(sink) }, null, 2))
} else {
  console.log(`Node ${process.version}, module ${modulePath}`)
  console.log(`${ROUNDS} rounds of >= ${ROUND_MS} ms per case, median ns per call (min-max over rounds)\n`)
  console.log('| case | ns/call | min-max | × @sapphire/snowflake | × wasm snowflake entry |')
  console.log('|---|---:|---:|---:|---:|')
  for (const c of results) {
    console.log(`| ${c.name} | ${c.ns.toFixed(1)} | ${c.min.toFixed(1)}-${c.max.toFixed(1)} | ${(c.ns / ns[SAPPHIRE_ROW]).toFixed(3)} | ${(c.ns / ns[ENTRY_ROW]).toFixed(3)} |`)
  }
  console.log(`\n${JS_ROW}: ${(ns[SAPPHIRE_ROW] / ns[JS_ROW]).toFixed(2)}x the speed of @sapphire/snowflake (target >= 2x), ${(ns[ENTRY_ROW] / ns[JS_ROW]).toFixed(2)}x the wasm entry's`)
  if (sink === -1n) console.log('') // keeps the results alive
}
for (const g of [js, jsCapped]) g.free?.()
for (const g of [wasm, wasmEntry, wasmEntryCapped]) g.free()
