//! Argument conversions shared by the binding modules: JavaScript values in, Rust values out,
//! with a `TypeError` for the wrong type and a `RangeError` for a value out of range. Same rules
//! and messages as the Node package (bindings-node/src/convert.rs):
//!
//! * a 64-bit value (ID, node, time in ms, seed) is a `bigint` in `0..=2^64-1` or a `number`
//!   that is a non-negative safe integer (`<= Number.MAX_SAFE_INTEGER`); a larger `number` is
//!   refused because it has already lost digits;
//! * an ID may also be a decimal string (what `nextIdString()` and JSON give);
//! * small counts are numbers or bigints within their range;
//! * bytes are a `Uint8Array` of exactly the length needed.
//!
//! Arguments arrive as `JsValue` so the binding, not wasm-bindgen's glue (which would wrap
//! `-1n` to `2^64-1` silently), decides what a wrong argument throws.

use idmint::codec::Codec;
use idmint::Layout;
use js_sys::{Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::errors::{range_error, type_error, value_error, OrThrow};
use crate::layout::layout_of;

thread_local! {
    /// JavaScript strings made once for the property names and short texts the binding uses
    /// again and again: a string made from Rust crosses through a TextDecoder, which costs
    /// about half a microsecond a string (so a `Stats` object cost about 3 µs without this).
    static STRINGS: std::cell::RefCell<Vec<(Box<str>, JsValue)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// How many strings [`js_str`] keeps (property names and node sub-field names: a few dozen).
const MAX_CACHED: usize = 128;

/// `s` as a JavaScript string, made once per module instance for short strings.
pub(crate) fn js_str(s: &str) -> JsValue {
    STRINGS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some((_, v)) = cache.iter().find(|(k, _)| **k == *s) {
            return v.clone();
        }
        let v = JsValue::from_str(s);
        if cache.len() < MAX_CACHED && s.len() <= 32 {
            cache.push((s.into(), v.clone()));
        }
        v
    })
}

/// Largest integer a `number` holds exactly (`Number.MAX_SAFE_INTEGER`).
pub(crate) const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// Whether `v` is `undefined` or `null` (an omitted optional argument or option).
pub(crate) fn is_nullish(v: &JsValue) -> bool {
    v.is_undefined() || v.is_null()
}

/// A short description of a value for error messages, in the style of Node's own
/// (`type string ('abc')`, `number 1.5`, `type bigint`, `undefined`).
pub(crate) fn describe(v: &JsValue) -> String {
    if v.is_undefined() {
        "undefined".into()
    } else if v.is_null() {
        "null".into()
    } else if let Some(d) = v.as_f64() {
        format!("number {}", fmt_f64(d))
    } else if v.is_bigint() {
        "type bigint".into()
    } else if let Some(s) = v.as_string() {
        if s.chars().count() > 24 {
            let head: String = s.chars().take(24).collect();
            format!("type string ('{head}...')")
        } else {
            format!("type string ('{s}')")
        }
    } else if v.as_bool().is_some() {
        "type boolean".into()
    } else if v.is_symbol() {
        "type symbol".into()
    } else if v.is_function() {
        "type function".into()
    } else if v.is_object() {
        "an object".into()
    } else {
        "a value of another type".into()
    }
}

/// `String(d)`: JavaScript's own number formatting (`1.5`, `NaN`, `-Infinity`, `1e+21`), which
/// also keeps Rust's float formatting out of the module.
fn fmt_f64(d: f64) -> String {
    String::from(
        js_sys::Number::from(d)
            .to_string_with_radix(10)
            .unwrap_or_else(|_| "NaN".into()),
    )
}

/// Whether a bigint is negative.
fn negative(v: &JsValue) -> bool {
    v.lt(&JsValue::from(0u64))
}

/// A 64-bit unsigned value from a bigint or a safe non-negative integer number.
pub(crate) fn u64_arg(v: &JsValue, what: &str) -> Result<u64, JsValue> {
    if let Some(d) = v.as_f64() {
        return if !d.is_finite() || d.fract() != 0.0 {
            Err(range_error(&format!(
                "{what} must be an integer; received {}",
                fmt_f64(d)
            )))
        } else if d < 0.0 {
            Err(range_error(&format!(
                "{what} must not be negative; received {}",
                fmt_f64(d)
            )))
        } else if d > MAX_SAFE {
            Err(range_error(&format!(
                "{what} as a number must be at most Number.MAX_SAFE_INTEGER; received {} (pass a bigint for larger values)",
                fmt_f64(d)
            )))
        } else {
            Ok(d as u64)
        };
    }
    if v.is_bigint() {
        return match u64::try_from(v.clone()) {
            Ok(n) => Ok(n),
            Err(_) if negative(v) => Err(range_error(&format!(
                "{what} must not be negative; received a negative bigint"
            ))),
            Err(_) => Err(range_error(&format!(
                "{what} must be at most 2^64-1 (18446744073709551615n); received a larger bigint"
            ))),
        };
    }
    Err(type_error(&format!(
        "{what} must be a bigint or an integer number; received {}",
        describe(v)
    )))
}

