/* Generated from bindings-js/idmint.d.ts by bindings-js/dts.mjs; do not edit. */
/* eslint-disable */

/**
 * The lock-free, sans-IO generator: pass `nowMs` to every call. No clock, no waiting, no fork
 * check — `ERR_WOULD_BLOCK` tells when to call again. Same results as the core's generators,
 * so it replays the shared test vectors exactly.
 */
export declare class AtomicSnowflake {
  /** Builds a generator from the same options as `Snowflake` (`node` required). */
  constructor(options?: SnowflakeOptions)
  /** Builds a generator from a named config (`type=snowflake,...`). */
  static fromConfig(config: string): AtomicSnowflake
  /** Mints one ID at `nowMs`, or throws `ERR_WOULD_BLOCK` (with `untilMs`) or why not. */
  nextIdAt(nowMs: bigint | number): bigint
  /** Reserves a run of up to `max` IDs from one tick at `nowMs`. */
  reserveAt(nowMs: bigint | number, max: number): Run
  /**
   * Up to `n` IDs at `nowMs` (fewer when the policy asks to wait); throws only if not even
   * one could be issued.
   */
  nextIdsAt(nowMs: bigint | number, n: number): BigUint64Array
  /** Splits an ID of this generator's layout into its fields. */
  decode(id: bigint | number | string): Parts
  /** The generator's counters. */
  stats(): Stats
  /** Gives the generator another node. */
  setNode(node: bigint | number | Record<string, bigint | number>): void
  /** The current node value. */
  get node(): bigint
  /** The layout. */
  get layout(): Layout
  /** The canonical named config this generator was built from (with its first node). */
  get config(): string
  /** The deepest step back (in ticks) `rollback_counter` can bridge, or `null`. */
  get maxRollbackTicks(): bigint | null
}

/**
 * A validated ID layout: which fields an ID holds, how wide each is, in which order, and from
 * when time counts. Build it from a preset name (`twitter`, `discord`, `instagram`,
 * `sonyflake`, `baidu`, `shardingsphere`, `leaf`, `js53`) or a text spec such as
 * `time=41@1ms,worker=10,seq=12,epoch=2020-01-01`.
 *
 * Values that can exceed 2^53 (IDs, times, node values, epochs) are `bigint`s; widths, shifts
 * and sequence numbers are `number`s.
 */
export declare class Layout {
  /**
   * Parses a preset name or a text spec; throws `ERR_INVALID_LAYOUT` (with `at`, the byte
   * offset of the problem, for text errors).
   */
  constructor(spec: string)
  /** Same as `new Layout(spec)`. */
  static parse(spec: string): Layout
  /** A preset by name only (no text specs). */
  static preset(name: string): Layout
  /** The preset names. */
  static presets(): Array<string>
  /** The canonical text spec (parses back to an equal layout). */
  get spec(): string
  /** The canonical text spec. */
  toString(): string
  /** The canonical text spec, so `JSON.stringify` writes layouts as their spec. */
  toJSON(): string
  /** The preset name, if this layout is an unmodified preset. */
  get presetName(): string | null
  /** Total bits of all fields; every ID is below 2^width. */
  get width(): number
  /** The epoch, ms since the Unix epoch. */
  get epochMs(): bigint
  /** The epoch as a `Date`. */
  get epoch(): Date
  /** Length of one tick of the time field, in ms. */
  get tickMs(): bigint
  /** The largest ID the layout can produce. */
  get maxId(): bigint
  /** The largest whole node value. */
  get maxNode(): bigint
  /** The largest sequence value in one tick. */
  get maxSequence(): number
  /** The largest tick count the time field holds. */
  get maxTime(): bigint
  /** Total bits of all node sub-fields. */
  get nodeBits(): number
  /** The node sub-field names, most significant first. */
  get nodeNames(): Array<string>
  /**
   * Whether every ID fits a JavaScript `number` exactly (width ≤ 53): then
   * `Snowflake.nextIdNumber()` is allowed.
   */
  get isJsSafe(): boolean
  /** IDs one node can issue per second at most (below 2^43, so a `number`). */
  get capacityPerSecond(): number
  /** The first instant (ms since the Unix epoch) the time field cannot represent. */
  get lifetimeEndMs(): bigint
  /** `lifetimeEndMs` as a `Date` (an Invalid Date past the year 275760). */
  get lifetimeEnd(): Date
  /** The fields, most significant first. */
  get fields(): Array<Field>
  /**
   * Packs field values into an ID; every value must fit its field (`ERR_OUT_OF_RANGE`). A
   * `Parts` object from `decompose` is accepted too (its `nodeFields` and `timestampMs` are
   * ignored).
   */
  compose(parts: ComposeParts): bigint
  /**
   * Splits an ID (bigint, safe integer number or decimal string) into its field values;
   * `ERR_OUT_OF_RANGE` if it exceeds `maxId`.
   */
  decompose(id: bigint | number | string): Parts
  /** The Unix-ms time encoded in `id` (start of its tick). */
  timestampMs(id: bigint | number | string): bigint
  /** The time encoded in `id` as a `Date`. */
  timestamp(id: bigint | number | string): Date
  /** The tick count at `nowMs`; `ERR_BEFORE_EPOCH` or `ERR_LAYOUT_EXPIRED` when there is none. */
  tickAt(nowMs: bigint | number): bigint
  /** The start of tick `tick`, ms since the Unix epoch (saturating). */
  tickStartMs(tick: bigint | number): bigint
  /** Whether the time field has run out at `nowMs`. */
  isExpiredAt(nowMs: bigint | number): boolean
  /** Splits a whole node value into its named sub-fields. */
  splitNode(node: bigint | number): Record<string, bigint>
  /** Joins node sub-field values given by name into the whole node value. */
  joinNode(values: Record<string, bigint | number>): bigint
  /** Whether both layouts have the same fields, epoch and tick (preset names are ignored). */
  equals(other: Layout | string): boolean
}

