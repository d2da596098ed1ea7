//! [`AtomicSnowflake`]: the thread-safe, lock-free, sans-IO Snowflake generator.
//!
//! All state lives in one `AtomicU64` (see [`crate::snowflake::state`]) advanced by compare-and-swap, so
//! threads never block each other and every successful swap hands out IDs nobody else holds.
//! The ring policy keeps one such word per remembered tick instead.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

#[cfg(not(loom))]
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};
#[cfg(loom)]
use loom::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::error::{Error, Result};
use crate::snowflake::policy::Config;
#[cfg(feature = "alloc")]
use crate::snowflake::policy::OnBackwards;
use crate::snowflake::state::{Notes, Packing, Run};
use crate::snowflake::stats::{AtomicStats, Stats};

/// A Snowflake generator shared by reference between threads (`&self` methods). It never reads
/// a clock: pass `now_ms`. Same policies and results as [`LocalSnowflake`](crate::LocalSnowflake);
/// with several threads, each thread's IDs are strictly increasing and no two are equal.
///
/// Relaxed ordering is enough: uniqueness rests on the modification order of the single state
/// word, which every compare-and-swap observes.
///
/// # Examples
/// ```
/// use idmint::{AtomicSnowflake, Config, Layout};
/// let g = AtomicSnowflake::new(Config::new(Layout::preset("leaf")?).node(5))?;
/// let ids: Vec<u64> = std::thread::scope(|s| {
///     let h: Vec<_> = (0..2).map(|_| s.spawn(|| g.next_id_at(1_700_000_000_000).unwrap())).collect();
///     h.into_iter().map(|h| h.join().unwrap()).collect()
/// });
/// assert_ne!(ids[0], ids[1]);
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug)]
pub struct AtomicSnowflake {
    cfg: Config,
    p: Packing,
    state: AtomicU64,
    node: AtomicU64,
    #[cfg(feature = "alloc")]
    ring: Vec<AtomicU64>,
    #[cfg(feature = "alloc")]
    high1: AtomicU64,
    stats: AtomicStats,
}

impl AtomicSnowflake {
    /// Validates `cfg` and builds a generator.
    pub fn new(cfg: Config) -> Result<AtomicSnowflake> {
        let p = Packing::new(&cfg)?;
        #[cfg(feature = "alloc")]
        let ring = match cfg.on_backwards {
            OnBackwards::Ring { ticks } => (0..ticks).map(|_| AtomicU64::new(0)).collect(),
            _ => Vec::new(),
        };
        Ok(AtomicSnowflake {
            cfg,
            p,
            state: AtomicU64::new(p.initial()),
            node: AtomicU64::new(p.node_placed()),
            #[cfg(feature = "alloc")]
            ring,
            #[cfg(feature = "alloc")]
            high1: AtomicU64::new(p.ring_initial_high()),
            stats: AtomicStats::default(),
        })
    }

    /// The config this generator was built from (with the node it started with).
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// The generator's counters.
    pub fn stats(&self) -> Stats {
        self.stats.snapshot()
    }

    /// Switches to another node value. IDs minted afterwards carry the new node; sequence and
    /// time state carry on, so nothing already issued can be issued again under either node.
    pub fn set_node(&self, node: u64) -> Result<()> {
        let placed = self.cfg.layout.node_to_bits(node)?;
        self.node.store(placed, Relaxed);
        Ok(())
    }

    /// The start (ms since the Unix epoch) of the latest tick any ID issued so far carries,
    /// or of the fence; `None` before the first ID without a fence. A lease records this as
    /// its node's last issued time, for the next holder's [`Config::fence_ms`].
    pub fn high_water_ms(&self) -> Option<u64> {
        #[cfg(feature = "alloc")]
        if !self.ring.is_empty() {
            let high1 = self.high1.load(Relaxed);
            return high1.checked_sub(1).map(|t| self.p.tick_start(t));
        }
        let tick = self.p.high_water_tick(self.state.load(Relaxed))?;
        Some(self.p.tick_start(tick))
    }

    /// The current node value.
    pub fn node(&self) -> u64 {
        let placed = self.node.load(Relaxed);
        // Reassemble the whole node value from its placed bits.
        let l = &self.cfg.layout;
        l.node_fields()
            .fold(0, |acc, f| (acc << f.bits) | f.get(placed))
    }

    /// Mints one ID at `now_ms`, or says when to call again ([`Error::WouldBlock`]) or why not.
    #[inline]
    pub fn next_id_at(&self, now_ms: u64) -> Result<u64> {
        match self.try_next_fast(now_ms, 0) {
            Some(id) => Ok(id),
            None => self.reserve_at(now_ms, 1).map(|r| r.first),
        }
    }

    /// The single-ID fast path: one load and one compare-and-swap while the tick has room.
    /// `None` means: take the general path (new tick, exhaustion, clock behind, ring policy).
    #[inline(always)]
    pub(crate) fn try_next_fast(&self, now_ms: u64, lag_ticks: u64) -> Option<u64> {
        let t = self.fast_tick(now_ms)?;
        let mut cur = self.state.load(Relaxed);
        while let Some((next, id)) = self.p.fast_one(cur, t, lag_ticks) {
            match self
                .state
                .compare_exchange_weak(cur, next, Relaxed, Relaxed)
            {
                Ok(_) => return Some(id | self.node.load(Relaxed)),
                Err(actual) => cur = actual,
            }
        }
        None
    }

