//! What every segment store promises: the [`SegmentStore`] trait, the identity helpers its
//! implementations share, and the key limit of an allocator.

use idmint::segment::Range;

/// Most keys one [`SegmentAllocator`](super::SegmentAllocator) serves (and one journal records): every key holds two
/// buffers and a thread-safe entry, so an unbounded key space (keys taken from user input)
/// would grow without bound. Beyond it, a new key is [`idmint::Error::LimitExceeded`].
pub const MAX_KEYS: usize = 100_000;

/// A store that hands out ranges of values per key (`biz_tag`).
///
/// Implementations: SQLite (embedded default), PostgreSQL, MySQL/MariaDB (on Leaf's own
/// table), Redis, the idmint service over HTTP, and the in-memory store for tests. Ranges handed out for one key never overlap — across threads, processes and
/// restarts — which is what makes every ID served from them unique.
pub trait SegmentStore: Send + Sync {
    /// The store's name in errors: `sqlite`, `postgres`, `redis`, `memory`, ...
    fn kind(&self) -> &'static str;

    /// Takes the next `step` values for `key` in one round trip, creating the key on first use.
    /// Never none on success. Usually exactly `step`, but a store may return fewer (a service
    /// that caps its ranges) or more (a store whose keys carry their own step, such as Leaf's
    /// `leaf_alloc` rows on MySQL, where the row's step is the least a take hands out): callers
    /// serve whatever range they get, and one that needs at most `step` trims the rest away —
    /// values skipped are never a duplicate. A store failure is
    /// [`idmint::Error::StoreUnavailable`].
    fn take(&self, key: &str, step: u64) -> idmint::Result<Range>;

    /// Takes a range of at most `most` values for `key`: [`take`](Self::take), with a longer
    /// answer clipped to `most` (the rest is skipped, never reissued) — what a front end that
    /// hands a client the range it asked for (the service's `POST …/ranges`) needs. An empty
    /// answer is [`idmint::Error::StoreUnavailable`], since it would serve nothing.
    fn take_at_most(&self, key: &str, most: u64) -> idmint::Result<Range> {
        let mut r = self.take(key, most)?;
        if r.len() > most {
            r.end = r.start + most;
        }
        if r.is_empty() {
            return Err(idmint::Error::StoreUnavailable {
                store: self.kind(),
                op: "take",
                reason: "the store answered an empty range",
            });
        }
        Ok(r)
    }

    /// Whether every range this store hands out for a key starts above all earlier ones — true
    /// for counter stores (the default). A [`SegmentAllocator`](super::SegmentAllocator) then refuses a range that goes
    /// back (a counter reset by a Redis restarted without persistence, a restored backup)
    /// instead of reissuing values ([`SegmentConfig::ordered`](idmint::segment::SegmentConfig::ordered)). Stores whose ranges
    /// interleave by design (sharded rows, auto-increment across instances) return `false`.
    fn ascending(&self) -> bool {
        true
    }

    /// The store's identity: a random, nonzero number kept in the store itself, drawn at its
    /// first use and then the same for every handle, process and restart that sees the same
    /// data — and a new one for a store that lost its data (a new SQLite file, a dropped table,
    /// a flushed Redis) or for another store. A [`journal`](super::journal) records it with its values
    /// and resumes them only on the store with the same identity, since any other store (or
    /// the same one after a loss) may hand those values out again.
    ///
    /// May take a round trip (creating the identity on first use); callers ask once and keep
    /// it. A store failure is [`idmint::Error::StoreUnavailable`]. Composite stores derive
    /// theirs from their parts (so every part must be reachable) and their layout.
    fn identity(&self) -> idmint::Result<u64>;
}

/// A fresh random identity for [`SegmentStore::identity`]: never 0.
pub(crate) fn random_identity() -> idmint::Result<u64> {
    loop {
        let id = idmint::os_random_u64()?;
        if id != 0 {
            return Ok(id);
        }
    }
}

/// An identity derived from `parts` under `tag` (composite stores): a stable 64-bit hash
/// (FNV-1a, then a SplitMix64 finaliser), never 0. Distinct tags keep a composite from ever
/// sharing the identity of one of its parts.
pub(crate) fn derived_identity(tag: &str, parts: &[u64]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    for b in tag.bytes() {
        eat(b);
    }
    eat(0);
    for p in parts {
        for b in p.to_le_bytes() {
            eat(b);
        }
    }
    let mut z = h;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    z.max(1)
}

/// A shared or boxed store is the store it points to.
macro_rules! forward_segment_store {
    ($($ptr:ident)::+) => {
        impl<S: SegmentStore + ?Sized> SegmentStore for $($ptr)::+<S> {
            fn kind(&self) -> &'static str {
                (**self).kind()
            }
            fn take(&self, key: &str, step: u64) -> idmint::Result<Range> {
                (**self).take(key, step)
            }
            fn take_at_most(&self, key: &str, most: u64) -> idmint::Result<Range> {
                (**self).take_at_most(key, most)
            }
            fn ascending(&self) -> bool {
                (**self).ascending()
            }
            fn identity(&self) -> idmint::Result<u64> {
                (**self).identity()
            }
        }
    };
}
forward_segment_store!(std::sync::Arc);
forward_segment_store!(Box);

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers every take with the range it was built with, whatever was asked.
    struct Fixed(Range);

    impl SegmentStore for Fixed {
        fn kind(&self) -> &'static str {
            "fixed"
        }
        fn take(&self, _: &str, _: u64) -> idmint::Result<Range> {
            Ok(self.0)
        }
        fn identity(&self) -> idmint::Result<u64> {
            Ok(1)
        }
    }

    #[test]
    fn take_at_most_clips_a_longer_answer_and_refuses_an_empty_one() {
        let long: Box<dyn SegmentStore> = Box::new(Fixed(Range {
            start: 10,
            end: 110,
        }));
        assert_eq!(
            long.take_at_most("k", 5).unwrap(),
            Range { start: 10, end: 15 }
        );
        assert_eq!(
            long.take_at_most("k", 500).unwrap(),
            Range {
                start: 10,
                end: 110
            }
        );
        let empty = std::sync::Arc::new(Fixed(Range { start: 7, end: 7 }));
        assert!(matches!(
            empty.take_at_most("k", 5),
            Err(idmint::Error::StoreUnavailable {
                store: "fixed",
                op: "take",
                ..
            })
        ));
    }
}
