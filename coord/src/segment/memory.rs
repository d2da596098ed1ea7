//! [`MemoryStore`]: a [`SegmentStore`] that keeps its counters in the process.
//!
//! Ranges from it are unique only within one process and only while it lives, so it is for
//! tests and for single-process programs whose IDs need not survive a restart. Its
//! [identity](SegmentStore::identity) is drawn at random per instance: a
//! [journal](super::journal) written with one instance resumes only with that same instance
//! (a new one starts at 1 again and would repeat the journal's values). It follows the counter
//! stores' convention: a key's first range starts at 1.
//!
//! It can be told to fail ([`MemoryStore::set_failing`]) — that is how the allocator's tests
//! simulate a store outage.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use idmint::segment::Range;
use idmint::{Error, Name, Result};

use super::contract::SegmentStore;

/// The field reported when a key has handed out every value.
const MAX_ID: Name = match Name::new("max_id") {
    Some(n) => n,
    None => panic!("valid literal"),
};

/// An in-process [`SegmentStore`]; see the [module docs](self).
///
/// # Examples
/// ```
/// use idmint::segment::Range;
/// use idmint_coord::segment::{memory::MemoryStore, SegmentStore};
///
/// let store = MemoryStore::new();
/// assert_eq!(store.take("orders", 100)?, Range { start: 1, end: 101 });
/// assert_eq!(store.take("orders", 10)?, Range { start: 101, end: 111 });
/// assert_eq!(store.take("users", 5)?, Range { start: 1, end: 6 });
/// store.set_failing(true);
/// assert!(store.take("orders", 10).is_err());
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug)]
pub struct MemoryStore {
    /// Per key, the first value of its next range.
    next: Mutex<HashMap<String, u64>>,
    first: u64,
    failing: AtomicBool,
    takes: AtomicU64,
    failed: AtomicU64,
    /// Drawn on first use; this instance's alone.
    identity: OnceLock<u64>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::new()
    }
}

impl MemoryStore {
    /// A store whose keys start at 1.
    pub fn new() -> MemoryStore {
        MemoryStore::starting_at(1)
    }

    /// A store whose keys start at `first` — for instance above every value an earlier run
    /// handed out.
    pub fn starting_at(first: u64) -> MemoryStore {
        MemoryStore {
            next: Mutex::new(HashMap::new()),
            first,
            failing: AtomicBool::new(false),
            takes: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            identity: OnceLock::new(),
        }
    }

    /// While `true`, every take fails with [`Error::StoreUnavailable`] and hands out nothing,
    /// as a store that is down would.
    pub fn set_failing(&self, failing: bool) {
        self.failing.store(failing, Ordering::SeqCst);
    }

    /// Whether takes currently fail.
    pub fn is_failing(&self) -> bool {
        self.failing.load(Ordering::SeqCst)
    }

    /// How many takes succeeded.
    pub fn takes(&self) -> u64 {
        self.takes.load(Ordering::SeqCst)
    }

    /// How many takes failed.
    pub fn failed_takes(&self) -> u64 {
        self.failed.load(Ordering::SeqCst)
    }

    /// The first value `key`'s next range would start at.
    pub fn peek(&self, key: &str) -> u64 {
        let map = self.next.lock().unwrap_or_else(|e| e.into_inner());
        map.get(key).copied().unwrap_or(self.first)
    }
}

impl SegmentStore for MemoryStore {
    fn kind(&self) -> &'static str {
        "memory"
    }

    fn take(&self, key: &str, step: u64) -> Result<Range> {
        if self.is_failing() {
            self.failed.fetch_add(1, Ordering::SeqCst);
            return Err(Error::StoreUnavailable {
                store: "memory",
                op: "take",
                reason: "set failing",
            });
        }
        if step == 0 {
            return Err(Error::InvalidConfig {
                reason: "segment step must be at least 1",
            });
        }
        let mut map = self.next.lock().unwrap_or_else(|e| e.into_inner());
        let next = map.entry(key.to_owned()).or_insert(self.first);
        let start = *next;
        let end = start.saturating_add(step);
        if end == start {
            // Every value below u64::MAX is handed out (a range's end is exclusive).
            return Err(Error::OutOfRange {
                field: MAX_ID,
                value: start,
                max: u64::MAX - 1,
            });
        }
        *next = end;
        self.takes.fetch_add(1, Ordering::SeqCst);
        Ok(Range { start, end })
    }

    /// Random per instance (its counters live and die with it).
    fn identity(&self) -> Result<u64> {
        if let Some(id) = self.identity.get() {
            return Ok(*id);
        }
        let drawn = super::contract::random_identity()?;
        Ok(*self.identity.get_or_init(|| drawn))
    }
}
