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
