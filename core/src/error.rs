//! The one error type of the crate, and the stable kinds every binding maps to.
//!
//! Errors carry plain data (numbers, `&'static str` reasons, small inline names) so the type
//! works without an allocator. [`Error::kind`] gives the coarse, stable classification that the
//! bindings turn into exception classes (Python), `code` strings (JavaScript) and status enums (C).

use crate::field_name::Name;
use crate::time::Rfc3339;

/// Everything that can go wrong in idmint.
///
/// [`Error::WouldBlock`] is not a failure: a sans-IO generator returns it to say "call me again
/// at `until_ms`"; the clocked [`Snowflake`](crate::Snowflake) waits for you.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A layout or spec is inconsistent (bits do not add up, a field is too wide, ...).
    #[error("invalid layout: {reason}")]
    InvalidLayout {
        /// What is wrong, in a sentence fragment.
        reason: &'static str,
    },
    /// A layout spec or named-generator config string could not be parsed; `at` is the byte
    /// offset of the problem.
    #[error("invalid spec at byte {at}: {reason}")]
    InvalidSpec {
        /// Byte offset into the spec string.
        at: usize,
        /// What is wrong there.
        reason: &'static str,
    },
    /// The layout's time field cannot represent `now` any more.
    #[error("layout expired: its time field overflowed at {} ({end_ms} ms since the Unix epoch)", Rfc3339(*end_ms))]
    LayoutExpired {
        /// The first instant (ms since the Unix epoch) the time field cannot hold.
        end_ms: u64,
    },
    /// A time earlier than the layout's epoch (or an epoch in the future).
    #[error("time {now_ms} ms is before the layout epoch {epoch_ms} ms ({})", Rfc3339(*epoch_ms))]
    BeforeEpoch {
        /// The time that was given.
        now_ms: u64,
        /// The layout's epoch.
        epoch_ms: u64,
    },
    /// A value does not fit its field (compose, node ids, policy bounds).
    #[error("value {value} does not fit field `{field}` (max {max})")]
    OutOfRange {
        /// The field's name.
        field: Name,
        /// The rejected value.
        value: u64,
        /// The largest value the field holds.
        max: u64,
    },
    /// The clock went back further than the generator's policy allows.
    #[error(
        "clock moved backwards by {by_ms} ms (last issued tick at {last_ms} ms); refusing to mint"
    )]
    ClockBackwards {
        /// How far the clock is behind the last issued tick.
        by_ms: u64,
        /// The start (ms since the Unix epoch) of the last issued tick.
        last_ms: u64,
    },
    /// A leased node's recorded bound (its previous holder's, or the store's lock delay) is
    /// further ahead of this host's clock than an honest holder can have put it, or the
    /// `on_backwards` policy is `fail`: minting there would need a wait. Not a clock step in
    /// this process: this host's clock is behind the one that recorded the bound. Same kind as
    /// [`Error::ClockBackwards`].
    #[error(
        "node {node} is fenced until {} ({fence_ms} ms since the Unix epoch): this host's clock is {by_ms} ms behind the bound its previous holder recorded; fix the clock, wait until then, or lease from more nodes",
        Rfc3339(fence_ms.saturating_add(1))
    )]
    NodeFenced {
        /// The leased node.
        node: u64,
        /// How far this host's clock is behind the node's fence.
        by_ms: u64,
        /// The node's fence (ms since the Unix epoch): IDs of the node must come after it.
        fence_ms: u64,
    },
    /// All sequence numbers of the current tick are used and the policy says fail.
    #[error("sequence exhausted in the tick starting at {tick_ms} ms")]
    SequenceExhausted {
        /// Start of the exhausted tick, ms since the Unix epoch.
        tick_ms: u64,
    },
    /// Not a failure: no ID can be issued before `until_ms`; call again then.
    #[error("would block until {until_ms} ms")]
    WouldBlock {
        /// The earliest time (ms since the Unix epoch) worth calling again.
        until_ms: u64,
    },
    /// The generator was created before `fork()`; parent and child would mint the same IDs.
    #[error("generator was inherited across fork(); give the child its own node before minting")]
    Forked,
    /// A generator or policy configuration is not valid.
    #[error("invalid config: {reason}")]
    InvalidConfig {
        /// What is wrong.
        reason: &'static str,
    },
    /// A string could not be decoded by a codec; `at` is the character index of the problem.
    #[error("cannot decode {codec} string at character {at}: {reason}")]
    InvalidEncoding {
        /// The codec name (`decimal`, `hex`, `base32`, `base62`, `uuid`, or `auto` when
        /// [`parse_id`](crate::codec::parse_id) cannot tell).
        codec: &'static str,
        /// Character index (0-based) of the offending character, or the length for length errors.
        at: usize,
        /// What is wrong there.
        reason: &'static str,
    },
    /// An output buffer is too small.
    #[error("buffer too small: need {needed} bytes")]
    BufferTooSmall {
        /// The bytes needed.
        needed: usize,
    },
    /// Randomness was needed and the source failed.
    #[error("random source failed")]
    RandomSource,
    /// A lease or segment store could not be reached or answered with an error; `op` says
    /// what was being done and `reason` why it failed. Nothing was issued on the strength of
    /// the failed call.
    #[error("{store} store unavailable during {op}: {reason}")]
    StoreUnavailable {
        /// The store (`file`, `redis`, `postgres`, `sqlite`, ...).
        store: &'static str,
        /// The operation (`acquire`, `renew`, `release`, `take`, ...).
        op: &'static str,
        /// The cause, in a few words (`connection refused`, `timed out`,
        /// `authentication failed`, `database is locked`, ...).
        reason: &'static str,
    },
    /// The generator's node lease could not be renewed in time, or another holder took the
    /// node: it stopped minting before the lease could have expired.
    #[error("lease on node {node} lost: {reason}; stopped minting")]
    LeaseLost {
        /// The node the lease was for.
        node: u64,
        /// Why (`renewal failed before the deadline`, `fencing token superseded`, ...).
        reason: &'static str,
    },
    /// Every node of the node space is leased by a live holder.
    #[error("no free node: all {nodes} nodes are leased")]
    NoFreeNode {
        /// The size of the node space that was searched.
        nodes: u64,
    },
    /// A generator was configured without a node. Two processes on the same node mint the same
    /// IDs, so there is no silent default: give an explicit node, lease one from a store, or
    /// take a random one knowing its odds (the birthday bound). The bindings append how to do
    /// each in their own API.
    #[error("no node chosen: give an explicit node that no other process uses, lease one with the leased generator from a store URL (`local` for this host's lock directory, `redis://...` or `postgres://...` across hosts), or take a random node knowing that k random nodes out of N collide with odds of about k*k/(2N) (even odds near 1.2*sqrt(N))")]
    NodeRequired,
    /// A store, journal or shard set is not the one a record was made with (a journal written
    /// against another database, backends added or reordered). Resuming would repeat values,
    /// so idmint refuses.
    #[error("{store} does not match its record: {reason}; refusing to continue")]
    StoreMismatch {
        /// What was checked (`journal`, `sharded store`, ...).
        store: &'static str,
        /// What differs.
        reason: &'static str,
    },
    /// A request is larger than idmint does in one call (IDs in one batch, see
    /// [`limits::MAX_BATCH`](crate::limits::MAX_BATCH); shards, nodes a store scans, bytes of
    /// a line).
    #[error("{what} exceeds the limit of {limit}")]
    LimitExceeded {
        /// What was too large.
        what: &'static str,
        /// The largest value allowed.
        limit: u64,
    },
    /// The object was closed (`close()`, or the host language's `with`/`using` block ended):
    /// a closed generator or allocator refuses rather than minting from a released node or a
    /// returned range.
    #[error("{what} is closed")]
    Closed {
        /// What was closed (`LeasedSnowflake`, `SegmentAllocator`, ...).
        what: &'static str,
    },
    /// An argument names something that does not exist or leaves out something required: an
    /// unknown option key, an unknown, missing or repeated node sub-field.
    #[error("invalid argument `{argument}`: {reason}")]
    InvalidArgument {
        /// The option key or sub-field name as given (cut to 15 bytes). Not `name`, which
        /// JavaScript errors already use for their class.
        argument: Name,
        /// What is wrong with it.
        reason: &'static str,
    },
}

