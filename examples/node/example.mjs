// idmint from Node.js: mint IDs, decode them, keep them exact in JSON, and mint in
// worker_threads — each worker with its own node.
//
//   npm install ./bindings-node        # once, from the repository root (builds the addon)
//   node examples/node/example.mjs     # or: cd examples/node && npm install && npm start
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'

import { Layout, Snowflake, encode, uuid7 } from 'idmint'

const LAYOUT = 'twitter' // 41-bit ms time, 5-bit datacenter, 5-bit worker, 12-bit sequence

if (isMainThread) {
  await main()
} else {
  // A worker: its own generator, with the node the main thread gave it. Generators are never
  // shared between threads or processes, and nothing stops two of them from minting the same
  // IDs if they have the same node — so every worker gets a distinct one.
  const gen = new Snowflake({ layout: LAYOUT, node: workerData.node })
  const ids = gen.nextIds(workerData.count) // a BigUint64Array, filled in Rust
  parentPort.postMessage(ids, [ids.buffer])
}

async function main() {
  // 1. Mint and decode. The node is given by sub-field: datacenter 1, worker 0.
  const gen = new Snowflake({ layout: LAYOUT, node: { datacenter: 1, worker: 0 } })
  const id = gen.nextId() // a bigint: 63-bit IDs do not fit a JavaScript number
  const parts = gen.decode(id)
  console.log(`id ${id}`)
  console.log(`  minted at ${new Date(Number(parts.timestampMs)).toISOString()}`)
  console.log(`  node ${parts.node} = ${JSON.stringify(parts.nodeFields, (_, v) => (typeof v === 'bigint' ? Number(v) : v))}, sequence ${parts.sequence}`)
  console.log(`  base32 ${encode(id, 'base32')}  base62 ${encode(id, 'base62')}  hex ${encode(id, 'hex')}`)

  // 2. JSON: JSON.stringify refuses bigints, and a number would lose digits past 2^53. Send IDs
  //    as decimal strings and read them back with BigInt (or give the string to decode()).
  const order = { id: gen.nextIdString(), item: 'book', qty: 2 }
  const json = JSON.stringify(order)
  const back = JSON.parse(json)
  console.log(`JSON ${json}`)
  console.log(`  back to bigint ${BigInt(back.id)}; decoded time ${gen.decode(back.id).timestampMs} ms`)
  console.log(`  as a number it would be ${Number(back.id)} (${BigInt(Number(back.id)) === BigInt(back.id) ? 'exact' : 'WRONG: digits lost'})`)

  // A layout of at most 53 bits (js53) gives plain numbers, and refuses nothing.
  const small = new Snowflake({ layout: 'js53', node: 1 })
  console.log(`js53 id as a number ${small.nextIdNumber()} (Number.isSafeInteger: always)`)

  // 3. Worker threads: four workers, nodes 1..4 (node 0 would clash with nobody here, but in a
  //    real service give each process and each worker a node from your deployment).
  const perWorker = 50_000
  const batches = await Promise.all(
    [1, 2, 3, 4].map(
      (node) =>
        new Promise((resolve, reject) => {
          const w = new Worker(new URL(import.meta.url), { workerData: { node, count: perWorker } })
          w.once('message', resolve)
          w.once('error', reject)
        })
    )
  )
  const all = new Set()
  for (const ids of batches) for (const x of ids) all.add(x)
  const layout = new Layout(LAYOUT)
  const nodes = batches.map((ids) => layout.decompose(ids[0]).node)
  console.log(`workers minted ${batches.length * perWorker} IDs on nodes ${nodes.join(', ')}: ${batches.length * perWorker - all.size} duplicates`)
  if (all.size !== batches.length * perWorker) throw new Error('duplicate IDs across workers')

  console.log(`and a UUIDv7 for good measure: ${uuid7()}`)
}
