//! What a [`SegmentBuffer`](super::SegmentBuffer) answers: an ID, a batch, a fetch to start, a
//! stall; and the remainder and checkpoint it hands over for durable keeping.

#[cfg(doc)]
use super::SegmentBuffer;
use super::{Range, NONE};

/// A request to fetch the next range: call `store.take(key, fetch.step())` and hand the
/// outcome back with [`SegmentBuffer::supply`] or [`SegmentBuffer::fail`].
///
/// Not `Clone`: the buffer has at most one fetch in flight and only this token settles it.
/// Dropping it without settling leaves the buffer waiting for a range forever.
#[must_use = "start this fetch and settle it with supply() or fail(), or the buffer runs dry"]
#[derive(Debug, PartialEq, Eq)]
pub struct Fetch {
    pub(super) step: u64,
    pub(super) ticket: u64,
}

impl Fetch {
    /// How many values to ask the store for.
    pub const fn step(&self) -> u64 {
        self.step
    }
}

/// Why a buffer served nothing (more) right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stall {
    /// Both buffers are empty and a fetch is in flight: call again once it is settled.
    InFlight,
    /// Both buffers are empty and the last fetch failed: no new fetch is asked before
    /// `until_ms`; call again then.
    RetryAt {
        /// When a new fetch may be asked (same time base as `now_ms`).
        until_ms: u64,
    },
    /// The next values are recorded in a journal checkpoint; they are served only after a
    /// newer checkpoint is durable ([`SegmentBuffer::end_checkpoint`]).
    Fenced,
}

/// The answer of [`SegmentBuffer::next`]. Two variants carry a [`Fetch`] the driver must start.
#[must_use = "an answer may carry a Fetch that must be started"]
#[derive(Debug, PartialEq, Eq)]
pub enum Take {
    /// An ID; nothing else to do.
    Id(u64),
    /// An ID, and the threshold was crossed: start this fetch now, in the background.
    IdAndFetch(u64, Fetch),
    /// No ID (the buffers are empty, or what is left is fenced): start this fetch and call
    /// again once it is settled.
    Fetch(Fetch),
    /// No ID, and nothing to start: see [`Stall`].
    Stall(Stall),
}

/// The answer of [`SegmentBuffer::take_into`]: how many values were written, a fetch to start
/// (if any), and why the batch stopped short (if it did).
#[must_use = "a batch may carry a Fetch that must be started"]
#[derive(Debug, PartialEq, Eq)]
pub struct Batch {
    /// `out[..filled]` holds the IDs.
    pub filled: usize,
    /// A fetch to start now.
    pub fetch: Option<Fetch>,
    /// Set when `filled < out.len()`: why nothing more could be served. When the buffers ran
    /// dry and `fetch` is set, this is [`Stall::InFlight`] (the fetch just asked for).
    pub stall: Option<Stall>,
}

/// The unserved values of a buffer: at most two ranges (the rest of the current one and the
/// standby), increasing and disjoint. What a journal records and [`SegmentBuffer::resume`]
/// takes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Remainder {
    pub(super) ranges: [Range; 2],
    pub(super) len: u8,
}

impl Default for Remainder {
    fn default() -> Self {
        Remainder {
            ranges: [NONE; 2],
            len: 0,
        }
    }
}

impl Remainder {
    pub(super) fn push(&mut self, r: Range) {
        if r.is_empty() {
            return;
        }
        if let Some(slot) = self.ranges.get_mut(self.len as usize) {
            *slot = r;
            self.len += 1;
        }
    }

    /// The ranges, increasing, none empty.
    pub fn ranges(&self) -> &[Range] {
        self.ranges.get(..self.len as usize).unwrap_or(&[])
    }

    /// Whether nothing is left.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many values the ranges hold together.
    pub fn values(&self) -> u64 {
        self.ranges()
            .iter()
            .fold(0u64, |n, r| n.saturating_add(r.len()))
    }
}

/// The first phase of a journal checkpoint ([`SegmentBuffer::begin_checkpoint`]): the values
/// to record, and the fence that protects them.
#[must_use = "write the remainder durably, then call end_checkpoint"]
#[derive(Debug, PartialEq, Eq)]
pub struct Checkpoint {
    pub(super) remainder: Remainder,
    pub(super) fence: u64,
}

impl Checkpoint {
    /// The values to record: everything buffered beyond the reserve.
    pub const fn remainder(&self) -> &Remainder {
        &self.remainder
    }

    /// The smallest recorded value (`u64::MAX` when nothing is recorded).
    pub const fn fence(&self) -> u64 {
        self.fence
    }
}
