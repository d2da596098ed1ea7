// LeasedSnowflake: a Snowflake whose node is leased from an idmint lease service and renewed with
// `fetch`. Appended to wasm-bindgen's glue of every flavour by scripts/glue.mjs (which adds the
// export the flavour needs), where `__idmintLeaseRequest`, `__idmintLeaseGrant` and
// `__idmintLeaseWindow` are in scope; the same text runs as an ES module and as CommonJS, so it neither imports nor exports.
//
// This file holds only what must be JavaScript: the requests of the service's HTTP contract
// (`idmint serve`, "Node leases": POST /v1/leases for a grant, /v1/leases/renew on a timer,
// /v1/leases/release from close()) with `fetch`, the timers, the promises and each generator's
// state. Every check of a value is Rust's (src/leased.rs): `lease()`'s arguments and the
// service's answers (JSON.parse stays here) are read by the shared crate bindings-js
// (client_lease.rs: the same rules and error texts as every other argument, through the same
// options reader as the Node package's options), and each ID passes through the lease's window
// (the core's LeaseWindow), which decides whether it may go out, what a grant or renewal
// permits, and when to renew or retry. The errors made here are those of the requests (no
// answer from the service, its own error passed on, no `fetch`), in the core's codes and
// wording; a closed or foreign object gets the glue's (`__idmintClosed`, `__idmintNotInstance`).

/** Per generator: its Snowflake and lease window, where and how to ask, its lease string, timer. */
const __idmintLeases = new WeakMap()

/** An `Error` with `code` and more properties, as the package's other errors. */
function __idmintError(Class, code, message, props) {
  return Object.assign(new Class(message), { code }, props)
}

/** The core's `StoreUnavailable` error, for a request to the service that got no answer. */
function __idmintUnavailable(op, reason) {
  const message = `http store unavailable during ${op}: ${reason}`
  return __idmintError(Error, 'ERR_STORE_UNAVAILABLE', message, { store: 'http', op, reason })
}

/** The `LeaseInfo` of `st`: the window's numbers (NaN for none), with the namespace and node. */
function __idmintInfo(st) {
  const [fence, ttl, bound, expires, issued] = st.window.info
  const big = (v) => (Number.isNaN(v) ? null : BigInt(v))
  return {
    namespace: st.namespace,
    node: st.snowflake.node,
    fenceMs: big(fence),
    ttlMs: BigInt(ttl),
    boundMs: BigInt(bound),
    expiresInMs: Number.isNaN(expires) ? null : expires,
    issuedMs: big(issued),
  }
}

/** The state of `obj`, a LeasedSnowflake, or the glue's TypeError for anything else. */
function __idmintLeaseOf(obj) {
  return __idmintLeases.get(obj) ?? __idmintNotInstance(LeasedSnowflake)
}

/** The state of an open LeasedSnowflake; the glue's ERR_CLOSED after `close()`. */
function __idmintOpenLease(obj) {
  const st = __idmintLeaseOf(obj)
  return st.closed ? __idmintClosed(LeasedSnowflake) : st
}

/**
 * POSTs `body` as JSON to the service and resolves to the parsed answer (`null` for none).
 * Rejects with the service's `{ code, message }` (plus `status`, and `retryAfterMs` from
 * `Retry-After`), or with ERR_STORE_UNAVAILABLE when no answer came in time. The release is
 * sent with `keepalive`, so that one made as the page goes (`pagehide`) still leaves.
 */
async function __idmintPost(st, op, path, body) {
  const abort = new AbortController()
  // A third of the TTL: the one asked for until the grant, then the lease's own.
  const timer = setTimeout(() => abort.abort(), st.window?.requestTimeoutMs ?? st.timeoutMs)
  let res
  let text
  try {
    res = await st.fetch(st.url + path, {
      method: 'POST',
      headers: st.headers,
      body: JSON.stringify(body),
      signal: abort.signal,
      keepalive: op === 'release',
    })
    text = await res.text()
  } catch {
    throw __idmintUnavailable(op, abort.signal.aborted ? 'timed out' : 'unreachable')
  } finally {
    clearTimeout(timer)
  }
  let data = null
  try {
    data = JSON.parse(text)
  } catch {}
  if (res.ok) return data
  const e =
    typeof data?.code === 'string' && data.code.startsWith('ERR_')
      ? __idmintError(Error, data.code, String(data.message ?? data.code), { op })
      : __idmintUnavailable(op, `HTTP ${res.status}`)
  e.status = res.status
  const after = res.headers.get('retry-after')
  if (after !== null && /^\s*\d+\s*$/.test(after)) e.retryAfterMs = Number(after) * 1000
  throw e
}

/** Renews `st`'s lease in `ms`. In Node the timer alone does not keep the process alive. */
function __idmintSchedule(st, ms) {
  st.timer = setTimeout(__idmintRenew, ms, st)
  if (typeof st.timer === 'object') st.timer.unref?.()
}

/**
 * One renewal. A success extends the lease; a failure (an error status, no answer, a malformed
 * answer) is retried, while the generator goes on minting until its deadline; ERR_LEASE_LOST
 * stops it for good. A generator that was garbage-collected is not renewed: its lease runs out.
 */
