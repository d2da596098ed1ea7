//! Version 7: Unix-time-ordered; and [`Uuid7Generator`], monotonic within one generator.

use uuid::{Builder, Uuid};

/// The largest v7 timestamp (48 bits of ms, reached in the year 10889).
pub(super) const MAX_V7_MS: u64 = (1 << 48) - 1;

/// A version 7 (Unix-time-ordered) UUID from the time and 10 random bytes (74 bits are used).
///
/// UUIDs from different milliseconds sort by time; within one millisecond their order is
/// random — use [`Uuid7Generator`] when consecutive UUIDs must increase. Times beyond the 48-bit
/// field (year 10889) are clamped to its maximum.
///
/// # Examples
/// ```
/// let u = idmint::formats::uuid::v7(1_700_000_000_000, [0; 10]);
/// assert_eq!(u.get_version_num(), 7);
/// assert_eq!(idmint::formats::uuid::inspect(&u).unix_ms, Some(1_700_000_000_000));
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

/// How a [`Uuid7Generator`] keeps the UUIDs of one millisecond increasing: the three methods of
/// RFC 9562 section 6.2.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Uuid7Method {
    /// Method 1, a fixed-length dedicated counter: 42 bits (`rand_a` and the top 30 bits of
    /// `rand_b`) seeded randomly on each new millisecond (top bit clear, so at least 2^41
    /// increments fit) and incremented within it; 32 fresh random bits below. The default.
    #[default]
    Counter,
    /// Method 2, monotonic random: the 74 random bits are one number, seeded on each new
    /// millisecond (top bit clear) and increased within it by a fresh random step of 1 to
    /// 2^32, so consecutive UUIDs are not predictable from each other.
    RandomIncrement,
    /// Method 3, sub-millisecond precision: `rand_a` holds the fraction of the millisecond in
    /// 1/4096 steps (from [`Uuid7Generator::next_at_precise`]), so UUIDs of one process sort by
    /// time to about 244 ns; two in the same step take the next step (the fields may run a
    /// few steps ahead of the clock). `rand_b` is 62 fresh random bits.
    SubMillisecond,
}

impl Uuid7Method {
    /// Every method, in the order above.
    pub const ALL: [Uuid7Method; 3] = [
        Uuid7Method::Counter,
        Uuid7Method::RandomIncrement,
        Uuid7Method::SubMillisecond,
    ];

    /// The method's name on every surface: `counter`, `random_increment`, `sub_millisecond`.
    pub const fn name(self) -> &'static str {
        match self {
            Uuid7Method::Counter => "counter",
            Uuid7Method::RandomIncrement => "random_increment",
            Uuid7Method::SubMillisecond => "sub_millisecond",
        }
    }

    /// The method of a name (see [`name`](Self::name)).
    pub fn parse(name: &str) -> crate::error::Result<Uuid7Method> {
        Uuid7Method::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or(crate::error::Error::InvalidConfig {
                reason: "unknown UUID v7 method (counter, random_increment, sub_millisecond)",
            })
    }
}

/// Bits of the random-increment number (`rand_a` and `rand_b`).
const RANDOM_BITS: u32 = 74;
const RANDOM_MAX: u128 = (1 << RANDOM_BITS) - 1;
/// Sub-millisecond steps per millisecond (12 bits of `rand_a`).
const STEPS_PER_MS: u64 = 4096;

/// Monotonic version 7 UUIDs, by one of RFC 9562's three methods ([`Uuid7Method`]).
///
/// Every UUID from one generator is strictly greater than the one before it. On a new
/// millisecond the generator takes the clock's time; within the same millisecond — or when the
/// clock has stepped back — it keeps the last timestamp and counts on. If the counter (or the
/// random number, or the sub-millisecond step) runs out, the timestamp field advances by 1 ms:
/// the UUIDs run slightly ahead of the clock rather than repeat. Only at the very end of the
/// 48-bit range (year 10889) does a counter wrap, the one case where order is not kept.
///
/// The generator is plain data: share it behind your own lock, or keep one per thread (UUIDs
/// of different generators are unique thanks to their random bits, but not mutually ordered).
///
/// # Examples
/// ```
/// use idmint::formats::uuid::{Uuid7Generator, Uuid7Method};
///
/// let mut gen = Uuid7Generator::new();
/// let a = gen.next_at(1_700_000_000_005, [1; 10]);
/// let b = gen.next_at(1_700_000_000_001, [2; 10]); // the clock stepped back
/// assert!(b > a);
/// assert_eq!(gen.last_unix_ms(), Some(1_700_000_000_005));
///
/// let mut fine = Uuid7Generator::with_method(Uuid7Method::SubMillisecond);
/// let c = fine.next_at_precise(1_700_000_000_000, 500_000, [3; 10]); // half a millisecond in
/// assert_eq!(c.as_bytes()[6] & 0x0f, 0x08); // rand_a = 2048 of 4096
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Uuid7Generator {
    last_ms: u64,
    /// The counter (method 1), the 74-bit number (method 2) or the step (method 3).
    counter: u128,
    started: bool,
    method: Uuid7Method,
}

