//! `Layout`: the bit layout of an ID. Its getters and methods are listed once, for both
//! packages, in bindings-js (`idmint_js::layout_api!`); here are the constructor and static
//! methods, and [`napi_members!`], which declares a member list as `#[napi]` methods. The API
//! is declared and documented once, in bindings-js/idmint.d.ts.

use idmint::Layout as CoreLayout;
use idmint_js::convert::string_arg;
use idmint_js::values;
use napi::bindgen_prelude::Unknown;
use napi::{Env, JsDate, JsValue};
use napi_derive::napi;

use crate::convert::{Js, Layout, OrThrow};

/// A `Date` for `ms` since the Unix epoch.
pub(crate) fn date(env: &Env, ms: u64) -> napi::Result<JsDate<'_>> {
    env.create_date(values::date_ms(ms))
}

impl Layout {
    pub(crate) fn of(l: &CoreLayout) -> Layout {
        Layout { inner: *l }
    }
}

/// Declares a member list of `idmint_js::api` as `#[napi]` methods of `$class`, one `impl` block
/// each: arguments arrive as `Unknown`, `value` returns as `Unknown`, `date` as a `Date`.
macro_rules! napi_members {
    ($js_class:ident => $class:ident ($h:ident, $l:ident) $(
        $(#[$attr:ident])* $js:literal $rs:ident ($($a:ident),*) -> $ret:tt
        $(= $e:expr;)? $({ $($body:tt)* })?
    )*) => {$(
        napi_members!(@fn $class [$($attr)*] $js $rs ($($a),*) -> $ret {
            ($h, $l) $(= $e;)? $({ $($body)* })?
        });
    )*};
    (@fn $class:ident [$($attr:ident)*] $js:tt $rs:ident ($($a:ident),*) -> value { $($b:tt)* }) => {
        #[napi]
        impl $class {
            #[napi($($attr,)* js_name = $js, catch_unwind)]
            pub fn $rs<'e>(&self, env: &'e Env, $($a: Unknown<'_>),*) -> napi::Result<Unknown<'e>> {
                crate::convert::unknown(env, napi_members!(@body self env ($($a),*) $($b)*))
            }
        }
    };
    (@fn $class:ident [$($attr:ident)*] $js:tt $rs:ident ($($a:ident),*) -> date { $($b:tt)* }) => {
        #[napi]
        impl $class {
            #[napi($($attr,)* js_name = $js, catch_unwind)]
            pub fn $rs<'e>(&self, env: &'e Env, $($a: Unknown<'_>),*) -> napi::Result<JsDate<'e>> {
                let ms: napi::Result<u64> = napi_members!(@body self env ($($a),*) $($b)*);
                date(env, ms?)
            }
        }
    };
    (@fn $class:ident [$($attr:ident)*] $js:tt $rs:ident ($($a:ident),*) -> name { $($b:tt)* }) => {
        #[napi]
        impl $class {
            #[napi($($attr,)* js_name = $js, catch_unwind)]
            pub fn $rs(&self, env: &Env, $($a: Unknown<'_>),*) -> napi::Result<Option<&str>> {
                napi_members!(@body self env ($($a),*) $($b)*)
            }
        }
    };
    (@fn $class:ident [$($attr:ident)*] $js:tt $rs:ident ($($a:ident),*) -> names { $($b:tt)* }) => {
        #[napi]
        impl $class {
            #[napi($($attr,)* js_name = $js, catch_unwind)]
            pub fn $rs(&self, env: &Env, $($a: Unknown<'_>),*) -> napi::Result<Vec<&str>> {
                napi_members!(@body self env ($($a),*) $($b)*).map(|names| names.collect())
            }
        }
    };
    (@fn $class:ident [$($attr:ident)*] $js:tt $rs:ident ($($a:ident),*) -> $ret:tt { $($b:tt)* }) => {
        #[napi]
        impl $class {
            #[napi($($attr,)* js_name = $js, catch_unwind)]
            pub fn $rs(&self, env: &Env, $($a: Unknown<'_>),*) -> napi::Result<$ret> {
                napi_members!(@body self env ($($a),*) $($b)*)
            }
        }
    };
    (@body $self:ident $env:ident ($($a:ident),*) ($h:ident, $l:ident) $(= $e:expr;)? $({ $($body:tt)* })?) => {{
        #[allow(unused_imports)]
        use idmint_js::api::prelude::*;
        let ($h, $l) = (&Js($env), &$self.inner);
        let _ = ($h, $l);
        $(let $a = &$a.raw();)*
        $(napi::Result::Ok($e))? $($($body)*)?
    }};
}

idmint_js::layout_api!(napi_members => Layout);

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
}
