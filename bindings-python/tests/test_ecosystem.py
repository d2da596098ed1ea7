"""Cross-checks against the ecosystem's own packages, in the same process (versions pinned in
test.sh): `uuid6` and `uuid-utils` for UUID v6/v7/v8, `typeid-python` for TypeIDs and
`python-ulid` for ULIDs, `svix-ksuid` for KSUIDs. Each reads what the other makes: same version,
time and bits."""

from __future__ import annotations

import time
import uuid

import typeid as typeid_py
from ksuid import Ksuid as SvixKsuid
import ulid as ulid_py
import uuid6 as uuid6_py
import uuid_utils

import idmint

# 100 ns ticks between 1582-10-15 and the Unix epoch.
GREGORIAN_OFFSET = 0x01B21DD213814000


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _close(ms: int, before: int) -> bool:
    # idmint's uuid7() and ulid() read the coarse clock: up to a kernel tick (4 ms, more on a
    # busy VM) behind the wall clock, never ahead of it.
    return before - 20 <= ms <= _now_ms() + 5


# --- uuid6 (the package) -----------------------------------------------------------------------


def test_uuid6_package_v6_v7_v8_read_by_idmint() -> None:
    before = _now_ms()
    for _ in range(50):
        v6 = uuid6_py.uuid6()
        info = idmint.uuid_info(v6)
        assert (info.version, info.variant) == (6, "rfc9562")
        assert info.unix_ms == (v6.time - GREGORIAN_OFFSET) // 10_000
        assert _close(info.unix_ms, before)
        # v6 -> v1 -> v6 keeps every bit, and the v1 reads the same time in the stdlib.
        v1 = idmint.uuid6_to_uuid1(v6)
        assert v1.version == 1 and v1.time == v6.time
        assert idmint.uuid1_to_uuid6(v1) == v6
        v7 = uuid6_py.uuid7()
        info = idmint.uuid_info(v7)
        assert (info.version, info.unix_ms) == (7, v7.time)
        v8 = uuid6_py.uuid8()
        assert idmint.uuid_info(v8).version == 8
        fields = idmint.uuid8_fields(v8)
        assert fields is not None
        assert idmint.uuid8_from_fields(*fields) == v8
        assert idmint.uuid8(v8.bytes) == v8


