//! JavaScript arguments in, Rust values out, with a `TypeError` (`ERR_INVALID_ARG_TYPE`) for
//! the wrong type and a `RangeError` (`ERR_OUT_OF_RANGE`) for a value out of range. The rules:
//!
//! * a 64-bit value (ID, node, time in ms, seed) is a `bigint` in `0..=2^64-1` or a `number`
//!   that is a non-negative safe integer (`<= Number.MAX_SAFE_INTEGER`); a larger `number` is
//!   refused because it has already lost digits;
//! * an ID may also be a decimal string (what `nextIdString()` and JSON give);
//! * small counts are numbers or bigints within their range;
//! * bytes are a `Uint8Array` (a `Buffer` is one) of exactly the length needed.
//!
//! `what` names the argument in messages (`nowMs`, `options.seed`).

use idmint::codec::Codec;
use idmint::host_random::draw_outside;
use idmint::Layout;

use crate::error::{range_error, type_error, OrThrow};
use crate::{Host, JsType, Out};

/// Largest integer a `number` holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// Whether `v` is `undefined` or `null` (an omitted optional argument or option).
pub fn is_nullish<H: Host>(h: &H, v: &H::Value) -> bool {
    matches!(h.type_of(v), JsType::Undefined | JsType::Null)
}

/// A short description of a value for messages, in the style of Node's own (`type string
/// ('abc')`, `number 1.5`, `type bigint`, `undefined`).
pub fn describe<H: Host>(h: &H, v: &H::Value) -> String {
    match h.type_of(v) {
        JsType::Undefined => "undefined".into(),
        JsType::Null => "null".into(),
        JsType::Number => format!("number {}", h.number_text(h.number(v))),
        JsType::String => match h.string(v) {
            Ok(s) if s.chars().count() > 24 => format!(
                "type string ('{}...')",
                s.chars().take(24).collect::<String>()
            ),
            Ok(s) => format!("type string ('{s}')"),
            Err(_) => "type string".into(),
        },
        JsType::BigInt => "type bigint".into(),
        JsType::Boolean => "type boolean".into(),
        JsType::Symbol => "type symbol".into(),
        JsType::Function => "type function".into(),
        JsType::Object => "an object".into(),
    }
}

/// The `TypeError` for `v` given as `what`, which must be `must`.
#[cold]
pub fn wrong<H: Host>(h: &H, v: &H::Value, what: &str, must: &str) -> H::Error {
    type_error(
        h,
        &format!("{what} must be {must}; received {}", describe(h, v)),
    )
}

/// A 64-bit unsigned value from a bigint or a safe non-negative integer number.
pub fn u64_arg<H: Host>(h: &H, v: &H::Value, what: &str) -> Result<u64, H::Error> {
    match h.type_of(v) {
        JsType::Number => {
            let d = h.number(v);
            let text = || h.number_text(d);
            if !d.is_finite() || d.fract() != 0.0 {
                Err(range_error(h, &format!("{what} must be an integer; received {}", text())))
            } else if d < 0.0 {
                Err(range_error(h, &format!("{what} must not be negative; received {}", text())))
            } else if d > MAX_SAFE {
                Err(range_error(h, &format!("{what} as a number must be at most Number.MAX_SAFE_INTEGER; received {} (pass a bigint for larger values)", text())))
            } else {
                Ok(d as u64)
            }
        }
        JsType::BigInt => match h.bigint(v)? {
            (true, _) => Err(range_error(h, &format!("{what} must not be negative; received a negative bigint"))),
            (false, Some(n)) if n <= u128::from(u64::MAX) => Ok(n as u64),
            _ => Err(range_error(h, &format!("{what} must be at most 2^64-1 (18446744073709551615n); received a larger bigint"))),
        },
        _ => Err(wrong(h, v, what, "a bigint or an integer number")),
    }
}

