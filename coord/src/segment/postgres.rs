//! The PostgreSQL segment store: Leaf's segment table, one round trip per range.
//!
//! Table `idmint_segment(biz_tag TEXT PRIMARY KEY, max_id BIGINT, step BIGINT, updated_at
//! TIMESTAMPTZ)`, created when missing. A take is one statement,
//!
//! ```sql
//! INSERT INTO idmint_segment AS t (biz_tag, max_id, step, updated_at) VALUES ($1, $2, $2, now())
//! ON CONFLICT (biz_tag) DO UPDATE SET max_id = t.max_id + EXCLUDED.step, ...
//! RETURNING max_id
//! ```
//!
//! sent with its parameter types (no separate prepare), so the first use of a key costs the
//! same single round trip as every later one. The row lock orders concurrent takers; `max_id`
//! is the last value handed out, so a key's first range starts at 1.
//!
//! Failure handling: connections come from a small pool. Every call has a client-side deadline
//! (see the crate's `pg` module, `coord/src/pg.rs`): opening a connection (TCP, TLS, startup,
//! authentication, schema) within `connect_timeout` (default [`DEFAULT_CONNECT_TIMEOUT`]), and
//! each statement within `statement_timeout` (default [`DEFAULT_STATEMENT_TIMEOUT`]) plus a
//! quarter of it (at most a second), so the server's own `statement_timeout`/`lock_timeout`
//! report first when the server is alive. A dead, unreachable *or stopped* server (SIGSTOP,
//! blocked I/O: the kernel still acknowledges packets) therefore fails a take with
//! `StoreUnavailable { store: "postgres", op: "take" }` within `connect_timeout` + 1.25 ×
//! `statement_timeout` per attempt, and the next take connects again. A pooled connection that
//! turns out dead is retried once on a fresh connection; when the first attempt had reached the
//! server its range is skipped, never handed out twice. TLS: libpq's `sslmode` and
//! `sslrootcert`, as that module describes.
//!
//! The store also keeps the versioned rows of [`ShardedStore`](super::sharded::ShardedStore)
//! (table `idmint_segment_shard`) through [`ShardRows`], and the database's
//! [identity](SegmentStore::identity) and recorded shard topology in a one-row table
//! `idmint_segment_identity`.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use crate::pg::{self, Conn, Pg};
use crate::reason::Reason;
use idmint::segment::Range;
use idmint::{Error, Result};
use tokio_postgres::types::{ToSql, Type};

use super::contract::SegmentStore;
use super::counter::{self, Moved};
use super::sharded::{RowSpec, ShardRow, ShardRows};

const KIND: &str = "postgres";

/// Default bound on one connection attempt.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// Default bound on one statement (server side) and on unacknowledged writes (client side).
pub const DEFAULT_STATEMENT_TIMEOUT: Duration = Duration::from_secs(5);

/// Idle connections kept for reuse; more concurrent takers open more, then close the extras.
const MAX_IDLE: usize = 8;

