// Assertions shared by the suites.
import assert from 'node:assert/strict'

/** `until_ms` → `untilMs`. */
export function camel(key) {
  return key.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase())
}

/** Lower-case hex → Uint8Array. */
export function bytes(hex) {
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16)
  return out
}

/**
 * Checks a thrown error against a vector's error object
 * `{error: CODE, message, ...fields in snake_case}`: an Error with that `code`, that exact
 * message, and every field as a property (u64 fields are bigints, `at`/`needed` numbers).
 */
export function checkError(e, expect, what = '') {
  assert.ok(e instanceof Error, `${what}: expected an Error, got ${e}`)
  assert.equal(e.code, expect.error, `${what}: code (message: ${e.message})`)
  if (expect.error === 'ERR_NODE_REQUIRED') {
    // The core's text, then how to choose in this package's API (vectors/README.md).
    assert.ok(e.message.startsWith(`${expect.message} (in `), `${what}: message ${e.message}`)
  } else if ('message' in expect) {
    assert.equal(e.message, expect.message, `${what}: message`)
  }
  for (const [k, v] of Object.entries(expect)) {
    if (k === 'error' || k === 'message') continue
    const got = e[camel(k)]
    if (typeof got === 'bigint') assert.equal(got, BigInt(v), `${what}: ${camel(k)}`)
    else if (typeof got === 'number') assert.equal(got, Number(v), `${what}: ${camel(k)}`)
    else assert.equal(got, v, `${what}: ${camel(k)}`)
  }
}

/** Runs `fn`, expecting it to throw what the vector says. */
export function throwsVector(fn, expect, what = '') {
  let thrown = null
  try {
    fn()
  } catch (e) {
    thrown = e
  }
  assert.ok(thrown !== null, `${what}: expected ${expect.error}, nothing was thrown`)
  checkError(thrown, expect, what)
}

/** Runs `fn`, expecting an error of class `cls` (TypeError, RangeError, Error) with `code`. */
export function throwsCode(fn, cls, code, what = '') {
  let thrown = null
  try {
    fn()
  } catch (e) {
    thrown = e
  }
  assert.ok(thrown !== null, `${what}: expected ${cls.name} ${code}, nothing was thrown`)
  assert.ok(thrown instanceof cls, `${what}: expected ${cls.name}, got ${thrown?.constructor?.name}: ${thrown?.message}`)
  assert.equal(thrown.code, code, `${what}: code (message: ${thrown.message})`)
  return thrown
}
