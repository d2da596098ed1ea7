// Type-checked (never run) by test.sh as an ES module importing the package by name, so the
// "exports" map's "types" condition is exercised too.
import idmint, { Snowflake, type Parts } from 'idmint'

const gen = new Snowflake({ node: 1 })
const id: bigint = gen.nextId()
const parts: Parts = gen.decode(id)
const same: typeof Snowflake = idmint.Snowflake

export const used = [parts, same]