/// Creates the tables; the advisory lock serialises first connections of many processes,
/// which `CREATE TABLE IF NOT EXISTS` alone does not (it can fail on the catalog's unique
/// index when two sessions race).
const SCHEMA: &str = "
BEGIN;
SELECT pg_advisory_xact_lock(7307165520143452271);
CREATE TABLE IF NOT EXISTS idmint_segment (
    biz_tag    TEXT PRIMARY KEY,
    max_id     BIGINT NOT NULL,
    step       BIGINT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS idmint_segment_shard (
    biz_tag    TEXT NOT NULL,
    shard      BIGINT NOT NULL,
    shards     BIGINT NOT NULL,
    block      BIGINT NOT NULL,
    next_value BIGINT NOT NULL,
    version    BIGINT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (biz_tag, shard)
);
COMMIT;";

const TAKE: &str = "
INSERT INTO idmint_segment AS t (biz_tag, max_id, step, updated_at) VALUES ($1, $2, $2, now())
ON CONFLICT (biz_tag) DO UPDATE
    SET max_id = t.max_id + EXCLUDED.step, step = EXCLUDED.step, updated_at = now()
    WHERE t.max_id <= 9223372036854775807 - EXCLUDED.step
RETURNING max_id";

/// Inserts the row if missing and returns it in one statement. When another session inserted
/// it concurrently, neither half sees it (same snapshot) and the caller asks again.
const LOAD_ROW: &str = "
WITH ins AS (
    INSERT INTO idmint_segment_shard (biz_tag, shard, shards, block, next_value, version)
    VALUES ($1, $2, $3, $4, $5, 0)
    ON CONFLICT (biz_tag, shard) DO NOTHING
    RETURNING next_value, version, shards, block
)
SELECT next_value, version, shards, block FROM ins
UNION ALL
SELECT next_value, version, shards, block FROM idmint_segment_shard
WHERE biz_tag = $1 AND shard = $2";

const SWAP_ROW: &str = "
UPDATE idmint_segment_shard SET next_value = $1, version = version + 1, updated_at = now()
WHERE biz_tag = $2 AND shard = $3 AND version = $4
RETURNING version";

/// The database's identity (created on first use, kept after) and recorded shard topology:
/// the table (created here rather than in `SCHEMA`, under the same advisory lock), then one
/// upsert that returns the row. Sent by `PostgresStore::topology`, rarely (once per
/// allocator or sharded store).
const IDENTITY: [&str; 2] = [
    "BEGIN;
SELECT pg_advisory_xact_lock(7307165520143452271);
CREATE TABLE IF NOT EXISTS idmint_segment_identity (
    one        SMALLINT PRIMARY KEY CHECK (one = 1),
    identity   BIGINT NOT NULL,
    topology   TEXT,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
COMMIT;",
    "INSERT INTO idmint_segment_identity AS t (one, identity) VALUES (1, $1)
ON CONFLICT (one) DO UPDATE SET identity = t.identity
RETURNING identity, topology",
];

/// Records a shard topology unless one is recorded, while the identity is still `$1`.
const RECORD_TOPOLOGY: &str = "
UPDATE idmint_segment_identity SET topology = COALESCE(topology, $2)
WHERE one = 1 AND identity = $1
RETURNING topology";

/// A [`SegmentStore`] (and [`ShardRows`] backend) on PostgreSQL. See the [module docs](self).
///
/// # Examples
/// ```no_run
/// use idmint_coord::segment::{postgres::PostgresStore, SegmentStore};
///
/// let store = PostgresStore::new("postgres://app@db.internal/app?connect_timeout=2")?;
/// let r = store.take("orders", 1_000)?;
/// assert_eq!(r.len(), 1_000);
/// # Ok::<(), idmint::Error>(())
/// ```
pub struct PostgresStore {
    pg: Pg,
    connect_timeout: Duration,
    statement_timeout: Duration,
    idle: Mutex<Vec<Conn>>,
    schema_ready: AtomicBool,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("server", &self.pg)
            .finish_non_exhaustive()
    }
}

type PgError = tokio_postgres::Error;

/// A take's work on one connection: it hands the connection back with its result.
type Attempt<T> = (Conn, std::result::Result<T, PgError>);

impl PostgresStore {
    /// A store for a `postgres://` / `postgresql://` URL or a `key=value` connection string,
    /// with libpq's `sslmode` and `sslrootcert`. Does not connect: the first take does, so a
    /// process can start while the server is down. Unset timeouts get the defaults above. A
    /// string that does not parse, or an unreadable `sslrootcert`, is [`Error::InvalidConfig`].
    pub fn new(url: &str) -> Result<Self> {
        Self::with_target(pg::parse(url)?)
    }

    /// A store for a ready [`tokio_postgres::Config`] (its `ssl_mode` as `sslmode`, the
    /// system's roots); unset timeouts get the defaults above.
    pub fn from_config(config: tokio_postgres::Config) -> Result<Self> {
        use tokio_postgres::config::SslMode as Wire;
        let ssl = match config.get_ssl_mode() {
            Wire::Disable => pg::SslMode::Disable,
            Wire::Require => pg::SslMode::Require,
            _ => pg::SslMode::Prefer,
        };
        Self::with_target(pg::Target {
            config,
            ssl,
            root: None,
        })
    }

    fn with_target(mut target: pg::Target) -> Result<Self> {
        let config = &mut target.config;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(DEFAULT_CONNECT_TIMEOUT);
        }
        if config.get_tcp_user_timeout().is_none() {
            config.tcp_user_timeout(DEFAULT_STATEMENT_TIMEOUT);
        }
        let connect_timeout = config
            .get_connect_timeout()
            .copied()
            .unwrap_or(DEFAULT_CONNECT_TIMEOUT);
        Ok(PostgresStore {
            pg: Pg::new(target)?,
            connect_timeout,
            statement_timeout: DEFAULT_STATEMENT_TIMEOUT,
            idle: Mutex::new(Vec::new()),
            schema_ready: AtomicBool::new(false),
        })
    }

    /// Sets the server-side `statement_timeout` and `lock_timeout` of this store's sessions
    /// (how long a take may wait for a row lock or a slow server before failing), and with it
    /// the client-side deadline of each statement.
    pub fn with_statement_timeout(mut self, timeout: Duration) -> Self {
        self.statement_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// The client-side bound of one statement: the server's timeout, plus a grace so that a
    /// live server reports its own timeout first.
    fn statement_limit(&self) -> Duration {
        let t = self.statement_timeout;
        t + (t / 4).clamp(Duration::from_millis(1), Duration::from_secs(1))
    }

    fn idle(&self) -> MutexGuard<'_, Vec<Conn>> {
        self.idle.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new connection with the session settings and the schema, within `connect_timeout`.
    fn connect(&self) -> Result<Conn> {
        let ms = self.statement_timeout.as_millis();
        let (pg, ready) = (&self.pg, &self.schema_ready);
        let opened = self.pg.block(self.connect_timeout, async move {
            let conn = pg.connect().await?;
            conn.client
                .batch_execute(&format!(
                    "SET statement_timeout = {ms}; SET lock_timeout = {ms};"
                ))
                .await?;
            if !ready.load(Ordering::Acquire) {
                conn.client.batch_execute(SCHEMA).await?;
                ready.store(true, Ordering::Release);
            }
            Ok::<_, PgError>(conn)
        });
        match opened {
            None => Err(counter::unavailable(KIND, pg::TIMED_OUT)),
            Some(Err(e)) => Err(counter::unavailable(KIND, e.reason())),
            Some(Ok(c)) => Ok(c),
        }
    }

    /// Runs `f` on `conn` within the statement limit: `None` when it timed out (the
    /// connection is gone then).
    fn attempt<T, F, Fut>(&self, conn: Conn, f: &F) -> Option<Attempt<T>>
    where
        T: Send,
        F: Fn(Conn) -> Fut + Sync,
        Fut: Future<Output = Attempt<T>> + Send,
    {
        self.pg.block(self.statement_limit(), f(conn))
    }

    /// Runs `f` on a pooled connection, or a fresh one. A pooled connection that fails with
    /// anything but a server-reported error (or times out) is presumed dead with all its idle
    /// siblings (the server went away): the pool is emptied and `f` runs once more on a fresh
    /// connection.
    fn with_client<T, F, Fut>(&self, f: F) -> Result<T>
    where
        T: Send,
        F: Fn(Conn) -> Fut + Sync,
        Fut: Future<Output = Attempt<T>> + Send,
    {
        let pooled = self.idle().pop();
        if let Some(conn) = pooled {
            match self.attempt(conn, &f) {
                Some((conn, Ok(v))) => {
                    self.give_back(conn);
                    return Ok(v);
                }
                Some((conn, Err(e))) if e.as_db_error().is_some() => {
                    self.give_back(conn);
                    return Err(counter::unavailable(KIND, e.reason()));
                }
                _ => self.idle().clear(),
            }
        }
        let conn = self.connect()?;
        match self.attempt(conn, &f) {
            Some((conn, Ok(v))) => {
                self.give_back(conn);
                Ok(v)
            }
            Some((conn, Err(e))) => {
                if e.as_db_error().is_some() {
                    self.give_back(conn);
                }
                Err(counter::unavailable(KIND, e.reason()))
            }
            None => Err(counter::unavailable(KIND, pg::TIMED_OUT)),
        }
    }

    fn give_back(&self, conn: Conn) {
        if conn.client.is_closed() {
            return;
        }
        let mut idle = self.idle();
        if idle.len() < MAX_IDLE {
            idle.push(conn);
        }
    }
}

/// One typed query on a connection, handed back with its rows.
async fn typed(
    conn: Conn,
    sql: &str,
    params: &[(&(dyn ToSql + Sync), Type)],
) -> Attempt<Vec<tokio_postgres::Row>> {
    let r = conn.client.query_typed(sql, params).await;
    (conn, r)
}

impl SegmentStore for PostgresStore {
    fn kind(&self) -> &'static str {
        KIND
    }

    /// Kept in the database (table `idmint_segment_identity`).
    fn identity(&self) -> Result<u64> {
        Ok(ShardRows::topology(self)?.0)
    }

    fn take(&self, key: &str, step: u64) -> Result<Range> {
        let step = counter::check_take(key, step)?;
        let moved = self.with_client(|conn| async move {
            let r = async {
                let c = &conn.client;
                let params: [(&(dyn ToSql + Sync), Type); 2] =
                    [(&key, Type::TEXT), (&step, Type::INT8)];
                Ok(match c.query_typed_opt(TAKE, &params).await? {
                    Some(row) => Moved::To(row.try_get(0)?),
                    None => Moved::Full(
                        c.query_typed_one(
                            "SELECT max_id FROM idmint_segment WHERE biz_tag = $1",
                            &[(&key, Type::TEXT)],
                        )
                        .await?
                        .try_get(0)?,
                    ),
                })
            }
            .await;
            (conn, r)
        })?;
        moved.range(KIND, step)
    }
}

