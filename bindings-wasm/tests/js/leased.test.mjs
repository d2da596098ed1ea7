// js/leased.js (LeasedSnowflake: the core's LeaseWindow, bindings-js client_lease.rs and the
// requests of src/leased.js) against the oracle, the WebAssembly build, through the public API
// only: for each seed the same generated session runs once per build, in a world the test
// owns — `fetch` is a scripted fake service (grants, renewals and releases answered from a
// generated script: hostile answers with wrong types, missing fields, huge numbers, fences going
// down or ahead of the clock, expired TTLs, error statuses, no answer at all), `performance.now`
// and `Date.now` are one hand-moved clock, and `setTimeout` is a queue the test fires in time
// order. Everything either build does is logged and the logs must be equal: every request it
// sends (path, body, headers), every timer it sets (renewal, retry, fence wait, request
// timeout) with its delay, and every call's value or error (class, code, message, fields):
// lease()'s options checks, IDs, lease info, refusals, close().
//
//   node --test bindings-wasm/tests/js/leased.test.mjs   (IDMINT_SEED=n: another first seed;
//   IDMINT_SESSIONS, IDMINT_ARG_CASES: how many sessions and argument cases, 800 and 20,000)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { rng } from './support/random.mjs'

const { LeasedSnowflake } = await import('../../js/leased.js')
const { Layout } = await import('../../js/layout.js')
const oracle = createRequire(import.meta.url)('../../pkg/node/wasm/idmint.js')
const port = { LeasedSnowflake, Layout }

const SEED = Number(process.env.IDMINT_SEED ?? 20261129)
const SESSIONS = Number(process.env.IDMINT_SESSIONS ?? 800)
const URL_BASE = 'http://lease.test'
/** Where the hand-moved monotonic clock starts (performance.now()), for both builds alike. */
const MONO0 = 5_000.25
/** The page's time origin (performance.timeOrigin), fixed so that a seed replays exactly. */
const T0 = Date.UTC(2026, 10, 29, 9, 30)


/** What a call did, comparably: its value, or its exception's class, code, message and fields. */
function failure(e) {
  if (!(e instanceof Error)) return { threw: plain(e) }
  const props = Object.getOwnPropertyNames(e).filter((k) => k !== 'stack')
  return { error: e.constructor.name, props, ...plain({ ...e }), message: e.message }
}

function outcome(f) {
  try {
    return { ok: plain(f()) }
  } catch (e) {
    return failure(e)
  }
}

function plain(v) {
  if (typeof v === 'bigint' || v === null || typeof v !== 'object') return v
  if (v instanceof BigUint64Array) return Array.from(v)
  if (Array.isArray(v)) return v.map(plain)
  if (typeof v.spec === 'string' && 'nodeNames' in v) return { layout: v.spec }
  if (typeof v.nextId === 'function') return 'a LeasedSnowflake'
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
}

// ---- the world: clock, timers, fetch ----

const real = {
  now: performance.now,
  dateNow: Date.now,
  setTimeout: globalThis.setTimeout,
  clearTimeout: globalThis.clearTimeout,
  fetch: globalThis.fetch,
}

/**
 * A world for one build's run of a session: the clock at MONO0, no timers, the service's
 * answers taken from `script` (a function of the request, the same for both builds).
 */
