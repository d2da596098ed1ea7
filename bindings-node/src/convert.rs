//! Argument conversions shared by the binding modules: JavaScript values in, Rust values out,
//! with a `TypeError` for the wrong type and a `RangeError` for a value out of range.
//!
//! Arguments arrive as `Unknown` so the binding, not napi-rs, decides what a wrong argument
//! throws (see [`crate::errors`]). The rules:
//!
//! * a 64-bit value (ID, node, time in ms, seed) is a `bigint` in `0..=2^64-1` or a `number`
//!   that is a non-negative safe integer (`<= Number.MAX_SAFE_INTEGER`); a larger `number` is
//!   refused because it has already lost digits;
//! * an ID may also be a decimal string (what `nextIdString()` and JSON give);
//! * small counts are numbers or bigints within their range;
//! * bytes are a `Uint8Array` (a `Buffer` is one) of exactly the length needed.

use std::ffi::{c_int, c_void, CStr};
use std::ptr;

use idmint::codec::Codec;
use idmint::Layout as CoreLayout;
use napi::bindgen_prelude::{TypeTag, Unknown};
use napi::{sys, Env, JsValue, ValueType};

use crate::errors::{range_error, type_error, value_error, OrThrow};
use crate::layout::Layout;

/// Largest integer a `number` holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

fn status(env: &Env, st: sys::napi_status) -> napi::Result<()> {
    if st == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(type_error(
            env,
            "unexpected value (the JavaScript engine refused to read it)",
        ))
    }
}

/// The JavaScript type of `v`.
pub(crate) fn type_of(v: &Unknown<'_>) -> napi::Result<ValueType> {
    v.get_type()
}

/// Whether `v` is `undefined` or `null` (an omitted optional argument or option).
pub(crate) fn is_nullish(v: &Unknown<'_>) -> napi::Result<bool> {
    Ok(matches!(
        type_of(v)?,
        ValueType::Undefined | ValueType::Null
    ))
}

/// A short description of a value for error messages, in the style of Node's own
/// (`type string ('abc')`, `number 1.5`, `bigint -1n`, `undefined`).
pub(crate) fn describe(env: &Env, v: &Unknown<'_>) -> String {
    match type_of(v) {
        Ok(ValueType::Undefined) => "undefined".into(),
        Ok(ValueType::Null) => "null".into(),
        Ok(ValueType::Number) => match number(env, v) {
            Ok(d) => format!("number {}", fmt_f64(d)),
            Err(_) => "a number".into(),
        },
        Ok(ValueType::BigInt) => "type bigint".into(),
        Ok(ValueType::String) => match string_raw(env, v) {
            Ok(s) if s.chars().count() > 24 => {
                let head: String = s.chars().take(24).collect();
                format!("type string ('{head}...')")
            }
            Ok(s) => format!("type string ('{s}')"),
            Err(_) => "type string".into(),
        },
        Ok(ValueType::Boolean) => "type boolean".into(),
        Ok(ValueType::Symbol) => "type symbol".into(),
        Ok(ValueType::Function) => "type function".into(),
        Ok(ValueType::Object) => "an object".into(),
        _ => "a value of another type".into(),
    }
}

fn fmt_f64(d: f64) -> String {
    if d.is_nan() {
        "NaN".into()
    } else if d.is_infinite() {
        if d > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        format!("{d}")
    }
}

fn number(env: &Env, v: &Unknown<'_>) -> napi::Result<f64> {
    let mut d = 0f64;
    // SAFETY: `v` is a number value of this env; `d` is a valid out pointer.
    status(env, unsafe {
        sys::napi_get_value_double(env.raw(), v.raw(), &mut d)
    })?;
    Ok(d)
}

/// The sign and up to two 64-bit words of a bigint, and how many words it needs.
fn bigint(env: &Env, v: &Unknown<'_>) -> napi::Result<(bool, usize, [u64; 2])> {
    let mut sign: c_int = 0;
    let mut count: usize = 2;
    let mut words = [0u64; 2];
    // SAFETY: `words` has room for `count` words; napi writes at most that many and sets
    // `count` to the number the value needs.
    status(env, unsafe {
        sys::napi_get_value_bigint_words(
            env.raw(),
            v.raw(),
            &mut sign,
            &mut count,
            words.as_mut_ptr(),
        )
    })?;
    let zero = count == 0 || (count <= 2 && words == [0, 0]);
    Ok((sign != 0 && !zero, count, words))
}

