"""The wall clock steps while a process mints (libfaketime reading its offset from a file at every
clock read; the monotonic clock stays real): a child `python -c ...` mints with `Snowflake` on
the system clock while the test writes `+0`, then a step back or forward, into the file. The
child records a monotonic reading before each burst of calls and after each call, with what the
call returned; the test checks that every call starting a re-anchoring period (1 s, the core's
`REANCHOR_MS`) after the step saw it and handled it as its `on_backwards` policy says, and that
no ID repeats. The scenarios run side by side, one child each.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

import idmint

LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
# 1 ms ticks, 64 IDs per tick, and a rollback field with room for a 16 s step back.
LAYOUT = "time=40@1ms,rollback=2,worker=10,seq=6,epoch=2020-01-01"
# How often the system clock re-reads the wall clock (core/src/clock/system.rs REANCHOR_MS).
REANCHOR_MS = 1000
MS = 1_000_000
# The clocked generator reads a coarse clock, up to a few kernel ticks behind a precise reading.
COARSE_SLACK_MS = 20
REC = struct.Struct("<qqQQ")  # burst start, after the call (monotonic ns), tag, ID

CHILD = r"""
import os, select, struct, sys, time
import idmint
rec = struct.Struct("<qqQQ")
g = idmint.Snowflake(os.environ["STEP_LAYOUT"], node=1, on_backwards=os.environ["STEP_POLICY"])
out = open(os.environ["STEP_OUT"], "ab", buffering=0)
stop = os.environ["STEP_STOP"]
mono = time.CLOCK_MONOTONIC
while not os.path.exists(stop):
    start = time.clock_gettime_ns(mono)
    buf = bytearray()
    for _ in range(10):
        try:
            tag, id = 0, g.next_id()
        except idmint.ClockBackwards:
            tag, id = 1, 0
        except idmint.IdmintError:
            tag, id = 2, 0
        buf += rec.pack(start, time.clock_gettime_ns(mono), tag, id)
    out.write(buf)
    # Not time.sleep: libfaketime 0.9.10 fails its absolute clock_nanosleep with EINVAL.
    select.select([], [], [], 0.002)
print("@@STATS", g.stats().rollbacks, flush=True)
"""


@dataclass(frozen=True)
class Rec:
    pre: int
    post: int
    tag: int  # 0 an ID, 1 ClockBackwards, 2 another error
    id: int


@dataclass
class Run:
    recs: list[Rec]
    step_at: int  # monotonic ns right after the step was written
    offset: int  # wall - monotonic ns before the step (the child starts at +0)
    rollbacks: int

    def after(self, ms: int) -> list[Rec]:
        """Calls whose burst started `ms` past the step (plus the coarse clock's slack)."""
        start = self.step_at + (ms + 50) * MS
        return [r for r in self.recs if r.pre >= start]

    def ids(self) -> list[int]:
        return [r.id for r in self.recs if r.tag == 0]

    def at_wall_time(self, r: Rec, shift_ms: int) -> None:
        """`r`'s ID carries the wall time of its call on a clock `shift_ms` off the first."""
        assert r.tag == 0, r
        t = LAYOUT_OBJ.timestamp_ms(r.id)
        lo = (r.pre + self.offset) // MS + shift_ms - COARSE_SLACK_MS
        hi = (r.post + self.offset) // MS + shift_ms + 1
        assert lo <= t <= hi, f"ID time {t} outside [{lo}, {hi}] (shifted {shift_ms} ms): {r}"


LAYOUT_OBJ = idmint.Layout(LAYOUT)


def write_offset(path: Path, text: str) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text + "\n")
    os.replace(tmp, path)


def read_recs(path: Path) -> list[Rec]:
    try:
        b = path.read_bytes()
    except FileNotFoundError:
        return []
    n = len(b) // REC.size
    return [Rec(*REC.unpack_from(b, i * REC.size)) for i in range(n)]


