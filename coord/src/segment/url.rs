//! One string names a segment store, so CLIs, bindings and config files need no store-specific
//! code: [`open_store`].
//!
//! | URL | store |
//! |---|---|
//! | `sqlite:PATH` (also `sqlite://PATH`) | [`SqliteStore`](super::sqlite::SqliteStore) on the file `PATH` |
//! | `postgres://…`, `postgresql://…` | [`PostgresStore`](super::postgres::PostgresStore); the URL's own parameters (`connect_timeout=…`) pass through |
//! | `mysql://USER[:PASS]@HOST:PORT/DB`, `mariadb://…` | [`MysqlStore`](super::mysql::MysqlStore): Meituan Leaf's own `leaf_alloc` table; options `timeout_ms`, `ssl-mode`, `ca_file` (see the crate's `mysql_conn` module) |
//! | `redis://…`, `rediss://…`, `redis+unix://…` | [`RedisStore`](super::redis::RedisStore) |
//! | `idmint+http://HOST:PORT[/PREFIX]`, `idmint+https://…` | [`HttpStore`](super::http::HttpStore): ranges from an idmint service (`idmint serve`) |
//! | `memory:` | [`MemoryStore`](super::memory::MemoryStore): this process only, for tests |
//!
//! Options, as query parameters:
//! - `shards=N` (SQL stores only): N sharded rows per key in that database —
//!   [`ShardedStore`](super::sharded::ShardedStore) — with `block=B` values per take
//!   (default 1000). At most [`MAX_SHARDS`](super::sharded::MAX_SHARDS).
//! - `busy_timeout_ms=T` (SQLite only): how long a take waits for another process's lock
//!   while no commit lands in the file. At most
//!   [`MAX_BUSY_TIMEOUT`](super::sqlite::MAX_BUSY_TIMEOUT) (one hour).
//! - `token=T`, `timeout_ms=N` (idmint service only): the bearer token sent with every call,
//!   and the deadline of one call (default one second, at most
//!   [`MAX_TIMEOUT`](super::http::MAX_TIMEOUT), one hour); see [`http`](super::http).
//!
//! An unknown scheme, a malformed option, or an option the store does not take is
//! [`Error::InvalidConfig`]; so is a store whose cargo feature was not built. A count or a
//! timeout above its limit is [`Error::LimitExceeded`], checked before anything is allocated
//! or opened.

#[cfg(any(feature = "sqlite", feature = "postgres"))]
use std::sync::Arc;

use idmint::{Error, Result};

use super::contract::SegmentStore;
use crate::scheme::{Role, Store};

/// Block size of a sharded store when the URL gives `shards=` without `block=`.
pub const DEFAULT_SHARD_BLOCK: u64 = 1000;

/// `busy_timeout_ms=` above this (one hour, as `SqliteStore`'s limit) is refused.
const MAX_BUSY_TIMEOUT_MS: u64 = 3_600_000;

