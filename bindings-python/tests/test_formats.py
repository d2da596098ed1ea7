"""UUID v6/v8, NIL/MAX, uuid7s, Uuid7Generator methods, TypeIDs and ULIDs: shapes, order, errors."""

from __future__ import annotations

import uuid

import pytest

import idmint


def test_uuid6_increases_and_is_stdlib() -> None:
    us = [idmint.uuid6() for _ in range(2000)]
    assert all(type(u) is uuid.UUID and u.version == 6 for u in us)
    assert us == sorted(us) and len(set(us)) == len(us)
    assert str(us[0]) == str(uuid.UUID(str(us[0])))
    gen = idmint.UuidGenerator(6)
    assert (gen.kind, gen.version, gen.config) == ("uuid6", 6, "type=uuid6")
    a, b = gen.next(), next(gen)
    assert b > a and a.version == 6
    assert isinstance(idmint.from_config("type=uuid6"), idmint.UuidGenerator)


@pytest.mark.parametrize("method", ["counter", "random_increment", "sub_millisecond"])
def test_clocked_uuid7_of_each_rfc_method(method: str) -> None:
    gen = idmint.from_config(f"type=uuid7,method={method}")
    assert isinstance(gen, idmint.UuidGenerator)
    canonical = "type=uuid7" if method == "counter" else f"type=uuid7,method={method}"
    assert gen.config == canonical
    us = [gen.next() for _ in range(3000)]
    assert all(type(u) is uuid.UUID and u.version == 7 for u in us)
    assert us == sorted(us) and len(set(us)) == len(us)
    with pytest.raises(idmint.InvalidLayout):
        idmint.from_config("type=uuid4,method=counter")


def test_uuid7s_batch() -> None:
    before = idmint.uuid7()
    batch = idmint.uuid7s(1000)
    after = idmint.uuid7()
    assert len(batch) == 1000 and all(type(u) is uuid.UUID and u.version == 7 for u in batch)
    assert [before, *batch, after] == sorted([before, *batch, after])
    assert len(set(batch)) == 1000
    assert idmint.uuid7s(0) == []
    with pytest.raises(idmint.LimitExceeded):
        idmint.uuid7s(idmint.MAX_BATCH + 1)
    with pytest.raises(OverflowError):
        idmint.uuid7s(-1)


def test_nil_max_constants() -> None:
    assert type(idmint.NIL) is uuid.UUID and idmint.NIL.int == 0
    assert type(idmint.MAX) is uuid.UUID and idmint.MAX.int == (1 << 128) - 1
    assert idmint.uuid_info(idmint.NIL).variant == "ncs"


def test_uuid8_and_conversions_bad_inputs() -> None:
    with pytest.raises(ValueError):
        idmint.uuid8(b"short")
    with pytest.raises(ValueError):
        idmint.uuid6_at(0, 0, b"12345")
    with pytest.raises(idmint.OutOfRange):
        idmint.uuid8_from_fields(1 << 48, 0, 0)
    with pytest.raises(idmint.OutOfRange):
        idmint.uuid8_from_fields(0, 1 << 16, 0)
    assert idmint.uuid8_fields(idmint.uuid4()) is None
    with pytest.raises(idmint.InvalidArgument):
        idmint.uuid1_to_uuid6(idmint.uuid7())
    with pytest.raises(TypeError):
        idmint.uuid6_to_uuid1(42)  # type: ignore[arg-type]
    u8 = idmint.uuid8(bytes(range(16)))
    assert u8.version == 8 and u8.variant == uuid.RFC_4122


def test_uuid7_generator_methods() -> None:
    for method in ("counter", "random_increment", "sub_millisecond"):
        g = idmint.Uuid7Generator(method)
        assert g.method == method and method in repr(g)
        us = [g.next_at(1_700_000_000_000, bytes(10), sub) for sub in (0, 10, 10, 5, 999_999)]
        assert us == sorted(us) and len(set(us)) == len(us)
    assert idmint.Uuid7Generator().method == "counter"
    with pytest.raises(idmint.InvalidConfig):
        idmint.Uuid7Generator("fastest")
    with pytest.raises(ValueError):
        idmint.Uuid7Generator().next_at(0, b"123")


def test_typeid() -> None:
    a, b = idmint.typeid("user"), idmint.typeid("user")
    assert type(a) is str and a.startswith("user_") and len(a) == 5 + 26 and b > a
    t = idmint.TypeId.parse(a)
    assert t.prefix == "user" and type(t.uuid) is uuid.UUID and t.uuid.version == 7
    assert str(t) == a and repr(t) == f"TypeId('{a}')"
    assert len(idmint.typeid("")) == 26
    assert idmint.TypeId.parse(a) == t and {t: 1}[idmint.TypeId.parse(a)] == 1
    assert idmint.TypeId.parse(b) > t
    with pytest.raises(idmint.InvalidEncoding) as e:
        idmint.typeid("User")
    assert e.value.at == 0 and e.value.codec == "typeid"
    with pytest.raises(idmint.InvalidEncoding):
        idmint.TypeId.parse("user_01h455vb4pex5vsknk084sn02")
    g = idmint.TypeIdGenerator("order", "sub_millisecond")
    assert g.prefix == "order" and "order" in repr(g)
    assert g.next_at(1, bytes(10)) < g.next_at(1, bytes(10))


def test_ulid() -> None:
    us = [idmint.ulid() for _ in range(1000)]
    assert all(type(u) is str and len(u) == 26 for u in us)
    assert us == sorted(us) and len(set(us)) == len(us)
    u = idmint.Ulid.parse(us[0])
    assert str(u) == us[0] and repr(u) == f"Ulid('{us[0]}')"
    assert type(u.uuid) is uuid.UUID and u.uuid.int == u.int
    assert idmint.Ulid.parse(us[1]) > u
    with pytest.raises(idmint.OutOfRange):
        idmint.Ulid.from_parts(1 << 48, 0)
    with pytest.raises(idmint.InvalidArgument):
        idmint.Ulid.from_parts(0, 1 << 80)
    with pytest.raises(idmint.InvalidEncoding):
        idmint.Ulid.parse("01ARYZ6S41YYYYYYYYYYYYYYYU")
    g = idmint.UlidGenerator()
    assert g.last is None and repr(g) == "<UlidGenerator>"
    with pytest.raises(ValueError):
        g.next_at(0, b"")
