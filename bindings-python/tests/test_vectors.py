"""Replays every file in vectors/ exactly (the shared JSON vectors every surface replays)."""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from pathlib import Path
from typing import Any

import pytest

import idmint
from conftest import VECTORS, check_error, expect_call, load

LAYOUTS = load("layouts.json")
GENERATORS = load("generators.json")
CODECS = load("codecs.json")
OBFUSCATION = load("obfuscation.json")
UUIDS = load("uuids.json")
NAMED = load("named.json")
FORMATS = load("formats.json")


def test_every_vector_file_is_replayed() -> None:
    files = {p.name for p in Path(VECTORS).glob("*.json")}
    assert files == {
        "layouts.json",
        "generators.json",
        "codecs.json",
        "obfuscation.json",
        "uuids.json",
        "named.json",
        "formats.json",
    }, "a new vector file needs a replay here"


# ---------------------------------------------------------------------------------------------
# layouts.json
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", LAYOUTS["layouts"], ids=lambda c: c["spec"])
def test_layout(case: dict[str, Any]) -> None:
    layout = idmint.Layout(case["spec"])
    assert idmint.Layout.parse(case["spec"]) == layout
    assert layout.spec == str(layout) == case["canonical"]
    assert idmint.Layout(case["canonical"]) == layout
    assert layout.preset_name == case["preset"]
    assert layout.width == case["width"]
    assert layout.epoch_ms == int(case["epoch_ms"])
    assert layout.tick_ms == int(case["tick_ms"])
    assert layout.lifetime_end_ms == int(case["lifetime_end_ms"])
    assert layout.capacity_per_second == int(case["capacity_per_second"])
    assert layout.is_js_safe is case["is_js_safe"]
    assert layout.max_id == int(case["max_id"])
    assert layout.max_node == int(case["max_node"])
    assert layout.max_sequence == int(case["max_sequence"])
    assert layout.max_time == int(case["max_time"])
    got_fields = [
        {"name": f.name, "kind": f.kind, "bits": f.bits, "shift": f.shift} for f in layout.fields
    ]
    assert got_fields == case["fields"]
    end = int(case["lifetime_end_ms"])
    if end < 253_402_300_800_000:  # datetime's range ends with year 9999
        want = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(milliseconds=end)
        assert layout.lifetime_end == want
        assert layout.lifetime_end.tzinfo is dt.timezone.utc
    else:
        assert layout.lifetime_end is None

    for c in case["compose"]:
        p = c["parts"]
        parts = {k: int(v) for k, v in p.items()}

        def compose(parts: dict[str, int] = parts) -> int:
            return layout.compose(**parts)

        got = expect_call(compose, c["expect"])
        if got is None:
            continue
        e = c["expect"]
        assert got == int(e["id"])
        assert layout.timestamp_ms(got) == int(e["timestamp_ms"])
        want_fields = {f["name"]: int(f["value"]) for f in e["node_fields"]}
        assert layout.split_node(parts["node"]) == want_fields
        assert list(layout.split_node(parts["node"])) == [f["name"] for f in e["node_fields"]]
        # The node given by name composes the same ID.
        if want_fields:
            by_name = dict(parts, node=want_fields)  # type: ignore[arg-type]
            assert layout.compose(**by_name) == got  # type: ignore[arg-type]
            assert layout.join_node(want_fields) == parts["node"]
        d = layout.decompose(got)
        assert d.node_fields == want_fields
        assert d.timestamp_ms == int(e["timestamp_ms"])

    for c in case["decompose"]:
        got = expect_call(lambda c=c: layout.decompose(int(c["id"])), c["expect"])
        if got is not None:
            e = c["expect"]
            assert (got.time, got.node, got.sequence, got.rollback) == (
                int(e["time"]),
                int(e["node"]),
                int(e["sequence"]),
                int(e["rollback"]),
            )
            assert got.timestamp_ms == layout.timestamp_ms(int(c["id"]))

    for c in case["tick_at"]:
        got = expect_call(lambda c=c: layout.tick_at(int(c["now_ms"])), c["expect"])
        if got is not None:
            assert got == int(c["expect"]["tick"])


