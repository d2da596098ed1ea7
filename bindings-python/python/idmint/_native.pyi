"""Type stubs of the native module `idmint._native` (re-exported by `idmint`).

Checked against the built module by `python -m mypy.stubtest idmint` (see test.sh).
"""

import array
import builtins
import datetime as _dt
import os
import uuid as _uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Literal, final

from typing_extensions import Self, TypeAlias

__all__ = [
    "__version__",
    "MAX_BATCH",
    "IdmintError",
    "InvalidLayout",
    "LayoutExpired",
    "BeforeEpoch",
    "OutOfRange",
    "ClockBackwards",
    "SequenceExhausted",
    "WouldBlock",
    "Forked",
    "InvalidConfig",
    "InvalidEncoding",
    "BufferTooSmall",
    "RandomSource",
    "StoreUnavailable",
    "LeaseLost",
    "NoFreeNode",
    "NodeRequired",
    "StoreMismatch",
    "LimitExceeded",
    "InvalidArgument",
    "Closed",
    "Layout",
    "Field",
    "Parts",
    "PRESETS",
    "Snowflake",
    "AtomicSnowflake",
    "Stats",
    "Run",
    "encode",
    "parse_id",
    "parse_any",
    "AnyId",
    "CODECS",
    "Obfuscator",
    "SortableObfuscator",
    "UuidGenerator",
    "UuidInfo",
    "uuid1",
    "uuid3",
    "uuid4",
    "uuid5",
    "uuid7",
    "uuid7_at",
    "uuid1_at",
    "uuid1_random_node",
    "parse_uuid",
    "uuid_info",
    "uuid6",
    "uuid6_at",
    "uuid8",
    "uuid8_from_fields",
    "uuid8_fields",
    "uuid8_sha256",
    "uuid1_to_uuid6",
    "uuid6_to_uuid1",
    "uuid7s",
    "Uuid7Generator",
    "NIL",
    "MAX",
    "typeid",
    "ulid",
    "TypeId",
    "Ulid",
    "TypeIdGenerator",
    "UlidGenerator",
    "ksuid",
    "Ksuid",
    "KsuidGenerator",
    "from_config",
    "NamedGenerator",
    "LeasedSnowflake",
    "LeaseInfo",
    "LeaseStats",
    "SegmentAllocator",
    "SegmentKeyStats",
    "_bench_floor",
]

__version__: str
MAX_BATCH: int
"""Most IDs one batch call (`next_ids`, `next_ids_list`, `next_ids_at`, `next_ids_into`) makes."""
PRESETS: list[str]
CODECS: list[str]

_NodeValue: TypeAlias = int | Mapping[str, int]
"""A whole node value, or node sub-field values by name (`{"datacenter": 1, "worker": 2}`)."""

# ----------------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------------

class IdmintError(Exception):
    """Base class of every idmint error; `.code` is the stable code shared by all surfaces."""

    code: str

class InvalidLayout(IdmintError, ValueError):
    """A layout spec, preset name or named-generator config is invalid."""

    code: str  # "ERR_INVALID_LAYOUT"
    at: int | None
    reason: str

class LayoutExpired(IdmintError):
    """The layout's time field cannot represent the time any more."""

    code: str  # "ERR_LAYOUT_EXPIRED"
    end_ms: int

class BeforeEpoch(IdmintError):
    """A time before the layout's epoch."""

    code: str  # "ERR_BEFORE_EPOCH"
    now_ms: int
    epoch_ms: int

class OutOfRange(IdmintError, ValueError):
    """A value does not fit its field. Ints outside 0..2**64 raise OverflowError instead."""

    code: str  # "ERR_OUT_OF_RANGE"
    field: str
    value: int
    max: int

class ClockBackwards(IdmintError):
    """The clock went back further than the on_backwards policy allows."""

    code: str  # "ERR_CLOCK_BACKWARDS"
    by_ms: int
    last_ms: int

class SequenceExhausted(IdmintError):
    """Every sequence value of the tick is used and on_exhausted is 'fail'."""

    code: str  # "ERR_SEQUENCE_EXHAUSTED"
    tick_ms: int

class WouldBlock(IdmintError):
    """Not a failure: no ID can be issued before `until_ms` (sans-IO calls)."""

    code: str  # "ERR_WOULD_BLOCK"
    until_ms: int

