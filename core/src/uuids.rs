//! UUIDs (RFC 9562) built sans-IO: time and randomness come in as arguments.
//!
//! The [`uuid`] crate does the bit-twiddling; this module adds what a deterministic core needs
//! around it: constructors that never read a clock or an RNG (so they work in `no_std`, in
//! tests, and with any entropy source), a monotonic v7 generator, v1 with a random node instead
//! of a MAC address, inspection, and parsing/formatting with idmint's [`Error`].
//!
//! Which version to choose: **v7** for new database keys (time-ordered, random tail); **v4**
//! when nothing about creation may leak; **v5** (or v3 for legacy) for stable IDs derived from
//! names; **v1** only for systems that insist on it.
//!
//! # Examples
//! ```
//! use idmint::uuids::{self, V7Generator};
//!
//! let mut gen = V7Generator::new();
//! let now_ms = 1_700_000_000_000; // from your clock
//! let a = gen.next_at(now_ms, [7; 10]); // random bytes from your RNG
//! let b = gen.next_at(now_ms, [7; 10]);
//! assert!(b > a);
//! assert_eq!(uuids::inspect(&a).unix_ms, Some(now_ms));
//!
//! let mut buf = [0u8; 36];
//! let n = uuids::encode_hyphenated_into(&a, &mut buf)?;
//! assert_eq!(uuids::parse(core::str::from_utf8(&buf[..n]).unwrap())?, a);
//! # Ok::<(), idmint::Error>(())
//! ```

pub use uuid::Uuid;
use uuid::{Builder, Variant};

use crate::error::{Error, Result};

/// The RFC 9562 namespace for fully qualified domain names (for [`v3`] and [`v5`]).
pub const NAMESPACE_DNS: Uuid = Uuid::NAMESPACE_DNS;
/// The RFC 9562 namespace for URLs.
pub const NAMESPACE_URL: Uuid = Uuid::NAMESPACE_URL;
/// The RFC 9562 namespace for ISO object identifiers.
pub const NAMESPACE_OID: Uuid = Uuid::NAMESPACE_OID;
/// The RFC 9562 namespace for X.500 distinguished names.
pub const NAMESPACE_X500: Uuid = Uuid::NAMESPACE_X500;

/// Length of the hyphenated text form (`8-4-4-4-12` hex digits).
pub const HYPHENATED_LEN: usize = 36;

/// 100 ns intervals from the Gregorian epoch (1582-10-15) to the Unix epoch.
const GREGORIAN_TO_UNIX_TICKS: u64 = 0x01B2_1DD2_1381_4000;
/// The largest v1/v6 timestamp (60 bits).
const MAX_GREGORIAN_TICKS: u64 = (1 << 60) - 1;
/// The largest v7 timestamp (48 bits of ms, reached in the year 10889).
const MAX_V7_MS: u64 = (1 << 48) - 1;

/// A version 4 (random) UUID from 16 random bytes; 6 bits are overwritten by version and
/// variant, the other 122 are kept.
///
/// # Examples
/// ```
/// let u = idmint::uuids::v4([0xff; 16]);
/// assert_eq!(u.to_string(), "ffffffff-ffff-4fff-bfff-ffffffffffff");
/// ```
pub const fn v4(random: [u8; 16]) -> Uuid {
    Builder::from_random_bytes(random).into_uuid()
}

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

/// Forces the multicast bit of a random node ID, which RFC 9562 section 6.10 requires so a
/// random node can never equal a real IEEE 802 MAC address.
const fn random_node(mut node: [u8; 6]) -> [u8; 6] {
    node[0] |= 0x01;
    node
}

/// A version 1 UUID from a 60-bit count of 100 ns intervals since 1582-10-15 (the Gregorian
/// reform), a 14-bit clock sequence and a *random* node.
///
/// The node must come from your RNG, never from a network card: a MAC address in every ID
/// leaks which machine made it. The multicast bit is forced on, per RFC 9562 section 6.10.
/// Ticks beyond 60 bits (year 5236) are clamped; bits of `clock_seq` above 14 are ignored.
pub const fn v1(ticks_since_gregorian: u64, clock_seq: u16, random_node_id: [u8; 6]) -> Uuid {
    let ticks = if ticks_since_gregorian > MAX_GREGORIAN_TICKS {
        MAX_GREGORIAN_TICKS
    } else {
        ticks_since_gregorian
    };
    Builder::from_gregorian_timestamp(ticks, clock_seq & 0x3fff, &random_node(random_node_id))
        .into_uuid()
}

