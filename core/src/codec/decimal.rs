//! Decimal: base 10 without leading zeros, written two digits per division.

use super::radix::{decode_digits, DigitSpec};
use crate::error::Result;

/// "00".."99": two decimal digits per lookup.
const DIGIT_PAIRS: &[u8; 200] = b"\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

/// The largest decimal length of a `u64` (`18446744073709551615`).
pub const DECIMAL_MAX_LEN: usize = 20;

/// Writes `id` in decimal to the start of `buf` and returns its length: what
/// [`Codec::Decimal`](super::Codec::Decimal) writes, two digits per division (a general radix
/// loop divides once per digit, which was most of the cost of a service answer of 1,000 IDs).
/// The fixed-size buffer lets a caller append all of it and cut to length, a copy that
/// compiles to a few moves.
///
/// # Examples
/// ```
/// let mut buf = [0u8; idmint::codec::DECIMAL_MAX_LEN];
/// let n = idmint::codec::decimal_into(1_234_567, &mut buf);
/// assert_eq!(&buf[..n], b"1234567");
/// ```
pub fn decimal_into(mut id: u64, buf: &mut [u8; DECIMAL_MAX_LEN]) -> usize {
    let n = decimal_len(id);
    let mut i = n;
    while id >= 100 {
        let pair = (id % 100) as usize * 2;
        id /= 100;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    }
    if id >= 10 {
        let pair = id as usize * 2;
        buf[0..2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    } else {
        buf[0] = b'0' + id as u8;
    }
    n
}

/// Number of decimal digits of `v` (1 for 0).
const fn decimal_len(v: u64) -> usize {
    let mut n = 1;
    let mut p = 10u64;
    while n < DECIMAL_MAX_LEN && v >= p {
        n += 1;
        p = p.wrapping_mul(10);
    }
    n
}

const DECIMAL_SPEC: DigitSpec = DigitSpec {
    codec: "decimal",
    radix: 10,
    value: decimal_value,
    bad_char: "not a decimal digit",
    width: None,
    max: b"18446744073709551615",
    overflow: "value exceeds 64 bits (largest is 18446744073709551615)",
};

fn decimal_value(c: char) -> Option<u8> {
    c.to_digit(10).map(|d| d as u8)
}

/// Reads decimal text, as [`Codec::decode`](super::Codec::decode) describes.
pub(super) fn decode(s: &str) -> Result<u64> {
    decode_digits(s, 0, &DECIMAL_SPEC)
}
