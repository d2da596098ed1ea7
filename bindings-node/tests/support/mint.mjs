// Mints IDs in a worker thread or a child process and sends them back as a BigUint64Array.
//   mode "clocked": Snowflake on the system clock (nextIds plus single nextId calls)
//   mode "fixed":   AtomicSnowflake at a fixed time (deterministic)
import { parentPort, workerData } from 'node:worker_threads'

import m from './impl.mjs'

const job = parentPort ? workerData : JSON.parse(process.argv[2])

function mint({ mode, node, n }) {
  if (mode === 'fixed') {
    return new m.AtomicSnowflake({ layout: 'twitter', node }).nextIdsAt(1_700_000_000_000, n)
  }
  const g = new m.Snowflake({ layout: 'twitter', node })
  const out = new BigUint64Array(n)
  const half = Math.floor(n / 2)
  out.set(g.nextIds(half))
  for (let i = half; i < n; i++) out[i] = g.nextId()
  return out
}

const ids = mint(job)
if (parentPort) {
  parentPort.postMessage(ids, [ids.buffer])
} else {
  process.send(ids, () => process.exit(0))
}
