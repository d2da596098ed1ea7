//! UUIDs (RFC 9562) as lower-case hyphenated strings: the clocked helpers and the generator
//! classes (the sans-IO functions, parsing and inspection are in [`crate::functions`]). `uuid7()` and `uuid1()` share one
//! generator each per module instance (a page or a worker each load their own): v7 UUIDs from
//! one instance are strictly increasing. Randomness comes from `crypto.getRandomValues`, time
//! from the clock of [`crate::clock`].

use std::cell::RefCell;
use std::thread::LocalKey;

use idmint::formats::ksuid::KsuidGenerator as CoreKsuidGenerator;
use idmint::formats::typeid::TypeId;
use idmint::formats::ulid::UlidGenerator as CoreUlidGenerator;
use idmint::formats::uuid::{self, Uuid, Uuid6Generator, Uuid7Generator as CoreUuid7Generator};
use idmint::host_random::draw_outside;
use idmint::named::{GeneratedId, NamedConfig, NamedGenerator, Uuid1Generator};
use idmint_js::convert::{batch_arg, bytes_arg, u64_arg, with_random};
use idmint_js::values;
use wasm_bindgen::prelude::*;

use crate::clock::{now_ms, with_clock};
use crate::convert::{js_uuid, OrThrow, Web};
use crate::random;

thread_local! {
    static V7: RefCell<CoreUuid7Generator> = const { RefCell::new(CoreUuid7Generator::new()) };
    static V1: RefCell<Uuid1Generator> = const { RefCell::new(Uuid1Generator::new()) };
    static V6: RefCell<Uuid6Generator> = const { RefCell::new(Uuid6Generator::new()) };
    static ULID: RefCell<CoreUlidGenerator> = const { RefCell::new(CoreUlidGenerator::new()) };
    static KSUID: RefCell<CoreKsuidGenerator> = const { RefCell::new(CoreKsuidGenerator::new()) };
}

/// `call` on one of the module's generators with random bytes from `crypto.getRandomValues`,
/// drawn while the generator is not borrowed (the core's `draw_outside`): page code may replace
/// `getRandomValues` with a function that calls back into this module, which then finds the
/// generator free instead of a borrow it would trap on.
fn drawn_outside<G: 'static, T>(
    gen: &'static LocalKey<RefCell<G>>,
    mut call: impl FnMut(&mut G, &mut dyn FnMut(&mut [u8]) -> idmint::Result<()>) -> idmint::Result<T>,
) -> Result<T, JsValue> {
    gen.with(|g| draw_outside(|fill| call(&mut g.borrow_mut(), fill), random::fill))
        .and_then(|r| r)
        .or_throw(&Web)
}

#[wasm_bindgen]
pub fn uuid1() -> Result<JsValue, JsValue> {
    let now = now_ms();
    drawn_outside(&V1, |g, fill| g.next_at(now, fill)).map(|u| js_uuid(&u))
}

#[wasm_bindgen]
pub fn uuid4(random: JsValue) -> Result<JsValue, JsValue> {
    let os = || {
        let mut b = [0u8; 16];
        random::fill(&mut b).map(|()| uuid::v4(b))
    };
    values::uuid4(&Web, Some(&random), os).map(|u| js_uuid(&u))
}

#[wasm_bindgen]
pub fn uuid7() -> Result<JsValue, JsValue> {
    next_v7().map(|u| js_uuid(&u))
}

/// The next v7 UUID of the module's generator (the one `uuid7()` uses).
fn next_v7() -> Result<Uuid, JsValue> {
    let mut r = [0u8; 10];
    random::fill(&mut r).or_throw(&Web)?;
    let now = now_ms();
    Ok(V7.with(|g| g.borrow_mut().next_at(now, r)))
}

#[wasm_bindgen]
pub fn uuid7s(n: JsValue) -> Result<JsValue, JsValue> {
    let n = batch_arg(&Web, &n)?;
    let now = now_ms();
    let mut r = vec![0u8; n.saturating_mul(10)];
    random::fill(&mut r).or_throw(&Web)?;
    let out = js_sys::Array::new_with_length(n as u32);
    V7.with(|g| {
        let mut g = g.borrow_mut();
        for (i, c) in (0u32..).zip(r.chunks_exact(10)) {
            let mut b = [0u8; 10];
            b.copy_from_slice(c);
            out.set(i, js_uuid(&g.next_at(now, b)));
        }
    });
    Ok(out.into())
}

