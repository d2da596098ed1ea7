//! Hex: `0x` and lower-case base 16 out, either case with or without the prefix in.

use super::radix::DigitSpec;

pub(super) const HEX: &[u8; 16] = b"0123456789abcdef";

pub(super) const HEX_SPEC: DigitSpec = DigitSpec {
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
