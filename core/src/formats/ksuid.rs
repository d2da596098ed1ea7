//! KSUID (Segment's K-Sortable Unique ID): 20 bytes, a 32-bit big-endian count of seconds since
//! the KSUID epoch (1400000000, 2014-05-13T16:53:20Z) and 16 random payload bytes, written as
//! 27 base62 characters (`0-9A-Za-z`, zero-padded) that sort as the bytes do; and
//! [`KsuidGenerator`], whose KSUIDs increase within a second.
//!
//! Text is read strictly: exactly 27 characters of the alphabet, at most
//! [`MAX_TEXT`] (`aWgEPTl1tmebfsQzFP4bxwgy80V`, the 20 bytes all `0xff`).
//!
//! # Examples
//! ```
//! use idmint::formats::ksuid::{Ksuid, KsuidGenerator};
//!
//! // github.com/segmentio/ksuid's README example.
//! let k = Ksuid::parse("0ujtsYcgvSTl8PAuAdqWYSMnLOv")?;
//! assert_eq!(k.timestamp(), 107_608_047);
//! assert_eq!(k.unix_ms(), 1_507_608_047_000); // 2017-10-10T04:00:47Z
//! assert_eq!(k.to_string(), "0ujtsYcgvSTl8PAuAdqWYSMnLOv");
//!
//! let mut gen = KsuidGenerator::new();
//! let a = gen.next_at(1_507_608_047_000, [0x11; 16])?;
//! let b = gen.next_at(1_507_608_047_999, [0x00; 16])?; // same second: the last one plus 1
//! assert_eq!(b.payload_u128(), a.payload_u128() + 1);
//! # Ok::<(), idmint::Error>(())
//! ```

use core::fmt;
use core::str::FromStr;

use crate::error::{Error, Result};
use crate::field_name::Name;

/// The KSUID epoch, seconds since the Unix epoch (2014-05-13T16:53:20Z).
pub const EPOCH_S: u64 = 1_400_000_000;
/// The KSUID epoch in ms since the Unix epoch.
pub const EPOCH_MS: u64 = EPOCH_S * 1000;
/// Bytes in the binary form.
pub const BYTES: usize = 20;
/// Characters in the text form.
pub const LEN: usize = 27;
/// The text of the largest KSUID (every byte `0xff`).
pub const MAX_TEXT: &str = "aWgEPTl1tmebfsQzFP4bxwgy80V";
/// The largest 128-bit payload.
pub const MAX_PAYLOAD: u128 = u128::MAX;

const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A KSUID, as its 20 bytes (time first, so byte order is time order).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Ksuid(pub [u8; BYTES]);

impl Ksuid {
    /// The all-zero KSUID (`000000000000000000000000000`).
    pub const NIL: Ksuid = Ksuid([0; BYTES]);
    /// The largest KSUID ([`MAX_TEXT`]).
    pub const MAX: Ksuid = Ksuid([0xff; BYTES]);

    /// The KSUID of `timestamp` (seconds since the KSUID epoch) and 16 payload bytes.
    pub const fn from_parts(timestamp: u32, payload: [u8; 16]) -> Ksuid {
        let mut b = [0u8; BYTES];
        let t = timestamp.to_be_bytes();
        let mut i = 0;
        while i < 4 {
            b[i] = t[i];
            i += 1;
        }
        while i < BYTES {
            b[i] = payload[i - 4];
            i += 1;
        }
        Ksuid(b)
    }

    /// The KSUID of the second holding `unix_ms` and 16 payload bytes: [`Error::BeforeEpoch`]
    /// before 2014-05-13T16:53:20Z, [`Error::OutOfRange`] past the 32-bit seconds (2150).
    pub fn from_unix_ms(unix_ms: u64, payload: [u8; 16]) -> Result<Ksuid> {
        Ok(Ksuid::from_parts(seconds_of(unix_ms)?, payload))
    }

    /// Reads the 27-character base62 text form.
    pub fn parse(text: &str) -> Result<Ksuid> {
        decode(text.as_bytes()).map(Ksuid)
    }

    /// Seconds since the KSUID epoch.
    pub const fn timestamp(&self) -> u32 {
        u32::from_be_bytes([self.0[0], self.0[1], self.0[2], self.0[3]])
    }

    /// The time, ms since the Unix epoch (whole seconds: a KSUID has no finer time).
    pub const fn unix_ms(&self) -> u64 {
        (EPOCH_S + self.timestamp() as u64) * 1000
    }

    /// The 16 payload bytes.
    pub const fn payload(&self) -> [u8; 16] {
        let mut p = [0u8; 16];
        let mut i = 0;
        while i < 16 {
            p[i] = self.0[4 + i];
            i += 1;
        }
        p
    }

    /// The payload as a big-endian 128-bit number.
    pub const fn payload_u128(&self) -> u128 {
        u128::from_be_bytes(self.payload())
    }

    /// The 20 bytes.
    pub const fn to_bytes(&self) -> [u8; BYTES] {
        self.0
    }

