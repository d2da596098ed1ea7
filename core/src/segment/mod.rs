//! Segment allocation (Meituan Leaf's "segment" mode, WeChat seqsvr): IDs served from ranges
//! of consecutive values that a store hands out, one store round trip per range.
//!
//! This module is the sans-IO half: a double buffer per key ([`SegmentBuffer`]) that never
//! talks to a store, never reads a clock and never draws OS randomness. The caller passes
//! `now_ms`, hands over the ranges it fetched, and is told — in the value it gets back — when
//! to start the next fetch. The std driver that talks to real stores is
//! `idmint_coord::segment::SegmentAllocator`.
//!
//! # How a buffer works
//!
//! A buffer holds a **current** range it serves from and at most one **standby** range. When
//! a configurable share of the current range is used (Leaf: 10%) and no standby is there, the
//! answer that crosses the threshold carries a [`Fetch`]: the driver starts `store.take(key,
//! fetch.step())` and hands the outcome back with [`SegmentBuffer::supply`] or
//! [`SegmentBuffer::fail`]. When the current range runs out, the standby takes its place
//! without any I/O, so callers only wait for a store when a whole range is consumed faster
//! than one store round trip (or the store is down for that long).
//!
//! The step (how many values a fetch asks for) adapts to the load, after Leaf: if the time
//! between two consecutive fetch requests was below the configured fast window (default
//! 15 min) the step doubles, above the slow window (default 30 min) it halves, always within
//! the configured bounds. A failed fetch is retried with an exponential backoff.
//!
//! # Invariants
//!
//! * **Increasing.** Per buffer, values handed out (before obfuscation) are strictly
//!   increasing: by default ([`SegmentConfig::ordered`]) a buffer refuses a range that starts
//!   below the end of any range it accepted before, so a counter that went back (a Redis
//!   restarted without persistence, a restored backup) stops the buffer instead of making it
//!   reissue values. Stores whose ranges interleave by design (TDDL's sharded rows) need
//!   `ordered(false)`; values then increase within each range only.
//! * **Unique.** Every value handed out lies in a supplied or resumed range and is handed out
//!   once, so values are unique across every process as long as the store's ranges for one
//!   key are disjoint — which is the contract of `idmint_coord::segment::SegmentStore`.
//! * **Gaps only skip.** Random gaps (optional) skip values inside a range; a gap never leaves
//!   a range, and values it skips are never served later.
//! * **Obfuscation is a bijection.** With a keyed [`Obfuscator`](crate::obfuscate::Obfuscator), outputs stop being
//!   increasing but stay unique, because the obfuscator permutes its domain.
//! * **At most one fetch is in flight**, and only its [`Fetch`] token (not `Clone`) can be
//!   supplied or failed.
//! * **Fenced values are never served.** A journal checkpoint ([`begin_checkpoint`]) records
//!   the values beyond a fence; the buffer serves nothing at or beyond the fence until the
//!   checkpoint that moves it is durable ([`end_checkpoint`]). That is what lets a crash image
//!   of the journal never hold a served value.
//!
//! [`begin_checkpoint`]: SegmentBuffer::begin_checkpoint
//! [`end_checkpoint`]: SegmentBuffer::end_checkpoint
//!
//! # Examples
//! A driver loop against a pretend store (a counter):
//! ```
//! use idmint::segment::{Range, SegmentBuffer, SegmentConfig, Take};
//!
//! let mut next_free = 1u64; // the "store"
//! let mut take_range = |step: u64| {
//!     let r = Range { start: next_free, end: next_free + step };
//!     next_free = r.end;
//!     r
//! };
//! let mut buf = SegmentBuffer::new(SegmentConfig::new().fixed_step(100))?;
//! let now = 1_700_000_000_000;
//! let mut ids = Vec::new();
//! while ids.len() < 250 {
//!     match buf.next(now)? {
//!         Take::Id(id) => ids.push(id),
//!         Take::IdAndFetch(id, fetch) => {
//!             ids.push(id);
//!             let r = take_range(fetch.step()); // a real driver does this in the background
//!             buf.supply(fetch, r, now)?;
//!         }
//!         Take::Fetch(fetch) => {
//!             let r = take_range(fetch.step());
//!             buf.supply(fetch, r, now)?;
//!         }
//!         Take::Stall(why) => unreachable!("this driver supplies at once: {why:?}"),
//!     }
//! }
//! assert_eq!(ids, (1..=250).collect::<Vec<u64>>());
//! # Ok::<(), idmint::Error>(())
//! ```

mod answers;
mod buffer;
mod config;
mod cursor;
#[cfg(feature = "alloc")]
mod keys;

use crate::snowflake::state::mix64;

pub use answers::{Batch, Checkpoint, Fetch, Remainder, Stall, Take};
pub use buffer::SegmentBuffer;
pub use config::SegmentConfig;
pub use cursor::{Sealed, SegmentCursor, MAX_CURSOR_WINDOW};
#[cfg(feature = "alloc")]
pub use keys::Segments;

/// A half-open range of values `[start, end)` handed out by a segment store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Range {
    /// The first value of the range.
    pub start: u64,
    /// One past the last value of the range.
    pub end: u64,
}

impl Range {
    /// The number of values in the range.
    pub const fn len(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }

    /// Whether the range holds no value.
    pub const fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

pub(crate) const NONE: Range = Range { start: 0, end: 0 };
pub(crate) const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// Default initial step and lower step bound (Leaf's usual table default).
pub const DEFAULT_STEP: u64 = 1_000;
/// Default upper step bound (Leaf's `MAX_STEP`).
pub const DEFAULT_MAX_STEP: u64 = 1_000_000;
/// Default refill threshold: ask for the next range when 10% of the current one is used.
pub const DEFAULT_REFILL_PERCENT: u8 = 10;
/// Default fast window: a range that lasted less doubles the step (15 min).
pub const DEFAULT_FAST_MS: u64 = 15 * 60 * 1000;
/// Default slow window: a range that lasted longer halves the step (30 min).
pub const DEFAULT_SLOW_MS: u64 = 30 * 60 * 1000;
/// Default first retry delay after a failed fetch.
pub const DEFAULT_RETRY_MIN_MS: u64 = 10;
/// Default longest retry delay after repeated failed fetches.
pub const DEFAULT_RETRY_MAX_MS: u64 = 1_000;

/// The gap seed of `key` under `seed` (FNV-1a of the key, mixed).
pub(crate) fn key_seed(seed: u64, key: &str) -> u64 {
    let h = key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    mix64(seed ^ mix64(h))
}
