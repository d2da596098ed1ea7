// `idmint-web/formats`: UUIDs of every version, TypeID, ULID and parseAny, without the
// Snowflake family (a page that mints UUIDs loads only this).
export {
  MAX_UUID,
  NIL_UUID,
  Uuid7Generator,
  parseUuid,
  uuid1,
  uuid1At,
  uuid1RandomNode,
  uuid1ToUuid6,
  uuid3,
  uuid4,
  uuid5,
  uuid6,
  uuid6At,
  uuid6ToUuid1,
  uuid7,
  uuid7At,
  uuid7s,
  uuid8,
  uuid8FromFields,
  uuid8Fields,
  uuid8Sha256,
  uuidInfo,
} from './uuid.js'
export { parseTypeId, typeid, typeidFromUuid } from './typeid.js'
export { UlidGenerator, parseUlid, ulid, ulidAt, ulidFromUuid } from './ulid.js'
export { parseAny } from './anyid.js'
export { UuidGenerator } from './named.js'
export { version } from './version.js'
