//! The parked errors of the per-ID methods. What a thrown error looks like is decided by the
//! shared crate (`idmint_js::error`) and built by [`crate::convert::Web`].
//!
//! The per-ID methods of `Snowflake` (`nextId`, `nextIdString`, `nextIdNumber`, `tryNextId`)
//! return plain values, because a `Result` crosses to JavaScript as a multi-value array (an
//! allocation per call, about a quarter of `nextId`'s cost). When one fails it parks the
//! exception here and returns its sentinel; scripts/glue.mjs makes the generated JavaScript
//! check for the sentinel and then throw what [`take_error`] hands over.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

thread_local! {
    /// The error of the last per-ID call that failed, until the glue takes it.
    static PENDING: RefCell<Option<JsValue>> = const { RefCell::new(None) };
}

/// The value a per-ID method returns when it fails.
pub(crate) trait Sentinel {
    /// What the method returns instead of a value; the glue then asks for the error.
    const SENTINEL: Self;
}

impl Sentinel for u64 {
    // ID 0 is a valid ID: the glue finds no pending error then and returns it.
    const SENTINEL: u64 = 0;
}

impl Sentinel for f64 {
    const SENTINEL: f64 = -1.0;
}

impl Sentinel for JsValue {
    const SENTINEL: JsValue = JsValue::UNDEFINED;
}

/// Records `e` for the glue to throw and returns the sentinel.
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
