//! The JSON form: one flat JSON object (see the [module docs](crate::named)).
//!
//! Hand-written rather than `serde_json`: errors carry the byte offset of the problem in the
//! whole config string and a reason of their own (the shared vectors pin both), and every
//! value keeps its offset so later errors (an unknown key, a bad layout spec) point into the
//! text; `serde_json` reports lines and columns and forgets where values were.

use alloc::string::String;
use alloc::vec::Vec;

use super::entry::{skip_ws, spec_err, Entry, Val};
use crate::error::Result;

/// One flat JSON object.
pub(super) fn parse_json(s: &str) -> Result<Vec<Entry>> {
    let b = s.as_bytes();
    let mut i = skip_ws(b, 0);
    // The caller checked the '{'.
    i += 1;
    let mut out = Vec::new();
    i = skip_ws(b, i);
    if b.get(i) == Some(&b'}') {
        i += 1;
    } else {
        loop {
            i = skip_ws(b, i);
            if b.get(i) != Some(&b'"') {
                return Err(spec_err(i, "expected a string key in double quotes"));
            }
            let key_at = i;
            let (key, _, end) = json_string(s, i)?;
            i = skip_ws(b, end);
            if b.get(i) != Some(&b':') {
                return Err(spec_err(i, "expected ':' after the key"));
            }
            i = skip_ws(b, i + 1);
            let val_at = i;
            let (val, end) = match b.get(i) {
                Some(b'"') => {
                    let (text, verbatim, end) = json_string(s, i)?;
                    let raw_at = verbatim.then_some(i + 1);
                    (Val::Str { text, raw_at }, end)
                }
                Some(b'0'..=b'9') => {
                    let (n, end) = json_number(b, i)?;
                    (Val::Num(n), end)
                }
                Some(b'-') => {
                    return Err(spec_err(
                        i,
                        "negative numbers are not allowed; expected a non-negative integer",
                    ))
                }
                Some(b't') if b[i..].starts_with(b"true") => (Val::Bool, i + 4),
                Some(b'f') if b[i..].starts_with(b"false") => (Val::Bool, i + 5),
                Some(b'n') if b[i..].starts_with(b"null") => {
                    return Err(spec_err(i, "null is not allowed; leave the key out instead"))
                }
                Some(b'{' | b'[') => {
                    return Err(spec_err(
                        i,
                        "nested objects and arrays are not supported; values are strings, integers or booleans",
                    ))
                }
                Some(_) => return Err(spec_err(i, "expected a string, integer or boolean value")),
                None => return Err(spec_err(i, "unexpected end: expected a value")),
            };
            out.push(Entry {
                key,
                key_at,
                val,
                val_at,
                bare: false,
            });
            i = skip_ws(b, end);
            match b.get(i) {
                Some(b',') => {
                    i += 1;
                }
                Some(b'}') => {
                    i += 1;
                    break;
                }
                Some(_) => return Err(spec_err(i, "expected ',' or '}'")),
                None => return Err(spec_err(i, "unexpected end: expected ',' or '}'")),
            }
        }
    }
    let i = skip_ws(b, i);
    if i != b.len() {
        return Err(spec_err(i, "unexpected text after the closing '}'"));
    }
    Ok(out)
}

/// A JSON string starting at the quote at byte `at`: (text, verbatim, byte after the closing
/// quote). `verbatim` is true when the string had no escapes.
fn json_string(s: &str, at: usize) -> Result<(String, bool, usize)> {
    let mut out = String::new();
    let mut verbatim = true;
    let rest = s.get(at + 1..).unwrap_or("");
    let mut chars = rest.char_indices();
    let pos = |off: usize| at + 1 + off;
    while let Some((off, c)) = chars.next() {
        match c {
            '"' => return Ok((out, verbatim, pos(off) + 1)),
            '\\' => {
                verbatim = false;
                let Some((eoff, e)) = chars.next() else {
                    break;
                };
                match e {
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    '/' => out.push('/'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    'u' => {
                        let hi = hex4(rest, eoff + 1)
                            .ok_or(spec_err(pos(off), "\\u needs four hexadecimal digits"))?;
                        // Skip the four digits (ASCII, one byte each).
                        for _ in 0..4 {
                            chars.next();
                        }
                        let code = if (0xD800..0xDC00).contains(&hi) {
                            let low_at = eoff + 5;
                            let lo = match rest.get(low_at..low_at + 2) {
                                Some("\\u") => hex4(rest, low_at + 2),
                                _ => None,
                            };
                            match lo {
                                Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                                    for _ in 0..6 {
                                        chars.next();
                                    }
                                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                                }
                                _ => {
                                    return Err(spec_err(
                                        pos(off),
                                        "unpaired UTF-16 surrogate in a \\u escape",
                                    ))
                                }
                            }
                        } else {
                            hi
                        };
                        match char::from_u32(code) {
                            Some(ch) => out.push(ch),
                            None => {
                                return Err(spec_err(
                                    pos(off),
                                    "unpaired UTF-16 surrogate in a \\u escape",
                                ))
                            }
                        }
                    }
                    _ => return Err(spec_err(pos(off), "invalid escape in a string")),
                }
            }
            c if (c as u32) < 0x20 => {
                return Err(spec_err(
                    pos(off),
                    "control character in a string (escape it)",
                ))
            }
            c => out.push(c),
        }
    }
    Err(spec_err(s.len(), "unterminated string: expected '\"'"))
}

fn hex4(s: &str, at: usize) -> Option<u32> {
    let h = s.get(at..at + 4)?;
    if !h.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(h, 16).ok()
}

/// A non-negative JSON integer starting at byte `at` (a digit): (value, byte after it).
fn json_number(b: &[u8], at: usize) -> Result<(u64, usize)> {
    let mut i = at;
    let mut v: u64 = 0;
    while let Some(&c) = b.get(i) {
        if !c.is_ascii_digit() {
            break;
        }
        if i > at && b[at] == b'0' {
            return Err(spec_err(
                at,
                "leading zeros are not allowed in JSON numbers",
            ));
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(c - b'0')))
            .ok_or(spec_err(at, "number does not fit 64 bits"))?;
        i += 1;
    }
    if matches!(b.get(i), Some(b'.' | b'e' | b'E')) {
        return Err(spec_err(i, "expected an integer (no fraction or exponent)"));
    }
    Ok((v, i))
}
