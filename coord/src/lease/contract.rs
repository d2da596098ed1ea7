//! What every lease store promises and deals in: the [`LeaseSpec`] a holder asks with, the
//! [`Lease`] granted, and the [`LeaseStore`] trait; see the [module docs](super) for the
//! protocol.

use std::time::Duration;

use idmint::{Error, Result};

/// What a holder asks a store for: a node of a namespace's node space, for a time.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use idmint_coord::lease::LeaseSpec;
/// let spec = LeaseSpec::new("orders", 1 << 10, Duration::from_secs(10));
/// assert!(spec.validate().is_ok());
/// assert!(LeaseSpec::new("bad name", 1024, Duration::from_secs(1)).validate().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseSpec {
    /// Separates unrelated node spaces in one store (`[A-Za-z0-9_.-]`, 1 to 64 bytes): it
    /// becomes part of file names, Redis keys and table rows.
    pub namespace: String,
    /// Size of the node space: nodes `0..nodes` are granted (for example `1 << node_bits`).
    pub nodes: u64,
    /// How long a lease lives without renewal (stores that expire leases).
    pub ttl: Duration,
    /// Who holds it, for humans reading the store (`host:pid:random` by default).
    pub holder: String,
    /// How far past any moment the holder's IDs can reach in time: it keeps minting for up to
    /// a TTL without a successful renewal, and each renewal records a bound some way ahead of
    /// its clock. A store that finds it lost its records (a Redis flushed or restarted without
    /// persistence, a PostgreSQL table truncated or restored) cannot know what live holders of
    /// the old records still mint, so it fences every new grant past *now + the longest
    /// horizon* it knows of (Consul's lock-delay idea). Default: twice the TTL.
    pub horizon: Duration,
}

impl LeaseSpec {
    /// A spec with the default holder name ([`default_holder`]) and horizon (twice the TTL).
    pub fn new(namespace: &str, nodes: u64, ttl: Duration) -> LeaseSpec {
        LeaseSpec {
            namespace: namespace.to_string(),
            nodes,
            ttl,
            holder: default_holder(),
            horizon: ttl.saturating_mul(2),
        }
    }

    /// Sets the horizon (see [`LeaseSpec::horizon`]).
    pub fn horizon(mut self, horizon: Duration) -> LeaseSpec {
        self.horizon = horizon;
        self
    }

    /// Sets the holder name.
    pub fn holder(mut self, holder: &str) -> LeaseSpec {
        self.holder = holder.to_string();
        self
    }

    /// Checks the spec: a valid namespace, at least one node, a TTL of at least 1 ms.
    pub fn validate(&self) -> Result<()> {
        validate_namespace(&self.namespace)?;
        if self.nodes == 0 {
            return Err(Error::InvalidConfig {
                reason: "a lease needs a node space of at least one node",
            });
        }
        if self.ttl < Duration::from_millis(1) {
            return Err(Error::InvalidConfig {
                reason: "lease ttl must be at least 1 ms",
            });
        }
        Ok(())
    }

    #[cfg_attr(
        not(any(
            feature = "redis",
            feature = "postgres",
            feature = "mysql",
            feature = "etcd",
            feature = "zookeeper"
        )),
        allow(dead_code)
    )]
    pub(crate) fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }

    #[allow(dead_code)] // used by the network stores' lock delay
    pub(crate) fn horizon_ms(&self) -> u64 {
        u64::try_from(self.horizon.as_millis())
            .unwrap_or(u64::MAX)
            .max(self.ttl_ms())
    }

    /// The holder with whitespace replaced, so it fits one-line records.
    pub(crate) fn holder_clean(&self) -> String {
        self.holder
            .chars()
            .map(|c| if c.is_whitespace() { '_' } else { c })
            .collect()
    }
}

pub(crate) fn validate_namespace(ns: &str) -> Result<()> {
    let ok = !ns.is_empty()
        && ns.len() <= 64
        && ns
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
        && ns != "."
        && ns != "..";
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidConfig {
            reason: "lease namespace must be 1 to 64 bytes of [A-Za-z0-9_.-]",
        })
    }
}

/// A granted lease: which node, under which fencing token, and the node's time fence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The namespace it was granted in.
    pub namespace: String,
    /// The node value granted.
    pub node: u64,
    /// Fencing token: strictly increasing over the grants of this node, so a holder whose
    /// lease expired and was granted to someone else is told apart from the new holder.
    pub token: u64,
    /// The node's recorded last-issued bound (ms since the Unix epoch) when it was granted, or
    /// `None` for a node never used. Pass it to `idmint::Config::fence_ms`.
    pub fence_ms: Option<u64>,
    /// The lease's time to live: as asked in the spec, or longer where the store's leases
    /// live longer (etcd grants whole seconds, and no less than its minimum). The store never
    /// expires the lease sooner than this after a renewal was sent, so a window or deadline
    /// computed from it is safe; one computed from the spec's (shorter) TTL is too.
    pub ttl: Duration,
    /// The holder name it was granted to.
    pub holder: String,
    /// Random per grant: stores check it together with the token, so two grants that got the
    /// same token (a store that lost its counters hands out token 1 again) are told apart.
    pub owner: u64,
    /// The store's epoch when the lease was granted: a random value per namespace that a store
    /// replaces when it finds its records lost, so renewals of leases granted before the loss
    /// fail. 0 for stores whose records cannot be lost behind a live holder's back (the file
    /// store, where the kernel holds the locks).
    pub epoch: u64,
    /// The store's lock delay, when the lease was granted under a new epoch: no ID of the
    /// namespace may carry a time at or before this (ms since the Unix epoch), because holders
    /// of the lost records may still be minting up to it. Also folded into `fence_ms`.
    /// [`LeasedSnowflake`](super::LeasedSnowflake) waits for it instead of treating
    /// it as a clock step back.
    pub not_before_ms: Option<u64>,
}