fn string_raw(env: &Env, v: &Unknown<'_>) -> napi::Result<String> {
    let mut len = 0usize;
    // SAFETY: a null buffer asks for the length in bytes.
    status(env, unsafe {
        sys::napi_get_value_string_utf8(env.raw(), v.raw(), ptr::null_mut(), 0, &mut len)
    })?;
    let mut buf = vec![0u8; len + 1];
    let mut written = 0usize;
    // SAFETY: `buf` has room for `len` bytes and the terminating NUL napi writes.
    status(env, unsafe {
        sys::napi_get_value_string_utf8(
            env.raw(),
            v.raw(),
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut written,
        )
    })?;
    buf.truncate(written);
    // napi always writes UTF-8 (lone surrogates become U+FFFD).
    String::from_utf8(buf).map_err(|_| type_error(env, "string is not valid UTF-16"))
}

/// A 64-bit unsigned value from a bigint or a safe non-negative integer number.
pub(crate) fn u64_arg(env: &Env, v: &Unknown<'_>, what: &str) -> napi::Result<u64> {
    match type_of(v)? {
        ValueType::BigInt => {
            let (negative, count, words) = bigint(env, v)?;
            if negative {
                Err(range_error(
                    env,
                    &format!("{what} must not be negative; received a negative bigint"),
                ))
            } else if count > 1 {
                Err(range_error(
                    env,
                    &format!("{what} must be at most 2^64-1 (18446744073709551615n); received a larger bigint"),
                ))
            } else {
                Ok(words[0])
            }
        }
        ValueType::Number => {
            let d = number(env, v)?;
            if !d.is_finite() || d.fract() != 0.0 {
                Err(range_error(
                    env,
                    &format!("{what} must be an integer; received {}", fmt_f64(d)),
                ))
            } else if d < 0.0 {
                Err(range_error(
                    env,
                    &format!("{what} must not be negative; received {}", fmt_f64(d)),
                ))
            } else if d > MAX_SAFE {
                Err(range_error(
                    env,
                    &format!(
                        "{what} as a number must be at most Number.MAX_SAFE_INTEGER; received {} (pass a bigint for larger values)",
                        fmt_f64(d)
                    ),
                ))
            } else {
                Ok(d as u64)
            }
        }
        _ => Err(type_error(
            env,
            &format!(
                "{what} must be a bigint or an integer number; received {}",
                describe(env, v)
            ),
        )),
    }
}

/// A 128-bit unsigned value from a bigint, a safe integer number, or 16 big-endian bytes.
pub(crate) fn u128_arg(env: &Env, v: &Unknown<'_>, what: &str) -> napi::Result<u128> {
    match type_of(v)? {
        ValueType::BigInt => {
            let (negative, count, words) = bigint(env, v)?;
            if negative {
                Err(range_error(env, &format!("{what} must not be negative")))
            } else if count > 2 {
                Err(range_error(env, &format!("{what} must be at most 2^128-1")))
            } else {
                Ok(u128::from(words[0]) | (u128::from(words[1]) << 64))
            }
        }
        ValueType::Number => u64_arg(env, v, what).map(u128::from),
        ValueType::Object if is_uint8array(env, v)? => {
            bytes_arg::<16>(env, v, what).map(u128::from_be_bytes)
        }
        _ => Err(type_error(
            env,
            &format!(
                "{what} must be a bigint, an integer number or a 16-byte Uint8Array; received {}",
                describe(env, v)
            ),
        )),
    }
}

/// An unsigned value of at most `max` from a bigint or an integer number.
pub(crate) fn bounded_arg(env: &Env, v: &Unknown<'_>, what: &str, max: u64) -> napi::Result<u64> {
    let n = u64_arg(env, v, what)?;
    if n > max {
        return Err(range_error(
            env,
            &format!("{what} must be at most {max}; received {n}"),
        ));
    }
    Ok(n)
}

/// A batch count `n`: a non-negative integer of at most the core's
/// [`MAX_BATCH`](idmint::limits::MAX_BATCH), or `ERR_LIMIT_EXCEEDED` (with `what` and `limit`).
pub(crate) fn batch_arg(env: &Env, v: &Unknown<'_>) -> napi::Result<usize> {
    let n = u64_arg(env, v, "n")?;
    idmint::limits::batch_len(n).or_throw(env)
}

