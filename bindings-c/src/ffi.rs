//! Checked conversions of C arguments (pointers, strings, buffers, text output) and the generic
//! bodies of entry points, so each `extern "C"` function only names its core call.
//!
//! NULL, alignment, UTF-8 and length limits each become a [`Fail`] (and so a status), never
//! undefined behaviour or a panic. What no function can check stays the caller's contract: that
//! a non-NULL pointer really points to live memory of the stated size. Every `unsafe fn` here
//! forwards that contract for its pointer arguments; the "Safety:" lines add what is more.

use std::ffi::{c_char, CStr};
use std::mem::size_of;
use std::sync::{Mutex, MutexGuard, PoisonError};

use idmint_core::Error;

use crate::error::{guard, idmint_status, Fail};

/// A checked, non-NULL, aligned pointer the caller promised is valid for one write of `T`.
pub(crate) struct Out<T>(*mut T);

impl<T> Out<T> {
    /// Stores `value` without reading or dropping what was there (C memory may be
    /// uninitialised).
    #[inline(always)]
    pub(crate) fn write(self, value: T) {
        // SAFETY: `out` built `self` from a non-NULL, aligned pointer that its caller promised
        // is valid for writes of `T`.
        unsafe { self.0.write(value) }
    }
}

/// NULL and alignment, the checks of every pointer.
#[inline(always)]
fn check<T>(p: *const T, name: &'static str) -> Result<(), Fail> {
    if p.is_null() {
        Err(Fail::Null(name))
    } else if !p.is_aligned() {
        Err(Fail::Misaligned(name))
    } else {
        Ok(())
    }
}

/// Checks an output pointer.
/// Safety: a non-NULL `p` is valid for writes of `T` for the rest of the call.
#[inline(always)]
pub(crate) unsafe fn out<T>(p: *mut T, name: &'static str) -> Result<Out<T>, Fail> {
    check(p, name).map(|()| Out(p))
}

/// Checks an optional output pointer: NULL means "not wanted".
#[inline(always)]
pub(crate) unsafe fn opt_out<T>(p: *mut T, name: &'static str) -> Result<Option<Out<T>>, Fail> {
    // SAFETY: forwarded contract.
    (!p.is_null()).then(|| unsafe { out(p, name) }).transpose()
}

/// Borrows an input pointer.
/// Safety: a non-NULL `p` points to a valid `T` that nothing mutates during the call.
#[inline(always)]
pub(crate) unsafe fn arg<'a, T>(p: *const T, name: &'static str) -> Result<&'a T, Fail> {
    check(p, name)?;
    // SAFETY: non-NULL and aligned; validity is the caller's contract.
    Ok(unsafe { &*p })
}

fn utf8<'a>(b: &'a [u8], arg: &'static str) -> Result<&'a str, Fail> {
    std::str::from_utf8(b).map_err(|e| Fail::Utf8 {
        arg,
        at: e.valid_up_to(),
    })
}

/// Reads a NUL-terminated UTF-8 string.
/// Safety: a non-NULL `p` is a NUL-terminated string that nothing mutates during the call.
pub(crate) unsafe fn c_str<'a>(p: *const c_char, name: &'static str) -> Result<&'a str, Fail> {
    check(p, name)?;
    // SAFETY: non-NULL; NUL termination and lifetime are the caller's contract.
    utf8(unsafe { CStr::from_ptr(p) }.to_bytes(), name)
}

/// Reads an optional NUL-terminated UTF-8 string: NULL gives `None`.
pub(crate) unsafe fn opt_c_str<'a>(
    p: *const c_char,
    name: &'static str,
) -> Result<Option<&'a str>, Fail> {
    // SAFETY: forwarded contract.
    (!p.is_null())
        .then(|| unsafe { c_str(p, name) })
        .transpose()
}

/// Reads `len` bytes of UTF-8 text that need not be NUL-terminated.
pub(crate) unsafe fn str_n<'a>(
    p: *const c_char,
    len: usize,
    name: &'static str,
) -> Result<&'a str, Fail> {
    // SAFETY: forwarded contract.
    utf8(unsafe { slice(p.cast::<u8>(), len, name) }?, name)
}