/// Opens the segment store `url` names (see the [module docs](self)).
///
/// # Examples
/// ```no_run
/// use idmint_coord::segment::url::open_store;
///
/// let local = open_store("sqlite:/var/lib/app/segments.db")?;
/// let shared = open_store("postgres://app@db.internal/app?connect_timeout=2")?;
/// let spread = open_store("postgres://app@db.internal/app?shards=4&block=500")?;
/// let r = local.take("orders", 1_000)?;
/// # Ok::<(), idmint::Error>(())
/// ```
pub fn open_store(url: &str) -> Result<Box<dyn SegmentStore>> {
    let url = crate::url_ref::resolve(url)?;
    let url = url.as_str();
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, q),
        None => (url, ""),
    };
    let mut opts = Options::default();
    let mut rest = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "shards" => opts.shards = Some(number(v)?),
            "block" => opts.block = Some(number(v)?),
            "busy_timeout_ms" => opts.busy_timeout_ms = Some(number(v)?),
            _ => rest.push(pair),
        }
    }
    if opts.block.is_some() && opts.shards.is_none() {
        return bad("`block=` needs `shards=`");
    }
    if opts
        .shards
        .is_some_and(|n| n > u64::from(super::sharded::MAX_SHARDS))
    {
        return Err(Error::LimitExceeded {
            what: "`shards=` of a segment store URL",
            limit: u64::from(super::sharded::MAX_SHARDS),
        });
    }
    if opts
        .busy_timeout_ms
        .is_some_and(|t| t > MAX_BUSY_TIMEOUT_MS)
    {
        return Err(Error::LimitExceeded {
            what: "`busy_timeout_ms=` of a segment store URL",
            limit: MAX_BUSY_TIMEOUT_MS,
        });
    }
    let rest = rest.join("&");
    let scheme = crate::scheme::find(base, Role::Segment)?;
    if opts.busy_timeout_ms.is_some() && scheme.store != Store::Sqlite {
        return bad("`busy_timeout_ms=` is an option of sqlite: only");
    }
    if opts.shards.is_some() && !matches!(scheme.store, Store::Sqlite | Store::Postgres) {
        return bad("`shards=` needs a SQL store with idmint's own table (sqlite: or postgres://)");
    }
    match scheme.store {
        #[cfg(feature = "sqlite")]
        Store::Sqlite => {
            let path = base.strip_prefix("sqlite:").unwrap_or(base);
            let path = path.strip_prefix("//").unwrap_or(path);
            if !rest.is_empty() {
                return bad("unknown option for sqlite: (takes shards, block, busy_timeout_ms)");
            }
            sqlite(path, &opts)
        }
        #[cfg(feature = "postgres")]
        Store::Postgres => opts.wrap(super::postgres::PostgresStore::new(&rejoin(base, &rest))?),
        #[cfg(feature = "mysql")]
        Store::Mysql => Ok(Box::new(super::mysql::MysqlStore::new(&rejoin(
            base, &rest,
        ))?)),
        #[cfg(feature = "redis")]
        Store::Redis => Ok(Box::new(super::redis::RedisStore::new(&rejoin(
            base, &rest,
        ))?)),
        #[cfg(feature = "http")]
        Store::Http => Ok(Box::new(super::http::HttpStore::new(&rejoin(base, &rest))?)),
        Store::Memory => {
            if base != "memory:" || !rest.is_empty() {
                return bad("memory: takes no options");
            }
            Ok(Box::new(super::memory::MemoryStore::new()))
        }
        #[allow(unreachable_patterns)] // with every feature, only the lease stores are left
        _ => bad("this store hands out no segment ranges"),
    }
}

#[derive(Debug, Default)]
struct Options {
    shards: Option<u64>,
    block: Option<u64>,
    busy_timeout_ms: Option<u64>,
}

impl Options {
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    fn wrap<S>(&self, store: S) -> Result<Box<dyn SegmentStore>>
    where
        S: SegmentStore + super::sharded::ShardRows + 'static,
    {
        let Some(shards) = self.shards else {
            return Ok(Box::new(store));
        };
        let shards = u32::try_from(shards).map_err(|_| Error::InvalidConfig {
            reason: "`shards=` is too large",
        })?;
        let block = self.block.unwrap_or(DEFAULT_SHARD_BLOCK);
        Ok(Box::new(super::sharded::ShardedStore::new(
            vec![Arc::new(store)],
            shards,
            block,
        )?))
    }
}

/// `base` with the options left, the store's own, back on it.
#[cfg(any(
    feature = "postgres",
    feature = "mysql",
    feature = "redis",
    feature = "http"
))]
fn rejoin(base: &str, rest: &str) -> String {
    if rest.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{rest}")
    }
}

fn number(v: &str) -> Result<u64> {
    v.parse().map_err(|_| Error::InvalidConfig {
        reason: "segment store option must be a whole number",
    })
}

fn bad<T>(reason: &'static str) -> Result<T> {
    Err(Error::InvalidConfig { reason })
}