impl ShardRows for PostgresStore {
    fn kind(&self) -> &'static str {
        KIND
    }

    /// The identity row (created on first use) and the shard topology recorded in it.
    fn topology(&self) -> Result<(u64, Option<String>)> {
        let fresh = super::contract::random_identity()? as i64;
        let row = self.with_client(|conn| async move {
            let r = async {
                let c = &conn.client;
                if let Err(e) = c.batch_execute(IDENTITY[0]).await {
                    let _ = c.batch_execute("ROLLBACK").await;
                    return Err(e);
                }
                let row = c
                    .query_typed_one(IDENTITY[1], &[(&fresh, Type::INT8)])
                    .await?;
                Ok((
                    row.try_get::<_, i64>(0)?,
                    row.try_get::<_, Option<String>>(1)?,
                ))
            }
            .await;
            (conn, r)
        })?;
        match row {
            (0, _) => Err(counter::unavailable(KIND, "identity row holds 0")),
            (id, topology) => Ok((id as u64, topology)),
        }
    }

    fn record_topology(&self, identity: u64, topology: &str) -> Result<Option<String>> {
        let id = identity as i64;
        let params: [(&(dyn ToSql + Sync), Type); 2] = [(&id, Type::INT8), (&topology, Type::TEXT)];
        let rows = self.with_client(|conn| typed(conn, RECORD_TOPOLOGY, &params))?;
        match rows.first() {
            Some(r) => r
                .try_get::<_, Option<String>>(0)
                .map_err(|e| counter::unavailable(KIND, e.reason())),
            None => Ok(None),
        }
    }

    fn load_row(&self, key: &str, spec: &RowSpec) -> Result<ShardRow> {
        let (Ok(initial), Ok(block)) = (i64::try_from(spec.initial()), i64::try_from(spec.block))
        else {
            return Err(Error::InvalidConfig {
                reason: "shards × block exceeds the 63-bit value space",
            });
        };
        let (shard, shards) = (i64::from(spec.shard), i64::from(spec.shards));
        let params: [(&(dyn ToSql + Sync), Type); 5] = [
            (&key, Type::TEXT),
            (&shard, Type::INT8),
            (&shards, Type::INT8),
            (&block, Type::INT8),
            (&initial, Type::INT8),
        ];
        for _ in 0..3 {
            let rows = self.with_client(|conn| typed(conn, LOAD_ROW, &params))?;
            if let Some(row) = rows.first() {
                let read = (
                    row.try_get::<_, i64>(0),
                    row.try_get::<_, i64>(1),
                    row.try_get::<_, i64>(2),
                    row.try_get::<_, i64>(3),
                );
                let (Ok(a), Ok(b), Ok(c), Ok(d)) = read else {
                    return Err(counter::unavailable(KIND, "unexpected row"));
                };
                return ShardRow::from_sql((a, b, c, d));
            }
        }
        Err(counter::unavailable(KIND, "row not found"))
    }

    fn swap_row(&self, key: &str, shard: u32, version: u64, next: u64) -> Result<bool> {
        let (Ok(version), Ok(next)) = (i64::try_from(version), i64::try_from(next)) else {
            return Err(counter::unavailable(KIND, "value out of range"));
        };
        let shard = i64::from(shard);
        let params: [(&(dyn ToSql + Sync), Type); 4] = [
            (&next, Type::INT8),
            (&key, Type::TEXT),
            (&shard, Type::INT8),
            (&version, Type::INT8),
        ];
        let rows = self.with_client(|conn| typed(conn, SWAP_ROW, &params))?;
        Ok(!rows.is_empty())
    }
}
