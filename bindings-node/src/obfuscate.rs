//! Keyed obfuscation of IDs: `Obfuscator` (a permutation of all the bits) and
//! `SortableObfuscator` (the bits below the time field only, so IDs stay time-sorted).

use idmint::{Obfuscator as CoreObfuscator, SortableObfuscator as CoreSortableObfuscator};
use idmint_js::convert::u64_arg;
use idmint_js::values;
use napi::bindgen_prelude::Unknown;
use napi::{Env, JsValue};
use napi_derive::napi;

use crate::convert::{Js, OrThrow};

#[napi]
pub struct Obfuscator {
    pub(crate) inner: CoreObfuscator,
}

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

    #[napi(getter, catch_unwind)]
    pub fn bits(&self) -> u32 {
        u32::from(self.inner.bits())
    }

    #[napi(getter, catch_unwind)]
    pub fn max(&self) -> u64 {
        self.inner.max()
    }

    #[napi(catch_unwind)]
    pub fn encode(&self, env: &Env, x: Unknown<'_>) -> napi::Result<u64> {
        let h = Js(env);
        self.inner.encode(u64_arg(&h, &x.raw(), "x")?).or_throw(&h)
    }

    #[napi(catch_unwind)]
    pub fn decode(&self, env: &Env, y: Unknown<'_>) -> napi::Result<u64> {
        let h = Js(env);
        self.inner.decode(u64_arg(&h, &y.raw(), "y")?).or_throw(&h)
    }
}

#[napi]
pub struct SortableObfuscator {
    inner: CoreSortableObfuscator,
}

#[napi]
impl SortableObfuscator {
    #[napi(constructor, catch_unwind)]
    pub fn new(env: &Env, key: Unknown<'_>, layout: Unknown<'_>) -> napi::Result<Self> {
        Ok(SortableObfuscator {
            inner: values::sortable_obfuscator(&Js(env), &key.raw(), &layout.raw())?,
        })
    }

    #[napi(getter, catch_unwind)]
    pub fn low_bits(&self) -> u32 {
        u32::from(self.inner.low_bits())
    }

    #[napi(catch_unwind)]
    pub fn encode(&self, env: &Env, id: Unknown<'_>) -> napi::Result<u64> {
        let h = Js(env);
        self.inner
            .encode(u64_arg(&h, &id.raw(), "id")?)
            .or_throw(&h)
    }

    #[napi(catch_unwind)]
    pub fn decode(&self, env: &Env, id: Unknown<'_>) -> napi::Result<u64> {
        let h = Js(env);
        self.inner
            .decode(u64_arg(&h, &id.raw(), "id")?)
            .or_throw(&h)
    }
}
