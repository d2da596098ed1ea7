#!/bin/sh
# Installs the idmint extension from this package where pg_config says (run as root):
#   sh install.sh
#   PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config sh install.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pg_config=${PG_CONFIG:-pg_config}
want=$(cat "$here/PG_MAJOR")
have=$("$pg_config" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
[ "$have" = "$want" ] || { echo "this package is for PostgreSQL $want; $pg_config is PostgreSQL $have" >&2; exit 1; }
install -m 755 "$here/lib/idmint.so" "$("$pg_config" --pkglibdir)/idmint.so"
install -m 644 "$here"/extension/idmint.control "$here"/extension/idmint--*.sql "$("$pg_config" --sharedir)/extension/"
echo "idmint installed for PostgreSQL $want: add idmint to shared_preload_libraries, set idmint.node or idmint.lease, restart, then CREATE EXTENSION idmint;"
