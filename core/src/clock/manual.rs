//! [`ManualClock`]: a clock moved by hand (`no_std`).

use core::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::Clock;

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
