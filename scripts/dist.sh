#!/usr/bin/env bash
# Builds every release artifact into dist/ (or $IDMINT_DIST), each carrying the one workspace
# version:
#   idmint-VERSION-cp39-abi3-manylinux_*.whl   Python wheel (abi3, manylinux tag checked with
#                                              auditwheel; no store clients) and
#                                              idmint-VERSION.tar.gz (its sdist)
#   idmint_stores-VERSION-cp39-abi3-manylinux_*.whl
#                                              the add-on wheel (`pip install 'idmint[stores]'`):
#                                              the same module with every store client, and
#                                              idmint_stores-VERSION.tar.gz (its sdist)
#   idmint-VERSION.tgz                         npm package `idmint` (JavaScript, types, and the
#                                              crate sources for platforms without a prebuilt addon)
#   idmint-linux-x64-gnu-VERSION.tgz           npm package holding the prebuilt linux-x64 addon
#                                              (no store clients)
#   idmint-stores-VERSION.tgz and idmint-stores-linux-x64-gnu-VERSION.tgz
#                                              the add-on (`npm install idmint-stores`): the addon
#                                              with every store client, which idmint then loads
#   idmint-web-VERSION.tgz                     npm package `idmint-web` (web, bundler, node flavours)
#   idmint-VERSION-linux-x86_64.tar.gz         C: include/, lib/ (libidmint.a, libidmint.so with
#                                              its soname), lib/pkgconfig, lib/cmake/idmint
#   idmint-stores-VERSION-linux-x86_64.tar.gz  C with every store client: the same header,
#                                              libidmint-stores.{a,so}, idmint-stores.pc,
#                                              lib/cmake/idmint-stores (unpacks beside the other)
#   idmint-cli-VERSION-linux-x86_64.tar.gz     the `idmint` binary, completions, man page
#   idmint-postgresqlNN-VERSION-linux-x86_64.tar.gz
#                                              the PostgreSQL extension for the machine's major NN:
#                                              lib/idmint.so, extension/idmint.control and
#                                              idmint--VERSION.sql, install.sh, README.md
#   SHA256SUMS
# Builds reuse the release builds of the test suite (scripts/test.sh: one target directory,
# the host's triple named), so after a test run only packing is left. Needs what the test
# suite installs (scripts/setup.sh, the bindings' test.sh for maturin, napi-rs and wasm-bindgen).
#
#   bash scripts/dist.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dist=${IDMINT_DIST:-$root/dist}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
# Every build below (the crates outside the workspace too) goes to one target directory.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
host=$(rustc -vV | sed -n 's/^host: //p')
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
rm -rf "$dist"
mkdir -p "$dist"

step() { printf '\n==> dist: %s\n' "$*"; }

# --- Python -----------------------------------------------------------------------------------
step "Python wheels (abi3, manylinux): idmint and the add-on idmint-stores; the sdist"
venv=${IDMINT_PY_VENV:-$root/target/py-venv}
MATURIN_VERSION=$(sed -n 's/^MATURIN_VERSION=//p' bindings-python/test.sh)
AUDITWHEEL_VERSION=6.8.2
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
  "maturin==$MATURIN_VERSION" "auditwheel==$AUDITWHEEL_VERSION"
# The light wheel with the `light` profile, the add-on (bindings-python/stores/pyproject.toml, the
# crate's `stores` feature) with `release`: the builds bindings-python/test.sh made.
"$venv/bin/maturin" build --profile light --locked --quiet --target "$host" \
  --manifest-path bindings-python/Cargo.toml --interpreter "$venv/bin/python" --out "$dist"
(cd bindings-python/stores && "$venv/bin/maturin" build --release --locked --quiet --target "$host" \
  --interpreter "$venv/bin/python" --out "$dist")
