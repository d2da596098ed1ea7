//! Generators by name: `fromConfig("type=snowflake,layout=twitter,node=5")` (or the JSON form)
//! builds the same generator on every surface, and `NamedGenerator` is its sans-IO form.

use idmint::named::{GeneratedId, NamedConfig, NamedGenerator as CoreNamedGenerator};
use napi::bindgen_prelude::{Either, Unknown};
use napi::Env;
use napi_derive::napi;

use crate::convert::{string_arg, u64_arg};
use crate::errors::OrThrow;
use crate::generator::Snowflake;
use crate::uuids::{next_with_random, UuidGenerator};

/// The clocked generator a named config describes: a `Snowflake` for `type=snowflake`, a
/// `UuidGenerator` for `type=uuid1`, `uuid4` or `uuid7`. Config errors throw
/// `ERR_INVALID_LAYOUT` with `at`, the byte offset of the problem.
#[napi(catch_unwind, ts_return_type = "Snowflake | UuidGenerator")]
pub fn from_config<'e>(
    env: &'e Env,
    #[napi(ts_arg_type = "string")] config: Unknown<'_>,
) -> napi::Result<Either<Unknown<'e>, UuidGenerator>> {
    let text = string_arg(env, &config, "config")?;
    let named = NamedConfig::parse(&text).or_throw(env)?;
    match named.snowflake_config() {
        Some(cfg) => Snowflake::instance(env, *cfg).map(Either::A),
        None => UuidGenerator::from_named(env, named).map(Either::B),
    }
}

/// The sans-IO generator of a named config, of any type: `nextAt(nowMs, random?)` gives a
/// `bigint` for `type=snowflake` and a UUID string otherwise. Replays the shared vectors.
#[napi]
pub struct NamedGenerator {
    inner: CoreNamedGenerator,
    config: NamedConfig,
}

#[napi]
impl NamedGenerator {
    /// Parses and builds the config (compact `key=value,...` or JSON form).
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: &Env,
        #[napi(ts_arg_type = "string")] config: Unknown<'_>,
    ) -> napi::Result<Self> {
        let text = string_arg(env, &config, "config")?;
        let config = NamedConfig::parse(&text).or_throw(env)?;
        Ok(NamedGenerator {
            inner: config.build().or_throw(env)?,
            config,
        })
    }

    /// The type name: `snowflake`, `uuid4`, `uuid7` or `uuid1`.
    #[napi(getter, catch_unwind)]
    pub fn kind(&self) -> String {
        self.config.kind().to_string()
    }

    /// The canonical compact form of the config.
    #[napi(getter, catch_unwind)]
    pub fn config(&self) -> String {
        self.config.to_string()
    }

    /// The next ID at `nowMs`: a `bigint` (snowflake) or a UUID string. `random(n)` must return
    /// a `Uint8Array` of `n` bytes (default: the OS random source); snowflakes never call it.
    #[napi(catch_unwind)]
    pub fn next_at(
        &mut self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number")] now_ms: Unknown<'_>,
        #[napi(ts_arg_type = "(n: number) => Uint8Array")] random: Option<Unknown<'_>>,
    ) -> napi::Result<Either<u64, String>> {
        let now = u64_arg(env, &now_ms, "nowMs")?;
        Ok(match next_with_random(env, &mut self.inner, now, random)? {
            GeneratedId::U64(v) => Either::A(v),
            other => Either::B(other.to_string()),
        })
    }
}
