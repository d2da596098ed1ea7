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

use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::reason::Reason;
use idmint::{
    Clock, Config, Error, OnBackwards, OnExhausted, Result, Snowflake, Stats, SystemClock,
};

use crate::lease::{self, mono, Lease, LeaseSpec, LeaseStore};
use crate::node_source::NodeSource;

const RELAXED: Ordering = Ordering::Relaxed;

/// How a [`LeasedSnowflake`] holds and renews its lease. Durations default from the TTL.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use idmint_coord::lease::LeaseOptions;
/// let opts = LeaseOptions::new()
///     .namespace("orders")
///     .ttl(Duration::from_secs(6))
///     .swap_after_ms(500);
/// assert_eq!(opts.renew_period(), Duration::from_secs(2));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseOptions {
    namespace: String,
    ttl: Duration,
    renew_every: Option<Duration>,
    retry_every: Option<Duration>,
    safety_margin: Option<Duration>,
    reserve: Option<Duration>,
    swap_after_ms: Option<u64>,
    nodes: Option<u64>,
    holder: Option<String>,
    on_wait: Option<WaitHook>,
}

/// Why a [`LeasedSnowflake`] waits before it can mint on its node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WaitCause {
    /// The node's recorded bound (its previous holder's last renewal) is ahead of this clock.
    Fence,
    /// The store's lock delay after it found its records lost ([`Lease::not_before_ms`]).
    LockDelay,
}

/// A wait a [`LeasedSnowflake`] is about to make, reported to [`LeaseOptions::on_wait`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseWait {
    /// The lease's namespace.
    pub namespace: String,
    /// The node it waits on.
    pub node: u64,
    /// What it waits for.
    pub cause: WaitCause,
    /// The first moment (ms since the Unix epoch, this clock) an ID can carry.
    pub until_ms: u64,
    /// How long that is from now, ms.
    pub wait_ms: u64,
}

/// The one line every front end prints or logs before the wait: the node, its namespace, until
/// when and why, and for how long.
///
/// # Examples
/// ```
/// use idmint_coord::lease::{LeaseWait, WaitCause};
/// let w = LeaseWait { namespace: "orders".into(), node: 3, cause: WaitCause::Fence, until_ms: 1_700_000_000_000, wait_ms: 1500 };
/// assert_eq!(
///     w.to_string(),
///     "node 3 of lease namespace orders is fenced until 2023-11-14T22:13:20.000Z \
///      (its previous holder's recorded bound); waiting 1.5 s"
/// );
/// ```
impl std::fmt::Display for LeaseWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let why = match self.cause {
            WaitCause::Fence => "its previous holder's recorded bound",
            WaitCause::LockDelay => {
                "the lease store's lock delay (a new namespace, or lost records)"
            }
        };
        write!(
            f,
            "node {} of lease namespace {} is fenced until {} ({why}); waiting {:.1} s",
            self.node,
            self.namespace,
            idmint::Rfc3339(self.until_ms),
            self.wait_ms as f64 / 1000.0
        )
    }
}

/// The [`LeaseOptions::on_wait`] callback; compared by identity.
#[derive(Clone)]
struct WaitHook(Arc<dyn Fn(&LeaseWait) + Send + Sync>);

impl std::fmt::Debug for WaitHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WaitHook")
    }
}

impl PartialEq for WaitHook {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for WaitHook {}

impl Default for LeaseOptions {
    fn default() -> Self {
        LeaseOptions::new()
    }
}

impl LeaseOptions {
    /// Namespace `default`, TTL 10 s, renewal every TTL/3, retries every TTL/20 (5–250 ms),
    /// safety margin TTL/10, reserve TTL, no swap, the layout's whole node space.
    pub fn new() -> LeaseOptions {
        LeaseOptions {
            namespace: "default".to_string(),
            ttl: Duration::from_secs(10),
            renew_every: None,
            retry_every: None,
            safety_margin: None,
            reserve: None,
            swap_after_ms: None,
            nodes: None,
            holder: None,
            on_wait: None,
        }
    }

