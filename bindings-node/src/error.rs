//! Throwing a JavaScript exception from Rust: what the shared crate's error mapping
//! (`idmint_js::error`) decided, built with Node-API. The exception is thrown here and a
//! `napi::Error` with status `PendingException` is returned, which napi-rs passes on untouched.

use std::ffi::c_char;
use std::ptr;

use idmint_js::{Class, Out};
use napi::{sys, Status};

pub(crate) fn string(env: sys::napi_env, s: &str) -> Option<sys::napi_value> {
    let mut v = ptr::null_mut();
    // SAFETY: `s` is valid UTF-8 of the given length; `v` is a valid out pointer.
    let st = unsafe {
        sys::napi_create_string_utf8(env, s.as_ptr().cast::<c_char>(), s.len() as _, &mut v)
    };
    (st == sys::Status::napi_ok).then_some(v)
}

/// A new JavaScript value.
pub(crate) fn value(env: sys::napi_env, p: &Out<'_, sys::napi_value>) -> Option<sys::napi_value> {
    let mut v = ptr::null_mut();
    // SAFETY: plain value constructors with a valid out pointer.
    let st = unsafe {
        match *p {
            Out::Str(s) => return string(env, s),
            Out::Val(v) => return Some(v),
            Out::Num(n) => sys::napi_create_double(env, n, &mut v),
            Out::Big(n) => sys::napi_create_bigint_uint64(env, n, &mut v),
            Out::Bool(b) => sys::napi_get_boolean(env, b, &mut v),
            Out::Null => sys::napi_get_null(env, &mut v),
        }
    };
    (st == sys::Status::napi_ok).then_some(v)
}

/// Sets `props` on `obj`.
pub(crate) fn set_props(
    env: sys::napi_env,
    obj: sys::napi_value,
    props: &[(&str, Out<'_, sys::napi_value>)],
) -> Option<()> {
    for (name, p) in props {
        let key = string(env, name)?;
        let v = value(env, p)?;
        // SAFETY: `obj` is an object, `key` a string and `v` a value, all of this env.
        let st = unsafe { sys::napi_set_property(env, obj, key, v) };
        (st == sys::Status::napi_ok).then_some(())?;
    }
    Some(())
}

fn throw_raw(
    env: sys::napi_env,
    class: Class,
    code: &str,
    message: &str,
    props: &[(&str, Out<'_, sys::napi_value>)],
) -> Option<()> {
    let (code_v, msg_v) = (string(env, code)?, string(env, message)?);
    let mut err = ptr::null_mut();
    // SAFETY: both strings were just created in this env; napi_create_*error sets `code` itself.
    let st = unsafe {
        match class {
            Class::Error => sys::napi_create_error(env, code_v, msg_v, &mut err),
            Class::TypeError => sys::napi_create_type_error(env, code_v, msg_v, &mut err),
            Class::RangeError => sys::napi_create_range_error(env, code_v, msg_v, &mut err),
        }
    };
    (st == sys::Status::napi_ok).then_some(())?;
    set_props(env, err, props)?;
    // SAFETY: throws the object just built.
    (unsafe { sys::napi_throw(env, err) } == sys::Status::napi_ok).then_some(())
}

/// Throws an error of `class` with `code`, `message` and `props`, and returns the `napi::Error`
/// to hand back to napi-rs.
pub(crate) fn throw(
    env: sys::napi_env,
    class: Class,
    code: &str,
    message: &str,
    props: &[(&str, Out<'_, sys::napi_value>)],
) -> napi::Error {
    match throw_raw(env, class, code, message, props) {
        Some(()) => napi::Error::new(Status::PendingException, String::new()),
        // Building the error failed (the environment is shutting down, or another exception is
        // pending): let napi-rs surface a plain error instead.
        None => napi::Error::new(Status::GenericFailure, format!("{code}: {message}")),
    }
}

/// A pending exception (a getter or callback threw): pass it on.
pub(crate) fn pending() -> napi::Error {
    napi::Error::new(Status::PendingException, String::new())
}
