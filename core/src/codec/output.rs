//! Where encodings are written without an allocator: [`Encoded`] on the stack, and
//! [`SliceWriter`] over a caller's buffer.

use core::fmt;

use super::radix::MAX_LEN;

/// An encoded ID held on the stack (at most 20 ASCII bytes), from [`Codec::format`](super::Codec::format).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Encoded {
    pub(super) buf: [u8; MAX_LEN],
    pub(super) len: u8,
}

impl Encoded {
    /// The encoding as text.
    pub fn as_str(&self) -> &str {
        // Only ASCII from the alphabets is ever stored.
        core::str::from_utf8(self.as_bytes()).unwrap_or("")
    }

    /// The encoding as ASCII bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.buf.get(..usize::from(self.len)).unwrap_or(&[])
    }
}

impl fmt::Display for Encoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Encoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl AsRef<str> for Encoded {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq<str> for Encoded {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Encoded {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// A [`core::fmt::Write`] sink over a caller's byte buffer, for `write!` without an allocator.
///
/// A write that does not fit is refused whole (returning [`fmt::Error`]) and leaves the buffer
/// as it was, so the contents are always valid UTF-8; [`needed`](Self::needed) then tells how
/// long the buffer would have had to be for everything attempted so far.
///
/// # Examples
/// ```
/// use core::fmt::Write;
/// use idmint::codec::SliceWriter;
///
/// let mut buf = [0u8; 16];
/// let mut w = SliceWriter::new(&mut buf);
/// write!(w, "id={}", 42).unwrap();
/// assert_eq!(w.as_str(), "id=42");
/// assert!(write!(w, "{}", "a string that is too long").is_err());
/// assert_eq!(w.as_str(), "id=42");
/// ```
#[derive(Debug)]
pub struct SliceWriter<'a> {
    buf: &'a mut [u8],
    len: usize,
    needed: usize,
}

impl<'a> SliceWriter<'a> {
    /// Starts writing at the beginning of `buf`.
    pub fn new(buf: &'a mut [u8]) -> Self {
        SliceWriter {
            buf,
            len: 0,
            needed: 0,
        }
    }

    /// The text written so far.
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(self.as_bytes()).unwrap_or("")
    }

    /// The bytes written so far.
    pub fn as_bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes that every write attempted so far would need, including refused ones; compare with
    /// [`len`](Self::len) to detect truncation and report [`Error::BufferTooSmall`](crate::Error::BufferTooSmall).
    pub fn needed(&self) -> usize {
        self.needed
    }

    /// Ends writing and returns the written text, borrowed from the buffer.
    pub fn into_str(self) -> &'a str {
        let bytes: &'a [u8] = self.buf;
        core::str::from_utf8(bytes.get(..self.len).unwrap_or(&[])).unwrap_or("")
    }
}

impl fmt::Write for SliceWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.needed = self.needed.saturating_add(s.len());
        let end = self.len.checked_add(s.len()).ok_or(fmt::Error)?;
        let dst = self.buf.get_mut(self.len..end).ok_or(fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}
