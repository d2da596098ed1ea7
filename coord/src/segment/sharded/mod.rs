//! TDDL's sharded records: one key's values split over `N` rows, possibly in several databases,
//! so no single row (or server) is the hot spot or the single point of failure.
//!
//! Row `i` of a key starts at `1 + i·block` and every take from it advances it by `N·block`, so
//! row `i` hands out the blocks `[1 + (i + k·N)·block, 1 + (i + k·N + 1)·block)` for
//! `k = 0, 1, 2, …` — the rows interleave and never overlap. A take reads the row and moves it
//! with an optimistic compare-and-set on a version column
//! (`UPDATE … SET next_value = ?, version = version + 1 WHERE … AND version = ?`); a lost race
//! re-reads and retries, a row whose store fails is skipped for the next one. Contention
//! never fails a take by default: the threads of one store claim rows in the order they came,
//! and every lost race is another taker's success (see
//! [`with_contention_timeout`](ShardedStore::with_contention_timeout) to bound the wait).
//!
//! The rows live in the SQL stores through [`ShardRows`] ([`SqliteStore`] and [`PostgresStore`]
//! implement it on a second table, `idmint_segment_shard`): give [`ShardedStore`] one backend
//! for all rows in one database, or several to spread rows `i ≡ b (mod backends)` over them.
//!
//! When to use it instead of a plain counter store: when one row's write rate or one server's
//! availability limits you. The price is that ranges of one key are no longer handed out in
//! ascending order across rows (trend-increasing only), every range has the fixed size
//! `block`, and `N` and `block` can never change for an existing key — both are recorded in
//! the rows and checked on every read, and a mismatch is [`Error::InvalidConfig`].
//!
//! # The backends are recorded, and checked before use
//!
//! Which backend holds row `i` follows from the list of backends alone, so adding, removing or
//! reordering backends would move rows to databases where they do not exist yet — where they
//! start over and repeat values — and a backend that lost its data would do the same. So the
//! set's **topology** — the shard count and the [identity](SegmentStore::identity) of every
//! backend, in order — is recorded in every backend (next to its identity), and a store checks
//! each backend before it uses its rows (on the first take, then once for a backend that was
//! down): the backend's record must name this configuration, with this backend at its place.
//! Anything else is [`Error::StoreMismatch`] for every take — nothing is handed out:
//!
//! - backends added or removed, or another shard count: the record has another shape;
//! - backends reordered, or one replaced by another database: a backend sits at a place the
//!   record gives to another identity;
//! - a backend that lost its data (a new file, a restored dump without the identity): it has
//!   a new identity, which the other backends' record does not name.
//!
//! A topology is recorded only by a store that sees **every** backend reachable and none
//! holding a record (a new set, or a set used before records existed: its configuration then
//! is taken as the truth — do not change the set in the same step as that upgrade). Recording
//! is one write per backend, so a failure part way leaves some backends without a record; the
//! next store that checks one of those writes the record of the others into it, provided the
//! backend still has the identity that record names. Backends that are down when the set is
//! first used keep the set from being recorded (takes fail with `StoreUnavailable` until they
//! are back); later, a backend that is down is simply checked when it returns.
//!
//! What the operator does on a mismatch: go back to the recorded configuration. A set cannot
//! be resized or reordered in place; move keys to a new set (new databases, or new `biz_tag`s)
//! whose values start above every value the old one handed out. A backend that lost its data
//! cannot rejoin its set: its rows are gone, so its values would repeat. With a single backend,
//! or when every backend lost its data, nothing is left that remembers the set, and it starts
//! over like any store that lost its data. Nor can a database be told apart whose rows were
//! deleted while its identity row (table `idmint_segment_identity`) was kept or restored: keep
//! the two together. A shard row that is found below a value this store saw it reach (its
//! database lost data while it ran) is refused the same way.
//!
//! [`SqliteStore`]: super::sqlite::SqliteStore
//! [`PostgresStore`]: super::postgres::PostgresStore

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

