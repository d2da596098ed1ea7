//! The clocked UUID front door (std): process-wide v1/v4/v6/v7, TypeID and ULID generators on
//! the system clock, with randomness from each thread's OS-seeded stream ([`random_fill`]), all
//! restarted after `fork()` so a child never repeats its parent's UUIDs or random bytes. Every
//! binding uses this instead of keeping its own globals.
//!
//! **Time.** [`uuid1`], [`uuid6`], [`uuid7`], [`uuid7_fill`], [`typeid`] and [`ulid`] read the
//! coarse clock, as the default `Snowflake` does (`CLOCK_MONOTONIC_COARSE` on Linux, ~6 ns
//! instead of ~29 ns): their time field is never later than the wall clock (v1 and v6 count
//! 100 ns ticks up from the millisecond read, 10 000 per millisecond before they run ahead) and
//! typically at most one kernel tick (4 ms at HZ=250) earlier. Order is unaffected: a reading
//! at or before the last one continues its millisecond's counter. RFC 9562 (section 6.1) leaves
//! the timestamp's accuracy to the implementation; where exact milliseconds matter, a
//! [`UuidGenerator`] reads the precise clock and the sans-IO calls (`next_at`, `Uuid7Generator`)
//! take the time from the caller.

use std::sync::OnceLock;

use crate::clock::{Clock, SystemClock};
use crate::error::{Error, Result};
use crate::fork::{self, ForkLock, ForkLockGuard};
use crate::formats::ksuid::{Ksuid, KsuidGenerator};
use crate::formats::typeid::TypeId;
use crate::formats::ulid::{Ulid, UlidGenerator};
use crate::formats::uuid::{Uuid, Uuid1Generator, Uuid6Generator, Uuid7Generator};
use crate::host_random::draw_outside;
use crate::named::{GeneratedId, NamedConfig, NamedGenerator};
pub use crate::random::random_fill;
use crate::random::{random_u32, random_u64};

fn clock() -> &'static SystemClock {
    static CLOCK: OnceLock<SystemClock> = OnceLock::new();
    CLOCK.get_or_init(SystemClock::new)
}

struct Slot {
    born: u64,
    gen: NamedGenerator,
}

/// A thread-safe UUID generator of one version (1, 4, 6 or 7) on the system clock. Version 7 UUIDs
/// of one generator are strictly increasing (RFC 9562 method 1, a 42-bit counter); version 1
/// uses a random multicast node, never a MAC address. In a forked child it starts afresh, even
/// if another thread of the parent was inside it at the moment of the fork.
///
/// # Examples
/// ```
/// let g = idmint::UuidGenerator::new(7)?;
/// let (a, b) = (g.next()?, g.next()?);
/// assert!(b > a);
/// assert_eq!(a.get_version_num(), 7);
/// # Ok::<(), idmint::Error>(())
/// ```
pub struct UuidGenerator {
    cfg: NamedConfig,
    slot: ForkLock<Slot>,
}

impl core::fmt::Debug for UuidGenerator {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "UuidGenerator({})", self.cfg)
    }
}

impl UuidGenerator {
    /// A generator of UUID `version` 1, 4, 6 or 7.
    pub fn new(version: u8) -> Result<UuidGenerator> {
        let cfg = NamedConfig::uuid_of_version(u64::from(version))?;
        UuidGenerator::from_config(cfg)
    }

    /// A generator for a named UUID config (`type=uuid7`, ...); refuses snowflake configs.
    pub fn from_config(cfg: NamedConfig) -> Result<UuidGenerator> {
        cfg.require_uuid()?;
        let gen = NamedGenerator::new(&cfg)?;
        Ok(UuidGenerator {
            cfg,
            slot: ForkLock::new(Slot {
                born: fork::generation(),
                gen,
            }),
        })
    }

    /// The config this generator was built from.
    pub fn config(&self) -> &NamedConfig {
        &self.cfg
    }

