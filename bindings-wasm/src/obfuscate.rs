//! Keyed obfuscation of IDs: `Obfuscator` (a permutation of all the bits) and
//! `SortableObfuscator` (the bits below the time field only, so IDs stay time-sorted). Their
//! getters and methods are listed once, for both packages, in bindings-js (`idmint_js::api`).

use idmint::{Obfuscator, SortableObfuscator};
use idmint_js::values;
use wasm_bindgen::prelude::*;

use crate::convert::{wasm_members, Web};

#[wasm_bindgen(js_name = Obfuscator)]
pub struct JsObfuscator {
    inner: Obfuscator,
}

idmint_js::obfuscator_api!(wasm_members => JsObfuscator);

#[wasm_bindgen(js_class = Obfuscator)]
impl JsObfuscator {
    #[wasm_bindgen(constructor)]
    pub fn new(key: JsValue, bits: JsValue) -> Result<JsObfuscator, JsValue> {
        Ok(JsObfuscator {
            inner: values::obfuscator(&Web, &key, &bits)?,
        })
    }

    #[wasm_bindgen(js_name = forLayout)]
    pub fn for_layout(key: JsValue, layout: JsValue) -> Result<JsObfuscator, JsValue> {
        Ok(JsObfuscator {
            inner: values::obfuscator_for_layout(&Web, &key, &layout)?,
        })
    }
}

#[wasm_bindgen(js_name = SortableObfuscator)]
pub struct JsSortableObfuscator {
    inner: SortableObfuscator,
}

idmint_js::sortable_obfuscator_api!(wasm_members => JsSortableObfuscator);

#[wasm_bindgen(js_class = SortableObfuscator)]
impl JsSortableObfuscator {
    #[wasm_bindgen(constructor)]
    pub fn new(key: JsValue, layout: JsValue) -> Result<JsSortableObfuscator, JsValue> {
        Ok(JsSortableObfuscator {
            inner: values::sortable_obfuscator(&Web, &key, &layout)?,
        })
    }
}