function world(script) {
  const w = { mono: MONO0, timers: [], serial: 0, log: [], script, requests: 0, reads: 0 }
  const origin = T0
  w.install = () => {
    // A generator waiting out a tick spins on the clock (both builds, up to 10 ms): time
    // passes for it, a millisecond per many readings, so both end their spin at the same time.
    Object.defineProperty(performance, 'timeOrigin', { value: T0, configurable: true })
    performance.now = () => {
      if (++w.reads > 2000) {
        w.reads = 0
        w.mono += 1
      }
      return w.mono
    }
    Date.now = () => Math.floor(origin + w.mono)
    globalThis.setTimeout = (cb, ms, ...args) => {
      // As Node's timers: a delay outside 1..2^31-1 ms (NaN, 0, a huge retry) is 1 ms.
      const after = Number(ms)
      const t = { id: ++w.serial, at: w.mono + (after >= 1 && after <= 2 ** 31 - 1 ? after : 1), cb, args, unref() {} }
      w.timers.push(t)
      w.log.push(['timer', Number(ms)])
      return t
    }
    globalThis.clearTimeout = (t) => {
      const i = w.timers.indexOf(t)
      if (i >= 0) w.timers.splice(i, 1)
    }
    globalThis.fetch = (url, init) => {
      const body = JSON.parse(init.body)
      const path = url.slice(URL_BASE.length)
      w.log.push(['request', url, init.method, body, init.headers, init.keepalive])
      const a = w.script(path, body, w.requests++)
      if (a.mode === 'reject') return Promise.reject(new TypeError('fetch failed'))
      if (a.mode === 'hang') {
        return new Promise((_, reject) => init.signal.addEventListener('abort', () => reject(new Error('aborted'))))
      }
      const headers = a.headers ?? {}
      return Promise.resolve({
        ok: a.status >= 200 && a.status < 300,
        status: a.status,
        headers: { get: (k) => headers[k.toLowerCase()] ?? null },
        text: () => Promise.resolve(a.text),
      })
    }
  }
  w.restore = () => {
    performance.now = real.now
    delete performance.timeOrigin
    Date.now = real.dateNow
    globalThis.setTimeout = real.setTimeout
    globalThis.clearTimeout = real.clearTimeout
    globalThis.fetch = real.fetch
  }
  /** Lets every promise chain the builds started run to where it waits (microtasks). */
  w.settle = async () => {
    w.reads = 0
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r))
  }
  /** Fires the earliest timer, the clock moved to its time; false when none is set. */
  w.fireNext = async () => {
    if (!w.timers.length) return false
    const t = w.timers.reduce((a, b) => (b.at < a.at || (b.at === a.at && b.id < a.id) ? b : a))
    w.timers.splice(w.timers.indexOf(t), 1)
    if (t.at > w.mono) w.mono = t.at
    w.log.push(['fire', t.at - MONO0])
    t.cb(...t.args)
    await w.settle()
    return true
  }
  /** What `p` settles to, firing timers meanwhile (waits for a fence, requests that hang). */
  w.drive = async (p) => {
    let result
    p.then(
      (v) => (result = { ok: plain(v) }),
      (e) => (result = failure(e)),
    )
    await w.settle()
    for (let i = 0; result === undefined && i < 100; i++) if (!(await w.fireNext())) break
    return result ?? 'pending'
  }
  /** Moves the clock `ms` on, firing the timers due on the way in time order. */
  w.advance = async (ms) => {
    const end = w.mono + ms
    for (;;) {
      const due = w.timers.filter((t) => t.at <= end)
      if (!due.length) break
      await w.fireNext()
    }
    w.mono = end
    await w.settle()
  }
  return w
}

// ---- generated sessions ----

const SPECS = [
  'js53',
  'twitter',
  'time=41@1ms,node=14,seq=8,epoch=2025-01-01',
  'time=32@1s,node=10,seq=21,epoch=2020-01-01',
  'time=39@10ms,seq=8,machine=16,epoch=2014-09-01',
  'time=41@1ms,dc=2,w=3,seq=4,epoch=2024-01-01',
  'time=31@1ms,node=4,seq=6,epoch=2026-11-20', // a short-lived layout: 25 days
]

/** Hostile values for a field of the service's JSON (what JSON.parse can give). */
const HOSTILE = [undefined, null, '5', -1, 1.5, 2 ** 53, 2 ** 53 - 1, 1e300, true, [], {}, 0, 'x', 9007199254740993]

