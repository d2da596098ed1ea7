//! `Snowflake` (the clocked, fork-detecting front door) and `AtomicSnowflake` (sans-IO, for
//! replays and callers that bring their own clock). Both wrap the core's generators; a
//! JavaScript object lives in one thread, so a generator is never shared between
//! `worker_threads` (each must be given its own node — see the README). That is why `Snowflake`
//! wraps the core's `ThreadSnowflake`, whose `next_id` needs no compare-and-swap, held by `Rc`.
//! The per-ID methods of `Snowflake` are hand-registered callbacks (see [`crate::fast`]).

use std::ffi::c_void;
use std::ptr;
use std::rc::Rc;

use idmint::{AtomicSnowflake as CoreAtomicSnowflake, Config, ThreadSnowflake as CoreSnowflake};
use idmint_js::convert::{batch_arg, u64_arg};
use idmint_js::error::range_error;
use idmint_js::options::snowflake_config;
use idmint_js::values;
use napi::bindgen_prelude::{JavaScriptClassExt, Object, This, Unknown};
use napi::{sys, Env, JsValue};
use napi_derive::napi;

use crate::convert::{napi_members, unknown, Js, OrThrow};
use crate::fast;

/// A `BigUint64Array` of `n` slots filled by `fill`, which returns how many it wrote (the
/// array's length): IDs are written straight into the array's memory.
pub(crate) fn biguint64_array<'e>(
    env: &'e Env,
    n: usize,
    fill: impl FnOnce(&mut [u64]) -> napi::Result<usize>,
) -> napi::Result<Unknown<'e>> {
    let (raw, mut data, mut buffer, mut array) = (
        env.raw(),
        ptr::null_mut::<c_void>(),
        ptr::null_mut(),
        ptr::null_mut(),
    );
    let h = Js(env);
    // SAFETY: valid out pointers; the size cannot overflow (n <= MAX_BATCH, 2^24).
    if unsafe { sys::napi_create_arraybuffer(raw, n * 8, &mut data, &mut buffer) }
        != sys::Status::napi_ok
    {
        let mut pending = ptr::null_mut();
        // SAFETY: clears the engine's own allocation error, if any, to throw ours instead.
        unsafe { sys::napi_get_and_clear_last_exception(raw, &mut pending) };
        return Err(range_error(
            &h,
            &format!("cannot allocate an array of {n} IDs"),
        ));
    }
    let usable = n > 0 && !data.is_null();
    let written = if usable && data.cast::<u64>().is_aligned() {
        // SAFETY: the buffer holds n * 8 aligned bytes that nothing else refers to yet.
        fill(unsafe { std::slice::from_raw_parts_mut(data.cast::<u64>(), n) })?
    } else {
        let mut v = vec![0u64; n];
        let k = fill(&mut v)?;
        if usable {
            // SAFETY: the buffer holds n * 8 bytes; `v` as many.
            unsafe { ptr::copy_nonoverlapping(v.as_ptr().cast::<u8>(), data.cast::<u8>(), n * 8) };
        }
        k
    };
    // SAFETY: `buffer` holds at least `written` (<= n) u64s from offset 0.
    let st = unsafe {
        sys::napi_create_typedarray(
            raw,
            sys::TypedarrayType::biguint64_array,
            written.min(n),
            buffer,
            0,
            &mut array,
        )
    };
    if st != sys::Status::napi_ok {
        return Err(range_error(
            &h,
            &format!("cannot create an array of {n} IDs"),
        ));
    }
    unknown(env, Ok(array))
}

#[napi]
pub struct Snowflake {
    /// Shared with the instance's own per-ID functions (see [`crate::fast`]).
    inner: Rc<CoreSnowflake>,
}

impl AsRef<CoreSnowflake> for Snowflake {
    fn as_ref(&self) -> &CoreSnowflake {
        &self.inner
    }
}

/// Installs the per-ID methods of `Snowflake` once the classes are registered, and the hook
/// that finishes releases when the environment shuts down.
#[napi(module_exports)]
pub fn install(env: Env, exports: Object<'_>) -> napi::Result<()> {
    // The light addon tells coord's registry what a store URL it lacks needs installed.
    #[cfg(not(feature = "stores"))]
    idmint_coord::scheme::set_install_hint("npm install idmint-stores");
    crate::release::watch_teardown(&env)?;
    fast::install::<Snowflake>(&env, exports.raw(), c"Snowflake")
}