    fn lock(&self) -> Result<ForkLockGuard<'_, Slot>> {
        let mut g = self.slot.lock();
        let now = fork::generation();
        if g.born != now {
            g.gen = NamedGenerator::new(&self.cfg)?;
            g.born = now;
        }
        Ok(g)
    }

    /// The next UUID on the system clock (the precise reading, with its sub-millisecond part
    /// for a v7 generator of that method) with OS-seeded randomness.
    pub fn next(&self) -> Result<Uuid> {
        let (ms, nanos) = self.cfg.now_from(clock());
        self.next_locked(ms, nanos, random_fill)
    }

    /// The time (ms since the Unix epoch) in the last UUID issued by a v1, v6 or v7 generator;
    /// `None` before the first, after a fork, and for v4.
    pub fn last_unix_ms(&self) -> Option<u64> {
        self.lock().ok()?.gen.last_unix_ms()
    }

    /// The sans-IO call: the next UUID at `now_ms`, with `random` filling the bytes it needs.
    /// Randomness is drawn before any state changes: if `random` fails, the generator is as it
    /// was and the error is returned unchanged. `random` runs while the generator is not
    /// locked ([`draw_outside`]), so it may call this generator again.
    pub fn next_at<F>(&self, now_ms: u64, random: F) -> Result<Uuid>
    where
        F: FnMut(&mut [u8]) -> Result<()>,
    {
        self.next_at_precise(now_ms, 0, random)
    }

    /// [`next_at`](Self::next_at) with the nanoseconds into `now_ms`'s millisecond (0 to
    /// 999 999, clamped), used by a v7 generator of the sub-millisecond method only.
    pub fn next_at_precise<F>(&self, now_ms: u64, sub_ms_nanos: u32, random: F) -> Result<Uuid>
    where
        F: FnMut(&mut [u8]) -> Result<()>,
    {
        draw_outside(|fill| self.next_locked(now_ms, sub_ms_nanos, fill), random)?
    }

    /// [`next_at`](Self::next_at) for a host's random source, whose own error type `E` (a
    /// Python exception, a JavaScript one) comes back as is in the outer `Result`, with the
    /// generator as it was; the inner one is the generator's answer. `random` runs unlocked, as
    /// for `next_at`.
    pub fn next_at_with<E>(
        &self,
        now_ms: u64,
        random: impl FnMut(&mut [u8]) -> core::result::Result<(), E>,
    ) -> core::result::Result<Result<Uuid>, E> {
        draw_outside(|fill| self.next_locked(now_ms, 0, fill), random)
    }

    /// One call under the lock, `random` included.
    fn next_locked<F>(&self, now_ms: u64, sub_ms_nanos: u32, random: F) -> Result<Uuid>
    where
        F: FnMut(&mut [u8]) -> Result<()>,
    {
        match self
            .lock()?
            .gen
            .next_at_precise(now_ms, sub_ms_nanos, random)?
        {
            GeneratedId::Uuid(u) => Ok(u),
            GeneratedId::U64(_) => Err(Error::InvalidConfig {
                reason: "not a UUID generator",
            }),
        }
    }
}

/// A version 4 (random) UUID from this thread's OS-seeded ChaCha12 stream.
pub fn uuid4() -> Result<Uuid> {
    let mut b = [0u8; 16];
    random_fill(&mut b)?;
    Ok(crate::formats::uuid::v4(b))
}

/// A process-wide generator's state with the fork generation it belongs to: the front doors
/// below keep one each (v1, v6, v7, ULID), apart from [`UuidGenerator`] so that the hot path is
/// one short lock around the sans-IO generator.
type Shared<G> = ForkLock<(u64, G)>;