class Forked(IdmintError):
    """The generator was created before os.fork(); call set_node(new_node) in the child."""

    code: str  # "ERR_FORKED"

class InvalidConfig(IdmintError, ValueError):
    """A generator, policy, codec or obfuscation configuration is invalid."""

    code: str  # "ERR_INVALID_CONFIG"
    reason: str

class InvalidEncoding(IdmintError, ValueError):
    """Text could not be decoded."""

    code: str  # "ERR_INVALID_ENCODING"
    codec: str
    at: int
    reason: str

class BufferTooSmall(IdmintError):
    """An output buffer is too small (not raised by the Python API)."""

    code: str  # "ERR_BUFFER_TOO_SMALL"
    needed: int

class RandomSource(IdmintError):
    """The operating system's random source failed."""

    code: str  # "ERR_RANDOM_SOURCE"

class StoreUnavailable(IdmintError, ConnectionError):
    """A lease or segment store could not be reached or answered with an error.

    Nothing was issued on the strength of the failed call; retrying later may succeed.
    """

    code: str  # "ERR_STORE_UNAVAILABLE"
    store: str
    op: str
    reason: str

class LeaseLost(IdmintError):
    """The node lease was not renewed in time or was taken over; the generator stopped minting."""

    code: str  # "ERR_LEASE_LOST"
    node: int
    reason: str

class NoFreeNode(IdmintError):
    """Every node of the node space is leased by a live holder."""

    code: str  # "ERR_NO_FREE_NODE"
    nodes: int

class NodeRequired(IdmintError, ValueError):
    """No node was given.

    Two processes on one node mint the same IDs, so there is no default: pass ``node=N`` (one no
    other process uses), lease one with ``LeasedSnowflake("local")`` (this host's lock
    directory) or ``LeasedSnowflake("redis://...")`` / ``"postgres://..."`` (many hosts), or
    take ``LeasedSnowflake("random")`` knowing its collision odds.
    """

    code: str  # "ERR_NODE_REQUIRED"

class StoreMismatch(IdmintError):
    """A journal or shard set does not match the store it was recorded with; resuming would repeat values."""

    code: str  # "ERR_STORE_MISMATCH"
    store: str
    reason: str

class LimitExceeded(IdmintError, ValueError):
    """A request is larger than idmint does in one call."""

    code: str  # "ERR_LIMIT_EXCEEDED"
    what: str
    limit: int

class InvalidArgument(IdmintError, KeyError, ValueError):
    """An argument names something that does not exist or leaves out something required: an
    unknown option key, an unknown, missing or repeated node sub-field. Also a KeyError (a
    missing name) and a ValueError; `str(e)` is the core's message, unquoted."""

    code: str  # "ERR_INVALID_ARGUMENT"
    argument: str
    reason: str

class Closed(IdmintError, ValueError):
    """The object was closed (close() or the end of its with block): only close() may follow.
    Also a ValueError, as for a closed file."""

    code: str  # "ERR_CLOSED"
    what: str

# ----------------------------------------------------------------------------------------------
# Layouts
# ----------------------------------------------------------------------------------------------

@final
class Field:
    """One bit field of a layout."""

    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str:
        """`time`, `node`, `sequence` or `rollback`."""
    @property
    def bits(self) -> int: ...
    @property
    def shift(self) -> int: ...
    @property
    def max(self) -> int: ...

@final
class Parts:
    """The field values of one ID."""

    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

    @property
    def time(self) -> int:
        """Ticks since the layout's epoch."""
    @property
    def node(self) -> int:
        """The whole node value."""
    @property
    def sequence(self) -> int: ...
    @property
    def rollback(self) -> int: ...
    @property
    def timestamp_ms(self) -> int:
        """Start of the ID's tick, ms since the Unix epoch."""
    @property
    def node_fields(self) -> dict[str, int]:
        """The node split into its named sub-fields, in layout order."""
    @property
    def datetime(self) -> _dt.datetime:
        """Start of the ID's tick, aware UTC."""

