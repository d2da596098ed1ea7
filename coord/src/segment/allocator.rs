//! [`SegmentAllocator`]: the thread-safe, std driver of the core's segment double buffer
//! ([`idmint::segment`]) on any [`SegmentStore`].
//!
//! # How it runs
//!
//! * **Most IDs without a lock.** Each key's buffer sits behind its own mutex, and the values
//!   it would serve next without any decision (its quiet run: no fetch due, no fence, no gap,
//!   no obfuscation) are published in the key's [`SegmentCursor`]: a call claims one with a
//!   single compare-and-swap and returns. Only when the window runs out does a call take the
//!   lock: taking it seals the cursor and moves the buffer past exactly the values claimed,
//!   releasing it publishes the next window (see [`idmint::segment::SegmentCursor`] for why
//!   no value is served twice and none is lost). No store round trip, no file I/O and no clock
//!   other than a cheap coarse reading happens under the lock. Keys do not contend with each
//!   other.
//! * **Keys by name, cheaply.** [`SegmentAllocator::next_id`] finds the key in a small
//!   per-thread cache of the last [`CACHED_KEYS`] keys the thread used (a string compare, no
//!   hashing, no shared lock); a miss looks the key up in the allocator's map under its read
//!   lock. A cached entry keeps its key's small state alive until the thread uses other keys
//!   or exits. [`SegmentAllocator::key`] returns a handle that skips even the compare.
//! * **Fetches run on one background thread.** When the core asks for the next range (the
//!   refill threshold was crossed, or the buffers ran dry), the caller only queues the request
//!   and returns its ID; the fetch thread does the round trip and hands the range back under
//!   the key's lock. So no caller ever pays for a prefetch. One thread (rather than the
//!   calling thread, or a thread per fetch) because every key talks to the same store anyway,
//!   each key has at most one fetch in flight, a range lasts minutes under the adaptive step,
//!   and a caller that does have to wait should not be stuck inside a store call longer than
//!   its timeout.
//! * **Waiting.** Only when both buffers of a key are empty does a caller wait — on the key's
//!   condition variable, for the fetch in flight — up to the wait timeout
//!   ([`SegmentAllocatorBuilder::wait_timeout`], default 2 s), after which it gets the store's
//!   last error (normally [`Error::StoreUnavailable`]). A failed fetch is retried after the
//!   config's backoff, so an outage shorter than what the buffers hold is never seen by a
//!   caller.
//! * **The clock** ([`SystemClock`] by default, any [`Clock`] for tests) only drives the step
//!   adaptation and the retry backoff; values never depend on it.
//! * **The journal** ([`SegmentAllocatorBuilder::journal`]) carries unserved values across a
//!   clean restart, and optionally ([`SegmentAllocatorBuilder::checkpoint_every`]) across a
//!   crash, minus a reserve; see [`journal`](super::journal) for why it never causes a
//!   duplicate. With checkpoints on, a journal thread writes a checkpoint periodically, after
//!   every fetched range, and whenever a buffer's unfenced values fall below half a step. The
//!   journal records the store's [identity](SegmentStore::identity), which the allocator asks
//!   for once — at start when the journal holds values (and refuses a journal of another
//!   store), otherwise before its first fetch.
//! * **Bounds.** Keys are 1 to 200 bytes, as every store takes them, and one allocator serves
//!   at most [`MAX_KEYS`] keys; beyond, a new key is [`Error::LimitExceeded`].
//!
//! Closing ([`SegmentAllocator::close`], or dropping) stops the threads — waiting for a fetch
//! in progress so its range is not lost — drains every buffer and records the remainder.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::reason::Reason;
use idmint::segment::{
    Fetch, Range, Sealed, SegmentBuffer, SegmentConfig, SegmentCursor, Stall, Take,
};
use idmint::{Clock, Error, ForkGuard, Result, SystemClock};

use super::journal::{Journal, JournalEntry};
use super::{counter, SegmentStore, MAX_KEYS};

/// How long a caller waits for a range when both buffers of its key are empty, by default.
pub const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_secs(2);

/// How many keys each thread remembers for [`SegmentAllocator::next_id`] by name, across all
/// allocators: the most recently used ones.
pub const CACHED_KEYS: usize = 4;

/// Each allocator's number in the per-thread key cache; never reused within a process, so a
/// cached key cannot answer for another allocator.
static NEXT_ALLOCATOR: AtomicU64 = AtomicU64::new(1);

/// A cached key: the allocator's number and the key's entry.
type CachedKey = Option<(u64, Arc<Key>)>;