impl Snowflake {
    /// A new JavaScript `Snowflake` for `cfg`, with its per-ID functions (for factories, which
    /// do not run the constructor).
    pub(crate) fn instance(env: &Env, cfg: Config) -> napi::Result<Unknown<'_>> {
        let inner = Rc::new(CoreSnowflake::new(cfg).or_throw(&Js(env))?);
        let obj = Snowflake {
            inner: Rc::clone(&inner),
        }
        .into_instance(env)?;
        fast::adopt(env, obj.value, &inner)?;
        unknown(env, Ok(obj.value))
    }
}

#[napi]
impl Snowflake {
    #[napi(constructor, catch_unwind)]
    pub fn new(env: &Env, this: This<'_>, options: Option<Unknown<'_>>) -> napi::Result<Self> {
        let h = Js(env);
        let cfg = snowflake_config(&h, options.map(|o| o.raw()).as_ref())?;
        let inner = Rc::new(CoreSnowflake::new(cfg).or_throw(&h)?);
        fast::adopt(env, this.object.raw(), &inner)?;
        Ok(Snowflake { inner })
    }

    #[napi(catch_unwind)]
    pub fn from_config<'e>(env: &'e Env, config: Unknown<'_>) -> napi::Result<Unknown<'e>> {
        Snowflake::instance(env, values::named_snowflake(&Js(env), &config.raw())?)
    }

    #[napi(catch_unwind)]
    pub fn next_ids<'e>(&self, env: &'e Env, n: Unknown<'_>) -> napi::Result<Unknown<'e>> {
        let h = Js(env);
        let n = batch_arg(&h, &n.raw())?;
        biguint64_array(env, n, |out| {
            self.inner.next_ids(out).or_throw(&h).map(|()| out.len())
        })
    }

    #[napi(catch_unwind)]
    pub fn reserve<'e>(&self, env: &'e Env, max: Unknown<'_>) -> napi::Result<Unknown<'e>> {
        let h = Js(env);
        let run = self
            .inner
            .reserve(u64_arg(&h, &max.raw(), "max")?)
            .or_throw(&h)?;
        unknown(env, values::run(&h, run))
    }
}

#[napi]
pub struct AtomicSnowflake {
    inner: CoreAtomicSnowflake,
}

#[napi]
impl AtomicSnowflake {
    #[napi(constructor, catch_unwind)]
    pub fn new(env: &Env, options: Option<Unknown<'_>>) -> napi::Result<Self> {
        let h = Js(env);
        let cfg = snowflake_config(&h, options.map(|o| o.raw()).as_ref())?;
        Ok(AtomicSnowflake {
            inner: CoreAtomicSnowflake::new(cfg).or_throw(&h)?,
        })
    }

    #[napi(factory, catch_unwind)]
    pub fn from_config(env: &Env, config: Unknown<'_>) -> napi::Result<Self> {
        let h = Js(env);
        let cfg = values::named_snowflake(&h, &config.raw())?;
        Ok(AtomicSnowflake {
            inner: CoreAtomicSnowflake::new(cfg).or_throw(&h)?,
        })
    }

    #[napi(catch_unwind)]
    pub fn reserve_at<'e>(
        &self,
        env: &'e Env,
        now_ms: Unknown<'_>,
        max: Unknown<'_>,
    ) -> napi::Result<Unknown<'e>> {
        let h = Js(env);
        let (now, max) = (
            u64_arg(&h, &now_ms.raw(), "nowMs")?,
            u64_arg(&h, &max.raw(), "max")?,
        );
        unknown(
            env,
            values::run(&h, self.inner.reserve_at(now, max).or_throw(&h)?),
        )
    }

    #[napi(catch_unwind)]
    pub fn next_ids_at<'e>(
        &self,
        env: &'e Env,
        now_ms: Unknown<'_>,
        n: Unknown<'_>,
    ) -> napi::Result<Unknown<'e>> {
        let h = Js(env);
        let (now, n) = (
            u64_arg(&h, &now_ms.raw(), "nowMs")?,
            batch_arg(&h, &n.raw())?,
        );
        biguint64_array(env, n, |out| self.inner.next_ids_at(now, out).or_throw(&h))
    }
}

// The getters and methods both classes share are listed once, for both packages, in bindings-js.
idmint_js::snowflake_api!(napi_members, Snowflake => Snowflake);
idmint_js::snowflake_api!(napi_members, AtomicSnowflake => AtomicSnowflake);
