//! UUIDs (RFC 9562) as lower-case hyphenated strings: the clocked helpers (`uuid1`, `uuid4`,
//! `uuid7`), the pure constructors that take time and randomness as arguments, parsing,
//! inspection, and `UuidGenerator`.
//!
//! The clocked parts are the core's `idmint::uuid_clock`: `uuid7()` and `uuid1()` use its
//! process-wide generators (behind a lock, so worker threads share them too: v7 UUIDs from one
//! process are strictly increasing, v1 UUIDs distinct), `UuidGenerator` wraps its
//! `UuidGenerator`, and OS randomness is drawn through its pool (`random_fill`).

use idmint::named::{GeneratedId, NamedConfig, NamedGenerator};
use idmint::uuid_clock::{self, random_fill};
use idmint::uuids::{self, Uuid};
use idmint::UuidGenerator as CoreUuidGenerator;
use napi::bindgen_prelude::Unknown;
use napi::Env;
use napi_derive::napi;

use crate::convert::{
    bounded_arg, bytes_arg, call_random, function_arg, is_nullish, string_arg, text_or_bytes_arg,
    u64_arg,
};
use crate::errors::{range_error, throw, Class, OrThrow};

fn text(u: &Uuid) -> String {
    u.hyphenated().to_string()
}

fn namespace(env: &Env, v: &Unknown<'_>) -> napi::Result<Uuid> {
    let s = string_arg(env, v, "namespace")?;
    Ok(match s.as_str() {
        "dns" => uuids::NAMESPACE_DNS,
        "url" => uuids::NAMESPACE_URL,
        "oid" => uuids::NAMESPACE_OID,
        "x500" => uuids::NAMESPACE_X500,
        other => uuids::parse(other).or_throw(env)?,
    })
}

/// A version 1 UUID with a random node (never a MAC address) from the process-wide generator.
#[napi(catch_unwind)]
pub fn uuid1(env: &Env) -> napi::Result<String> {
    uuid_clock::uuid1().or_throw(env).map(|u| text(&u))
}

/// A version 3 (MD5, name-based) UUID. `namespace` is a UUID or `dns`, `url`, `oid`, `x500`.
#[napi(catch_unwind)]
pub fn uuid3(
    env: &Env,
    #[napi(ts_arg_type = "string")] namespace: Unknown<'_>,
    #[napi(ts_arg_type = "string | Uint8Array")] name: Unknown<'_>,
) -> napi::Result<String> {
    let ns = self::namespace(env, &namespace)?;
    let name = text_or_bytes_arg(env, &name, "name")?;
    Ok(text(&uuids::v3(&ns, &name)))
}

/// A version 5 (SHA-1, name-based) UUID. `namespace` is a UUID or `dns`, `url`, `oid`, `x500`.
#[napi(catch_unwind)]
pub fn uuid5(
    env: &Env,
    #[napi(ts_arg_type = "string")] namespace: Unknown<'_>,
    #[napi(ts_arg_type = "string | Uint8Array")] name: Unknown<'_>,
) -> napi::Result<String> {
    let ns = self::namespace(env, &namespace)?;
    let name = text_or_bytes_arg(env, &name, "name")?;
    Ok(text(&uuids::v5(&ns, &name)))
}

/// A version 4 (random) UUID from the OS random source, or from the 16 bytes given.
#[napi(catch_unwind)]
pub fn uuid4(
    env: &Env,
    #[napi(ts_arg_type = "Uint8Array")] random: Option<Unknown<'_>>,
) -> napi::Result<String> {
    let u = match random {
        Some(r) if !is_nullish(&r)? => uuids::v4(bytes_arg::<16>(env, &r, "random")?),
        _ => uuid_clock::uuid4().or_throw(env)?,
    };
    Ok(text(&u))
}

/// A version 7 UUID from the process-wide monotonic generator: strictly increasing within
/// the process, even within one millisecond or across a clock step back.
#[napi(catch_unwind)]
pub fn uuid7(env: &Env) -> napi::Result<String> {
    uuid_clock::uuid7().or_throw(env).map(|u| text(&u))
}

/// A version 7 UUID from the given time and 10 random bytes (no monotonic counter).
#[napi(catch_unwind)]
pub fn uuid7_at(
    env: &Env,
    #[napi(ts_arg_type = "bigint | number")] unix_ms: Unknown<'_>,
    #[napi(ts_arg_type = "Uint8Array")] random: Unknown<'_>,
) -> napi::Result<String> {
    let ms = u64_arg(env, &unix_ms, "unixMs")?;
    let r = bytes_arg::<10>(env, &random, "random")?;
    Ok(text(&uuids::v7(ms, r)))
}

