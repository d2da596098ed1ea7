#!/usr/bin/env bash
# Every test of the PostgreSQL extension: format, clippy (warnings are errors), the extension
# built and installed into the machine's PostgreSQL (`cargo pgrx install --release`: the shared
# library, control file and SQL script; root writes into /usr), then tests/extension.rs, which
# starts private clusters (initdb, a free loopback port, shared_preload_libraries = 'idmint'):
# 16 sessions x 100,000 rows with no duplicate, a restart with the clock 10 s back under
# libfaketime, the lease worker next to coord's LeasedSnowflake and next to Python's (the wheel
# bindings-python/test.sh installed in target/py-venv) on one lease table, bad
# settings and an expired layout, the shared vectors through SQL.
# Needs what scripts/setup.sh installs (postgresql-server-dev-N, libclang-dev, cargo-pgrx).
#   bash bindings-postgres/test.sh
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd .. && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
pg_config=${PG_CONFIG:-/usr/bin/pg_config}
export PGRX_PG_CONFIG_PATH=$pg_config

step() { printf '\n==> bindings-postgres: %s\n' "$*"; }

step "PostgreSQL $("$pg_config" --version | awk '{print $2}'), cargo-pgrx $(cargo pgrx --version | awk '{print $2}')"
pgrx=$(sed -n 's/^pgrx = "=\(.*\)"$/\1/p' Cargo.toml)
[ "$(cargo pgrx --version | awk '{print $2}')" = "$pgrx" ] \
  || { echo "cargo-pgrx must be $pgrx, the pgrx of Cargo.toml (scripts/setup.sh tools)" >&2; exit 1; }
# The extension's version is the workspace's.
version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"$/\1/p' ../Cargo.toml)
[ "$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)" = "$version" ] \
  || { echo "bindings-postgres/Cargo.toml's version differs from the workspace's $version" >&2; exit 1; }

step "format and clippy (warnings are errors)"
cargo fmt -- --check
cargo clippy --all-targets --locked -- -D warnings

step "build and install into $("$pg_config" --pkglibdir) (cargo pgrx install --release)"
cargo pgrx install --release --pg-config "$pg_config" 2>&1 | grep -v '^ *Compiling' || true
[ -f "$("$pg_config" --sharedir)/extension/idmint--$version.sql" ] \
  || { echo "cargo pgrx install left no idmint--$version.sql" >&2; exit 1; }

step "tests in private clusters"
# The Python application test uses the wheel bindings-python/test.sh installs in this venv.
export IDMINT_TEST_PYTHON=${IDMINT_TEST_PYTHON:-$CARGO_TARGET_DIR/py-venv/bin/python}
cargo test --locked --test extension