@final
class Layout:
    """A validated ID layout: a preset name or a text spec such as
    `time=41@1ms,worker=10,seq=12,epoch=2020-01-01`."""

    def __new__(cls, spec: str) -> Self: ...
    @staticmethod
    def parse(spec: str) -> Layout: ...
    @staticmethod
    def preset(name: str) -> Layout: ...
    @property
    def spec(self) -> str: ...
    @property
    def preset_name(self) -> str | None: ...
    @property
    def width(self) -> int: ...
    @property
    def epoch_ms(self) -> int: ...
    @property
    def epoch(self) -> _dt.datetime: ...
    @property
    def tick_ms(self) -> int: ...
    @property
    def max_id(self) -> int: ...
    @property
    def max_node(self) -> int: ...
    @property
    def max_sequence(self) -> int: ...
    @property
    def max_time(self) -> int: ...
    @property
    def node_bits(self) -> int: ...
    @property
    def is_js_safe(self) -> bool: ...
    @property
    def capacity_per_second(self) -> int: ...
    @property
    def lifetime_end_ms(self) -> int: ...
    @property
    def lifetime_end(self) -> _dt.datetime | None:
        """Aware UTC; None when it lies past year 9999, beyond datetime (see lifetime_end_ms)."""
    @property
    def fields(self) -> tuple[Field, ...]: ...
    @property
    def node_names(self) -> list[str]: ...
    def compose(
        self, *, time: int = 0, node: _NodeValue = 0, sequence: int = 0, rollback: int = 0
    ) -> int: ...
    def decompose(self, id: int) -> Parts: ...
    def timestamp_ms(self, id: int) -> int: ...
    def datetime(self, id: int) -> _dt.datetime: ...
    def tick_at(self, now_ms: int) -> int: ...
    def tick_start_ms(self, tick: int) -> int: ...
    def is_expired_at(self, now_ms: int) -> bool: ...
    def split_node(self, node: int) -> dict[str, int]: ...
    def join_node(self, values: Mapping[str, int]) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[type[Layout], tuple[str]]: ...

# ----------------------------------------------------------------------------------------------
# Generators
# ----------------------------------------------------------------------------------------------

@final
class Stats:
    """A generator's counters."""

    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

    @property
    def rollbacks(self) -> int: ...
    @property
    def wait_ms(self) -> int: ...
    @property
    def max_ahead_ms(self) -> int: ...
    @property
    def exhaustions(self) -> int: ...
    def as_dict(self) -> dict[str, int]: ...

@final
class Run:
    """A run of IDs reserved with one swap: first, first + stride, ... (count of them)."""

    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

    @property
    def first(self) -> int: ...
    @property
    def count(self) -> int: ...
    @property
    def stride(self) -> int: ...
    @property
    def last(self) -> int: ...
    def __len__(self) -> int: ...
    def __getitem__(self, key: int, /) -> int: ...
    def __iter__(self) -> Iterator[int]: ...
    def to_list(self) -> list[int]: ...

@final
class Snowflake:
    """A thread-safe, fork-safe Snowflake generator on the system clock.

    After os.fork() the child's copy raises Forked until given a node of its own
    with set_node(); the parent carries on. Without a node it raises NodeRequired.
    """

    def __new__(
        cls,
        layout: Layout | str = "twitter",
        node: _NodeValue | None = None,
        on_backwards: str = "wait:1000",
        on_exhausted: str = "wait",
        sequence_start: str = "zero",
        seed: int | None = None,
        fence_ms: int | None = None,
    ) -> Self: ...
    @staticmethod
    def from_config(config: str) -> Snowflake: ...
    def next_id(self) -> int: ...
    def try_next_id(self) -> int: ...
    def next_ids(self, n: int) -> array.array[int]: ...
    def next_ids_into(self, out: array.array[int]) -> int: ...
    def next_ids_list(self, n: int) -> list[int]: ...
    def reserve(self, max: int) -> Run: ...
    def next_id_at(self, now_ms: int) -> int: ...
    def reserve_at(self, now_ms: int, max: int) -> Run: ...
    def next_ids_at(self, now_ms: int, n: int) -> array.array[int]: ...
    def decode(self, id: int) -> Parts: ...
    def stats(self) -> Stats: ...
    def set_node(self, node: _NodeValue) -> None: ...
    @property
    def node(self) -> int: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def config(self) -> str: ...
    @property
    def on_backwards(self) -> str: ...
    @property
    def on_exhausted(self) -> str: ...
    @property
    def sequence_start(self) -> str: ...
    @property
    def fence_ms(self) -> int | None: ...
    @property
    def kind(self) -> str: ...
    def __iter__(self) -> Snowflake: ...
    def __next__(self) -> int: ...

