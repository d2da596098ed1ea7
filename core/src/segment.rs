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
//! * **Obfuscation is a bijection.** With a keyed [`Obfuscator`], outputs stop being
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

#[cfg(feature = "alloc")]
use alloc::{collections::BTreeMap, string::String, vec::Vec};

mod cursor;
pub use cursor::{Sealed, SegmentCursor, MAX_CURSOR_WINDOW};

use crate::error::{Error, Result};
use crate::obfuscate::Obfuscator;
use crate::state::mix64;

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

const NONE: Range = Range { start: 0, end: 0 };
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

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

/// How a [`SegmentBuffer`] sizes, schedules and shapes what it serves. Validated when a
/// buffer is built from it ([`SegmentConfig::validate`]).
///
/// # Examples
/// ```
/// use idmint::segment::SegmentConfig;
/// let cfg = SegmentConfig::new()
///     .step(5_000)                          // first fetch asks for 5,000 values...
///     .step_bounds(1_000, 500_000)          // ...and the step adapts within these bounds
///     .refill_at_percent(20)                // prefetch once 20% of a range is used
///     .adapt_window(10 * 60_000, 40 * 60_000);
/// cfg.validate()?;
/// assert!(SegmentConfig::new().refill_at_percent(101).validate().is_err());
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SegmentConfig {
    step: u64,
    min_step: u64,
    max_step: u64,
    refill_percent: u8,
    fast_ms: u64,
    slow_ms: u64,
    retry_min_ms: u64,
    retry_max_ms: u64,
    max_gap: u64,
    seed: u64,
    obfuscator: Option<Obfuscator>,
    ordered: bool,
}

impl Default for SegmentConfig {
    fn default() -> Self {
        SegmentConfig::new()
    }
}

impl SegmentConfig {
    /// Leaf's defaults: step 1,000 adapting within `[1_000, 1_000_000]`, refill at 10%, double
    /// below 15 min, halve above 30 min; retries after 10 ms doubling to 1 s; no gaps, no
    /// obfuscation; ranges must ascend.
    pub const fn new() -> SegmentConfig {
        SegmentConfig {
            step: DEFAULT_STEP,
            min_step: DEFAULT_STEP,
            max_step: DEFAULT_MAX_STEP,
            refill_percent: DEFAULT_REFILL_PERCENT,
            fast_ms: DEFAULT_FAST_MS,
            slow_ms: DEFAULT_SLOW_MS,
            retry_min_ms: DEFAULT_RETRY_MIN_MS,
            retry_max_ms: DEFAULT_RETRY_MAX_MS,
            max_gap: 0,
            seed: 0,
            obfuscator: None,
            ordered: true,
        }
    }

    /// The step of the first fetch, which is also the lower bound the adaptation never goes
    /// below (Leaf's rule: the configured step is the floor). Raises the upper bound to `step`
    /// if it was lower. Call [`step_bounds`](Self::step_bounds) afterwards to change the bounds.
    pub const fn step(mut self, step: u64) -> SegmentConfig {
        self.step = step;
        self.min_step = step;
        if self.max_step < step {
            self.max_step = step;
        }
        self
    }

    /// The bounds the adaptive step stays within (inclusive). The initial step must lie
    /// between them.
    pub const fn step_bounds(mut self, min: u64, max: u64) -> SegmentConfig {
        self.min_step = min;
        self.max_step = max;
        self
    }

    /// A step that never adapts: initial step and both bounds are `step`.
    pub const fn fixed_step(mut self, step: u64) -> SegmentConfig {
        self.step = step;
        self.min_step = step;
        self.max_step = step;
        self
    }

    /// Ask for the next range once `percent`% (0..=100) of the current one is used. 0 asks as
    /// soon as a range becomes current; 100 only when it is used up (no prefetch).
    pub const fn refill_at_percent(mut self, percent: u8) -> SegmentConfig {
        self.refill_percent = percent;
        self
    }

    /// The step adaptation's window: when the time between two consecutive fetch requests is
    /// below `fast_ms` the step doubles, above `slow_ms` it halves. Needs `fast_ms <= slow_ms`.
    pub const fn adapt_window(mut self, fast_ms: u64, slow_ms: u64) -> SegmentConfig {
        self.fast_ms = fast_ms;
        self.slow_ms = slow_ms;
        self
    }