thread_local! {
    /// The keys this thread used last, most recent first.
    static KEY_CACHE: RefCell<[CachedKey; CACHED_KEYS]> =
        const { RefCell::new([const { None }; CACHED_KEYS]) };
}

/// IDs from ranges of a [`SegmentStore`], per key, for any number of threads; see the
/// [module docs](self).
///
/// # Examples
/// ```
/// use idmint::segment::SegmentConfig;
/// use idmint_coord::segment::{memory::MemoryStore, SegmentAllocator};
///
/// let alloc = SegmentAllocator::new(MemoryStore::new(), SegmentConfig::new())?;
/// let a = alloc.next_id("orders")?;
/// let mut batch = vec![0u64; 100_000];
/// alloc.next_ids("orders", &mut batch)?;
/// assert!(batch[0] > a && batch.windows(2).all(|w| w[0] < w[1]));
/// alloc.close()?;
/// # Ok::<(), idmint::Error>(())
/// ```
pub struct SegmentAllocator<S: SegmentStore + 'static, C: Clock + 'static = SystemClock> {
    shared: Arc<Shared<S, C>>,
    fetcher: Option<JoinHandle<()>>,
    journaler: Option<JoinHandle<()>>,
    closed: bool,
}

/// Configures and starts a [`SegmentAllocator`].
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use idmint::{segment::SegmentConfig, ManualClock};
/// use idmint_coord::segment::{memory::MemoryStore, SegmentAllocator};
///
/// let dir = std::env::temp_dir().join(format!("idmint-alloc-doc-{}", std::process::id()));
/// let alloc = SegmentAllocator::builder(MemoryStore::new(), SegmentConfig::new().fixed_step(50))
///     .clock(ManualClock::new(1_700_000_000_000))
///     .wait_timeout(Duration::from_millis(500))
///     .journal(dir.join("segments.journal"))
///     .checkpoint_every(Duration::from_secs(10))
///     .build()?;
/// assert_eq!(alloc.next_id("orders")?, 1);
/// alloc.close()?; // records 2..51 (and any standby) for the next start
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug)]
pub struct SegmentAllocatorBuilder<S, C> {
    store: S,
    cfg: SegmentConfig,
    clock: C,
    wait: Duration,
    journal: Option<PathBuf>,
    checkpoint_every: Option<Duration>,
}

/// A snapshot of one key's buffer, for monitoring and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyStats {
    /// The current step (what the next fetch asks for before adaptation).
    pub step: u64,
    /// Unserved values held (current rest plus standby).
    pub buffered: u64,
    /// Whether a fetch is in flight.
    pub fetching: bool,
    /// The checkpoint fence, if a checkpoint recorded some of the buffered values.
    pub fence: Option<u64>,
    /// The error of the last fetch, if it failed.
    pub last_error: Option<Error>,
}

struct Shared<S, C> {
    /// Buffered ranges would be served twice by a forked child: it refuses instead.
    fork: ForkGuard,
    /// This allocator's number in the per-thread key cache.
    id: u64,
    store: S,
    clock: C,
    cfg: SegmentConfig,
    wait: Duration,
    keys: RwLock<HashMap<String, Arc<Key>>>,
    jobs: Mutex<Jobs>,
    jobs_cv: Condvar,
    journal: Option<Journaling>,
}

struct Jobs {
    queue: VecDeque<(Arc<Key>, Fetch)>,
    stop: bool,
}

struct Journaling {
    journal: Journal,
    /// The store's identity, recorded with the values: known before any value is buffered
    /// (checked at open, or asked for before the first fetch).
    store: OnceLock<u64>,
    /// `Some` when checkpoints run while the allocator does.
    every: Option<Duration>,
    requested: AtomicBool,
    stop: Mutex<bool>,
    wake: Condvar,
    /// Checkpoints must not overlap: a fence may only rise to the record that is on disk.
    serial: Mutex<()>,
}

struct Key {
    /// The buffer's quiet run, claimable without the lock (see [`Key::locked`]).
    cursor: SegmentCursor,
    name: String,
    state: Mutex<KeyState>,
    cv: Condvar,
}

struct KeyState {
    buf: SegmentBuffer,
    error: Option<Error>,
}

/// How a round of [`Shared::fill`] ended.
enum Filled {
    Done(Result<()>),
    Wait(Duration),
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics while holding these locks (store calls run outside them), so a poisoned
    // lock still guards consistent state.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Key {
    /// Runs `f` on the key's state under its lock, with the cursor sealed: taking the lock
    /// moves the buffer past the values claimed from the cursor, so `f` sees the buffer exact
    /// and nothing is claimed while it runs; afterwards the buffer's next quiet values are
    /// published in the cursor.
    fn locked<R>(&self, f: impl FnOnce(&mut KeyState) -> R) -> R {
        let mut st = lock(&self.state);
        let sealed = self.settle(&mut st);
        let r = f(&mut st);
        self.publish(sealed, &st);
        r
    }