/** A generated value for an options key: usually valid, sometimes of any other kind. */
function optionValue(r, key, clean) {
  const junk = () => r.pick([5, -1, 1.5, 2 ** 53, -1n, 1n << 64n, 'nope', '', {}, [], true, null, undefined, () => 1, Symbol.iterator])
  if (!clean && r.chance(0.2)) return junk()
  switch (key) {
    case 'namespace':
      return r.pick(['web', 'example', '', 'n\u00e9\ud800', 'a'.repeat(40)])
    case 'token':
      return r.pick(['s3cret', '', 'tok en'])
    case 'ttlMs':
      return r.pick([10, 999, 1000, 1500, 5000, 30000n, 300001, 2 ** 40, (1n << 64n) - 1n, 0])
    case 'layout':
      return r.pick(clean ? ['string', 'instance'] : ['string', 'string', 'instance', 'freed', 'foreign', 'bad'])
    case 'onBackwards':
    case 'on_backwards':
      return r.pick(['fail', 'wait', 'wait:5', 'logical:100', 'ring:4', ...(clean ? [] : ['rollback_counter', 'sometimes', 'ring:1', 'wait:0'])])
    case 'onExhausted':
    case 'on_exhausted':
      return r.pick(['wait', 'fail', 'borrow:2', 'borrow:100', ...(clean ? [] : ['borrow:0', 'never'])])
    case 'sequenceStart':
    case 'sequence_start':
      return r.pick(['zero', 'vibrate:3', 'random', ...(clean ? [] : ['vibrate:0', 'odd'])])
    case 'seed':
      return r.pick([0, 7, 123456789n, ...(clean ? [] : [-3])])
    case 'node':
      return r.pick([1, { worker: 1 }, 0])
    case 'fenceMs':
    case 'fence_ms':
      return 1
    case 'fetch':
      return r.pick(['no', 7])
    default:
      return r.pick([1, 'x'])
  }
}

const KEYS = ['namespace', 'token', 'ttlMs', 'layout', 'onBackwards', 'onExhausted', 'sequenceStart', 'seed', 'on_backwards', 'sequence_start', 'node', 'fenceMs', 'fence_ms', 'fetch', 'ttl', 'nodes']

/** lease()'s arguments as a recipe (a Layout is made per build from it). */
function leaseArgs(r, clean) {
  const url = !clean && r.chance(0.05) ? r.pick([5, null, undefined, {}]) : r.pick(['url', 'url', 'slash', 'URL'])
  if (!clean && r.chance(0.08)) return { url, options: r.pick([5, 'x', null, undefined, () => 1, []]) }
  const options = {}
  const n = r.pick([0, 1, 2, 3, 4])
  for (let i = 0; i < n; i++) {
    // Mostly the request's keys and policies; rarely the refused or unknown ones.
    const key = clean || r.chance(0.85) ? r.pick(KEYS.slice(0, 10)) : r.pick(KEYS.slice(10))
    options[key] = optionValue(r, key, clean)
    if (key === 'layout') options.spec = r.pick(SPECS)
  }
  // A random sequence start draws a seed from crypto unless given one: give one.
  if ([options.sequenceStart, options.sequence_start].includes('random')) options.seed = 99
  return { url, options }
}

/** The arguments of a recipe for `impl` (its own Layout class; `other` the other build's). */
function materialize(args, impl, other) {
  const url = args.url === 'url' ? URL_BASE : args.url === 'slash' ? URL_BASE + '//' : args.url === 'URL' ? new URL(URL_BASE) : args.url
  if (args.options === null || typeof args.options !== 'object' || Array.isArray(args.options)) return [url, args.options]
  const o = { ...args.options }
  const spec = o.spec
  delete o.spec
  if (o.layout === 'string') o.layout = spec
  else if (o.layout === 'instance') o.layout = new impl.Layout(spec)
  else if (o.layout === 'freed') {
    o.layout = new impl.Layout(spec)
    o.layout.free()
  } else if (o.layout === 'foreign') o.layout = new other.Layout(spec)
  else if (o.layout === 'bad') o.layout = 'time=99@1ms'
  return [url, o]
}

const GRANT_FIELDS = ['lease', 'namespace', 'layout', 'node', 'fence_ms', 'bound_ms', 'ttl_ms', 'renew_after_ms', 'server_time_ms']

/** A service answer: status and JSON (or raw text), from a recipe drawn once per session. */
const json = (status, value, headers) => ({ status, text: value === undefined ? '' : JSON.stringify(value), headers })

/**
 * The script of a session: how the service answers each request, decided by `r` ahead of time
 * as data (so both builds get the same answers to the same requests). Times are relative to
 * the request's `client_time_ms` (the hand-moved clock).
 */
