'use strict'
// The CommonJS entry point: loads the native addon built for this platform (see platform.js;
// built by `npm install` or `npm run build`). Every export is native; index.d.ts describes them.

const { existsSync } = require('node:fs')
const { join } = require('node:path')
const { candidates } = require('./platform.js')

function load() {
  const tried = []
  for (const name of candidates()) {
    const path = join(__dirname, name)
    tried.push(path)
    if (existsSync(path)) return require(path)
  }
  throw new Error(
    `idmint: no native addon for ${process.platform}-${process.arch} (looked for ${tried.join(', ')}). ` +
      `Build it with \`npm run build\` (or \`node scripts/install.js\`) in ${__dirname}; ` +
      'that needs a Rust toolchain (cargo 1.88 or later, from https://rustup.rs).'
  )
}

// `_benchFloor` (an empty call, the benchmarks' floor) is not part of the API: it stays off the
// exports, reachable only under a symbol for bench/bench.mjs.
const { _benchFloor, ...api } = load()
module.exports = api
Object.defineProperty(module.exports, Symbol.for('idmint.benchFloor'), { value: _benchFloor })
