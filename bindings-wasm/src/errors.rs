//! Turning errors into JavaScript exceptions: the one place that decides what a thrown error
//! looks like. The rules are the Node package's (bindings-node/src/errors.rs), so code that
//! catches idmint errors works the same with either package:
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
//! Core errors carry the variant's fields in camelCase (`untilMs`, `at`, `reason`, ...):
//! 64-bit quantities (times in ms, field values) as `bigint`s, character offsets and byte
//! counts as `number`s. The message is the core's `Display` text.

use std::cell::RefCell;

use idmint::{Error, ErrorKind};
use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use crate::convert::js_str;

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

/// An error object of `class` with `code`, `message` and extra properties (not thrown yet:
/// returning it as the `Err` of an export makes wasm-bindgen throw it).
pub(crate) fn make(class: Class, code: &str, message: &str, props: &[(&str, Prop<'_>)]) -> JsValue {
    let err: js_sys::Error = match class {
        Class::Error => js_sys::Error::new(message),
        Class::TypeError => js_sys::TypeError::new(message).into(),
        Class::RangeError => js_sys::RangeError::new(message).into(),
    };
    set(&err, "code", &js_str(code));
    for (name, p) in props {
        let v = match *p {
            Prop::Str(s) => js_str(s),
            Prop::Num(n) => JsValue::from_f64(n as f64),
            Prop::Big(n) => JsValue::from(n),
        };
        set(&err, name, &v);
    }
    err.into()
}

fn set(obj: &JsValue, key: &str, v: &JsValue) {
    // Setting a property of a fresh Error object cannot fail.
    let _ = Reflect::set(obj, &js_str(key), v);
}

/// A `TypeError` with code `ERR_INVALID_ARG_TYPE`.
pub(crate) fn type_error(message: &str) -> JsValue {
    make(Class::TypeError, ERR_INVALID_ARG_TYPE, message, &[])
}

/// A `TypeError` with code `ERR_INVALID_ARG_VALUE`.
pub(crate) fn value_error(message: &str) -> JsValue {
    make(Class::TypeError, ERR_INVALID_ARG_VALUE, message, &[])
}

/// A `RangeError` with code `ERR_OUT_OF_RANGE` (for a JavaScript value the binding rejects).
pub(crate) fn range_error(message: &str) -> JsValue {
    make(Class::RangeError, ERR_OUT_OF_RANGE, message, &[])
}

/// What the core's `NodeRequired` text says, in this package's spelling (a page has no lock
/// directory or store of its own).
const NODE_REQUIRED_HINT: &str = " (in the browser: new Snowflake({ node: N }) with a node your server leases to the page, as in the README; or new Snowflake({ node: randomNode(layout) }) for a random node)";

/// The exception for a core error: its code, its `Display` text as the message and its fields.
#[cold]
pub(crate) fn core(e: Error) -> JsValue {
    let class = match e.kind() {
        ErrorKind::OutOfRange | ErrorKind::LimitExceeded => Class::RangeError,
        _ => Class::Error,
    };
    let message = match e {
        Error::NodeRequired => format!("{e}{NODE_REQUIRED_HINT}"),
        _ => e.to_string(),
    };
    let field;
    let props: &[(&str, Prop<'_>)] = match e {
        Error::InvalidLayout { reason } | Error::InvalidConfig { reason } => {
            &[("reason", Prop::Str(reason))]
        }
        Error::InvalidSpec { at, reason } => {
            &[("at", Prop::Num(at)), ("reason", Prop::Str(reason))]
        }
        Error::LayoutExpired { end_ms } => &[("endMs", Prop::Big(end_ms))],
        Error::BeforeEpoch { now_ms, epoch_ms } => &[
            ("nowMs", Prop::Big(now_ms)),
            ("epochMs", Prop::Big(epoch_ms)),
        ],
        Error::FieldOverflow {
            field: f,
            value,
            max,
        } => {
            field = f;
            &[
                ("field", Prop::Str(field.as_str())),
                ("value", Prop::Big(value)),
                ("max", Prop::Big(max)),
            ]
        }
        Error::ClockMovedBackwards { by_ms, last_ms } => {
            &[("byMs", Prop::Big(by_ms)), ("lastMs", Prop::Big(last_ms))]
        }
        Error::SequenceExhausted { tick_ms } => &[("tickMs", Prop::Big(tick_ms))],
        Error::WouldBlock { until_ms } => &[("untilMs", Prop::Big(until_ms))],
        Error::InvalidEncoding { codec, at, reason } => &[
            ("codec", Prop::Str(codec)),
            ("at", Prop::Num(at)),
            ("reason", Prop::Str(reason)),
        ],
        Error::BufferTooSmall { needed } => &[("needed", Prop::Num(needed))],
        Error::StoreUnavailable { store, op, reason } => &[
            ("store", Prop::Str(store)),
            ("op", Prop::Str(op)),
            ("reason", Prop::Str(reason)),
        ],
        Error::LeaseLost { node, reason } => {
            &[("node", Prop::Big(node)), ("reason", Prop::Str(reason))]
        }
        Error::NoFreeNode { nodes } => &[("nodes", Prop::Big(nodes))],
        Error::StoreMismatch { store, reason } => {
            &[("store", Prop::Str(store)), ("reason", Prop::Str(reason))]
        }
        Error::LimitExceeded { what, limit } => {
            &[("what", Prop::Str(what)), ("limit", Prop::Big(limit))]
        }
        // Forked, RandomSource, NodeRequired and kinds added later carry no fields.
        _ => &[],
    };
    make(class, e.code(), &message, props)
}

/// Converts core results into results whose error is the JavaScript exception.
pub(crate) trait OrThrow<T> {
    /// The value, or the core error as a JavaScript exception.
    fn or_throw(self) -> Result<T, JsValue>;
}

impl<T> OrThrow<T> for idmint::Result<T> {
    #[inline]
    fn or_throw(self) -> Result<T, JsValue> {
        self.map_err(core)
    }
}

thread_local! {
    /// The error of the last per-ID call that failed, until the glue takes it.
    static PENDING: RefCell<Option<JsValue>> = const { RefCell::new(None) };
}

/// The value a per-ID method returns when it fails: it cannot fail to JavaScript directly.
pub(crate) trait Sentinel {
    /// What the method returns instead of a value; the glue then asks for the error.
    const SENTINEL: Self;
}

impl Sentinel for u64 {
    // ID 0 is a valid ID (node 0, sequence 0 at the epoch's first tick): the glue finds no
    // pending error then and returns it.
    const SENTINEL: u64 = 0;
}

impl Sentinel for f64 {
    const SENTINEL: f64 = -1.0;
}

impl Sentinel for JsValue {
    const SENTINEL: JsValue = JsValue::UNDEFINED;
}

/// Records `e` for the glue to throw and returns the sentinel.
///
/// The per-ID methods of `Snowflake` (`nextId`, `nextIdString`, `nextIdNumber`, `tryNextId`)
/// return plain values, because a `Result` crosses to JavaScript as a multi-value array (an
/// allocation per call, about a quarter of `nextId`'s cost). When one fails it parks the
/// exception here and returns its sentinel; scripts/glue.mjs makes the generated JavaScript
/// check for the sentinel and then throw what [`take_error`] hands over.
#[cold]
pub(crate) fn stash<T: Sentinel>(e: JsValue) -> T {
    PENDING.with(|p| *p.borrow_mut() = Some(e));
    T::SENTINEL
}

/// Internal (called by the glue only): the parked exception, or `undefined`.
#[wasm_bindgen(js_name = "_idmintTakeError", skip_typescript)]
pub fn take_error() -> JsValue {
    PENDING
        .with(|p| p.borrow_mut().take())
        .unwrap_or(JsValue::UNDEFINED)
}
