//! Parsing and allocation-free formatting, with idmint's [`Error`].

use uuid::Uuid;

use crate::error::{Error, Result};

/// Length of the hyphenated text form (`8-4-4-4-12` hex digits).
pub const HYPHENATED_LEN: usize = 36;

/// Parses a UUID in any of the usual forms: hyphenated, 32 bare hex digits, `{braced}` or
/// `urn:uuid:`-prefixed, in either case. Errors are [`Error::InvalidEncoding`] with codec
/// `uuid` and the character index of the first problem.
///
/// # Examples
/// ```
/// use idmint::{formats::uuid::parse, Error};
/// let u = parse("urn:uuid:886313E1-3B8A-5372-9B90-0C9AEE199E5D")?;
/// assert_eq!(u, parse("886313e13b8a53729b900c9aee199e5d")?);
/// let e = parse("886313e1-3b8a-5372-9b90-0c9aee199e5x").unwrap_err();
/// assert!(matches!(e, Error::InvalidEncoding { codec: "uuid", at: 35, .. }));
/// # Ok::<(), idmint::Error>(())
/// ```
pub fn parse(s: &str) -> Result<Uuid> {
    Uuid::try_parse(s).map_err(|_| {
        let (at, reason) = diagnose(s);
        Error::InvalidEncoding {
            codec: "uuid",
            at,
            reason,
        }
    })
}

/// Finds where and why `s` is not a UUID (the `uuid` crate does not expose positions).
fn diagnose(s: &str) -> (usize, &'static str) {
    const FORMS: &str =
        "a UUID is 32 hex digits, optionally hyphenated 8-4-4-4-12, braced or urn:uuid:-prefixed";
    if s.is_empty() {
        return (0, "empty input");
    }
    let (body, offset, wrapped) = if let Some(rest) = s.strip_prefix("urn:uuid:") {
        (rest, 9, true)
    } else if let Some(inner) = s.strip_prefix('{') {
        match inner.strip_suffix('}') {
            Some(inner) => (inner, 1, true),
            None => return (s.chars().count(), "missing closing brace"),
        }
    } else {
        (s, 0, false)
    };
    let hyphenated = body.contains('-') || wrapped;
    let len = body.chars().count();
    for (i, c) in body.chars().enumerate() {
        let dash_here = matches!(i, 8 | 13 | 18 | 23);
        if hyphenated && len == HYPHENATED_LEN {
            if dash_here && c != '-' {
                return (
                    offset + i,
                    "expected a hyphen (groups are 8-4-4-4-12 hex digits)",
                );
            }
            if !dash_here && !c.is_ascii_hexdigit() {
                return (offset + i, "not a hexadecimal digit");
            }
        } else if c == '-' && !hyphenated {
            return (offset + i, FORMS);
        } else if c != '-' && !c.is_ascii_hexdigit() {
            return (offset + i, "not a hexadecimal digit");
        }
    }
    if hyphenated && len != HYPHENATED_LEN {
        // Blame the first hyphen out of place, or the end.
        for (i, c) in body.chars().enumerate() {
            let dash_here = matches!(i, 8 | 13 | 18 | 23);
            if dash_here != (c == '-') {
                return (
                    offset + i,
                    "hyphenated UUIDs are groups of 8-4-4-4-12 hex digits",
                );
            }
        }
        return (
            offset + len,
            "hyphenated UUIDs are groups of 8-4-4-4-12 hex digits",
        );
    }
    if !hyphenated && len != 32 {
        return (len, FORMS);
    }
    (0, FORMS)
}

/// Writes the lower-case hyphenated form (36 ASCII bytes) to the start of `out` and returns
/// 36; fails with [`Error::BufferTooSmall`] (writing nothing) if `out` is shorter. For callers
/// without an allocator, like the C API.
///
/// # Examples
/// ```
/// use idmint::formats::uuid::{encode_hyphenated_into, Uuid};
/// let mut buf = [0u8; 40];
/// assert_eq!(encode_hyphenated_into(&Uuid::max(), &mut buf)?, 36);
/// assert_eq!(&buf[..36], b"ffffffff-ffff-ffff-ffff-ffffffffffff");
/// assert!(encode_hyphenated_into(&Uuid::max(), &mut [0u8; 35]).is_err());
/// # Ok::<(), idmint::Error>(())
/// ```
pub fn encode_hyphenated_into(uuid: &Uuid, out: &mut [u8]) -> Result<usize> {
    match out.get_mut(..HYPHENATED_LEN) {
        Some(dst) => {
            uuid.hyphenated().encode_lower(dst);
            Ok(HYPHENATED_LEN)
        }
        None => Err(Error::BufferTooSmall {
            needed: HYPHENATED_LEN,
        }),
    }
}
