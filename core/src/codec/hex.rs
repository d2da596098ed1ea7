//! Hex: `0x` and lower-case base 16 out, either case with or without the prefix in.

use super::radix::{decode_digits, DigitSpec};
use crate::error::{Error, Result};

pub(super) const HEX: &[u8; 16] = b"0123456789abcdef";

const HEX_SPEC: DigitSpec = DigitSpec {
    codec: "hex",
    radix: 16,
    value: hex_value,
    bad_char: "not a hexadecimal digit",
    width: None,
    max: b"ffffffffffffffff",
    overflow: "value exceeds 64 bits (at most 16 significant hex digits)",
};

fn hex_value(c: char) -> Option<u8> {
    c.to_digit(16).map(|d| d as u8)
}

/// Reads hex text, with or without its `0x`/`0X` prefix (an error's `at` counts the prefix).
pub(super) fn decode(s: &str) -> Result<u64> {
    let (body, offset) = match s.get(..2) {
        Some("0x" | "0X") => (&s[2..], 2),
        _ => (s, 0),
    };
    if offset == 2 && body.is_empty() {
        return Err(Error::InvalidEncoding {
            codec: "hex",
            at: 2,
            reason: "no digits after the 0x prefix",
        });
    }
    decode_digits(body, offset, &HEX_SPEC)
}
