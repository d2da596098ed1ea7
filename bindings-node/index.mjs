// The ES module entry point: the same native exports as index.js (CommonJS).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const native = require('./index.js')

export const {
  AtomicSnowflake,
  Layout,
  LeasedSnowflake,
  MAX_UUID,
  NIL_UUID,
  NamedGenerator,
  Obfuscator,
  SegmentAllocator,
  Snowflake,
  SortableObfuscator,
  UlidGenerator,
  Uuid7Generator,
  UuidGenerator,
  parseId,
  encode,
  fromConfig,
  parseTypeId,
  parseUlid,
  parseUuid,
  typeid,
  typeidFromUuid,
  ulid,
  ulidAt,
  ulidFromUuid,
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
  uuid8Fields,
  uuid8Sha256,
  uuid8FromFields,
  uuidInfo,
  version,
} = native

export default native