@pytest.mark.parametrize("case", LAYOUTS["invalid"], ids=lambda c: repr(c["spec"]))
def test_invalid_layout(case: dict[str, Any]) -> None:
    with pytest.raises(idmint.InvalidLayout) as info:
        idmint.Layout(case["spec"])
    check_error(info.value, case["expect"])
    assert isinstance(info.value, ValueError)
    if "at" not in case["expect"]:
        assert info.value.at is None


# ---------------------------------------------------------------------------------------------
# generators.json
# ---------------------------------------------------------------------------------------------


def _kwargs(case: dict[str, Any]) -> dict[str, Any]:
    return {
        "layout": case["layout"],
        "node": int(case["node"]),
        "on_backwards": case["on_backwards"],
        "on_exhausted": case["on_exhausted"],
        "sequence_start": case["sequence_start"],
        "seed": int(case["seed"]),
        "fence_ms": None if case["fence_ms"] is None else int(case["fence_ms"]),
    }


def _stats(s: idmint.Stats) -> dict[str, str]:
    return {k: str(v) for k, v in s.as_dict().items()}


def _run_steps(gen: Any, steps: list[dict[str, Any]], sans_io: bool) -> None:
    for step in steps:
        now = int(step["now_ms"])
        e = step["expect"]
        if "reserve" in step:
            run = expect_call(lambda: gen.reserve_at(now, int(step["reserve"])), e)
            if run is not None:
                assert (run.first, run.count, run.stride) == (
                    int(e["first"]),
                    int(e["count"]),
                    int(e["stride"]),
                )
                assert run.to_list() == [run.first + i * run.stride for i in range(run.count)]
        elif "next_ids" in step:
            ids = expect_call(lambda: gen.next_ids_at(now, int(step["next_ids"])), e)
            if ids is not None:
                assert ids.typecode == "Q"
                assert list(ids) == [int(x) for x in e["ids"]]
        else:
            got = expect_call(lambda: gen.next_id_at(now), e)
            if got is not None:
                assert got == int(e["id"])


@pytest.mark.parametrize("case", GENERATORS["cases"], ids=lambda c: c["name"])
def test_generator_sans_io(case: dict[str, Any]) -> None:
    """Every step through AtomicSnowflake (the lock-free sans-IO generator)."""
    gen = idmint.AtomicSnowflake(**_kwargs(case))
    mrt = case["max_rollback_ticks"]
    assert gen.max_rollback_ticks == (None if mrt is None else int(mrt))
    _run_steps(gen, case["steps"], sans_io=True)
    assert _stats(gen.stats()) == case["stats"]
    # The named form builds the same generator.
    named = idmint.AtomicSnowflake.from_config(case["named_config"])
    assert named.config == gen.config
    _run_steps(named, case["steps"], sans_io=True)
    assert _stats(named.stats()) == case["stats"]


def _live_today(case: dict[str, Any]) -> bool:
    import time

    layout = idmint.Layout(case["layout"])
    return layout.epoch_ms <= int(time.time() * 1000) < layout.lifetime_end_ms


SNOWFLAKE_CASES = [c for c in GENERATORS["cases"] if _live_today(c)]


def test_almost_every_generator_case_replays_through_snowflake() -> None:
    # Left out: layouts not live today (Snowflake() checks the clock when it is built).
    left_out = [c["name"] for c in GENERATORS["cases"] if c not in SNOWFLAKE_CASES]
    assert left_out == ["before_epoch_and_expiry"]


@pytest.mark.parametrize("case", SNOWFLAKE_CASES, ids=lambda c: c["name"])
def test_generator_snowflake_sans_io(case: dict[str, Any]) -> None:
    """The clocked front door's sans-IO calls (`next_id_at`, `reserve_at`, `next_ids_at`):
    same IDs, errors, until_ms and stats."""
    gen = idmint.Snowflake(**_kwargs(case))
    _run_steps(gen, case["steps"], sans_io=False)
    assert _stats(gen.stats()) == case["stats"]
    gen2 = idmint.Snowflake.from_config(case["named_config"])
    _run_steps(gen2, case["steps"], sans_io=False)
    assert _stats(gen2.stats()) == case["stats"]


