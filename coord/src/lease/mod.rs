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

mod contract;
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
pub use contract::{default_holder, Lease, LeaseSpec, LeaseStore};
pub use open::open;
