//! Hand-registered Node-API callbacks for the per-ID methods of `Snowflake` (`nextId`,
//! `nextIdString`, `nextIdNumber`, `tryNextId`), `uuid7()`, `ulid()`, `typeid()` and the benchmark
//! floor `_benchFloor`.
//!
//! A method napi-rs generates for `&self` costs about 400 ns per call here (ten times the ID):
//! it unwraps `this` (a private-property lookup), checks its type tag and records a borrow
//! guard; a generated plain function also costs more than the ID. None of these call back into
//! JavaScript (`typeid` reads its one argument only once it is known to be a string), so they
//! are plain callbacks instead. The four per-ID methods take no arguments and come in two kinds:
//!
//! * **Own functions** (the hot path): [`adopt`] gives each new `Snowflake` object its own
//!   non-enumerable functions whose callback data is a counted reference (`Rc`) to the core
//!   generator, dropped by the function's finalizer. A call reads that pointer and nothing
//!   else, so it costs about what an empty Node-API call does; a detached `const f =
//!   gen.nextId; f()` keeps working. Instances of a JavaScript subclass are not adopted, so a
//!   subclass's overrides are never shadowed.
//! * **Prototype functions** (any other receiver): read `this`, check its type tag (a
//!   non-`Snowflake` throws a `TypeError`), unwrap it and call the core.
//!
//! Both run inside `catch_unwind`. The class type `T` is a parameter, so this module knows no
//! class of the binding.

use std::cell::Cell;
use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::rc::Rc;

use idmint::ThreadSnowflake as CoreSnowflake;
use idmint_js::convert::string_arg;
use idmint_js::error::{core, not_js_safe, type_error};
use idmint_js::{Class, Host, Out};
use napi::bindgen_prelude::TypeTag;
use napi::{sys, Env, Status};

use crate::convert::Js;
use crate::error::throw;

type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

/// The per-ID methods, by the index their callbacks are instantiated with.
const METHODS: [&CStr; 4] = [c"nextId", c"nextIdString", c"nextIdNumber", c"tryNextId"];

thread_local! {
    /// `Snowflake.prototype` of the environment loaded on this thread (Node runs one
    /// environment per thread), to recognise exact instances.
    static PROTOTYPE: Cell<Option<(sys::napi_env, sys::napi_ref)>> = const { Cell::new(None) };
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

/// Runs `f`, turning an error or a panic into a thrown exception (and a null return).
fn guarded(
    env: sys::napi_env,
    f: impl FnOnce(&Env) -> napi::Result<sys::napi_value>,
) -> sys::napi_value {
    let e = Env::from_raw(env);
    match catch_unwind(AssertUnwindSafe(|| f(&e))) {
        Ok(Ok(v)) => v,
        Ok(Err(err)) => thrown(env, err),
        Err(_) => panicked(env),
    }
}

/// Throws `err` unless it stands for an exception already thrown; answers null.
#[cold]
#[inline(never)]
fn thrown(env: sys::napi_env, err: napi::Error) -> sys::napi_value {
    if err.status != Status::PendingException {
        throw(env, Class::Error, "ERR_INTERNAL", &err.reason, &[]);
    }
    ptr::null_mut()
}

/// Throws the error for a caught panic; answers null.
#[cold]
#[inline(never)]
fn panicked(env: sys::napi_env) -> sys::napi_value {
    let reason = "idmint: internal error (a Rust panic was caught); please report it";
    throw(env, Class::Error, "ERR_INTERNAL", reason, &[]);
    ptr::null_mut()
}

/// Throws the JavaScript error for a core error; answers null.
#[cold]
#[inline(never)]
fn thrown_core(env: sys::napi_env, err: idmint::Error) -> sys::napi_value {
    let e = Env::from_raw(env);
    thrown(env, core(&Js(&e), err))
}

/// Method `M` of [`METHODS`] on generator `g`: the value, or null with an exception thrown.
/// Every failure leaves through a cold function, so the path of an ID moves no `Result` of
/// an error's size.
#[inline(always)]
fn call<const M: usize>(env: sys::napi_env, g: &CoreSnowflake) -> sys::napi_value {
    if M == 2 {
        let layout = g.config().layout();
        if !layout.is_js_safe() {
            let e = Env::from_raw(env);
            return thrown(env, not_js_safe(&Js(&e), layout));
        }
    }
    let id = match if M == 3 { g.try_next_id() } else { g.next_id() } {
        Ok(id) => id,
        Err(err) => return thrown_core(env, err),
    };
    let mut out = ptr::null_mut();
    let st = match M {
        1 => {
            let text = idmint::codec::Codec::Decimal.format(id);
            let s = text.as_str();
            // SAFETY: `s` is ASCII (so Latin-1) of the given length; `out` an out pointer.
            unsafe {
                sys::napi_create_string_latin1(
                    env,
                    s.as_ptr().cast::<c_char>(),
                    s.len() as _,
                    &mut out,
                )
            }
        }
        // SAFETY: `id` < 2^53 on a JS-safe layout, so exact as a double.
        2 => unsafe { sys::napi_create_double(env, id as f64, &mut out) },
        // SAFETY: plain value constructor with a valid out pointer.
        _ => unsafe { sys::napi_create_bigint_uint64(env, id, &mut out) },
    };
    if st == sys::Status::napi_ok {
        out
    } else {
        thrown(env, failed("create an ID"))
    }
}

/// An own function: the generator is its callback data.
unsafe extern "C" fn own<const M: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    let minted = catch_unwind(AssertUnwindSafe(|| {
        let mut data: *mut c_void = ptr::null_mut();
        // SAFETY: only the callback data is requested.
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
        if st != sys::Status::napi_ok || data.is_null() {
            return thrown(env, failed("find the generator"));
        }
        // SAFETY: `data` is the `Rc<CoreSnowflake>` `define_own` stored with this function; its
        // finalizer releases it only once the function is unreachable, which it is not now.
        call::<M>(env, unsafe { &*data.cast::<CoreSnowflake>() })
    }));
    minted.unwrap_or_else(|_| panicked(env))
}

