// `LeasedSnowflake`: a Snowflake whose node is leased from an idmint lease service (`idmint
// serve`, "Node leases": POST /v1/leases for a grant, /v1/leases/renew on a timer,
// /v1/leases/release from close()) and renewed with `fetch`. A port of the WebAssembly build's
// class: its requests, timers and promises (bindings-wasm/src/leased.js) and every check it
// made in Rust: `lease()`'s arguments and the service's answers (bindings-js/src/client_lease.rs,
// with the rules and error texts of every other argument), and the lease's window (the core's
// LeaseWindow, core/src/snowflake/lease_window.rs), which decides whether each ID may go out,
// what a grant or renewal permits, and when to renew or retry. The differential tests hold it
// to the WebAssembly build (tests/js/leased.test.mjs).
import { coreError, notInstance, typeError } from './error.js'
import { expectObject, isNullish, stringArg, u64Arg, wrong } from './convert.js'
import { layoutArg, nodeToBits, parseLayout } from './layout.js'
import { readOptions } from './options.js'
import { snowflakeFor } from './generator.js'
import { moduleClock } from './clock.js'
import { U64_MAX, wellFormed } from './text.js'

const NAME = 'LeasedSnowflake' // as text: a minifier renames the class

const min = (a, b) => (a < b ? a : b)
const max = (a, b) => (a > b ? a : b)
const subSat = (a, b) => (a > b ? a - b : 0n)
const addSat = (a, b) => min(a + b, U64_MAX)

/** Rust's `f64 as u64`: truncated, NaN and negatives 0, saturating at 2^64-1. */
const asU64 = (x) => (x > 0 ? (x >= 2 ** 64 ? U64_MAX : BigInt(Math.trunc(x))) : 0n)

/** `performance.now()` after minting, rounded up: a later reading meets the deadline sooner. */
const monoNow = () => asU64(Math.ceil(performance.now()))

// ---- the core's LeaseWindow ----

const MIN_WAIT_MS = 50n
/** Core `LeaseWindow::granted_ttl_ms`: the TTL a service grants for `asked` (null: none asked). */
const grantedTtl = (asked) => max(1000n, min(asked ?? 30000n, 300000n))

/**
 * What a node lease permits (fence, recorded bound, deadline on `performance.now()`), checked on
 * every ID; with the generator's layout, to read each ID's time. u64 quantities are bigints.
 */
class LeaseWindow {
  constructor(node, fence, bound, sent, ttl, renewAfter, layout) {
    this.node = node
    this.fence = fence
    this.bound = 0n
    this.ttl = 0n
    this.deadline = 0n
    this.renewAt = 0n
    this.issued = null
    this.lost = false
    /** How far ahead of the service's own clock the fence was when it granted (0: unknown). */
    this.lead = 0n
    this.layout = layout
    this.renewed(bound, sent, ttl, renewAfter)
  }

  /** The core's `LeaseLost` for an ID at `t` (or any refusal when `t` is 0). */
  refusal(t) {
    const reason = this.lost
      ? 'the service reported it superseded or expired'
      : t > this.bound
        ? "the ID's time is past the bound the service recorded; waiting for a renewal"
        : 'not renewed before its deadline'
    return coreError('LeaseLost', { node: this.node, reason })
  }

  /** Whether an ID with time `t` may go out at monotonic `now`; records `t` as issued if so. */
  check(t, now) {
    if (this.lost || now >= this.deadline || t > this.bound) throw this.refusal(t)
    const f = this.fence
    if (f !== null && t <= f) throw coreError('ClockBackwards', { by_ms: f - t, last_ms: f })
    this.issued = this.issued === null ? t : max(this.issued, t)
  }

  /** An ID's time (core `Layout::timestamp_ms`). */
  time(id) {
    const l = this.layout
    const tick = (id >> BigInt(l._time.shift)) & ((1n << BigInt(l._time.bits)) - 1n)
    return min(l._epochMs + tick * l._tickMs, U64_MAX)
  }

  /** Whether `id`, minted just now, may go out: nothing, or throws the refusal. */
  admit(id) {
    this.check(this.time(id), monoNow())
  }

  /** A chunk of a batch minted just now: its earliest time against the fence, its latest
   *  against the bound, with one reading of the deadline. */
  admitIds(ids) {
    if (!ids.length) return
    let lo = U64_MAX
    let hi = 0n
    for (const id of ids) {
      const t = this.time(id)
      lo = min(lo, t)
      hi = max(hi, t)
    }
    const now = monoNow()
    this.check(lo, now)
    this.check(hi, now)
  }