/// Coarse, stable classification of an [`Error`]; the bindings map these one to one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(u8)]
pub enum ErrorKind {
    /// [`Error::InvalidLayout`] and [`Error::InvalidSpec`].
    InvalidLayout = 1,
    /// [`Error::LayoutExpired`].
    LayoutExpired = 2,
    /// [`Error::BeforeEpoch`].
    BeforeEpoch = 3,
    /// [`Error::OutOfRange`].
    OutOfRange = 4,
    /// [`Error::ClockBackwards`] and [`Error::NodeFenced`].
    ClockBackwards = 5,
    /// [`Error::SequenceExhausted`].
    SequenceExhausted = 6,
    /// [`Error::WouldBlock`].
    WouldBlock = 7,
    /// [`Error::Forked`].
    Forked = 8,
    /// [`Error::InvalidConfig`].
    InvalidConfig = 9,
    /// [`Error::InvalidEncoding`].
    InvalidEncoding = 10,
    /// [`Error::BufferTooSmall`].
    BufferTooSmall = 11,
    /// [`Error::RandomSource`].
    RandomSource = 12,
    /// [`Error::StoreUnavailable`].
    StoreUnavailable = 13,
    /// [`Error::LeaseLost`].
    LeaseLost = 14,
    /// [`Error::NoFreeNode`].
    NoFreeNode = 15,
    /// [`Error::NodeRequired`].
    NodeRequired = 16,
    /// [`Error::StoreMismatch`].
    StoreMismatch = 17,
    /// [`Error::LimitExceeded`].
    LimitExceeded = 18,
    /// [`Error::InvalidArgument`].
    InvalidArgument = 19,
    /// [`Error::Closed`].
    Closed = 20,
}

