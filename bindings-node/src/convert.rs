//! The Node-API side of the shared conversions: [`Js`] implements `idmint_js::Host` on raw napi
//! values, so every argument rule, option object and error mapping comes from the shared crate
//! (`bindings-js`). Arguments arrive as `Unknown` so that the binding, not napi-rs, decides
//! what a wrong argument throws.

use std::ffi::{c_int, c_void};
use std::ptr;

use idmint::Layout as CoreLayout;
use idmint_js::{Class, Host, JsType, Out};
use napi::bindgen_prelude::{TypeTag, Unknown};
use napi::{sys, Env};
use napi_derive::napi;

use crate::error::{pending, set_props, string, throw, value};

pub(crate) use idmint_js::error::OrThrow;

/// A `Date` for `ms` since the Unix epoch.
pub(crate) fn date(env: &Env, ms: u64) -> napi::Result<napi::JsDate<'_>> {
    env.create_date(idmint_js::values::date_ms(ms))
}

/// A UUID as JavaScript sees it: its lower-case hyphenated text.
pub(crate) fn js_uuid(u: &idmint::formats::uuid::Uuid) -> String {
    u.hyphenated().to_string()
}

/// The `Layout` class (its methods are in [`crate::layout`]): declared here, where layout
/// arguments are unwrapped, so that neither module needs the other's.
#[napi]
pub struct Layout {
    pub(crate) inner: CoreLayout,
}

/// Declares a member list of `idmint_js::api` (the class's members, listed once for both
/// packages) as `#[napi]` methods of `$class`, one `impl` block
/// each: arguments arrive as `Unknown`; `value` returns as `Unknown`, `date` as a `Date`, `name`
/// and `names` as strings, `layout` as a `Layout`.
macro_rules! napi_members {
    ($js_class:ident => $class:ident ($h:ident, $l:ident) $(
        $(#[$attr:ident])* $js:literal $rs:ident ($($a:ident),*) -> $ret:tt
        $(= $e:expr;)? $({ $($body:tt)* })?
    )*) => {$(
        #[napi_derive::napi]
        impl $class {
            #[napi($($attr,)* js_name = $js, catch_unwind)]
            pub fn $rs<'e>(&'e self, env: &'e napi::Env, $($a: napi::bindgen_prelude::Unknown<'_>),*)
                -> napi::Result<crate::convert::napi_members!(@type 'e $ret)>
            {
                #[allow(unused_imports)]
                use {idmint_js::api::prelude::*, napi::JsValue as _};
                let ($h, $l) = (&crate::convert::Js(env), &self.inner);
                let _ = ($h, $l);
                $(let $a = &$a.raw();)*
                let r: napi::Result<_> = $(Ok($e))? $({ $($body)* })?;
                crate::convert::napi_members!(@return $ret env r)
            }
        }
    )*};
    (@type $e:lifetime value) => { napi::bindgen_prelude::Unknown<$e> };
    (@type $e:lifetime date) => { napi::JsDate<$e> };
    (@type $e:lifetime name) => { Option<&$e str> };
    (@type $e:lifetime names) => { Vec<&$e str> };
    (@type $e:lifetime layout) => { crate::convert::Layout };
    (@type $e:lifetime uuid) => { String };
    (@type $e:lifetime $ret:tt) => { $ret };
    (@return value $env:ident $r:ident) => { crate::convert::unknown($env, $r) };
    (@return date $env:ident $r:ident) => { crate::convert::date($env, $r?) };
    (@return names $env:ident $r:ident) => { $r.map(|names| names.collect()) };
    (@return layout $env:ident $r:ident) => { $r.map(|inner| crate::convert::Layout { inner }) };
    (@return uuid $env:ident $r:ident) => { $r.map(|u| crate::convert::js_uuid(&u)) };
    (@return $ret:tt $env:ident $r:ident) => { $r };
}

pub(crate) use napi_members;

/// Declares the function list of `idmint_js::functions_api!` as `#[napi]` functions: arguments
/// arrive as `Unknown` (a missing one as `undefined`), results return as in [`napi_members!`].
macro_rules! napi_functions {
    (($h:ident) $($js:literal $rs:ident ($($a:ident),*) -> $ret:tt { $($body:tt)* })*) => {$(
        #[napi_derive::napi(js_name = $js, catch_unwind)]
        #[allow(clippy::needless_lifetimes)]
        pub fn $rs<'e>(env: &'e napi::Env, $($a: napi::bindgen_prelude::Unknown<'_>),*)
            -> napi::Result<crate::convert::napi_members!(@type 'e $ret)>
        {
            #[allow(unused_imports)]
            use {idmint_js::api::prelude::*, napi::JsValue as _};
            let $h = &crate::convert::Js(env);
            $(let $a = &$a.raw();)*
            let r: napi::Result<_> = { $($body)* };
            crate::convert::napi_members!(@return $ret env r)
        }
    )*};
}

pub(crate) use napi_functions;

/// The Node-API host of the shared conversions, for one call's environment.
#[derive(Clone, Copy)]
pub(crate) struct Js<'e>(pub &'e Env);

/// A raw value as napi-rs's `Unknown` (to return it).
pub(crate) fn unknown<'e>(
    env: &'e Env,
    v: napi::Result<sys::napi_value>,
) -> napi::Result<Unknown<'e>> {
    // SAFETY: `v` is a value of this env.
    v.map(|v| unsafe { Unknown::from_raw_unchecked(env.raw(), v) })
}