/// A version 1 UUID from a 60-bit count of 100 ns intervals since 1582-10-15, a 14-bit clock
/// sequence and a 6-byte random node (its multicast bit is forced on).
#[napi(catch_unwind)]
pub fn uuid1_at(
    env: &Env,
    #[napi(ts_arg_type = "bigint | number")] ticks: Unknown<'_>,
    #[napi(ts_arg_type = "number")] clock_seq: Unknown<'_>,
    #[napi(ts_arg_type = "Uint8Array")] node: Unknown<'_>,
) -> napi::Result<String> {
    let ticks = u64_arg(env, &ticks, "ticks")?;
    let seq = bounded_arg(env, &clock_seq, "clockSeq", u64::from(u16::MAX))? as u16;
    let node = bytes_arg::<6>(env, &node, "node")?;
    Ok(text(&uuids::v1(ticks, seq, node)))
}

/// A version 1 UUID at `unixMs` plus `extraTicks` (0..=9999) 100 ns ticks, with a
/// 14-bit clock sequence and a 6-byte random node.
#[napi(catch_unwind)]
pub fn uuid1_random_node(
    env: &Env,
    #[napi(ts_arg_type = "bigint | number")] unix_ms: Unknown<'_>,
    #[napi(ts_arg_type = "number")] extra_ticks: Unknown<'_>,
    #[napi(ts_arg_type = "number")] clock_seq: Unknown<'_>,
    #[napi(ts_arg_type = "Uint8Array")] node: Unknown<'_>,
) -> napi::Result<String> {
    let ms = u64_arg(env, &unix_ms, "unixMs")?;
    let extra = bounded_arg(env, &extra_ticks, "extraTicks", u64::from(u16::MAX))? as u16;
    let seq = bounded_arg(env, &clock_seq, "clockSeq", u64::from(u16::MAX))? as u16;
    let node = bytes_arg::<6>(env, &node, "node")?;
    Ok(text(&uuids::v1_random_node(ms, extra, seq, node)))
}

/// Parses a UUID in any usual form (hyphenated, 32 hex digits, `{braced}`, `urn:uuid:`, any
/// case) and returns the lower-case hyphenated form; `ERR_INVALID_ENCODING` with `at`.
#[napi(catch_unwind)]
pub fn parse_uuid(
    env: &Env,
    #[napi(ts_arg_type = "string")] text: Unknown<'_>,
) -> napi::Result<String> {
    let s = string_arg(env, &text, "text")?;
    uuids::parse(&s).or_throw(env).map(|u| self::text(&u))
}

/// What a UUID says about itself.
#[napi(object, object_from_js = false, use_nullable = true)]
pub struct UuidInfo {
    /// The version nibble (0-15).
    pub version: u32,
    /// `ncs` (includes the nil UUID), `rfc9562`, `microsoft` or `future` (includes the max UUID).
    pub variant: String,
    /// Creation time in ms since the Unix epoch for RFC 9562 versions 1, 6 and 7, else `null`.
    pub unix_ms: Option<u64>,
}

/// Version, variant and (for v1, v6, v7) creation time of a UUID string.
#[napi(catch_unwind)]
pub fn uuid_info(
    env: &Env,
    #[napi(ts_arg_type = "string")] uuid: Unknown<'_>,
) -> napi::Result<UuidInfo> {
    let s = string_arg(env, &uuid, "uuid")?;
    let u = uuids::parse(&s).or_throw(env)?;
    let i = uuids::inspect(&u);
    Ok(UuidInfo {
        version: u32::from(i.version),
        variant: i.variant.to_owned(),
        unix_ms: i.unix_ms,
    })
}

/// A source of random bytes for a sans-IO call.
type RandomFill<'a> = &'a mut dyn FnMut(&mut [u8]) -> idmint::Result<()>;

