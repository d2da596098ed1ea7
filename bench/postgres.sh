#!/usr/bin/env bash
# Minting inside PostgreSQL: `INSERT INTO t SELECT f() FROM generate_series(1, N)` timed with
# psql's \timing, for idmint.next_id() against nextval() on a sequence and Instagram's PL/pgSQL
# ID function, and idmint.uuid7() against gen_random_uuid(). A private cluster (initdb on a free
# loopback port, shared_preload_libraries = 'idmint', idmint.node = 1, fsync off) in a temporary
# directory; the extension must be installed (bindings-postgres/test.sh or
# `cargo pgrx install --release` in bindings-postgres). Each statement runs RUNS times (default
# 5) into a truncated table; the table shows the best and the median, and ratios of the medians.
#   bash bench/postgres.sh [N] [RUNS]
set -euo pipefail
n=${1:-1000000}
runs=${2:-5}
bin=$(pg_config --bindir)
work=$(mktemp -d)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$work"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cleanup() {
  as_pg "$bin/pg_ctl" -D "$work/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
as_pg "$bin/initdb" -D "$work/data" -A trust -U idmint --no-sync >"$work/initdb.log"
cat >>"$work/data/postgresql.conf" <<CONF
shared_preload_libraries = 'idmint'
idmint.node = '1'
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$work'
fsync = off
synchronous_commit = off
shared_buffers = '512MB'
max_wal_size = '4GB'
CONF
as_pg "$bin/pg_ctl" -D "$work/data" -l "$work/postgres.log" -w start >/dev/null
psql=(psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U idmint postgres)
"${psql[@]}" <<'SQL'
CREATE EXTENSION idmint;
CREATE EXTENSION IF NOT EXISTS pgcrypto;
CREATE SEQUENCE s;
-- Instagram's sharded ID function (instagram-engineering.com, "Sharding & IDs at Instagram").
CREATE SCHEMA insta5;
CREATE SEQUENCE insta5.table_id_seq;
CREATE FUNCTION insta5.next_id(OUT result bigint) AS $$
DECLARE
    our_epoch bigint := 1314220021721;
    seq_id bigint;
    now_millis bigint;
    shard_id int := 5;
BEGIN
    SELECT nextval('insta5.table_id_seq') % 1024 INTO seq_id;
    SELECT FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) INTO now_millis;
    result := (now_millis - our_epoch) << 23;
    result := result | (shard_id << 10);
    result := result | (seq_id);
END;
$$ LANGUAGE PLPGSQL;
CREATE TABLE t_big (id bigint NOT NULL);
CREATE TABLE t_uuid (id uuid NOT NULL);
SQL

# time_ms TABLE EXPR: RUNS timings (ms) of inserting N rows of EXPR, one per line.
time_ms() {
  local i
  for i in $(seq 1 "$runs"); do
    "${psql[@]}" -c "TRUNCATE $1" -c '\timing on' \
      -c "INSERT INTO $1 SELECT $2 FROM generate_series(1, $n) AS g" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
  done
}
declare -A best median
measure() {
  local name=$1 times
  times=$(time_ms "$2" "$3" | sort -n)
  best[$name]=$(head -n 1 <<<"$times")
  median[$name]=$(sed -n "$(((runs + 1) / 2))p" <<<"$times")
}
measure seq t_big "nextval('s')"
measure insta t_big "insta5.next_id()"
measure idmint t_big "idmint.next_id()"
measure plain t_big "g"
measure random_uuid t_uuid "gen_random_uuid()"
measure uuid7 t_uuid "idmint.uuid7()"
dups=$("${psql[@]}" -t -A -c "TRUNCATE t_big" -c "INSERT INTO t_big SELECT idmint.next_id() FROM generate_series(1, $n)" \
  -c "SELECT count(*) - count(DISTINCT id) FROM t_big")

ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
echo
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}'), $n rows per INSERT, best and median of $runs runs (ms)"
echo
echo "| INSERT INTO t SELECT … FROM generate_series(1, $n) | best ms | median ms | median vs idmint |"
echo "|---|---:|---:|---:|"
row() { echo "| $1 | ${best[$2]} | ${median[$2]} | $3 |"; }
row '`g` (the series itself: no ID function, the floor)' plain "$(ratio "${median[plain]}" "${median[idmint]}")×"
row '`idmint.next_id()`' idmint "1.00×"
row "\`nextval('s')\` (a sequence)" seq "$(ratio "${median[seq]}" "${median[idmint]}")×"
row '`insta5.next_id()` (Instagram PL/pgSQL)' insta "$(ratio "${median[insta]}" "${median[idmint]}")×"
row '`idmint.uuid7()`' uuid7 "$(ratio "${median[uuid7]}" "${median[uuid7]}")× (uuid7)"
row '`gen_random_uuid()` (v4)' random_uuid "$(ratio "${median[random_uuid]}" "${median[uuid7]}")× (vs uuid7)"
echo
echo "duplicates among $n idmint.next_id(): $dups"
