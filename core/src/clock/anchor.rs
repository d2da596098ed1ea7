//! [`Anchor`]: wall-clock time carried on a monotonic clock and re-anchored to the wall clock
//! once a period, off the hot path. `no_std` and sans-IO: the caller reads both clocks.
//!
//! A reading is `monotonic + offset`, the offset being wall − monotonic as last measured. The
//! hot path costs one relaxed load and one compare on top of that addition: whether the
//! monotonic reading has reached the next check. The first reading that has claims the check
//! ([`Anchor::claim`]; one caller per period), reads the wall clock, and [`Anchor::observe`]s
//! it against the offset:
//!
//! - a difference within the tolerance (`min_step` plus the measurement's own uncertainty) is
//!   measurement noise: the offset stays, so readings never jitter back by a few nanoseconds
//!   across a millisecond boundary;
//! - a larger difference is a step of the wall clock, followed in full, both ways. Forward:
//!   readings jump ahead with the wall clock. Back: readings jump back, so a generator finds the
//!   clock behind its last tick and applies its `on_backwards` policy.
//!
//! So a step goes unseen for at most one period of monotonic time from the re-anchoring before
//! it (or, in a process that reads no clock for longer, until its first reading after that).
//! Slewing (NTP's gradual correction) moves wall and monotonic clocks together on Linux and is
//! not a step; clocks that drift apart (a browser's monotonic clock against `Date.now()` on some
//! systems) are re-anchored once the drift exceeds the tolerance.

use core::sync::atomic::{AtomicI64, Ordering::Relaxed};

/// Nanoseconds per millisecond.
pub const NS_PER_MS: i64 = 1_000_000;

/// How often the std and browser clocks compare their monotonic time with the wall clock, in ms
/// of monotonic time: the longest a step of the wall clock goes unseen in a process that keeps
/// reading the clock.
pub const PERIOD_MS: u64 = 1000;

/// Offsets are kept within ±2^62 ns (±146 years around 1970) so that adding a monotonic
/// reading (nanoseconds since boot) can never overflow.
const OFFSET_LIMIT: i64 = 1 << 62;

/// What [`Anchor::observe`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The wall clock agrees with the anchored time within the tolerance; nothing changed.
    None,
    /// The wall clock is ahead of the anchored time by this many ns; readings now follow it.
    Forward(u64),
    /// The wall clock is behind the anchored time by this many ns; readings now follow it.
    Backward(u64),
}

/// Wall time as monotonic time plus an offset, re-anchored once a period; see the
/// [module docs](self). All times are nanoseconds: monotonic ones from any fixed origin, wall
/// ones since the Unix epoch.
///
/// # Examples
/// ```
/// use idmint::clock::anchor::{Anchor, Step, NS_PER_MS};
/// // Wall clock 1,700,000,000,000 ms when the monotonic clock read 5 s.
/// let mono = 5_000 * NS_PER_MS;
/// let a = Anchor::new(1_700_000_000_000 * NS_PER_MS - mono, mono, 1000, NS_PER_MS);
/// assert_eq!(a.ms_at(mono + 3 * NS_PER_MS), 1_700_000_000_003);
/// let later = mono + 1000 * NS_PER_MS;
/// assert!(a.is_due(later) && a.claim(later) && !a.claim(later));
/// // The wall clock was set back 2 s meanwhile: readings follow it.
/// let wall = (1_700_000_001_000 - 2_000) * NS_PER_MS;
/// assert_eq!(a.observe(wall, later, 0), Step::Backward(2_000 * NS_PER_MS as u64));
/// assert_eq!(a.ms_at(later), 1_699_999_999_000);
/// ```
#[derive(Debug)]
pub struct Anchor {
    /// Wall − monotonic, ns.
    offset: AtomicI64,
    /// The monotonic time from which the wall clock is due to be read again, ns.
    due: AtomicI64,
    period: i64,
    min_step: i64,
}

fn clamp_offset(offset: i64) -> i64 {
    offset.clamp(-OFFSET_LIMIT, OFFSET_LIMIT)
}

impl Anchor {
    /// An anchor at `offset` (wall − monotonic, ns), measured at monotonic time `mono`; the
    /// wall clock is next due `period_ms` later. Differences up to `min_step` ns are not
    /// followed (the wall clock's resolution, the measurement's noise).
    pub fn new(offset: i64, mono: i64, period_ms: u64, min_step: i64) -> Anchor {
        let period = i64::try_from(period_ms)
            .unwrap_or(i64::MAX)
            .saturating_mul(NS_PER_MS)
            .max(1);
        Anchor {
            offset: AtomicI64::new(clamp_offset(offset)),
            due: AtomicI64::new(mono.saturating_add(period)),
            period,
            min_step: min_step.max(0),
        }
    }

    /// Whether a reading at monotonic time `mono` should re-anchor first (the hot-path check:
    /// one relaxed load and a compare).
    #[inline(always)]
    pub fn is_due(&self, mono: i64) -> bool {
        mono >= self.due.load(Relaxed)
    }