/// Runs `call` with the random source `random` names: the OS (through the core's pool) when it
/// is missing, else the JavaScript function `(n) => Uint8Array` (for replays), whose exception
/// is passed on as is. (A callback that calls the same generator again gets napi-rs's "cannot
/// be borrowed" error: `nextAt` holds `&mut self`.)
fn with_random<T>(
    env: &Env,
    random: Option<Unknown<'_>>,
    call: impl FnOnce(RandomFill<'_>) -> idmint::Result<T>,
) -> napi::Result<T> {
    let f = match random {
        Some(f) if !is_nullish(&f)? => f,
        _ => return call(&mut random_fill).or_throw(env),
    };
    function_arg(env, &f, "random")?;
    let mut failure = None;
    let r = call(&mut |buf: &mut [u8]| {
        call_random(env, &f, buf).map_err(|e| {
            failure = Some(e);
            idmint::Error::RandomSource
        })
    });
    if let Some(e) = failure {
        return Err(e);
    }
    r.or_throw(env)
}

/// `gen.next_at(now, random)` with the random source `random` names (see [`with_random`]).
pub(crate) fn next_with_random(
    env: &Env,
    gen: &mut NamedGenerator,
    now: u64,
    random: Option<Unknown<'_>>,
) -> napi::Result<GeneratedId> {
    with_random(env, random, |fill| gen.next_at(now, fill))
}

/// A UUID generator (version 1, 4 or 7) on the system clock, with a sans-IO `nextAt` for
/// replays. Version 7 is monotonic per generator; version 1 keeps one random node per generator.
#[napi]
pub struct UuidGenerator {
    inner: CoreUuidGenerator,
    /// The time in the last UUID issued (v1, v7), read back from it.
    last_unix_ms: Option<u64>,
}

impl UuidGenerator {
    pub(crate) fn from_named(env: &Env, config: NamedConfig) -> napi::Result<Self> {
        Ok(UuidGenerator {
            inner: CoreUuidGenerator::from_config(config).or_throw(env)?,
            last_unix_ms: None,
        })
    }

    /// Notes the time of `u` and returns its text.
    fn issued(&mut self, u: &Uuid) -> String {
        self.last_unix_ms = uuids::inspect(u).unix_ms;
        text(u)
    }
}

#[napi]
impl UuidGenerator {
    /// A generator of `version` 1, 4 or 7 (default 7).
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: &Env,
        #[napi(ts_arg_type = "1 | 4 | 7")] version: Option<Unknown<'_>>,
    ) -> napi::Result<Self> {
        let v = match version {
            Some(v) if !is_nullish(&v)? => bounded_arg(env, &v, "version", 255)?,
            _ => 7,
        };
        if !matches!(v, 1 | 4 | 7) {
            return Err(range_error(
                env,
                &format!("version must be 1, 4 or 7; received {v}"),
            ));
        }
        Ok(UuidGenerator {
            inner: CoreUuidGenerator::new(v as u8).or_throw(env)?,
            last_unix_ms: None,
        })
    }

    /// A generator from a named config (`type=uuid7`, `{"type":"uuid4"}`, ...).
    #[napi(factory, catch_unwind)]
    pub fn from_config(
        env: &Env,
        #[napi(ts_arg_type = "string")] config: Unknown<'_>,
    ) -> napi::Result<Self> {
        let text = string_arg(env, &config, "config")?;
        let named = NamedConfig::parse(&text).or_throw(env)?;
        if named.snowflake_config().is_some() {
            return Err(throw(
                env,
                Class::Error,
                "ERR_INVALID_CONFIG",
                "UuidGenerator.fromConfig needs type=uuid1, uuid4 or uuid7, not type=snowflake; use fromConfig() for any type",
                &[],
            ));
        }
        Self::from_named(env, named)
    }

    /// The next UUID, at the current time with OS randomness.
    #[napi(catch_unwind)]
    pub fn next(&mut self, env: &Env) -> napi::Result<String> {
        let u = self.inner.next().or_throw(env)?;
        Ok(self.issued(&u))
    }

    /// The next UUID at `nowMs`; `random(n)` must return a `Uint8Array` of `n` bytes
    /// (default: the OS random source).
    #[napi(catch_unwind)]
    pub fn next_at(
        &mut self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number")] now_ms: Unknown<'_>,
        #[napi(ts_arg_type = "(n: number) => Uint8Array")] random: Option<Unknown<'_>>,
    ) -> napi::Result<String> {
        let now = u64_arg(env, &now_ms, "nowMs")?;
        let u = with_random(env, random, |fill| self.inner.next_at(now, fill))?;
        Ok(self.issued(&u))
    }

    /// The UUID version (1, 4 or 7).
    #[napi(getter, catch_unwind)]
    pub fn version(&self) -> u32 {
        match self.inner.config() {
            NamedConfig::Uuid1 => 1,
            NamedConfig::Uuid4 => 4,
            _ => 7,
        }
    }

    /// The type name (`uuid1`, `uuid4`, `uuid7`).
    #[napi(getter, catch_unwind)]
    pub fn kind(&self) -> String {
        self.inner.config().kind().to_string()
    }

    /// The canonical named config (`type=uuid7`).
    #[napi(getter, catch_unwind)]
    pub fn config(&self) -> String {
        self.inner.config().to_string()
    }

    /// The millisecond of the last UUID issued (v1 and v7; may run ahead of the clock), or
    /// `null` before the first and for v4.
    #[napi(getter, catch_unwind)]
    pub fn last_unix_ms(&self) -> Option<u64> {
        self.last_unix_ms
    }
}