impl Error {
    /// The stable kind of this error.
    pub const fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidLayout { .. } | Error::InvalidSpec { .. } => ErrorKind::InvalidLayout,
            Error::LayoutExpired { .. } => ErrorKind::LayoutExpired,
            Error::BeforeEpoch { .. } => ErrorKind::BeforeEpoch,
            Error::OutOfRange { .. } => ErrorKind::OutOfRange,
            Error::ClockBackwards { .. } | Error::NodeFenced { .. } => ErrorKind::ClockBackwards,
            Error::SequenceExhausted { .. } => ErrorKind::SequenceExhausted,
            Error::WouldBlock { .. } => ErrorKind::WouldBlock,
            Error::Forked => ErrorKind::Forked,
            Error::InvalidConfig { .. } => ErrorKind::InvalidConfig,
            Error::InvalidEncoding { .. } => ErrorKind::InvalidEncoding,
            Error::BufferTooSmall { .. } => ErrorKind::BufferTooSmall,
            Error::RandomSource => ErrorKind::RandomSource,
            Error::StoreUnavailable { .. } => ErrorKind::StoreUnavailable,
            Error::LeaseLost { .. } => ErrorKind::LeaseLost,
            Error::NoFreeNode { .. } => ErrorKind::NoFreeNode,
            Error::NodeRequired => ErrorKind::NodeRequired,
            Error::StoreMismatch { .. } => ErrorKind::StoreMismatch,
            Error::LimitExceeded { .. } => ErrorKind::LimitExceeded,
            Error::InvalidArgument { .. } => ErrorKind::InvalidArgument,
            Error::Closed { .. } => ErrorKind::Closed,
        }
    }

    /// The stable error code string used by every surface (`ERR_CLOCK_BACKWARDS`, ...).
    pub const fn code(&self) -> &'static str {
        self.kind().code()
    }

    /// The variant's data as named values, in declaration order, so a binding attaches them to
    /// its exception generically (a new variant cannot lose its fields in some binding).
    ///
    /// # Examples
    /// ```
    /// use idmint::{Error, FieldValue};
    /// let e = Error::WouldBlock { until_ms: 5 };
    /// let f: Vec<_> = e.fields().collect();
    /// assert_eq!((f[0].name, f[0].camel, f[0].value), ("until_ms", "untilMs", FieldValue::U64(5)));
    /// ```
    pub fn fields(&self) -> ErrorFields<'_> {
        use FieldValue::{Count, Str, U64};
        const fn f<'a>(
            name: &'static str,
            camel: &'static str,
            value: FieldValue<'a>,
        ) -> Option<ErrorField<'a>> {
            Some(ErrorField { name, camel, value })
        }
        let items = match self {
            Error::InvalidLayout { reason } | Error::InvalidConfig { reason } => {
                [f("reason", "reason", Str(reason)), None, None]
            }
            Error::InvalidSpec { at, reason } => [
                f("at", "at", Count(*at)),
                f("reason", "reason", Str(reason)),
                None,
            ],
            Error::LayoutExpired { end_ms } => [f("end_ms", "endMs", U64(*end_ms)), None, None],
            Error::BeforeEpoch { now_ms, epoch_ms } => [
                f("now_ms", "nowMs", U64(*now_ms)),
                f("epoch_ms", "epochMs", U64(*epoch_ms)),
                None,
            ],
            Error::OutOfRange { field, value, max } => [
                f("field", "field", Str(field.as_str())),
                f("value", "value", U64(*value)),
                f("max", "max", U64(*max)),
            ],
            Error::ClockBackwards { by_ms, last_ms } => [
                f("by_ms", "byMs", U64(*by_ms)),
                f("last_ms", "lastMs", U64(*last_ms)),
                None,
            ],
            Error::NodeFenced {
                node,
                by_ms,
                fence_ms,
            } => [
                f("node", "node", U64(*node)),
                f("by_ms", "byMs", U64(*by_ms)),
                f("fence_ms", "fenceMs", U64(*fence_ms)),
            ],
            Error::SequenceExhausted { tick_ms } => {
                [f("tick_ms", "tickMs", U64(*tick_ms)), None, None]
            }
            Error::WouldBlock { until_ms } => {
                [f("until_ms", "untilMs", U64(*until_ms)), None, None]
            }
            Error::InvalidEncoding { codec, at, reason } => [
                f("codec", "codec", Str(codec)),
                f("at", "at", Count(*at)),
                f("reason", "reason", Str(reason)),
            ],
            Error::BufferTooSmall { needed } => [f("needed", "needed", Count(*needed)), None, None],
            Error::StoreUnavailable { store, op, reason } => [
                f("store", "store", Str(store)),
                f("op", "op", Str(op)),
                f("reason", "reason", Str(reason)),
            ],
            Error::LeaseLost { node, reason } => [
                f("node", "node", U64(*node)),
                f("reason", "reason", Str(reason)),
                None,
            ],
            Error::NoFreeNode { nodes } => [f("nodes", "nodes", U64(*nodes)), None, None],
            Error::StoreMismatch { store, reason } => [
                f("store", "store", Str(store)),
                f("reason", "reason", Str(reason)),
                None,
            ],
            Error::LimitExceeded { what, limit } => [
                f("what", "what", Str(what)),
                f("limit", "limit", U64(*limit)),
                None,
            ],
            Error::InvalidArgument { argument, reason } => [
                f("argument", "argument", Str(argument.as_str())),
                f("reason", "reason", Str(reason)),
                None,
            ],
            Error::Closed { what } => [f("what", "what", Str(what)), None, None],
            Error::Forked | Error::RandomSource | Error::NodeRequired => [None, None, None],
        };
        ErrorFields { items, next: 0 }
    }
}

