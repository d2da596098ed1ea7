// One browser-style client of idmint-chaos, run in Node.js with the browser package itself:
// `LeasedSnowflake` of idmint-web (bindings-wasm's src/leased.js over the core's LeaseWindow in
// wasm) leases a node from an `idmint serve` instance, renews it on its own timer and mints
// locally. This script only drives it and reports, one JSON object per line on stdout:
//
//   {"lease": {"k", "instance", "node", "fence", "bound", "at"}}   a grant (k counts this client's leases)
//   {"seen": {"k", "bound", "at"}}                                    a higher bound after a renewal
//   {"op": {"instance", "k", "start", "end", "ok", "error", "ids"}}   one mint (or a failed grant)
//
// Times are ms on the harness's run clock: `t0` (argv) plus the time since this process read it.
// The client stops, releasing its lease, when its stdin closes.
//
//   node browser-client.mjs PKG_JS CLIENT_ID TTL_MS T0_MS URL...

import { pathToFileURL } from 'node:url'

const [pkg, idText, ttlText, t0Text, ...urls] = process.argv.slice(2)
const id = Number(idText)
const ttlMs = Number(ttlText)
const started = performance.now()
const now = () => Math.round(Number(t0Text) + performance.now() - started)
const { LeasedSnowflake } = await import(pathToFileURL(pkg).href)

let stopping = false
process.stdin.on('data', () => {})
process.stdin.on('end', () => {
  stopping = true
})
process.stdin.resume()

const say = (o) => process.stdout.write(`${JSON.stringify(o)}\n`)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
/** `CODE: message` of an error, as the harness records errors (the message cut short). */
const described = (e) => `${e?.code ?? 'ERR_UNKNOWN'}: ${String(e?.message ?? e).slice(0, 100)}`

let target = id % urls.length
let k = -1
while (!stopping) {
  const instance = target
  const start = now()
  let g
  try {
    g = await LeasedSnowflake.lease(urls[instance], { ttlMs })
  } catch (e) {
    say({ op: { instance, k: null, start, end: now(), ok: false, error: described(e), ids: [] } })
    target = (target + 1) % urls.length
    await sleep(200)
    continue
  }
  k += 1
  const info = g.lease
  let bound = info.boundMs
  const fence = info.fenceMs === null ? null : String(info.fenceMs)
  say({ lease: { k, instance, node: String(info.node), fence, bound: String(bound), at: now() } })
  // Mint until the lease is lost or the run ends, one ID every 20 ms and every fifth time a
  // batch of five, as a page would.
  let n = 0
  while (!stopping) {
    n += 1
    const s = now()
    try {
      const ids = n % 5 === 0 ? Array.from(g.nextIds(5), String) : [String(g.nextId())]
      say({ op: { instance, k, start: s, end: now(), ok: true, error: '', ids } })
    } catch (e) {
      say({ op: { instance, k, start: s, end: now(), ok: false, error: described(e), ids: [] } })
      if (e?.code === 'ERR_LEASE_LOST') break
    }
    const b = g.lease.boundMs
    if (b > bound) {
      bound = b
      say({ seen: { k, bound: String(b), at: now() } })
    }
    await sleep(20)
  }
  await g.close().catch(() => {})
  target = (target + 1) % urls.length
}
process.exit(0)
