//! The system clock as the core's generators use it from Python: waiting never holds the GIL.

use std::cell::Cell;

use idmint::{Clock, SystemClock};
use pyo3::prelude::*;

thread_local! {
    /// Whether this thread runs inside [`detached`] (not attached to the interpreter).
    static DETACHED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` detached from the interpreter (the GIL released), telling [`GilFreeClock`] so.
pub fn detached<T: Send, F: FnOnce() -> T + Send>(py: Python<'_>, f: F) -> T {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            DETACHED.with(|d| d.set(false));
        }
    }
    py.detach(|| {
        DETACHED.with(|d| d.set(true));
        let _reset = Reset;
        f()
    })
}

/// The core's `SystemClock`, except that waiting never holds the GIL: when the core's
/// generator waits (sequence exhausted, short clock step back) from a thread attached to the
/// interpreter, the wait detaches, so other Python threads run meanwhile. Everything else,
/// including the hot path's coarse reading, is the system clock's.
#[derive(Debug, Default)]
pub struct GilFreeClock(SystemClock);

impl Clock for GilFreeClock {
    #[inline]
    fn now_ms(&self) -> u64 {
        self.0.now_ms()
    }

    #[inline]
    fn coarse_ms(&self) -> u64 {
        self.0.coarse_ms()
    }

    fn coarse_lag_ms(&self) -> u64 {
        self.0.coarse_lag_ms()
    }

    fn wait_until(&self, until_ms: u64) {
        if DETACHED.with(|d| d.get()) {
            self.0.wait_until(until_ms)
        } else {
            Python::attach(|py| py.detach(|| self.0.wait_until(until_ms)))
        }
    }
}
