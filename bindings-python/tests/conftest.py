"""Shared helpers: where the vectors live and how an expected error object is compared."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import idmint

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "vectors"

# Error fields that hold a u64 (written as decimal strings in the vectors).
U64_FIELDS = {"until_ms", "by_ms", "last_ms", "tick_ms", "end_ms", "now_ms", "epoch_ms", "value", "max", "limit"}

CLASS_BY_CODE = {
    "ERR_INVALID_LAYOUT": idmint.InvalidLayout,
    "ERR_LAYOUT_EXPIRED": idmint.LayoutExpired,
    "ERR_BEFORE_EPOCH": idmint.BeforeEpoch,
    "ERR_OUT_OF_RANGE": idmint.OutOfRange,
    "ERR_CLOCK_BACKWARDS": idmint.ClockBackwards,
    "ERR_SEQUENCE_EXHAUSTED": idmint.SequenceExhausted,
    "ERR_WOULD_BLOCK": idmint.WouldBlock,
    "ERR_FORKED": idmint.Forked,
    "ERR_INVALID_CONFIG": idmint.InvalidConfig,
    "ERR_INVALID_ENCODING": idmint.InvalidEncoding,
    "ERR_BUFFER_TOO_SMALL": idmint.BufferTooSmall,
    "ERR_RANDOM_SOURCE": idmint.RandomSource,
    "ERR_STORE_UNAVAILABLE": idmint.StoreUnavailable,
    "ERR_LEASE_LOST": idmint.LeaseLost,
    "ERR_NO_FREE_NODE": idmint.NoFreeNode,
    "ERR_NODE_REQUIRED": idmint.NodeRequired,
    "ERR_STORE_MISMATCH": idmint.StoreMismatch,
    "ERR_LIMIT_EXCEEDED": idmint.LimitExceeded,
    "ERR_INVALID_ARGUMENT": idmint.InvalidArgument,
}


def load(name: str) -> Any:
    with open(VECTORS / name, encoding="utf-8") as f:
        return json.load(f)


def check_error(exc: BaseException, expect: dict[str, Any]) -> None:
    """`exc` is the exception the vector's error object describes: class, code, message and
    every field."""
    assert isinstance(exc, idmint.IdmintError), repr(exc)
    code = expect["error"]
    assert type(exc) is CLASS_BY_CODE[code], (type(exc), code)
    assert exc.code == code
    if code == "ERR_NODE_REQUIRED":
        # The core's text, then how to choose in this package's API (vectors/README.md).
        assert str(exc).startswith(expect["message"] + " (in Python: "), str(exc)
    else:
        assert str(exc) == expect["message"]
    for key, want in expect.items():
        if key in ("error", "message"):
            continue
        got = getattr(exc, key)
        if key in U64_FIELDS:
            assert got == int(want), (key, got, want)
        else:
            assert got == want, (key, got, want)


def expect_call(fn: Any, expect: dict[str, Any]) -> Any:
    """Calls `fn()`; if `expect` is an error object checks the raised error and returns None,
    else returns the result."""
    if "error" in expect:
        with pytest.raises(idmint.IdmintError) as info:
            fn()
        check_error(info.value, expect)
        return None
    return fn()