@pytest.mark.parametrize("case", GENERATORS["invalid_configs"], ids=lambda c: c["expect"]["message"])
@pytest.mark.parametrize("cls", [idmint.AtomicSnowflake, idmint.Snowflake])
def test_invalid_generator_config(case: dict[str, Any], cls: Any) -> None:
    with pytest.raises(idmint.IdmintError) as info:
        cls(
            case["layout"],
            node=int(case["node"]),
            on_backwards=case["on_backwards"],
            on_exhausted=case["on_exhausted"],
            sequence_start=case["sequence_start"],
        )
    check_error(info.value, case["expect"])


@pytest.mark.parametrize("case", GENERATORS["policy_texts"], ids=lambda c: f"{c['policy']}={c['text']}")
def test_policy_text(case: dict[str, Any]) -> None:
    # A policy's canonical text is what the generator reports; parse errors are raised by the
    # constructor. Other arguments are chosen so that this policy alone decides.
    kwargs: dict[str, Any] = {"layout": "time=41@1ms,worker=10,seq=12,epoch=2020-01-01", "node": 1}
    kwargs[case["policy"]] = case["text"]
    if "error" in case["expect"]:
        with pytest.raises(idmint.InvalidConfig) as info:
            idmint.AtomicSnowflake(**kwargs)
        check_error(info.value, case["expect"])
        return
    canonical = case["expect"]["canonical"]
    if canonical == "rollback_counter":
        kwargs["layout"] = "time=40@1ms,rollback=2,worker=8,seq=13,epoch=2020-01-01"
    gen = idmint.AtomicSnowflake(**kwargs)
    assert f"{case['policy']}={canonical}" in gen.config.split(",")
    clocked = idmint.Snowflake(**kwargs)
    assert getattr(clocked, case["policy"]) == canonical


# ---------------------------------------------------------------------------------------------
# codecs.json
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CODECS["encode"], ids=lambda c: c["id"])
def test_codec_encode(case: dict[str, Any]) -> None:
    id_ = int(case["id"])
    for codec in ("decimal", "hex", "base32", "base62"):
        text = idmint.encode(id_, codec)
        assert text == case[codec]
        assert idmint.parse_id(text, codec) == id_
    assert idmint.encode(id_) == case["decimal"]


@pytest.mark.parametrize("case", CODECS["decode"], ids=lambda c: f"{c['decoder']}:{c['text']!r}")
def test_codec_decode(case: dict[str, Any]) -> None:
    decoder = case["decoder"]
    codec = None if decoder == "auto" else decoder
    got = expect_call(lambda: idmint.parse_id(case["text"], codec), case["expect"])
    if got is not None:
        assert got == int(case["expect"]["id"])
    if decoder == "auto":
        got2 = expect_call(lambda: idmint.parse_id(case["text"], "auto"), case["expect"])
        assert got2 == got


# ---------------------------------------------------------------------------------------------
# obfuscation.json
# ---------------------------------------------------------------------------------------------


def _check_bijection(ob: Any, cases: list[dict[str, Any]]) -> None:
    for c in cases:
        x = int(c["input"])
        got = expect_call(lambda: ob.encode(x), c["expect"])
        if got is None:
            expect_call(lambda: ob.decode(x), c["expect"])
            continue
        assert got == int(c["expect"]["output"])
        assert ob.decode(got) == x


@pytest.mark.parametrize("case", OBFUSCATION["full"], ids=lambda c: f"{c['bits']}-{c['key_hex']}")
def test_obfuscation_full(case: dict[str, Any]) -> None:
    key = int(case["key_hex"], 16)
    ob = idmint.Obfuscator(key, case["bits"])
    assert ob.bits == case["bits"]
    assert ob.max == (1 << case["bits"]) - 1
    _check_bijection(ob, case["cases"])


@pytest.mark.parametrize("case", OBFUSCATION["sortable"], ids=lambda c: f"{c['layout']}-{c['key_hex']}")
def test_obfuscation_sortable(case: dict[str, Any]) -> None:
    key = int(case["key_hex"], 16)
    ob = idmint.SortableObfuscator(key, case["layout"])
    assert ob.low_bits == case["low_bits"]
    assert idmint.SortableObfuscator(key, idmint.Layout(case["layout"])).encode(0) == ob.encode(0)
    _check_bijection(ob, case["cases"])


