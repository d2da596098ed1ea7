// Type-checked (never run) by test.sh: `tsc --strict --noEmit` over index.d.ts and this file.
// It uses the API the way the README does; the @ts-expect-error lines must stay errors.
import {
  AtomicSnowflake,
  Layout,
  LeasedSnowflake,
  NamedGenerator,
  Obfuscator,
  SegmentAllocator,
  Snowflake,
  SortableObfuscator,
  UuidGenerator,
  parseId,
  parseAny,
  encode,
  fromConfig,
  parseUuid,
  uuid4,
  uuid5,
  uuid7,
  uuidInfo,
  version,
  uuid6,
  uuid7s,
  uuid8,
  uuid8FromFields,
  uuid8Fields,
  uuid1ToUuid6,
  NIL_UUID,
  Uuid7Generator,
  typeid,
  parseTypeId,
  ulid,
  parseUlid,
  UlidGenerator,
  type TypeIdParts,
  type UlidParts,
  type AnyId,
  type LeaseInfo,
  type LeaseStats,
  type Parts,
  type SegmentKeyStats,
  type Run,
  type SnowflakeOptions,
  type Stats,
  type UuidInfo,
} from '../../index.js'

const options: SnowflakeOptions = { layout: 'twitter', node: { datacenter: 1, worker: 2 }, onBackwards: 'wait:1000' }
const gen = new Snowflake(options)
const id: bigint = gen.nextId()
const text: string = gen.nextIdString()
const batch: BigUint64Array = gen.nextIds(1000)
const first: bigint | undefined = batch[0]
const parts: Parts = gen.decode(id)
const node: bigint = parts.node
const seq: number = parts.sequence
const sub: Record<string, bigint> = parts.nodeFields
const when: Date = gen.layout.timestamp(id)
const stats: Stats = gen.stats()
const waited: bigint = stats.waitMs
const run: Run = gen.reserve(10)
const count: number = run.count
gen.setNode(3n)
const js53: number = new Snowflake({ layout: 'js53', node: 1 }).nextIdNumber()

const layout = new Layout('time=41@1ms,worker=10,seq=12,epoch=2020-01-01')
const end: Date = layout.lifetimeEnd
const maxId: bigint = layout.maxId
const composed: bigint = layout.compose({ time: 1n, node: 5, sequence: 0 })
const safe: boolean = layout.isJsSafe
const back: bigint = layout.compose(layout.decompose(composed))

const sans = new AtomicSnowflake({ layout })
const at: bigint = sans.nextIdAt(Date.now())
const some: BigUint64Array = sans.nextIdsAt(Date.now(), 10)
const rollbackDepth: bigint | null = sans.maxRollbackTicks

try {
  sans.nextIdAt(0)
} catch (e) {
  if (e instanceof Error && 'code' in e && e.code === 'ERR_WOULD_BLOCK' && 'untilMs' in e) {
    const until = e.untilMs as bigint
    void until
  }
}

const any: Snowflake | UuidGenerator | NamedGenerator = fromConfig('type=uuid7')
const named = new NamedGenerator('type=uuid4')
const next: bigint | string = named.nextAt(Date.now(), (n: number) => new Uint8Array(n))
const orders = new NamedGenerator('type=segment,store=sqlite:ids.db,key=orders')
const oneNamed: bigint | string = orders.nextId()
const namedBatch: BigUint64Array = orders.nextIds(100)
if (!orders.closed) orders.close()
const u7: string = uuid7()
const u4: string = uuid4(new Uint8Array(16))
const u5: string = uuid5('dns', 'example.com')
const info: UuidInfo = uuidInfo(u7)
const ms: bigint | null = info.unixMs
const canon: string = parseUuid(u5.toUpperCase())
const gen7 = new UuidGenerator(7)
const last: bigint | null = gen7.lastUnixMs
const b32: string = encode(id, 'base32')
const decoded: bigint = parseId(b32, 'base32')
const ob = new Obfuscator(new Uint8Array(16), 64)
const hidden: bigint = ob.encode(id)
const sortable = new SortableObfuscator(42n, layout)
const lowBits: number = sortable.lowBits
const v: string = version()

const leased = new LeasedSnowflake('file:/var/lib/app/leases', { layout: 'twitter', namespace: 'orders', ttlMs: 10_000 })
const leasedId: bigint = leased.nextId()
const lease: LeaseInfo | null = leased.lease
const fence: bigint | null | undefined = lease?.fenceMs
const leaseStats: LeaseStats = leased.stats()
const renewals: bigint = leaseStats.renewals
leased.close()
const segments = new SegmentAllocator('sqlite:/var/lib/app/segments.db', { step: 1000, journal: '/var/lib/app/segments.journal', obfuscator: ob })
const orderId: bigint = segments.nextId('orders')
const orderIds: BigUint64Array = segments.nextIds('orders', 100)
const keyStats: SegmentKeyStats | null = segments.stats('orders')
segments.close()
// @ts-expect-error: the node comes from the source, not an option
new LeasedSnowflake('static:3', { node: 1 })
// @ts-expect-error: a segment key is a string
segments.nextId(5)

// @ts-expect-error: a layout is a string or a Layout, not a number
new Layout(5)
// @ts-expect-error: nextId() returns a bigint, not a number
const wrong: number = gen.nextId()
// @ts-expect-error: unknown option
new Snowflake({ nodes: 1 })
// @ts-expect-error: IDs are not booleans
layout.decompose(true)

const u6: string = uuid6()
const batch7: string[] = uuid7s(100)
const u8: string = uuid8FromFields(1n, 2, 3n)
const f8 = uuid8Fields(uuid8(new Uint8Array(16)))
const c8: bigint | undefined = f8?.customA
const v6: string = uuid1ToUuid6(NIL_UUID)
const m7 = new Uuid7Generator('sub_millisecond')
const at7: string = m7.nextAt(1_700_000_000_000, new Uint8Array(10), 250_000)
const tid: TypeIdParts = parseTypeId(typeid('user'))
const ul: UlidParts = parseUlid(ulid())
const ulMs: bigint = ul.timestampMs
const ug: string = new UlidGenerator().nextAt(1n, new Uint8Array(10))
const read: AnyId = parseAny(ulid())
// The kind narrows the value: a bigint for a 64-bit ID, text otherwise.
const anyValue: bigint | string = read.kind === 'snowflake' ? read.value + 1n : read.value.toLowerCase()
const anyMs: bigint = read.kind === 'ulid' || read.kind === 'ksuid' ? read.unixMs : 0n
const sf = parseAny('42', 'decimal')
if (sf.kind === 'snowflake') {
  // @ts-expect-error: a 64-bit ID carries no time of its own (its layout has it)
  const noMs: bigint = sf.unixMs
}
// @ts-expect-error: no such v7 method
new Uuid7Generator('fast')

export const formatsUsed = [u6, batch7, u8, c8, v6, at7, tid, ulMs, ug, anyValue, anyMs, oneNamed, namedBatch]

export const used = [leasedId, fence, renewals, orderId, orderIds, keyStats, id, text, first, node, seq, sub, when, waited, count, js53, end, maxId, safe, back, at, some, rollbackDepth, any, next, u4, ms, canon, last, decoded, hidden, lowBits, v, wrong]
