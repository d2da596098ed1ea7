//! [`LeasedSnowflake`]: a Snowflake generator whose node is leased from a store, with the
//! node's time fence, background renewal, a recorded bound that IDs never pass, and seed 001's
//! node swap on a large clock rollback.
//!
//! # How it stays unique
//!
//! - **Distinct nodes**: a store grants a node to one live holder at a time.
//! - **The time fence**: the generator is built with `Config::fence_ms(lease.fence_ms)`, the
//!   node's recorded last-issued bound, so it never mints at or before a time a previous holder
//!   may have used. Stores never lower that record, so after a release it still holds the
//!   last renewal's bound, up to a reserve ahead of the previous holder's clock.
//! - **Ready at T**: a fence ahead of the clock that the store set (the previous holder's
//!   bound, the lock delay) is not a clock step in this process. Where the config's policy
//!   would wait or refuse, the generator waits until the fence has passed — bounded by the
//!   horizon (TTL + reserve + how far the policies run ahead of the clock: the farthest an
//!   honest previous holder can have put the bound), whatever the `on_backwards` budget —
//!   renewing its lease while it waits, and reports the wait to [`LeaseOptions::on_wait`]
//!   first. A fence further ahead means this host's clock is behind: [`Error::NodeFenced`]
//!   at once. So is any fence under `on_backwards = fail` (the store's lock delay excepted,
//!   which is always waited for). A `logical` policy still continues above the fence at once
//!   where its bound allows; a swap (below) is tried before waiting. A clock behind IDs this
//!   generator minted itself meets the `on_backwards` policy as before.
//! - **The recorded bound**: before minting, and every `renew_every` (TTL/3) after, the renewal
//!   records `issued_up_to = max(high-water, now) + reserve` (reserve = TTL) for the node. An ID
//!   is handed out only if its time is at most the recorded bound, so the next holder's fence
//!   covers every ID this one issued — even if this process stalls and its lease runs out. A
//!   forward step of the wall clock (which the system clock follows within
//!   [`idmint::clock::REANCHOR_MS`]) takes IDs past the bound: the next mint renews on the spot
//!   and records a bound from the new time.
//! - **The deadline**: an ID is handed out only while the lease is surely alive: before
//!   (monotonic reading taken before the last successful renewal was sent) + TTL − safety
//!   margin − the coarse clock's lag. If renewals fail (store down) the generator stops with
//!   [`Error::LeaseLost`] before the store could expire the lease. The check reads the
//!   monotonic clock, which wall-clock steps cannot move.
//!
//! Both checks run *after* an ID is minted, on the ID itself (its time field) and on a
//! monotonic reading taken after minting: a thread paused between check and mint cannot slip
//! an ID through. A refused ID is discarded, never returned. On the hot path they cost one
//! shift-and-mask, two relaxed loads, two compares and one coarse monotonic read; the coord
//! benchmark (`cargo bench -p idmint-bench --bench coord`, rows `leases::leased_next_id` and
//! `leases::snowflake_next_id`) compares `next_id` with the plain `Snowflake` in one run
//! (BENCHMARKS.md).
//!
//! # Renewal, loss and recovery
//!
//! A background thread renews every `renew_every`, and retries every `retry_every` after a
//! failure. When renewals fail past the deadline, minting stops; the thread keeps trying, and
//! when the store answers again it either extends the same lease (it was not granted to anyone
//! else meanwhile) or, if the lease was superseded, acquires a new node (fenced by the store's
//! record and by this process's own high-water marks) and minting resumes. Dropping the
//! generator stops the thread and releases the node with its exact high-water mark (the store
//! keeps the higher bound of the last renewal: a record never goes down).
//!
//! # Swap on rollback (seed 001)
//!
//! With [`LeaseOptions::swap_after_ms`], when the clock is found behind the generator's
//! high-water mark (or the fence) by more than that — where the policy would make the caller
//! wait or fail — the generator acquires another node from the store (avoiding the current
//! one), continues there at once, and releases the old node to the back of the queue. IDs of
//! different nodes cannot collide, so this is unique by construction. The old node is released
//! with its recorded bound (not the exact high-water mark) because other threads may still be
//! finishing a mint on it. A `logical:N` policy bridges steps up to N ms itself; the swap
//! takes over beyond that. If no better node is free, the policy's behaviour stands.
//!
//! # fork()
//!
//! A child process inherits the generator but not its renewal thread (threads do not survive
//! fork). It cannot mint on the parent's lease: every mint goes through the core generator,
//! which answers [`Error::Forked`] in a child, and this wrapper has no path around it. Dropping
//! the inherited generator in the child neither releases the parent's lease nor joins the
//! missing thread (it is leaked instead). Build a new `LeasedSnowflake` in the child for a
//! node of its own.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::reason::Reason;
use idmint::{Clock, Config, Error, Result, Snowflake, Stats, SystemClock};

