#!/usr/bin/env bash
# Runs every test of every surface. Installs what it needs first (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

start=$SECONDS
step() { printf '\n==> [%dm%02ds] %s\n' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)) "$*"; }

step "setup"
bash scripts/setup.sh

step "format"
cargo fmt --all -- --check

step "clippy (all targets, warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings
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

step "Rust tests: core, coord (private Redis/PostgreSQL servers and etcd clusters on loopback), vectors, CLI, service, examples"
# cargo nextest runs the test binaries side by side (.config/nextest.toml); doc tests apart.
cargo nextest run --workspace --locked
cargo test --workspace --locked --doc

step "loom model check of the lock-free generator"
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR="$root/target/loom" \
  cargo test --locked -p idmint --test loom --release

step "C library and header (bindings-c/test.sh)"
bash bindings-c/test.sh

# The Python and Node packages build with one release profile (panic = "unwind", one codegen
# unit): one target directory lets the second reuse the dependencies the first compiled.
step "Python package (bindings-python/test.sh)"
CARGO_TARGET_DIR="$root/target/ext" bash bindings-python/test.sh

step "Node.js package (bindings-node/test.sh)"
CARGO_TARGET_DIR="$root/target/ext" bash bindings-node/test.sh

step "Browser package (bindings-wasm/test.sh)"
bash bindings-wasm/test.sh

step "release artifacts: scripts/dist.sh builds dist/, scripts/dist-smoke.sh installs each without a Rust toolchain"
bash scripts/dist.sh
bash scripts/dist-smoke.sh

step "examples/rust runs"
cargo run --locked -q -p idmint-example-rust

step "CLI main job: mint and decode on embedded defaults (the debug build the tests made)"
cargo run --locked -q -p idmint-cli -- gen -n 5 | cargo run --locked -q -p idmint-cli -- decode -

echo
echo "all tests passed in $(((SECONDS - start) / 60))m$(((SECONDS - start) % 60))s"