    /// Seals the cursor and moves the buffer past what was claimed. The caller holds the lock.
    fn settle(&self, st: &mut KeyState) -> Sealed {
        let sealed = self.cursor.seal();
        if let Err(e) = st.buf.consume_quiet(sealed.claimed()) {
            // Cannot happen (claims are a prefix of the window, which is a prefix of the quiet
            // run, and only the lock holder changes the buffer). Were it to, burn what is
            // buffered rather than risk serving a claimed value again.
            let _ = st.buf.drain();
            st.error = Some(e);
        }
        sealed
    }

    /// Publishes the buffer's next quiet values. The caller holds the lock.
    fn publish(&self, sealed: Sealed, st: &KeyState) {
        self.cursor.publish(sealed, window(&st.buf));
    }
}

/// What a key's cursor may serve: the buffer's quiet run, except that with a checkpoint fence
/// it stops where the values left before the fence fall below half a step, so the call that
/// crosses that line takes the lock and asks for a checkpoint ([`Shared::watch_headroom`]).
fn window(buf: &SegmentBuffer) -> Range {
    let mut run = buf.quiet_range();
    if buf.fence().is_some() {
        let keep = buf.step() / 2;
        let headroom = buf.headroom();
        if headroom > keep {
            run.end = run.end.min(run.start.saturating_add(headroom - keep));
        }
    }
    run
}

impl<S: SegmentStore + 'static> SegmentAllocator<S, SystemClock> {
    /// An allocator on `store` with `cfg`, the system clock, the default wait timeout and no
    /// journal.
    pub fn new(store: S, cfg: SegmentConfig) -> Result<Self> {
        SegmentAllocator::builder(store, cfg).build()
    }

    /// A builder for the other options.
    pub fn builder(store: S, cfg: SegmentConfig) -> SegmentAllocatorBuilder<S, SystemClock> {
        SegmentAllocatorBuilder {
            store,
            cfg,
            clock: SystemClock::new(),
            wait: DEFAULT_WAIT_TIMEOUT,
            journal: None,
            checkpoint_every: None,
        }
    }
}

impl<S: SegmentStore + 'static, C: Clock + 'static> SegmentAllocatorBuilder<S, C> {
    /// The clock for the step adaptation and retry backoff ([`idmint::ManualClock`] in tests).
    pub fn clock<C2: Clock + 'static>(self, clock: C2) -> SegmentAllocatorBuilder<S, C2> {
        SegmentAllocatorBuilder {
            store: self.store,
            cfg: self.cfg,
            clock,
            wait: self.wait,
            journal: self.journal,
            checkpoint_every: self.checkpoint_every,
        }
    }

    /// How long a caller waits for a range when both buffers of its key are empty, before it
    /// gets the store's error.
    pub fn wait_timeout(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }

    /// Records unserved values in the journal file at `path` on close and resumes them on
    /// start; see [`journal`](super::journal). The file is locked while the allocator runs.
    pub fn journal(mut self, path: impl Into<PathBuf>) -> Self {
        self.journal = Some(path.into());
        self
    }

    /// Also writes a fenced checkpoint of the journal every `every` (and after each fetched
    /// range), so a crash loses at most about one step per key. Needs [`journal`](Self::journal).
    pub fn checkpoint_every(mut self, every: Duration) -> Self {
        self.checkpoint_every = Some(every);
        self
    }

    /// Validates the config, opens (and consumes) the journal, resumes its ranges and starts
    /// the background threads. A journal that holds values needs the store reachable (to check
    /// its identity) and is refused with [`Error::StoreMismatch`] if it was written against
    /// another store; see [`journal`](super::journal).
    pub fn build(self) -> Result<SegmentAllocator<S, C>> {
        self.cfg.validate()?;
        if self.checkpoint_every.is_some() && self.journal.is_none() {
            return Err(Error::InvalidConfig {
                reason: "segment checkpoints need a journal",
            });
        }
        if self.checkpoint_every == Some(Duration::ZERO) {
            return Err(Error::InvalidConfig {
                reason: "the segment checkpoint period must be positive",
            });
        }
        // A store whose ranges interleave by design cannot be held to ascending order.
        let cfg = self
            .cfg
            .ordered(self.cfg.is_ordered() && self.store.ascending());
        let (journal, resumed) = match &self.journal {
            Some(path) => {
                let (j, resumed) = Journal::open(path, &self.store)?;
                (Some(j), resumed)
            }
            None => (None, Vec::new()),
        };
        let every = self.checkpoint_every;
        let shared = Arc::new(Shared {
            fork: ForkGuard::new(),
            id: NEXT_ALLOCATOR.fetch_add(1, Ordering::Relaxed),
            store: self.store,
            clock: self.clock,
            cfg,
            wait: self.wait,
            keys: RwLock::new(HashMap::new()),
            jobs: Mutex::new(Jobs {
                queue: VecDeque::new(),
                stop: false,
            }),
            jobs_cv: Condvar::new(),
            journal: journal.map(|journal| Journaling {
                store: journal
                    .store_identity()
                    .map_or_else(OnceLock::new, OnceLock::from),
                journal,
                every,
                requested: AtomicBool::new(false),
                stop: Mutex::new(false),
                wake: Condvar::new(),
                serial: Mutex::new(()),
            }),
        });
        // From here on, an error drops the allocator, whose close records the resumed values
        // back into the journal.
        let mut alloc = SegmentAllocator {
            shared: Arc::clone(&shared),
            fetcher: None,
            journaler: None,
            closed: false,
        };
        {
            let mut map = shared.keys.write().unwrap_or_else(PoisonError::into_inner);
            if resumed.len() > MAX_KEYS {
                return Err(too_many_keys());
            }
            for entry in resumed {
                let mut buf = SegmentBuffer::for_key(cfg, &entry.key)?;
                buf.resume(&entry.ranges)?;
                map.insert(entry.key.clone(), Arc::new(Key::new(entry.key, buf)));
            }
        }
        let s = Arc::clone(&shared);
        alloc.fetcher = Some(spawn("idmint-segment-fetch", move || s.fetch_loop())?);
        if every.is_some() {
            let s = Arc::clone(&shared);
            alloc.journaler = Some(spawn("idmint-segment-journal", move || s.journal_loop())?);
        }
        Ok(alloc)
    }
}

fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name(name.into())
        .spawn(f)
        .map_err(|e| Error::StoreUnavailable {
            store: "thread",
            op: "spawn",
            reason: e.reason(),
        })
}

impl Key {
    fn new(name: String, buf: SegmentBuffer) -> Key {
        Key {
            cursor: SegmentCursor::new(),
            name,
            state: Mutex::new(KeyState { buf, error: None }),
            cv: Condvar::new(),
        }
    }
}

impl<S: SegmentStore + 'static, C: Clock + 'static> SegmentAllocator<S, C> {
    /// The next ID for `key`. Waits (up to the wait timeout) only when both of the key's
    /// buffers are empty; then fails with the store's error.
    #[inline]
    pub fn next_id(&self, key: &str) -> Result<u64> {
        self.shared.fork.check()?;
        let k = match self.cached(key, SegmentCursor::claim) {
            Cached::Served(v) => return Ok(v),
            Cached::Key(k) => k,
            Cached::Miss => self.lookup(key)?,
        };
        self.shared.next_locked(&k)
    }

    /// `key` in this thread's key cache: `serve` run on its cursor when it is there (without
    /// cloning the entry), the entry when `serve` found nothing.
    #[inline]
    fn cached<T>(&self, key: &str, serve: impl FnOnce(&SegmentCursor) -> Option<T>) -> Cached<T> {
        let owner = self.shared.id;
        KEY_CACHE
            .try_with(|cache| {
                let Ok(mut cache) = cache.try_borrow_mut() else {
                    return Cached::Miss;
                };
                let found = cache
                    .iter()
                    .position(|e| matches!(e, Some((o, k)) if *o == owner && k.name == key));
                let Some(i) = found else {
                    return Cached::Miss;
                };
                if i > 0 {
                    cache[..=i].rotate_right(1);
                }
                match &cache[0] {
                    Some((_, k)) => match serve(&k.cursor) {
                        Some(v) => Cached::Served(v),
                        None => Cached::Key(Arc::clone(k)),
                    },
                    None => Cached::Miss,
                }
            })
            .unwrap_or(Cached::Miss)
    }

    /// `key`'s entry from the map (created on first use), remembered in this thread's cache.
    #[cold]
    fn lookup(&self, key: &str) -> Result<Arc<Key>> {
        let k = self.shared.key(key)?;
        let owner = self.shared.id;
        // Unavailable while the thread's locals are torn down: then nothing is cached.
        let _ = KEY_CACHE.try_with(|cache| {
            if let Ok(mut cache) = cache.try_borrow_mut() {
                cache.rotate_right(1);
                cache[0] = Some((owner, Arc::clone(&k)));
            }
        });
        Ok(k)
    }

