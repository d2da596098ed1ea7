//! Checked conversions of C arguments: pointers, strings, byte and array buffers, text output.
//!
//! Every check that C cannot express in types happens here once: NULL, alignment, UTF-8 and
//! length limits each become a [`Fail`] (and so a status), never undefined behaviour or a
//! panic. What remains for the caller is the contract no function can check: that a non-NULL
//! pointer really points to live memory of the stated size.

use std::ffi::{c_char, CStr};
use std::mem::size_of;

use idmint_core::Error;

use crate::status::Fail;

/// A checked, non-NULL, aligned pointer the caller promised is valid for one write of `T`.
pub(crate) struct Out<T>(*mut T);

impl<T> Out<T> {
    /// Stores `value` without reading or dropping what was there (C memory may be
    /// uninitialised).
    #[inline(always)]
    pub(crate) fn write(self, value: T) {
        // SAFETY: `out`/`opt_out` built `self` from a non-NULL, aligned pointer that their caller
        // promised is valid for writes of `T`.
        unsafe { self.0.write(value) }
    }
}

/// Checks an output pointer.
///
/// # Safety
/// A non-NULL `p` must be valid for writes of `T` for the rest of the call.
#[inline(always)]
pub(crate) unsafe fn out<T>(p: *mut T, name: &'static str) -> Result<Out<T>, Fail> {
    if p.is_null() {
        return Err(Fail::Null(name));
    }
    if !p.is_aligned() {
        return Err(Fail::Misaligned(name));
    }
    Ok(Out(p))
}

/// Checks an optional output pointer: NULL means "not wanted".
///
/// # Safety
/// As [`out`].
#[inline(always)]
pub(crate) unsafe fn opt_out<T>(p: *mut T, name: &'static str) -> Result<Option<Out<T>>, Fail> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded contract.
    unsafe { out(p, name) }.map(Some)
}

/// Borrows an input pointer.
///
/// # Safety
/// A non-NULL `p` must point to a valid `T` that nothing mutates for the rest of the call.
#[inline(always)]
pub(crate) unsafe fn arg<'a, T>(p: *const T, name: &'static str) -> Result<&'a T, Fail> {
    if p.is_null() {
        return Err(Fail::Null(name));
    }
    if !p.is_aligned() {
        return Err(Fail::Misaligned(name));
    }
    // SAFETY: non-NULL and aligned; validity is the caller's contract.
    Ok(unsafe { &*p })
}

/// Reads a NUL-terminated UTF-8 string.
///
/// # Safety
/// A non-NULL `p` must point to a NUL-terminated string that stays unchanged during the call.
pub(crate) unsafe fn c_str<'a>(p: *const c_char, name: &'static str) -> Result<&'a str, Fail> {
    if p.is_null() {
        return Err(Fail::Null(name));
    }
    // SAFETY: non-NULL; NUL termination and lifetime are the caller's contract.
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str().map_err(|e| Fail::Utf8 {
        arg: name,
        at: e.valid_up_to(),
    })
}

/// Reads an optional NUL-terminated UTF-8 string: NULL gives `None`.
///
/// # Safety
/// As [`c_str`].
pub(crate) unsafe fn opt_c_str<'a>(
    p: *const c_char,
    name: &'static str,
) -> Result<Option<&'a str>, Fail> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded contract.
    unsafe { c_str(p, name) }.map(Some)
}

/// Reads `len` bytes of UTF-8 text that need not be NUL-terminated.
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn str_n<'a>(
    p: *const c_char,
    len: usize,
    name: &'static str,
) -> Result<&'a str, Fail> {
    // SAFETY: forwarded contract.
    let b = unsafe { bytes(p.cast(), len, name) }?;
    std::str::from_utf8(b).map_err(|e| Fail::Utf8 {
        arg: name,
        at: e.valid_up_to(),
    })
}

/// Borrows `len` input bytes; `p` may be NULL only when `len` is 0.
///
/// # Safety
/// A non-NULL `p` must be valid for reads of `len` bytes that nothing mutates during the call.
pub(crate) unsafe fn bytes<'a>(
    p: *const u8,
    len: usize,
    name: &'static str,
) -> Result<&'a [u8], Fail> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Fail::Null(name));
    }
    if len > isize::MAX as usize {
        return Err(Fail::Arg("a length is larger than any buffer can be"));
    }
    // SAFETY: non-NULL, `u8` needs no alignment, the size fits `isize`; validity for `len`
    // bytes is the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// Borrows `len` input values of `T`; `p` may be NULL only when `len` is 0.
