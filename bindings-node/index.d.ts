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
 * A Snowflake generator whose node comes from a node source: a lease from a store
 * (`local` — this host's per-user lock directory —, `file:DIR`, `redis://...`,
 * `postgres://...`) — a node no live holder has, renewed in the
 * background, fenced after the node's last issued time — or a fixed source (`static:N`,
 * `env:NAME`, `ip`, `ip:A.B.C.D`, `random`). IDs are `bigint`s, as from `Snowflake`.
 *
 * Build it once at startup (the constructor makes a store round trip) and `close()` it on
 * shutdown to release the node with its exact last issued time (otherwise the node is
 * released when the object is garbage-collected, or by the store when the process exits).
 */
export declare class LeasedSnowflake {
  /**
   * Leases a node from `source` (or resolves a fixed one) and builds the generator. Throws
   * `ERR_NO_FREE_NODE` (every node is held), `ERR_STORE_UNAVAILABLE` (with `store`, `op`, `reason`),
   * `ERR_INVALID_CONFIG` (a bad source or option), `ERR_INVALID_LAYOUT`, `ERR_OUT_OF_RANGE`.
   */
  constructor(source: string, options?: LeasedSnowflakeOptions)
  /**
   * The next ID, as a `bigint`. Throws `ERR_LEASE_LOST` (with `node`, `reason`) once the
   * lease could not be kept; minting resumes by itself when the store is back.
   */
  nextId(): bigint
  /** The next ID as a decimal string, for JSON. */
  nextIdString(): string
  /**
   * The next ID without waiting on the clock: throws `ERR_WOULD_BLOCK` (with `untilMs`)
   * where `nextId` would sleep.
   */
  tryNextId(): bigint
  /** `n` fresh IDs in a `BigUint64Array`, one reservation per tick. `n` is at most 2^24 (`ERR_LIMIT_EXCEEDED` beyond). */
  nextIds(n: number): BigUint64Array
  /** Splits an ID of this generator's layout into its fields. */
  decode(id: bigint | number | string): Parts
  /**
   * The node IDs are minted with now (it changes after a swap, or after a lost lease is
   * replaced).
   */
  get node(): bigint
  /** The lease minted under now, or `null` for a fixed node source. */
  get lease(): LeaseInfo | null
  /**
   * The current generator's high-water mark (Unix ms: start of the latest tick issued, or
   * the fence), or `null` before the first ID.
   */
  get highWaterMs(): bigint | null
  /** The time fence IDs are minted after now (the lease's, or the one given), if any. */
  get fenceMs(): bigint | null
  /** The layout. */
  get layout(): Layout
  /** Counters of the generators and the lease. */
  stats(): LeaseStats
  /** Whether `close()` was called. */
  get closed(): boolean
  /**
   * Stops the renewal thread and releases the node, recording its exact last issued time
   * for the next holder. Later calls do nothing; other calls then throw `ERR_CLOSED`.
   */
  close(): void
}

/**
 * The generator of a named config, of any type, the same config on every idmint surface: the
 * core's types (`type=snowflake,layout=twitter,node=5`, `type=uuid7`, ...), segment IDs of one
 * key (`type=segment,store=sqlite:ids.db,key=orders[,step=N,journal=PATH,...]`) or a Snowflake
 * generator on a leased node (`type=snowflake,layout=twitter,lease=redis://...[,namespace=NS,
 * ttl_ms=MS]`); config keys are snake_case. `nextId()` mints on the clock (and the store);
 * `nextAt(nowMs, random?)` is the sans-IO call of the core's types and replays the shared
 * vectors. Config errors throw `ERR_INVALID_LAYOUT` with `at`, the byte offset of the problem;
 * a closed generator throws `ERR_CLOSED`.
 */
