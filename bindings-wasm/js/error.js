// The core's errors (idmint::Error) as the exceptions the browser package throws: a real
// `Error`, `TypeError` or `RangeError` with a stable `code`, the core's message and the
// variant's fields as camelCase properties (64-bit quantities as bigints, counts as numbers).
// A port of core/src/error.rs (messages, kinds, codes, fields) and bindings-js/src/error.rs
// (classes); the differential tests hold it to the WebAssembly build of the core.
import { U64_MAX, lossy } from './text.js'

/** What `NodeRequired` adds in the browser: how a page chooses a node. */
const NODE_HINT =
  ' (in the browser: await LeasedSnowflake.lease(serviceUrl) leases a node from an idmint lease service (idmint serve), as in the README; new Snowflake({ node: N }) takes one you give; new Snowflake({ node: randomNode(layout) }) a random one)'

const NO_NODE =
  'no node chosen: give an explicit node that no other process uses, lease one with the leased generator from a store URL (`local` for this host\'s lock directory, `redis://...` or `postgres://...` across hosts), or take a random node knowing that k random nodes out of N collide with odds of about k*k/(2N) (even odds near 1.2*sqrt(N))'

const MS_PER_DAY = 86400000n
const pad = (n, w) => String(n).padStart(w, '0')

/** Unix milliseconds as RFC 3339 UTC text with milliseconds (core `time::Rfc3339`). */
export function rfc3339(ms) {
  ms = BigInt(ms)
  let z = Number(ms / MS_PER_DAY) + 719468
  let rem = Number(ms % MS_PER_DAY)
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1
  const m = mp < 10 ? mp + 3 : mp - 9
  // The year of a u64 millisecond count reaches 5.8e8: past 2^53 only in BigInt terms, not here.
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0)
  const h = Math.floor(rem / 3600000)
  rem %= 3600000
  const mi = Math.floor(rem / 60000)
  rem %= 60000
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(Math.floor(rem / 1000), 2)}.${pad(rem % 1000, 3)}Z`
}

const B = (v) => BigInt(v) // u64 fields: bigint properties, numbers accepted
const N = (v) => Number(v) // usize fields: number properties
const L = lossy // names in messages: as the core keeps them

/**
 * Per variant: [kind code, class (E Error, T TypeError, R RangeError), message, fields as
 * [rust name, camelCase property, conversion]].
 */
const VARIANTS = {
  InvalidLayout: ['INVALID_LAYOUT', 'E', (f) => `invalid layout: ${f.reason}`, [['reason']]],
  InvalidSpec: ['INVALID_LAYOUT', 'E', (f) => `invalid spec at byte ${f.at}: ${f.reason}`, [['at', 'at', N], ['reason']]],
  LayoutExpired: [
    'LAYOUT_EXPIRED',
    'E',
    (f) => `layout expired: its time field overflowed at ${rfc3339(f.end_ms)} (${f.end_ms} ms since the Unix epoch)`,
    [['end_ms', 'endMs', B]],
  ],
  BeforeEpoch: [
    'BEFORE_EPOCH',
    'E',
    (f) => `time ${f.now_ms} ms is before the layout epoch ${f.epoch_ms} ms (${rfc3339(f.epoch_ms)})`,
    [['now_ms', 'nowMs', B], ['epoch_ms', 'epochMs', B]],
  ],
  OutOfRange: [
    'OUT_OF_RANGE',
    'R',
    (f) => `value ${f.value} does not fit field \`${f.field}\` (max ${f.max})`,
    [['field', 'field', L], ['value', 'value', B], ['max', 'max', B]],
  ],
  ClockBackwards: [
    'CLOCK_BACKWARDS',
    'E',
    (f) => `clock moved backwards by ${f.by_ms} ms (last issued tick at ${f.last_ms} ms); refusing to mint`,
    [['by_ms', 'byMs', B], ['last_ms', 'lastMs', B]],
  ],
  NodeFenced: [
    'CLOCK_BACKWARDS',
    'E',
    (f) =>
      `node ${f.node} is fenced until ${rfc3339(saturatingInc(f.fence_ms))} (${f.fence_ms} ms since the Unix epoch): this host's clock is ${f.by_ms} ms behind the bound its previous holder recorded; fix the clock, wait until then, or lease from more nodes`,
    [['node', 'node', B], ['by_ms', 'byMs', B], ['fence_ms', 'fenceMs', B]],
  ],
  SequenceExhausted: ['SEQUENCE_EXHAUSTED', 'E', (f) => `sequence exhausted in the tick starting at ${f.tick_ms} ms`, [['tick_ms', 'tickMs', B]]],
  WouldBlock: ['WOULD_BLOCK', 'E', (f) => `would block until ${f.until_ms} ms`, [['until_ms', 'untilMs', B]]],
  InvalidConfig: ['INVALID_CONFIG', 'E', (f) => `invalid config: ${f.reason}`, [['reason']]],
  InvalidEncoding: [
    'INVALID_ENCODING',
    'E',
    (f) => `cannot decode ${f.codec} string at character ${f.at}: ${f.reason}`,
    [['codec'], ['at', 'at', N], ['reason']],
  ],
  Forked: ['FORKED', 'E', () => 'generator was inherited across fork(); give the child its own node before minting', []],
  BufferTooSmall: ['BUFFER_TOO_SMALL', 'E', (f) => `buffer too small: need ${f.needed} bytes`, [['needed', 'needed', N]]],
  RandomSource: ['RANDOM_SOURCE', 'E', () => 'random source failed', []],
  StoreUnavailable: [
    'STORE_UNAVAILABLE',
    'E',
    (f) => `${f.store} store unavailable during ${f.op}: ${f.reason}`,
    [['store'], ['op'], ['reason']],
  ],
  LeaseLost: ['LEASE_LOST', 'E', (f) => `lease on node ${f.node} lost: ${f.reason}; stopped minting`, [['node', 'node', B], ['reason']]],
  NoFreeNode: ['NO_FREE_NODE', 'E', (f) => `no free node: all ${f.nodes} nodes are leased`, [['nodes', 'nodes', B]]],
  StoreMismatch: [
    'STORE_MISMATCH',
    'E',
    (f) => `${f.store} does not match its record: ${f.reason}; refusing to continue`,
    [['store'], ['reason']],
  ],
  NodeRequired: ['NODE_REQUIRED', 'E', () => NO_NODE + NODE_HINT, []],
  LimitExceeded: ['LIMIT_EXCEEDED', 'R', (f) => `${f.what} exceeds the limit of ${f.limit}`, [['what'], ['limit', 'limit', B]]],
  Closed: ['CLOSED', 'E', (f) => `${f.what} is closed`, [['what']]],
  InvalidArgument: ['INVALID_ARGUMENT', 'T', (f) => `invalid argument \`${f.argument}\`: ${f.reason}`, [['argument', 'argument', L], ['reason']]],
}