    /// A handle on one key: the same calls without looking the key up each time, for a hot
    /// loop on a key known in advance.
    ///
    /// # Examples
    /// ```
    /// use idmint::segment::SegmentConfig;
    /// use idmint_coord::segment::{MemoryStore, SegmentAllocator};
    ///
    /// let alloc = SegmentAllocator::new(MemoryStore::new(), SegmentConfig::new())?;
    /// let orders = alloc.key("orders")?;
    /// let a = orders.next_id()?;
    /// assert!(orders.next_id()? > a);
    /// assert_eq!(orders.name(), "orders");
    /// # Ok::<(), idmint::Error>(())
    /// ```
    pub fn key(&self, key: &str) -> Result<SegmentKey<'_, S, C>> {
        self.shared.fork.check()?;
        Ok(SegmentKey {
            shared: &self.shared,
            key: self.shared.key(key)?,
        })
    }

    /// Fills `out` with the next IDs for `key`, in increasing order (before obfuscation). A
    /// batch larger than the buffers hold asks the store for its shortfall at once. On an
    /// error the values already written are lost (never reissued).
    pub fn next_ids(&self, key: &str, out: &mut [u64]) -> Result<()> {
        self.shared.fork.check()?;
        if out.is_empty() {
            return Ok(());
        }
        let mut filled = 0;
        let whole = |c: &SegmentCursor| {
            filled = claim_into(c, out);
            (filled == out.len()).then_some(())
        };
        let k = match self.cached(key, whole) {
            Cached::Served(()) => return Ok(()),
            Cached::Key(k) => k,
            Cached::Miss => self.lookup(key)?,
        };
        self.shared
            .fill_claiming(&k, out.get_mut(filled..).unwrap_or(&mut []))
    }

    /// Starts filling `key`'s buffers without taking a value: creates the key if needed and
    /// queues a fetch if one is due (nothing buffered in the standby and none in flight).
    /// Returns at once; [`stats`](Self::stats) shows when the range landed. A service warms
    /// its keys with this, so its first answer is the first value of the range.
    pub fn prefetch(&self, key: &str) -> Result<()> {
        self.shared.fork.check()?;
        let k = self.lookup(key)?;
        let now = self.shared.clock.coarse_ms();
        let batch = k.locked(|st| st.buf.take_into(&mut [], now))?;
        if let Some(f) = batch.fetch {
            self.shared.submit(&k, f);
        }
        Ok(())
    }

    /// A snapshot of `key`'s buffer, or `None` if the key was never used (nor resumed).
    pub fn stats(&self, key: &str) -> Option<KeyStats> {
        let map = self
            .shared
            .keys
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        let k = map.get(key)?;
        Some(k.locked(|st| KeyStats {
            step: st.buf.step(),
            buffered: st.buf.buffered(),
            fetching: st.buf.fetching(),
            fence: st.buf.fence(),
            last_error: st.error,
        }))
    }

    /// The keys used or resumed so far.
    pub fn keys(&self) -> Vec<String> {
        let map = self
            .shared
            .keys
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        map.keys().cloned().collect()
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.shared.store
    }

    /// The config in force (with [`ordered`](SegmentConfig::ordered) off if the store's
    /// ranges do not ascend).
    pub fn config(&self) -> &SegmentConfig {
        &self.shared.cfg
    }

    /// The journal file, if there is one.
    pub fn journal_path(&self) -> Option<&Path> {
        self.shared.journal.as_ref().map(|j| j.journal.path())
    }

    /// Writes a journal checkpoint now (see [`SegmentAllocatorBuilder::checkpoint_every`]);
    /// without checkpoints configured this is [`Error::InvalidConfig`].
    pub fn checkpoint(&self) -> Result<()> {
        self.shared.fork.check()?;
        match &self.shared.journal {
            Some(j) if j.every.is_some() => self.shared.checkpoint(j),
            _ => Err(Error::InvalidConfig {
                reason: "segment checkpoints are not configured",
            }),
        }
    }

    /// Stops the background threads (after a fetch in progress lands), drains every buffer and
    /// records what was left in the journal, if any. Dropping the allocator does the same but
    /// cannot report a failed write.
    pub fn close(mut self) -> Result<()> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        self.closed = true;
        if !self.shared.fork.is_original() {
            // A forked child: the threads do not exist here and the journal is the parent's.
            // Leak them rather than join missing threads or record the parent's remainder.
            if let Some(h) = self.journaler.take() {
                std::mem::forget(h);
            }
            if let Some(h) = self.fetcher.take() {
                std::mem::forget(h);
            }
            std::mem::forget(Arc::clone(&self.shared));
            return Err(Error::Forked);
        }
        let shared = &self.shared;
        if let Some(j) = &shared.journal {
            *lock(&j.stop) = true;
            j.wake.notify_all();
        }
        if let Some(h) = self.journaler.take() {
            let _ = h.join();
        }
        {
            let mut jobs = lock(&shared.jobs);
            jobs.stop = true;
            jobs.queue.clear();
        }
        shared.jobs_cv.notify_all();
        if let Some(h) = self.fetcher.take() {
            let _ = h.join();
        }
        let Some(j) = &shared.journal else {
            return Ok(());
        };
        let keys: Vec<Arc<Key>> = {
            let map = shared.keys.read().unwrap_or_else(PoisonError::into_inner);
            map.values().cloned().collect()
        };
        let mut entries = Vec::new();
        for k in keys {
            let rem = k.locked(|st| st.buf.drain());
            if !rem.is_empty() {
                entries.push(JournalEntry {
                    key: k.name.clone(),
                    ranges: rem.ranges().to_vec(),
                });
            }
        }
        j.journal.write(j.store.get().copied(), &entries)
    }
}

