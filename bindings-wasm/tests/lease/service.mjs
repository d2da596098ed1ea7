// A fake idmint lease service for the tests: the "Node leases" part of the service's HTTP
// contract (`idmint serve`: POST /v1/leases, /v1/leases/renew, /v1/leases/release), with the
// CORS answers a page on another origin needs, and switches that make it misbehave.
//
//   const svc = await leaseService({ nodes: 16 })
//   svc.renew = '503'        // renewals answer 503 (Retry-After: 1); also '409', 'hang', 'reset'
//   svc.acquire = '503'      // grants answer 503 (Retry-After: 1); also 'hang'
//   svc.grant = (g) => ({ ...g, node: undefined })   // rewrite the next grants
//   svc.renewal = (r) => ({ ...r, bound_ms: -1 })     // rewrite the next renewals' answers
//   svc.log                  // every request: { method, path, body, status, headers }
//
// Like a real store it records, for every node, the bound of each grant and renewal and the
// exact time given at release, and fences the node's next holder after it. A lease whose TTL
// ran out is renewed as long as its node was not granted to someone else meanwhile.
import { createServer } from 'node:http'

export async function leaseService({ nodes = 16, token = null } = {}) {
  const leases = new Map() // lease -> { node, ttl, expires, gone }
  const holders = new Map() // node -> lease
  const records = new Map() // node -> last recorded time (ms)
  let serial = 0
  const svc = {
    renew: 'ok',
    acquire: 'ok',
    grant: (g) => g,
    renewal: (r) => r,
    /** ms after the client's (or the service's) time that grants and renewals record. */
    reserveMs: null,
    log: [],
    records,
  }
  const sockets = new Set()

  const server = createServer((req, res) => {
    const cors = {
      'access-control-allow-origin': req.headers.origin ?? '*',
      'access-control-expose-headers': 'retry-after',
    }
    if (req.method === 'OPTIONS') {
      svc.log.push({ method: 'OPTIONS', path: req.url, body: null, status: 204, headers: req.headers })
      res.writeHead(204, {
        ...cors,
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'content-type, authorization',
        'access-control-max-age': '600',
      })
      res.end()
      return
    }
    let text = ''
    req.on('data', (c) => (text += c))
    req.on('end', () => {
      let body = null
      try {
        body = JSON.parse(text)
      } catch {}
      const entry = { method: req.method, path: req.url, body, status: 0, headers: req.headers }
      svc.log.push(entry)
      const answer = (status, json, extra = {}) => {
        entry.status = status
        res.writeHead(status, { ...cors, ...extra, ...(json === undefined ? {} : { 'content-type': 'application/json' }) })
        res.end(json === undefined ? undefined : JSON.stringify(json))
      }
      const error = (status, code, extra) => answer(status, { code, message: `${code} (fake service)` }, extra)
      if (token !== null && req.headers.authorization !== `Bearer ${token}`) return error(401, 'ERR_UNAUTHORIZED')
      if (req.method !== 'POST' || body === null) return error(400, 'ERR_INVALID_CONFIG')
      const now = Date.now()
      const reserve = (ttl, client) => Math.max(now, client ?? 0) + (svc.reserveMs ?? ttl)
      const record = (node, t) => records.set(node, Math.max(records.get(node) ?? 0, t))

      if (req.url === '/v1/leases') {
        if (svc.acquire === '503') return error(503, 'ERR_STORE_UNAVAILABLE', { 'retry-after': '1' })
        if (svc.acquire === 'hang') return // never answers (the client's timeout ends it)
        const ttl = Math.min(Math.max(body.ttl_ms ?? 30000, 1000), 300000)
        let node = -1
        for (let n = 0; n < nodes && node < 0; n++) {
          const held = leases.get(holders.get(n))
          if (held === undefined || held.gone || held.expires <= now) node = n
        }
        if (node < 0) return error(409, 'ERR_NO_FREE_NODE')
        const lease = `lease-${++serial}`
        const fence = records.get(node) ?? null
        leases.set(lease, { node, ttl, expires: now + ttl, gone: false })
        holders.set(node, lease)
        const bound = reserve(ttl, body.client_time_ms)
        record(node, bound)
        const grant = {
          lease,
          namespace: body.namespace ?? 'web',
          node,
          layout: body.layout ?? 'js53',
          fence_ms: fence,
          bound_ms: bound,
          ttl_ms: ttl,
          renew_after_ms: Math.floor(ttl / 3),
          server_time_ms: now,
        }
        return answer(201, svc.grant(grant))
      }
      if (req.url === '/v1/leases/renew') {
        if (svc.renew === 'hang') return // never answers (the client's timeout ends it)
        if (svc.renew === 'reset') return req.socket.destroy()
        if (svc.renew === '503') return error(503, 'ERR_STORE_UNAVAILABLE', { 'retry-after': '1' })
        const l = leases.get(body.lease)
        if (svc.renew === '409' || l === undefined || l.gone || holders.get(l.node) !== body.lease) {
          return error(409, 'ERR_LEASE_LOST')
        }
        l.expires = now + l.ttl
        const bound = reserve(l.ttl, Math.max(body.client_time_ms ?? 0, body.issued_up_to_ms ?? 0))
        record(l.node, bound)
        return answer(200, svc.renewal({ bound_ms: bound, ttl_ms: l.ttl, renew_after_ms: Math.floor(l.ttl / 3), server_time_ms: now }))
      }
      if (req.url === '/v1/leases/release') {
        const l = leases.get(body.lease)
        if (l !== undefined && !l.gone) {
          l.gone = true
          // The exact time given: the next holder starts right after the last ID issued.
          records.set(l.node, body.issued_up_to_ms)
        }
        return answer(204)
      }
      return error(404, 'ERR_NOT_FOUND')
    })
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  svc.url = `http://127.0.0.1:${server.address().port}`
  /** The POST requests to one path. */
  svc.requests = (path) => svc.log.filter((e) => e.method === 'POST' && e.path === path)
  svc.close = () =>
    new Promise((resolve) => {
      for (const s of sockets) s.destroy()
      server.close(() => resolve())
    })
  return svc
}
