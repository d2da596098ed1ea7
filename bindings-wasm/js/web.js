// The web flavour of `idmint-web/snowflake`: the entry with the loader every web-flavour entry
// has (`import init, { ... } from 'idmint-web/web/snowflake'; await init()`). This entry is
// plain JavaScript, so there is nothing to load: `init` and `initSync` only keep that contract.
export * from './snowflake.js'

/** Nothing to load (the entry holds no WebAssembly); kept so pages written for the others work. */
export function initSync() {
  return {}
}

/** Nothing to load (the entry holds no WebAssembly); kept so pages written for the others work. */
export default async function init() {
  return {}
}