def test_idmint_v6_v7_v8_read_by_uuid6_package() -> None:
    before = _now_ms()
    for _ in range(50):
        ours6 = idmint.uuid6()
        theirs = uuid6_py.UUID(int=ours6.int)
        assert theirs.version == 6
        assert (theirs.time - GREGORIAN_OFFSET) // 10_000 == idmint.uuid_info(ours6).unix_ms
        assert _close((theirs.time - GREGORIAN_OFFSET) // 10_000, before)
        ours7 = idmint.uuid7()
        theirs = uuid6_py.UUID(int=ours7.int)
        assert theirs.version == 7 and _close(theirs.time, before)
        assert theirs.time == idmint.uuid_info(ours7).unix_ms
        ours8 = idmint.uuid8_from_fields(1, 2, 3)
        assert uuid6_py.UUID(int=ours8.int).version == 8
    # The package's v1 -> v6 conversion agrees with ours, on stdlib and idmint v1 UUIDs.
    for v1 in (uuid.uuid1(), idmint.uuid1(), uuid.UUID("c232ab00-9414-11ec-b3c8-9f6bdeced846")):
        assert idmint.uuid1_to_uuid6(v1) == uuid6_py.uuid1_to_uuid6(v1)


# --- uuid-utils ----------------------------------------------------------------------------------


def test_uuid_utils_v6_v7_v8_read_by_idmint() -> None:
    before = _now_ms()
    for _ in range(50):
        v6 = uuid_utils.uuid6()
        info = idmint.uuid_info(str(v6))
        assert info.version == 6 and info.unix_ms == v6.timestamp
        assert _close(v6.timestamp, before)
        v1 = idmint.uuid6_to_uuid1(str(v6))
        assert v1.time == v6.time and str(idmint.uuid1_to_uuid6(v1)) == str(v6)
        v7 = uuid_utils.uuid7()
        info = idmint.uuid_info(str(v7))
        assert info.version == 7 and info.unix_ms == v7.timestamp
    a, b, c = 0x2489E9AD2EE2, 0xE00, 0x0EC932D5F69181C0  # RFC 9562 B.1
    theirs8 = uuid_utils.uuid8(a, b, c)
    assert str(theirs8) == "2489e9ad-2ee2-8e00-8ec9-32d5f69181c0"
    assert idmint.uuid8_fields(str(theirs8)) == (a, b, c)
    assert str(idmint.uuid8_from_fields(a, b, c)) == str(theirs8)


def test_idmint_v6_v7_read_by_uuid_utils() -> None:
    for _ in range(50):
        ours6 = idmint.uuid6()
        theirs = uuid_utils.UUID(str(ours6))
        assert theirs.version == 6 and theirs.timestamp == idmint.uuid_info(ours6).unix_ms
        ours7 = idmint.uuid7()
        theirs = uuid_utils.UUID(str(ours7))
        assert theirs.version == 7 and theirs.timestamp == idmint.uuid_info(ours7).unix_ms
    for ours in idmint.uuid7s(100):
        assert uuid_utils.UUID(int=ours.int).version == 7


# --- typeid-python -------------------------------------------------------------------------------


def test_typeid_python_ids_parse_in_idmint() -> None:
    for prefix in ("user", "a_b", "x" * 63, ""):
        theirs = typeid_py.TypeID(prefix=prefix or None)
        ours = idmint.TypeId.parse(str(theirs))
        assert ours.prefix == prefix
        assert ours.uuid == uuid.UUID(str(theirs.uuid))
        assert str(ours) == str(theirs)
        assert ours.suffix == theirs.suffix


def test_idmint_typeids_parse_in_typeid_python() -> None:
    for prefix in ("user", "a_b", "x" * 63, ""):
        text = idmint.typeid(prefix)
        theirs = typeid_py.TypeID.from_string(text)
        assert (theirs.prefix or "") == prefix
        ours = idmint.TypeId.parse(text)
        assert str(theirs.uuid) == str(ours.uuid) and ours.uuid.version == 7
        # The other direction of encoding: their TypeID of our UUID is our text.
        again = typeid_py.TypeID.from_uuid(uuid_utils.UUID(str(ours.uuid)), prefix or None)
        assert str(again) == text


# --- python-ulid ---------------------------------------------------------------------------------


def test_python_ulid_ids_parse_in_idmint() -> None:
    for _ in range(50):
        theirs = ulid_py.ULID()
        ours = idmint.Ulid.parse(str(theirs))
        assert str(ours) == str(theirs)
        assert ours.timestamp_ms == theirs.milliseconds
        assert ours.uuid == theirs.to_uuid()
        assert ours.int == int(theirs)
        assert idmint.Ulid.parse(str(theirs).lower()) == ours


def test_idmint_ulids_parse_in_python_ulid() -> None:
    before = _now_ms()
    prev = None
    for _ in range(50):
        text = idmint.ulid()
        theirs = ulid_py.ULID.from_str(text)
        ours = idmint.Ulid.parse(text)
        assert str(theirs) == text
        assert theirs.milliseconds == ours.timestamp_ms and _close(ours.timestamp_ms, before)
        assert theirs.to_uuid() == ours.uuid
        assert ulid_py.ULID.from_uuid(ours.uuid) == theirs
        assert prev is None or theirs > prev
        prev = theirs


# --- svix-ksuid ----------------------------------------------------------------------------------


def test_svix_ksuids_parse_in_idmint() -> None:
    for _ in range(50):
        theirs = SvixKsuid()
        ours = idmint.Ksuid.parse(str(theirs))
        assert str(ours) == str(theirs)
        assert ours.bytes == bytes(theirs)
        assert ours.payload == theirs.payload
        assert ours.unix_ms == int(theirs.timestamp) * 1000


def test_idmint_ksuids_parse_in_svix_ksuid() -> None:
    before = int(time.time())
    prev = None
    for _ in range(50):
        text = idmint.ksuid()
        theirs = SvixKsuid.from_base62(text)
        assert str(theirs) == text
        assert bytes(theirs) == idmint.Ksuid.parse(text).bytes
        assert before - 1 <= theirs.timestamp <= time.time() + 1
        assert prev is None or prev < theirs
        prev = theirs
    # Fixed bytes, the largest KSUID included: the same text from both.
    for payload in (bytes(16), b"\xff" * 16, bytes(range(16))):
        for seconds in (0, 107_608_047, 2**32 - 1):
            ours = idmint.Ksuid.from_parts(seconds, payload)
            assert str(SvixKsuid.from_bytes(ours.bytes)) == str(ours)