export declare class NamedGenerator {
  /** Parses and builds the config (compact `key=value,...` or JSON form). */
  constructor(config: string)
  /** The type name: `snowflake` (leased or not), `uuid4`, `uuid7`, `uuid1`, `uuid6` or `segment`. */
  get kind(): string
  /**
   * The config: the canonical compact form for the core's types; the keys as given, with
   * passwords in store URLs hidden, for the store-backed ones.
   */
  get config(): string
  /**
   * The next ID at `nowMs`: a `bigint` (snowflake) or a UUID string. `random(n)` must return
   * a `Uint8Array` of `n` bytes (default: the secure random source: the OS in Node.js, `crypto.getRandomValues` in a browser); snowflakes never call it.
   * `random` runs with the generator unlocked: it may call this generator again.
   * It may also `close()` it; this call then throws `ERR_CLOSED`.
   * A store-backed type has no sans-IO call: `ERR_INVALID_CONFIG`.
   */
  nextAt(nowMs: bigint | number, random?: (n: number) => Uint8Array): bigint | string
  /**
   * The next ID on the clock and OS randomness (and the store): a `bigint`, or a UUID string
   * for UUID types. Blocks where the type waits (a Snowflake's next tick, a segment store's
   * next range, up to its `wait_timeout_ms`).
   */
  nextId(): bigint | string
  /**
   * The next `n` IDs of a 64-bit type, in order, in a `BigUint64Array` (`n` at most 2^24);
   * a UUID type throws `ERR_INVALID_CONFIG`.
   */
  nextIds(n: number): BigUint64Array
  /** Whether `close()` was called. */
  get closed(): boolean
  /**
   * Releases what the generator holds: a leased node, with its exact last issued time; a
   * segment allocator's journal. Later calls do nothing.
   */
  close(): void
}

/**
 * A keyed permutation of `[0, 2^bits)` (a Feistel network), for `bits` in 2..=64. The key is
 * 128 bits: a `bigint`, or 16 bytes read big-endian (`crypto.randomBytes(16)`).
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
 * IDs per key from ranges of a segment store (`sqlite:PATH`, `postgres://...`,
 * `redis://...`): one store round trip per range, the next range fetched in the background
 * before the current one runs out, the step adapting to the load. IDs are `bigint`s,
 * increasing per key.
 *
 * A call blocks only when both buffers of its key are empty (the first call for a key, an
 * outage longer than the buffers last), for at most `waitTimeoutMs`; then it throws the
 * store's error (`ERR_STORE_UNAVAILABLE`).
 */
export declare class SegmentAllocator {
  /**
   * Opens the store and starts the allocator (resuming the journal, if any). Throws
   * `ERR_INVALID_CONFIG` (a bad URL or option), `ERR_STORE_UNAVAILABLE`.
   */
  constructor(storeUrl: string, options?: SegmentAllocatorOptions)
  /** The next ID for `key`, as a `bigint`. */
  nextId(key: string): bigint
  /** The next `n` IDs for `key`, increasing, in a `BigUint64Array`. `n` is at most 2^24 (`ERR_LIMIT_EXCEEDED` beyond). */
  nextIds(key: string, n: number): BigUint64Array
  /**
   * A snapshot of `key`'s buffers, or `null` if the key was never used (nor resumed from the
   * journal).
   */
  stats(key: string): SegmentKeyStats | null
  /** The keys used or resumed so far, sorted. */
  keys(): Array<string>
  /**
   * Writes a journal checkpoint now. Throws `ERR_INVALID_CONFIG` unless the allocator was opened
   * with `checkpointEveryMs` (and `journal`): a journal alone is written at `close()` only.
   */
  checkpoint(): void
  /** The store: `sqlite`, `postgres`, `redis`, ... */
  get store(): string
  /** Whether `close()` was called. */
  get closed(): boolean
  /**
   * Stops the background threads (after a fetch in progress lands) and records the unserved
   * values in the journal, if any. Later calls do nothing; other calls then throw
   * `ERR_CLOSED`.
   */
  close(): void
}

/**
 * A Snowflake generator on the system clock: unique, roughly time-ordered 64-bit IDs as
 * `bigint`s.
 *
 * It carries the wall clock on the monotonic clock and re-reads it once a second, following its
 * steps (a step back meets the `onBackwards` policy within a second). When a policy asks
 * to wait (a tick's sequence ran out with `onExhausted: "wait"`, or a short clock step back
 * with `onBackwards: "wait:MS"`), `nextId` and `nextIds` sleep on the calling thread — at most
 * one tick for exhaustion; use `tryNextId` to get `ERR_WOULD_BLOCK` instead.
 *
 * Processes and worker threads do not share generators: give each its own node, or two of
 * them will mint the same IDs.
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
 * A UUID generator (version 1, 4 or 7) on the system clock, with a sans-IO `nextAt` for
 * replays. Versions 6 and 7 are monotonic per generator; versions 1 and 6 keep one random node
 * per generator.
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
 * The clocked generator a named config describes: a `Snowflake` for `type=snowflake` with
 * `node`, a `UuidGenerator` for `type=uuid1`, `uuid4`, `uuid6` or `uuid7`, and a
 * `NamedGenerator` for the store-backed types (`type=segment,store=URL,key=KEY`,
 * `type=snowflake,...,lease=URL`). Config errors throw `ERR_INVALID_LAYOUT` with `at`, the byte
 * offset of the problem.
 */
