"""Threads and processes never see the same ID: 4 x 250,000 next_id() from threads, os.fork()
and multiprocessing (fork context) children, and UUID generators across fork."""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
import uuid
from typing import Any

import pytest

import idmint

THREADS = 4
PER_THREAD = 250_000


def _run_threads(target: Any, n: int) -> list[Any]:
    results: list[Any] = [None] * n
    barrier = threading.Barrier(n)

    def run(i: int) -> None:
        barrier.wait()
        results[i] = target()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_threads_next_id_no_duplicates() -> None:
    gen = idmint.Snowflake("twitter", node=9)

    def mint() -> list[int]:
        f = gen.next_id
        return [f() for _ in range(PER_THREAD)]

    per_thread = _run_threads(mint, THREADS)
    for ids in per_thread:
        assert len(ids) == PER_THREAD
        assert all(a < b for a, b in zip(ids, ids[1:])), "each thread's IDs increase"
    everything = [i for ids in per_thread for i in ids]
    assert len(set(everything)) == THREADS * PER_THREAD


def test_threads_mixed_calls_no_duplicates() -> None:
    gen = idmint.Snowflake("twitter", node=10, on_exhausted="borrow:8")

    def mint() -> list[int]:
        out: list[int] = []
        for _ in range(20):
            out.extend(gen.next_ids(5_000))
            out.extend(gen.next_ids_list(1_000))
            out.extend(gen.next_id() for _ in range(500))
            out.extend(gen.reserve(100).to_list())
        return out

    per_thread = _run_threads(mint, THREADS)
    everything = [i for ids in per_thread for i in ids]
    assert len(set(everything)) == len(everything)


def test_threads_uuid7_monotonic_and_unique() -> None:
    def mint() -> list[uuid.UUID]:
        return [idmint.uuid7() for _ in range(20_000)]

    per_thread = _run_threads(mint, THREADS)
    for us in per_thread:
        assert all(a < b for a, b in zip(us, us[1:])), "one shared monotonic v7 generator"
    everything = [u for us in per_thread for u in us]
    assert len(set(everything)) == len(everything)


# ---------------------------------------------------------------------------------------------
# Fork
# ---------------------------------------------------------------------------------------------

N_CHILD = 20_000


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        b = os.read(fd, 1 << 16)
        if not b:
            return b"".join(chunks)
        chunks.append(b)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_os_fork_child_refuses_until_set_node() -> None:
    gen = idmint.Snowflake("twitter", node=1)
    before = gen.next_ids_list(1000)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        status = 1
        try:
            os.close(r)
            refused = []
            for call in (
                gen.next_id,
                gen.try_next_id,
                lambda: gen.next_ids(10),
                lambda: gen.next_ids_list(10),
                lambda: gen.reserve(10),
                lambda: gen.next_id_at(2_000_000_000_000),
                lambda: gen.reserve_at(2_000_000_000_000, 5),
                lambda: gen.next_ids_at(2_000_000_000_000, 5),
            ):
                try:
                    call()
                except idmint.Forked as e:
                    refused.append(e.code == "ERR_FORKED" and "fork" in str(e))
            if refused == [True] * 8:
                gen.set_node(2)  # re-arms the generator in this process
                ids = gen.next_ids(N_CHILD)
                os.write(w, ids.tobytes())
                status = 0
        finally:
            os.close(w)
            os._exit(status)
    os.close(w)
    after = [gen.next_id() for _ in range(N_CHILD)]  # the parent is unaffected
    data = _read_all(r)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    import array

    child = array.array("Q")
    child.frombytes(data)
    assert len(child) == N_CHILD
    assert {gen.decode(i).node for i in child} == {2}
    assert not set(child) & set(after) and not set(child) & set(before)
    assert gen.node == 1


GLOBAL_GEN: idmint.Snowflake | None = None


def _worker(node: int, q: Any) -> None:
    assert GLOBAL_GEN is not None
    try:
        GLOBAL_GEN.next_id()
        q.put(("not refused", []))
        return
    except idmint.Forked:
        pass
    GLOBAL_GEN.set_node(node)
    q.put(("ok", list(GLOBAL_GEN.next_ids(N_CHILD))))


@pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="needs the fork start method")
def test_multiprocessing_fork_context() -> None:
    global GLOBAL_GEN
    GLOBAL_GEN = idmint.Snowflake("twitter", node=1, on_exhausted="borrow:16")
    GLOBAL_GEN.next_id()
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(node, q)) for node in (2, 3, 4)]
    for p in procs:
        p.start()
    parent = list(GLOBAL_GEN.next_ids(N_CHILD))
    results = [q.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    all_ids = list(parent)
    for status, ids in results:
        assert status == "ok"
        assert len(ids) == N_CHILD
        all_ids.extend(ids)
    assert len(set(all_ids)) == len(all_ids) == 4 * N_CHILD


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_uuid_generators_restart_after_fork() -> None:
    parent_v1 = idmint.uuid1()
    owned = idmint.UuidGenerator(1)
    owned_v1 = owned.next()
    parent_v7 = idmint.uuid7()
    parent_v6 = idmint.uuid6()
    idmint.uuid4()  # seeds this thread's random stream
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.close(r)
            out = [idmint.uuid1(), owned.next(), idmint.uuid7(), idmint.uuid4(), idmint.uuid6()]
            os.write(w, b"".join(u.bytes for u in out))
            status = 0
        finally:
            os.close(w)
            os._exit(status)
    os.close(w)
    data = _read_all(r)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    c1, c_owned, c7, c4, c6 = (uuid.UUID(bytes=data[i : i + 16]) for i in (0, 16, 32, 48, 64))
    # A child continuing the parent's random stream would repeat the parent's next uuid4.
    assert c4 != idmint.uuid4()
    # A child continuing the parent's v1 state would reuse its node and clock sequence.
    assert c1.node != parent_v1.node
    assert c_owned.node != owned_v1.node
    assert c7 != parent_v7 and c7.version == 7
    assert c6.node != parent_v6.node and c6.version == 6
    # The parent's generators carry on with their own state.
    assert idmint.uuid1().node == parent_v1.node
    assert idmint.uuid6().node == parent_v6.node
    assert owned.next().node == owned_v1.node


@pytest.mark.parametrize("call", ["next_id", "next_ids", "next_ids_list", "reserve"])
def test_waiting_releases_the_gil(call: str) -> None:
    # 2 IDs per second: once they are used, the next call waits for the next second.
    gen = idmint.Snowflake("time=31@1s,worker=4,seq=1,epoch=2024-01-01", node=1)
    import time

    time.sleep(1.02 - (time.time() % 1.0))  # just after a second starts: a long wait follows
    with pytest.raises(idmint.WouldBlock):
        for _ in range(3):
            gen.try_next_id()
    fn = {
        "next_id": gen.next_id,
        "next_ids": lambda: gen.next_ids(1),
        "next_ids_list": lambda: gen.next_ids_list(1),
        "reserve": lambda: gen.reserve(1),
    }[call]
    t = threading.Thread(target=fn)
    t0 = time.monotonic()
    t.start()  # returns only once this thread gets the GIL back
    last = time.monotonic()
    gaps = [last - t0]
    while t.is_alive():
        now = time.monotonic()
        gaps.append(now - last)
        last = now
    t.join()
    waited = time.monotonic() - t0
    assert waited > 0.5, "the call should have waited for the next second"
    assert max(gaps) < 0.1, f"this thread stalled {max(gaps):.3f} s: the wait held the GIL"
    assert gen.stats().wait_ms > 0
