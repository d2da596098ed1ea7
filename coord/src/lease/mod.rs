//! Worker-node leases: a node value held under a lease in a store, so that no two live
//! generators share a node, and a record per node of the last time issued under it, so that
//! the next holder never mints at or before that time (the *time fence*).
//!
//! # Stores
//!
//! | URL | store | how a dead holder's node frees itself |
//! |---|---|---|
//! | `file:DIR` | [`FileStore`]: one `flock`ed file per node in `DIR/NAMESPACE/` (embedded default) | the kernel drops the lock when the process dies |
//! | `redis://HOST:PORT/[DB]`, `rediss://...` | [`RedisStore`] (feature `redis`): expiring lease keys with epoch, fencing token and random owner; a store epoch and lock delay, so a Redis that loses data (`FLUSHALL`, restart, failover) never lets two holders mint on one node | the lease key expires after the TTL |
//! | `postgres://...`, `postgresql://...` | [`PgStore`] (feature `postgres`): a lease table (rows created on grant, `FOR UPDATE SKIP LOCKED`) and a per-namespace epoch that fences grants after a truncate or restore; TLS by libpq's `sslmode`/`sslrootcert` | the row's `expires_at` passes |
//! | `postgres://...?mode=boot` | [`PgStore`] in Baidu UidGenerator's *new row per boot* mode | never: every boot takes a new node |
//! | `mysql://USER[:PASS]@HOST:PORT/DB`, `mariadb://...` | [`MysqlStore`] (feature `mysql`): the lease table and per-namespace epoch of the PostgreSQL store, on MySQL 8.0+ or MariaDB 10.6+; TLS by `ssl-mode`/`ca_file` | the row's `expires_at` passes |
//! | `mysql://...?mode=boot` | [`MysqlStore`] on Baidu UidGenerator's own `WORKER_NODE` table: a new row per boot | never: every boot takes a new node |
//! | `etcd://HOST:PORT[,HOST:PORT...]/PREFIX`, `etcds://...` | [`EtcdStore`] (feature `etcd`; etcd ≥ 3.4, through its JSON gateway over HTTP: no gRPC client, no protoc): a node key per held node attached to an etcd lease, granted by a `create_revision == 0` transaction, the key's create revision as fencing token; a per-namespace epoch and lock delay after the prefix is deleted or the cluster restored | the etcd lease expires (TTL rounded up to whole seconds) |
//! | `zk://HOST:PORT[,HOST:PORT...]/PATH` | [`ZkStore`] (feature `zookeeper`): Meituan Leaf's worker ids (a persistent sequential znode per holder identity gives it its node back after a restart), an ephemeral znode per held node whose `czxid` is the fencing token, a persistent bound record per node, and a per-namespace epoch with a lock delay after the data is lost | the lease's ZooKeeper session expires (its timeout is at least the TTL) |
//!
//! Redis, PostgreSQL, MySQL, etcd and ZooKeeper URLs accept `timeout_ms=N` (default 1000): the
//! connect, read and statement timeout of every store call, so a dead store fails a call instead
//! of hanging it. ZooKeeper URLs also take `session_timeout_ms=N` (default the lease's TTL) and
//! `identity=NAME` (Leaf's `ip:port`; default the holder name): see [`zookeeper`].
//! Redis URLs also take `ca_file=PATH` (`rediss://` with a private CA) and `restart=durable`
//! (see [`redis`] for when a restart may be trusted).
//!
//! On PostgreSQL the timeout is a client-side deadline on each call (connecting within twice
//! it, the statements within once more), so a call ends within three timeouts even against a
//! server that is stopped (SIGSTOP) and never answers. The store keeps a random epoch per
//! namespace that every renewal must name, and checks at each acquire that its rows were not
//! truncated or restored from an older backup (table identity, cluster identity and timeline,
//! row counts); if they may have been, it starts a new epoch (old leases are lost) and fences
//! every grant under it past the caller's now plus the longest horizon ever asked for. What it
//! catches and what it cannot is listed in [`postgres`].
//!
//! On etcd, `timeout_ms` is the deadline of each whole call, whichever members its requests
//! go to (it fails over across the members listed); `etcds://` URLs take `ca_file=PATH`. etcd leases live whole seconds: a lease's
//! [`Lease::ttl`] is the TTL etcd granted, which may be longer than the spec's. See [`etcd`].
//!
//! # The protocol a holder follows
//!
//! 1. [`LeaseStore::acquire`] a node. The [`Lease`] carries `fence_ms`, the node's recorded
//!    last-issued bound: the holder issues nothing at or before it (`idmint::Config::fence_ms`).
//! 2. Before minting, [`LeaseStore::renew`] with a bound ahead of what it will mint
//!    (`issued_up_to_ms`), and mint only IDs whose time is at most the recorded bound, and only
//!    while the lease is surely alive. Renew again well before either runs out.
//! 3. [`LeaseStore::release`] with the last issued time when done. The record only rises, so
//!    the node stays fenced up to the bound of the last renewal: its next holder may find the
//!    fence ahead of its clock (by up to the reserve), which [`LeasedSnowflake`] treats as
//!    "ready at that time", not as a clock step.
//!
//! A node's recorded bound never goes down, in any store: a renew or release with a lower
//! value than recorded leaves the record as it was (the conformance kit checks it).
//!
//! [`LeasedSnowflake`] does all of this for a generator.