/**
 * A Snowflake generator whose node is leased from an idmint lease service (`idmint serve`) and
 * renewed with `fetch` in the background. IDs are `bigint`s, as from `Snowflake`.
 *
 * Every ID is checked before it is handed out: its time is after the node's fence (the last
 * time the node's previous holder issued) and at most the bound the service recorded for the
 * node, and the lease is alive — a renewal succeeded within the TTL (less a safety margin of a
 * tenth of it, at most 1 s), counted on `performance.now()` from when the request was sent.
 * While renewals fail (the service answers 503 or not at all) minting goes on until then, and
 * renewals are retried; a later success resumes minting. When the service answers that the
 * lease is gone (409 `ERR_LEASE_LOST`), minting stops for good: lease again.
 */
export declare class LeasedSnowflake {
  private constructor()
  /**
   * Leases a node from the service at `serviceUrl` (`POST /v1/leases`) and builds the
   * generator. Rejects with the service's error (`ERR_NO_FREE_NODE`, `ERR_UNAUTHORIZED`,
   * `ERR_INVALID_LAYOUT`, ..., with the HTTP `status`), `ERR_STORE_UNAVAILABLE` when the
   * service does not answer, or an argument error for bad options or a malformed grant.
   * When the node's fence (its previous holder's recorded bound) is ahead of this clock, the
   * promise resolves once the fence has passed, the lease renewed meanwhile; a fence more than
   * twice the TTL ahead rejects with `ERR_CLOCK_BACKWARDS` ("node N is fenced until ...":
   * this clock is behind) and gives the node back.
   */
  static lease(serviceUrl: string | URL, options?: LeasedSnowflakeOptions): Promise<LeasedSnowflake>
  /**
   * The next ID, as a `bigint`. Throws `ERR_LEASE_LOST` (with `node`, `reason`) when the
   * lease does not permit it (not renewed before its deadline, gone at the service, or the
   * ID's time past the recorded bound), `ERR_WOULD_BLOCK` (with `untilMs`) as `Snowflake`
   * does, `ERR_CLOSED` after `close()`.
   */
  nextId(): bigint
  /** The next ID as a decimal string, for JSON. */
  nextIdString(): string
  /**
   * The next ID without waiting on the clock: throws `ERR_WOULD_BLOCK` (with `untilMs`)
   * where `nextId` would wait.
   */
  tryNextId(): bigint
  /** `n` fresh IDs in a `BigUint64Array`, one reservation per tick. `n` is at most 2^24 (`ERR_LIMIT_EXCEEDED` beyond). */
  nextIds(n: number): BigUint64Array
  /** Splits an ID of this generator's layout into its fields. */
  decode(id: bigint | number | string): Parts
  /** The leased node. */
  get node(): bigint
  /** The lease: its terms as the service last stated them, and how long minting goes on. */
  get lease(): LeaseInfo
  /** The node's time fence: IDs are minted after it. `null` for a node never used. */
  get fenceMs(): bigint | null
  /** The layout the service granted. */
  get layout(): Layout
  /** Whether `close()` was called. */
  get closed(): boolean
  /**
   * Stops minting and releases the node (`POST /v1/leases/release`), recording the latest time
   * issued for its next holder. Rejects with the request's error if the release fails (the
   * generator is closed anyway, and the service frees the node a TTL later). Later calls do
   * nothing; other calls then throw `ERR_CLOSED`.
   */
  close(): Promise<void>
}