"$venv/bin/maturin" sdist --manifest-path bindings-python/Cargo.toml --out "$dist" >/dev/null
(cd bindings-python/stores && "$venv/bin/maturin" sdist --out "$dist" >/dev/null)
wheel=$(ls "$dist"/idmint-"$version"-*.whl)
addon_wheel=$(ls "$dist"/idmint_stores-"$version"-*.whl)
# The platform tag maturin gave each must be a manylinux one, and auditwheel must agree.
manylinux_tag() {
  case "$1" in
    *manylinux*) ;;
    *) echo "dist: the wheel is not tagged manylinux: $1" >&2; exit 1 ;;
  esac
  "$venv/bin/auditwheel" show "$1" >"$stage/auditwheel.txt"
  # (auditwheel wraps its lines: read them as one.)
  local said tag
  said=$(tr -s '\n ' '  ' <"$stage/auditwheel.txt")
  tag=$(sed -n 's/.*is consistent with the following platform tag: "\([^"]*\)".*/\1/p' <<<"$said")
  [ -n "$tag" ] || { cat "$stage/auditwheel.txt"; echo "dist: auditwheel found no manylinux tag in $1" >&2; exit 1; }
  case "$1" in
    *"$tag"*) ;;
    *) echo "dist: $1 tagged differently from what auditwheel finds ($tag)" >&2; exit 1 ;;
  esac
  echo "$tag"
}
tag=$(manylinux_tag "$wheel")
addon_tag=$(manylinux_tag "$addon_wheel")
echo "auditwheel: $(basename "$wheel") $tag, $(basename "$addon_wheel") $addon_tag"
[ -f "$dist/idmint-$version.tar.gz" ] || { echo "dist: no sdist" >&2; exit 1; }
# The sdist builds by itself: maturin's own build of it, into a wheel that is then discarded
# (its dependencies come from the shared target directory, so only idmint's crates compile; the
# `light` profile, as the wheel: the add-on's library in `release` stays as it was built).
mkdir -p "$stage/sdist"
tar -C "$stage/sdist" -xzf "$dist/idmint-$version.tar.gz"
(cd "$stage/sdist/idmint-$version" && "$venv/bin/maturin" build --target "$host" \
  --profile light --quiet --interpreter "$venv/bin/python" --out "$stage/sdist-wheel" 2>&1 \
  | grep -v '^ *Compiling' || true)
ls "$stage/sdist-wheel"/idmint-"$version"-*.whl >/dev/null
# The add-on's sdist too (`release`, as its wheel), for platforms without a prebuilt add-on: its
# wheel must hold the module and the package that loads it.
[ -f "$dist/idmint_stores-$version.tar.gz" ] || { echo "dist: no sdist of idmint-stores" >&2; exit 1; }
tar -C "$stage/sdist" -xzf "$dist/idmint_stores-$version.tar.gz"
(cd "$stage/sdist/idmint_stores-$version" && "$venv/bin/maturin" build --target "$host" \
  --release --quiet --interpreter "$venv/bin/python" --out "$stage/sdist-wheel" 2>&1 \
  | grep -v '^ *Compiling' || true)
"$venv/bin/python" - "$stage/sdist-wheel"/idmint_stores-"$version"-*.whl <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
for want in ("idmint_stores/__init__.py", "idmint_stores/_native.abi3.so"):
    if want not in names:
        sys.exit(f"dist: the wheel built from the idmint-stores sdist lacks {want}: {names}")
PY

# --- Node.js ----------------------------------------------------------------------------------
step "npm: idmint and idmint-linux-x64-gnu (light addon), idmint-stores and idmint-stores-linux-x64-gnu"
# The two addons bindings-node/test.sh built: light with the `light` profile, the add-on's with
# `release` and the `stores` feature (cargo finds both fresh after a test run). Symbols stripped:
# the dynamic symbol table Node.js loads from stays.
mkdir -p "$stage/addon" "$stage/addon-stores"
(cd bindings-node && { [ -x node_modules/.bin/napi ] || npm ci --ignore-scripts --no-audit --no-fund >/dev/null; } \
  && node_modules/.bin/napi build --platform --profile light --no-js --output-dir "$stage/addon" -- --locked >/dev/null \
  && node_modules/.bin/napi build --platform --release --features stores --no-js --output-dir "$stage/addon-stores" -- --locked >/dev/null)
addon=$stage/addon/idmint.linux-x64-gnu.node
stores_addon=$stage/addon-stores/idmint-stores.linux-x64-gnu.node
[ -f "$addon" ] || { echo "dist: napi built no $addon" >&2; exit 1; }
mv "$stage/addon-stores/idmint.linux-x64-gnu.node" "$stores_addon"
strip --strip-unneeded "$addon" "$stores_addon"
# platform_package NAME ADDON DESCRIPTION: the npm package holding one prebuilt addon.
platform_package() {
  local plat=$stage/npm-$1
  mkdir -p "$plat"
  cp "$2" "$plat/"
  cp LICENSE* "$plat/" 2>/dev/null || true
  cat >"$plat/package.json" <<EOF
{
  "name": "$1",
  "version": "$version",
  "description": "$3",
  "license": "MIT OR Apache-2.0",
  "repository": { "type": "git", "url": "https://github.com/idmint/idmint", "directory": "bindings-node" },
  "os": ["linux"],
  "cpu": ["x64"],
  "libc": ["glibc"],
  "main": "$(basename "$2")",
  "files": ["$(basename "$2")"],
  "engines": { "node": ">=20" }
}
EOF
  printf '# %s\n\n%s. npm picks this package for you.\n' "$1" "$3" >"$plat/README.md"
  (cd "$plat" && npm pack --silent --pack-destination "$dist" >/dev/null)
}
platform_package idmint-linux-x64-gnu "$addon" \
  "The prebuilt linux-x64 (glibc) native addon of the idmint package (install idmint)"
