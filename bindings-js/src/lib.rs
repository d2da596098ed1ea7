//! What the Node package (napi-rs, `bindings-node`) and the browser package (wasm-bindgen,
//! `bindings-wasm`) share: every conversion between JavaScript values and the core's, every
//! argument rule and its message, the option objects (into the core's [`idmint::SnowflakeOptions`] and
//! the coord crate's `LeasedSnowflakeOptions` / `SegmentAllocatorOptions`) and the error mapping, written once.
//!
//! Each binding implements [`Host`] for its value type (a raw napi value, a `JsValue`) and keeps
//! only its class and method declarations, whose bodies call the functions here.
//!
//! | module      | what                                                                   |
//! |-------------|------------------------------------------------------------------------|
//! | `error`     | a core error → (class, code, message, fields); `TypeError`/`RangeError` of the argument rules |
//! | `convert`   | JavaScript arguments → Rust values (64/128-bit, IDs, strings, bytes, layouts) |
//! | `options`   | option objects → core options, the node argument → the core's rule   |
//! | `values`    | core values → JavaScript objects (`Parts`, `Field`s, `Stats`, `Run`, `UuidInfo`) |
//! | `api`       | the classes' members and the clock-free functions, listed once for both bindings (`layout_api!`, `functions_api!`) |
//! | `client_lease` | the browser's lease client: its options object, a lease service's grant and renewal answers |
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

pub mod api;
pub mod client_lease;
pub mod convert;
pub mod error;
pub mod options;
pub mod values;

use idmint::Layout;

/// The JavaScript type of a value (`typeof`, with `null` apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsType {
    /// `undefined`.
    Undefined,
    /// `null`.
    Null,
    /// A boolean.
    Boolean,
    /// A number.
    Number,
    /// A bigint.
    BigInt,
    /// A string.
    String,
    /// A symbol.
    Symbol,
    /// A function.
    Function,
    /// Any other object.
    Object,
}

/// The constructor a thrown error is created with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// `Error`.
    Error,
    /// `TypeError`.
    TypeError,
    /// `RangeError`.
    RangeError,
}

/// A value attached to a thrown error, or put in an object the binding hands out.
#[derive(Debug, Clone)]
pub enum Out<'a, V> {
    /// A string.
    Str(&'a str),
    /// A `number`.
    Num(f64),
    /// A `bigint`.
    Big(u64),
    /// A boolean.
    Bool(bool),
    /// `null`.
    Null,
    /// A value made already.
    Val(V),
}

/// What a binding gives the shared code: reading its JavaScript values, making new ones and
/// throwing. `Value` is the binding's handle of a JavaScript value, `Error` what its exports
/// return to throw.
pub trait Host {
    /// A JavaScript value.
    type Value: Clone;
    /// A thrown exception, as the binding's exports return it.
    type Error;
    /// What the core's `NodeRequired` message gets appended, in this package's spelling.
    const NODE_HINT: &'static str;

    /// The value's type.
    fn type_of(&self, v: &Self::Value) -> JsType;
    /// A number's value.
    fn number(&self, v: &Self::Value) -> f64;
    /// `String(d)` for messages.
    fn number_text(&self, d: f64) -> String;
    /// A bigint: whether it is negative, and its magnitude if it fits 128 bits.
    fn bigint(&self, v: &Self::Value) -> Result<(bool, Option<u128>), Self::Error>;
    /// A string's text (UTF-8).
    fn string(&self, v: &Self::Value) -> Result<String, Self::Error>;
    /// A `Uint8Array`'s bytes, or `None` for any other value.
    fn bytes(&self, v: &Self::Value) -> Option<Vec<u8>>;
    /// An object's own enumerable string keys.
    fn own_keys(&self, obj: &Self::Value) -> Result<Vec<String>, Self::Error>;
    /// An object's property (`undefined` when absent; a getter's exception passes on).
    fn get(&self, obj: &Self::Value, key: &str) -> Result<Self::Value, Self::Error>;
    /// `f(arg)` with `this` undefined (`f` is a function); its exception passes on.
    fn call1(&self, f: &Self::Value, arg: Self::Value) -> Result<Self::Value, Self::Error>;
    /// The core layout in a `Layout` object of this package, or `None` for any other object.
    fn layout(&self, v: &Self::Value) -> Option<Layout>;
    /// An error object of `class` with `code`, `message` and `props`, thrown (or ready to be).
    fn throw(
        &self,
        class: Class,
        code: &str,
        message: &str,
        props: &[(&str, Out<'_, Self::Value>)],
    ) -> Self::Error;
    /// A new JavaScript value.
    fn value(&self, v: Out<'_, Self::Value>) -> Result<Self::Value, Self::Error>;
    /// A new plain object with these properties, in order.
    fn object(&self, props: &[(&str, Out<'_, Self::Value>)]) -> Result<Self::Value, Self::Error>;
    /// A new array of these values.
    fn array(&self, items: Vec<Self::Value>) -> Result<Self::Value, Self::Error>;
}
