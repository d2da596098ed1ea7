//! Crockford base32: 13 fixed-width characters that sort like the numbers they hold.

use super::radix::{decode_digits, DigitSpec};
use crate::error::Result;

/// Crockford's base32 alphabet: digits and upper-case letters without I, L, O and U, which are
/// easily confused (or, for U, make accidental words). Its ASCII order matches digit order.
pub(super) const BASE32: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

const BASE32_SPEC: DigitSpec = DigitSpec {
    codec: "base32",
    radix: 32,
    value: base32_value,
    bad_char: "not a Crockford base32 character",
    width: Some((13, "base32 IDs are exactly 13 characters")),
    max: b"FZZZZZZZZZZZZ",
    overflow: "value exceeds 64 bits (the first base32 character must be 0-F)",
};

fn base32_value(c: char) -> Option<u8> {
    let c = c.to_ascii_uppercase();
    let c = match c {
        'I' | 'L' => '1',
        'O' => '0',
        c => c,
    };
    BASE32
        .iter()
        .position(|&a| char::from(a) == c)
        .map(|p| p as u8)
}

/// Reads base32 text, as [`Codec::decode`](super::Codec::decode) describes.
pub(super) fn decode(s: &str) -> Result<u64> {
    decode_digits(s, 0, &BASE32_SPEC)
}