platform_package idmint-stores-linux-x64-gnu "$stores_addon" \
  "The prebuilt linux-x64 (glibc) native addon of idmint with every store client (install idmint-stores)"
# The add-on: its loader, and the platform packages as optional dependencies.
addon_pkg=$stage/npm-idmint-stores
mkdir -p "$addon_pkg"
cp bindings-node/stores/index.js bindings-node/platform.js bindings-node/stores/README.md "$addon_pkg/"
cat >"$addon_pkg/package.json" <<EOF
{
  "name": "idmint-stores",
  "version": "$version",
  "description": "The store clients of idmint (Redis, PostgreSQL, MySQL/MariaDB, SQLite, etcd, ZooKeeper, the idmint service): require('idmint') uses them once this package is installed",
  "license": "MIT OR Apache-2.0",
  "repository": { "type": "git", "url": "https://github.com/idmint/idmint", "directory": "bindings-node" },
  "main": "index.js",
  "files": ["index.js", "platform.js", "README.md"],
  "optionalDependencies": { "idmint-stores-linux-x64-gnu": "$version" },
  "engines": { "node": ">=20" }
}
EOF
(cd "$addon_pkg" && npm pack --silent --pack-destination "$dist" >/dev/null)

# The main package: the JavaScript and types, the optional prebuilt packages, and the crate
# with its sources (core, coord, the shared JS glue) for a source build elsewhere.
main=$stage/npm-main
mkdir -p "$main"
node -e '
  const fs = require("fs")
  const [src, out, version] = process.argv.slice(1)
  const pkg = JSON.parse(fs.readFileSync(src, "utf8"))
  delete pkg.devDependencies
  pkg.scripts = { install: pkg.scripts.install }
  pkg.optionalDependencies = { "idmint-linux-x64-gnu": version }
  pkg.files = pkg.files.filter((f) => f !== "*.node").concat(["rust/"])
  if (pkg.version !== version) throw new Error(`package.json says ${pkg.version}, Cargo.toml ${version}`)
  fs.writeFileSync(out, JSON.stringify(pkg, null, 2) + "\n")
' bindings-node/package.json "$main/package.json" "$version"
for f in index.js index.mjs index.d.ts platform.js README.md Cargo.lock build.rs; do
  cp "bindings-node/$f" "$main/"
done
mkdir -p "$main/scripts" && cp bindings-node/scripts/install.js "$main/scripts/"
cp -r bindings-node/src "$main/src"
# The crate's path dependencies, next to it under rust/, as a workspace of their own (the
# repository's root manifest, narrowed to them), so `cargo build` works inside the package.
mkdir -p "$main/rust"
for d in core coord bindings-js; do
  mkdir -p "$main/rust/$d"
  cp -r "$d/src" "$d/Cargo.toml" "$main/rust/$d/"
  [ -f "$d/build.rs" ] && cp "$d/build.rs" "$main/rust/$d/"
done
sed -e 's|^members = .*|members = ["core", "coord"]|' -e 's|^exclude = .*|exclude = ["bindings-js"]|' \
  Cargo.toml >"$main/rust/Cargo.toml"
sed -e 's|path = "\.\./core"|path = "rust/core"|' -e 's|path = "\.\./coord"|path = "rust/coord"|' \
  -e 's|path = "\.\./bindings-js"|path = "rust/bindings-js"|' bindings-node/Cargo.toml >"$main/Cargo.toml"
if grep -q 'path = "\.\./' "$main/Cargo.toml"; then
  echo "dist: bindings-node/Cargo.toml has a path dependency dist.sh does not vendor" >&2; exit 1
fi
# The vendored tree resolves with the committed lock file (no network, nothing changed).
(cd "$main" && cargo metadata --locked --offline --format-version 1 >/dev/null)
(cd "$main" && npm pack --silent --pack-destination "$dist" >/dev/null)

# --- Browser ----------------------------------------------------------------------------------
step "npm: idmint-web"
# Each entry's module: the bundles of the JavaScript entries, the .wasm of the WebAssembly one.
for f in {web,bundler,node}/idmint.js {web,bundler,node}/{formats,snowflake}/idmint.js {web,bundler,node}/wasm/idmint_bg.wasm; do
  [ -f "bindings-wasm/pkg/$f" ] || { (cd bindings-wasm && env -u CARGO_TARGET_DIR bash scripts/build.sh); break; }
done
(cd bindings-wasm && npm pack --silent --pack-destination "$dist" >/dev/null)