function script(r, clean) {
  const ttl = r.pick([1000, 1500, 3000, 30000, 300000])
  const spec = r.pick(SPECS)
  const grant = {
    status: !clean && r.chance(0.1) ? r.pick([409, 503, 500, 401, 200]) : 201,
    retryAfter: r.pick([undefined, '1', ' 2 ', 'abc', '99999999999999999999999']),
    node: clean ? r.pick([0, 1, 3]) : r.pick([0, 1, 3, 5, 15, 16, 1023]),
    // Ahead of the clock up to twice the TTL (a wait), or further (refused unless the service
    // vouches for it with its own clock).
    fence: r.pick([null, null, -5000, -1, 0, 40, 400, 1500, 2 * ttl - 5, 2 * ttl, ...(clean ? [] : [2 * ttl + 1, 2 * ttl + 50, 3 * ttl, 5 * ttl])]),
    serverAhead: r.pick([null, 0, 0, -1000, 3 * ttl]),
    // (A bound a few ms ahead: a batch crosses it.)
    bound: clean ? r.pick([ttl, 2 * ttl, 500, 20, 40]) : r.pick([ttl, ttl, 2 * ttl, 500, 20, 0, -10]),
    ttl: clean ? ttl : r.pick([ttl, ttl, ttl, 0, 1, 20]),
    renewAfter: r.pick([undefined, null, Math.floor(ttl / 3), 0, 10 ** 9]),
    layout: !clean && r.chance(0.1) ? r.pick(['nope', 'time=99@1ms']) : null,
    // One field or two replaced (two: which error wins).
    mutate: !clean && r.chance(0.25) ? [r.pick(GRANT_FIELDS), r.pick(HOSTILE), ...(r.chance(0.4) ? [r.pick(GRANT_FIELDS), r.pick(HOSTILE)] : [])] : null,
    whole: !clean && r.chance(0.04) ? r.pick(['null', '42', '"x"', '[]', 'not json']) : null,
    mode: !clean && r.chance(0.05) ? r.pick(['hang', 'reject']) : null,
  }
  const renewals = Array.from({ length: 40 }, () => ({
    kind: r.pick(['ok', 'ok', 'ok', 'ok', 'hostile', '409', '503', 'hang', 'reject', 'garbage', 'down', 'short', 'near', 'near']),
    near: r.pick([3, 20, 40, 100]),
    field: r.pick(['bound_ms', 'ttl_ms', 'renew_after_ms']),
    value: r.pick(HOSTILE),
    retryAfter: r.pick([undefined, '0', '1', ' 3 ', 'x', '99999999999999999999999']),
  }))
  return (path, body, i) => {
    const t = body.client_time_ms
    if (path === '/v1/leases') {
      const g = grant
      if (g.mode) return { mode: g.mode }
      if (g.status !== 201) {
        if (g.status === 200) return { status: 200, text: 'not json' }
        const code = { 409: 'ERR_NO_FREE_NODE', 503: 'ERR_STORE_UNAVAILABLE', 401: 'ERR_UNAUTHORIZED', 500: 'nope' }[g.status]
        return json(g.status, { code, message: `${code} (scripted)` }, g.retryAfter === undefined ? {} : { 'retry-after': g.retryAfter })
      }
      if (g.whole) return { status: 201, text: g.whole }
      const a = {
        lease: `lease-${i}`,
        namespace: body.namespace ?? 'web',
        node: g.node,
        layout: g.layout ?? body.layout ?? spec,
        fence_ms: g.fence === null ? null : t + g.fence,
        bound_ms: t + (g.fence ?? 0) + g.bound,
        ttl_ms: g.ttl,
        renew_after_ms: g.renewAfter,
        server_time_ms: g.serverAhead === null ? undefined : t + (g.fence ?? 0) - g.serverAhead,
      }
      for (let k = 0; g.mutate && k < g.mutate.length; k += 2) a[g.mutate[k]] = g.mutate[k + 1]
      return json(201, a)
    }
    if (path === '/v1/leases/renew') {
      const n = renewals[i % renewals.length]
      const up = Math.max(t, body.issued_up_to_ms ?? 0)
      const ok = { bound_ms: up + ttl, ttl_ms: ttl, renew_after_ms: Math.floor(ttl / 3), server_time_ms: t }
      switch (n.kind) {
        case 'ok':
          return json(200, ok)
        case 'short':
          return json(200, { ...ok, bound_ms: up + 3, ttl_ms: 20, renew_after_ms: 0 })
        case 'near': // a bound a batch can cross
          return json(200, { ...ok, bound_ms: up + n.near })
        case 'down': // the bound going down, below what was issued (and maybe the fence)
          return json(200, { ...ok, bound_ms: Math.max(0, up - 2 * ttl) })
        case 'hostile':
          return json(200, { ...ok, [n.field]: n.value })
        case '409':
          return json(409, { code: 'ERR_LEASE_LOST', message: 'lost (scripted)' })
        case '503':
          return json(503, { code: 'ERR_STORE_UNAVAILABLE', message: 'busy' }, n.retryAfter === undefined ? {} : { 'retry-after': n.retryAfter })
        case 'garbage':
          return { status: r.pick([200, 502]), text: '<html>' }
        default:
          return { mode: n.kind }
      }
    }
    return { status: 204, text: '' }
  }
}

