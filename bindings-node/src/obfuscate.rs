//! Keyed obfuscation of IDs: `Obfuscator` (a permutation of all the bits) and
//! `SortableObfuscator` (the bits below the time field only, so IDs stay time-sorted).
//! Obfuscation, not encryption.

use idmint::{Obfuscator as CoreObfuscator, SortableObfuscator as CoreSortableObfuscator};
use napi::bindgen_prelude::Unknown;
use napi::Env;
use napi_derive::napi;

use crate::convert::{bounded_arg, layout_arg, u128_arg, u64_arg};
use crate::errors::OrThrow;

/// A keyed permutation of `[0, 2^bits)` (a Feistel network), for `bits` in 2..=64. The key is
/// 128 bits: a `bigint`, or 16 bytes read big-endian (`crypto.randomBytes(16)`).
#[napi]
pub struct Obfuscator {
    pub(crate) inner: CoreObfuscator,
}

#[napi]
impl Obfuscator {
    /// The permutation of `[0, 2^bits)` selected by `key`; `ERR_INVALID_CONFIG` unless
    /// `bits` is in 2..=64.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: &Env,
        #[napi(ts_arg_type = "bigint | number | Uint8Array")] key: Unknown<'_>,
        #[napi(ts_arg_type = "number")] bits: Unknown<'_>,
    ) -> napi::Result<Self> {
        let key = u128_arg(env, &key, "key")?;
        let bits = bounded_arg(env, &bits, "bits", 255)? as u8;
        Ok(Obfuscator {
            inner: CoreObfuscator::new(key, bits).or_throw(env)?,
        })
    }

    /// A full-width permutation for IDs of `layout` (time is hidden too, so they no longer sort).
    #[napi(factory, catch_unwind)]
    pub fn for_layout(
        env: &Env,
        #[napi(ts_arg_type = "bigint | number | Uint8Array")] key: Unknown<'_>,
        #[napi(ts_arg_type = "Layout | string")] layout: Unknown<'_>,
    ) -> napi::Result<Self> {
        let key = u128_arg(env, &key, "key")?;
        let layout = layout_arg(env, &layout, "layout")?;
        Ok(Obfuscator {
            inner: CoreObfuscator::for_layout(key, &layout).or_throw(env)?,
        })
    }

    /// The width of the domain, in bits.
    #[napi(getter, catch_unwind)]
    pub fn bits(&self) -> u32 {
        u32::from(self.inner.bits())
    }

    /// The largest value in the domain (`2^bits - 1`).
    #[napi(getter, catch_unwind)]
    pub fn max(&self) -> u64 {
        self.inner.max()
    }

    /// Maps `x` to its image; `ERR_OUT_OF_RANGE` outside the domain.
    #[napi(catch_unwind)]
    pub fn encode(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number")] x: Unknown<'_>,
    ) -> napi::Result<u64> {
        let x = u64_arg(env, &x, "x")?;
        self.inner.encode(x).or_throw(env)
    }

    /// Inverts `encode`.
    #[napi(catch_unwind)]
    pub fn decode(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number")] y: Unknown<'_>,
    ) -> napi::Result<u64> {
        let y = u64_arg(env, &y, "y")?;
        self.inner.decode(y).or_throw(env)
    }
}

/// Obfuscates the bits below a layout's time field and keeps the time field: IDs from
/// different ticks keep their order and readable time, while node and sequence are hidden.
#[napi]
pub struct SortableObfuscator {
    inner: CoreSortableObfuscator,
}

#[napi]
impl SortableObfuscator {
    /// The obfuscator for `layout`'s IDs; `ERR_INVALID_CONFIG` when fewer than 2 bits lie
    /// below the time field.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: &Env,
        #[napi(ts_arg_type = "bigint | number | Uint8Array")] key: Unknown<'_>,
        #[napi(ts_arg_type = "Layout | string")] layout: Unknown<'_>,
    ) -> napi::Result<Self> {
        let key = u128_arg(env, &key, "key")?;
        let layout = layout_arg(env, &layout, "layout")?;
        Ok(SortableObfuscator {
            inner: CoreSortableObfuscator::new(key, &layout).or_throw(env)?,
        })
    }

    /// How many low bits (those below the time field) are permuted.
    #[napi(getter, catch_unwind)]
    pub fn low_bits(&self) -> u32 {
        u32::from(self.inner.low_bits())
    }

    /// Obfuscates the low bits of `id`; `ERR_OUT_OF_RANGE` above the layout's `maxId`.
    #[napi(catch_unwind)]
    pub fn encode(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number")] id: Unknown<'_>,
    ) -> napi::Result<u64> {
        let id = u64_arg(env, &id, "id")?;
        self.inner.encode(id).or_throw(env)
    }

    /// Inverts `encode`.
    #[napi(catch_unwind)]
    pub fn decode(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number")] id: Unknown<'_>,
    ) -> napi::Result<u64> {
        let id = u64_arg(env, &id, "id")?;
        self.inner.decode(id).or_throw(env)
    }
}
