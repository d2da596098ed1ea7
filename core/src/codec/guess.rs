//! Decoding without a named codec: the codec is told by the text's shape.

use super::{base62, crockford32, decimal, hex};
use crate::error::{Error, Result};

/// Decodes an ID whose codec is not known, guessing from its shape.
///
/// The rules, applied in order:
/// 1. only ASCII digits → decimal (so an 11- or 13-digit all-digit string is read as
///    *decimal*, even though it would also be valid base62 or base32 — encode to those codecs
///    and decode with [`Codec::decode`] when that matters);
/// 2. a `0x` prefix → hex, the form [`Codec::Hex`] writes; `0X` too, unless the text is 13
///    characters long (`0X…` is also how some base32 IDs begin). Bare hex such as `ff` is not
///    recognised (it could be base62 or base32 text) and fails with a reason that says so.
///    Eleven characters starting `0x` or `0X` may also be base62 (`0x000000000` is base62
///    for 798,688,106,229,549,568 and hex for 0): when the text reads both ways it fails as
///    ambiguous rather than guess; when it reads one way only (`0x00000000g`: base62), that
///    one is taken;
/// 3. exactly 13 characters → base32;
/// 4. exactly 11 characters → base62;
/// 5. anything else fails with codec `auto` at character 0: it is the whole text that has no
///    recognisable shape.
///
/// No whitespace is trimmed.
///
/// # Examples
/// ```
/// use idmint::codec::parse_id;
/// assert_eq!(parse_id("42")?, 42);
/// assert_eq!(parse_id("0x2A")?, 42);
/// assert_eq!(parse_id("000000000001A")?, 42); // 13 characters: base32
/// assert_eq!(parse_id("0000000000g")?, 42); // 11 characters: base62
/// assert_eq!(parse_id("0000000000042")?, 42); // all digits: decimal, not base32
/// assert!(parse_id("xyz").is_err());
/// # Ok::<(), idmint::Error>(())
/// ```
///
/// [`Codec::decode`]: super::Codec::decode
/// [`Codec::Hex`]: super::Codec::Hex
pub fn parse_id(s: &str) -> Result<u64> {
    if s.is_empty() {
        return Err(Error::InvalidEncoding {
            codec: "auto",
            at: 0,
            reason: "empty input",
        });
    }
    if s.bytes().all(|b| b.is_ascii_digit()) {
        return decimal::decode(s);
    }
    // Base32 text may begin with `0X` (Crockford has an X): 13 characters with an upper-case
    // `0X` are base32, as `Codec::Base32` writes them; hex is written with a lower-case `0x`.
    match s.get(..2) {
        Some("0x" | "0X") if s.len() == 11 => {
            return match (hex::decode(s), base62::decode(s)) {
                (Ok(_), Ok(_)) => Err(Error::InvalidEncoding {
                    codec: "auto",
                    at: 0,
                    reason: "ambiguous: 11 characters starting 0x read as hex and as base62; name the codec",
                }),
                (Ok(id), Err(_)) | (Err(_), Ok(id)) => Ok(id),
                (Err(e), Err(_)) => Err(e),
            };
        }
        Some("0x") => return hex::decode(s),
        Some("0X") if s.len() != 13 => return hex::decode(s),
        _ => {}
    }
    match s.chars().count() {
        13 => crockford32::decode(s),
        11 => base62::decode(s),
        n => Err(Error::InvalidEncoding {
            codec: "auto",
            at: 0,
            reason: if n <= 16 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
                "cannot tell the codec: bare hex is ambiguous, write it with its 0x prefix or name the hex codec"
            } else {
                "cannot tell the codec: expected digits, a 0x prefix, 13 base32 or 11 base62 characters"
            },
        }),
    }
}