/// An ID: a bigint, a safe integer number, or a decimal string.
pub(crate) fn id_arg(env: &Env, v: &Unknown<'_>, what: &str) -> napi::Result<u64> {
    match type_of(v)? {
        ValueType::String => {
            let s = string_raw(env, v)?;
            Codec::Decimal.decode(&s).or_throw(env)
        }
        ValueType::BigInt | ValueType::Number => u64_arg(env, v, what),
        _ => Err(type_error(
            env,
            &format!(
                "{what} must be a bigint, an integer number or a decimal string; received {}",
                describe(env, v)
            ),
        )),
    }
}

/// A string.
pub(crate) fn string_arg(env: &Env, v: &Unknown<'_>, what: &str) -> napi::Result<String> {
    if type_of(v)? != ValueType::String {
        return Err(type_error(
            env,
            &format!("{what} must be a string; received {}", describe(env, v)),
        ));
    }
    string_raw(env, v)
}

/// A string, or `None` for `undefined`/`null`.
pub(crate) fn opt_string_arg(
    env: &Env,
    v: Option<&Unknown<'_>>,
    what: &str,
) -> napi::Result<Option<String>> {
    match v {
        Some(v) if !is_nullish(v)? => string_arg(env, v, what).map(Some),
        _ => Ok(None),
    }
}

fn is_uint8array(env: &Env, v: &Unknown<'_>) -> napi::Result<bool> {
    let mut is = false;
    // SAFETY: `is` is a valid out pointer.
    status(env, unsafe {
        sys::napi_is_typedarray(env.raw(), v.raw(), &mut is)
    })?;
    if !is {
        return Ok(false);
    }
    Ok(typedarray(env, v)?.0 == sys::TypedarrayType::uint8_array)
}

fn typedarray(
    env: &Env,
    v: &Unknown<'_>,
) -> napi::Result<(sys::napi_typedarray_type, &'static [u8])> {
    let mut ty = sys::TypedarrayType::uint8_array;
    let mut len = 0usize;
    let mut data: *mut c_void = ptr::null_mut();
    let mut buffer = ptr::null_mut();
    let mut offset = 0usize;
    // SAFETY: `v` is a typed array; every out pointer is valid.
    status(env, unsafe {
        sys::napi_get_typedarray_info(
            env.raw(),
            v.raw(),
            &mut ty,
            &mut len,
            &mut data,
            &mut buffer,
            &mut offset,
        )
    })?;
    let bytes: &[u8] = if data.is_null() || len == 0 || ty != sys::TypedarrayType::uint8_array {
        &[]
    } else {
        // SAFETY: a Uint8Array's `data` points at `len` bytes, alive while the array is
        // reachable (the caller copies them out before returning to JavaScript).
        unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) }
    };
    Ok((ty, bytes))
}

/// Exactly `N` bytes from a `Uint8Array` (or `Buffer`).
pub(crate) fn bytes_arg<const N: usize>(
    env: &Env,
    v: &Unknown<'_>,
    what: &str,
) -> napi::Result<[u8; N]> {
    if type_of(v)? != ValueType::Object || !is_uint8array(env, v)? {
        return Err(type_error(
            env,
            &format!(
                "{what} must be a Uint8Array of {N} bytes; received {}",
                describe(env, v)
            ),
        ));
    }
    let (_, bytes) = typedarray(env, v)?;
    <[u8; N]>::try_from(bytes).map_err(|_| {
        range_error(
            env,
            &format!(
                "{what} must hold exactly {N} bytes; received {}",
                bytes.len()
            ),
        )
    })
}

/// Bytes of a string (UTF-8) or a `Uint8Array`, for name-based UUIDs.
pub(crate) fn text_or_bytes_arg(env: &Env, v: &Unknown<'_>, what: &str) -> napi::Result<Vec<u8>> {
    match type_of(v)? {
        ValueType::String => Ok(string_raw(env, v)?.into_bytes()),
        ValueType::Object if is_uint8array(env, v)? => Ok(typedarray(env, v)?.1.to_vec()),
        _ => Err(type_error(
            env,
            &format!(
                "{what} must be a string or a Uint8Array; received {}",
                describe(env, v)
            ),
        )),
    }
}

