//! Keyed obfuscation of IDs: `Obfuscator` (a permutation of all the bits) and
//! `SortableObfuscator` (the bits below the time field only, so IDs stay time-sorted). Their
//! getters and methods are listed once, for both packages, in bindings-js (`idmint_js::api`).

use idmint::{Obfuscator as CoreObfuscator, SortableObfuscator as CoreSortableObfuscator};
use idmint_js::values;
use napi::bindgen_prelude::Unknown;
use napi::{Env, JsValue};
use napi_derive::napi;

use crate::convert::{napi_members, Js};

#[napi]
pub struct Obfuscator {
    pub(crate) inner: CoreObfuscator,
}

idmint_js::obfuscator_api!(napi_members => Obfuscator);

#[napi]
impl Obfuscator {
    #[napi(constructor, catch_unwind)]
    pub fn new(env: &Env, key: Unknown<'_>, bits: Unknown<'_>) -> napi::Result<Self> {
        Ok(Obfuscator {
            inner: values::obfuscator(&Js(env), &key.raw(), &bits.raw())?,
        })
    }

    #[napi(factory, catch_unwind)]
    pub fn for_layout(env: &Env, key: Unknown<'_>, layout: Unknown<'_>) -> napi::Result<Self> {
        Ok(Obfuscator {
            inner: values::obfuscator_for_layout(&Js(env), &key.raw(), &layout.raw())?,
        })
    }
}

#[napi]
pub struct SortableObfuscator {
    inner: CoreSortableObfuscator,
}

idmint_js::sortable_obfuscator_api!(napi_members => SortableObfuscator);

#[napi]
impl SortableObfuscator {
    #[napi(constructor, catch_unwind)]
    pub fn new(env: &Env, key: Unknown<'_>, layout: Unknown<'_>) -> napi::Result<Self> {
        Ok(SortableObfuscator {
            inner: values::sortable_obfuscator(&Js(env), &key.raw(), &layout.raw())?,
        })
    }
}
