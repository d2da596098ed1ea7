//! What both text forms parse into: `key`/value entries with their byte offsets, and the
//! helpers the two parsers share.

use alloc::string::String;

use crate::error::Error;

/// A value as written.
#[derive(Debug)]
pub(super) enum Val {
    /// Text (compact values are always text). `raw_at` is the byte offset of its first
    /// character when the text appears verbatim in the input (no JSON escapes).
    Str { text: String, raw_at: Option<usize> },
    /// A JSON integer.
    Num(u64),
    /// A JSON boolean.
    Bool,
}

#[derive(Debug)]
pub(super) struct Entry {
    pub(super) key: String,
    pub(super) key_at: usize,
    pub(super) val: Val,
    pub(super) val_at: usize,
    /// Compact form, value without parentheses.
    pub(super) bare: bool,
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
