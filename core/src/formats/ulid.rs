//! ULID: 48 bits of Unix milliseconds and 80 random bits, written as 26 Crockford base32
//! characters (`01ARYZ6S41YYYYYYYYYYYYYYYY`) that sort by time; and [`UlidGenerator`], whose
//! ULIDs increase within a millisecond as the ULID spec's monotonic mode says.
//!
//! Text is written upper case and read in either case; `I L O U`, hyphens and a first
//! character above `7` are refused (the spec's alphabet and its 128-bit limit).
//!
//! # Examples
//! ```
//! use idmint::formats::ulid::{Ulid, UlidGenerator};
//!
//! let u = Ulid::parse("01ARYZ6S41YYYYYYYYYYYYYYYY")?;
//! assert_eq!(u.timestamp_ms(), 1_469_918_176_385);
//! assert_eq!(u.to_string(), "01ARYZ6S41YYYYYYYYYYYYYYYY");
//!
//! let mut gen = UlidGenerator::new();
//! let a = gen.next_at(1_469_918_176_385, [0xf7; 10])?;
//! let b = gen.next_at(1_469_918_176_385, [0x00; 10])?; // same ms: the last one plus 1
//! assert_eq!(b.random(), a.random() + 1);
//! # Ok::<(), idmint::Error>(())
//! ```

use core::fmt;
use core::str::FromStr;

use crate::error::{Error, Result};
use crate::field_name::Name;
use crate::formats::crockford::{self, Case};
use crate::formats::uuid::Uuid;

/// The largest ULID time: 2^48 - 1 ms (year 10889).
pub const MAX_TIMESTAMP_MS: u64 = (1 << 48) - 1;
/// The largest 80-bit random part.
pub const MAX_RANDOM: u128 = (1 << 80) - 1;
/// Characters in the text form.
pub const LEN: usize = crockford::LEN;

/// A ULID, as its 128-bit value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Ulid(pub u128);

impl Ulid {
    /// The ULID of `timestamp_ms` and an 80-bit `random` part: [`Error::OutOfRange`] for a
    /// time past 48 bits, [`Error::InvalidArgument`] for a random part past 80.
    pub fn from_parts(timestamp_ms: u64, random: u128) -> Result<Ulid> {
        if timestamp_ms > MAX_TIMESTAMP_MS {
            return Err(Error::OutOfRange {
                field: Name::lossy("timestamp_ms"),
                value: timestamp_ms,
                max: MAX_TIMESTAMP_MS,
            });
        }
        if random > MAX_RANDOM {
            return Err(Error::InvalidArgument {
                argument: Name::lossy("random"),
                reason: "a ULID's random part is 80 bits",
            });
        }
        Ok(Ulid((u128::from(timestamp_ms) << 80) | random))
    }

    /// The ULID of `timestamp_ms` (clamped to 48 bits) and 10 random bytes.
    pub const fn from_bytes_at(timestamp_ms: u64, random: [u8; 10]) -> Ulid {
        let ms = if timestamp_ms > MAX_TIMESTAMP_MS {
            MAX_TIMESTAMP_MS
        } else {
            timestamp_ms
        };
        let mut wide = [0u8; 16];
        let mut i = 0;
        while i < 10 {
            wide[6 + i] = random[i];
            i += 1;
        }
        Ulid(((ms as u128) << 80) | u128::from_be_bytes(wide))
    }

    /// Reads the 26-character text form (either case).
    pub fn parse(text: &str) -> Result<Ulid> {
        crockford::decode(text.as_bytes(), Case::Any, "ulid", 0).map(Ulid)
    }

    /// The time, ms since the Unix epoch.
    pub const fn timestamp_ms(&self) -> u64 {
        (self.0 >> 80) as u64
    }

    /// The 80-bit random part.
    pub const fn random(&self) -> u128 {
        self.0 & MAX_RANDOM
    }

    /// The upper-case text form.
    pub const fn encode(&self) -> [u8; LEN] {
        crockford::encode(self.0, false)
    }

    /// The same 128 bits as a UUID (not an RFC 9562 version: ULIDs have no version bits).
    pub const fn to_uuid(&self) -> Uuid {
        Uuid::from_u128(self.0)
    }

    /// The ULID with the same 128 bits as `uuid`.
    pub const fn from_uuid(uuid: &Uuid) -> Ulid {
        Ulid(uuid.as_u128())
    }
}

impl fmt::Display for Ulid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.encode();
        f.write_str(crockford::ascii_str(&text).ok_or(fmt::Error)?)
    }
}

impl fmt::Debug for Ulid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Ulid({self})")
    }
}

impl FromStr for Ulid {
    type Err = Error;
    fn from_str(s: &str) -> Result<Ulid> {
        Ulid::parse(s)
    }
}