    /// The text form: 27 base62 characters.
    pub const fn encode(&self) -> [u8; LEN] {
        // The 160-bit value as five big-endian 32-bit words, divided by 62 once per character.
        let mut words = [0u32; 5];
        let mut w = 0;
        while w < 5 {
            let b = &self.0;
            words[w] = u32::from_be_bytes([b[4 * w], b[4 * w + 1], b[4 * w + 2], b[4 * w + 3]]);
            w += 1;
        }
        let mut out = [b'0'; LEN];
        let mut i = LEN;
        while i > 0 {
            i -= 1;
            let mut rem: u64 = 0;
            let mut w = 0;
            while w < 5 {
                let cur = (rem << 32) | words[w] as u64;
                words[w] = (cur / 62) as u32;
                rem = cur % 62;
                w += 1;
            }
            out[i] = ALPHABET[rem as usize];
        }
        out
    }
}

/// Seconds since the KSUID epoch of `unix_ms`, checked against the 32-bit field.
fn seconds_of(unix_ms: u64) -> Result<u32> {
    if unix_ms < EPOCH_MS {
        return Err(Error::BeforeEpoch {
            now_ms: unix_ms,
            epoch_ms: EPOCH_MS,
        });
    }
    let s = unix_ms / 1000 - EPOCH_S;
    u32::try_from(s).map_err(|_| Error::OutOfRange {
        field: Name::lossy("timestamp"),
        value: s,
        max: u64::from(u32::MAX),
    })
}

const fn value_of(c: u8) -> Option<u32> {
    match c {
        b'0'..=b'9' => Some((c - b'0') as u32),
        b'A'..=b'Z' => Some((c - b'A') as u32 + 10),
        b'a'..=b'z' => Some((c - b'a') as u32 + 36),
        _ => None,
    }
}

fn decode(text: &[u8]) -> Result<[u8; BYTES]> {
    let bad = |at: usize, reason: &'static str| Error::InvalidEncoding {
        codec: "ksuid",
        at,
        reason,
    };
    if text.len() != LEN {
        return Err(bad(
            text.len().min(LEN),
            "expected exactly 27 base62 characters",
        ));
    }
    let mut words = [0u32; 5];
    for (i, &c) in text.iter().enumerate() {
        let d = value_of(c).ok_or(bad(i, "not a base62 character (0-9 A-Z a-z)"))?;
        // words = words * 62 + d, from the least significant word up.
        let mut carry = u64::from(d);
        for w in words.iter_mut().rev() {
            let cur = u64::from(*w) * 62 + carry;
            *w = cur as u32;
            carry = cur >> 32;
        }
        if carry != 0 {
            return Err(bad(
                i,
                "above the largest KSUID, aWgEPTl1tmebfsQzFP4bxwgy80V (the value is 160 bits)",
            ));
        }
    }
    let mut out = [0u8; BYTES];
    for (chunk, w) in out.chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&w.to_be_bytes());
    }
    Ok(out)
}

impl fmt::Display for Ksuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.encode();
        f.write_str(core::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Ksuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Ksuid({self})")
    }
}

impl FromStr for Ksuid {
    type Err = Error;
    fn from_str(s: &str) -> Result<Ksuid> {
        Ksuid::parse(s)
    }
}

/// KSUIDs that increase: on a new second a fresh random payload; within the same second — or
/// when the clock has stepped back, whose time is then not used — the last KSUID's payload plus
/// one, as [`UlidGenerator`](crate::formats::ulid::UlidGenerator) does within a millisecond.
///
/// When the payload cannot be incremented (2^128 KSUIDs in one second, or a random start at the
/// top), `next_at` answers [`Error::WouldBlock`] until the next second instead of carrying into
/// the time field (as segmentio/ksuid's `Next` does): the time a KSUID carries is never ahead of
/// the clock, and nothing repeats or goes backwards.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KsuidGenerator {
    last: Option<Ksuid>,
}

impl KsuidGenerator {
    /// A generator that has issued nothing yet.
    pub const fn new() -> KsuidGenerator {
        KsuidGenerator { last: None }
    }

    /// The last KSUID issued.
    pub const fn last(&self) -> Option<Ksuid> {
        self.last
    }

    /// The next KSUID at `unix_ms` with 16 fresh random bytes.
    pub fn next_at(&mut self, unix_ms: u64, random: [u8; 16]) -> Result<Ksuid> {
        self.next_at_with(unix_ms, |r| {
            *r = random;
            Ok(())
        })
    }

    /// [`next_at`](Self::next_at) asking `random` for the bytes only when they are used, that
    /// is when `unix_ms` is past the last KSUID's second. If `random` fails, or the time is
    /// outside the KSUID range on a new second, the generator is as it was and the error is
    /// returned.
    pub fn next_at_with<F>(&mut self, unix_ms: u64, random: F) -> Result<Ksuid>
    where
        F: FnOnce(&mut [u8; 16]) -> Result<()>,
    {
        let next = match self.within_last_second(unix_ms)? {
            Some(next) => next,
            None => {
                let seconds = seconds_of(unix_ms)?;
                let mut bytes = [0u8; 16];
                random(&mut bytes)?;
                Ksuid::from_parts(seconds, bytes)
            }
        };
        self.last = Some(next);
        Ok(next)
    }

