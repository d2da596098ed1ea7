// The wall clock steps while a process mints (libfaketime reading its offset from a file at every
// clock read; the monotonic clock stays real): a child `node -e ...` mints with `Snowflake` on
// the system clock while the test writes `+0`, then a step back or forward, into the file. The
// child records a monotonic reading before each burst of calls (its own task) and after each
// call, with what the call returned; the test checks that every call starting a re-anchoring
// period (1 s) after the step saw it and handled it as its `onBackwards` policy says, and that no
// ID repeats. Runs against any implementation (support/impl.mjs): the native addon follows the
// core's system clock, the WebAssembly build its own clock re-anchored to `Date.now()`.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'

import m, { lacks } from './support/impl.mjs'

const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1'
// 1 ms ticks, 64 IDs per tick, and a rollback field with room for a 16 s step back.
const LAYOUT = 'time=40@1ms,rollback=2,worker=10,seq=6,epoch=2020-01-01'
// How often the clocks re-read the wall clock (the core's REANCHOR_MS / PERIOD_MS).
const REANCHOR_MS = 1000n
const MS = 1_000_000n
// Slack below a call's first reading: a coarse clock a few kernel ticks behind (native), a
// reading reused for under 1 ms (WebAssembly), and the test's own offset measurement.
const SLACK_MS = 20n
const REC = 32
const TAG = { id: 0n, backwards: 1n, wouldBlock: 2n, other: 3n }

const layout = 'Layout' in m ? new m.Layout(LAYOUT) : null
const implSupport = new URL('./support/impl.mjs', import.meta.url).href

const CHILD = `
import { closeSync, existsSync, openSync, writeSync } from 'node:fs'
const { default: m } = await import(process.env.STEP_IMPL)
const g = new m.Snowflake({ layout: process.env.STEP_LAYOUT, node: 1, onBackwards: process.env.STEP_POLICY })
const fd = openSync(process.env.STEP_OUT, 'a')
const burst = () => {
  if (existsSync(process.env.STEP_STOP)) {
    closeSync(fd)
    console.log('@@STATS ' + g.stats().rollbacks)
    return
  }
  const buf = Buffer.alloc(${REC * 10})
  const start = process.hrtime.bigint()
  for (let i = 0; i < 10; i++) {
    let tag = 0n
    let id = 0n
    try {
      id = g.nextId()
    } catch (e) {
      tag = e.code === 'ERR_CLOCK_BACKWARDS' ? 1n : e.code === 'ERR_WOULD_BLOCK' ? 2n : 3n
    }
    const post = process.hrtime.bigint()
    buf.writeBigInt64LE(start, ${REC} * i)
    buf.writeBigInt64LE(post, ${REC} * i + 8)
    buf.writeBigUInt64LE(tag, ${REC} * i + 16)
    buf.writeBigUInt64LE(id, ${REC} * i + 24)
  }
  writeSync(fd, buf)
  setTimeout(burst, 2)
}
// Each burst is a task of its own: a clock may reuse a reading within a task (the WebAssembly
// build does, for up to 8 calls), and the constructor's reading predates the first burst.
setTimeout(burst, 2)
`

function writeOffset(path, text) {
  writeFileSync(`${path}.tmp`, `${text}\n`)
  renameSync(`${path}.tmp`, path)
}

function readRecs(path) {
  if (!existsSync(path)) return []
  const b = readFileSync(path)
  const out = []
  for (let i = 0; i + REC <= b.length; i += REC) {
    out.push({
      pre: b.readBigInt64LE(i),
      post: b.readBigInt64LE(i + 8),
      tag: b.readBigUInt64LE(i + 16),
      id: b.readBigUInt64LE(i + 24),
    })
  }
  return out
}

/** wall - monotonic ns, with Date.now()'s whole ms taken at their middle. */
function wallOffset() {
  const a = process.hrtime.bigint()
  const w = BigInt(Date.now()) * MS + MS / 2n
  const b = process.hrtime.bigint()
  return w - (a + (b - a) / 2n)
}

async function waitFor(what, child, cond) {
  const deadline = Date.now() + 60_000
  while (!cond()) {
    assert.equal(child.exitCode, null, `the child exited (${child.exitCode}) while waiting for ${what}`)
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`)
    await sleep(20)
  }
}

/** Runs a child under `policy`, steps its clock by `step`, and stops it once it made calls
 * `settleMs` past one re-anchoring period after the step. */
async function run(policy, step, settleMs) {
  const dir = mkdtempSync(join(tmpdir(), 'idmint-clock-steps-'))
  const ft = join(dir, 'faketime')
  const out = join(dir, 'records')
  const stop = join(dir, 'stop')
  writeOffset(ft, '+0')
  const offset = wallOffset()
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
    env: {
      ...process.env,
      LD_PRELOAD: LIBFAKETIME,
      FAKETIME_TIMESTAMP_FILE: ft,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
      STEP_IMPL: implSupport,
      STEP_LAYOUT: LAYOUT,
      STEP_POLICY: policy,
      STEP_OUT: out,
      STEP_STOP: stop,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let said = ''
  child.stdout.on('data', (d) => (said += d))
  // 'close', not 'exit': 'exit' can come before the last of the child's stdout was read.
  const exited = new Promise((resolve) => child.on('close', resolve))
  try {
    await waitFor('the first IDs', child, () => readRecs(out).filter((r) => r.tag === TAG.id).length >= 200)
    writeOffset(ft, step)
    const stepAt = process.hrtime.bigint()
    const until = stepAt + (REANCHOR_MS + BigInt(settleMs) + 50n) * MS
    await waitFor('calls after the step', child, () => readRecs(out).filter((r) => r.pre >= until).length >= 50)
    writeFileSync(stop, '')
    assert.equal(await exited, 0, `the child failed: ${said}`)
    const stats = /@@STATS (\d+)/.exec(said)
    assert.ok(stats, `the child's stats: ${said}`)
    const r = new Run(readRecs(out), stepAt, offset, BigInt(stats[1]))
    const before = r.recs.filter((x) => x.post < stepAt)
    assert.ok(before.length >= 200)
    for (const x of before) r.atWallTime(x, 0n)
    const ids = r.ids()
    assert.equal(new Set(ids).size, ids.length, 'duplicate IDs')
    return r
  } finally {
    if (child.exitCode === null) child.kill()
    rmSync(dir, { recursive: true, force: true })
  }
}