/** The calls of a session after a lease resolved, as data. */
function actions(r) {
  return Array.from({ length: r.int(30) + 5 }, () => {
    const kind = r.pick(['nextId', 'nextId', 'tryNextId', 'nextIdString', 'nextIds', 'advance', 'advance', 'advance', 'info', 'decode', 'fire'])
    if (kind === 'nextIds') return [kind, r.pick([0, 1, 5, 300, 9000, 'x', -1, 2 ** 25])]
    if (kind === 'advance') return [kind, r.pick([0, 1, 3, 40, 300, 1000, 5000, 40000])]
    if (kind === 'decode') return [kind, r.pick([0n, 12345678901234n, 'x', -1, (1n << 64n) - 1n])]
    return [kind]
  })
}

/** Runs one session on `impl` (the other build `other`, for a foreign Layout): its log. */
async function run(impl, other, seed) {
  const r = rng(seed)
  // Half the sessions are meant to lease (valid arguments and grant), the rest anything.
  const clean = r.chance(0.5)
  const args = leaseArgs(r, clean)
  const w = world(script(r, clean))
  const calls = actions(r)
  const closeEarly = r.chance(0.3) ? r.int(calls.length) : -1
  w.install()
  try {
    const [url, options] = materialize(args, impl, other)
    let gen = null
    const result = await w.drive(impl.LeasedSnowflake.lease(url, options).then((g) => (gen = g)))
    w.log.push(['lease', result])
    if (gen === null) return w.log
    const info = () => outcome(() => ({ lease: gen.lease, fenceMs: gen.fenceMs, node: gen.node, layout: gen.layout.spec, closed: gen.closed }))
    w.log.push(['info', info()])
    for (let i = 0; i < calls.length; i++) {
      const [kind, arg] = calls[i]
      if (i === closeEarly) w.log.push(['close', await w.drive(gen.close())])
      if (kind === 'advance') await w.advance(arg)
      else if (kind === 'fire') await w.fireNext()
      else if (kind === 'info') w.log.push(['info', info()])
      else if (kind === 'decode') w.log.push([kind, outcome(() => gen.decode(arg))])
      else if (kind === 'nextIds') {
        const o = outcome(() => gen.nextIds(arg))
        // A batch in full would make the log long: its size, ends and a checksum.
        if (Array.isArray(o.ok)) o.ok = [o.ok.length, o.ok[0], o.ok.at(-1), o.ok.reduce((a, b) => a ^ b, 0n)]
        w.log.push([kind, o])
      } else w.log.push([kind, outcome(() => gen[kind]())])
    }
    w.log.push(['close', await w.drive(gen.close())])
    w.log.push(['after close', outcome(() => gen.nextId()), outcome(() => gen.closed)])
    return w.log
  } finally {
    w.restore()
  }
}

/** The first entry where two logs differ, for a readable failure. */
function firstDifference(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    try {
      assert.deepStrictEqual(a[i], b[i])
    } catch {
      return { at: i, port: a[i], oracle: b[i], before: a.slice(Math.max(0, i - 3), i) }
    }
  }
  return null
}

