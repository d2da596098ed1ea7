//! The wasm-bindgen side of the shared conversions: [`Web`] implements `idmint_js::Host` on
//! `JsValue`s, so every argument rule, option object and error mapping comes from the shared
//! crate (`bindings-js`). Arguments arrive as `JsValue` so that the binding, not wasm-bindgen's
//! glue (which would wrap `-1n` to `2^64-1` silently), decides what a wrong argument throws.

use std::cell::Cell;
use std::cell::RefCell;

use idmint::formats::uuid::Uuid;
use idmint::Layout;
use idmint_js::{Class, Host, JsType, Out};
use js_sys::{Function, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub(crate) use idmint_js::error::OrThrow;

/// The `Layout` class (its methods are in [`crate::layout`]): declared here, where layout
/// arguments are unwrapped and layouts returned, so that neither module needs the other's.
#[wasm_bindgen(js_name = Layout)]
pub struct JsLayout {
    pub(crate) inner: Layout,
}

/// A `Date` for `ms` since the Unix epoch.
pub(crate) fn date(ms: u64) -> js_sys::Date {
    js_sys::Date::new(&JsValue::from_f64(idmint_js::values::date_ms(ms)))
}

/// The browser host of the shared conversions.
pub(crate) struct Web;

thread_local! {
    /// JavaScript strings made once for the property names and short texts used again and
    /// again: a string made from Rust crosses through a TextDecoder (about half a microsecond).
    static STRINGS: RefCell<Vec<(Box<str>, JsValue)>> = const { RefCell::new(Vec::new()) };
    /// Where a `Layout` object posts its value when asked by [`Web::layout`].
    static POSTED: Cell<Option<Layout>> = const { Cell::new(None) };
}

/// `s` as a JavaScript string, made once per module instance for short strings (at most 128).
pub(crate) fn js_str(s: &str) -> JsValue {
    STRINGS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some((_, v)) = cache.iter().find(|(k, _)| **k == *s) {
            return v.clone();
        }
        let v = JsValue::from_str(s);
        if cache.len() < 128 && s.len() <= 32 {
            cache.push((s.into(), v.clone()));
        }
        v
    })
}

/// Called by a `Layout` object asked for its value (see [`Web::layout`]).
pub(crate) fn post_layout(l: Layout) {
    POSTED.with(|p| p.set(Some(l)));
}

/// A plain JavaScript object with the given properties set, in order (for the unit tests).
#[cfg(test)]
pub(crate) fn object(props: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in props {
        // Defining a property on a fresh plain object cannot fail.
        let _ = Reflect::set(&o, &js_str(k), v);
    }
    o.into()
}

#[wasm_bindgen]
extern "C" {
    /// The lower-case hyphenated text of the UUID whose 16 bytes are the big-endian words
    /// `a`, `b`, `c`, `d`: a small JavaScript function that scripts/glue.mjs adds to the
    /// generated glue (which calls it by this name).
    #[wasm_bindgen(js_name = __idmintUuidText)]
    fn uuid_text(a: u32, b: u32, c: u32, d: u32) -> JsValue;
}

/// The lower-case hyphenated form as a JavaScript string, spelled out by a small JavaScript
/// function from four words: a string made in Rust would cross through a TextDecoder, which
/// costs about half a microsecond in Chromium, more than the rest of a UUID.
#[cfg(not(test))]
pub(crate) fn js_uuid(u: &Uuid) -> JsValue {
    let b = u.as_bytes();
    let w = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    uuid_text(w(0), w(4), w(8), w(12))
}

/// The unit tests run on wasm-bindgen's own glue, without the helper: Rust spells it there.
#[cfg(test)]
pub(crate) fn js_uuid(u: &Uuid) -> JsValue {
    JsValue::from(u.hyphenated().to_string())
}

