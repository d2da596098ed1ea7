//! UUIDs (RFC 9562) as lower-case hyphenated strings: the clocked helpers on the core's
//! process-wide generators (`idmint::named::clocked`: v7 strictly increasing per process, across
//! worker threads too), `UuidGenerator`, `Uuid7Generator` and `UlidGenerator` (the sans-IO
//! functions, parsing and inspection are in [`crate::functions`]).

use idmint::formats::uuid::{Uuid, Uuid7Method};
use idmint::named::clocked::{self, random_fill};
use idmint::named::{GeneratedId, NamedConfig};
use idmint::KsuidGenerator as CoreKsuidGenerator;
use idmint::UlidGenerator as CoreUlidGenerator;
use idmint::UuidGenerator as CoreUuidGenerator;
use idmint_js::convert::{batch_arg, bytes_arg, random_source, u64_arg};
use idmint_js::values;
use napi::bindgen_prelude::Unknown;
use napi::{Env, JsValue};
use napi_derive::napi;

use crate::convert::{js_uuid, unknown, Js, OrThrow};

#[napi(catch_unwind)]
pub fn uuid1(env: &Env) -> napi::Result<String> {
    clocked::uuid1().or_throw(&Js(env)).map(|u| js_uuid(&u))
}

#[napi(catch_unwind)]
pub fn uuid4(env: &Env, random: Option<Unknown<'_>>) -> napi::Result<String> {
    let random = random.map(|r| r.raw());
    values::uuid4(&Js(env), random.as_ref(), clocked::uuid4).map(|u| js_uuid(&u))
}

// `uuid7()` is a hand-registered callback (crate::fast): it formats into a stack buffer and
// skips napi-rs's wrapper, about half the cost of a generated function.

/// `uuid7s(n)`'s native half: the `n` UUIDs' texts back to back in one string of `36 * n`
/// Latin-1 characters, which index.js slices into an array (one string crossing Node-API
/// instead of `n`, and no `napi_set_element` per UUID: a quarter of the cost per ID).
#[napi(js_name = "_uuid7sText", catch_unwind)]
pub fn uuid7s_text<'e>(env: &'e Env, n: Unknown<'_>) -> napi::Result<Unknown<'e>> {
    let h = Js(env);
    let n = batch_arg(&h, &n.raw())?;
    let mut out = vec![Uuid::nil(); n];
    clocked::uuid7_fill(&mut out).or_throw(&h)?;
    unknown(env, crate::fast::uuid_texts(env, &out))
}

#[napi(catch_unwind)]
pub fn uuid6(env: &Env) -> napi::Result<String> {
    clocked::uuid6().or_throw(&Js(env)).map(|u| js_uuid(&u))
}

#[napi]
pub const NIL_UUID: &str = "00000000-0000-0000-0000-000000000000";

#[napi]
pub const MAX_UUID: &str = "ffffffff-ffff-ffff-ffff-ffffffffffff";

/// A generated ID: a `bigint` (snowflake) or a UUID string.
pub(crate) fn generated<'e>(env: &'e Env, id: GeneratedId) -> napi::Result<Unknown<'e>> {
    let h = Js(env);
    match id {
        GeneratedId::U64(v) => unknown(env, idmint_js::Host::value(&h, idmint_js::Out::Big(v))),
        GeneratedId::Uuid(u) => unknown(
            env,
            idmint_js::Host::value(&h, idmint_js::Out::Str(&js_uuid(&u))),
        ),
    }
}

#[napi]
pub struct UuidGenerator {
    inner: CoreUuidGenerator,
}

impl UuidGenerator {
    pub(crate) fn from_named(h: &Js<'_>, config: NamedConfig) -> napi::Result<Self> {
        Ok(UuidGenerator {
            inner: CoreUuidGenerator::from_config(config).or_throw(h)?,
        })
    }
}

#[napi]
impl UuidGenerator {
    #[napi(constructor, catch_unwind)]
    pub fn new(env: &Env, version: Option<Unknown<'_>>) -> napi::Result<Self> {
        let h = Js(env);
        let config = values::uuid_version(&h, version.map(|v| v.raw()).as_ref())?;
        Self::from_named(&h, config)
    }

    #[napi(factory, catch_unwind)]
    pub fn from_config(env: &Env, config: Unknown<'_>) -> napi::Result<Self> {
        let h = Js(env);
        let named = values::uuid_named(&h, &config.raw())?;
        Self::from_named(&h, named)
    }

    #[napi(catch_unwind)]
    pub fn next(&self, env: &Env) -> napi::Result<String> {
        Ok(js_uuid(&self.inner.next().or_throw(&Js(env))?))
    }

    /// `random` may call this generator again: the core runs it with the generator unlocked.
    #[napi(catch_unwind)]
    pub fn next_at(
        &self,
        env: &Env,
        now_ms: Unknown<'_>,
        random: Option<Unknown<'_>>,
    ) -> napi::Result<String> {
        let h = Js(env);
        let now = u64_arg(&h, &now_ms.raw(), "nowMs")?;
        let random = random.map(|r| r.raw());
        let random = random_source(&h, random.as_ref(), random_fill)?;
        let u = self.inner.next_at_with(now, random)?.or_throw(&h)?;
        Ok(js_uuid(&u))
    }

    #[napi(getter, catch_unwind)]
    pub fn version(&self) -> u32 {
        values::uuid_version_of(self.inner.config())
    }

    #[napi(getter, catch_unwind)]
    pub fn kind(&self) -> String {
        self.inner.config().kind().to_string()
    }

    #[napi(getter, catch_unwind)]
    pub fn config(&self) -> String {
        self.inner.config().to_string()
    }

