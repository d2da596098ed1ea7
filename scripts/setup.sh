#!/usr/bin/env bash
# Installs what the test suite needs, idempotently. Safe to run on a fresh machine or again.
set -euo pipefail

need_apt=()
# Debian's rustc-web builds the no_std core for wasm32 with build-std (rustup cannot add targets here).
[ -x /usr/bin/rustc ] && /usr/bin/rustc --print target-list 2>/dev/null | grep -q '^wasm32-unknown-unknown$' \
  && [ -d /usr/lib/rustlib/src/rust/library ] || need_apt+=(rustc-web cargo-web rust-web-src rust-web-llvm)
command -v valgrind >/dev/null || need_apt+=(valgrind)
# Real servers for the coordination tests (started on loopback by scripts/services.sh), and
# libfaketime to set a real process's clock back.
command -v redis-server >/dev/null || need_apt+=(redis-server)
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || need_apt+=(postgresql)
{ command -v mariadbd || command -v mysqld || [ -x /usr/sbin/mariadbd ]; } >/dev/null 2>&1 \
  || need_apt+=(mariadb-server)
# Debian's ZooKeeper, on the JRE it pulls in (default-jre); services.sh starts it standalone.
[ -f /usr/share/java/zookeeper.jar ] && [ -d /usr/share/zookeeper ] || need_apt+=(zookeeper)
command -v faketime >/dev/null || need_apt+=(faketime)
# A 3-member etcd cluster for the etcd lease store's tests (etcd, and etcdctl to steer it).
command -v etcd >/dev/null || need_apt+=(etcd-server)
command -v etcdctl >/dev/null || need_apt+=(etcd-client)
# The etcd client crate (etcd-client) compiles etcd's gRPC definitions with protoc when it builds.
command -v protoc >/dev/null || need_apt+=(protobuf-compiler)
# openssl makes the throwaway certificates of the TLS store tests.
command -v openssl >/dev/null || need_apt+=(openssl)
# The release smoke test (scripts/dist-smoke.sh) builds a C program with CMake and pkg-config.
command -v cmake >/dev/null || need_apt+=(cmake)
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
# It also renders the CLI's man page (and cli/tests/cli.rs does, when man is there).
command -v man >/dev/null || need_apt+=(man-db)

if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
# rust-lld is a symlink to an lld-NN package that rustc-web does not pull in by itself.
if [ -L /usr/bin/rust-lld ] && [ ! -e /usr/bin/rust-lld ]; then
  lld=$(basename "$(readlink /usr/bin/rust-lld)")
  echo "setup: apt-get install $lld"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$lld" >/dev/null
fi
# The test runner of scripts/test.sh (part of the toolchain on these machines; built if missing).
command -v cargo-nextest >/dev/null || cargo install --locked cargo-nextest@0.9.143
for c in clippy fmt; do
  cargo "$c" --version >/dev/null 2>&1 || { echo "setup: cargo $c is missing from the Rust toolchain" >&2; exit 1; }
done
echo "setup: ok"
