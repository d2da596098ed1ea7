"""No configuration shares a node silently.

A generator built without a node raises NodeRequired (in threads, spawned and forked processes
alike) instead of minting on node 0 next to every other defaulted process; the error says how
to choose. `LeasedSnowflake("local")` is the one-argument way to get a distinct node on this
host: processes that hold it at once, spawned or forked, get distinct nodes and mint no
duplicate.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
from pathlib import Path
from typing import Any

import pytest

import idmint

TW_NODE_SHIFT = 12


def tw_node(id_: int) -> int:
    return (id_ >> TW_NODE_SHIFT) & 1023


def _without_node() -> list[tuple[str, str, str]]:
    """(how, error class name, message) for every way of building a generator without a node."""
    ways: list[tuple[str, Any]] = [
        ("Snowflake()", lambda: idmint.Snowflake()),
        ("Snowflake(layout)", lambda: idmint.Snowflake("discord")),
        ("Snowflake(node=None)", lambda: idmint.Snowflake(node=None)),
        ("AtomicSnowflake()", lambda: idmint.AtomicSnowflake()),
        ("Snowflake.from_config", lambda: idmint.Snowflake.from_config("type=snowflake,layout=twitter")),
        ("AtomicSnowflake.from_config", lambda: idmint.AtomicSnowflake.from_config('{"type":"snowflake","layout":"leaf"}')),
        ("from_config", lambda: idmint.from_config("type=snowflake,layout=sonyflake")),
    ]
    out = []
    for how, build in ways:
        try:
            build()
        except Exception as e:  # noqa: BLE001 - reported to the parent as data
            out.append((how, type(e).__name__, str(e)))
        else:
            out.append((how, "built", ""))
    return out


def _check_refusals(got: list[tuple[str, str, str]]) -> None:
    assert len(got) == 7
    for how, cls, message in got:
        assert cls == "NodeRequired", (how, cls, message)
        for hint in ("explicit node", "Snowflake(node=N)", "LeasedSnowflake('local')", "LeasedSnowflake('random')", "k*k/(2N)"):
            assert hint in message, (how, hint, message)


def test_a_generator_without_a_node_raises_node_required() -> None:
    """Every constructor and named config without a node refuses with the typed error, which
    is a ValueError carrying the stable code; an explicit node 0 still works."""
    _check_refusals(_without_node())
    with pytest.raises(idmint.NodeRequired) as info:
        idmint.Snowflake()
    assert isinstance(info.value, ValueError) and info.value.code == "ERR_NODE_REQUIRED"
    assert idmint.Snowflake(node=0).decode(idmint.Snowflake(node=0).next_id()).node == 0
    assert idmint.AtomicSnowflake(node=0).next_id_at(1_700_000_000_000) > 0
    assert idmint.Snowflake.from_config("type=snowflake,layout=twitter,node=0").node == 0


def test_config_mistakes_are_reported_before_the_missing_node() -> None:
    """A bad layout or policy is named first: fixing the node would not be enough."""
    with pytest.raises(idmint.InvalidLayout):
        idmint.Snowflake("nope")
    with pytest.raises(idmint.InvalidConfig):
        idmint.Snowflake(on_backwards="sideways")
    with pytest.raises(idmint.LayoutExpired):
        idmint.Snowflake("baidu")


def test_threads_without_a_node_all_raise_node_required() -> None:
    """Eight threads building at once each get NodeRequired; none gets a node-0 generator."""
    results: list[Any] = [None] * 8
    barrier = threading.Barrier(8)

    def run(i: int) -> None:
        barrier.wait(timeout=60)
        results[i] = _without_node()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    for got in results:
        _check_refusals(got)


def _refusals_in_child(_: int) -> list[tuple[str, str, str]]:
    return _without_node()


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_processes_without_a_node_all_raise_node_required(method: str) -> None:
    """Spawned and forked processes (the multiprocessing start methods) refuse the same way:
    the default is not a per-process accident."""
    if method not in mp.get_all_start_methods():
        pytest.fail(f"start method {method} is not available here")
    # A generator made in the parent before forking does not lend the children a node either.
    parent = idmint.Snowflake(node=1)
    parent.next_id()
    with mp.get_context(method).Pool(3) as pool:
        got = pool.map(_refusals_in_child, range(3))
    for g in got:
        _check_refusals(g)


def test_os_fork_child_without_a_node_raises_node_required() -> None:
    """A bare os.fork() child (no multiprocessing machinery) refuses too."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, never return into pytest
        code = 1
        try:
            got = _without_node()
            os.write(w, repr(got).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r) as f:
        reply = f.read()
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, reply
    import ast

    _check_refusals(ast.literal_eval(reply))


# ---------------------------------------------------------------------------------------------
# LeasedSnowflake("local"): the per-user lock directory
# ---------------------------------------------------------------------------------------------

PER_PROCESS = 20_000


def _local_lease_in_child(barrier: Any, q: Any) -> None:
    try:
        with idmint.LeasedSnowflake("local") as g:
            # Everyone holds a lease at once before anyone mints or lets go.
            barrier.wait(timeout=60)
            ids = g.next_ids_list(PER_PROCESS)
            node = g.node
            barrier.wait(timeout=60)
        q.put((node, ids))
    except BaseException as e:  # noqa: BLE001 - reported to the parent
        q.put((-1, repr(e)))
        raise


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_local_leases_in_processes_get_distinct_nodes_and_no_duplicates(
    method: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four processes (spawned, or forked from a parent that holds a local lease itself) each
    lease from the local lock directory while all hold their lease at once: five distinct
    nodes, and 100,000 IDs without a duplicate."""
    monkeypatch.setenv("IDMINT_LEASE_DIR", str(tmp_path / "leases"))
    ctx = mp.get_context(method)
    n = 4
    barrier = ctx.Barrier(n + 1)
    q = ctx.Queue()
    with idmint.LeasedSnowflake("local") as mine:
        mine.next_id()
        procs = [ctx.Process(target=_local_lease_in_child, args=(barrier, q)) for _ in range(n)]
        for p in procs:
            p.start()
        barrier.wait(timeout=60)
        own = mine.next_ids_list(PER_PROCESS)
        barrier.wait(timeout=60)
        got = [q.get(timeout=120) for _ in procs]
        for p in procs:
            p.join(timeout=120)
            assert p.exitcode == 0, got
        nodes = [node for node, _ in got] + [mine.node]
    assert all(node >= 0 for node in nodes), got
    assert len(set(nodes)) == n + 1, nodes
    every = own + [i for _, ids in got for i in ids]
    assert len(every) == (n + 1) * PER_PROCESS
    assert len(set(every)) == len(every), "duplicate IDs across processes"
    assert all(tw_node(i) == node for node, ids in got for i in ids)
    # The leases live in the directory the environment named.
    assert any((tmp_path / "leases").iterdir())


def test_local_source_falls_back_to_home_state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without IDMINT_LEASE_DIR and XDG_STATE_HOME, "local" leases under
    $HOME/.local/state/idmint/leases, and two generators there get distinct nodes."""
    monkeypatch.delenv("IDMINT_LEASE_DIR", raising=False)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    with idmint.LeasedSnowflake("local") as a, idmint.LeasedSnowflake("local") as b:
        assert a.node != b.node
        assert a.lease is not None and a.lease.store == "file"
        ids = a.next_ids_list(1000) + b.next_ids_list(1000)
        assert len(set(ids)) == 2000
    assert any((tmp_path / ".local" / "state" / "idmint" / "leases").iterdir())
