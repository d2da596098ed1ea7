#!/usr/bin/env bash
# Every test of the browser package (idmint-web), installing what it needs first (idempotent):
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

step "build the entries (full, formats, snowflake: JavaScript; wasm: the core) in web, bundler and nodejs flavours; their .d.ts must be fresh"
bash scripts/build.sh --check
# The web flavour is not run by the shared suite (it checks the others' exports): its modules
# must export no internal name either, and keep the benchmark floors under their symbol.
for web in pkg/web/idmint.js pkg/web/snowflake/idmint.js pkg/web/formats/idmint.js pkg/web/wasm/idmint.js; do
  WEB=./$web node --input-type=module -e "
    const m = await import(process.env.WEB)
    const internal = Object.keys(m).filter((k) => k.startsWith('_'))
    if (internal.length) throw new Error(process.env.WEB + ' exports internal names: ' + internal.join(', '))
    if (m.Snowflake && typeof m.Snowflake[Symbol.for('idmint.bench')]?.floor !== 'function') throw new Error(process.env.WEB + ': no benchmark floors')
  "
done
# The JavaScript entries' syntax is no newer than the README's browser floor: esbuild, asked to
# lower each for those browsers, changes nothing (it would rewrite what they cannot run).
floor=--target=chrome94,edge94,firefox93,safari16.4
for js in pkg/web/idmint.js pkg/web/formats/idmint.js pkg/web/snowflake/idmint.js; do
  if ! cmp -s <(node_modules/.bin/esbuild "$js" --format=esm --minify "$floor" --log-level=error) \
    <(node_modules/.bin/esbuild "$js" --format=esm --minify --target=esnext --log-level=error); then
    echo "$js: uses syntax the stated browsers ($floor) cannot run" >&2
    exit 1
  fi
done
# The formats entry (UUIDs, TypeID, ULID) holds no Snowflake, and the Snowflake entry no formats.
node --input-type=module -e "
  const { default: f } = await import('./pkg/node/formats/idmint.js')
  const { default: s } = await import('./pkg/node/snowflake/idmint.js')
  if (f.Snowflake || f.Layout || !/^[0-9a-f-]{36}\$/.test(f.uuid7()) || !f.parseUlid(f.ulid())) throw new Error('pkg/node/formats: not the formats entry')
  if (s.uuid7 || s.encode || s.fromConfig || typeof new s.Snowflake({ node: 1 }).nextId() !== 'bigint') throw new Error('pkg/node/snowflake: not the Snowflake entry')
  // Node's ES modules import each CommonJS entry's names one by one, and classes keep their names.
  for (const path of ['./pkg/node/idmint.js', './pkg/node/snowflake/idmint.js', './pkg/node/formats/idmint.js', './pkg/node/wasm/idmint.js']) {
    const ns = await import(path)
    const missing = Object.keys(ns.default).filter((k) => !(k in ns))
    if (missing.length) throw new Error(path + ': not importable by name from an ES module: ' + missing.join(', '))
    for (const [k, v] of Object.entries(ns.default)) {
      if (typeof v === 'function' && /^class\\b/.test(Function.prototype.toString.call(v)) && v.name !== k) throw new Error(path + ': class ' + k + ' is named ' + v.name)
    }
  }
"

step "the JavaScript entries (js/) against the WebAssembly build of the core (tests/js)"
# The entries are a port of the core's rules: the same values, errors, random draws and IDs as
# the WebAssembly build, module by module on generated inputs and the shared vectors; then the
# built Snowflake-only and full entries through their public API.
node --test --test-reporter=dot tests/js/
IDMINT_JS_ENTRY=../../pkg/node/idmint.js node --test --test-reporter=dot tests/js/entry.test.mjs

step "Rust unit tests (wasm-bindgen-test) in Node, headless Chromium and a Web Worker"
cargo test --locked --lib
WASM_BINDGEN_USE_BROWSER=1 cargo test --locked --lib
WASM_BINDGEN_USE_DEDICATED_WORKER=1 cargo test --locked --lib