impl Uuid7Generator {
    /// A generator (method 1, [`Uuid7Method::Counter`]) that has issued nothing yet.
    pub const fn new() -> Uuid7Generator {
        Uuid7Generator::with_method(Uuid7Method::Counter)
    }

    /// A generator using `method`.
    pub const fn with_method(method: Uuid7Method) -> Uuid7Generator {
        Uuid7Generator {
            last_ms: 0,
            counter: 0,
            started: false,
            method,
        }
    }

    /// The method in use.
    pub const fn method(&self) -> Uuid7Method {
        self.method
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

    /// The next UUID at time `unix_ms`, using 10 fresh random bytes. With
    /// [`Uuid7Method::SubMillisecond`] the time is taken as the start of the millisecond.
    pub fn next_at(&mut self, unix_ms: u64, random: [u8; 10]) -> Uuid {
        self.next_at_precise(unix_ms, 0, random)
    }

    /// The next UUID at `unix_ms` plus `sub_ms_nanos` (0 to 999 999 ns, clamped) into that
    /// millisecond; only [`Uuid7Method::SubMillisecond`] uses the fraction.
    pub fn next_at_precise(&mut self, unix_ms: u64, sub_ms_nanos: u32, random: [u8; 10]) -> Uuid {
        let now = unix_ms.min(MAX_V7_MS);
        match self.method {
            Uuid7Method::Counter => self.next_counter(now, random),
            Uuid7Method::RandomIncrement => self.next_random(now, random),
            Uuid7Method::SubMillisecond => self.next_precise(now, sub_ms_nanos, random),
        }
    }

    fn next_counter(&mut self, now: u64, random: [u8; 10]) -> Uuid {
        let [r0, r1, r2, r3, r4, r5, r6, r7, r8, r9] = random;
        let seed = u128::from(u64::from_be_bytes([0, 0, r0, r1, r2, r3, r4, r5]) & SEED_MASK);
        let tail = u32::from_be_bytes([r6, r7, r8, r9]);
        self.advance(now, seed, 1, u128::from(COUNTER_MAX));
        v7_with_counter(self.last_ms, self.counter as u64, tail)
    }

    /// Method 1 with the counter's seed drawn only when one is needed (a new millisecond, or
    /// the counter run out): `tail` is the 32 fresh random bits every UUID takes, `seed` gives
    /// 64 random bits of which 41 are used. The same UUIDs as [`next_at`](Self::next_at) given
    /// the same bits, for callers that pay for each random word (the process-wide `uuid7()`
    /// draws 4 bytes per UUID instead of 10). A failing `seed` changes nothing.
    #[inline]
    #[cfg_attr(not(feature = "std"), allow(dead_code))] // its caller, `uuids::clocked`, needs std
    pub(crate) fn next_counter_with<E>(
        &mut self,
        unix_ms: u64,
        tail: u32,
        seed: impl FnOnce() -> Result<u64, E>,
    ) -> Result<Uuid, E> {
        debug_assert_eq!(self.method, Uuid7Method::Counter);
        let now = unix_ms.min(MAX_V7_MS);
        if self.started && now <= self.last_ms && self.counter < u128::from(COUNTER_MAX) {
            self.counter += 1;
        } else {
            let seed = u128::from(seed()? & SEED_MASK);
            self.advance(now, seed, 1, u128::from(COUNTER_MAX));
        }
        Ok(v7_with_counter(self.last_ms, self.counter as u64, tail))
    }

    fn next_random(&mut self, now: u64, random: [u8; 10]) -> Uuid {
        let mut wide = [0u8; 16];
        wide[6..].copy_from_slice(&random);
        let fresh = u128::from_be_bytes(wide);
        let seed = fresh & (RANDOM_MAX >> 1);
        let step = 1 + u128::from(u32::from_be_bytes([
            random[6], random[7], random[8], random[9],
        ]));
        self.advance(now, seed, step, RANDOM_MAX);
        let n = self.counter;
        let rand_a = ((n >> 62) as u16).to_be_bytes();
        let rand_b = (n as u64).to_be_bytes();
        let bytes = [
            rand_a[0], rand_a[1], rand_b[0], rand_b[1], rand_b[2], rand_b[3], rand_b[4], rand_b[5],
            rand_b[6], rand_b[7],
        ];
        Builder::from_unix_timestamp_millis(self.last_ms, &bytes).into_uuid()
    }

    fn next_precise(&mut self, now: u64, sub_ms_nanos: u32, random: [u8; 10]) -> Uuid {
        let step = u128::from(u64::from(sub_ms_nanos.min(999_999)) * STEPS_PER_MS / 1_000_000);
        let t = u128::from(now) * u128::from(STEPS_PER_MS) + step;
        let last = u128::from(self.last_ms) * u128::from(STEPS_PER_MS) + self.counter;
        let t = if !self.started || t > last {
            t
        } else {
            last + 1
        };
        let max = u128::from(MAX_V7_MS) * u128::from(STEPS_PER_MS) + u128::from(STEPS_PER_MS - 1);
        let t = t.min(max);
        self.started = true;
        self.last_ms = (t / u128::from(STEPS_PER_MS)) as u64;
        self.counter = t % u128::from(STEPS_PER_MS);
        let rand_a = (self.counter as u16).to_be_bytes();
        let mut bytes = [0u8; 10];
        bytes[0] = rand_a[0];
        bytes[1] = rand_a[1];
        bytes[2..].copy_from_slice(&random[2..]);
        Builder::from_unix_timestamp_millis(self.last_ms, &bytes).into_uuid()
    }

    /// Methods 1 and 2: a new millisecond takes `seed`; otherwise the counter grows by `step`,
    /// and past `max` the timestamp advances by 1 ms and the counter is reseeded.
    fn advance(&mut self, now: u64, seed: u128, step: u128, max: u128) {
        if !self.started || now > self.last_ms {
            self.started = true;
            self.last_ms = now;
            self.counter = seed;
        } else if self.counter <= max - step {
            self.counter += step;
        } else {
            if self.last_ms < MAX_V7_MS {
                self.last_ms += 1;
            }
            self.counter = seed;
        }
    }
}

/// Lays out `counter` (42 bits) across `rand_a` and the top of `rand_b`, with `tail` below.
/// Built as one 128-bit value, not byte by byte as the `uuid` crate's builder does: a caller
/// reading the UUID back in words right away then stalls on the bytes' stores (~4 ns).
const fn v7_with_counter(ms: u64, counter: u64, tail: u32) -> Uuid {
    let ms = (ms & 0xFFFF_FFFF_FFFF) as u128;
    let rand_a = (counter >> 30) as u128 & 0xFFF; // 12 bits
    let rand_b = (((counter & ((1 << 30) - 1)) << 32) | tail as u64) as u128; // 62 bits
    Uuid::from_u128((ms << 80) | (0x7 << 76) | (rand_a << 64) | (0b10 << 62) | rand_b)
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use crate::formats::uuid::inspect::inspect;
    use std::string::ToString;
    use uuid::Variant;

    fn rand10(i: u64) -> [u8; 10] {
        let a = (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xdead_beef).to_be_bytes();
        let b = (i as u16).to_be_bytes();
        [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], b[0], b[1]]
    }