/// What this thread's key cache held for a key.
enum Cached<T> {
    /// The key was there and its cursor served.
    Served(T),
    /// The key was there; its cursor had nothing (take the lock).
    Key(Arc<Key>),
    /// Not there.
    Miss,
}

/// Claims runs from `cursor` into `out` until it is full or the window is used up; returns how
/// many values were written.
#[inline]
fn claim_into(cursor: &SegmentCursor, out: &mut [u64]) -> usize {
    let mut filled = 0;
    while let Some(rest) = out.get_mut(filled..).filter(|r| !r.is_empty()) {
        let Some(run) = cursor.claim_run(rest.len() as u64) else {
            break;
        };
        for (slot, v) in rest.iter_mut().zip(run.start..run.end) {
            *slot = v;
        }
        filled += run.len() as usize;
    }
    filled
}

fn too_many_keys() -> Error {
    Error::LimitExceeded {
        what: "keys of a segment allocator",
        limit: MAX_KEYS as u64,
    }
}

impl<S: SegmentStore + 'static, C: Clock + 'static> Drop for SegmentAllocator<S, C> {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

impl<S: SegmentStore + 'static, C: Clock + 'static> std::fmt::Debug for SegmentAllocator<S, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SegmentAllocator")
            .field("store", &self.shared.store.kind())
            .field("config", &self.shared.cfg)
            .field("journal", &self.journal_path())
            .finish_non_exhaustive()
    }
}

impl<S: SegmentStore, C: Clock> Shared<S, C> {
    /// `key`'s entry, created on first use.
    fn key(&self, key: &str) -> Result<Arc<Key>> {
        {
            let map = self.keys.read().unwrap_or_else(PoisonError::into_inner);
            if let Some(k) = map.get(key) {
                return Ok(Arc::clone(k));
            }
        }
        counter::check_key(key)?;
        let buf = SegmentBuffer::for_key(self.cfg, key)?;
        let mut map = self.keys.write().unwrap_or_else(PoisonError::into_inner);
        if map.len() >= MAX_KEYS && !map.contains_key(key) {
            return Err(too_many_keys());
        }
        let k = map
            .entry(key.to_owned())
            .or_insert_with(|| Arc::new(Key::new(key.to_owned(), buf)));
        Ok(Arc::clone(k))
    }

    /// The next ID of `k` once its cursor had none: under the key's lock, and waiting (up to
    /// the wait timeout) if the buffers are empty.
    #[cold]
    #[inline(never)]
    fn next_locked(&self, k: &Arc<Key>) -> Result<u64> {
        if let Some(v) = self.next_cached(k)? {
            return Ok(v);
        }
        let mut one = [0u64];
        self.fill(k, &mut one)?;
        Ok(one[0])
    }

    /// The next ID of `k` when its buffer can serve it without waiting (queueing a prefetch
    /// if the core asks for one); `None` when the caller must [`fill`](Self::fill) and wait.
    fn next_cached(&self, k: &Arc<Key>) -> Result<Option<u64>> {
        if let Some(v) = k.cursor.claim() {
            return Ok(Some(v));
        }
        k.locked(|st| {
            if let Some(v) = st.buf.next_if_quiet() {
                self.watch_headroom(&st.buf);
                return Ok(Some(v));
            }
            let now = self.clock.coarse_ms();
            match st.buf.next(now)? {
                Take::Id(v) => {
                    self.watch_headroom(&st.buf);
                    Ok(Some(v))
                }
                Take::IdAndFetch(v, f) => {
                    self.submit(k, f);
                    Ok(Some(v))
                }
                Take::Fetch(f) => {
                    self.submit(k, f);
                    Ok(None)
                }
                Take::Stall(_) => Ok(None),
            }
        })
    }