  /** Core `renewed`: the service recorded `bound` and restarted the TTL from the send time. */
  renewed(bound, sent, ttl, renewAfter) {
    if (this.lost) throw this.refusal(0n)
    const invalid = (reason) => coreError('InvalidConfig', { reason })
    if (ttl === 0n) throw invalid('lease ttl must be at least 1 ms')
    if (this.fence !== null && bound <= this.fence) throw invalid('lease bound must be after its fence')
    const live = ttl - min(ttl / 10n, 1000n)
    // Renew while at least half the lease is left, so a failed renewal has time for retries;
    // never in a tight loop.
    const half = live / 2n
    // (Rust's clamp(min(50, half), half): when half is below 50, half.)
    const wait = min(max(renewAfter ?? ttl / 3n, MIN_WAIT_MS), half)
    this.bound = bound
    this.ttl = ttl
    this.deadline = addSat(sent, live)
    this.renewAt = addSat(sent, wait)
  }

  /** A renewal's answer (parsed JSON) for the request sent at `sentAt`: ms until the next. */
  renewedBy(answer, sentAt) {
    const t = terms(answer, 'renewal')
    this.renewed(t.bound, asU64(sentAt), t.ttl, t.renewAfter)
    return this.renewIn()
  }

  /** ms until the next renewal is due (0: now). */
  renewIn() {
    return Number(subSat(this.renewAt, monoNow()))
  }

  /** ms until a failed renewal is tried again (`hint`: the service's Retry-After in ms):
   *  within half of what is left before the deadline while minting goes on, at least 50. */
  retryIn(hint) {
    let wait = isNullish(hint) ? this.ttl / 10n : asU64(hint)
    const left = this.expiresIn(monoNow())
    if (left !== null && left > 0n) wait = min(wait, left / 2n)
    return Number(max(wait, MIN_WAIT_MS))
  }

  expiresIn(now) {
    return this.lost ? null : subSat(this.deadline, now)
  }

  /** What the release reports as issued: the latest time admitted, else the fence, else 0. */
  get releaseUpToMs() {
    return Number(this.issued ?? this.fence ?? 0n)
  }

  /** How long one request about this lease may take: a third of its TTL. */
  get requestTimeoutMs() {
    return Number(this.ttl / 3n)
  }

  /** ms to wait before the first ID when the fence is ahead of the page's clock: until the
   *  first tick after the fence's; 0 when ready; the core's `NodeFenced` when the fence is
   *  further ahead than an honest previous holder can have put it. */
  fenceWait() {
    if (this.lost) throw this.refusal(0n)
    const now = BigInt(moduleClock().nowMs())
    const f = this.fence
    if (f === null || f < now) return 0
    if (f - now > addSat(min(this.ttl * 2n, U64_MAX), this.lead)) {
      throw coreError('NodeFenced', { node: this.node, by_ms: f - now, fence_ms: f })
    }
    // The start of the tick after the fence's (1 ms after it for a 1 ms tick).
    const epoch = this.layout._epochMs
    const tick = this.layout._tickMs
    const ready = f >= epoch ? addSat(epoch, min(((f - epoch) / tick + 1n) * tick, U64_MAX)) : addSat(f, 1n)
    return Number(subSat(ready, now))
  }
}

// ---- lease()'s arguments and the service's answers (bindings-js client_lease.rs) ----

/**
 * `lease()`'s options (null: every default): what the request sends, and the generator's own
 * options (every other key, checked now as `new Snowflake` checks them). Keys are read in the
 * object's order, so the first mistake is the one reported.
 */
function leaseOptions(v) {
  const o = { namespace: null, layout: null, ttlMs: null, token: null, fetch: null, rest: {} }
  if (isNullish(v)) return o
  expectObject(v, 'options')
  for (let key of Object.keys(v)) {
    key = wellFormed(key)
    const x = v[key]
    if (isNullish(x)) continue
    const what = `options.${key}`
    if (key === 'namespace' || key === 'token') o[key] = wellFormed(stringArg(x, what))
    else if (key === 'ttlMs') o.ttlMs = u64Arg(x, what)
    else if (key === 'fetch') {
      if (typeof x !== 'function') throw wrong(x, what, 'a function')
      o.fetch = x
    } else if (key === 'layout') {
      const layout = layoutArg(x, what)
      o.layout = typeof x === 'string' ? wellFormed(x) : layout.spec
    } else if (key === 'node' || key === 'fenceMs' || key === 'fence_ms') {
      throw coreError('InvalidArgument', { argument: key, reason: 'comes from the lease' })
    } else {
      // The generator's key (or the generator options' unknown-key error), checked alone.
      readOptions({ [key]: x })
      o.rest[key] = x
    }
  }
  return o
}

/** The 64-bit field `key` of the answer `v`; null when absent or null and not `required`. */
function field(v, what, key, required) {
  const x = v[key]
  return !required && isNullish(x) ? null : u64Arg(x, `${what}.${key}`)
}

