// LeasedSnowflake: a Snowflake whose node is leased from an idmint lease service and renewed with
// `fetch`. Appended to wasm-bindgen's glue of every flavour by scripts/glue.mjs (which adds the
// export the flavour needs), where `Layout`, `Snowflake` and `__idmintLeaseWindow` are in scope;
// the same text runs as an ES module and as CommonJS, so it neither imports nor exports.
//
// It mints with an ordinary Snowflake and passes every ID through the lease's window
// (src/leased.rs, on the core's LeaseWindow), which decides whether it may go out, what a grant
// or renewal permits, and when to renew or retry. This file checks the options and the
// service's JSON, hands the numbers over, and makes the requests of the service's HTTP
// contract (`idmint serve`, "Node leases"): POST /v1/leases for a grant, /v1/leases/renew on
// a timer, /v1/leases/release from close().

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

/** `v` in a message, as the package's other argument errors show it. */
function __idmintShown(v) {
  if (v === null || v === undefined) return String(v)
  if (typeof v === 'number') return `number ${v}`
  if (typeof v === 'string') return `type string ('${v.length > 24 ? `${v.slice(0, 24)}...` : v}')`
  return typeof v === 'object' ? 'an object' : `type ${typeof v}`
}

/** `v`, given as `what`, if it is of the type `must` describes; else the argument error. */
function __idmintCheck(v, what, ok, must) {
  if (!ok) throw __idmintError(TypeError, 'ERR_INVALID_ARG_TYPE', `${what} must be ${must}; received ${__idmintShown(v)}`)
  return v
}