use idmint::segment::Range;
use idmint::{Error, Result};

use super::contract::SegmentStore;
use super::counter;

/// Most rows per key: the store keeps a lock and a hint per row, and every take a flag per row.
pub const MAX_SHARDS: u32 = 1024;

/// Most row hints kept (keys × shards); beyond, the hints are dropped and rebuilt by reads.
const MAX_HINTS: usize = 1 << 20;

const TOPOLOGY_TAG: &str = "idmint-shards v1";

/// Longest topology record read from a backend (`MAX_SHARDS` backends of 17 characters).
const MAX_TOPOLOGY_BYTES: usize = 64 + 17 * MAX_SHARDS as usize;

/// Where a row sits in its key's sharding, and the configuration it must have been created with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowSpec {
    /// The row's index, `0..shards`.
    pub shard: u32,
    /// How many rows the key has.
    pub shards: u32,
    /// How many values one take from a row hands out.
    pub block: u64,
}

impl RowSpec {
    /// The row's first value, `1 + shard·block`; what a missing row is created with.
    pub fn initial(&self) -> u64 {
        1 + u64::from(self.shard) * self.block
    }
}

/// One row as read from its store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardRow {
    /// The first value of the row's next block.
    pub next: u64,
    /// The compare-and-set version; every write bumps it.
    pub version: u64,
    /// The shard count the row was created with.
    pub shards: u32,
    /// The block size the row was created with.
    pub block: u64,
}

impl ShardRow {
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    /// Checks a row as read from a SQL table `(next_value, version, shards, block)`; anything
    /// negative or out of range was not written by idmint.
    pub(crate) fn from_sql((next, version, shards, block): (i64, i64, i64, i64)) -> Result<Self> {
        match (
            u64::try_from(next),
            u64::try_from(version),
            u32::try_from(shards),
            u64::try_from(block),
        ) {
            (Ok(next), Ok(version), Ok(shards), Ok(block)) => Ok(ShardRow {
                next,
                version,
                shards,
                block,
            }),
            _ => Err(Error::InvalidConfig {
                reason: "a sharded segment row holds values idmint never writes",
            }),
        }
    }
}

/// A table of versioned rows, one per (key, shard): what a SQL store offers [`ShardedStore`].
///
/// Every call is a single statement (or a read and an idempotent insert), so a backend needs no
/// locking of its own beyond its connection handling.
pub trait ShardRows: Send + Sync {
    /// The engine's name in errors (`sqlite`, `postgres`).
    fn kind(&self) -> &'static str;

    /// The database's [identity](SegmentStore::identity) (created on first use) and the shard
    /// topology recorded in it, if any.
    fn topology(&self) -> Result<(u64, Option<String>)>;

    /// Records `topology` unless the database holds one already, provided its identity is
    /// still `identity`; returns the topology it holds then (`topology`, or the one that was
    /// there first), or `None` when its identity is no longer `identity`.
    fn record_topology(&self, identity: u64, topology: &str) -> Result<Option<String>>;

    /// Reads the row `spec.shard` of `key`, creating it at [`RowSpec::initial`] with version 0
    /// (and `spec`'s shard count and block recorded) when it does not exist yet.
    fn load_row(&self, key: &str, spec: &RowSpec) -> Result<ShardRow>;

    /// Sets the row's next value to `next` and bumps its version, only if its version is still
    /// `version`. `Ok(false)` means another taker moved the row first.
    fn swap_row(&self, key: &str, shard: u32, version: u64, next: u64) -> Result<bool>;
}

/// What this store last knew of a row: where it was, and whether that can be used without a
/// read (a lost race or a failure makes it a floor only — rows never move back).
#[derive(Debug, Clone, Copy)]
struct Hint {
    next: u64,
    version: u64,
    current: bool,
}