/// A version 1 UUID at `unix_ms` plus `ticks_100ns_extra` 100 ns ticks within that millisecond,
/// with a random node (multicast bit forced on, RFC 9562 section 6.10).
///
/// `ticks_100ns_extra` is clamped to 9 999 so it never spills into the next millisecond; give
/// a sub-millisecond counter there to keep v1 UUIDs of one millisecond distinct. See [`v1`].
///
/// # Examples
/// ```
/// use idmint::uuids::{inspect, v1_random_node};
/// let u = v1_random_node(1_700_000_000_000, 5, 0x1234, [0x00, 1, 2, 3, 4, 5]);
/// assert_eq!(u.get_version_num(), 1);
/// assert_eq!(u.get_node_id().unwrap()[0] & 1, 1); // multicast: not a MAC
/// assert_eq!(inspect(&u).unix_ms, Some(1_700_000_000_000));
/// ```
pub const fn v1_random_node(
    unix_ms: u64,
    ticks_100ns_extra: u16,
    clock_seq: u16,
    random_node_id: [u8; 6],
) -> Uuid {
    let extra = if ticks_100ns_extra > 9_999 {
        9_999
    } else {
        ticks_100ns_extra
    };
    let ticks = GREGORIAN_TO_UNIX_TICKS
        .saturating_add(unix_ms.saturating_mul(10_000))
        .saturating_add(extra as u64);
    v1(ticks, clock_seq, random_node_id)
}

/// A version 3 (MD5, name-based) UUID: the same namespace and name always give the same UUID.
/// Prefer [`v5`] unless you must match existing v3 IDs.
///
/// # Examples
/// ```
/// use idmint::uuids::{v3, NAMESPACE_DNS};
/// assert_eq!(v3(&NAMESPACE_DNS, b"python.org").to_string(), "6fa459ea-ee8a-3ca4-894e-db77e160355e");
/// ```
pub fn v3(namespace: &Uuid, name: &[u8]) -> Uuid {
    Uuid::new_v3(namespace, name)
}

/// A version 5 (SHA-1, name-based) UUID: the same namespace and name always give the same UUID,
/// so independent systems agree on an ID without talking to each other.
///
/// # Examples
/// ```
/// use idmint::uuids::{v5, NAMESPACE_DNS};
/// assert_eq!(v5(&NAMESPACE_DNS, b"python.org").to_string(), "886313e1-3b8a-5372-9b90-0c9aee199e5d");
/// ```
pub fn v5(namespace: &Uuid, name: &[u8]) -> Uuid {
    Uuid::new_v5(namespace, name)
}

/// What a UUID says about itself, from [`inspect`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UuidInfo {
    /// The version nibble (0-15; 1-8 are defined by RFC 9562 for the `rfc9562` variant).
    pub version: u8,
    /// The variant: `ncs` (which includes the nil UUID), `rfc9562`, `microsoft` or `future`
    /// (which includes the max UUID).
    pub variant: &'static str,
    /// Creation time in ms since the Unix epoch (rounded down), for RFC 9562 versions 1, 6 and
    /// 7; `None` for other versions and for v1/v6 times before 1970.
    pub unix_ms: Option<u64>,
}

