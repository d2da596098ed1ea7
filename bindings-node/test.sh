#!/usr/bin/env bash
# Every check of the Node.js binding: installs what it needs (npm ci), builds the addon in release
# mode, checks the committed index.d.ts is not stale, lints the crate, type-checks the .d.ts,
# runs the test suite and the example. Needs node 20+, npm, and a Rust toolchain (cargo 1.88+).
# The coordination tests (tests/coord.native.mjs) run against Redis and PostgreSQL: the servers
# named by IDMINT_TEST_REDIS_URL / IDMINT_TEST_POSTGRES_URL, or else private ones started here
# with scripts/services.sh (installed by scripts/setup.sh) and stopped on exit.
#
#   bash bindings-node/test.sh
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD

step() { printf '\n==> node: %s\n' "$*"; }

for tool in node npm cargo; do
  command -v "$tool" >/dev/null || { echo "test.sh: $tool not found" >&2; exit 1; }
done

tmp=$(mktemp -d)
services="$here/../scripts/services.sh"
started=()
cleanup() {
  local kind
  for kind in "${started[@]}"; do bash "$services" stop "$kind" "$tmp/$kind" || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

step "npm ci (@napi-rs/cli, typescript, tinybench and the benchmark peers, pinned by package-lock.json)"
if ! npm ci --ignore-scripts --no-audit --no-fund 2>"$tmp/ci.err"; then
  # npm 11's ci wants lock entries for every platform's optional packages (@napi-rs/cli's lzma,
  # tar and wasm-tools binaries), and a registry mirror without the other platforms' builds
  # cannot give them. Install from the same lock file instead, and insist it stays unchanged.
  if grep -q 'Missing: .* from lock file' "$tmp/ci.err"; then
    echo "npm ci refused the lock file (other platforms' optional packages); npm install from the same lock" >&2
    cp package-lock.json "$tmp/package-lock.json"
    npm install --ignore-scripts --no-audit --no-fund
    if ! cmp -s package-lock.json "$tmp/package-lock.json"; then
      diff -u "$tmp/package-lock.json" package-lock.json | head -40 >&2 || true
      cp "$tmp/package-lock.json" package-lock.json
      echo "test.sh: package-lock.json does not match package.json" >&2
      exit 1
    fi
  else
    cat "$tmp/ci.err" >&2
    exit 1
  fi
fi

step "build the addons: light (--profile light) and with the stores (--release --features stores); index.d.ts must be fresh and name what the addon exports"
# Touch the crate root so the #[napi] macros run again and napi's declarations (napi.d.ts, used
# only to check which names the addon exports) come from the current source.
touch src/lib.rs
node_modules/.bin/napi build --platform --release --features stores --no-js --dts napi.d.ts --output-dir "$tmp" -- --locked
node ../bindings-js/dts.mjs names node "$tmp/napi.d.ts"
node ../bindings-js/dts.mjs node "$tmp/index.d.ts"
if ! diff -u index.d.ts "$tmp/index.d.ts"; then
  echo "index.d.ts is stale: run 'npm run build' in bindings-node (it is generated from bindings-js/idmint.d.ts) and commit it" >&2
  exit 1
fi
# The light addon (the package `idmint`), in a directory of its own (the `light` profile).
mkdir -p "$tmp/light"
node_modules/.bin/napi build --platform --profile light --no-js --output-dir "$tmp/light" -- --locked
# The tests below run on the add-on's build, loaded as this package's own addon file.
cp "$tmp"/idmint.*.node .

step "the light addon alone: tests-light (what it mints, the file lease store, the add-on named for a store URL) and the vectors"
# The package as npm lays it out without idmint-stores: its JavaScript beside the light addon.
light_pkg=$tmp/light/idmint
mkdir -p "$light_pkg"
cp index.js index.mjs platform.js package.json "$light_pkg/"
cp "$tmp"/light/idmint.*.node "$light_pkg/"
IDMINT_IMPL="$light_pkg/index.mjs" node --test tests-light/*.test.mjs tests/vectors.test.mjs

step "cargo fmt and clippy of this crate (outside the workspace; warnings are errors; bindings-js is linted with the workspace)"
cargo fmt -- --check
cargo clippy --release --locked -- -D warnings
cargo clippy --release --locked --features stores -- -D warnings
(cd ../bindings-js && cargo fmt -- --check)

step "tsc --strict --noEmit: index.d.ts, a CommonJS-style and an ES-module usage file"
node_modules/.bin/tsc --strict --noEmit --target es2022 --lib es2022 --module nodenext --moduleResolution nodenext \
  index.d.ts tests/types/usage.ts tests/types/usage.mts

step "Redis and PostgreSQL for the coordination tests"
free_port() { node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })'; }
if [ -z "${IDMINT_TEST_REDIS_URL:-}" ]; then
  port=$(free_port)
  bash "$services" start redis "$tmp/redis" "$port"
  started+=(redis)
  export IDMINT_TEST_REDIS_URL="redis://127.0.0.1:$port/"
fi
if [ -z "${IDMINT_TEST_POSTGRES_URL:-}" ]; then
  port=$(free_port)
  bash "$services" start postgres "$tmp/postgres" "$port"
  started+=(postgres)
  export IDMINT_TEST_POSTGRES_URL="postgres://idmint@127.0.0.1:$port/postgres"
fi
if [ -z "${IDMINT_TEST_SERVICE_URL:-}" ]; then
  port=$(free_port)
  bash "$services" start idmint "$tmp/idmint" "$port"
  started+=(idmint)
  export IDMINT_TEST_SERVICE_URL="idmint+http://127.0.0.1:$port/"
fi
# The tests must not quietly leave the servers out.
export IDMINT_TEST_REQUIRE_SERVERS=1
echo "redis $IDMINT_TEST_REDIS_URL, postgres $IDMINT_TEST_POSTGRES_URL, service $IDMINT_TEST_SERVICE_URL"

step "node --test (vectors, API, threads and processes, clock steps, leases and segments)"
tap="$tmp/results.tap"
node --test --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination="$tap" \
  tests/*.test.mjs tests/*.native.mjs
count() { sed -n "s/^# $1 \([0-9][0-9]*\)$/\1/p" "$tap" | tail -1; }
tests=$(count tests); pass=$(count pass); fail=$(count fail)
if [ -z "$tests" ] || [ "$tests" -eq 0 ]; then
  echo "test.sh: the test runner ran no test" >&2
  exit 1
fi
echo "node: ${pass} passed, ${fail} failed"

step "examples/node runs"
cd "$here/../examples/node"
npm ci --no-audit --no-fund
node example.mjs

echo
echo "node: all checks passed"
