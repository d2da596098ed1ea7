//! # idmint-coord
//!
//! Coordination for idmint generators across processes and hosts:
//!
//! - **Worker leases** ([`lease`]): a node value held under a lease in a store (file locks in a
//!   directory, Redis, PostgreSQL, MySQL/MariaDB, etcd, ZooKeeper), renewed in the background, carrying the node's last issued
//!   time so the next holder never mints before it (the time fence).
//! - **Segments** ([`segment`]): ranges of consecutive values taken from a store (SQLite,
//!   PostgreSQL, MySQL/MariaDB on Leaf's own table, Redis, or an idmint service over HTTP) one round trip per range, served from
//!   a double buffer.
//! - **Generators by name** ([`named`]): one config string (`type=segment,store=…,key=…`,
//!   `type=snowflake,layout=…,lease=…`, the core's types, or a type the program registers)
//!   builds a thread-safe generator, the same on every surface.
//!
//! Stores are named by URL, so one string configures a service: `file:DIR`, `redis://…`,
//! `postgres://…`, `mysql://…`, `etcd://…`, `zk://…` for leases ([`lease::open`]), plus `static:N`, `env:VAR`, `ip` and
//! `random` node sources ([`node_source`]); `sqlite:PATH`, `postgres://…`, `mysql://…`, `redis://…`,
//! `idmint+http://HOST:PORT/` for segments ([`segment::open_store`]).
//!
//! # A leased Snowflake generator
//! ```
//! use idmint::{Config, Layout};
//! use idmint_coord::lease::{LeaseOptions, LeasedSnowflake};
//!
//! let dir = std::env::temp_dir().join(format!("idmint-coord-doc-{}", std::process::id()));
//! let source = format!("file:{}", dir.display());
//! let cfg = Config::new(Layout::preset("leaf")?);
//! // Two generators in one process (or two processes on one host) get distinct nodes.
//! let a = LeasedSnowflake::from_source(&source, cfg, LeaseOptions::new())?;
//! let b = LeasedSnowflake::from_source(&source, cfg, LeaseOptions::new())?;
//! assert_ne!(a.node(), b.node());
//! assert_ne!(a.next_id()?, b.next_id()?);
//! // Releasing records the last time issued under the node: its next holder starts above it.
//! a.release()?;
//! b.release()?;
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), idmint::Error>(())
//! ```
//!
//! # Segments from SQLite
//! ```
//! use idmint::segment::SegmentConfig;
//! use idmint_coord::segment::{open_store, SegmentAllocator};
//!
//! let dir = std::env::temp_dir().join(format!("idmint-coord-seg-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let store = open_store(&format!("sqlite:{}", dir.join("ids.db").display()))?;
//! let alloc = SegmentAllocator::builder(store, SegmentConfig::new())
//!     .journal(dir.join("ids.journal")) // the unused remainder survives a restart
//!     .build()?;
//! let orders = alloc.key("orders")?;
//! let first = orders.next_id()?;
//! let mut batch = vec![0u64; 100_000];
//! orders.next_ids(&mut batch)?;
//! assert!(batch[0] > first && batch.windows(2).all(|w| w[0] < w[1]));
//! alloc.close()?;
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), idmint::Error>(())
//! ```

#![deny(missing_docs)]

#[cfg(feature = "postgres")]
mod blocking;
pub mod lease;
#[cfg(feature = "mysql")]
mod mysql_conn;
pub mod named;
pub mod node_source;
pub mod options;
#[cfg(feature = "postgres")]
mod pg;
mod reason;
#[cfg(feature = "redis")]
pub mod redis_compose;
#[cfg(feature = "redis")]
mod redis_conn;
pub mod scheme;
pub mod segment;
mod timeouts;
pub mod url_ref;

/// The Rust blocks of the READMEs, run by rustdoc (`cargo test --doc`) so they cannot drift
/// from the code; `scripts/docs-check.py` checks that each README with Rust blocks is here.
#[cfg(doctest)]
mod readme_doctests {
    #[doc = include_str!("../../README.md")]
    pub struct RootReadme;
    #[doc = include_str!("../README.md")]
    pub struct CoordReadme;
}
