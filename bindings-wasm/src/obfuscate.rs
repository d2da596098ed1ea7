//! Keyed obfuscation of IDs: `Obfuscator` (a permutation of all the bits) and
//! `SortableObfuscator` (the bits below the time field only, so IDs stay time-sorted).

use idmint::{Obfuscator, SortableObfuscator};
use idmint_js::convert::u64_arg;
use idmint_js::values;
use wasm_bindgen::prelude::*;

use crate::convert::{OrThrow, Web};

#[wasm_bindgen(js_name = Obfuscator)]
pub struct JsObfuscator {
    inner: Obfuscator,
}

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

    #[wasm_bindgen(getter)]
    pub fn bits(&self) -> u32 {
        u32::from(self.inner.bits())
    }

    #[wasm_bindgen(getter)]
    pub fn max(&self) -> u64 {
        self.inner.max()
    }

    pub fn encode(&self, x: JsValue) -> Result<u64, JsValue> {
        self.inner.encode(u64_arg(&Web, &x, "x")?).or_throw(&Web)
    }

    pub fn decode(&self, y: JsValue) -> Result<u64, JsValue> {
        self.inner.decode(u64_arg(&Web, &y, "y")?).or_throw(&Web)
    }
}

#[wasm_bindgen(js_name = SortableObfuscator)]
pub struct JsSortableObfuscator {
    inner: SortableObfuscator,
}

#[wasm_bindgen(js_class = SortableObfuscator)]
impl JsSortableObfuscator {
    #[wasm_bindgen(constructor)]
    pub fn new(key: JsValue, layout: JsValue) -> Result<JsSortableObfuscator, JsValue> {
        Ok(JsSortableObfuscator {
            inner: values::sortable_obfuscator(&Web, &key, &layout)?,
        })
    }

    #[wasm_bindgen(getter, js_name = lowBits)]
    pub fn low_bits(&self) -> u32 {
        u32::from(self.inner.low_bits())
    }

    pub fn encode(&self, id: JsValue) -> Result<u64, JsValue> {
        self.inner.encode(u64_arg(&Web, &id, "id")?).or_throw(&Web)
    }

    pub fn decode(&self, id: JsValue) -> Result<u64, JsValue> {
        self.inner.decode(u64_arg(&Web, &id, "id")?).or_throw(&Web)
    }
}
