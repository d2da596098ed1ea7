// The other side of the coordination tests (tests/coord.native.mjs): runs in a worker thread
// or a child process, takes a lease or segment IDs, and sends back what it got.
//   { kind: "lease", source, namespace, nodes, n }  -> { node, ids }  (holds the lease until
//                                                     told to release, so holders overlap)
//   { kind: "segment", url, key, n }                 -> { ids }
import { parentPort, workerData } from 'node:worker_threads'

import m from './impl.mjs'

const job = parentPort ? workerData : JSON.parse(process.argv[2])
const send = (msg) => (parentPort ? parentPort.postMessage(msg) : process.send(msg))
const onMessage = (f) => (parentPort ? parentPort.once('message', f) : process.once('message', f))

if (job.kind === 'lease') {
  const g = new m.LeasedSnowflake(job.source, { namespace: job.namespace, nodes: job.nodes })
  send({ node: g.node, ids: g.nextIds(job.n) })
  onMessage(() => {
    g.close()
    if (!parentPort) process.exit(0)
  })
} else {
  const a = new m.SegmentAllocator(job.url, { step: 100 })
  const ids = a.nextIds(job.key, job.n)
  a.close()
  send({ ids })
  if (!parentPort) process.disconnect()
}