/**
 * The sans-IO generator of a named config, of any type: `nextAt(nowMs, random?)` gives a
 * `bigint` for `type=snowflake` and a UUID string otherwise. Replays the shared vectors.
 */
export declare class NamedGenerator {
  /** Parses and builds the config (compact `key=value,...` or JSON form). */
  constructor(config: string)
  /** The type name: `snowflake`, `uuid4`, `uuid7`, `uuid1` or `uuid6`. */
  get kind(): string
  /** The canonical compact form of the config. */
  get config(): string
  /**
   * The next ID at `nowMs`: a `bigint` (snowflake) or a UUID string. `random(n)` must return
   * a `Uint8Array` of `n` bytes (default: the secure random source: the OS in Node.js, `crypto.getRandomValues` in a browser); snowflakes never call it.
   * `random` runs with the generator unlocked: it may call this generator again.
   */
  nextAt(nowMs: bigint | number, random?: (n: number) => Uint8Array): bigint | string
}

/**
 * A keyed permutation of `[0, 2^bits)` (a Feistel network), for `bits` in 2..=64. The key is
 * 128 bits: a `bigint`, or 16 bytes read big-endian (`crypto.getRandomValues(new Uint8Array(16))`).
 */
export declare class Obfuscator {
  /**
   * The permutation of `[0, 2^bits)` selected by `key`; `ERR_INVALID_CONFIG` unless
   * `bits` is in 2..=64.
   */
  constructor(key: bigint | number | Uint8Array, bits: number)
  /** A full-width permutation for IDs of `layout` (time is hidden too, so they no longer sort). */
  static forLayout(key: bigint | number | Uint8Array, layout: Layout | string): Obfuscator
  /** The width of the domain, in bits. */
  get bits(): number
  /** The largest value in the domain (`2^bits - 1`). */
  get max(): bigint
  /** Maps `x` to its image; `ERR_OUT_OF_RANGE` outside the domain. */
  encode(x: bigint | number): bigint
  /** Inverts `encode`. */
  decode(y: bigint | number): bigint
}

/**
 * A Snowflake generator on the page's clock (`performance.timeOrigin + performance.now()`,
 * re-anchored to `Date.now()` once a second so that steps of the wall clock are followed, or
 * `Date.now()` where `performance` is missing): unique, roughly time-ordered 64-bit IDs as
 * `bigint`s.
 *
 * Waiting: when a policy asks to wait (a tick's sequence ran out with `onExhausted: "wait"`),
 * `nextId`, `nextIds` and `reserve` spin on the clock if the wait is at most 10 ms (one tick
 * of a millisecond layout is 1 ms) and otherwise throw `ERR_WOULD_BLOCK` with `untilMs`
 * without waiting; `tryNextId` never waits. A page cannot sleep, so nothing here blocks for
 * long.
 *
 * Pages, workers and server processes do not share generators: give each its own node, or two
 * of them will mint the same IDs.
 */
export declare class Snowflake {
  /**
   * Builds a generator on `options.node`, which has no default (default layout `twitter`,
   * `wait:1000`, `wait`, `zero`). Throws `ERR_NODE_REQUIRED` without a node (the message
   * says how to choose one), `ERR_INVALID_LAYOUT`, `ERR_INVALID_CONFIG`, `ERR_OUT_OF_RANGE`
   * (node too large), `ERR_BEFORE_EPOCH` (epoch in the future) or `ERR_LAYOUT_EXPIRED`.
   */
  constructor(options?: SnowflakeOptions)
  /**
   * Builds a generator from a named config (`type=snowflake,layout=twitter,node=5,...` or
   * its JSON form).
   */
  static fromConfig(config: string): Snowflake
  /** The next ID, as a `bigint`. */
  nextId(): bigint
  /** The next ID as a decimal string, for JSON and other places that lose digits of numbers. */
  nextIdString(): string
  /**
   * The next ID as a `number`, for JS-safe layouts (width ≤ 53, such as `js53`) only; throws
   * a `RangeError` with code `ERR_NOT_JS_SAFE` on any other layout, before minting.
   */
  nextIdNumber(): number
  /**
   * The next ID without waiting: throws `ERR_WOULD_BLOCK` (with `untilMs`) where `nextId`
   * would sleep.
   */
  tryNextId(): bigint
  /**
   * `n` fresh IDs in a `BigUint64Array`, filled in Rust one tick at a time (waiting between
   * ticks as needed). `n` is at most 2^24 (`ERR_LIMIT_EXCEEDED` beyond).
   */
  nextIds(n: number): BigUint64Array
  /** Reserves a run of up to `max` IDs from one tick with a single swap (waiting if needed). */
  reserve(max: number): Run
  /**
   * The sans-IO call: mints at `nowMs` as given (for replays and tests), never waits;
   * throws `ERR_WOULD_BLOCK` with `untilMs` when no ID can be issued before then.
   */
  nextIdAt(nowMs: bigint | number): bigint
  /** Splits an ID of this generator's layout into its fields. */
  decode(id: bigint | number | string): Parts
  /** The generator's counters. */
  stats(): Stats
  /** Gives the generator another node (a number/bigint, or the sub-fields by name). */
  setNode(node: bigint | number | Record<string, bigint | number>): void
  /** The current node value. */
  get node(): bigint
  /** The layout. */
  get layout(): Layout
  /** The canonical named config this generator was built from (with its first node). */
  get config(): string
  /** The deepest step back (in ticks) `rollback_counter` can bridge, or `null`. */
  get maxRollbackTicks(): bigint | null
}

