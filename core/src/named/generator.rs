//! [`NamedGenerator`]: the generator a [`NamedConfig`] builds, and the [`GeneratedId`]s it
//! mints.

use core::fmt;

use super::config::{NamedConfig, NamedType};
use crate::error::Result;
use crate::formats::uuid::{self, Uuid, Uuid1Generator, Uuid6Generator, Uuid7Generator};
use crate::snowflake::LocalSnowflake;

/// One generated ID: a 64-bit integer (Snowflake) or a UUID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GeneratedId {
    /// A 64-bit ID from a Snowflake generator.
    U64(u64),
    /// A UUID.
    Uuid(Uuid),
}

impl GeneratedId {
    /// The 64-bit ID, if this is one.
    pub const fn as_u64(&self) -> Option<u64> {
        match self {
            GeneratedId::U64(v) => Some(*v),
            GeneratedId::Uuid(_) => None,
        }
    }

    /// The UUID, if this is one.
    pub const fn as_uuid(&self) -> Option<&Uuid> {
        match self {
            GeneratedId::Uuid(u) => Some(u),
            GeneratedId::U64(_) => None,
        }
    }
}

/// Decimal for 64-bit IDs, lower-case hyphenated for UUIDs.
impl fmt::Display for GeneratedId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GeneratedId::U64(v) => write!(f, "{v}"),
            GeneratedId::Uuid(u) => write!(f, "{}", u.hyphenated()),
        }
    }
}

impl NamedConfig {
    /// Builds a fresh generator from this config.
    pub fn build(&self) -> Result<NamedGenerator> {
        NamedGenerator::new(self)
    }
}

/// A generator built from a [`NamedConfig`]: one sans-IO call, whatever the type.
// One generator per owner, called on the hot path: keep it inline rather than boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum NamedGenerator {
    /// A Snowflake generator.
    Snowflake(LocalSnowflake),
    /// Random version 4 UUIDs (stateless).
    Uuid4,
    /// Monotonic version 7 UUIDs.
    Uuid7(Uuid7Generator),
    /// Version 1 UUIDs with a random node.
    Uuid1(Uuid1Generator),
    /// Version 6 UUIDs.
    Uuid6(Uuid6Generator),
}

impl NamedGenerator {
    /// Validates `cfg` and builds a fresh generator.
    pub fn new(cfg: &NamedConfig) -> Result<NamedGenerator> {
        Ok(match cfg {
            NamedConfig::Snowflake(c) => NamedGenerator::Snowflake(LocalSnowflake::new(*c)?),
            NamedConfig::Uuid4 => NamedGenerator::Uuid4,
            NamedConfig::Uuid7(m) => NamedGenerator::Uuid7(Uuid7Generator::with_method(*m)),
            NamedConfig::Uuid1 => NamedGenerator::Uuid1(Uuid1Generator::new()),
            NamedConfig::Uuid6 => NamedGenerator::Uuid6(Uuid6Generator::new()),
        })
    }

    /// The type of this generator.
    pub const fn kind(&self) -> NamedType {
        match self {
            NamedGenerator::Snowflake(_) => NamedType::Snowflake,
            NamedGenerator::Uuid4 => NamedType::Uuid4,
            NamedGenerator::Uuid7(_) => NamedType::Uuid7,
            NamedGenerator::Uuid1(_) => NamedType::Uuid1,
            NamedGenerator::Uuid6(_) => NamedType::Uuid6,
        }
    }

    /// The time (ms since the Unix epoch) in the last UUID a v1, v6 or v7 generator issued
    /// (it may run ahead of the clock); `None` before the first, and for v4 and Snowflake
    /// generators.
    pub fn last_unix_ms(&self) -> Option<u64> {
        match self {
            NamedGenerator::Uuid7(g) => g.last_unix_ms(),
            NamedGenerator::Uuid1(g) => g.last_unix_ms(),
            NamedGenerator::Uuid6(g) => g.last_unix_ms(),
            NamedGenerator::Snowflake(_) | NamedGenerator::Uuid4 => None,
        }
    }

    /// The next ID at `now_ms` (ms since the Unix epoch).
    ///
    /// `random` fills the buffer it is given with random bytes (see
    /// [`NamedType::random_bytes`] for how many) or fails, typically with
    /// [`Error::RandomSource`](crate::Error::RandomSource); its error is returned as is. Snowflake generators never call
    /// it, and return their own errors ([`Error::WouldBlock`](crate::Error::WouldBlock) and the like) unchanged.
    pub fn next_at<F>(&mut self, now_ms: u64, random: F) -> Result<GeneratedId>
    where
        F: FnMut(&mut [u8]) -> Result<()>,
    {
        self.next_at_precise(now_ms, 0, random)
    }

    /// [`next_at`](Self::next_at) with the nanoseconds into `now_ms`'s millisecond (0 to
    /// 999 999, clamped), which only a v7 generator of the sub-millisecond method uses (see
    /// [`Clock::now_ms_nanos`](crate::Clock::now_ms_nanos) for a clock's reading of both).
    pub fn next_at_precise<F>(
        &mut self,
        now_ms: u64,
        sub_ms_nanos: u32,
        mut random: F,
    ) -> Result<GeneratedId>
    where
        F: FnMut(&mut [u8]) -> Result<()>,
    {
        match self {
            NamedGenerator::Snowflake(g) => g.next_id_at(now_ms).map(GeneratedId::U64),
            NamedGenerator::Uuid4 => {
                let mut b = [0u8; 16];
                random(&mut b)?;
                Ok(GeneratedId::Uuid(uuid::v4(b)))
            }
            NamedGenerator::Uuid7(g) => {
                let mut b = [0u8; 10];
                random(&mut b)?;
                Ok(GeneratedId::Uuid(g.next_at_precise(
                    now_ms,
                    sub_ms_nanos,
                    b,
                )))
            }
            NamedGenerator::Uuid1(g) => g.next_at(now_ms, random).map(GeneratedId::Uuid),
            NamedGenerator::Uuid6(g) => g.next_at(now_ms, random).map(GeneratedId::Uuid),
        }
    }
}