def wait_for(what: str, child: subprocess.Popen[str], cond: Any) -> None:
    deadline = time.monotonic() + 60
    while not cond():
        assert child.poll() is None, f"the child exited ({child.returncode}) waiting for {what}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def run(tmp: Path, policy: str, step: str, settle_ms: int) -> Run:
    tmp.mkdir(parents=True, exist_ok=True)
    ft, out, stop = tmp / "faketime", tmp / "records", tmp / "stop"
    write_offset(ft, "+0")
    a = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    w = time.clock_gettime_ns(time.CLOCK_REALTIME)
    b = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    offset = w - (a + (b - a) // 2)
    env = dict(
        os.environ,
        LD_PRELOAD=LIBFAKETIME,
        FAKETIME_TIMESTAMP_FILE=str(ft),
        FAKETIME_NO_CACHE="1",
        FAKETIME_DONT_FAKE_MONOTONIC="1",
        STEP_LAYOUT=LAYOUT,
        STEP_POLICY=policy,
        STEP_OUT=str(out),
        STEP_STOP=str(stop),
    )
    child = subprocess.Popen([sys.executable, "-c", CHILD], env=env, stdout=subprocess.PIPE, text=True)
    try:
        wait_for("the first IDs", child, lambda: sum(r.tag == 0 for r in read_recs(out)) >= 200)
        write_offset(ft, step)
        step_at = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        until = step_at + (REANCHOR_MS + settle_ms + 50) * MS
        wait_for("calls after the step", child, lambda: sum(r.pre >= until for r in read_recs(out)) >= 50)
        stop.touch()
        said, _ = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, said
    stats = [line.split()[1] for line in said.splitlines() if line.startswith("@@STATS")]
    result = Run(read_recs(out), step_at, offset, int(stats[0]))
    before = [r for r in result.recs if r.post < step_at]
    assert len(before) >= 200
    for r in before:
        result.at_wall_time(r, 0)
    ids = result.ids()
    assert len(set(ids)) == len(ids), "duplicate IDs"
    return result


# name: (policy, step, ms to let pass after the re-anchoring period before judging)
SCENARIOS = {
    "fail": ("fail", "-30s", 200),
    "wait-beyond": ("wait:1000", "-30s", 200),
    "wait-within": ("wait:5000", "-2s", 2500),
    "logical": ("logical:10000", "-2s", 3000),
    "rollback-counter": ("rollback_counter", "-5s", 200),
    "ring": ("ring:8192", "-5s", 200),
    "forward": ("wait:1000", "+10s", 200),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Run]]:
    base = tmp_path_factory.mktemp("clock-steps")
    with ThreadPoolExecutor(len(SCENARIOS)) as pool:
        futures = {name: pool.submit(run, base / name, *s) for name, s in SCENARIOS.items()}
        yield {name: f.result() for name, f in futures.items()}


def increasing(ids: list[int]) -> bool:
    return all(a < b for a, b in zip(ids, ids[1:]))


def test_step_back_under_fail_errors_once_seen(runs: dict[str, Run]) -> None:
    """`fail`, clock set back 30 s: once seen, every call raises ClockBackwards."""
    run = runs["fail"]
    seen = run.after(REANCHOR_MS)
    assert len(seen) >= 50
    assert all(r.tag == 1 for r in seen), [r for r in seen if r.tag != 1][:3]
    assert increasing(run.ids())
    assert run.rollbacks > 0


def test_step_back_beyond_the_wait_bound_errors_once_seen(runs: dict[str, Run]) -> None:
    """`wait:1000`, clock set back 30 s (beyond the bound): once seen, every call raises."""
    run = runs["wait-beyond"]
    seen = run.after(REANCHOR_MS)
    assert len(seen) >= 50
    assert all(r.tag == 1 for r in seen)
    assert increasing(run.ids())


def test_step_back_within_the_wait_bound_is_waited_out(runs: dict[str, Run]) -> None:
    """`wait:5000`, clock set back 2 s: the call that sees it waits; nothing fails, IDs keep
    increasing, and after the catch-up they carry the new wall time."""
    run = runs["wait-within"]
    assert all(r.tag == 0 for r in run.recs)
    assert increasing(run.ids())
    later = run.after(REANCHOR_MS + 2500)
    assert len(later) >= 50
    for r in later:
        run.at_wall_time(r, -2000)
    assert run.rollbacks > 0


def test_step_back_under_logical_keeps_minting_above_the_last_id(runs: dict[str, Run]) -> None:
    """`logical:10000`, clock set back 2 s: minting goes on above the last ID without an error;
    once the clock caught up, IDs carry the new wall time."""
    run = runs["logical"]
    assert all(r.tag == 0 for r in run.recs)
    assert increasing(run.ids())
    later = run.after(REANCHOR_MS + 3000)
    assert len(later) >= 50
    for r in later:
        run.at_wall_time(r, -2000)
    assert run.rollbacks > 0


def test_step_back_under_rollback_counter_bumps_the_counter(runs: dict[str, Run]) -> None:
    """`rollback_counter`, clock set back 5 s: once seen, IDs carry the new time and counter 1."""
    run = runs["rollback-counter"]
    seen = run.after(REANCHOR_MS)
    assert len(seen) >= 50
    for r in seen:
        run.at_wall_time(r, -5000)
        assert LAYOUT_OBJ.decompose(r.id).rollback == 1
    assert all(LAYOUT_OBJ.decompose(r.id).rollback == 0 for r in run.recs if r.post < run.step_at)


def test_step_back_under_ring_continues_the_earlier_ticks(runs: dict[str, Run]) -> None:
    """`ring:8192`, clock set back 5 s: once seen, IDs carry the new time; none repeats."""
    run = runs["ring"]
    seen = run.after(REANCHOR_MS)
    assert len(seen) >= 50
    for r in seen:
        run.at_wall_time(r, -5000)
    assert run.rollbacks > 0


def test_step_forward_shows_in_the_ids_time(runs: dict[str, Run]) -> None:
    """Clock set forward 10 s: once seen, IDs carry the new wall time, still increasing."""
    run = runs["forward"]
    seen = run.after(REANCHOR_MS)
    assert len(seen) >= 50
    for r in seen:
        run.at_wall_time(r, 10_000)
    assert increasing(run.ids())
    assert run.rollbacks == 0
