//! `Layout`: the bit layout of an ID. Its getters and methods are listed once, for both
//! packages, in bindings-js (`idmint_js::layout_api!`); here are the constructor and static
//! methods, and [`wasm_members!`], which declares a member list as `#[wasm_bindgen]` methods.
//! The API is declared and documented once, in bindings-js/idmint.d.ts.

use idmint::Layout;
use idmint_js::convert::string_arg;
use idmint_js::values;
use js_sys::Date;
use wasm_bindgen::prelude::*;

use crate::convert::{js_str, post_layout, OrThrow, Web};

fn date(ms: u64) -> Date {
    Date::new(&JsValue::from_f64(values::date_ms(ms)))
}

/// Declares a member list of `idmint_js::api` as `#[wasm_bindgen]` methods of `$class`, one
/// `impl` block each: arguments arrive as `JsValue`; `value` and `name` return as one, `date` as
/// a `Date`, `names` as an array; a member that cannot throw returns without a `Result`.
macro_rules! wasm_members {
    ($js_class:ident => $class:ident ($h:ident, $l:ident) $(
        $(#[$attr:ident])* $js:literal $rs:ident ($($a:ident),*) -> $ret:tt
        $(= $e:expr;)? $({ $($body:tt)* })?
    )*) => {$(
        #[wasm_bindgen(js_class = $js_class)]
        impl $class {
            #[wasm_bindgen($($attr,)* js_name = $js)]
            pub fn $rs(&self, $($a: JsValue),*)
                -> wasm_members!(@type $ret $(= $e)? $({ $($body)* })?)
            {
                #[allow(unused_imports)]
                use idmint_js::api::prelude::*;
                let ($h, $l) = (&Web, &self.inner);
                let _ = ($h, $l);
                $(let $a = &$a;)*
                wasm_members!(@return $ret $(= $e)? $({ $($body)* })?)
            }
        }
    )*};
    (@type date = $e:expr) => { Date };
    (@type name = $e:expr) => { JsValue };
    (@type names = $e:expr) => { Vec<JsValue> };
    (@type $ret:tt = $e:expr) => { $ret };
    (@type value $body:block) => { Result<JsValue, JsValue> };
    (@type date $body:block) => { Result<Date, JsValue> };
    (@type $ret:tt $body:block) => { Result<$ret, JsValue> };
    (@return date = $e:expr) => { date($e) };
    (@return name = $e:expr) => { $e.map_or(JsValue::NULL, js_str) };
    (@return names = $e:expr) => { $e.map(js_str).collect() };
    (@return $ret:tt = $e:expr) => { $e };
    (@return date $body:block) => {{
        let ms: Result<u64, JsValue> = $body;
        ms.map(date)
    }};
    (@return $ret:tt $body:block) => { $body };
}

idmint_js::layout_api!(wasm_members => JsLayout);

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
}
