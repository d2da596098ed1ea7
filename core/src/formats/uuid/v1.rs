//! Version 1: Gregorian time, clock sequence and (here always random) node; and
//! [`Uuid1Generator`], which keeps v1 UUIDs of one generator distinct and ordered.

use uuid::{Builder, Uuid};

use crate::error::Result;

/// 100 ns intervals from the Gregorian epoch (1582-10-15) to the Unix epoch.
pub(super) const GREGORIAN_TO_UNIX_TICKS: u64 = 0x01B2_1DD2_1381_4000;

/// The largest v1/v6 timestamp (60 bits).
const MAX_GREGORIAN_TICKS: u64 = (1 << 60) - 1;

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
/// use idmint::formats::uuid::{inspect, v1_random_node};
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

/// Sans-IO version 1 UUIDs with a random node, for `type=uuid1`.
///
/// The first call draws 8 random bytes: 2 for the 14-bit clock sequence and 6 for the node
/// (whose multicast bit is then forced on, so it can never equal a real MAC address). Later
/// calls draw nothing. Within one millisecond, and while the clock is behind the last UUID's
/// time, the generator keeps the last time and counts up the 100 ns ticks below it (10 000 per
/// millisecond, then it moves on to the next millisecond), so every UUID it issues has a
/// distinct timestamp and the timestamps never decrease.
///
/// # Examples
/// ```
/// use idmint::named::Uuid1Generator;
/// use idmint::formats::uuid::inspect;
///
/// let mut g = Uuid1Generator::new();
/// let a = g.next_at(1_700_000_000_000, |b: &mut [u8]| { b.fill(3); Ok(()) })?;
/// let b = g.next_at(1_700_000_000_000, |_: &mut [u8]| unreachable!())?;
/// assert_ne!(a, b);
/// assert_eq!(inspect(&b).unix_ms, Some(1_700_000_000_000));
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Uuid1Generator {
    last_ms: u64,
    extra: u16,
    clock_seq: u16,
    node: [u8; 6],
    started: bool,
}

/// 100 ns ticks in one millisecond, minus one: the largest sub-millisecond count.
const V1_MAX_EXTRA: u16 = 9_999;

impl Uuid1Generator {
    /// A generator that has issued nothing (and drawn no randomness) yet.
    pub const fn new() -> Uuid1Generator {
        Uuid1Generator {
            last_ms: 0,
            extra: 0,
            clock_seq: 0,
            node: [0; 6],
            started: false,
        }
    }

    /// The millisecond of the last UUID issued (may be ahead of the clock); `None` before the
    /// first.
    pub const fn last_unix_ms(&self) -> Option<u64> {
        if self.started {
            Some(self.last_ms)
        } else {
            None
        }
    }

    /// The next UUID at `now_ms`; `random` fills a buffer with random bytes (called once, on
    /// the first call, with 8 bytes) and its error is passed on.
    pub fn next_at<F>(&mut self, now_ms: u64, mut random: F) -> Result<Uuid>
    where
        F: FnMut(&mut [u8]) -> Result<()>,
    {
        if !self.started {
            let mut b = [0u8; 8];
            random(&mut b)?;
            let [s0, s1, n0, n1, n2, n3, n4, n5] = b;
            self.clock_seq = u16::from_be_bytes([s0, s1]) & 0x3fff;
            self.node = [n0, n1, n2, n3, n4, n5];
            self.started = true;
            self.last_ms = now_ms;
            self.extra = 0;
        } else if now_ms > self.last_ms {
            self.last_ms = now_ms;
            self.extra = 0;
        } else if self.extra < V1_MAX_EXTRA {
            self.extra += 1;
        } else {
            self.last_ms = self.last_ms.saturating_add(1);
            self.extra = 0;
        }
        Ok(v1_random_node(
            self.last_ms,
            self.extra,
            self.clock_seq,
            self.node,
        ))
    }
}
