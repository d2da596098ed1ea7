"""The Python API beyond the vectors: layouts, generators, codecs, obfuscation, errors."""

from __future__ import annotations

import array
import datetime as dt
import pickle
import time

import pytest

import idmint


def test_presets_and_layout_basics() -> None:
    assert idmint.PRESETS == [
        "twitter",
        "discord",
        "instagram",
        "sonyflake",
        "baidu",
        "shardingsphere",
        "leaf",
        "js53",
    ]
    for name in idmint.PRESETS:
        lay = idmint.Layout(name)
        assert lay.preset_name == name
        assert idmint.Layout.preset(name) == lay
        assert idmint.Layout(lay.spec) == lay  # equality ignores the preset name
        assert hash(idmint.Layout(lay.spec)) == hash(lay)
        assert repr(lay) == f"Layout('{name}')"
        assert pickle.loads(pickle.dumps(lay)) == lay
    with pytest.raises(idmint.InvalidLayout):
        idmint.Layout.preset("time=41@1ms,seq=12,epoch=0")
    tw = idmint.Layout("twitter")
    assert tw.width == 63 and tw.max_id == 2**63 - 1
    assert tw.epoch == dt.datetime(2010, 11, 4, 1, 42, 54, 657000, tzinfo=dt.timezone.utc)
    assert tw.lifetime_end is not None and tw.lifetime_end.year == 2080
    # A lifetime past year 9999 is None (datetime ends there); lifetime_end_ms stays exact.
    long_lived = idmint.Layout("time=50@1s,seq=3,epoch=2020-01-01")
    assert long_lived.lifetime_end is None
    assert long_lived.lifetime_end_ms > 253_402_300_800_000
    assert tw.node_names == ["datacenter", "worker"]
    assert [f.kind for f in tw.fields] == ["time", "node", "node", "sequence"]
    assert tw != idmint.Layout("leaf") or tw.spec == idmint.Layout("leaf").spec
    assert tw != "twitter"
    assert idmint.Layout("js53").is_js_safe
    assert not idmint.Layout("baidu").is_expired_at(1_700_000_000_000)
    assert idmint.Layout("baidu").is_expired_at(int(time.time() * 1000))


def test_compose_decompose_by_name() -> None:
    tw = idmint.Layout("twitter")
    id_ = tw.compose(time=5, node={"datacenter": 3, "worker": 7}, sequence=9)
    p = tw.decompose(id_)
    assert (p.time, p.node, p.sequence, p.rollback) == (5, 3 << 5 | 7, 9, 0)
    assert p.node_fields == {"datacenter": 3, "worker": 7}
    assert p.timestamp_ms == tw.epoch_ms + 5
    assert p.datetime == tw.datetime(id_)
    assert "node_fields={'datacenter': 3, 'worker': 7}" in repr(p)
    assert tw.compose() == 0
    with pytest.raises(idmint.OutOfRange) as info:
        tw.compose(node={"datacenter": 32, "worker": 0})
    assert info.value.field == "datacenter" and info.value.max == 31
    assert isinstance(info.value, ValueError)
    with pytest.raises(KeyError):
        tw.compose(node={"datacenter": 1})
    with pytest.raises(KeyError):
        tw.compose(node={"datacenter": 1, "worker": 1, "shard": 1})
    with pytest.raises(idmint.OutOfRange):
        tw.decompose(2**63)
    assert tw.split_node(1023) == {"datacenter": 31, "worker": 31}
    with pytest.raises(idmint.OutOfRange) as info:
        tw.split_node(1024)  # refused, not masked to 0
    assert (info.value.field, info.value.value, info.value.max) == ("node", 1024, 1023)


def test_snowflake_mints_increasing_ids() -> None:
    gen = idmint.Snowflake("twitter", node=42)
    ids = [gen.next_id() for _ in range(10_000)]
    assert ids == sorted(set(ids))
    p = gen.decode(ids[-1])
    assert p.node == 42 and p.node_fields == {"datacenter": 1, "worker": 10}
    now = time.time() * 1000
    assert abs(p.timestamp_ms - now) < 5_000
    assert gen.node == 42
    assert gen.layout == idmint.Layout("twitter")
    assert gen.kind == "snowflake"
    assert next(gen) > ids[-1]
    assert iter(gen) is gen
    assert gen.config.startswith("type=snowflake,layout=twitter,node=42,")
    assert gen.on_backwards == "wait:1000" and gen.on_exhausted == "wait"
    assert gen.sequence_start == "zero" and gen.fence_ms is None
    assert gen.decode(ids[0]) == gen.decode(ids[0]) and len({gen.decode(ids[0]), gen.decode(ids[0])}) == 1
    assert gen.stats() == gen.stats() and hash(gen.stats()) == hash(gen.stats())
    with pytest.raises(TypeError):
        pickle.dumps(gen)