    /// [`try_next_fast`](Self::try_next_fast) for a caller that no other thread can be minting
    /// alongside (a [`ThreadSnowflake`](crate::ThreadSnowflake), which is `!Sync`): the state
    /// is written back with a plain store, where the compare-and-swap was ~4 ns of a call.
    #[cfg(feature = "std")]
    #[inline(always)]
    pub(crate) fn try_next_fast_unshared(&self, now_ms: u64, lag_ticks: u64) -> Option<u64> {
        let t = self.fast_tick(now_ms)?;
        let (next, id) = self.p.fast_one(self.state.load(Relaxed), t, lag_ticks)?;
        self.state.store(next, Relaxed);
        Some(id | self.node.load(Relaxed))
    }

    /// The tick a fast path mints in, or `None` for the general path (the ring policy, a time
    /// outside the layout).
    #[inline(always)]
    fn fast_tick(&self, now_ms: u64) -> Option<u64> {
        #[cfg(feature = "alloc")]
        if !self.ring.is_empty() {
            return None;
        }
        self.p.tick_fast(now_ms)
    }

    /// Reserves a run of up to `max` IDs (at least 1) from one tick with a single swap.
    #[inline]
    pub fn reserve_at(&self, now_ms: u64, max: u64) -> Result<Run> {
        let (r, notes) = self.try_reserve(now_ms, 0, max);
        self.record(&notes, &r, now_ms);
        r
    }

    /// Fills `out` with IDs at `now_ms`; returns how many were written (fewer when the policy
    /// asks to wait). Fails only if not even one ID could be issued.
    pub fn next_ids_at(&self, now_ms: u64, out: &mut [u64]) -> Result<usize> {
        crate::snowflake::state::partial_ok(crate::snowflake::state::fill_from_runs(out, |max| {
            self.reserve_at(now_ms, max)
        }))
    }

    #[inline]
    pub(crate) fn record<T>(&self, notes: &Notes, r: &Result<T>, now_ms: u64) {
        if notes.rollback || notes.exhausted || notes.ahead_ticks > 0 || r.is_err() {
            self.stats
                .record(notes, r, now_ms, self.cfg.layout.tick_ms());
        }
    }

    /// One reservation attempt; `lag_ticks` > 0 tolerates a coarse clock (see `Packing::step`).
    /// Does not record stats: the caller decides which attempt counts.
    #[inline]
    pub(crate) fn try_reserve(
        &self,
        now_ms: u64,
        lag_ticks: u64,
        max: u64,
    ) -> (Result<Run>, Notes) {
        // Only the ring (alloc) writes notes before the general path below takes them.
        #[cfg_attr(not(feature = "alloc"), allow(unused_mut))]
        let mut notes = Notes::default();
        if max == 0 {
            return (
                Err(Error::InvalidConfig {
                    reason: "reserve at least one ID",
                }),
                notes,
            );
        }
        #[cfg(feature = "alloc")]
        if !self.ring.is_empty() {
            return (self.ring_reserve(now_ms, lag_ticks, max, &mut notes), notes);
        }
        let mut cur = self.state.load(Relaxed);
        if let Some(t) = self.p.tick_fast(now_ms) {
            while let Some((next, mut run)) = self.p.fast(cur, t, lag_ticks, max) {
                match self
                    .state
                    .compare_exchange_weak(cur, next, Relaxed, Relaxed)
                {
                    Ok(_) => {
                        run.first |= self.node.load(Relaxed);
                        return (Ok(run), notes);
                    }
                    Err(actual) => cur = actual,
                }
            }
        }
        self.reserve_slow(cur, now_ms, lag_ticks, max)
    }

    #[inline(never)]
    fn reserve_slow(
        &self,
        mut cur: u64,
        now_ms: u64,
        lag_ticks: u64,
        max: u64,
    ) -> (Result<Run>, Notes) {
        let mut notes;
        loop {
            notes = Notes::default();
            match self.p.step(cur, now_ms, lag_ticks, max, &mut notes) {
                Ok((next, mut run)) => match self
                    .state
                    .compare_exchange_weak(cur, next, Relaxed, Relaxed)
                {
                    Ok(_) => {
                        run.first |= self.node.load(Relaxed);
                        return (Ok(run), notes);
                    }
                    Err(actual) => cur = actual,
                },
                Err(e) => return (Err(e), notes),
            }
        }
    }

    #[cfg(feature = "alloc")]
    fn ring_reserve(
        &self,
        now_ms: u64,
        lag_ticks: u64,
        max: u64,
        notes: &mut Notes,
    ) -> Result<Run> {
        let n = self.ring.len() as u64;
        let Some(now_ms) = self
            .p
            .ring_coarse(now_ms, lag_ticks, self.high1.load(Relaxed))?
        else {
            // A coarse reading further behind the latest tick than it may lag: the caller
            // confirms with the precise clock before a slot of an earlier tick is used.
            let last_ms = self.high_water_ms().unwrap_or(now_ms);
            return Err(Error::ClockBackwards {
                by_ms: last_ms.saturating_sub(now_ms),
                last_ms,
            });
        };
        let slot = &self.ring[self.p.ring_index(now_ms, n)?];
        let mut cur = slot.load(Relaxed);
        loop {
            *notes = Notes::default();
            let high1 = self.high1.load(Relaxed);
            let (next, mut run, new_high) = self.p.ring_step(n, cur, high1, now_ms, max, notes)?;
            match slot.compare_exchange_weak(cur, next, Relaxed, Relaxed) {
                Ok(_) => {
                    if new_high > high1 {
                        self.high1.fetch_max(new_high, Relaxed);
                    }
                    run.first |= self.node.load(Relaxed);
                    return Ok(run);
                }
                Err(actual) => cur = actual,
            }
        }
    }
}