    /// The namespace (separate node spaces in one store).
    pub fn namespace(mut self, ns: &str) -> Self {
        self.namespace = ns.to_string();
        self
    }

    /// The lease's time to live: how long a crashed holder keeps its node in Redis or
    /// PostgreSQL, and how long minting goes on without a successful renewal.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// How often the background thread renews (default TTL/3).
    pub fn renew_every(mut self, d: Duration) -> Self {
        self.renew_every = Some(d);
        self
    }

    /// How soon it retries after a failed renewal (default TTL/20, within 5–250 ms).
    pub fn retry_every(mut self, d: Duration) -> Self {
        self.retry_every = Some(d);
        self
    }

    /// How long before the lease could expire minting stops (default TTL/10): covers clock
    /// rate differences between this host and the store.
    pub fn safety_margin(mut self, d: Duration) -> Self {
        self.safety_margin = Some(d);
        self
    }

    /// How far ahead of the current time each renewal records the bound (default TTL). Must
    /// exceed the renewal period, or minting would wait on renewals.
    pub fn reserve(mut self, d: Duration) -> Self {
        self.reserve = Some(d);
        self
    }

    /// Swap to another node when the clock is behind the high-water mark by more than `ms`
    /// (seed 001). Keep it above the distance a `borrow:N` policy may run ahead of the clock,
    /// or a burst that exhausts the sequence could swap nodes too.
    pub fn swap_after_ms(mut self, ms: u64) -> Self {
        self.swap_after_ms = Some(ms);
        self
    }

    /// Lease from nodes `0..n` only (default: the layout's whole node space).
    pub fn nodes(mut self, n: u64) -> Self {
        self.nodes = Some(n);
        self
    }

    /// The holder name recorded in the store (default `host:pid:random`).
    pub fn holder(mut self, holder: &str) -> Self {
        self.holder = Some(holder.to_string());
        self
    }

    /// Called (on the minting thread) before each wait for a node that is not ready yet: its
    /// fence ahead of the clock, or the store's lock delay. coord does not log; a CLI or
    /// service prints or counts these. Called once per lease, before the wait starts, and
    /// also by [`LeasedSnowflake::try_next_id`] when it answers `WouldBlock` for that reason
    /// (its caller does the waiting).
    pub fn on_wait(mut self, f: impl Fn(&LeaseWait) + Send + Sync + 'static) -> Self {
        self.on_wait = Some(WaitHook(Arc::new(f)));
        self
    }

    /// The renewal period these options give.
    pub fn renew_period(&self) -> Duration {
        self.renew_every.unwrap_or(self.ttl / 3)
    }

