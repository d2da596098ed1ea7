"""UUIDs are standard-library `uuid.UUID` objects and agree with the standard library."""

from __future__ import annotations

import copy
import pickle
import time
import uuid
from typing import Any

import pytest

import idmint

NAMES = (
    ["", "a", "python.org", "www.example.com", "héllo wörld 😀", "x" * 1000]
    + [f"name-{i}" for i in range(500)]
    + [chr(c) for c in range(0x20, 0x250)]
)
NAMESPACES = [uuid.NAMESPACE_DNS, uuid.NAMESPACE_URL, uuid.NAMESPACE_OID, uuid.NAMESPACE_X500]


@pytest.mark.parametrize("ns", NAMESPACES, ids=str)
def test_uuid3_uuid5_match_stdlib(ns: uuid.UUID) -> None:
    for name in NAMES:
        assert idmint.uuid5(ns, name) == uuid.uuid5(ns, name), name
        assert idmint.uuid3(ns, name) == uuid.uuid3(ns, name), name
        assert idmint.uuid5(str(ns), name.encode()) == uuid.uuid5(ns, name)


def _std_like(u: uuid.UUID) -> None:
    assert type(u) is uuid.UUID
    assert u == uuid.UUID(str(u)) and hash(u) == hash(uuid.UUID(str(u)))
    assert u.is_safe is uuid.SafeUUID.unknown
    assert pickle.loads(pickle.dumps(u)) == u
    assert copy.deepcopy(u) == u
    assert uuid.UUID(bytes=u.bytes) == u and uuid.UUID(int=u.int) == u
    assert u.variant == uuid.RFC_4122
    with pytest.raises(TypeError):
        u.int = 5  # type: ignore[misc]


def test_versions_and_variants() -> None:
    now_ms = time.time() * 1000
    for _ in range(200):
        u4 = idmint.uuid4()
        _std_like(u4)
        assert u4.version == 4
        u7 = idmint.uuid7()
        _std_like(u7)
        assert u7.version == 7
        info = idmint.uuid_info(u7)
        assert info.version == 7 and info.variant == "rfc9562"
        assert info.unix_ms is not None and abs(info.unix_ms - now_ms) < 10_000
        u1 = idmint.uuid1()
        _std_like(u1)
        assert u1.version == 1
        assert u1.node & (1 << 40), "random node has the multicast bit (never a MAC)"
        # stdlib reads the same time: 100 ns since 1582-10-15
        assert abs((u1.time - 0x01B21DD213814000) / 10_000 - now_ms) < 10_000
        for u in (idmint.uuid3(uuid.NAMESPACE_DNS, "x"), idmint.uuid5(uuid.NAMESPACE_DNS, "x")):
            _std_like(u)
    assert idmint.uuid_info(uuid.UUID(int=0)).variant == "ncs"


def test_every_uuid_int_is_exact_at_the_edges_of_each_digit_count() -> None:
    """A UUID's `int` is built in place from 30-bit digits on CPython (int128.rs): each
    edge of a digit count, and random values of every bit length, read back exactly."""
    import random

    rng = random.Random(7)
    edges = {0, 1, (1 << 128) - 1}
    for bits in range(1, 129):
        edges |= {(1 << bits) - 1, 1 << (bits - 1), rng.getrandbits(bits)}
    for v in sorted(edges) + [rng.getrandbits(128) for _ in range(2000)]:
        u = idmint.parse_uuid(f"{v:032x}")
        assert type(u.int) is int and u.int == v, hex(v)
        assert u == uuid.UUID(int=v) and hash(u) == hash(uuid.UUID(int=v))
        assert str(u.int) == str(v) and u.int.bit_length() == v.bit_length()


def test_uuid7_monotonic_and_uuid1_distinct() -> None:
    v7 = [idmint.uuid7() for _ in range(50_000)]
    assert all(a < b for a, b in zip(v7, v7[1:]))
    v1 = [idmint.uuid1() for _ in range(50_000)]
    assert len(set(v1)) == len(v1)
    v4 = [idmint.uuid4() for _ in range(50_000)]
    assert len(set(v4)) == len(v4)


def test_uuid_generator() -> None:
    for version in (1, 4, 7):
        g = idmint.UuidGenerator(version)
        assert g.version == version and g.kind == f"uuid{version}"
        assert g.config == f"type=uuid{version}"
        us = [next(g) for _ in range(1000)] + [g.next() for _ in range(1000)]
        assert {u.version for u in us} == {version}
        assert len(set(us)) == 2000
        assert iter(g) is g
    g7 = idmint.UuidGenerator()
    us = [g7.next() for _ in range(1000)]
    assert us == sorted(us)
    assert g7.next_at(1_700_000_000_000) > us[-1]  # a clock behind keeps the order
    with pytest.raises(idmint.InvalidConfig):
        idmint.UuidGenerator(5)