    /// After a failed fetch, no new fetch is asked for `min_ms`; each further failure in a row
    /// doubles the delay up to `max_ms`. A success resets it.
    pub const fn retry_backoff(mut self, min_ms: u64, max_ms: u64) -> SegmentConfig {
        self.retry_min_ms = min_ms;
        self.retry_max_ms = max_ms;
        self
    }

    /// Skips a random `0..=max_gap` values before each ID, so consecutive IDs do not reveal
    /// how many were issued in between. The gaps are a fixed function of `seed` (and the key,
    /// for [`SegmentBuffer::for_key`]): runs replay exactly. `max_gap` must be below the lower
    /// step bound. `0` turns gaps off.
    pub const fn gaps(mut self, max_gap: u64, seed: u64) -> SegmentConfig {
        self.max_gap = max_gap;
        self.seed = seed;
        self
    }

    /// Passes every served value through a keyed permutation, so IDs look irregular but stay
    /// unique. Values above the obfuscator's domain fail with [`Error::FieldOverflow`].
    pub const fn obfuscate(mut self, obfuscator: Obfuscator) -> SegmentConfig {
        self.obfuscator = Some(obfuscator);
        self
    }

    /// Whether ranges must ascend (default `true`): a range starting below the end of one the
    /// buffer accepted before is refused, which keeps values strictly increasing and turns a
    /// store that went back into an error instead of reissued values. Set `false` for stores
    /// whose ranges interleave by design (sharded rows, auto-increment across instances);
    /// uniqueness then rests on the store's ranges being disjoint.
    pub const fn ordered(mut self, ordered: bool) -> SegmentConfig {
        self.ordered = ordered;
        self
    }

    /// Checks that the settings make sense together; [`Error::InvalidConfig`] says what does not.
    pub const fn validate(&self) -> Result<()> {
        let reason = if self.min_step == 0 {
            "the segment step must be at least 1"
        } else if self.min_step > self.max_step {
            "the lower step bound is above the upper one"
        } else if self.step < self.min_step || self.step > self.max_step {
            "the initial segment step lies outside the step bounds"
        } else if self.refill_percent > 100 {
            "the refill threshold is a percentage (0..=100)"
        } else if self.fast_ms > self.slow_ms {
            "the fast adaptation window must not exceed the slow one"
        } else if self.retry_min_ms > self.retry_max_ms {
            "the first retry delay must not exceed the longest one"
        } else if self.max_gap >= self.min_step {
            "the largest gap must be below the lower step bound"
        } else {
            return Ok(());
        };
        Err(Error::InvalidConfig { reason })
    }

    /// The step of the first fetch.
    pub const fn initial_step(&self) -> u64 {
        self.step
    }

    /// The lower step bound.
    pub const fn min_step(&self) -> u64 {
        self.min_step
    }

    /// The upper step bound.
    pub const fn max_step(&self) -> u64 {
        self.max_step
    }

    /// The refill threshold, in percent of the current range.
    pub const fn refill_percent(&self) -> u8 {
        self.refill_percent
    }

    /// `(fast_ms, slow_ms)` of the step adaptation.
    pub const fn adapt_window_ms(&self) -> (u64, u64) {
        (self.fast_ms, self.slow_ms)
    }

    /// `(min_ms, max_ms)` of the retry backoff.
    pub const fn retry_backoff_ms(&self) -> (u64, u64) {
        (self.retry_min_ms, self.retry_max_ms)
    }

    /// The largest random gap (0: none).
    pub const fn max_gap(&self) -> u64 {
        self.max_gap
    }

    /// The seed of the random gaps.
    pub const fn seed(&self) -> u64 {
        self.seed
    }

    /// The obfuscator, if any.
    pub const fn obfuscator(&self) -> Option<&Obfuscator> {
        self.obfuscator.as_ref()
    }

    /// Whether ranges must ascend ([`ordered`](Self::ordered)).
    pub const fn is_ordered(&self) -> bool {
        self.ordered
    }
}

