//! The positional machinery every codec shares: digits written in a radix with an alphabet,
//! and digits read back with a [`DigitSpec`] that says what a codec accepts and how it fails.

use crate::error::{Error, Result};

/// Longest encoding of any codec (decimal `u64::MAX` has 20 digits).
pub(super) const MAX_LEN: usize = 20;

/// Writes `id` in base `radix` with `alphabet`, left-padded with the zero digit to `width` if
/// given; returns the length. `radix` ≥ 2 and `width` ≤ 20 are guaranteed by the callers.
pub(super) fn encode_radix(
    mut id: u64,
    radix: u64,
    alphabet: &[u8],
    width: Option<usize>,
    buf: &mut [u8],
) -> usize {
    let mut tmp = [0u8; MAX_LEN];
    let mut n = 0;
    loop {
        let d = (id % radix) as usize;
        if let (Some(slot), Some(&c)) = (tmp.get_mut(n), alphabet.get(d)) {
            *slot = c;
        }
        n += 1;
        id /= radix;
        if id == 0 || n == MAX_LEN {
            break;
        }
    }
    let zero = alphabet.first().copied().unwrap_or(b'0');
    while let Some(w) = width {
        if n >= w || n >= MAX_LEN {
            break;
        }
        if let Some(slot) = tmp.get_mut(n) {
            *slot = zero;
        }
        n += 1;
    }
    for (dst, src) in buf.iter_mut().zip(tmp.get(..n).unwrap_or(&[]).iter().rev()) {
        *dst = *src;
    }
    n
}

/// How one codec reads digits.
pub(super) struct DigitSpec {
    pub(super) codec: &'static str,
    pub(super) radix: u64,
    pub(super) value: fn(char) -> Option<u8>,
    pub(super) bad_char: &'static str,
    /// Exact length in characters, for the fixed-width codecs.
    pub(super) width: Option<(usize, &'static str)>,
    /// `u64::MAX` in this codec, without padding: the digit-wise upper bound.
    pub(super) max: &'static [u8],
    pub(super) overflow: &'static str,
}

/// Decodes `s` (which starts at character `offset` of the user's input) digit by digit.
///
/// Problems are reported in reading order of importance: the first invalid character, then a
/// wrong length, then overflow — blamed on the first character that makes the value too large
/// (found by comparing digit-wise with `u64::MAX`, which works because both are written without
/// leading zeros).
pub(super) fn decode_digits(s: &str, offset: usize, spec: &DigitSpec) -> Result<u64> {
    let err = |at: usize, reason: &'static str| Error::InvalidEncoding {
        codec: spec.codec,
        at,
        reason,
    };
    if s.is_empty() {
        return Err(err(offset, "empty input"));
    }
    let mut len = 0usize;
    let mut leading_zeros = 0usize;
    for (i, c) in s.chars().enumerate() {
        match (spec.value)(c) {
            Some(0) if leading_zeros == i => leading_zeros += 1,
            Some(_) => {}
            None => return Err(err(offset + i, spec.bad_char)),
        }
        len = i + 1;
    }
    if let Some((width, reason)) = spec.width {
        if len != width {
            return Err(err(offset + len, reason));
        }
    }
    let significant = len - leading_zeros;
    if significant > spec.max.len() {
        return Err(err(offset + leading_zeros, spec.overflow));
    }
    if significant == spec.max.len() {
        let digits = s
            .chars()
            .skip(leading_zeros)
            .map(|c| (spec.value)(c).unwrap_or(0));
        let max = spec
            .max
            .iter()
            .map(|&m| (spec.value)(char::from(m)).unwrap_or(0));
        for (i, (d, m)) in digits.zip(max).enumerate() {
            if d > m {
                return Err(err(offset + leading_zeros + i, spec.overflow));
            }
            if d < m {
                break;
            }
        }
    }
    let mut acc = 0u64;
    for (i, c) in s.chars().enumerate() {
        let d = u64::from((spec.value)(c).unwrap_or(0));
        acc = acc
            .checked_mul(spec.radix)
            .and_then(|a| a.checked_add(d))
            .ok_or_else(|| err(offset + i, spec.overflow))?;
    }
    Ok(acc)
}
