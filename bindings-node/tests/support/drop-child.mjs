// The child of the "collected without close()" tests (tests/coord.native.mjs), run with
// --expose-gc and the arguments URL CLASS NAMESPACE:
// - CLASS `LeasedSnowflake` or `NamedGenerator`: builds that leased generator through the
//   parent's pausable proxy, mints, says "ready"; when told, drops it without close() and
//   collects it, then measures how long its event loop stood still meanwhile. Sends
//   { collected, gcMs, maxGapMs }.
// - CLASS `exit`: leaves a LeasedSnowflake (nodes: 1) open and exits; the environment's
//   teardown must still release it. Also runs as a worker thread, given [URL, 'exit',
//   NAMESPACE] as its workerData.
// - CLASS `reopen`: a LeasedSnowflake (nodes: 1) and a SegmentAllocator with a journal, each
//   collected open and then opened again on the same node or journal while the collected one's
//   release is still under way. Sends { lease, segment }: the error code of each reopening,
//   or null.
// - CLASS `stopped`: a LeasedSnowflake (nodes: 1) that mints, says "ready"; when told (the
//   parent has stopped the store), it is collected open, so that its release hangs on the
//   stopped store, and one more is opened on the same node. Sends { code, ms }: how that
//   opening failed, and how long it took. Told again (the store is back), it opens the node
//   until that works and sends { reopened, ms }.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { workerData } from 'node:worker_threads'

import m from './impl.mjs'

const [url, cls, namespace] = workerData ?? process.argv.slice(2)

/** A generator built and used in a function of its own, so that no frame keeps it alive. */
function open(registry) {
  const g =
    cls === 'LeasedSnowflake'
      ? new m.LeasedSnowflake(url, { namespace, ttlMs: 600 })
      : new m.NamedGenerator(`type=snowflake,layout=twitter,lease=${url},namespace=${namespace},ttl_ms=600`)
  g.nextId()
  registry.register(g, 'g')
  return { g }
}

/** The longest the event loop stood still over `ms` of 1 ms timers. */
async function longestGap(ms) {
  let last = performance.now()
  let maxGapMs = 0
  const end = last + ms
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now()
      maxGapMs = Math.max(maxGapMs, now - last)
      last = now
      if (now < end) setTimeout(tick, 1)
      else resolve()
    }
    setTimeout(tick, 1)
  })
  return maxGapMs
}

if (cls === 'reopen') {
  const journal = join(mkdtempSync(join(tmpdir(), 'idmint-reopen-')), 'journal')
  const open = {
    lease: () => new m.LeasedSnowflake(url, { namespace, nodes: 1, ttlMs: 60000 }),
    segment: () => new m.SegmentAllocator(url, { journal }),
  }
  const report = {}
  for (const [name, make] of Object.entries(open)) {
    ;(() => void make())()
    globalThis.gc()
    // Node-API runs the finalizer in an immediate queued by the collection: after this one,
    // the release has started on its own thread.
    await new Promise((resolve) => setImmediate(resolve))
    try {
      make().close()
      report[name] = null
    } catch (e) {
      report[name] = e.code ?? String(e)
    }
  }
  process.send(report)
  process.disconnect()
} else if (cls === 'stopped') {
  const make = () => new m.LeasedSnowflake(url, { namespace, nodes: 1, ttlMs: 600 })
  ;(() => void make().nextId())()
  process.send('ready')
  process.once('message', async () => {
    globalThis.gc()
    await new Promise((resolve) => setImmediate(resolve))
    let start = performance.now()
    let code = null
    try {
      make().close()
    } catch (e) {
      code = e.code ?? String(e)
    }
    process.send({ code, ms: performance.now() - start })
    process.once('message', async () => {
      start = performance.now()
      let reopened = false
      while (!reopened && performance.now() - start < 20000) {
        try {
          make().close()
          reopened = true
        } catch (e) {
          if (e.code !== 'ERR_NO_FREE_NODE' && e.code !== 'ERR_STORE_UNAVAILABLE') throw e
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
      }
      process.send({ reopened, ms: performance.now() - start })
      process.disconnect()
    })
  })
} else if (cls === 'exit') {
  // Holding the lease is enough (minting first would wait out a new namespace's lock delay).
  globalThis.kept = new m.LeasedSnowflake(url, { namespace, nodes: 1, ttlMs: 60000 })
  if (!workerData) process.disconnect()
} else {
  let collected = false
  const registry = new FinalizationRegistry(() => (collected = true))
  const held = open(registry)
  process.send('ready')
  process.once('message', async () => {
    // The handler keeps the registry alive: a registry that is itself collected calls nothing.
    held.registry = registry
    held.g = null
    const start = performance.now()
    globalThis.gc()
    const gcMs = performance.now() - start
    const maxGapMs = await longestGap(1500)
    process.send({ collected, gcMs, maxGapMs })
    process.disconnect()
  })
}