#[wasm_bindgen]
pub fn uuid6() -> Result<JsValue, JsValue> {
    let now = now_ms();
    drawn_outside(&V6, |g, fill| g.next_at(now, fill)).map(|u| js_uuid(&u))
}

/// `typeid(prefix)`: the prefix on the module's next v7 UUID, as the core's std `typeid` does
/// on the process-wide one.
#[wasm_bindgen]
pub fn typeid(prefix: JsValue) -> Result<String, JsValue> {
    let p = values::typeid_prefix(&Web, &prefix)?;
    TypeId::new(p.prefix(), next_v7()?)
        .or_throw(&Web)
        .map(|t| t.to_string())
}

/// `ulid()`: the module's monotonic ULID generator on the page clock. Should its 80-bit part
/// run out within one millisecond (2^80 ULIDs), this throws `ERR_WOULD_BLOCK` (a page cannot
/// sleep) where the Node package waits.
#[wasm_bindgen]
pub fn ulid() -> Result<String, JsValue> {
    let now = now_ms();
    drawn_outside(&ULID, |g, fill| g.next_at_with(now, |r| fill(r))).map(|u| u.to_string())
}

/// `ksuid()`: the module's KSUID generator on the page clock (a random payload on a new second,
/// the last plus one within it; `ERR_WOULD_BLOCK` should the payload run out in a second).
#[wasm_bindgen]
pub fn ksuid() -> Result<String, JsValue> {
    let now = now_ms();
    drawn_outside(&KSUID, |g, fill| g.next_at_with(now, |r| fill(r))).map(|k| k.to_string())
}

/// A generated ID as JavaScript sees it: a `bigint` for a Snowflake ID, a string for a UUID.
pub(crate) fn generated(id: &GeneratedId) -> JsValue {
    match id {
        GeneratedId::U64(v) => JsValue::from(*v),
        GeneratedId::Uuid(u) => js_uuid(u),
    }
}

/// `gen.next_at_precise(now, sub_ms_nanos, random)` with `crypto.getRandomValues`, or the
/// JavaScript function `(n) => Uint8Array` when given (for replays), whose exception passes on
/// as is. Either runs with `gen` not borrowed (`with_random`), so no JavaScript — not even a
/// replaced `crypto.getRandomValues` — can reach `gen` while it is borrowed.
pub(crate) fn next_with_random(
    gen: &RefCell<NamedGenerator>,
    (now, sub_ms_nanos): (u64, u32),
    random: &JsValue,
) -> Result<GeneratedId, JsValue> {
    with_random(&Web, Some(random), random::fill, |fill| {
        gen.borrow_mut().next_at_precise(now, sub_ms_nanos, fill)
    })
}

#[wasm_bindgen]
pub struct UuidGenerator {
    inner: RefCell<NamedGenerator>,
    config: NamedConfig,
}

impl UuidGenerator {
    pub(crate) fn from_named(config: NamedConfig) -> Result<UuidGenerator, JsValue> {
        Ok(UuidGenerator {
            inner: RefCell::new(config.build().or_throw(&Web)?),
            config,
        })
    }
}

#[wasm_bindgen]
impl UuidGenerator {
    #[wasm_bindgen(constructor)]
    pub fn new(version: JsValue) -> Result<UuidGenerator, JsValue> {
        let config = values::uuid_version(&Web, Some(&version))?;
        UuidGenerator::from_named(config)
    }

    #[wasm_bindgen(js_name = fromConfig)]
    pub fn from_config(config: JsValue) -> Result<UuidGenerator, JsValue> {
        let named = values::uuid_named(&Web, &config)?;
        UuidGenerator::from_named(named)
    }

    pub fn next(&self) -> Result<JsValue, JsValue> {
        let now = with_clock(|c| self.config.now_from(c));
        Ok(generated(&next_with_random(
            &self.inner,
            now,
            &JsValue::UNDEFINED,
        )?))
    }

