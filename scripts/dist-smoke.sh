#!/usr/bin/env bash
# Installs every artifact in dist/ (scripts/dist.sh) the way a user would, with no Rust
# toolchain: a PATH holding every tool of this machine but cargo, rustc, rustdoc, rustup and
# rust-*, and a fresh HOME (no ~/.cargo). Then runs each surface's example and a vectors check:
#   Python   fresh venvs, pip install of the wheel (no index) and of 'idmint[stores]';
#            examples/python/example.py; tests/test_vectors.py with pytest (from PyPI) against
#            each, tests-light/ against the light wheel alone
#   Node.js  fresh npm projects: the idmint and idmint-linux-x64-gnu tarballs alone, and with the
#            idmint-stores add-on; examples/node/example.mjs and tests/vectors.test.mjs against
#            each; tests-light/ against the light one, a redis:// URL naming the add-on
#   Browser  the idmint-web tarball in a fresh npm project; the same vectors test against its
#            node flavour
#   C        the libidmint tarball and the libidmint-stores one unpacked beside it;
#            examples/c/example.c and the C test suite (vector tables) against each library,
#            built with pkg-config and with CMake, linked statically and dynamically;
#            tests/test_light.c against libidmint
#   CLI      the tarball unpacked; mint and decode, a vector decoded, man page, completions
#   Postgres the extension package's install.sh into the machine's PostgreSQL, a fresh cluster
#            (initdb, preloaded, idmint.node set) and bindings-postgres/README.md's example in psql
# Prints artifact sizes, install times (pip install / npm install alone) and start times (a new
# `python3 -c 'import idmint'` / `node -e "require('idmint')"`, the median of 7, light and with
# the add-on, beside the bare interpreter's).
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
  local t0 t1
  t0=$(date +%s%N)
  in_clean "$2"
  t1=$(date +%s%N)
  times+=("$(printf '%s: %d.%02d s' "$1" $(((t1 - t0) / 1000000000)) $(((t1 - t0) / 10000000 % 100)))")
}
times=()
# label, command: the median wall time of 7 runs of the command (each a new process), after one
# run that writes the caches (a module's .pyc) a real second start finds.
cat >"$work/cold.py" <<'EOF'
import statistics, subprocess, sys, time
cmd = sys.argv[1]
subprocess.run(cmd, shell=True, check=True)
runs = []
for _ in range(7):
    t0 = time.perf_counter()
    subprocess.run(cmd, shell=True, check=True)
    runs.append((time.perf_counter() - t0) * 1000)
print(round(statistics.median(runs)))
EOF
cold() {
  local ms
  ms=$("${clean[@]}" python3 "$work/cold.py" "$2")
  starts+=("$1: $ms ms")
}
starts=()

# --- Python -----------------------------------------------------------------------------------
step "Python: the light wheel alone, and with the add-on (pip install 'idmint[stores]'), each in a fresh venv"
wheel=$(ls "$dist"/idmint-"$version"-*.whl)
addon_wheel=$(ls "$dist"/idmint_stores-"$version"-*.whl)
in_clean "python3 -m venv '$work/venv' && python3 -m venv '$work/venv-stores'"
timed "pip install $(basename "$wheel")" "'$work/venv/bin/pip' install -q --no-index '$wheel'"
# The one word, resolved from dist/ as an index would: the light wheel and the add-on it pins.
timed "pip install 'idmint[stores]' (both wheels)" \
  "'$work/venv-stores/bin/pip' install -q --no-index --find-links '$dist' 'idmint[stores]'"
for v in venv venv-stores; do
  in_clean "cd '$work' && '$work/$v/bin/python' '$root/examples/python/example.py' >/dev/null"
  in_clean "'$work/$v/bin/pip' install -q --disable-pip-version-check pytest==9.2.0"
  in_clean "cd '$root/bindings-python/tests' && '$work/$v/bin/python' -c 'import idmint, sys; assert idmint.__file__.startswith(\"$work/$v/\"), idmint.__file__'
    '$work/$v/bin/python' -m pytest -q -p no:cacheprovider test_vectors.py | tail -n 1"
