//! Version 4: random.

use uuid::{Builder, Uuid};

/// A version 4 (random) UUID from 16 random bytes; 6 bits are overwritten by version and
/// variant, the other 122 are kept.
///
/// # Examples
/// ```
/// let u = idmint::formats::uuid::v4([0xff; 16]);
/// assert_eq!(u.to_string(), "ffffffff-ffff-4fff-bfff-ffffffffffff");
/// ```
pub const fn v4(random: [u8; 16]) -> Uuid {
    Builder::from_random_bytes(random).into_uuid()
}
