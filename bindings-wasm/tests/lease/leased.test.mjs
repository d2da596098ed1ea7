// LeasedSnowflake against the fake lease service of service.mjs, in Node: by default both the
// WebAssembly entry (pkg/node/wasm: src/leased.js, src/leased.rs) and the full JavaScript one
// (pkg/node: js/leased.js), side by side, each on its own fake service; or only the module IDMINT_IMPL
// names (test.sh runs the bundler flavour so). Times are asserted as bounds, never as exact
// values: the machine may be busy. (tests/js/leased.test.mjs compares the two call by call.)
import assert from 'node:assert/strict'
import { isAbsolute, resolve } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'

import { leaseService } from './service.mjs'

/** The module `where` names (a path or URL), its CommonJS exports merged in. */
async function load(where) {
  const url = isAbsolute(where) || where.startsWith('.') ? pathToFileURL(resolve(where)).href : where
  const mod = await import(url)
  return { ...(mod.default ?? {}), ...mod }
}

const given = process.env.IDMINT_IMPL
const impls = given
  ? [[given, await load(given)]]
  : [
      ['wasm', await load(new URL('../../pkg/node/wasm/idmint.js', import.meta.url).href)],
      ['js', await load(new URL('../../pkg/node/idmint.js', import.meta.url).href)],
    ]

const EXAMPLE = 'time=41@1ms,node=14,seq=8,epoch=2025-01-01'

/** Calls `f` until it stops throwing ERR_WOULD_BLOCK (the clock is behind a fence). */
async function whenReady(f) {
  for (;;) {
    try {
      return f()
    } catch (e) {
      if (e.code !== 'ERR_WOULD_BLOCK') throw e
      await sleep(Math.max(1, Number(e.untilMs) - Date.now()))
    }
  }
}

