//! Hand-registered fast paths for the per-ID methods of `Snowflake` (`nextId`, `nextIdString`,
//! `nextIdNumber`, `tryNextId`) and the benchmark floor `_benchFloor`.
//!
//! A method that napi-rs generates for `&self` costs about 400 ns per call on this machine
//! (ten times the ID itself): napi-rs unwraps `this` (a private-property lookup in Node), checks
//! its type tag (another), and records a borrow guard for the call. So these four methods, which
//! take no arguments and never call back into JavaScript, are plain Node-API callbacks instead:
//!
//! * **Own functions** (the hot path): [`adopt`] gives each new `Snowflake` object its own
//!   non-enumerable `nextId`, `nextIdString`, `nextIdNumber` and `tryNextId` functions whose
//!   callback data is a counted reference (`Arc`) to the core generator, dropped by the
//!   function's finalizer. A call reads that pointer and nothing else — no unwrap, no type
//!   check — so it costs about what an empty Node-API call does. A detached `const f =
//!   gen.nextId; f()` keeps working (and keeps the generator alive). Instances of a JavaScript
//!   subclass are not adopted, so a subclass's overrides are never shadowed.
//! * **Prototype functions** (any other receiver: subclass instances, `call` with another
//!   `this`): read `this`, check its napi-rs type tag (a non-`Snowflake` throws a `TypeError`),
//!   unwrap it and call the core.
//!
//! Both run inside `catch_unwind`, so a panic becomes an exception. `Snowflake` has no
//! `&mut self` method (its state is atomic), so a shared reference never aliases a mutable one.
//! The `#[napi]` declarations in [`crate::generator`] stay: they generate `index.d.ts`, and
//! [`install`] replaces them on the prototype when the module loads.

use std::cell::Cell;
use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::Arc;

use idmint::Snowflake as CoreSnowflake;
use napi::bindgen_prelude::{Object, TypeTag};
use napi::{sys, Env, JsValue, Status};
use napi_derive::napi;

use crate::errors::{self, Class, OrThrow};
use crate::generator::{not_js_safe, Snowflake};

type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

/// What a fast path does once it has the generator.
type Op = fn(&Env, &CoreSnowflake) -> napi::Result<sys::napi_value>;

thread_local! {
    /// `Snowflake.prototype` of the environment loaded on this thread (Node runs one
    /// environment per thread: the main thread and each worker), to recognise exact instances.
    static PROTOTYPE: Cell<Option<(sys::napi_env, sys::napi_ref)>> = const { Cell::new(None) };
}

/// Runs `f`, turning an error or a panic into a thrown exception (and a null return).
fn guarded(
    env: sys::napi_env,
    f: impl FnOnce(&Env) -> napi::Result<sys::napi_value>,
) -> sys::napi_value {
    let e = Env::from_raw(env);
    match catch_unwind(AssertUnwindSafe(|| f(&e))) {
        Ok(Ok(v)) => v,
        Ok(Err(err)) => {
            if err.status != Status::PendingException {
                errors::throw(&e, Class::Error, "ERR_INTERNAL", &err.reason, &[]);
            }
            ptr::null_mut()
        }
        Err(_) => {
            errors::throw(
                &e,
                Class::Error,
                "ERR_INTERNAL",
                "idmint: internal error (a Rust panic was caught); please report it",
                &[],
            );
            ptr::null_mut()
        }
    }
}

fn failed(what: &str) -> napi::Error {
    napi::Error::new(Status::GenericFailure, format!("idmint: cannot {what}"))
}

fn ok(st: sys::napi_status, what: &str) -> napi::Result<()> {
    if st == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(failed(what))
    }
}

// ---------------------------------------------------------------------------------------------
// The operations
// ---------------------------------------------------------------------------------------------

fn bigint(env: &Env, v: u64) -> napi::Result<sys::napi_value> {
    let mut out = ptr::null_mut();
    // SAFETY: plain value constructor with a valid out pointer.
    ok(
        unsafe { sys::napi_create_bigint_uint64(env.raw(), v, &mut out) },
        "create a bigint",
    )?;
    Ok(out)
}

fn op_next_id(env: &Env, g: &CoreSnowflake) -> napi::Result<sys::napi_value> {
    bigint(env, g.next_id().or_throw(env)?)
}