# --- C ----------------------------------------------------------------------------------------
step "C: headers, libraries, pkg-config and CMake packages: libidmint, and libidmint-stores apart"
cname=idmint-$version-linux-x86_64
csname=idmint-stores-$version-linux-x86_64
bash bindings-c/install.sh "$stage/$cname" >/dev/null
bash bindings-c/install.sh --stores "$stage/$csname" >/dev/null
for d in "$cname" "$csname"; do
  cp bindings-c/README.md "$stage/$d/README.md"
  tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "$dist/$d.tar.gz" "$d"
done

# --- CLI --------------------------------------------------------------------------------------
step "CLI: idmint, completions, man page"
cargo build --locked -q --release --target "$host" -p idmint-cli
cli=$stage/idmint-cli-$version-linux-x86_64
bin=$CARGO_TARGET_DIR/$host/release/idmint
install -d "$cli/bin" "$cli/share/man/man1" "$cli/share/bash-completion/completions" \
  "$cli/share/zsh/site-functions" "$cli/share/fish/vendor_completions.d"
install -m 755 "$bin" "$cli/bin/idmint"
"$bin" man >"$cli/share/man/man1/idmint.1"
"$bin" completions bash >"$cli/share/bash-completion/completions/idmint"
"$bin" completions zsh >"$cli/share/zsh/site-functions/_idmint"
"$bin" completions fish >"$cli/share/fish/vendor_completions.d/idmint.fish"
cp README.md "$cli/README.md"
tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "$dist/$(basename "$cli").tar.gz" "$(basename "$cli")"

# --- PostgreSQL -------------------------------------------------------------------------------
pg_config=${PG_CONFIG:-/usr/bin/pg_config}
pg_major=$("$pg_config" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
step "PostgreSQL $pg_major extension (cargo pgrx package)"
pgname=idmint-postgresql$pg_major-$version-linux-x86_64
(cd bindings-postgres && PGRX_PG_CONFIG_PATH=$pg_config cargo pgrx package --pg-config "$pg_config" \
  --out-dir "$stage/pgrx" >"$stage/pgrx.log" 2>&1) || { cat "$stage/pgrx.log"; exit 1; }
pg=$stage/$pgname
install -d "$pg/lib" "$pg/extension"
install -m 755 "$stage/pgrx$("$pg_config" --pkglibdir)/idmint.so" "$pg/lib/"
install -m 644 "$stage/pgrx$("$pg_config" --sharedir)/extension/idmint.control" \
  "$stage/pgrx$("$pg_config" --sharedir)/extension/idmint--$version.sql" "$pg/extension/"
install -m 755 bindings-postgres/package/install.sh "$pg/install.sh"
cp bindings-postgres/README.md "$pg/README.md"
echo "$pg_major" >"$pg/PG_MAJOR"
grep -q "default_version = '$version'" "$pg/extension/idmint.control"
tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "$dist/$pgname.tar.gz" "$pgname"

# --- Versions and checksums -------------------------------------------------------------------
step "every artifact carries version $version; SHA256SUMS"
expected=(
  "idmint-$version-cp39-abi3-$tag.whl" "idmint_stores-$version-cp39-abi3-$addon_tag.whl"
  "idmint-$version.tar.gz" "idmint_stores-$version.tar.gz" "idmint-$version.tgz"
  "idmint-linux-x64-gnu-$version.tgz" "idmint-stores-$version.tgz" "idmint-stores-linux-x64-gnu-$version.tgz"
  "idmint-web-$version.tgz" "$cname.tar.gz" "$csname.tar.gz"
  "idmint-cli-$version-linux-x86_64.tar.gz" "$pgname.tar.gz"
)
for f in "${expected[@]}"; do
  [ -f "$dist/$f" ] || { echo "dist: missing $f (have: $(ls "$dist"))" >&2; exit 1; }
done
[ "$(ls "$dist" | wc -l)" = "${#expected[@]}" ] || { echo "dist: unexpected files: $(ls "$dist")" >&2; exit 1; }
for f in idmint-"$version".tgz idmint-linux-x64-gnu-"$version".tgz idmint-stores-"$version".tgz \
  idmint-stores-linux-x64-gnu-"$version".tgz idmint-web-"$version".tgz; do
  v=$(tar -xzOf "$dist/$f" package/package.json | node -pe 'JSON.parse(require("fs").readFileSync(0)).version')
  [ "$v" = "$version" ] || { echo "dist: $f says $v" >&2; exit 1; }
done
[ "$("$cli/bin/idmint" --version)" = "idmint $version" ]
grep -q "#define IDMINT_VERSION \"$version\"" "$stage/$cname/include/idmint.h"
(cd "$dist" && sha256sum -- * >SHA256SUMS)
ls -l "$dist"
