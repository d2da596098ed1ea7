#!/usr/bin/env bash
# Builds libidmint and installs it with its header and a pkg-config file:
#   bash bindings-c/install.sh PREFIX      # PREFIX/include/idmint.h, PREFIX/lib/libidmint.{a,so},
#                                          # PREFIX/lib/pkgconfig/idmint.pc,
#                                          # PREFIX/lib/cmake/idmint/ (find_package(idmint))
#   bash bindings-c/install.sh --stores PREFIX
#                                          # the same header, PREFIX/lib/libidmint-stores.{a,so}
#                                          # (every store client: Redis, PostgreSQL, MySQL,
#                                          # SQLite, etcd, ZooKeeper, the idmint service),
#                                          # idmint-stores.pc, lib/cmake/idmint-stores/
# libidmint has the file lease store and the memory segment store; a program that opens another
# store links libidmint-stores instead (one or the other: they export the same functions). Both
# install into one PREFIX side by side.
# Then: cc app.c $(PKG_CONFIG_PATH=PREFIX/lib/pkgconfig pkg-config --cflags --libs idmint)
# (add --static to link libidmint.a with its private libraries), or in CMake:
#   find_package(idmint REQUIRED) + target_link_libraries(app PRIVATE idmint::idmint)
# (find_package(idmint-stores) + idmint::idmint_stores) with CMAKE_PREFIX_PATH=PREFIX. The tree
# is relocatable: move PREFIX anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
stores=
if [ "${1:-}" = --stores ]; then stores=1; shift; fi
prefix=${1:?usage: bash bindings-c/install.sh [--stores] PREFIX}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
# Built for the host's triple named explicitly, as the Python and Node packages are (napi-rs
# names it; see scripts/test.sh): they share one release build of their dependencies. The light
# library is built with the `light` profile (the release one, in target/HOST/light), so the two
# libraries never overwrite each other's file.
host=$(rustc -vV | sed -n 's/^host: //p')
if [ -n "$stores" ]; then
  cargo build --locked -q -p idmint-c --release --features stores --target "$host"
  lib=${CARGO_TARGET_DIR:-target}/$host/release
  name=idmint-stores target=idmint_stores with=', with every store client'
else
  cargo build --locked -q -p idmint-c --profile light --target "$host"
  lib=${CARGO_TARGET_DIR:-target}/$host/light
  name=idmint target=idmint with=
fi
version=$(sed -n 's/^#define IDMINT_VERSION "\(.*\)"$/\1/p' include/idmint.h)
install -d "$prefix/include" "$prefix/lib/pkgconfig" "$prefix/lib/cmake/$name"
install -m 644 include/idmint.h "$prefix/include/"
install -m 644 "$lib/libidmint.a" "$prefix/lib/lib$name.a"
# Without the debug sections the Rust standard library's objects carry (half the archive; the
# symbols a link needs stay).
strip --strip-debug "$prefix/lib/lib$name.a"
# The shared library without its symbol table (the exported functions stay in its dynamic table).
# lib$name.so.VERSION, with the soname link the loader uses and the plain name the linker uses.
soname=$(readelf -d "$lib/libidmint.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "${soname%%.so.*}" = "lib$name" ] || { echo "install.sh: $lib/libidmint.so has soname $soname, not lib$name.so.*" >&2; exit 1; }
install -m 755 -s "$lib/libidmint.so" "$prefix/lib/lib$name.so.$version"
ln -sf "lib$name.so.$version" "$prefix/lib/$soname"
ln -sf "$soname" "$prefix/lib/lib$name.so"
# Relocatable: pkg-config sets ${pcfiledir} to the directory the .pc file is in.
sed -e "s|@PREFIX@|\${pcfiledir}/../..|" -e "s|@INCLUDEDIR@|\${prefix}/include|" \
    -e "s|@LIBDIR@|\${prefix}/lib|" -e "s|@VERSION@|$version|" -e "s|@LIB@|$name|g" -e "s|@WITH@|$with|" \
    bindings-c/idmint.pc.in >"$prefix/lib/pkgconfig/$name.pc"
sed -e "s|@VERSION@|$version|g" -e "s|@SONAME@|$soname|g" -e "s|@LIB@|$name|g" -e "s|@TARGET@|$target|g" \
  bindings-c/cmake/idmintConfig.cmake.in >"$prefix/lib/cmake/$name/${name}Config.cmake"
sed -e "s|@VERSION@|$version|g" bindings-c/cmake/idmintConfigVersion.cmake.in \
  >"$prefix/lib/cmake/$name/${name}ConfigVersion.cmake"
echo "installed lib$name $version into $prefix"
