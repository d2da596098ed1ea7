#!/usr/bin/env bash
# Every test of the browser (WebAssembly) package, installing what it needs first (idempotent):
# Debian's rustc-web + rust-src (build-std), Chromium + chromedriver, wasm-bindgen-cli of the
# pinned version, and the pinned npm packages. About 3 minutes once installed; a fresh machine
# adds the installs (wasm-bindgen-cli builds in ~2 minutes, std for wasm32 in ~4).
#
#   bash bindings-wasm/test.sh
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
root=$(cd .. && pwd)

step() { printf '\n==> wasm: %s\n' "$*"; }
export DEBIAN_FRONTEND=noninteractive
apt_updated=0
apt_install() {
  if [ $apt_updated = 0 ]; then
    apt-get update -qq
    apt_updated=1
  fi
  echo "apt-get install $*"
  apt-get install -y -qq "$@" >/dev/null
}

step "setup"
# Debian's rustc-web builds for wasm32-unknown-unknown with build-std (rustup cannot add targets here).
if ! { [ -x /usr/bin/rustc ] && /usr/bin/rustc --print target-list 2>/dev/null | grep -qx wasm32-unknown-unknown &&
  [ -d /usr/lib/rustlib/src/rust/library ]; }; then
  apt_install rustc-web cargo-web rust-web-src rust-web-llvm
fi
# rust-lld is a symlink to an lld-NN package that rustc-web does not pull in by itself.
if [ -L /usr/bin/rust-lld ] && [ ! -e /usr/bin/rust-lld ]; then
  apt_install "$(basename "$(readlink /usr/bin/rust-lld)")"
fi
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  apt_install chromium chromium-driver
fi
# wasm-bindgen-cli must be exactly the version of the wasm-bindgen crate in Cargo.lock.
export PATH="$HOME/.cargo/bin:$PATH"
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3 }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have" != "$want" ]; then
  echo "cargo install wasm-bindgen-cli --version $want (found: ${have:-none})"
  cargo install --quiet wasm-bindgen-cli --version "$want"
fi
if [ ! -x node_modules/.bin/wasm-opt ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi

step "one version: workspace Cargo.toml = bindings-wasm/Cargo.toml = package.json"
workspace=$(awk '/^\[workspace.package\]/ { p = 1 } p && /^version = / { gsub(/"/, "", $3); print $3; exit }' "$root/Cargo.toml")
crate=$(awk '/^\[package\]/ { p = 1 } p && /^version = / { gsub(/"/, "", $3); print $3; exit }' Cargo.toml)
npm_version=$(node -p 'require("./package.json").version')
if [ "$workspace" != "$crate" ] || [ "$workspace" != "$npm_version" ]; then
  echo "versions differ: workspace $workspace, Cargo.toml $crate, package.json $npm_version" >&2
  exit 1
fi
echo "$workspace"

# The crate needs nightly features of Cargo and rustc (build-std, panic = "immediate-abort");
# RUSTC_BOOTSTRAP=1 enables them on Debian's stable toolchain (see /work/shared/ENVIRONMENT.md).
export RUSTC_BOOTSTRAP=1 CHROMEDRIVER=/usr/bin/chromedriver

step "format (this crate and the shared bindings-js)"
cargo fmt --check
(cd ../bindings-js && cargo fmt --check)

step "build web, bundler and nodejs flavours; index.d.ts and web.d.ts must be fresh"
bash scripts/build.sh --check
# The web flavour is not run by the shared suite (it checks the others' exports): its module
# must export no internal name either, and keep the benchmark floors under their symbol.
node --input-type=module -e "
  const m = await import('./pkg/web/idmint.js')
  const internal = Object.keys(m).filter((k) => k.startsWith('_'))
  if (internal.length) throw new Error('pkg/web exports internal names: ' + internal.join(', '))
  if (typeof m.Snowflake[Symbol.for('idmint.bench')]?.floor !== 'function') throw new Error('pkg/web: no benchmark floors')
"

step "Rust unit tests (wasm-bindgen-test) in Node, headless Chromium and a Web Worker"
cargo test --locked --lib
WASM_BINDGEN_USE_BROWSER=1 cargo test --locked --lib
WASM_BINDGEN_USE_DEDICATED_WORKER=1 cargo test --locked --lib

step "shared JavaScript suite (bindings-node/tests) against the wasm build"
suite="$root/bindings-node/tests"
if ! ls "$suite"/*.test.mjs >/dev/null 2>&1; then
  echo "the shared suite is missing: $suite/*.test.mjs" >&2
  exit 1
fi
echo "(nodejs flavour)"
(cd "$root/bindings-node" && IDMINT_IMPL="$here/pkg/node/idmint.js" node --test --test-reporter=dot tests/)
echo "(bundler flavour, through Node's WebAssembly ES module integration)"
(cd "$root/bindings-node" && IDMINT_IMPL="$here/pkg/bundler/idmint.js" NODE_OPTIONS=--experimental-wasm-modules \
  node --no-warnings --test --test-reporter=dot tests/)

step "LeasedSnowflake against a fake lease service (tests/lease: nodejs and bundler flavours)"
node --test --test-reporter=dot tests/lease/
IDMINT_IMPL="$here/pkg/bundler/idmint.js" NODE_OPTIONS=--experimental-wasm-modules \
  node --no-warnings --test --test-reporter=dot tests/lease/

step "TypeScript: the Node and browser packages are interchangeable (tsc)"
node_modules/.bin/tsc -p tests/types

step "examples/browser in headless Chromium (Playwright): page and Web Worker, against a fake and a real lease service"
# The real one: `idmint serve` on loopback (scripts/services.sh builds the CLI if needed).
svc_dir=$(mktemp -d)
svc_port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })')
# The page's static server listens on a port chosen at run time: allow any origin.
bash "$root/scripts/services.sh" start idmint "$svc_dir" "$svc_port" --cors-origins '*'
trap 'bash "$root/scripts/services.sh" stop idmint "$svc_dir"; rm -rf "$svc_dir"' EXIT
IDMINT_TEST_SERVICE_URL="http://127.0.0.1:$svc_port" IDMINT_SCREENSHOT_DIR="$here/target/screenshots" \
  node --test tests/e2e/

step "benchmark page runs (1 short round; real numbers: node tests/bench/run.mjs)"
node tests/bench/run.mjs --rounds 1 --round-ms 5 --json >/dev/null

step "size of the .wasm"
wasm=pkg/web/idmint_bg.wasm
printf '%s: %s bytes raw, %s bytes gzipped (gzip -9)\n' "$wasm" "$(stat -c %s "$wasm")" "$(gzip -9 -c "$wasm" | wc -c)"

echo
echo "wasm: all tests passed"
