//! The Redis segment store: `INCRBY idmint:seg:{key} step`, one round trip per range.
//!
//! The counter key holds the last value handed out (a missing key counts as 0), so the reply
//! `r` of `INCRBY` hands out `[r - step + 1, r + 1)` and a key's first range starts at 1, as in
//! the SQL stores.
//!
//! **Durability is the server's.** Ranges never repeat only while Redis never forgets an
//! increment it acknowledged: run it with `appendonly yes` and `appendfsync always`, and do not
//! fail over to an asynchronous replica. A Redis that restarts from an older snapshot (or none)
//! hands out ranges again — use the SQL stores when the Redis deployment cannot promise that.
//! (A running [`SegmentAllocator`](super::SegmentAllocator) refuses a range that goes back,
//! so it fails rather than repeat values; a process started after the loss cannot tell, but a
//! [journal](super::journal) written before it is refused: the store's
//! [identity](SegmentStore::identity), the key named by the prefix alone — no counter has an
//! empty `biz_tag` — is set with `SET NX` on first use and is lost with the counters.)
//!
//! URLs: `redis://`, `rediss://` (TLS; `ca_file=PATH` trusts a private CA instead of the
//! system's roots) and `redis+unix://`; `timeout_ms=N` sets both timeouts below.
//!
//! Failure handling: connections come from a small pool; a connection attempt is bounded by
//! the connect timeout and every command by the read/write timeout (defaults
//! [`DEFAULT_CONNECT_TIMEOUT`], [`DEFAULT_IO_TIMEOUT`]), so a dead, stopped or unreachable
//! server fails a take with `StoreUnavailable { store: "redis", op: "take" }` in bounded time,
//! and the next take connects again. A pooled connection that fails is retried once on a fresh
//! connection; if the first attempt had reached the server, its range is skipped, never handed
//! out twice.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use crate::reason::Reason;
use idmint::segment::Range;
use idmint::{Error, Result};
use redis::{Connection, RedisError};

use super::contract::SegmentStore;
use super::counter;

const KIND: &str = "redis";

/// Default bound on one connection attempt.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// Default bound on sending one command and reading its reply.
pub const DEFAULT_IO_TIMEOUT: Duration = Duration::from_secs(2);

/// Idle connections kept for reuse.
const MAX_IDLE: usize = 8;

/// Why a pooled Redis call failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The server answered with an error (the connection is fine).
    Reply(RedisError),
    /// No answer: cannot connect, timed out, or the connection broke (why, in a few words).
    Down(&'static str),
}

impl Failure {
    /// The cause, for [`Error::StoreUnavailable`](idmint::Error::StoreUnavailable).
    pub(crate) fn reason(&self) -> &'static str {
        match self {
            Failure::Reply(e) => e.reason(),
            Failure::Down(reason) => reason,
        }
    }
}

/// A few Redis connections with bounded connect and I/O times, shared by the Redis store and
/// the Redis composition generator.
pub(crate) struct RedisPool {
    client: redis::Client,
    connect_timeout: Duration,
    io_timeout: Duration,
    idle: Mutex<Vec<Connection>>,
}

impl RedisPool {
    /// A pool for `url` (`redis://`, `rediss://`, `redis+unix://`, with the parameters of
    /// the `redis_conn` module: `timeout_ms` bounds connects and commands alike, `ca_file`
    /// names a private CA); does not connect.
    pub(crate) fn new(url: &str) -> Result<Self> {
        let target = crate::redis_conn::target(url)?;
        let mut pool = RedisPool {
            client: target.client,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            io_timeout: DEFAULT_IO_TIMEOUT,
            idle: Mutex::new(Vec::new()),
        };
        if let Some(t) = target.timeout {
            pool.set_timeouts(t, t);
        }
        Ok(pool)
    }

    pub(crate) fn set_timeouts(&mut self, connect: Duration, io: Duration) {
        // A zero timeout means "none" to std sockets; keep every bound a bound.
        self.connect_timeout = connect.max(Duration::from_millis(1));
        self.io_timeout = io.max(Duration::from_millis(1));
    }

    fn idle(&self) -> MutexGuard<'_, Vec<Connection>> {
        self.idle.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn connect(&self) -> redis::RedisResult<Connection> {
        crate::redis_conn::connect(&self.client, self.connect_timeout, self.io_timeout)
    }

