//! `Layout`: the bit layout of an ID. Its getters and methods are listed once, for both
//! packages, in bindings-js (`idmint_js::layout_api!`); here are the constructor and static
//! methods. The API is declared and documented once, in bindings-js/idmint.d.ts.

use idmint::Layout;
use idmint_js::convert::string_arg;
use wasm_bindgen::prelude::*;

use crate::convert::{js_str, post_layout, wasm_members, JsLayout, OrThrow, Web};

idmint_js::layout_api!(wasm_members => JsLayout);

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
        idmint::snowflake::preset::NAMES
            .iter()
            .map(|s| js_str(s))
            .collect()
    }

    /// Internal: posts this layout's value for `Web::layout` (not part of the API).
    #[wasm_bindgen(js_name = "__idmintPostLayout", skip_typescript)]
    pub fn post_layout(&self) {
        post_layout(self.inner);
    }
}