/// Per key, per row: the row's [`Hint`].
type RowHints = HashMap<String, Vec<Option<Hint>>>;

/// The recorded layout of a shard set: the shard count and its backends' identities in order.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Topology {
    shards: u32,
    backends: Vec<u64>,
}

impl Topology {
    fn text(&self) -> String {
        let ids: Vec<String> = self
            .backends
            .iter()
            .map(|id| format!("{id:016x}"))
            .collect();
        format!(
            "{TOPOLOGY_TAG} shards={} backends={}",
            self.shards,
            ids.join(",")
        )
    }

    /// Parses a record; only the exact text [`text`](Self::text) writes is accepted.
    fn parse(text: &str) -> Option<Topology> {
        if text.len() > MAX_TOPOLOGY_BYTES {
            return None;
        }
        let rest = text.strip_prefix(TOPOLOGY_TAG)?.strip_prefix(" shards=")?;
        let (shards, ids) = rest.split_once(" backends=")?;
        let t = Topology {
            shards: shards.parse().ok()?,
            backends: ids
                .split(',')
                .map(|h| u64::from_str_radix(h, 16).ok())
                .collect::<Option<_>>()?,
        };
        (t.text() == text).then_some(t)
    }
}

/// What the checks of the backends found so far.
#[derive(Debug)]
struct TopologyState {
    /// The record this configuration matches, once a backend showed it.
    record: Option<Topology>,
    /// Per backend, the mismatch found, if any (it stays: nothing about it will change).
    refused: Vec<Option<Error>>,
}

fn mismatch(reason: &'static str) -> Error {
    Error::StoreMismatch {
        store: "sharded store",
        reason,
    }
}

const RESHAPED: &str = "a backend records another shard count or another number of backends \
     (backends added or removed?); go back to the recorded configuration";
const MOVED: &str = "a backend is not the database the recorded topology puts at its place \
     (backends reordered or replaced?); go back to the recorded order";
const LOST: &str = "a backend's identity is not the one the recorded topology names: it lost \
     its data or was replaced, and its rows would repeat values";
const DISAGREE: &str = "the backends record different topologies";
const UNREADABLE: &str = "a backend's topology record is not one idmint writes";
const WENT_BACK: &str = "a shard row went back below a value it had reached: its database \
     lost data";

/// The threads of a store waiting to claim a row, first come first served: only the first in
/// line claims. A thread that claims a row again at once after a take (or after a row that
/// failed it) goes to the back, so it cannot keep a waiting thread from ever getting a row.
#[derive(Debug, Default)]
struct Line {
    waiting: Mutex<VecDeque<u64>>,
    tickets: AtomicU64,
}

/// A thread's place in the [`Line`]; leaves it when dropped.
struct Place<'a> {
    line: &'a Line,
    ticket: u64,
}

impl Line {
    fn waiting(&self) -> MutexGuard<'_, VecDeque<u64>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn join(&self) -> Place<'_> {
        let ticket = self.tickets.fetch_add(1, Ordering::Relaxed);
        self.waiting().push_back(ticket);
        Place { line: self, ticket }
    }
}

impl Place<'_> {
    fn first(&self) -> bool {
        self.line.waiting().front() == Some(&self.ticket)
    }
}

impl Drop for Place<'_> {
    fn drop(&mut self) {
        let mut waiting = self.line.waiting();
        if let Some(i) = waiting.iter().position(|t| *t == self.ticket) {
            waiting.remove(i);
        }
    }
}

/// How long takes skip the rows of a backend after it failed, instead of each paying for
/// its timeout again; then one take tries it again.
pub const SKIP_FAILED_BACKEND: Duration = Duration::from_millis(500);

/// How often one take retries a row after losing the compare-and-set before moving on to the
/// next row; every loss means another taker succeeded, so this only bounds one call's latency.
const CONFLICTS_PER_ROW: usize = 4;