@final
class AtomicSnowflake:
    """The lock-free, sans-IO generator: pass now_ms; no clock, no waiting, no fork check."""

    def __new__(
        cls,
        layout: Layout | str = "twitter",
        node: _NodeValue | None = None,
        on_backwards: str = "wait:1000",
        on_exhausted: str = "wait",
        sequence_start: str = "zero",
        seed: int | None = None,
        fence_ms: int | None = None,
    ) -> Self: ...
    @staticmethod
    def from_config(config: str) -> AtomicSnowflake: ...
    def next_id_at(self, now_ms: int) -> int: ...
    def reserve_at(self, now_ms: int, max: int) -> Run: ...
    def next_ids_at(self, now_ms: int, n: int) -> array.array[int]: ...
    def decode(self, id: int) -> Parts: ...
    def stats(self) -> Stats: ...
    def set_node(self, node: _NodeValue) -> None: ...
    @property
    def node(self) -> int: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def config(self) -> str: ...
    @property
    def fence_ms(self) -> int | None: ...
    @property
    def max_rollback_ticks(self) -> int | None: ...

def from_config(config: str) -> Snowflake | UuidGenerator | NamedGenerator:
    """The clocked generator a named config describes (`type=snowflake,...`, `type=uuid7`, JSON):
    a `Snowflake` or `UuidGenerator` for the core's types, a `NamedGenerator` for the
    store-backed ones (`type=segment,store=URL,key=KEY`, `type=snowflake,...,lease=URL`)."""

@final
class NamedGenerator:
    """Any generator by name, the same config on every idmint surface: the core's types,
    `type=segment,store=URL,key=KEY[,step=N,journal=PATH,...]` (a segment allocator serving one
    key) or `type=snowflake,layout=...,lease=URL[,namespace=...,ttl_ms=...]` (a leased node).

    Thread-safe. `close()` (or leaving a `with` block) releases a leased node and records a
    segment journal.
    """

    def __new__(cls, config: str) -> Self: ...
    def next_id(self) -> int | _uuid.UUID:
        """An `int` for 64-bit types, a `uuid.UUID` for UUID types."""
    def next_ids(self, n: int) -> array.array[int]:
        """The next `n` IDs of a 64-bit type; a UUID type raises InvalidConfig."""
    def next_at(
        self, now_ms: int, random: Callable[[int], bytes] | None = None
    ) -> int | _uuid.UUID:
        """Sans-IO, for the core's types: the next ID at `now_ms` (ms since the Unix epoch), the
        same on every surface. `random(n)` returns `n` bytes (None: the OS's) and may call this
        generator again or close it. A store-backed type raises InvalidConfig."""
    @property
    def kind(self) -> str: ...
    @property
    def config(self) -> str: ...
    def __iter__(self) -> Self: ...
    def __next__(self) -> int | _uuid.UUID: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None:
        """Releases the lease or records the journal. Idempotent."""
    def __enter__(self) -> Self: ...
    def __exit__(self, exc_type: object, exc_value: object, traceback: object) -> None: ...

# ----------------------------------------------------------------------------------------------
# Codecs and obfuscation
# ----------------------------------------------------------------------------------------------

def encode(id: int, codec: str = "decimal") -> str: ...
def parse_id(text: str, codec: str | None = None) -> int: ...
@final
class Obfuscator:
    """A keyed permutation of [0, 2**bits). Obfuscation, not encryption."""

    def __new__(cls, key: int, bits: int) -> Self: ...
    @staticmethod
    def for_layout(key: int, layout: Layout | str) -> Obfuscator: ...
    @property
    def bits(self) -> int: ...
    @property
    def max(self) -> int: ...
    def encode(self, x: int) -> int: ...
    def decode(self, y: int) -> int: ...

@final
class SortableObfuscator:
    """Obfuscates the bits below a layout's time field; IDs stay time-sorted."""

    def __new__(cls, key: int, layout: Layout | str) -> Self: ...
    @property
    def low_bits(self) -> int: ...
    def encode(self, id: int) -> int: ...
    def decode(self, id: int) -> int: ...

# ----------------------------------------------------------------------------------------------
# UUIDs
# ----------------------------------------------------------------------------------------------

