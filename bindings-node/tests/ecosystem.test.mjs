// Cross-checks against the ecosystem's packages in the same process (exact versions pinned in
// package.json): `uuid` (v6, v7, v1 <-> v6, v8 parse), `typeid-js` (TypeIDs each way) and
// `ulid` (ULIDs each way). Runs against any implementation (support/impl.mjs).
import assert from 'node:assert/strict'
import { test } from 'node:test'

import * as uuidPkg from 'uuid'
import { TypeID, typeid as typeidJs } from 'typeid-js'
import { decodeTime, isValid as ulidIsValid, monotonicFactory, ulidToUUID, uuidToULID } from 'ulid'

import m, { lacks } from './support/impl.mjs'

/** Every test here checks the formats (UUIDs, TypeID, ULID) against their reference packages. */
const skip = lacks('uuid6', 'uuid7', 'uuid7At', 'uuid1ToUuid6', 'uuid6ToUuid1', 'uuid8', 'parseUuid', 'typeid', 'parseTypeId', 'typeidFromUuid', 'ulid', 'parseUlid', 'ulidFromUuid')

const N = 200

test('uuid: our v6 and v7 validate there, with its version; its v6/v7 parse here', { skip }, () => {
  for (let i = 0; i < N; i++) {
    for (const [ours, v] of [[m.uuid6(), 6], [m.uuid7(), 7]]) {
      assert.ok(uuidPkg.validate(ours), ours)
      assert.equal(uuidPkg.version(ours), v)
    }
    for (const [theirs, v] of [[uuidPkg.v6(), 6], [uuidPkg.v7(), 7]]) {
      assert.equal(m.parseUuid(theirs), theirs)
      assert.equal(m.uuidInfo(theirs).version, v)
    }
  }
  for (const u of m.uuid7s(N)) assert.equal(uuidPkg.version(u), 7)
})

test('uuid: the v7 timestamp agrees (its v7 at a time, ours at that time)', { skip }, () => {
  const msecs = 1_700_000_000_123
  const random = new Uint8Array(16).fill(0x5a)
  const theirs = uuidPkg.v7({ msecs, random, seq: 0 })
  assert.equal(m.uuidInfo(theirs).unixMs, BigInt(msecs))
  assert.equal(theirs.slice(0, 13), m.uuid7At(msecs, random.subarray(0, 10)).slice(0, 13))
})

test('uuid: v1ToV6 / v6ToV1 agree with ours, both ways', { skip }, () => {
  for (let i = 0; i < N; i++) {
    const v1 = uuidPkg.v1()
    const v6 = m.uuid1ToUuid6(v1)
    assert.equal(v6, uuidPkg.v1ToV6(v1))
    assert.equal(m.uuid6ToUuid1(v6), v1)
    const ours1 = m.uuid1()
    assert.equal(uuidPkg.v1ToV6(ours1), m.uuid1ToUuid6(ours1))
    const ours6 = m.uuid6()
    assert.equal(uuidPkg.v6ToV1(ours6), m.uuid6ToUuid1(ours6))
    const theirs6 = uuidPkg.v6()
    assert.equal(m.uuid6ToUuid1(theirs6), uuidPkg.v6ToV1(theirs6))
  }
})

test('uuid: our v8 parses there with version 8 and the same bytes', { skip }, () => {
  const bytes = new Uint8Array(16).map((_, i) => i * 17)
  const u = m.uuid8(bytes)
  assert.equal(uuidPkg.version(u), 8)
  const back = uuidPkg.parse(u)
  for (let i = 0; i < 16; i++) {
    if (i === 6) assert.equal(back[i], 0x80 | (bytes[i] & 0x0f))
    else if (i === 8) assert.equal(back[i], 0x80 | (bytes[i] & 0x3f))
    else assert.equal(back[i], bytes[i])
  }
  assert.equal(uuidPkg.stringify(back), u)
  const f = m.uuid8FromFields(0x2489e9ad2ee2n, 0xe00, 0x0ec932d5f69181c0n)
  assert.equal(uuidPkg.version(f), 8)
  assert.equal(uuidPkg.NIL, m.NIL_UUID)
  assert.equal(uuidPkg.MAX, m.MAX_UUID)
})

test('typeid-js: its TypeIDs parse here with the same UUID; ours parse there', { skip }, () => {
  for (let i = 0; i < N; i++) {
    const theirs = typeidJs('user')
    const t = m.parseTypeId(theirs.toString())
    assert.equal(t.prefix, 'user')
    assert.equal(t.uuid, theirs.toUUID())
    assert.equal(t.suffix, theirs.getSuffix())

    const ours = m.typeid('order')
    const back = TypeID.fromString(ours)
    assert.equal(back.getType(), 'order')
    assert.equal(back.toUUID(), m.parseTypeId(ours).uuid)
    assert.equal(TypeID.fromUUID('order', back.toUUID()).toString(), ours)
  }
  const bare = m.typeid('')
  assert.equal(TypeID.fromString(bare).getType(), '')
  const u = m.uuid4()
  assert.equal(m.typeidFromUuid('a_b', u), TypeID.fromUUID('a_b', u).toString())
})

test('ulid: its ULIDs decode here; ours decode there', { skip }, () => {
  const next = monotonicFactory()
  for (let i = 0; i < N; i++) {
    const theirs = next()
    const p = m.parseUlid(theirs)
    assert.equal(p.ulid, theirs)
    assert.equal(p.timestampMs, BigInt(decodeTime(theirs)))
    assert.equal(p.uuid, ulidToUUID(theirs).toLowerCase())
    assert.equal(m.ulidFromUuid(p.uuid), theirs)

    const ours = m.ulid()
    assert.ok(ulidIsValid(ours), ours)
    assert.equal(BigInt(decodeTime(ours)), m.parseUlid(ours).timestampMs)
    assert.equal(uuidToULID(m.parseUlid(ours).uuid), ours)
  }
})
