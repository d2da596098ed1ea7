#!/usr/bin/env bash
# Installs every artifact in dist/ (scripts/dist.sh) the way a user would, with no Rust
# toolchain: a PATH holding every tool of this machine but cargo, rustc, rustdoc, rustup and
# rust-*, and a fresh HOME (no ~/.cargo). Then runs each surface's example and a vectors check:
#   Python   a fresh venv, pip install of the wheel (no index); examples/python/example.py;
#            tests/test_vectors.py with pytest (from PyPI) against the installed package
#   Node.js  a fresh npm project, npm install of the idmint and idmint-linux-x64-gnu tarballs;
#            examples/node/example.mjs; tests/vectors.test.mjs against the installed package
#   Browser  the idmint-web tarball in a fresh npm project; the same vectors test against its
#            node flavour
#   C        the tarball unpacked; examples/c/example.c and the C test suite (vector tables)
#            built with pkg-config and with CMake, linked statically and dynamically
#   CLI      the tarball unpacked; mint and decode, a vector decoded, man page, completions
#   Postgres the extension package's install.sh into the machine's PostgreSQL, a fresh cluster
#            (initdb, preloaded, idmint.node set) and bindings-postgres/README.md's example in psql
# Prints install times and artifact sizes.
#
#   bash scripts/dist-smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dist=${IDMINT_DIST:-$root/dist}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step() { printf '\n==> dist-smoke: %s\n' "$*"; }

# --- An environment without a Rust toolchain --------------------------------------------------
bin=$work/bin
mkdir -p "$bin" "$work/home"
for dir in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
  for f in "$dir"/*; do
    name=${f##*/}
    case $name in cargo* | rustc* | rustdoc* | rustup* | rust-*) continue ;; esac
    [ -e "$bin/$name" ] || ln -s "$f" "$bin/$name"
  done
done
# The interpreter the machine's python3 runs (pyenv shims are scripts that need pyenv).
python=$(python3 -c 'import sys; print(sys.executable)')
ln -sf "$python" "$bin/python3"
clean=(env -i HOME="$work/home" PATH="$bin" TMPDIR="$work" LANG=C.UTF-8
  npm_config_cache="$work/npm-cache" npm_config_update_notifier=false npm_config_fund=false
  npm_config_audit=false)
in_clean() { "${clean[@]}" bash -euo pipefail -c "$1"; }
in_clean 'for t in cargo rustc rustup rustdoc; do ! command -v $t >/dev/null || { echo "$t is on PATH" >&2; exit 1; }; done
  [ ! -e "$HOME/.cargo" ]'

timed() { # label, command: runs the command in the clean environment and records how long
  local t0=$SECONDS
  in_clean "$2"
  times+=("$1: $((SECONDS - t0)) s")
}
times=()

# --- Python -----------------------------------------------------------------------------------
step "Python: pip install the wheel into a fresh venv"
wheel=$(ls "$dist"/idmint-"$version"-*.whl)
timed "pip install $(basename "$wheel")" "python3 -m venv '$work/venv' && '$work/venv/bin/pip' install -q --no-index '$wheel'"
in_clean "cd '$work' && '$work/venv/bin/python' '$root/examples/python/example.py' >/dev/null"
in_clean "'$work/venv/bin/pip' install -q --disable-pip-version-check pytest==9.2.0"
in_clean "cd '$root/bindings-python/tests' && '$work/venv/bin/python' -c 'import idmint, sys; assert idmint.__file__.startswith(\"$work/venv\"), idmint.__file__'
  '$work/venv/bin/python' -m pytest -q -p no:cacheprovider test_vectors.py | tail -n 1"

# --- Node.js ----------------------------------------------------------------------------------
step "Node.js: npm install of the idmint tarballs into a fresh project"
proj=$work/node-app
mkdir -p "$proj"
printf '{ "name": "app", "version": "1.0.0", "private": true, "type": "module" }\n' >"$proj/package.json"
timed "npm install idmint + idmint-linux-x64-gnu" \
  "cd '$proj' && npm install --no-audit --no-fund --loglevel=error '$dist/idmint-linux-x64-gnu-$version.tgz' '$dist/idmint-$version.tgz'"
