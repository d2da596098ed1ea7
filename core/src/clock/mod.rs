//! Time for the clocked front doors. The generators themselves take `now_ms`; a [`Clock`]
//! supplies it and waits when a generator answers [`Error::WouldBlock`].
//!
//! The trait is `no_std`: a host that cannot block (a browser page, an event loop) implements
//! [`Clock::wait_or_retry`] by answering [`Retry`] for waits it will not sit through, and the
//! clocked generator ([`Clocked`](crate::Clocked)) passes that on as `WouldBlock` for the caller
//! to retry later. With `std`, [`SystemClock`] is the wall clock carried on the monotonic clock
//! (see [`system`]) and [`ManualClock`] is moved by hand for tests and replays.

pub mod anchor;
mod manual;
#[cfg(feature = "std")]
pub mod system;

pub use manual::ManualClock;
#[cfg(feature = "std")]
pub use system::{SystemClock, REANCHOR_MS};

use crate::error::Error;

/// A clock's answer to a wait it will not sit through: call again at `until_ms` (for example
/// from a timer). The clocked generator turns it into [`Error::WouldBlock`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Retry {
    /// When to try again, ms since the Unix epoch.
    pub until_ms: u64,
}

impl From<Retry> for Error {
    fn from(r: Retry) -> Error {
        Error::WouldBlock {
            until_ms: r.until_ms,
        }
    }
}

/// A source of Unix-millisecond time that can also wait (or say it cannot).
///
/// Only [`now_ms`](Self::now_ms) is required. Clocks are `Send + Sync`, as generators shared
/// between threads need; a single-threaded host keeps its state in atomics with `Relaxed`
/// ordering (on wasm32 without threads they compile to plain loads and stores), not `Cell`s.
pub trait Clock: Send + Sync {
    /// The current time, ms since the Unix epoch.
    fn now_ms(&self) -> u64;

    /// A cheaper reading that may lag [`now_ms`](Self::now_ms) by up to
    /// [`coarse_lag_ms`](Self::coarse_lag_ms) but never leads it.
    #[inline]
    fn coarse_ms(&self) -> u64 {
        self.now_ms()
    }

    /// The most [`coarse_ms`](Self::coarse_ms) can lag.
    #[inline]
    fn coarse_lag_ms(&self) -> u64 {
        0
    }

    /// The current time as [`now_ms`](Self::now_ms) and the nanoseconds into that millisecond
    /// (0 to 999 999), for UUID v7's sub-millisecond method. A clock without finer time
    /// answers 0 (the default).
    #[inline]
    fn now_ms_nanos(&self) -> (u64, u32) {
        (self.now_ms(), 0)
    }

    /// Blocks until [`now_ms`](Self::now_ms) reaches `until_ms`.
    ///
    /// The default sleeps with `std` (in slices, yielding for the last millisecond) and spins
    /// on [`now_ms`](Self::now_ms) without it. Hosts where neither may happen (a browser's main
    /// thread, where `std::thread::sleep` panics) override
    /// [`wait_or_retry`](Self::wait_or_retry), which is what [`Clocked`](crate::Clocked) calls.
    fn wait_until(&self, until_ms: u64) {
        loop {
            let now = self.now_ms();
            if now >= until_ms {
                return;
            }
            #[cfg(feature = "std")]
            {
                let d = until_ms - now;
                if d > 1 {
                    std::thread::sleep(std::time::Duration::from_millis(d - 1));
                } else {
                    std::thread::yield_now();
                }
            }
            #[cfg(not(feature = "std"))]
            core::hint::spin_loop();
        }
    }

    /// The wait hook of the clocked generators: waits until `until_ms` like
    /// [`wait_until`](Self::wait_until) (the default), or answers [`Retry`] where waiting that
    /// long is not possible or not wanted here. `Ok` may also come early (for example when the
    /// clock stepped back): the caller asks its generator again either way.
    #[inline]
    fn wait_or_retry(&self, until_ms: u64) -> Result<(), Retry> {
        self.wait_until(until_ms);
        Ok(())
    }
}

impl<C: Clock + ?Sized> Clock for &C {
    #[inline]
    fn now_ms(&self) -> u64 {
        (**self).now_ms()
    }
    #[inline]
    fn coarse_ms(&self) -> u64 {
        (**self).coarse_ms()
    }
    #[inline]
    fn coarse_lag_ms(&self) -> u64 {
        (**self).coarse_lag_ms()
    }
    #[inline]
    fn now_ms_nanos(&self) -> (u64, u32) {
        (**self).now_ms_nanos()
    }
    #[inline]
    fn wait_until(&self, until_ms: u64) {
        (**self).wait_until(until_ms)
    }
    #[inline]
    fn wait_or_retry(&self, until_ms: u64) -> Result<(), Retry> {
        (**self).wait_or_retry(until_ms)
    }
}

#[cfg(feature = "std")]
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
    fn now_ms_nanos(&self) -> (u64, u32) {
        (**self).now_ms_nanos()
    }
    fn wait_until(&self, until_ms: u64) {
        (**self).wait_until(until_ms)
    }
    fn wait_or_retry(&self, until_ms: u64) -> Result<(), Retry> {
        (**self).wait_or_retry(until_ms)
    }
}