    #[wasm_bindgen(js_name = nextAt)]
    pub fn next_at(&self, now_ms: JsValue, random: JsValue) -> Result<JsValue, JsValue> {
        let now = u64_arg(&Web, &now_ms, "nowMs")?;
        Ok(generated(&next_with_random(
            &self.inner,
            (now, 0),
            &random,
        )?))
    }

    #[wasm_bindgen(getter)]
    pub fn version(&self) -> u32 {
        values::uuid_version_of(&self.config)
    }

    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> String {
        self.config.kind().to_string()
    }

    #[wasm_bindgen(getter)]
    pub fn config(&self) -> String {
        self.config.to_string()
    }

    #[wasm_bindgen(getter, js_name = lastUnixMs)]
    pub fn last_unix_ms(&self) -> Result<JsValue, JsValue> {
        values::opt_big(&Web, self.inner.borrow().last_unix_ms())
    }
}

/// Version 7 UUIDs of one RFC 9562 method (`counter`, `random_increment`, `sub_millisecond`):
/// the core's `Uuid7Generator` on the module's clock and `crypto.getRandomValues`, or at a given
/// time and random bytes. For `sub_millisecond`, `next()` passes the fraction of the
/// millisecond `performance.now()` gives (browsers coarsen it to 5–100 µs).
///
/// Its methods take `&self` and borrow the generator only after the random bytes are drawn, so
/// a replaced `crypto.getRandomValues` may call this same object.
#[wasm_bindgen]
pub struct Uuid7Generator {
    inner: RefCell<CoreUuid7Generator>,
}

#[wasm_bindgen]
impl Uuid7Generator {
    #[wasm_bindgen(constructor)]
    pub fn new(method: JsValue) -> Result<Uuid7Generator, JsValue> {
        let method = values::v7_method(&Web, Some(&method))?;
        Ok(Uuid7Generator {
            inner: RefCell::new(CoreUuid7Generator::with_method(method)),
        })
    }

    pub fn next(&self) -> Result<JsValue, JsValue> {
        let mut r = [0u8; 10];
        random::fill(&mut r).or_throw(&Web)?;
        let method = self.inner.borrow().method();
        let (ms, nanos) = with_clock(|c| NamedConfig::Uuid7(method).now_from(c));
        let u = self.inner.borrow_mut().next_at_precise(ms, nanos, r);
        Ok(js_uuid(&u))
    }

    #[wasm_bindgen(js_name = nextAt)]
    pub fn next_at(
        &self,
        now_ms: JsValue,
        random: JsValue,
        sub_ms_nanos: JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = u64_arg(&Web, &now_ms, "nowMs")?;
        let r = bytes_arg(&Web, &random, "random")?;
        let nanos = values::sub_ms_nanos(&Web, Some(&sub_ms_nanos))?;
        let u = self.inner.borrow_mut().next_at_precise(now, nanos, r);
        Ok(js_uuid(&u))
    }

    #[wasm_bindgen(getter)]
    pub fn method(&self) -> String {
        self.inner.borrow().method().name().to_string()
    }

    #[wasm_bindgen(getter, js_name = lastUnixMs)]
    pub fn last_unix_ms(&self) -> Result<JsValue, JsValue> {
        values::opt_big(&Web, self.inner.borrow().last_unix_ms())
    }
}

/// Monotonic ULIDs at given times and random bytes (the core's `UlidGenerator`); `ulid()` is
/// the module's clocked one.
#[wasm_bindgen]
pub struct UlidGenerator {
    inner: CoreUlidGenerator,
}

impl Default for UlidGenerator {
    fn default() -> Self {
        UlidGenerator::new()
    }
}

#[wasm_bindgen]
impl UlidGenerator {
    #[wasm_bindgen(constructor)]
    pub fn new() -> UlidGenerator {
        UlidGenerator {
            inner: CoreUlidGenerator::new(),
        }
    }

    #[wasm_bindgen(js_name = nextAt)]
    pub fn next_at(&mut self, unix_ms: JsValue, random: JsValue) -> Result<String, JsValue> {
        let ms = u64_arg(&Web, &unix_ms, "unixMs")?;
        let r = bytes_arg(&Web, &random, "random")?;
        self.inner
            .next_at(ms, r)
            .or_throw(&Web)
            .map(|u| u.to_string())
    }
}