/**
 * Obfuscates the bits below a layout's time field and keeps the time field: IDs from
 * different ticks keep their order and readable time, while node and sequence are hidden.
 */
export declare class SortableObfuscator {
  /**
   * The obfuscator for `layout`'s IDs; `ERR_INVALID_CONFIG` when fewer than 2 bits lie
   * below the time field.
   */
  constructor(key: bigint | number | Uint8Array, layout: Layout | string)
  /** How many low bits (those below the time field) are permuted. */
  get lowBits(): number
  /** Obfuscates the low bits of `id`; `ERR_OUT_OF_RANGE` above the layout's `maxId`. */
  encode(id: bigint | number): bigint
  /** Inverts `encode`. */
  decode(id: bigint | number): bigint
}

/**
 * A UUID generator (version 1, 4, 6 or 7) on the page's clock, with a sans-IO `nextAt` for
 * replays. Versions 6 and 7 are monotonic per generator; versions 1 and 6 keep one random node
 * per generator. For a v7 method other than the counter, see `Uuid7Generator`.
 */
export declare class UuidGenerator {
  /** A generator of `version` 1, 4, 6 or 7 (default 7). */
  constructor(version?: 1 | 4 | 6 | 7)
  /** A generator from a named config (`type=uuid7`, `{"type":"uuid4"}`, ...). */
  static fromConfig(config: string): UuidGenerator
  /** The next UUID, at the current time with secure randomness (the OS, or `crypto.getRandomValues`). */
  next(): string
  /**
   * The next UUID at `nowMs`; `random(n)` must return a `Uint8Array` of `n` bytes
   * (default: the secure random source: the OS in Node.js, `crypto.getRandomValues` in a browser).
   * `random` runs with the generator unlocked: it may call this generator again.
   */
  nextAt(nowMs: bigint | number, random?: (n: number) => Uint8Array): string
  /** The UUID version (1, 4, 6 or 7). */
  get version(): number
  /** The type name (`uuid1`, `uuid4`, `uuid6`, `uuid7`). */
  get kind(): string
  /** The canonical named config (`type=uuid7`). */
  get config(): string
  /**
   * The millisecond of the last UUID issued (v1, v6 and v7; may run ahead of the clock), or
   * `null` before the first and for v4.
   */
  get lastUnixMs(): bigint | null
}

/**
 * The values `Layout.compose` takes. Every value defaults to 0; `node` may also give the node
 * sub-fields by name (`{ datacenter: 1, worker: 2 }`).
 */
export interface ComposeParts {
  /** Ticks since the layout's epoch. */
  time?: bigint | number
  /** The whole node value, or the node sub-fields by name. */
  node?: bigint | number | Record<string, bigint | number>
  /** Position within the tick. */
  sequence?: bigint | number
  /** Rollback counter (layouts with a `rollback` field only). */
  rollback?: bigint | number
}

/**
 * Decodes text produced by `encode`. Without a codec (or with `"auto"`) the codec is guessed
 * from the text's shape: all digits → decimal, `0x` → hex, 13 characters → base32,
 * 11 → base62; 11 characters starting `0x` that read both as hex and as base62 are refused as
 * ambiguous (`ERR_INVALID_ENCODING`: name the codec). Malformed text throws `ERR_INVALID_ENCODING` with `codec`, `at` (character
 * index) and `reason`.
 */
export declare function parseId(text: string, codec?: 'decimal' | 'dec' | 'hex' | 'base32' | 'base62' | 'auto' | string): bigint