/// `f` of the Rust value napi-rs wrapped in a JavaScript object of class `T`, or `None` for
/// any other object (checked by type tag, so a look-alike object is never unwrapped).
pub(crate) fn unwrap_tagged<T: TypeTag, R>(
    env: &Env,
    v: &Unknown<'_>,
    f: impl FnOnce(&T) -> R,
) -> napi::Result<Option<R>> {
    let tag = <T as TypeTag>::type_tag();
    let mut is_t = false;
    // SAFETY: `v` is an object of this env; `tag` and `is_t` are valid pointers.
    status(env, unsafe {
        sys::napi_check_object_type_tag(env.raw(), v.raw(), &tag, &mut is_t)
    })?;
    if !is_t {
        return Ok(None);
    }
    let mut wrapped: *mut c_void = ptr::null_mut();
    // SAFETY: the type tag says napi-rs wrapped a `T` in this object.
    status(env, unsafe {
        sys::napi_unwrap(env.raw(), v.raw(), &mut wrapped)
    })?;
    if wrapped.is_null() {
        return Ok(None);
    }
    // SAFETY: `wrapped` points at the live `T` the object owns (kept alive by `v`, which the
    // caller holds); the shared borrow lasts only for `f`, during which no JavaScript runs.
    Ok(Some(f(unsafe { &*wrapped.cast::<T>() })))
}

/// The core layout inside a JavaScript `Layout` object, or `None` for any other object.
fn unwrap_layout(env: &Env, v: &Unknown<'_>) -> napi::Result<Option<CoreLayout>> {
    unwrap_tagged::<Layout, _>(env, v, |l| l.inner)
}

/// A layout: a `Layout` object, or a preset name / text spec to parse.
pub(crate) fn layout_arg(env: &Env, v: &Unknown<'_>, what: &str) -> napi::Result<CoreLayout> {
    match type_of(v)? {
        ValueType::String => CoreLayout::parse(&string_raw(env, v)?).or_throw(env),
        ValueType::Object => match unwrap_layout(env, v)? {
            Some(l) => Ok(l),
            None => Err(type_error(
                env,
                &format!("{what} must be a Layout or a layout spec string; received an object that is not a Layout"),
            )),
        },
        _ => Err(type_error(
            env,
            &format!(
                "{what} must be a Layout or a layout spec string; received {}",
                describe(env, v)
            ),
        )),
    }
}

/// The object's property `key` (`undefined` when absent).
pub(crate) fn get<'e>(env: &'e Env, obj: &Unknown<'_>, key: &CStr) -> napi::Result<Unknown<'e>> {
    let mut out = ptr::null_mut();
    // SAFETY: `obj` is an object of this env, `key` NUL-terminated, `out` a valid out pointer.
    let st = unsafe { sys::napi_get_named_property(env.raw(), obj.raw(), key.as_ptr(), &mut out) };
    if st == sys::Status::napi_pending_exception {
        // A getter threw: let its exception through.
        return Err(napi::Error::new(
            napi::Status::PendingException,
            String::new(),
        ));
    }
    status(env, st)?;
    // SAFETY: `out` is a value of this env.
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), out) })
}

/// The object's own enumerable string keys.
pub(crate) fn own_keys(env: &Env, obj: &Unknown<'_>) -> napi::Result<Vec<String>> {
    let mut names = ptr::null_mut();
    // SAFETY: `obj` is an object; `names` a valid out pointer.
    status(env, unsafe {
        sys::napi_get_all_property_names(
            env.raw(),
            obj.raw(),
            sys::KeyCollectionMode::own_only,
            sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
            sys::KeyConversion::numbers_to_strings,
            &mut names,
        )
    })?;
    let mut len = 0u32;
    // SAFETY: `names` is an array.
    status(env, unsafe {
        sys::napi_get_array_length(env.raw(), names, &mut len)
    })?;
    let mut keys = Vec::with_capacity(len as usize);
    for i in 0..len {
        let mut k = ptr::null_mut();
        // SAFETY: `i` is within the array.
        status(env, unsafe {
            sys::napi_get_element(env.raw(), names, i, &mut k)
        })?;
        // SAFETY: `k` is a value of this env (a string, as requested).
        let k = unsafe { Unknown::from_raw_unchecked(env.raw(), k) };
        keys.push(string_raw(env, &k)?);
    }
    Ok(keys)
}

