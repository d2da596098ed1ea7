#!/usr/bin/env bash
# Installs what the test suite needs, idempotently. Safe to run on a fresh machine or again.
#
#   bash scripts/setup.sh            everything
#   bash scripts/setup.sh tools      what compiling needs (Debian's rustc-web, nextest)
#   bash scripts/setup.sh servers    what running the tests needs (servers, valgrind, faketime,
#                                    Chromium, CMake, ...)
# scripts/test.sh runs `tools` first and `servers` in the background while the lints compile:
# the two install disjoint packages, and only `servers` waits on the network for long.
set -euo pipefail
part=${1:-all}

apt_install() {
  [ $# -gt 0 ] || return 0
  echo "setup: apt-get install $*"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "$@" >/dev/null
}

tools() {
  local need=()
  # Debian's rustc-web builds the no_std core for wasm32 with build-std (rustup cannot add
  # targets here).
  [ -x /usr/bin/rustc ] && /usr/bin/rustc --print target-list 2>/dev/null | grep -q '^wasm32-unknown-unknown$' \
    && [ -d /usr/lib/rustlib/src/rust/library ] || need+=(rustc-web cargo-web rust-web-src rust-web-llvm)
  apt_install "${need[@]}"
  # rust-lld is a symlink to an lld-NN package that rustc-web does not pull in by itself.
  if [ -L /usr/bin/rust-lld ] && [ ! -e /usr/bin/rust-lld ]; then
    apt_install "$(basename "$(readlink /usr/bin/rust-lld)")"
  fi
  # The PostgreSQL extension (bindings-postgres) builds with pgrx: bindgen needs libclang, and
  # the server headers of the PostgreSQL major this machine runs (Debian 12's is 15).
  local pg_major
  need=()
  pg_major=$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -n 1)
  pg_major=${pg_major:-15}
  [ -f "/usr/include/postgresql/$pg_major/server/postgres.h" ] || need+=("postgresql-server-dev-$pg_major")
  dpkg -s libclang-dev >/dev/null 2>&1 || need+=(libclang-dev)
  apt_install "${need[@]}"
  # cargo-pgrx builds, packages and installs the extension; it must match the crate's pgrx.
  [ "$(cargo pgrx --version 2>/dev/null)" = "cargo-pgrx 0.16.1" ] || cargo install --locked cargo-pgrx@0.16.1
  # The test runner of scripts/test.sh (part of the toolchain on these machines; built if
  # missing).
  command -v cargo-nextest >/dev/null || cargo install --locked cargo-nextest@0.9.143
  local c
  for c in clippy fmt; do
    cargo "$c" --version >/dev/null 2>&1 || { echo "setup: cargo $c is missing from the Rust toolchain" >&2; exit 1; }
  done
}

servers() {
  local need=()
  command -v valgrind >/dev/null || need+=(valgrind)
  # Real servers for the coordination tests (started on loopback by scripts/services.sh), and
  # libfaketime to set a real process's clock back.
  command -v redis-server >/dev/null || need+=(redis-server)
  ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || need+=(postgresql)
  { command -v mariadbd || command -v mysqld || [ -x /usr/sbin/mariadbd ]; } >/dev/null 2>&1 \
    || need+=(mariadb-server)
  # Debian's ZooKeeper, on the JRE it pulls in (default-jre); services.sh starts it standalone.
  [ -f /usr/share/java/zookeeper.jar ] && [ -d /usr/share/zookeeper ] || need+=(zookeeper)
  command -v faketime >/dev/null || need+=(faketime)
  # A 3-member etcd cluster for the etcd lease store's tests (etcd, and etcdctl to steer it).
  command -v etcd >/dev/null || need+=(etcd-server)
  command -v etcdctl >/dev/null || need+=(etcd-client)
  # openssl makes the throwaway certificates of the TLS store tests.
  command -v openssl >/dev/null || need+=(openssl)
  # The release smoke test (scripts/dist-smoke.sh) builds a C program with CMake and pkg-config.
  command -v cmake >/dev/null || need+=(cmake)
  command -v pkg-config >/dev/null || need+=(pkg-config)
  # It also renders the CLI's man page (and cli/tests/cli.rs does, when man is there).
  command -v man >/dev/null || need+=(man-db)
  # The READMEs' HTTP transcripts run curl against a private service (cli/tests/docs.rs).
  command -v curl >/dev/null || need+=(curl)
  # The browser package's tests run in headless Chromium (bindings-wasm/test.sh).
  { command -v chromium && command -v chromedriver; } >/dev/null 2>&1 || need+=(chromium chromium-driver)
  apt_install "${need[@]}"
  # The server's hostile tests parse /metrics with the Prometheus Python client's parser.
  local prom=0.26.0
  if ! python3 -c "import importlib.metadata as m, sys; sys.exit(m.version('prometheus-client') != '$prom')" 2>/dev/null; then
    echo "setup: pip install prometheus-client==$prom"
    python3 -m pip install -q "prometheus-client==$prom" 2>/dev/null \
      || python3 -m pip install -q --break-system-packages "prometheus-client==$prom"
  fi
}

case "$part" in
  tools) tools ;;
  servers) servers ;;
  all)
    tools
    servers
    ;;
  *) echo "usage: setup.sh [tools|servers|all]" >&2; exit 2 ;;
esac
echo "setup ($part): ok"