/// Exactly `N` bytes from the caller; another length fails with `why`.
pub(crate) unsafe fn fixed<const N: usize>(
    p: *const u8,
    len: usize,
    name: &'static str,
    why: &'static str,
) -> Result<[u8; N], Fail> {
    // SAFETY: forwarded contract.
    let b = unsafe { slice(p, len, name) }?;
    b.try_into().map_err(|_| Fail::Arg(why))
}

/// Locks a sans-IO generator's handle. A panic inside the lock would be a bug, reported as
/// `IDMINT_PANIC` by the call that hit it; the generator is plain data, so later calls carry on
/// with it.
pub(crate) fn lock<G>(m: &Mutex<G>) -> MutexGuard<'_, G> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Borrows `len` input values of `T` (bytes, IDs); `p` may be NULL only when `len` is 0.
/// Safety: a non-NULL `p` is valid for reads of `len` values nothing mutates during the call.
pub(crate) unsafe fn slice<'a, T>(
    p: *const T,
    len: usize,
    name: &'static str,
) -> Result<&'a [T], Fail> {
    if len == 0 {
        return Ok(&[]);
    }
    check(p, name)?;
    if len > isize::MAX as usize / size_of::<T>().max(1) {
        return Err(Fail::Arg("a length is larger than any buffer can be"));
    }
    // SAFETY: non-NULL, aligned, total size fits `isize`; validity is the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// Borrows an output array of `len` `u64`s, zeroing it first (C memory may be uninitialised,
/// and Rust references must never see uninitialised integers). `p` may be NULL only when `len`
/// is 0.
/// Safety: a non-NULL `p` is valid for writes of `len` `u64`s, not aliased during the call.
pub(crate) unsafe fn u64_out<'a>(
    p: *mut u64,
    len: usize,
    name: &'static str,
) -> Result<&'a mut [u64], Fail> {
    if len == 0 {
        return Ok(&mut []);
    }
    // SAFETY: forwarded contract; this checks NULL, alignment and size.
    unsafe { slice(p, len, name) }?;
    // SAFETY: checked above, and writable for `len` values (the caller's contract).
    unsafe { p.write_bytes(0, len) };
    // SAFETY: as above, and every element is now initialised.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, len) })
}

/// Borrows an output array of `len` values of `T`, setting each to `init` first (C memory may be
/// uninitialised, and Rust references must never see uninitialised values). `p` may be NULL
/// only when `len` is 0.
/// Safety: a non-NULL `p` is valid for writes of `len` values, not aliased during the call.
pub(crate) unsafe fn array_out<'a, T: Copy>(
    p: *mut T,
    len: usize,
    name: &'static str,
    init: T,
) -> Result<&'a mut [T], Fail> {
    if len == 0 {
        return Ok(&mut []);
    }
    check(p, name)?;
    if len > isize::MAX as usize / size_of::<T>().max(1) {
        return Err(Fail::Arg("a length is larger than any buffer can be"));
    }
    for i in 0..len {
        // SAFETY: non-NULL, aligned, `i < len`; writable for `len` values (the caller's
        // contract). `write` neither reads nor drops what was there.
        unsafe { p.add(i).write(init) };
    }
    // SAFETY: as above, and every element is now initialised.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, len) })
}

/// Copies `text` plus a terminating NUL into `buf` of `len` bytes.
///
/// `out_len` (optional) always receives `text.len()`, also on failure, so a caller can size a
/// new buffer (`*out_len + 1`). `buf` may be NULL when `len` is 0 (a size query). A buffer too
/// small fails with `IDMINT_BUFFER_TOO_SMALL`, writing only an empty string (if `len` > 0).
/// Safety: a non-NULL `buf` is valid for writes of `len` bytes.
pub(crate) unsafe fn write_text(
    text: &str,
    buf: *mut c_char,
    len: usize,
    out_len: *mut usize,
) -> Result<(), Fail> {
    // SAFETY: forwarded contract.
    if let Some(o) = unsafe { opt_out(out_len, "out_len") }? {
        o.write(text.len());
    }
    let needed = text.len() + 1;
    if buf.is_null() && len > 0 {
        return Err(Fail::Null("buf"));
    }
    if len < needed {
        if len > 0 {
            // SAFETY: `buf` is valid for `len` >= 1 bytes.
            unsafe { buf.write(0) };
        }
        return Err(Error::BufferTooSmall { needed }.into());
    }
    // SAFETY: `buf` is valid for `len` >= `needed` bytes and cannot overlap the Rust string.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len());
        buf.add(text.len()).write(0);
    }
    Ok(())
}

