/* Generated from bindings-js/idmint.d.ts by bindings-js/dts.mjs; do not edit. */
/* eslint-disable */

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
 * Parses a UUID in any usual form (hyphenated, 32 hex digits, `{braced}`, `urn:uuid:`, any
 * case) and returns the lower-case hyphenated form; `ERR_INVALID_ENCODING` with `at`.
 */
export declare function parseUuid(text: string): string

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


export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/** Nothing: this entry is JavaScript and loads no WebAssembly. */
export interface InitOutput {}

export type SyncInitInput = BufferSource | WebAssembly.Module;

/** Does nothing (this entry holds no WebAssembly); kept so code written for the other entries works. */
export function initSync(module: { module: SyncInitInput } | SyncInitInput): InitOutput;

/** Does nothing (this entry holds no WebAssembly); kept so code written for the other entries works. */
export default function __wbg_init (module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<InitOutput>;
