//! What both text forms parse into: `key`/value entries with their byte offsets
//! ([`NamedEntry`], public so a layer with types of its own reads its keys with the same errors
//! at the same offsets), and the helpers the two parsers share.

use alloc::string::String;

use crate::error::{Error, Result};

/// A value as written.
#[derive(Debug, Clone)]
pub(super) enum Val {
    /// Text (compact values are always text). `raw_at` is the byte offset of its first
    /// character when the text appears verbatim in the input (no JSON escapes).
    Str { text: String, raw_at: Option<usize> },
    /// A JSON integer.
    Num(u64),
    /// A JSON boolean.
    Bool,
}

/// One `key=value` of a named config as written, with the byte offsets of its key and its value
/// in the whole config string: what [`parse_entries`](super::parse_entries) gives for either text form.
///
/// The core interprets entries itself ([`NamedConfig::from_entries`](super::NamedConfig::from_entries));
/// a layer that adds generator types (the store-backed types of `idmint-coord`) reads its own
/// keys through [`text`](Self::text) and [`u64`](Self::u64), whose errors point into the text
/// exactly as the core's do.
#[derive(Debug, Clone)]
pub struct NamedEntry {
    pub(super) key: String,
    pub(super) key_at: usize,
    pub(super) val: Val,
    pub(super) val_at: usize,
    /// Compact form, value without parentheses.
    pub(super) bare: bool,
}

/// Entries are built by the parsers only.
pub(super) type Entry = NamedEntry;

impl NamedEntry {
    /// The key, as written (keys are case-sensitive).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Byte offset of the key in the config string.
    pub fn key_at(&self) -> usize {
        self.key_at
    }

    /// Byte offset of the value in the config string (its opening quote or parenthesis).
    pub fn value_at(&self) -> usize {
        self.val_at
    }

    /// The value as text; [`Error::InvalidSpec`] at the value if it is a JSON number or
    /// boolean.
    pub fn text(&self) -> Result<&str> {
        match &self.val {
            Val::Str { text, .. } => Ok(text),
            _ => Err(spec_err(self.val_at, "expected a string value")),
        }
    }

    /// The value as an unsigned integer: a JSON integer, or decimal digits as text (so
    /// JavaScript callers can pass 64-bit values exactly); [`Error::InvalidSpec`] at the value
    /// otherwise.
    pub fn u64(&self) -> Result<u64> {
        const R: &str = "expected a non-negative integer";
        match &self.val {
            Val::Num(n) => Ok(*n),
            Val::Str { text, .. } => {
                if text.is_empty() || !text.bytes().all(|c| c.is_ascii_digit()) {
                    return Err(spec_err(self.val_at, R));
                }
                text.parse()
                    .map_err(|_| spec_err(self.val_at, "number does not fit 64 bits"))
            }
            Val::Bool => Err(spec_err(self.val_at, R)),
        }
    }
}

pub(super) const fn spec_err(at: usize, reason: &'static str) -> Error {
    Error::InvalidSpec { at, reason }
}

pub(super) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

pub(super) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|&c| is_ws(c)) {
        i += 1;
    }
    i
}
