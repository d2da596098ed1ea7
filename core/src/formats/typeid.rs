//! TypeID (spec v0.3): a UUID as 26 lower-case base32 characters behind a type prefix,
//! `user_01h455vb4pex5vsknk084sn02q`. New TypeIDs carry a version 7 UUID, so they sort by
//! creation time within a prefix; any UUID can be encoded.
//!
//! The prefix is at most 63 characters of `a-z` and `_`, starting and ending with a letter,
//! or empty (then the text is the bare suffix, with no separator). Decoding is strict, as the
//! spec's test cases require: lower case only, exactly 26 suffix characters, the first at
//! most `7`.
//!
//! # Examples
//! ```
//! use idmint::formats::typeid::{TypeId, TypeIdGenerator};
//!
//! let id = TypeId::parse("prefix_01h455vb4pex5vsknk084sn02q")?;
//! assert_eq!(id.prefix(), "prefix");
//! assert_eq!(id.uuid().to_string(), "01890a5d-ac96-774b-bcce-b302099a8057");
//! assert_eq!(id.to_string(), "prefix_01h455vb4pex5vsknk084sn02q");
//!
//! let mut gen = TypeIdGenerator::new("user")?;
//! let a = gen.next_at(1_700_000_000_000, [7; 10]);
//! let b = gen.next_at(1_700_000_000_000, [7; 10]);
//! assert!(b > a && a.to_string().starts_with("user_01hf"));
//! # Ok::<(), idmint::Error>(())
//! ```

use core::cmp::Ordering;
use core::fmt;
use core::str::FromStr;

use crate::error::{Error, Result};
use crate::formats::crockford::{self, Case};
use crate::formats::uuid::{Uuid, Uuid7Generator, Uuid7Method};

/// The longest prefix.
pub const MAX_PREFIX_LEN: usize = 63;
/// The longest TypeID text: prefix, separator and suffix.
pub const MAX_LEN: usize = MAX_PREFIX_LEN + 1 + crockford::LEN;

const CODEC: &str = "typeid";

/// A type prefix, checked: `[a-z]([a-z_]*[a-z])?` up to 63 characters, or empty.
#[derive(Clone, Copy)]
struct Prefix {
    bytes: [u8; MAX_PREFIX_LEN],
    len: u8,
}

impl Prefix {
    const EMPTY: Prefix = Prefix {
        bytes: [0; MAX_PREFIX_LEN],
        len: 0,
    };

    fn new(text: &str) -> Result<Prefix> {
        let mut p = Prefix::EMPTY;
        p.set(text)?;
        Ok(p)
    }

    /// Checks `text` and makes it this prefix, in place (unchanged on an error).
    #[inline]
    fn set(&mut self, text: &str) -> Result<()> {
        let b = text.as_bytes();
        let bad = |at: usize, reason: &'static str| Error::InvalidEncoding {
            codec: CODEC,
            at,
            reason,
        };
        if b.len() > MAX_PREFIX_LEN {
            return Err(bad(
                MAX_PREFIX_LEN,
                "the prefix is longer than 63 characters",
            ));
        }
        for (i, &c) in b.iter().enumerate() {
            if !(c.is_ascii_lowercase() || c == b'_') {
                return Err(bad(i, "a prefix holds only the letters a-z and _"));
            }
        }
        if b.first() == Some(&b'_') {
            return Err(bad(0, "a prefix must not start with _"));
        }
        if b.last() == Some(&b'_') {
            return Err(bad(b.len() - 1, "a prefix must not end with _"));
        }
        self.bytes = [0; MAX_PREFIX_LEN];
        self.bytes[..b.len()].copy_from_slice(b);
        self.len = b.len() as u8;
        Ok(())
    }

    fn as_str(&self) -> &str {
        // Only ASCII letters and `_` are ever stored.
        core::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or("")
    }
}

/// A TypeID: a type prefix and a UUID.
#[derive(Clone, Copy)]
pub struct TypeId {
    prefix: Prefix,
    uuid: Uuid,
}

impl TypeId {
    /// The TypeID of `uuid` under `prefix` ([`Error::InvalidEncoding`] for a bad prefix).
    pub fn new(prefix: &str, uuid: Uuid) -> Result<TypeId> {
        Ok(TypeId {
            prefix: Prefix::new(prefix)?,
            uuid,
        })
    }

    /// The TypeID of the UUID `mint` answers under `prefix`, which is checked first: a bad
    /// prefix costs no UUID. The prefix is checked and copied straight into the TypeID, then the
    /// UUID minted: building a `Prefix` and moving it in at once stalled ~5 ns on the reload of
    /// its just-copied bytes.
    #[cfg(feature = "std")]
    #[inline]
    pub(crate) fn minted(prefix: &str, mint: impl FnOnce() -> Result<Uuid>) -> Result<TypeId> {
        let mut id = TypeId {
            prefix: Prefix::EMPTY,
            uuid: Uuid::nil(),
        };
        id.prefix.set(prefix)?;
        id.uuid = mint()?;
        Ok(id)
    }

    /// This TypeID's prefix on another UUID (no prefix check: it was checked once).
    pub const fn with_uuid(self, uuid: Uuid) -> TypeId {
        TypeId {
            prefix: self.prefix,
            uuid,
        }
    }

