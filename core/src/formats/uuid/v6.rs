//! Version 6: version 1's fields reordered, most significant time bits first, so the UUIDs
//! sort by creation time as bytes and as text; conversions between the two; and
//! [`Uuid6Generator`].

use uuid::{Builder, Uuid};

use super::v1::Uuid1Generator;
use crate::error::{Error, Result};
use crate::field_name::Name;

/// A version 6 UUID from a 60-bit count of 100 ns intervals since 1582-10-15, a 14-bit clock
/// sequence and a node (give random bytes, never a MAC address; the multicast bit is forced on
/// as for [`v1`](super::v1)). Ticks beyond 60 bits are clamped; bits of `clock_seq` above 14
/// are ignored.
///
/// # Examples
/// ```
/// // RFC 9562 appendix A.5.
/// let u = idmint::formats::uuid::v6(0x1EC9414C232AB00, 0x33C8, [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46]);
/// assert_eq!(u.to_string(), "1ec9414c-232a-6b00-b3c8-9f6bdeced846");
/// ```
pub fn v6(ticks_since_gregorian: u64, clock_seq: u16, random_node_id: [u8; 6]) -> Uuid {
    reorder(super::v1::v1(
        ticks_since_gregorian,
        clock_seq,
        random_node_id,
    ))
}

/// The v1 fields (`time_low`, `time_mid`, `time_high`) as one 60-bit tick count.
fn v1_ticks(b: &[u8; 16]) -> u64 {
    let low = u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let mid = u64::from(u16::from_be_bytes([b[4], b[5]]));
    let high = u64::from(u16::from_be_bytes([b[6], b[7]]) & 0x0fff);
    (high << 48) | (mid << 32) | low
}

/// The v6 fields (`time_high`, `time_mid`, `time_low`) as one 60-bit tick count.
fn v6_ticks(b: &[u8; 16]) -> u64 {
    let high = u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let mid = u64::from(u16::from_be_bytes([b[4], b[5]]));
    let low = u64::from(u16::from_be_bytes([b[6], b[7]]) & 0x0fff);
    (high << 28) | (mid << 12) | low
}

/// A v1 UUID's bits in v6 order: clock sequence and node stay as they are.
fn reorder(v1: Uuid) -> Uuid {
    let b = v1.as_bytes();
    let mut tail = [0u8; 8];
    tail.copy_from_slice(&b[8..]);
    let node = [tail[2], tail[3], tail[4], tail[5], tail[6], tail[7]];
    let seq = u16::from_be_bytes([tail[0], tail[1]]) & 0x3fff;
    Builder::from_sorted_gregorian_timestamp(v1_ticks(b), seq, &node).into_uuid()
}

fn not_version(n: u8) -> Error {
    Error::InvalidArgument {
        argument: Name::lossy("uuid"),
        reason: match n {
            1 => "not a version 1 UUID",
            _ => "not a version 6 UUID",
        },
    }
}

fn is_rfc_version(u: &Uuid, n: usize) -> bool {
    u.get_version_num() == n && u.get_variant() == uuid::Variant::RFC4122
}

/// The v6 UUID holding the same time, clock sequence and node as the v1 UUID `v1`
/// (RFC 9562 section 5.6); [`Error::InvalidArgument`] if `v1` is not a version 1 UUID.
///
/// # Examples
/// ```
/// use idmint::formats::uuid::{parse, v1_to_v6, v6_to_v1};
/// let v1 = parse("C232AB00-9414-11EC-B3C8-9F6BDECED846")?;
/// let v6 = v1_to_v6(&v1)?;
/// assert_eq!(v6.to_string(), "1ec9414c-232a-6b00-b3c8-9f6bdeced846");
/// assert_eq!(v6_to_v1(&v6)?, v1);
/// # Ok::<(), idmint::Error>(())
/// ```
pub fn v1_to_v6(v1: &Uuid) -> Result<Uuid> {
    if !is_rfc_version(v1, 1) {
        return Err(not_version(1));
    }
    Ok(reorder(*v1))
}

/// The v1 UUID holding the same time, clock sequence and node as the v6 UUID `v6`;
/// [`Error::InvalidArgument`] if `v6` is not a version 6 UUID.
pub fn v6_to_v1(v6: &Uuid) -> Result<Uuid> {
    if !is_rfc_version(v6, 6) {
        return Err(not_version(6));
    }
    let b = v6.as_bytes();
    let node = [b[10], b[11], b[12], b[13], b[14], b[15]];
    let seq = u16::from_be_bytes([b[8], b[9]]) & 0x3fff;
    Ok(Builder::from_gregorian_timestamp(v6_ticks(b), seq, &node).into_uuid())
}

/// Version 6 UUIDs that increase: a [`Uuid1Generator`] (a random clock sequence and random
/// node drawn once, a 100 ns counter within each millisecond, the last time kept when the clock
/// steps back) whose UUIDs are reordered into v6, so consecutive UUIDs sort in creation order.
///
/// # Examples
/// ```
/// use idmint::formats::uuid::Uuid6Generator;
/// let mut g = Uuid6Generator::new();
/// let a = g.next_at(1_700_000_000_000, |b: &mut [u8]| { b.fill(7); Ok(()) })?;
/// let b = g.next_at(1_699_000_000_000, |_: &mut [u8]| unreachable!())?; // clock stepped back
/// assert!(b > a && b.get_version_num() == 6);
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Uuid6Generator {
    v1: Uuid1Generator,
}

impl Uuid6Generator {
    /// A generator that has issued nothing (and drawn no randomness) yet.
    pub const fn new() -> Uuid6Generator {
        Uuid6Generator {
            v1: Uuid1Generator::new(),
        }
    }

    /// The millisecond of the last UUID issued; `None` before the first.
    pub const fn last_unix_ms(&self) -> Option<u64> {
        self.v1.last_unix_ms()
    }

    /// The next UUID at `now_ms`; `random` fills 8 bytes on the first call only (clock
    /// sequence and node).
    pub fn next_at<F>(&mut self, now_ms: u64, random: F) -> Result<Uuid>
    where
        F: FnMut(&mut [u8]) -> Result<()>,
    {
        Ok(reorder(self.v1.next_at(now_ms, random)?))
    }
}