/// A prototype function: the generator comes from `this`, a `T`.
unsafe extern "C" fn proto<T: TypeTag + AsRef<CoreSnowflake>, const M: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    guarded(env, |e| {
        let (mut this, mut argc) = (ptr::null_mut(), 0usize);
        // SAFETY: no argument slots are requested; `this` is an out pointer.
        let st = unsafe {
            sys::napi_get_cb_info(
                env,
                info,
                &mut argc,
                ptr::null_mut(),
                &mut this,
                ptr::null_mut(),
            )
        };
        let h = Js(e);
        let wrong = || {
            type_error(
                &h,
                "Snowflake method called on an object that is not a Snowflake",
            )
        };
        if st != sys::Status::napi_ok || this.is_null() {
            return Err(wrong());
        }
        h.unwrap::<T, _>(this, |s| Ok(call::<M>(env, s.as_ref())))
            .unwrap_or_else(|| Err(wrong()))
    })
}

/// Releases the `Rc` a function's callback data holds.
unsafe extern "C" fn release(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    if !data.is_null() {
        // SAFETY: `data` came from `Rc::into_raw` in `define_own`; each finalizer runs once.
        drop(unsafe { Rc::from_raw(data.cast_const().cast::<CoreSnowflake>()) });
    }
}

/// A new function `name` calling `cb` with `data`.
fn function(
    env: &Env,
    name: &CStr,
    cb: Callback,
    data: *mut c_void,
) -> napi::Result<sys::napi_value> {
    let (bytes, mut f) = (name.to_bytes(), ptr::null_mut());
    // SAFETY: `name` is valid for its length; `cb` has the callback signature.
    let st = unsafe {
        sys::napi_create_function(
            env.raw(),
            bytes.as_ptr().cast::<c_char>(),
            bytes.len() as _,
            Some(cb),
            data,
            &mut f,
        )
    };
    ok(st, "create a function").map(|()| f)
}