/** The terms of the answer `v` (`grant` or `renewal`). */
function terms(v, what) {
  expectObject(v, what)
  return {
    bound: field(v, what, 'bound_ms', true),
    ttl: field(v, what, 'ttl_ms', true),
    renewAfter: field(v, what, 'renew_after_ms', false),
  }
}

/**
 * The generator and window of `grant` (the parsed answer of POST /v1/leases, sent at
 * `performance.now()` reading `sentAt`) under `lease()`'s options (the checked snapshot, read
 * again): `[window, snowflake, ms until the first renewal]`, or the error of a grant that is
 * malformed or permits no ID.
 */
function leaseGrant(options, grant, sentAt) {
  const o = leaseOptions(options)
  const t = terms(grant, 'grant')
  for (const key of ['lease', 'namespace', 'layout']) {
    if (typeof grant[key] !== 'string') throw wrong(grant[key], `grant.${key}`, 'a string')
  }
  const node = field(grant, 'grant', 'node', true)
  const fence = field(grant, 'grant', 'fence_ms', false)
  const serverTime = field(grant, 'grant', 'server_time_ms', false)
  const layout = parseLayout(wellFormed(grant.layout))
  // The grant's layout, node (checked against it first) and fence, with the caller's policies.
  nodeToBits(layout, node)
  const snowflake = snowflakeFor({ ...readOptions(o.rest), layout, node, fenceMs: fence })
  const window = new LeaseWindow(node, fence, t.bound, asU64(sentAt), t.ttl, t.renewAfter, layout)
  // A fence ahead of the service's own clock (a store's lock delay) is a wait it vouches for.
  if (serverTime !== null && fence !== null) window.lead = subSat(fence, serverTime)
  return [window, snowflake, window.renewIn()]
}


// ---- the requests, timers and promises (src/leased.js) ----

/** Per generator: its Snowflake and lease window, where and how to ask, its lease string, timer. */
const leases = new WeakMap()

/** An `Error` with `code` and more properties, as the package's other errors. */
function error(Class, code, message, props) {
  return Object.assign(new Class(message), { code }, props)
}

/** The core's `StoreUnavailable` error, for a request to the service that got no answer. */
const unavailable = (op, reason) => coreError('StoreUnavailable', { store: 'http', op, reason })

/** The `LeaseInfo` of `st`: the window's numbers, with the namespace and node. */
function info(st) {
  const w = st.window
  const expires = w.expiresIn(monoNow())
  return {
    namespace: st.namespace,
    node: st.snowflake.node,
    fenceMs: w.fence,
    ttlMs: w.ttl,
    boundMs: w.bound,
    expiresInMs: expires === null ? null : Number(expires),
    issuedMs: w.issued,
  }
}

/** The state of `obj`, a LeasedSnowflake, or the package's TypeError for anything else. */
function leaseOf(obj) {
  const st = leases.get(obj)
  if (st === undefined) throw notInstance(NAME)
  return st
}

/** The state of an open LeasedSnowflake; the core's `Closed` error after `close()`. */
function openLease(obj) {
  const st = leaseOf(obj)
  if (st.closed) throw coreError('Closed', { what: NAME })
  return st
}

/**
 * POSTs `body` as JSON to the service and resolves to the parsed answer (`null` for none).
 * Rejects with the service's `{ code, message }` (plus `status`, and `retryAfterMs` from
 * `Retry-After`), or with ERR_STORE_UNAVAILABLE when no answer came in time. The release is
 * sent with `keepalive`, so that one made as the page goes (`pagehide`) still leaves.
 */
async function post(st, op, path, body) {
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
    throw unavailable(op, abort.signal.aborted ? 'timed out' : 'unreachable')
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
      ? error(Error, data.code, String(data.message ?? data.code), { op })
      : unavailable(op, `HTTP ${res.status}`)
  e.status = res.status
  const after = res.headers.get('retry-after')
  if (after !== null && /^\s*\d+\s*$/.test(after)) e.retryAfterMs = Number(after) * 1000
  throw e
}

/** Renews `st`'s lease in `ms`. In Node the timer alone does not keep the process alive. */
function schedule(st, ms) {
  st.timer = setTimeout(renew, ms, st)
  if (typeof st.timer === 'object') st.timer.unref?.()
}

/**
 * One renewal. A success extends the lease; a failure (an error status, no answer, a malformed
 * answer) is retried, while the generator goes on minting until its deadline; ERR_LEASE_LOST
 * stops it for good. A generator that was garbage-collected is not renewed: its lease runs out.
 */
