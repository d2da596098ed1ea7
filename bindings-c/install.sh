#!/usr/bin/env bash
# Builds libidmint and installs it with its header and a pkg-config file:
#   bash bindings-c/install.sh PREFIX      # PREFIX/include/idmint.h, PREFIX/lib/libidmint.{a,so},
#                                          # PREFIX/lib/pkgconfig/idmint.pc
# Then: cc app.c $(PKG_CONFIG_PATH=PREFIX/lib/pkgconfig pkg-config --cflags --libs idmint)
# (add --static to link libidmint.a with its private libraries).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:?usage: bash bindings-c/install.sh PREFIX}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
cargo build --locked -q -p idmint-c --release
target=${CARGO_TARGET_DIR:-target}
version=$(sed -n 's/^#define IDMINT_VERSION "\(.*\)"$/\1/p' include/idmint.h)
install -d "$prefix/include" "$prefix/lib/pkgconfig"
install -m 644 include/idmint.h "$prefix/include/"
install -m 644 "$target/release/libidmint.a" "$prefix/lib/"
install -m 755 "$target/release/libidmint.so" "$prefix/lib/"
sed -e "s|@PREFIX@|$prefix|" -e "s|@INCLUDEDIR@|\${prefix}/include|" \
    -e "s|@LIBDIR@|\${prefix}/lib|" -e "s|@VERSION@|$version|" \
    bindings-c/idmint.pc.in >"$prefix/lib/pkgconfig/idmint.pc"
echo "installed idmint $version into $prefix"
