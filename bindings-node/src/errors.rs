//! Turning errors into JavaScript exceptions: the one place that decides what a thrown error
//! looks like.
//!
//! Every exception is a real `Error` (or `TypeError` / `RangeError`) object with a stable `code`
//! property and, for core errors, the variant's fields in camelCase (`untilMs`, `at`, `reason`,
//! ...). 64-bit quantities (times in ms, IDs, field values) are `bigint`s; character offsets and
//! byte counts are `number`s.
//!
//! | thrown as    | code                                   | when                                          |
//! |--------------|----------------------------------------|-----------------------------------------------|
//! | `Error`      | the core's `Error::code()`             | every core error except `ERR_OUT_OF_RANGE`    |
//! | `RangeError` | `ERR_OUT_OF_RANGE` (core)              | a value does not fit its field (`field`, `value`, `max`) |
//! | `TypeError`  | `ERR_INVALID_ARG_TYPE` (binding)       | an argument of the wrong JavaScript type      |
//! | `TypeError`  | `ERR_INVALID_ARG_VALUE` (binding)      | an unknown option or node sub-field name, a missing sub-field |
//! | `RangeError` | `ERR_OUT_OF_RANGE` (binding)           | a negative, fractional, NaN, unsafe or too-large number or bigint |
//! | `RangeError` | `ERR_NOT_JS_SAFE` (binding)            | `nextIdNumber()` on a layout wider than 53 bits |
//!
//! The exception is created and thrown here, and a `napi::Error` with status
//! `PendingException` is returned, so napi-rs passes it on untouched.

use std::ffi::{c_char, CStr};
use std::ptr;

use idmint::{Error, ErrorKind};
use napi::{sys, Env, Status};

/// The constructor a thrown error is created with.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Class {
    /// `Error`.
    Error,
    /// `TypeError`.
    TypeError,
    /// `RangeError`.
    RangeError,
}

/// A value attached to a thrown error as a property.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Prop<'a> {
    /// A string.
    Str(&'a str),
    /// A small count, as a `number`.
    Num(usize),
    /// A 64-bit quantity, as a `bigint`.
    Big(u64),
}

/// Code of arguments of the wrong JavaScript type (as Node's own APIs use it).
pub(crate) const ERR_INVALID_ARG_TYPE: &str = "ERR_INVALID_ARG_TYPE";
/// Code of arguments with an unacceptable value of the right type (unknown option names, ...).
pub(crate) const ERR_INVALID_ARG_VALUE: &str = "ERR_INVALID_ARG_VALUE";
/// Code of numbers outside what an argument takes (as Node's own APIs use it, and the core).
pub(crate) const ERR_OUT_OF_RANGE: &str = "ERR_OUT_OF_RANGE";
/// Code of `nextIdNumber()` on a layout whose IDs may exceed `Number.MAX_SAFE_INTEGER`.
pub(crate) const ERR_NOT_JS_SAFE: &str = "ERR_NOT_JS_SAFE";

/// What the core's `NodeRequired` text says, in this package's spelling.
const NODE_REQUIRED_HINT: &str = " (in Node.js: new Snowflake({ node: N }); new LeasedSnowflake('local') leases a node from this host's lock directory, new LeasedSnowflake('redis://...') or new LeasedSnowflake('postgres://...') from a store shared by hosts; new LeasedSnowflake('random') takes a random node)";

fn string(env: sys::napi_env, s: &str) -> Option<sys::napi_value> {
    let mut v = ptr::null_mut();
    // SAFETY: `s` is valid UTF-8 of the given length; `v` is a valid out pointer.
    let st = unsafe {
        sys::napi_create_string_utf8(env, s.as_ptr().cast::<c_char>(), s.len() as _, &mut v)
    };
    (st == sys::Status::napi_ok).then_some(v)
}

fn value(env: sys::napi_env, p: Prop<'_>) -> Option<sys::napi_value> {
    let mut v = ptr::null_mut();
    // SAFETY: plain value constructors with a valid out pointer.
    let st = match p {
        Prop::Str(s) => return string(env, s),
        Prop::Num(n) => unsafe { sys::napi_create_double(env, n as f64, &mut v) },
        Prop::Big(n) => unsafe { sys::napi_create_bigint_uint64(env, n, &mut v) },
    };
    (st == sys::Status::napi_ok).then_some(v)
}

