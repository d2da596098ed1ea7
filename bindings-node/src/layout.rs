//! `Layout`: the bit layout of an ID. Conversions and the objects it hands out (`Parts`,
//! `Field`s, node sub-fields) come from the shared crate; the API is declared and documented
//! once, in bindings-js/idmint.d.ts.

use idmint::Layout as CoreLayout;
use idmint_js::convert::{expect_object, id_arg, layout_arg, string_arg, u64_arg};
use idmint_js::options::{compose_parts, node_arg};
use idmint_js::values;
use napi::bindgen_prelude::Unknown;
use napi::{Env, JsDate, JsValue};
use napi_derive::napi;

use crate::convert::{unknown, Js, Layout, OrThrow};

/// A `Date` for `ms` since the Unix epoch.
pub(crate) fn date(env: &Env, ms: u64) -> napi::Result<JsDate<'_>> {
    env.create_date(values::date_ms(ms))
}

impl Layout {
    pub(crate) fn of(l: &CoreLayout) -> Layout {
        Layout { inner: *l }
    }
}

#[napi]
impl Layout {
    #[napi(constructor, catch_unwind)]
    pub fn new(env: &Env, spec: Unknown<'_>) -> napi::Result<Self> {
        let h = Js(env);
        let spec = string_arg(&h, &spec.raw(), "spec")?;
        Ok(Layout {
            inner: CoreLayout::parse(&spec).or_throw(&h)?,
        })
    }

    #[napi(factory, catch_unwind)]
    pub fn parse(env: &Env, spec: Unknown<'_>) -> napi::Result<Self> {
        Self::new(env, spec)
    }

    #[napi(factory, catch_unwind)]
    pub fn preset(env: &Env, name: Unknown<'_>) -> napi::Result<Self> {
        let h = Js(env);
        let name = string_arg(&h, &name.raw(), "name")?;
        Ok(Layout {
            inner: CoreLayout::preset(&name).or_throw(&h)?,
        })
    }