async function __idmintRenew(st) {
  if (st.closed || st.ref.deref() === undefined) return
  const body = { lease: st.lease, client_time_ms: Date.now() }
  const issued = st.window.info[4]
  if (!Number.isNaN(issued)) body.issued_up_to_ms = issued
  const sent = performance.now()
  let answer
  let failure
  st.inflight = __idmintPost(st, 'renew', '/v1/leases/renew', body)
  try {
    answer = await st.inflight
  } catch (e) {
    failure = e
  }
  if (st.closed || st.ref.deref() === undefined) return
  if (failure?.code === 'ERR_LEASE_LOST') {
    st.lost = true
    st.window.lose()
    st.wake?.() // lease() may be waiting out the fence: it ends now
    return
  }
  let next
  if (failure === undefined) {
    try {
      next = st.window.renewed(answer, sent)
    } catch (e) {
      failure = e
    }
  }
  if (failure !== undefined) next = st.window.retryIn(failure.retryAfterMs)
  __idmintSchedule(st, next)
}

/** Where the service's answers and the class's methods meet; see the package's README. */
class LeasedSnowflake {
  constructor() {
    const message = 'LeasedSnowflake has no constructor: use await LeasedSnowflake.lease(serviceUrl, options)'
    throw __idmintError(TypeError, 'ERR_INVALID_ARG_TYPE', message)
  }

  static async lease(serviceUrl, options) {
    // The options as they are now (each property read once): checked before the request, and
    // read again for the grant's generator.
    const opts = options !== null && typeof options === 'object' ? { ...options } : options
    const url = serviceUrl instanceof URL ? serviceUrl.href : serviceUrl
    const [namespace, layout, ttlMs, token, given, timeoutMs] = __idmintLeaseRequest(url, opts)
    const fetch = given ?? globalThis.fetch
    if (typeof fetch !== 'function') {
      throw __idmintError(TypeError, 'ERR_INVALID_ARG_TYPE', 'options.fetch is required where there is no global fetch')
    }
    const headers = { 'content-type': 'application/json' }
    if (token !== null) headers.authorization = `Bearer ${token}`
    const st = {
      url: String(serviceUrl).replace(/\/+$/, ''),
      fetch: (url, init) => fetch(url, init),
      headers,
      timeoutMs,
    }
    const body = { client_time_ms: Date.now() }
    if (namespace !== null) body.namespace = namespace
    if (layout !== null) body.layout = layout
    if (ttlMs !== null) body.ttl_ms = ttlMs
    const sent = performance.now()
    let made
    let grant
    try {
      grant = await __idmintPost(st, 'acquire', '/v1/leases', body)
      made = __idmintLeaseGrant(opts, grant, sent)
    } catch (e) {
      // Give back the node of a grant this generator will not use (best effort).
      if (typeof grant?.lease === 'string') {
        const upTo = Number.isSafeInteger(grant.fence_ms) ? grant.fence_ms : 0
        const release = { lease: grant.lease, issued_up_to_ms: upTo }
        await __idmintPost(st, 'release', '/v1/leases/release', release).catch(() => {})
      }
      throw e
    }
    const [window, snowflake, renewIn] = made
    const gen = Object.create(LeasedSnowflake.prototype)
    Object.assign(st, { window, snowflake, lease: grant.lease, namespace: grant.namespace })
    Object.assign(st, { ref: new WeakRef(gen), closed: false, lost: false })
    __idmintLeases.set(gen, st)
    __idmintSchedule(st, renewIn)
    // A node whose fence (its previous holder's recorded bound) is ahead of this clock is
    // ready at a known time: wait for it here, renewing as ever, instead of failing every ID
    // until then. A fence further ahead than an honest holder can have put it is refused, and
    // a lease lost during the wait ends it with ERR_LEASE_LOST (the window decides both).
    try {
      for (let wait = window.fenceWait(); wait > 0; wait = window.fenceWait()) {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, wait)
          st.wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
      }
    } catch (e) {
      await gen.close().catch(() => {})
      throw e
    } finally {
      st.wake = undefined
    }
    return gen
  }

  nextId() {
    const st = __idmintOpenLease(this)
    const id = st.snowflake.nextId()
    st.window.admit(id)
    return id
  }

  nextIdString() {
    return String(this.nextId())
  }

  tryNextId() {
    const st = __idmintOpenLease(this)
    const id = st.snowflake.tryNextId()
    st.window.admit(id)
    return id
  }

  nextIds(n) {
    const st = __idmintOpenLease(this)
    const ids = st.snowflake.nextIds(n)
    // In chunks, as Snowflake mints them: each is copied into the module's memory.
    for (let i = 0; i < ids.length; i += 8192) st.window.admitIds(ids.subarray(i, i + 8192))
    return ids
  }

  decode(id) {
    return __idmintOpenLease(this).snowflake.decode(id)
  }

  get node() {
    return __idmintOpenLease(this).snowflake.node
  }

  get lease() {
    return __idmintInfo(__idmintOpenLease(this))
  }

  get fenceMs() {
    return __idmintInfo(__idmintOpenLease(this)).fenceMs
  }

  get layout() {
    return __idmintOpenLease(this).snowflake.layout
  }

  get closed() {
    return __idmintLeaseOf(this).closed
  }

  async close() {
    const st = __idmintLeaseOf(this)
    if (st.closed) return
    st.closed = true
    clearTimeout(st.timer)
    const upTo = st.window.releaseUpToMs
    // A renewal still on its way could reach the service after the release.
    await st.inflight?.catch(() => {})
    if (st.lost) return
    const release = { lease: st.lease, issued_up_to_ms: upTo }
    await __idmintPost(st, 'release', '/v1/leases/release', release)
  }
}
