//! [`SystemClock`] (std): the wall clock carried on the monotonic clock: a reading is the monotonic
//! time plus an offset (wall − monotonic), so readings never jitter, and once every
//! [`REANCHOR_MS`] of monotonic time the first reading re-reads the wall clock and moves the
//! offset if the wall clock stepped (an NTP step, an operator's `date -s`, a resumed VM):
//! forward steps are followed; steps back are followed too, so the generator finds the clock
//! behind its last tick and applies its `on_backwards` policy. See [`crate::clock::anchor`].
//!
//! **Bounds.** A step of the wall clock larger than 1 ms (plus the measurement's uncertainty,
//! typically well under a microsecond) is seen by the first reading that starts at least
//! [`REANCHOR_MS`] (1 s) of monotonic time after the previous re-anchoring, so at most 1 s after
//! the step in a process that keeps minting (a process that mints nothing for longer sees it
//! with its next ID). Until then IDs carry the time of the clock before the step: after a
//! forward step by S they lag the wall clock by S, for at most 1 s; after a step back by S
//! they run S ahead of it, for at most 1 s, and then meet the policy. Smaller steps are not
//! followed. [`SystemClock::resync`] re-anchors at once.
//!
//! **Cost.** The re-reading happens off the hot path; a reading costs one relaxed load and a
//! compare more than a fixed offset would. On Linux the clock also offers a coarse reading
//! (`CLOCK_MONOTONIC_COARSE`, ~6 ns instead of ~29 ns here) that lags the true time by about
//! one kernel tick (4 ms at HZ=250; up to 7 ms was observed on a busy VM). The generator uses
//! it on the hot path and confirms with the precise clock whenever the coarse reading alone
//! would make it wait, error or change behaviour (a rollback epoch, an earlier ring slot, a
//! logical run ahead). So between steps the time field of an ID is never later than the wall
//! time and typically at most one kernel tick earlier; [`SystemClock::precise`] trades ~23 ns
//! per call for exact ticks.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::Clock;
use crate::clock::anchor::{Anchor, NS_PER_MS, PERIOD_MS};

/// How often [`SystemClock`] re-reads the wall clock, in ms of monotonic time (see the
/// [module docs](self)).
pub const REANCHOR_MS: u64 = PERIOD_MS;

/// Wall-clock differences up to this many ns are measurement noise, not steps.
const MIN_STEP_NS: i64 = NS_PER_MS;

/// The wall clock, ns since the Unix epoch (negative before it), saturating.
fn wall_ns() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
        Err(e) => i64::try_from(e.duration().as_nanos()).map_or(i64::MIN, |n| -n),
    }
}

/// One wall-clock reading with the monotonic time it was taken at: (wall, monotonic,
/// uncertainty), all ns. The monotonic time is the midpoint of readings taken just before and
/// after the wall clock; of a few tries the tightest is kept (a thread preempted between the
/// readings widens the window).
fn sample() -> (i64, i64, i64) {
    let mut best = (0, 0, i64::MAX);
    for _ in 0..4 {
        let a = mono_ns(false);
        let w = wall_ns();
        let b = mono_ns(false);
        let half = (b - a) / 2 + 1;
        if half < best.2 {
            best = (w, a + half, half);
        }
        if half < 10_000 {
            break;
        }
    }
    best
}

#[cfg(target_os = "linux")]
fn mono_ns(coarse: bool) -> i64 {
    let id = if coarse {
        libc::CLOCK_MONOTONIC_COARSE
    } else {
        libc::CLOCK_MONOTONIC
    };
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; clock_gettime has no other preconditions.
    unsafe { libc::clock_gettime(id, &mut ts) };
    #[allow(clippy::unnecessary_cast)] // the field types differ between targets
    let ns = ts.tv_sec as i64 * 1_000_000_000 + ts.tv_nsec as i64;
    ns
}