/// A request to fetch the next range: call `store.take(key, fetch.step())` and hand the
/// outcome back with [`SegmentBuffer::supply`] or [`SegmentBuffer::fail`].
///
/// Not `Clone`: the buffer has at most one fetch in flight and only this token settles it.
/// Dropping it without settling leaves the buffer waiting for a range forever.
#[must_use = "start this fetch and settle it with supply() or fail(), or the buffer runs dry"]
#[derive(Debug, PartialEq, Eq)]
pub struct Fetch {
    step: u64,
    ticket: u64,
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
    ranges: [Range; 2],
    len: u8,
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
    fn push(&mut self, r: Range) {
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
    remainder: Remainder,
    fence: u64,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct InFlight {
    ticket: u64,
    /// The adapted step (without a batch's boost), adopted when the fetch succeeds.
    step: u64,
    requested_ms: u64,
}

enum Pop {
    Value(u64),
    Empty,
    Fenced,
}

/// The double buffer of one key; see the [module docs](self).
///
/// # Examples
/// ```
/// use idmint::segment::{Range, SegmentBuffer, SegmentConfig, Stall, Take};
///
/// let cfg = SegmentConfig::new().fixed_step(10).refill_at_percent(20);
/// let mut buf = SegmentBuffer::new(cfg)?;
/// let t = 0;
/// let Take::Fetch(f) = buf.next(t)? else { panic!("an empty buffer asks for a range") };
/// assert_eq!(buf.next(t)?, Take::Stall(Stall::InFlight)); // one fetch at a time
/// buf.supply(f, Range { start: 100, end: 110 }, t)?;
/// assert_eq!(buf.next(t)?, Take::Id(100));
/// // The second ID uses 20% of the range: the answer asks for the next one.
/// let Take::IdAndFetch(101, f) = buf.next(t)? else { panic!() };
/// buf.supply(f, Range { start: 500, end: 510 }, t)?;
/// let rest: Vec<u64> = (0..9).map(|_| match buf.next(t) {
///     Ok(Take::Id(v) | Take::IdAndFetch(v, _)) => v,
///     other => panic!("{other:?}"),
/// }).collect();
/// assert_eq!(rest, [102, 103, 104, 105, 106, 107, 108, 109, 500]);
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SegmentBuffer {
    cfg: SegmentConfig,
    /// Next unserved position of the current range `[cursor, end)`.
    cursor: u64,
    end: u64,
    /// Position in the current range at which the next fetch is due.
    mark: u64,
    standby: Range,
    /// Nothing at or above it is served (journal checkpoint); `u64::MAX` when unfenced.
    fence: u64,
    /// End of the highest range accepted; ranges starting below it are refused when ordered.
    floor: u64,
    step: u64,
    /// Request time of the last fetch that succeeded.
    last_request_ms: Option<u64>,
    in_flight: Option<InFlight>,
    next_ticket: u64,
    failures: u32,
    retry_at_ms: u64,
    rng: u64,
    /// Fast path bound: while `cursor < quiet`, the next value is `cursor` itself (no gap, no
    /// obfuscation, inside the current range, below the fence) and serving it asks for no
    /// fetch. Recomputed after every slow-path change.
    quiet: u64,
}

impl SegmentBuffer {
    /// An empty buffer for `cfg` (validated); the first call asks for a range.
    pub fn new(cfg: SegmentConfig) -> Result<SegmentBuffer> {
        cfg.validate()?;
        Ok(SegmentBuffer::build(cfg, cfg.seed))
    }

    /// Like [`new`](Self::new), with the gap seed mixed with `key`, so keys sharing one config
    /// get unrelated gap sequences.
    pub fn for_key(cfg: SegmentConfig, key: &str) -> Result<SegmentBuffer> {
        cfg.validate()?;
        Ok(SegmentBuffer::build(cfg, key_seed(cfg.seed, key)))
    }

    fn build(cfg: SegmentConfig, seed: u64) -> SegmentBuffer {
        SegmentBuffer {
            cfg,
            cursor: 0,
            end: 0,
            mark: 0,
            standby: NONE,
            fence: u64::MAX,
            floor: 0,
            step: cfg.step,
            last_request_ms: None,
            in_flight: None,
            next_ticket: mix64(seed ^ 0x7365_676d_656e_7473),
            failures: 0,
            retry_at_ms: 0,
            rng: seed,
            quiet: 0,
        }
    }

    /// The config.
    pub const fn config(&self) -> &SegmentConfig {
        &self.cfg
    }

    /// The current step: what the next fetch asks for before adaptation.
    pub const fn step(&self) -> u64 {
        self.step
    }

    /// Whether a fetch is in flight.
    pub const fn fetching(&self) -> bool {
        self.in_flight.is_some()
    }

    /// How many unserved values the buffer holds (current rest plus standby), fenced or not.
    pub fn buffered(&self) -> u64 {
        self.end
            .saturating_sub(self.cursor)
            .saturating_add(self.standby.len())
    }

    /// The checkpoint fence, if a checkpoint recorded some of the buffered values.
    pub const fn fence(&self) -> Option<u64> {
        if self.fence == u64::MAX {
            None
        } else {
            Some(self.fence)
        }
    }

    /// How many buffered values can be served, in order, before the fence stops the buffer
    /// (all of them when unfenced): how soon a newer checkpoint is needed.
    pub fn headroom(&self) -> u64 {
        let current = Range {
            start: self.cursor,
            end: self.end,
        };
        let mut n = 0u64;
        for r in [current, self.standby] {
            if r.is_empty() {
                continue;
            }
            if r.start >= self.fence {
                break;
            }
            let stop = r.end.min(self.fence);
            n = n.saturating_add(stop - r.start);
            if stop < r.end {
                break;
            }
        }
        n
    }

    fn install(&mut self, r: Range) {
        self.cursor = r.start;
        self.end = r.end;
        let share = (u128::from(r.len()) * u128::from(self.cfg.refill_percent)).div_ceil(100);
        self.mark = r.start.saturating_add(share as u64);
    }

    fn gap(&mut self) -> u64 {
        if self.cfg.max_gap == 0 {
            return 0;
        }
        self.rng = self.rng.wrapping_add(GOLDEN);
        mix64(self.rng) % (self.cfg.max_gap + 1)
    }

    fn output(&self, v: u64) -> Result<u64> {
        match &self.cfg.obfuscator {
            Some(ob) => ob.encode(v),
            None => Ok(v),
        }
    }

    /// Takes the next value (gap applied, promoting the standby when the current runs out).
    /// An error leaves the cursor where it was.
    fn pop(&mut self) -> Result<Pop> {
        loop {
            if self.cursor < self.end {
                let v = self.cursor.saturating_add(self.gap());
                if v < self.end {
                    if v >= self.fence {
                        return Ok(Pop::Fenced);
                    }
                    let out = self.output(v)?;
                    self.cursor = v + 1;
                    return Ok(Pop::Value(out));
                }
                // The gap skipped past the end: the rest of this range is burned.
                self.cursor = self.end;
            }
            if self.standby.is_empty() {
                return Ok(Pop::Empty);
            }
            let next = self.standby;
            self.standby = NONE;
            self.install(next);
        }
    }

    fn refresh_quiet(&mut self) {
        self.quiet = if self.cfg.max_gap != 0 || self.cfg.obfuscator.is_some() {
            0
        } else if self.in_flight.is_none() && self.standby.is_empty() {
            // Serving `v` makes the cursor `v + 1`; a fetch may become due once it reaches
            // the mark.
            self.end.min(self.fence).min(self.mark.saturating_sub(1))
        } else {
            self.end.min(self.fence)
        };
    }

    fn fetch_due(&self, now_ms: u64) -> bool {
        self.in_flight.is_none()
            && self.standby.is_empty()
            && self.cursor >= self.mark
            && now_ms >= self.retry_at_ms
    }

    /// Opens a fetch: adapts the step to the time since the last successful request and asks
    /// for at least `want` values (within the bounds).
    fn request(&mut self, now_ms: u64, want: u64) -> Fetch {
        let mut step = self.step;
        if let Some(prev) = self.last_request_ms {
            if now_ms >= prev {
                let lasted = now_ms - prev;
                if lasted < self.cfg.fast_ms {
                    step = step.saturating_mul(2).min(self.cfg.max_step);
                } else if lasted > self.cfg.slow_ms {
                    step = (step / 2).max(self.cfg.min_step);
                }
            }
        }
        let ask = step.max(want.min(self.cfg.max_step));
        let ticket = self.next_ticket;
        self.next_ticket = self.next_ticket.wrapping_add(1);
        self.in_flight = Some(InFlight {
            ticket,
            step,
            requested_ms: now_ms,
        });
        Fetch { step: ask, ticket }
    }

    fn stall(&self) -> Stall {
        if self.in_flight.is_some() {
            Stall::InFlight
        } else {
            Stall::RetryAt {
                until_ms: self.retry_at_ms,
            }
        }
    }

    /// The next ID at `now_ms`, with a fetch to start when the refill threshold is crossed or
    /// the buffer is empty. Errors: [`Error::FieldOverflow`] when the next value lies outside
    /// the obfuscator's domain (nothing is consumed).
    #[inline]
    pub fn next(&mut self, now_ms: u64) -> Result<Take> {
        let v = self.cursor;
        if v < self.quiet {
            self.cursor = v + 1;
            return Ok(Take::Id(v));
        }
        let r = self.next_slow(now_ms);
        self.refresh_quiet();
        r
    }

    /// The next ID if serving it needs no decision — no fetch becomes due, nothing is fenced,
    /// skipped or obfuscated — else `None` (call [`next`](Self::next)). Lets a driver skip
    /// reading its clock on the hot path.
    #[inline]
    pub fn next_if_quiet(&mut self) -> Option<u64> {
        let v = self.cursor;
        if v < self.quiet {
            self.cursor = v + 1;
            Some(v)
        } else {
            None
        }
    }

    /// The values the buffer would serve next without any decision — no fetch becomes due,
    /// nothing is fenced, skipped or obfuscated: `[cursor, quiet)`, empty when the next value
    /// needs [`next`](Self::next). A driver may hand them out through a [`SegmentCursor`]
    /// window, then report what was taken with [`consume_quiet`](Self::consume_quiet) before
    /// it calls anything else on the buffer.
    ///
    /// # Examples
    /// ```
    /// use idmint::segment::{Range, SegmentBuffer, SegmentConfig, Take};
    ///
    /// let mut buf = SegmentBuffer::new(SegmentConfig::new().fixed_step(100).refill_at_percent(50))?;
    /// let Take::Fetch(f) = buf.next(0)? else { panic!() };
    /// buf.supply(f, Range { start: 1, end: 101 }, 0)?;
    /// // Serving 50 makes the next fetch due (the refill mark is 51): 1..=49 need no decision.
    /// assert_eq!(buf.quiet_range(), Range { start: 1, end: 50 });
    /// buf.consume_quiet(Range { start: 1, end: 11 })?; // ten of them were handed out
    /// assert_eq!(buf.next(0)?, Take::Id(11));
    /// # Ok::<(), idmint::Error>(())
    /// ```
    pub fn quiet_range(&self) -> Range {
        Range {
            start: self.cursor,
            end: self.quiet.max(self.cursor),
        }
    }

    /// Marks `served` as handed out: it must be a prefix of [`quiet_range`](Self::quiet_range)
    /// (an empty range is always accepted). Anything else is [`Error::InvalidConfig`] and
    /// changes nothing.
    pub fn consume_quiet(&mut self, served: Range) -> Result<()> {
        if served.is_empty() {
            return Ok(());
        }
        if served.start != self.cursor || served.end > self.quiet {
            return Err(Error::InvalidConfig {
                reason: "consumed values are not a prefix of the segment buffer's quiet run",
            });
        }
        self.cursor = served.end;
        Ok(())
    }

    fn next_slow(&mut self, now_ms: u64) -> Result<Take> {
        let pop = self.pop()?;
        let fetch = if self.fetch_due(now_ms) {
            Some(self.request(now_ms, 1))
        } else {
            None
        };
        Ok(match (pop, fetch) {
            (Pop::Value(v), None) => Take::Id(v),
            (Pop::Value(v), Some(f)) => Take::IdAndFetch(v, f),
            (_, Some(f)) => Take::Fetch(f),
            (Pop::Fenced, None) => Take::Stall(Stall::Fenced),
            (Pop::Empty, None) => Take::Stall(self.stall()),
        })
    }

    /// Fills `out` with as many IDs as the buffers hold (in order), then asks for a fetch if
    /// one is due; a fetch asked because the buffers ran dry asks for at least the shortfall
    /// (within the step bounds), so a batch of 100,000 needs few round trips.
    ///
    /// Errors like [`next`](Self::next); on an error the values already written to `out` are
    /// consumed and never served again.
    pub fn take_into(&mut self, out: &mut [u64], now_ms: u64) -> Result<Batch> {
        let r = self.take_into_inner(out, now_ms);
        self.refresh_quiet();
        r
    }

    fn take_into_inner(&mut self, out: &mut [u64], now_ms: u64) -> Result<Batch> {
        let mut filled = 0usize;
        let mut stall = None;
        while filled < out.len() {
            if self.cfg.max_gap == 0 && self.cursor < self.end {
                // A run without gaps: copy consecutive values.
                let limit = self.end.min(self.fence);
                if self.cursor >= limit {
                    stall = Some(Stall::Fenced);
                    break;
                }
                let room = (out.len() - filled) as u64;
                let mut n = (limit - self.cursor).min(room);
                if let Some(ob) = &self.cfg.obfuscator {
                    // Fails when the next value lies outside the domain (nothing consumed).
                    ob.encode(self.cursor)?;
                    n = n.min(ob.max() - self.cursor + 1);
                }
                let run = out.get_mut(filled..filled + n as usize).unwrap_or(&mut []);
                for (slot, v) in run.iter_mut().zip(self.cursor..) {
                    *slot = v;
                }
                if let Some(ob) = &self.cfg.obfuscator {
                    for slot in run.iter_mut() {
                        *slot = ob.encode(*slot)?;
                    }
                }
                self.cursor += n;
                filled += n as usize;
                continue;
            }
            match self.pop()? {
                Pop::Value(v) => {
                    if let Some(slot) = out.get_mut(filled) {
                        *slot = v;
                    }
                    filled += 1;
                }
                Pop::Fenced => {
                    stall = Some(Stall::Fenced);
                    break;
                }
                Pop::Empty => {
                    stall = Some(Stall::InFlight);
                    break;
                }
            }
        }
        let fetch = if self.fetch_due(now_ms) {
            let want = (out.len() - filled) as u64;
            Some(self.request(now_ms, want))
        } else {
            None
        };
        if stall == Some(Stall::InFlight) && fetch.is_none() {
            stall = Some(self.stall());
        }
        Ok(Batch {
            filled,
            fetch,
            stall,
        })
    }

    fn claim(&mut self, fetch: Fetch) -> Result<InFlight> {
        match self.in_flight {
            Some(f) if f.ticket == fetch.ticket => {
                self.in_flight = None;
                Ok(f)
            }
            _ => Err(Error::InvalidConfig {
                reason: "this fetch is not the one in flight for this segment buffer",
            }),
        }
    }

    fn note_failure(&mut self, now_ms: u64) {
        self.failures = self.failures.saturating_add(1);
        let shift = (self.failures - 1).min(63);
        let delay = self
            .cfg
            .retry_min_ms
            .checked_shl(shift)
            .filter(|d| d >> shift == self.cfg.retry_min_ms)
            .unwrap_or(u64::MAX)
            .min(self.cfg.retry_max_ms);
        self.retry_at_ms = now_ms.saturating_add(delay);
    }

    /// Settles `fetch` with the range the store returned: it becomes the standby (or the
    /// current range if that is used up). The step the fetch was sized with becomes the
    /// current step.
    ///
    /// Refused — and counted as a failed fetch — when the range is empty, or (when
    /// [ordered](SegmentConfig::ordered)) starts below the end of a range this buffer accepted
    /// before ([`Error::InvalidConfig`]: the store went back). A `fetch` that is not the one in
    /// flight is refused without changing anything.
    pub fn supply(&mut self, fetch: Fetch, range: Range, now_ms: u64) -> Result<()> {
        let r = self.supply_inner(fetch, range, now_ms);
        self.refresh_quiet();
        r
    }

    fn supply_inner(&mut self, fetch: Fetch, range: Range, now_ms: u64) -> Result<()> {
        let f = self.claim(fetch)?;
        if range.is_empty() {
            self.note_failure(now_ms);
            return Err(Error::InvalidConfig {
                reason: "the segment store returned an empty range",
            });
        }
        if self.cfg.ordered && range.start < self.floor {
            self.note_failure(now_ms);
            return Err(Error::InvalidConfig {
                reason: "the segment store returned a range below one it handed out before",
            });
        }
        self.floor = self.floor.max(range.end);
        self.step = f.step;
        self.last_request_ms = Some(f.requested_ms);
        self.failures = 0;
        self.retry_at_ms = 0;
        // A fetch is only asked while the standby is empty, and nothing else fills it while
        // the fetch is in flight, so the standby is free here.
        if self.cursor >= self.end && self.standby.is_empty() {
            self.install(range);
        } else {
            self.standby = range;
        }
        Ok(())
    }

    /// Settles `fetch` as failed: no new fetch is asked until the retry backoff has passed,
    /// then the next call asks again.
    pub fn fail(&mut self, fetch: Fetch, now_ms: u64) -> Result<()> {
        let r = self.fail_inner(fetch, now_ms);
        self.refresh_quiet();
        r
    }

    fn fail_inner(&mut self, fetch: Fetch, now_ms: u64) -> Result<()> {
        self.claim(fetch)?;
        self.note_failure(now_ms);
        Ok(())
    }

    /// The unserved values, without changing anything.
    pub fn remainder(&self) -> Remainder {
        let mut rem = Remainder::default();
        rem.push(Range {
            start: self.cursor,
            end: self.end,
        });
        rem.push(self.standby);
        rem
    }

    /// Takes the unserved values out: the buffer serves nothing more until a range is supplied
    /// or resumed. For a clean shutdown — record the result in the journal.
    pub fn drain(&mut self) -> Remainder {
        let r = self.drain_inner();
        self.refresh_quiet();
        r
    }

    fn drain_inner(&mut self) -> Remainder {
        let rem = self.remainder();
        self.cursor = self.end;
        self.standby = NONE;
        rem
    }

    /// Restores values a journal recorded (at most two disjoint ranges, as
    /// [`remainder`](Self::remainder) gave them; empty ones are skipped): the first becomes
    /// current, the second the standby. The buffer must be empty with no fetch in flight, and
    /// when [ordered](SegmentConfig::ordered) the ranges must ascend, above any range it
    /// accepted before; otherwise [`Error::InvalidConfig`].
    pub fn resume(&mut self, ranges: &[Range]) -> Result<()> {
        let r = self.resume_inner(ranges);
        self.refresh_quiet();
        r
    }

    fn resume_inner(&mut self, ranges: &[Range]) -> Result<()> {
        let bad = |reason| Err(Error::InvalidConfig { reason });
        if self.in_flight.is_some() || self.cursor < self.end || !self.standby.is_empty() {
            return bad("resume needs an empty segment buffer with no fetch in flight");
        }
        let mut rem = Remainder::default();
        let mut floor = self.floor;
        for r in ranges.iter().filter(|r| !r.is_empty()) {
            if rem.len == 2 {
                return bad("a segment buffer resumes at most two ranges");
            }
            let overlaps = rem
                .ranges()
                .iter()
                .any(|p| r.start < p.end && p.start < r.end);
            if overlaps || (self.cfg.ordered && r.start < floor) {
                return bad("resumed segment ranges must be disjoint (and ascend, when ordered)");
            }
            floor = floor.max(r.end);
            rem.push(*r);
        }
        let [first, second] = rem.ranges;
        if !first.is_empty() {
            self.install(first);
        }
        self.standby = second;
        self.floor = floor;
        Ok(())
    }

    /// First phase of a journal checkpoint: keeps the next `reserve` unserved values (in
    /// serving order) servable and returns the buffered values that lie above all of them, to
    /// be recorded; the fence drops to the smallest recorded value (if it is not lower
    /// already), so nothing recorded is served while the record is written. Once the record
    /// is durable and has replaced every older one, call [`end_checkpoint`](Self::end_checkpoint);
    /// if writing fails, leave the fence where it is (safe: it only holds values back).
    ///
    /// With ascending ranges the record is exactly everything beyond the reserve. With
    /// [unordered](SegmentConfig::ordered) ranges, values beyond the reserve but below its
    /// highest value are left out of the record (a crash loses them rather than risking them).
    pub fn begin_checkpoint(&mut self, reserve: u64) -> Checkpoint {
        let r = self.begin_checkpoint_inner(reserve);
        self.refresh_quiet();
        r
    }

    fn begin_checkpoint_inner(&mut self, reserve: u64) -> Checkpoint {
        let parts = [
            Range {
                start: self.cursor,
                end: self.end,
            },
            self.standby,
        ];
        // The threshold: one above the highest reserved value (or the lowest buffered value
        // when nothing is reserved). Everything recorded lies at or above it.
        let mut left = reserve;
        let mut above_reserve: Option<u64> = None;
        let mut lowest = u64::MAX;
        for r in parts.iter().filter(|r| !r.is_empty()) {
            lowest = lowest.min(r.start);
            if left > 0 {
                let take = left.min(r.len());
                left -= take;
                above_reserve = Some(above_reserve.unwrap_or(0).max(r.start + take));
            }
        }
        let threshold = above_reserve.unwrap_or(lowest);
        let mut rem = Remainder::default();
        let mut fence = u64::MAX;
        for r in parts.iter().filter(|r| !r.is_empty()) {
            let start = r.start.max(threshold);
            if start < r.end {
                rem.push(Range { start, end: r.end });
                fence = fence.min(start);
            }
        }
        self.fence = self.fence.min(fence);
        Checkpoint {
            remainder: rem,
            fence,
        }
    }

    /// Second phase: the checkpoint's record is durable and replaced every older one, so the
    /// fence moves to the checkpoint's (values below it are free to serve).
    pub fn end_checkpoint(&mut self, checkpoint: Checkpoint) {
        self.fence = checkpoint.fence;
        self.refresh_quiet();
    }
}

/// The gap seed of `key` under `seed` (FNV-1a of the key, mixed).
fn key_seed(seed: u64, key: &str) -> u64 {
    let h = key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    mix64(seed ^ mix64(h))
}

/// One [`SegmentBuffer`] per key (Leaf's `biz_tag`), created on first use, all with one config.
///
/// # Examples
/// ```
/// use idmint::segment::{Range, SegmentConfig, Segments, Take};
/// let mut segs = Segments::new(SegmentConfig::new().fixed_step(10).refill_at_percent(50))?;
/// let Take::Fetch(f) = segs.next("orders", 0)? else { panic!() };
/// segs.supply("orders", f, Range { start: 1, end: 11 }, 0)?;
/// assert_eq!(segs.next("orders", 0)?, Take::Id(1));
/// assert!(matches!(segs.next("users", 0)?, Take::Fetch(_))); // keys are independent
/// # Ok::<(), idmint::Error>(())
/// ```
#[cfg(feature = "alloc")]
#[derive(Debug, Clone)]
pub struct Segments {
    cfg: SegmentConfig,
    keys: BTreeMap<String, SegmentBuffer>,
}

#[cfg(feature = "alloc")]
impl Segments {
    /// An empty map for `cfg` (validated).
    pub fn new(cfg: SegmentConfig) -> Result<Segments> {
        cfg.validate()?;
        Ok(Segments {
            cfg,
            keys: BTreeMap::new(),
        })
    }

    /// The config every key's buffer uses.
    pub const fn config(&self) -> &SegmentConfig {
        &self.cfg
    }

    /// The buffer of `key`, created on first use.
    pub fn buffer(&mut self, key: &str) -> &mut SegmentBuffer {
        let cfg = self.cfg;
        self.keys
            .entry(String::from(key))
            .or_insert_with(|| SegmentBuffer::build(cfg, key_seed(cfg.seed, key)))
    }

    /// The buffer of `key`, if it was used.
    pub fn get(&self, key: &str) -> Option<&SegmentBuffer> {
        self.keys.get(key)
    }

    /// [`SegmentBuffer::next`] on `key`'s buffer.
    pub fn next(&mut self, key: &str, now_ms: u64) -> Result<Take> {
        if let Some(b) = self.keys.get_mut(key) {
            return b.next(now_ms);
        }
        self.buffer(key).next(now_ms)
    }

    /// [`SegmentBuffer::take_into`] on `key`'s buffer.
    pub fn take_into(&mut self, key: &str, out: &mut [u64], now_ms: u64) -> Result<Batch> {
        if let Some(b) = self.keys.get_mut(key) {
            return b.take_into(out, now_ms);
        }
        self.buffer(key).take_into(out, now_ms)
    }

    fn used(&mut self, key: &str) -> Result<&mut SegmentBuffer> {
        self.keys.get_mut(key).ok_or(Error::InvalidConfig {
            reason: "this fetch is not the one in flight for this segment buffer",
        })
    }

    /// [`SegmentBuffer::supply`] on `key`'s buffer.
    pub fn supply(&mut self, key: &str, fetch: Fetch, range: Range, now_ms: u64) -> Result<()> {
        self.used(key)?.supply(fetch, range, now_ms)
    }

    /// [`SegmentBuffer::fail`] on `key`'s buffer.
    pub fn fail(&mut self, key: &str, fetch: Fetch, now_ms: u64) -> Result<()> {
        self.used(key)?.fail(fetch, now_ms)
    }

    /// [`SegmentBuffer::resume`] on `key`'s buffer (created if new).
    pub fn resume(&mut self, key: &str, ranges: &[Range]) -> Result<()> {
        self.buffer(key).resume(ranges)
    }

    /// [`SegmentBuffer::drain`] on every key; keys with nothing left are omitted.
    pub fn drain(&mut self) -> Vec<(String, Remainder)> {
        self.keys
            .iter_mut()
            .map(|(k, b)| (k.clone(), b.drain()))
            .filter(|(_, r)| !r.is_empty())
            .collect()
    }

    /// The keys used so far, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.keys.keys().map(String::as_str)
    }

    /// How many keys were used.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no key was used.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}