/// A 128-bit unsigned value from a bigint, a safe integer number, or 16 big-endian bytes.
pub(crate) fn u128_arg(v: &JsValue, what: &str) -> Result<u128, JsValue> {
    if v.is_bigint() {
        return match u128::try_from(v.clone()) {
            Ok(n) => Ok(n),
            Err(_) if negative(v) => Err(range_error(&format!("{what} must not be negative"))),
            Err(_) => Err(range_error(&format!("{what} must be at most 2^128-1"))),
        };
    }
    if v.as_f64().is_some() {
        return u64_arg(v, what).map(u128::from);
    }
    if v.is_instance_of::<Uint8Array>() {
        return bytes_arg::<16>(v, what).map(u128::from_be_bytes);
    }
    Err(type_error(&format!(
        "{what} must be a bigint, an integer number or a 16-byte Uint8Array; received {}",
        describe(v)
    )))
}

/// An unsigned value of at most `max` from a bigint or an integer number.
pub(crate) fn bounded_arg(v: &JsValue, what: &str, max: u64) -> Result<u64, JsValue> {
    let n = u64_arg(v, what)?;
    if n > max {
        return Err(range_error(&format!(
            "{what} must be at most {max}; received {n}"
        )));
    }
    Ok(n)
}

/// A batch count `n`: a non-negative integer of at most the core's
/// [`MAX_BATCH`](idmint::limits::MAX_BATCH), or `ERR_LIMIT_EXCEEDED` (with `what` and `limit`).
pub(crate) fn batch_arg(v: &JsValue) -> Result<usize, JsValue> {
    let n = u64_arg(v, "n")?;
    idmint::limits::batch_len(n).or_throw()
}

/// An ID: a bigint, a safe integer number, or a decimal string.
pub(crate) fn id_arg(v: &JsValue, what: &str) -> Result<u64, JsValue> {
    if let Some(s) = v.as_string() {
        return Codec::Decimal.decode(&s).or_throw();
    }
    if v.is_bigint() || v.as_f64().is_some() {
        return u64_arg(v, what);
    }
    Err(type_error(&format!(
        "{what} must be a bigint, an integer number or a decimal string; received {}",
        describe(v)
    )))
}

/// A string.
pub(crate) fn string_arg(v: &JsValue, what: &str) -> Result<String, JsValue> {
    v.as_string().ok_or_else(|| {
        type_error(&format!(
            "{what} must be a string; received {}",
            describe(v)
        ))
    })
}

/// A string, or `None` for `undefined`/`null`.
pub(crate) fn opt_string_arg(v: &JsValue, what: &str) -> Result<Option<String>, JsValue> {
    if is_nullish(v) {
        Ok(None)
    } else {
        string_arg(v, what).map(Some)
    }
}

/// Exactly `N` bytes from a `Uint8Array`.
pub(crate) fn bytes_arg<const N: usize>(v: &JsValue, what: &str) -> Result<[u8; N], JsValue> {
    let a = v.dyn_ref::<Uint8Array>().ok_or_else(|| {
        type_error(&format!(
            "{what} must be a Uint8Array of {N} bytes; received {}",
            describe(v)
        ))
    })?;
    let len = a.length() as usize;
    if len != N {
        return Err(range_error(&format!(
            "{what} must hold exactly {N} bytes; received {len}"
        )));
    }
    let mut out = [0u8; N];
    a.copy_to(&mut out);
    Ok(out)
}

/// Bytes of a string (UTF-8) or a `Uint8Array`, for name-based UUIDs.
pub(crate) fn text_or_bytes_arg(v: &JsValue, what: &str) -> Result<Vec<u8>, JsValue> {
    if let Some(s) = v.as_string() {
        return Ok(s.into_bytes());
    }
    if let Some(a) = v.dyn_ref::<Uint8Array>() {
        return Ok(a.to_vec());
    }
    Err(type_error(&format!(
        "{what} must be a string or a Uint8Array; received {}",
        describe(v)
    )))
}

