//! The embedded default segment store: one SQLite file, shared safely by any number of threads
//! and processes on one host.
//!
//! Table `idmint_segment(biz_tag TEXT PRIMARY KEY, max_id INTEGER, step INTEGER, updated_at
//! INTEGER)` (Leaf's `leaf_alloc`), created when missing. A take is one `BEGIN IMMEDIATE`
//! transaction around one upsert that moves `max_id` and returns it, so the file's write lock
//! orders all takers. `max_id` is the last value handed out, so a key's first range starts at 1
//! (the convention of every counter store). The file runs in WAL mode with
//! `synchronous=FULL` — a take is on disk before its range is used, so not even a power loss
//! can hand the range out again.
//!
//! # Waiting for other takers, and when a file counts as unavailable
//!
//! Only one writer at a time holds the file's write lock, and a commit holds it until its
//! `fsync` returns — which on a loaded machine can take a second or more. Waiting for other
//! takers is contention, never a failure:
//!
//! - The threads of one store take turns on one connection, so they never wait for each other
//!   in SQLite's lock, only for their turn, and without a time limit: the thread whose turn it
//!   is either finishes or gives up within the busy timeout.
//! - Other processes (and other stores on the same file) are waited for in SQLite's busy
//!   handler, in short, jittered naps so every waiter has the same chance each time the lock
//!   is released. The **busy timeout** counts from the last commit another writer landed in
//!   the file (its write-ahead log changed), so it bounds how long one holder keeps the file
//!   locked without committing — not how long a taker queues behind takers that keep
//!   committing.
//!
//! A file locked past the busy timeout without a commit (a program holding a transaction
//! open, a holder paused or stuck in I/O for that long) fails the take with
//! `StoreUnavailable`, and the threads that were waiting for their turn meanwhile fail with
//! it at once instead of each waiting out the timeout again; so every take's wait for a
//! locked file is bounded by the busy timeout. Choose a busy timeout well above the longest
//! `fsync` the disk may take under load.
//!
//! The store also keeps the versioned rows of [`ShardedStore`](super::sharded::ShardedStore)
//! (table `idmint_segment_shard`) through [`ShardRows`], and the file's
//! [identity](SegmentStore::identity) and recorded shard topology in a one-row table
//! `idmint_segment_identity` (a new or recreated file gets a new identity).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use crate::reason::Reason;
use idmint::segment::Range;
use idmint::{Error, Result};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::contract::SegmentStore;
use super::counter::{self, Moved};
use super::sharded::{RowSpec, ShardRow, ShardRows};

const KIND: &str = "sqlite";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS idmint_segment (
    biz_tag    TEXT PRIMARY KEY,
    max_id     INTEGER NOT NULL,
    step       INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS idmint_segment_shard (
    biz_tag    TEXT NOT NULL,
    shard      INTEGER NOT NULL,
    shards     INTEGER NOT NULL,
    block      INTEGER NOT NULL,
    next_value INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (biz_tag, shard)
);
CREATE TABLE IF NOT EXISTS idmint_segment_identity (
    one        INTEGER PRIMARY KEY CHECK (one = 1),
    identity   INTEGER NOT NULL,
    topology   TEXT,
    created_at INTEGER NOT NULL
);";

/// Creates the file's identity on first use (keeping the one there) and returns it with the
/// shard topology recorded in the file, if any.
const IDENTITY: &str = "
INSERT INTO idmint_segment_identity (one, identity, topology, created_at) VALUES (1, ?1, NULL, ?2)
ON CONFLICT (one) DO UPDATE SET identity = identity
RETURNING identity, topology";

/// Records a shard topology unless one is recorded, while the identity is still `?1`; returns
/// the recorded one (no row: the identity changed).
const RECORD_TOPOLOGY: &str = "
UPDATE idmint_segment_identity SET topology = COALESCE(topology, ?2)
WHERE one = 1 AND identity = ?1
RETURNING topology";

/// The longest busy timeout accepted: beyond it a wait is a hang, not a wait.
pub const MAX_BUSY_TIMEOUT: Duration = Duration::from_secs(3600);

/// Moves the counter by `?2` (creating the key at `?2` on first use) and returns it; returns no
/// row when the counter would pass `i64::MAX`.
const TAKE: &str = "
INSERT INTO idmint_segment (biz_tag, max_id, step, updated_at) VALUES (?1, ?2, ?2, ?3)
ON CONFLICT (biz_tag) DO UPDATE
    SET max_id = max_id + excluded.step, step = excluded.step, updated_at = excluded.updated_at
    WHERE max_id <= 9223372036854775807 - excluded.step
RETURNING max_id";

/// How long a taker waits by default for a file that stays locked without a commit.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A [`SegmentStore`] (and [`ShardRows`] backend) on one SQLite file. See the
/// [module docs](self).
///
/// # Examples
/// ```no_run
/// use idmint_coord::segment::{sqlite::SqliteStore, SegmentStore};
///
/// let store = SqliteStore::open("/var/lib/app/segments.db")?;
/// let r = store.take("orders", 1_000)?;
/// assert_eq!(r.len(), 1_000);
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug)]
pub struct SqliteStore {
    path: PathBuf,
    busy_timeout: Duration,
    /// The store's connection, used by one thread at a time, in the order they came.
    turns: Turns,
    /// How many statements gave up on the file's lock: a thread that waited for its turn
    /// while one did gives up with it (see the [module docs](self)).
    lockouts: AtomicU64,
}

