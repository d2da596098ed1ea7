//! [`Clocked`]: a sans-IO [`Generator`] driven by a [`Clock`] — the clocked front door in
//! `no_std` form. It reads the clock, mints, and when the generator answers
//! [`Error::WouldBlock`] asks the clock to wait and tries again; a clock that cannot wait
//! answers [`Retry`](crate::clock::Retry), which comes back to the caller as `WouldBlock`.
//!
//! The std [`Snowflake`](crate::Snowflake) is a `Clocked<AtomicSnowflake, SystemClock>` plus
//! fork detection and OS randomness; a host with its own time source (the browser's
//! `performance.now()`) plugs in its clock the same way.

use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::snowflake::atomic::AtomicSnowflake;
use crate::snowflake::generator::Generator;
use crate::snowflake::policy::{Config, SequenceStart};
use crate::snowflake::state::{fill_from_runs, Run};
use crate::snowflake::stats::Stats;

/// A [`Generator`] with a [`Clock`]: `next_id()` instead of `next_id_at(now_ms)`.
///
/// Methods take `&mut self`. For a generator shared between threads, keep a
/// `Clocked<AtomicSnowflake, C>` and mint through [`by_ref`](Self::by_ref), which works on a
/// shared reference (`Clocked<&AtomicSnowflake, &C>`).
///
/// When the clock has a coarse reading ([`Clock::coarse_lag_ms`] > 0) the fast path uses it
/// and confirms with [`Clock::now_ms`] whenever the coarse reading alone would make the
/// generator wait, fail or change behaviour.
///
/// # Examples
/// ```
/// use idmint::{AtomicSnowflake, Clocked, Config, Layout, ManualClock};
///
/// let layout = Layout::parse("time=41@1ms,worker=10,seq=1,epoch=2020-01-01")?;
/// let gen = AtomicSnowflake::new(Config::new(layout).node(3))?;
/// let clocked = Clocked::new(gen, ManualClock::new(1_700_000_000_000))?;
/// let ids: Vec<u64> = (0..5).map(|_| clocked.by_ref().next_id()).collect::<Result<_, _>>()?;
/// assert!(ids.windows(2).all(|w| w[0] < w[1]));
/// // 1 sequence bit: 2 IDs per ms, so the manual clock was moved on by the waits.
/// assert_eq!(clocked.clock().now_ms(), 1_700_000_000_002);
/// # use idmint::Clock;
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug)]
pub struct Clocked<G, C> {
    gen: G,
    clock: C,
    lag_ticks: u64,
    max_waits: Option<u32>,
}

impl<G: Generator, C: Clock> Clocked<G, C> {
    /// Puts `gen` on `clock`. Fails if the layout's epoch is after the clock's time or its time
    /// field has already overflowed (the error names the date).
    pub fn new(gen: G, clock: C) -> Result<Clocked<G, C>> {
        let layout = gen.layout();
        layout.tick_at(clock.now_ms())?;
        let lag_ticks = clock.coarse_lag_ms().div_ceil(layout.tick_ms());
        Ok(Clocked {
            gen,
            clock,
            lag_ticks,
            max_waits: None,
        })
    }
}

impl<C: Clock> Clocked<AtomicSnowflake, C> {
    /// The clocked Snowflake of every front door (the std [`Snowflake`](crate::Snowflake), the
    /// browser's): a `random` sequence start without a seed draws one from `seed` (the host's
    /// randomness), and the layout must cover the clock's current time — checked before the
    /// rest of the config, so an expired layout is reported as such.
    pub fn snowflake(
        mut cfg: Config,
        clock: C,
        seed: impl FnOnce() -> Result<u64>,
    ) -> Result<Clocked<AtomicSnowflake, C>> {
        if cfg.sequence_start == SequenceStart::Random && cfg.seed == 0 {
            cfg.seed = seed()?;
        }
        cfg.layout.tick_at(clock.now_ms())?;
        Clocked::new(AtomicSnowflake::new(cfg)?, clock)
    }
}

impl<G, C> Clocked<G, C> {
    /// Gives up after `n` waits in one call, with the last [`Error::WouldBlock`] (default:
    /// never). A guard for clocks that may never reach the time asked for.
    pub fn max_waits(mut self, n: u32) -> Clocked<G, C> {
        self.max_waits = Some(n);
        self
    }

    /// A view that mints through shared references: for thread-safe generators
    /// (`&AtomicSnowflake` implements [`Generator`]) held behind `&self`.
    #[inline(always)]
    pub fn by_ref(&self) -> Clocked<&G, &C> {
        Clocked {
            gen: &self.gen,
            clock: &self.clock,
            lag_ticks: self.lag_ticks,
            max_waits: self.max_waits,
        }
    }

