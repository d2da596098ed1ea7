// The loader every web-flavour entry has (`import init, { ... } from 'idmint-web/web'; await
// init()`). The entries are JavaScript, so there is nothing to load: `init` and `initSync` only
// keep that contract (and that of the WebAssembly entry, `idmint-web/web/wasm`).

/** Nothing to load (the entry holds no WebAssembly); kept so pages written for `init` work. */
export function initSync() {
  return {}
}

/** Nothing to load (the entry holds no WebAssembly); kept so pages written for `init` work. */
export default async function init() {
  return {}
}