/// The threads' turns at a store's connection, first come first served: a thread waiting for
/// its turn waits for the statements of the threads before it, each of which ends or gives up
/// within the busy timeout. Served in order, a thread that takes again at once cannot overtake
/// one that waits (a plain mutex lets it, and a waiter can starve).
#[derive(Debug, Default)]
struct Turns {
    state: Mutex<TurnState>,
    next_served: Condvar,
}

#[derive(Debug, Default)]
struct TurnState {
    /// The ticket the next thread to come draws.
    next: u64,
    /// The ticket whose turn it is.
    serving: u64,
    /// The connection, while no thread uses it (none after one failed).
    conn: Option<Connection>,
}

/// A thread's turn: ends (and serves the next ticket) when dropped, whatever happened.
struct Turn<'a> {
    turns: &'a Turns,
    conn: Option<Connection>,
}

impl Turns {
    fn state(&self) -> MutexGuard<'_, TurnState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for this thread's turn; returns it with the connection, if one is open.
    fn wait(&self) -> Turn<'_> {
        let mut st = self.state();
        let ticket = st.next;
        st.next += 1;
        while st.serving != ticket {
            st = self.next_served.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        Turn {
            turns: self,
            conn: st.conn.take(),
        }
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut st = self.turns.state();
        st.conn = self.conn.take();
        st.serving += 1;
        drop(st);
        self.turns.next_served.notify_all();
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database file at `path` and its tables, with
    /// [`DEFAULT_BUSY_TIMEOUT`]. Fails with `StoreUnavailable { op: "open" }` when the file
    /// cannot be opened or set up.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with_busy_timeout(path, DEFAULT_BUSY_TIMEOUT)
    }