/// A 128-bit unsigned value from a bigint, a safe integer number, or 16 big-endian bytes.
pub fn u128_arg<H: Host>(h: &H, v: &H::Value, what: &str) -> Result<u128, H::Error> {
    match h.type_of(v) {
        JsType::BigInt => match h.bigint(v)? {
            (true, _) => Err(range_error(h, &format!("{what} must not be negative"))),
            (false, Some(n)) => Ok(n),
            (false, None) => Err(range_error(h, &format!("{what} must be at most 2^128-1"))),
        },
        JsType::Number => u64_arg(h, v, what).map(u128::from),
        JsType::Object if h.bytes(v).is_some() => {
            bytes_arg::<H, 16>(h, v, what).map(u128::from_be_bytes)
        }
        _ => Err(wrong(
            h,
            v,
            what,
            "a bigint, an integer number or a 16-byte Uint8Array",
        )),
    }
}

/// An unsigned value of at most `max` from a bigint or an integer number.
pub fn bounded_arg<H: Host>(h: &H, v: &H::Value, what: &str, max: u64) -> Result<u64, H::Error> {
    let n = u64_arg(h, v, what)?;
    if n > max {
        return Err(range_error(
            h,
            &format!("{what} must be at most {max}; received {n}"),
        ));
    }
    Ok(n)
}

/// A batch count `n`: at most the core's `MAX_BATCH`, or `ERR_LIMIT_EXCEEDED`.
pub fn batch_arg<H: Host>(h: &H, v: &H::Value) -> Result<usize, H::Error> {
    idmint::limits::batch_len(u64_arg(h, v, "n")?).or_throw(h)
}

/// An ID: a bigint, a safe integer number, or a decimal string.
pub fn id_arg<H: Host>(h: &H, v: &H::Value, what: &str) -> Result<u64, H::Error> {
    match h.type_of(v) {
        JsType::String => Codec::Decimal.decode(&h.string(v)?).or_throw(h),
        JsType::BigInt | JsType::Number => u64_arg(h, v, what),
        _ => Err(wrong(
            h,
            v,
            what,
            "a bigint, an integer number or a decimal string",
        )),
    }
}

/// A string.
pub fn string_arg<H: Host>(h: &H, v: &H::Value, what: &str) -> Result<String, H::Error> {
    if h.type_of(v) != JsType::String {
        return Err(wrong(h, v, what, "a string"));
    }
    h.string(v)
}

/// A string, or `None` for `undefined`/`null` (or an argument left out).
pub fn opt_string_arg<H: Host>(
    h: &H,
    v: Option<&H::Value>,
    what: &str,
) -> Result<Option<String>, H::Error> {
    match v {
        Some(v) if !is_nullish(h, v) => string_arg(h, v, what).map(Some),
        _ => Ok(None),
    }
}

/// Exactly `N` bytes from a `Uint8Array`.
pub fn bytes_arg<H: Host, const N: usize>(
    h: &H,
    v: &H::Value,
    what: &str,
) -> Result<[u8; N], H::Error> {
    let Some(bytes) = h.bytes(v) else {
        return Err(wrong(h, v, what, &format!("a Uint8Array of {N} bytes")));
    };
    <[u8; N]>::try_from(bytes.as_slice()).map_err(|_| {
        range_error(
            h,
            &format!(
                "{what} must hold exactly {N} bytes; received {}",
                bytes.len()
            ),
        )
    })
}

/// Bytes of a string (UTF-8) or a `Uint8Array`, for name-based UUIDs.
pub fn text_or_bytes_arg<H: Host>(h: &H, v: &H::Value, what: &str) -> Result<Vec<u8>, H::Error> {
    if h.type_of(v) == JsType::String {
        return h.string(v).map(String::into_bytes);
    }
    h.bytes(v)
        .ok_or_else(|| wrong(h, v, what, "a string or a Uint8Array"))
}

/// A layout: a `Layout` object, or a preset name / text spec to parse.
pub fn layout_arg<H: Host>(h: &H, v: &H::Value, what: &str) -> Result<Layout, H::Error> {
    const MUST: &str = "a Layout or a layout spec string";
    match h.type_of(v) {
        JsType::String => Layout::parse(&h.string(v)?).or_throw(h),
        JsType::Object => h.layout(v).ok_or_else(|| {
            type_error(
                h,
                &format!("{what} must be {MUST}; received an object that is not a Layout"),
            )
        }),
        _ => Err(wrong(h, v, what, MUST)),
    }
}