in_clean "cd '$proj' && [ ! -e node_modules/idmint/target ] && ls node_modules/idmint-linux-x64-gnu/idmint.linux-x64-gnu.node >/dev/null"
cp examples/node/example.mjs "$proj/"
in_clean "cd '$proj' && node example.mjs >/dev/null"
in_clean "cd '$root/bindings-node' && IDMINT_IMPL='$proj/node_modules/idmint/index.mjs' node --test tests/vectors.test.mjs 2>&1 | grep -E '^# (pass|fail)'"
in_clean "cd '$root/bindings-node' && IDMINT_IMPL='$proj/node_modules/idmint/index.mjs' node --test tests/vectors.test.mjs >/dev/null"

step "Browser package: npm install of idmint-web into a fresh project"
web=$work/web-app
mkdir -p "$web"
printf '{ "name": "web-app", "version": "1.0.0", "private": true }\n' >"$web/package.json"
timed "npm install idmint-web" "cd '$web' && npm install --no-audit --no-fund --loglevel=error '$dist/idmint-web-$version.tgz'"
# The package's own entry for Node (its "exports"), as require() resolves it.
entry=$(in_clean "cd '$web' && node -p 'require.resolve(\"idmint-web\")'")
in_clean "cd '$root/bindings-node' && IDMINT_IMPL='$entry' node --test tests/vectors.test.mjs >/dev/null"
in_clean "cd '$web' && node -e 'const m = require(\"idmint-web\"); const u = m.uuid7(); if (!/^[0-9a-f-]{36}$/.test(u)) process.exit(1)'"
# The smaller entries resolve through "exports" too: the Snowflake entry replays the vectors it
# has the API for (the shared suite skips the others by name), the formats entry mints.
snowflake_entry=$(in_clean "cd '$web' && node -p 'require.resolve(\"idmint-web/snowflake\")'")
in_clean "cd '$root/bindings-node' && IDMINT_IMPL='$snowflake_entry' node --test tests/vectors.test.mjs >/dev/null"
in_clean "cd '$web' && node -e 'const m = require(\"idmint-web/formats\"); if (m.Snowflake || !/^[0-9a-f-]{36}$/.test(m.uuid7())) process.exit(1)'"

