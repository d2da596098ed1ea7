//! [`LocalSnowflake`]: the single-owner (`&mut self`), sans-IO Snowflake generator.

#[cfg(feature = "alloc")]
use alloc::{vec, vec::Vec};

use crate::error::{Error, Result};
use crate::snowflake::policy::Config;
#[cfg(feature = "alloc")]
use crate::snowflake::policy::OnBackwards;
use crate::snowflake::state::{Notes, Packing, Run};
use crate::snowflake::stats::Stats;

/// A Snowflake generator owned by one thread. It never reads a clock: pass `now_ms`
/// (ms since the Unix epoch) to every call. Same policies and same results as
/// [`AtomicSnowflake`](crate::AtomicSnowflake).
///
/// # Examples
/// ```
/// use idmint::{Config, Error, Layout, LocalSnowflake, OnExhausted};
/// let layout = Layout::parse("time=41@1ms,worker=10,seq=2,epoch=2020-01-01")?;
/// let mut g = LocalSnowflake::new(Config::new(layout).node(3))?;
/// let t = 1_700_000_000_000;
/// for _ in 0..4 { g.next_id_at(t)?; }          // 2 sequence bits: 4 IDs per ms
/// assert_eq!(g.next_id_at(t), Err(Error::WouldBlock { until_ms: t + 1 }));
/// assert!(g.next_id_at(t + 1).is_ok());
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct LocalSnowflake {
    cfg: Config,
    p: Packing,
    state: u64,
    #[cfg(feature = "alloc")]
    ring: Vec<u64>,
    #[cfg(feature = "alloc")]
    high1: u64,
    stats: Stats,
}

impl LocalSnowflake {
    /// Validates `cfg` and builds a generator.
    pub fn new(cfg: Config) -> Result<LocalSnowflake> {
        let p = Packing::new(&cfg)?;
        #[cfg(feature = "alloc")]
        let ring = match cfg.on_backwards {
            OnBackwards::Ring { ticks } => vec![0u64; ticks as usize],
            _ => Vec::new(),
        };
        Ok(LocalSnowflake {
            cfg,
            p,
            state: p.initial(),
            #[cfg(feature = "alloc")]
            ring,
            #[cfg(feature = "alloc")]
            high1: p.ring_initial_high(),
            stats: Stats::default(),
        })
    }

    /// The config this generator was built from.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// The generator's counters.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Mints one ID at `now_ms`, or says when to call again ([`Error::WouldBlock`]) or why not.
    #[inline]
    pub fn next_id_at(&mut self, now_ms: u64) -> Result<u64> {
        if self.is_packed() {
            if let Some(t) = self.p.tick_fast(now_ms) {
                if let Some((state, id)) = self.p.fast_one(self.state, t, 0) {
                    self.state = state;
                    return Ok(id | self.p.node_placed());
                }
            }
        }
        self.reserve_at(now_ms, 1).map(|r| r.first)
    }

    /// Whether the generator runs on the packed state word (every policy but `ring`).
    #[inline(always)]
    fn is_packed(&self) -> bool {
        #[cfg(feature = "alloc")]
        return self.ring.is_empty();
        #[cfg(not(feature = "alloc"))]
        return true;
    }

    /// Reserves a run of up to `max` IDs (at least 1) from one tick: O(1) however many.
    pub fn reserve_at(&mut self, now_ms: u64, max: u64) -> Result<Run> {
        if max == 0 {
            return Err(Error::InvalidConfig {
                reason: "reserve at least one ID",
            });
        }
        let mut notes = Notes::default();
        let r = self.step(now_ms, max, &mut notes);
        if notes.rollback || notes.exhausted || notes.ahead_ticks > 0 || r.is_err() {
            self.stats
                .record(&notes, &r, now_ms, self.cfg.layout.tick_ms());
        }
        r
    }

    fn step(&mut self, now_ms: u64, max: u64, notes: &mut Notes) -> Result<Run> {
        let node = self.p.node_placed();
        #[cfg(feature = "alloc")]
        if !self.ring.is_empty() {
            let n = self.ring.len() as u64;
            let i = self.p.ring_index(now_ms, n)?;
            let (slot, mut run, high1) =
                self.p
                    .ring_step(n, self.ring[i], self.high1, now_ms, max, notes)?;
            self.ring[i] = slot;
            self.high1 = high1;
            run.first |= node;
            return Ok(run);
        }
        let (state, mut run) = self.p.step(self.state, now_ms, 0, max, notes)?;
        self.state = state;
        run.first |= node;
        Ok(run)
    }

    /// Fills `out` with IDs at `now_ms`, one run per tick. Returns how many were written:
    /// all of them, or fewer when the policy asks to wait (call again later for the rest).
    /// Fails only if not even one ID could be issued.
    pub fn next_ids_at(&mut self, now_ms: u64, out: &mut [u64]) -> Result<usize> {
        crate::snowflake::state::partial_ok(crate::snowflake::state::fill_from_runs(out, |max| {
            self.reserve_at(now_ms, max)
        }))
    }
}