#[cfg(feature = "sqlite")]
fn sqlite(path: &str, opts: &Options) -> Result<Box<dyn SegmentStore>> {
    if path.is_empty() {
        return bad("sqlite: needs a file path");
    }
    let timeout = opts.busy_timeout_ms.map_or(
        super::sqlite::DEFAULT_BUSY_TIMEOUT,
        std::time::Duration::from_millis,
    );
    opts.wrap(super::sqlite::SqliteStore::open_with_busy_timeout(
        path, timeout,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config_error(url: &str) -> bool {
        matches!(open_store(url), Err(Error::InvalidConfig { .. }))
    }

    #[test]
    fn malformed_urls_are_config_errors() {
        assert!(config_error("mysql:/localhost/db"));
        assert!(config_error("mysql://localhost/db?shards=2"));
        assert!(config_error("mariadb://localhost/db?frobnicate=1"));
        assert!(config_error("mysql://localhost/"));
        assert!(config_error("sqlite:"));
        assert!(config_error("sqlite:/tmp/x.db?frobnicate=1"));
        assert!(config_error("sqlite:/tmp/x.db?shards=x"));
        assert!(config_error("sqlite:/tmp/x.db?block=10"));
        assert!(config_error("redis://127.0.0.1/?shards=2"));
        assert!(config_error("redis://127.0.0.1/?busy_timeout_ms=2"));
        assert!(config_error("postgres://u@h/db?shards=0"));
        assert!(config_error("memory:?shards=2"));
        assert!(config_error("memory:x"));
    }

    #[test]
    fn counts_above_their_limits_are_refused_before_anything_is_built() {
        for (url, what) in [
            (
                "postgres://u@h/db?shards=99999999999",
                "`shards=` of a segment store URL",
            ),
            (
                "postgres://u@h/db?shards=4294967295",
                "`shards=` of a segment store URL",
            ),
            (
                "sqlite:/nonexistent/x.db?shards=1025",
                "`shards=` of a segment store URL",
            ),
            (
                "sqlite:/nonexistent/x.db?busy_timeout_ms=18446744073709551615",
                "`busy_timeout_ms=` of a segment store URL",
            ),
        ] {
            match open_store(url) {
                Err(Error::LimitExceeded { what: w, .. }) => assert_eq!(w, what, "{url}"),
                Err(e) => panic!("{url}: {e}"),
                Ok(s) => panic!("{url}: opened a {} store", s.kind()),
            }
        }
    }

    #[test]
    fn memory_store_counts_from_one() {
        let m = open_store("memory:").unwrap();
        assert_eq!(m.kind(), "memory");
        assert_eq!(m.take("k", 3).unwrap().start, 1);
        assert_eq!(m.take("k", 3).unwrap().start, 4);
    }

    #[cfg(all(feature = "postgres", feature = "redis"))]
    #[test]
    fn network_stores_open_without_connecting() {
        // Nothing listens on port 1; opening must still succeed (the first take connects).
        let pg = open_store("postgresql://u@127.0.0.1:1/db?connect_timeout=1").unwrap();
        assert_eq!(pg.kind(), "postgres");
        let sharded = open_store("postgres://u@127.0.0.1:1/db?shards=4&block=10").unwrap();
        assert_eq!(sharded.kind(), "sharded");
        #[cfg(feature = "mysql")]
        {
            let my = open_store("mariadb://u@127.0.0.1:1/db?timeout_ms=500").unwrap();
            assert_eq!(my.kind(), "mysql");
            assert!(matches!(
                my.take("k", 1),
                Err(Error::StoreUnavailable {
                    store: "mysql",
                    op: "take",
                    reason: "connection refused"
                })
            ));
        }
        let r = open_store("redis://127.0.0.1:1/").unwrap();
        assert_eq!(r.kind(), "redis");
        assert!(matches!(
            r.take("k", 1),
            Err(Error::StoreUnavailable {
                store: "redis",
                op: "take",
                reason: "connection refused"
            })
        ));
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn sqlite_urls_open_files() {
        let dir = std::env::temp_dir().join(format!("idmint-url-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.db");
        let plain = open_store(&format!("sqlite:{}", path.display())).unwrap();
        assert_eq!(plain.kind(), "sqlite");
        assert_eq!(plain.take("k", 5).unwrap().start, 1);
        let sharded = open_store(&format!(
            "sqlite://{}?shards=2&block=7&busy_timeout_ms=100",
            path.display()
        ))
        .unwrap();
        assert_eq!(sharded.kind(), "sharded");
        assert_eq!(sharded.take("s", 7).unwrap().len(), 7);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