def test_next_ids_array_and_list() -> None:
    gen = idmint.Snowflake("twitter", node=1, on_exhausted="borrow:64")
    a = gen.next_ids(100_000)
    assert isinstance(a, array.array) and a.typecode == "Q" and len(a) == 100_000
    assert list(a) == sorted(set(a))
    assert memoryview(a).format == "Q"
    b = gen.next_ids_list(1000)
    assert isinstance(b, list) and b[0] > a[-1] and b == sorted(set(b))
    assert len(gen.next_ids(0)) == 0 and gen.next_ids_list(0) == []
    run = gen.reserve(10)
    assert 1 <= len(run) <= 10 and run.to_list() == [run[i] for i in range(len(run))]
    assert run[-1] == run.last and list(run) == run.to_list()
    with pytest.raises(IndexError):
        run[len(run)]
    with pytest.raises(idmint.InvalidConfig):
        gen.reserve(0)


def test_next_ids_waits_at_the_cap() -> None:
    # 16 IDs per ms: asking for 320 makes next_ids wait for later ticks (without the GIL)
    # instead of failing.
    gen = idmint.Snowflake("time=41@1ms,worker=10,seq=4,epoch=2020-01-01", node=1)
    t0 = time.monotonic()
    ids = gen.next_ids(16 * 20)
    assert len(set(ids)) == 320 and time.monotonic() - t0 >= 0.015
    assert gen.stats().exhaustions >= 1 and gen.stats().wait_ms >= 1


def test_try_next_id_and_policies() -> None:
    gen = idmint.Snowflake("time=41@1ms,worker=10,seq=1,epoch=2020-01-01", node=1, on_exhausted="fail")
    seen = set()
    with pytest.raises(idmint.SequenceExhausted) as info:
        for _ in range(10_000):
            seen.add(gen.try_next_id())
    assert info.value.code == "ERR_SEQUENCE_EXHAUSTED" and info.value.tick_ms > 0
    gen2 = idmint.Snowflake("time=41@1ms,worker=10,seq=1,epoch=2020-01-01", node=2)
    with pytest.raises(idmint.WouldBlock) as wb:
        for _ in range(10_000):
            gen2.try_next_id()
    assert wb.value.until_ms > time.time() * 1000 - 10
    assert gen2.stats().exhaustions >= 1


def test_next_id_at_is_sans_io() -> None:
    gen = idmint.Snowflake("time=41@1ms,worker=10,seq=2,epoch=2020-01-01", node=5, on_backwards="fail")
    t0 = 1_900_000_000_000  # ahead of the clock: the sans-IO call takes the time as given
    ids = [gen.next_id_at(t0) for _ in range(4)]
    assert ids == sorted(ids)
    with pytest.raises(idmint.WouldBlock) as info:
        gen.next_id_at(t0)
    assert info.value.until_ms == t0 + 1
    with pytest.raises(idmint.ClockBackwards) as back:
        gen.next_id_at(t0 - 10)
    assert (back.value.by_ms, back.value.last_ms) == (10, t0)
    assert gen.stats().rollbacks == 1


def test_set_node() -> None:
    gen = idmint.Snowflake("twitter", node=1)
    a = gen.next_id()
    gen.set_node({"datacenter": 2, "worker": 3})
    assert gen.node == 2 << 5 | 3
    b = gen.next_id()
    assert b > a and gen.decode(b).node_fields == {"datacenter": 2, "worker": 3}
    with pytest.raises(idmint.OutOfRange):
        gen.set_node(1024)
    assert gen.node == 2 << 5 | 3


