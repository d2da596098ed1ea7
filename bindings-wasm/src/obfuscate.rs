//! Keyed obfuscation of IDs: `Obfuscator` (a permutation of all the bits) and
//! `SortableObfuscator` (the bits below the time field only, so IDs stay time-sorted).
//! Obfuscation, not encryption.

use idmint::{Obfuscator, SortableObfuscator};
use wasm_bindgen::prelude::*;

use crate::convert::{bounded_arg, layout_arg, u128_arg, u64_arg};
use crate::errors::OrThrow;

/// A keyed permutation of `[0, 2^bits)` (a Feistel network), for `bits` in 2..=64. The key is
/// 128 bits: a `bigint`, or 16 bytes read big-endian (`crypto.getRandomValues(new Uint8Array(16))`).
#[wasm_bindgen(js_name = Obfuscator)]
pub struct JsObfuscator {
    inner: Obfuscator,
}

#[wasm_bindgen(js_class = Obfuscator)]
impl JsObfuscator {
    /// The permutation of `[0, 2^bits)` selected by `key`; `ERR_INVALID_CONFIG` unless
    /// `bits` is in 2..=64.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "bigint | number | Uint8Array")] key: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] bits: JsValue,
    ) -> Result<JsObfuscator, JsValue> {
        let key = u128_arg(&key, "key")?;
        let bits = bounded_arg(&bits, "bits", 255)? as u8;
        Ok(JsObfuscator {
            inner: Obfuscator::new(key, bits).or_throw()?,
        })
    }

    /// A full-width permutation for IDs of `layout` (time is hidden too, so they no longer sort).
    #[wasm_bindgen(js_name = forLayout)]
    pub fn for_layout(
        #[wasm_bindgen(unchecked_param_type = "bigint | number | Uint8Array")] key: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Layout | string")] layout: JsValue,
    ) -> Result<JsObfuscator, JsValue> {
        let key = u128_arg(&key, "key")?;
        let layout = layout_arg(&layout, "layout")?;
        Ok(JsObfuscator {
            inner: Obfuscator::for_layout(key, &layout).or_throw()?,
        })
    }

    /// The width of the domain, in bits.
    #[wasm_bindgen(getter)]
    pub fn bits(&self) -> u32 {
        u32::from(self.inner.bits())
    }

    /// The largest value in the domain (`2^bits - 1`).
    #[wasm_bindgen(getter)]
    pub fn max(&self) -> u64 {
        self.inner.max()
    }

    /// Maps `x` to its image; `ERR_OUT_OF_RANGE` outside the domain.
    pub fn encode(
        &self,
        #[wasm_bindgen(unchecked_param_type = "bigint | number")] x: JsValue,
    ) -> Result<u64, JsValue> {
        let x = u64_arg(&x, "x")?;
        self.inner.encode(x).or_throw()
    }

    /// Inverts `encode`.
    pub fn decode(
        &self,
        #[wasm_bindgen(unchecked_param_type = "bigint | number")] y: JsValue,
    ) -> Result<u64, JsValue> {
        let y = u64_arg(&y, "y")?;
        self.inner.decode(y).or_throw()
    }
}

/// Obfuscates the bits below a layout's time field and keeps the time field: IDs from
/// different ticks keep their order and readable time, while node and sequence are hidden.
#[wasm_bindgen(js_name = SortableObfuscator)]
pub struct JsSortableObfuscator {
    inner: SortableObfuscator,
}

#[wasm_bindgen(js_class = SortableObfuscator)]
impl JsSortableObfuscator {
    /// The obfuscator for `layout`'s IDs; `ERR_INVALID_CONFIG` when fewer than 2 bits lie
    /// below the time field.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "bigint | number | Uint8Array")] key: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Layout | string")] layout: JsValue,
    ) -> Result<JsSortableObfuscator, JsValue> {
        let key = u128_arg(&key, "key")?;
        let layout = layout_arg(&layout, "layout")?;
        Ok(JsSortableObfuscator {
            inner: SortableObfuscator::new(key, &layout).or_throw()?,
        })
    }

    /// How many low bits (those below the time field) are permuted.
    #[wasm_bindgen(getter, js_name = lowBits)]
    pub fn low_bits(&self) -> u32 {
        u32::from(self.inner.low_bits())
    }

    /// Obfuscates the low bits of `id`; `ERR_OUT_OF_RANGE` above the layout's `maxId`.
    pub fn encode(
        &self,
        #[wasm_bindgen(unchecked_param_type = "bigint | number")] id: JsValue,
    ) -> Result<u64, JsValue> {
        let id = u64_arg(&id, "id")?;
        self.inner.encode(id).or_throw()
    }

    /// Inverts `encode`.
    pub fn decode(
        &self,
        #[wasm_bindgen(unchecked_param_type = "bigint | number")] id: JsValue,
    ) -> Result<u64, JsValue> {
        let id = u64_arg(&id, "id")?;
        self.inner.decode(id).or_throw()
    }
}
