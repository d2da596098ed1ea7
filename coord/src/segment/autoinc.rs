//! Database auto-increment with offset and step (MySQL's `auto_increment_offset` /
//! `auto_increment_increment` across `N` servers, the Redis "start k, step N" variant of the
//! same idea): instance `k` of `N` issues only the values `≡ k + 1 (mod N)` — `k + 1`,
//! `k + 1 + N`, `k + 1 + 2N`, … — so the instances never collide and any one of them can
//! serve while the others are down.
//!
//! Here each instance is any [`SegmentStore`] with its own counter (a SQLite file, a
//! PostgreSQL server, a Redis server); a take asks instance `k` for one value `c` of its
//! counter (`1, 2, 3, …`) and maps it to `(c - 1)·N + k + 1`. Instances are used round-robin;
//! an instance that fails is skipped for the next one.
//!
//! **When to use it: rarely.** It exists for compatibility — a system whose IDs must keep the
//! interleaved residues of an existing multi-master auto-increment setup, or that must be able
//! to tell the issuing instance from `id mod N`. It costs one store round trip **per value**
//! (a stride of values is not a [`Range`] of consecutive ones), and `N` can never change
//! without re-planning every offset. For anything else use a counter store directly, or
//! [`ShardedStore`](super::sharded::ShardedStore) for several databases: both hand out a
//! whole range per round trip.

use std::sync::atomic::{AtomicUsize, Ordering};

use idmint::segment::Range;
use idmint::{Error, Result};

use super::contract::SegmentStore;
use super::counter;

/// The field reported when a counter value maps past `u64::MAX`.
const ID: idmint::Name = match idmint::Name::new("id") {
    Some(n) => n,
    None => panic!("valid literal"),
};

/// A [`SegmentStore`] over `N` instances with offsets `1..=N` and step `N`. See the
/// [module docs](self) for when (rarely) to use it.
///
/// # Examples
/// ```no_run
/// # #[cfg(feature = "sqlite")] {
/// use idmint_coord::segment::{autoinc::AutoIncStore, sqlite::SqliteStore, SegmentStore};
///
/// let store = AutoIncStore::new(vec![
///     Box::new(SqliteStore::open("/srv/a/ids.db")?),
///     Box::new(SqliteStore::open("/srv/b/ids.db")?),
/// ])?;
/// let one = store.take("orders", 1)?; // a single value, odd from a, even from b
/// assert_eq!(one.len(), 1);
/// # }
/// # Ok::<(), idmint::Error>(())
/// ```
pub struct AutoIncStore {
    instances: Vec<Box<dyn SegmentStore>>,
    next: AtomicUsize,
}

impl std::fmt::Debug for AutoIncStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kinds: Vec<&str> = self.instances.iter().map(|s| s.kind()).collect();
        f.debug_struct("AutoIncStore")
            .field("instances", &kinds)
            .finish_non_exhaustive()
    }
}

impl AutoIncStore {
    /// Instance `k` of `instances` gets offset `k + 1` and step `instances.len()`. The order is
    /// part of the configuration: reordering or resizing the list changes which values an
    /// instance's counter maps to, and can repeat values.
    pub fn new(instances: Vec<Box<dyn SegmentStore>>) -> Result<Self> {
        if instances.is_empty() {
            return Err(Error::InvalidConfig {
                reason: "auto-increment offset/step needs at least one instance",
            });
        }
        Ok(AutoIncStore {
            instances,
            next: AtomicUsize::new(0),
        })
    }

    /// The number of instances, which is the step between one instance's values.
    pub fn step(&self) -> u64 {
        self.instances.len() as u64
    }

    /// The value that counter value `c` (from 1) of instance `k` stands for.
    fn map(&self, k: usize, c: u64) -> Option<u64> {
        c.checked_sub(1)?
            .checked_mul(self.step())?
            .checked_add(k as u64 + 1)
            .filter(|v| *v < u64::MAX)
    }
}

impl SegmentStore for AutoIncStore {
    fn kind(&self) -> &'static str {
        "autoinc"
    }

    /// `false`: each instance's values ascend, but the instances' counters drift apart (one
    /// was down, another served more), so a value may come after a larger one of another
    /// instance.
    fn ascending(&self) -> bool {
        false
    }

    /// Derived from the instance count and every instance's identity, in order: a journal
    /// written on this store resumes only with the same instances in the same order (another
    /// order maps each counter to other values). Every instance must answer.
    fn identity(&self) -> Result<u64> {
        let mut parts = vec![self.step()];
        for s in &self.instances {
            parts.push(s.identity()?);
        }
        Ok(super::contract::derived_identity(
            "idmint autoinc v1",
            &parts,
        ))
    }

    /// Hands out one value (whatever `step` asks), from the next instance in turn; falls over
    /// to the following instances when one fails.
    fn take(&self, key: &str, step: u64) -> Result<Range> {
        counter::check_take(key, step)?;
        let n = self.instances.len();
        let first = self.next.fetch_add(1, Ordering::Relaxed) % n;
        for j in 0..n {
            let k = (first + j) % n;
            match self.instances[k].take(key, 1) {
                Ok(r) => {
                    let v = self.map(k, r.start).ok_or(Error::OutOfRange {
                        field: ID,
                        value: r.start,
                        max: u64::MAX / self.step(),
                    })?;
                    return Ok(Range {
                        start: v,
                        end: v + 1,
                    });
                }
                Err(Error::StoreUnavailable { .. }) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(counter::unavailable(self.kind(), "every instance failed"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    struct Counter {
        last: AtomicU64,
        down: std::sync::atomic::AtomicBool,
    }

    impl SegmentStore for Counter {
        fn kind(&self) -> &'static str {
            "test"
        }
        fn take(&self, _key: &str, step: u64) -> Result<Range> {
            if self.down.load(Ordering::SeqCst) {
                return Err(counter::unavailable("test", "down"));
            }
            let last = self.last.fetch_add(step, Ordering::SeqCst) + step;
            Ok(Range {
                start: last - step + 1,
                end: last + 1,
            })
        }
        fn identity(&self) -> Result<u64> {
            Ok(self as *const Counter as u64)
        }
    }

    fn counter() -> Arc<Counter> {
        Arc::new(Counter {
            last: AtomicU64::new(0),
            down: false.into(),
        })
    }

    #[test]
    fn instances_issue_their_residues() {
        let (a, b, c) = (counter(), counter(), counter());
        let s = AutoIncStore::new(vec![
            Box::new(a.clone()),
            Box::new(b.clone()),
            Box::new(c.clone()),
        ])
        .unwrap();
        let mut got: Vec<u64> = (0..9).map(|_| s.take("k", 100).unwrap().start).collect();
        got.sort_unstable();
        assert_eq!(got, (1..=9).collect::<Vec<_>>());
        b.down.store(true, Ordering::SeqCst);
        for _ in 0..6 {
            let v = s.take("k", 1).unwrap().start;
            assert_ne!(v % 3, 2, "instance b (offset 2) is down");
        }
        a.down.store(true, Ordering::SeqCst);
        c.down.store(true, Ordering::SeqCst);
        assert!(matches!(
            s.take("k", 1),
            Err(Error::StoreUnavailable {
                store: "autoinc",
                ..
            })
        ));
        assert!(AutoIncStore::new(vec![]).is_err());
    }
}
