//! Segment allocation: ranges of consecutive values taken from a store, one round trip per
//! range, served from a double buffer (Meituan Leaf's segment mode, WeChat seqsvr).

pub mod allocator;
pub mod autoinc;
mod counter;
pub mod journal;
pub mod memory;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "redis")]
pub mod redis;
pub mod sharded;
#[cfg(feature = "sqlite")]
pub mod sqlite;
pub mod url;

pub use allocator::{KeyStats, SegmentAllocator, SegmentAllocatorBuilder, SegmentKey};
pub use idmint::segment::{Range, SegmentConfig};
pub use journal::{Journal, JournalEntry};
pub use memory::MemoryStore;
pub use url::open_store;

/// A store that hands out ranges of values per key (`biz_tag`).
///
/// Implementations: SQLite (embedded default), PostgreSQL, Redis, and the in-memory store for
/// tests. Ranges handed out for one key never overlap — across threads, processes and
/// restarts — which is what makes every ID served from them unique.
pub trait SegmentStore: Send + Sync {
    /// The store's name in errors: `sqlite`, `postgres`, `redis`, `memory`, ...
    fn kind(&self) -> &'static str;

    /// Takes the next `step` values for `key` in one round trip, creating the key on first use.
    /// May return fewer values than asked (never more, never none on success). A store failure
    /// is [`idmint::Error::StoreUnavailable`].
    fn take(&self, key: &str, step: u64) -> idmint::Result<Range>;

    /// Whether every range this store hands out for a key starts above all earlier ones — true
    /// for counter stores (the default). A [`SegmentAllocator`] then refuses a range that goes
    /// back (a counter reset by a Redis restarted without persistence, a restored backup)
    /// instead of reissuing values ([`SegmentConfig::ordered`]). Stores whose ranges
    /// interleave by design (sharded rows, auto-increment across instances) return `false`.
    fn ascending(&self) -> bool {
        true
    }
}

impl<S: SegmentStore + ?Sized> SegmentStore for std::sync::Arc<S> {
    fn kind(&self) -> &'static str {
        (**self).kind()
    }

    fn take(&self, key: &str, step: u64) -> idmint::Result<Range> {
        (**self).take(key, step)
    }

    fn ascending(&self) -> bool {
        (**self).ascending()
    }
}

impl<S: SegmentStore + ?Sized> SegmentStore for Box<S> {
    fn kind(&self) -> &'static str {
        (**self).kind()
    }

    fn take(&self, key: &str, step: u64) -> idmint::Result<Range> {
        (**self).take(key, step)
    }

    fn ascending(&self) -> bool {
        (**self).ascending()
    }
}
