#!/usr/bin/env bash
# Builds libidmint and installs it with its header and a pkg-config file:
#   bash bindings-c/install.sh PREFIX      # PREFIX/include/idmint.h, PREFIX/lib/libidmint.{a,so},
#                                          # PREFIX/lib/pkgconfig/idmint.pc,
#                                          # PREFIX/lib/cmake/idmint/ (find_package(idmint))
# Then: cc app.c $(PKG_CONFIG_PATH=PREFIX/lib/pkgconfig pkg-config --cflags --libs idmint)
# (add --static to link libidmint.a with its private libraries), or in CMake:
#   find_package(idmint REQUIRED) + target_link_libraries(app PRIVATE idmint::idmint)
# with CMAKE_PREFIX_PATH=PREFIX. The tree is relocatable: move PREFIX anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:?usage: bash bindings-c/install.sh PREFIX}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
# Built for the host's triple named explicitly, as the Python and Node packages are (napi-rs
# names it; see scripts/test.sh): the three share one release build of their dependencies.
host=$(rustc -vV | sed -n 's/^host: //p')
cargo build --locked -q -p idmint-c --release --target "$host"
lib=${CARGO_TARGET_DIR:-target}/$host/release
version=$(sed -n 's/^#define IDMINT_VERSION "\(.*\)"$/\1/p' include/idmint.h)
install -d "$prefix/include" "$prefix/lib/pkgconfig" "$prefix/lib/cmake/idmint"
install -m 644 include/idmint.h "$prefix/include/"
install -m 644 "$lib/libidmint.a" "$prefix/lib/"
# libidmint.so.VERSION, with the soname link the loader uses and the plain name the linker uses.
soname=$(readelf -d "$lib/libidmint.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
install -m 755 "$lib/libidmint.so" "$prefix/lib/libidmint.so.$version"
ln -sf "libidmint.so.$version" "$prefix/lib/$soname"
ln -sf "$soname" "$prefix/lib/libidmint.so"
# Relocatable: pkg-config sets ${pcfiledir} to the directory the .pc file is in.
sed -e "s|@PREFIX@|\${pcfiledir}/../..|" -e "s|@INCLUDEDIR@|\${prefix}/include|" \
    -e "s|@LIBDIR@|\${prefix}/lib|" -e "s|@VERSION@|$version|" \
    bindings-c/idmint.pc.in >"$prefix/lib/pkgconfig/idmint.pc"
for f in idmintConfig idmintConfigVersion; do
  sed -e "s|@VERSION@|$version|g" -e "s|@SONAME@|$soname|g" "bindings-c/cmake/$f.cmake.in" \
    >"$prefix/lib/cmake/idmint/$f.cmake"
done
echo "installed idmint $version into $prefix"