/// Monotonic ULIDs: on a new millisecond a fresh random part; within the same millisecond — or
/// when the clock has stepped back, whose time is then not used — the last ULID plus one, as
/// the ULID spec's monotonic mode and its reference implementation do.
///
/// When the 80-bit random part cannot be incremented (2^80 ULIDs in one millisecond, or a
/// random start near the top), `next_at` answers [`Error::WouldBlock`] until the next
/// millisecond instead of wrapping: the caller waits (the clocked front doors do) and nothing
/// repeats or goes backwards.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UlidGenerator {
    last: Option<Ulid>,
}

impl UlidGenerator {
    /// A generator that has issued nothing yet.
    pub const fn new() -> UlidGenerator {
        UlidGenerator { last: None }
    }

    /// The last ULID issued.
    pub const fn last(&self) -> Option<Ulid> {
        self.last
    }

    /// The next ULID at `unix_ms` (clamped to 48 bits) with 10 fresh random bytes.
    pub fn next_at(&mut self, unix_ms: u64, random: [u8; 10]) -> Result<Ulid> {
        self.next_at_with(unix_ms, |r| {
            *r = random;
            Ok(())
        })
    }

    /// [`next_at`](Self::next_at) asking `random` for the bytes only when they are used, that
    /// is when `unix_ms` is past the last ULID's millisecond (within it, the next is the last
    /// plus one). If `random` fails, the generator is as it was and its error is returned.
    pub fn next_at_with<F>(&mut self, unix_ms: u64, random: F) -> Result<Ulid>
    where
        F: FnOnce(&mut [u8; 10]) -> Result<()>,
    {
        let now = unix_ms.min(MAX_TIMESTAMP_MS);
        let next = match self.last {
            Some(last) if now <= last.timestamp_ms() => {
                if last.random() == MAX_RANDOM {
                    return Err(Error::WouldBlock {
                        until_ms: last.timestamp_ms() + 1,
                    });
                }
                Ulid(last.0 + 1)
            }
            _ => {
                let mut bytes = [0u8; 10];
                random(&mut bytes)?;
                Ulid::from_bytes_at(now, bytes)
            }
        };
        self.last = Some(next);
        Ok(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_and_bounds() {
        let u = Ulid::from_parts(MAX_TIMESTAMP_MS, MAX_RANDOM).unwrap();
        assert_eq!(&u.encode(), b"7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
        assert!(Ulid::from_parts(MAX_TIMESTAMP_MS + 1, 0).is_err());
        assert!(Ulid::from_parts(0, MAX_RANDOM + 1).is_err());
        assert_eq!(
            Ulid::parse("01aryz6s41yyyyyyyyyyyyyyyy"),
            Ulid::parse("01ARYZ6S41YYYYYYYYYYYYYYYY")
        );
        assert!(Ulid::parse("80000000000000000000000000").is_err());
        assert!(Ulid::parse("01ARYZ6S41YYYYYYYYYYYYYYYL").is_err());
        assert_eq!(Ulid::from_uuid(&u.to_uuid()), u);
    }

    #[test]
    fn overflow_waits_for_the_next_millisecond() {
        let mut g = UlidGenerator::new();
        let a = g.next_at(10, [0xff; 10]).unwrap();
        assert_eq!(a.random(), MAX_RANDOM);
        assert_eq!(
            g.next_at(10, [0; 10]),
            Err(Error::WouldBlock { until_ms: 11 })
        );
        assert_eq!(
            g.next_at(5, [0; 10]),
            Err(Error::WouldBlock { until_ms: 11 })
        );
        let b = g.next_at(11, [0; 10]).unwrap();
        assert!(b > a);
    }

    #[test]
    fn random_bytes_are_asked_for_only_on_a_new_millisecond() {
        let mut g = UlidGenerator::new();
        let asked = core::cell::Cell::new(0);
        let draw = |b: &mut [u8; 10]| {
            asked.set(asked.get() + 1);
            *b = [0x11; 10];
            Ok(())
        };
        let a = g.next_at_with(20, draw).unwrap();
        let b = g.next_at_with(20, draw).unwrap();
        let c = g.next_at_with(19, draw).unwrap(); // the clock stepped back
        assert_eq!((asked.get(), b.0, c.0), (1, a.0 + 1, a.0 + 2));
        // A failing source on a new millisecond leaves the generator as it was.
        assert_eq!(
            g.next_at_with(21, |_| Err(Error::RandomSource)),
            Err(Error::RandomSource)
        );
        assert_eq!(g.last(), Some(c));
        let d = g.next_at_with(21, draw).unwrap();
        assert_eq!((asked.get(), d.timestamp_ms()), (2, 21));
    }
}