    /// The wall time at monotonic time `mono`, in whole ms since the Unix epoch (0 before it).
    #[inline(always)]
    pub fn ms_at(&self, mono: i64) -> u64 {
        mono.saturating_add(self.offset.load(Relaxed)).max(0) as u64 / NS_PER_MS as u64
    }

    /// The current offset, wall − monotonic, ns.
    pub fn offset(&self) -> i64 {
        self.offset.load(Relaxed)
    }

    /// Claims the re-anchoring that is due at `mono`: true for exactly one caller per period,
    /// which should then read the wall clock and [`observe`](Self::observe) it. Pushes the next
    /// check a period past `mono`.
    pub fn claim(&self, mono: i64) -> bool {
        let due = self.due.load(Relaxed);
        mono >= due
            && self
                .due
                .compare_exchange(due, mono.saturating_add(self.period), Relaxed, Relaxed)
                .is_ok()
    }

    /// Pushes the next check a period past `mono` (after a re-anchoring out of turn).
    pub fn postpone(&self, mono: i64) {
        self.due
            .fetch_max(mono.saturating_add(self.period), Relaxed);
    }

    /// Compares the wall clock `wall` read at monotonic time `mono` (± `uncertainty` ns: half
    /// the time the two readings took, the wall clock's resolution) with the anchored time, and
    /// follows it if they differ by more than `min_step` + `uncertainty`.
    pub fn observe(&self, wall: i64, mono: i64, uncertainty: i64) -> Step {
        let new = clamp_offset(wall.saturating_sub(mono));
        let old = self.offset.load(Relaxed);
        let diff = new.saturating_sub(old);
        if diff.unsigned_abs() <= self.min_step.saturating_add(uncertainty.max(0)) as u64 {
            return Step::None;
        }
        // A concurrent observation (an explicit resync) may have moved it: theirs stands.
        if self
            .offset
            .compare_exchange(old, new, Relaxed, Relaxed)
            .is_err()
        {
            return Step::None;
        }
        if diff > 0 {
            Step::Forward(diff.unsigned_abs())
        } else {
            Step::Backward(diff.unsigned_abs())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1000 * NS_PER_MS;

    fn anchor() -> Anchor {
        Anchor::new(1_700_000_000 * S, 10 * S, 1000, NS_PER_MS)
    }

    #[test]
    fn due_once_a_period_and_claimed_once() {
        let a = anchor();
        assert!(!a.is_due(11 * S - 1));
        assert!(!a.claim(11 * S - 1));
        assert!(a.is_due(11 * S));
        assert!(a.claim(11 * S + 5));
        assert!(!a.claim(11 * S + 6), "a second caller in the same period");
        assert!(!a.is_due(12 * S + 4));
        assert!(a.is_due(12 * S + 5));
        a.postpone(20 * S);
        assert!(!a.is_due(20 * S + 5));
        assert!(a.claim(21 * S));
    }

    #[test]
    fn noise_within_the_tolerance_is_not_followed() {
        let a = anchor();
        let off = a.offset();
        let mono = 11 * S;
        assert_eq!(a.observe(mono + off - NS_PER_MS, mono, 0), Step::None);
        assert_eq!(a.observe(mono + off + NS_PER_MS, mono, 0), Step::None);
        assert_eq!(
            a.observe(mono + off - 3 * NS_PER_MS, mono, 2 * NS_PER_MS),
            Step::None
        );
        assert_eq!(a.offset(), off);
        // Small drifts add up against the kept offset and are followed once past it.
        assert_eq!(
            a.observe(mono + off - NS_PER_MS - 1, mono, 0),
            Step::Backward(NS_PER_MS as u64 + 1)
        );
        assert_eq!(a.offset(), off - NS_PER_MS - 1);
    }

    #[test]
    fn steps_are_followed_both_ways() {
        let a = anchor();
        let mono = 11 * S;
        let before = a.ms_at(mono);
        assert_eq!(
            a.observe(mono + a.offset() + 10 * S, mono, 100),
            Step::Forward(10 * S as u64)
        );
        assert_eq!(a.ms_at(mono), before + 10_000);
        assert_eq!(
            a.observe(mono + a.offset() - 15 * S, mono, 100),
            Step::Backward(15 * S as u64)
        );
        assert_eq!(a.ms_at(mono), before - 5_000);
    }

    #[test]
    fn extreme_readings_neither_overflow_nor_wrap() {
        let a = Anchor::new(i64::MAX, i64::MAX, u64::MAX, i64::MAX);
        assert!(!a.is_due(i64::MAX - 1));
        assert!(a.ms_at(1 << 61) > 0);
        let b = anchor();
        assert_eq!(b.ms_at(-(1 << 62) - 1_700_000_000 * S), 0);
        assert!(matches!(
            b.observe(i64::MIN, i64::MAX, i64::MAX),
            Step::None
        ));
        assert!(matches!(
            b.observe(i64::MIN, i64::MAX, 0),
            Step::Backward(_)
        ));
        assert_eq!(b.ms_at(0), 0);
        assert!(matches!(b.observe(i64::MAX, i64::MIN, 0), Step::Forward(_)));
        assert!(b.ms_at(0) > 0);
    }
}
