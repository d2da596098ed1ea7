// TypeID (spec v0.3): a UUID as 26 lower-case base32 characters behind a type prefix,
// `user_01h455vb4pex5vsknk084sn02q`. A port of core/src/formats/typeid.rs (`TypeId::parse`, the
// prefix rule, the text form), of bindings-js/src/values.rs (`typeid_prefix`,
// `typeid_from_uuid`, `parse_typeid`) and of the module's `typeid()` (bindings-wasm/src/uuid.rs),
// which puts the prefix on the module's next version 7 UUID (the one `uuid7()` uses).
import { coreError } from './error.js'
import { stringArg } from './convert.js'
import { utf8 } from './text.js'
import { decode128, encode128 } from './crockford.js'
import { nextV7, uuidArg, uuidText } from './uuid.js'

const CODEC = 'typeid'
const MAX_PREFIX = 63
const bad = (at, reason) => coreError('InvalidEncoding', { codec: CODEC, at, reason })

/** Checks the prefix held in the UTF-8 bytes `b`: `[a-z]([a-z_]*[a-z])?`, at most 63, or empty. */
function checkPrefix(b) {
  if (b.length > MAX_PREFIX) throw bad(MAX_PREFIX, 'the prefix is longer than 63 characters')
  for (let i = 0; i < b.length; i++) {
    const c = b[i]
    if (!((c >= 0x61 && c <= 0x7a) || c === 0x5f)) throw bad(i, 'a prefix holds only the letters a-z and _')
  }
  if (b[0] === 0x5f) throw bad(0, 'a prefix must not start with _')
  if (b[b.length - 1] === 0x5f) throw bad(b.length - 1, 'a prefix must not end with _')
}

/** A checked prefix argument (core `TypeId::new`'s rule); the prefix string. */
export function typeidPrefix(prefix) {
  // The common valid prefix is checked on the string; anything else on its UTF-8 bytes, whose
  // offsets the errors name.
  if (!VALID.test(prefix)) checkPrefix(utf8(prefix))
  return prefix
}

/** What `checkPrefix` accepts: up to 63 of a-z and _, neither first nor last an _. */
const VALID = /^(?:[a-z](?:[a-z_]{0,61}[a-z])?)?$/

/** The text of a TypeID: a checked `prefix` and the 16 bytes of its UUID. */
export const typeidText = (prefix, uuid) => (prefix ? prefix + '_' : '') + encode128(uuid, true)

/** Reads a TypeID (core `TypeId::parse`): `{ prefix, uuid }`, the UUID's 16 bytes. */
export function parseTypeIdParts(text) {
  const b = utf8(text)
  const i = b.lastIndexOf(0x5f)
  if (i === 0) throw bad(0, 'an empty prefix takes no separator')
  const p = i < 0 ? b.subarray(0, 0) : b.subarray(0, i)
  checkPrefix(p)
  const uuid = decode128(b.subarray(i + 1), true, CODEC, i + 1)
  // A valid prefix is ASCII: its bytes are its characters.
  return { prefix: text.slice(0, p.length), uuid }
}

/** A TypeID under `prefix` on the module's next version 7 UUID. */
export function typeid(prefix) {
  const p = typeidPrefix(stringArg(prefix, 'prefix'))
  return typeidText(p, nextV7())
}

/** The TypeID of any UUID under `prefix`. */
export function typeidFromUuid(prefix, uuid) {
  const p = stringArg(prefix, 'prefix')
  const u = uuidArg(uuid, 'uuid')
  return typeidText(typeidPrefix(p), u)
}

/** Reads a TypeID: `{ prefix, suffix, uuid }`. */
export function parseTypeId(text) {
  const t = parseTypeIdParts(stringArg(text, 'text'))
  return { prefix: t.prefix, suffix: encode128(t.uuid, true), uuid: uuidText(t.uuid) }
}