/// Writes `until_ms` for a would-block result (0 otherwise) and passes the result on.
#[inline(always)]
pub(crate) fn report_until<T>(r: Result<T, Error>, until: Option<Out<u64>>) -> Result<T, Fail> {
    if let Some(u) = until {
        u.write(match r {
            Err(Error::WouldBlock { until_ms }) => until_ms,
            _ => 0,
        });
    }
    r.map_err(Fail::Core)
}

// The generic entry-point bodies. Each runs in `guard` and checks its pointers in argument
// order; `name` is the C parameter's name, for the message.

/// Stores `f()` through `dst`.
#[inline(always)]
pub(crate) unsafe fn put<T, R: Into<T>, E: Into<Fail>>(
    dst: *mut T,
    name: &'static str,
    f: impl FnOnce() -> Result<R, E>,
) -> idmint_status {
    guard(|| {
        // SAFETY: forwarded contract.
        let dst = unsafe { out(dst, name) }?;
        dst.write(f().map_err(Into::into)?.into());
        Ok(())
    })
}

/// Borrows `p` (a handle or input struct, parameter `name`) and stores `f(p)` through `dst`.
#[inline(always)]
pub(crate) unsafe fn call<H, T, R: Into<T>, E: Into<Fail>>(
    p: *const H,
    name: &'static str,
    dst: *mut T,
    dst_name: &'static str,
    f: impl FnOnce(&H) -> Result<R, E>,
) -> idmint_status {
    guard(|| {
        // SAFETY: forwarded contract.
        let (h, dst) = unsafe { (arg(p, name)?, out(dst, dst_name)?) };
        dst.write(f(h).map_err(Into::into)?.into());
        Ok(())
    })
}

/// [`call`] for an infallible `f`.
#[inline(always)]
pub(crate) unsafe fn read<H, T, R: Into<T>>(
    p: *const H,
    name: &'static str,
    dst: *mut T,
    dst_name: &'static str,
    f: impl FnOnce(&H) -> R,
) -> idmint_status {
    // SAFETY: forwarded contract.
    unsafe { call(p, name, dst, dst_name, |h| Ok::<R, Fail>(f(h))) }
}

/// Borrows generator `gen` and runs `f` on it, which has no result but its status.
#[inline(always)]
pub(crate) unsafe fn act<H>(
    gen: *const H,
    f: impl FnOnce(&H) -> Result<(), Error>,
) -> idmint_status {
    guard(|| {
        // SAFETY: forwarded contract.
        f(unsafe { arg(gen, "gen") }?)?;
        Ok(())
    })
}

/// Borrows generator `gen` and stores `f(gen)` through `dst`, or on `IDMINT_WOULD_BLOCK` the
/// time to call again through `until` (0 otherwise; NULL: not wanted).
#[inline(always)]
pub(crate) unsafe fn call_until<H, T, R: Into<T>>(
    gen: *const H,
    dst: *mut T,
    dst_name: &'static str,
    until: *mut u64,
    f: impl FnOnce(&H) -> Result<R, Error>,
) -> idmint_status {
    // SAFETY: forwarded contract.
    unsafe { call_until_with(gen, dst, dst_name, until, || Ok([]), |g, []| f(g)) }
}

/// [`call_until`] for a step that takes `N` caller bytes too (a ULID's or a KSUID's random
/// part): `bytes` reads them after the pointers are checked, so failures keep argument order.
#[inline(always)]
pub(crate) unsafe fn call_until_with<H, T, R: Into<T>, const N: usize>(
    gen: *const H,
    dst: *mut T,
    dst_name: &'static str,
    until: *mut u64,
    bytes: impl FnOnce() -> Result<[u8; N], Fail>,
    step: impl FnOnce(&H, [u8; N]) -> Result<R, Error>,
) -> idmint_status {
    guard(|| {
        // SAFETY: forwarded contract.
        let (g, dst, until) = unsafe {
            (
                arg(gen, "gen")?,
                out(dst, dst_name)?,
                opt_out(until, "out_until_ms")?,
            )
        };
        let b = bytes()?;
        dst.write(report_until(step(g, b), until)?.into());
        Ok(())
    })
}