/// Defines `obj[name]` as a non-enumerable function calling `cb` on `gen`.
fn define_own(
    env: &Env,
    obj: sys::napi_value,
    name: &CStr,
    cb: Callback,
    gen: &Rc<CoreSnowflake>,
) -> napi::Result<()> {
    let raw = env.raw();
    let data = Rc::into_raw(Rc::clone(gen)).cast_mut().cast::<c_void>();
    let attached = function(env, name, cb, data).and_then(|f| {
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
        ok(st, "attach a method").map(|()| f)
    });
    let f = match attached {
        Ok(f) => f,
        Err(e) => {
            // SAFETY: no finalizer owns `data` (the function, if any, is attached nowhere).
            unsafe { release(raw, data, ptr::null_mut()) };
            return Err(e);
        }
    };
    let attributes = sys::PropertyAttributes::writable | sys::PropertyAttributes::configurable;
    let prop = sys::napi_property_descriptor {
        utf8name: name.as_ptr(),
        name: ptr::null_mut(),
        method: None,
        getter: None,
        setter: None,
        value: f,
        attributes,
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
    let Some((proto_env, proto_ref)) = PROTOTYPE.with(Cell::get).filter(|(e, _)| *e == raw) else {
        return Ok(false);
    };
    let (mut proto, mut actual, mut same) = (ptr::null_mut(), ptr::null_mut(), false);
    // SAFETY: `proto_ref` is a strong reference created in this env by `install`; `obj` and the
    // prototypes are values of this env.
    unsafe {
        ok(
            sys::napi_get_reference_value(proto_env, proto_ref, &mut proto),
            "read the prototype",
        )?;
        ok(
            sys::napi_get_prototype(raw, obj, &mut actual),
            "read a prototype",
        )?;
        ok(
            sys::napi_strict_equals(raw, proto, actual, &mut same),
            "compare prototypes",
        )?;
    }
    Ok(same)
}

/// Gives a new `Snowflake` object its own per-ID functions (see the module docs).
pub(crate) fn adopt(env: &Env, obj: sys::napi_value, gen: &Rc<CoreSnowflake>) -> napi::Result<()> {
    if !is_exact_instance(env, obj)? {
        return Ok(());
    }
    let callbacks: [Callback; 4] = [own::<0>, own::<1>, own::<2>, own::<3>];
    METHODS
        .iter()
        .zip(callbacks)
        .try_for_each(|(name, cb)| define_own(env, obj, name, cb, gen))
}

/// A UUID's lower-case hyphenated text as a new JavaScript string, spelled into a stack buffer
/// (Latin-1: no UTF-8 validation, no allocation in Rust).
fn uuid_string(env: &Env, u: &idmint::formats::uuid::Uuid) -> napi::Result<sys::napi_value> {
    let mut buf = [0u8; 36];
    ascii_string(env, u.hyphenated().encode_lower(&mut buf).as_bytes())
}

/// The texts of `uuids` back to back, as one new JavaScript string.
pub(crate) fn uuid_texts(
    env: &Env,
    uuids: &[idmint::formats::uuid::Uuid],
) -> napi::Result<sys::napi_value> {
    let mut buf = vec![0u8; uuids.len() * 36];
    for (u, chunk) in uuids.iter().zip(buf.chunks_exact_mut(36)) {
        u.hyphenated().encode_lower(chunk);
    }
    ascii_string(env, &buf)
}

/// ASCII text (so Latin-1) as a new JavaScript string.
fn ascii_string(env: &Env, s: &[u8]) -> napi::Result<sys::napi_value> {
    let mut out = ptr::null_mut();
    // SAFETY: `s` is ASCII of the given length; `out` an out pointer.
    let st = unsafe {
        sys::napi_create_string_latin1(
            env.raw(),
            s.as_ptr().cast::<c_char>(),
            s.len() as _,
            &mut out,
        )
    };
    ok(st, "create a string").map(|()| out)
}

/// `uuid7()`: the process-wide monotonic v7 (the core's `clocked::uuid7`), as text.
unsafe extern "C" fn uuid7(env: sys::napi_env, _info: sys::napi_callback_info) -> sys::napi_value {
    guarded(env, |e| {
        let u = idmint::named::clocked::uuid7().map_err(|err| core(&Js(e), err))?;
        uuid_string(e, &u)
    })
}

/// `ulid()`: the process-wide monotonic ULID (the core's `clocked::ulid`), as text.
unsafe extern "C" fn ulid(env: sys::napi_env, _info: sys::napi_callback_info) -> sys::napi_value {
    guarded(env, |e| {
        let u = idmint::named::clocked::ulid().map_err(|err| core(&Js(e), err))?;
        ascii_string(e, &u.encode())
    })
}

/// `typeid(prefix)`: a TypeID on the process-wide v7 (the core's `clocked::typeid`), as text.
unsafe extern "C" fn typeid(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    guarded(env, |e| {
        let h = Js(e);
        let (mut argc, mut arg) = (1usize, ptr::null_mut());
        // SAFETY: one argument slot; a missing argument reads as `undefined`.
        let st = unsafe {
            sys::napi_get_cb_info(
                env,
                info,
                &mut argc,
                &mut arg,
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        ok(st, "read the call")?;
        let prefix = string_arg(&h, &arg, "prefix")?;
        let id = idmint::named::clocked::typeid(&prefix).map_err(|err| core(&h, err))?;
        let mut buf = [0u8; idmint::formats::typeid::MAX_LEN];
        let n = id.encode_into(&mut buf).map_err(|err| core(&h, err))?;
        ascii_string(e, buf.get(..n).ok_or_else(|| failed("spell a TypeID"))?)
    })
}

/// `_benchFloor()`: the cheapest Node-API call that returns a `bigint` (benchmark only).
unsafe extern "C" fn bench_floor(
    env: sys::napi_env,
    _info: sys::napi_callback_info,
) -> sys::napi_value {
    guarded(env, |e| Js(e).value(Out::Big(0x0123_4567_89ab_cdef)))
}

fn set(env: &Env, obj: sys::napi_value, name: &CStr, f: sys::napi_value) -> napi::Result<()> {
    // SAFETY: `obj` is an object of this env, `name` NUL-terminated.
    ok(
        unsafe { sys::napi_set_named_property(env.raw(), obj, name.as_ptr(), f) },
        "install a function",
    )
}

/// Puts the per-ID methods on `class.prototype` (a `T`'s), `uuid7`, `ulid`, `typeid` and
/// `_benchFloor` on `exports`, and remembers the prototype for [`adopt`].
pub(crate) fn install<T: TypeTag + AsRef<CoreSnowflake>>(
    env: &Env,
    exports: sys::napi_value,
    class: &CStr,
) -> napi::Result<()> {
    let (mut cls, mut prototype, mut proto_ref) =
        (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
    // SAFETY: `exports` is an object of this env and the names are NUL-terminated.
    unsafe {
        ok(
            sys::napi_get_named_property(env.raw(), exports, class.as_ptr(), &mut cls),
            "read an export",
        )?;
        ok(
            sys::napi_get_named_property(env.raw(), cls, c"prototype".as_ptr(), &mut prototype),
            "read a prototype",
        )?;
    }
    let callbacks: [Callback; 4] = [proto::<T, 0>, proto::<T, 1>, proto::<T, 2>, proto::<T, 3>];
    for (name, cb) in METHODS.iter().zip(callbacks) {
        set(
            env,
            prototype,
            name,
            function(env, name, cb, ptr::null_mut())?,
        )?;
    }
    set(
        env,
        exports,
        c"uuid7",
        function(env, c"uuid7", uuid7, ptr::null_mut())?,
    )?;
    for (name, cb) in [(c"ulid", ulid as Callback), (c"typeid", typeid)] {
        set(
            env,
            exports,
            name,
            function(env, name, cb, ptr::null_mut())?,
        )?;
    }
    set(
        env,
        exports,
        c"_benchFloor",
        function(env, c"_benchFloor", bench_floor, ptr::null_mut())?,
    )?;
    // SAFETY: a strong reference to the prototype, kept for the life of the environment.
    ok(
        unsafe { sys::napi_create_reference(env.raw(), prototype, 1, &mut proto_ref) },
        "keep the prototype",
    )?;
    PROTOTYPE.with(|p| p.set(Some((env.raw(), proto_ref))));
    Ok(())
}