/**
 * Encodes an ID as text: `decimal` (default), `hex` (`0x` and lower-case digits, so that
 * `parseId` reads it back without a codec, except at 11 characters — values from 2^32 to
 * 2^36 — which also read as base62), or the fixed-width sortable `base32`
 * (13 Crockford characters) and `base62` (11 characters), whose text order equals numeric
 * order. Unknown codec names throw `ERR_INVALID_CONFIG`.
 */
export declare function encode(id: bigint | number, codec?: 'decimal' | 'dec' | 'hex' | 'base32' | 'base62' | string): string

/** One bit field of a layout, most significant first in `Layout.fields`. */
export interface Field {
  /** `time`, `seq`, `rollback`, or the node sub-field's own name. */
  name: string
  /** `time`, `node`, `sequence` or `rollback`. */
  kind: string
  /** Width in bits. */
  bits: number
  /** Position of the field's least significant bit. */
  shift: number
  /** The largest value the field holds. */
  max: bigint
}

/**
 * The clocked generator a named config describes: a `Snowflake` for `type=snowflake`, a
 * `UuidGenerator` for `type=uuid1`, `uuid4`, `uuid6` or `uuid7`. Config errors throw
 * `ERR_INVALID_LAYOUT` with `at`, the byte offset of the problem.
 */
export declare function fromConfig(config: string): Snowflake | UuidGenerator

/**
 * Options of `LeasedSnowflake.lease(serviceUrl, options)`: the lease request's and the
 * generator's policies (as for `Snowflake`; the node, layout and fence come from the grant).
 * Every key is optional.
 */
export interface LeasedSnowflakeOptions {
  /** The namespace to lease a node in (separate node spaces). Default: the service's (`web`). */
  namespace?: string
  /** The layout to ask for: a `Layout`, a preset name or a spec. Default: the service's (`js53`). */
  layout?: Layout | string
  /**
   * The lease's time to live, in ms (the service clamps it to 1000..300000). Default: the
   * service's (30000).
   */
  ttlMs?: bigint | number
  /** A bearer token for the service (`Authorization: Bearer ...`). */
  token?: string
  /** The `fetch` to make the requests with. Default: the global `fetch`. */
  fetch?: typeof fetch
  /**
   * When the clock steps back (also behind the node's time fence): `fail`, `wait:MS`,
   * `logical:MS`, `rollback_counter`, `ring:TICKS`. Default `wait:1000`.
   */
  onBackwards?: string
  /** When a tick's sequence runs out: `wait`, `borrow:TICKS`, `fail`. Default `wait`. */
  onExhausted?: string
  /** Where each tick's sequence starts: `zero`, `random`, `vibrate:K`. Default `zero`. */
  sequenceStart?: string
  /** Seed of `random` sequence starts (drawn from `crypto.getRandomValues` when 0 or absent). */
  seed?: bigint | number
}

/** The lease a `LeasedSnowflake` mints under, as the service last stated it. */
export interface LeaseInfo {
  /** The namespace the node was granted in. */
  namespace: string
  /** The leased node. */
  node: bigint
  /**
   * The node's last recorded issued time when it was granted (Unix ms), or `null` for a node
   * never used: no ID is at or before it.
   */
  fenceMs: bigint | null
  /** The lease's time to live, in ms, as the service answered last. */
  ttlMs: bigint
  /** The bound (Unix ms) the service recorded last: no ID's time passes it. */
  boundMs: bigint
  /**
   * Milliseconds until minting stops unless a renewal succeeds first (0 if that time has
   * passed), or `null` once the service answered that the lease is gone.
   */
  expiresInMs: number | null
  /** The latest time (Unix ms) put in an ID handed out, or `null` before the first. */
  issuedMs: bigint | null
}

/**
 * Parses a UUID in any usual form (hyphenated, 32 hex digits, `{braced}`, `urn:uuid:`, any
 * case) and returns the lower-case hyphenated form; `ERR_INVALID_ENCODING` with `at`.
 */
export declare function parseUuid(text: string): string

/** The field values of one ID, from `Layout.decompose` or a generator's `decode`. */
export interface Parts {
  /** Ticks since the layout's epoch. */
  time: bigint
  /** The whole node value (all node sub-fields, most significant first). */
  node: bigint
  /** Position within the tick (at most 32 bits). */
  sequence: number
  /** Rollback counter (0 when the layout has none; at most 8 bits). */
  rollback: number
  /** The node split into its named sub-fields, in layout order. */
  nodeFields: Record<string, bigint>
  /** Start of the ID's tick, ms since the Unix epoch. */
  timestampMs: bigint
}

/** A run of IDs reserved with one swap: `first`, `first + stride`, ... (`count` of them). */
export interface Run {
  /** The first ID. */
  first: bigint
  /** How many IDs the run holds (at least 1). */
  count: number
  /** Distance between consecutive IDs. */
  stride: bigint
}

