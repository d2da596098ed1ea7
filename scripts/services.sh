#!/usr/bin/env bash
# Starts and stops throwaway Redis and PostgreSQL servers on loopback, each in its own directory.
#
#   scripts/services.sh start redis DIR PORT      # redis-server, append-only file fsynced per write
#   scripts/services.sh start postgres DIR PORT   # initdb (trust auth, user idmint) + pg_ctl start
#   scripts/services.sh stop redis|postgres DIR   # stops it (the directory stays, for a restart)
#   scripts/services.sh kill redis|postgres DIR   # SIGKILL, as a crash would
#
# URLs: redis://127.0.0.1:PORT/ and postgres://idmint@127.0.0.1:PORT/postgres.
# Tests use it to run private servers they can stop mid-run; scripts/test.sh uses it for the
# servers the bindings' tests share. The servers are installed by scripts/setup.sh.
set -euo pipefail

action=${1:?action}; kind=${2:?kind}; dir=${3:?dir}; port=${4:-}

pg_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/pg_ctl" ] && { echo "$d"; return; }; done
  echo "services: PostgreSQL server binaries not found (run scripts/setup.sh)" >&2; exit 1
}

# PostgreSQL refuses to run as root: run its tools as the `postgres` user then.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

wait_port() {
  local i
  for i in $(seq 1 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "services: nothing listens on 127.0.0.1:$1" >&2; return 1
}

case "$action/$kind" in
  start/redis)
    : "${port:?port}"
    mkdir -p "$dir"
    command -v redis-server >/dev/null || { echo "services: redis-server not found (run scripts/setup.sh)" >&2; exit 1; }
    # Durable like a production store for IDs must be: every acknowledged write is in the
    # append-only file before the reply, so a killed server comes back with its counters.
    redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save "" \
      --appendonly yes --appendfsync always \
      --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >/dev/null
    wait_port "$port"
    # A restarted server answers LOADING while it replays its append-only file: wait for PONG.
    for _ in $(seq 1 200); do
      [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ] && break
      sleep 0.05
    done
    ;;
  start/postgres)
    : "${port:?port}"
    bin=$(pg_bin)
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then
      chown postgres "$dir"; chmod 700 "$dir"
      # The postgres user must be able to reach DIR (mktemp -d makes 0700 directories).
      up=$(dirname "$(realpath "$dir")")
      while [ "$up" != / ]; do
        [ $(( 0$(stat -c %a "$up") & 1 )) = 1 ] || chmod o+x "$up"
        up=$(dirname "$up")
      done
    fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_pg "$bin/initdb" -D "$dir/data" -A trust -U idmint --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" \
      start >/dev/null || { cat "$dir/postgres.log" >&2; exit 1; }
    ;;
  stop/redis|kill/redis)
    [ -f "$dir/redis.pid" ] || exit 0
    pid=$(cat "$dir/redis.pid")
    sig=TERM; [ "$action" = kill ] && sig=KILL
    kill -s "$sig" "$pid" 2>/dev/null || true
    for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    rm -f "$dir/redis.pid"
    ;;
  stop/postgres)
    [ -f "$dir/data/postmaster.pid" ] || exit 0
    as_pg "$(pg_bin)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  kill/postgres)
    [ -f "$dir/data/postmaster.pid" ] || exit 0
    pid=$(head -1 "$dir/data/postmaster.pid")
    kill -KILL "$pid" 2>/dev/null || true
    for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    # Backends die with the postmaster; give them a moment so the next start finds the port free.
    pkill -KILL -f "postgres: .*-k $dir" 2>/dev/null || true
    sleep 0.2
    rm -f "$dir/data/postmaster.pid"
    ;;
  *)
    echo "usage: $0 start|stop|kill redis|postgres DIR [PORT]" >&2; exit 2 ;;
esac
