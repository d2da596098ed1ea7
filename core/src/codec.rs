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

/// Crockford's base32 alphabet: digits and upper-case letters without I, L, O and U, which are
/// easily confused (or, for U, make accidental words). Its ASCII order matches digit order.
const BASE32: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// The base62 alphabet in ASCII order, so equal-length strings compare like their values.
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Longest encoding of any codec (decimal `u64::MAX` has 20 digits).
const MAX_LEN: usize = 20;

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
            Codec::Decimal => decode_digits(s, 0, &DECIMAL_SPEC),
            Codec::Hex => {
                let (body, offset) = match s.get(..2) {
                    Some("0x" | "0X") => (&s[2..], 2),
                    _ => (s, 0),
                };
                if offset == 2 && body.is_empty() {
                    return Err(Error::InvalidEncoding {
                        codec: "hex",
                        at: 2,
                        reason: "no digits after the 0x prefix",
                    });
                }
                decode_digits(body, offset, &HEX_SPEC)
            }
            Codec::Base32 => decode_digits(s, 0, &BASE32_SPEC),
            Codec::Base62 => decode_digits(s, 0, &BASE62_SPEC),
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
pub fn parse_id(s: &str) -> Result<u64> {
    if s.is_empty() {
        return Err(Error::InvalidEncoding {
            codec: "auto",
            at: 0,
            reason: "empty input",
        });
    }
    if s.bytes().all(|b| b.is_ascii_digit()) {
        return Codec::Decimal.decode(s);
    }
    // Base32 text may begin with `0X` (Crockford has an X): 13 characters with an upper-case
    // `0X` are base32, as `Codec::Base32` writes them; hex is written with a lower-case `0x`.
    match s.get(..2) {
        Some("0x" | "0X") if s.len() == 11 => {
            return match (Codec::Hex.decode(s), Codec::Base62.decode(s)) {
                (Ok(_), Ok(_)) => Err(Error::InvalidEncoding {
                    codec: "auto",
                    at: 0,
                    reason: "ambiguous: 11 characters starting 0x read as hex and as base62; name the codec",
                }),
                (Ok(id), Err(_)) | (Err(_), Ok(id)) => Ok(id),
                (Err(e), Err(_)) => Err(e),
            };
        }
        Some("0x") => return Codec::Hex.decode(s),
        Some("0X") if s.len() != 13 => return Codec::Hex.decode(s),
        _ => {}
    }
    match s.chars().count() {
        13 => Codec::Base32.decode(s),
        11 => Codec::Base62.decode(s),
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

/// An encoded ID held on the stack (at most 20 ASCII bytes), from [`Codec::format`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Encoded {
    buf: [u8; MAX_LEN],
    len: u8,
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
    /// [`len`](Self::len) to detect truncation and report [`Error::BufferTooSmall`].
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

/// "00".."99": two decimal digits per lookup.
const DIGIT_PAIRS: &[u8; 200] = b"\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

/// The largest decimal length of a `u64` (`18446744073709551615`).
pub const DECIMAL_MAX_LEN: usize = 20;

/// Writes `id` in decimal to the start of `buf` and returns its length: what
/// [`Codec::Decimal`] writes, two digits per division (a general radix loop divides once per
/// digit, which was most of the cost of a service answer of 1,000 IDs). The fixed-size buffer
/// lets a caller append all of it and cut to length, a copy that compiles to a few moves.
///
/// # Examples
/// ```
/// let mut buf = [0u8; idmint::codec::DECIMAL_MAX_LEN];
/// let n = idmint::codec::decimal_into(1_234_567, &mut buf);
/// assert_eq!(&buf[..n], b"1234567");
/// ```
pub fn decimal_into(mut id: u64, buf: &mut [u8; DECIMAL_MAX_LEN]) -> usize {
    let n = decimal_len(id);
    let mut i = n;
    while id >= 100 {
        let pair = (id % 100) as usize * 2;
        id /= 100;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    }
    if id >= 10 {
        let pair = id as usize * 2;
        buf[0..2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    } else {
        buf[0] = b'0' + id as u8;
    }
    n
}

/// Number of decimal digits of `v` (1 for 0).
const fn decimal_len(v: u64) -> usize {
    let mut n = 1;
    let mut p = 10u64;
    while n < DECIMAL_MAX_LEN && v >= p {
        n += 1;
        p = p.wrapping_mul(10);
    }
    n
}

/// Writes `id` in base `radix` with `alphabet`, left-padded with the zero digit to `width` if
/// given; returns the length. `radix` ≥ 2 and `width` ≤ 20 are guaranteed by the callers.
fn encode_radix(
    mut id: u64,
    radix: u64,
    alphabet: &[u8],
    width: Option<usize>,
    buf: &mut [u8],
) -> usize {
    let mut tmp = [0u8; MAX_LEN];
    let mut n = 0;
    loop {
        let d = (id % radix) as usize;
        if let (Some(slot), Some(&c)) = (tmp.get_mut(n), alphabet.get(d)) {
            *slot = c;
        }
        n += 1;
        id /= radix;
        if id == 0 || n == MAX_LEN {
            break;
        }
    }
    let zero = alphabet.first().copied().unwrap_or(b'0');
    while let Some(w) = width {
        if n >= w || n >= MAX_LEN {
            break;
        }
        if let Some(slot) = tmp.get_mut(n) {
            *slot = zero;
        }
        n += 1;
    }
    for (dst, src) in buf.iter_mut().zip(tmp.get(..n).unwrap_or(&[]).iter().rev()) {
        *dst = *src;
    }
    n
}

/// How one codec reads digits.
struct DigitSpec {
    codec: &'static str,
    radix: u64,
    value: fn(char) -> Option<u8>,
    bad_char: &'static str,
    /// Exact length in characters, for the fixed-width codecs.
    width: Option<(usize, &'static str)>,
    /// `u64::MAX` in this codec, without padding: the digit-wise upper bound.
    max: &'static [u8],
    overflow: &'static str,
}

const DECIMAL_SPEC: DigitSpec = DigitSpec {
    codec: "decimal",
    radix: 10,
    value: decimal_value,
    bad_char: "not a decimal digit",
    width: None,
    max: b"18446744073709551615",
    overflow: "value exceeds 64 bits (largest is 18446744073709551615)",
};

const HEX_SPEC: DigitSpec = DigitSpec {
    codec: "hex",
    radix: 16,
    value: hex_value,
    bad_char: "not a hexadecimal digit",
    width: None,
    max: b"ffffffffffffffff",
    overflow: "value exceeds 64 bits (at most 16 significant hex digits)",
};

const BASE32_SPEC: DigitSpec = DigitSpec {
    codec: "base32",
    radix: 32,
    value: base32_value,
    bad_char: "not a Crockford base32 character",
    width: Some((13, "base32 IDs are exactly 13 characters")),
    max: b"FZZZZZZZZZZZZ",
    overflow: "value exceeds 64 bits (the first base32 character must be 0-F)",
};

const BASE62_SPEC: DigitSpec = DigitSpec {
    codec: "base62",
    radix: 62,
    value: base62_value,
    bad_char: "not a base62 character",
    width: Some((11, "base62 IDs are exactly 11 characters")),
    max: b"LygHa16AHYF",
    overflow: "value exceeds 64 bits (largest is LygHa16AHYF)",
};

fn decimal_value(c: char) -> Option<u8> {
    c.to_digit(10).map(|d| d as u8)
}

fn hex_value(c: char) -> Option<u8> {
    c.to_digit(16).map(|d| d as u8)
}

fn base32_value(c: char) -> Option<u8> {
    let c = c.to_ascii_uppercase();
    let c = match c {
        'I' | 'L' => '1',
        'O' => '0',
        c => c,
    };
    BASE32
        .iter()
        .position(|&a| char::from(a) == c)
        .map(|p| p as u8)
}

fn base62_value(c: char) -> Option<u8> {
    let d = match c {
        '0'..='9' => c as u32 - '0' as u32,
        'A'..='Z' => c as u32 - 'A' as u32 + 10,
        'a'..='z' => c as u32 - 'a' as u32 + 36,
        _ => return None,
    };
    Some(d as u8)
}

/// Decodes `s` (which starts at character `offset` of the user's input) digit by digit.
///
/// Problems are reported in reading order of importance: the first invalid character, then a
/// wrong length, then overflow — blamed on the first character that makes the value too large
/// (found by comparing digit-wise with `u64::MAX`, which works because both are written without
/// leading zeros).
fn decode_digits(s: &str, offset: usize, spec: &DigitSpec) -> Result<u64> {
    let err = |at: usize, reason: &'static str| Error::InvalidEncoding {
        codec: spec.codec,
        at,
        reason,
    };
    if s.is_empty() {
        return Err(err(offset, "empty input"));
    }
    let mut len = 0usize;
    let mut leading_zeros = 0usize;
    for (i, c) in s.chars().enumerate() {
        match (spec.value)(c) {
            Some(0) if leading_zeros == i => leading_zeros += 1,
            Some(_) => {}
            None => return Err(err(offset + i, spec.bad_char)),
        }
        len = i + 1;
    }
    if let Some((width, reason)) = spec.width {
        if len != width {
            return Err(err(offset + len, reason));
        }
    }
    let significant = len - leading_zeros;
    if significant > spec.max.len() {
        return Err(err(offset + leading_zeros, spec.overflow));
    }
    if significant == spec.max.len() {
        let digits = s
            .chars()
            .skip(leading_zeros)
            .map(|c| (spec.value)(c).unwrap_or(0));
        let max = spec
            .max
            .iter()
            .map(|&m| (spec.value)(char::from(m)).unwrap_or(0));
        for (i, (d, m)) in digits.zip(max).enumerate() {
            if d > m {
                return Err(err(offset + leading_zeros + i, spec.overflow));
            }
            if d < m {
                break;
            }
        }
    }
    let mut acc = 0u64;
    for (i, c) in s.chars().enumerate() {
        let d = u64::from((spec.value)(c).unwrap_or(0));
        acc = acc
            .checked_mul(spec.radix)
            .and_then(|a| a.checked_add(d))
            .ok_or_else(|| err(offset + i, spec.overflow))?;
    }
    Ok(acc)
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use proptest::prelude::*;
    use std::string::String;

    fn enc(c: Codec, id: u64) -> String {
        String::from(c.format(id).as_str())
    }

    #[test]
    fn known_values() {
        assert_eq!(enc(Codec::Decimal, 0), "0");
        assert_eq!(enc(Codec::Decimal, u64::MAX), "18446744073709551615");
        assert_eq!(enc(Codec::Hex, 0), "0x0");
        assert_eq!(enc(Codec::Hex, 0xDEAD_BEEF), "0xdeadbeef");
        assert_eq!(enc(Codec::Hex, u64::MAX), "0xffffffffffffffff");
        assert_eq!(enc(Codec::Base32, 0), "0000000000000");
        assert_eq!(enc(Codec::Base32, 31), "000000000000Z");
        assert_eq!(enc(Codec::Base32, u64::MAX), "FZZZZZZZZZZZZ");
        assert_eq!(enc(Codec::Base62, 0), "00000000000");
        assert_eq!(enc(Codec::Base62, 61), "0000000000z");
        assert_eq!(enc(Codec::Base62, 62), "00000000010");
        assert_eq!(enc(Codec::Base62, u64::MAX), "LygHa16AHYF");
        for c in Codec::ALL {
            assert_eq!(c.format(u64::MAX).as_str().len(), c.max_len());
            assert_eq!(c.decode(c.format(u64::MAX).as_str()), Ok(u64::MAX));
        }
    }

    #[test]
    fn names_round_trip() {
        for c in Codec::ALL {
            assert_eq!(Codec::parse(c.name()), Ok(c));
            assert_eq!(c.name().parse::<Codec>(), Ok(c));
        }
        assert_eq!(Codec::parse("DEC"), Ok(Codec::Decimal));
        assert_eq!(
            Codec::parse("nope").unwrap_err().kind(),
            crate::ErrorKind::InvalidConfig
        );
    }

    #[test]
    fn lenient_inputs() {
        assert_eq!(Codec::Hex.decode("DeadBeef"), Ok(0xDEAD_BEEF));
        assert_eq!(Codec::Hex.decode("0XFF"), Ok(255));
        assert_eq!(Codec::Hex.decode("0x00000000000000000001"), Ok(1));
        assert_eq!(Codec::Decimal.decode("000000000000000000000000042"), Ok(42));
        assert_eq!(Codec::Base32.decode("000000000000l"), Ok(1));
        assert_eq!(Codec::Base32.decode("000000000000I"), Ok(1));
        assert_eq!(Codec::Base32.decode("00000000000o0"), Ok(0));
        assert_eq!(Codec::Base32.decode("fzzzzzzzzzzzz"), Ok(u64::MAX));
    }

    fn bad(c: Codec, s: &str) -> (usize, &'static str) {
        match c.decode(s) {
            Err(Error::InvalidEncoding { codec, at, reason }) => {
                assert_eq!(codec, c.name());
                (at, reason)
            }
            other => panic!("{c} {s:?}: {other:?}"),
        }
    }

    #[test]
    fn errors_point_at_the_problem() {
        assert_eq!(
            bad(Codec::Base32, "0000000000U00"),
            (10, "not a Crockford base32 character")
        );
        assert_eq!(
            bad(Codec::Base32, "00000"),
            (5, "base32 IDs are exactly 13 characters")
        );
        assert_eq!(bad(Codec::Base32, "G000000000000").0, 0);
        assert_eq!(bad(Codec::Base32, "").1, "empty input");
        assert_eq!(
            bad(Codec::Base32, "ééééééééééééé"),
            (0, "not a Crockford base32 character")
        );
        assert_eq!(
            bad(Codec::Base62, "LygHa16AHYG"),
            (10, "value exceeds 64 bits (largest is LygHa16AHYF)")
        );
        assert_eq!(bad(Codec::Base62, "Lz000000000").0, 1);
        assert_eq!(bad(Codec::Base62, "zzzzzzzzzzz").0, 0);
        assert_eq!(
            bad(Codec::Base62, "0000000000-"),
            (10, "not a base62 character")
        );
        assert_eq!(
            bad(Codec::Base62, "000"),
            (3, "base62 IDs are exactly 11 characters")
        );
        assert_eq!(bad(Codec::Decimal, "18446744073709551616").0, 19);
        assert_eq!(bad(Codec::Decimal, "0018446744073709551616").0, 21);
        assert_eq!(bad(Codec::Decimal, "100000000000000000000").0, 0);
        assert_eq!(bad(Codec::Decimal, "12a"), (2, "not a decimal digit"));
        assert_eq!(bad(Codec::Decimal, "-1"), (0, "not a decimal digit"));
        assert_eq!(bad(Codec::Decimal, "+1").0, 0);
        assert_eq!(bad(Codec::Hex, "0x"), (2, "no digits after the 0x prefix"));
        assert_eq!(bad(Codec::Hex, "0xg"), (2, "not a hexadecimal digit"));
        assert_eq!(bad(Codec::Hex, "1ffffffffffffffff").0, 0);
        assert_eq!(bad(Codec::Hex, "0x1ffffffffffffffff").0, 2);
    }

    #[test]
    fn parse_id_rules() {
        assert_eq!(parse_id("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_id("12345678901"), Ok(12_345_678_901)); // 11 digits: decimal
        assert_eq!(parse_id("1234567890123"), Ok(1_234_567_890_123)); // 13 digits: decimal
        assert_eq!(parse_id("0xff"), Ok(255));
        assert_eq!(parse_id("FZZZZZZZZZZZZ"), Ok(u64::MAX));
        assert_eq!(parse_id("LygHa16AHYF"), Ok(u64::MAX));
        assert!(matches!(
            parse_id(""),
            Err(Error::InvalidEncoding {
                codec: "auto",
                at: 0,
                ..
            })
        ));
        assert!(matches!(
            parse_id("ff"),
            Err(Error::InvalidEncoding {
                codec: "auto",
                at: 0,
                ..
            })
        ));
        // What the service wrote before hex carried its prefix: the error is at the start (not
        // past the end) and says how to read it.
        match parse_id("1d83a82428800000") {
            Err(Error::InvalidEncoding {
                codec: "auto",
                at: 0,
                reason,
            }) => assert!(reason.contains("0x prefix"), "{reason}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(parse_id("0x1d83a82428800000"), Ok(0x1d83_a824_2880_0000));
        // Base32 may begin with 0X: 13 characters with an upper-case X stay base32.
        let b32 = Codec::Base32.format(1_044_835_113_549_955_072);
        assert!(b32.as_str().starts_with("0X"), "{b32}");
        assert_eq!(parse_id(b32.as_str()), Ok(1_044_835_113_549_955_072));
        assert_eq!(parse_id("0X2A"), Ok(42));
        assert!(matches!(
            parse_id("zzzzzzzzzzzzz"),
            Err(Error::InvalidEncoding {
                codec: "base32",
                ..
            })
        ));
    }

    #[test]
    fn encode_into_checks_the_buffer() {
        let mut buf = [0u8; 12];
        assert_eq!(
            Codec::Base32.encode_into(1, &mut buf),
            Err(Error::BufferTooSmall { needed: 13 })
        );
        assert_eq!(buf, [0u8; 12]);
        assert_eq!(Codec::Base62.encode_into(1, &mut buf), Ok(11));
        assert_eq!(&buf[..11], b"00000000001");
        assert_eq!(
            Codec::Hex.encode_into(0, &mut []),
            Err(Error::BufferTooSmall { needed: 3 })
        );
    }

    #[test]
    fn slice_writer() {
        use core::fmt::Write;
        let mut buf = [0u8; 4];
        let mut w = SliceWriter::new(&mut buf);
        assert!(w.is_empty());
        w.write_str("ab").unwrap();
        assert!(w.write_str("é!!").is_err());
        assert_eq!(w.as_str(), "ab");
        assert_eq!(w.needed(), 6);
        w.write_str("é").unwrap();
        assert_eq!(w.len(), 4);
        assert_eq!(w.into_str(), "abé");
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn encode_string() {
        assert_eq!(Codec::Decimal.encode(7), "7");
    }

    #[test]
    fn eleven_characters_after_0x_that_read_as_hex_and_base62_are_refused() {
        // Base62 for 798,688,106,229,549,568, and hex for 0: no guess.
        assert_eq!(
            Codec::Base62.format(798_688_106_229_549_568).as_str(),
            "0x000000000"
        );
        let ambiguous = parse_id("0x000000000").unwrap_err();
        assert!(ambiguous.to_string().contains("ambiguous"), "{ambiguous}");
        assert_eq!(parse_id("0X123456789"), Err(ambiguous));
        // Not hex: base62 only.
        assert_eq!(parse_id("0x00000000g"), Codec::Base62.decode("0x00000000g"));
        assert!(parse_id("0x00000000g").is_ok());
        // Other lengths with 0x stay hex.
        assert_eq!(parse_id("0x2a"), Ok(42));
    }

    proptest! {
        #[test]
        fn round_trip(id in any::<u64>()) {
            for c in Codec::ALL {
                let e = c.format(id);
                prop_assert_eq!(c.decode(e.as_str()), Ok(id));
                if let Some(w) = c.fixed_width() {
                    prop_assert_eq!(e.as_str().len(), w);
                }
                let lower = e.as_str().to_ascii_lowercase();
                let upper = e.as_str().to_ascii_uppercase();
                if c != Codec::Base62 {
                    prop_assert_eq!(c.decode(&lower), Ok(id));
                    prop_assert_eq!(c.decode(&upper), Ok(id));
                }
            }
            // Every codec's output reads back without naming the codec, except base32/base62
            // text made only of digits (read as decimal, as documented).
            for c in Codec::ALL {
                let e = c.format(id);
                let text = e.as_str();
                let both = text.len() == 11
                    && (text.starts_with("0x") || text.starts_with("0X"))
                    && Codec::Hex.decode(text).is_ok()
                    && Codec::Base62.decode(text).is_ok();
                if both {
                    // Hex and base62 at once: refused, never a wrong value.
                    prop_assert!(parse_id(text).is_err(), "{}", c);
                } else if !e.as_bytes().iter().all(u8::is_ascii_digit) {
                    prop_assert_eq!(parse_id(text), Ok(id), "{}", c);
                }
            }
            let bare = std::format!("{id:x}");
            prop_assert_eq!(Codec::Hex.decode(&bare), Ok(id));
            prop_assert_eq!(parse_id(Codec::Decimal.format(id).as_str()), Ok(id));
        }

        #[test]
        fn fixed_width_order_is_numeric_order(a in any::<u64>(), b in any::<u64>()) {
            for c in [Codec::Base32, Codec::Base62] {
                let (ea, eb) = (c.format(a), c.format(b));
                prop_assert_eq!(ea.as_bytes().cmp(eb.as_bytes()), a.cmp(&b));
            }
        }

        #[test]
        fn small_and_large_order(a in 0u64..1000, b in (u64::MAX - 1000)..=u64::MAX) {
            for c in [Codec::Base32, Codec::Base62] {
                prop_assert!(c.format(a).as_str() < c.format(b).as_str());
            }
        }

        #[test]
        fn decode_never_panics(s in ".*") {
            for c in Codec::ALL {
                let _ = c.decode(&s);
            }
            let _ = parse_id(&s);
        }

        #[test]
        fn decode_never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            let s = String::from_utf8_lossy(&bytes);
            for c in Codec::ALL {
                let _ = c.decode(&s);
            }
            let _ = parse_id(&s);
        }

        #[test]
        fn near_alphabet_strings(s in "[0-9A-Za-z]{11,13}|0x[0-9a-fA-F]{0,20}|[0-9]{18,22}") {
            let _ = parse_id(&s);
            for c in Codec::ALL {
                if let Ok(v) = c.decode(&s) {
                    // What decodes must re-encode to the same value.
                    prop_assert_eq!(c.decode(c.format(v).as_str()), Ok(v));
                }
            }
        }

        #[test]
        fn decode_agrees_with_u128(digits in proptest::collection::vec(0u8..62, 11)) {
            let s: String = digits.iter().map(|&d| char::from(BASE62[usize::from(d)])).collect();
            let wide = digits.iter().fold(0u128, |a, &d| a * 62 + u128::from(d));
            let got = Codec::Base62.decode(&s);
            match u64::try_from(wide) {
                Ok(v) => prop_assert_eq!(got, Ok(v)),
                Err(_) => prop_assert!(got.is_err()),
            }
        }
    }
}