/// Reads version, variant and (for v1, v6 and v7) the embedded time of a UUID.
///
/// # Examples
/// ```
/// use idmint::uuids::{inspect, parse};
/// let info = inspect(&parse("018bcfe5-6800-7000-8000-000000000000")?);
/// assert_eq!((info.version, info.variant, info.unix_ms), (7, "rfc9562", Some(1_700_000_000_000)));
/// assert_eq!(inspect(&idmint::uuids::Uuid::nil()).unix_ms, None);
/// # Ok::<(), idmint::Error>(())
/// ```
pub fn inspect(uuid: &Uuid) -> UuidInfo {
    let variant = match uuid.get_variant() {
        Variant::NCS => "ncs",
        Variant::RFC4122 => "rfc9562",
        Variant::Microsoft => "microsoft",
        _ => "future",
    };
    let version = uuid.get_version_num() as u8;
    let unix_ms = if variant == "rfc9562" {
        timestamp_ms(uuid, version)
    } else {
        None
    };
    UuidInfo {
        version,
        variant,
        unix_ms,
    }
}

fn timestamp_ms(uuid: &Uuid, version: u8) -> Option<u64> {
    let ts = uuid.get_timestamp()?;
    match version {
        // The Gregorian tick count is exact, unlike the Unix conversion, which wraps before 1970.
        1 | 6 => ts
            .to_gregorian()
            .0
            .checked_sub(GREGORIAN_TO_UNIX_TICKS)
            .map(|t| t / 10_000),
        7 => {
            let (secs, nanos) = ts.to_unix();
            secs.checked_mul(1000)?
                .checked_add(u64::from(nanos / 1_000_000))
        }
        _ => None,
    }
}

/// Parses a UUID in any of the usual forms: hyphenated, 32 bare hex digits, `{braced}` or
/// `urn:uuid:`-prefixed, in either case. Errors are [`Error::InvalidEncoding`] with codec
/// `uuid` and the character index of the first problem.
///
/// # Examples
/// ```
/// use idmint::{uuids::parse, Error};
/// let u = parse("urn:uuid:886313E1-3B8A-5372-9B90-0C9AEE199E5D")?;
/// assert_eq!(u, parse("886313e13b8a53729b900c9aee199e5d")?);
/// let e = parse("886313e1-3b8a-5372-9b90-0c9aee199e5x").unwrap_err();
/// assert!(matches!(e, Error::InvalidEncoding { codec: "uuid", at: 35, .. }));
/// # Ok::<(), idmint::Error>(())
/// ```
pub fn parse(s: &str) -> Result<Uuid> {
    Uuid::try_parse(s).map_err(|_| {
        let (at, reason) = diagnose(s);
        Error::InvalidEncoding {
            codec: "uuid",
            at,
            reason,
        }
    })
}

/// Finds where and why `s` is not a UUID (the `uuid` crate does not expose positions).
fn diagnose(s: &str) -> (usize, &'static str) {
    const FORMS: &str =
        "a UUID is 32 hex digits, optionally hyphenated 8-4-4-4-12, braced or urn:uuid:-prefixed";
    if s.is_empty() {
        return (0, "empty input");
    }
    let (body, offset, wrapped) = if let Some(rest) = s.strip_prefix("urn:uuid:") {
        (rest, 9, true)
    } else if let Some(inner) = s.strip_prefix('{') {
        match inner.strip_suffix('}') {
            Some(inner) => (inner, 1, true),
            None => return (s.chars().count(), "missing closing brace"),
        }
    } else {
        (s, 0, false)
    };
    let hyphenated = body.contains('-') || wrapped;
    let len = body.chars().count();
    for (i, c) in body.chars().enumerate() {
        let dash_here = matches!(i, 8 | 13 | 18 | 23);
        if hyphenated && len == HYPHENATED_LEN {
            if dash_here && c != '-' {
                return (
                    offset + i,
                    "expected a hyphen (groups are 8-4-4-4-12 hex digits)",
                );
            }
            if !dash_here && !c.is_ascii_hexdigit() {
                return (offset + i, "not a hexadecimal digit");
            }
        } else if c == '-' && !hyphenated {
            return (offset + i, FORMS);
        } else if c != '-' && !c.is_ascii_hexdigit() {
            return (offset + i, "not a hexadecimal digit");
        }
    }
    if hyphenated && len != HYPHENATED_LEN {
        // Blame the first hyphen out of place, or the end.
        for (i, c) in body.chars().enumerate() {
            let dash_here = matches!(i, 8 | 13 | 18 | 23);
            if dash_here != (c == '-') {
                return (
                    offset + i,
                    "hyphenated UUIDs are groups of 8-4-4-4-12 hex digits",
                );
            }
        }
        return (
            offset + len,
            "hyphenated UUIDs are groups of 8-4-4-4-12 hex digits",
        );
    }
    if !hyphenated && len != 32 {
        return (len, FORMS);
    }
    (0, FORMS)
}