/// Creates the error object, sets `props` on it and throws it.
fn throw_raw(
    env: sys::napi_env,
    class: Class,
    code: &str,
    message: &str,
    props: &[(&CStr, Prop<'_>)],
) -> Option<()> {
    let code_v = string(env, code)?;
    let msg_v = string(env, message)?;
    let mut err = ptr::null_mut();
    // SAFETY: `code_v` and `msg_v` are strings just created in this env; `err` is an out pointer.
    // napi_create_*error sets the `code` property itself.
    let st = unsafe {
        match class {
            Class::Error => sys::napi_create_error(env, code_v, msg_v, &mut err),
            Class::TypeError => sys::napi_create_type_error(env, code_v, msg_v, &mut err),
            Class::RangeError => sys::napi_create_range_error(env, code_v, msg_v, &mut err),
        }
    };
    if st != sys::Status::napi_ok {
        return None;
    }
    for (name, p) in props {
        let v = value(env, *p)?;
        // SAFETY: `err` is an object, `name` a NUL-terminated key, `v` a value of this env.
        let st = unsafe { sys::napi_set_named_property(env, err, name.as_ptr(), v) };
        if st != sys::Status::napi_ok {
            return None;
        }
    }
    // SAFETY: throws the object just built.
    let st = unsafe { sys::napi_throw(env, err) };
    (st == sys::Status::napi_ok).then_some(())
}

/// Throws an error of `class` with `code`, `message` and extra properties, and returns the
/// `napi::Error` to hand back to napi-rs (which leaves the pending exception alone).
pub(crate) fn throw(
    env: &Env,
    class: Class,
    code: &str,
    message: &str,
    props: &[(&CStr, Prop<'_>)],
) -> napi::Error {
    match throw_raw(env.raw(), class, code, message, props) {
        Some(()) => napi::Error::new(Status::PendingException, message.to_owned()),
        // Building the error object failed (the environment is shutting down, or another
        // exception is already pending): let napi-rs surface a plain error instead.
        None => napi::Error::new(Status::GenericFailure, format!("{code}: {message}")),
    }
}

/// A `TypeError` with code `ERR_INVALID_ARG_TYPE`.
pub(crate) fn type_error(env: &Env, message: &str) -> napi::Error {
    throw(env, Class::TypeError, ERR_INVALID_ARG_TYPE, message, &[])
}

/// A `TypeError` with code `ERR_INVALID_ARG_VALUE`.
pub(crate) fn value_error(env: &Env, message: &str) -> napi::Error {
    throw(env, Class::TypeError, ERR_INVALID_ARG_VALUE, message, &[])
}

/// A `RangeError` with code `ERR_OUT_OF_RANGE` (for a JavaScript value the binding rejects).
pub(crate) fn range_error(env: &Env, message: &str) -> napi::Error {
    throw(env, Class::RangeError, ERR_OUT_OF_RANGE, message, &[])
}

/// The exception for a core error: its code, its `Display` text as the message and its fields.
pub(crate) fn core(env: &Env, e: Error) -> napi::Error {
    let class = match e.kind() {
        ErrorKind::OutOfRange | ErrorKind::LimitExceeded => Class::RangeError,
        _ => Class::Error,
    };
    let message = e.to_string();
    let field;
    let props: &[(&CStr, Prop<'_>)] = match e {
        Error::InvalidLayout { reason } | Error::InvalidConfig { reason } => {
            &[(c"reason", Prop::Str(reason))]
        }
        Error::InvalidSpec { at, reason } => {
            &[(c"at", Prop::Num(at)), (c"reason", Prop::Str(reason))]
        }
        Error::LayoutExpired { end_ms } => &[(c"endMs", Prop::Big(end_ms))],
        Error::BeforeEpoch { now_ms, epoch_ms } => &[
            (c"nowMs", Prop::Big(now_ms)),
            (c"epochMs", Prop::Big(epoch_ms)),
        ],
        Error::FieldOverflow {
            field: f,
            value,
            max,
        } => {
            field = f;
            &[
                (c"field", Prop::Str(field.as_str())),
                (c"value", Prop::Big(value)),
                (c"max", Prop::Big(max)),
            ]
        }
        Error::ClockMovedBackwards { by_ms, last_ms } => {
            &[(c"byMs", Prop::Big(by_ms)), (c"lastMs", Prop::Big(last_ms))]
        }
        Error::SequenceExhausted { tick_ms } => &[(c"tickMs", Prop::Big(tick_ms))],
        Error::WouldBlock { until_ms } => &[(c"untilMs", Prop::Big(until_ms))],
        Error::InvalidEncoding { codec, at, reason } => &[
            (c"codec", Prop::Str(codec)),
            (c"at", Prop::Num(at)),
            (c"reason", Prop::Str(reason)),
        ],
        Error::BufferTooSmall { needed } => &[(c"needed", Prop::Num(needed))],
        Error::StoreUnavailable { store, op, reason } => &[
            (c"store", Prop::Str(store)),
            (c"op", Prop::Str(op)),
            (c"reason", Prop::Str(reason)),
        ],
        Error::LeaseLost { node, reason } => {
            &[(c"node", Prop::Big(node)), (c"reason", Prop::Str(reason))]
        }
        Error::NoFreeNode { nodes } => &[(c"nodes", Prop::Big(nodes))],
        Error::StoreMismatch { store, reason } => {
            &[(c"store", Prop::Str(store)), (c"reason", Prop::Str(reason))]
        }
        Error::LimitExceeded { what, limit } => {
            &[(c"what", Prop::Str(what)), (c"limit", Prop::Big(limit))]
        }
        // Forked, RandomSource, NodeRequired and kinds added later carry no fields.
        _ => &[],
    };
    let message = match e {
        Error::NodeRequired => format!("{message}{NODE_REQUIRED_HINT}"),
        _ => message,
    };
    throw(env, class, e.code(), &message, props)
}

/// Converts core results into napi results, throwing the core error.
pub(crate) trait OrThrow<T> {
    /// The value, or the core error thrown as a JavaScript exception.
    fn or_throw(self, env: &Env) -> napi::Result<T>;
}

impl<T> OrThrow<T> for idmint::Result<T> {
    #[inline]
    fn or_throw(self, env: &Env) -> napi::Result<T> {
        self.map_err(|e| core(env, e))
    }
}