done
# Light alone: what it mints, the file lease store, and a store URL naming the add-on.
in_clean "cd '$root/bindings-python' && '$work/venv/bin/python' -m pytest -q -p no:cacheprovider tests-light | tail -n 1"
in_clean "'$work/venv/bin/python' -c 'import idmint
try:
    idmint.LeasedSnowflake(\"redis://127.0.0.1:1/\")
except idmint.InvalidConfig as e:
    assert \"pip install\" in str(e) and \"idmint[stores]\" in str(e), e
    print(\"light wheel, redis:// URL:\", e)
else:
    raise SystemExit(\"a redis:// URL opened without the add-on\")'"
# With the add-on: idmint runs on it, and a redis:// URL reaches the store (none listens there).
in_clean "'$work/venv-stores/bin/python' -c 'import idmint, sys
assert sys.modules[\"idmint._native\"].__name__.startswith(\"idmint_stores\"), sys.modules[\"idmint._native\"]
try:
    idmint.LeasedSnowflake(\"redis://127.0.0.1:1/?timeout_ms=200\")
except idmint.StoreUnavailable:
    pass'"
cold "python3 -c pass (the interpreter alone)" "'$work/venv/bin/python' -c pass"
cold "python3 -c 'import idmint' (light)" "'$work/venv/bin/python' -c 'import idmint'"
cold "python3 -c 'import idmint' (with idmint-stores)" "'$work/venv-stores/bin/python' -c 'import idmint'"

# --- Node.js ----------------------------------------------------------------------------------
step "Node.js: npm install of idmint alone, and with idmint-stores, each into a fresh project"
proj=$work/node-app
proj_stores=$work/node-app-stores
mkdir -p "$proj" "$proj_stores"
for p in "$proj" "$proj_stores"; do
  printf '{ "name": "app", "version": "1.0.0", "private": true, "type": "module" }\n' >"$p/package.json"
  cp examples/node/example.mjs "$p/"
done
timed "npm install idmint + idmint-linux-x64-gnu" \
  "cd '$proj' && npm install --no-audit --no-fund --loglevel=error '$dist/idmint-linux-x64-gnu-$version.tgz' '$dist/idmint-$version.tgz'"
timed "npm install idmint + idmint-stores (and their platform packages)" \
  "cd '$proj_stores' && npm install --no-audit --no-fund --loglevel=error '$dist/idmint-linux-x64-gnu-$version.tgz' '$dist/idmint-$version.tgz' '$dist/idmint-stores-linux-x64-gnu-$version.tgz' '$dist/idmint-stores-$version.tgz'"
in_clean "cd '$proj' && [ ! -e node_modules/idmint/target ] && ls node_modules/idmint-linux-x64-gnu/idmint.linux-x64-gnu.node >/dev/null"
in_clean "cd '$proj_stores' && ls node_modules/idmint-stores-linux-x64-gnu/idmint-stores.linux-x64-gnu.node >/dev/null"
for p in "$proj" "$proj_stores"; do
  in_clean "cd '$p' && node example.mjs >/dev/null"
  in_clean "cd '$root/bindings-node' && IDMINT_IMPL='$p/node_modules/idmint/index.mjs' node --test tests/vectors.test.mjs 2>&1 | grep -E '^# (pass|fail)'"
  in_clean "cd '$root/bindings-node' && IDMINT_IMPL='$p/node_modules/idmint/index.mjs' node --test tests/vectors.test.mjs >/dev/null"
done
# Alone: what it mints, the file lease store, and a store URL naming the add-on.
in_clean "cd '$root/bindings-node' && IDMINT_IMPL='$proj/node_modules/idmint/index.mjs' node --test tests-light/light.test.mjs 2>&1 | grep -E '^# (pass|fail)'"
in_clean "cd '$proj' && node -e 'const m = require(\"idmint\")
try { new m.LeasedSnowflake(\"redis://127.0.0.1:1/\"); process.exit(1) } catch (e) {
  if (e.code !== \"ERR_INVALID_CONFIG\" || !e.message.includes(\"npm install idmint-stores\")) throw e
  console.log(\"light package, redis:// URL:\", e.message) }'"
# With the add-on: a redis:// URL reaches the store (none listens there).
in_clean "cd '$proj_stores' && node -e 'const m = require(\"idmint\")
try { new m.LeasedSnowflake(\"redis://127.0.0.1:1/?timeout_ms=200\"); process.exit(1) } catch (e) {
  if (e.code !== \"ERR_STORE_UNAVAILABLE\") throw e }'"
cold "node -e '' (the runtime alone)" "cd '$proj' && node -e ''"
cold "node -e \"require('idmint')\" (light)" "cd '$proj' && node -e \"require('idmint')\""
cold "node -e \"require('idmint')\" (with idmint-stores)" "cd '$proj_stores' && node -e \"require('idmint')\""

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
# The WebAssembly build of the core (idmint-web/wasm) replays every vector, as the full entry.
wasm_entry=$(in_clean "cd '$web' && node -p 'require.resolve(\"idmint-web/wasm\")'")
in_clean "cd '$root/bindings-node' && IDMINT_IMPL='$wasm_entry' node --test tests/vectors.test.mjs >/dev/null"
# An ES module imports the entries by name, through the package's "exports" (the JavaScript
# entries are bundled as CommonJS for Node).
in_clean "cd '$web' && node --input-type=module -e 'import { Snowflake, Layout } from \"idmint-web/snowflake\"; import { uuid7 } from \"idmint-web/formats\"; if (typeof new Snowflake({ layout: new Layout(\"twitter\"), node: 1 }).nextId() !== \"bigint\" || !uuid7()) process.exit(1)'"

# --- C ----------------------------------------------------------------------------------------
step "C: the tarballs (libidmint, and libidmint-stores unpacked beside it) with pkg-config and CMake, static and shared"
cname=idmint-$version-linux-x86_64
csname=idmint-stores-$version-linux-x86_64
timed "unpack the C tarball" "tar -C '$work' -xzf '$dist/$cname.tar.gz'"
prefix=$work/$cname
# The add-on's tarball into the same prefix: its own library, .pc and CMake package.
in_clean "tar -C '$work' -xzf '$dist/$csname.tar.gz' && cp -r '$work/$csname/.' '$prefix/'"
mkdir -p "$work/c"
python3 bindings-c/tests/gen_vectors.py "$work/c/vectors_gen.h" vectors >/dev/null
pc="PKG_CONFIG_PATH='$prefix/lib/pkgconfig' pkg-config"
for name in idmint idmint-stores; do
  in_clean "cd '$work/c'
    [ \"\$($pc --modversion $name)\" = '$version' ]
    static=\"\$($pc --libs --static $name | sed 's/-l$name /-l:lib$name.a /')\"
    gcc -std=c11 -Wall -Werror '$root/examples/c/example.c' \$($pc --cflags $name) \$static -o example-static
    gcc -std=c11 -Wall -Werror '$root/examples/c/example.c' \$($pc --cflags --libs $name) -Wl,-rpath,'$prefix/lib' -o example-shared
    ./example-static >/dev/null && ./example-shared >/dev/null
    ! ldd example-static | grep -q libidmint
    ldd example-shared | grep -q 'lib$name.so.0'
    gcc -std=c11 -Wall -Wextra -Werror -I. \$($pc --cflags $name) '$root/bindings-c/tests/test_idmint.c' \$static -o c-tests
    ./c-tests | tail -n 1 | sed 's/^/$name: /'"
done
# libidmint alone: its stores, and a store URL naming libidmint-stores.
in_clean "cd '$work/c' && gcc -std=c11 -Wall -Wextra -Werror -I'$root/bindings-c/tests' \$($pc --cflags idmint) '$root/bindings-c/tests/test_light.c' \$($pc --libs idmint) -Wl,-rpath,'$prefix/lib' -o c-light && ./c-light | tail -n 1"
for kind in shared static; do
  for pkg in idmint idmint-stores; do
    target=idmint::${pkg//-/_}
    [ $pkg = idmint ] && target=idmint::idmint
    mkdir -p "$work/cmake-$kind-$pkg"
    cat >"$work/cmake-$kind-$pkg/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.16)
project(idmint_smoke C)
set(IDMINT_USE_STATIC_LIBS $([ $kind = static ] && echo ON || echo OFF))
find_package($pkg $version REQUIRED)
add_executable(example "$root/examples/c/example.c")
target_link_libraries(example PRIVATE $target)
EOF
    in_clean "cd '$work/cmake-$kind-$pkg' && cmake -S . -B build -DCMAKE_PREFIX_PATH='$prefix' >/dev/null && cmake --build build >/dev/null && ./build/example >/dev/null
      if [ $kind = static ]; then ! ldd build/example | grep -q libidmint; else ldd build/example | grep -q lib$pkg.so.0; fi"
  done
done
echo "C: libidmint and libidmint-stores, pkg-config and CMake, static and shared: ok"

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
printf 'start (median of 7): %s\n' "${starts[@]}"
echo "dist-smoke: every artifact installed and ran without a Rust toolchain"