impl Js<'_> {
    fn raw(&self) -> sys::napi_env {
        self.0.raw()
    }

    fn ok(&self, st: sys::napi_status) -> napi::Result<()> {
        match st {
            sys::Status::napi_ok => Ok(()),
            sys::Status::napi_pending_exception => Err(pending()),
            _ => Err(idmint_js::error::type_error(
                self,
                "unexpected value (the JavaScript engine refused to read it)",
            )),
        }
    }

    fn made(&self, v: Option<sys::napi_value>) -> napi::Result<sys::napi_value> {
        v.ok_or_else(|| napi::Error::from_reason("idmint: cannot create a value"))
    }

    /// `f` of the Rust value napi-rs wrapped in a JavaScript object of class `T`, or `None` for
    /// any other value (checked by type tag, so a look-alike object is never unwrapped).
    pub(crate) fn unwrap<T: TypeTag, R>(
        &self,
        v: sys::napi_value,
        f: impl FnOnce(&T) -> R,
    ) -> Option<R> {
        let tag = <T as TypeTag>::type_tag();
        let (mut is_t, mut wrapped) = (false, ptr::null_mut::<c_void>());
        // SAFETY: valid pointers; a non-object makes the call fail, not misbehave.
        if unsafe { sys::napi_check_object_type_tag(self.raw(), v, &tag, &mut is_t) }
            != sys::Status::napi_ok
            || !is_t
        {
            return None;
        }
        // SAFETY: the type tag says napi-rs wrapped a `T` in this object.
        if unsafe { sys::napi_unwrap(self.raw(), v, &mut wrapped) } != sys::Status::napi_ok
            || wrapped.is_null()
        {
            return None;
        }
        // SAFETY: `wrapped` points at the live `T` the object owns (kept alive by the caller's
        // argument); the shared borrow lasts only for `f`, during which no JavaScript runs.
        Some(f(unsafe { &*wrapped.cast::<T>() }))
    }
}