/// One named value of an [`Error`] variant (see [`Error::fields`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorField<'a> {
    /// The field's name in snake_case, as Rust, Python and C spell it (`until_ms`).
    pub name: &'static str,
    /// The same name in camelCase, as JavaScript spells it (`untilMs`).
    pub camel: &'static str,
    /// The value.
    pub value: FieldValue<'a>,
}

/// The value of an [`ErrorField`], typed so a binding picks the host type once per case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldValue<'a> {
    /// Text: a reason, a store or codec name, a field name.
    Str(&'a str),
    /// A small count or offset (bytes, characters): a `number` in JavaScript.
    Count(usize),
    /// A 64-bit quantity (times in ms, IDs, field values): a `bigint` in JavaScript.
    U64(u64),
}

/// The fields of one error, in declaration order (at most three).
#[derive(Debug, Clone)]
pub struct ErrorFields<'a> {
    items: [Option<ErrorField<'a>>; 3],
    next: usize,
}

impl<'a> Iterator for ErrorFields<'a> {
    type Item = ErrorField<'a>;

    fn next(&mut self) -> Option<ErrorField<'a>> {
        let item = self.items.get(self.next).copied().flatten()?;
        self.next += 1;
        Some(item)
    }
}

impl ErrorKind {
    /// Every kind, in discriminant order.
    pub const ALL: [ErrorKind; 20] = [
        ErrorKind::InvalidLayout,
        ErrorKind::LayoutExpired,
        ErrorKind::BeforeEpoch,
        ErrorKind::OutOfRange,
        ErrorKind::ClockBackwards,
        ErrorKind::SequenceExhausted,
        ErrorKind::WouldBlock,
        ErrorKind::Forked,
        ErrorKind::InvalidConfig,
        ErrorKind::InvalidEncoding,
        ErrorKind::BufferTooSmall,
        ErrorKind::RandomSource,
        ErrorKind::StoreUnavailable,
        ErrorKind::LeaseLost,
        ErrorKind::NoFreeNode,
        ErrorKind::NodeRequired,
        ErrorKind::StoreMismatch,
        ErrorKind::LimitExceeded,
        ErrorKind::InvalidArgument,
        ErrorKind::Closed,
    ];