    /// The generator (for the sans-IO calls, `set_node`, ...).
    #[inline]
    pub fn generator(&self) -> &G {
        &self.gen
    }

    /// The generator, mutably.
    #[inline]
    pub fn generator_mut(&mut self) -> &mut G {
        &mut self.gen
    }

    /// The clock.
    #[inline]
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// The generator and the clock.
    pub fn into_parts(self) -> (G, C) {
        (self.gen, self.clock)
    }

    /// The single-ID fast path of a generator shared by reference (one clock read, one
    /// compare-and-swap), or `None` for [`next_id`](Self::next_id)'s general path. For front
    /// doors that add a check of their own before minting, without building a
    /// [`by_ref`](Self::by_ref) view on the hot path.
    #[inline(always)]
    pub fn shared_fast_id(&self) -> Option<u64>
    where
        C: Clock,
        for<'a> &'a G: Generator,
    {
        let mut gen = &self.gen;
        gen.next_id_coarse(self.fast_now(), self.lag_ticks)
    }

    /// The fast path's clock reading: the coarse clock where the generator tolerates its lag.
    #[inline(always)]
    fn fast_now(&self) -> u64
    where
        C: Clock,
    {
        if self.lag_ticks > 0 {
            self.clock.coarse_ms()
        } else {
            self.clock.now_ms()
        }
    }
}

impl<C: Clock> Clocked<AtomicSnowflake, C> {
    /// [`shared_fast_id`](Self::shared_fast_id) for a generator that no other thread mints
    /// from (a [`ThreadSnowflake`](crate::ThreadSnowflake)): the state is written with a plain
    /// store, not a compare-and-swap.
    #[cfg(feature = "std")]
    #[inline(always)]
    pub(crate) fn unshared_fast_id(&self) -> Option<u64> {
        self.gen
            .try_next_fast_unshared(self.fast_now(), self.lag_ticks)
    }
}

impl<G: Generator, C: Clock> Clocked<G, C> {
    /// The config the generator was built from.
    #[inline]
    pub fn config(&self) -> &Config {
        self.gen.config()
    }

    /// The generator's counters.
    #[inline]
    pub fn stats(&self) -> Stats {
        self.gen.stats()
    }

    /// Mints one ID, waiting if the policy asks (sequence exhausted, short clock step back).
    #[inline(always)]
    pub fn next_id(&mut self) -> Result<u64> {
        if let Some(id) = self.fast_id() {
            return Ok(id);
        }
        self.next_id_slow()
    }

    /// The general path of [`next_id`](Self::next_id), kept out of line so the fast path
    /// inlines into every caller as one clock read and one compare-and-swap.
    #[cold]
    #[inline(never)]
    fn next_id_slow(&mut self) -> Result<u64> {
        self.reserve(1).map(|r| r.first)
    }

    /// The single-ID fast path: one clock read and the generator's fast path, or `None`.
    #[inline(always)]
    fn fast_id(&mut self) -> Option<u64> {
        let now = if self.lag_ticks > 0 {
            self.clock.coarse_ms()
        } else {
            self.clock.now_ms()
        };
        self.gen.next_id_coarse(now, self.lag_ticks)
    }

    /// Mints one ID without waiting: [`Error::WouldBlock`] where [`next_id`](Self::next_id)
    /// would wait.
    pub fn try_next_id(&mut self) -> Result<u64> {
        if let Some(id) = self.fast_id() {
            return Ok(id);
        }
        self.try_reserve(1).map(|r| r.first)
    }

    /// Reserves a run of up to `max` IDs from one tick, waiting if needed.
    #[inline]
    pub fn reserve(&mut self, max: u64) -> Result<Run> {
        let mut waits = 0u32;
        loop {
            match self.try_reserve(max) {
                Err(Error::WouldBlock { until_ms }) => {
                    if self.max_waits.is_some_and(|m| waits >= m) {
                        return Err(Error::WouldBlock { until_ms });
                    }
                    waits += 1;
                    self.clock.wait_or_retry(until_ms)?;
                }
                other => return other,
            }
        }
    }

    /// One attempt at a run of up to `max` IDs, never waiting.
    #[inline]
    pub fn try_reserve(&mut self, max: u64) -> Result<Run> {
        if self.lag_ticks > 0 {
            let now = self.clock.coarse_ms();
            if let Some(run) = self.gen.reserve_coarse(now, self.lag_ticks, max) {
                return Ok(run);
            }
        }
        let now = self.clock.now_ms();
        self.gen.reserve_at(now, max)
    }

    /// Fills `out` with fresh IDs, one run per tick, waiting between ticks as needed.
    pub fn next_ids(&mut self, out: &mut [u64]) -> Result<()> {
        match fill_from_runs(out, |max| self.reserve(max)) {
            (_, Some(e)) => Err(e),
            (_, None) => Ok(()),
        }
    }
}
