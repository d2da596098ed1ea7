// TEST-ONLY stand-in for js/uuid.js (helper "uuid" writes the real one), used by text-loader.mjs
// while js/uuid.js does not exist: the contract's uuidArg, uuidText, parseUuidBytes and nextV7.
// Parsing goes through the oracle (the WebAssembly build); nextV7 is the core's method-1
// Uuid7Generator (core/src/formats/uuid/v7.rs `next_counter`) on js/random.js and js/clock.js,
// drawing as src/uuid.rs `next_v7` does (10 bytes, then the clock). The lead swaps in the real
// module.
import { createRequire } from 'node:module'
import { stringArg } from '../../../js/convert.js'
import { fill } from '../../../js/random.js'
import { moduleClock } from '../../../js/clock.js'

const oracle = createRequire(import.meta.url)('../../../pkg/node/idmint.js')

const bytesOfText = (t) => Uint8Array.from(t.replace(/-/g, '').match(/../g), (h) => parseInt(h, 16))

/** Core `uuid::parse` (any form parseUuid reads), through the oracle. */
export const parseUuidBytes = (text) => bytesOfText(oracle.parseUlid(oracle.ulidFromUuid(text)).uuid)

/** bindings-js `values::uuid_arg`. */
export const uuidArg = (v, what) => parseUuidBytes(stringArg(v, what))

/** Lower-case hyphenated text. */
export function uuidText(b) {
  const h = Array.from(b, (x) => (x + 256).toString(16).slice(1)).join('')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

const MAX_V7_MS = (1n << 48n) - 1n
const COUNTER_MAX = (1n << 42n) - 1n
const SEED_MASK = (1n << 41n) - 1n
const v7 = { started: false, lastMs: 0n, counter: 0n }

/** The module generator's next v7 UUID (src/uuid.rs `next_v7`). */
export function nextV7() {
  const r = new Uint8Array(10)
  fill(r)
  let now = BigInt(moduleClock().nowMs())
  if (now > MAX_V7_MS) now = MAX_V7_MS
  let seed = 0n
  for (let i = 0; i < 6; i++) seed = (seed << 8n) | BigInt(r[i])
  seed &= SEED_MASK
  let tail = 0n
  for (let i = 6; i < 10; i++) tail = (tail << 8n) | BigInt(r[i])
  if (!v7.started || now > v7.lastMs) Object.assign(v7, { started: true, lastMs: now, counter: seed })
  else if (v7.counter <= COUNTER_MAX - 1n) v7.counter += 1n
  else {
    if (v7.lastMs < MAX_V7_MS) v7.lastMs += 1n
    v7.counter = seed
  }
  const c = v7.counter
  const v =
    ((v7.lastMs & 0xffffffffffffn) << 80n) |
    (7n << 76n) |
    (((c >> 30n) & 0xfffn) << 64n) |
    (2n << 62n) |
    ((c & ((1n << 30n) - 1n)) << 32n) |
    tail
  return bytesOfText(v.toString(16).padStart(32, '0'))
}
