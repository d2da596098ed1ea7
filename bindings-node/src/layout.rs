//! `Layout`: the bit layout of an ID. Its getters and methods are listed once, for both
//! packages, in bindings-js (`idmint_js::layout_api!`); here are the constructor and static
//! methods. The API is declared and documented once, in bindings-js/idmint.d.ts.

use idmint::Layout as CoreLayout;
use idmint_js::convert::string_arg;
use napi::bindgen_prelude::Unknown;
use napi::{Env, JsValue};
use napi_derive::napi;

use crate::convert::{napi_members, Js, Layout, OrThrow};

impl Layout {
    pub(crate) fn of(l: &CoreLayout) -> Layout {
        Layout { inner: *l }
    }
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
        idmint::snowflake::preset::NAMES.to_vec()
    }
}