def test_snowflake_construction_errors() -> None:
    with pytest.raises(idmint.LayoutExpired) as info:
        idmint.Snowflake("baidu", node=0)
    assert info.value.end_ms == idmint.Layout("baidu").lifetime_end_ms
    with pytest.raises(idmint.BeforeEpoch):
        idmint.Snowflake("time=41@1ms,worker=10,seq=12,epoch=2999-01-01", node=0)
    # The sans-IO form does not look at the clock.
    assert idmint.AtomicSnowflake("baidu", node=0).next_id_at(1_700_000_000_000) > 0
    with pytest.raises(idmint.InvalidConfig):
        idmint.Snowflake(on_backwards="sideways")
    with pytest.raises(idmint.InvalidConfig):
        idmint.Snowflake.from_config("type=uuid7")
    with pytest.raises(idmint.InvalidConfig):
        idmint.UuidGenerator.from_config("type=snowflake,layout=twitter,node=1")


def test_from_config() -> None:
    s = idmint.from_config("type=snowflake,layout=leaf,node=7,on_exhausted=borrow")
    assert isinstance(s, idmint.Snowflake) and s.node == 7 and s.on_exhausted == "borrow:16"
    assert isinstance(next(s), int)
    u = idmint.from_config('{"type":"uuid7"}')
    assert isinstance(u, idmint.UuidGenerator) and u.version == 7
    assert next(u).version == 7
    fenced = idmint.Snowflake(node=3, fence_ms=int(time.time() * 1000) + 50)
    assert fenced.fence_ms is not None
    assert fenced.layout.timestamp_ms(fenced.next_id()) > fenced.fence_ms


def test_random_sequence_start_seeded_and_unseeded() -> None:
    a = idmint.AtomicSnowflake("leaf", node=1, sequence_start="random", seed=42)
    b = idmint.AtomicSnowflake("leaf", node=1, sequence_start="random", seed=42)
    t = 1_700_000_000_000
    assert [a.next_id_at(t + i) for i in range(5)] == [b.next_id_at(t + i) for i in range(5)]
    # The clocked generator draws a seed from the OS when none is given, and does not show it.
    g = idmint.Snowflake("leaf", node=2, sequence_start="random")
    assert len({g.next_id() for _ in range(100)}) == 100
    assert "seed" not in g.config and "seed" not in repr(g)
    assert "seed=7" in idmint.Snowflake("leaf", node=3, sequence_start="random", seed=7).config


def test_codecs() -> None:
    assert idmint.CODECS == ["decimal", "hex", "base32", "base62"]
    id_ = 1_234_567_890_123_456_789
    assert idmint.encode(id_, "base32") == "128GGYHYYK08N"
    assert idmint.encode(id_, "dec") == str(id_)
    assert idmint.parse_id("128ggyhyyk08n", "base32") == id_
    assert idmint.parse_id("0x112210f47de98115") == id_
    # Hex is written with its 0x, so every codec's text reads back without naming the codec
    # (base32/base62 text made only of digits excepted: that is decimal).
    assert idmint.encode(id_, "hex") == "0x112210f47de98115"
    for c in ("decimal", "hex", "base32", "base62"):
        for x in (0, 255, 2**63, 2**64 - 1, id_):
            text = idmint.encode(x, c)
            if c == "decimal" or not text.isdigit():
                assert idmint.parse_id(text) == x, (c, text)
    assert idmint.parse_id("112210f47de98115", "hex") == id_
    # "auto" as a codec's name: guessed from the shape, ASCII case-insensitive on every surface.
    assert idmint.parse_id("0x2A", "auto") == idmint.parse_id("0x2A", "AUTO") == 42
    # Bare hex without a codec: refused at its first character, saying how to read it.
    with pytest.raises(idmint.InvalidEncoding) as bare:
        idmint.parse_id("1d83a82428800000")
    assert (bare.value.codec, bare.value.at) == ("auto", 0)
    assert "0x prefix" in str(bare.value)
    with pytest.raises(idmint.InvalidConfig):
        idmint.encode(1, "base64")
    with pytest.raises(idmint.InvalidEncoding) as info:
        idmint.parse_id("G000000000000")
    assert (info.value.codec, info.value.at) == ("base32", 0)
    # Fixed-width codecs sort like the numbers.
    ids = sorted(idmint.Snowflake(node=1).next_ids_list(100) + [0, 2**64 - 1])
    for c in ("base32", "base62"):
        texts = [idmint.encode(i, c) for i in ids]
        assert texts == sorted(texts)


