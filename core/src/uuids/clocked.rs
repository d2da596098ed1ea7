//! The clocked UUID front door (std): process-wide v1/v4/v7 generators on the system clock, with
//! OS randomness drawn through a pool ([`random_fill`]), all restarted after `fork()` so a child
//! never repeats its parent's UUIDs or random bytes. Every binding uses this instead of keeping
//! its own globals. Also reachable as `idmint::uuid_clock`.

use std::sync::OnceLock;

use crate::clock::{Clock, SystemClock};
use crate::error::{Error, Result};
use crate::fork::{self, ForkLock, ForkLockGuard};
use crate::named::{GeneratedId, NamedConfig, NamedGenerator};
pub use crate::random::random_fill;
use crate::uuids::Uuid;

fn clock() -> &'static SystemClock {
    static CLOCK: OnceLock<SystemClock> = OnceLock::new();
    CLOCK.get_or_init(SystemClock::precise)
}

struct Slot {
    born: u64,
    gen: NamedGenerator,
}

/// A thread-safe UUID generator of one version (1, 4 or 7) on the system clock. Version 7 UUIDs
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
    /// A generator of UUID `version` 1, 4 or 7.
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

    /// The next UUID on the system clock with pooled OS randomness.
    pub fn next(&self) -> Result<Uuid> {
        self.next_at(clock().now_ms(), random_fill)
    }

    /// The time (ms since the Unix epoch) in the last UUID issued by a v1 or v7 generator;
    /// `None` before the first, after a fork, and for v4.
    pub fn last_unix_ms(&self) -> Option<u64> {
        match &self.lock().ok()?.gen {
            NamedGenerator::Uuid7(g) => g.last_unix_ms(),
            NamedGenerator::Uuid1(g) => g.last_unix_ms(),
            _ => None,
        }
    }

    /// The sans-IO call: the next UUID at `now_ms`, with `random` filling the bytes it needs.
    /// Randomness is drawn before any state changes: if `random` fails, the generator is as it
    /// was and the error is returned unchanged.
    pub fn next_at<F>(&self, now_ms: u64, random: F) -> Result<Uuid>
    where
        F: FnMut(&mut [u8]) -> Result<()>,
    {
        match self.lock()?.gen.next_at(now_ms, random)? {
            GeneratedId::Uuid(u) => Ok(u),
            GeneratedId::U64(_) => Err(Error::InvalidConfig {
                reason: "not a UUID generator",
            }),
        }
    }
}

fn global(version: u8) -> &'static Result<UuidGenerator> {
    static V1: OnceLock<Result<UuidGenerator>> = OnceLock::new();
    static V7: OnceLock<Result<UuidGenerator>> = OnceLock::new();
    match version {
        1 => V1.get_or_init(|| UuidGenerator::new(1)),
        _ => V7.get_or_init(|| UuidGenerator::new(7)),
    }
}

/// A version 4 (random) UUID from pooled OS randomness.
pub fn uuid4() -> Result<Uuid> {
    let mut b = [0u8; 16];
    random_fill(&mut b)?;
    Ok(super::v4(b))
}

/// A version 7 UUID from the process-wide monotonic generator.
pub fn uuid7() -> Result<Uuid> {
    global(7).as_ref().map_err(|e| *e)?.next()
}

/// A version 1 UUID (random multicast node) from the process-wide generator.
pub fn uuid1() -> Result<Uuid> {
    global(1).as_ref().map_err(|e| *e)?.next()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn pool_never_repeats_bytes() {
        let mut seen = std::collections::HashSet::new();
        for _ in 0..2000 {
            let mut b = [0u8; 16];
            random_fill(&mut b).unwrap();
            assert!(seen.insert(b));
        }
    }
}