@pytest.mark.parametrize("case", OBFUSCATION["invalid"], ids=lambda c: c["expect"]["message"])
def test_obfuscation_invalid(case: dict[str, Any]) -> None:
    key = int(case["key_hex"], 16)
    with pytest.raises(idmint.InvalidConfig) as info:
        if case["kind"] == "full":
            idmint.Obfuscator(key, case["bits"])
        else:
            idmint.SortableObfuscator(key, case["layout"])
    check_error(info.value, case["expect"])


# ---------------------------------------------------------------------------------------------
# uuids.json
# ---------------------------------------------------------------------------------------------


def _check_uuid(u: uuid.UUID, expect: dict[str, Any]) -> None:
    assert isinstance(u, uuid.UUID)
    assert str(u) == expect["uuid"]
    assert u == uuid.UUID(expect["uuid"])
    info = idmint.uuid_info(u)
    want = expect["inspect"]
    assert info.version == want["version"]
    assert info.variant == want["variant"]
    assert info.unix_ms == (None if want["unix_ms"] is None else int(want["unix_ms"]))


@pytest.mark.parametrize("case", UUIDS["name_based"], ids=lambda c: f"v{c['version']}-{c['namespace_name']}-{c['name']!r}")
def test_uuid_name_based(case: dict[str, Any]) -> None:
    fn = idmint.uuid3 if case["version"] == 3 else idmint.uuid5
    ns = uuid.UUID(case["namespace"])
    u = fn(ns, case["name"])
    _check_uuid(u, case["expect"])
    assert fn(case["namespace"], case["name"].encode()) == u
    std = uuid.uuid3 if case["version"] == 3 else uuid.uuid5
    assert std(ns, case["name"]) == u


@pytest.mark.parametrize("case", UUIDS["v4"], ids=lambda c: c["random"])
def test_uuid_v4(case: dict[str, Any]) -> None:
    _check_uuid(idmint.uuid4(bytes.fromhex(case["random"])), case["expect"])


@pytest.mark.parametrize("case", UUIDS["v7"], ids=lambda c: f"{c['unix_ms']}-{c['random']}")
def test_uuid_v7(case: dict[str, Any]) -> None:
    _check_uuid(idmint.uuid7_at(int(case["unix_ms"]), bytes.fromhex(case["random"])), case["expect"])


@pytest.mark.parametrize("case", UUIDS["v1"], ids=lambda c: f"{c.get('ticks', c.get('unix_ms'))}-{c['node']}")
def test_uuid_v1(case: dict[str, Any]) -> None:
    node = bytes.fromhex(case["node"])
    if "unix_ms" in case:
        u = idmint.uuid1_random_node(
            int(case["unix_ms"]), case["ticks_100ns_extra"], case["clock_seq"], node
        )
    else:
        u = idmint.uuid1_at(int(case["ticks"]), case["clock_seq"], node)
    _check_uuid(u, case["expect"])


@pytest.mark.parametrize("case", UUIDS["v7_generator"], ids=lambda c: c["name"])
def test_uuid_v7_generator(case: dict[str, Any]) -> None:
    gen = idmint.UuidGenerator(7)
    for step in case["steps"]:
        rnd = bytes.fromhex(step["random"])

        def random(n: int, rnd: bytes = rnd) -> bytes:
            assert n == len(rnd)
            return rnd

        u = gen.next_at(int(step["unix_ms"]), random)
        _check_uuid(u, step["expect"])


@pytest.mark.parametrize("case", UUIDS["parse"], ids=lambda c: repr(c["text"]))
def test_uuid_parse(case: dict[str, Any]) -> None:
    got = expect_call(lambda: idmint.parse_uuid(case["text"]), case["expect"])
    if got is not None:
        assert str(got) == case["expect"]["uuid"]
        assert idmint.uuid_info(case["text"]) == idmint.uuid_info(got)
    else:
        with pytest.raises(idmint.InvalidEncoding):
            idmint.uuid_info(case["text"])


