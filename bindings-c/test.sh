#!/usr/bin/env bash
# Every test of the C binding: lint, Rust unit tests, the libraries, header staleness and version
# macros, the C tests (plain static and shared, under valgrind, with ASan/UBSan), the store tests
# (tests/test_stores.c: leases and segments on Redis, PostgreSQL and SQLite, the same four ways),
# the header as C99 and C++, examples/c, and an install with pkg-config. Installs what it needs
# first. The store tests run against the servers named by IDMINT_TEST_REDIS_URL /
# IDMINT_TEST_POSTGRES_URL, or else private ones started here with scripts/services.sh (installed
# by scripts/setup.sh) and stopped on exit.
#   bash bindings-c/test.sh
# The last line is "C tests: N passed, M failed" (N counts the checks of one run of test_idmint.c).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
target=${CARGO_TARGET_DIR:-$root/target}
out=$target/idmint-c
mkdir -p "$out"

step() { printf '\n==> bindings-c: %s\n' "$*"; }

step "setup"
need=()
command -v gcc >/dev/null || need+=(gcc)
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
command -v valgrind >/dev/null || need+=(valgrind)
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v python3 >/dev/null || need+=(python3)
# util-linux's libuuid, the outside implementation tests/test_libuuid.c checks the UUIDs against.
[ -f /usr/include/uuid/uuid.h ] || need+=(uuid-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "apt-get install ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
# ASan/UBSan runtimes come with gcc on Debian (libasan, libubsan); say so early if missing.
echo 'int main(void){return 0;}' >"$out/san.c"
gcc -fsanitize=address,undefined "$out/san.c" -o "$out/san" || {
  echo "gcc cannot link -fsanitize=address,undefined (libasan/libubsan missing)" >&2
  exit 1
}

step "format and clippy (warnings are errors)"
cargo fmt -p idmint-c -- --check
cargo clippy --locked -q -p idmint-c --all-targets -- -D warnings
cargo clippy --locked -q -p idmint-c --all-targets --features stores -- -D warnings
cargo clippy --locked -q -p idmint-c --all-targets --features gen-header -- -D warnings

step "Rust unit tests (statuses, panics, messages)"
if ! cargo test --locked -q -p idmint-c >"$out/rust-tests.log" 2>&1; then
  cat "$out/rust-tests.log"
  exit 1
fi
grep -E '^test result' "$out/rust-tests.log" | head -n 1

step "libraries: libidmint (--profile light) and libidmint-stores (--release --features stores), --target HOST"
# The host's triple named explicitly, as for the Python and Node packages (napi-rs names it):
# the three then share one release build of their dependencies (scripts/test.sh). The light
# library (no store clients) builds with the `light` profile, in a directory of its own; the one
# with every store with `release`, and is named libidmint-stores here as install.sh names it.
host=$(rustc -vV | sed -n 's/^host: //p')
cargo build --locked -q -p idmint-c --profile light --target "$host"
cargo build --locked -q -p idmint-c --release --features stores --target "$host"
lib=$target/$host/light
stores_lib=$out/stores-lib
mkdir -p "$stores_lib"
cp "$target/$host/release/libidmint.a" "$stores_lib/libidmint-stores.a"
cp "$target/$host/release/libidmint.so" "$stores_lib/libidmint-stores.so"
for f in "$lib/libidmint.a" "$lib/libidmint.so"; do
  [ -f "$f" ] || { echo "missing $f" >&2; exit 1; }
done
ls -l "$lib/libidmint.a" "$lib/libidmint.so" "$stores_lib/libidmint-stores.a" "$stores_lib/libidmint-stores.so"
# Programs linked with -lidmint load it by its soname (bindings-c/build.rs): link that name to
# the library in place, as an installation does.
for so in "$lib/libidmint.so" "$stores_lib/libidmint-stores.so"; do
  soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  name=$(basename "$so")
  [ "${soname#"$name".}" != "$soname" ] || { echo "$so has soname '$soname', not $name.* (bindings-c/build.rs)" >&2; exit 1; }
  ln -sf "$name" "$(dirname "$so")/$soname"
  echo "soname: $soname"
done

step "include/idmint.h is up to date"
bash bindings-c/gen-header.sh "$out/idmint.h" >/dev/null
if ! diff -u include/idmint.h "$out/idmint.h"; then
  echo "include/idmint.h is stale; regenerate it with: bash bindings-c/gen-header.sh" >&2
  exit 1
fi
echo "include/idmint.h matches bindings-c/src"

step "version macros match the workspace version"
version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"$/\1/p' Cargo.toml)
macro() { sed -n "s/^#define $1 \\(.*\\)$/\\1/p" include/idmint.h; }
IFS=. read -r major minor patch <<<"${version%%[-+]*}"
[ "$(macro IDMINT_VERSION)" = "\"$version\"" ] &&
  [ "$(macro IDMINT_VERSION_MAJOR)" = "$major" ] &&
  [ "$(macro IDMINT_VERSION_MINOR)" = "$minor" ] &&
  [ "$(macro IDMINT_VERSION_PATCH)" = "$patch" ] || {
  echo "header version macros differ from the workspace version $version" >&2
  exit 1
}
echo "IDMINT_VERSION $version"

step "C tables from vectors/*.json"
python3 bindings-c/tests/gen_vectors.py "$out/vectors_gen.h" vectors

step "header compiles as C99 and C++ (extern \"C\")"
gcc -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -x c -Iinclude include/idmint.h
g++ -std=c++11 -pedantic -Wall -Wextra -Werror -Iinclude bindings-c/tests/header_check.cpp \
  "$lib/libidmint.a" -lpthread -ldl -lm -o "$out/header_check"
"$out/header_check"

cflags=(-std=c11 -Wall -Wextra -Werror -g -O1 -Iinclude -I"$out")
src=bindings-c/tests/test_idmint.c
static_libs=("$lib/libidmint.a" -lpthread -ldl -lm)

# Runs one build of the C tests (or, with suite=store, the store tests) and checks its closing
# line.
run_c_tests() {
  local label=$1 suite=${suite:-}
  shift
  step "C ${suite:+$suite }tests: $label"
  local log="$out/test-$suite$label.log"
  if ! "$@" >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "C ${suite:+$suite }tests ($label) failed" >&2
    exit 1
  fi
  tail -n 1 "$log"
  local want='^C tests: [0-9]+ passed, 0 failed$'
  [ -n "$suite" ] && want="^C $suite tests: [0-9]+ passed, 0 failed\$"
  grep -qE "$want" "$log" || { echo "no closing line" >&2; exit 1; }
}

gcc "${cflags[@]}" "$src" "${static_libs[@]}" -o "$out/test_idmint"
run_c_tests static "$out/test_idmint"

gcc "${cflags[@]}" "$src" -L"$lib" -Wl,-rpath,"$lib" -lidmint -lpthread \
  -o "$out/test_idmint_shared"
run_c_tests shared "$out/test_idmint_shared"

# The same tests against libidmint-stores (the same header), static and shared.
gcc "${cflags[@]}" "$src" "$stores_lib/libidmint-stores.a" -lpthread -ldl -lm -o "$out/test_idmint_stores"
run_c_tests libidmint-stores-static "$out/test_idmint_stores"
gcc "${cflags[@]}" "$src" -L"$stores_lib" -Wl,-rpath,"$stores_lib" -lidmint-stores -lpthread \
  -o "$out/test_idmint_stores_shared"
run_c_tests libidmint-stores-shared "$out/test_idmint_stores_shared"

# libidmint's own stores: the file and memory ones work, another URL names libidmint-stores.
light=bindings-c/tests/test_light.c
gcc "${cflags[@]}" "$light" "${static_libs[@]}" -o "$out/test_light"
suite=light run_c_tests static "$out/test_light"
gcc "${cflags[@]}" "$light" -L"$lib" -Wl,-rpath,"$lib" -lidmint -lpthread -o "$out/test_light_shared"
suite=light run_c_tests shared "$out/test_light_shared"

run_c_tests valgrind valgrind -q --error-exitcode=1 --leak-check=full \
  --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
  "$out/test_idmint"

gcc "${cflags[@]}" -fsanitize=address,undefined -fno-sanitize-recover=undefined \
  -fno-omit-frame-pointer "$src" "${static_libs[@]}" -o "$out/test_idmint_asan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  run_c_tests asan-ubsan "$out/test_idmint_asan"

# UUIDs against util-linux's libuuid: each library reads what the other mints.
libuuid=bindings-c/tests/test_libuuid.c
gcc "${cflags[@]}" "$libuuid" "${static_libs[@]}" -luuid -o "$out/test_libuuid"
suite=libuuid run_c_tests static "$out/test_libuuid"
gcc "${cflags[@]}" -fsanitize=address,undefined -fno-sanitize-recover=undefined \
  -fno-omit-frame-pointer "$libuuid" "${static_libs[@]}" -luuid -o "$out/test_libuuid_asan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  suite=libuuid run_c_tests asan-ubsan "$out/test_libuuid_asan"

step "Redis and PostgreSQL for the store tests"
services=$root/scripts/services.sh
svc_dir=$(mktemp -d)
started=()
stop_services() {
  local kind
  for kind in "${started[@]}"; do bash "$services" stop "$kind" "$svc_dir/$kind" || true; done
  rm -rf "$svc_dir"
}
trap stop_services EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
if [ -z "${IDMINT_TEST_REDIS_URL:-}" ]; then
  port=$(free_port)
  bash "$services" start redis "$svc_dir/redis" "$port"
  started+=(redis)
  export IDMINT_TEST_REDIS_URL="redis://127.0.0.1:$port/"
fi
if [ -z "${IDMINT_TEST_POSTGRES_URL:-}" ]; then
  port=$(free_port)
  bash "$services" start postgres "$svc_dir/postgres" "$port"
  started+=(postgres)
  export IDMINT_TEST_POSTGRES_URL="postgres://idmint@127.0.0.1:$port/postgres"
fi
# The tests must not quietly leave the servers out.
export IDMINT_TEST_REQUIRE_SERVERS=1
echo "redis $IDMINT_TEST_REDIS_URL, postgres $IDMINT_TEST_POSTGRES_URL"

# Against libidmint-stores, the library with the store clients.
stores=bindings-c/tests/test_stores.c
stores_static=("$stores_lib/libidmint-stores.a" -lpthread -ldl -lm)
gcc "${cflags[@]}" "$stores" "${stores_static[@]}" -o "$out/test_stores"
suite=store run_c_tests static "$out/test_stores"
gcc "${cflags[@]}" "$stores" -L"$stores_lib" -Wl,-rpath,"$stores_lib" -lidmint-stores -lpthread \
  -o "$out/test_stores_shared"
suite=store run_c_tests shared "$out/test_stores_shared"
suite=store run_c_tests valgrind valgrind -q --error-exitcode=1 --leak-check=full \
  --suppressions=bindings-c/tests/valgrind.supp \
  --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
  "$out/test_stores"
gcc "${cflags[@]}" -fsanitize=address,undefined -fno-sanitize-recover=undefined \
  -fno-omit-frame-pointer "$stores" "${stores_static[@]}" -o "$out/test_stores_asan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  suite=store run_c_tests asan-ubsan "$out/test_stores_asan"

step "examples/c (static and shared)"
make -s -C examples/c clean
make -s -C examples/c run LIBDIR="$lib"
make -s -C examples/c run-shared LIBDIR="$lib" >/dev/null
make -s -C examples/c clean

step "install into a temporary prefix and build with pkg-config"
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"; stop_services' EXIT
bash bindings-c/install.sh "$prefix"
bash bindings-c/install.sh --stores "$prefix"
pc=(env PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config)
for name in idmint idmint-stores; do
  [ "$("${pc[@]}" --modversion $name)" = "$version" ]
  # shellcheck disable=SC2046
  gcc -std=c11 -Wall -Werror examples/c/example.c $("${pc[@]}" --cflags --libs $name) \
    -Wl,-rpath,"$prefix/lib" -o "$prefix/example-$name"
  "$prefix/example-$name" >/dev/null
  ldd "$prefix/example-$name" | grep -q "lib$name.so.0"
  echo "pkg-config $name $version: ok"
done

echo
tail -n 1 "$out/test-static.log"