async function renew(st) {
  if (st.closed || st.ref.deref() === undefined) return
  const body = { lease: st.lease, client_time_ms: Date.now() }
  const issued = st.window.issued
  if (issued !== null) body.issued_up_to_ms = Number(issued)
  const sent = performance.now()
  let answer
  let failure
  st.inflight = post(st, 'renew', '/v1/leases/renew', body)
  try {
    answer = await st.inflight
  } catch (e) {
    failure = e
  }
  if (st.closed || st.ref.deref() === undefined) return
  if (failure?.code === 'ERR_LEASE_LOST') {
    st.lost = true
    st.window.lost = true
    st.wake?.() // lease() may be waiting out the fence: it ends now
    return
  }
  let next
  if (failure === undefined) {
    try {
      next = st.window.renewedBy(answer, sent)
    } catch (e) {
      failure = e
    }
  }
  if (failure !== undefined) next = st.window.retryIn(failure.retryAfterMs)
  schedule(st, next)
}

/** Where the service's answers and the class's methods meet; see the package's README. */
export class LeasedSnowflake {
  constructor() {
    throw typeError('LeasedSnowflake has no constructor: use await LeasedSnowflake.lease(serviceUrl, options)')
  }

  static async lease(serviceUrl, options) {
    // The options as they are now (each property read once): checked before the request, and
    // read again for the grant's generator.
    const opts = options !== null && typeof options === 'object' ? { ...options } : options
    const url = serviceUrl instanceof URL ? serviceUrl.href : serviceUrl
    if (typeof url !== 'string') throw wrong(url, 'serviceUrl', 'a string or a URL')
    const { namespace, layout, ttlMs, token, fetch: given } = leaseOptions(opts)
    const fetch = given ?? globalThis.fetch
    if (typeof fetch !== 'function') throw typeError('options.fetch is required where there is no global fetch')
    const headers = { 'content-type': 'application/json' }
    if (token !== null) headers.authorization = `Bearer ${token}`
    const st = {
      url: String(serviceUrl).replace(/\/+$/, ''),
      fetch: (url, init) => fetch(url, init),
      headers,
      // How long the grant request may take: a third of the TTL the service will grant.
      timeoutMs: Number(grantedTtl(ttlMs) / 3n),
    }
    const body = { client_time_ms: Date.now() }
    if (namespace !== null) body.namespace = namespace
    if (layout !== null) body.layout = layout
    if (ttlMs !== null) body.ttl_ms = Number(ttlMs)
    const sent = performance.now()
    let made
    let grant
    try {
      grant = await post(st, 'acquire', '/v1/leases', body)
      made = leaseGrant(opts, grant, sent)
    } catch (e) {
      // Give back the node of a grant this generator will not use (best effort).
      if (typeof grant?.lease === 'string') {
        const upTo = Number.isSafeInteger(grant.fence_ms) ? grant.fence_ms : 0
        const release = { lease: grant.lease, issued_up_to_ms: upTo }
        await post(st, 'release', '/v1/leases/release', release).catch(() => {})
      }
      throw e
    }
    const [window, snowflake, renewIn] = made
    const gen = Object.create(LeasedSnowflake.prototype)
    Object.assign(st, { window, snowflake, lease: grant.lease, namespace: grant.namespace })
    Object.assign(st, { ref: new WeakRef(gen), closed: false, lost: false })
    leases.set(gen, st)
    schedule(st, renewIn)
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
    const st = openLease(this)
    const id = st.snowflake.nextId()
    st.window.admit(id)
    return id
  }

  nextIdString() {
    return String(this.nextId())
  }

  tryNextId() {
    const st = openLease(this)
    const id = st.snowflake.tryNextId()
    st.window.admit(id)
    return id
  }

  nextIds(n) {
    const st = openLease(this)
    const ids = st.snowflake.nextIds(n)
    // In the chunks the WebAssembly build admitted them in.
    for (let i = 0; i < ids.length; i += 8192) st.window.admitIds(ids.subarray(i, i + 8192))
    return ids
  }

  decode(id) {
    return openLease(this).snowflake.decode(id)
  }

  get node() {
    return openLease(this).snowflake.node
  }

  get lease() {
    return info(openLease(this))
  }

  get fenceMs() {
    return info(openLease(this)).fenceMs
  }

  get layout() {
    return openLease(this).snowflake.layout
  }

  get closed() {
    return leaseOf(this).closed
  }

  async close() {
    const st = leaseOf(this)
    if (st.closed) return
    st.closed = true
    clearTimeout(st.timer)
    const upTo = st.window.releaseUpToMs
    // A renewal still on its way could reach the service after the release.
    await st.inflight?.catch(() => {})
    if (st.lost) return
    const release = { lease: st.lease, issued_up_to_ms: upTo }
    await post(st, 'release', '/v1/leases/release', release)
  }
}
