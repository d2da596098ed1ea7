//! `Layout`: the bit layout of an ID. Conversions and the objects it hands out (`Parts`,
//! `Field`s, node sub-fields) come from the shared crate; the API is declared and documented
//! once, in bindings-js/idmint.d.ts.

use idmint::Layout;
use idmint_js::convert::{expect_object, id_arg, layout_arg, string_arg, u64_arg};
use idmint_js::options::{compose_parts, node_arg};
use idmint_js::values;
use js_sys::Date;
use wasm_bindgen::prelude::*;

use crate::convert::{js_str, post_layout, OrThrow, Web};

fn date(ms: u64) -> Date {
    Date::new(&JsValue::from_f64(values::date_ms(ms)))
}

#[wasm_bindgen(js_name = Layout)]
pub struct JsLayout {
    pub(crate) inner: Layout,
}

#[wasm_bindgen(js_class = Layout)]
impl JsLayout {
    #[wasm_bindgen(constructor)]
    pub fn new(spec: JsValue) -> Result<JsLayout, JsValue> {
        let spec = string_arg(&Web, &spec, "spec")?;
        Ok(JsLayout {
            inner: Layout::parse(&spec).or_throw(&Web)?,
        })
    }

    pub fn parse(spec: JsValue) -> Result<JsLayout, JsValue> {
        JsLayout::new(spec)
    }

    pub fn preset(name: JsValue) -> Result<JsLayout, JsValue> {
        let name = string_arg(&Web, &name, "name")?;
        Ok(JsLayout {
            inner: Layout::preset(&name).or_throw(&Web)?,
        })
    }

    pub fn presets() -> Vec<JsValue> {
        idmint::preset::NAMES.iter().map(|s| js_str(s)).collect()
    }

    /// Internal: posts this layout's value for `Web::layout` (not part of the API).
    #[wasm_bindgen(js_name = "__idmintPostLayout", skip_typescript)]
    pub fn post_layout(&self) {
        post_layout(self.inner);
    }

    #[wasm_bindgen(getter)]
    pub fn spec(&self) -> String {
        self.inner.to_string()
    }

    #[wasm_bindgen(js_name = toString)]
    pub fn to_js_string(&self) -> String {
        self.inner.to_string()
    }

    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> String {
        self.inner.to_string()
    }

    #[wasm_bindgen(getter, js_name = presetName)]
    pub fn preset_name(&self) -> JsValue {
        self.inner.preset_name().map_or(JsValue::NULL, js_str)
    }

    #[wasm_bindgen(getter)]
    pub fn width(&self) -> u32 {
        u32::from(self.inner.width())
    }

    #[wasm_bindgen(getter, js_name = epochMs)]
    pub fn epoch_ms(&self) -> u64 {
        self.inner.epoch_ms()
    }

    #[wasm_bindgen(getter)]
    pub fn epoch(&self) -> Date {
        date(self.inner.epoch_ms())
    }

    #[wasm_bindgen(getter, js_name = tickMs)]
    pub fn tick_ms(&self) -> u64 {
        self.inner.tick_ms()
    }

    #[wasm_bindgen(getter, js_name = maxId)]
    pub fn max_id(&self) -> u64 {
        self.inner.max_id()
    }

    #[wasm_bindgen(getter, js_name = maxNode)]
    pub fn max_node(&self) -> u64 {
        self.inner.max_node()
    }

    #[wasm_bindgen(getter, js_name = maxSequence)]
    pub fn max_sequence(&self) -> u32 {
        u32::try_from(self.inner.max_sequence()).unwrap_or(u32::MAX)
    }

    #[wasm_bindgen(getter, js_name = maxTime)]
    pub fn max_time(&self) -> u64 {
        self.inner.max_time()
    }

    #[wasm_bindgen(getter, js_name = nodeBits)]
    pub fn node_bits(&self) -> u32 {
        u32::from(self.inner.node_bits())
    }

    #[wasm_bindgen(getter, js_name = nodeNames)]
    pub fn node_names(&self) -> Vec<JsValue> {
        self.inner
            .node_fields()
            .map(|f| js_str(f.name.as_str()))
            .collect()
    }

    #[wasm_bindgen(getter, js_name = isJsSafe)]
    pub fn is_js_safe(&self) -> bool {
        self.inner.is_js_safe()
    }

    #[wasm_bindgen(getter, js_name = capacityPerSecond)]
    pub fn capacity_per_second(&self) -> f64 {
        self.inner.capacity_per_second() as f64
    }

    #[wasm_bindgen(getter, js_name = lifetimeEndMs)]
    pub fn lifetime_end_ms(&self) -> u64 {
        self.inner.lifetime_end_ms()
    }

    #[wasm_bindgen(getter, js_name = lifetimeEnd)]
    pub fn lifetime_end(&self) -> Date {
        date(self.inner.lifetime_end_ms())
    }

    #[wasm_bindgen(getter)]
    pub fn fields(&self) -> Result<JsValue, JsValue> {
        values::fields(&Web, &self.inner)
    }

    pub fn compose(&self, parts: JsValue) -> Result<u64, JsValue> {
        let p = compose_parts(&Web, &parts, &self.inner)?;
        self.inner.compose(&p).or_throw(&Web)
    }

    pub fn decompose(&self, id: JsValue) -> Result<JsValue, JsValue> {
        values::decompose(&Web, &self.inner, &id)
    }

    #[wasm_bindgen(js_name = timestampMs)]
    pub fn timestamp_ms(&self, id: JsValue) -> Result<u64, JsValue> {
        Ok(self.inner.timestamp_ms(id_arg(&Web, &id, "id")?))
    }

    pub fn timestamp(&self, id: JsValue) -> Result<Date, JsValue> {
        self.timestamp_ms(id).map(date)
    }

    #[wasm_bindgen(js_name = tickAt)]
    pub fn tick_at(&self, now_ms: JsValue) -> Result<u64, JsValue> {
        self.inner
            .tick_at(u64_arg(&Web, &now_ms, "nowMs")?)
            .or_throw(&Web)
    }

    #[wasm_bindgen(js_name = tickStartMs)]
    pub fn tick_start_ms(&self, tick: JsValue) -> Result<u64, JsValue> {
        Ok(self.inner.tick_start_ms(u64_arg(&Web, &tick, "tick")?))
    }

    #[wasm_bindgen(js_name = isExpiredAt)]
    pub fn is_expired_at(&self, now_ms: JsValue) -> Result<bool, JsValue> {
        Ok(self.inner.is_expired_at(u64_arg(&Web, &now_ms, "nowMs")?))
    }

    #[wasm_bindgen(js_name = splitNode)]
    pub fn split_node(&self, node: JsValue) -> Result<JsValue, JsValue> {
        values::node_record(&Web, &self.inner, u64_arg(&Web, &node, "node")?)
    }

    #[wasm_bindgen(js_name = joinNode)]
    pub fn join_node(&self, values: JsValue) -> Result<u64, JsValue> {
        expect_object(&Web, &values, "values")?;
        node_arg(&Web, &values, &self.inner, "values")
    }

    pub fn equals(&self, other: JsValue) -> Result<bool, JsValue> {
        Ok(self.inner == layout_arg(&Web, &other, "other")?)
    }
}