@final
class UuidInfo:
    """What a UUID says about itself."""

    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

    @property
    def version(self) -> int: ...
    @property
    def variant(self) -> str:
        """`ncs`, `rfc9562`, `microsoft` or `future`."""
    @property
    def unix_ms(self) -> int | None: ...

@final
class UuidGenerator:
    """A clocked UUID generator (version 1, 4, 6 or 7) with a sans-IO next_at for replays."""

    def __new__(cls, version: int = 7) -> Self: ...
    @staticmethod
    def from_config(config: str) -> UuidGenerator: ...
    def next(self) -> _uuid.UUID: ...
    def next_at(
        self, now_ms: int, random: Callable[[int], bytes] | None = None
    ) -> _uuid.UUID: ...
    @property
    def kind(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def config(self) -> str: ...
    def __iter__(self) -> UuidGenerator: ...
    def __next__(self) -> _uuid.UUID: ...

@final
class Uuid7Generator:
    """Sans-IO monotonic version 7 UUIDs by one of RFC 9562's methods: `counter` (default),
    `random_increment` or `sub_millisecond`; fed the time and 10 random bytes per call."""

    def __new__(cls, method: str = "counter") -> Self: ...
    def next_at(self, unix_ms: int, random: bytes, sub_ms_nanos: int = 0) -> _uuid.UUID: ...
    @property
    def method(self) -> str: ...
    @property
    def last_unix_ms(self) -> int | None: ...

@final
class TypeId:
    """A TypeID: a type prefix and a UUID; `str()` is its text form."""

    def __new__(cls, prefix: str, uuid: _uuid.UUID | str) -> Self: ...
    @staticmethod
    def parse(text: str) -> TypeId: ...
    @property
    def prefix(self) -> str: ...
    @property
    def uuid(self) -> _uuid.UUID: ...
    @property
    def suffix(self) -> str: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __lt__(self, other: TypeId, /) -> bool: ...
    def __le__(self, other: TypeId, /) -> bool: ...
    def __gt__(self, other: TypeId, /) -> bool: ...
    def __ge__(self, other: TypeId, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Ulid:
    """A ULID: a 48-bit ms timestamp and 80 random bits; `str()` is the upper-case text."""

    @staticmethod
    def parse(text: str) -> Ulid: ...
    @staticmethod
    def from_parts(timestamp_ms: int, random: int) -> Ulid: ...
    @staticmethod
    def from_uuid(u: _uuid.UUID | str) -> Ulid: ...
    @property
    def timestamp_ms(self) -> int: ...
    @property
    def random(self) -> int: ...
    @property
    def int(self) -> builtins.int: ...
    @property
    def uuid(self) -> _uuid.UUID: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __lt__(self, other: Ulid, /) -> bool: ...
    def __le__(self, other: Ulid, /) -> bool: ...
    def __gt__(self, other: Ulid, /) -> bool: ...
    def __ge__(self, other: Ulid, /) -> bool: ...
    def __hash__(self) -> builtins.int: ...

@final
class TypeIdGenerator:
    """Sans-IO TypeIDs of one prefix on monotonic v7 UUIDs (`method` as for Uuid7Generator)."""

    def __new__(cls, prefix: str, method: str = "counter") -> Self: ...
    def next_at(self, unix_ms: int, random: bytes) -> TypeId: ...
    @property
    def prefix(self) -> str: ...

@final
class UlidGenerator:
    """Sans-IO monotonic ULIDs; WouldBlock when the 80-bit part cannot grow in the ms."""

    def __new__(cls) -> Self: ...
    def next_at(self, unix_ms: int, random: bytes) -> Ulid: ...
    @property
    def last(self) -> Ulid | None: ...

@final
class Ksuid:
    """A KSUID: 32-bit seconds since 2014-05-13T16:53:20Z and a 128-bit payload; `str()` is the
    27-character base62 text."""

    @staticmethod
    def parse(text: str) -> Ksuid: ...
    @staticmethod
    def from_parts(timestamp: int, payload: builtins.bytes) -> Ksuid: ...
    @staticmethod
    def from_unix_ms(unix_ms: int, payload: builtins.bytes) -> Ksuid: ...
    @property
    def timestamp(self) -> int: ...
    @property
    def unix_ms(self) -> int: ...
    @property
    def payload(self) -> builtins.bytes: ...
    @property
    def bytes(self) -> builtins.bytes: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __lt__(self, other: Ksuid, /) -> bool: ...
    def __le__(self, other: Ksuid, /) -> bool: ...
    def __gt__(self, other: Ksuid, /) -> bool: ...
    def __ge__(self, other: Ksuid, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class KsuidGenerator:
    """Sans-IO KSUIDs; the last plus one within a second; WouldBlock when the payload is full."""

    def __new__(cls) -> Self: ...
    def next_at(self, unix_ms: int, random: bytes) -> Ksuid: ...
    @property
    def last(self) -> Ksuid | None: ...

@final
class AnyId:
    """What `parse_any` read: the kind, the value as its own type, the time it carries."""

    @property
    def kind(self) -> Literal["snowflake", "uuid", "typeid", "ulid", "ksuid"]: ...
    @property
    def value(self) -> int | _uuid.UUID | TypeId | Ulid | Ksuid:
        """`int` (snowflake), `uuid.UUID`, `TypeId`, `Ulid` or `Ksuid`, by `kind`."""
    @property
    def unix_ms(self) -> int | None:
        """The time the value carries (ms since the Unix epoch); None for a 64-bit ID."""

def parse_any(text: str, codec: str | None = None) -> AnyId:
    """Which ID `text` holds, told by its shape as `idmint decode` does; with `codec`, a 64-bit
    ID in that codec only."""

# ----------------------------------------------------------------------------------------------
# Coordination: leased nodes and segments (idmint-coord)
# ----------------------------------------------------------------------------------------------

@final
class LeaseInfo:
    """The lease a LeasedSnowflake mints under."""

    @property
    def store(self) -> str:
        """`file`, `redis` or `postgres`."""
    @property
    def namespace(self) -> str: ...
    @property
    def node(self) -> int: ...
    @property
    def token(self) -> int:
        """Fencing token: grows with every grant of this node."""
    @property
    def fence_ms(self) -> int | None:
        """The node's recorded last issued time when granted; no ID is at or before it."""
    @property
    def ttl_ms(self) -> int: ...
    @property
    def holder(self) -> str: ...
    @property
    def bound_ms(self) -> int:
        """The bound the last renewal recorded: no ID's time passes it."""
    @property
    def expires_in_ms(self) -> int | None:
        """ms (at the snapshot) until minting stops unless renewed; None once lost."""

@final
class LeaseStats:
    """Counters of a LeasedSnowflake: its generators' and its lease's."""

    @property
    def generator(self) -> Stats: ...
    @property
    def renewals(self) -> int: ...
    @property
    def renew_failures(self) -> int: ...
    @property
    def lost(self) -> int: ...
    @property
    def swaps(self) -> int: ...
    @property
    def reacquires(self) -> int: ...

@final
class LeasedSnowflake:
    """A thread-safe Snowflake generator whose node comes from a node source.

    `source` is a lease store (`local`: this host's per-user lock directory; `file:DIR`,
    `redis://...`, `postgres://...`: a node no live holder has, renewed in the background,
    fenced after the node's last issued time) or a fixed source (`static:N`, `env:NAME`, `ip`,
    `ip:A.B.C.D`, `random`). Store round trips run
    without the GIL. After os.fork() the child's copy raises Forked: build a new one.
    """

    def __new__(
        cls,
        source: str,
        layout: Layout | str = "twitter",
        on_backwards: str = "wait:1000",
        on_exhausted: str = "wait",
        sequence_start: str = "zero",
        seed: int | None = None,
        fence_ms: int | None = None,
        *,
        namespace: str | None = None,
        ttl_ms: int | None = None,
        renew_every_ms: int | None = None,
        retry_every_ms: int | None = None,
        safety_margin_ms: int | None = None,
        reserve_ms: int | None = None,
        swap_after_ms: int | None = None,
        nodes: int | None = None,
        holder: str | None = None,
    ) -> Self: ...
    def next_id(self) -> int: ...
    def try_next_id(self) -> int: ...
    def next_ids(self, n: int) -> array.array[int]: ...
    def next_ids_into(self, out: array.array[int]) -> int: ...
    def next_ids_list(self, n: int) -> list[int]: ...
    def decode(self, id: int) -> Parts: ...
    def stats(self) -> LeaseStats: ...
    @property
    def node(self) -> int: ...
    @property
    def lease(self) -> LeaseInfo | None: ...
    @property
    def high_water_ms(self) -> int | None: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def fence_ms(self) -> int | None: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None:
        """Releases the node, recording its exact last issued time. Idempotent."""
    def __enter__(self) -> Self: ...
    def __exit__(self, exc_type: object, exc_value: object, traceback: object) -> None: ...
    def __iter__(self) -> LeasedSnowflake: ...
    def __next__(self) -> int: ...

@final
class SegmentKeyStats:
    """A snapshot of one key's buffers."""

    @property
    def step(self) -> int: ...
    @property
    def buffered(self) -> int: ...
    @property
    def fetching(self) -> bool: ...
    @property
    def fence(self) -> int | None: ...
    @property
    def last_error(self) -> IdmintError | None: ...

@final
class SegmentAllocator:
    """IDs per key from ranges of a segment store (`sqlite:PATH`, `postgres://...`,
    `redis://...`), one round trip per range, prefetched in the background.

    A call waits (without the GIL) only when both buffers of its key are empty, up to
    `wait_timeout_ms`, then raises StoreUnavailable. With `journal`, `close()` records the
    unserved values and the next allocator on that journal resumes them.
    """

    def __new__(
        cls,
        store_url: str,
        *,
        step: int | None = None,
        max_step: int | None = None,
        refill_at_percent: int | None = None,
        max_gap: int = 0,
        gap_seed: int = 0,
        obfuscator: Obfuscator | None = None,
        journal: str | os.PathLike[str] | None = None,
        checkpoint_every_ms: int | None = None,
        wait_timeout_ms: int | None = None,
    ) -> Self: ...
    def next_id(self, key: str) -> int: ...
    def next_ids(self, key: str, n: int) -> array.array[int]: ...
    def stats(self, key: str) -> SegmentKeyStats | None: ...
    def keys(self) -> list[str]: ...
    def checkpoint(self) -> None: ...
    @property
    def store(self) -> str: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None:
        """Stops the background threads and journals the remainder. Idempotent."""
    def __enter__(self) -> Self: ...
    def __exit__(self, exc_type: object, exc_value: object, traceback: object) -> None: ...

def uuid1() -> _uuid.UUID: ...
def uuid3(namespace: _uuid.UUID | str, name: str | bytes) -> _uuid.UUID: ...
def uuid4(random: bytes | None = None) -> _uuid.UUID: ...
def uuid5(namespace: _uuid.UUID | str, name: str | bytes) -> _uuid.UUID: ...
def uuid7() -> _uuid.UUID: ...
def uuid7_at(unix_ms: int, random: bytes) -> _uuid.UUID: ...
def uuid1_at(ticks: int, clock_seq: int, node: bytes) -> _uuid.UUID: ...
def uuid1_random_node(
    unix_ms: int, ticks_100ns_extra: int, clock_seq: int, node: bytes
) -> _uuid.UUID: ...
def parse_uuid(text: str) -> _uuid.UUID: ...
def uuid_info(u: _uuid.UUID | str) -> UuidInfo: ...
def uuid6() -> _uuid.UUID: ...
def uuid6_at(ticks: int, clock_seq: int, node: bytes) -> _uuid.UUID: ...
def uuid8(data: bytes) -> _uuid.UUID: ...
def uuid8_from_fields(custom_a: int, custom_b: int, custom_c: int) -> _uuid.UUID: ...
def uuid8_fields(u: _uuid.UUID | str) -> tuple[int, int, int] | None: ...
def uuid8_sha256(namespace: _uuid.UUID | str, name: str | bytes) -> _uuid.UUID: ...
def uuid1_to_uuid6(u: _uuid.UUID | str) -> _uuid.UUID: ...
def uuid6_to_uuid1(u: _uuid.UUID | str) -> _uuid.UUID: ...
def uuid7s(n: int) -> list[_uuid.UUID]: ...
def typeid(prefix: str) -> str: ...
def ulid() -> str: ...
def ksuid() -> str: ...

NIL: _uuid.UUID
MAX: _uuid.UUID
def _bench_floor() -> int:
    """Benchmark only: an empty call returning an int. Not part of the API."""