class Run {
  constructor(recs, stepAt, offset, rollbacks) {
    Object.assign(this, { recs, stepAt, offset, rollbacks })
  }

  /** Calls whose burst started `ms` past the step (plus 50 ms for a coarse reading). */
  after(ms) {
    const start = this.stepAt + (ms + 50n) * MS
    return this.recs.filter((r) => r.pre >= start)
  }

  ids() {
    return this.recs.filter((r) => r.tag === TAG.id).map((r) => r.id)
  }

  increasing() {
    const ids = this.ids()
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i], 'IDs went down')
  }

  /** `r`'s ID carries the wall time of its call on a clock `shiftMs` off the first one. */
  atWallTime(r, shiftMs) {
    assert.equal(r.tag, TAG.id, `expected an ID: ${JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? `${v}` : v))}`)
    const t = layout.timestampMs(r.id)
    const lo = (r.pre + this.offset) / MS + shiftMs - SLACK_MS
    const hi = (r.post + this.offset) / MS + shiftMs + 2n
    assert.ok(lo <= t && t <= hi, `ID time ${t} outside [${lo}, ${hi}] (shifted ${shiftMs} ms)`)
  }
}

describe('wall clock steps in a running process (libfaketime)', { concurrency: true, skip: lacks('Layout', 'Snowflake') }, () => {
  test('fail, set back 30 s: every call throws ERR_CLOCK_BACKWARDS once the step is seen', async () => {
    const r = await run('fail', '-30s', 200)
    const seen = r.after(REANCHOR_MS)
    assert.ok(seen.length >= 50)
    for (const x of seen) assert.equal(x.tag, TAG.backwards)
    r.increasing()
    assert.ok(r.rollbacks > 0n)
  })

  test('wait:1000, set back 30 s (beyond the bound): every call throws once the step is seen', async () => {
    const r = await run('wait:1000', '-30s', 200)
    const seen = r.after(REANCHOR_MS)
    assert.ok(seen.length >= 50)
    for (const x of seen) assert.equal(x.tag, TAG.backwards)
    r.increasing()
  })

  test('wait:5000, set back 2 s: waited out (or ERR_WOULD_BLOCK where a call cannot wait), then the new time', async () => {
    const r = await run('wait:5000', '-2s', 2500)
    for (const x of r.recs) assert.ok(x.tag === TAG.id || x.tag === TAG.wouldBlock, `tag ${x.tag}`)
    r.increasing()
    const later = r.after(REANCHOR_MS + 2500n)
    assert.ok(later.length >= 50)
    for (const x of later) r.atWallTime(x, -2000n)
    assert.ok(r.rollbacks > 0n)
  })

  test('logical:10000, set back 2 s: keeps minting above the last ID, then the new time', async () => {
    const r = await run('logical:10000', '-2s', 3000)
    for (const x of r.recs) assert.equal(x.tag, TAG.id)
    r.increasing()
    const later = r.after(REANCHOR_MS + 3000n)
    assert.ok(later.length >= 50)
    for (const x of later) r.atWallTime(x, -2000n)
    assert.ok(r.rollbacks > 0n)
  })

  test('rollback_counter, set back 5 s: IDs carry the new time and the bumped counter', async () => {
    const r = await run('rollback_counter', '-5s', 200)
    const seen = r.after(REANCHOR_MS)
    assert.ok(seen.length >= 50)
    for (const x of seen) {
      r.atWallTime(x, -5000n)
      assert.equal(layout.decompose(x.id).rollback, 1)
    }
    for (const x of r.recs.filter((x) => x.post < r.stepAt)) assert.equal(layout.decompose(x.id).rollback, 0)
  })

  test('ring:8192, set back 5 s: IDs carry the new time, continuing the earlier ticks', async () => {
    const r = await run('ring:8192', '-5s', 200)
    const seen = r.after(REANCHOR_MS)
    assert.ok(seen.length >= 50)
    for (const x of seen) r.atWallTime(x, -5000n)
    assert.ok(r.rollbacks > 0n)
  })

  test('set forward 10 s: IDs carry the new time, still increasing', async () => {
    const r = await run('wait:1000', '+10s', 200)
    const seen = r.after(REANCHOR_MS)
    assert.ok(seen.length >= 50)
    for (const x of seen) r.atWallTime(x, 10_000n)
    r.increasing()
    assert.equal(r.rollbacks, 0n)
  })
})