///
/// # Safety
/// A non-NULL `p` must be valid for reads of `len` values that nothing mutates during the call.
pub(crate) unsafe fn slice<'a, T>(
    p: *const T,
    len: usize,
    name: &'static str,
) -> Result<&'a [T], Fail> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Fail::Null(name));
    }
    if !p.is_aligned() {
        return Err(Fail::Misaligned(name));
    }
    if len > isize::MAX as usize / size_of::<T>().max(1) {
        return Err(Fail::Arg("a length is larger than any buffer can be"));
    }
    // SAFETY: non-NULL, aligned, total size fits `isize`; validity is the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// Borrows an output array of `len` `u64`s, zeroing it first (C memory may be uninitialised,
/// and Rust references must never see uninitialised integers). `p` may be NULL only when `len`
/// is 0.
///
/// # Safety
/// A non-NULL `p` must be valid for writes of `len` `u64`s, not aliased during the call.
pub(crate) unsafe fn u64_out<'a>(
    p: *mut u64,
    len: usize,
    name: &'static str,
) -> Result<&'a mut [u64], Fail> {
    if len == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(Fail::Null(name));
    }
    if !p.is_aligned() {
        return Err(Fail::Misaligned(name));
    }
    if len > isize::MAX as usize / size_of::<u64>() {
        return Err(Fail::Arg("a length is larger than any buffer can be"));
    }
    // SAFETY: non-NULL, aligned, size fits `isize`, writable for `len` values (contract).
    unsafe { p.write_bytes(0, len) };
    // SAFETY: as above, and every element is now initialised.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, len) })
}

/// Copies `text` plus a terminating NUL into `buf` of `len` bytes.
///
/// `out_len` (optional) always receives `text.len()`, also on failure, so a caller can size a
/// new buffer (`*out_len + 1`). `buf` may be NULL when `len` is 0 (a size query). A buffer too
/// small fails with `IDMINT_BUFFER_TOO_SMALL`, writing only an empty string (if `len` > 0).
///
/// # Safety
/// A non-NULL `buf` must be valid for writes of `len` bytes; a non-NULL `out_len` valid for a
/// write of `usize`.
pub(crate) unsafe fn write_text(
    text: &str,
    buf: *mut c_char,
    len: usize,
    out_len: *mut usize,
    buf_name: &'static str,
) -> Result<(), Fail> {
    // SAFETY: forwarded contract.
    if let Some(o) = unsafe { opt_out(out_len, "out_len") }? {
        o.write(text.len());
    }
    let needed = text.len() + 1;
    if buf.is_null() {
        return if len == 0 {
            Err(Error::BufferTooSmall { needed }.into())
        } else {
            Err(Fail::Null(buf_name))
        };
    }
    if len < needed {
        if len > 0 {
            // SAFETY: `buf` is valid for `len` >= 1 bytes.
            unsafe { buf.write(0) };
        }
        return Err(Error::BufferTooSmall { needed }.into());
    }
    // SAFETY: `buf` is valid for `len` >= `needed` bytes and cannot overlap the Rust string
    // (the caller's buffer is writable, the text is ours).
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len());
        buf.add(text.len()).write(0);
    }
    Ok(())
}

/// Stores a new handle for C (freed with the matching `_free` function), or NULL if `make`
/// fails.
pub(crate) fn new_handle<T>(
    dst: Out<*mut T>,
    make: impl FnOnce() -> Result<T, Fail>,
) -> Result<(), Fail> {
    match make() {
        Ok(value) => {
            dst.write(Box::into_raw(Box::new(value)));
            Ok(())
        }
        Err(e) => {
            dst.write(std::ptr::null_mut());
            Err(e)
        }
    }
}

/// Frees a handle made by [`into_handle`]; NULL is ignored.
///
/// # Safety
/// A non-NULL `p` must come from [`new_handle`] for the same `T` and not be used afterwards.
pub(crate) unsafe fn free_handle<T>(p: *mut T) {
    if !p.is_null() {
        // SAFETY: `p` came from `Box::into_raw` and ownership returns to us exactly once.
        drop(unsafe { Box::from_raw(p) });
    }
}
