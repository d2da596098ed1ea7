//! Text forms of 64-bit IDs: decimal, hex, and fixed-width sortable base32 and base62.
//!
//! IDs travel through URLs, logs, JSON and spreadsheets, and each place prefers a different
//! form. Decimal is what databases and JavaScript-free APIs expect; hex is compact and common in
//! logs (written with its `0x` prefix, so that [`parse_id`] and every surface's automatic
//! decoding read it back); the two fixed-width forms are short *and* sort as text in the same order as the
//! numbers, so an index on the string column stays time-ordered:
//!
//! | codec     | width    | alphabet                                            |
//! |-----------|----------|-----------------------------------------------------|
//! | `decimal` | 1..=20   | `0-9`                                               |
//! | `hex`     | 3..=18   | `0x` + `0-9a-f` out; either case, `0x` optional in  |
//! | `base32`  | 13 fixed | Crockford: `0123456789ABCDEFGHJKMNPQRSTVWXYZ`       |
//! | `base62`  | 11 fixed | `0-9A-Za-z` (ASCII order)                           |
//!
//! Decoding never panics: every malformed input becomes an [`Error::InvalidEncoding`] naming the
//! codec, the 0-based *character* index of the problem (or the length, for length errors) and
//! why. [`Codec::encode_into`] and [`Codec::format`] need no allocator; [`Codec::encode`]
//! (feature `alloc`) returns a `String`.
//!
//! # Examples
//! ```
//! use idmint::codec::{parse_id, Codec};
//!
//! let id = 1_234_567_890_123_456_789u64;
//! let s = Codec::Base32.format(id);
//! assert_eq!(s.as_str(), "128GGYHYYK08N");
//! assert_eq!(Codec::Base32.decode("128ggyhyyk08n")?, id); // case-insensitive
//! assert_eq!(parse_id("128GGYHYYK08N")?, id); // 13 characters: base32
//! assert_eq!(parse_id("0x112210f47de98115")?, id); // 0x prefix: hex
//! # Ok::<(), idmint::Error>(())
//! ```

use core::fmt;
use core::str::FromStr;

use crate::error::{Error, Result};

mod base62;
mod crockford32;
mod decimal;
mod guess;
mod hex;
mod output;
mod radix;
#[cfg(test)]
mod tests;

use base62::BASE62;
use crockford32::BASE32;
pub use decimal::{decimal_into, DECIMAL_MAX_LEN};
pub use guess::parse_id;
use hex::HEX;
pub use output::{Encoded, SliceWriter};
use radix::{encode_radix, MAX_LEN};

/// A text form for 64-bit IDs.
///
/// # Examples
/// ```
/// use idmint::codec::Codec;
///
/// let codec: Codec = "base62".parse()?;
/// let mut buf = [0u8; 16];
/// let n = codec.encode_into(42, &mut buf)?;
/// assert_eq!(&buf[..n], b"0000000000g");
/// assert_eq!(codec.decode("0000000000g")?, 42);
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Codec {
    /// Base 10 without leading zeros; what most databases and APIs expect.
    Decimal,
    /// `0x` and lower-case base 16 without leading zeros (`0x0` for zero), the form every
    /// surface writes and [`parse_id`] recognises — except 11 characters long (values from
    /// 2^32 to 2^36), which read as base62 too, so [`parse_id`] refuses them as ambiguous;
    /// decoding accepts either case, with or without the `0x`/`0X` prefix.
    Hex,
    /// 13 Crockford base32 characters, zero-padded so text order equals numeric order; decoding
    /// is case-insensitive and reads the look-alikes `I`/`L` as `1` and `O` as `0`.
    Base32,
    /// 11 base62 characters (`0-9A-Za-z`), zero-padded so text order (byte-wise, case-sensitive)
    /// equals numeric order.
    Base62,
}

impl Codec {
    /// Every codec, for listings and tests.
    pub const ALL: [Codec; 4] = [Codec::Decimal, Codec::Hex, Codec::Base32, Codec::Base62];