fn op_try_next_id(env: &Env, g: &CoreSnowflake) -> napi::Result<sys::napi_value> {
    bigint(env, g.try_next_id().or_throw(env)?)
}

fn op_next_id_string(env: &Env, g: &CoreSnowflake) -> napi::Result<sys::napi_value> {
    let id = g.next_id().or_throw(env)?;
    let text = idmint::codec::Codec::Decimal.format(id);
    let s = text.as_str();
    let mut out = ptr::null_mut();
    // SAFETY: `s` is ASCII (so Latin-1) of the given length; `out` is an out pointer.
    ok(
        unsafe {
            sys::napi_create_string_latin1(
                env.raw(),
                s.as_ptr().cast::<c_char>(),
                s.len() as _,
                &mut out,
            )
        },
        "create a string",
    )?;
    Ok(out)
}

fn op_next_id_number(env: &Env, g: &CoreSnowflake) -> napi::Result<sys::napi_value> {
    let layout = g.config().layout();
    if !layout.is_js_safe() {
        return Err(not_js_safe(env, layout));
    }
    let id = g.next_id().or_throw(env)?;
    let mut out = ptr::null_mut();
    // SAFETY: plain value constructor; `id` < 2^53 on a JS-safe layout, so it is exact.
    ok(
        unsafe { sys::napi_create_double(env.raw(), id as f64, &mut out) },
        "create a number",
    )?;
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Own functions: the generator comes from the callback data
// ---------------------------------------------------------------------------------------------

/// # Safety
/// `env` and `info` are the live arguments of a Node-API callback created by [`define_own`].
unsafe fn own(env: sys::napi_env, info: sys::napi_callback_info, op: Op) -> sys::napi_value {
    guarded(env, |e| {
        let mut data: *mut c_void = ptr::null_mut();
        // SAFETY: only the callback data is requested (argc, argv and this may be null).
        let st = unsafe {
            sys::napi_get_cb_info(
                env,
                info,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                &mut data,
            )
        };
        ok(st, "read the call")?;
        if data.is_null() {
            return Err(failed("find the generator"));
        }
        // SAFETY: `data` is the `Arc<CoreSnowflake>` pointer `define_own` stored with this
        // function; the function's finalizer releases it only once the function itself is
        // unreachable, which it is not while being called.
        let g = unsafe { &*data.cast::<CoreSnowflake>() };
        op(e, g)
    })
}

unsafe extern "C" fn own_next_id(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: called by Node-API with its own arguments.
    unsafe { own(env, info, op_next_id) }
}

unsafe extern "C" fn own_next_id_string(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: as above.
    unsafe { own(env, info, op_next_id_string) }
}

unsafe extern "C" fn own_next_id_number(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: as above.
    unsafe { own(env, info, op_next_id_number) }
}

unsafe extern "C" fn own_try_next_id(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: as above.
    unsafe { own(env, info, op_try_next_id) }
}

/// Releases the `Arc` a function's callback data holds.
unsafe extern "C" fn release(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    if !data.is_null() {
        // SAFETY: `data` came from `Arc::into_raw` in `define_own`, and each function's
        // finalizer runs once.
        drop(unsafe { Arc::from_raw(data.cast_const().cast::<CoreSnowflake>()) });
    }
}

/// Defines `obj[name]` as a non-enumerable function calling `cb` on `gen`.
fn define_own(
    env: &Env,
    obj: sys::napi_value,
    name: &CStr,
    cb: Callback,
    gen: &Arc<CoreSnowflake>,
) -> napi::Result<()> {
    let raw = env.raw();
    let bytes = name.to_bytes();
    let data = Arc::into_raw(Arc::clone(gen)).cast_mut().cast::<c_void>();
    let mut f = ptr::null_mut();
    // SAFETY: `name` is valid for its length; `cb` has the callback signature; `data` outlives
    // the function (released by its finalizer below).
    let st = unsafe {
        sys::napi_create_function(
            raw,
            bytes.as_ptr().cast::<c_char>(),
            bytes.len() as _,
            Some(cb),
            data,
            &mut f,
        )
    };
    if st != sys::Status::napi_ok {
        // SAFETY: the function was not created, so nothing else owns `data`.
        unsafe { release(raw, data, ptr::null_mut()) };
        return Err(failed("create a method"));
    }
    // SAFETY: `f` is the function just created; `release` frees `data` when it is collected.
    let st = unsafe {
        sys::napi_add_finalizer(
            raw,
            f,
            data,
            Some(release),
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    if st != sys::Status::napi_ok {
        // SAFETY: no finalizer owns `data`; the function keeps only a dangling pointer it can
        // never be called with, since it is not attached anywhere.
        unsafe { release(raw, data, ptr::null_mut()) };
        return Err(failed("attach a method"));
    }
    let prop = sys::napi_property_descriptor {
        utf8name: name.as_ptr(),
        name: ptr::null_mut(),
        method: None,
        getter: None,
        setter: None,
        value: f,
        attributes: sys::PropertyAttributes::writable | sys::PropertyAttributes::configurable,
        data: ptr::null_mut(),
    };
    // SAFETY: `obj` is an object of this env; `prop` is a valid descriptor.
    ok(
        unsafe { sys::napi_define_properties(raw, obj, 1, &prop) },
        "define a method",
    )
}

/// Whether `obj`'s prototype is `Snowflake.prototype` itself (not a JavaScript subclass's).
fn is_exact_instance(env: &Env, obj: sys::napi_value) -> napi::Result<bool> {
    let raw = env.raw();
    let Some((proto_env, proto_ref)) = PROTOTYPE.with(Cell::get) else {
        return Ok(false);
    };
    if proto_env != raw {
        return Ok(false);
    }
    let mut proto = ptr::null_mut();
    // SAFETY: `proto_ref` is a strong reference created in this env by `install`.
    ok(
        unsafe { sys::napi_get_reference_value(raw, proto_ref, &mut proto) },
        "read the prototype",
    )?;
    let mut actual = ptr::null_mut();
    // SAFETY: `obj` is an object of this env.
    ok(
        unsafe { sys::napi_get_prototype(raw, obj, &mut actual) },
        "read a prototype",
    )?;
    let mut same = false;
    // SAFETY: both are values of this env.
    ok(
        unsafe { sys::napi_strict_equals(raw, proto, actual, &mut same) },
        "compare prototypes",
    )?;
    Ok(same)
}

/// Gives a new `Snowflake` object its own fast-path functions (see the module docs).
pub(crate) fn adopt(env: &Env, obj: sys::napi_value, gen: &Arc<CoreSnowflake>) -> napi::Result<()> {
    if !is_exact_instance(env, obj)? {
        return Ok(());
    }
    define_own(env, obj, c"nextId", own_next_id, gen)?;
    define_own(env, obj, c"nextIdString", own_next_id_string, gen)?;
    define_own(env, obj, c"nextIdNumber", own_next_id_number, gen)?;
    define_own(env, obj, c"tryNextId", own_try_next_id, gen)
}

// ---------------------------------------------------------------------------------------------
// Prototype functions: the generator comes from `this`
// ---------------------------------------------------------------------------------------------

/// The `Snowflake` that `this` wraps, or a thrown `TypeError`.
///
/// # Safety
/// `env` and `info` are the live arguments of a Node-API callback.
unsafe fn this_snowflake<'a>(
    env: &Env,
    info: sys::napi_callback_info,
) -> napi::Result<&'a Snowflake> {
    let raw = env.raw();
    let mut this = ptr::null_mut();
    let mut argc = 0usize;
    // SAFETY: no argument slots are requested; `this` is an out pointer.
    let st = unsafe {
        sys::napi_get_cb_info(
            raw,
            info,
            &mut argc,
            ptr::null_mut(),
            &mut this,
            ptr::null_mut(),
        )
    };
    let wrong = || {
        errors::type_error(
            env,
            "Snowflake method called on an object that is not a Snowflake",
        )
    };
    if st != sys::Status::napi_ok || this.is_null() {
        return Err(wrong());
    }
    let tag = <Snowflake as TypeTag>::type_tag();
    let mut is_snowflake = false;
    // SAFETY: `this` is a value of this env; a non-object makes the call fail, not misbehave.
    let st = unsafe { sys::napi_check_object_type_tag(raw, this, &tag, &mut is_snowflake) };
    if st != sys::Status::napi_ok || !is_snowflake {
        return Err(wrong());
    }
    let mut wrapped: *mut c_void = ptr::null_mut();
    // SAFETY: the type tag says napi-rs wrapped a `Snowflake` (a `Box<Snowflake>`) in `this`.
    let st = unsafe { sys::napi_unwrap(raw, this, &mut wrapped) };
    if st != sys::Status::napi_ok || wrapped.is_null() {
        return Err(wrong());
    }
    // SAFETY: `wrapped` points at the live `Snowflake` owned by `this`, which the caller's
    // frame keeps alive during the call; `Snowflake` has only `&self` methods.
    Ok(unsafe { &*wrapped.cast::<Snowflake>() })
}

/// # Safety
/// `env` and `info` are the live arguments of a Node-API callback.
unsafe fn proto(env: sys::napi_env, info: sys::napi_callback_info, op: Op) -> sys::napi_value {
    guarded(env, |e| {
        // SAFETY: forwarded from the caller.
        let g = unsafe { this_snowflake(e, info) }?;
        op(e, &g.inner)
    })
}

unsafe extern "C" fn proto_next_id(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: called by Node-API with its own arguments.
    unsafe { proto(env, info, op_next_id) }
}

unsafe extern "C" fn proto_next_id_string(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: as above.
    unsafe { proto(env, info, op_next_id_string) }
}

unsafe extern "C" fn proto_next_id_number(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: as above.
    unsafe { proto(env, info, op_next_id_number) }
}

unsafe extern "C" fn proto_try_next_id(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: as above.
    unsafe { proto(env, info, op_try_next_id) }
}

/// `_benchFloor()`: the cheapest Node-API call that returns a `bigint` (benchmark only).
unsafe extern "C" fn bench_floor(
    env: sys::napi_env,
    _info: sys::napi_callback_info,
) -> sys::napi_value {
    guarded(env, |e| bigint(e, 0x0123_4567_89ab_cdef))
}

// ---------------------------------------------------------------------------------------------
// Installation
// ---------------------------------------------------------------------------------------------

fn named(obj: sys::napi_value, env: &Env, key: &CStr) -> napi::Result<sys::napi_value> {
    let mut out = ptr::null_mut();
    // SAFETY: `obj` is a value of this env; `key` is NUL-terminated.
    ok(
        unsafe { sys::napi_get_named_property(env.raw(), obj, key.as_ptr(), &mut out) },
        "read an export",
    )?;
    Ok(out)
}

fn set_function(env: &Env, obj: sys::napi_value, name: &CStr, cb: Callback) -> napi::Result<()> {
    let raw = env.raw();
    let bytes = name.to_bytes();
    let mut f = ptr::null_mut();
    // SAFETY: `name` is valid for its length; `cb` has the callback signature.
    let st = unsafe {
        sys::napi_create_function(
            raw,
            bytes.as_ptr().cast::<c_char>(),
            bytes.len() as _,
            Some(cb),
            ptr::null_mut(),
            &mut f,
        )
    };
    ok(st, "create a function")?;
    // SAFETY: napi-rs defines methods and exports writable and configurable.
    ok(
        unsafe { sys::napi_set_named_property(raw, obj, name.as_ptr(), f) },
        "install a function",
    )
}

/// Replaces the napi-rs versions of the fast paths once the classes are registered, and
/// remembers `Snowflake.prototype` for [`adopt`].
#[napi(module_exports)]
pub fn install(env: Env, exports: Object<'_>) -> napi::Result<()> {
    let env = &env;
    let exports = exports.raw();
    let class = named(exports, env, c"Snowflake")?;
    let proto = named(class, env, c"prototype")?;
    set_function(env, proto, c"nextId", proto_next_id)?;
    set_function(env, proto, c"nextIdString", proto_next_id_string)?;
    set_function(env, proto, c"nextIdNumber", proto_next_id_number)?;
    set_function(env, proto, c"tryNextId", proto_try_next_id)?;
    set_function(env, exports, c"_benchFloor", bench_floor)?;
    let mut proto_ref = ptr::null_mut();
    // SAFETY: a strong reference to the prototype, kept for the life of the environment.
    ok(
        unsafe { sys::napi_create_reference(env.raw(), proto, 1, &mut proto_ref) },
        "keep the prototype",
    )?;
    PROTOTYPE.with(|p| p.set(Some((env.raw(), proto_ref))));
    Ok(())
}