/// A [`SegmentStore`] over `shards` versioned rows per key (TDDL's scheme). See the
/// [module docs](self).
///
/// # Examples
/// ```no_run
/// # #[cfg(feature = "sqlite")] {
/// use std::sync::Arc;
/// use idmint_coord::segment::{sharded::ShardedStore, sqlite::SqliteStore, SegmentStore};
///
/// let a = Arc::new(SqliteStore::open("/var/lib/app/ids-a.db")?);
/// let b = Arc::new(SqliteStore::open("/var/lib/app/ids-b.db")?);
/// // 8 rows per key, rows 0,2,4,6 in a and 1,3,5,7 in b; 1,000 values per take.
/// let store = ShardedStore::new(vec![a, b], 8, 1_000)?;
/// let r = store.take("orders", 1_000)?;
/// assert_eq!(r.len(), 1_000);
/// # }
/// # Ok::<(), idmint::Error>(())
/// ```
pub struct ShardedStore {
    backends: Vec<Arc<dyn ShardRows>>,
    shards: u32,
    block: u64,
    salt: u64,
    /// Last known state of the rows this store moved: a hint that saves the read before the
    /// compare-and-set; a stale hint only costs a failed swap and a re-read.
    known: Mutex<RowHints>,
    /// One lock per row index: threads of this process take turns on a row instead of racing.
    turns: Vec<Mutex<()>>,
    /// The threads waiting to claim a row, in the order they came.
    line: Line,
    /// Bound on one take's retries under contention, if the caller set one.
    contention_timeout: Option<Duration>,
    /// Per backend: when it last failed (ms after `born`, 0: never).
    failed_at: Vec<AtomicU64>,
    born: Instant,
    /// Per backend: checked against the recorded topology (its rows may be used).
    verified: Vec<AtomicBool>,
    /// Per backend: how many checks failed (a thread that waited for a failing check does not
    /// repeat it).
    check_failures: Vec<AtomicU64>,
    /// Every backend verified: takes skip the checks.
    all_verified: AtomicBool,
    /// Serialises the checks, which are rare (once per backend).
    topology: Mutex<TopologyState>,
}

impl std::fmt::Debug for ShardedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardedStore")
            .field("backends", &self.backends.len())
            .field("shards", &self.shards)
            .field("block", &self.block)
            .finish_non_exhaustive()
    }
}

impl ShardedStore {
    /// A store with `shards` rows per key, spread round-robin over `backends` (row `i` in
    /// backend `i mod backends.len()`), each take handing out one block of `block` values.
    ///
    /// Takes start at a row chosen by hashing the key with a salt drawn at random for this
    /// instance, so processes sharing a key spread over its rows; see
    /// [`with_route_salt`](Self::with_route_salt).
    ///
    /// Does not touch the backends: the first take checks them against the recorded topology
    /// (see the [module docs](self)). More than [`MAX_SHARDS`] shards is
    /// [`Error::LimitExceeded`].
    pub fn new(backends: Vec<Arc<dyn ShardRows>>, shards: u32, block: u64) -> Result<Self> {
        if shards > MAX_SHARDS {
            return Err(Error::LimitExceeded {
                what: "shards of a sharded segment store",
                limit: u64::from(MAX_SHARDS),
            });
        }
        if backends.is_empty() {
            return Err(Error::InvalidConfig {
                reason: "a sharded store needs at least one backend",
            });
        }
        if shards == 0 || (shards as usize) < backends.len() {
            return Err(Error::InvalidConfig {
                reason: "shard count must be at least 1 and at least the number of backends",
            });
        }
        if block == 0 {
            return Err(Error::InvalidConfig {
                reason: "sharded block must be at least 1",
            });
        }
        // Row `shards - 1` must be able to hand out its first block within i64.
        let stride_ok = u64::from(shards)
            .checked_mul(block)
            .and_then(|s| s.checked_add(1))
            .is_some_and(|s| s <= i64::MAX as u64);
        if !stride_ok {
            return Err(Error::InvalidConfig {
                reason: "shards × block exceeds the 63-bit value space",
            });
        }
        Ok(ShardedStore {
            shards,
            block,
            salt: idmint::os_random_u64()?,
            known: Mutex::new(HashMap::new()),
            turns: (0..shards).map(|_| Mutex::new(())).collect(),
            line: Line::default(),
            contention_timeout: None,
            failed_at: backends.iter().map(|_| AtomicU64::new(0)).collect(),
            born: Instant::now(),
            verified: backends.iter().map(|_| AtomicBool::new(false)).collect(),
            check_failures: backends.iter().map(|_| AtomicU64::new(0)).collect(),
            all_verified: AtomicBool::new(false),
            topology: Mutex::new(TopologyState {
                record: None,
                refused: vec![None; backends.len()],
            }),
            backends,
        })
    }

