"""LeasedSnowflake and SegmentAllocator (the idmint-coord crate) through the binding.

Always against a file lease directory and an SQLite store; also against Redis and PostgreSQL
when IDMINT_TEST_REDIS_URL / IDMINT_TEST_POSTGRES_URL name running servers (test.sh starts
private ones). With IDMINT_TEST_REQUIRE_SERVERS=1 (test.sh sets it) a missing URL is an error,
so the server-backed tests can never silently drop out.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import pickle
import re
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

import idmint

REDIS = os.environ.get("IDMINT_TEST_REDIS_URL")
POSTGRES = os.environ.get("IDMINT_TEST_POSTGRES_URL")
# An idmint service (`idmint serve`) as a segment store: idmint+http://HOST:PORT/
SERVICE = os.environ.get("IDMINT_TEST_SERVICE_URL")
if os.environ.get("IDMINT_TEST_REQUIRE_SERVERS") == "1" and not (REDIS and POSTGRES and SERVICE):
    raise RuntimeError(
        "IDMINT_TEST_REQUIRE_SERVERS=1 but IDMINT_TEST_REDIS_URL / IDMINT_TEST_POSTGRES_URL / "
        "IDMINT_TEST_SERVICE_URL are not all set"
    )

# Nothing listens on port 1 of the loopback: connecting fails at once.
DEAD_REDIS = "redis://127.0.0.1:1/"
DEAD_POSTGRES = "postgres://idmint@127.0.0.1:1/postgres"

TW_EPOCH_MS = 1288834974657


def tw_ms(id_: int) -> int:
    return (id_ >> 22) + TW_EPOCH_MS


def tw_node(id_: int) -> int:
    return (id_ >> 12) & 1023


def unique(prefix: str) -> str:
    """A namespace / key no other test (or earlier run on a shared server) uses."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


# ----------------------------------------------------------------------------------------------
# Lease stores: a file directory always, Redis and PostgreSQL when given
# ----------------------------------------------------------------------------------------------


def lease_sources() -> list[Any]:
    out: list[Any] = [pytest.param("file", id="file")]
    if REDIS:
        out.append(pytest.param("redis", id="redis"))
    if POSTGRES:
        out.append(pytest.param("postgres", id="postgres"))
    return out


