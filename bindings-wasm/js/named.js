// Generators by name: `fromConfig(text)`, `NamedGenerator` and `UuidGenerator`. A port of the
// core's named configs (core/src/named: the UUID half of config.rs, generator.rs; the text forms
// and the Snowflake half are options.js's) and of the browser binding's classes
// (bindings-wasm/src/named.rs, src/uuid.rs, bindings-js values.rs and convert.rs `with_random`).
// The UUID generators themselves are uuid.js's sans-IO cores.
import { coreError, notInstance, rangeError, typeError } from './error.js'
import { describe, isNullish, u64Arg, wrong } from './convert.js'
import { UUID7_ONLY, configText, entryText, namedEntries, snowflakeEntries, specErr } from './options.js'
import { AtomicSnowflake, Snowflake, fromNamed } from './generator.js'
import { moduleClock } from './clock.js'
import { bytes } from './random.js'
import { Uuid1Core, Uuid6Core, Uuid7Core, stamp, uuidText } from './uuid.js'

const NOT_UUID =
  'a snowflake config, not a UUID one; it builds with a Snowflake generator or the named generator'
const METHODS = ['counter', 'random_increment', 'sub_millisecond']
const VERSIONS = { 1: 'uuid1', 4: 'uuid4', 6: 'uuid6', 7: 'uuid7' }

/** Core `uuid_config`: a UUID type's config takes only `method`, and only for uuid7. */
function uuidConfig(kind, entries) {
  let method = 'counter'
  for (const e of entries) {
    if (e.key === 'type') continue
    if (e.key !== 'method') throw specErr(e.keyAt, 'this key applies to type snowflake only')
    if (kind !== 'uuid7') throw specErr(e.keyAt, UUID7_ONLY)
    method = entryText(e)
    if (!METHODS.includes(method)) {
      throw specErr(e.valAt, 'unknown method (counter, random_increment, sub_millisecond)')
    }
  }
  return { kind, method }
}

/**
 * Core `NamedConfig::parse`: `{ kind, cfg }` for a snowflake (its Config), `{ kind, method }`
 * for a UUID type. The generator's checks (Packing::new), the end of the core's parse, are
 * made by the generator each caller builds next, before anything else can fail.
 */
function parseNamed(config) {
  const { b, entries, kind } = namedEntries(config)
  return kind === 'snowflake' ? { kind, cfg: snowflakeEntries(b, entries) } : uuidConfig(kind, entries)
}

/** Core `NamedConfig::parse_uuid`: a Snowflake config is refused before its layout is read. */
function parseUuid(config) {
  const { entries, kind } = namedEntries(config)
  if (kind === 'snowflake') throw coreError('InvalidConfig', { reason: NOT_UUID })
  return uuidConfig(kind, entries)
}

/** The canonical compact form of a UUID config (core NamedConfig's Display). */
const uuidConfigText = (n) =>
  'type=' + n.kind + (n.kind === 'uuid7' && n.method !== 'counter' ? ',method=' + n.method : '')


/**
 * Core `NamedGenerator` of a parsed config: `next(nowMs, nanos, fill)` gives a bigint
 * (snowflake) or the UUID's 16 bytes, asking `fill(n)` for random bytes where the core does.
 */
function build(n) {
  if (n.kind !== 'snowflake') return buildUuid(n)
  // Core LocalSnowflake: AtomicSnowflake's IDs.
  const g = fromNamed(AtomicSnowflake, n.cfg)
  return { next: (now) => g.nextIdAt(now), last: () => null }
}

/** `build` of a UUID type, apart so that a UuidGenerator alone carries no Snowflake code. */
function buildUuid(n) {
  switch (n.kind) {
    case 'uuid4':
      return { next: (now, nanos, fill) => stamp(Uint8Array.from(fill(16)), 4), last: () => null }
    case 'uuid7': {
      const g = new Uuid7Core(n.method)
      return { next: (now, nanos, fill) => g.nextAtPrecise(now, nanos, fill(10)), last: () => g.lastUnixMs }
    }
    default: {
      const g = n.kind === 'uuid1' ? new Uuid1Core() : new Uuid6Core()
      return { next: (now, nanos, fill) => g.nextAt(now, fill), last: () => g.lastUnixMs }
    }
  }
}

/** The most bytes one generator call may ask for (core host_random::MAX_DRAW). */
const MAX_DRAW = 32
/** What the core's fill answers while it has no bytes for the call (its `RandomSource`). */
const ASK = Symbol('ask')

/**
 * Core `host_random::draw_outside`: runs `call(fill)` with no random source; when it asks for
 * bytes (failing before it changes anything), draws them with `random(n)` outside it and calls
 * again with them. `random` may so call the same generator again: that call simply runs first.
 */
function drawOutside(call, random) {
  let ready = null
  for (;;) {
    let offer = ready
    let wanted = 0
    let asked = 0
    ready = null
    try {
      return call((n) => {
        asked++
        const b = offer
        offer = null
        if (b && b.length === n && asked === 1) return b
        wanted = n
        throw ASK
      })
    } catch (e) {
      if (e !== ASK) throw e
      if (asked !== 1 || wanted > MAX_DRAW) throw coreError('RandomSource')
    }
    ready = random(wanted)
  }
}

