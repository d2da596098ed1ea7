//! Base62: 11 fixed-width characters of `0-9A-Za-z` in ASCII order, so they sort like the
//! numbers they hold.

use super::radix::{decode_digits, DigitSpec};
use crate::error::Result;

/// The base62 alphabet in ASCII order, so equal-length strings compare like their values.
pub(super) const BASE62: &[u8; 62] =
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

const BASE62_SPEC: DigitSpec = DigitSpec {
    codec: "base62",
    radix: 62,
    value: base62_value,
    bad_char: "not a base62 character",
    width: Some((11, "base62 IDs are exactly 11 characters")),
    max: b"LygHa16AHYF",
    overflow: "value exceeds 64 bits (largest is LygHa16AHYF)",
};

fn base62_value(c: char) -> Option<u8> {
    let d = match c {
        '0'..='9' => c as u32 - '0' as u32,
        'A'..='Z' => c as u32 - 'A' as u32 + 10,
        'a'..='z' => c as u32 - 'a' as u32 + 36,
        _ => return None,
    };
    Some(d as u8)
}

/// Reads base62 text, as [`Codec::decode`](super::Codec::decode) describes.
pub(super) fn decode(s: &str) -> Result<u64> {
    decode_digits(s, 0, &BASE62_SPEC)
}