test('generated lease sessions: the port logs what the oracle logs, request by request and call by call', { timeout: 60_000 }, async () => {
  const stats = { sessions: 0, leased: 0, refused: 0, entries: 0, ids: 0, codes: new Map() }
  for (let s = 0; s < SESSIONS; s++) {
    const seed = SEED + s
    const a = await run(port, oracle, seed)
    const b = await run(oracle, port, seed)
    const diff = firstDifference(a, b)
    if (diff) assert.fail(`seed ${seed}: ${JSON.stringify(diff, (k, v) => (typeof v === 'bigint' ? `${v}n` : v), 1)}`)
    stats.sessions++
    stats.entries += a.length
    const lease = a.find((e) => e[0] === 'lease')[1]
    if (lease.ok) stats.leased++
    else stats.refused++
    for (const e of a) {
      const code = e[1]?.code
      if (typeof code === 'string') stats.codes.set(code, (stats.codes.get(code) ?? 0) + 1)
      if (/^(nextId|tryNextId|nextIdString|nextIds)$/.test(e[0]) && e[1].ok !== undefined) stats.ids++
    }
  }
  // The sessions reach every kind of outcome they are meant to (not a test that cannot fail).
  for (const code of ['ERR_LEASE_LOST', 'ERR_CLOCK_BACKWARDS', 'ERR_INVALID_CONFIG', 'ERR_INVALID_ARG_TYPE', 'ERR_OUT_OF_RANGE', 'ERR_STORE_UNAVAILABLE', 'ERR_CLOSED', 'ERR_INVALID_ARGUMENT']) {
    assert.ok(stats.codes.get(code) > 0, `no session ended in ${code}: ${JSON.stringify([...stats.codes])}`)
  }
  assert.ok(stats.leased > SESSIONS / 3 && stats.refused > SESSIONS / 10 && stats.ids > SESSIONS, JSON.stringify({ ...stats, codes: [...stats.codes] }))
  console.log(JSON.stringify({ ...stats, codes: Object.fromEntries(stats.codes) }))
})

// ---- lease()'s arguments alone ----

const WEIRD_KEYS = ['namespace', 'token', 'ttlMs', 'layout', 'fetch', 'node', 'fenceMs', 'fence_ms', 'ttl_ms', 'seed', 'onBackwards', 'on_exhausted', 'sequenceStart', 'NODE', '0', '\ud800', 'n\u00e9', '__proto__', 'constructor', 'x'.repeat(20)]

/** A value of any kind for an option (built per build: `impl`'s Layout, a getter, a proxy). */
function anyValue(r, impl, other) {
  switch (r.int(8)) {
    case 0:
      return r.pick([0, 1, -1, 1.5, 2 ** 53, 2 ** 53 - 1, NaN, Infinity, -0, 1e21])
    case 1:
      return r.pick([0n, -1n, 5n, 1n << 64n, (1n << 64n) - 1n, 123456789012n])
    case 2:
      return r.pick(['', 'web', 'js53', 'twitter', 'wait:5', 'borrow:3', 'vibrate:2', 'random', 'zero', 'fail', '12', 'time=41@1ms,node=14,seq=8,epoch=2025-01-01', '\ud800x', 'x'.repeat(30)])
    case 3:
      return r.pick([null, undefined, true, false, Symbol('s')])
    case 4:
      return r.pick([{}, [], [1], new Uint8Array(3), new Date(0), () => 1, class {}])
    case 5:
      return r.chance(0.5) ? new impl.Layout(r.pick(SPECS)) : new other.Layout(r.pick(SPECS))
    case 6:
      return new Proxy({ worker: 1 }, {})
    default:
      return r.pick([{ worker: 1, datacenter: 2 }, { node: 3 }, { toString: () => 'js53' }])
  }
}

/** `lease()`'s arguments for `impl`, drawn from `seed` (the same draws for either build). */
function anyArgs(seed, impl, other) {
  const r = rng(seed)
  const url = r.chance(0.9) ? URL_BASE : r.pick([5, null, undefined, {}, new URL(URL_BASE + '/x/'), 'relative', [URL_BASE]])
  if (r.chance(0.05)) {
    // (Not a Layout: its own properties are each build's internals, `_fields` or `__wbg_ptr`.)
    const v = anyValue(r, impl, other)
    return [url, v instanceof impl.Layout || v instanceof other.Layout ? 7 : v]
  }
  const o = {}
  const n = r.int(6)
  for (let i = 0; i < n; i++) {
    const key = r.pick(WEIRD_KEYS)
    const v = anyValue(r, impl, other)
    const how = r.int(10)
    // A getter (read once, by the snapshot), a getter that throws, a key not enumerable, or a plain value.
    if (how === 0) Object.defineProperty(o, key, { enumerable: true, configurable: true, get: () => v })
    else if (how === 1) Object.defineProperty(o, key, { enumerable: true, configurable: true, get: () => { throw new RangeError('getter') } })
    else if (how === 2) Object.defineProperty(o, key, { enumerable: false, configurable: true, value: v })
    else Object.defineProperty(o, key, { enumerable: true, configurable: true, writable: true, value: v })
  }
  if (r.chance(0.1)) o[Symbol('k')] = 1
  return [url, r.chance(0.1) ? new Proxy(o, {}) : o]
}

