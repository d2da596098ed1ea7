//! Version 7: Unix-time-ordered; and [`V7Generator`], monotonic within one generator.

use uuid::Builder;

use super::Uuid;

/// The largest v7 timestamp (48 bits of ms, reached in the year 10889).
pub(super) const MAX_V7_MS: u64 = (1 << 48) - 1;

/// A version 7 (Unix-time-ordered) UUID from the time and 10 random bytes (74 bits are used).
///
/// UUIDs from different milliseconds sort by time; within one millisecond their order is
/// random — use [`V7Generator`] when consecutive UUIDs must increase. Times beyond the 48-bit
/// field (year 10889) are clamped to its maximum.
///
/// # Examples
/// ```
/// let u = idmint::uuids::v7(1_700_000_000_000, [0; 10]);
/// assert_eq!(u.get_version_num(), 7);
/// assert_eq!(idmint::uuids::inspect(&u).unix_ms, Some(1_700_000_000_000));
/// ```
pub const fn v7(unix_ms: u64, random: [u8; 10]) -> Uuid {
    let ms = if unix_ms > MAX_V7_MS {
        MAX_V7_MS
    } else {
        unix_ms
    };
    Builder::from_unix_timestamp_millis(ms, &random).into_uuid()
}

/// Bits of the v7 counter: the 12 bits of `rand_a` plus the top 30 bits of `rand_b`.
const COUNTER_BITS: u32 = 42;
const COUNTER_MAX: u64 = (1 << COUNTER_BITS) - 1;
/// A fresh counter has its top bit cleared, leaving at least 2^41 increments per millisecond.
const SEED_MASK: u64 = (1 << (COUNTER_BITS - 1)) - 1;

/// Monotonic version 7 UUIDs (RFC 9562 section 6.2, method 1: a fixed-length dedicated
/// counter).
///
/// Each UUID holds a 48-bit millisecond timestamp, a 42-bit counter (`rand_a` plus the top 30
/// bits of `rand_b`) and 32 fresh random bits. On a new millisecond the counter is seeded from
/// the random input with its top bit cleared, leaving room for at least 2^41 increments; within
/// the same millisecond — or when the clock has stepped back — the last timestamp is kept and
/// the counter is incremented. So every UUID from one generator is strictly greater than the
/// previous one.
///
/// If the counter overflows (2^41 or more UUIDs in one millisecond, or a clock that stays
/// behind for that long), the timestamp field is advanced by 1 ms and the counter reseeded:
/// the UUIDs run slightly ahead of the clock rather than repeat. Only at the very end of the
/// 48-bit range (year 10889) does the counter wrap, the one case where order is not kept.
///
/// The generator is plain data: share it behind your own lock, or keep one per thread (UUIDs
/// of different generators are unique thanks to their random bits, but not mutually ordered).
///
/// # Examples
/// ```
/// use idmint::uuids::V7Generator;
///
/// let mut gen = V7Generator::new();
/// let a = gen.next_at(1_700_000_000_005, [1; 10]);
/// let b = gen.next_at(1_700_000_000_001, [2; 10]); // the clock stepped back
/// assert!(b > a);
/// assert_eq!(gen.last_unix_ms(), Some(1_700_000_000_005));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct V7Generator {
    last_ms: u64,
    counter: u64,
    started: bool,
}

impl V7Generator {
    /// A generator that has issued nothing yet.
    pub const fn new() -> V7Generator {
        V7Generator {
            last_ms: 0,
            counter: 0,
            started: false,
        }
    }

    /// The timestamp (ms since the Unix epoch) in the last UUID issued, which may be ahead of
    /// or behind the clock; `None` before the first.
    pub const fn last_unix_ms(&self) -> Option<u64> {
        if self.started {
            Some(self.last_ms)
        } else {
            None
        }
    }