/// A layout: a `Layout` object, or a preset name / text spec to parse.
pub(crate) fn layout_arg(v: &JsValue, what: &str) -> Result<Layout, JsValue> {
    if let Some(s) = v.as_string() {
        return Layout::parse(&s).or_throw();
    }
    if v.is_object() {
        return layout_of(v).ok_or_else(|| {
            type_error(&format!(
                "{what} must be a Layout or a layout spec string; received an object that is not a Layout"
            ))
        });
    }
    Err(type_error(&format!(
        "{what} must be a Layout or a layout spec string; received {}",
        describe(v)
    )))
}

/// The object's property `key` (`undefined` when absent; a throwing getter's error passes on).
pub(crate) fn get(obj: &JsValue, key: &str) -> Result<JsValue, JsValue> {
    Reflect::get(obj, &js_str(key))
}

/// Checks that `v` is an object (not `null`, not a function) for an options argument.
pub(crate) fn expect_object(v: &JsValue, what: &str) -> Result<(), JsValue> {
    if !v.is_object() || v.is_function() {
        return Err(type_error(&format!(
            "{what} must be an object; received {}",
            describe(v)
        )));
    }
    Ok(())
}

/// The object's own enumerable string keys.
fn own_keys(obj: &JsValue) -> Vec<String> {
    Object::keys(obj.unchecked_ref::<Object>())
        .iter()
        .filter_map(|k| k.as_string())
        .collect()
}

/// Refuses keys of `obj` outside `allowed` (a misspelt option would otherwise be ignored).
pub(crate) fn only_keys(obj: &JsValue, what: &str, allowed: &[&str]) -> Result<(), JsValue> {
    for k in own_keys(obj) {
        if !allowed.contains(&k.as_str()) {
            return Err(value_error(&format!(
                "{what} has an unknown key '{k}' (known: {})",
                allowed.join(", ")
            )));
        }
    }
    Ok(())
}

/// A node value: a whole node number/bigint, or an object of node sub-field values by name,
/// joined under `layout` by the core.
pub(crate) fn node_arg(v: &JsValue, layout: &Layout, what: &str) -> Result<u64, JsValue> {
    if v.is_bigint() || v.as_f64().is_some() {
        return u64_arg(v, what);
    }
    if v.is_object() && !v.is_function() {
        let names: Vec<&str> = layout.node_fields().map(|f| f.name.as_str()).collect();
        only_keys(v, what, &names)?;
        let mut values = Vec::with_capacity(names.len());
        for name in &names {
            let x = get(v, name)?;
            if x.is_undefined() {
                return Err(value_error(&format!(
                    "{what} is missing node sub-field '{name}' (this layout's node sub-fields: {})",
                    names.join(", ")
                )));
            }
            values.push(u64_arg(&x, &format!("{what}.{name}"))?);
        }
        return layout.join_node(&values).or_throw();
    }
    Err(type_error(&format!(
        "{what} must be a bigint, an integer number or an object of node sub-field values; received {}",
        describe(v)
    )))
}

/// Calls `f(n)` and copies the `Uint8Array` of exactly `out.len()` bytes it returns into `out`.
pub(crate) fn call_random(f: &js_sys::Function, out: &mut [u8]) -> Result<(), JsValue> {
    let r = f.call1(&JsValue::UNDEFINED, &JsValue::from_f64(out.len() as f64))?;
    let Some(a) = r.dyn_ref::<Uint8Array>() else {
        return Err(type_error(&format!(
            "the random callback must return a Uint8Array of {} bytes; it returned {}",
            out.len(),
            describe(&r)
        )));
    };
    if a.length() as usize != out.len() {
        return Err(range_error(&format!(
            "the random callback must return exactly {} bytes; it returned {}",
            out.len(),
            a.length()
        )));
    }
    a.copy_to(out);
    Ok(())
}

/// A JavaScript function argument.
pub(crate) fn function_arg(v: &JsValue, what: &str) -> Result<js_sys::Function, JsValue> {
    v.dyn_ref::<js_sys::Function>().cloned().ok_or_else(|| {
        type_error(&format!(
            "{what} must be a function; received {}",
            describe(v)
        ))
    })
}

/// A plain JavaScript object with the given properties set, in order.
pub(crate) fn object(props: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in props {
        // Defining a property on a fresh plain object cannot fail.
        let _ = Reflect::set(&o, &js_str(k), v);
    }
    o.into()
}
