// `new LeasedSnowflake('local')`, the one-argument way to a node of its own on this host, from
// worker_threads and child processes (the native addon only: the WebAssembly build has no
// stores; test.sh runs this file by name). Also the batch limit of the coordination classes.
import assert from 'node:assert/strict'
import { fork } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { Worker } from 'node:worker_threads'

import { throwsCode } from './support/check.mjs'
import m from './support/impl.mjs'

const childScript = new URL('./support/coord-child.mjs', import.meta.url)
const tmp = mkdtempSync(join(tmpdir(), 'idmint-node-defaults-'))
after(() => rmSync(tmp, { recursive: true, force: true }))
// The local lock directory of this test process, its workers and its children.
const leaseDir = join(tmp, 'leases')
process.env.IDMINT_LEASE_DIR = leaseDir

const twNode = (id) => BigInt(Number((id >> 12n) & 1023n))
const N = 20_000

/** Starts a holder of a local lease in a worker thread or a child process. */
function holder(kind, holders) {
  const job = { kind: 'lease', source: 'local', n: N }
  return new Promise((resolve, reject) => {
    if (kind === 'worker') {
      const w = new Worker(childScript, { workerData: job })
      holders.push(() => w.postMessage('release'))
      w.once('message', resolve)
      w.once('error', reject)
    } else {
      const c = fork(childScript, [JSON.stringify(job)], { serialization: 'advanced', stdio: 'inherit' })
      holders.push(() => c.send('release'))
      c.once('message', resolve)
      c.once('error', reject)
    }
  })
}

describe("LeasedSnowflake('local')", () => {
  for (const kind of ['worker', 'child']) {
    test(`${kind === 'worker' ? 'worker_threads' : 'child processes'} holding local leases at once get distinct nodes and mint no duplicate`, async () => {
      const mine = new m.LeasedSnowflake('local')
      const own = mine.nextIds(N)
      const holders = []
      // Each holder keeps its lease until told to release, so all of them overlap.
      const results = await Promise.all([0, 1, 2, 3].map(() => holder(kind, holders)))
      for (const release of holders) release()
      const nodes = [mine.node, ...results.map((r) => r.node)]
      assert.equal(new Set(nodes).size, 5, `nodes ${nodes}`)
      const seen = new Set(own)
      let total = own.length
      for (const r of results) {
        assert.equal(r.ids.length, N)
        for (const id of r.ids) {
          assert.equal(twNode(id), r.node)
          seen.add(id)
          total++
        }
      }
      assert.equal(total, 5 * N)
      assert.equal(seen.size, total, 'duplicate IDs across holders')
      assert.equal(mine.lease.store, 'file')
      mine.close()
      assert.ok(existsSync(leaseDir) && readdirSync(leaseDir).length > 0, 'the leases live in IDMINT_LEASE_DIR')
    })
  }

  test('the batch calls of LeasedSnowflake and SegmentAllocator refuse more than 2^24 IDs', () => {
    const g = new m.LeasedSnowflake('local')
    const a = new m.SegmentAllocator(`sqlite:${join(tmp, 'segments.db')}`)
    for (const [what, call] of [
      ['LeasedSnowflake.nextIds', (n) => g.nextIds(n)],
      ['SegmentAllocator.nextIds', (n) => a.nextIds('orders', n)],
    ]) {
      const e = throwsCode(() => call(2 ** 24 + 1), RangeError, 'ERR_LIMIT_EXCEEDED', what)
      assert.equal(e.limit, 2n ** 24n, what)
      assert.equal(call(1000).length, 1000, what)
    }
    g.close()
    a.close()
  })
})
