// Per-call costs in the page's main thread, every case side by side in one run: the cases are
// interleaved round by round, so a slow moment of the machine hits all of them alike. Each
// round of a case runs it for at least ROUND_MS; the result per case is the median of its
// rounds, in ns per call (per ID for batches). Results land in window.results for run.mjs.
import init, { Snowflake, typeid, ulid, uuid4, uuid7 } from '../../pkg/web/idmint.js'
// The WebAssembly build of the core (idmint-web/web/wasm), side by side with the JavaScript entry.
import initWasm, { Snowflake as WasmSnowflake, ulid as wasmUlid, uuid4 as wasmUuid4, uuid7 as wasmUuid7 } from '../../pkg/web/wasm/idmint.js'
import { SapphireSnowflake, uuidV4, uuidV7 } from './.build/peers.js'

// The floors are no exports of the package; the wasm glue keeps them under this symbol.
const { floor: _benchFloor, floorClock: _benchFloorClock, floorDate: _benchFloorDate, floorPrecise: _benchFloorPrecise } =
  WasmSnowflake[Symbol.for('idmint.bench')]

const params = new URLSearchParams(location.search)
const ROUNDS = Number(params.get('rounds') ?? 15)
const ROUND_MS = Number(params.get('roundMs') ?? 40)

await init()
await initWasm()

// Twitter layout, node 1. `borrow:1000000000` lets the generator run ahead of the clock instead
// of waiting when a millisecond's 4,096 IDs are used up (as the Rust benchmarks do), so the
// numbers are the cost of a call, not the layout's cap; the `wait` row shows the cap.
const borrow = new Snowflake({ layout: 'twitter', node: 1, onExhausted: 'borrow:1000000000' })
const capped = new Snowflake({ layout: 'twitter', node: 1 })
const batch = new Snowflake({ layout: 'twitter', node: 1, onExhausted: 'borrow:1000000000' })
const wasmBorrow = new WasmSnowflake({ layout: 'twitter', node: 1, onExhausted: 'borrow:1000000000' })
const wasmCapped = new WasmSnowflake({ layout: 'twitter', node: 1 })
const wasmBatch = new WasmSnowflake({ layout: 'twitter', node: 1, onExhausted: 'borrow:1000000000' })
const sapphire = new SapphireSnowflake(1288834974657n)

let sink = 0n
let sinkStr = ''
const CASES = [
  ['floor: _benchFloor() (empty export returning a BigInt)', 1, () => { sink ^= _benchFloor() }],
  ['floor + Date.now(): _benchFloorDate() (one time-source read)', 1, () => { sink ^= _benchFloorDate() }],
  ['floor + clock as generators read it: _benchFloorClock()', 1, () => { sink ^= _benchFloorClock() }],
  ['floor + performance.now(): _benchFloorPrecise()', 1, () => { sink ^= _benchFloorPrecise() }],
  ['JS only: Date.now()', 1, () => { sink ^= BigInt(Date.now() & 1) }],
  ['JS only: performance.now()', 1, () => { sink ^= BigInt(performance.now() & 1) }],
  ['idmint-web Snowflake.nextId() (borrow)', 1, () => { sink ^= borrow.nextId() }],
  ['idmint-web Snowflake.nextId() (wait: 4,096/ms cap)', 1, () => { sink ^= capped.nextId() }],
  ['idmint-web Snowflake.nextIdString() (borrow)', 1, () => { sinkStr = borrow.nextIdString() }],
  ['idmint-web Snowflake.nextIds(100000), per ID', 100_000, () => { sink ^= batch.nextIds(100_000)[99_999] }],
  ['idmint-web/wasm Snowflake.nextId() (borrow)', 1, () => { sink ^= wasmBorrow.nextId() }],
  ['idmint-web/wasm Snowflake.nextId() (wait: 4,096/ms cap)', 1, () => { sink ^= wasmCapped.nextId() }],
  ['idmint-web/wasm Snowflake.nextIdString() (borrow)', 1, () => { sinkStr = wasmBorrow.nextIdString() }],
  ['idmint-web/wasm Snowflake.nextIds(100000), per ID', 100_000, () => { sink ^= wasmBatch.nextIds(100_000)[99_999] }],
  ['JS only: new BigUint64Array(100000).fill(1n), per element (fresh memory)', 100_000, () => { sink ^= new BigUint64Array(100_000).fill(1n)[99_999] }],
  ['@sapphire/snowflake generate()', 1, () => { sink ^= sapphire.generate() }],
  ['idmint-web uuid4()', 1, () => { sinkStr = uuid4() }],
  ['idmint-web/wasm uuid4()', 1, () => { sinkStr = wasmUuid4() }],
  ['uuid v4()', 1, () => { sinkStr = uuidV4() }],
  ['crypto.randomUUID()', 1, () => { sinkStr = crypto.randomUUID() }],
  ['idmint-web uuid7()', 1, () => { sinkStr = uuid7() }],
  ['idmint-web/wasm uuid7()', 1, () => { sinkStr = wasmUuid7() }],
  ['uuid v7()', 1, () => { sinkStr = uuidV7() }],
  ['idmint-web ulid()', 1, () => { sinkStr = ulid() }],
  ['idmint-web/wasm ulid()', 1, () => { sinkStr = wasmUlid() }],
  ['idmint-web typeid("user")', 1, () => { sinkStr = typeid('user') }],
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

const samples = CASES.map(() => [])
for (const [, , f] of CASES) round(f) // warm-up: JIT tiers, wasm tiering
for (let r = 0; r < ROUNDS; r++) {
  for (const [i, [, per, f]] of CASES.entries()) samples[i].push(round(f) / per)
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
window.results = {
  userAgent: navigator.userAgent,
  crossOriginIsolated,
  rounds: ROUNDS,
  roundMs: ROUND_MS,
  cases: CASES.map(([name], i) => ({ name, ns: median(samples[i]), min: Math.min(...samples[i]), max: Math.max(...samples[i]) })),
  sink: String(sink) + sinkStr.length,
}
document.getElementById('out').textContent = JSON.stringify(window.results, null, 2)