def test_next_at_random_callback_errors() -> None:
    g = idmint.UuidGenerator(4)
    with pytest.raises(ValueError, match="16"):
        g.next_at(0, lambda n: b"\x00" * (n - 1))
    with pytest.raises(TypeError):
        g.next_at(0, lambda n: "x" * n)  # type: ignore[arg-type,return-value]
    with pytest.raises(ZeroDivisionError):
        g.next_at(0, lambda n: bytes(n // 0))
    with pytest.raises(TypeError):
        g.next_at(0, b"\x00" * 16)  # type: ignore[arg-type]
    assert g.next_at(0, lambda n: b"\xff" * n) == uuid.UUID("ffffffff-ffff-4fff-bfff-ffffffffffff")


def test_next_at_random_callback_may_use_the_generator() -> None:
    # The callback runs outside the generator's lock: calling the same generator from it must
    # neither deadlock nor break the order, and a failed call leaves the state as it was.
    for version in (1, 7):
        g = idmint.UuidGenerator(version)
        inner: list[uuid.UUID] = []

        def random(n: int) -> bytes:
            inner.append(g.next())
            return b"\x01" * n

        u = g.next_at(1_700_000_000_000, random)
        assert len(inner) == 1 and u.version == version
        if version == 7:
            assert u > inner[0]  # a clock behind keeps the order
        else:
            assert u.node == inner[0].node  # one random node per generator, drawn once
    g1 = idmint.UuidGenerator(1)
    with pytest.raises(ZeroDivisionError):
        g1.next_at(0, lambda n: bytes(n // 0))
    calls: list[int] = []

    def once(n: int) -> bytes:
        calls.append(n)
        return b"\x02" * n

    first = g1.next_at(0, once)
    assert g1.next_at(0, once) != first and calls == [8]  # v1 draws 8 bytes on its first call only


def test_named_generator_next_at_callback_may_use_or_close_the_generator() -> None:
    # NamedGenerator.next_at draws the callback's bytes with the generator released: the
    # callback may call it again (the inner call comes first, the outer one follows it) or
    # close it (the outer call then raises "closed"); nothing waits for itself.
    t = 1_700_000_000_000
    for version in (1, 4, 6, 7):
        g = idmint.NamedGenerator(f"type=uuid{version}")
        inner: list[Any] = []

        def random(n: int) -> bytes:
            inner.append(g.next_at(t, lambda k: b"\x03" * k))
            return b"\x05" * n

        outer = g.next_at(t, random)
        assert len(inner) == 1 and outer != inner[0]
        assert isinstance(outer, uuid.UUID) and outer.version == version
        if version != 4:
            assert outer > inner[0]  # the outer call follows the inner one
        assert g.next_at(t).version == version  # None: the OS's bytes
        fresh = idmint.NamedGenerator(f"type=uuid{version}")  # v1 draws on its first call only
        with pytest.raises(ZeroDivisionError):
            fresh.next_at(t, lambda n: bytes(n // 0))

        def closing(n: int) -> bytes:
            fresh.close()
            return bytes(n)

        with pytest.raises(idmint.Closed, match="NamedGenerator is closed"):
            fresh.next_at(t, closing)
        assert fresh.closed
    s = idmint.NamedGenerator("type=snowflake,layout=twitter,node=5")
    first = s.next_at(1_700_000_000_000)
    assert isinstance(first, int) and s.next_at(1_700_000_000_000) == first + 1
    assert s.next_at(1_700_000_000_000, lambda n: 1 // 0) == first + 2  # needs no bytes
    with pytest.raises(TypeError):
        idmint.NamedGenerator("type=uuid7").next_at(0, b"\x00" * 10)  # type: ignore[arg-type]


def test_parse_uuid_forms() -> None:
    u = uuid.UUID("886313e1-3b8a-5372-9b90-0c9aee199e5d")
    for text in (str(u), u.hex, "{" + str(u) + "}", "urn:uuid:" + str(u).upper()):
        assert idmint.parse_uuid(text) == u
    with pytest.raises(idmint.InvalidEncoding) as info:
        idmint.parse_uuid("886313e1-3b8a-5372-9b90-0c9aee199e5x")
    assert (info.value.codec, info.value.at) == ("uuid", 35)
