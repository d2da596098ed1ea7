//! The one place that decides what a thrown error looks like, for both packages.
//!
//! Every exception is a real `Error`, `TypeError` or `RangeError` with a stable `code` and,
//! for core errors, the variant's fields ([`idmint::Error::fields`]) as camelCase properties:
//! 64-bit quantities as `bigint`s, counts and offsets as `number`s, text as strings.
//!
//! | thrown as    | code                              | when                                            |
//! |--------------|-----------------------------------|-------------------------------------------------|
//! | `RangeError` | `ERR_OUT_OF_RANGE`, `ERR_LIMIT_EXCEEDED` (core) | a value does not fit its field, a batch too large |
//! | `TypeError`  | `ERR_INVALID_ARGUMENT` (core)     | an unknown option key or node sub-field name, a missing one |
//! | `Error`      | the core's `Error::code()`        | every other core error                          |
//! | `TypeError`  | `ERR_INVALID_ARG_TYPE`            | an argument of the wrong JavaScript type        |
//! | `RangeError` | `ERR_OUT_OF_RANGE`                | a negative, fractional, unsafe or too-large number or bigint |
//! | `RangeError` | `ERR_NOT_JS_SAFE`                 | `nextIdNumber()` on a layout wider than 53 bits |

use idmint::{Error, ErrorKind, FieldValue, Layout};

use crate::{Class, Host, Out};

/// Code of arguments of the wrong JavaScript type (as Node's own APIs use it).
pub const ERR_INVALID_ARG_TYPE: &str = "ERR_INVALID_ARG_TYPE";
/// Code of numbers outside what an argument takes (as Node's own APIs use it, and the core).
pub const ERR_OUT_OF_RANGE: &str = "ERR_OUT_OF_RANGE";

/// The exception for a core error: its class by kind, its code, its `Display` text (plus the
/// package's hint for `NodeRequired`) and its fields.
#[cold]
#[inline(never)]
pub fn core<H: Host>(h: &H, e: Error) -> H::Error {
    let kind = e.kind();
    let class = if matches!(kind, ErrorKind::OutOfRange | ErrorKind::LimitExceeded) {
        Class::RangeError
    } else if kind == ErrorKind::InvalidArgument {
        Class::TypeError
    } else {
        Class::Error
    };
    let mut message = e.to_string();
    if kind == ErrorKind::NodeRequired {
        message.push_str(H::NODE_HINT);
    }
    let mut props: [(&str, Out<'_, H::Value>); 3] =
        [("", Out::Null), ("", Out::Null), ("", Out::Null)];
    let mut n = 0;
    for (slot, f) in props.iter_mut().zip(e.fields()) {
        let v = match f.value {
            FieldValue::Str(s) => Out::Str(s),
            FieldValue::Count(c) => Out::Num(c as f64),
            FieldValue::U64(v) => Out::Big(v),
        };
        *slot = (f.camel, v);
        n += 1;
    }
    h.throw(class, e.code(), &message, props.get(..n).unwrap_or(&[]))
}

/// A `TypeError` with code `ERR_INVALID_ARG_TYPE`.
#[cold]
pub fn type_error<H: Host>(h: &H, message: &str) -> H::Error {
    h.throw(Class::TypeError, ERR_INVALID_ARG_TYPE, message, &[])
}

/// A `RangeError` with code `ERR_OUT_OF_RANGE` (a JavaScript value the binding refuses).
#[cold]
pub fn range_error<H: Host>(h: &H, message: &str) -> H::Error {
    h.throw(Class::RangeError, ERR_OUT_OF_RANGE, message, &[])
}

/// The `RangeError` of `nextIdNumber()` on a layout whose IDs may exceed 2^53.
#[cold]
pub fn not_js_safe<H: Host>(h: &H, layout: &Layout) -> H::Error {
    let width = layout.width();
    let message = format!("nextIdNumber() needs a layout of at most 53 bits (isJsSafe), such as js53; this layout is {width} bits wide, so its IDs may exceed Number.MAX_SAFE_INTEGER: use nextId() (a bigint) or nextIdString()");
    h.throw(
        Class::RangeError,
        "ERR_NOT_JS_SAFE",
        &message,
        &[("width", Out::Num(f64::from(width)))],
    )
}

/// Core results into the binding's: `.or_throw(h)`.
pub trait OrThrow<T> {
    /// The value, or the core error as the host's exception.
    fn or_throw<H: Host>(self, h: &H) -> Result<T, H::Error>;
}

impl<T> OrThrow<T> for idmint::Result<T> {
    #[inline]
    fn or_throw<H: Host>(self, h: &H) -> Result<T, H::Error> {
        self.map_err(|e| core(h, e))
    }
}
