//! Keyed obfuscation of IDs: a full-width permutation, or one that keeps time order.

use idmint_core::obfuscate::{Obfuscator, SortableObfuscator};

use crate::error::{idmint_status, Fail};
use crate::ffi::{arg, call, create, free, slice};
use crate::layout::idmint_layout;

/// @brief A keyed bijection over IDs (opaque, immutable, usable from any thread). Obfuscation,
/// not encryption: it hides order, volume and node from casual readers, nothing more. Freed by
/// #idmint_obfuscator_free.
pub struct idmint_obfuscator(Kind);

enum Kind {
    Full(Obfuscator),
    Sortable(SortableObfuscator),
}

/// The 16 key bytes, most significant first.
unsafe fn key(p: *const u8, len: usize) -> Result<u128, Fail> {
    // SAFETY: forwarded contract.
    let k = unsafe { slice(p, len, "key") }?.try_into();
    let k = k.map_err(|_| Fail::Arg("an obfuscation key is exactly 16 bytes"))?;
    Ok(u128::from_be_bytes(k))
}

/// @brief An obfuscator that permutes all `bits` low bits of an ID: public IDs look random and
/// lose time order, and stay below 2^bits (53 keeps JavaScript-safe IDs safe).
///
/// @param key 16 key bytes, most significant first (`key_len` must be 16).
/// @param bits Width of the domain, 2 to 64 (a layout's width, see #idmint_layout_width).
/// @param out_obfuscator Receives the obfuscator, or NULL on failure.
/// @return `IDMINT_OK`; `IDMINT_INVALID_CONFIG` for a width outside 2..64;
///         `IDMINT_BAD_C_ARGUMENT` for a key that is not 16 bytes; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_obfuscator_new(
    key: *const u8,
    key_len: usize,
    bits: u32,
    out_obfuscator: *mut *mut idmint_obfuscator,
) -> idmint_status {
    // Widths beyond u8 are as invalid as 65: let the core say so.
    let bits = u8::try_from(bits).unwrap_or(u8::MAX);
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        create(out_obfuscator, "out_obfuscator", || {
            Ok(idmint_obfuscator(Kind::Full(Obfuscator::new(
                self::key(key, key_len)?,
                bits,
            )?)))
        })
    }
}

/// @brief An obfuscator that permutes only the bits below `layout`'s time field: public IDs
/// still sort by time (across ticks) and decode to the same timestamp, but node and sequence
/// are hidden.
///
/// @param key 16 key bytes, most significant first (`key_len` must be 16).
/// @param out_obfuscator Receives the obfuscator, or NULL on failure.
/// @return `IDMINT_OK`; `IDMINT_INVALID_CONFIG` if fewer than 2 bits lie below the time field;
///         `IDMINT_BAD_C_ARGUMENT`; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_obfuscator_new_sortable(
    key: *const u8,
    key_len: usize,
    layout: *const idmint_layout,
    out_obfuscator: *mut *mut idmint_obfuscator,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        create(out_obfuscator, "out_obfuscator", || {
            let (k, l) = (self::key(key, key_len)?, arg(layout, "layout")?);
            Ok(idmint_obfuscator(Kind::Sortable(SortableObfuscator::new(
                k, &l.0,
            )?)))
        })
    }
}

/// @brief Frees an obfuscator (NULL is ignored); it must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn idmint_obfuscator_free(obfuscator: *mut idmint_obfuscator) {
    // SAFETY: the caller's contract.
    unsafe { free(obfuscator) }
}

/// @brief Obfuscates an ID.
///
/// @return `IDMINT_OK`; `IDMINT_OUT_OF_RANGE` for an ID outside the domain;
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_obfuscator_encode(
    obfuscator: *const idmint_obfuscator,
    id: u64,
    out_id: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        call(obfuscator, "obfuscator", out_id, "out_id", |o| match &o.0 {
            Kind::Full(f) => f.encode(id),
            Kind::Sortable(s) => s.encode(id),
        })
    }
}

/// @brief Undoes #idmint_obfuscator_encode.
///
/// @return `IDMINT_OK`; `IDMINT_OUT_OF_RANGE` for a value outside the domain;
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_obfuscator_decode(
    obfuscator: *const idmint_obfuscator,
    public_id: u64,
    out_id: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        call(obfuscator, "obfuscator", out_id, "out_id", |o| match &o.0 {
            Kind::Full(f) => f.decode(public_id),
            Kind::Sortable(s) => s.decode(public_id),
        })
    }
}