    /// The kind's name, the same on every surface that names error classes (Python's exception
    /// classes are these names): `"ClockBackwards"`, `"Closed"`, ...
    ///
    /// # Examples
    /// ```
    /// assert_eq!(idmint::ErrorKind::ClockBackwards.name(), "ClockBackwards");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::InvalidLayout => "InvalidLayout",
            ErrorKind::LayoutExpired => "LayoutExpired",
            ErrorKind::BeforeEpoch => "BeforeEpoch",
            ErrorKind::OutOfRange => "OutOfRange",
            ErrorKind::ClockBackwards => "ClockBackwards",
            ErrorKind::SequenceExhausted => "SequenceExhausted",
            ErrorKind::WouldBlock => "WouldBlock",
            ErrorKind::Forked => "Forked",
            ErrorKind::InvalidConfig => "InvalidConfig",
            ErrorKind::InvalidEncoding => "InvalidEncoding",
            ErrorKind::BufferTooSmall => "BufferTooSmall",
            ErrorKind::RandomSource => "RandomSource",
            ErrorKind::StoreUnavailable => "StoreUnavailable",
            ErrorKind::LeaseLost => "LeaseLost",
            ErrorKind::NoFreeNode => "NoFreeNode",
            ErrorKind::NodeRequired => "NodeRequired",
            ErrorKind::StoreMismatch => "StoreMismatch",
            ErrorKind::LimitExceeded => "LimitExceeded",
            ErrorKind::InvalidArgument => "InvalidArgument",
            ErrorKind::Closed => "Closed",
        }
    }

    /// The stable code string (`ERR_...`) of this kind.
    pub const fn code(self) -> &'static str {
        match self {
            ErrorKind::InvalidLayout => "ERR_INVALID_LAYOUT",
            ErrorKind::LayoutExpired => "ERR_LAYOUT_EXPIRED",
            ErrorKind::BeforeEpoch => "ERR_BEFORE_EPOCH",
            ErrorKind::OutOfRange => "ERR_OUT_OF_RANGE",
            ErrorKind::ClockBackwards => "ERR_CLOCK_BACKWARDS",
            ErrorKind::SequenceExhausted => "ERR_SEQUENCE_EXHAUSTED",
            ErrorKind::WouldBlock => "ERR_WOULD_BLOCK",
            ErrorKind::Forked => "ERR_FORKED",
            ErrorKind::InvalidConfig => "ERR_INVALID_CONFIG",
            ErrorKind::InvalidEncoding => "ERR_INVALID_ENCODING",
            ErrorKind::BufferTooSmall => "ERR_BUFFER_TOO_SMALL",
            ErrorKind::RandomSource => "ERR_RANDOM_SOURCE",
            ErrorKind::StoreUnavailable => "ERR_STORE_UNAVAILABLE",
            ErrorKind::LeaseLost => "ERR_LEASE_LOST",
            ErrorKind::NoFreeNode => "ERR_NO_FREE_NODE",
            ErrorKind::NodeRequired => "ERR_NODE_REQUIRED",
            ErrorKind::StoreMismatch => "ERR_STORE_MISMATCH",
            ErrorKind::LimitExceeded => "ERR_LIMIT_EXCEEDED",
            ErrorKind::InvalidArgument => "ERR_INVALID_ARGUMENT",
            ErrorKind::Closed => "ERR_CLOSED",
        }
    }
}