    /// The word-built layout is the `uuid` crate's builder's, bit for bit, at the edges of
    /// every field.
    #[test]
    fn v7_with_counter_matches_the_builder() {
        for ms in [0, 1, 1_700_000_000_000, MAX_V7_MS] {
            for counter in [0, 1, (1 << 30) - 1, 1 << 30, 0x2AA_AAAA_AAAA, COUNTER_MAX] {
                for tail in [0, 1, 0x8000_0001, u32::MAX] {
                    let a = ((counter >> 30) as u16).to_be_bytes();
                    let b = (((counter & ((1 << 30) - 1)) << 32) | u64::from(tail)).to_be_bytes();
                    let bytes = [a[0], a[1], b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]];
                    let want = Builder::from_unix_timestamp_millis(ms, &bytes).into_uuid();
                    assert_eq!(
                        v7_with_counter(ms, counter, tail),
                        want,
                        "{ms} {counter} {tail}"
                    );
                }
            }
        }
    }

    /// The lazily seeded step draws a seed for a new millisecond and when the counter runs
    /// out (then the time field moves 1 ms ahead), never otherwise; a failed draw changes
    /// nothing.
    #[test]
    fn v7_lazy_seed_is_drawn_only_when_needed() {
        let ms = 1_700_000_000_000;
        let mut g = Uuid7Generator::new();
        let draws = core::cell::Cell::new(0);
        let seed = || {
            draws.set(draws.get() + 1);
            Ok::<_, ()>(u64::MAX)
        };
        let first = g.next_counter_with(ms, 0, seed).unwrap();
        assert_eq!(g.counter, u128::from(SEED_MASK));
        let second = g.next_counter_with(ms - 5, 0, seed).unwrap();
        assert!(second > first);
        g.counter = u128::from(COUNTER_MAX) - 1;
        let third = g.next_counter_with(ms, 0, seed).unwrap();
        assert!(third > second);
        assert_eq!(draws.get(), 1, "one seed: the first UUID's");
        let before = g;
        assert_eq!(g.next_counter_with(ms, 0, || Err(())), Err(()));
        assert_eq!(g, before, "a failed draw changes nothing");
        let fourth = g.next_counter_with(ms, 0, seed).unwrap();
        assert!(fourth > third);
        assert_eq!(
            inspect(&fourth).unix_ms,
            Some(ms + 1),
            "the counter ran out"
        );
        assert_eq!(draws.get(), 2);
        g.next_counter_with(ms + 7, 0, seed).unwrap();
        assert_eq!(draws.get(), 3, "a new millisecond");
    }

    #[test]
    fn v7_monotonic_in_one_ms() {
        let mut g = Uuid7Generator::new();
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
        let mut g = Uuid7Generator::new();
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
        let mut g = Uuid7Generator {
            last_ms: 5_000,
            counter: u128::from(COUNTER_MAX - 1),
            started: true,
            method: Uuid7Method::Counter,
        };
        let a = g.next_at(5_000, [0xff; 10]);
        assert_eq!(g.counter, u128::from(COUNTER_MAX));
        let b = g.next_at(5_000, [0xff; 10]);
        assert!(b > a);
        assert_eq!(inspect(&b).unix_ms, Some(5_001));
        // The fresh seed has its top bit clear, leaving room to count.
        assert_eq!(g.counter, u128::from(SEED_MASK));
        assert!(g.next_at(5_000, [0xff; 10]) > b);
    }

    #[test]
    fn every_method_is_monotonic_in_one_ms_and_across_steps_back() {
        for m in Uuid7Method::ALL {
            assert_eq!(Uuid7Method::parse(m.name()), Ok(m));
            let mut g = Uuid7Generator::with_method(m);
            let mut prev = g.next_at_precise(1_000_000, 999_999, rand10(0));
            for i in 1..50_000u64 {
                let ms = if i % 1000 == 0 {
                    999_000
                } else {
                    1_000_000 + i / 5000
                };
                let u = g.next_at_precise(ms, (i % 7) as u32 * 100_000, rand10(i));
                assert!(u > prev, "{m:?} at {i}");
                assert_eq!(u.get_version_num(), 7);
                assert_eq!(u.get_variant(), Variant::RFC4122);
                prev = u;
            }
        }
        assert!(Uuid7Method::parse("fast").is_err());
    }

    #[test]
    fn random_increment_overflow_and_sub_ms_steps() {
        let mut g = Uuid7Generator {
            last_ms: 5_000,
            counter: RANDOM_MAX - 3,
            started: true,
            method: Uuid7Method::RandomIncrement,
        };
        let b = g.next_at(5_000, [0xff; 10]);
        assert_eq!(
            inspect(&b).unix_ms,
            Some(5_001),
            "past the top the time advances"
        );
        // Sub-millisecond: the fraction lands in rand_a; the same step twice takes the next.
        let mut p = Uuid7Generator::with_method(Uuid7Method::SubMillisecond);
        let x = p.next_at_precise(7_000, 250_000, [0; 10]);
        let y = p.next_at_precise(7_000, 250_000, [0; 10]);
        let rand_a = |u: &Uuid| u16::from_be_bytes([u.as_bytes()[6], u.as_bytes()[7]]) & 0x0fff;
        assert_eq!((rand_a(&x), rand_a(&y)), (1024, 1025));
        let mut q = Uuid7Generator::with_method(Uuid7Method::SubMillisecond);
        q.next_at_precise(7_000, 999_999, [0; 10]);
        let z = q.next_at_precise(7_000, 999_999, [0; 10]);
        assert_eq!(
            (inspect(&z).unix_ms, rand_a(&z)),
            (Some(7_001), 0),
            "step 4095 + 1 carries"
        );
    }

    #[test]
    fn rfc_9562_appendix_a6() {
        // unix_ts_ms 0x017F22E279B0, rand_a 0xCC3, rand_b 0x18C4DC0C0C07398F.
        let u = v7(
            0x017F_22E2_79B0,
            [0x0C, 0xC3, 0x18, 0xC4, 0xDC, 0x0C, 0x0C, 0x07, 0x39, 0x8F],
        );
        assert_eq!(u.to_string(), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
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