test("lease()'s arguments, generated: the same refusal, or the same request", { timeout: 60_000 }, async () => {
  let sent = 0
  let refused = 0
  const N = Number(process.env.IDMINT_ARG_CASES ?? 20000)
  for (let i = 0; i < N; i++) {
    const seed = SEED * 7 + i
    const logs = []
    for (const [impl, other] of [[port, oracle], [oracle, port]]) {
      // The service is not there: a call that passes the checks sends one request and fails.
      const w = world(() => ({ mode: 'reject' }))
      w.install()
      try {
        w.log.push(['lease', await w.drive(impl.LeasedSnowflake.lease(...anyArgs(seed, impl, other)))])
      } finally {
        w.restore()
      }
      logs.push(w.log)
    }
    const diff = firstDifference(...logs)
    if (diff) assert.fail(`seed ${seed}: ${JSON.stringify(diff, (k, v) => (typeof v === 'bigint' ? `${v}n` : v), 1)}`)
    if (logs[0].some((e) => e[0] === 'request')) sent++
    else refused++
  }
  assert.ok(sent > N / 10 && refused > N / 2, `${sent} sent, ${refused} refused`)
  console.log(JSON.stringify({ cases: N, sent, refused }))
})

// ---- batches that cross the recorded bound ----

/** One lease on `impl` whose grant's bound is `boundAhead` ms ahead, then `calls` batches. */
async function batches(impl, boundAhead, sizes) {
  const script = (path, body, i) =>
    path === '/v1/leases'
      ? json(201, { lease: `lease-${i}`, namespace: 'web', node: 1, layout: body.layout, fence_ms: body.client_time_ms - 5, bound_ms: body.client_time_ms + boundAhead, ttl_ms: 30000, server_time_ms: body.client_time_ms })
      : json(200, { bound_ms: body.client_time_ms + 30000, ttl_ms: 30000 })
  const w = world(script)
  w.install()
  try {
    // 256 IDs a millisecond, borrowing ahead: a batch of 9000 spans 36 ms at once.
    const options = { layout: 'time=41@1ms,node=14,seq=8,epoch=2025-01-01', onExhausted: 'borrow:1000' }
    let gen
    w.log.push(['lease', await w.drive(impl.LeasedSnowflake.lease(URL_BASE, options).then((g) => (gen = g)))])
    for (const n of sizes) {
      const o = outcome(() => gen.nextIds(n))
      if (Array.isArray(o.ok)) o.ok = [o.ok.length, o.ok[0], o.ok.at(-1)]
      w.log.push(['nextIds', n, o, outcome(() => gen.lease)])
    }
    w.log.push(['close', await w.drive(gen.close())])
    return w.log
  } finally {
    w.restore()
  }
}

test('batches crossing the recorded bound: refused in the same chunk, the same time recorded as issued', async () => {
  let refused = 0
  for (let ahead = 1; ahead <= 70; ahead += 3) {
    for (const sizes of [[9000], [8192, 8193], [100, 16385], [20000]]) {
      const a = await batches(port, ahead, sizes)
      const b = await batches(oracle, ahead, sizes)
      const diff = firstDifference(a, b)
      if (diff) assert.fail(`bound ${ahead} ms ahead, batches ${sizes}: ${JSON.stringify(diff, (k, v) => (typeof v === 'bigint' ? `${v}n` : v), 1)}`)
      refused += a.filter((e) => e[0] === 'nextIds' && e[2].code === 'ERR_LEASE_LOST').length
    }
  }
  assert.ok(refused > 20, `${refused} batches refused`)
})
