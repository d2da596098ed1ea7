// The Node package (`idmint`, bindings-node/index.d.ts) and the browser package (`idmint-web`,
// bindings-wasm/index.d.ts and web.d.ts) are interchangeable in TypeScript code: every
// exported class, function and shape of one is assignable to the other's, in both directions.
// Type-checked by test.sh with `tsc --noEmit -p tests/types`; nothing here runs.
import type * as Node from '../../../bindings-node/index.d.ts'
import type * as Web from '../../index.d.ts'
import type * as WebEsm from '../../web.d.ts'

/** Compiles only when `A` and `B` are mutually assignable. */
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
function same<A, B>(ok: Mutual<A, B>): void {
  void ok
}

// Instances.
same<Node.Layout, Web.Layout>(true)
same<Node.Snowflake, Web.Snowflake>(true)
same<Node.AtomicSnowflake, Web.AtomicSnowflake>(true)
same<Node.UuidGenerator, Web.UuidGenerator>(true)
same<Node.Obfuscator, Web.Obfuscator>(true)
same<Node.SortableObfuscator, Web.SortableObfuscator>(true)
same<Node.Uuid7Generator, Web.Uuid7Generator>(true)
same<Node.UlidGenerator, Web.UlidGenerator>(true)

// Plain-object shapes.
same<Node.Parts, Web.Parts>(true)
same<Node.Field, Web.Field>(true)
same<Node.ComposeParts, Web.ComposeParts>(true)
same<Node.Stats, Web.Stats>(true)
same<Node.Run, Web.Run>(true)
same<Node.SnowflakeOptions, Web.SnowflakeOptions>(true)
same<Node.UuidInfo, Web.UuidInfo>(true)
same<Node.Uuid8Fields, Web.Uuid8Fields>(true)
same<Node.TypeIdParts, Web.TypeIdParts>(true)
same<Node.UlidParts, Web.UlidParts>(true)

// The modules' values: constructors (with their static methods) and functions. The browser
// package adds `randomNode` (random node values for anonymous clients); the Node package adds
// the segment allocator, which needs stores (SQLite, PostgreSQL, Redis) a browser cannot reach.
// Both have a `LeasedSnowflake`, built differently: Node's leases from a store
// (`new LeasedSnowflake('redis://...')`, closed at once), the browser's from a lease service
// (`await LeasedSnowflake.lease(url)`, closed with a request). Node's named generators also
// build the store-backed types (`type=segment,...`, `type=snowflake,...,lease=...`): its
// `fromConfig` may return a `NamedGenerator`, which mints on the clock and the store too
// (`nextId`, `nextIds`, `close`); the browser's is sans-IO only. Nothing else differs.
type WebOnly = 'randomNode'
// KSUIDs: the browser has `ksuid()` alone (its entries' page-weight budgets).
type NodeOnly = 'SegmentAllocator' | 'ksuidAt' | 'parseKsuid' | 'KsuidGenerator'
type Differ = 'LeasedSnowflake' | 'NamedGenerator' | 'fromConfig'
same<Omit<typeof Node, NodeOnly | Differ>, Omit<typeof Web, WebOnly | Differ>>(true)
same<Exclude<keyof typeof Web, keyof typeof Node>, WebOnly>(true)
same<Exclude<keyof typeof Node, keyof typeof Web>, NodeOnly>(true)

// The named generators share their sans-IO side; what the browser's fromConfig returns, Node's
// may return too.
type SansIo = 'kind' | 'config' | 'nextAt'
same<Pick<Node.NamedGenerator, SansIo>, Pick<Web.NamedGenerator, SansIo>>(true)
function built(config: string): Node.Snowflake | Node.UuidGenerator | Node.NamedGenerator {
  return web.fromConfig(config)
}
void built

// The leased generators mint, decode and describe themselves alike.
type Minting = 'nextId' | 'nextIdString' | 'tryNextId' | 'nextIds' | 'decode' | 'node' | 'layout' | 'fenceMs' | 'closed'
same<Pick<Node.LeasedSnowflake, Minting>, Pick<Web.LeasedSnowflake, Minting>>(true)
async function stop(g: Node.LeasedSnowflake | Web.LeasedSnowflake): Promise<bigint> {
  const last = g.nextId()
  await g.close()
  return last
}
declare const leased: Web.LeasedSnowflake
void stop(leased)

// The `--target web` flavour has the same API plus its loader (`init`, `initSync`).
type Loader = 'default' | 'initSync'
same<Omit<typeof WebEsm, Loader>, typeof Web>(true)

// Code written against one package compiles against the other.
declare const node: typeof Node
declare const web: typeof Web
function mint(m: Omit<typeof Node, NodeOnly | Differ>): bigint {
  const g = new m.Snowflake({ layout: 'twitter', node: 1 })
  const parts: Node.Parts = g.decode(g.nextId())
  return parts.time
}
mint(web)
function mintWeb(m: Omit<typeof Web, WebOnly | Differ>): bigint {
  return new m.Snowflake({ node: 2 }).nextId()
}
mintWeb(node)