/// Checks that `obj` is a plain object (not `null`, not a function) for an options argument.
pub(crate) fn expect_object(env: &Env, v: &Unknown<'_>, what: &str) -> napi::Result<()> {
    if type_of(v)? != ValueType::Object {
        return Err(type_error(
            env,
            &format!("{what} must be an object; received {}", describe(env, v)),
        ));
    }
    Ok(())
}

/// Refuses keys of `obj` outside `allowed` (a misspelt option would otherwise be ignored).
pub(crate) fn only_keys(
    env: &Env,
    obj: &Unknown<'_>,
    what: &str,
    allowed: &[&str],
) -> napi::Result<()> {
    for k in own_keys(env, obj)? {
        if !allowed.contains(&k.as_str()) {
            return Err(value_error(
                env,
                &format!(
                    "{what} has an unknown key '{k}' (known: {})",
                    allowed.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// A node value: a whole node number/bigint, or an object of node sub-field values by name,
/// joined under `layout` by the core.
pub(crate) fn node_arg(
    env: &Env,
    v: &Unknown<'_>,
    layout: &CoreLayout,
    what: &str,
) -> napi::Result<u64> {
    match type_of(v)? {
        ValueType::BigInt | ValueType::Number => u64_arg(env, v, what),
        ValueType::Object => {
            let names: Vec<&str> = layout.node_fields().map(|f| f.name.as_str()).collect();
            only_keys(env, v, what, &names)?;
            let mut values = Vec::with_capacity(names.len());
            for name in &names {
                let key = std::ffi::CString::new(*name)
                    .map_err(|_| value_error(env, "node sub-field name contains NUL"))?;
                let x = get(env, v, &key)?;
                if type_of(&x)? == ValueType::Undefined {
                    return Err(value_error(
                        env,
                        &format!(
                            "{what} is missing node sub-field '{name}' (this layout's node sub-fields: {})",
                            names.join(", ")
                        ),
                    ));
                }
                values.push(u64_arg(env, &x, &format!("{what}.{name}"))?);
            }
            layout.join_node(&values).or_throw(env)
        }
        _ => Err(type_error(
            env,
            &format!(
                "{what} must be a bigint, an integer number or an object of node sub-field values; received {}",
                describe(env, v)
            ),
        )),
    }
}

/// A JavaScript function to call back (for caller-supplied randomness).
pub(crate) fn function_arg(env: &Env, v: &Unknown<'_>, what: &str) -> napi::Result<()> {
    if type_of(v)? != ValueType::Function {
        return Err(type_error(
            env,
            &format!("{what} must be a function; received {}", describe(env, v)),
        ));
    }
    Ok(())
}

/// Calls `f(n)` and copies the `Uint8Array` of exactly `out.len()` bytes it returns into `out`.
pub(crate) fn call_random(env: &Env, f: &Unknown<'_>, out: &mut [u8]) -> napi::Result<()> {
    let mut arg = ptr::null_mut();
    // SAFETY: plain number constructor.
    status(env, unsafe {
        sys::napi_create_uint32(env.raw(), out.len() as u32, &mut arg)
    })?;
    let mut undefined = ptr::null_mut();
    // SAFETY: valid out pointer.
    status(env, unsafe {
        sys::napi_get_undefined(env.raw(), &mut undefined)
    })?;
    let mut result = ptr::null_mut();
    // SAFETY: `f` is a function (checked by `function_arg`), `arg` one valid argument.
    let st =
        unsafe { sys::napi_call_function(env.raw(), undefined, f.raw(), 1, &arg, &mut result) };
    if st == sys::Status::napi_pending_exception {
        return Err(napi::Error::new(
            napi::Status::PendingException,
            String::new(),
        ));
    }
    status(env, st)?;
    // SAFETY: `result` is a value of this env.
    let r = unsafe { Unknown::from_raw_unchecked(env.raw(), result) };
    if type_of(&r)? != ValueType::Object || !is_uint8array(env, &r)? {
        return Err(type_error(
            env,
            &format!(
                "the random callback must return a Uint8Array of {} bytes; it returned {}",
                out.len(),
                describe(env, &r)
            ),
        ));
    }
    let (_, bytes) = typedarray(env, &r)?;
    if bytes.len() != out.len() {
        return Err(range_error(
            env,
            &format!(
                "the random callback must return exactly {} bytes; it returned {}",
                out.len(),
                bytes.len()
            ),
        ));
    }
    out.copy_from_slice(bytes);
    Ok(())
}
