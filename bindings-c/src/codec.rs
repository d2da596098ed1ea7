//! Text forms of IDs: decimal, hex, and fixed-width sortable base32 and base62.

use std::ffi::c_char;

use idmint_core::codec::{decode_any, Codec};

use crate::ffi::{c_str, out, str_n, write_text};
use crate::status::{guard, idmint_status, Fail};

/// @brief A text form for 64-bit IDs: one of the `IDMINT_CODEC_*` constants.
///
/// A plain integer rather than an enum, so that any value a C caller passes is checked
/// (`IDMINT_INVALID_ARGUMENT`) instead of being undefined behaviour.
pub type idmint_codec = u32;

/// Base 10 without leading zeros (1 to 20 characters).
pub const IDMINT_CODEC_DECIMAL: idmint_codec = 0;
/// Lower-case base 16 without prefix or leading zeros (1 to 16 characters); decoding accepts
/// either case and a `0x` prefix.
pub const IDMINT_CODEC_HEX: idmint_codec = 1;
/// 13 Crockford base32 characters; text order equals numeric order. Decoding is
/// case-insensitive and reads `I`/`L` as 1 and `O` as 0.
pub const IDMINT_CODEC_BASE32: idmint_codec = 2;
/// 11 base62 characters (`0-9A-Za-z`); text order equals numeric order.
pub const IDMINT_CODEC_BASE62: idmint_codec = 3;
/// Decoding only: guess the codec from the text's shape (all digits: decimal; `0x`: hex; 13
/// characters: base32; 11: base62).
pub const IDMINT_CODEC_AUTO: idmint_codec = 4;

/// Buffer size that holds any encoding plus its NUL (20 decimal digits + 1).
pub const IDMINT_ENCODE_BUF_SIZE: usize = 21;

fn codec(c: idmint_codec) -> Result<Option<Codec>, Fail> {
    match c {
        IDMINT_CODEC_DECIMAL => Ok(Some(Codec::Decimal)),
        IDMINT_CODEC_HEX => Ok(Some(Codec::Hex)),
        IDMINT_CODEC_BASE32 => Ok(Some(Codec::Base32)),
        IDMINT_CODEC_BASE62 => Ok(Some(Codec::Base62)),
        IDMINT_CODEC_AUTO => Ok(None),
        _ => Err(Fail::Arg("unknown codec constant (use IDMINT_CODEC_*)")),
    }
}

fn decode(text: &str, c: idmint_codec) -> Result<u64, Fail> {
    Ok(match codec(c)? {
        Some(c) => c.decode(text)?,
        None => decode_any(text)?,
    })
}

/// @brief Looks a codec up by name: `dec`/`decimal`, `hex`, `base32`, `base62` (ASCII
/// case-insensitive, as in the CLI), or `auto`.
///
/// @param name NUL-terminated UTF-8. Must not be NULL.
/// @param out_codec Receives the constant. Must not be NULL.
/// @return `IDMINT_OK`; `IDMINT_INVALID_CONFIG` for an unknown name; `IDMINT_NULL_POINTER`;
///         `IDMINT_INVALID_ARGUMENT`.
///
/// # Safety
/// Pointers must be NULL or valid for their stated use.
#[no_mangle]
pub unsafe extern "C" fn idmint_codec_from_name(
    name: *const c_char,
    out_codec: *mut idmint_codec,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (name, dst) = unsafe { (c_str(name, "name")?, out(out_codec, "out_codec")?) };
        dst.write(if name.eq_ignore_ascii_case("auto") {
            IDMINT_CODEC_AUTO
        } else {
            match Codec::parse(name)? {
                Codec::Decimal => IDMINT_CODEC_DECIMAL,
                Codec::Hex => IDMINT_CODEC_HEX,
                Codec::Base32 => IDMINT_CODEC_BASE32,
                Codec::Base62 => IDMINT_CODEC_BASE62,
            }
        });
        Ok(())
    })
}

/// @brief Encodes an ID as NUL-terminated text.
///
/// @param id The ID.
/// @param codec `IDMINT_CODEC_DECIMAL`, `_HEX`, `_BASE32` or `_BASE62`.
/// @param buf Output buffer of `buf_len` bytes; `IDMINT_ENCODE_BUF_SIZE` always suffices. May be
///        NULL only if `buf_len` is 0 (a size query).
/// @param buf_len Size of `buf` in bytes.
/// @param out_len If not NULL, receives the text's length without the NUL, also when `buf` is
///        too small.
/// @return `IDMINT_OK`; `IDMINT_BUFFER_TOO_SMALL`; `IDMINT_INVALID_ARGUMENT` for an unknown
///         codec or `IDMINT_CODEC_AUTO`; `IDMINT_NULL_POINTER`.
///
/// # Safety
/// Pointers must be NULL or valid for their stated use (`buf` for `buf_len` bytes).
#[no_mangle]
pub unsafe extern "C" fn idmint_encode(
    id: u64,
    codec: idmint_codec,
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
) -> idmint_status {
    guard(|| {
        let c = self::codec(codec)?.ok_or(Fail::Arg("IDMINT_CODEC_AUTO only decodes"))?;
        let text = c.format(id);
        // SAFETY: the caller's contract.
        unsafe { write_text(text.as_str(), buf, buf_len, out_len, "buf") }
    })
}

/// @brief Decodes NUL-terminated text to an ID.
///
/// @param text NUL-terminated UTF-8. Must not be NULL.
/// @param codec An `IDMINT_CODEC_*` constant; `IDMINT_CODEC_AUTO` guesses from the text.
/// @param out_id Receives the ID. Must not be NULL.
/// @return `IDMINT_OK`; `IDMINT_INVALID_ENCODING` (the message names the character index and
///         why); `IDMINT_INVALID_ARGUMENT` (unknown codec, text not UTF-8);
///         `IDMINT_NULL_POINTER`.
///
/// # Safety
/// Pointers must be NULL or valid for their stated use.
#[no_mangle]
pub unsafe extern "C" fn idmint_decode(
    text: *const c_char,
    codec: idmint_codec,
    out_id: *mut u64,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (text, dst) = unsafe { (c_str(text, "text")?, out(out_id, "out_id")?) };
        dst.write(decode(text, codec)?);
        Ok(())
    })
}

/// @brief Decodes `len` bytes of text (no NUL needed) to an ID; otherwise as #idmint_decode.
///
/// @param text Text of `len` bytes. May be NULL only if `len` is 0.
///
/// # Safety
/// Pointers must be NULL or valid for their stated use (`text` for `len` bytes).
#[no_mangle]
pub unsafe extern "C" fn idmint_decode_n(
    text: *const c_char,
    len: usize,
    codec: idmint_codec,
    out_id: *mut u64,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (text, dst) = unsafe { (str_n(text, len, "text")?, out(out_id, "out_id")?) };
        dst.write(decode(text, codec)?);
        Ok(())
    })
}