    /// [`open`](Self::open) with another busy timeout: the longest a take waits for the file's
    /// write lock (held by another process's take, or by anything else writing the file)
    /// while no commit lands in the file, before it fails with `StoreUnavailable` (see the
    /// [module docs](self)).
    /// A timeout above [`MAX_BUSY_TIMEOUT`] is [`Error::LimitExceeded`].
    pub fn open_with_busy_timeout(path: impl AsRef<Path>, busy_timeout: Duration) -> Result<Self> {
        if busy_timeout > MAX_BUSY_TIMEOUT {
            return Err(Error::LimitExceeded {
                what: "SQLite busy timeout (ms)",
                limit: MAX_BUSY_TIMEOUT.as_millis() as u64,
            });
        }
        let store = SqliteStore {
            path: path.as_ref().to_path_buf(),
            busy_timeout,
            turns: Turns::default(),
            lockouts: AtomicU64::new(0),
        };
        let failed = |e: rusqlite::Error| Error::StoreUnavailable {
            store: KIND,
            op: "open",
            reason: e.reason(),
        };
        let conn = store.connect().map_err(failed)?;
        conn.execute_batch(SCHEMA).map_err(failed)?;
        store.turns.state().conn = Some(conn);
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn connect(&self) -> rusqlite::Result<Connection> {
        let mut conn = Connection::open(&self.path)?;
        // SQLite's own (absolute) name of the file: the log is that name with `-wal`.
        let wal = PathBuf::from(format!("{}-wal", conn.path().unwrap_or_default()));
        conn.busy_handler(Some(patient(self.busy_timeout, wal.clone())))?;
        // WAL lets readers and the one writer overlap. Switching a new file to it takes an
        // exclusive lock, and SQLite can report a conflict there without waiting in the busy
        // handler (several processes opening a new file at once): retry within the busy
        // timeout, which (as in the busy handler) restarts whenever another writer changed the
        // file.
        let main = PathBuf::from(conn.path().unwrap_or_default());
        let changes = |wal: &Path| (log_state(&main), log_state(wal));
        let mut seen = changes(&wal);
        let mut since = Instant::now();
        loop {
            match conn.pragma_update(None, "journal_mode", "WAL") {
                Ok(()) => break,
                Err(e)
                    if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                        && since.elapsed() < self.busy_timeout =>
                {
                    std::thread::sleep(Duration::from_millis(1));
                    let now = changes(&wal);
                    if now != seen {
                        (seen, since) = (now, Instant::now());
                    }
                }
                Err(e) => return Err(e),
            }
        }
        conn.pragma_update(None, "synchronous", "FULL")?;
        Ok(conn)
    }

    /// Runs `f` on the store's connection when it is this thread's turn (opening a new
    /// connection if the last one failed). Any error becomes `StoreUnavailable`; a connection
    /// that failed for another reason than a lock held too long is closed, so the next call
    /// starts afresh. A thread that waited for its turn while another one gave up on the
    /// file's lock gives up too, without trying.
    fn with_conn<T>(
        &self,
        op: &'static str,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
    ) -> Result<T> {
        let failed = |e: rusqlite::Error| Error::StoreUnavailable {
            store: KIND,
            op,
            reason: e.reason(),
        };
        let lockouts = self.lockouts.load(Ordering::Acquire);
        let mut turn = self.turns.wait();
        if self.lockouts.load(Ordering::Acquire) != lockouts {
            return Err(Error::StoreUnavailable {
                store: KIND,
                op,
                reason: LOCKED,
            });
        }
        let started = Instant::now();
        let result = match turn.conn.as_mut() {
            Some(conn) => f(conn),
            None => self.connect().and_then(|mut conn| {
                let r = f(&mut conn);
                turn.conn = Some(conn);
                r
            }),
        };
        result.map_err(|e| {
            if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) {
                // Waited the whole busy timeout: the file is locked, not just contended.
                if started.elapsed() >= self.busy_timeout {
                    self.lockouts.fetch_add(1, Ordering::AcqRel);
                }
            } else {
                turn.conn = None;
            }
            failed(e)
        })
    }
}

/// Why a take failed when the thread before it found the file locked past the busy timeout.
const LOCKED: &str = "database is locked";

/// A busy handler that retries until the file has been locked for `timeout` with no commit
/// landing in its write-ahead log `wal`, in naps of about a millisecond. SQLite's default
/// handler backs off to 100 ms naps, and a waiter that has waited long then keeps losing the
/// lock to fresher waiters that poll more often; with short, jittered naps every waiter has
/// the same chance each time the lock is released. A commit by another writer restarts the
/// clock: the lock is changing hands, which is contention, not an outage.
fn patient(timeout: Duration, wal: PathBuf) -> impl FnMut(i32) -> bool + Send + 'static {
    let mut started = Instant::now();
    let mut seen = log_state(&wal);
    let mut jitter = u64::from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos()),
    ) | 1;
    move |count| {
        let now = log_state(&wal);
        if count == 0 || now != seen {
            started = Instant::now();
            seen = now;
        }
        if started.elapsed() >= timeout {
            return false;
        }
        // xorshift: cheap per-connection noise, so waiters do not poll in lockstep.
        jitter ^= jitter << 13;
        jitter ^= jitter >> 7;
        jitter ^= jitter << 17;
        std::thread::sleep(Duration::from_micros(500 + jitter % 1000));
        true
    }
}