/// Declares a member list of `idmint_js::api` (the class's members, listed once for both
/// packages) as `#[wasm_bindgen]` methods of `$class` (on `self.inner`, or on `self.$core()`),
/// one `impl` block each: arguments arrive as `JsValue`; `value` and `name` return as one,
/// `date` as a `Date`, `names` as an array, `layout` as a `Layout`; a member that cannot throw
/// returns without a `Result`.
macro_rules! wasm_members {
    ($js_class:ident => $class:ident $(.$core:ident())? ($h:ident, $l:ident) $($members:tt)*) => {
        crate::convert::wasm_members!(@members $js_class => $class [$($core)?] ($h, $l) $($members)*);
    };
    (@members $js_class:ident => $class:ident $core:tt ($h:ident, $l:ident) $(
        $(#[$attr:ident])* $js:literal $rs:ident ($($a:ident),*) -> $ret:tt
        $(= $e:expr;)? $({ $($body:tt)* })?
    )*) => {$(
        #[wasm_bindgen::prelude::wasm_bindgen(js_class = $js_class)]
        impl $class {
            #[wasm_bindgen($($attr,)* js_name = $js)]
            pub fn $rs(&self, $($a: wasm_bindgen::JsValue),*)
                -> crate::convert::wasm_members!(@type $ret $(= $e)? $({ $($body)* })?)
            {
                #[allow(unused_imports)]
                use idmint_js::api::prelude::*;
                let ($h, $l) = (&crate::convert::Web, crate::convert::wasm_members!(@core self $core));
                let _ = ($h, $l);
                $(let $a = &$a;)*
                crate::convert::wasm_members!(@return $ret $(= $e)? $({ $($body)* })?)
            }
        }
    )*};
    (@core $self:ident []) => { &$self.inner };
    (@core $self:ident [$core:ident]) => { $self.$core() };
    (@type date = $e:expr) => { js_sys::Date };
    (@type layout = $e:expr) => { crate::convert::JsLayout };
    (@type name = $e:expr) => { wasm_bindgen::JsValue };
    (@type names = $e:expr) => { Vec<wasm_bindgen::JsValue> };
    (@type $ret:tt = $e:expr) => { $ret };
    (@type value $body:block) => { Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue> };
    (@type uuid $body:block) => { Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue> };
    (@type date $body:block) => { Result<js_sys::Date, wasm_bindgen::JsValue> };
    (@type $ret:tt $body:block) => { Result<$ret, wasm_bindgen::JsValue> };
    (@return date = $e:expr) => { crate::convert::date($e) };
    (@return layout = $e:expr) => { crate::convert::JsLayout { inner: $e } };
    (@return name = $e:expr) => { $e.map_or(wasm_bindgen::JsValue::NULL, crate::convert::js_str) };
    (@return names = $e:expr) => { $e.map(crate::convert::js_str).collect() };
    (@return $ret:tt = $e:expr) => { $e };
    (@return date $body:block) => {{
        let ms: Result<u64, wasm_bindgen::JsValue> = $body;
        ms.map(crate::convert::date)
    }};
    (@return uuid $body:block) => {{
        let u: Result<idmint::formats::uuid::Uuid, wasm_bindgen::JsValue> = $body;
        u.map(|u| crate::convert::js_uuid(&u))
    }};
    (@return $ret:tt $body:block) => { $body };
}

pub(crate) use wasm_members;

/// Declares the function list of `idmint_js::functions_api!` as `#[wasm_bindgen]` functions:
/// arguments arrive as `JsValue`s, results return as in [`wasm_members!`].
macro_rules! wasm_functions {
    (($h:ident) $($js:literal $rs:ident ($($a:ident),*) -> $ret:tt { $($body:tt)* })*) => {$(
        #[wasm_bindgen::prelude::wasm_bindgen(js_name = $js)]
        pub fn $rs($($a: wasm_bindgen::JsValue),*)
            -> crate::convert::wasm_members!(@type $ret { $($body)* })
        {
            #[allow(unused_imports)]
            use idmint_js::api::prelude::*;
            let $h = &crate::convert::Web;
            $(let $a = &$a;)*
            crate::convert::wasm_members!(@return $ret { $($body)* })
        }
    )*};
}

pub(crate) use wasm_functions;

impl Host for Web {
    type Value = JsValue;
    type Error = JsValue;
    const NODE_HINT: &'static str = " (in the browser: await LeasedSnowflake.lease(serviceUrl) leases a node from an idmint lease service (idmint serve), as in the README; new Snowflake({ node: N }) takes one you give; new Snowflake({ node: randomNode(layout) }) a random one)";

    fn type_of(&self, v: &JsValue) -> JsType {
        match v {
            _ if v.is_undefined() => JsType::Undefined,
            _ if v.is_null() => JsType::Null,
            _ if v.as_f64().is_some() => JsType::Number,
            _ if v.is_bigint() => JsType::BigInt,
            _ if v.is_string() => JsType::String,
            _ if v.as_bool().is_some() => JsType::Boolean,
            _ if v.is_symbol() => JsType::Symbol,
            _ if v.is_function() => JsType::Function,
            _ => JsType::Object,
        }
    }

    fn number(&self, v: &JsValue) -> f64 {
        v.as_f64().unwrap_or(f64::NAN)
    }

    /// `String(d)`: JavaScript's own formatting, which keeps Rust's float formatting out.
    fn number_text(&self, d: f64) -> String {
        js_sys::Number::from(d)
            .to_string_with_radix(10)
            .map_or_else(|_| "NaN".into(), String::from)
    }

    fn bigint(&self, v: &JsValue) -> Result<(bool, Option<u128>), JsValue> {
        if v.lt(&JsValue::from(0u64)) {
            return Ok((true, None));
        }
        Ok((false, u128::try_from(v.clone()).ok()))
    }

    fn string(&self, v: &JsValue) -> Result<String, JsValue> {
        Ok(v.as_string().unwrap_or_default())
    }

    fn bytes(&self, v: &JsValue) -> Option<Vec<u8>> {
        v.dyn_ref::<Uint8Array>().map(Uint8Array::to_vec)
    }

    fn own_keys(&self, obj: &JsValue) -> Result<Vec<String>, JsValue> {
        Ok(Object::keys(obj.unchecked_ref::<Object>())
            .iter()
            .filter_map(|k| k.as_string())
            .collect())
    }

    fn get(&self, obj: &JsValue, key: &str) -> Result<JsValue, JsValue> {
        Reflect::get(obj, &js_str(key))
    }

    /// wasm-bindgen can hand Rust an exported object only by taking it away from JavaScript,
    /// so instead the object is asked (through a hidden method) to post a copy of its value.
    fn call1(&self, f: &JsValue, arg: JsValue) -> Result<JsValue, JsValue> {
        f.unchecked_ref::<Function>()
            .call1(&JsValue::UNDEFINED, &arg)
    }

    fn layout(&self, v: &JsValue) -> Option<Layout> {
        let f = self
            .get(v, "__idmintPostLayout")
            .ok()?
            .dyn_into::<Function>()
            .ok()?;
        POSTED.with(|p| p.set(None));
        f.call0(v).ok()?;
        POSTED.with(Cell::take)
    }

    fn throw(
        &self,
        class: Class,
        code: &str,
        message: &str,
        props: &[(&str, Out<'_, JsValue>)],
    ) -> JsValue {
        let err: js_sys::Error = match class {
            Class::Error => js_sys::Error::new(message),
            Class::TypeError => js_sys::TypeError::new(message).into(),
            Class::RangeError => js_sys::RangeError::new(message).into(),
        };
        let _ = Reflect::set(&err, &js_str("code"), &js_str(code));
        for (name, p) in props {
            let _ = Reflect::set(&err, &js_str(name), &self.make(p));
        }
        err.into()
    }

    fn value(&self, v: Out<'_, JsValue>) -> Result<JsValue, JsValue> {
        Ok(self.make(&v))
    }

    fn object(&self, props: &[(&str, Out<'_, JsValue>)]) -> Result<JsValue, JsValue> {
        let o = Object::new();
        for (k, v) in props {
            let _ = Reflect::set(&o, &js_str(k), &self.make(v));
        }
        Ok(o.into())
    }

    fn array(&self, items: Vec<JsValue>) -> Result<JsValue, JsValue> {
        Ok(items.into_iter().collect::<js_sys::Array>().into())
    }
}

impl Web {
    fn make(&self, v: &Out<'_, JsValue>) -> JsValue {
        match v {
            Out::Str(s) => js_str(s),
            Out::Num(n) => JsValue::from_f64(*n),
            Out::Big(n) => JsValue::from(*n),
            Out::Bool(b) => JsValue::from_bool(*b),
            Out::Null => JsValue::NULL,
            Out::Val(v) => v.clone(),
        }
    }
}