/// Checks that `v` is an object (not `null`, not a function) for an options argument.
pub fn expect_object<H: Host>(h: &H, v: &H::Value, what: &str) -> Result<(), H::Error> {
    match h.type_of(v) {
        JsType::Object => Ok(()),
        _ => Err(wrong(h, v, what, "an object")),
    }
}

/// Checks that `v` is a function (a random source given by the caller).
pub fn function_arg<H: Host>(h: &H, v: &H::Value, what: &str) -> Result<(), H::Error> {
    match h.type_of(v) {
        JsType::Function => Ok(()),
        _ => Err(wrong(h, v, what, "a function")),
    }
}

/// Runs `call`, a generator call that may ask for random bytes, with them drawn from the source
/// `random` names ([`random_source`]). The source runs after `call` has returned, never inside
/// it (the core's `draw_outside`), so `call` may hold a lock or a borrow of the generator and
/// the function may call the same generator again.
pub fn with_random<H: Host, T>(
    h: &H,
    random: Option<&H::Value>,
    mut os: impl FnMut(&mut [u8]) -> idmint::Result<()>,
    call: impl FnMut(&mut dyn FnMut(&mut [u8]) -> idmint::Result<()>) -> idmint::Result<T>,
) -> Result<T, H::Error> {
    // Two calls rather than one through `random_source`'s closure, which made the browser's
    // `.wasm` larger.
    let r = match random_function(h, random)? {
        None => draw_outside(call, |buf| os(buf).or_throw(h)),
        Some(f) => draw_outside(call, |buf| call_random(h, f, buf)),
    };
    r?.or_throw(h)
}

/// The random source `random` names, as a function filling a buffer: `os` when it is missing
/// (`undefined` or `null`), else the JavaScript function `(n) => Uint8Array`, whose exception
/// passes on as is. For a core call that draws outside its lock by itself
/// (`UuidGenerator::next_at_with`).
pub fn random_source<'a, H: Host>(
    h: &'a H,
    random: Option<&'a H::Value>,
    mut os: impl FnMut(&mut [u8]) -> idmint::Result<()> + 'a,
) -> Result<impl Fill<H::Error> + 'a, H::Error> {
    let f = random_function(h, random)?;
    Ok(move |buf: &mut [u8]| match f {
        None => os(buf).or_throw(h),
        Some(f) => call_random(h, f, buf),
    })
}

/// The caller's random function, checked, or `None` for `undefined`, `null` or none given.
fn random_function<'a, H: Host>(
    h: &H,
    random: Option<&'a H::Value>,
) -> Result<Option<&'a H::Value>, H::Error> {
    let f = random.filter(|r| !is_nullish(h, r));
    if let Some(f) = f {
        function_arg(h, f, "random")?;
    }
    Ok(f)
}

/// `f(buf.len())`, whose `Uint8Array` fills `buf`.
fn call_random<H: Host>(h: &H, f: &H::Value, buf: &mut [u8]) -> Result<(), H::Error> {
    let n = h.value(Out::Num(buf.len() as f64))?;
    random_result(h, &h.call1(f, n)?, buf)
}

/// A function filling a buffer with random bytes, failing with `E`.
pub trait Fill<E>: FnMut(&mut [u8]) -> Result<(), E> {}

impl<E, F: FnMut(&mut [u8]) -> Result<(), E>> Fill<E> for F {}

/// Copies what a random callback returned (`r`, which must be a `Uint8Array` of exactly
/// `out.len()` bytes) into `out`.
pub fn random_result<H: Host>(h: &H, r: &H::Value, out: &mut [u8]) -> Result<(), H::Error> {
    let n = out.len();
    let Some(bytes) = h.bytes(r) else {
        let got = describe(h, r);
        return Err(type_error(
            h,
            &format!(
                "the random callback must return a Uint8Array of {n} bytes; it returned {got}"
            ),
        ));
    };
    if bytes.len() != n {
        let got = bytes.len();
        return Err(range_error(
            h,
            &format!("the random callback must return exactly {n} bytes; it returned {got}"),
        ));
    }
    out.copy_from_slice(&bytes);
    Ok(())
}