/** bindings-js `call_random`: the caller's `random(n)`, which must return a Uint8Array of `n` bytes. */
function callRandom(f, n) {
  const r = f(n)
  if (!(r instanceof Uint8Array)) {
    throw typeError(`the random callback must return a Uint8Array of ${n} bytes; it returned ${describe(r)}`)
  }
  if (r.length !== n) throw rangeError(`the random callback must return exactly ${n} bytes; it returned ${r.length}`)
  return Uint8Array.from(r)
}

/** bindings-js `with_random` over a generator's `next`: `random` checked, then drawn outside. */
function withRandom(gen, now, nanos, random) {
  let source = bytes
  if (!isNullish(random)) {
    if (typeof random !== 'function') throw wrong(random, 'random', 'a function')
    source = (n) => callRandom(random, n)
  }
  const id = drawOutside((fill) => gen.next(now, nanos, fill), source)
  return typeof id === 'bigint' ? id : uuidText(id)
}

// Class names as text: a minifier renames the classes themselves.
const NAMED = 'NamedGenerator'
const UUIDS = 'UuidGenerator'

/** The core's `Closed` error for a freed instance of class `name`. */
function closed(name) {
  throw coreError('Closed', { what: name })
}

/**
 * free() from a `random` callback of the same instance's call: it is closed from then on, but
 * the call runs on, as in the wasm build (whose glue detaches it and then answers this).
 */
function borrowed() {
  throw new Error('attempted to take ownership of Rust value while it was borrowed')
}

/**
 * `C` with `[Symbol.dispose]`, the same function as its `free` (as the wasm glue has it). A
 * call marked pure, so a bundle that leaves the class out leaves this out too.
 */
function disposable(C) {
  if (typeof Symbol.dispose === 'symbol') C.prototype[Symbol.dispose] = C.prototype.free
  return C
}

/** A parsed config handed to the UuidGenerator constructor (not reachable from outside). */
class Parsed {
  constructor(n) {
    this.n = n
  }
}

export const NamedGenerator = /* @__PURE__ */ disposable(class NamedGenerator {
  #g
  #n
  #busy = 0

  constructor(config) {
    this.#n = parseNamed(config)
    this.#g = build(this.#n)
  }

  static #live(s) {
    if (!(#g in s)) throw notInstance(NAMED)
    return s.#g ? s : closed(NAMED)
  }

  get kind() {
    return NamedGenerator.#live(this).#n.kind
  }

  get config() {
    const n = NamedGenerator.#live(this).#n
    return n.cfg ? configText(n.cfg) : uuidConfigText(n)
  }

  nextAt(nowMs, random) {
    const s = NamedGenerator.#live(this)
    const now = u64Arg(nowMs, 'nowMs')
    s.#busy++
    try {
      return withRandom(s.#g, now, 0, random)
    } finally {
      s.#busy--
    }
  }

  free() {
    if (!(#g in this)) throw notInstance(NAMED)
    const busy = this.#g && this.#busy
    this.#g = null
    if (busy) borrowed()
  }
})

export const UuidGenerator = /* @__PURE__ */ disposable(class UuidGenerator {
  #g
  #n
  #busy = 0

  constructor(version) {
    let n
    if (version instanceof Parsed) n = version.n
    else {
      const v = isNullish(version) ? 7n : u64Arg(version, 'version')
      const kind = v < 8n ? VERSIONS[v] : undefined
      if (!kind) throw coreError('InvalidConfig', { reason: 'UUID generators are version 1, 4, 6 or 7' })
      n = { kind, method: 'counter' }
    }
    this.#n = n
    this.#g = buildUuid(n)
  }

  static fromConfig(config) {
    return new UuidGenerator(new Parsed(parseUuid(config)))
  }

  static #live(s) {
    if (!(#g in s)) throw notInstance(UUIDS)
    return s.#g ? s : closed(UUIDS)
  }

  /** The next UUID on the module clock: a sub-millisecond v7 takes the precise reading. */
  next() {
    const s = UuidGenerator.#live(this)
    const clock = moduleClock()
    const [ms, nanos] = s.#n.method === 'sub_millisecond' ? clock.nowMsNanos() : [clock.nowMs(), 0]
    return s.#next(BigInt(ms), nanos, undefined)
  }

  nextAt(nowMs, random) {
    const s = UuidGenerator.#live(this)
    return s.#next(u64Arg(nowMs, 'nowMs'), 0, random)
  }

  /** One call, during which free() answers as the wasm build's does while it is borrowed. */
  #next(now, nanos, random) {
    this.#busy++
    try {
      return withRandom(this.#g, now, nanos, random)
    } finally {
      this.#busy--
    }
  }

  get version() {
    return +UuidGenerator.#live(this).#n.kind.slice(4)
  }

  get kind() {
    return UuidGenerator.#live(this).#n.kind
  }

  get config() {
    return uuidConfigText(UuidGenerator.#live(this).#n)
  }

  get lastUnixMs() {
    return UuidGenerator.#live(this).#g.last() ?? null
  }

  free() {
    if (!(#g in this)) throw notInstance(UUIDS)
    const busy = this.#g && this.#busy
    this.#g = null
    if (busy) borrowed()
  }
})

/** `fromConfig(text)`: a clocked Snowflake for `type=snowflake`, else a UuidGenerator. */
export function fromConfig(config) {
  const n = parseNamed(config)
  return n.cfg ? fromNamed(Snowflake, n.cfg) : new UuidGenerator(new Parsed(n))
}