@pytest.mark.parametrize("case", UUIDS["inspect"], ids=lambda c: c["uuid"])
def test_uuid_inspect(case: dict[str, Any]) -> None:
    _check_uuid(uuid.UUID(case["uuid"]), {"uuid": case["uuid"], "inspect": case["inspect"]})
    info = idmint.uuid_info(case["uuid"])
    assert info.version == case["inspect"]["version"]


# ---------------------------------------------------------------------------------------------
# named.json
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("through", ["class", "NamedGenerator"])
@pytest.mark.parametrize("case", NAMED["configs"], ids=lambda c: c["config"])
def test_named(case: dict[str, Any], through: str) -> None:
    cfg = case["config"]
    stream = bytes.fromhex(case["random_hex"])
    used = 0

    def random(n: int) -> bytes:
        nonlocal used
        chunk = stream[used : used + n]
        assert len(chunk) == n, "vector stream exhausted"
        used += n
        return chunk

    gen: Any
    if through == "NamedGenerator":
        gen = idmint.NamedGenerator(cfg)
        assert gen.config == case["canonical"]
        assert gen.kind == case["type"]

        def step_fn(now: int) -> Any:
            return gen.next_at(now, random)

    elif case["type"] == "snowflake":
        gen = idmint.AtomicSnowflake.from_config(cfg)
        assert gen.config == case["canonical"]
        step_fn = gen.next_id_at
    else:
        gen = idmint.UuidGenerator.from_config(cfg)
        assert gen.config == case["canonical"]
        assert gen.kind == case["type"]

        def step_fn(now: int) -> Any:
            return gen.next_at(now, random)

    for step in case["steps"]:
        got = expect_call(lambda: step_fn(int(step["now_ms"])), step["expect"])
        if got is None:
            continue
        if case["type"] == "snowflake":
            assert got == int(step["expect"]["id"])
        else:
            assert isinstance(got, uuid.UUID)
            assert str(got) == step["expect"]["id"]
    assert used == case["random_used"]

    # from_config builds the clocked generator of the same type and canonical config
    # (a snowflake layout must be live today for the clocked form).
    try:
        clocked = idmint.from_config(cfg)
    except (idmint.LayoutExpired, idmint.BeforeEpoch):
        assert case["type"] == "snowflake"
        return
    assert clocked.kind == case["type"]
    if case["type"] != "snowflake" or "sequence_start=random" not in case["canonical"]:
        assert clocked.config == case["canonical"]


@pytest.mark.parametrize("case", NAMED["invalid"], ids=lambda c: repr(c["config"]))
def test_named_invalid(case: dict[str, Any]) -> None:
    # The single-type front doors check the type first: their own answer where the vector has one.
    doors = [
        (idmint.from_config, "expect"),
        (idmint.Snowflake.from_config, "expect_snowflake"),
        (idmint.AtomicSnowflake.from_config, "expect_snowflake"),
        (idmint.UuidGenerator.from_config, "expect_uuid"),
    ]
    for fn, key in doors:
        with pytest.raises(idmint.IdmintError) as info:
            fn(case["config"])
        check_error(info.value, case.get(key, case["expect"]))


# ---------------------------------------------------------------------------------------------
# formats.json (RFC 9562 appendices A and B, the TypeID spec's cases, ULID reference cases)
# ---------------------------------------------------------------------------------------------


def test_formats_sections_are_all_replayed() -> None:
    assert set(FORMATS) - {"_comment", "_sources"} == {
        "rfc9562",
        "special",
        "convert_errors",
        "v8_field_errors",
        "v6_generator",
        "v7_methods",
        "typeid_valid",
        "typeid_invalid",
        "typeid_encode",
        "typeid_generator",
        "ulid_decode",
        "ulid_encode",
        "ulid_generator",
        "ksuid_decode",
        "ksuid_encode",
        "ksuid_generator",
        "any_id_kind",
    }, "a new formats.json section needs a replay here"


