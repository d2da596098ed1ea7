//! How a [`LeasedSnowflake`](super::LeasedSnowflake) holds and renews its lease: the options
//! a caller gives, and what they resolve to for a layout.

use std::sync::Arc;
use std::time::Duration;

use idmint::{Config, Error, OnBackwards, OnExhausted, Result};

use crate::lease::contract::{default_holder, validate_namespace, LeaseSpec};
use crate::lease::mono;

/// How a [`LeasedSnowflake`](super::LeasedSnowflake) holds and renews its lease. Durations default from the TTL.
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
    pub(super) namespace: String,
    pub(super) ttl: Duration,
    pub(super) renew_every: Option<Duration>,
    pub(super) retry_every: Option<Duration>,
    pub(super) safety_margin: Option<Duration>,
    pub(super) reserve: Option<Duration>,
    pub(super) swap_after_ms: Option<u64>,
    pub(super) nodes: Option<u64>,
    pub(super) holder: Option<String>,
    pub(super) on_wait: Option<WaitHook>,
}

/// Why a [`LeasedSnowflake`](super::LeasedSnowflake) waits before it can mint on its node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WaitCause {
    /// The node's recorded bound (its previous holder's last renewal) is ahead of this clock.
    Fence,
    /// The store's lock delay after it found its records lost ([`Lease::not_before_ms`](crate::lease::Lease::not_before_ms)).
    LockDelay,
}

/// A wait a [`LeasedSnowflake`](super::LeasedSnowflake) is about to make, reported to [`LeaseOptions::on_wait`].
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
pub(super) struct WaitHook(pub(super) Arc<dyn Fn(&LeaseWait) + Send + Sync>);

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
    /// also by [`LeasedSnowflake::try_next_id`](super::LeasedSnowflake::try_next_id) when it
    /// answers `WouldBlock` for that reason (its caller does the waiting).
    pub fn on_wait(mut self, f: impl Fn(&LeaseWait) + Send + Sync + 'static) -> Self {
        self.on_wait = Some(WaitHook(Arc::new(f)));
        self
    }

    /// The renewal period these options give.
    pub fn renew_period(&self) -> Duration {
        self.renew_every.unwrap_or(self.ttl / 3)
    }

    pub(super) fn resolve(&self, cfg: &Config) -> Result<Resolved> {
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let bad = |reason| Err(Error::InvalidConfig { reason });
        validate_namespace(&self.namespace)?;
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
            holder: self.holder.clone().unwrap_or_else(default_holder),
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
pub(super) fn ahead_of_clock_ms(cfg: &Config) -> u64 {
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
pub(super) struct Resolved {
    pub(super) spec: LeaseSpec,
    /// TTL − margin − coarse lag: how long after sending a renewal minting may go on.
    pub(super) live_ms: u64,
    pub(super) renew_ms: u64,
    pub(super) retry_ms: u64,
    pub(super) reserve_ms: u64,
    pub(super) swap_after_ms: Option<u64>,
    /// How far ahead of the clock a node's recorded bound may be and still be waited for.
    pub(super) max_fence_wait_ms: u64,
    pub(super) on_wait: Option<WaitHook>,
}