/** Options of `new Snowflake(...)` and `new AtomicSnowflake(...)`. Every key is optional. */
export interface SnowflakeOptions {
  /** A `Layout`, a preset name or a text spec. Default `"twitter"`. */
  layout?: Layout | string
  /**
   * The whole node value, or the node sub-fields by name (`{ datacenter: 1, worker: 2 }`).
   * Required: without it the constructor throws `ERR_NODE_REQUIRED` (two processes on one
   * node mint the same IDs). Give every process and every worker thread its own node, or
   * lease one with `new LeasedSnowflake('local')`.
   */
  node?: bigint | number | Record<string, bigint | number>
  /**
   * When the clock steps back: `fail`, `wait:MS`, `logical:MS`, `rollback_counter`,
   * `ring:TICKS`. Default `wait:1000`.
   */
  onBackwards?: string
  /** When a tick's sequence runs out: `wait`, `borrow:TICKS`, `fail`. Default `wait`. */
  onExhausted?: string
  /** Where each tick's sequence starts: `zero`, `random`, `vibrate:K`. Default `zero`. */
  sequenceStart?: string
  /** Seed of `random` sequence starts (drawn from the OS when 0 or absent, for `Snowflake`). */
  seed?: bigint | number
  /** Time fence: the last time (Unix ms) a previous holder of this node may have issued. */
  fenceMs?: bigint | number
}

/** A generator's counters (all `bigint`). */
export interface Stats {
  /** Calls that found the clock behind the last issued tick. */
  rollbacks: bigint
  /** Total waiting asked of callers, in ms. */
  waitMs: bigint
  /** Furthest the generator has run ahead of the clock (borrow, logical), in ms. */
  maxAheadMs: bigint
  /** Times a tick's sequence ran out. */
  exhaustions: bigint
}

/**
 * A version 1 UUID with a random node (never a MAC address) from the module-wide generator.
 */
export declare function uuid1(): string

/**
 * A version 1 UUID from a 60-bit count of 100 ns intervals since 1582-10-15, a 14-bit clock
 * sequence and a 6-byte random node (its multicast bit is forced on).
 */
export declare function uuid1At(ticks: bigint | number, clockSeq: number, node: Uint8Array): string

/**
 * A version 1 UUID at `unixMs` plus `extraTicks` (0..=9999) 100 ns ticks, with a
 * 14-bit clock sequence and a 6-byte random node.
 */
export declare function uuid1RandomNode(unixMs: bigint | number, extraTicks: number, clockSeq: number, node: Uint8Array): string

/** A version 3 (MD5, name-based) UUID. `namespace` is a UUID or `dns`, `url`, `oid`, `x500`. */
export declare function uuid3(namespace: string, name: string | Uint8Array): string

/**
 * A version 4 (random) UUID from `crypto.getRandomValues`, or from the 16 bytes given.
 */
export declare function uuid4(random?: Uint8Array): string

/** A version 5 (SHA-1, name-based) UUID. `namespace` is a UUID or `dns`, `url`, `oid`, `x500`. */
export declare function uuid5(namespace: string, name: string | Uint8Array): string

/**
 * A version 7 UUID from the module-wide monotonic generator: strictly increasing within
 * the page or worker, even within one millisecond.
 */
export declare function uuid7(): string

/** A version 7 UUID from the given time and 10 random bytes (no monotonic counter). */
export declare function uuid7At(unixMs: bigint | number, random: Uint8Array): string

/** Version, variant and (for v1, v6, v7) creation time of a UUID string. */
export declare function uuidInfo(uuid: string): UuidInfo

/** What a UUID says about itself. */
export interface UuidInfo {
  /** The version nibble (0-15). */
  version: number
  /** `ncs` (includes the nil UUID), `rfc9562`, `microsoft` or `future` (includes the max UUID). */
  variant: string
  /** Creation time in ms since the Unix epoch for RFC 9562 versions 1, 6 and 7, else `null`. */
  unixMs: bigint | null
}

/** The Nil UUID (all zero bits, RFC 9562 section 5.9). */
export declare const NIL_UUID: string

/** The Max UUID (all one bits, RFC 9562 section 5.10). */
export declare const MAX_UUID: string

/**
 * A version 6 UUID (version 1's fields reordered to sort by time; random node) from the
 * module-wide generator: increasing within the page or worker.
 */
export declare function uuid6(): string

/**
 * A version 6 UUID from a 60-bit count of 100 ns intervals since 1582-10-15, a 14-bit clock
 * sequence and a 6-byte random node (its multicast bit is forced on).
 */
