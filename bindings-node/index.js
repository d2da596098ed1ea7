'use strict'
// The CommonJS entry point: loads the native addon built for this platform (see platform.js;
// built by `npm install` or `npm run build`). Every export is native but `uuid7s`, which slices
// the addon's one string into an array; index.d.ts describes them.

const { existsSync } = require('node:fs')
const { join } = require('node:path')
const { candidates, installedPackage, packages } = require('./platform.js')

function load() {
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
const { _benchFloor, _uuid7sText, ...api } = load()

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
// unserved values go to its journal for the next start. Node does not finalize native objects
// on `process.exit()` or an uncaught exception, but it does emit 'exit', synchronously: the
// handler closes each allocator still open, and `close()` is synchronous. Allocators are held
// weakly, so tracking them keeps none alive.
const NativeAllocator = api.SegmentAllocator
const openAllocators = new Set()
const forget = new FinalizationRegistry((ref) => openAllocators.delete(ref))
function closeAllocatorsAtExit() {
  for (const ref of openAllocators) {
    const a = ref.deref()
    if (a === undefined || a.closed) continue
    try {
      a.close()
    } catch (e) {
      process.stderr.write(`idmint: a SegmentAllocator open at exit could not be closed: ${e.message}\n`)
    }
  }
  openAllocators.clear()
}
let exitHooked = false
api.SegmentAllocator = new Proxy(NativeAllocator, {
  construct(target, args, newTarget) {
    const a = Reflect.construct(target, args, newTarget)
    const ref = new WeakRef(a)
    openAllocators.add(ref)
    forget.register(a, ref)
    if (!exitHooked) {
      exitHooked = true
      process.on('exit', closeAllocatorsAtExit)
    }
    return a
  },
})

module.exports = api
Object.defineProperty(module.exports, Symbol.for('idmint.benchFloor'), { value: _benchFloor })
