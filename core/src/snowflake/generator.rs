//! [`Generator`]: the one interface of the Snowflake generators ([`LocalSnowflake`],
//! [`AtomicSnowflake`] and, with `std`, [`Snowflake`](crate::Snowflake)), so a binding or the
//! clocked front door ([`Clocked`](crate::Clocked)) can wrap any of them.
//!
//! Minting takes `&mut self`, which every generator allows; the thread-safe ones also implement
//! the trait for a shared reference (`&AtomicSnowflake`), as `std::io::Read` is implemented for
//! `&File`, so code generic over `G: Generator` mints through `&AtomicSnowflake` from many
//! threads at once.

use crate::error::{Error, Result};
use crate::snowflake::atomic::AtomicSnowflake;
use crate::snowflake::layout::Layout;
use crate::snowflake::local::LocalSnowflake;
use crate::snowflake::policy::Config;
use crate::snowflake::state::{fill_from_runs, partial_ok, Run};
use crate::snowflake::stats::Stats;

/// A sans-IO Snowflake generator: pass `now_ms` (ms since the Unix epoch) to every call; the
/// answer is an ID, [`Error::WouldBlock`] (call again at `until_ms`) or why not.
///
/// # Examples
/// ```
/// use idmint::{AtomicSnowflake, Config, Generator, Layout, LocalSnowflake};
///
/// fn three<G: Generator>(mut g: G, now_ms: u64) -> idmint::Result<[u64; 3]> {
///     let mut out = [0; 3];
///     g.next_ids_at(now_ms, &mut out)?;
///     Ok(out)
/// }
/// let cfg = Config::new(Layout::preset("leaf")?).node(5);
/// let now = 1_700_000_000_000;
/// let shared = AtomicSnowflake::new(cfg)?;
/// assert_eq!(three(LocalSnowflake::new(cfg)?, now)?, three(&shared, now)?);
/// # Ok::<(), idmint::Error>(())
/// ```
pub trait Generator {
    /// The config this generator was built from.
    fn config(&self) -> &Config;

    /// The layout of the IDs it mints.
    #[inline]
    fn layout(&self) -> &Layout {
        self.config().layout()
    }

    /// The node value IDs carry now.
    fn node(&self) -> u64;

    /// The generator's counters.
    fn stats(&self) -> Stats;

    /// Reserves a run of up to `max` IDs (at least 1) from one tick at `now_ms`.
    fn reserve_at(&mut self, now_ms: u64, max: u64) -> Result<Run>;

    /// Mints one ID at `now_ms`.
    #[inline]
    fn next_id_at(&mut self, now_ms: u64) -> Result<u64> {
        self.reserve_at(now_ms, 1).map(|r| r.first)
    }

    /// Fills `out` with IDs at `now_ms`, one run per tick, and returns how many were written:
    /// all of them, or fewer when the policy asks to wait. Fails only if not even one ID could
    /// be issued.
    fn next_ids_at(&mut self, now_ms: u64, out: &mut [u64]) -> Result<usize> {
        partial_ok(fill_from_runs(out, |max| self.reserve_at(now_ms, max)))
    }

    /// The single-ID fast path for a reading `now_ms` of a clock that may lag the true time by
    /// up to `lag_ticks` ticks (a coarse clock; 0 for an exact one): `Some` while the current
    /// tick has room, `None` for anything else (new tick, exhaustion, clock behind, a policy
    /// that needs the general path), which the caller then takes with an exact reading.
    /// The default never takes the fast path.
    #[inline]
    fn next_id_coarse(&mut self, now_ms: u64, lag_ticks: u64) -> Option<u64> {
        let _ = (now_ms, lag_ticks);
        None
    }

    /// [`reserve_at`](Self::reserve_at) for a coarse reading (see
    /// [`next_id_coarse`](Self::next_id_coarse)): `Some` only when the reading alone is enough,
    /// `None` when the caller must confirm with an exact reading. The default never is.
    #[inline]
    fn reserve_coarse(&mut self, now_ms: u64, lag_ticks: u64, max: u64) -> Option<Run> {
        let _ = (now_ms, lag_ticks, max);
        None
    }
}

impl Generator for LocalSnowflake {
    #[inline]
    fn config(&self) -> &Config {
        LocalSnowflake::config(self)
    }
    #[inline]
    fn node(&self) -> u64 {
        // Built only with a node (`Error::NodeRequired` otherwise), which never changes.
        LocalSnowflake::config(self).node.unwrap_or(0)
    }
    #[inline]
    fn stats(&self) -> Stats {
        LocalSnowflake::stats(self)
    }
    #[inline]
    fn reserve_at(&mut self, now_ms: u64, max: u64) -> Result<Run> {
        LocalSnowflake::reserve_at(self, now_ms, max)
    }
    #[inline]
    fn next_id_at(&mut self, now_ms: u64) -> Result<u64> {
        LocalSnowflake::next_id_at(self, now_ms)
    }
    #[inline]
    fn next_ids_at(&mut self, now_ms: u64, out: &mut [u64]) -> Result<usize> {
        LocalSnowflake::next_ids_at(self, now_ms, out)
    }
}

/// Forwards to the `&self` methods, as the implementation for `&AtomicSnowflake` does.
macro_rules! atomic_generator {
    ($t:ty) => {
        impl Generator for $t {
            #[inline]
            fn config(&self) -> &Config {
                AtomicSnowflake::config(self)
            }
            #[inline]
            fn node(&self) -> u64 {
                AtomicSnowflake::node(self)
            }
            #[inline]
            fn stats(&self) -> Stats {
                AtomicSnowflake::stats(self)
            }
            #[inline]
            fn reserve_at(&mut self, now_ms: u64, max: u64) -> Result<Run> {
                AtomicSnowflake::reserve_at(self, now_ms, max)
            }
            #[inline]
            fn next_id_at(&mut self, now_ms: u64) -> Result<u64> {
                AtomicSnowflake::next_id_at(self, now_ms)
            }
            #[inline]
            fn next_ids_at(&mut self, now_ms: u64, out: &mut [u64]) -> Result<usize> {
                AtomicSnowflake::next_ids_at(self, now_ms, out)
            }
            #[inline(always)]
            fn next_id_coarse(&mut self, now_ms: u64, lag_ticks: u64) -> Option<u64> {
                self.try_next_fast(now_ms, lag_ticks)
            }
            #[inline]
            fn reserve_coarse(&mut self, now_ms: u64, lag_ticks: u64, max: u64) -> Option<Run> {
                match self.try_reserve(now_ms, lag_ticks, max) {
                    (Ok(run), notes) => {
                        self.record(&notes, &Ok::<(), Error>(()), now_ms);
                        Some(run)
                    }
                    (Err(_), _) => None,
                }
            }
        }
    };
}

atomic_generator!(AtomicSnowflake);
atomic_generator!(&AtomicSnowflake);
