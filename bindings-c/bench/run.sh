#!/usr/bin/env bash
# The C benchmark beside the Rust calls it wraps, in one run:
#   bash bindings-c/bench/run.sh [IDS] [ROUNDS] [REPEATS]
# Builds libidmint.a (release) and the Rust side, alternates the two programs REPEATS times
# (default 3), and reports the median of the per-run medians (ns per ID) and the C/Rust ratios.
# Then, if valgrind is installed, counts instructions per ID under callgrind (1,000,000 IDs per
# loop), which other processes on the machine cannot disturb.
set -euo pipefail
cd "$(dirname "$0")/../.."
ids=${1:-20000000}
rounds=${2:-5}
repeats=${3:-3}
target=${CARGO_TARGET_DIR:-$PWD/target}
out=$target/idmint-c
mkdir -p "$out"
cargo build --locked -q --release -p idmint-c --bin idmint-c-bench-rust
gcc -O2 -std=c11 -Wall -Wextra -Werror -Iinclude bindings-c/bench/bench.c \
  "$target/release/libidmint.a" -lpthread -ldl -lm -o "$out/bench"
rust=$target/release/idmint-c-bench-rust
c=$out/bench

results=$out/bench-results.txt
: >"$results"
for _ in $(seq "$repeats"); do
  "$rust" "$ids" "$rounds" | tee -a "$results"
  "$c" "$ids" "$rounds" | tee -a "$results"
done

instr=$out/bench-instructions.txt
: >"$instr"
if command -v valgrind >/dev/null; then
  n=1000000
  for prog in "$rust" "$c"; do
    for mode in next_id next_ids; do
      # Instructions of the whole program with the loop, minus those with an empty loop.
      count() {
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$prog" "$1" 1 "$mode" 2>&1 |
          sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
      }
      full=$(count "$n")
      base=$(count 1000)
      echo "$(basename "$prog") $mode $(( (full - base) / (n - 1000) ))" >>"$instr"
    done
  done
fi

python3 - "$results" "$instr" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    side, name, value, _ = line.split()
    rows.setdefault((side, name), []).append(float(value))
med = {k: statistics.median(v) for k, v in rows.items()}
print()
print("%-38s %8s" % ("median of the runs' medians", "ns/ID"))
for (side, name), v in med.items():
    print("%-38s %8.2f" % (side + " " + name, v))
r1 = med[("c", "idmint_snowflake_next_id")] / med[("rust", "Snowflake::next_id")]
r2 = med[("c", "idmint_snowflake_next_ids(1000)")] / med[("rust", "Snowflake::next_ids(1000)")]
print("ratio C idmint_snowflake_next_id / Rust next_id:     %.2fx" % r1)
print("ratio C idmint_snowflake_next_ids / Rust next_ids:  %.2fx" % r2)
ins = {}
for line in open(sys.argv[2]):
    prog, mode, per = line.split()
    ins[("c" if prog == "bench" else "rust", mode)] = int(per)
if ins:
    print()
    print("instructions per ID (callgrind): rust next_id %d, C next_id %d (%.2fx); "
          "rust next_ids %d, C next_ids %d (%.2fx)" % (
              ins[("rust", "next_id")], ins[("c", "next_id")], ins[("c", "next_id")] / ins[("rust", "next_id")],
              ins[("rust", "next_ids")], ins[("c", "next_ids")],
              ins[("c", "next_ids")] / max(ins[("rust", "next_ids")], 1)))
PY