export declare function uuid6At(ticks: bigint | number, clockSeq: number, node: Uint8Array): string

/**
 * The version 6 UUID with the same time, clock sequence and node as the version 1 UUID given
 * (RFC 9562 section 5.6); `ERR_INVALID_ARGUMENT` for a UUID of another version.
 */
export declare function uuid1ToUuid6(uuid: string): string

/** The version 1 UUID of a version 6 UUID; `ERR_INVALID_ARGUMENT` for another version. */
export declare function uuid6ToUuid1(uuid: string): string

/**
 * `n` version 7 UUIDs from the module-wide generator, in increasing order (one clock reading
 * for the batch): the batch form of `uuid7()`. At most 2^24 (`ERR_LIMIT_EXCEEDED`).
 */
export declare function uuid7s(n: number): string[]

/**
 * A version 8 UUID from 16 bytes: the version and variant bits are set, the other 122 bits
 * kept (RFC 9562 section 5.8). For a name-based v8, pass 16 bytes of a hash.
 */
export declare function uuid8(bytes: Uint8Array): string

/**
 * A version 8 UUID from RFC 9562's three custom fields: `customA` (48 bits), `customB`
 * (12 bits), `customC` (62 bits); `ERR_OUT_OF_RANGE` (with `field`, `value`, `max`) for a value
 * past its field.
 */
export declare function uuid8FromFields(customA: bigint | number, customB: bigint | number, customC: bigint | number): string

/** The three custom fields of a version 8 UUID, or `null` for another version. */
export declare function uuid8Fields(uuid: string): Uuid8Fields | null

/**
 * A name-based version 8 UUID: the first 16 bytes of SHA-256 over the namespace and the name
 * (RFC 9562 appendix B.2). `namespace` as for `uuid5`; the name as text (UTF-8) or bytes.
 */
export declare function uuid8Sha256(namespace: string, name: string | Uint8Array): string

/** The custom fields of a version 8 UUID. */
export interface Uuid8Fields {
  /** 48 bits. */
  customA: bigint
  /** 12 bits. */
  customB: number
  /** 62 bits. */
  customC: bigint
}

/**
 * Version 7 UUIDs of one RFC 9562 section 6.2 method, monotonic per generator:
 * `'counter'` (method 1, a 42-bit counter; the default and what `uuid7()` uses),
 * `'random_increment'` (method 2, increased by a random step) or `'sub_millisecond'`
 * (method 3, `rand_a` holds the fraction of the millisecond).
 */
export declare class Uuid7Generator {
  /** A generator using `method` (default `'counter'`); `ERR_INVALID_CONFIG` for another name. */
  constructor(method?: 'counter' | 'random_increment' | 'sub_millisecond')
  /** The next UUID on the page clock (with the fraction of the millisecond `performance.now()` gives) and `crypto.getRandomValues`. */
  next(): string
  /**
   * The next UUID at `nowMs` plus `subMsNanos` (0..=999999, default 0; only
   * `'sub_millisecond'` uses it) with 10 random bytes.
   */
  nextAt(nowMs: bigint | number, random: Uint8Array, subMsNanos?: number): string
  /** The method's name. */
  get method(): string
  /** The millisecond of the last UUID issued (may run ahead of the clock), or `null`. */
  get lastUnixMs(): bigint | null
}

/**
 * A TypeID (`user_01h455vb4pex5vsknk084sn02q`): `prefix` (at most 63 of `a-z` and `_`, not
 * starting or ending with `_`; or empty) on a version 7 UUID from the module-wide generator
 * (the one `uuid7()` uses). A bad prefix throws `ERR_INVALID_ENCODING`.
 */
export declare function typeid(prefix: string): string

/** The TypeID of any UUID under `prefix`. */
export declare function typeidFromUuid(prefix: string, uuid: string): string

/**
 * Reads a TypeID (spec v0.3, strict: lower case, 26 suffix characters, the first at most `7`);
 * `ERR_INVALID_ENCODING` with `codec: 'typeid'`, `at` and `reason`.
 */
export declare function parseTypeId(text: string): TypeIdParts

/** A TypeID read back. */
export interface TypeIdParts {
  /** The type prefix (possibly empty). */
  prefix: string
  /** The 26-character base32 suffix. */
  suffix: string
  /** The UUID, lower-case hyphenated. */
  uuid: string
}

/**
 * A ULID (26 upper-case Crockford base32 characters) from the module-wide monotonic
 * generator: within one millisecond each is the last plus one (`ERR_WOULD_BLOCK` should the
 * 80-bit part run out within a millisecond).
 */