@pytest.fixture
def lease_source(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    kind = request.param
    if kind == "file":
        return f"file:{tmp_path / 'leases'}"
    return {"redis": REDIS, "postgres": POSTGRES, "service": SERVICE}[kind]  # type: ignore[return-value]


@pytest.mark.parametrize("lease_source", lease_sources(), indirect=True)
def test_leases_give_distinct_nodes_and_fence_the_next_holder(lease_source: str) -> None:
    ns = unique("py")
    opts: dict[str, Any] = {"namespace": ns, "nodes": 2, "ttl_ms": 3000, "holder": "pytest"}
    a = idmint.LeasedSnowflake(lease_source, **opts)
    b = idmint.LeasedSnowflake(lease_source, **opts)
    try:
        assert {a.node, b.node} == {0, 1}
        ids = a.next_ids_list(1000) + [a.next_id()]
        assert ids == sorted(set(ids))
        assert all(tw_node(i) == a.node for i in ids)
        assert tw_node(b.next_id()) == b.node
        info = a.lease
        assert info is not None
        assert (info.store, info.namespace, info.node, info.holder) == (
            lease_source.split(":")[0].replace("postgresql", "postgres"),
            ns,
            a.node,
            "pytest",
        )
        assert info.ttl_ms == 3000 and info.token >= 1
        assert info.bound_ms >= tw_ms(ids[-1])
        assert info.expires_in_ms is not None and 0 < info.expires_in_ms <= 3000
        assert a.high_water_ms is not None and a.high_water_ms >= tw_ms(ids[-1])
        assert a.stats().renewals >= 1
        assert "LeaseInfo(" in repr(info) and "leased from" in repr(a)

        # Both nodes are held: a third holder gets a typed error.
        with pytest.raises(idmint.NoFreeNode) as e:
            idmint.LeasedSnowflake(lease_source, **opts)
        assert e.value.code == "ERR_NO_FREE_NODE" and e.value.nodes == 2
        assert str(e.value) == "no free node: all 2 nodes are leased"

        # Released: the node keeps the bound its last renewal recorded (never lowered), so the next
        # holder starts after every ID issued, waiting out that bound if it is still ahead.
        node, last = a.node, ids[-1]
        a.close()
        with idmint.LeasedSnowflake(lease_source, **opts) as c:
            assert c.node == node
            assert c.lease is not None and c.lease.fence_ms is not None
            assert c.lease.fence_ms >= tw_ms(last)
            assert c.fence_ms == c.lease.fence_ms
            assert c.next_id() > last
        assert c.closed
    finally:
        a.close()
        b.close()


def test_fixed_node_sources() -> None:
    with idmint.LeasedSnowflake("static:7", "sonyflake") as g:
        assert g.node == 7 and g.lease is None
        assert g.decode(g.next_id()).node == 7
        assert g.layout.preset_name == "sonyflake"
        assert "fixed" in repr(g)
    os.environ["IDMINT_PY_TEST_NODE"] = "12"
    try:
        with idmint.LeasedSnowflake("env:IDMINT_PY_TEST_NODE") as g:
            assert g.node == 12
    finally:
        del os.environ["IDMINT_PY_TEST_NODE"]
    with pytest.raises(idmint.OutOfRange):
        idmint.LeasedSnowflake("static:1024")  # twitter has 1024 nodes
    with pytest.raises(idmint.InvalidConfig) as e:
        idmint.LeasedSnowflake("memcached://127.0.0.1/")
    assert e.value.reason.startswith("node source must be")


def test_bad_lease_options(tmp_path: Path) -> None:
    src = f"file:{tmp_path}"
    for kwargs in (
        {"namespace": "two words"},
        {"ttl_ms": 1},
        {"nodes": 0},
        {"nodes": 1025},
        {"swap_after_ms": 0},
        {"renew_every_ms": 20_000},
    ):
        with pytest.raises(idmint.InvalidConfig):
            idmint.LeasedSnowflake(src, **kwargs)
    with pytest.raises(idmint.InvalidLayout):
        idmint.LeasedSnowflake(src, "nope")
    with pytest.raises(idmint.InvalidConfig):
        idmint.LeasedSnowflake(src, on_backwards="sometimes")
    with pytest.raises(OverflowError):
        idmint.LeasedSnowflake(src, ttl_ms=-1)
    with pytest.raises(TypeError):
        idmint.LeasedSnowflake(7)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        idmint.LeasedSnowflake(src, ttl=5)  # type: ignore[call-arg]
    # A lease directory that cannot be created (below a regular file).
    (tmp_path / "plain").write_text("x")
    with pytest.raises(idmint.StoreUnavailable) as e:
        idmint.LeasedSnowflake(f"file:{tmp_path / 'plain' / 'leases'}")
    assert (e.value.store, e.value.op, e.value.reason) == ("file", "open", "not a directory")


@pytest.mark.parametrize("url", [DEAD_REDIS, DEAD_POSTGRES], ids=["redis", "postgres"])
def test_unreachable_lease_store_is_a_connection_error(url: str) -> None:
    with pytest.raises(idmint.StoreUnavailable) as e:
        idmint.LeasedSnowflake(url, namespace=unique("dead"))
    assert isinstance(e.value, ConnectionError)
    assert e.value.code == "ERR_STORE_UNAVAILABLE"
    assert e.value.store == url.split(":")[0] and e.value.op in ("connect", "acquire")
    assert e.value.reason == "connection refused"
    assert str(e.value) == f"{e.value.store} store unavailable during {e.value.op}: connection refused"
    e2 = pickle.loads(pickle.dumps(e.value))
    assert type(e2) is idmint.StoreUnavailable and e2.__dict__ == e.value.__dict__


def test_closed_generator(tmp_path: Path) -> None:
    g = idmint.LeasedSnowflake(f"file:{tmp_path}")
    g.next_id()
    assert not g.closed
    g.close()
    g.close()  # idempotent
    assert g.closed and "closed" in repr(g)
    for call in (g.next_id, g.try_next_id, g.stats, lambda: g.next_ids(3), lambda: g.node):
        with pytest.raises(idmint.Closed, match="LeasedSnowflake is closed") as e:
            call()
        # The core's kind on every surface; a ValueError as for a closed file.
        assert isinstance(e.value, ValueError) and e.value.code == "ERR_CLOSED"
        assert e.value.what == "LeasedSnowflake"
    # The node was released: a new holder gets it at once.
    with idmint.LeasedSnowflake(f"file:{tmp_path}", nodes=1) as h:
        assert h.node == 0


def test_lease_lost_when_renewals_fail_then_recovered(tmp_path: Path) -> None:
    # Renewals write the node's record in DIR/NAMESPACE; replacing that directory by a file
    # makes them fail (even for root), so minting stops before the lease could expire.
    src = f"file:{tmp_path}"
    g = idmint.LeasedSnowflake(src, namespace="lost", ttl_ms=400, holder="pytest")
    try:
        g.next_id()
        ns = tmp_path / "lost"
        ns.rename(tmp_path / "lost.away")
        ns.write_text("in the way")
        deadline = time.monotonic() + 5
        with pytest.raises(idmint.LeaseLost) as e:
            while time.monotonic() < deadline:
                g.next_id()
                time.sleep(0.01)
        assert e.value.code == "ERR_LEASE_LOST" and e.value.node == g.node
        assert e.value.reason in (
            "renewal failed before the deadline",
            "the recorded bound could not be advanced",
        )
        assert g.stats().renew_failures >= 1
        # The store is back: the background renewal extends the lease and minting resumes.
        ns.unlink()
        (tmp_path / "lost.away").rename(ns)
        deadline = time.monotonic() + 5
        while True:
            try:
                g.next_id()
                break
            except idmint.LeaseLost:
                assert time.monotonic() < deadline, "minting did not resume"
                time.sleep(0.02)
    finally:
        g.close()


def test_threads_share_one_leased_generator(tmp_path: Path) -> None:
    g = idmint.LeasedSnowflake(f"file:{tmp_path}")
    out: list[list[int]] = [[] for _ in range(8)]

    def work(i: int) -> None:
        ids = out[i]
        for _ in range(5000):
            ids.append(g.next_id())
        ids.extend(g.next_ids(5000))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    g.close()
    every = [i for ids in out for i in ids]
    assert len(every) == 80_000 and len(set(every)) == 80_000
    assert all(ids[:5000] == sorted(ids[:5000]) for ids in out)


def _lease_in_child(args: tuple[str, str]) -> tuple[int, list[int]]:
    src, ns = args
    with idmint.LeasedSnowflake(src, namespace=ns, nodes=8) as g:
        return g.node, g.next_ids_list(2000)


def test_processes_get_distinct_nodes(tmp_path: Path) -> None:
    src, ns = f"file:{tmp_path}", unique("procs")
    # Everyone holds a lease at once: the parent keeps one while four children take theirs.
    with idmint.LeasedSnowflake(src, namespace=ns, nodes=8) as mine:
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(4) as pool:
            got = pool.map(_lease_in_child, [(src, ns)] * 4)
        nodes = [n for n, _ in got]
        assert mine.node not in nodes
    ids = [i for _, chunk in got for i in chunk]
    assert len(set(ids)) == len(ids) == 8000
    assert all(tw_node(i) == n for n, chunk in got for i in chunk)


def test_fork_child_gets_forked_error_and_leases_its_own_node(tmp_path: Path) -> None:
    src = f"file:{tmp_path}"
    g = idmint.LeasedSnowflake(src, nodes=4)
    last = g.next_id()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, never return into pytest
        code = 1
        try:
            try:
                g.next_id()
                msg = "minted"
            except idmint.Forked as e:
                msg = e.code
            with idmint.LeasedSnowflake(src, nodes=4) as own:
                msg += f" {own.node} {own.next_id()}"
            os.write(w, msg.encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r) as f:
        reply = f.read()
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, reply
    code, node, id_ = reply.split()
    assert code == "ERR_FORKED"
    assert int(node) != g.node and tw_node(int(id_)) == int(node)
    # The parent carries on on its own node.
    assert g.next_id() > last and g.node == tw_node(last)
    g.close()


# ----------------------------------------------------------------------------------------------
# Segment stores: SQLite always, Redis and PostgreSQL when given
# ----------------------------------------------------------------------------------------------


def segment_stores() -> list[Any]:
    out: list[Any] = [pytest.param("sqlite", id="sqlite")]
    if REDIS:
        out.append(pytest.param("redis", id="redis"))
    if POSTGRES:
        out.append(pytest.param("postgres", id="postgres"))
    if SERVICE:
        out.append(pytest.param("service", id="service"))
    return out


@pytest.fixture
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    kind = request.param
    if kind == "sqlite":
        return f"sqlite:{tmp_path / 'segments.db'}"
    return {"redis": REDIS, "postgres": POSTGRES, "service": SERVICE}[kind]  # type: ignore[return-value]


@pytest.mark.parametrize("store_url", segment_stores(), indirect=True)
def test_segments_are_increasing_per_key_and_never_repeat(store_url: str) -> None:
    key, other = unique("orders"), unique("users")
    with idmint.SegmentAllocator(store_url, step=100) as alloc:
        assert alloc.store == store_url.split(":")[0].replace("postgresql", "postgres")
        first = alloc.next_id(key)
        batch = alloc.next_ids(key, 1000)
        assert len(batch) == 1000 and batch[0] > first
        assert list(batch) == sorted(set(batch))
        assert alloc.next_id(key) > batch[-1]
        assert alloc.next_id(other) >= 1  # keys are independent
        assert alloc.keys() == sorted([key, other])
        st = alloc.stats(key)
        assert st is not None and st.step >= 100 and st.last_error is None
        assert "SegmentKeyStats(" in repr(st)
        assert alloc.stats(unique("never")) is None
        assert len(alloc.next_ids(key, 0)) == 0


@pytest.mark.parametrize("store_url", segment_stores(), indirect=True)
def test_allocators_on_one_store_never_overlap(store_url: str) -> None:
    key = unique("shared")
    allocs = [idmint.SegmentAllocator(store_url, step=50) for _ in range(4)]
    out: list[list[int]] = [[] for _ in allocs]

    def work(i: int) -> None:
        for _ in range(20):
            out[i].extend(allocs[i].next_ids(key, 37))
            out[i].append(allocs[i].next_id(key))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(allocs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a in allocs:
        a.close()
    every = [i for ids in out for i in ids]
    assert len(every) == 4 * 20 * 38 and len(set(every)) == len(every)


def _segments_in_child(args: tuple[str, str]) -> list[int]:
    url, key = args
    with idmint.SegmentAllocator(url, step=100) as alloc:
        return list(alloc.next_ids(key, 3000))


def test_processes_on_one_sqlite_file_never_overlap(tmp_path: Path) -> None:
    url, key = f"sqlite:{tmp_path / 'shared.db'}", "orders"
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        got = pool.map(_segments_in_child, [(url, key)] * 4)
    every = [i for chunk in got for i in chunk]
    assert len(every) == 12_000 and len(set(every)) == 12_000


def test_journal_resumes_the_remainder(tmp_path: Path) -> None:
    url, journal = f"sqlite:{tmp_path / 'j.db'}", tmp_path / "segments.journal"
    with idmint.SegmentAllocator(url, step=1000, max_step=1000, journal=journal) as a:
        ids = [a.next_id("k") for _ in range(10)]
    with idmint.SegmentAllocator(url, step=1000, max_step=1000, journal=str(journal)) as b:
        assert b.next_id("k") == ids[-1] + 1  # not the next range: the remainder came back
        with pytest.raises(idmint.InvalidConfig):
            b.checkpoint()  # a journal alone is written at close only (README: checkpoint())
    # Without the journal the unserved rest of a range is skipped, never reissued.
    with idmint.SegmentAllocator(url, step=1000, max_step=1000) as c:
        assert c.next_id("k") > ids[-1] + 1
    with idmint.SegmentAllocator(
        url, step=1000, max_step=1000, journal=journal, checkpoint_every_ms=60_000
    ) as d:
        assert d.next_id("k") > ids[-1]
        d.checkpoint()
    with idmint.SegmentAllocator(url) as e, pytest.raises(idmint.InvalidConfig):
        e.checkpoint()  # checkpoints are not configured


def test_gaps_and_obfuscation_keep_ids_unique(tmp_path: Path) -> None:
    url = f"sqlite:{tmp_path / 'o.db'}"
    ob = idmint.Obfuscator(0x0123456789ABCDEF0123456789ABCDEF, 40)
    with idmint.SegmentAllocator(url, step=1000, max_gap=7, gap_seed=3, obfuscator=ob) as a:
        ids = list(a.next_ids("k", 5000))
    assert len(set(ids)) == 5000
    plain = sorted(ob.decode(i) for i in ids)
    assert plain == sorted(set(plain)) and plain != list(range(1, 5001))


def test_bad_segment_configs(tmp_path: Path) -> None:
    url = f"sqlite:{tmp_path / 'bad.db'}"
    for kwargs in (
        {"step": 0},
        {"step": 100, "max_step": 10},
        {"refill_at_percent": 101},
        {"checkpoint_every_ms": 1000},  # no journal
        {"max_gap": 5000, "step": 1000},  # a gap must stay below the step
    ):
        with pytest.raises(idmint.InvalidConfig):
            idmint.SegmentAllocator(url, **kwargs)
    with pytest.raises(idmint.InvalidConfig):
        idmint.SegmentAllocator("memcached://127.0.0.1/")
    with pytest.raises(OverflowError):
        idmint.SegmentAllocator(url, refill_at_percent=256)
    with pytest.raises(TypeError):
        idmint.SegmentAllocator(url, 1000)  # type: ignore[misc]
    with pytest.raises(TypeError):
        idmint.SegmentAllocator(url, obfuscator="key")  # type: ignore[arg-type]


def test_unreachable_segment_store_fails_after_the_wait(tmp_path: Path) -> None:
    for url in (DEAD_REDIS, DEAD_POSTGRES):
        with idmint.SegmentAllocator(url, wait_timeout_ms=300) as a:
            t0 = time.monotonic()
            with pytest.raises(idmint.StoreUnavailable) as e:
                a.next_id("k")
            assert time.monotonic() - t0 < 5
            assert isinstance(e.value, ConnectionError)
            assert e.value.store == url.split(":")[0] and e.value.op == "take"
            st = a.stats("k")
            assert st is not None and isinstance(st.last_error, idmint.StoreUnavailable)


def test_closed_allocator(tmp_path: Path) -> None:
    a = idmint.SegmentAllocator(f"sqlite:{tmp_path / 'c.db'}")
    a.next_id("k")
    a.close()
    a.close()
    assert a.closed and "closed" in repr(a)
    for call in (lambda: a.next_id("k"), lambda: a.next_ids("k", 2), a.keys):
        with pytest.raises(idmint.Closed, match="SegmentAllocator is closed"):
            call()



# ----------------------------------------------------------------------------------------------
# Generators by name with store-backed types (idmint_coord::named)
# ----------------------------------------------------------------------------------------------


def test_named_store_types_build_by_name(tmp_path: Path) -> None:
    seg = idmint.from_config(f"type=segment,store=sqlite:{tmp_path / 'named.db'},key=orders")
    assert isinstance(seg, idmint.NamedGenerator) and seg.kind == "segment"
    assert seg.config == f"type=segment,store=sqlite:{tmp_path / 'named.db'},key=orders"
    leased = f"type=snowflake,layout=twitter,lease=file:{tmp_path / 'leases'},namespace=named"
    with idmint.NamedGenerator(leased) as a, idmint.NamedGenerator(leased) as b:
        assert a.kind == "snowflake" and "node=" not in a.config
        ids = [a.next_id() for _ in range(100)] + list(b.next_ids(100)) + [next(b)]
        assert all(isinstance(i, int) for i in ids) and len(set(ids)) == len(ids)
        assert tw_node(ids[0]) != tw_node(ids[-1])
    assert a.closed
    with pytest.raises(ValueError, match="closed"):
        a.next_id()
    first = seg.next_id()
    assert first == 1 and list(seg.next_ids(3)) == [2, 3, 4]
    with pytest.raises(idmint.InvalidConfig, match="sans-IO"):
        seg.next_at(1_700_000_000_000)  # a store-backed type has no sans-IO call
    seg.close()
    # The core's types through NamedGenerator: the clock, and UUIDs as uuid.UUID.
    u = idmint.NamedGenerator("type=uuid7")
    assert isinstance(u.next_id(), uuid.UUID) and u.config == "type=uuid7"
    with pytest.raises(idmint.InvalidConfig):
        u.next_ids(2)
    assert isinstance(idmint.from_config("type=uuid7"), idmint.UuidGenerator)
    # Errors point into the text, with the core's exception classes.
    with pytest.raises(idmint.InvalidLayout) as e:
        idmint.NamedGenerator("type=segment,key=orders")
    assert e.value.at == len("type=segment,key=orders")
    with pytest.raises(idmint.InvalidLayout) as e:
        idmint.from_config(f"type=snowflake,layout=twitter,lease=file:{tmp_path},node=1")
    assert e.value.at is not None and e.value.at > 30
    with pytest.raises(idmint.InvalidConfig):
        idmint.from_config("type=segment,store=nope:x,key=a")
    with pytest.raises(idmint.StoreUnavailable):
        idmint.from_config(f"type=snowflake,layout=twitter,lease={DEAD_REDIS}")


def test_naive_generators_build_by_name(tmp_path: Path) -> None:
    # A counter store's value per ID (Redis INCR, a database sequence): no range held, nothing skipped.
    counter = f"type=counter,store=sqlite:{tmp_path / 'c.db'},key=orders"
    with idmint.NamedGenerator(counter) as a, idmint.NamedGenerator(counter) as b:
        assert a.kind == "counter"
        assert [a.next_id(), b.next_id()] == [1, 2] and list(a.next_ids(3)) == [3, 4, 5]
    # Auto-increment with offset and step over three instances: together every value once.
    stores = "|".join(f"sqlite:{tmp_path / n}" for n in ("a.db", "b.db", "c3.db"))
    with idmint.NamedGenerator(f"type=autoinc,stores=({stores}),key=k") as g:
        assert g.kind == "autoinc" and sorted(g.next_ids(9)) == list(range(1, 10))
    with pytest.raises(idmint.InvalidLayout, match="needs stores="):
        idmint.NamedGenerator("type=autoinc,key=k")


@pytest.mark.skipif(not REDIS, reason="IDMINT_TEST_REDIS_URL is not set")
def test_redis_compose_builds_by_name() -> None:
    spec = "time=41@1ms,shard=12,seq=10,epoch=2020-01-01"
    cfg = f"type=redis_compose,store={REDIS},layout=({spec}),shard=5,namespace={unique('py-compose')}"
    with idmint.NamedGenerator(cfg) as a, idmint.NamedGenerator(cfg) as b:
        ids = list(a.next_ids(300)) + list(b.next_ids(300)) + [a.next_id()]
    assert len(set(ids)) == len(ids)
    assert {idmint.Layout(spec).decompose(i).node for i in ids} == {5}


CLOSE_WHILE_BUSY = """
import json, sys, threading, time, idmint
cls, config = sys.argv[1], sys.argv[2]
g = idmint.NamedGenerator(config) if cls == "named" else idmint.LeasedSnowflake(**json.loads(config))
res = {}
def slow():
    res["slow"] = len(g.next_ids(4000))  # 2 IDs per ms: about 2 s, without the GIL
def close():
    g.close()
def late():
    try:
        g.next_id()
        res["late"] = "minted"
    except ValueError as e:
        res["late"] = str(e)
threads = [threading.Thread(target=f) for f in (slow, close, late)]
for t in threads:
    t.start()
    time.sleep(0.3)
for t in threads:
    t.join()
print(res["slow"], res["late"])
"""


@pytest.mark.parametrize("cls", ["named", "leased"])
def test_close_while_a_call_waits_then_another_call_does_not_hang(tmp_path: Path, cls: str) -> None:
    # A call in progress (waiting without the GIL), a close() waiting for it, then a third
    # call: the third must not wait for the handle's lock while holding the GIL, which the
    # first needs to return. Run in a child process, so a hang fails the test by its timeout.
    layout = "time=41@1ms,worker=10,seq=1,epoch=2020-01-01"
    if cls == "named":
        config = f"type=snowflake,layout=({layout}),on_exhausted=wait,lease=file:{tmp_path}"
    else:
        config = json.dumps({"source": f"file:{tmp_path}", "layout": layout, "on_exhausted": "wait"})
    out = subprocess.run(
        [sys.executable, "-c", CLOSE_WHILE_BUSY, cls, config],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    kind = "NamedGenerator" if cls == "named" else "LeasedSnowflake"
    assert out.stdout == f"4000 {kind} is closed\n"


class PausableProxy:
    """A TCP proxy to a store that can be paused: while paused it passes no bytes either way,
    as a stopped (SIGSTOP) server would."""

    def __init__(self, url: str) -> None:
        rest = url.split("://", 1)[1].split("/", 1)[0]
        host, port = rest.rsplit(":", 1)
        self.target = (host, int(port))
        self.paused = threading.Event()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.sockets: list[socket.socket] = []
        self.url = f"redis://127.0.0.1:{self.server.getsockname()[1]}/"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return  # closed
            upstream = socket.create_connection(self.target)
            self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def close(self) -> None:
        self.paused.clear()
        self.server.close()
        for s in self.sockets:
            s.close()

    def _pipe(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                while self.paused.is_set():
                    time.sleep(0.005)
                b.sendall(data)
        except OSError:
            pass


@pytest.mark.skipif(not REDIS, reason="IDMINT_TEST_REDIS_URL is not set")
@pytest.mark.parametrize("cls", ["LeasedSnowflake", "NamedGenerator"])
def test_dropping_an_open_generator_while_its_store_is_paused_stalls_no_other_thread(
    cls: str,
) -> None:
    # Dropped open (never closed), a leased generator releases its node, which waits for the
    # paused store up to its timeout. That wait runs without the GIL: another thread keeps
    # running meanwhile (before, the whole interpreter stood still for the timeout).
    proxy = PausableProxy(str(REDIS))
    ns = unique("py-drop")
    g: Any
    if cls == "LeasedSnowflake":
        g = idmint.LeasedSnowflake(proxy.url, namespace=ns, ttl_ms=600)
    else:
        g = idmint.NamedGenerator(f"type=snowflake,layout=twitter,lease={proxy.url},namespace={ns},ttl_ms=600")
    assert g.next_id() > 0
    ticks: list[float] = []
    stop = threading.Event()

    def ticker() -> None:
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    time.sleep(0.05)
    proxy.paused.set()
    start = time.monotonic()
    del g
    gc.collect()
    end = time.monotonic()
    stop.set()
    t.join()
    proxy.close()
    assert end - start >= 0.5, "the release did not wait for the paused store"
    during = [x for x in ticks if start <= x <= end]
    assert len(during) >= 10, f"{len(during)} ticks of another thread in {end - start:.2f} s"


@pytest.mark.skipif(not REDIS, reason="IDMINT_TEST_REDIS_URL is not set")
def test_a_generator_left_open_at_exit_is_still_released() -> None:
    # The release of an object collected while the interpreter exits runs detached too; it
    # must still finish: with one node, the next holder gets it at once (else NoFreeNode for
    # the TTL, a minute). Holding the lease is enough: minting first would wait out a new
    # namespace's lock delay.
    ns = unique("py-exit")
    script = (
        "import sys, idmint\n"
        "kept = idmint.LeasedSnowflake(sys.argv[1], namespace=sys.argv[2], nodes=1, ttl_ms=60000)\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(REDIS), ns], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    with idmint.LeasedSnowflake(str(REDIS), namespace=ns, nodes=1, ttl_ms=60000) as g:
        assert g.node == 0


@pytest.mark.skipif(not REDIS, reason="IDMINT_TEST_REDIS_URL is not set")
def test_named_store_types_on_redis() -> None:
    seg = idmint.NamedGenerator(f"type=segment,store={REDIS},key={unique('py-named')},step=50")
    ids = list(seg.next_ids(120))
    assert ids == sorted(set(ids))
    seg.close()
    cfg = (
        '{"type":"snowflake","layout":"twitter","lease":"%s","namespace":"%s","ttl_ms":600}'
        % (REDIS, unique("py-named"))
    )
    with idmint.NamedGenerator(cfg) as g:
        a, b = g.next_id(), g.next_id()
        assert isinstance(a, int) and isinstance(b, int) and b > a


def test_readme_names_the_lease_stats_fields() -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    listed = re.search(r"\(`LeaseStats`: ([^)]*)\)", readme)
    assert listed is not None
    names = {n.strip(" `") for n in listed.group(1).split(",")}
    # pyo3 getters are getset descriptors on the class.
    fields = {n for n, v in vars(idmint.LeaseStats).items() if type(v).__name__ == "getset_descriptor"}
    assert names == fields
