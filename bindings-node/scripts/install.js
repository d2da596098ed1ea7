'use strict'
// npm's "install" step: build the native addon, unless one for this platform is already here:
// the prebuilt package npm installed through optionalDependencies (idmint-linux-x64-gnu, ...),
// or an earlier build.
//
// With @napi-rs/cli available (a development checkout after `npm install`), it runs
// `napi build --platform --release --no-js`; otherwise it runs cargo directly and copies the
// library into place under the same name. Either way a Rust toolchain is needed (cargo 1.88 or
// later); the crate's dependencies come from crates.io, pinned by Cargo.lock.
//
// IDMINT_SKIP_BUILD=1 skips the build (for CI steps that build separately).

const { execFileSync } = require('node:child_process')
const { copyFileSync, existsSync } = require('node:fs')
const { join } = require('node:path')
const { candidates, installedPackage } = require('../platform.js')

const root = join(__dirname, '..')

function main() {
  if (process.env.IDMINT_SKIP_BUILD) {
    console.log('idmint: IDMINT_SKIP_BUILD is set; not building the native addon')
    return
  }
  const names = candidates()
  const found = names.find((n) => existsSync(join(root, n)))
  if (found) {
    console.log(`idmint: using the native addon ${found}`)
    return
  }
  const prebuilt = installedPackage(root)
  if (prebuilt) {
    console.log(`idmint: using the prebuilt native addon of ${prebuilt.name}`)
    return
  }
  try {
    execFileSync('cargo', ['--version'], { stdio: 'ignore' })
  } catch {
    console.error(
      'idmint: no prebuilt native addon for this platform, and cargo was not found.\n' +
        'Install a Rust toolchain (https://rustup.rs, cargo 1.88 or later) and run `npm install` again.'
    )
    process.exit(1)
  }
  const napi = join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js')
  console.log('idmint: building the native addon (cargo build --release; a minute or two)...')
  if (existsSync(napi)) {
    execFileSync(process.execPath, [napi, 'build', '--platform', '--release', '--no-js', '--', '--locked'], {
      cwd: root,
      stdio: 'inherit',
    })
    return
  }
  execFileSync('cargo', ['build', '--release', '--locked', '--manifest-path', join(root, 'Cargo.toml')], {
    cwd: root,
    stdio: 'inherit',
  })
  const lib = { darwin: 'libidmint_node.dylib', win32: 'idmint_node.dll' }[process.platform] ?? 'libidmint_node.so'
  const targetDir = process.env.CARGO_TARGET_DIR ?? join(root, 'target')
  copyFileSync(join(targetDir, 'release', lib), join(root, names[0]))
  console.log(`idmint: built ${names[0]}`)
}

main()
