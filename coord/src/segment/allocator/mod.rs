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
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::reason::Reason;
use idmint::segment::{SegmentBuffer, SegmentConfig, SegmentCursor};
use idmint::{Clock, Error, ForkGuard, Result, SystemClock};

use super::contract::{SegmentStore, MAX_KEYS};
use super::journal::{Journal, JournalEntry};

mod shared;

use shared::{claim_into, lock, too_many_keys, Jobs, Journaling, Key, Shared};

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