    /// Reads a TypeID; [`Error::InvalidEncoding`] says which character is wrong and why.
    pub fn parse(text: &str) -> Result<TypeId> {
        let (prefix, suffix, offset) = match text.rfind('_') {
            Some(i) => {
                if i == 0 {
                    return Err(Error::InvalidEncoding {
                        codec: CODEC,
                        at: 0,
                        reason: "an empty prefix takes no separator",
                    });
                }
                (&text[..i], &text[i + 1..], i + 1)
            }
            None => ("", text, 0),
        };
        let prefix = Prefix::new(prefix)?;
        let v = crockford::decode(suffix.as_bytes(), Case::Lower, CODEC, offset)?;
        Ok(TypeId {
            prefix,
            uuid: Uuid::from_u128(v),
        })
    }

    /// The type prefix (possibly empty).
    pub fn prefix(&self) -> &str {
        self.prefix.as_str()
    }

    /// The UUID.
    pub const fn uuid(&self) -> Uuid {
        self.uuid
    }

    /// The 26-character suffix.
    pub fn suffix(&self) -> [u8; crockford::LEN] {
        crockford::encode(self.uuid.as_u128(), true)
    }

    /// Writes the text form into `out` and returns its length (at most [`MAX_LEN`]);
    /// [`Error::BufferTooSmall`] if it does not fit.
    pub fn encode_into(&self, out: &mut [u8]) -> Result<usize> {
        let p = self.prefix();
        let sep = usize::from(!p.is_empty());
        let n = p.len() + sep + crockford::LEN;
        let out = out
            .get_mut(..n)
            .ok_or(Error::BufferTooSmall { needed: n })?;
        out[..p.len()].copy_from_slice(p.as_bytes());
        if sep == 1 {
            out[p.len()] = b'_';
        }
        out[p.len() + sep..].copy_from_slice(&self.suffix());
        Ok(n)
    }
}

impl PartialEq for TypeId {
    fn eq(&self, other: &TypeId) -> bool {
        self.prefix() == other.prefix() && self.uuid == other.uuid
    }
}

impl Eq for TypeId {}

impl core::hash::Hash for TypeId {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        self.prefix().hash(h);
        self.uuid.hash(h);
    }
}

/// By prefix, then by UUID — the order of the text forms.
impl Ord for TypeId {
    fn cmp(&self, other: &TypeId) -> Ordering {
        (self.prefix(), self.uuid).cmp(&(other.prefix(), other.uuid))
    }
}

impl PartialOrd for TypeId {
    fn partial_cmp(&self, other: &TypeId) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for TypeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; MAX_LEN];
        let n = self.encode_into(&mut buf).map_err(|_| fmt::Error)?;
        f.write_str(crockford::ascii_str(&buf[..n]).ok_or(fmt::Error)?)
    }
}

impl fmt::Debug for TypeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TypeId({self})")
    }
}

impl FromStr for TypeId {
    type Err = Error;
    fn from_str(s: &str) -> Result<TypeId> {
        TypeId::parse(s)
    }
}

/// New TypeIDs of one prefix on monotonic version 7 UUIDs ([`Uuid7Generator`]), so those of one
/// generator increase.
#[derive(Debug, Clone, Copy)]
pub struct TypeIdGenerator {
    prefix: Prefix,
    v7: Uuid7Generator,
}

impl fmt::Debug for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl TypeIdGenerator {
    /// A generator of TypeIDs under `prefix` (v7 method 1, a counter).
    pub fn new(prefix: &str) -> Result<TypeIdGenerator> {
        TypeIdGenerator::with_method(prefix, Uuid7Method::Counter)
    }

    /// The same with another RFC 9562 monotonic method.
    pub fn with_method(prefix: &str, method: Uuid7Method) -> Result<TypeIdGenerator> {
        Ok(TypeIdGenerator {
            prefix: Prefix::new(prefix)?,
            v7: Uuid7Generator::with_method(method),
        })
    }

    /// The prefix.
    pub fn prefix(&self) -> &str {
        self.prefix.as_str()
    }

    /// The next TypeID at `unix_ms` with 10 fresh random bytes.
    pub fn next_at(&mut self, unix_ms: u64, random: [u8; 10]) -> TypeId {
        TypeId {
            prefix: self.prefix,
            uuid: self.v7.next_at(unix_ms, random),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;

    #[test]
    fn prefixes_follow_the_spec() {
        for ok in ["", "a", "user", "pre_fix", "a_b_c"] {
            assert!(TypeId::new(ok, Uuid::nil()).is_ok(), "{ok}");
        }
        let long = "a".repeat(64);
        for bad in ["User", "a1", "_a", "a_", "pré", long.as_str(), "a-b"] {
            assert!(TypeId::new(bad, Uuid::nil()).is_err(), "{bad}");
        }
        let t = TypeId::new(&long[..63], Uuid::max()).unwrap();
        let mut buf = [0u8; MAX_LEN];
        assert_eq!(t.encode_into(&mut buf), Ok(MAX_LEN));
        assert_eq!(TypeId::parse(core::str::from_utf8(&buf).unwrap()), Ok(t));
        assert_eq!(
            t.encode_into(&mut buf[..10]),
            Err(Error::BufferTooSmall { needed: MAX_LEN })
        );
    }
}
