// The ES module entry point: the same native exports as index.js (CommonJS).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const native = require('./index.js')

export const {
  AtomicSnowflake,
  Layout,
  LeasedSnowflake,
  NamedGenerator,
  Obfuscator,
  SegmentAllocator,
  Snowflake,
  SortableObfuscator,
  UuidGenerator,
  decodeString,
  encode,
  fromConfig,
  parseUuid,
  uuid1,
  uuid1At,
  uuid1RandomNode,
  uuid3,
  uuid4,
  uuid5,
  uuid7,
  uuid7At,
  uuidInfo,
  version,
} = native

export default native
