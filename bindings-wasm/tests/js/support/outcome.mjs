// Differential-test helpers shared by codec, anyid and obfuscate tests: seeded draws and a call's
// outcome as plain data (a value, or an error's class, own property names, fields and message).
export { rng } from './random.mjs'

/** A value as plain data for deepStrictEqual (bigints and strings as they are). */
export function plain(v) {
  if (typeof v === 'bigint' || v === null || typeof v !== 'object') return v
  if (Array.isArray(v)) return v.map(plain)
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
}

/** What calling `f` gives: `{ ok }`, or the error's class, own property names, fields and message. */
export function outcome(f) {
  try {
    return { ok: plain(f()) }
  } catch (e) {
    if (!(e instanceof Error)) return { threw: e }
    return { error: e.constructor.name, props: Object.getOwnPropertyNames(e).filter((k) => k !== 'stack'), ...plain({ ...e }), message: e.message }
  }
}

/** A short printable form of an argument for assertion messages. */
export function show(v) {
  try {
    if (typeof v === 'bigint') return `${v}n`
    if (typeof v === 'string') return JSON.stringify(v)
    if (typeof v === 'symbol') return v.toString()
    if (ArrayBuffer.isView(v)) return `${v.constructor.name}(${v.length})[${Array.from(v).join(',')}]`
    return String(v)
  } catch {
    return `(${typeof v}: a proxy or an odd object)`
  }
}

/** Arguments of every JavaScript type a binding must refuse or accept (not strings of IDs). */
export const ODD_VALUES = [
  undefined,
  null,
  true,
  false,
  0,
  -0,
  1,
  -1,
  1.5,
  NaN,
  Infinity,
  -Infinity,
  2 ** 53,
  2 ** 53 - 1,
  2 ** 64,
  0n,
  -1n,
  1n << 64n,
  (1n << 64n) - 1n,
  1n << 128n,
  {},
  [],
  [1],
  { valueOf: () => 1 },
  new Proxy({}, {}),
  () => 1,
  Symbol('s'),
  new Uint8Array(16),
  new Date(0),
  new String('hex'),
]