/// Reads `text` into `dst` with `parse` and, where `out_ms` is not NULL, writes the value's
/// time `ms(value)` there: the `_parse` of the fixed-size ID types that carry a time.
#[inline(always)]
pub(crate) unsafe fn parse_timed<T, V: Copy + Into<T>>(
    text: *const c_char,
    dst: *mut T,
    dst_name: &'static str,
    out_ms: *mut u64,
    ms_name: &'static str,
    parse: impl FnOnce(&str) -> Result<V, Error>,
    ms: impl FnOnce(&V) -> u64,
) -> idmint_status {
    guard(|| {
        // SAFETY: forwarded contract.
        let (t, dst, out_ms) = unsafe {
            (
                c_str(text, "text")?,
                out(dst, dst_name)?,
                opt_out(out_ms, ms_name)?,
            )
        };
        let v = parse(t)?;
        dst.write(v.into());
        if let Some(o) = out_ms {
            o.write(ms(&v));
        }
        Ok(())
    })
}

/// Borrows generator `gen` and fills `n` IDs at `ids` with `f` (at most the core's batch
/// limit, `IDMINT_LIMIT_EXCEEDED` otherwise).
#[inline(always)]
pub(crate) unsafe fn fill<H>(
    gen: *const H,
    ids: *mut u64,
    n: usize,
    f: impl FnOnce(&H, &mut [u64]) -> Result<(), Error>,
) -> idmint_status {
    guard(|| {
        // SAFETY: forwarded contract.
        let g = unsafe { arg(gen, "gen") }?;
        batch(n)?;
        // SAFETY: forwarded contract.
        f(g, unsafe { u64_out(ids, n, "out_ids") }?)?;
        Ok(())
    })
}

/// Refuses a batch of more than the core's limit (`IDMINT_LIMIT_EXCEEDED`).
pub(crate) fn batch(n: usize) -> Result<(), Fail> {
    idmint_core::limits::batch_len(u64::try_from(n).unwrap_or(u64::MAX))?;
    Ok(())
}

/// Borrows `p` (parameter `name`) and writes the text `f(p)` as [`write_text`] does.
pub(crate) unsafe fn text<H, S: AsRef<str>>(
    p: *const H,
    name: &'static str,
    buf: *mut c_char,
    len: usize,
    out_len: *mut usize,
    f: impl FnOnce(&H) -> S,
) -> idmint_status {
    guard(|| {
        // SAFETY: forwarded contract.
        let h = unsafe { arg(p, name) }?;
        // SAFETY: forwarded contract.
        unsafe { write_text(f(h).as_ref(), buf, len, out_len) }
    })
}

/// Stores a new handle made by `make` through `dst` (freed with the matching `_free`
/// function), or NULL if `make` fails.
pub(crate) unsafe fn create<T>(
    dst: *mut *mut T,
    name: &'static str,
    make: impl FnOnce() -> Result<T, Fail>,
) -> idmint_status {
    guard(|| {
        // SAFETY: forwarded contract.
        let dst = unsafe { out(dst, name) }?;
        let made = make().map(|v| Box::into_raw(Box::new(v)));
        dst.write(made.as_ref().map_or(std::ptr::null_mut(), |p| *p));
        made.map(drop)
    })
}

/// Frees a handle made by [`create`]; NULL is ignored.
/// Safety: a non-NULL `p` comes from [`create`] for the same `T` and is not used afterwards.
pub(crate) unsafe fn free<T>(p: *mut T) {
    guard(|| {
        if !p.is_null() {
            // SAFETY: `p` came from `Box::into_raw` and ownership returns to us exactly once.
            drop(unsafe { Box::from_raw(p) });
        }
        Ok(())
    });
}
