// `parseAny(text, codec?)`: which ID a text holds, told by its shape as `idmint decode` and the
// service's `GET /v1/decode/{id}` tell it (core/src/formats/any_id.rs `AnyId::parse`), as the
// package's `{ kind, value, unixMs }` (bindings-js values.rs `parse_any`).
import { stringArg } from './convert.js'
import { utf8 } from './text.js'
import { codecArg, parseIdWith } from './codec.js'
import { parseUuidBytes, uuidText, uuidUnixMs } from './uuid.js'
import { parseTypeIdParts, typeidText } from './typeid.js'
import { parseUlidBytes, ulidText, ulidUnixMs } from './ulid.js'
import { parseKsuidBytes, ksuidText, ksuidUnixMs } from './ksuid.js'

const snowflake = (id) => ({ kind: 'snowflake', value: id, unixMs: null })
const typeid = ({ prefix, uuid }) => ({ kind: 'typeid', value: typeidText(prefix, uuid), unixMs: uuidUnixMs(uuid) })
/** Whether 16 UUID bytes are of the RFC 9562 variant and version 7. */
const isV7 = (u) => u[6] >> 4 === 7 && (u[8] & 0xc0) === 0x80

/**
 * The shape decides, in this order (lengths in UTF-8 bytes, as the core's): 36 bytes hyphenated
 * 8-4-4-4-12, `urn:uuid:…` or `{…}` a UUID; an `_` a TypeID; 27 bytes a KSUID; other than 26
 * bytes a 64-bit ID (`parseId`'s guess); 26 bytes a TypeID without prefix when all lower-case
 * and holding a version 7 UUID, else a ULID. With a codec (not `auto`), a 64-bit ID in it only.
 */
export function parseAny(text, codec) {
  text = stringArg(text, 'text')
  const c = codecArg(codec)
  if (c) return snowflake(parseIdWith(text, c))
  const b = utf8(text)
  const hyphenated = b.length === 36 && [8, 13, 18, 23].every((i) => b[i] === 0x2d)
  if (hyphenated || text.startsWith('urn:uuid:') || text.startsWith('{')) {
    const u = parseUuidBytes(text)
    return { kind: 'uuid', value: uuidText(u), unixMs: uuidUnixMs(u) }
  }
  if (text.includes('_')) return typeid(parseTypeIdParts(text))
  if (b.length === 27) {
    const k = parseKsuidBytes(text)
    return { kind: 'ksuid', value: ksuidText(k), unixMs: ksuidUnixMs(k) }
  }
  if (b.length !== 26) return snowflake(parseIdWith(text, null))
  if (/[a-z]/.test(text) && !/[A-Z]/.test(text)) {
    let t
    try {
      t = parseTypeIdParts(text)
    } catch {
      // Not a TypeID: read as a ULID below.
    }
    if (t && isV7(t.uuid)) return typeid(t)
  }
  const u = parseUlidBytes(text)
  return { kind: 'ulid', value: ulidText(u), unixMs: ulidUnixMs(u) }
}
