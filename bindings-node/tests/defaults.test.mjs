// No configuration shares a node silently, on every JavaScript implementation (the native
// addon, and the WebAssembly build through IDMINT_IMPL): a generator without a node throws
// ERR_NODE_REQUIRED, in the main thread, in worker_threads and in child processes, and the
// message says how to choose. Batch calls refuse more than the core's MAX_BATCH IDs.
import assert from 'node:assert/strict'
import { fork } from 'node:child_process'
import { describe, test } from 'node:test'
import { Worker } from 'node:worker_threads'

import { throwsCode } from './support/check.mjs'
import m, { lacks } from './support/impl.mjs'
import { attempts } from './support/no-node.mjs'

const noNodeScript = new URL('./support/no-node.mjs', import.meta.url)
const MAX_BATCH = 2 ** 24

/** Every attempt threw ERR_NODE_REQUIRED with a message that says how to choose. */
function checkRefusals(got, where) {
  assert.equal(got.length, 'fromConfig' in m ? 10 : 9, where)
  for (const [how, code, message] of got) {
    assert.equal(code, 'ERR_NODE_REQUIRED', `${where}: ${how} (${message})`)
    for (const hint of ['no node chosen: give an explicit node', 'leased generator', 'k*k/(2N)', '(in ', 'node: N', 'random']) {
      assert.ok(message.includes(hint), `${where}: ${how}: "${hint}" missing from: ${message}`)
    }
  }
}

describe('no default node', { skip: lacks('Layout', 'Snowflake', 'AtomicSnowflake') }, () => {
  test('a generator without a node throws ERR_NODE_REQUIRED; node 0 given on purpose works', () => {
    checkRefusals(attempts(), 'main thread')
    const e = throwsCode(() => new m.Snowflake(), Error, 'ERR_NODE_REQUIRED', 'new Snowflake()')
    assert.ok(e instanceof Error)
    const g = new m.Snowflake({ node: 0 })
    assert.equal(g.decode(g.nextId()).node, 0n)
    assert.equal(new m.AtomicSnowflake({ node: 0 }).decode(new m.AtomicSnowflake({ node: 0 }).nextIdAt(1_700_000_000_000)).node, 0n)
    assert.equal(m.Snowflake.fromConfig('type=snowflake,layout=twitter,node=0').node, 0n)
  })

  test('fromConfig is among the ways tried (main thread, workers, child processes)', { skip: lacks('fromConfig') }, () => {
    assert.deepEqual(
      attempts().filter(([how]) => how === 'fromConfig').map(([, code]) => code),
      ['ERR_NODE_REQUIRED'],
    )
  })

  test('config mistakes are reported before the missing node', () => {
    throwsCode(() => new m.Snowflake({ layout: 'nope' }), Error, 'ERR_INVALID_LAYOUT', 'bad layout')
    throwsCode(() => new m.Snowflake({ onBackwards: 'sideways' }), Error, 'ERR_INVALID_CONFIG', 'bad policy')
    throwsCode(() => new m.Snowflake({ layout: 'baidu' }), Error, 'ERR_LAYOUT_EXPIRED', 'expired layout')
  })

  test('worker_threads without a node all throw ERR_NODE_REQUIRED', async () => {
    const got = await Promise.all(
      [0, 1, 2].map(
        () =>
          new Promise((resolve, reject) => {
            const w = new Worker(noNodeScript, { workerData: 'report' })
            w.once('message', resolve)
            w.once('error', reject)
            w.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)))
          }),
      ),
    )
    for (const [i, g] of got.entries()) checkRefusals(g, `worker ${i}`)
  })

  test('child processes without a node all throw ERR_NODE_REQUIRED', async () => {
    const got = await Promise.all(
      [0, 1, 2].map(
        () =>
          new Promise((resolve, reject) => {
            const c = fork(noNodeScript, ['report'], { serialization: 'advanced', stdio: 'inherit' })
            let reply = null
            c.once('message', (msg) => (reply = msg))
            c.once('error', reject)
            c.once('close', (code) => (code === 0 && reply ? resolve(reply) : reject(new Error(`child exited with ${code}`))))
          }),
      ),
    )
    for (const [i, g] of got.entries()) checkRefusals(g, `child ${i}`)
  })
})

describe('batch limit', { skip: lacks('Layout', 'Snowflake', 'AtomicSnowflake') }, () => {
  test(`nextIds and nextIdsAt refuse more than ${MAX_BATCH} IDs with ERR_LIMIT_EXCEEDED`, () => {
    const g = new m.Snowflake({ node: 1 })
    const a = new m.AtomicSnowflake({ node: 2 })
    const calls = [
      ['Snowflake.nextIds', (n) => g.nextIds(n)],
      ['AtomicSnowflake.nextIdsAt', (n) => a.nextIdsAt(1_700_000_000_000, n)],
    ]
    for (const [what, call] of calls) {
      for (const n of [MAX_BATCH + 1, 2 ** 40, BigInt(MAX_BATCH) + 1n, 2n ** 63n]) {
        const e = throwsCode(() => call(n), RangeError, 'ERR_LIMIT_EXCEEDED', `${what}(${n})`)
        assert.equal(e.what, 'IDs in one call', what)
        assert.equal(e.limit, BigInt(MAX_BATCH), what)
        assert.equal(e.message, `IDs in one call exceeds the limit of ${MAX_BATCH}`, what)
      }
      assert.equal(call(1000).length, 1000, what)
    }
  })
})