const saturatingInc = (v) => (BigInt(v) >= U64_MAX ? U64_MAX : BigInt(v) + 1n)

/** An exception of `Class` with `code` and extra properties, as bindings-js/src/error.rs makes them. */
function make(Class, code, message, props) {
  const e = new Class(message)
  e.code = code
  if (props) Object.assign(e, props)
  return e
}

/**
 * The exception for the core error `variant` (the Rust variant's name) with `fields` under
 * their Rust names. Returned, not thrown: `throw coreError('WouldBlock', { until_ms })`.
 */
export function coreError(variant, fields = {}) {
  fields = { ...fields }
  const [kind, cls, text, shape] = VARIANTS[variant]
  const props = {}
  for (const [name, camel = name, conv = String] of shape) fields[name] = props[camel] = conv(fields[name])
  return make(cls === 'T' ? TypeError : cls === 'R' ? RangeError : Error, 'ERR_' + kind, text(fields), props)
}

/** A `TypeError` with code `ERR_INVALID_ARG_TYPE`: an argument of the wrong JavaScript type. */
export const typeError = (message) => make(TypeError, 'ERR_INVALID_ARG_TYPE', message)

/** The `TypeError` of a method of class `name` (given as text: a minifier renames classes) called on an object that is not one. */
export const notInstance = (name) => typeError(`${name} method called on an object that is not a ${name}`)

/** A `RangeError` with code `ERR_OUT_OF_RANGE`: a JavaScript value the package refuses. */
export const rangeError = (message) => make(RangeError, 'ERR_OUT_OF_RANGE', message)

/** The `RangeError` of `nextIdNumber()` on a layout whose IDs may exceed 2^53. */
export const notJsSafe = (width) =>
  make(
    RangeError,
    'ERR_NOT_JS_SAFE',
    `nextIdNumber() needs a layout of at most 53 bits (isJsSafe), such as js53; this layout is ${width} bits wide, so its IDs may exceed Number.MAX_SAFE_INTEGER: use nextId() (a bigint) or nextIdString()`,
    { width },
  )