use crate::lease::contract::{Lease, LeaseStore};
use crate::lease::mono;
use crate::lease::open::open;
use crate::node_source::NodeSource;

const RELAXED: Ordering = Ordering::Relaxed;

mod options;
mod shared;

pub use options::{LeaseOptions, LeaseWait, WaitCause};
use shared::{lock, Shared, Slot};

/// A snapshot of the lease a [`LeasedSnowflake`] mints under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseInfo {
    /// The store (`file`, `redis`, `postgres`, `etcd`).
    pub store: &'static str,
    /// The lease as granted (node, token, fence, ...).
    pub lease: Lease,
    /// The bound recorded for the node by the last successful renewal: no ID's time passes it.
    pub bound_ms: u64,
    /// The latest moment an ID can still be handed out unless a renewal succeeds first
    /// (send time of the last successful renewal + TTL − safety margin); `None` once the
    /// lease is lost.
    pub deadline: Option<Instant>,
}

/// Counters of a [`LeasedSnowflake`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LeaseStats {
    /// The generators' counters, summed over every node this generator used.
    pub generator: Stats,
    /// Successful renewals.
    pub renewals: u64,
    /// Failed renewal attempts (store unavailable).
    pub renew_failures: u64,
    /// Times the lease was found superseded.
    pub lost: u64,
    /// Node swaps after a clock rollback.
    pub swaps: u64,
    /// New leases taken after losing one.
    pub reacquires: u64,
}

/// A Snowflake generator bound to a leased node; see the [module docs](self).
///
/// Built from a store ([`new`](Self::new)), or from a node-source string
/// ([`from_source`](Self::from_source)) where fixed sources (`static:3`, `env:NODE`, `ip`,
/// `random`) give a plain generator with no lease and no renewal, behind the same API.
///
/// # Examples
/// ```
/// use idmint::{Config, Layout};
/// use idmint_coord::lease::{LeaseOptions, LeasedSnowflake};
/// let dir = std::env::temp_dir().join(format!("idmint-doc-leased-{}", std::process::id()));
/// let cfg = Config::new(Layout::preset("twitter")?);
/// let gen = LeasedSnowflake::from_source(&format!("file:{}", dir.display()), cfg, LeaseOptions::new())?;
/// let a = gen.next_id()?;
/// assert!(gen.next_id()? > a);
/// let node = gen.node();
/// gen.release()?; // frees the node; its record keeps the last renewal's bound
///
/// let fixed = LeasedSnowflake::from_source("static:7", cfg, LeaseOptions::new())?;
/// assert_eq!((fixed.node(), fixed.lease_info()), (7, None));
/// # let _ = node; std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), idmint::Error>(())
/// ```
pub struct LeasedSnowflake<C: Clock + 'static = SystemClock> {
    shared: Arc<Shared<C>>,
    renewer: Option<JoinHandle<()>>,
    pid: u32,
    done: bool,
}

impl<C: Clock + 'static> std::fmt::Debug for LeasedSnowflake<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LeasedSnowflake")
            .field("node", &self.node())
            .field("lease", &self.lease_info())
            .finish_non_exhaustive()
    }
}

impl LeasedSnowflake<SystemClock> {
    /// Acquires a node from `store` and builds a generator on the system clock.
    pub fn new(
        store: Arc<dyn LeaseStore>,
        cfg: Config,
        opts: LeaseOptions,
    ) -> Result<LeasedSnowflake<SystemClock>> {
        LeasedSnowflake::with_clock(store, cfg, opts, SystemClock::new())
    }

    /// From a node-source string (see [`crate::node_source`]): a lease URL opens the store and
    /// leases a node; a fixed source builds a plain generator (no lease, no thread).
    pub fn from_source(
        source: &str,
        cfg: Config,
        opts: LeaseOptions,
    ) -> Result<LeasedSnowflake<SystemClock>> {
        LeasedSnowflake::from_source_with_clock(source, cfg, opts, SystemClock::new())
    }
}

