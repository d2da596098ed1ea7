// The smaller entries of the browser package (`idmint-web/snowflake`, `idmint-web/formats` and
// their web flavours) declare each of their names exactly as the full entry does: every value
// and shape is assignable to the full entry's, in both directions, and the web flavours' loaders
// take the same arguments. Type-checked by test.sh with `tsc --noEmit -p tests/types`; nothing here runs.
import type * as Full from '../../index.d.ts'
import type * as FullWeb from '../../web.d.ts'
import type * as Sf from '../../snowflake.d.ts'
import type * as SfWeb from '../../web-snowflake.d.ts'
import type * as Fm from '../../formats.d.ts'
import type * as FmWeb from '../../web-formats.d.ts'

/** Compiles only when `A` and `B` are mutually assignable. */
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
function same<A, B>(ok: Mutual<A, B>): void {
  void ok
}

// idmint-web/snowflake: values, instances and the shapes they use.
same<typeof Full.Layout, typeof Sf.Layout>(true)
same<typeof Full.Snowflake, typeof Sf.Snowflake>(true)
same<typeof Full.AtomicSnowflake, typeof Sf.AtomicSnowflake>(true)
same<typeof Full.randomNode, typeof Sf.randomNode>(true)
same<typeof Full.version, typeof Sf.version>(true)
same<Full.Snowflake, Sf.Snowflake>(true)
same<Full.SnowflakeOptions, Sf.SnowflakeOptions>(true)
same<Full.Parts, Sf.Parts>(true)
same<Full.Stats, Sf.Stats>(true)
same<Full.Run, Sf.Run>(true)
same<typeof FullWeb.Snowflake, typeof SfWeb.Snowflake>(true)
same<typeof FullWeb.Layout, typeof SfWeb.Layout>(true)
// The loaders take the same arguments (what they resolve to, the module's own exports, differs).
same<Parameters<typeof FullWeb.default>, Parameters<typeof SfWeb.default>>(true)
same<Parameters<typeof FullWeb.initSync>, Parameters<typeof SfWeb.initSync>>(true)

// idmint-web/formats.
same<typeof Full.uuid7, typeof Fm.uuid7>(true)
same<typeof Full.uuid7s, typeof Fm.uuid7s>(true)
same<typeof Full.uuid4, typeof Fm.uuid4>(true)
same<typeof Full.uuid8Fields, typeof Fm.uuid8Fields>(true)
same<typeof Full.parseUuid, typeof Fm.parseUuid>(true)
same<typeof Full.uuidInfo, typeof Fm.uuidInfo>(true)
same<typeof Full.typeid, typeof Fm.typeid>(true)
same<typeof Full.parseTypeId, typeof Fm.parseTypeId>(true)
same<typeof Full.ulid, typeof Fm.ulid>(true)
same<typeof Full.parseUlid, typeof Fm.parseUlid>(true)
same<typeof Full.parseAny, typeof Fm.parseAny>(true)
same<typeof Full.UuidGenerator, typeof Fm.UuidGenerator>(true)
same<typeof Full.Uuid7Generator, typeof Fm.Uuid7Generator>(true)
same<typeof Full.UlidGenerator, typeof Fm.UlidGenerator>(true)
same<typeof Full.NIL_UUID, typeof Fm.NIL_UUID>(true)
same<typeof FullWeb.uuid7, typeof FmWeb.uuid7>(true)
same<Parameters<typeof FullWeb.default>, Parameters<typeof FmWeb.default>>(true)

// What an entry leaves out is not there.
// @ts-expect-error the Snowflake entry has no formats
type NoUuid = typeof Sf.uuid7
// @ts-expect-error the formats entry has no Snowflake
type NoSnowflake = typeof Fm.Snowflake