    fn resolve(&self, cfg: &Config) -> Result<Resolved> {
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let bad = |reason| Err(Error::InvalidConfig { reason });
        lease::validate_namespace(&self.namespace)?;
        let ttl_ms = ms(self.ttl);
        let renew_ms = ms(self.renew_period());
        let retry_ms = self
            .retry_every
            .map(ms)
            .unwrap_or_else(|| (ttl_ms / 20).clamp(5, 250));
        let margin_ms = self.safety_margin.map(ms).unwrap_or(ttl_ms / 10);
        let reserve_ms = self.reserve.map(ms).unwrap_or(ttl_ms);
        let lag_ms = mono::coarse_lag_ms();
        if ttl_ms == 0 || renew_ms == 0 || retry_ms == 0 {
            return bad("lease ttl, renewal and retry periods must be at least 1 ms");
        }
        let live_ms = ttl_ms.saturating_sub(margin_ms.saturating_add(lag_ms));
        if live_ms == 0 {
            return bad("lease ttl must exceed its safety margin plus the coarse clock's lag");
        }
        if renew_ms >= live_ms {
            return bad("lease renewal period must be shorter than ttl minus the safety margin");
        }
        if reserve_ms <= renew_ms {
            return bad("lease reserve must exceed the renewal period");
        }
        if self.swap_after_ms == Some(0) {
            return bad("swap_after_ms must be at least 1");
        }
        let layout = cfg.layout();
        let space = layout.max_node().saturating_add(1);
        let nodes = self.nodes.unwrap_or(space);
        if nodes == 0 || nodes > space {
            return bad("lease node count must be 1 up to the layout's node space");
        }
        let spec = LeaseSpec {
            namespace: self.namespace.clone(),
            nodes,
            ttl: self.ttl,
            holder: self.holder.clone().unwrap_or_else(lease::default_holder),
            // Minting goes on for up to a TTL without a renewal, and never past the recorded
            // bound, which runs `reserve` ahead of the clock or of the generator's high-water
            // mark — and that runs ahead of the clock by as much as the policies allow.
            horizon: self
                .ttl
                .saturating_add(Duration::from_millis(reserve_ms))
                .saturating_add(Duration::from_millis(ahead_of_clock_ms(cfg))),
        };
        spec.validate()?;
        // The farthest an honest previous holder (same options) can have put the node's
        // bound ahead of the clock by the time its lease ran out: its horizon.
        let max_fence_wait_ms = ms(spec.horizon);
        Ok(Resolved {
            max_fence_wait_ms,
            on_wait: self.on_wait.clone(),
            spec,
            live_ms,
            renew_ms,
            retry_ms,
            reserve_ms,
            swap_after_ms: self.swap_after_ms,
        })
    }
}

/// How far ahead of the clock `cfg`'s policies may run a generator's high-water mark: a
/// `logical:N` generator keeps issuing up to N ms above the clock, `borrow:N` N ticks.
fn ahead_of_clock_ms(cfg: &Config) -> u64 {
    let logical = match cfg.on_backwards_policy() {
        OnBackwards::Logical { max_ms } => max_ms,
        _ => 0,
    };
    let borrow = match cfg.on_exhausted_policy() {
        OnExhausted::Borrow { max_ticks } => max_ticks.saturating_mul(cfg.layout().tick_ms()),
        _ => 0,
    };
    logical.saturating_add(borrow)
}

#[derive(Debug, Clone)]
struct Resolved {
    spec: LeaseSpec,
    /// TTL − margin − coarse lag: how long after sending a renewal minting may go on.
    live_ms: u64,
    renew_ms: u64,
    retry_ms: u64,
    reserve_ms: u64,
    swap_after_ms: Option<u64>,
    /// How far ahead of the clock a node's recorded bound may be and still be waited for.
    max_fence_wait_ms: u64,
    on_wait: Option<WaitHook>,
}

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

/// One node's generator and lease state. Never freed before the [`Shared`] that owns it, so
/// references handed out by [`Shared::slot`] stay valid after a swap retires it.
struct Slot<C: Clock> {
    gen: Snowflake<Arc<C>>,
    lease: Option<Lease>,
    /// Highest tick an ID may carry (the recorded bound's tick; `u64::MAX` without a lease).
    bound_tick: AtomicU64,
    bound_ms: AtomicU64,
    /// Coarse monotonic ms from which minting is refused (`u64::MAX` without a lease,
    /// 0 once retired or lost).
    deadline: AtomicU64,
    /// The store said the lease was superseded: take a new one.
    lost: AtomicBool,
    /// A wait for this lease's fence was reported (see [`LeaseOptions::on_wait`]).
    announced: AtomicBool,
}

impl<C: Clock> Slot<C> {
    fn node(&self) -> u64 {
        self.gen.node()
    }
}

#[derive(Default)]
struct Counters {
    renewals: AtomicU64,
    renew_failures: AtomicU64,
    lost: AtomicU64,
    swaps: AtomicU64,
    reacquires: AtomicU64,
}

struct Shared<C: Clock> {
    current: AtomicPtr<Slot<C>>,
    time_shift: u32,
    time_mask: u64,
    clock: Arc<C>,
    cfg: Config,
    store: Option<Arc<dyn LeaseStore>>,
    opts: Option<Resolved>,
    /// Every slot ever used (the current one included); see [`Slot`]. Boxed so a slot's
    /// address survives the vector growing: `current` and minting threads point at it.
    #[allow(clippy::vec_box)]
    slots: Mutex<Vec<Box<Slot<C>>>>,
    /// Serialises renewals, swaps and re-acquisitions.
    lease_lock: Mutex<()>,
    stop: Mutex<bool>,
    stop_cv: Condvar,
    /// Monotonic ms before which a failed swap is not tried again.
    swap_retry_at: AtomicU64,
    counters: Counters,
    /// The coarse monotonic clock's largest lag, ms.
    lag_ms: u64,
}

/// A node that can be minted on from a known time (see [`Shared::not_ready`]).
struct NotReady {
    cause: WaitCause,
    /// The store's fence: IDs must come after it.
    fence_ms: u64,
    /// `fence_ms + 1`, the first ms an ID can carry.
    until_ms: u64,
    /// The clock when this was found.
    now_ms: u64,
}

/// Why a minted ID was not handed out.
enum Refusal {
    /// The slot was retired by a swap or re-acquisition: mint on the current one.
    Retired,
    /// The ID's time is past the recorded bound (the wall clock ran ahead of the last renewal).
    PastBound,
    /// The lease's deadline passed or it was superseded.
    Expired(&'static str),
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl<C: Clock + 'static> Shared<C> {
    #[inline(always)]
    fn slot(&self) -> &Slot<C> {
        // SAFETY: `current` always points into a Box owned by `self.slots`, which only grows
        // and is dropped with `self`; it is set before the Shared is shared.
        unsafe { &*self.current.load(Ordering::Acquire) }
    }

    /// The hot-path check on a minted ID: time at most the recorded bound, lease alive.
    #[inline(always)]
    fn admits(&self, s: &Slot<C>, id: u64) -> bool {
        ((id >> self.time_shift) & self.time_mask) <= s.bound_tick.load(RELAXED) && {
            let d = s.deadline.load(RELAXED);
            d == u64::MAX || mono::coarse_ms() < d
        }
    }

    #[cold]
    fn refusal(&self, s: &Slot<C>, id: u64) -> Refusal {
        if !ptr::eq(s, self.slot()) {
            return Refusal::Retired;
        }
        if s.lost.load(RELAXED) {
            return Refusal::Expired("fencing token superseded");
        }
        let d = s.deadline.load(RELAXED);
        if d != u64::MAX && mono::coarse_ms() >= d {
            return Refusal::Expired("renewal failed before the deadline");
        }
        if ((id >> self.time_shift) & self.time_mask) > s.bound_tick.load(RELAXED) {
            return Refusal::PastBound;
        }
        // The deadline passed between the two checks' clock readings.
        Refusal::Expired("renewal failed before the deadline")
    }

    fn tick_of(&self, ms: u64) -> u64 {
        let l = self.cfg.layout();
        if ms < l.epoch_ms() {
            return 0;
        }
        ((ms - l.epoch_ms()) / l.tick_ms()).min(l.max_time())
    }

    fn opts(&self) -> Result<&Resolved> {
        self.opts.as_ref().ok_or(Error::InvalidConfig {
            reason: "this generator has no lease",
        })
    }

    fn store(&self) -> Result<&Arc<dyn LeaseStore>> {
        self.store.as_ref().ok_or(Error::InvalidConfig {
            reason: "this generator has no lease",
        })
    }

    /// Records a new bound for `s` and extends its deadline. Caller holds `lease_lock`.
    fn renew_slot(&self, s: &Slot<C>) -> Result<()> {
        let (Some(lease), Some(opts)) = (s.lease.as_ref(), self.opts.as_ref()) else {
            return Ok(());
        };
        let store = self.store()?;
        let sent = mono::now_ms();
        let now = self.clock.now_ms();
        let hw = s.gen.high_water_ms().unwrap_or(0);
        // While the node is not ready (its fence ahead of the clock), nothing can be minted:
        // renew at the fence only, so a holder that waits, or starts and is refused, does not
        // push the node's record (which never goes down) a reserve further each time. The
        // first ID after the wait passes the bound and renews with the reserve on the spot.
        let up_to = match self.not_ready(s) {
            Some(r) => r.fence_ms,
            None => hw.max(now).saturating_add(opts.reserve_ms),
        };
        match store.renew(lease, up_to) {
            Ok(()) => {
                s.bound_ms.fetch_max(up_to, RELAXED);
                s.bound_tick.fetch_max(self.tick_of(up_to), RELAXED);
                s.deadline
                    .fetch_max(sent.saturating_add(opts.live_ms), RELAXED);
                self.counters.renewals.fetch_add(1, RELAXED);
                Ok(())
            }
            Err(e @ Error::LeaseLost { .. }) => {
                s.lost.store(true, RELAXED);
                s.deadline.store(0, RELAXED);
                self.counters.lost.fetch_add(1, RELAXED);
                // Minting on this lease has stopped: let the store free what this process still
                // holds of it (the file store keeps a lost lease's locks until then, so nobody
                // takes the node while a mint is in flight). It records nothing for a lost lease.
                let _ = store.release(lease, s.bound_ms.load(RELAXED));
                Err(e)
            }
            Err(e) => {
                self.counters.renew_failures.fetch_add(1, RELAXED);
                Err(e)
            }
        }
    }

    /// A generator for `lease`, fenced and with its first bound recorded (so it can mint).
    /// On failure the lease is released again (best effort).
    fn build_slot(&self, lease: Lease) -> Result<Box<Slot<C>>> {
        let store = self.store()?;
        // Our own earlier slots on the same node: their IDs are fenced off too (a store that
        // lost its data, such as a Redis without persistence, cannot do that for us).
        let own_hw = lock(&self.slots)
            .iter()
            .filter(|s| s.lease.is_some() && s.node() == lease.node)
            .filter_map(|s| s.gen.high_water_ms())
            .max();
        let fence = [
            lease.fence_ms,
            lease.not_before_ms,
            own_hw,
            self.cfg.fence(),
        ]
        .into_iter()
        .flatten()
        .max();
        let mut cfg = self.cfg.node(lease.node);
        if let Some(f) = fence {
            cfg = cfg.fence_ms(f);
        }
        let gen = match Snowflake::with_clock(cfg, self.clock.clone()) {
            Ok(g) => g,
            Err(e) => {
                let _ = store.release(&lease, fence.unwrap_or(0));
                return Err(e);
            }
        };
        let slot = Box::new(Slot {
            gen,
            lease: Some(lease),
            bound_tick: AtomicU64::new(0),
            bound_ms: AtomicU64::new(0),
            deadline: AtomicU64::new(0),
            lost: AtomicBool::new(false),
            announced: AtomicBool::new(false),
        });
        if let Err(e) = self.renew_slot(&slot) {
            if let Some(l) = slot.lease.as_ref() {
                let _ = store.release(l, fence.unwrap_or(0));
            }
            return Err(e);
        }
        Ok(slot)
    }

    /// Makes `slot` current and retires `old`. Caller holds `lease_lock` (or is the constructor).
    fn publish(&self, slot: Box<Slot<C>>, old: Option<&Slot<C>>) {
        let p = &*slot as *const Slot<C> as *mut Slot<C>;
        lock(&self.slots).push(slot);
        self.current.store(p, Ordering::Release);
        if let Some(old) = old {
            old.deadline.store(0, RELAXED);
        }
    }

    /// A new lease after the current one was superseded. Caller holds `lease_lock`.
    fn reacquire(&self, old: &Slot<C>) -> Result<()> {
        let opts = self.opts()?;
        let lease = self
            .store()?
            .acquire(&opts.spec, self.clock.now_ms(), None)?;
        let slot = self.build_slot(lease)?;
        self.publish(slot, Some(old));
        self.counters.reacquires.fetch_add(1, RELAXED);
        Ok(())
    }

    /// Renews right now, from a minting thread, when an ID's time passed the recorded bound.
    fn renew_now(&self, s: &Slot<C>) -> Result<()> {
        let _g = lock(&self.lease_lock);
        if !ptr::eq(s, self.slot()) {
            return Ok(()); // swapped meanwhile: the caller retries on the new slot
        }
        let node = s.node();
        self.renew_slot(s).map_err(|e| match e {
            Error::LeaseLost { .. } => e,
            _ => Error::LeaseLost {
                node,
                reason: "the recorded bound could not be advanced",
            },
        })
    }

    /// Swaps to another node if the clock is behind `s`'s high-water mark by more than
    /// `swap_after_ms`. `true` when the caller should mint again (on the new slot).
    fn maybe_swap(&self, s: &Slot<C>) -> bool {
        let Some(after) = self.opts.as_ref().and_then(|o| o.swap_after_ms) else {
            return false;
        };
        if s.lease.is_none() {
            return false;
        }
        let now = self.clock.now_ms();
        let hw = s.gen.high_water_ms().unwrap_or(0);
        if now.saturating_add(after) >= hw {
            return false;
        }
        let m = mono::now_ms();
        if m < self.swap_retry_at.load(RELAXED) {
            return false;
        }
        let _g = lock(&self.lease_lock);
        if !ptr::eq(s, self.slot()) {
            return true;
        }
        match self.swap(s, now, after) {
            Ok(()) => true,
            Err(_) => {
                let retry = self.opts.as_ref().map_or(1000, |o| o.renew_ms);
                self.swap_retry_at.store(m.saturating_add(retry), RELAXED);
                false
            }
        }
    }

    fn swap(&self, old: &Slot<C>, now: u64, after: u64) -> Result<()> {
        let opts = self.opts()?;
        let store = self.store()?;
        let Some(old_lease) = old.lease.as_ref() else {
            return Ok(());
        };
        let new = store.acquire(&opts.spec, now, Some(old_lease.node))?;
        if new.fence_ms.is_some_and(|f| f > now.saturating_add(after)) {
            // No better than the node we have: give it back.
            let _ = store.release(&new, new.fence_ms.unwrap_or(0));
            return Err(Error::NoFreeNode {
                nodes: opts.spec.nodes,
            });
        }
        let slot = self.build_slot(new)?;
        self.publish(slot, Some(old));
        // Threads may still be finishing a mint on the old node: its recorded bound covers
        // every ID they can hand out, its exact high-water mark might not.
        let _ = store.release(old_lease, old.bound_ms.load(RELAXED));
        self.counters.swaps.fetch_add(1, RELAXED);
        Ok(())
    }

    /// When `s`'s node is not ready yet because of what the store fenced it at (the recorded
    /// bound of its previous holder, the lock delay), not because of IDs minted here: the
    /// clock is at or before that fence and nothing was minted above it.
    fn not_ready(&self, s: &Slot<C>) -> Option<NotReady> {
        let lease = s.lease.as_ref()?;
        let delay = lease.not_before_ms.unwrap_or(0);
        let fence = lease.fence_ms.unwrap_or(0).max(delay);
        let now = self.clock.now_ms();
        // A fence in the current tick is the generator's ordinary wait for the next tick.
        if self.tick_of(fence) <= self.tick_of(now) || s.gen.high_water_ms().unwrap_or(0) > fence {
            return None;
        }
        // The lock delay also covers the record when it is the later of the two.
        let cause = if lease.fence_ms.unwrap_or(0) > delay {
            WaitCause::Fence
        } else {
            WaitCause::LockDelay
        };
        Some(NotReady {
            cause,
            fence_ms: fence,
            until_ms: fence.saturating_add(1),
            now_ms: now,
        })
    }

    /// Refuses at once to wait for a fence an honest previous holder cannot have recorded
    /// (this host's clock is behind), or any fence under `on_backwards = fail`. The store's
    /// lock delay is always waited for.
    fn check_ready(&self, s: &Slot<C>, ready: &NotReady) -> Result<()> {
        if ready.cause != WaitCause::Fence {
            return Ok(());
        }
        let limit = self.opts()?.max_fence_wait_ms;
        let ahead = ready.fence_ms - ready.now_ms;
        if ahead > limit || self.cfg.on_backwards_policy() == OnBackwards::Fail {
            return Err(Error::NodeFenced {
                node: s.node(),
                by_ms: ahead,
                fence_ms: ready.fence_ms,
            });
        }
        Ok(())
    }

    /// Reports a wait for `s`'s node to [`LeaseOptions::on_wait`], once per lease.
    fn announce_wait(&self, s: &Slot<C>, ready: &NotReady) {
        if s.announced.swap(true, RELAXED) {
            return;
        }
        let Ok(opts) = self.opts() else { return };
        if let (Some(hook), Some(lease)) = (opts.on_wait.as_ref(), s.lease.as_ref()) {
            (hook.0)(&LeaseWait {
                namespace: lease.namespace.clone(),
                node: s.node(),
                cause: ready.cause,
                until_ms: ready.until_ms,
                wait_ms: ready.until_ms - ready.now_ms,
            });
        }
    }

    /// Waits until `ready.until_ms`, renewing the lease from this thread on the way so a wait
    /// longer than the TTL never loses it. Reports the wait first (once per lease).
    fn wait_ready(&self, s: &Slot<C>, ready: &NotReady) -> Result<()> {
        let opts = self.opts()?;
        self.announce_wait(s, ready);
        loop {
            let now = self.clock.now_ms();
            if now >= ready.until_ms {
                return Ok(());
            }
            let step = (ready.until_ms - now).min(opts.renew_ms);
            self.clock.wait_until(now.saturating_add(step));
            let _g = lock(&self.lease_lock);
            if !ptr::eq(s, self.slot()) {
                return Ok(()); // swapped or re-acquired meanwhile: mint on the new slot
            }
            // A store hiccup is left to the renewal thread's retries (and to the deadline
            // the minting checks enforce); a lost lease ends the wait.
            if let Err(e @ Error::LeaseLost { .. }) = self.renew_slot(s) {
                return Err(e);
            }
        }
    }

    /// Waits up to `d` for the stop signal; `true` when stopping.
    fn wait_stop(&self, d: Duration) -> bool {
        let g = lock(&self.stop);
        if *g {
            return true;
        }
        let (g, _) = self
            .stop_cv
            .wait_timeout_while(g, d, |stop| !*stop)
            .unwrap_or_else(|p| p.into_inner());
        *g
    }

    fn renewer(self: Arc<Self>) {
        let Some(opts) = self.opts.clone() else {
            return;
        };
        let mut ok = true;
        loop {
            let wait = if ok { opts.renew_ms } else { opts.retry_ms };
            if self.wait_stop(Duration::from_millis(wait)) {
                return;
            }
            let _g = lock(&self.lease_lock);
            let s = self.slot();
            ok = if s.lost.load(RELAXED) {
                self.reacquire(s).is_ok()
            } else {
                self.renew_slot(s).is_ok()
            };
        }
    }

    /// The common minting loop: `attempt` mints on a slot and returns the value with the
    /// largest ID it minted; that ID is checked before the value is handed out.
    fn mint<T>(
        &self,
        wait: bool,
        mut attempt: impl FnMut(&Slot<C>) -> Result<(T, u64)>,
    ) -> Result<T> {
        // Waiting is bounded by the policy; slot changes and on-the-spot renewals are not,
        // so they are counted.
        let mut changes = 0;
        while changes < 64 {
            let s = self.slot();
            match attempt(s) {
                Ok((v, id)) => {
                    if self.admits(s, id) {
                        return Ok(v);
                    }
                    changes += 1;
                    match self.refusal(s, id) {
                        Refusal::Retired => continue,
                        Refusal::PastBound => self.renew_now(s)?,
                        Refusal::Expired(reason) => {
                            return Err(Error::LeaseLost {
                                node: s.node(),
                                reason,
                            })
                        }
                    }
                }
                Err(Error::WouldBlock { .. } | Error::ClockMovedBackwards { .. })
                    if self.not_ready(s).is_some() =>
                {
                    // The node's fence (its previous holder's bound, or the store's lock
                    // delay) is ahead of the clock: the node is ready at a known time. Not a
                    // clock step in this process, so not the `on_backwards` budget's business.
                    let Some(ready) = self.not_ready(s) else {
                        continue;
                    };
                    if ready.cause == WaitCause::Fence && self.maybe_swap(s) {
                        changes += 1;
                        continue;
                    }
                    self.check_ready(s, &ready)?;
                    if !wait {
                        self.announce_wait(s, &ready);
                        return Err(Error::WouldBlock {
                            until_ms: ready.until_ms,
                        });
                    }
                    self.wait_ready(s, &ready)?;
                }
                Err(Error::WouldBlock { until_ms }) => {
                    if self.maybe_swap(s) {
                        changes += 1;
                        continue;
                    }
                    if !wait {
                        return Err(Error::WouldBlock { until_ms });
                    }
                    self.clock.wait_until(until_ms);
                }
                Err(e @ Error::ClockMovedBackwards { .. }) => {
                    if self.maybe_swap(s) {
                        changes += 1;
                        continue;
                    }
                    return Err(e);
                }
                Err(e) => return Err(e),
            }
        }
        let s = self.slot();
        Err(Error::LeaseLost {
            node: s.node(),
            reason: "the lease kept changing while minting",
        })
    }

    /// Stops minting on the current slot and releases its lease with the exact high-water
    /// mark. Only called with no minting thread left (drop, `release(self)`).
    fn release_current(&self) -> Result<()> {
        let _g = lock(&self.lease_lock);
        let s = self.slot();
        let Some(lease) = s.lease.as_ref() else {
            return Ok(());
        };
        if s.lost.load(RELAXED) {
            return Ok(());
        }
        s.deadline.store(0, RELAXED);
        let hw = s.gen.high_water_ms().unwrap_or(0);
        self.store()?.release(lease, hw)
    }
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
                let store: Arc<dyn LeaseStore> = Arc::from(lease::open(&url)?);
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

impl<C: Clock + 'static> Shared<C> {
    fn new(
        cfg: Config,
        clock: Arc<C>,
        store: Option<Arc<dyn LeaseStore>>,
        opts: Option<Resolved>,
    ) -> Shared<C> {
        let time = cfg.layout().time_field();
        Shared {
            current: AtomicPtr::new(ptr::null_mut()),
            time_shift: u32::from(time.shift),
            time_mask: time.max(),
            clock,
            cfg,
            store,
            opts,
            slots: Mutex::new(Vec::new()),
            lease_lock: Mutex::new(()),
            stop: Mutex::new(false),
            stop_cv: Condvar::new(),
            swap_retry_at: AtomicU64::new(0),
            counters: Counters::default(),
            lag_ms: mono::coarse_lag_ms(),
        }
    }
}

impl<C: Clock + 'static> Drop for LeasedSnowflake<C> {
    fn drop(&mut self) {
        // In a forked child this leaks the parent's lease and thread handle (see `shutdown`).
        let _ = self.shutdown();
    }
}