#[cfg(target_os = "linux")]
fn coarse_resolution_ms() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: as above.
    let rc = unsafe { libc::clock_getres(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
    if rc != 0 {
        return 10;
    }
    let ns = ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64;
    ns.div_ceil(1_000_000).max(1)
}

#[cfg(not(target_os = "linux"))]
fn mono_ns(_coarse: bool) -> i64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static BASE: OnceLock<Instant> = OnceLock::new();
    BASE.get_or_init(Instant::now).elapsed().as_nanos() as i64
}

#[cfg(not(target_os = "linux"))]
fn coarse_resolution_ms() -> u64 {
    0
}

/// Wall time carried on the monotonic clock and re-anchored to the wall clock once every
/// [`REANCHOR_MS`]; see the [module docs](self).
#[derive(Debug)]
pub struct SystemClock {
    anchor: Anchor,
    lag_ms: u64,
}

impl SystemClock {
    /// Anchors to the current wall time. The hot path reads the coarse clock; a reading up to
    /// two coarse-clock resolutions behind the last issued tick counts as still being in it
    /// (the kernel updates the coarse clock once per tick, and a busy VM delays that update).
    pub fn new() -> SystemClock {
        SystemClock::with_lag(coarse_resolution_ms().saturating_mul(2))
    }

    /// Anchors to the current wall time and reads only the precise clock (~29 ns per read on
    /// this kind of VM instead of ~6 ns): IDs' time fields are then exact to the tick.
    pub fn precise() -> SystemClock {
        SystemClock::with_lag(0)
    }

    fn with_lag(lag_ms: u64) -> SystemClock {
        let (wall, mono, _) = sample();
        SystemClock {
            anchor: Anchor::new(wall - mono, mono, REANCHOR_MS, MIN_STEP_NS),
            lag_ms,
        }
    }

    /// Re-reads the wall clock now instead of at the next period. If it stepped since the last
    /// re-anchoring, readings follow it; a step back makes generators apply their
    /// `on_backwards` policy.
    pub fn resync(&self) {
        let (wall, mono, uncertainty) = sample();
        self.anchor.observe(wall, mono, uncertainty);
        self.anchor.postpone(mono);
    }

    #[inline(always)]
    fn at(&self, ns: i64) -> u64 {
        if self.anchor.is_due(ns) {
            return self.reanchor(ns);
        }
        self.anchor.ms_at(ns)
    }

    /// The slow path of a reading at `ns` that found the re-anchoring due: one caller re-reads
    /// the wall clock, the others go on with the current offset.
    #[cold]
    #[inline(never)]
    fn reanchor(&self, ns: i64) -> u64 {
        if self.anchor.claim(ns) {
            let (wall, mono, uncertainty) = sample();
            self.anchor.observe(wall, mono, uncertainty);
        }
        self.anchor.ms_at(ns)
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock::new()
    }
}

impl Clock for SystemClock {
    #[inline]
    fn now_ms(&self) -> u64 {
        self.at(mono_ns(false))
    }

    #[inline]
    fn coarse_ms(&self) -> u64 {
        if self.lag_ms == 0 {
            self.now_ms()
        } else {
            self.at(mono_ns(true))
        }
    }

    fn coarse_lag_ms(&self) -> u64 {
        self.lag_ms
    }

    /// One precise reading split into ms and the ns into that millisecond, both from the same
    /// offset.
    fn now_ms_nanos(&self) -> (u64, u32) {
        let ns = mono_ns(false);
        self.at(ns); // re-anchors first when due
        let wall = ns.saturating_add(self.anchor.offset()).max(0) as u64;
        let per_ms = NS_PER_MS as u64;
        (wall / per_ms, (wall % per_ms) as u32)
    }

    /// Sleeps in slices of at most one re-anchoring period, so a wall-clock step during a long
    /// wait is seen before the wait ends.
    fn wait_until(&self, until_ms: u64) {
        loop {
            let now = self.now_ms();
            if now >= until_ms {
                return;
            }
            let d = until_ms - now;
            if d > 1 {
                std::thread::sleep(Duration::from_millis((d - 1).min(REANCHOR_MS)));
            } else {
                std::thread::yield_now();
            }
        }
    }
}
