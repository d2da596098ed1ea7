//! TypeIDs (spec v0.3): a type prefix and a UUID, `user_01h455vb4pex5vsknk084sn02q`. Minted on
//! the core's process-wide v7 generator (`idmint::named::clocked::typeid`), parsed and formatted by
//! `idmint::formats::typeid::TypeId`.

use std::ffi::c_char;

use idmint_core::formats::typeid::{self, TypeId};
use idmint_core::{named::clocked, Uuid};

use crate::error::{guard, idmint_status};
use crate::ffi::{arg, c_str, out, write_text};
use crate::uuid::idmint_uuid;

/// The longest TypeID text (63-character prefix, `_`, 26-character suffix), without its NUL.
pub const IDMINT_TYPEID_MAX_LEN: usize = 90;
/// Buffer size that holds any TypeID text plus its NUL (90 + 1).
pub const IDMINT_TYPEID_STR_SIZE: usize = 91;
/// Buffer size that holds any TypeID prefix plus its NUL (63 + 1).
pub const IDMINT_TYPEID_PREFIX_SIZE: usize = 64;

const _: () = assert!(IDMINT_TYPEID_MAX_LEN == typeid::MAX_LEN);
const _: () = assert!(IDMINT_TYPEID_STR_SIZE == typeid::MAX_LEN + 1);
const _: () = assert!(IDMINT_TYPEID_PREFIX_SIZE == typeid::MAX_PREFIX_LEN + 1);

/// @brief A new TypeID under `prefix`, on a version 7 UUID from the process-wide generator of
/// #idmint_uuid7 (so the TypeIDs of a process increase, whatever their prefix).
///
/// @param prefix NUL-terminated: `[a-z]([a-z_]*[a-z])?`, at most 63 characters, or `""` (then
///        the text is the bare 26-character suffix).
/// @param buf Output buffer of `buf_len` bytes; `IDMINT_TYPEID_STR_SIZE` always suffices.
///        Buffer rules as #idmint_layout_spec.
/// @param out_len If not NULL, receives the text's length without the NUL (also on
///        `IDMINT_BUFFER_TOO_SMALL`).
/// @return `IDMINT_OK`; `IDMINT_INVALID_ENCODING` for a bad prefix (the message names the
///         character index and why); `IDMINT_BUFFER_TOO_SMALL`; `IDMINT_RANDOM_SOURCE`;
///         `IDMINT_BAD_C_ARGUMENT` (not UTF-8); `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_typeid(
    prefix: *const c_char,
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let id = clocked::typeid(unsafe { c_str(prefix, "prefix") }?)?;
        // SAFETY: the caller's contract.
        unsafe { write_text(&id.to_string(), buf, buf_len, out_len) }
    })
}

/// @brief The TypeID text of `uuid` under `prefix`.
///
/// @param prefix NUL-terminated, as for #idmint_typeid.
/// @param uuid The UUID (any version).
/// @param buf Output buffer, as for #idmint_typeid.
/// @return `IDMINT_OK`; `IDMINT_INVALID_ENCODING` for a bad prefix; `IDMINT_BUFFER_TOO_SMALL`;
///         `IDMINT_BAD_C_ARGUMENT` (not UTF-8); `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_typeid_format(
    prefix: *const c_char,
    uuid: *const idmint_uuid,
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (p, u) = unsafe { (c_str(prefix, "prefix")?, arg(uuid, "uuid")?) };
        let id = TypeId::new(p, Uuid::from_bytes(u.bytes))?;
        // SAFETY: the caller's contract.
        unsafe { write_text(&id.to_string(), buf, buf_len, out_len) }
    })
}

/// @brief Parses a TypeID into its prefix and UUID. Strict, as the spec's test cases require:
/// lower case only, exactly 26 suffix characters, the first at most `7`.
///
/// @param text NUL-terminated UTF-8.
/// @param prefix_buf Receives the prefix (`""` for none); `IDMINT_TYPEID_PREFIX_SIZE` always
///        suffices. Buffer rules as #idmint_layout_spec.
/// @param out_prefix_len If not NULL, receives the prefix's length without the NUL (on
///        `IDMINT_OK` and `IDMINT_BUFFER_TOO_SMALL`).
/// @param out_uuid Receives the UUID (only on `IDMINT_OK`).
/// @return `IDMINT_OK`; `IDMINT_INVALID_ENCODING` (the message names the character index and
///         why); `IDMINT_BUFFER_TOO_SMALL` for the prefix; `IDMINT_BAD_C_ARGUMENT` (not
///         UTF-8); `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_typeid_parse(
    text: *const c_char,
    prefix_buf: *mut c_char,
    prefix_buf_len: usize,
    out_prefix_len: *mut usize,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (t, dst) = unsafe { (c_str(text, "text")?, out(out_uuid, "out_uuid")?) };
        let id = TypeId::parse(t)?;
        // SAFETY: the caller's contract.
        unsafe { write_text(id.prefix(), prefix_buf, prefix_buf_len, out_prefix_len) }?;
        dst.write(id.uuid().into());
        Ok(())
    })
}