    /// [`fill`](Self::fill), claiming from `k`'s cursor first.
    fn fill_claiming(&self, k: &Arc<Key>, out: &mut [u64]) -> Result<()> {
        let filled = claim_into(&k.cursor, out);
        match out.get_mut(filled..) {
            Some(rest) if !rest.is_empty() => self.fill(k, rest),
            _ => Ok(()),
        }
    }

    fn submit(&self, k: &Arc<Key>, f: Fetch) {
        lock(&self.jobs).queue.push_back((Arc::clone(k), f));
        self.jobs_cv.notify_one();
    }

    /// Serves `out` from `k`'s buffer under its lock, waiting for ranges as needed (up to the
    /// wait timeout). The cursor is sealed while the lock is held and published again before
    /// each wait and at the end (see [`Key::locked`]).
    fn fill(&self, k: &Arc<Key>, out: &mut [u64]) -> Result<()> {
        let mut filled = 0usize;
        let mut deadline: Option<Instant> = None;
        let mut st = lock(&k.state);
        loop {
            let sealed = k.settle(&mut st);
            let step = self.fill_step(k, &mut st, out, &mut filled, &mut deadline);
            k.publish(sealed, &st);
            match step {
                Filled::Done(r) => return r,
                Filled::Wait(timeout) => {
                    st =
                        k.cv.wait_timeout(st, timeout)
                            .unwrap_or_else(PoisonError::into_inner)
                            .0;
                }
            }
        }
    }

    /// One round of [`fill`](Self::fill), under the lock with the cursor sealed.
    fn fill_step(
        &self,
        k: &Arc<Key>,
        st: &mut KeyState,
        out: &mut [u64],
        filled: &mut usize,
        deadline: &mut Option<Instant>,
    ) -> Filled {
        let now = self.clock.coarse_ms();
        let rest = out.get_mut(*filled..).unwrap_or(&mut []);
        let b = match st.buf.take_into(rest, now) {
            Ok(b) => b,
            Err(e) => return Filled::Done(Err(e)),
        };
        *filled += b.filled;
        if let Some(f) = b.fetch {
            self.submit(k, f);
        }
        self.watch_headroom(&st.buf);
        let Some(stall) = b.stall else {
            return Filled::Done(Ok(()));
        };
        let started = Instant::now();
        let deadline = *deadline.get_or_insert_with(|| {
            // A wait too long to represent is as good as forever.
            started
                .checked_add(self.wait)
                .unwrap_or(started + Duration::from_secs(1 << 32))
        });
        if started >= deadline {
            return Filled::Done(Err(self.stall_error(st, stall)));
        }
        let mut timeout = deadline - started;
        match stall {
            Stall::RetryAt { until_ms } => {
                let ms = until_ms.saturating_sub(self.clock.now_ms());
                timeout = timeout.min(Duration::from_millis(ms.max(1)));
            }
            Stall::Fenced => self.request_checkpoint(),
            Stall::InFlight => {}
        }
        Filled::Wait(timeout)
    }

    fn stall_error(&self, st: &KeyState, stall: Stall) -> Error {
        match (stall, st.error) {
            (Stall::Fenced, _) => Error::StoreUnavailable {
                store: "journal",
                op: "write",
                reason: "checkpoint not written in time",
            },
            (_, Some(e)) => e,
            (_, None) => Error::StoreUnavailable {
                store: self.store.kind(),
                op: "take",
                reason: "timed out waiting for a range",
            },
        }
    }

    /// With checkpoints on: asks for a checkpoint when the values servable before the fence
    /// fall below half a step, so callers do not reach the fence.
    fn watch_headroom(&self, buf: &SegmentBuffer) {
        if buf.fence().is_some() && buf.headroom() < buf.step() / 2 {
            self.request_checkpoint();
        }
    }

    fn request_checkpoint(&self) {
        if let Some(j) = &self.journal {
            if j.every.is_some() && !j.requested.swap(true, Ordering::AcqRel) {
                let _stop = lock(&j.stop);
                j.wake.notify_all();
            }
        }
    }