/// A file's length and modification time. Every commit appends to the write-ahead log, or
/// rewrites it from the start once it was checkpointed, and either changes this.
fn log_state(wal: &Path) -> Option<(u64, Option<SystemTime>)> {
    let meta = std::fs::metadata(wal).ok()?;
    Some((meta.len(), meta.modified().ok()))
}

fn foreign_identity() -> Error {
    Error::StoreMismatch {
        store: KIND,
        reason: "the identity row holds a value idmint never writes",
    }
}

impl SegmentStore for SqliteStore {
    fn kind(&self) -> &'static str {
        KIND
    }

    /// Kept in the file (table `idmint_segment_identity`).
    fn identity(&self) -> Result<u64> {
        Ok(ShardRows::topology(self)?.0)
    }

    fn take(&self, key: &str, step: u64) -> Result<Range> {
        let step = counter::check_take(key, step)?;
        let moved = self.with_conn("take", |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let last = tx
                .query_row(TAKE, params![key, step, counter::unix_ms()], |r| {
                    r.get::<_, i64>(0)
                })
                .optional()?;
            let moved = match last {
                Some(last) => Moved::To(last),
                None => Moved::Full(tx.query_row(
                    "SELECT max_id FROM idmint_segment WHERE biz_tag = ?1",
                    [key],
                    |r| r.get::<_, i64>(0),
                )?),
            };
            tx.commit()?;
            Ok(moved)
        })?;
        moved.range(KIND, step)
    }
}

impl ShardRows for SqliteStore {
    fn kind(&self) -> &'static str {
        KIND
    }

    /// The identity row (created on first use) and the shard topology recorded in it.
    fn topology(&self) -> Result<(u64, Option<String>)> {
        let fresh = super::contract::random_identity()? as i64;
        let (id, topology) = self.with_conn("identity", |conn| {
            conn.query_row(IDENTITY, params![fresh, counter::unix_ms()], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?))
            })
        })?;
        if id == 0 {
            return Err(foreign_identity());
        }
        Ok((id as u64, topology))
    }

    fn record_topology(&self, identity: u64, topology: &str) -> Result<Option<String>> {
        self.with_conn("identity", |conn| {
            conn.query_row(RECORD_TOPOLOGY, params![identity as i64, topology], |r| {
                r.get::<_, Option<String>>(0)
            })
            .optional()
        })
        .map(Option::flatten)
    }

    fn load_row(&self, key: &str, spec: &RowSpec) -> Result<ShardRow> {
        let initial = i64::try_from(spec.initial()).map_err(|_| Error::InvalidConfig {
            reason: "shards × block exceeds the 63-bit value space",
        })?;
        let block = i64::try_from(spec.block).map_err(|_| Error::InvalidConfig {
            reason: "sharded block exceeds the 63-bit value space",
        })?;
        let row = self.with_conn("take", |conn| {
            conn.execute(
                "INSERT INTO idmint_segment_shard
                     (biz_tag, shard, shards, block, next_value, version, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6)
                 ON CONFLICT (biz_tag, shard) DO NOTHING",
                params![
                    key,
                    spec.shard,
                    spec.shards,
                    block,
                    initial,
                    counter::unix_ms()
                ],
            )?;
            conn.query_row(
                "SELECT next_value, version, shards, block FROM idmint_segment_shard
                 WHERE biz_tag = ?1 AND shard = ?2",
                params![key, spec.shard],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, i64>(3)?,
                    ))
                },
            )
        })?;
        ShardRow::from_sql(row)
    }

    fn swap_row(&self, key: &str, shard: u32, version: u64, next: u64) -> Result<bool> {
        let (Ok(version), Ok(next)) = (i64::try_from(version), i64::try_from(next)) else {
            return Err(counter::unavailable(KIND, "value out of range"));
        };
        let changed = self.with_conn("take", |conn| {
            conn.execute(
                "UPDATE idmint_segment_shard
                 SET next_value = ?1, version = version + 1, updated_at = ?2
                 WHERE biz_tag = ?3 AND shard = ?4 AND version = ?5",
                params![next, counter::unix_ms(), key, shard, version],
            )
        })?;
        Ok(changed == 1)
    }
}
