// LeasedSnowflake against a real `idmint serve` (test.sh starts two on loopback, on
// examples/browser/idmint.toml): one over plain HTTP and one over HTTPS with a throwaway CA
// that this Node process trusts through NODE_EXTRA_CA_CERTS — the client code a browser runs,
// over the service's real grants, renewals and releases, with the service's own checks (signed
// tokens, allowlisted namespace and layout, JSON-only POSTs). Both the WebAssembly build and the
// JavaScript port by default.
import assert from 'node:assert/strict'
import { isAbsolute, resolve } from 'node:path'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'

/** The module `where` names (a path or URL), its CommonJS exports merged in. */
async function load(where) {
  const url = isAbsolute(where) || where.startsWith('.') ? pathToFileURL(resolve(where)).href : where
  const mod = await import(url)
  return { ...(mod.default ?? {}), ...mod }
}

// The WebAssembly entry (pkg/node/wasm) and the JavaScript one (pkg/node, the port), or only the
// module IDMINT_IMPL names.
const given = process.env.IDMINT_IMPL
const impls = given
  ? [[given, await load(given)]]
  : [
      ['wasm', await load(new URL('../../pkg/node/wasm/idmint.js', import.meta.url).href)],
      ['js', await load(new URL('../../pkg/node/idmint.js', import.meta.url).href)],
    ]

// What examples/browser/idmint.toml opens to clients.
const LAYOUT = 'time=41@1ms,node=14,seq=8,epoch=2025-01-01'
const NAMESPACE = 'example'

const services = [
  ['http', process.env.IDMINT_TEST_SERVICE_URL],
  ['https', process.env.IDMINT_TEST_TLS_SERVICE_URL],
]

/** Calls `f` until it stops throwing ERR_WOULD_BLOCK (the clock is behind the node's fence). */
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

async function monitored(base, node) {
  const monitor = await (await fetch(`${base}/v1/monitor`)).json()
  return monitor.client_leases.filter((l) => l.namespace === NAMESPACE && BigInt(l.node) === BigInt(node))
}

for (const [impl, { LeasedSnowflake, Layout }] of impls) for (const [scheme, base] of services) {
  describe(`LeasedSnowflake (${impl}) against idmint serve over ${scheme}`, { timeout: 60_000 }, () => {
    test('the service URL is given (test.sh starts the service)', () => {
      assert.ok(base?.startsWith(`${scheme}://`), `IDMINT_TEST_${scheme === 'https' ? 'TLS_' : ''}SERVICE_URL: ${base}`)
    })

    test('lease, mint, renew, mint again, release: unique IDs on the leased node, inside the bound', async () => {
      const layout = new Layout(LAYOUT)
      const gen = await LeasedSnowflake.lease(base, { layout: LAYOUT, namespace: NAMESPACE, ttlMs: 3000 })
      const node = gen.node
      assert.equal(gen.lease.namespace, NAMESPACE)
      assert.equal((await monitored(base, node)).length, 1, 'the service lists the lease')
      const ids = [await whenReady(() => gen.nextId())]
      for (const id of gen.nextIds(999)) ids.push(id)
      const first = gen.lease.boundMs
      // A renewal every third of the TTL: wait for one to raise the bound.
      const end = Date.now() + 10_000
      while (gen.lease.boundMs === first) {
        assert.ok(Date.now() < end, 'no renewal within 10 s')
        await sleep(50)
      }
      for (const id of gen.nextIds(1000)) ids.push(id)
      assert.equal(new Set(ids).size, ids.length, 'no ID twice')
      const bound = gen.lease.boundMs
      for (const id of ids) {
        assert.equal(layout.decompose(id).node, node)
        assert.ok(layout.timestampMs(id) <= bound, 'every ID is inside the recorded bound')
      }
      await gen.close()
      assert.equal((await monitored(base, node)).length, 0, 'released: the service no longer lists it')
    })

    test('a namespace the service does not open to clients is refused with its code', async () => {
      await assert.rejects(
        LeasedSnowflake.lease(base, { layout: LAYOUT, namespace: 'default' }),
        (e) => e.code === 'ERR_INVALID_ARGUMENT' && e.status === 400,
      )
    })
  })
}