impl<C: Clock + 'static> LeasedSnowflake<C> {
    /// [`new`](LeasedSnowflake::new) on another clock (for example `idmint::ManualClock` in tests).
    pub fn with_clock(
        store: Arc<dyn LeaseStore>,
        cfg: Config,
        opts: LeaseOptions,
        clock: C,
    ) -> Result<LeasedSnowflake<C>> {
        let resolved = opts.resolve(&cfg)?;
        let clock = Arc::new(clock);
        let lease = store.acquire(&resolved.spec, clock.now_ms(), None)?;
        let shared = Arc::new(Shared::new(cfg, clock, Some(store), Some(resolved)));
        let slot = shared.build_slot(lease)?;
        shared.publish(slot, None);
        let runner = shared.clone();
        let renewer = std::thread::Builder::new()
            .name("idmint-lease".into())
            .spawn(move || runner.renewer());
        let renewer = match renewer {
            Ok(h) => h,
            Err(e) => {
                let _ = shared.release_current();
                return Err(Error::StoreUnavailable {
                    store: shared.store()?.kind(),
                    op: "start the renewal thread",
                    reason: e.reason(),
                });
            }
        };
        Ok(LeasedSnowflake {
            shared,
            renewer: Some(renewer),
            pid: std::process::id(),
            done: false,
        })
    }

    /// [`from_source`](LeasedSnowflake::from_source) on another clock.
    pub fn from_source_with_clock(
        source: &str,
        cfg: Config,
        opts: LeaseOptions,
        clock: C,
    ) -> Result<LeasedSnowflake<C>> {
        match NodeSource::parse(source)? {
            NodeSource::Leased(url) => {
                let store: Arc<dyn LeaseStore> = Arc::from(open(&url)?);
                LeasedSnowflake::with_clock(store, cfg, opts, clock)
            }
            fixed => {
                let node = fixed.resolve(cfg.layout())?;
                LeasedSnowflake::unleased(cfg.node(node), clock)
            }
        }
    }

    /// A plain generator on `cfg`'s node, with no lease: the same API, never a lease error.
    pub fn unleased(cfg: Config, clock: C) -> Result<LeasedSnowflake<C>> {
        let clock = Arc::new(clock);
        let gen = Snowflake::with_clock(cfg, clock.clone())?;
        let shared = Arc::new(Shared::new(cfg, clock, None, None));
        shared.publish(
            Box::new(Slot {
                gen,
                lease: None,
                bound_tick: AtomicU64::new(u64::MAX),
                bound_ms: AtomicU64::new(u64::MAX),
                deadline: AtomicU64::new(u64::MAX),
                lost: AtomicBool::new(false),
                announced: AtomicBool::new(false),
            }),
            None,
        );
        Ok(LeasedSnowflake {
            shared,
            renewer: None,
            pid: std::process::id(),
            done: false,
        })
    }

    /// Mints one ID, waiting where the policy asks. [`Error::LeaseLost`] once the lease could
    /// not be kept; [`Error::Forked`] in a child process.
    #[inline]
    pub fn next_id(&self) -> Result<u64> {
        let sh = &*self.shared;
        let s = sh.slot();
        if let Ok(id) = s.gen.try_next_id() {
            if sh.admits(s, id) {
                return Ok(id);
            }
        }
        self.next_id_slow(true)
    }

    /// Mints one ID without waiting on the clock: [`Error::WouldBlock`] where
    /// [`next_id`](Self::next_id) would wait. (It may still make one store round trip, when
    /// the wall clock jumped past the recorded bound and a renewal must record a new one.)
    #[inline]
    pub fn try_next_id(&self) -> Result<u64> {
        let sh = &*self.shared;
        let s = sh.slot();
        if let Ok(id) = s.gen.try_next_id() {
            if sh.admits(s, id) {
                return Ok(id);
            }
        }
        self.next_id_slow(false)
    }

    #[inline(never)]
    fn next_id_slow(&self, wait: bool) -> Result<u64> {
        self.shared
            .mint(wait, |s| s.gen.try_next_id().map(|id| (id, id)))
    }

    /// Fills `out` with fresh IDs, one reservation per tick. On error nothing in `out` may be
    /// used.
    pub fn next_ids(&self, out: &mut [u64]) -> Result<()> {
        let sh = &*self.shared;
        let mut filled = 0usize;
        while filled < out.len() {
            let want = (out.len() - filled) as u64;
            let run = sh.mint(true, |s| {
                let run = s.gen.reserve_at(sh.clock.now_ms(), want)?;
                Ok((run, run.last()))
            })?;
            for (slot, id) in out[filled..].iter_mut().zip(run.iter()) {
                *slot = id;
            }
            filled += run.count as usize;
        }
        Ok(())
    }

    /// The node IDs are minted with now (it changes after a swap or re-acquisition).
    pub fn node(&self) -> u64 {
        self.shared.slot().node()
    }

    /// When the node's fence (its previous holder's recorded bound, or the store's lock delay)
    /// is still ahead of the clock and nothing was minted above it: the first ms an ID can
    /// carry (until then every mint waits, or refuses as [`Error::NodeFenced`]). `None` when
    /// the node is ready, or for a generator without a lease. A service reports itself not
    /// ready meanwhile, so no request is routed to a wait.
    ///
    /// A wait the first mint would make is reported to
    /// [`LeaseOptions::on_wait`](super::LeaseOptions::on_wait) here already (once per lease),
    /// so a service that holds requests off until then still says what it awaits.
    pub fn fenced_until(&self) -> Option<u64> {
        let sh = &*self.shared;
        let s = sh.slot();
        let ready = sh.not_ready(s)?;
        if sh.check_ready(s, &ready).is_ok() {
            sh.announce_wait(s, &ready);
        }
        Some(ready.until_ms)
    }

    /// The lease minted under now, or `None` for a generator without one.
    pub fn lease_info(&self) -> Option<LeaseInfo> {
        let sh = &*self.shared;
        let s = sh.slot();
        let lease = s.lease.clone()?;
        let d = s.deadline.load(RELAXED);
        let deadline = if d == 0 || s.lost.load(RELAXED) {
            None
        } else {
            // The hot path compares a coarse reading (lagging by up to `lag_ms`, truncated to
            // whole ms) with `d`, so it can admit an ID until d + lag + 1 ms of true time.
            let d = d.saturating_add(sh.lag_ms + 1);
            let now = mono::now_ms();
            let base = Instant::now();
            if d >= now {
                base.checked_add(Duration::from_millis(d - now))
            } else {
                base.checked_sub(Duration::from_millis(now - d))
            }
        };
        Some(LeaseInfo {
            store: sh.store.as_ref().map_or("none", |s| s.kind()),
            lease,
            bound_ms: s.bound_ms.load(RELAXED),
            deadline,
        })
    }

    /// The current generator's high-water mark (start of the latest tick issued, or the fence).
    pub fn high_water_ms(&self) -> Option<u64> {
        self.shared.slot().gen.high_water_ms()
    }

    /// The config IDs are minted with (the current node and fence included).
    pub fn config(&self) -> Config {
        *self.shared.slot().gen.config()
    }

    /// The clock.
    pub fn clock(&self) -> &C {
        &self.shared.clock
    }

    /// Counters: the generators' and the lease's.
    pub fn stats(&self) -> LeaseStats {
        let sh = &*self.shared;
        let mut g = Stats::default();
        for s in lock(&sh.slots).iter() {
            let st = s.gen.stats();
            g.rollbacks += st.rollbacks;
            g.wait_ms += st.wait_ms;
            g.exhaustions += st.exhaustions;
            g.max_ahead_ms = g.max_ahead_ms.max(st.max_ahead_ms);
        }
        let c = &sh.counters;
        LeaseStats {
            generator: g,
            renewals: c.renewals.load(RELAXED),
            renew_failures: c.renew_failures.load(RELAXED),
            lost: c.lost.load(RELAXED),
            swaps: c.swaps.load(RELAXED),
            reacquires: c.reacquires.load(RELAXED),
        }
    }

    /// Stops the renewal thread and releases the node with its exact high-water mark. The
    /// store keeps the higher bound of the last renewal (a record never goes down), so the
    /// node's next holder may find its fence up to the reserve ahead of its clock and wait
    /// for it (see the [module docs](self)). Dropping does the same but cannot
    /// report a failure. Both wait for the renewal call in flight, then make the release call:
    /// with a store that bounds its calls they return within about two store calls even while
    /// the store does not answer (the PostgreSQL store: six `timeout_ms`).
    ///
    /// In a child process forked from the holder it releases nothing (the lease is the
    /// parent's) and returns [`Error::Forked`].
    pub fn release(mut self) -> Result<()> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> Result<()> {
        if self.done {
            return Ok(());
        }
        self.done = true;
        if std::process::id() != self.pid {
            // A forked child: the renewal thread does not exist here and the lease is the
            // parent's. Leak both rather than join a missing thread or release the lease.
            if let Some(h) = self.renewer.take() {
                std::mem::forget(h);
            }
            std::mem::forget(self.shared.clone());
            return Err(Error::Forked);
        }
        *lock(&self.shared.stop) = true;
        self.shared.stop_cv.notify_all();
        if let Some(h) = self.renewer.take() {
            let _ = h.join();
        }
        self.shared.release_current()
    }
}

impl<C: Clock + 'static> Drop for LeasedSnowflake<C> {
    fn drop(&mut self) {
        // In a forked child this leaks the parent's lease and thread handle (see `shutdown`).
        let _ = self.shutdown();
    }
}
