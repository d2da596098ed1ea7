//! UUIDs (RFC 9562) built sans-IO: time and randomness come in as arguments.
//!
//! The [`uuid`] crate does the bit-twiddling; this module adds what a deterministic core needs
//! around it: constructors that never read a clock or an RNG (so they work in `no_std`, in
//! tests, and with any entropy source), a monotonic v7 generator, v1 with a random node instead
//! of a MAC address, inspection, and parsing/formatting with idmint's [`Error`].
//!
//! Which version to choose: **v7** for new database keys (time-ordered, random tail); **v4**
//! when nothing about creation may leak; **v5** (or v3 for legacy) for stable IDs derived from
//! names; **v6** where v1's fields are required but sorting matters; **v8** for a layout of
//! your own; **v1** only for systems that insist on it. [`NIL`] and [`MAX`] are the two
//! special values.
//!
//! # Examples
//! ```
//! use idmint::formats::uuid::{self, Uuid7Generator};
//!
//! let mut gen = Uuid7Generator::new();
//! let now_ms = 1_700_000_000_000; // from your clock
//! let a = gen.next_at(now_ms, [7; 10]); // random bytes from your RNG
//! let b = gen.next_at(now_ms, [7; 10]);
//! assert!(b > a);
//! assert_eq!(uuid::inspect(&a).unix_ms, Some(now_ms));
//!
//! let mut buf = [0u8; 36];
//! let n = uuid::encode_hyphenated_into(&a, &mut buf)?;
//! assert_eq!(uuid::parse(core::str::from_utf8(&buf[..n]).unwrap())?, a);
//! # Ok::<(), idmint::Error>(())
//! ```
//!
//! [`Error`]: crate::Error

mod inspect;
#[cfg(test)]
mod tests;
mod text;
mod v1;
mod v3;
mod v4;
mod v5;
mod v6;
mod v7;
mod v8;

pub use inspect::{inspect, UuidInfo};
pub use text::{encode_hyphenated_into, parse, HYPHENATED_LEN};
pub use uuid::Uuid;
pub use v1::{v1, v1_random_node, Uuid1Generator};
pub use v3::v3;
pub use v4::v4;
pub use v5::v5;
pub use v6::{v1_to_v6, v6, v6_to_v1, Uuid6Generator};
pub use v7::{v7, Uuid7Generator, Uuid7Method};
pub use v8::{v8, v8_fields, v8_from_fields, v8_sha256};

/// The Nil UUID, all 128 bits zero (RFC 9562 section 5.9).
pub const NIL: Uuid = Uuid::nil();
/// The Max UUID, all 128 bits one (RFC 9562 section 5.10).
pub const MAX: Uuid = Uuid::max();

/// The RFC 9562 namespace for fully qualified domain names (for [`v3`] and [`v5`]).
pub const NAMESPACE_DNS: Uuid = Uuid::NAMESPACE_DNS;
/// The RFC 9562 namespace for URLs.
pub const NAMESPACE_URL: Uuid = Uuid::NAMESPACE_URL;
/// The RFC 9562 namespace for ISO object identifiers.
pub const NAMESPACE_OID: Uuid = Uuid::NAMESPACE_OID;
/// The RFC 9562 namespace for X.500 distinguished names.
pub const NAMESPACE_X500: Uuid = Uuid::NAMESPACE_X500;
