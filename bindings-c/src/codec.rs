//! Text forms of IDs: decimal, hex, and fixed-width sortable base32 and base62.

use std::ffi::c_char;

use idmint_core::codec::{parse_id, Codec};

use crate::error::{idmint_status, Fail};
use crate::ffi::{c_str, put, str_n, write_text};

/// @brief A text form for 64-bit IDs: one of the `IDMINT_CODEC_*` constants.
///
/// A plain integer rather than an enum, so that any value a C caller passes is checked
/// (`IDMINT_BAD_C_ARGUMENT`) instead of being undefined behaviour.
pub type idmint_codec = u32;

/// Base 10 without leading zeros (1 to 20 characters).
pub const IDMINT_CODEC_DECIMAL: idmint_codec = 0;
/// `0x` and lower-case base 16 without leading zeros (3 to 18 characters), so that
/// `IDMINT_CODEC_AUTO` reads it back (except at 11 characters, values from 2^32 to 2^36, which
/// read as base62 too: AUTO refuses them as ambiguous); decoding accepts either case, with or
/// without the `0x`.
pub const IDMINT_CODEC_HEX: idmint_codec = 1;
/// 13 Crockford base32 characters; text order equals numeric order. Decoding is
/// case-insensitive and reads `I`/`L` as 1 and `O` as 0.
pub const IDMINT_CODEC_BASE32: idmint_codec = 2;
/// 11 base62 characters (`0-9A-Za-z`); text order equals numeric order.
pub const IDMINT_CODEC_BASE62: idmint_codec = 3;
/// Decoding only: guess the codec from the text's shape (all digits: decimal; `0x`: hex, and
/// `0X` unless 13 characters long; 13 characters: base32; 11: base62). Eleven characters
/// starting `0x`/`0X` that read both as hex and as base62 are refused as ambiguous.
pub const IDMINT_CODEC_AUTO: idmint_codec = 4;

/// Buffer size that holds any encoding plus its NUL (20 decimal digits + 1).
pub const IDMINT_ENCODE_BUF_SIZE: usize = 21;

/// The codecs by constant: `IDMINT_CODEC_X` is the index of `Codec::X`.
const CODECS: [Codec; 4] = [Codec::Decimal, Codec::Hex, Codec::Base32, Codec::Base62];

/// The codec a constant names; `None` for `IDMINT_CODEC_AUTO`.
pub(crate) fn codec(c: idmint_codec) -> Result<Option<Codec>, Fail> {
    match CODECS.get(c as usize) {
        Some(c) => Ok(Some(*c)),
        None if c == IDMINT_CODEC_AUTO => Ok(None),
        None => Err(Fail::Arg("unknown codec constant (use IDMINT_CODEC_*)")),
    }
}

fn decode(text: &str, c: idmint_codec) -> Result<u64, Fail> {
    Ok(match codec(c)? {
        Some(c) => c.decode(text)?,
        None => parse_id(text)?,
    })
}

/// @brief Looks a codec up by name: `dec`/`decimal`, `hex`, `base32`, `base62` (ASCII
/// case-insensitive, as in the CLI), or `auto`.
///
/// @param name NUL-terminated UTF-8.
/// @param out_codec Receives the constant.
/// @return `IDMINT_OK`; `IDMINT_INVALID_CONFIG` for an unknown name; `IDMINT_NULL_POINTER`;
///         `IDMINT_BAD_C_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn idmint_codec_from_name(
    name: *const c_char,
    out_codec: *mut idmint_codec,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        put(out_codec, "out_codec", || -> Result<_, Fail> {
            let name = c_str(name, "name")?;
            let Some(c) = Codec::parse_or_auto(name)? else {
                return Ok(IDMINT_CODEC_AUTO);
            };
            let i = CODECS.iter().position(|k| *k == c);
            Ok(i.ok_or(Fail::Arg("a codec newer than this library"))? as idmint_codec)
        })
    }
}

/// @brief Encodes an ID as NUL-terminated text.
///
/// @param id The ID.
/// @param codec `IDMINT_CODEC_DECIMAL`, `_HEX`, `_BASE32` or `_BASE62`.
/// @param buf Output buffer of `buf_len` bytes; `IDMINT_ENCODE_BUF_SIZE` always suffices. Buffer
///        rules as #idmint_layout_spec.
/// @return `IDMINT_OK`; `IDMINT_BUFFER_TOO_SMALL`; `IDMINT_BAD_C_ARGUMENT` for an unknown
///         codec or `IDMINT_CODEC_AUTO`; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_encode(
    id: u64,
    codec: idmint_codec,
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
) -> idmint_status {
    crate::error::guard(|| {
        let c = self::codec(codec)?.ok_or(Fail::Arg("IDMINT_CODEC_AUTO only decodes"))?;
        // SAFETY: the caller's contract.
        unsafe { write_text(c.format(id).as_str(), buf, buf_len, out_len) }
    })
}

/// @brief Decodes NUL-terminated text to an ID.
///
/// @param text NUL-terminated UTF-8.
/// @param codec An `IDMINT_CODEC_*` constant; `IDMINT_CODEC_AUTO` guesses from the text.
/// @param out_id Receives the ID.
/// @return `IDMINT_OK`; `IDMINT_INVALID_ENCODING` (the message names the character index and
///         why); `IDMINT_BAD_C_ARGUMENT` (unknown codec, text not UTF-8);
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_parse_id(
    text: *const c_char,
    codec: idmint_codec,
    out_id: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe { put(out_id, "out_id", || decode(c_str(text, "text")?, codec)) }
}

/// @brief Decodes `len` bytes of text (no NUL needed) to an ID; otherwise as #idmint_parse_id.
///
/// @param text Text of `len` bytes. May be NULL only if `len` is 0.
#[no_mangle]
pub unsafe extern "C" fn idmint_parse_id_n(
    text: *const c_char,
    len: usize,
    codec: idmint_codec,
    out_id: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        put(out_id, "out_id", || {
            decode(str_n(text, len, "text")?, codec)
        })
    }
}
