//! Segment allocation: ranges of consecutive values taken from a store, one round trip per
//! range, served from a double buffer (Meituan Leaf's segment mode); and per-key sequences
//! for millions of keys with one persisted maximum per section of keys (WeChat seqsvr,
//! [`SectionSequencer`]).

pub mod allocator;
pub mod autoinc;
mod contract;
pub(crate) mod counter;
mod durable;
#[cfg(feature = "http")]
pub mod http;
pub mod journal;
pub mod memory;
#[cfg(feature = "mysql")]
pub mod mysql;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "redis")]
pub mod redis;
pub mod sections;
pub mod sharded;
#[cfg(feature = "sqlite")]
pub mod sqlite;
pub mod url;

pub use allocator::{KeyStats, SegmentAllocator, SegmentAllocatorBuilder, SegmentKey, CACHED_KEYS};
pub use contract::{SegmentStore, MAX_KEYS};
pub use idmint::segment::{Range, SegmentConfig};
pub use journal::{Journal, JournalEntry};
pub use memory::MemoryStore;
pub use sections::{SectionSequencer, SectionSequencerBuilder};
pub use url::open_store;

/// Whether `e` is the refusal to open a segment journal or a section sequencer's record that
/// another owner holds locked — another allocator of this process (one still shutting down,
/// say) or another process.
pub fn is_held_elsewhere(e: &idmint::Error) -> bool {
    *e == journal::LABELS.in_use || *e == sections::LABELS.in_use
}