# --- C ----------------------------------------------------------------------------------------
step "C: the tarball with pkg-config and CMake, static and shared"
cname=idmint-$version-linux-x86_64
timed "unpack the C tarball" "tar -C '$work' -xzf '$dist/$cname.tar.gz'"
prefix=$work/$cname
mkdir -p "$work/c"
python3 bindings-c/tests/gen_vectors.py "$work/c/vectors_gen.h" vectors >/dev/null
pc="PKG_CONFIG_PATH='$prefix/lib/pkgconfig' pkg-config"
in_clean "cd '$work/c'
  [ \"\$($pc --modversion idmint)\" = '$version' ]
  gcc -std=c11 -Wall -Werror '$root/examples/c/example.c' \$($pc --cflags idmint) \$($pc --libs --static idmint | sed 's/-lidmint/-l:libidmint.a/') -o example-static
  gcc -std=c11 -Wall -Werror '$root/examples/c/example.c' \$($pc --cflags --libs idmint) -Wl,-rpath,'$prefix/lib' -o example-shared
  ./example-static >/dev/null && ./example-shared >/dev/null
  ! ldd example-static | grep -q libidmint
  ldd example-shared | grep -q 'libidmint.so.0'
  gcc -std=c11 -Wall -Wextra -Werror -I. \$($pc --cflags idmint) '$root/bindings-c/tests/test_idmint.c' \$($pc --libs --static idmint | sed 's/-lidmint/-l:libidmint.a/') -o c-tests
  ./c-tests | tail -n 1"
for kind in shared static; do
  mkdir -p "$work/cmake-$kind"
  cat >"$work/cmake-$kind/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.16)
project(idmint_smoke C)
set(IDMINT_USE_STATIC_LIBS $([ $kind = static ] && echo ON || echo OFF))
find_package(idmint $version REQUIRED)
add_executable(example "$root/examples/c/example.c")
target_link_libraries(example PRIVATE idmint::idmint)
EOF
  in_clean "cd '$work/cmake-$kind' && cmake -S . -B build -DCMAKE_PREFIX_PATH='$prefix' >/dev/null && cmake --build build >/dev/null && ./build/example >/dev/null
    if [ $kind = static ]; then ! ldd build/example | grep -q libidmint; else ldd build/example | grep -q libidmint.so.0; fi"
done
echo "C: pkg-config and CMake, static and shared: ok"

# --- CLI --------------------------------------------------------------------------------------
step "CLI: the tarball"
cli=idmint-cli-$version-linux-x86_64
in_clean "tar -C '$work' -xzf '$dist/$cli.tar.gz'"
in_clean "cd '$work' && '$cli/bin/idmint' gen -n 5 | '$cli/bin/idmint' decode - >/dev/null
  [ \"\$('$cli/bin/idmint' --version)\" = 'idmint $version' ]
  # Twitter's own example ID: 2022-06-28T16:07:40.105Z.
  '$cli/bin/idmint' decode --json 1541815603606036480 | grep -q '\"timestamp_ms\": 1656432460105'
  MANWIDTH=80 man -l '$cli/share/man/man1/idmint.1' | grep -q 'Mint IDs with the system clock'
  bash -c 'source $cli/share/bash-completion/completions/idmint && complete -p idmint' >/dev/null"
echo "CLI: ok"

# --- PostgreSQL -------------------------------------------------------------------------------
step "PostgreSQL: the extension package into a fresh cluster, the README example"
pgpkg=$(cd "$dist" && ls idmint-postgresql*-"$version"-linux-x86_64.tar.gz)
pgname=${pgpkg%.tar.gz}
pgbin=$(pg_config --bindir)
in_clean "tar -C '$work' -xzf '$dist/$pgpkg'"
timed "install.sh of $pgpkg" "sh '$work/$pgname/install.sh' >/dev/null"
pgdir=$work/pg
mkdir -p "$pgdir"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "$(id -u)" = 0 ]; then chown postgres "$pgdir"; chmod o+x "$work"; fi
pgport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_pg "$pgbin/initdb" -D "$pgdir/data" -A trust -U idmint --no-sync >/dev/null
printf '%s\n' "shared_preload_libraries = 'idmint'" "idmint.node = '5'" "listen_addresses = '127.0.0.1'" \
  "port = $pgport" "unix_socket_directories = '$pgdir'" >>"$pgdir/data/postgresql.conf"
as_pg "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w start >/dev/null
trap 'as_pg "$pgbin/pg_ctl" -D "$pgdir/data" -m immediate -w stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
# The first sql block after the README's `dist-smoke: example` marker, as a user pastes it.
sed -n '/<!-- dist-smoke: example -->/,$p' bindings-postgres/README.md | sed -n '/^```sql$/,/^```$/p' \
  | sed '1d;$d' >"$work/example.sql"
in_clean "psql -X -v ON_ERROR_STOP=1 -h 127.0.0.1 -p $pgport -U idmint postgres -f '$work/example.sql'" >"$work/example.out"
grep -Eq '\| +5 \|' "$work/example.out" \
  || { cat "$work/example.out"; echo "dist-smoke: the README example minted no ID on node 5" >&2; exit 1; }
grep -q '^ t$' "$work/example.out"
as_pg "$pgbin/pg_ctl" -D "$pgdir/data" -m fast -w stop >/dev/null
echo "PostgreSQL: ok"

# --- Report -----------------------------------------------------------------------------------
step "sizes and install times"
(cd "$dist" && sha256sum -c --quiet SHA256SUMS)
for f in "$dist"/*; do
  [ "${f##*/}" = SHA256SUMS ] && continue
  printf '%-48s %8s KB\n' "${f##*/}" "$(( $(stat -c %s "$f") / 1024 ))"
done
printf '%s\n' "${times[@]}"
echo "dist-smoke: every artifact installed and ran without a Rust toolchain"
