"""idmint's Python binding against the floor of a pyo3 call and against peers, side by side in
one run (this machine is shared and noisy: only the ratios of one run mean anything).

    python bindings-python/bench/bench.py            # ~30 s; prints a Markdown report
    python bindings-python/bench/bench.py --quick    # fewer rounds

Needs the package installed, plus the peers: pip install uuid-utils==1.2.0 snowflake-id==1.0.2
sonyflake-turbo==1.0.1 uuid6==2025.0.1 typeid-python==0.3.11 python-ulid==4.1.0 (missing peers
are reported and skipped; test.sh installs the last four, and uuid-utils).

Method: every candidate is a prebound zero-argument callable run `n` times in a plain for loop
(the loop's own cost is in every row, the floor's included); 21 rounds are interleaved across
candidates, the garbage collector is off while timing, and each row reports the median and the
best round in ns per call. Generators with a per-tick cap are timed in rounds that stay within
their cap or their borrow budget, after an idle pause, and the cap is stated beside them. The
from-idle bulk row is also timed alone at the end (no other row's allocations in between).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Callable

import idmint
from idmint import _native

WIDE = "time=41@1ms,worker=2,seq=20,epoch=2020-01-01"  # 2**20 IDs per ms: no cap in play
RANDOM10 = bytes(range(10))


@dataclass
class Row:
    name: str
    fn: Callable[[], object]
    n: int
    note: str = ""
    idle_ms: float = 0.0  # pause before each round (lets a borrowing generator catch up)
    per: str = "call"
    ids_per_call: int = 1  # a batch row reports ns per ID
    samples: list[float] = field(default_factory=list)


def timed_round(row: Row) -> float:
    if row.idle_ms:
        time.sleep(row.idle_ms / 1000)
    f = row.fn
    rng = range(row.n)
    gc.disable()
    t0 = time.perf_counter_ns()
    for _ in rng:
        f()
    t1 = time.perf_counter_ns()
    gc.enable()
    return (t1 - t0) / row.n / row.ids_per_call


def peers(rows: list[Row], missing: list[str]) -> None:
    try:
        import uuid_utils

        rows.append(Row("uuid_utils.uuid7() (own UUID type)", uuid_utils.uuid7, 100_000))
        rows.append(Row("uuid_utils.uuid4() (own UUID type)", uuid_utils.uuid4, 100_000))
        rows.append(Row("uuid_utils.uuid6() (own UUID type)", uuid_utils.uuid6, 100_000))
        from uuid_utils import compat

        # Its stdlib-compatible module: what uuid_utils gives where a uuid.UUID is needed.
        rows.append(Row("uuid_utils.compat.uuid7() (stdlib uuid.UUID)", compat.uuid7, 20_000))
    except ImportError:
        missing.append("uuid-utils")
    try:
        import uuid6

        rows.append(Row("uuid6.uuid7() (pure Python, uuid.UUID subclass)", uuid6.uuid7, 20_000))
    except ImportError:
        missing.append("uuid6")
    try:
        from typeid import TypeID

        rows.append(Row('typeid-python str(TypeID("user")) (text, on uuid_utils.uuid7)', lambda: str(TypeID("user")), 20_000))
    except ImportError:
        missing.append("typeid-python")
    try:
        from ulid import ULID

        rows.append(Row("python-ulid str(ULID()) (text)", lambda: str(ULID()), 20_000))
        rows.append(Row("python-ulid ULID() (object)", ULID, 20_000))
    except ImportError:
        missing.append("python-ulid")
    try:
        from snowflake import SnowflakeGenerator  # type: ignore[import-untyped]

        sf = SnowflakeGenerator(42)
        rows.append(
            Row(
                "snowflake-id next(gen) (pure Python, twitter bits, waits at 4,096/ms)",
                sf.__next__,
                100_000,
                idle_ms=40,
            )
        )
    except ImportError:
        missing.append("snowflake-id")
    try:
        from sonyflake_turbo import SonyFlake

        sony = SonyFlake(1)
        rows.append(
            Row(
                "sonyflake-turbo next(sf) (1 machine id; waits at 256 per 10 ms)",
                sony.__next__,
                2_000,
                idle_ms=100,
            )
        )
    except ImportError:
        missing.append("sonyflake-turbo")


def build_rows() -> tuple[list[Row], list[str]]:
    missing: list[str] = []
    wide = idmint.Snowflake(WIDE, node=1)
    tw_wait = idmint.Snowflake("twitter", node=1)
    tw_borrow = idmint.Snowflake("twitter", node=2, on_exhausted="borrow:64")
    sony = idmint.Snowflake("sonyflake", node=1, on_exhausted="borrow:16")
    rows = [
        Row("floor: _native._bench_floor() (empty pyo3 function returning an int)", _native._bench_floor, 100_000),
        Row("idmint Snowflake.next_id() (wide layout, 2^20 per ms: no cap in play)", wide.next_id, 100_000),
        Row("idmint Snowflake.next_id() (twitter, borrow:64, rounds within the budget)", tw_borrow.next_id, 100_000, idle_ms=40),
        Row("idmint Snowflake.next_id() (twitter, wait: capped at 4,096/ms)", tw_wait.next_id, 100_000),
        Row("idmint Snowflake.next_id() (sonyflake, borrow:16, rounds within the budget)", sony.next_id, 2_000, idle_ms=100),
        Row("idmint.uuid7() (stdlib uuid.UUID, monotonic)", idmint.uuid7, 100_000),
        Row("idmint.uuid4() (stdlib uuid.UUID)", idmint.uuid4, 100_000),
        Row("idmint.uuid6() (stdlib uuid.UUID, monotonic)", idmint.uuid6, 100_000),
        Row("idmint.uuid7s(1000), per UUID (list of stdlib uuid.UUID)", lambda: idmint.uuid7s(1000), 100, ids_per_call=1000),
        Row("idmint.uuid7_at(ms, random) (sans-IO: the conversion alone, no clock or randomness)", lambda: idmint.uuid7_at(1_700_000_000_000, RANDOM10), 100_000),
        Row('idmint.typeid("user") (text)', lambda: idmint.typeid("user"), 100_000),
        Row("idmint.ulid() (text)", idmint.ulid, 100_000),
        Row("uuid.uuid4() (standard library)", uuid.uuid4, 100_000),
    ]
    peers(rows, missing)

    bulk_tw = idmint.Snowflake("twitter", node=3, on_exhausted="borrow:64")
    # Benchmark-only setting: a borrow budget large enough for every back-to-back round (the
    # generator runs up to ~25 ms per call ahead of the clock, ~0.4 s in all).
    bulk_tw_ahead = idmint.Snowflake("twitter", node=4, on_exhausted="borrow:1000")
    bulk_wide = idmint.Snowflake(WIDE, node=3)
    rows.append(
        Row(
            "idmint next_ids(100_000) -> array('Q') (twitter, borrow:64, from idle)",
            lambda: bulk_tw.next_ids(100_000),
            1,
            idle_ms=60,
            per="100k IDs",
        )
    )
    rows.append(
        Row(
            "control: _bench_floor() after the same idle pause (cost of waking up)",
            _native._bench_floor,
            1,
            idle_ms=60,
            per="call",
        )
    )
    rows.append(
        Row(
            "idmint next_ids(100_000) -> array('Q') (twitter, borrow:1000, back to back)",
            lambda: bulk_tw_ahead.next_ids(100_000),
            1,
            per="100k IDs",
        )
    )
    rows.append(
        Row(
            "idmint next_ids(100_000) -> array('Q') (wide layout, back to back)",
            lambda: bulk_wide.next_ids(100_000),
            20,
            per="100k IDs",
        )
    )
    rows.append(
        Row(
            "idmint next_ids_list(100_000) -> list (wide layout, back to back)",
            lambda: bulk_wide.next_ids_list(100_000),
            10,
            per="100k IDs",
        )
    )
    return rows, missing


def yes(ok: bool) -> str:
    return "yes" if ok else "no"


def fmt(ns: float, per: str) -> str:
    if per == "call":
        return f"{ns:,.1f} ns"
    return f"{ns / 1e6:,.3f} ms"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="3 rounds instead of 21")
    args = ap.parse_args()
    rounds = 3 if args.quick else 21

    rows, missing = build_rows()
    for row in rows:  # warm-up: first calls, allocations, lazily built caches
        timed_round(Row(row.name, row.fn, min(row.n, 1000), idle_ms=row.idle_ms))
    for _ in range(rounds):
        for row in rows:
            row.samples.append(timed_round(row))
    # The from-idle bulk row once more, timed alone: no other row's allocations in between.
    idle = next(r for r in rows if "borrow:64, from idle" in r.name)
    alone = Row(idle.name.replace("from idle", "from idle, timed alone"), idle.fn, 1, idle_ms=60, per=idle.per)
    alone.samples = [timed_round(alone) for _ in range(rounds)]
    rows.insert(rows.index(idle) + 1, alone)

    med = {r.name: statistics.median(r.samples) for r in rows}
    print(f"Python {platform.python_version()} ({sys.implementation.name}), idmint {idmint.__version__}, "
          f"{os.cpu_count()} CPUs, load average before/after {load_before} / {os.getloadavg()[0]:.2f}, "
          f"{rounds} interleaved rounds")
    if missing:
        print(f"peers not installed (skipped): {', '.join(missing)}")
    print()
    print("| candidate | median | best round |")
    print("|---|---:|---:|")
    for r in rows:
        per = "" if r.per == "call" else f" per {r.per}"
        print(f"| {r.name} | {fmt(med[r.name], r.per)}{per} | {fmt(min(r.samples), r.per)} |")

    best = {r.name: min(r.samples) for r in rows}

    def pick(prefix: str) -> str | None:
        return next((k for k in med if k.startswith(prefix)), None)

    floor = pick("floor")
    ours = pick("idmint Snowflake.next_id() (wide")
    ours_tw = pick("idmint Snowflake.next_id() (twitter, borrow")
    uu7 = pick("uuid_utils.uuid7")
    sfid = pick("snowflake-id")
    print()
    print("| target | ratio of medians | ratio of best rounds | met (medians / best) |")
    print("|---|---:|---:|:---:|")

    def ratio_row(label: str, num: str | None, den: str | None, ok: Callable[[float], bool]) -> None:
        if num is None or den is None:
            return
        rm, rb = med[num] / med[den], best[num] / best[den]
        print(f"| {label} | {rm:.2f}x | {rb:.2f}x | {yes(ok(rm))} / {yes(ok(rb))} |")

    ratio_row("next_id() <= 1.3x the floor (time / floor)", ours, floor, lambda r: r <= 1.3)
    ratio_row("next_id() >= 1.5x faster than uuid_utils.uuid7()", uu7, ours, lambda r: r >= 1.5)
    ratio_row("next_id() (twitter, borrow) >= 3x faster than snowflake-id", sfid, ours_tw, lambda r: r >= 3)
    ours7 = pick("idmint.uuid7() ")
    ratio_row("uuid7() >= 1.5x faster than uuid_utils.uuid7() (uuid_utils / ours)", uu7, ours7, lambda r: r >= 1.5)
    print()
    print("| comparison (theirs / ours: above 1 means idmint is faster) | ratio of medians | ratio of best rounds |")
    print("|---|---:|---:|")

    def compare(label: str, theirs: str | None, ours_: str | None) -> None:
        if theirs is None or ours_ is None:
            return
        print(f"| {label} | {med[theirs] / med[ours_]:.2f}x | {best[theirs] / best[ours_]:.2f}x |")

    compare("uuid_utils.uuid7() / idmint.uuid7()", uu7, ours7)
    compare("uuid_utils.uuid7() / idmint.uuid7s(1000) per UUID", uu7, pick("idmint.uuid7s(1000)"))
    compare("uuid_utils.uuid6() / idmint.uuid6()", pick("uuid_utils.uuid6"), pick("idmint.uuid6()"))
    compare("uuid_utils.compat.uuid7() / idmint.uuid7() (both stdlib uuid.UUID)", pick("uuid_utils.compat.uuid7"), ours7)
    compare("uuid6.uuid7() / idmint.uuid7()", pick("uuid6.uuid7"), ours7)
    compare('typeid-python str(TypeID("user")) / idmint.typeid("user")', pick("typeid-python"), pick("idmint.typeid"))
    compare("python-ulid str(ULID()) / idmint.ulid()", pick("python-ulid str"), pick("idmint.ulid"))
    compare("python-ulid ULID() / idmint.ulid()", pick("python-ulid ULID()"), pick("idmint.ulid"))
    print()
    print("| target | median | best round | met (median / best) |")
    print("|---|---:|---:|:---:|")
    for label, prefix in (
        ("twitter, borrow:64, from idle", "idmint next_ids(100_000) -> array('Q') (twitter, borrow:64, from idle)"),
        ("twitter, borrow:64, from idle, timed alone", "idmint next_ids(100_000) -> array('Q') (twitter, borrow:64, from idle, timed alone"),
        ("twitter, borrow:1000, back to back", "idmint next_ids(100_000) -> array('Q') (twitter, borrow:1000"),
        ("wide layout, back to back", "idmint next_ids(100_000) -> array('Q') (wide"),
    ):
        k = pick(prefix)
        if k is None:
            continue
        a, b = med[k] / 1e6, best[k] / 1e6
        print(f"| 100,000 IDs as array('Q') <= 0.3 ms ({label}) | {a:.3f} ms | {b:.3f} ms | {yes(a <= 0.3)} / {yes(b <= 0.3)} |")


load_before = f"{os.getloadavg()[0]:.2f}"

if __name__ == "__main__":
    main()
