#!/usr/bin/env bash
# Runs every test of every surface. Installs what it needs first (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

start=$SECONDS
step() { printf '\n==> [%dm%02ds] %s\n' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)) "$*"; }

step "setup: what compiling needs (scripts/setup.sh tools); the servers install meanwhile"
bash scripts/setup.sh tools
# The servers, Chromium and the other test programs install in the background while the lints
# compile (apt waits on the network, the compiler on the CPU); the tests wait for them below.
servers_log=$(mktemp)
bash scripts/setup.sh servers >"$servers_log" 2>&1 &
servers_pid=$!

step "format"
cargo fmt --all -- --check

step "the bindings' lock files pin the workspace's versions (one release build serves all)"
python3 scripts/check-locks.py

step "clippy (all targets, warnings are errors)"
# bindings-js (the Node and browser packages' shared crate) with its Node-only `coord` part.
cargo clippy --workspace --all-targets --locked --features idmint-js/coord -- -D warnings
# The C library builds coord with no store features (the file lease only).
cargo clippy -p idmint-coord --no-default-features --lib --locked -- -D warnings

step "rustdoc (missing docs and broken links are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --locked -p idmint -p idmint-coord -p idmint-server

step "core builds as no_std (no alloc, and alloc only) for wasm32-unknown-unknown"
for features in "" "--features alloc"; do
  # shellcheck disable=SC2086
  RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$root/target/wasm-nostd" \
    cargo build --locked -p idmint --no-default-features $features \
    --target wasm32-unknown-unknown -Zbuild-std=core,alloc --release
done

step "setup: the servers and test programs (scripts/setup.sh servers, started above)"
if ! wait "$servers_pid"; then
  cat "$servers_log"
  echo "scripts/setup.sh servers failed" >&2
  exit 1
fi
cat "$servers_log"
rm -f "$servers_log"

step "Rust tests: core, coord (private Redis/PostgreSQL servers and etcd clusters on loopback), vectors, CLI, service, examples"
# cargo nextest runs the test binaries side by side (.config/nextest.toml); doc tests apart.
cargo nextest run --workspace --locked
cargo test --workspace --locked --doc

step "loom model check of the lock-free generator"
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR="$root/target/loom" \
  cargo test --locked -p idmint --test loom --release

step "C library and header (bindings-c/test.sh)"
bash bindings-c/test.sh

# The C library, the Python and Node packages and the CLI's release build share one release
# profile (thin LTO, one codegen unit, panic = "unwind"), the workspace's target directory and an
# explicit host triple (napi-rs always names one): the dependencies compile once for all four.
step "Python package (bindings-python/test.sh)"
CARGO_TARGET_DIR="$root/target" bash bindings-python/test.sh

step "PostgreSQL extension (bindings-postgres/test.sh: clippy, cargo pgrx install, private clusters, next to the Python package above)"
CARGO_TARGET_DIR="$root/target" bash bindings-postgres/test.sh

step "Node.js package (bindings-node/test.sh)"
CARGO_TARGET_DIR="$root/target" bash bindings-node/test.sh

step "Browser package (bindings-wasm/test.sh)"
bash bindings-wasm/test.sh

step "chaos: the deployed cluster under faults, one bounded scenario per store (chaos/README.md; reports in target/chaos/)"
# idmint serve instances, store members and clients in network namespaces; partitions, pauses,
# kills, store data loss and clock jumps on a seeded schedule; the browser clients run the
# browser package built above (its Node.js flavour); fails on any duplicate ID or availability
# miss.
cargo build --locked -q -p idmint-cli -p idmint-chaos
"${CARGO_TARGET_DIR:-target}/debug/idmint-chaos" --bounded --out target/chaos \
  --browser-js bindings-wasm/pkg/node/idmint.js

step "release artifacts: scripts/dist.sh builds dist/, scripts/dist-smoke.sh installs each without a Rust toolchain"
bash scripts/dist.sh
bash scripts/dist-smoke.sh

step "documentation that runs: every README block ran (python, js, c here; console and rust in the Rust tests) or is marked not run with a reason"
# scripts/docs-check.py: the rules for README blocks, the inventory by file:line, the counts.
python3 scripts/docs-check.py --self-test
python3 scripts/docs-check.py

step "examples/rust runs"
cargo run --locked -q -p idmint-example-rust

step "CLI main job: mint and decode on embedded defaults (the debug build the tests made)"
cargo run --locked -q -p idmint-cli -- gen -n 5 | cargo run --locked -q -p idmint-cli -- decode -

step "CLI main job needs no protoc: no protobuf/gRPC crate in its build; it builds and runs with protoc hidden"
if cargo tree -p idmint-cli --locked -e normal,build | grep -E 'prost|tonic'; then
  echo "the CLI's build pulls in protobuf/gRPC crates (they need protoc to build)" >&2
  exit 1
fi
bash scripts/without-protoc.sh bash -c \
  'cargo run --locked -q -p idmint-cli -- gen -n 5 | cargo run --locked -q -p idmint-cli -- decode -'

echo
echo "all tests passed in $(((SECONDS - start) / 60))m$(((SECONDS - start) % 60))s"
