#!/usr/bin/env bash
# Single-ID requests per second of two `idmint` builds, side by side in one run, with wrk:
#
#   bash bench/wrk-serve.sh BEFORE_BIN AFTER_BIN [ROUNDS] [SECONDS]
#
# Each round runs BEFORE then AFTER (then the next round in the other order), each a fresh
# `idmint serve` on its own data directory and loopback port, loaded by `wrk -t1 -c16` on
# `GET /v1/snowflake` for SECONDS (default 10) after a 2 s warm-up. Prints every run and the
# median requests/s of each build, and AFTER / BEFORE. The two builds share the machine in
# turns, never at once; on a shared 2-core machine read the ratio, not the absolute numbers.
set -euo pipefail
before=${1:?BEFORE_BIN}
after=${2:?AFTER_BIN}
rounds=${3:-3}
secs=${4:-10}
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# One measurement: prints requests/s.
run() {
  local bin=$1 dir port pid rps
  dir=$(mktemp -d)
  port=$(free_port)
  "$bin" serve --listen "127.0.0.1:$port" --data-dir "$dir" --log warn >"$dir/log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    sleep 0.1
  done
  wrk -t1 -c16 -d2s "http://127.0.0.1:$port/v1/snowflake" >/dev/null
  rps=$(wrk -t1 -c16 -d"${secs}s" "http://127.0.0.1:$port/v1/snowflake" | awk '/^Requests\/sec/ { print $2 }')
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  rm -rf "$dir"
  echo "$rps"
}

declare -a b a
for r in $(seq "$rounds"); do
  if [ $((r % 2)) = 1 ]; then
    b+=("$(run "$before")"); a+=("$(run "$after")")
  else
    a+=("$(run "$after")"); b+=("$(run "$before")")
  fi
  printf 'round %d: before %s req/s, after %s req/s\n' "$r" "${b[-1]}" "${a[-1]}"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mb=$(median "${b[@]}")
ma=$(median "${a[@]}")
printf 'median: before %s req/s, after %s req/s, after/before %.3f\n' "$mb" "$ma" "$(echo "$ma / $mb" | bc -l)"