    /// Routes by the key's hash plus `salt` instead of a random salt: every instance with the
    /// same salt starts at the same row for a key (TDDL's routing by key). Rows still fall over
    /// to the next one on conflict or failure.
    pub fn with_route_salt(mut self, salt: u64) -> Self {
        self.salt = salt;
        self
    }

    /// How long one take keeps trying — waiting for its turn at the rows other threads of this
    /// process are using, re-reading rows that other processes keep winning — before it gives
    /// up with `StoreUnavailable` (every row is still tried once). By default a take never
    /// gives up on contention: every lost race is another taker's success, so contention is
    /// not unavailability, and a healthy set never fails a take for it. Set this to bound one
    /// caller's wait under heavy contention instead, accepting such failures.
    pub fn with_contention_timeout(mut self, timeout: Duration) -> Self {
        self.contention_timeout = Some(timeout);
        self
    }

    /// The number of rows per key.
    pub fn shards(&self) -> u32 {
        self.shards
    }

    /// The values handed out by one take.
    pub fn block(&self) -> u64 {
        self.block
    }

    /// The row a take of `key` tries first.
    pub fn first_row(&self, key: &str) -> u32 {
        (fnv1a(key).wrapping_add(self.salt) % u64::from(self.shards)) as u32
    }

    fn known(&self, key: &str, shard: u32) -> Option<Hint> {
        let map = self.known.lock().unwrap_or_else(|e| e.into_inner());
        map.get(key)
            .and_then(|rows| rows.get(shard as usize).copied().flatten())
    }

    fn remember(&self, key: &str, shard: u32, hint: Hint) {
        let mut map = self.known.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(rows) = map.get_mut(key) {
            rows[shard as usize] = Some(hint);
        } else {
            if (map.len() + 1).saturating_mul(self.shards as usize) > MAX_HINTS {
                map.clear();
            }
            let mut rows = vec![None; self.shards as usize];
            rows[shard as usize] = Some(hint);
            map.insert(key.to_owned(), rows);
        }
    }

    /// Keeps what is known of a row as a floor only: the next take reads it again.
    fn forget(&self, key: &str, shard: u32) {
        let mut map = self.known.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(Some(h)) = map
            .get_mut(key)
            .and_then(|rows| rows.get_mut(shard as usize))
        {
            h.current = false;
        }
    }

