//! The compact form: comma-separated `key=value` pairs (see the [module docs](crate::named)).

use alloc::string::String;
use alloc::vec::Vec;

use super::entry::{skip_ws, spec_err, Entry, Val};
use crate::error::Result;

/// `key=value,key=(value),...`
pub(super) fn parse_compact(s: &str) -> Result<Vec<Entry>> {
    let b = s.as_bytes();
    if s.trim().is_empty() {
        return Err(spec_err(
            0,
            "empty config; give type=... or a JSON object such as {\"type\":\"uuid7\"}",
        ));
    }
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        let key_at = skip_ws(b, i);
        let mut j = key_at;
        while j < b.len() && b[j] != b'=' && b[j] != b',' {
            j += 1;
        }
        if j == b.len() || b[j] == b',' {
            return Err(spec_err(key_at, "expected key=value"));
        }
        // s[key_at..j] ends at an ASCII '=', so both ends are char boundaries.
        let key = s.get(key_at..j).unwrap_or("").trim_end();
        if key.is_empty() {
            return Err(spec_err(key_at, "missing key before '='"));
        }
        let val_at = skip_ws(b, j + 1);
        let (val, bare, next);
        if b.get(val_at) == Some(&b'(') {
            let Some(close) = b[val_at + 1..].iter().position(|&c| c == b')') else {
                return Err(spec_err(val_at, "unclosed '(': expected ')'"));
            };
            let close = val_at + 1 + close;
            let inner = s.get(val_at + 1..close).unwrap_or("");
            if inner.contains('(') {
                return Err(spec_err(
                    val_at + 1 + inner.find('(').unwrap_or(0),
                    "nested '(' in a value",
                ));
            }
            let lead = inner.len() - inner.trim_start().len();
            val = Val::Str {
                text: String::from(inner.trim()),
                raw_at: Some(val_at + 1 + lead),
            };
            bare = false;
            let after = skip_ws(b, close + 1);
            if after < b.len() && b[after] != b',' {
                return Err(spec_err(after, "expected ',' after ')'"));
            }
            next = after;
        } else {
            let mut k = val_at;
            while k < b.len() && b[k] != b',' {
                if b[k] == b'(' || b[k] == b')' {
                    return Err(spec_err(
                        k,
                        "parentheses must wrap a whole value: key=(value)",
                    ));
                }
                k += 1;
            }
            let text = s.get(val_at..k).unwrap_or("").trim_end();
            val = Val::Str {
                text: String::from(text),
                raw_at: Some(val_at),
            };
            bare = true;
            next = k;
        }
        if matches!(&val, Val::Str { text, .. } if text.is_empty()) {
            return Err(spec_err(val_at, "missing value after '='"));
        }
        out.push(Entry {
            key: String::from(key),
            key_at,
            val,
            val_at,
            bare,
        });
        if next >= b.len() {
            return Ok(out);
        }
        // b[next] == b','
        i = next + 1;
        if skip_ws(b, i) == b.len() {
            return Err(spec_err(next, "trailing ',' without a key=value after it"));
        }
    }
}
