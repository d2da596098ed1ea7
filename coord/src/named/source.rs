//! [`NamedSource`]: what a named config builds, whatever its type.

use std::fmt;

use idmint::named::GeneratedId;
use idmint::{Error, Result};

/// A generator built from a named config: thread-safe, minting [`GeneratedId`]s (64-bit IDs or
/// UUIDs) on its own clock, randomness and store.
///
/// Only [`kind`](Self::kind) and [`next_id`](Self::next_id) are required; a type with a faster
/// batch path (one store round trip, one reservation) overrides the fills, and one that holds
/// something (a lease, a journal) overrides [`close`](Self::close). Dropping a source releases
/// what it holds too, but cannot report a failure.
///
/// # Examples
/// A type of your own, registered by name ([`register`](super::register)):
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use idmint::named::GeneratedId;
/// use idmint_coord::named::{self, NamedSource};
///
/// struct Counter(AtomicU64);
///
/// impl NamedSource for Counter {
///     fn kind(&self) -> &str {
///         "doc_counter"
///     }
///     fn next_id(&self) -> idmint::Result<GeneratedId> {
///         Ok(GeneratedId::U64(self.0.fetch_add(1, Ordering::Relaxed)))
///     }
/// }
///
/// named::register("doc_counter", |spec| {
///     spec.check_keys(&["type", "start"], "unknown key (type, start)")?;
///     let start = spec.u64("start")?.unwrap_or(1);
///     Ok(Box::new(Counter(AtomicU64::new(start))))
/// })?;
/// let gen = named::build("type=doc_counter,start=10")?;
/// assert_eq!(gen.next_id()?, GeneratedId::U64(10));
/// let mut batch = [0u64; 3];
/// gen.fill_u64(&mut batch)?;
/// assert_eq!(batch, [11, 12, 13]);
/// # Ok::<(), idmint::Error>(())
/// ```
pub trait NamedSource: Send + Sync {
    /// The type name: `snowflake`, `uuid7`, `segment`, a registered name, …
    fn kind(&self) -> &str;

    /// The config this source was built from, in a form that builds an equal one: the core's
    /// canonical form for core types; for store-backed types the keys as given, with passwords
    /// in store URLs hidden. The default is `type=` and [`kind`](Self::kind).
    fn config(&self) -> String {
        format!("type={}", self.kind())
    }

    /// The next ID, waiting where the type's policy asks (a Snowflake's next tick, a segment
    /// store's next range).
    fn next_id(&self) -> Result<GeneratedId>;

    /// Fills `out` with the next IDs, in the order minted. At most
    /// [`idmint::limits::MAX_BATCH`] IDs ([`Error::LimitExceeded`]); on an error the contents
    /// of `out` are unspecified and none of them may be used.
    fn fill(&self, out: &mut [GeneratedId]) -> Result<()> {
        batch(out.len())?;
        for slot in out {
            *slot = self.next_id()?;
        }
        Ok(())
    }

    /// Fills `out` with the next 64-bit IDs, as [`fill`](Self::fill) does; a type that mints
    /// UUIDs fails with [`Error::InvalidConfig`].
    fn fill_u64(&self, out: &mut [u64]) -> Result<()> {
        batch(out.len())?;
        for slot in out {
            *slot = self.next_id()?.as_u64().ok_or(not_u64())?;
        }
        Ok(())
    }

    /// The sans-IO call of the core's types: the next ID at `now_ms` (ms since the Unix
    /// epoch), with `random` filling the random bytes it needs, exactly as
    /// [`idmint::named::NamedGenerator::next_at`] does. Types that mint from a store have no
    /// such call: [`Error::InvalidConfig`].
    fn next_at(
        &self,
        now_ms: u64,
        random: &mut dyn FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<GeneratedId> {
        let _ = (now_ms, random);
        Err(Error::InvalidConfig {
            reason: "this type has no sans-IO call (it mints from a store): use next_id",
        })
    }

    /// Releases what the source holds and reports how that went: a leased node is released
    /// with its exact last issued time, a segment allocator records its unused values in its
    /// journal.
    fn close(self: Box<Self>) -> Result<()> {
        Ok(())
    }
}

impl fmt::Debug for dyn NamedSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NamedSource")
            .field("kind", &self.kind())
            .field("config", &self.config())
            .finish()
    }
}

/// Refuses a batch larger than the core's limit.
pub(super) fn batch(n: usize) -> Result<()> {
    idmint::limits::batch_len(u64::try_from(n).unwrap_or(u64::MAX)).map(drop)
}

pub(super) fn not_u64() -> Error {
    Error::InvalidConfig {
        reason: "this type mints UUIDs, not 64-bit IDs",
    }
}