    fn fetch_loop(&self) {
        loop {
            let (k, f) = {
                let mut jobs = lock(&self.jobs);
                loop {
                    if jobs.stop {
                        return;
                    }
                    if let Some(job) = jobs.queue.pop_front() {
                        break job;
                    }
                    jobs = self
                        .jobs_cv
                        .wait(jobs)
                        .unwrap_or_else(PoisonError::into_inner);
                }
            };
            let unavailable = Error::StoreUnavailable {
                store: self.store.kind(),
                op: "take",
                reason: "the store panicked",
            };
            // A store that panics is a store that failed; the allocator keeps going.
            let result = catch_unwind(AssertUnwindSafe(|| {
                self.learn_identity()?;
                self.store.take(&k.name, f.step())
            }))
            .unwrap_or(Err(unavailable));
            let now = self.clock.now_ms();
            let supplied = k.locked(|st| {
                match result {
                    Ok(range) => match st.buf.supply(f, range, now) {
                        Ok(()) => {
                            st.error = None;
                            true
                        }
                        Err(e) => {
                            st.error = Some(e);
                            false
                        }
                    },
                    Err(e) => {
                        // Cannot fail: `f` is the fetch in flight for this key.
                        let _ = st.buf.fail(f, now);
                        st.error = Some(e);
                        false
                    }
                }
            });
            k.cv.notify_all();
            if supplied {
                self.request_checkpoint();
            }
        }
    }

    /// With a journal: asks the store for its identity before the first range is taken, so
    /// every buffered value can be recorded with it.
    fn learn_identity(&self) -> Result<()> {
        if let Some(j) = &self.journal {
            if j.store.get().is_none() {
                let id = self.store.identity()?;
                let _ = j.store.set(id);
            }
        }
        Ok(())
    }

    fn journal_loop(&self) {
        let Some(j) = &self.journal else { return };
        let every = j.every.unwrap_or(Duration::MAX);
        loop {
            {
                let mut stop = lock(&j.stop);
                if !*stop && !j.requested.load(Ordering::Acquire) {
                    stop = j
                        .wake
                        .wait_timeout(stop, every)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
                if *stop {
                    return;
                }
            }
            j.requested.store(false, Ordering::Release);
            // A failed write leaves the fences low: callers may wait, never duplicate. The
            // next request or period tries again.
            let _ = self.checkpoint(j);
        }
    }

    /// Records everything beyond one step per key, fenced (see the journal module docs).
    fn checkpoint(&self, j: &Journaling) -> Result<()> {
        let _one_at_a_time = lock(&j.serial);
        let keys: Vec<Arc<Key>> = {
            let map = self.keys.read().unwrap_or_else(PoisonError::into_inner);
            map.values().cloned().collect()
        };
        let mut entries = Vec::new();
        let mut checkpoints = Vec::with_capacity(keys.len());
        for k in &keys {
            let cp = k.locked(|st| {
                let reserve = st.buf.step();
                st.buf.begin_checkpoint(reserve)
            });
            if !cp.remainder().is_empty() {
                entries.push(JournalEntry {
                    key: k.name.clone(),
                    ranges: cp.remainder().ranges().to_vec(),
                });
            }
            checkpoints.push(cp);
        }
        j.journal.write(j.store.get().copied(), &entries)?;
        for (k, cp) in keys.iter().zip(checkpoints) {
            k.locked(|st| st.buf.end_checkpoint(cp));
            k.cv.notify_all();
        }
        Ok(())
    }
}

/// One key of a [`SegmentAllocator`], from [`SegmentAllocator::key`]: `next_id` and
/// `next_ids` without the per-call key lookup.
pub struct SegmentKey<'a, S, C> {
    shared: &'a Arc<Shared<S, C>>,
    key: Arc<Key>,
}

impl<S: SegmentStore + 'static, C: Clock + 'static> SegmentKey<'_, S, C> {
    /// The key's name.
    pub fn name(&self) -> &str {
        &self.key.name
    }

    /// The next ID, as [`SegmentAllocator::next_id`].
    #[inline]
    pub fn next_id(&self) -> Result<u64> {
        self.shared.fork.check()?;
        if let Some(v) = self.key.cursor.claim() {
            return Ok(v);
        }
        self.shared.next_locked(&self.key)
    }

    /// Fills `out`, as [`SegmentAllocator::next_ids`].
    pub fn next_ids(&self, out: &mut [u64]) -> Result<()> {
        self.shared.fork.check()?;
        self.shared.fill_claiming(&self.key, out)
    }
}

impl<S, C> std::fmt::Debug for SegmentKey<'_, S, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SegmentKey")
            .field("name", &self.key.name)
            .finish_non_exhaustive()
    }
}