    /// The canonical name (`decimal`, `hex`, `base32`, `base62`), also used in errors.
    pub const fn name(self) -> &'static str {
        match self {
            Codec::Decimal => "decimal",
            Codec::Hex => "hex",
            Codec::Base32 => "base32",
            Codec::Base62 => "base62",
        }
    }

    /// Looks a codec up by name (`dec`/`decimal`, `hex`, `base32`, `base62`; ASCII
    /// case-insensitive) so CLIs and bindings share one spelling.
    ///
    /// # Examples
    /// ```
    /// use idmint::codec::Codec;
    /// assert_eq!(Codec::parse("dec")?, Codec::Decimal);
    /// assert!(Codec::parse("base64").is_err());
    /// # Ok::<(), idmint::Error>(())
    /// ```
    pub fn parse(name: &str) -> Result<Codec> {
        let is = |s: &str| name.eq_ignore_ascii_case(s);
        if is("dec") || is("decimal") {
            Ok(Codec::Decimal)
        } else if is("hex") {
            Ok(Codec::Hex)
        } else if is("base32") {
            Ok(Codec::Base32)
        } else if is("base62") {
            Ok(Codec::Base62)
        } else {
            Err(Error::InvalidConfig {
                reason: "unknown codec (decimal, hex, base32, base62)",
            })
        }
    }

    /// The `codec` argument of the parsing functions on every surface (`parseId`, `parse_any`,
    /// `idmint_codec_from_name`): `auto` (ASCII case-insensitive) is `None`, told by the text's
    /// shape; any other name as [`parse`](Self::parse).
    ///
    /// # Examples
    /// ```
    /// use idmint::codec::Codec;
    /// assert_eq!(Codec::parse_or_auto("AUTO")?, None);
    /// assert_eq!(Codec::parse_or_auto("hex")?, Some(Codec::Hex));
    /// assert!(Codec::parse_or_auto("base64").is_err());
    /// # Ok::<(), idmint::Error>(())
    /// ```
    pub fn parse_or_auto(name: &str) -> Result<Option<Codec>> {
        if name.eq_ignore_ascii_case("auto") {
            Ok(None)
        } else {
            Codec::parse(name).map(Some)
        }
    }

    /// The exact length of every encoding, for the fixed-width (sortable) codecs; `None` for the
    /// variable-width ones, whose text order does not follow numeric order.
    pub const fn fixed_width(self) -> Option<usize> {
        match self {
            Codec::Decimal | Codec::Hex => None,
            Codec::Base32 => Some(13),
            Codec::Base62 => Some(11),
        }
    }

    /// The longest encoding this codec produces, so callers can size buffers up front.
    pub const fn max_len(self) -> usize {
        match self {
            Codec::Decimal => 20,
            Codec::Hex => 18,
            Codec::Base32 => 13,
            Codec::Base62 => 11,
        }
    }

    /// Encodes `id` into a stack value, for formatting without an allocator.
    ///
    /// # Examples
    /// ```
    /// use idmint::codec::Codec;
    /// assert_eq!(Codec::Hex.format(255).as_str(), "0xff");
    /// assert_eq!(Codec::Decimal.format(u64::MAX).as_str(), "18446744073709551615");
    /// ```
    pub fn format(self, id: u64) -> Encoded {
        let mut buf = [0u8; MAX_LEN];
        let len = match self {
            Codec::Decimal => {
                let mut digits = [0u8; DECIMAL_MAX_LEN];
                let n = decimal_into(id, &mut digits);
                buf[..DECIMAL_MAX_LEN].copy_from_slice(&digits);
                n
            }
            Codec::Hex => {
                buf[0] = b'0';
                buf[1] = b'x';
                let (_, digits) = buf.split_at_mut(2);
                2 + encode_radix(id, 16, HEX, None, digits)
            }
            Codec::Base32 => encode_radix(id, 32, BASE32, Some(13), &mut buf),
            Codec::Base62 => encode_radix(id, 62, BASE62, Some(11), &mut buf),
        };
        Encoded {
            buf,
            len: len as u8,
        }
    }

    /// Writes the ASCII encoding of `id` to the start of `out` and returns its length; fails
    /// with [`Error::BufferTooSmall`] (writing nothing) if `out` is shorter than that. This is
    /// the form the C API uses: the caller owns the memory.
    pub fn encode_into(self, id: u64, out: &mut [u8]) -> Result<usize> {
        let e = self.format(id);
        let bytes = e.as_bytes();
        match out.get_mut(..bytes.len()) {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                Ok(bytes.len())
            }
            None => Err(Error::BufferTooSmall {
                needed: bytes.len(),
            }),
        }
    }

    /// Encodes `id` as a `String`.
    ///
    /// # Examples
    /// ```
    /// use idmint::codec::Codec;
    /// assert_eq!(Codec::Base32.encode(32), "0000000000010");
    /// ```
    #[cfg(feature = "alloc")]
    pub fn encode(self, id: u64) -> alloc::string::String {
        alloc::string::String::from(self.format(id).as_str())
    }

    /// Decodes text produced by this codec (with the leniencies described on each variant).
    ///
    /// # Examples
    /// ```
    /// use idmint::{codec::Codec, Error};
    /// assert_eq!(Codec::Base32.decode("00000000000IO")?, 32);
    /// let e = Codec::Base32.decode("G000000000000").unwrap_err();
    /// assert!(matches!(e, Error::InvalidEncoding { codec: "base32", at: 0, .. }));
    /// # Ok::<(), idmint::Error>(())
    /// ```
    pub fn decode(self, s: &str) -> Result<u64> {
        match self {
            Codec::Decimal => decimal::decode(s),
            Codec::Hex => hex::decode(s),
            Codec::Base32 => crockford32::decode(s),
            Codec::Base62 => base62::decode(s),
        }
    }
}

impl fmt::Display for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Codec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Codec> {
        Codec::parse(s)
    }
}