/** Waits (up to `ms`) until `cond()` holds; fails the test otherwise. */
async function until(cond, what, ms = 5000) {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`)
    await sleep(10)
  }
}

/** The error `f` throws (it must throw). */
function thrown(f) {
  try {
    f()
  } catch (e) {
    return e
  }
  assert.fail('nothing was thrown')
}

describe('LeasedSnowflake.lease', { concurrency: true }, () => {
  for (const [impl, { LeasedSnowflake, Layout }] of impls) describe(impl, { timeout: 60_000, concurrency: 1 }, () => {
    let svc
    before(async () => {
      svc = await leaseService()
    })
    after(() => svc.close())

    /** A fresh start: every switch back to normal, the log empty, every node free. */
    async function fresh(opts = {}) {
      await svc.close()
      svc = await leaseService(opts)
      return svc
    }

    /**
     * A fresh service whose grant `bad` rewrites: `lease()` rejects with `cls` and `code`, its
     * message matching `message` (a RegExp) or equal to it (a string); no generator is made and
     * the node is given back.
     */
    async function refusedGrant(bad, cls, code, message) {
      await fresh()
      svc.grant = bad
      const what = bad.toString()
      await assert.rejects(LeasedSnowflake.lease(svc.url), (e) => {
        assert.ok(e instanceof cls, `${what}: ${e}`)
        assert.equal(e.code, code, `${what}: ${e.message}`)
        if (message instanceof RegExp) assert.match(e.message, message, what)
        else assert.equal(e.message, message, what)
        return true
      })
      assert.deepEqual(svc.requests('/v1/leases/release').map((r) => r.body.lease), ['lease-1'], what)
      assert.equal(svc.requests('/v1/leases/renew').length, 0, what)
    }

    test('a grant: IDs carry the node, come after its fence, and stay within the lease', async () => {
      await fresh()
      const fence = Date.now() + 300 // the node's previous holder issued up to 300 ms from now
      svc.records.set(0, fence)
      const layout = new Layout(EXAMPLE)
      const gen = await LeasedSnowflake.lease(svc.url, { layout, namespace: 'test', ttlMs: 5000, sequenceStart: 'random' })
      const [req] = svc.requests('/v1/leases')
      assert.equal(req.headers['content-type'], 'application/json')
      assert.deepEqual(Object.keys(req.body).sort(), ['client_time_ms', 'layout', 'namespace', 'ttl_ms'])
      assert.equal(req.body.layout, layout.spec)
      assert.ok(Math.abs(req.body.client_time_ms - Date.now()) < 5000)

      assert.equal(gen.node, 0n)
      assert.equal(gen.fenceMs, BigInt(fence))
      assert.equal(gen.layout.spec, layout.spec)
      const info = gen.lease
      assert.equal(info.namespace, 'test')
      assert.equal(info.node, 0n)
      assert.equal(info.fenceMs, BigInt(fence))
      assert.equal(info.ttlMs, 5000n)
      assert.ok(info.boundMs > BigInt(fence) + 4000n, `${info.boundMs}`)
      assert.ok(info.expiresInMs > 0 && info.expiresInMs <= 4500, `${info.expiresInMs}`) // TTL less 500 ms
      assert.equal(info.issuedMs, null)

      const ids = [await whenReady(() => gen.nextId())]
      ids.push(gen.nextId(), BigInt(gen.nextIdString()), gen.tryNextId(), ...gen.nextIds(1000))
      for (let i = 0; i < ids.length; i++) {
        const p = layout.decompose(ids[i])
        assert.equal(p.node, 0n)
        assert.ok(p.timestampMs > BigInt(fence), `ID ${i} at ${p.timestampMs}, fence ${fence}`)
        if (i > 0) assert.ok(ids[i] > ids[i - 1])
      }
      assert.deepEqual(gen.decode(ids[0]), layout.decompose(ids[0]))
      const latest = ids.map((id) => layout.timestampMs(id)).reduce((a, b) => (a > b ? a : b))
      assert.equal(gen.lease.issuedMs, latest)
      await gen.close()
    })

    test('renewals extend the lease past its first deadline', async () => {
      await fresh()
      const start = performance.now()
      const gen = await LeasedSnowflake.lease(svc.url, { layout: EXAMPLE, ttlMs: 1500 })
      const first = gen.lease.boundMs
      // 3 s of minting on a lease of 1.5 s (minting stops 1.35 s after a send without renewal).
      while (performance.now() - start < 3000) {
        gen.nextId()
        await sleep(50)
      }
      const renewals = svc.requests('/v1/leases/renew')
      assert.ok(renewals.length >= 3, `${renewals.length} renewals`)
      for (const r of renewals) {
        assert.equal(r.status, 200)
        assert.equal(r.body.lease, 'lease-1')
        assert.equal(typeof r.body.client_time_ms, 'number')
      }
      assert.equal(typeof renewals.at(-1).body.issued_up_to_ms, 'number')
      assert.ok(gen.lease.boundMs > first)
      assert.ok(gen.lease.expiresInMs > 0)
      await gen.close()
    })

    // 'malformed': the service answers 200 with a renewal the client refuses (bound_ms -1).
    for (const mode of ['503', 'hang', 'reset', 'malformed']) {
      test(`renewals failing (${mode}): minting goes on until the deadline, then stops until one succeeds`, async () => {
        await fresh()
        const start = performance.now()
        const gen = await LeasedSnowflake.lease(svc.url, { layout: EXAMPLE, ttlMs: 1500 })
        if (mode === 'malformed') svc.renewal = (r) => ({ ...r, bound_ms: -1 })
        else svc.renew = mode
        let lastOk = 0
        let refused
        while (refused === undefined) {
          try {
            gen.nextId()
            lastOk = performance.now()
          } catch (e) {
            refused = e
          }
          assert.ok(performance.now() - start < 6000, 'minting never stopped')
          await sleep(10)
        }
        const stoppedAt = performance.now()
        assert.equal(refused.code, 'ERR_LEASE_LOST')
        assert.equal(refused.node, 0n)
        assert.match(refused.reason, /deadline/)
        // The deadline is 1.35 s after the grant request was sent, which was after `start`.
        assert.ok(stoppedAt - start >= 1348, `stopped after ${stoppedAt - start} ms`)
        assert.ok(lastOk - start > 1000, `minted only for ${lastOk - start} ms`)
        assert.equal(gen.lease.expiresInMs, 0)
        assert.equal(thrown(() => gen.nextIds(10)).code, 'ERR_LEASE_LOST')
        const attempts = svc.requests('/v1/leases/renew').length
        assert.ok(attempts >= 2, `${attempts} renewal attempts`) // retried

        svc.renew = 'ok'
        svc.renewal = (r) => r
        await until(() => {
          try {
            gen.nextId()
            return true
          } catch (e) {
            assert.equal(e.code, 'ERR_LEASE_LOST')
            return false
          }
        }, 'minting to resume')
        assert.ok(gen.lease.expiresInMs > 0)
        await gen.close()
      })
    }

    test('409 on renewal: ERR_LEASE_LOST for good, no more renewals, no release', async () => {
      await fresh()
      const gen = await LeasedSnowflake.lease(svc.url, { layout: EXAMPLE, ttlMs: 1500 })
      gen.nextId()
      svc.renew = '409'
      await until(() => svc.requests('/v1/leases/renew').some((r) => r.status === 409), 'a 409')
      let e
      await until(() => {
        try {
          gen.nextId()
          return false
        } catch (err) {
          e = err
          return true
        }
      }, 'minting to stop')
      assert.equal(e.code, 'ERR_LEASE_LOST')
      assert.match(e.reason, /superseded or expired/)
      assert.equal(gen.lease.expiresInMs, null)
      svc.renew = 'ok'
      const attempts = svc.requests('/v1/leases/renew').length
      await sleep(1200)
      assert.equal(svc.requests('/v1/leases/renew').length, attempts)
      assert.equal(thrown(() => gen.tryNextId()).code, 'ERR_LEASE_LOST')
      await gen.close()
      assert.equal(svc.requests('/v1/leases/release').length, 0)
    })

    test('an ID past the recorded bound waits for a renewal to record a later one', async () => {
      await fresh()
      svc.reserveMs = 300 // the grant's bound is only 300 ms ahead
      const gen = await LeasedSnowflake.lease(svc.url, { layout: EXAMPLE, ttlMs: 3000 })
      gen.nextId()
      svc.reserveMs = null
      await sleep(500)
      const e = thrown(() => gen.nextId())
      assert.equal(e.code, 'ERR_LEASE_LOST')
      assert.match(e.reason, /past the bound/)
      // The first renewal (after a third of the TTL) records a bound a TTL ahead.
      await until(() => svc.requests('/v1/leases/renew').length > 0, 'a renewal')
      await until(() => {
        try {
          gen.nextId()
          return true
        } catch {
          return false
        }
      }, 'minting to resume')
      await gen.close()
    })

    test('close() releases the node with the latest time issued; the next holder starts after it', async () => {
      await fresh({ nodes: 1 })
      const layout = new Layout(EXAMPLE)
      const gen = await LeasedSnowflake.lease(svc.url, { layout: EXAMPLE, ttlMs: 1500 })
      const ids = [...gen.nextIds(500), gen.nextId()]
      const latest = ids.map((id) => layout.timestampMs(id)).reduce((a, b) => (a > b ? a : b))
      await gen.close()
      assert.equal(gen.closed, true)
      const [release] = svc.requests('/v1/leases/release')
      assert.deepEqual(release.body, { lease: 'lease-1', issued_up_to_ms: Number(latest) })
      for (const f of [() => gen.nextId(), () => gen.nextIds(1), () => gen.node, () => gen.lease]) {
        const e = thrown(f)
        assert.equal(e.code, 'ERR_CLOSED')
        assert.equal(e.message, 'LeasedSnowflake is closed')
        assert.equal(e.what, 'LeasedSnowflake')
      }
      await gen.close() // again: nothing
      assert.equal(svc.requests('/v1/leases/release').length, 1)
      const renewals = svc.requests('/v1/leases/renew').length
      await sleep(700) // past the renewal that was due
      assert.equal(svc.requests('/v1/leases/renew').length, renewals)

      const next = await LeasedSnowflake.lease(svc.url, { layout: EXAMPLE })
      assert.equal(next.node, 0n)
      assert.equal(next.fenceMs, latest)
      assert.ok(layout.timestampMs(await whenReady(() => next.nextId())) > latest)
      await next.close()

      // A holder that issued nothing releases with its fence: the record stays as it was.
      const idle = await LeasedSnowflake.lease(svc.url, { layout: EXAMPLE })
      const fence = idle.fenceMs
      assert.ok(fence > latest)
      await idle.close()
      assert.equal(svc.requests('/v1/leases/release').at(-1).body.issued_up_to_ms, Number(fence))
    })

    test('a fence ahead of the clock: lease() resolves once it has passed, renewing meanwhile; too far ahead, ERR_CLOCK_BACKWARDS', async () => {
      // The previous holder's recorded bound is 2.5 s ahead of this clock: longer than the TTL
      // (1.5 s), within twice it. The lease waits, renews on its timer, and then mints at once.
      await fresh({ nodes: 1 })
      svc.reserveMs = 4000
      const layout = new Layout(EXAMPLE)
      const fence = Date.now() + 2500
      svc.records.set(0, fence)
      const gen = await LeasedSnowflake.lease(svc.url, { layout, ttlMs: 1500 })
      assert.ok(Date.now() > fence, `resolved ${fence - Date.now()} ms before the fence`)
      assert.ok(svc.requests('/v1/leases/renew').length >= 1, 'no renewal during the wait')
      const id = gen.nextId() // no ERR_WOULD_BLOCK, no ERR_CLOCK_BACKWARDS: the node is ready
      assert.ok(layout.timestampMs(id) > BigInt(fence))
      assert.ok(gen.lease.expiresInMs > 0)
      await gen.close()

      // 3.5 s ahead of this clock, more than twice the TTL, while the service's clock is at the
      // fence: no honest holder put it there; this clock is behind.
      await fresh({ nodes: 1 })
      svc.reserveMs = 6000
      svc.records.set(0, Date.now() + 3500)
      svc.grant = (g) => ({ ...g, server_time_ms: g.fence_ms })
      const started = Date.now()
      await assert.rejects(LeasedSnowflake.lease(svc.url, { layout, ttlMs: 1500 }), (e) => {
        assert.equal(e.code, 'ERR_CLOCK_BACKWARDS')
        assert.match(e.message, /^node 0 is fenced until .*this host's clock is \d+ ms behind/)
        return true
      })
      assert.ok(Date.now() - started < 1500, 'refused only after a wait')
      assert.deepEqual(svc.requests('/v1/leases/release').map((r) => r.body.lease), ['lease-1'])
    })

    test("a fence the service holds ahead of its own clock (a store's lock delay) is waited out, however long", async () => {
      // 3.2 s ahead of this clock and of the service's (its answer's server_time_ms): more than
      // twice the TTL, but the service vouches for it; the lease waits, renewing meanwhile.
      await fresh({ nodes: 1 })
      svc.reserveMs = 5000
      const layout = new Layout(EXAMPLE)
      const fence = Date.now() + 3200
      svc.records.set(0, fence)
      const gen = await LeasedSnowflake.lease(svc.url, { layout, ttlMs: 1500 })
      assert.ok(Date.now() > fence, `resolved ${fence - Date.now()} ms before the fence`)
      assert.ok(svc.requests('/v1/leases/renew').length >= 2, 'no renewals during the wait')
      assert.ok(layout.timestampMs(gen.nextId()) > BigInt(fence))
      await gen.close()
    })

    test('a lease lost while lease() waits out a fence: ERR_LEASE_LOST at once, not after the wait', async () => {
      // The fence is 2.5 s ahead; the first renewal (half a second in) answers 409.
      await fresh({ nodes: 1 })
      svc.reserveMs = 4000
      svc.records.set(0, Date.now() + 2500)
      svc.renew = '409'
      const started = Date.now()
      await assert.rejects(LeasedSnowflake.lease(svc.url, { layout: new Layout(EXAMPLE), ttlMs: 1500 }), (e) => {
        assert.equal(e.code, 'ERR_LEASE_LOST')
        assert.match(e.message, /node 0.*superseded or expired/)
        return true
      })
      const took = Date.now() - started
      assert.ok(took < 2000, `rejected after ${took} ms: the wait went on after the loss`)
      assert.equal(svc.requests('/v1/leases/renew').length, 1)
      svc.renew = 'ok'
    })

    test('malformed grants: a typed error, no generator, and the node given back', async () => {
      const cases = [
        [(g) => ({ ...g, node: undefined }), TypeError, 'ERR_INVALID_ARG_TYPE', /grant\.node/],
        [(g) => ({ ...g, node: '3' }), TypeError, 'ERR_INVALID_ARG_TYPE', /grant\.node/],
        [(g) => ({ ...g, node: 16 }), RangeError, 'ERR_OUT_OF_RANGE', /node/], // js53: 4 node bits
        [(g) => ({ ...g, node: -1 }), RangeError, 'ERR_OUT_OF_RANGE', /grant\.node/],
        [(g) => ({ ...g, fence_ms: g.bound_ms + 1 }), Error, 'ERR_INVALID_CONFIG', /bound/],
        [(g) => ({ ...g, fence_ms: g.bound_ms }), Error, 'ERR_INVALID_CONFIG', /bound/],
        [(g) => ({ ...g, bound_ms: null }), TypeError, 'ERR_INVALID_ARG_TYPE', /grant\.bound_ms/],
        [(g) => ({ ...g, ttl_ms: 0 }), Error, 'ERR_INVALID_CONFIG', /ttl/],
        [(g) => ({ ...g, layout: 'nope' }), Error, 'ERR_INVALID_LAYOUT', /./],
        [(g) => ({ ...g, namespace: 5 }), TypeError, 'ERR_INVALID_ARG_TYPE', /grant\.namespace/],
      ]
      for (const [bad, cls, code, message] of cases) await refusedGrant(bad, cls, code, message)
      // Without a lease string there is nothing to give back.
      await fresh()
      svc.grant = (g) => ({ ...g, lease: undefined })
      await assert.rejects(LeasedSnowflake.lease(svc.url), { code: 'ERR_INVALID_ARG_TYPE', message: /grant\.lease/ })
      svc.grant = () => 'not an object'
      await assert.rejects(LeasedSnowflake.lease(svc.url), { code: 'ERR_INVALID_ARG_TYPE', message: /^grant must be an object/ })
    })

    test('malformed grants, field by field: the code and message of bindings-js, and the node given back', async () => {
      const UNSAFE = 2 ** 53
      const int = (f) => [
        [(g) => ({ ...g, [f]: undefined }), TypeError, 'ERR_INVALID_ARG_TYPE', `grant.${f} must be a bigint or an integer number; received undefined`],
        [(g) => ({ ...g, [f]: '5' }), TypeError, 'ERR_INVALID_ARG_TYPE', `grant.${f} must be a bigint or an integer number; received type string ('5')`],
        [(g) => ({ ...g, [f]: -1 }), RangeError, 'ERR_OUT_OF_RANGE', `grant.${f} must not be negative; received -1`],
        [(g) => ({ ...g, [f]: 1.5 }), RangeError, 'ERR_OUT_OF_RANGE', `grant.${f} must be an integer; received 1.5`],
        [(g) => ({ ...g, [f]: UNSAFE }), RangeError, 'ERR_OUT_OF_RANGE', `grant.${f} as a number must be at most Number.MAX_SAFE_INTEGER; received ${UNSAFE} (pass a bigint for larger values)`],
      ]
      // Optional fields: absent or null is no fence, the default renewal time.
      const optional = (f) => int(f).slice(1)
      const text = (f) => [
        [(g) => ({ ...g, [f]: 5 }), TypeError, 'ERR_INVALID_ARG_TYPE', `grant.${f} must be a string; received number 5`],
        [(g) => ({ ...g, [f]: null }), TypeError, 'ERR_INVALID_ARG_TYPE', `grant.${f} must be a string; received null`],
      ]
      const cases = [
        ...int('bound_ms'),
        ...int('ttl_ms'),
        ...int('node'),
        ...optional('renew_after_ms'),
        ...optional('fence_ms'),
        ...text('namespace'),
        ...text('layout'),
      ]
      for (const [bad, cls, code, message] of cases) await refusedGrant(bad, cls, code, message)
      for (const [bad, message] of [
        [(g) => ({ ...g, lease: undefined }), 'grant.lease must be a string; received undefined'],
        [(g) => ({ ...g, lease: 7 }), 'grant.lease must be a string; received number 7'],
        [() => null, 'grant must be an object; received null'],
        [() => 42, 'grant must be an object; received number 42'],
      ]) {
        await fresh()
        svc.grant = bad
        await assert.rejects(LeasedSnowflake.lease(svc.url), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message })
        assert.equal(svc.requests('/v1/leases/release').length, 0)
      }
      // Absent or null optional fields are fine.
      await fresh()
      svc.grant = (g) => ({ ...g, fence_ms: null, renew_after_ms: undefined })
      const gen = await LeasedSnowflake.lease(svc.url)
      assert.equal(gen.fenceMs, null)
      await gen.close()
    })

    test('a grant request without an answer is given up after a third of the TTL the service will grant', async () => {
      await fresh()
      svc.acquire = 'hang'
      // 1,500 ms asked: 500 ms; 10 ms asked is granted as the shortest TTL, 1 s: 333 ms.
      for (const [ttlMs, want] of [[1500, 500], [10, 1000 / 3]]) {
        const start = performance.now()
        await assert.rejects(LeasedSnowflake.lease(svc.url, { ttlMs }), { code: 'ERR_STORE_UNAVAILABLE', op: 'acquire' })
        const took = performance.now() - start
        assert.ok(took >= want - 2 && took < want + 1500, `gave up after ${took} ms, want ${want}`)
      }
    })

    test("the service's errors, a service that is not there, the token", async () => {
      await fresh({ nodes: 1 })
      const held = await LeasedSnowflake.lease(svc.url)
      await assert.rejects(LeasedSnowflake.lease(svc.url), { code: 'ERR_NO_FREE_NODE', status: 409 })
      await held.close()
      svc.acquire = '503'
      await assert.rejects(LeasedSnowflake.lease(svc.url), { code: 'ERR_STORE_UNAVAILABLE', status: 503, retryAfterMs: 1000 })

      const gone = svc.url
      await svc.close()
      await assert.rejects(LeasedSnowflake.lease(gone), {
        code: 'ERR_STORE_UNAVAILABLE',
        message: 'http store unavailable during acquire: unreachable',
        store: 'http',
        op: 'acquire',
      })

      svc = await leaseService({ token: 's3cret' })
      await assert.rejects(LeasedSnowflake.lease(svc.url), { code: 'ERR_UNAUTHORIZED', status: 401 })
      let calls = 0
      const fetch = (...args) => {
        calls++
        return globalThis.fetch(...args)
      }
      const gen = await LeasedSnowflake.lease(`${svc.url}/`, { token: 's3cret', fetch })
      assert.equal(svc.log.at(-1).headers.authorization, 'Bearer s3cret')
      assert.equal(svc.log.at(-1).path, '/v1/leases') // the trailing slash is dropped
      await gen.close()
      assert.equal(calls, 2)
    })

    test('bad options, key by key: the code and message of bindings-js, before any request', async () => {
      await fresh()
      const UNSAFE = 2 ** 53
      const bad = [
        [5, {}, TypeError, 'ERR_INVALID_ARG_TYPE', 'serviceUrl must be a string or a URL; received number 5'],
        [svc.url, 5, TypeError, 'ERR_INVALID_ARG_TYPE', 'options must be an object; received number 5'],
        [svc.url, { namespace: 7 }, TypeError, 'ERR_INVALID_ARG_TYPE', 'options.namespace must be a string; received number 7'],
        [svc.url, { token: {} }, TypeError, 'ERR_INVALID_ARG_TYPE', 'options.token must be a string; received an object'],
        [svc.url, { ttlMs: '1s' }, TypeError, 'ERR_INVALID_ARG_TYPE', "options.ttlMs must be a bigint or an integer number; received type string ('1s')"],
        [svc.url, { ttlMs: -1 }, RangeError, 'ERR_OUT_OF_RANGE', 'options.ttlMs must not be negative; received -1'],
        [svc.url, { ttlMs: -1n }, RangeError, 'ERR_OUT_OF_RANGE', 'options.ttlMs must not be negative; received a negative bigint'],
        [svc.url, { ttlMs: 1.5 }, RangeError, 'ERR_OUT_OF_RANGE', 'options.ttlMs must be an integer; received 1.5'],
        [svc.url, { ttlMs: UNSAFE }, RangeError, 'ERR_OUT_OF_RANGE', `options.ttlMs as a number must be at most Number.MAX_SAFE_INTEGER; received ${UNSAFE} (pass a bigint for larger values)`],
        [svc.url, { fetch: 'no' }, TypeError, 'ERR_INVALID_ARG_TYPE', "options.fetch must be a function; received type string ('no')"],
        [svc.url, { layout: 12 }, TypeError, 'ERR_INVALID_ARG_TYPE', 'options.layout must be a Layout or a layout spec string; received number 12'],
        [svc.url, { layout: {} }, TypeError, 'ERR_INVALID_ARG_TYPE', 'options.layout must be a Layout or a layout spec string; received an object that is not a Layout'],
        [svc.url, { node: 1 }, TypeError, 'ERR_INVALID_ARGUMENT', 'invalid argument `node`: comes from the lease'],
        [svc.url, { node: { worker: 1 } }, TypeError, 'ERR_INVALID_ARGUMENT', 'invalid argument `node`: comes from the lease'],
        [svc.url, { fenceMs: 1 }, TypeError, 'ERR_INVALID_ARGUMENT', 'invalid argument `fenceMs`: comes from the lease'],
        [svc.url, { fence_ms: 1 }, TypeError, 'ERR_INVALID_ARGUMENT', 'invalid argument `fence_ms`: comes from the lease'],
      ]
      for (const [where, options, cls, code, message] of bad) {
        const what = `${String(where)} ${String(Object.keys(options ?? {}))}`
        await assert.rejects(LeasedSnowflake.lease(where, options), (e) => {
          assert.ok(e instanceof cls, `${what}: ${e}`)
          assert.equal(e.code, code, `${what}: ${e.message}`)
          assert.equal(e.message, message, what)
          if (code === 'ERR_INVALID_ARGUMENT') assert.equal(e.argument, message.split('`')[1])
          return true
        })
      }
      // An unknown key is the generator options' error, listing their keys.
      await assert.rejects(LeasedSnowflake.lease(svc.url, { ttl: 5000 }), (e) => {
        assert.equal(e.code, 'ERR_INVALID_ARGUMENT')
        assert.match(e.message, /^invalid argument `ttl`: is not an option \(layout, node, onBackwards, /)
        return true
      })
      // undefined and null count as absent; a bigint TTL and a URL object are taken; each option
      // is read once (the request's and the generator's are the same reading).
      let reads = 0
      const options = { node: null, fenceMs: undefined, namespace: null, seed: 7 }
      Object.defineProperty(options, 'ttlMs', { enumerable: true, get: () => (reads++ === 0 ? 5000n : 'changed') })
      const gen = await LeasedSnowflake.lease(new URL(svc.url), options)
      assert.equal(reads, 1)
      const [req] = svc.requests('/v1/leases')
      assert.deepEqual(Object.keys(req.body).sort(), ['client_time_ms', 'ttl_ms'])
      assert.equal(req.body.ttl_ms, 5000)
      await gen.close()
      assert.equal(svc.requests('/v1/leases').length, 1)
    })

    test('bad arguments are refused before any request', async () => {
      await fresh()
      const bad = [
        [5, {}, TypeError, 'ERR_INVALID_ARG_TYPE'],
        [svc.url, 5, TypeError, 'ERR_INVALID_ARG_TYPE'],
        [svc.url, { node: 1 }, TypeError, 'ERR_INVALID_ARGUMENT'],
        [svc.url, { fenceMs: 1 }, TypeError, 'ERR_INVALID_ARGUMENT'],
        [svc.url, { ttl: 5000 }, TypeError, 'ERR_INVALID_ARGUMENT'],
        [svc.url, { ttlMs: -1 }, RangeError, 'ERR_OUT_OF_RANGE'],
        [svc.url, { ttlMs: '1s' }, TypeError, 'ERR_INVALID_ARG_TYPE'],
        [svc.url, { namespace: 7 }, TypeError, 'ERR_INVALID_ARG_TYPE'],
        [svc.url, { fetch: 'no' }, TypeError, 'ERR_INVALID_ARG_TYPE'],
        [svc.url, { layout: 'nope' }, Error, 'ERR_INVALID_LAYOUT'],
        [svc.url, { layout: 12 }, TypeError, 'ERR_INVALID_ARG_TYPE'],
        [svc.url, { onBackwards: 'sometimes' }, Error, 'ERR_INVALID_CONFIG'],
      ]
      for (const [where, options, cls, code] of bad) {
        const what = JSON.stringify([where, options])
        await assert.rejects(LeasedSnowflake.lease(where, options), (e) => {
          assert.ok(e instanceof cls, `${what}: ${e}`)
          assert.equal(e.code, code, `${what}: ${e.message}`)
          return true
        })
      }
      assert.deepEqual(svc.log, [])
      const e = thrown(() => new LeasedSnowflake())
      assert.ok(e instanceof TypeError)
      assert.equal(e.code, 'ERR_INVALID_ARG_TYPE')
      assert.equal(thrown(() => LeasedSnowflake.prototype.nextId.call({})).code, 'ERR_INVALID_ARG_TYPE')
    })
  })
})