/// Writes the lower-case hyphenated form (36 ASCII bytes) to the start of `out` and returns
/// 36; fails with [`Error::BufferTooSmall`] (writing nothing) if `out` is shorter. For callers
/// without an allocator, like the C API.
///
/// # Examples
/// ```
/// use idmint::uuids::{encode_hyphenated_into, Uuid};
/// let mut buf = [0u8; 40];
/// assert_eq!(encode_hyphenated_into(&Uuid::max(), &mut buf)?, 36);
/// assert_eq!(&buf[..36], b"ffffffff-ffff-ffff-ffff-ffffffffffff");
/// assert!(encode_hyphenated_into(&Uuid::max(), &mut [0u8; 35]).is_err());
/// # Ok::<(), idmint::Error>(())
/// ```
pub fn encode_hyphenated_into(uuid: &Uuid, out: &mut [u8]) -> Result<usize> {
    match out.get_mut(..HYPHENATED_LEN) {
        Some(dst) => {
            uuid.hyphenated().encode_lower(dst);
            Ok(HYPHENATED_LEN)
        }
        None => Err(Error::BufferTooSmall {
            needed: HYPHENATED_LEN,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use proptest::prelude::*;
    use std::string::ToString;

    fn rand10(i: u64) -> [u8; 10] {
        let a = (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xdead_beef).to_be_bytes();
        let b = (i as u16).to_be_bytes();
        [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], b[0], b[1]]
    }

    #[test]
    fn python_reference_values() {
        assert_eq!(
            v5(&NAMESPACE_DNS, b"python.org").to_string(),
            "886313e1-3b8a-5372-9b90-0c9aee199e5d"
        );
        assert_eq!(
            v3(&NAMESPACE_DNS, b"python.org").to_string(),
            "6fa459ea-ee8a-3ca4-894e-db77e160355e"
        );
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

    #[test]
    fn v1_node_is_multicast() {
        let u = v1_random_node(0, 0, 0xffff, [0; 6]);
        assert_eq!(u.get_version_num(), 1);
        assert_eq!(u.get_node_id(), Some([1, 0, 0, 0, 0, 0]));
        assert_eq!(inspect(&u).unix_ms, Some(0));
        let t = v1_random_node(1_234_567, 20_000, 0, [2; 6]);
        assert_eq!(
            t.get_timestamp().unwrap().to_gregorian().0,
            GREGORIAN_TO_UNIX_TICKS + 12_345_679_999
        );
        assert_eq!(t.get_node_id(), Some([3, 2, 2, 2, 2, 2]));
        assert_eq!(inspect(&v1(0, 0, [0; 6])).unix_ms, None); // 1582
        let _ = v1_random_node(u64::MAX, u16::MAX, u16::MAX, [0xff; 6]);
    }

    #[test]
    fn inspect_versions() {
        let v4u = v4([0x55; 16]);
        assert_eq!(
            inspect(&v4u),
            UuidInfo {
                version: 4,
                variant: "rfc9562",
                unix_ms: None
            }
        );
        assert_eq!(
            inspect(&Uuid::nil()),
            UuidInfo {
                version: 0,
                variant: "ncs",
                unix_ms: None
            }
        );
        assert_eq!(
            inspect(&Uuid::max()),
            UuidInfo {
                version: 15,
                variant: "future",
                unix_ms: None
            }
        );
        let v6 = Builder::from_sorted_gregorian_timestamp(
            GREGORIAN_TO_UNIX_TICKS + 10_000 * 42 + 1,
            0,
            &[1; 6],
        )
        .into_uuid();
        assert_eq!(inspect(&v6).unix_ms, Some(42));
        // A "v7" of the Microsoft variant carries no RFC 9562 time.
        let mut b = *v7(99, [0; 10]).as_bytes();
        b[8] = 0xc0;
        assert_eq!(inspect(&Uuid::from_bytes(b)).variant, "microsoft");
        assert_eq!(inspect(&Uuid::from_bytes(b)).unix_ms, None);
    }

    fn bad(s: &str) -> (usize, &'static str) {
        match parse(s) {
            Err(Error::InvalidEncoding {
                codec: "uuid",
                at,
                reason,
            }) => (at, reason),
            other => panic!("{s:?}: {other:?}"),
        }
    }

    #[test]
    fn parse_forms_and_errors() {
        let u = v5(&NAMESPACE_URL, b"x");
        let s = u.to_string();
        assert_eq!(parse(&s), Ok(u));
        assert_eq!(parse(&s.to_uppercase()), Ok(u));
        assert_eq!(parse(&std::format!("{{{s}}}")), Ok(u));
        assert_eq!(parse(&std::format!("urn:uuid:{s}")), Ok(u));
        assert_eq!(parse(&u.simple().to_string()), Ok(u));

        assert_eq!(bad(""), (0, "empty input"));
        assert_eq!(
            bad("886313e1-3b8a-5372-9b90-0c9aee199e5g"),
            (35, "not a hexadecimal digit")
        );
        assert_eq!(bad("886313e1_3b8a-5372-9b90-0c9aee199e5d").0, 8);
        assert_eq!(bad("886313e1-3b8a-5372-9b900-c9aee199e5d").0, 23);
        assert_eq!(bad("886313e1-3b8a-5372-9b90-0c9aee199e5").0, 35);
        assert_eq!(bad("886313e13b8a53729b900c9aee199e5").0, 31);
        assert_eq!(
            bad("{886313e1-3b8a-5372-9b90-0c9aee199e5d").1,
            "missing closing brace"
        );
        assert_eq!(bad("urn:uuid:886313e1-3b8a-5372-9b90-0c9aee199e5z").0, 44);
        assert_eq!(bad("{886313e13b8a53729b900c9aee199e5d}").0, 9);
        assert_eq!(bad("ü86313e1-3b8a-5372-9b90-0c9aee199e5d").0, 0);
    }

    #[test]
    fn hyphenated_into() {
        let mut buf = [0u8; 36];
        let u = v5(&NAMESPACE_DNS, b"python.org");
        assert_eq!(encode_hyphenated_into(&u, &mut buf), Ok(36));
        assert_eq!(&buf[..], b"886313e1-3b8a-5372-9b90-0c9aee199e5d");
        assert_eq!(
            encode_hyphenated_into(&u, &mut buf[..10]),
            Err(Error::BufferTooSmall { needed: 36 })
        );
    }

    proptest! {
        #[test]
        fn parse_never_panics(s in ".*") {
            let _ = parse(&s);
        }

        #[test]
        fn parse_near_misses(s in "[0-9a-fA-F{}:urnid-]{30,46}") {
            match parse(&s) {
                Ok(u) => prop_assert_eq!(parse(&u.to_string()), Ok(u)),
                Err(Error::InvalidEncoding { at, .. }) => prop_assert!(at <= s.chars().count()),
                Err(e) => prop_assert!(false, "{:?}", e),
            }
        }

        #[test]
        fn v7_generator_orders_any_clock(steps in proptest::collection::vec((0u64..2_000, any::<[u8; 10]>()), 1..200)) {
            let mut g = V7Generator::new();
            let mut prev: Option<Uuid> = None;
            for (ms, r) in steps {
                let u = g.next_at(1_700_000_000_000 + ms, r);
                if let Some(p) = prev {
                    prop_assert!(u > p);
                }
                prev = Some(u);
            }
        }

        #[test]
        fn v7_time_round_trips(ms in 0u64..=MAX_V7_MS, r in any::<[u8; 10]>()) {
            prop_assert_eq!(inspect(&v7(ms, r)).unix_ms, Some(ms));
            prop_assert_eq!(inspect(&V7Generator::new().next_at(ms, r)).unix_ms, Some(ms));
        }
    }
}
