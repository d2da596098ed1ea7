//! A short field name stored inline, so layouts need no allocator and stay `Copy`.

use core::fmt;

/// Longest field name a layout accepts, in bytes.
pub const MAX_NAME_LEN: usize = 15;

/// An ASCII identifier of at most 15 bytes (`worker`, `datacenter`, ...).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name {
    len: u8,
    bytes: [u8; MAX_NAME_LEN],
}

impl Name {
    /// Builds a name; `None` unless it is 1..=15 bytes of `[a-z0-9_]` starting with a letter.
    pub const fn new(s: &str) -> Option<Name> {
        let b = s.as_bytes();
        if b.is_empty() || b.len() > MAX_NAME_LEN || !b[0].is_ascii_lowercase() {
            return None;
        }
        let mut bytes = [0u8; MAX_NAME_LEN];
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_') {
                return None;
            }
            bytes[i] = c;
            i += 1;
        }
        Some(Name {
            len: b.len() as u8,
            bytes,
        })
    }

    /// Builds a name from a literal known to be valid (panics at compile time otherwise).
    pub(crate) const fn lit(s: &str) -> Name {
        match Name::new(s) {
            Some(n) => n,
            None => panic!("invalid field name literal"),
        }
    }

    /// Keeps any text as a name for an error message: the first 15 bytes, cut at a character
    /// boundary, without the identifier rules of [`Name::new`].
    pub fn lossy(s: &str) -> Name {
        let mut end = s.len().min(MAX_NAME_LEN);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        let mut bytes = [0u8; MAX_NAME_LEN];
        bytes[..end].copy_from_slice(&s.as_bytes()[..end]);
        Name {
            len: end as u8,
            bytes,
        }
    }

    /// The name as a string slice.
    pub fn as_str(&self) -> &str {
        // Only whole UTF-8 characters are ever stored.
        core::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("")
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}