export declare function fromConfig(config: string): Snowflake | UuidGenerator | NamedGenerator

/**
 * Options of `new LeasedSnowflake(source, options)`: the generator's (as for `Snowflake`,
 * without `node`, which the source decides) and the lease's. Every key is optional.
 */
export interface LeasedSnowflakeOptions {
  /** A `Layout`, a preset name or a text spec. Default `"twitter"`. */
  layout?: Layout | string
  /**
   * When the clock steps back (also behind the node's time fence): `fail`, `wait:MS`,
   * `logical:MS`, `rollback_counter`, `ring:TICKS`. Default `wait:1000`.
   */
  onBackwards?: string
  /** When a tick's sequence runs out: `wait`, `borrow:TICKS`, `fail`. Default `wait`. */
  onExhausted?: string
  /** Where each tick's sequence starts: `zero`, `random`, `vibrate:K`. Default `zero`. */
  sequenceStart?: string
  /** Seed of `random` sequence starts (drawn from the OS when 0 or absent). */
  seed?: bigint | number
  /** An extra time fence (Unix ms), on top of the node's recorded one. */
  fenceMs?: bigint | number
  /**
   * Separates unrelated node spaces in one store (`[A-Za-z0-9_.-]`, 1 to 64 bytes).
   * Default `"default"`.
   */
  namespace?: string
  /**
   * Lease lifetime without renewal, in ms; minting stops (`ERR_LEASE_LOST`) before a lease
   * that could not be renewed could expire. Default 10000.
   */
  ttlMs?: bigint | number
  /** How often the background thread renews, in ms. Default `ttlMs / 3`. */
  renewEveryMs?: bigint | number
  /** How soon a failed renewal is retried, in ms. Default `ttlMs / 20` (5 to 250). */
  retryEveryMs?: bigint | number
  /** How long before the lease could expire minting stops, in ms. Default `ttlMs / 10`. */
  safetyMarginMs?: bigint | number
  /** How far ahead of now each renewal records the node's bound, in ms. Default `ttlMs`. */
  reserveMs?: bigint | number
  /**
   * Take another node when the clock is found behind the last issued time by more than
   * this many ms (instead of waiting or failing). Default: never.
   */
  swapAfterMs?: bigint | number
  /** Lease only nodes `0 .. nodes - 1`. Default: the layout's whole node space. */
  nodes?: bigint | number
  /** The holder name recorded in the store. Default `host:pid:random`. */
  holder?: string
}

/** The lease a `LeasedSnowflake` mints under. */
export interface LeaseInfo {
  /** The store: `file`, `redis` or `postgres`. */
  store: string
  /** The namespace the node was granted in. */
  namespace: string
  /** The leased node. */
  node: bigint
  /** Fencing token: grows with every grant of this node. */
  token: bigint
  /**
   * The node's recorded last issued time (Unix ms) when it was granted, or `null` for a
   * node never used: no ID of this lease is at or before its tick.
   */
  fenceMs?: bigint
  /** The lease's time to live, in ms. */
  ttlMs: bigint
  /** The holder name recorded in the store. */
  holder: string
  /** The bound (Unix ms) the last renewal recorded: no ID's time passes it. */
  boundMs: bigint
  /**
   * Milliseconds until minting stops unless a renewal succeeds first (0 if that time has
   * passed), or `null` once the lease is lost.
   */
  expiresInMs?: number
}