    #[napi(catch_unwind)]
    pub fn presets() -> Vec<&'static str> {
        idmint::preset::NAMES.to_vec()
    }

    #[napi(getter, catch_unwind)]
    pub fn spec(&self) -> String {
        self.inner.to_string()
    }

    #[napi(js_name = "toString", catch_unwind)]
    pub fn to_js_string(&self) -> String {
        self.inner.to_string()
    }

    #[napi(js_name = "toJSON", catch_unwind)]
    pub fn to_json(&self) -> String {
        self.inner.to_string()
    }

    #[napi(getter, catch_unwind)]
    pub fn preset_name(&self) -> Option<&'static str> {
        self.inner.preset_name()
    }

    #[napi(getter, catch_unwind)]
    pub fn width(&self) -> u32 {
        u32::from(self.inner.width())
    }

    #[napi(getter, catch_unwind)]
    pub fn epoch_ms(&self) -> u64 {
        self.inner.epoch_ms()
    }

    #[napi(getter, catch_unwind)]
    pub fn epoch<'e>(&self, env: &'e Env) -> napi::Result<JsDate<'e>> {
        date(env, self.inner.epoch_ms())
    }

    #[napi(getter, catch_unwind)]
    pub fn tick_ms(&self) -> u64 {
        self.inner.tick_ms()
    }

    #[napi(getter, catch_unwind)]
    pub fn max_id(&self) -> u64 {
        self.inner.max_id()
    }

    #[napi(getter, catch_unwind)]
    pub fn max_node(&self) -> u64 {
        self.inner.max_node()
    }

    #[napi(getter, catch_unwind)]
    pub fn max_sequence(&self) -> u32 {
        u32::try_from(self.inner.max_sequence()).unwrap_or(u32::MAX)
    }

    #[napi(getter, catch_unwind)]
    pub fn max_time(&self) -> u64 {
        self.inner.max_time()
    }

    #[napi(getter, catch_unwind)]
    pub fn node_bits(&self) -> u32 {
        u32::from(self.inner.node_bits())
    }

    #[napi(getter, catch_unwind)]
    pub fn node_names(&self) -> Vec<&str> {
        self.inner.node_fields().map(|f| f.name.as_str()).collect()
    }

    #[napi(getter, catch_unwind)]
    pub fn is_js_safe(&self) -> bool {
        self.inner.is_js_safe()
    }

    #[napi(getter, catch_unwind)]
    pub fn capacity_per_second(&self) -> f64 {
        self.inner.capacity_per_second() as f64
    }

    #[napi(getter, catch_unwind)]
    pub fn lifetime_end_ms(&self) -> u64 {
        self.inner.lifetime_end_ms()
    }

    #[napi(getter, catch_unwind)]
    pub fn lifetime_end<'e>(&self, env: &'e Env) -> napi::Result<JsDate<'e>> {
        date(env, self.inner.lifetime_end_ms())
    }

    #[napi(getter, catch_unwind)]
    pub fn fields<'e>(&self, env: &'e Env) -> napi::Result<Unknown<'e>> {
        unknown(env, values::fields(&Js(env), &self.inner))
    }

    #[napi(catch_unwind)]
    pub fn compose(&self, env: &Env, parts: Unknown<'_>) -> napi::Result<u64> {
        let h = Js(env);
        let p = compose_parts(&h, &parts.raw(), &self.inner)?;
        self.inner.compose(&p).or_throw(&h)
    }

    #[napi(catch_unwind)]
    pub fn decompose<'e>(&self, env: &'e Env, id: Unknown<'_>) -> napi::Result<Unknown<'e>> {
        unknown(env, values::decompose(&Js(env), &self.inner, &id.raw()))
    }

    #[napi(catch_unwind)]
    pub fn timestamp_ms(&self, env: &Env, id: Unknown<'_>) -> napi::Result<u64> {
        Ok(self.inner.timestamp_ms(id_arg(&Js(env), &id.raw(), "id")?))
    }

    #[napi(catch_unwind)]
    pub fn timestamp<'e>(&self, env: &'e Env, id: Unknown<'_>) -> napi::Result<JsDate<'e>> {
        date(env, self.timestamp_ms(env, id)?)
    }

    #[napi(catch_unwind)]
    pub fn tick_at(&self, env: &Env, now_ms: Unknown<'_>) -> napi::Result<u64> {
        let h = Js(env);
        self.inner
            .tick_at(u64_arg(&h, &now_ms.raw(), "nowMs")?)
            .or_throw(&h)
    }

    #[napi(catch_unwind)]
    pub fn tick_start_ms(&self, env: &Env, tick: Unknown<'_>) -> napi::Result<u64> {
        Ok(self
            .inner
            .tick_start_ms(u64_arg(&Js(env), &tick.raw(), "tick")?))
    }

    #[napi(catch_unwind)]
    pub fn is_expired_at(&self, env: &Env, now_ms: Unknown<'_>) -> napi::Result<bool> {
        Ok(self
            .inner
            .is_expired_at(u64_arg(&Js(env), &now_ms.raw(), "nowMs")?))
    }

    #[napi(catch_unwind)]
    pub fn split_node<'e>(&self, env: &'e Env, node: Unknown<'_>) -> napi::Result<Unknown<'e>> {
        let h = Js(env);
        let node = u64_arg(&h, &node.raw(), "node")?;
        unknown(env, values::node_record(&h, &self.inner, node))
    }

    #[napi(catch_unwind)]
    pub fn join_node(&self, env: &Env, values: Unknown<'_>) -> napi::Result<u64> {
        let h = Js(env);
        expect_object(&h, &values.raw(), "values")?;
        node_arg(&h, &values.raw(), &self.inner, "values")
    }

    #[napi(catch_unwind)]
    pub fn equals(&self, env: &Env, other: Unknown<'_>) -> napi::Result<bool> {
        Ok(self.inner == layout_arg(&Js(env), &other.raw(), "other")?)
    }
}
