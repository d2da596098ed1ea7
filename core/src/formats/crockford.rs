//! 128 bits as 26 Crockford base32 characters, most significant first, the top character
//! carrying the 3 bits left over (so it is at most `7`): the text form shared by ULID and the
//! TypeID suffix. Decoding is strict: no hyphens, no `I L O U`, no value above 2^128 - 1.

use crate::error::Error;

/// Characters in the text form.
pub const LEN: usize = 26;

const UPPER: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const LOWER: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// Which letter case decoding accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Case {
    /// Lower case only (TypeID).
    Lower,
    /// Either case (ULID).
    Any,
}

/// The 26 characters of `v`, upper or lower case.
pub(crate) const fn encode(v: u128, lower: bool) -> [u8; LEN] {
    let alphabet = if lower { LOWER } else { UPPER };
    let mut out = [0u8; LEN];
    let mut i = 0;
    while i < LEN {
        let shift = 5 * (LEN - 1 - i) as u32;
        out[i] = alphabet[((v >> shift) & 31) as usize];
        i += 1;
    }
    out
}

/// `bytes` as text: every encoder here writes ASCII, and checking that is a few word
/// compares where `core::str::from_utf8` is a call (a tenth of a ULID's `to_string`).
pub(crate) fn ascii_str(bytes: &[u8]) -> Option<&str> {
    if bytes.is_ascii() {
        // SAFETY: ASCII is valid UTF-8.
        Some(unsafe { core::str::from_utf8_unchecked(bytes) })
    } else {
        None
    }
}

const fn value_of(c: u8, case: Case) -> Option<u8> {
    let c = match (case, c) {
        (Case::Any, b'a'..=b'z') => c - 32,
        (Case::Lower, b'A'..=b'Z') => return None,
        (Case::Lower, b'a'..=b'z') => c - 32,
        _ => c,
    };
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'A'..=b'H' => Some(c - b'A' + 10),
        b'J' | b'K' => Some(c - b'J' + 18),
        b'M' | b'N' => Some(c - b'M' + 20),
        b'P'..=b'T' => Some(c - b'P' + 22),
        b'V'..=b'Z' => Some(c - b'V' + 27),
        _ => None,
    }
}

/// Decodes exactly 26 characters; the error names the codec and the failing character.
pub(crate) fn decode(
    text: &[u8],
    case: Case,
    codec: &'static str,
    offset: usize,
) -> Result<u128, Error> {
    let bad = |at: usize, reason: &'static str| Error::InvalidEncoding {
        codec,
        at: offset + at,
        reason,
    };
    if text.len() != LEN {
        return Err(bad(
            text.len().min(LEN),
            "expected exactly 26 base32 characters",
        ));
    }
    let mut v: u128 = 0;
    for (i, &c) in text.iter().enumerate() {
        let Some(d) = value_of(c, case) else {
            return Err(bad(
                i,
                match case {
                    Case::Lower => {
                        "not a character of the lower-case base32 alphabet 0-9 a-z without i l o u"
                    }
                    Case::Any => "not a Crockford base32 character (0-9 A-Z without I L O U)",
                },
            ));
        };
        if i == 0 && d > 7 {
            return Err(bad(
                0,
                "the first character must be 0-7 (the value is 128 bits)",
            ));
        }
        v = (v << 5) | u128::from(d);
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_what_is_not_strict() {
        for v in [
            0u128,
            1,
            31,
            32,
            u128::MAX,
            0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
        ] {
            for lower in [false, true] {
                let text = encode(v, lower);
                assert_eq!(decode(&text, Case::Any, "t", 0), Ok(v));
                if lower {
                    assert_eq!(decode(&text, Case::Lower, "t", 0), Ok(v));
                }
            }
        }
        assert_eq!(&encode(u128::MAX, false), b"7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
        assert!(decode(b"7ZZZZZZZZZZZZZZZZZZZZZZZZZ", Case::Lower, "t", 0).is_err());
        let at = |s: &str, case| match decode(s.as_bytes(), case, "t", 3) {
            Err(Error::InvalidEncoding { at, .. }) => at,
            other => panic!("{other:?}"),
        };
        assert_eq!(at("80000000000000000000000000", Case::Any), 3);
        assert_eq!(at("0000000000000000000000000I", Case::Any), 28);
        assert_eq!(at("0000000000000000000000000u", Case::Lower), 28);
        assert_eq!(at("000000000000000000000000A0", Case::Lower), 27);
        assert_eq!(at("000", Case::Any), 6);
        assert_eq!(at("000000000000000000000000000", Case::Any), 29);
    }
}