    /// Checks backend `b` against the recorded topology before its rows are used, once per
    /// backend (see the [module docs](self)). A mismatch is kept and returned every time; a
    /// failure marks the backend failed, and threads that waited for that attempt do not
    /// repeat it (each would pay the dead server's timeout in turn).
    fn verify(&self, b: usize) -> Result<()> {
        if self.verified[b].load(Ordering::Acquire) {
            return Ok(());
        }
        let failures = self.check_failures[b].load(Ordering::Acquire);
        let mut st = self.topology.lock().unwrap_or_else(|e| e.into_inner());
        if self.verified[b].load(Ordering::Acquire) {
            return Ok(());
        }
        if let Some(e) = st.refused[b] {
            return Err(e);
        }
        if self.check_failures[b].load(Ordering::Acquire) != failures {
            return Err(counter::unavailable(
                self.kind(),
                "the backend failed its topology check",
            ));
        }
        let checked = self.check_backend(&mut st, b);
        match checked {
            Ok(()) => self.verified[b].store(true, Ordering::Release),
            Err(e @ Error::StoreMismatch { .. }) => st.refused[b] = Some(e),
            Err(Error::StoreUnavailable { .. }) => {
                self.failed_at[b].store(self.now_ms(), Ordering::Relaxed);
                self.check_failures[b].fetch_add(1, Ordering::AcqRel);
            }
            Err(_) => {}
        }
        checked
    }

    fn check_backend(&self, st: &mut TopologyState, b: usize) -> Result<()> {
        let (id, stored) = self.backends[b].topology()?;
        if let Some(text) = stored {
            return self.adopt(st, b, id, &text);
        }
        let expected = match &st.record {
            Some(t) => t.clone(),
            None => self.fresh_topology(st, b, id)?,
        };
        if expected.backends.get(b) != Some(&id) {
            return Err(mismatch(LOST));
        }
        match self.backends[b].record_topology(id, &expected.text())? {
            Some(text) => self.adopt(st, b, id, &text),
            None => Err(mismatch(LOST)),
        }
    }

    /// Accepts the record `text` of backend `b` (identity `id`) if it describes this store.
    fn adopt(&self, st: &mut TopologyState, b: usize, id: u64, text: &str) -> Result<()> {
        let t = Topology::parse(text).ok_or(mismatch(UNREADABLE))?;
        if t.shards != self.shards || t.backends.len() != self.backends.len() {
            return Err(mismatch(RESHAPED));
        }
        if t.backends[b] != id {
            return Err(mismatch(MOVED));
        }
        if st.record.as_ref().is_some_and(|known| *known != t) {
            return Err(mismatch(DISAGREE));
        }
        st.record = Some(t);
        Ok(())
    }

    /// The topology to record in backend `b` (identity `id`, no record) when no backend checked
    /// so far showed one: another backend's record if one holds any; else — every backend
    /// reachable and none recorded: a new set — this configuration.
    fn fresh_topology(&self, st: &mut TopologyState, b: usize, id: u64) -> Result<Topology> {
        let mut ids = Vec::with_capacity(self.backends.len());
        for (c, backend) in self.backends.iter().enumerate() {
            if c == b {
                ids.push(id);
                continue;
            }
            let (other, stored) = backend.topology()?;
            if let Some(text) = stored {
                self.adopt(st, c, other, &text)?;
                self.verified[c].store(true, Ordering::Release);
                return st.record.clone().ok_or(mismatch(UNREADABLE));
            }
            ids.push(other);
        }
        Ok(Topology {
            shards: self.shards,
            backends: ids,
        })
    }