    /// The next UUID at time `unix_ms`, using 10 fresh random bytes (the first 6 may seed the
    /// counter, the last 4 fill the random tail).
    pub fn next_at(&mut self, unix_ms: u64, random: [u8; 10]) -> Uuid {
        let [r0, r1, r2, r3, r4, r5, r6, r7, r8, r9] = random;
        let seed = u64::from_be_bytes([0, 0, r0, r1, r2, r3, r4, r5]) & SEED_MASK;
        let tail = u32::from_be_bytes([r6, r7, r8, r9]);
        let now = unix_ms.min(MAX_V7_MS);
        if !self.started || now > self.last_ms {
            self.started = true;
            self.last_ms = now;
            self.counter = seed;
        } else if self.counter < COUNTER_MAX {
            self.counter += 1;
        } else if self.last_ms < MAX_V7_MS {
            self.last_ms += 1;
            self.counter = seed;
        } else {
            self.counter = seed;
        }
        v7_with_counter(self.last_ms, self.counter, tail)
    }
}

/// Lays out `counter` (42 bits) across `rand_a` and the top of `rand_b`, with `tail` below.
const fn v7_with_counter(ms: u64, counter: u64, tail: u32) -> Uuid {
    let rand_a = (counter >> 30) as u16; // 12 bits
    let rand_b = ((counter & ((1 << 30) - 1)) << 32) | tail as u64; // 62 bits
    let a = rand_a.to_be_bytes();
    let b = rand_b.to_be_bytes();
    // The builder overwrites the top nibble of byte 0 (version) and the top two bits of
    // byte 2 (variant), which are exactly the bits left free here.
    let bytes = [a[0], a[1], b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]];
    Builder::from_unix_timestamp_millis(ms, &bytes).into_uuid()
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use crate::uuids::inspect;
    use std::string::ToString;
    use uuid::Variant;

    fn rand10(i: u64) -> [u8; 10] {
        let a = (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xdead_beef).to_be_bytes();
        let b = (i as u16).to_be_bytes();
        [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], b[0], b[1]]
    }

    #[test]
    fn v7_monotonic_in_one_ms() {
        let mut g = V7Generator::new();
        let ms = 1_700_000_000_000;
        let mut prev = g.next_at(ms, rand10(0));
        for i in 1..100_000u64 {
            let u = g.next_at(ms, rand10(i));
            assert!(u > prev, "at {i}");
            assert_eq!(u.get_version_num(), 7);
            assert_eq!(u.get_variant(), Variant::RFC4122);
            assert_eq!(inspect(&u).unix_ms, Some(ms));
            prev = u;
        }
    }

    #[test]
    fn v7_monotonic_across_backwards_step() {
        let mut g = V7Generator::new();
        let mut prev = g.next_at(1_000_000, rand10(1));
        for (i, ms) in [
            1_000_000u64,
            999_000,
            0,
            1_000_000,
            1_000_001,
            500,
            1_000_002,
        ]
        .into_iter()
        .enumerate()
        {
            let u = g.next_at(ms, rand10(i as u64 + 2));
            assert!(u > prev, "step {i} to {ms}");
            prev = u;
        }
        assert_eq!(g.last_unix_ms(), Some(1_000_002));
    }

    #[test]
    fn v7_counter_overflow_advances_time() {
        let mut g = V7Generator {
            last_ms: 5_000,
            counter: COUNTER_MAX - 1,
            started: true,
        };
        let a = g.next_at(5_000, [0xff; 10]);
        assert_eq!(g.counter, COUNTER_MAX);
        let b = g.next_at(5_000, [0xff; 10]);
        assert!(b > a);
        assert_eq!(inspect(&b).unix_ms, Some(5_001));
        // The fresh seed has its top bit clear, leaving room to count.
        assert_eq!(g.counter, SEED_MASK);
        assert!(g.next_at(5_000, [0xff; 10]) > b);
    }

    #[test]
    fn v7_layout() {
        let u = v7_with_counter(0x0123_4567_89ab, COUNTER_MAX, 0xffff_ffff);
        assert_eq!(u.to_string(), "01234567-89ab-7fff-bfff-ffffffffffff");
        let u = v7_with_counter(1, 1 << 30, 0);
        assert_eq!(u.to_string(), "00000000-0001-7001-8000-000000000000");
        assert_eq!(
            v7(u64::MAX, [0; 10]).to_string(),
            "ffffffff-ffff-7000-8000-000000000000"
        );
    }
}