    /// Runs `f` on a pooled connection or a fresh one; a pooled connection that fails without
    /// a server reply empties the pool (the server probably went away) and `f` runs once more
    /// on a fresh connection.
    pub(crate) fn run<T>(
        &self,
        f: impl Fn(&mut Connection) -> redis::RedisResult<T>,
    ) -> std::result::Result<T, Failure> {
        let pooled = self.idle().pop();
        if let Some(mut con) = pooled {
            match f(&mut con) {
                Ok(v) => {
                    self.give_back(con);
                    return Ok(v);
                }
                Err(e) if is_reply(&e) => {
                    self.give_back(con);
                    return Err(Failure::Reply(e));
                }
                Err(_) => self.idle().clear(),
            }
        }
        let mut con = self.connect().map_err(|e| Failure::Down(e.reason()))?;
        match f(&mut con) {
            Ok(v) => {
                self.give_back(con);
                Ok(v)
            }
            Err(e) if is_reply(&e) => {
                self.give_back(con);
                Err(Failure::Reply(e))
            }
            Err(e) => Err(Failure::Down(e.reason())),
        }
    }

    fn give_back(&self, con: Connection) {
        let mut idle = self.idle();
        if idle.len() < MAX_IDLE {
            idle.push(con);
        }
    }
}

/// Whether the server itself answered with this error (so the connection is still in step).
fn is_reply(e: &RedisError) -> bool {
    matches!(
        e.kind(),
        redis::ErrorKind::Server(_) | redis::ErrorKind::Extension
    )
}

/// A [`SegmentStore`] on Redis counters. See the [module docs](self), durability first.
///
/// # Examples
/// ```no_run
/// use idmint_coord::segment::{redis::RedisStore, SegmentStore};
///
/// let store = RedisStore::new("redis://127.0.0.1:6379/")?;
/// let r = store.take("orders", 1_000)?;
/// assert_eq!(r.len(), 1_000);
/// # Ok::<(), idmint::Error>(())
/// ```
pub struct RedisStore {
    pool: RedisPool,
    prefix: String,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("server", &self.pool.client.get_connection_info().addr())
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// A store on the Redis server at `url` with key prefix `idmint:seg:`. Does not connect:
    /// the first take does. A URL that does not parse is [`Error::InvalidConfig`].
    pub fn new(url: &str) -> Result<Self> {
        Ok(RedisStore {
            pool: RedisPool::new(url)?,
            prefix: "idmint:seg:".to_owned(),
        })
    }

    /// Uses `prefix` instead of `idmint:seg:` before every key (to share a server between
    /// applications).
    pub fn with_prefix(mut self, prefix: &str) -> Self {
        prefix.clone_into(&mut self.prefix);
        self
    }

    /// Bounds one connection attempt by `connect` and one command by `io` (both at least 1 ms).
    pub fn with_timeouts(mut self, connect: Duration, io: Duration) -> Self {
        self.pool.set_timeouts(connect, io);
        self
    }

    /// The Redis key that holds `key`'s counter.
    pub fn counter_key(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }
}

impl SegmentStore for RedisStore {
    fn kind(&self) -> &'static str {
        KIND
    }

    /// Kept in the key named by the prefix alone (`idmint:seg:`), set with `SET NX` on first use.
    fn identity(&self) -> Result<u64> {
        let fresh = super::contract::random_identity()?;
        let name = &self.prefix;
        let reply = self.pool.run(|con| {
            redis::pipe()
                .atomic()
                .cmd("SET")
                .arg(name)
                .arg(fresh)
                .arg("NX")
                .ignore()
                .cmd("GET")
                .arg(name)
                .query::<(Option<String>,)>(con)
        });
        match reply {
            Ok((Some(v),)) => match v.parse::<u64>() {
                Ok(id) if id != 0 => Ok(id),
                _ => Err(Error::StoreMismatch {
                    store: KIND,
                    reason: "the identity key holds a value idmint never writes",
                }),
            },
            Ok((None,)) => Err(counter::unavailable(KIND, "identity key not set")),
            Err(f) => Err(counter::unavailable(KIND, f.reason())),
        }
    }

    fn take(&self, key: &str, step: u64) -> Result<Range> {
        let step = counter::check_take(key, step)?;
        let name = self.counter_key(key);
        let reply = self
            .pool
            .run(|con| redis::cmd("INCRBY").arg(&name).arg(step).query::<i64>(con));
        match reply {
            Ok(last) => counter::range_ending_at(KIND, last, step),
            Err(Failure::Reply(e)) if e.detail().is_some_and(|d| d.contains("overflow")) => {
                let current = self
                    .pool
                    .run(|con| redis::cmd("GET").arg(&name).query::<i64>(con))
                    .unwrap_or(i64::MAX);
                Err(counter::exhausted(current, step))
            }
            Err(f) => Err(counter::unavailable(KIND, f.reason())),
        }
    }
}