/** `v` as a millisecond count or node (a safe non-negative integer), given as `what`. */
function __idmintInteger(v, what) {
  if (typeof v === 'bigint' && v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(v)
  __idmintCheck(v, what, typeof v === 'number', 'a bigint or an integer number')
  if (!Number.isSafeInteger(v) || v < 0) {
    throw __idmintError(RangeError, 'ERR_OUT_OF_RANGE', `${what} must be a non-negative safe integer; received ${v}`)
  }
  return v
}

/** The terms a grant and a renewal answer both state (`what`: `grant` or `renewal`). */
function __idmintTerms(answer, what) {
  __idmintCheck(answer, what, typeof answer === 'object' && answer !== null, 'an object')
  const ra = answer.renew_after_ms
  return {
    bound: __idmintInteger(answer.bound_ms, `${what}.bound_ms`),
    ttl: __idmintInteger(answer.ttl_ms, `${what}.ttl_ms`),
    renewAfter: ra == null ? undefined : __idmintInteger(ra, `${what}.renew_after_ms`),
  }
}

/**
 * The options of `LeasedSnowflake.lease`, checked before the lease is requested: the request's
 * keys, and the generator's policies (by building a Snowflake with them). `node` and `fenceMs`
 * come from the lease.
 */
function __idmintLeaseOptions(options) {
  const o = {}
  const policies = {}
  if (options == null) return { o, policies }
  __idmintCheck(options, 'options', typeof options === 'object', 'an object')
  for (const [key, v] of Object.entries(options)) {
    if (v == null) continue
    const what = `options.${key}`
    if (key === 'namespace' || key === 'token') o[key] = __idmintCheck(v, what, typeof v === 'string', 'a string')
    else if (key === 'ttlMs') o.ttlMs = __idmintInteger(v, what)
    else if (key === 'fetch') o.fetch = __idmintCheck(v, what, typeof v === 'function', 'a function')
    else if (key === 'layout') {
      const ok = typeof v === 'string' || v instanceof Layout
      o.layout = __idmintCheck(v, what, ok, 'a Layout or a layout spec string')
    } else if (key === 'node' || key === 'fenceMs' || key === 'fence_ms') {
      const message = `invalid argument \`${key}\`: comes from the lease`
      throw __idmintError(TypeError, 'ERR_INVALID_ARGUMENT', message, { argument: key })
    } else policies[key] = v
  }
  new Snowflake({ ...policies, layout: o.layout, node: 0 }).free()
  return { o, policies }
}

/**
 * The generator of a grant (`POST /v1/leases`, sent at `performance.now()` reading `sent`):
 * `[window, snowflake, ms until the first renewal]`, or the error of a grant that is
 * malformed or permits no ID.
 */
function __idmintGrant(grant, sent, policies) {
  const { bound, ttl, renewAfter } = __idmintTerms(grant, 'grant')
  for (const key of ['lease', 'namespace', 'layout']) {
    __idmintCheck(grant[key], `grant.${key}`, typeof grant[key] === 'string', 'a string')
  }
  const node = __idmintInteger(grant.node, 'grant.node')
  const fence = grant.fence_ms == null ? undefined : __idmintInteger(grant.fence_ms, 'grant.fence_ms')
  const snowflake = new Snowflake({ ...policies, layout: grant.layout, node, fenceMs: fence })
  const window = new __idmintLeaseWindow(snowflake, fence, bound, sent, ttl, renewAfter)
  // The grant states the first terms, as a renewal states the next.
  return [window, snowflake, window.renewed(bound, sent, ttl, renewAfter)]
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

/** The state of `obj`, a LeasedSnowflake, or the TypeError for anything else. */
function __idmintLeaseOf(obj) {
  const st = __idmintLeases.get(obj)
  if (st === undefined) {
    const message = 'LeasedSnowflake method called on an object that is not a LeasedSnowflake'
    throw __idmintError(TypeError, 'ERR_INVALID_ARG_TYPE', message)
  }
  return st
}

/** The state of an open LeasedSnowflake; ERR_CLOSED after `close()`. */
function __idmintOpenLease(obj) {
  const st = __idmintLeaseOf(obj)
  if (st.closed) throw __idmintError(Error, 'ERR_CLOSED', 'LeasedSnowflake is closed')
  return st
}

/**
 * POSTs `body` as JSON to the service and resolves to the parsed answer (`null` for none).
 * Rejects with the service's `{ code, message }` (plus `status`, and `retryAfterMs` from
 * `Retry-After`), or with ERR_STORE_UNAVAILABLE when no answer came in time. The release is
 * sent with `keepalive`, so that one made as the page goes (`pagehide`) still leaves.
 */
async function __idmintPost(st, op, path, body) {
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), st.timeoutMs)
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
    return
  }
  let next
  if (failure === undefined) {
    try {
      const { bound, ttl, renewAfter } = __idmintTerms(answer, 'renewal')
      next = st.window.renewed(bound, sent, ttl, renewAfter)
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
    const ok = typeof serviceUrl === 'string' || serviceUrl instanceof URL
    __idmintCheck(serviceUrl, 'serviceUrl', ok, 'a string or a URL')
    const { o, policies } = __idmintLeaseOptions(options)
    const fetch = o.fetch ?? globalThis.fetch
    if (typeof fetch !== 'function') {
      throw __idmintError(TypeError, 'ERR_INVALID_ARG_TYPE', 'options.fetch is required where there is no global fetch')
    }
    const headers = { 'content-type': 'application/json' }
    if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`
    const st = {
      url: String(serviceUrl).replace(/\/+$/, ''),
      fetch: (url, init) => fetch(url, init),
      headers,
      // A request may take a third of the TTL (clamped as the service clamps it).
      timeoutMs: Math.min(Math.max(o.ttlMs ?? 30000, 1000), 300000) / 3,
    }
    const body = { client_time_ms: Date.now() }
    if (o.namespace !== undefined) body.namespace = o.namespace
    if (o.layout !== undefined) body.layout = typeof o.layout === 'string' ? o.layout : o.layout.spec
    if (o.ttlMs !== undefined) body.ttl_ms = o.ttlMs
    const sent = performance.now()
    const grant = await __idmintPost(st, 'acquire', '/v1/leases', body)
    let made
    try {
      made = __idmintGrant(grant, sent, policies)
    } catch (e) {
      // Give back the node this generator will not use (best effort).
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
    Object.assign(st, { ref: new WeakRef(gen), timeoutMs: grant.ttl_ms / 3, closed: false, lost: false })
    __idmintLeases.set(gen, st)
    __idmintSchedule(st, renewIn)
    // A node whose fence (its previous holder's recorded bound) is ahead of this clock is
    // ready at a known time: wait for it here, renewing as ever, instead of failing every ID
    // until then. A fence further ahead than an honest holder can have put it is refused.
    let wait
    try {
      wait = window.fenceWait()
    } catch (e) {
      await gen.close().catch(() => {})
      throw e
    }
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
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
    const [fence, , , , issued] = st.window.info
    // A renewal still on its way could reach the service after the release.
    await st.inflight?.catch(() => {})
    if (st.lost) return
    // The latest time issued, else the fence (nothing issued: the record stays as it was).
    const upTo = [issued, fence, 0].find((v) => !Number.isNaN(v))
    const release = { lease: st.lease, issued_up_to_ms: upTo }
    await __idmintPost(st, 'release', '/v1/leases/release', release)
  }
}