    /// The last KSUID plus one when `unix_ms` is not past its second (`WouldBlock` when its
    /// payload is at the top); `None` when a new second needs fresh bytes. Kept apart from the
    /// generic [`next_at_with`](Self::next_at_with) so each caller's copy stays small.
    #[inline(never)]
    fn within_last_second(&self, unix_ms: u64) -> Result<Option<Ksuid>> {
        let Some(last) = self.last else {
            return Ok(None);
        };
        if unix_ms >= last.unix_ms() + 1000 {
            return Ok(None);
        }
        let mut next = last;
        // The payload (bytes 4..20) plus one, carried from the last byte; all 0xff cannot grow.
        for b in next.0[4..].iter_mut().rev() {
            let (v, carry) = b.overflowing_add(1);
            *b = v;
            if !carry {
                return Ok(Some(next));
            }
        }
        Err(Error::WouldBlock {
            until_ms: last.unix_ms() + 1000,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_cases_and_bounds() {
        assert_eq!(&Ksuid::MAX.encode(), MAX_TEXT.as_bytes());
        assert_eq!(&Ksuid::NIL.encode(), b"000000000000000000000000000");
        assert_eq!(Ksuid::parse(MAX_TEXT), Ok(Ksuid::MAX));
        let k = Ksuid::parse("0ujzPyRiIAffKhBux4PvQdDqMHY").unwrap();
        assert_eq!(k.timestamp(), 107_610_780);
        assert_eq!(k.payload_u128(), 0x73FC_1AA3_B244_6246_D6E8_9FCD_909E_8FE8);
        for bad in [
            "aWgEPTl1tmebfsQzFP4bxwgy80W",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "aWgEPTl1tmebfsQzFP4bxwgy80!",
            "123",
            "0ujtsYcgvSTl8PAuAdqWYSMnLOv0",
        ] {
            assert!(
                matches!(
                    Ksuid::parse(bad),
                    Err(Error::InvalidEncoding { codec: "ksuid", .. })
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            Ksuid::from_unix_ms(EPOCH_MS - 1, [0; 16]),
            Err(Error::BeforeEpoch { .. })
        ));
        let last_ms = (EPOCH_S + u64::from(u32::MAX)) * 1000 + 999;
        assert_eq!(
            Ksuid::from_unix_ms(last_ms, [0; 16]).map(|k| k.timestamp()),
            Ok(u32::MAX)
        );
        assert!(matches!(
            Ksuid::from_unix_ms(last_ms + 1, [0; 16]),
            Err(Error::OutOfRange { .. })
        ));
    }

    #[test]
    fn overflow_waits_for_the_next_second() {
        let mut g = KsuidGenerator::new();
        let a = g.next_at(EPOCH_MS + 10_500, [0xff; 16]).unwrap();
        assert_eq!(a.timestamp(), 10);
        let wait = Err(Error::WouldBlock {
            until_ms: EPOCH_MS + 11_000,
        });
        assert_eq!(g.next_at(EPOCH_MS + 10_999, [0; 16]), wait);
        assert_eq!(g.next_at(EPOCH_MS + 3_000, [0; 16]), wait);
        let b = g.next_at(EPOCH_MS + 11_000, [0; 16]).unwrap();
        assert!(b > a);
        assert_eq!(b.timestamp(), 11);
    }

    #[test]
    fn random_bytes_are_asked_for_only_on_a_new_second() {
        let mut g = KsuidGenerator::new();
        let asked = core::cell::Cell::new(0);
        let draw = |b: &mut [u8; 16]| {
            asked.set(asked.get() + 1);
            *b = [0x11; 16];
            Ok(())
        };
        let a = g.next_at_with(EPOCH_MS + 20_000, draw).unwrap();
        let b = g.next_at_with(EPOCH_MS + 20_999, draw).unwrap();
        let c = g.next_at_with(EPOCH_MS + 19_000, draw).unwrap(); // the clock stepped back
        assert_eq!(asked.get(), 1);
        assert_eq!(b.payload_u128(), a.payload_u128() + 1);
        assert_eq!(c.payload_u128(), a.payload_u128() + 2);
        // A failing source or a time before the epoch leaves the generator as it was.
        assert_eq!(
            g.next_at_with(EPOCH_MS + 21_000, |_| Err(Error::RandomSource)),
            Err(Error::RandomSource)
        );
        let mut fresh = KsuidGenerator::new();
        assert!(fresh.next_at(0, [0; 16]).is_err());
        assert_eq!(fresh.last(), None);
        assert_eq!(g.last(), Some(c));
        let d = g.next_at_with(EPOCH_MS + 21_000, draw).unwrap();
        assert_eq!((asked.get(), d.timestamp()), (2, 21));
    }
}