impl Host for Js<'_> {
    type Value = sys::napi_value;
    type Error = napi::Error;
    const NODE_HINT: &'static str = " (in Node.js: new Snowflake({ node: N }); new LeasedSnowflake('local') leases a node from this host's lock directory, new LeasedSnowflake('redis://...') or new LeasedSnowflake('postgres://...') from a store shared by hosts; new LeasedSnowflake('random') takes a random node)";

    fn type_of(&self, v: &sys::napi_value) -> JsType {
        let mut t = 0;
        // SAFETY: `v` is a value of this env; `t` a valid out pointer.
        unsafe { sys::napi_typeof(self.raw(), *v, &mut t) };
        match t {
            sys::ValueType::napi_null => JsType::Null,
            sys::ValueType::napi_boolean => JsType::Boolean,
            sys::ValueType::napi_number => JsType::Number,
            sys::ValueType::napi_bigint => JsType::BigInt,
            sys::ValueType::napi_string => JsType::String,
            sys::ValueType::napi_symbol => JsType::Symbol,
            sys::ValueType::napi_function => JsType::Function,
            sys::ValueType::napi_object | sys::ValueType::napi_external => JsType::Object,
            _ => JsType::Undefined,
        }
    }

    fn number(&self, v: &sys::napi_value) -> f64 {
        let mut d = f64::NAN;
        // SAFETY: `v` is a number of this env; `d` a valid out pointer.
        unsafe { sys::napi_get_value_double(self.raw(), *v, &mut d) };
        d
    }

    fn number_text(&self, d: f64) -> String {
        match d {
            _ if d.is_nan() => "NaN".into(),
            f64::INFINITY => "Infinity".into(),
            f64::NEG_INFINITY => "-Infinity".into(),
            _ => format!("{d}"),
        }
    }

    fn bigint(&self, v: &sys::napi_value) -> napi::Result<(bool, Option<u128>)> {
        let (mut sign, mut count, mut words) = (0 as c_int, 2usize, [0u64; 2]);
        // SAFETY: `words` has room for `count` words; napi sets `count` to the number needed.
        self.ok(unsafe {
            sys::napi_get_value_bigint_words(
                self.raw(),
                *v,
                &mut sign,
                &mut count,
                words.as_mut_ptr(),
            )
        })?;
        let [lo, hi] = words;
        let n = (u128::from(hi) << 64) | u128::from(lo);
        Ok((sign != 0 && n != 0, (count <= 2).then_some(n)))
    }

    fn string(&self, v: &sys::napi_value) -> napi::Result<String> {
        let (mut len, mut written) = (0usize, 0usize);
        // SAFETY: a null buffer asks for the length in bytes.
        self.ok(unsafe {
            sys::napi_get_value_string_utf8(self.raw(), *v, ptr::null_mut(), 0, &mut len)
        })?;
        let mut buf = vec![0u8; len + 1];
        // SAFETY: `buf` has room for `len` bytes and the NUL napi writes.
        self.ok(unsafe {
            sys::napi_get_value_string_utf8(
                self.raw(),
                *v,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut written,
            )
        })?;
        buf.truncate(written);
        // napi writes UTF-8 (lone surrogates become U+FFFD).
        Ok(String::from_utf8(buf).unwrap_or_default())
    }

    fn bytes(&self, v: &sys::napi_value) -> Option<Vec<u8>> {
        let (mut is, mut ty, mut len) = (false, sys::TypedarrayType::int8_array, 0usize);
        let (mut data, mut buffer, mut offset) =
            (ptr::null_mut::<c_void>(), ptr::null_mut(), 0usize);
        // SAFETY: valid out pointers.
        if unsafe { sys::napi_is_typedarray(self.raw(), *v, &mut is) } != sys::Status::napi_ok
            || !is
        {
            return None;
        }
        // SAFETY: `v` is a typed array; every out pointer is valid.
        let st = unsafe {
            sys::napi_get_typedarray_info(
                self.raw(),
                *v,
                &mut ty,
                &mut len,
                &mut data,
                &mut buffer,
                &mut offset,
            )
        };
        if st != sys::Status::napi_ok || ty != sys::TypedarrayType::uint8_array {
            return None;
        }
        if data.is_null() || len == 0 {
            return Some(Vec::new());
        }
        // SAFETY: a Uint8Array's `data` points at `len` bytes, alive while `v` is reachable.
        Some(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) }.to_vec())
    }

    fn own_keys(&self, obj: &sys::napi_value) -> napi::Result<Vec<String>> {
        let (mut names, mut len) = (ptr::null_mut(), 0u32);
        // SAFETY: `obj` is an object; valid out pointers.
        self.ok(unsafe {
            sys::napi_get_all_property_names(
                self.raw(),
                *obj,
                sys::KeyCollectionMode::own_only,
                sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
                sys::KeyConversion::numbers_to_strings,
                &mut names,
            )
        })?;
        // SAFETY: `names` is an array.
        self.ok(unsafe { sys::napi_get_array_length(self.raw(), names, &mut len) })?;
        let mut keys = Vec::with_capacity(len as usize);
        for i in 0..len {
            let mut k = ptr::null_mut();
            // SAFETY: `i` is within the array.
            self.ok(unsafe { sys::napi_get_element(self.raw(), names, i, &mut k) })?;
            keys.push(self.string(&k)?);
        }
        Ok(keys)
    }

    fn get(&self, obj: &sys::napi_value, key: &str) -> napi::Result<sys::napi_value> {
        let (k, mut out) = (self.made(string(self.raw(), key))?, ptr::null_mut());
        // SAFETY: `obj` is an object, `k` a string of this env, `out` a valid out pointer.
        self.ok(unsafe { sys::napi_get_property(self.raw(), *obj, k, &mut out) })?;
        Ok(out)
    }

    fn call1(&self, f: &sys::napi_value, arg: sys::napi_value) -> napi::Result<sys::napi_value> {
        let (mut undefined, mut result) = (ptr::null_mut(), ptr::null_mut());
        // SAFETY: valid out pointer.
        self.ok(unsafe { sys::napi_get_undefined(self.raw(), &mut undefined) })?;
        // SAFETY: `f` is a function (checked by the caller), `arg` one valid argument.
        self.ok(unsafe {
            sys::napi_call_function(self.raw(), undefined, *f, 1, &arg, &mut result)
        })?;
        Ok(result)
    }

    fn layout(&self, v: &sys::napi_value) -> Option<CoreLayout> {
        self.unwrap::<Layout, _>(*v, |l| l.inner)
    }

    fn throw(
        &self,
        class: Class,
        code: &str,
        message: &str,
        props: &[(&str, Out<'_, sys::napi_value>)],
    ) -> napi::Error {
        throw(self.raw(), class, code, message, props)
    }

    fn value(&self, v: Out<'_, sys::napi_value>) -> napi::Result<sys::napi_value> {
        self.made(value(self.raw(), &v))
    }

    fn object(&self, props: &[(&str, Out<'_, sys::napi_value>)]) -> napi::Result<sys::napi_value> {
        let mut obj = ptr::null_mut();
        // SAFETY: plain object constructor with a valid out pointer.
        self.ok(unsafe { sys::napi_create_object(self.raw(), &mut obj) })?;
        set_props(self.raw(), obj, props)
            .ok_or_else(|| napi::Error::from_reason("idmint: cannot set a property"))?;
        Ok(obj)
    }

    fn array(&self, items: Vec<sys::napi_value>) -> napi::Result<sys::napi_value> {
        let mut arr = ptr::null_mut();
        // SAFETY: plain array constructor with a valid out pointer.
        self.ok(unsafe { sys::napi_create_array_with_length(self.raw(), items.len(), &mut arr) })?;
        for (i, v) in (0u32..).zip(items) {
            // SAFETY: `arr` is an array, `v` a value of this env.
            self.ok(unsafe { sys::napi_set_element(self.raw(), arr, i, v) })?;
        }
        Ok(arr)
    }
}
