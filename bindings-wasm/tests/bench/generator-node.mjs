// Node benchmark of the JavaScript Snowflake (js/generator.js with the page clock of js/clock.js)
// against @sapphire/snowflake's generate() and the WebAssembly builds (Snowflake entry, full), in one process,
// rounds interleaved so that load on the machine hits every case alike. The acceptance bar:
// nextId() (borrow, as the browser benchmark page runs it) at least 2x faster than generate().
//
//   node tests/bench/generator-node.mjs            (ROUNDS=n, ROUND_MS=n)
import { createRequire } from 'node:module'
import { Snowflake } from '../../js/generator.js'

const require = createRequire(import.meta.url)
const { Snowflake: SapphireSnowflake } = require('@sapphire/snowflake')
const wasmEntry = require('../../pkg/node/snowflake/idmint.js')
const oracle = require('../../pkg/node/idmint.js')

const ROUNDS = Number(process.env.ROUNDS ?? 21)
const ROUND_MS = Number(process.env.ROUND_MS ?? 50)

const borrow = new Snowflake({ layout: 'twitter', node: 1, onExhausted: 'borrow:1000000000' })
const capped = new Snowflake({ layout: 'twitter', node: 1 })
const wasm = new wasmEntry.Snowflake({ layout: 'twitter', node: 1, onExhausted: 'borrow:1000000000' })
const full = new oracle.Snowflake({ layout: 'twitter', node: 1, onExhausted: 'borrow:1000000000' })
const sapphire = new SapphireSnowflake(1288834974657n)
let sink = 0n
const CASES = [
  ['JS Snowflake.nextId() (borrow)', 1, () => { sink ^= borrow.nextId() }],
  ['JS Snowflake.nextId() (wait: 4,096/ms cap)', 1, () => { sink ^= capped.nextId() }],
  ['JS Snowflake.nextIdString() (borrow)', 1, () => { sink ^= BigInt(borrow.nextIdString().length) }],
  ['JS Snowflake.nextIds(100000), per ID', 100_000, () => { sink ^= borrow.nextIds(100_000)[99_999] }],
  ['@sapphire/snowflake generate()', 1, () => { sink ^= sapphire.generate() }],
  ['wasm snowflake entry nextId() (borrow)', 1, () => { sink ^= wasm.nextId() }],
  ['wasm full entry (the oracle) nextId() (borrow)', 1, () => { sink ^= full.nextId() }],
]

/** ns per ID of `f` (which mints `per` IDs) over one round. */
function round(f, per) {
  const block = per > 1 ? 1 : 1000
  let ids = 0
  const start = performance.now()
  let now = start
  while (now - start < ROUND_MS) {
    for (let i = 0; i < block; i++) f()
    ids += block * per
    now = performance.now()
  }
  return ((now - start) * 1e6) / ids
}

const results = CASES.map(() => [])
for (let r = 0; r < ROUNDS; r++) CASES.forEach(([, per, f], i) => results[i].push(round(f, per)))
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
CASES.forEach(([name], i) => console.log(`${name.padEnd(44)} ${median(results[i]).toFixed(1).padStart(7)} ns`))
const ratios = results[0].map((x, i) => results[4][i] / x)
console.log(`generate() / nextId() per round: median ${median(ratios).toFixed(2)}x, lowest ${Math.min(...ratios).toFixed(2)}x`)
if (sink === -1n) console.log('')
