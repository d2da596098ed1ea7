//! [`SegmentConfig`]: how a buffer sizes, schedules and shapes what it serves.

#[cfg(doc)]
use super::SegmentBuffer;
use super::{
    DEFAULT_FAST_MS, DEFAULT_MAX_STEP, DEFAULT_REFILL_PERCENT, DEFAULT_RETRY_MAX_MS,
    DEFAULT_RETRY_MIN_MS, DEFAULT_SLOW_MS, DEFAULT_STEP,
};
use crate::error::{Error, Result};
use crate::obfuscate::Obfuscator;

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
    pub(super) step: u64,
    pub(super) min_step: u64,
    pub(super) max_step: u64,
    pub(super) refill_percent: u8,
    pub(super) fast_ms: u64,
    pub(super) slow_ms: u64,
    pub(super) retry_min_ms: u64,
    pub(super) retry_max_ms: u64,
    pub(super) max_gap: u64,
    pub(super) seed: u64,
    pub(super) obfuscator: Option<Obfuscator>,
    pub(super) ordered: bool,
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
    /// unique. Values above the obfuscator's domain fail with [`Error::OutOfRange`].
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