def _rfc_uuid(case: dict[str, Any]) -> uuid.UUID:
    m = case["method"]
    if m in ("v1", "v6"):
        fn = idmint.uuid1_at if m == "v1" else idmint.uuid6_at
        return fn(int(case["ticks"]), case["clock_seq"], bytes.fromhex(case["node"]))
    if m in ("v3", "v5"):
        fn3 = idmint.uuid3 if m == "v3" else idmint.uuid5
        return fn3(uuid.UUID(case["namespace"]), case["name"])
    if m == "v4":
        return idmint.uuid4(bytes.fromhex(case["random"]))
    if m == "v7":
        return idmint.uuid7_at(int(case["unix_ms"]), bytes.fromhex(case["random"]))
    if m == "v8_fields":
        a, b, c = int(case["custom_a"]), int(case["custom_b"]), int(case["custom_c"])
        u = idmint.uuid8_from_fields(a, b, c)
        assert idmint.uuid8_fields(u) == (a, b, c)
        return u
    if m == "v8_sha256":
        return idmint.uuid8_sha256(uuid.UUID(case["namespace"]), case["name"])
    if m == "v8":
        return idmint.uuid8(bytes.fromhex(case["bytes"]))
    if m == "v1_to_v6":
        return idmint.uuid1_to_uuid6(uuid.UUID(case["uuid"]))
    assert m == "v6_to_v1", m
    return idmint.uuid6_to_uuid1(case["uuid"])


@pytest.mark.parametrize("case", FORMATS["rfc9562"], ids=lambda c: f"{c['appendix']}-{c['method']}")
def test_formats_rfc9562(case: dict[str, Any]) -> None:
    u = _rfc_uuid(case)
    assert isinstance(u, uuid.UUID)
    assert str(u) == case["expect"]["uuid"]
    assert u.version == case["expect"]["version"]
    assert idmint.uuid_info(u).version == case["expect"]["version"]
    assert idmint.uuid_info(u).variant == "rfc9562"
    if case["method"] in ("v3", "v5"):
        std = uuid.uuid3 if case["method"] == "v3" else uuid.uuid5
        assert std(uuid.UUID(case["namespace"]), case["name"]) == u
    if "sha256_name" in case:
        # B.2: the bytes are the first 16 of SHA-256(namespace bytes ++ name).
        ns = uuid.UUID(case["sha256_namespace"]).bytes
        digest = hashlib.sha256(ns + case["sha256_name"].encode()).digest()
        assert digest[:16].hex() == case["bytes"]
        assert idmint.uuid8(digest[:16]) == u
    if case["method"] in ("v1", "v6", "v1_to_v6", "v6_to_v1"):
        # The time survives the conversion both ways, and the stdlib reads v1/v6 time.
        back = idmint.uuid6_to_uuid1(u) if u.version == 6 else idmint.uuid1_to_uuid6(u)
        assert idmint.uuid_info(back).unix_ms == idmint.uuid_info(u).unix_ms
        if u.version == 1:
            assert u.time == 138648505420000000


def test_formats_special() -> None:
    assert isinstance(idmint.NIL, uuid.UUID) and isinstance(idmint.MAX, uuid.UUID)
    assert str(idmint.NIL) == FORMATS["special"]["nil"]
    assert str(idmint.MAX) == FORMATS["special"]["max"]
    assert idmint.NIL == uuid.UUID(int=0)
    assert idmint.MAX == uuid.UUID(int=(1 << 128) - 1)
    for name in ("NIL", "MAX"):  # the constants Python 3.14 added to the uuid module
        if hasattr(uuid, name):
            assert getattr(idmint, name) == getattr(uuid, name)


@pytest.mark.parametrize("case", FORMATS["convert_errors"], ids=lambda c: c["method"])
def test_formats_convert_errors(case: dict[str, Any]) -> None:
    fn = idmint.uuid1_to_uuid6 if case["method"] == "v1_to_v6" else idmint.uuid6_to_uuid1
    assert expect_call(lambda: fn(uuid.UUID(case["uuid"])), case["expect"]) is None


