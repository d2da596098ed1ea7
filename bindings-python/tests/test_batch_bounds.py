"""Batch calls are bounded, and filling a caller's array is safe against concurrent resizes.

Every call that takes a count refuses more than `idmint.MAX_BATCH` IDs with LimitExceeded (the
core's one constant) instead of attempting a huge allocation. `next_ids_into` holds a buffer
export on the array while it writes without the GIL, so another thread resizing the array gets
BufferError instead of freeing the memory being written.
"""

from __future__ import annotations

import array
import threading
from pathlib import Path
from typing import Any, Callable

import pytest

import idmint

T0 = 1_700_000_000_000


def test_max_batch_is_the_cores_limit() -> None:
    assert idmint.MAX_BATCH == 1 << 24


def _batch_calls(tmp_path: Path) -> list[tuple[str, Callable[[int], Any]]]:
    gen = idmint.Snowflake(node=1)
    atomic = idmint.AtomicSnowflake(node=2)
    leased = idmint.LeasedSnowflake(f"file:{tmp_path / 'leases'}")
    segments = idmint.SegmentAllocator(f"sqlite:{tmp_path / 'seg.db'}")
    return [
        ("Snowflake.next_ids", gen.next_ids),
        ("Snowflake.next_ids_list", gen.next_ids_list),
        ("Snowflake.next_ids_at", lambda n: gen.next_ids_at(3_000_000_000_000, n)),
        ("AtomicSnowflake.next_ids_at", lambda n: atomic.next_ids_at(T0, n)),
        ("LeasedSnowflake.next_ids", leased.next_ids),
        ("LeasedSnowflake.next_ids_list", leased.next_ids_list),
        ("SegmentAllocator.next_ids", lambda n: segments.next_ids("orders", n)),
    ]


@pytest.mark.parametrize("n", [(1 << 24) + 1, 2**40, 2**64 - 1])
def test_every_batch_call_refuses_more_than_max_batch(n: int, tmp_path: Path) -> None:
    """A count above the limit raises LimitExceeded naming what and the limit, at once and
    without allocating, in every batch call of the package."""
    for name, call in _batch_calls(tmp_path):
        with pytest.raises(idmint.LimitExceeded) as info:
            call(n)
        e = info.value
        assert (e.code, e.what, e.limit) == ("ERR_LIMIT_EXCEEDED", "IDs in one call", idmint.MAX_BATCH), name
        assert str(e) == f"IDs in one call exceeds the limit of {idmint.MAX_BATCH}", name


def test_counts_up_to_the_limit_are_served(tmp_path: Path) -> None:
    """The limit itself is allowed (the sans-IO call returns what one tick holds)."""
    atomic = idmint.AtomicSnowflake(node=3)
    assert len(atomic.next_ids_at(T0, idmint.MAX_BATCH)) == 4096
    for name, call in _batch_calls(tmp_path):
        assert len(call(1000)) == 1000, name


def test_next_ids_into_fills_the_whole_array() -> None:
    gen = idmint.Snowflake(node=4)
    out = array.array("Q", bytes(8 * 10_000))
    assert gen.next_ids_into(out) == 10_000
    assert all(a < b for a, b in zip(out, out[1:])) and out[0] > 0
    assert all(gen.decode(i).node == 4 for i in out[:10])
    assert gen.next_ids_into(array.array("Q")) == 0
    # The array can be resized again once the call returned (the export was given back).
    out.append(0)
    del out[:]


def test_next_ids_into_refuses_what_is_not_an_array_of_u64() -> None:
    """Only an array.array of 8-byte unsigned items is written to; a subclass is refused too,
    since its methods could misreport the buffer."""
    gen = idmint.Snowflake(node=5)

    class Sub(array.array):  # type: ignore[type-arg]
        pass

    for bad in ([0] * 8, bytearray(64), array.array("I", [0] * 8), array.array("q", [0] * 8),
                Sub("Q", [0] * 8), memoryview(bytearray(64)), None, 8):
        with pytest.raises(TypeError):
            gen.next_ids_into(bad)  # type: ignore[arg-type]


def test_next_ids_into_refuses_an_array_above_max_batch() -> None:
    gen = idmint.Snowflake(node=6)
    big = array.array("Q", bytes(8 * (idmint.MAX_BATCH + 1)))
    with pytest.raises(idmint.LimitExceeded):
        gen.next_ids_into(big)
    assert not any(big[:16]), "nothing written"


def test_resizing_the_array_during_a_fill_raises_buffer_error() -> None:
    """While one thread fills a large array (about a second at 4,096 IDs per ms, without the
    GIL), another thread tries to grow it: every attempt while the fill is under way raises
    BufferError, and the array ends up holding exactly the strictly increasing IDs written,
    never a buffer that moved away under the writer."""
    gen = idmint.Snowflake(node=7)
    n = 1 << 22
    refused = 0
    for _attempt in range(10):
        out = array.array("Q", bytes(8 * n))
        errors: list[BaseException] = []

        def fill(out: array.array[int] = out) -> None:
            try:
                gen.next_ids_into(out)
            except BaseException as e:  # noqa: BLE001 - reported to the test
                errors.append(e)

        t = threading.Thread(target=fill)
        t.start()
        grown = 0
        while t.is_alive():
            # Under way: the first slot is written and the last one not yet.
            if out[0] != 0 and out[n - 1] == 0:
                try:
                    out.append(0)
                except BufferError:
                    refused += 1
                else:
                    grown += 1  # only possible in the instant after the fill returned
        t.join(timeout=120)
        assert not errors, errors
        assert len(out) == n + grown
        ids = out[:n]
        assert ids[0] != 0 and all(a < b for a, b in zip(ids, ids[1:])), "a slot was not written"
        if refused:
            break
    assert refused >= 1, "no resize was attempted while a fill was under way"
