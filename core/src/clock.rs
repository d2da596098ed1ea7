//! Clocks for the std front door. The core itself takes `now_ms`; these supply it.
//!
//! [`SystemClock`] reads the wall clock once, at construction (and on [`SystemClock::resync`]),
//! and from then on advances with the monotonic clock: an NTP step inside the process cannot
//! move it backwards. On Linux it also offers a coarse reading (`CLOCK_MONOTONIC_COARSE`,
//! ~6 ns instead of ~29 ns here) that lags the true time by about one kernel tick (4 ms at
//! HZ=250; up to 7 ms was observed on a busy VM). The generator uses it on the hot path and
//! confirms with the precise clock whenever the coarse reading alone would make it wait, error
//! or change behaviour. So the time field of an ID is never later than the true time and
//! typically at most one kernel tick earlier; [`SystemClock::precise`] trades ~23 ns per call
//! for exact ticks.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A source of Unix-millisecond time that can also wait.
pub trait Clock: Send + Sync {
    /// The current time, ms since the Unix epoch.
    fn now_ms(&self) -> u64;

    /// A cheaper reading that may lag [`now_ms`](Self::now_ms) by up to
    /// [`coarse_lag_ms`](Self::coarse_lag_ms) but never leads it.
    fn coarse_ms(&self) -> u64 {
        self.now_ms()
    }

    /// The most [`coarse_ms`](Self::coarse_ms) can lag.
    fn coarse_lag_ms(&self) -> u64 {
        0
    }

    /// Blocks until [`now_ms`](Self::now_ms) reaches `until_ms`.
    fn wait_until(&self, until_ms: u64) {
        loop {
            let now = self.now_ms();
            if now >= until_ms {
                return;
            }
            let d = until_ms - now;
            if d > 1 {
                std::thread::sleep(Duration::from_millis(d - 1));
            } else {
                std::thread::yield_now();
            }
        }
    }
}

fn wall_ms() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_millis() as i64,
        Err(_) => 0,
    }
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

/// Wall time anchored to the monotonic clock; see the [module docs](self).
#[derive(Debug)]
pub struct SystemClock {
    /// wall ms − monotonic ms at the last (re)sync.
    offset_ms: AtomicI64,
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
        let c = SystemClock {
            offset_ms: AtomicI64::new(0),
            lag_ms,
        };
        c.resync();
        c
    }

    /// Re-reads the wall clock. If it moved back since the last sync, generators see a step
    /// back and apply their `on_backwards` policy.
    pub fn resync(&self) {
        let mono_ms = mono_ns(false) / 1_000_000;
        self.offset_ms.store(wall_ms() - mono_ms, Relaxed);
    }

    #[inline]
    fn at(&self, ns: i64) -> u64 {
        (ns / 1_000_000 + self.offset_ms.load(Relaxed)).max(0) as u64
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
}

/// A clock you move by hand, for tests and replays. Waiting advances it instantly.
#[derive(Debug, Default)]
pub struct ManualClock {
    now: AtomicU64,
}

impl ManualClock {
    /// A clock reading `now_ms`.
    pub fn new(now_ms: u64) -> ManualClock {
        ManualClock {
            now: AtomicU64::new(now_ms),
        }
    }

    /// Sets the time (it may go backwards).
    pub fn set(&self, now_ms: u64) {
        self.now.store(now_ms, Relaxed);
    }

    /// Moves the time forward by `ms`.
    pub fn advance(&self, ms: u64) {
        self.now.fetch_add(ms, Relaxed);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.now.load(Relaxed)
    }

    fn wait_until(&self, until_ms: u64) {
        self.now.fetch_max(until_ms, Relaxed);
    }
}

impl<C: Clock + ?Sized> Clock for std::sync::Arc<C> {
    fn now_ms(&self) -> u64 {
        (**self).now_ms()
    }
    fn coarse_ms(&self) -> u64 {
        (**self).coarse_ms()
    }
    fn coarse_lag_ms(&self) -> u64 {
        (**self).coarse_lag_ms()
    }
    fn wait_until(&self, until_ms: u64) {
        (**self).wait_until(until_ms)
    }
}