@pytest.mark.parametrize("case", FORMATS["v8_field_errors"], ids=lambda c: c["expect"]["field"])
def test_formats_v8_field_errors(case: dict[str, Any]) -> None:
    a, b, c = int(case["custom_a"]), int(case["custom_b"]), int(case["custom_c"])
    assert expect_call(lambda: idmint.uuid8_from_fields(a, b, c), case["expect"]) is None


@pytest.mark.parametrize("case", FORMATS["v6_generator"], ids=lambda c: c["random"])
def test_formats_v6_generator(case: dict[str, Any]) -> None:
    gen = idmint.UuidGenerator(6)
    assert gen.kind == "uuid6" and gen.version == 6
    calls = []

    def random(n: int) -> bytes:
        calls.append(n)
        return bytes.fromhex(case["random"])

    for step in case["steps"]:
        u = gen.next_at(int(step["unix_ms"]), random)
        assert str(u) == step["expect"]["uuid"]
        assert u.version == 6
    assert calls == [8]


@pytest.mark.parametrize("case", FORMATS["v7_methods"], ids=lambda c: c["method"])
def test_formats_v7_methods(case: dict[str, Any]) -> None:
    gen = idmint.Uuid7Generator(case["method"])
    assert gen.method == case["method"] and gen.last_unix_ms is None
    for step in case["steps"]:
        u = gen.next_at(int(step["unix_ms"]), bytes.fromhex(step["random"]), step["sub_ms_nanos"])
        assert str(u) == step["expect"]["uuid"]
        assert gen.last_unix_ms == idmint.uuid_info(u).unix_ms


@pytest.mark.parametrize("case", FORMATS["typeid_valid"], ids=lambda c: c["name"])
def test_formats_typeid_valid(case: dict[str, Any]) -> None:
    t = idmint.TypeId.parse(case["typeid"])
    assert t.prefix == case["expect"]["prefix"]
    assert isinstance(t.uuid, uuid.UUID)
    assert str(t.uuid) == case["expect"]["uuid"]
    assert str(t) == case["typeid"]
    assert t.suffix == case["typeid"][-26:]
    assert idmint.TypeId(t.prefix, t.uuid) == t
    assert idmint.TypeId(t.prefix, str(t.uuid)) == t
    assert hash(idmint.TypeId.parse(str(t))) == hash(t)


@pytest.mark.parametrize("case", FORMATS["typeid_invalid"], ids=lambda c: c["name"])
def test_formats_typeid_invalid(case: dict[str, Any]) -> None:
    assert expect_call(lambda: idmint.TypeId.parse(case["typeid"]), case["expect"]) is None


@pytest.mark.parametrize("case", FORMATS["typeid_encode"], ids=lambda c: repr(c["prefix"]))
def test_formats_typeid_encode(case: dict[str, Any]) -> None:
    got = expect_call(lambda: idmint.TypeId(case["prefix"], uuid.UUID(case["uuid"])), case["expect"])
    if got is not None:
        assert str(got) == case["expect"]["typeid"]
    else:
        # The clocked front door refuses the same prefixes, with the same error.
        assert expect_call(lambda: idmint.typeid(case["prefix"]), case["expect"]) is None


@pytest.mark.parametrize("case", FORMATS["typeid_generator"], ids=lambda c: c["prefix"])
def test_formats_typeid_generator(case: dict[str, Any]) -> None:
    gen = idmint.TypeIdGenerator(case["prefix"])
    assert gen.prefix == case["prefix"]
    for step in case["steps"]:
        t = gen.next_at(int(step["unix_ms"]), bytes.fromhex(step["random"]))
        assert str(t) == step["expect"]["typeid"]


@pytest.mark.parametrize("case", FORMATS["ulid_decode"], ids=lambda c: repr(c["text"]))
def test_formats_ulid_decode(case: dict[str, Any]) -> None:
    e = case["expect"]
    u = expect_call(lambda: idmint.Ulid.parse(case["text"]), e)
    if u is None:
        return
    assert str(u) == e["ulid"]
    assert u.timestamp_ms == int(e["timestamp_ms"])
    assert u.random == int(e["random_hex"], 16)
    assert isinstance(u.uuid, uuid.UUID) and str(u.uuid) == e["uuid"]
    assert u.int == u.uuid.int
    assert idmint.Ulid.from_uuid(u.uuid) == u == idmint.Ulid.from_uuid(e["uuid"])
    assert idmint.Ulid.from_parts(u.timestamp_ms, u.random) == u