def test_obfuscation() -> None:
    key = 0x0123_4567_89AB_CDEF_0011_2233_4455_6677
    ob = idmint.Obfuscator(key, 53)
    assert all(ob.decode(ob.encode(i)) == i for i in range(1000))
    assert len({ob.encode(i) for i in range(1000)}) == 1000
    assert repr(ob) == "<Obfuscator bits=53>" and str(key) not in repr(ob)
    full = idmint.Obfuscator.for_layout(key, "twitter")
    assert full.bits == 63
    so = idmint.SortableObfuscator(key, "twitter")
    gen = idmint.Snowflake("twitter", node=3)
    ids = gen.next_ids_list(1000)
    pub = [so.encode(i) for i in ids]
    lay = gen.layout
    assert [lay.timestamp_ms(p) for p in pub] == [lay.timestamp_ms(i) for i in ids]
    assert [so.decode(p) for p in pub] == ids
    with pytest.raises(TypeError):
        pickle.dumps(ob)


def test_error_hierarchy() -> None:
    classes = {
        idmint.InvalidLayout: (True, "ERR_INVALID_LAYOUT"),
        idmint.LayoutExpired: (False, "ERR_LAYOUT_EXPIRED"),
        idmint.BeforeEpoch: (False, "ERR_BEFORE_EPOCH"),
        idmint.OutOfRange: (True, "ERR_OUT_OF_RANGE"),
        idmint.ClockBackwards: (False, "ERR_CLOCK_BACKWARDS"),
        idmint.SequenceExhausted: (False, "ERR_SEQUENCE_EXHAUSTED"),
        idmint.WouldBlock: (False, "ERR_WOULD_BLOCK"),
        idmint.Forked: (False, "ERR_FORKED"),
        idmint.InvalidConfig: (True, "ERR_INVALID_CONFIG"),
        idmint.InvalidEncoding: (True, "ERR_INVALID_ENCODING"),
        idmint.BufferTooSmall: (False, "ERR_BUFFER_TOO_SMALL"),
        idmint.RandomSource: (False, "ERR_RANDOM_SOURCE"),
        idmint.StoreUnavailable: (False, "ERR_STORE_UNAVAILABLE"),
        idmint.LeaseLost: (False, "ERR_LEASE_LOST"),
        idmint.NoFreeNode: (False, "ERR_NO_FREE_NODE"),
        idmint.NodeRequired: (True, "ERR_NODE_REQUIRED"),
        idmint.StoreMismatch: (False, "ERR_STORE_MISMATCH"),
        idmint.LimitExceeded: (True, "ERR_LIMIT_EXCEEDED"),
        idmint.InvalidArgument: (True, "ERR_INVALID_ARGUMENT"),
    }
    assert issubclass(idmint.IdmintError, Exception)
    for cls, (is_value, code) in classes.items():
        assert issubclass(cls, idmint.IdmintError)
        assert issubclass(cls, ValueError) is is_value
        # Only a store outage is also a ConnectionError (so `except OSError` retry loops see it).
        assert issubclass(cls, ConnectionError) is (cls is idmint.StoreUnavailable)
        assert cls.code == code
        assert cls.__module__ == "idmint"
        assert cls.__doc__
    # Errors survive pickling (multiprocessing sends them between processes).
    try:
        idmint.AtomicSnowflake("leaf", on_exhausted="fail", node=1).next_id_at(0)
    except idmint.IdmintError as e:
        e2 = pickle.loads(pickle.dumps(e))
        assert type(e2) is type(e) and e2.code == e.code and str(e2) == str(e)
        assert e2.__dict__ == e.__dict__
    else:
        raise AssertionError("expected an error")
    # The ConnectionError-based class pickles with its fields too.
    e = idmint.StoreUnavailable("redis store unavailable during renew")
    e.store, e.op = "redis", "renew"
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is idmint.StoreUnavailable and str(e2) == str(e) and e2.__dict__ == e.__dict__


def test_invalid_argument_carries_the_core_fields() -> None:
    # One rule for nodes by sub-field, decided in the core; its fields become attributes.
    layout = idmint.Layout("twitter")
    with pytest.raises(idmint.InvalidArgument) as e:
        layout.join_node({"worker": 2})
    assert e.value.code == "ERR_INVALID_ARGUMENT"
    assert e.value.argument == "datacenter"
    assert e.value.reason == "is a node sub-field of the layout and missing"
    assert str(e.value) == "invalid argument `datacenter`: is a node sub-field of the layout and missing"
    with pytest.raises(idmint.InvalidArgument) as e:
        layout.join_node({"datacenter": 1, "worker": 2, "rack": 3})
    assert e.value.argument == "rack"