use std::time::Duration;

use idmint::{Error, Result};

#[cfg(feature = "etcd")]
pub mod etcd;
pub mod file;
mod inherited;
pub mod local;
pub(crate) mod mono;
#[cfg(feature = "mysql")]
pub mod mysql;
mod name_lock;
mod open;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "redis")]
pub mod redis;
pub mod snowflake;
#[cfg(any(feature = "postgres", feature = "mysql"))]
mod sql;
mod url;
#[cfg(feature = "zookeeper")]
pub mod zookeeper;

#[cfg(feature = "etcd")]
pub use etcd::EtcdStore;
pub use file::FileStore;
pub use local::local_dir;
#[cfg(feature = "mysql")]
pub use mysql::MysqlStore;
#[cfg(feature = "postgres")]
pub use postgres::PgStore;
#[cfg(feature = "redis")]
pub use redis::RedisStore;
pub use snowflake::{LeaseInfo, LeaseOptions, LeaseStats, LeaseWait, LeasedSnowflake, WaitCause};
#[cfg(feature = "zookeeper")]
pub use zookeeper::ZkStore;

pub use crate::timeouts::DEFAULT_STORE_TIMEOUT;

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
    /// [`LeasedSnowflake`] waits for it instead of treating
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
///   renewed with (typically a reserve ahead of its clock), see [`LeasedSnowflake`];
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

impl<S: LeaseStore + ?Sized> LeaseStore for std::sync::Arc<S> {
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

impl<S: LeaseStore + ?Sized> LeaseStore for Box<S> {
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

/// Opens a lease store from a URL (see the [module docs](self) for the forms).
///
/// Opening does not contact a network store yet; the first call does (and reconnects after
/// a failure).
///
/// # Examples
/// ```
/// use idmint_coord::lease;
/// let dir = std::env::temp_dir().join(format!("idmint-doc-open-{}", std::process::id()));
/// let store = lease::open(&format!("file:{}", dir.display()))?;
/// assert_eq!(store.kind(), "file");
/// assert!(lease::open("memcached://x").is_err());
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), idmint::Error>(())
/// ```
pub fn open(url: &str) -> Result<Box<dyn LeaseStore>> {
    let url = crate::url_ref::resolve(url)?;
    let url = url.as_str();
    let scheme = crate::scheme::find(url, crate::scheme::Role::Lease)?;
    open::open(scheme.store, url)
}

/// A fresh random value for [`Lease::owner`] or a store epoch (never 0, which means "none").
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