    /// Checks the backends not checked yet — except one that failed within
    /// [`SKIP_FAILED_BACKEND`] while another one is checked. A mismatch anywhere refuses.
    fn check_topology(&self) -> Result<()> {
        if self.all_verified.load(Ordering::Acquire) {
            return Ok(());
        }
        let window = SKIP_FAILED_BACKEND.as_millis() as u64;
        let any = self.verified.iter().any(|v| v.load(Ordering::Acquire));
        let now = self.now_ms();
        for b in 0..self.backends.len() {
            if self.verified[b].load(Ordering::Acquire) {
                continue;
            }
            let at = self.failed_at[b].load(Ordering::Relaxed);
            if any && at != 0 && now < at + window {
                continue;
            }
            match self.verify(b) {
                Ok(()) | Err(Error::StoreUnavailable { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        if self.verified.iter().all(|v| v.load(Ordering::Acquire)) {
            self.all_verified.store(true, Ordering::Release);
        }
        Ok(())
    }

    fn verified_row(&self, row: usize) -> bool {
        self.verified[row % self.backends.len()].load(Ordering::Acquire)
    }

    /// Picks the first row from `from` on that has not failed and that no other thread of this
    /// process is taking from, and holds it. `Err(true)` when every row failed, `Err(false)`
    /// when the rows that did not are all busy. Taking turns inside the process leaves
    /// compare-and-set races to other processes only.
    fn claim_row(
        &self,
        from: u32,
        failed: &[bool],
    ) -> std::result::Result<(u32, MutexGuard<'_, ()>), bool> {
        let mut all_failed = true;
        for j in 0..self.shards {
            let shard = (from + j) % self.shards;
            if failed[shard as usize] {
                continue;
            }
            all_failed = false;
            match self.turns[shard as usize].try_lock() {
                Ok(g) => return Ok((shard, g)),
                Err(TryLockError::Poisoned(e)) => return Ok((shard, e.into_inner())),
                Err(TryLockError::WouldBlock) => {}
            }
        }
        Err(all_failed)
    }

    /// Milliseconds since this store was made (the clock of `failed_at`), at least 1.
    fn now_ms(&self) -> u64 {
        self.born.elapsed().as_millis() as u64 + 1
    }

    /// When the backend of `row` last failed (0: never).
    fn failed_at(&self, row: usize) -> u64 {
        self.failed_at[row % self.backends.len()].load(Ordering::Relaxed)
    }

    /// Rows whose backend failed within the last [`SKIP_FAILED_BACKEND`]: not worth a take's
    /// time. When that is every row, none is skipped, so a recovered store is noticed.
    fn skipped_rows(&self, now: u64) -> Vec<bool> {
        let window = SKIP_FAILED_BACKEND.as_millis() as u64;
        let skip: Vec<bool> = (0..self.shards as usize)
            .map(|row| {
                let at = self.failed_at(row);
                at != 0 && now < at + window
            })
            .collect();
        if skip.iter().all(|s| *s) {
            vec![false; skip.len()]
        } else {
            skip
        }
    }

    /// Takes one block from row `shard`; `Ok(None)` when the row kept losing the race.
    fn take_row(&self, key: &str, shard: u32, step: u64) -> Result<Option<Range>> {
        let b = shard as usize % self.backends.len();
        self.verify(b)?;
        let backend = &self.backends[b];
        let spec = RowSpec {
            shard,
            shards: self.shards,
            block: self.block,
        };
        let stride = u64::from(self.shards) * self.block;
        for _ in 0..CONFLICTS_PER_ROW {
            let hint = self.known(key, shard);
            let (next, version) = match hint {
                Some(h) if h.current => (h.next, h.version),
                _ => {
                    let row = backend.load_row(key, &spec)?;
                    if row.shards != self.shards || row.block != self.block {
                        return Err(Error::InvalidConfig {
                            reason: "this sharded key was created with another shard count or block size",
                        });
                    }
                    if hint.is_some_and(|h| row.next < h.next || row.version < h.version) {
                        return Err(mismatch(WENT_BACK));
                    }
                    (row.next, row.version)
                }
            };
            let after = match next.checked_add(stride) {
                Some(a) if a <= i64::MAX as u64 => a,
                _ => {
                    return Err(counter::exhausted(
                        i64::try_from(next).unwrap_or(i64::MAX),
                        stride as i64,
                    ))
                }
            };
            match backend.swap_row(key, shard, version, after) {
                Ok(true) => {
                    let hint = Hint {
                        next: after,
                        version: version + 1,
                        current: true,
                    };
                    self.remember(key, shard, hint);
                    return Ok(Some(Range {
                        start: next,
                        end: next + step.min(self.block),
                    }));
                }
                Ok(false) => self.forget(key, shard),
                Err(e) => {
                    self.forget(key, shard);
                    return Err(e);
                }
            }
        }
        Ok(None)
    }
}

impl SegmentStore for ShardedStore {
    fn kind(&self) -> &'static str {
        "sharded"
    }

    /// `false`: blocks of different rows interleave, so a later range may start below an
    /// earlier one (they never overlap).
    fn ascending(&self) -> bool {
        false
    }

    /// Derived from the recorded topology (shard count and every backend's identity, in
    /// order), after checking the backends as a take does: a journal resumes only on the same
    /// set in the same order, never on one of its backends alone (another table).
    fn identity(&self) -> Result<u64> {
        self.check_topology()?;
        let st = self.topology.lock().unwrap_or_else(|e| e.into_inner());
        let Some(t) = &st.record else {
            return Err(counter::unavailable(self.kind(), "every shard failed"));
        };
        let mut parts = vec![u64::from(t.shards)];
        parts.extend_from_slice(&t.backends);
        Ok(super::contract::derived_identity(
            "idmint sharded v1",
            &parts,
        ))
    }

    /// Takes one block (or its first `step` values when `step < block`; the rest of the block
    /// is skipped) from the key's rows: first the routed row, then the following ones when a
    /// row is busy in this process, keeps losing the race to other processes, or its store
    /// fails. The threads of this process claim rows in the order they came. Fails with
    /// `StoreUnavailable` when every row's store failed, or — only when a
    /// [contention timeout](ShardedStore::with_contention_timeout) is set — when no row could
    /// be taken from within it.
    fn take(&self, key: &str, step: u64) -> Result<Range> {
        counter::check_take(key, step)?;
        self.check_topology()?;
        // A timeout too long to represent is as good as none.
        let deadline = self
            .contention_timeout
            .and_then(|t| Instant::now().checked_add(t));
        let started = self.now_ms();
        let mut failed = self.skipped_rows(started);
        // Rows of a backend not checked yet (down at the check) count as failed.
        for (row, f) in failed.iter_mut().enumerate() {
            *f |= !self.verified_row(row);
        }
        let mut tried = vec![false; self.shards as usize];
        let mut from = self.first_row(key);
        let mut place = None;
        loop {
            // Only the first thread in line claims; the others wait as if every row were busy.
            let first = place.get_or_insert_with(|| self.line.join()).first();
            let claim = if first {
                self.claim_row(from, &failed)
            } else {
                Err(failed.iter().all(|f| *f))
            };
            match claim {
                Ok((shard, _turn)) => {
                    place = None;
                    tried[shard as usize] = true;
                    match self.take_row(key, shard, step) {
                        Ok(Some(r)) => return Ok(r),
                        Ok(None) => {}
                        Err(Error::StoreUnavailable { .. }) => {
                            failed[shard as usize] = true;
                            let backend = shard as usize % self.backends.len();
                            self.failed_at[backend].store(self.now_ms(), Ordering::Relaxed);
                        }
                        Err(e) => return Err(e),
                    }
                    from = (shard + 1) % self.shards;
                }
                Err(true) => return Err(counter::unavailable(self.kind(), "every shard failed")),
                // Every open row is being taken from by another thread, or other threads came
                // first: wait for a turn, unless a thread finds a row's store failing — then the
                // row counts as failed here.
                Err(false) => {
                    std::thread::sleep(Duration::from_micros(200));
                    for (row, f) in failed.iter_mut().enumerate() {
                        *f |= self.failed_at(row) >= started;
                    }
                }
            }
            // Give up on time only once every row had its chance: a slow failure of one row
            // (a server that times out) must not keep the others from being tried.
            if deadline.is_some_and(|d| Instant::now() >= d)
                && tried.iter().zip(&failed).all(|(t, f)| *t || *f)
            {
                return Err(counter::unavailable(
                    self.kind(),
                    "timed out waiting for a shard",
                ));
            }
        }
    }
}

/// FNV-1a: a stable hash (the same in every process and version), unlike std's `DefaultHasher`.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests;