/// Shorthand for results in this crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    /// One error of every kind, so the checks below see every variant's fields.
    fn one_of_each() -> [Error; 22] {
        let n = Name::lossy("worker");
        [
            Error::InvalidLayout { reason: "r" },
            Error::InvalidSpec { at: 1, reason: "r" },
            Error::LayoutExpired { end_ms: 1 },
            Error::BeforeEpoch {
                now_ms: 1,
                epoch_ms: 2,
            },
            Error::OutOfRange {
                field: n,
                value: 1,
                max: 0,
            },
            Error::ClockBackwards {
                by_ms: 1,
                last_ms: 2,
            },
            Error::NodeFenced {
                node: 1,
                by_ms: 2,
                fence_ms: 3,
            },
            Error::SequenceExhausted { tick_ms: 1 },
            Error::WouldBlock { until_ms: 1 },
            Error::Forked,
            Error::InvalidConfig { reason: "r" },
            Error::InvalidEncoding {
                codec: "hex",
                at: 1,
                reason: "r",
            },
            Error::BufferTooSmall { needed: 1 },
            Error::RandomSource,
            Error::StoreUnavailable {
                store: "s",
                op: "o",
                reason: "r",
            },
            Error::LeaseLost {
                node: 1,
                reason: "r",
            },
            Error::NoFreeNode { nodes: 1 },
            Error::NodeRequired,
            Error::StoreMismatch {
                store: "s",
                reason: "r",
            },
            Error::LimitExceeded {
                what: "w",
                limit: 1,
            },
            Error::InvalidArgument {
                argument: n,
                reason: "r",
            },
            Error::Closed { what: "thing" },
        ]
    }

    #[test]
    fn every_kind_is_covered_and_fields_keep_clear_of_host_names() {
        let errors = one_of_each();
        for kind in ErrorKind::ALL {
            assert!(
                errors.iter().any(|e| e.kind() == kind),
                "{kind:?} has no sample"
            );
        }
        for e in errors {
            for f in e.fields() {
                // Properties every JavaScript error (and Python exception) has already.
                for taken in ["name", "message", "stack", "cause", "code", "args"] {
                    assert!(
                        f.name != taken && f.camel != taken,
                        "{e:?}: field `{}`",
                        f.name
                    );
                }
                assert_eq!(f.name.replace('_', ""), f.camel.to_ascii_lowercase());
            }
        }
    }
}