/** Counters of a `LeasedSnowflake`. */
export interface LeaseStats {
  /** The generators' counters, summed over every node this generator used. */
  generator: Stats
  /** Successful renewals. */
  renewals: bigint
  /** Failed renewal attempts (store unavailable). */
  renewFailures: bigint
  /** Times the lease was found superseded. */
  lost: bigint
  /** Node swaps after a clock rollback (`swapAfterMs`). */
  swaps: bigint
  /** New leases taken after losing one. */
  reacquires: bigint
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

/** Options of `new SegmentAllocator(storeUrl, options)`. Every key is optional. */
export interface SegmentAllocatorOptions {
  /**
   * Values per range of the first fetch, and the least the step adapts down to.
   * Default 1000.
   */
  step?: bigint | number
  /** The most the step adapts up to. Default 1000000 (or `step`, if larger). */
  maxStep?: bigint | number
  /** Fetch the next range once this share (0 to 100) of the current one is used. Default 10. */
  refillAtPercent?: number
  /** Skip a random 0..=maxGap values before each ID (below the step). Default 0: no gaps. */
  maxGap?: bigint | number
  /** Seed of the gaps (they replay exactly). Default 0. */
  gapSeed?: bigint | number
  /** Pass every value through this keyed permutation, so IDs look irregular. */
  obfuscator?: Obfuscator
  /**
   * A journal file: `close()` records the unserved values and the next allocator on it
   * resumes them.
   */
  journal?: string
  /**
   * Also write a fenced checkpoint of the journal this often (ms), so a crash loses at most
   * about one step per key. Needs `journal`.
   */
  checkpointEveryMs?: bigint | number
  /**
   * How long a call waits when both buffers of its key are empty before it throws the
   * store's error (ms). Default 2000.
   */
  waitTimeoutMs?: bigint | number
}

/** A snapshot of one key's buffers. */
export interface SegmentKeyStats {
  /** The current step: what the next fetch asks for before adaptation. */
  step: bigint
  /** Unserved values held (current range plus standby). */
  buffered: bigint
  /** Whether a fetch is in flight. */
  fetching: boolean
  /** The checkpoint fence, if a journal checkpoint recorded some of the buffered values. */
  fence?: bigint
  /** The code of the last fetch's error (`ERR_STORE_UNAVAILABLE`, ...), if it failed. */
  lastErrorCode?: string
  /** The message of the last fetch's error, if it failed. */
  lastErrorMessage?: string
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

/** A version 1 UUID with a random node (never a MAC address) from the process-wide generator. */
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

/** A version 4 (random) UUID from the OS random source, or from the 16 bytes given. */
export declare function uuid4(random?: Uint8Array): string

/** A version 5 (SHA-1, name-based) UUID. `namespace` is a UUID or `dns`, `url`, `oid`, `x500`. */
export declare function uuid5(namespace: string, name: string | Uint8Array): string

/**
 * A version 7 UUID from the process-wide monotonic generator: strictly increasing within
 * the process, even within one millisecond or across a clock step back.
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
 * A version 6 UUID (version 1's fields reordered to sort by time; random node, never a MAC
 * address) from the process-wide generator: increasing within the process.
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
 * `n` version 7 UUIDs from the process-wide generator, in increasing order (one lock and one
 * clock reading for the batch): the batch form of `uuid7()`. At most 2^24
 * (`ERR_LIMIT_EXCEEDED`).
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
  /** The next UUID on the system clock (with its sub-millisecond fraction) and OS randomness. */
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
 * starting or ending with `_`; or empty) on a version 7 UUID from the process-wide generator,
 * so TypeIDs of one process increase. A bad prefix throws `ERR_INVALID_ENCODING`.
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
 * A ULID (26 upper-case Crockford base32 characters) from the process-wide monotonic
 * generator: within one millisecond each is the last plus one.
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
 * from the process-wide generator: a random payload on a new second, the last plus one within it.
 */
export declare function ksuid(): string

/**
 * The KSUID of the second holding `unixMs` and 16 payload bytes: `ERR_BEFORE_EPOCH` before
 * 2014-05-13T16:53:20Z, `ERR_OUT_OF_RANGE` past the 32-bit seconds (2150). (Node only: the
 * browser package has `ksuid()` alone, in its full entry, to stay within its page-weight
 * budgets.)
 */
export declare function ksuidAt(unixMs: bigint | number, payload: Uint8Array): string

/**
 * Reads a KSUID: exactly 27 characters of `0-9A-Za-z`, at most `aWgEPTl1tmebfsQzFP4bxwgy80V`;
 * else `ERR_INVALID_ENCODING` with `codec: 'ksuid'`, `at` and `reason`. (Node only.)
 */
export declare function parseKsuid(text: string): KsuidParts

/** A KSUID read back. */
export interface KsuidParts {
  /** The text. */
  ksuid: string
  /** Seconds since the KSUID epoch (1400000000, 2014-05-13T16:53:20Z). */
  timestamp: number
  /** Its time, ms since the Unix epoch (a whole second). */
  unixMs: bigint
  /** The 128-bit payload, 32 lower-case hex digits. */
  payload: string
}

/**
 * KSUIDs at the times and random bytes given (`ksuid()` is the clocked one): within the last
 * one's second, or when the time steps back, each is the last plus one; `ERR_WOULD_BLOCK` (with
 * `untilMs`) when the payload cannot grow. (Node only, as `ksuidAt`.)
 */
export declare class KsuidGenerator {
  /** A generator that has issued nothing yet. */
  constructor()
  /** The next KSUID at `unixMs` with 16 random bytes (used only on a new second). */
  nextAt(unixMs: bigint | number, random: Uint8Array): string
}

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

