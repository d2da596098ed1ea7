// The implementation under test: the module named by IDMINT_IMPL (a path or a module
// specifier), or this package's ES module entry point (the napi addon) by default.
//
//   IDMINT_IMPL=../bindings-wasm/pkg/index.js node --test tests/*.test.mjs
//
// Any module exporting the idmint JavaScript API works: the same suite checks the native
// addon and the WebAssembly build.
import { isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const given = process.env.IDMINT_IMPL
let url
if (!given) {
  url = new URL('../../index.mjs', import.meta.url).href
} else if (given.startsWith('file:') || given.startsWith('node:')) {
  url = given
} else if (isAbsolute(given) || given.startsWith('.')) {
  url = pathToFileURL(resolve(given)).href
} else {
  url = given // a package name
}

const mod = await import(url)
// A CommonJS module imports as { default: module.exports, ...whatever the lexer found }.
const api = { ...(mod.default ?? {}) }
for (const [k, v] of Object.entries(mod)) if (k !== 'default') api[k] = v

/** The URL of the implementation under test. */
export const implUrl = url
/** Whether it is this package's native addon (the default), which draws randomness from the OS. */
export const isAddon = !given

/**
 * `false` when the implementation exports every one of `names`, else why a test that needs
 * them is skipped: the browser package's smaller entries (`idmint-web/snowflake`) export part
 * of the API. Pass it as the test's `skip` option, so the runner counts and names the test.
 */
export function lacks(...names) {
  const missing = names.filter((n) => !(n in api))
  return missing.length ? `not in this entry: ${missing.join(', ')}` : false
}
export default api