@pytest.mark.parametrize("case", FORMATS["ulid_encode"], ids=lambda c: c["expect"]["ulid"])
def test_formats_ulid_encode(case: dict[str, Any]) -> None:
    u = idmint.Ulid.from_parts(int(case["timestamp_ms"]), int(case["random"], 16))
    assert str(u) == case["expect"]["ulid"]


@pytest.mark.parametrize("case", FORMATS["ulid_generator"], ids=lambda c: c["steps"][0]["expect"]["ulid"])
def test_formats_ulid_generator(case: dict[str, Any]) -> None:
    gen = idmint.UlidGenerator()
    assert gen.last is None
    for step in case["steps"]:
        ms, rnd = int(step["unix_ms"]), bytes.fromhex(step["random"])
        u = expect_call(lambda: gen.next_at(ms, rnd), step["expect"])
        if u is not None:
            assert str(u) == step["expect"]["ulid"]
            assert gen.last == u


@pytest.mark.parametrize("case", FORMATS["ksuid_decode"], ids=lambda c: repr(c["text"]))
def test_formats_ksuid_decode(case: dict[str, Any]) -> None:
    e = case["expect"]
    k = expect_call(lambda: idmint.Ksuid.parse(case["text"]), e)
    if k is None:
        return
    assert str(k) == e["ksuid"]
    assert k.timestamp == int(e["timestamp"])
    assert k.unix_ms == int(e["unix_ms"])
    assert k.payload == bytes.fromhex(e["payload_hex"])
    assert k.bytes == bytes.fromhex(e["bytes_hex"])
    assert idmint.Ksuid.from_parts(k.timestamp, k.payload) == k


@pytest.mark.parametrize("case", FORMATS["ksuid_encode"], ids=lambda c: c["expect"]["ksuid"])
def test_formats_ksuid_encode(case: dict[str, Any]) -> None:
    k = idmint.Ksuid.from_parts(int(case["timestamp"]), bytes.fromhex(case["payload"]))
    assert str(k) == case["expect"]["ksuid"]


@pytest.mark.parametrize("case", FORMATS["ksuid_generator"], ids=lambda c: c["steps"][0]["unix_ms"])
def test_formats_ksuid_generator(case: dict[str, Any]) -> None:
    gen = idmint.KsuidGenerator()
    assert gen.last is None
    for step in case["steps"]:
        ms, rnd = int(step["unix_ms"]), bytes.fromhex(step["random"])
        k = expect_call(lambda: gen.next_at(ms, rnd), step["expect"])
        if k is not None:
            assert str(k) == step["expect"]["ksuid"]
            assert gen.last == k


@pytest.mark.parametrize("case", FORMATS["any_id_kind"], ids=lambda c: repr((c["text"], c.get("codec"))))
def test_formats_any_id_kind(case: dict[str, Any]) -> None:
    e = case["expect"]
    a = expect_call(lambda: idmint.parse_any(case["text"], case.get("codec")), e)
    if a is None:
        return
    types = {
        "snowflake": int,
        "uuid": uuid.UUID,
        "typeid": idmint.TypeId,
        "ulid": idmint.Ulid,
        "ksuid": idmint.Ksuid,
    }
    assert a.kind == e["kind"]
    assert type(a.value) is types[a.kind]
    assert str(a.value) == e["value"]
    assert a.unix_ms == (None if e["unix_ms"] is None else int(e["unix_ms"]))
    if isinstance(a.value, (uuid.UUID, idmint.Ksuid)):
        assert a.value.bytes == bytes.fromhex(e["bytes_hex"])
    elif isinstance(a.value, idmint.Ulid):
        assert a.value.uuid.bytes == bytes.fromhex(e["bytes_hex"])
    elif isinstance(a.value, idmint.TypeId):
        assert a.value.uuid.bytes == bytes.fromhex(e["bytes_hex"])
        assert a.value.prefix == e["prefix"]
    else:
        assert e["bytes_hex"] is None