impl Lease {
    /// The least value a release may raise the record to: `issued_up_to_ms`, but never below
    /// the fence the lease was granted with (which may be a lock delay the node's record does
    /// not hold yet). Stores raise the record to it and never lower the record.
    pub(crate) fn final_bound(&self, issued_up_to_ms: u64) -> u64 {
        issued_up_to_ms.max(self.fence_ms.unwrap_or(0))
    }
}

/// A store that grants nodes under leases and records each node's last-issued bound.
///
/// Every implementation keeps these promises:
/// - no two live leases of a namespace hold the same node — across threads, processes and hosts;
/// - a node's recorded bound never goes down: a renew or release with a lower value leaves the
///   record as it was (it becomes the larger of the two). Callers may pass values a client
///   sent (the ID service does), and a lying client must not be able to lower a node's fence;
///   the price is that a node released early stays fenced up to the bound its holder last
///   renewed with (typically a reserve ahead of its clock), see [`LeasedSnowflake`](super::LeasedSnowflake);
/// - a store failure is [`Error::StoreUnavailable`]; nothing was granted or extended then.
pub trait LeaseStore: Send + Sync {
    /// The store's name in errors: `file`, `redis`, `postgres`, `mysql`, `etcd`, `zookeeper`.
    fn kind(&self) -> &'static str;

    /// Grants a node no live holder has, other than `avoid` (the node a holder swaps away
    /// from). Prefers free nodes whose recorded bound is not ahead of `now_ms` (ms since the
    /// Unix epoch, the caller's clock), and among those the one released longest ago: released
    /// nodes go to the back of a queue, so a node just given up is the last to be reused.
    /// [`Error::NoFreeNode`] when every node is held.
    fn acquire(&self, spec: &LeaseSpec, now_ms: u64, avoid: Option<u64>) -> Result<Lease>;

    /// Extends the lease by its TTL and raises the node's recorded bound to `issued_up_to_ms`
    /// (never lowers it). [`Error::LeaseLost`] if the lease was superseded (it expired and the
    /// node was granted again) or is not held.
    fn renew(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()>;

    /// Raises the node's recorded bound to `issued_up_to_ms`, and at least to the lease's
    /// fence (never lowers it: a value below what was recorded, by this holder's renewals or
    /// before its grant, leaves the record) and
    /// frees the node, to the back of the queue. [`Error::LeaseLost`] if the lease was
    /// superseded; the node's record is then left to its new holder.
    fn release(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()>;
}

/// A shared or boxed store is the store it points to.
macro_rules! forward_lease_store {
    ($($ptr:ident)::+) => {
        impl<S: LeaseStore + ?Sized> LeaseStore for $($ptr)::+<S> {
            fn kind(&self) -> &'static str {
                (**self).kind()
            }
            fn acquire(&self, spec: &LeaseSpec, now_ms: u64, avoid: Option<u64>) -> Result<Lease> {
                (**self).acquire(spec, now_ms, avoid)
            }
            fn renew(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
                (**self).renew(lease, issued_up_to_ms)
            }
            fn release(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
                (**self).release(lease, issued_up_to_ms)
            }
        }
    };
}
forward_lease_store!(std::sync::Arc);
forward_lease_store!(Box);

/// A fresh random value for [`Lease::owner`] or a store epoch (never 0, which means "none").
/// The store `store` could not do `op` (why: `reason`): the error every lease store reports
/// when its server does not answer or answers what it cannot use.
pub(crate) fn unavailable(store: &'static str, op: &'static str, reason: &'static str) -> Error {
    Error::StoreUnavailable { store, op, reason }
}

pub(crate) fn random_nonzero() -> Result<u64> {
    loop {
        let v = idmint::os_random_u64()?;
        if v != 0 {
            return Ok(v);
        }
    }
}

/// `host:pid:random` — names a holder for humans reading a store.
pub fn default_holder() -> String {
    let mut r = [0u8; 4];
    let tag = match getrandom::fill(&mut r) {
        Ok(()) => u32::from_le_bytes(r),
        Err(_) => 0,
    };
    format!("{}:{}:{tag:08x}", hostname(), std::process::id())
}

/// The host name, or `localhost` when it cannot be read.
pub(crate) fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: `buf` is writable for its whole length, which is what we pass.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "localhost".to_string();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    match std::str::from_utf8(&buf[..end]) {
        Ok(s) if !s.is_empty() => s.to_string(),
        _ => "localhost".to_string(),
    }
}