export declare function ulid(): string

/**
 * The ULID of `timestampMs` (at most 48 bits, else `ERR_OUT_OF_RANGE`) and 10 random bytes.
 */
export declare function ulidAt(timestampMs: bigint | number, random: Uint8Array): string

/** The ULID with the same 128 bits as a UUID. */
export declare function ulidFromUuid(uuid: string): string

/**
 * Reads a ULID (either case; `I L O U` and a first character above `7` refused):
 * `ERR_INVALID_ENCODING` with `codec: 'ulid'`, `at` and `reason`.
 */
export declare function parseUlid(text: string): UlidParts

/** A ULID read back. */
export interface UlidParts {
  /** The canonical (upper-case) text. */
  ulid: string
  /** Its time, ms since the Unix epoch. */
  timestampMs: bigint
  /** The 80-bit random part, 20 lower-case hex digits. */
  random: string
  /** The same 128 bits as a UUID string. */
  uuid: string
}

/**
 * Monotonic ULIDs at the times and random bytes given (`ulid()` is the clocked one): within a
 * millisecond, or when the time steps back, each is the last plus one; `ERR_WOULD_BLOCK` (with
 * `untilMs`) when the 80-bit part cannot grow.
 */
export declare class UlidGenerator {
  /** A generator that has issued nothing yet. */
  constructor()
  /** The next ULID at `unixMs` with 10 random bytes (used only on a new millisecond). */
  nextAt(unixMs: bigint | number, random: Uint8Array): string
}

/**
 * A KSUID (27 base62 characters: seconds since 2014-05-13T16:53:20Z and a 128-bit payload)
 * from the module-wide generator: a random payload on a new second, the last plus one within
 * it (`ERR_WOULD_BLOCK` should the payload run out within a second). In the full entry
 * (`idmint-web`) only, the browser package's one KSUID function: the formats entry's page-weight
 * budget leaves no room, and reading KSUIDs is the Node package's and the service's.
 */
export declare function ksuid(): string

/**
 * Which ID `text` holds, told by its shape as `idmint decode` and the service's
 * `GET /v1/decode/{id}` tell it: a UUID (36 characters hyphenated, `{braced}` or `urn:uuid:`),
 * a TypeID (an `_`, or 26 lower-case characters holding a version 7 UUID), a ULID (26
 * characters otherwise), a KSUID (27 characters), else a 64-bit ID as `parseId` reads it.
 * With `codec` (not `"auto"`), the text is a 64-bit ID in that codec and nothing else. Text the
 * chosen format refuses throws `ERR_INVALID_ENCODING` with `codec` (the format's name),
 * `at` and `reason`.
 */
export declare function parseAny(text: string, codec?: 'decimal' | 'dec' | 'hex' | 'base32' | 'base62' | 'auto' | string): AnyId

/** What `parseAny` read; `kind` tells which. */
export type AnyId = AnyIdSnowflake | AnyIdUuid | AnyIdTimed

/** A 64-bit ID (its time needs its layout: `Layout.decompose`). */
export interface AnyIdSnowflake {
  kind: 'snowflake'
  /** The ID. */
  value: bigint
  unixMs: null
}

/** A UUID or a TypeID. */
export interface AnyIdUuid {
  kind: 'uuid' | 'typeid'
  /** The UUID lower-case hyphenated, or the TypeID's text. */
  value: string
  /** The time its UUID's version carries (v1, v6, v7), ms since the Unix epoch, or `null`. */
  unixMs: bigint | null
}

/** A ULID or a KSUID. */
export interface AnyIdTimed {
  kind: 'ulid' | 'ksuid'
  /** The text (a ULID in upper case). */
  value: string
  /** Its time, ms since the Unix epoch (a KSUID's whole second). */
  unixMs: bigint
}

/** The package version (the workspace version; equals package.json's). */
export declare function version(): string

/**
 * A node value drawn uniformly from `0..=layout.maxNode` with `crypto.getRandomValues`, for
 * clients that cannot be given a node by a server. Uniqueness is then probabilistic: see the
 * README for the collision odds and for leasing nodes instead.
 */
export declare function randomNode(layout: Layout | string): bigint

export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/** Nothing: this entry is JavaScript and loads no WebAssembly. */
export interface InitOutput {}

export type SyncInitInput = BufferSource | WebAssembly.Module;

/** Does nothing (this entry holds no WebAssembly); kept so code written for the other entries works. */
export function initSync(module: { module: SyncInitInput } | SyncInitInput): InitOutput;

/** Does nothing (this entry holds no WebAssembly); kept so code written for the other entries works. */
export default function __wbg_init (module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<InitOutput>;