/// Locks `shared`, starting its generator afresh (`G::default()`, nothing issued) when it was
/// last used in another fork generation: a forked child never continues its parent's state.
fn state<G: Default>(shared: &'static Shared<G>) -> ForkLockGuard<'static, (u64, G)> {
    let mut g = shared.lock();
    let now = fork::current();
    if g.0 != now {
        *g = (now, G::default());
    }
    g
}

static V1: Shared<Uuid1Generator> = ForkLock::new((u64::MAX, Uuid1Generator::new()));
static V6: Shared<Uuid6Generator> = ForkLock::new((u64::MAX, Uuid6Generator::new()));
/// The clock and each UUID's 32 random bits are read before this one's lock; a new millisecond's
/// counter seed inside it.
static V7: Shared<Uuid7Generator> = ForkLock::new((u64::MAX, Uuid7Generator::new()));
static ULIDS: Shared<UlidGenerator> = ForkLock::new((u64::MAX, UlidGenerator::new()));
static KSUIDS: Shared<KsuidGenerator> = ForkLock::new((u64::MAX, KsuidGenerator::new()));

/// A version 7 UUID from the process-wide monotonic generator (RFC 9562 method 1, a 42-bit
/// counter), on the coarse clock (see the [module docs](self)).
#[inline]
pub fn uuid7() -> Result<Uuid> {
    // The 32 random bits every UUID takes are drawn before the lock; the counter's seed, needed
    // only on a new millisecond, inside it (from this thread's stream, as `ulid()` does).
    let tail = random_u32()?;
    let now = clock().coarse_ms();
    state(&V7).1.next_counter_with(now, tail, random_u64)
}

/// A version 1 UUID from the process-wide generator (a random multicast node and clock
/// sequence, drawn on its first call and again in a forked child), on the coarse clock: no two
/// of a process are equal, and their timestamps never decrease.
pub fn uuid1() -> Result<Uuid> {
    let now = clock().coarse_ms();
    state(&V1).1.next_at(now, random_fill)
}

/// A version 6 UUID from the process-wide generator (as [`uuid1`], fields reordered): the v6
/// UUIDs of a process are strictly increasing.
pub fn uuid6() -> Result<Uuid> {
    let now = clock().coarse_ms();
    state(&V6).1.next_at(now, random_fill)
}

/// Fills `out` with version 7 UUIDs from the process-wide generator, in increasing order,
/// under one lock and one reading of the clock per call: the batch form of [`uuid7`].
pub fn uuid7_fill(out: &mut [Uuid]) -> Result<()> {
    let mut tails = [0u8; 4 * 64];
    let mut state = state(&V7);
    let now = clock().coarse_ms();
    for chunk in out.chunks_mut(64) {
        let bytes = &mut tails[..chunk.len() * 4];
        random_fill(bytes)?;
        for (u, t) in chunk.iter_mut().zip(bytes.chunks_exact(4)) {
            let tail = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
            *u = state.1.next_counter_with(now, tail, random_u64)?;
        }
    }
    Ok(())
}

/// A TypeID under `prefix` on a version 7 UUID from the process-wide generator (so TypeIDs of
/// one process increase, whatever their prefix).
pub fn typeid(prefix: &str) -> Result<TypeId> {
    TypeId::minted(prefix, uuid7)
}

/// A ULID from the process-wide monotonic generator: within one millisecond each is the last
/// plus one; if the 80-bit part runs out, this waits for the next millisecond. Random bytes are
/// drawn only for a new millisecond's first ULID (inside the lock, from this thread's stream).
pub fn ulid() -> Result<Ulid> {
    waiting(&ULIDS, |g, now| g.next_at_with(now, |b| random_fill(b)))
}

/// A KSUID from the process-wide generator: a random payload on a new second, the last plus one
/// within it (as [`ulid`] within a millisecond); if the payload runs out, this waits for the next
/// second.
pub fn ksuid() -> Result<Ksuid> {
    waiting(&KSUIDS, |g, now| g.next_at_with(now, |b| random_fill(b)))
}

/// Mints with `next` from the process-wide generator `shared` on the coarse clock; where it
/// answers `WouldBlock` (its part within the tick ran out), waits for that time with the lock
/// released, then asks again.
fn waiting<G: Default, T>(
    shared: &'static Shared<G>,
    mut next: impl FnMut(&mut G, u64) -> Result<T>,
) -> Result<T> {
    let mut now = clock().coarse_ms();
    loop {
        let mut g = state(shared);
        match next(&mut g.1, now) {
            Err(Error::WouldBlock { until_ms }) => {
                drop(g);
                clock().wait_until(until_ms);
                now = clock().now_ms();
            }
            r => return r,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A replay's random function may call the generator it serves (a host callback does
    /// that): it runs unlocked, so the inner call is made first and the outer one follows it,
    /// where calling it under the lock would spin on that lock forever.
    #[test]
    fn a_random_function_may_call_its_generator_again() {
        for version in [1, 4, 6, 7] {
            let g = UuidGenerator::new(version).unwrap();
            let mut inner = None;
            let outer = g
                .next_at(1_700_000_000_000, |buf: &mut [u8]| {
                    let u = g.next_at(1_700_000_000_000, |b: &mut [u8]| {
                        b.fill(3);
                        Ok(())
                    })?;
                    inner = Some(u);
                    buf.fill(5);
                    Ok(())
                })
                .unwrap();
            let inner = inner.expect("the inner call ran");
            assert_ne!(inner, outer, "v{version}");
            if version != 4 {
                assert!(
                    outer > inner,
                    "v{version}: the outer call follows the inner one"
                );
            }
        }
        // A host's own error passes through `next_at_with` untouched, the generator unchanged.
        let g = UuidGenerator::new(7).unwrap();
        assert_eq!(g.next_at_with(5, |_: &mut [u8]| Err("host")), Err("host"));
        assert_eq!(g.last_unix_ms(), None);
        let u = g.next_at_with(5, |b: &mut [u8]| {
            b.fill(9);
            Ok::<_, ()>(())
        });
        assert_eq!(u.map(|r| r.map(|u| u.get_version_num())), Ok(Ok(7)));
        let g = UuidGenerator::new(7).unwrap();
        let e = g.next_at(0, |_: &mut [u8]| Err(Error::BufferTooSmall { needed: 99 }));
        assert_eq!(
            e,
            Err(Error::BufferTooSmall { needed: 99 }),
            "passed on as is"
        );
        assert_eq!(g.last_unix_ms(), None, "a failed draw changes nothing");
    }

    #[test]
    fn process_wide_v7_is_monotonic_across_threads() {
        let ids: Vec<Vec<Uuid>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|_| s.spawn(|| (0..5000).map(|_| uuid7().unwrap()).collect()))
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut all = std::collections::HashSet::new();
        for v in ids {
            assert!(v.windows(2).all(|w| w[0] < w[1]));
            for u in v {
                assert!(all.insert(u));
            }
        }
        assert_eq!(uuid4().unwrap().get_version_num(), 4);
        assert_eq!(uuid1().unwrap().get_version_num(), 1);
        let (a, b) = (uuid6().unwrap(), uuid6().unwrap());
        assert!(b > a && a.get_version_num() == 6);
        let mut batch = [Uuid::nil(); 300];
        uuid7_fill(&mut batch).unwrap();
        assert!(batch.windows(2).all(|w| w[0] < w[1]));
        assert!(uuid7().unwrap() > batch[299]);
        let (t1, t2) = (typeid("user").unwrap(), typeid("order").unwrap());
        assert!(t2.uuid() > t1.uuid() && t1.prefix() == "user");
        assert!(typeid("User").is_err());
        let (u1, u2) = (ulid().unwrap(), ulid().unwrap());
        assert!(u2 > u1);
        assert!(UuidGenerator::new(5).is_err());
        let g = UuidGenerator::new(7).unwrap();
        assert_eq!(g.last_unix_ms(), None);
        assert_eq!(
            g.next_at(5, |_| Err(Error::RandomSource)),
            Err(Error::RandomSource)
        );
        assert_eq!(g.last_unix_ms(), None);
        g.next_at(1_700_000_000_000, |b| {
            b.fill(1);
            Ok(())
        })
        .unwrap();
        assert_eq!(g.last_unix_ms(), Some(1_700_000_000_000));
    }

    #[test]
    fn streams_never_repeat_bytes_across_reseeds_and_threads() {
        // Past several reseeds in this thread, and in two other threads, no 16-byte draw
        // repeats (each thread's stream is seeded on its own).
        let draws = 3 * crate::random::RESEED_BYTES / 16;
        let mut seen = std::collections::HashSet::new();
        let others: Vec<Vec<[u8; 16]>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..2)
                .map(|_| {
                    s.spawn(|| {
                        (0..2000)
                            .map(|_| {
                                let mut b = [0u8; 16];
                                random_fill(&mut b).unwrap();
                                b
                            })
                            .collect()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for b in others.into_iter().flatten() {
            assert!(seen.insert(b));
        }
        for _ in 0..draws {
            let mut b = [0u8; 16];
            random_fill(&mut b).unwrap();
            assert!(seen.insert(b));
        }
        // Large requests go to the OS and are not all zeros.
        let mut big = [0u8; 8192];
        random_fill(&mut big).unwrap();
        assert!(big.iter().any(|&x| x != 0));
    }
}