    #[napi(getter, catch_unwind)]
    pub fn last_unix_ms(&self) -> Option<u64> {
        self.inner.last_unix_ms()
    }
}

/// Version 7 UUIDs of one RFC 9562 method (`counter`, `random_increment`, `sub_millisecond`):
/// the core's `UuidGenerator` of `type=uuid7,method=…`, on the system clock (with its
/// sub-millisecond fraction) and OS randomness, restarted in a forked child, or at a given
/// time and random bytes.
#[napi]
pub struct Uuid7Generator {
    inner: CoreUuidGenerator,
    method: Uuid7Method,
}

#[napi]
impl Uuid7Generator {
    #[napi(constructor, catch_unwind)]
    pub fn new(env: &Env, method: Option<Unknown<'_>>) -> napi::Result<Self> {
        let h = Js(env);
        let method = values::v7_method(&h, method.map(|m| m.raw()).as_ref())?;
        let inner = CoreUuidGenerator::from_config(NamedConfig::Uuid7(method)).or_throw(&h)?;
        Ok(Uuid7Generator { inner, method })
    }

    #[napi(catch_unwind)]
    pub fn next(&self, env: &Env) -> napi::Result<String> {
        Ok(js_uuid(&self.inner.next().or_throw(&Js(env))?))
    }

    #[napi(catch_unwind)]
    pub fn next_at(
        &mut self,
        env: &Env,
        now_ms: Unknown<'_>,
        random: Unknown<'_>,
        sub_ms_nanos: Option<Unknown<'_>>,
    ) -> napi::Result<String> {
        let h = Js(env);
        let now = u64_arg(&h, &now_ms.raw(), "nowMs")?;
        let r: [u8; 10] = bytes_arg(&h, &random.raw(), "random")?;
        let nanos = values::sub_ms_nanos(&h, sub_ms_nanos.map(|v| v.raw()).as_ref())?;
        let given = |buf: &mut [u8]| {
            buf.copy_from_slice(r.get(..buf.len()).ok_or(idmint::Error::RandomSource)?);
            Ok(())
        };
        Ok(js_uuid(
            &self.inner.next_at_precise(now, nanos, given).or_throw(&h)?,
        ))
    }

    #[napi(getter, catch_unwind)]
    pub fn method(&self) -> &'static str {
        self.method.name()
    }

    #[napi(getter, catch_unwind)]
    pub fn last_unix_ms(&self) -> Option<u64> {
        self.inner.last_unix_ms()
    }
}

/// Monotonic ULIDs at given times and random bytes (the core's `UlidGenerator`); `ulid()` is
/// the process-wide clocked one.
#[napi]
pub struct UlidGenerator {
    inner: CoreUlidGenerator,
}

impl Default for UlidGenerator {
    fn default() -> Self {
        UlidGenerator::new()
    }
}

#[napi]
impl UlidGenerator {
    #[napi(constructor, catch_unwind)]
    pub fn new() -> Self {
        UlidGenerator {
            inner: CoreUlidGenerator::new(),
        }
    }

    #[napi(catch_unwind)]
    pub fn next_at(
        &mut self,
        env: &Env,
        unix_ms: Unknown<'_>,
        random: Unknown<'_>,
    ) -> napi::Result<String> {
        let h = Js(env);
        let ms = u64_arg(&h, &unix_ms.raw(), "unixMs")?;
        let r = bytes_arg(&h, &random.raw(), "random")?;
        self.inner
            .next_at(ms, r)
            .or_throw(&h)
            .map(|u| u.to_string())
    }
}

/// `ksuid()`: a KSUID from the core's process-wide generator on the system clock.
#[napi(catch_unwind)]
pub fn ksuid(env: &Env) -> napi::Result<String> {
    clocked::ksuid().or_throw(&Js(env)).map(|k| k.to_string())
}

/// `ksuidAt(unixMs, payload)`: the KSUID of a time and 16 payload bytes (Node only; the shared
/// conversion is `idmint_js::values::ksuid_at`).
#[napi(catch_unwind)]
pub fn ksuid_at(env: &Env, unix_ms: Unknown<'_>, payload: Unknown<'_>) -> napi::Result<String> {
    values::ksuid_at(&Js(env), &unix_ms.raw(), &payload.raw()).map(|k| k.to_string())
}

/// `parseKsuid(text)`: `{ ksuid, timestamp, unixMs, payload }` (Node only; the shared conversion
/// is `idmint_js::values::parse_ksuid`).
#[napi(catch_unwind)]
pub fn parse_ksuid<'e>(env: &'e Env, text: Unknown<'_>) -> napi::Result<Unknown<'e>> {
    unknown(env, values::parse_ksuid(&Js(env), &text.raw()))
}

/// KSUIDs at given times and random bytes (the core's `KsuidGenerator`); `ksuid()` is the
/// process-wide clocked one.
#[napi]
pub struct KsuidGenerator {
    inner: CoreKsuidGenerator,
}

impl Default for KsuidGenerator {
    fn default() -> Self {
        KsuidGenerator::new()
    }
}

#[napi]
impl KsuidGenerator {
    #[napi(constructor, catch_unwind)]
    pub fn new() -> Self {
        KsuidGenerator {
            inner: CoreKsuidGenerator::new(),
        }
    }

    #[napi(catch_unwind)]
    pub fn next_at(
        &mut self,
        env: &Env,
        unix_ms: Unknown<'_>,
        random: Unknown<'_>,
    ) -> napi::Result<String> {
        let h = Js(env);
        let ms = u64_arg(&h, &unix_ms.raw(), "unixMs")?;
        let r = bytes_arg(&h, &random.raw(), "random")?;
        self.inner
            .next_at(ms, r)
            .or_throw(&h)
            .map(|k| k.to_string())
    }
}