step "shared JavaScript suite (bindings-node/tests) against every entry"
suite="$root/bindings-node/tests"
if ! ls "$suite"/*.test.mjs >/dev/null 2>&1; then
  echo "the shared suite is missing: $suite/*.test.mjs" >&2
  exit 1
fi
# Tests that need exports an entry lacks are skipped with the reason "not in this entry: NAMES"
# (bindings-node/tests/support/impl.mjs `lacks`); the TAP copy of each run counts and lists them.
tap_dir=$(mktemp -d)
entry_skips() {
  grep -E '# SKIP not in this entry' "$1" | sed -E 's/^ *ok [0-9]+ - /  /' || true
}
for entry in full wasm; do
  label=idmint-web path=$here/pkg/node/idmint.js
  [ "$entry" = full ] || label=idmint-web/$entry path=$here/pkg/node/$entry/idmint.js
  echo "($label entry, nodejs flavour)"
  (cd "$root/bindings-node" && IDMINT_IMPL="$path" node --test --test-reporter=dot \
    --test-reporter-destination=stdout --test-reporter=tap --test-reporter-destination="$tap_dir/$entry.tap" tests/)
  if [ -n "$(entry_skips "$tap_dir/$entry.tap")" ]; then
    echo "the $entry entry skipped tests for missing exports:" >&2
    entry_skips "$tap_dir/$entry.tap" >&2
    exit 1
  fi
done
for entry in snowflake formats; do
  echo "(idmint-web/$entry entry, nodejs flavour)"
  (cd "$root/bindings-node" && IDMINT_IMPL="$here/pkg/node/$entry/idmint.js" node --test --test-reporter=dot \
    --test-reporter-destination=stdout --test-reporter=tap --test-reporter-destination="$tap_dir/$entry.tap" tests/)
  echo "$(entry_skips "$tap_dir/$entry.tap" | wc -l) tests or groups skipped for the $entry entry, each for exports it does not have:"
  entry_skips "$tap_dir/$entry.tap"
  grep -E '^# (tests|pass)' "$tap_dir/$entry.tap"
done
rm -rf "$tap_dir"
echo "(idmint-web entry, bundler flavour)"
(cd "$root/bindings-node" && IDMINT_IMPL="$here/pkg/bundler/idmint.js" node --test --test-reporter=dot tests/)
echo "(idmint-web/wasm entry, bundler flavour, through Node's WebAssembly ES module integration)"
(cd "$root/bindings-node" && IDMINT_IMPL="$here/pkg/bundler/wasm/idmint.js" NODE_OPTIONS=--experimental-wasm-modules \
  node --no-warnings --test --test-reporter=dot tests/)

step "LeasedSnowflake against a fake lease service (tests/lease: the full and wasm entries, nodejs and bundler flavours)"
node --test --test-reporter=dot tests/lease/
IDMINT_IMPL="$here/pkg/bundler/idmint.js" node --test --test-reporter=dot tests/lease/
IDMINT_IMPL="$here/pkg/bundler/wasm/idmint.js" NODE_OPTIONS=--experimental-wasm-modules \
  node --no-warnings --test --test-reporter=dot tests/lease/

step "TypeScript: the Node and browser packages are interchangeable (tsc)"
node_modules/.bin/tsc -p tests/types

step "examples/browser in headless Chromium (Playwright): page and Web Worker, against a fake and a real lease service; each Snowflake entry in a page and a module worker"
# The real one: `idmint serve` on loopback (scripts/services.sh builds the CLI if needed).
# It runs on the example's own config (examples/browser/idmint.toml), with CORS opened to the
# origin the test serves the page from instead of the README's port 8000.
svc_dir=$(mktemp -d)
free_port() { node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })'; }
svc_port=$(free_port)
page_port=$(free_port)
bash "$root/scripts/services.sh" start idmint "$svc_dir" "$svc_port" \
  --config "$root/examples/browser/idmint.toml" --cors-origins "http://127.0.0.1:$page_port"
trap 'bash "$root/scripts/services.sh" stop idmint "$svc_dir"; bash "$root/scripts/services.sh" stop idmint "$svc_dir/tls"; rm -rf "$svc_dir"' EXIT
IDMINT_TEST_SERVICE_URL="http://127.0.0.1:$svc_port" IDMINT_TEST_PAGE_PORT="$page_port" \
  IDMINT_SCREENSHOT_DIR="$here/target/screenshots" node --test tests/e2e/

step "LeasedSnowflake against the real service, over HTTP and over HTTPS (a throwaway CA; tests/service)"
pki="$svc_dir/pki"
mkdir -p "$pki"
(
  cd "$pki"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=idmint-test-ca \
    -keyout ca.key -out ca.crt 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 \
    -keyout server.key -out server.csr 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >san.ext
  openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
    -extfile san.ext -out server.crt 2>/dev/null
)
tls_port=$(free_port)
bash "$root/scripts/services.sh" start idmint "$svc_dir/tls" "$tls_port" \
  --config "$root/examples/browser/idmint.toml" --tls-cert "$pki/server.crt" --tls-key "$pki/server.key"
IDMINT_TEST_SERVICE_URL="http://127.0.0.1:$svc_port" IDMINT_TEST_TLS_SERVICE_URL="https://127.0.0.1:$tls_port" \
  NODE_EXTRA_CA_CERTS="$pki/ca.crt" node --test --test-reporter=dot tests/service/

step "benchmark page runs (1 short round; real numbers: node tests/bench/run.mjs)"
node tests/bench/run.mjs --rounds 1 --round-ms 5 --json >/dev/null

step "page weight of each entry: what headless Chromium fetches for a page minting 100,000 IDs (gzip -9)"
# Budgets guard against growth (today: full 31.4 KB, snowflake 17.0 KB, formats 16.3 KB, wasm 90.5 KB);
# see README "Size".
node tests/size/weight.mjs --max full=32 --max snowflake=18 --max formats=17 --max wasm=91

echo
echo "wasm: all tests passed"
