'use strict'
// The CommonJS entry point: loads the native addon built for this platform (see platform.js;
// built by `npm install` or `npm run build`). Every export is native but `uuid7s`, which slices
// the addon's one string into an array; index.d.ts describes them.

const { existsSync } = require('node:fs')
const { join } = require('node:path')
const { candidates, installedPackage, packages } = require('./platform.js')

// The store add-on `idmint-stores` (`npm install idmint-stores`), when installed: the same addon
// built with every store client. Without it this package's own addon has the file lease store
// and the memory segment store, and another store URL fails with ERR_INVALID_CONFIG naming it.
function storesAddon() {
  let entry
  try {
    entry = require.resolve('idmint-stores', { paths: [__dirname] })
  } catch {
    return undefined // not installed
  }
  const addon = require(entry).load()
  const { version } = require('./package.json')
  if (addon.version() !== version) {
    throw new Error(
      `idmint ${version} found the add-on idmint-stores ${addon.version()}: install the same release ` +
        `of both (npm install idmint-stores@${version})`
    )
  }
  return addon
}

function load() {
  const stores = storesAddon()
  if (stores) return stores
  const tried = []
  for (const name of candidates()) {
    const path = join(__dirname, name)
    tried.push(path)
    if (existsSync(path)) return require(path)
  }
  const prebuilt = installedPackage(__dirname)
  if (prebuilt) return require(prebuilt.path)
  throw new Error(
    `idmint: no native addon for ${process.platform}-${process.arch} (looked for ${tried.join(', ')} ` +
      `and the packages ${packages().join(', ')}). ` +
      `Build it with \`npm run build\` (or \`node scripts/install.js\`) in ${__dirname}; ` +
      'that needs a Rust toolchain (cargo 1.88 or later, from https://rustup.rs).'
  )
}

// `_benchFloor` (an empty call, the benchmarks' floor) is not part of the API: it stays off the
// exports, reachable only under a symbol for bench/bench.mjs.
const { _benchFloor, _closeOpenAllocators, _uuid7sText, ...api } = load()

// `uuid7s(n)`: the addon returns the n UUIDs as one string of 36 * n characters (one string
// across Node-API instead of n); slicing it here is the conversion to an array. A V8 string
// holds at most ~2^29 characters, so batches above CHUNK go in chunks (still increasing: the
// process-wide generator).
const CHUNK = 1 << 20
function slices(text, out, at) {
  for (let i = 0; i < text.length; i += 36) out[at++] = text.slice(i, i + 36)
  return at
}
api.uuid7s = function uuid7s(n) {
  const k = typeof n === 'bigint' && n >= 0n && n <= 1n << 24n ? Number(n) : n
  if (!(typeof k === 'number' && Number.isInteger(k) && k > CHUNK && k <= 1 << 24)) {
    const text = _uuid7sText(n) // checks n
    const out = new Array(text.length / 36)
    slices(text, out, 0)
    return out
  }
  const out = new Array(k)
  for (let at = 0; at < k; ) at = slices(_uuid7sText(Math.min(k - at, CHUNK)), out, at)
  return out
}

// A `SegmentAllocator` still open when the process (or worker) exits is closed first, so its
// unserved values go to its journal for the next start. Node finalizes no native object on
// `process.exit()` or an uncaught exception, but it does emit 'exit', synchronously; the addon
// keeps this thread's open allocators (weakly) and closes them there.
process.on('exit', _closeOpenAllocators)

module.exports = api
Object.defineProperty(module.exports, Symbol.for('idmint.benchFloor'), { value: _benchFloor })
