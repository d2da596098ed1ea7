//! Generators by name: `fromConfig("type=snowflake,layout=twitter,node=5")` (or the JSON form)
//! builds the same generator on every surface, and `NamedGenerator` is its sans-IO form.

use idmint::named::{NamedConfig, NamedGenerator as CoreNamedGenerator};
use idmint_js::convert::{string_arg, u64_arg};
use napi::bindgen_prelude::{Either, Unknown};
use napi::{Env, JsValue};
use napi_derive::napi;

use crate::convert::{Js, OrThrow};
use crate::snowflake::Snowflake;
use crate::uuid::{generated, with_random, UuidGenerator};

fn parse(h: &Js<'_>, config: &Unknown<'_>) -> napi::Result<NamedConfig> {
    NamedConfig::parse(&string_arg(h, &config.raw(), "config")?).or_throw(h)
}

#[napi(catch_unwind)]
pub fn from_config<'e>(
    env: &'e Env,
    config: Unknown<'_>,
) -> napi::Result<Either<Unknown<'e>, UuidGenerator>> {
    let h = Js(env);
    let named = parse(&h, &config)?;
    match named.snowflake_config() {
        Some(cfg) => Snowflake::instance(env, *cfg).map(Either::A),
        None => UuidGenerator::from_named(&h, named).map(Either::B),
    }
}

#[napi]
pub struct NamedGenerator {
    inner: CoreNamedGenerator,
    config: NamedConfig,
}

#[napi]
impl NamedGenerator {
    #[napi(constructor, catch_unwind)]
    pub fn new(env: &Env, config: Unknown<'_>) -> napi::Result<Self> {
        let h = Js(env);
        let config = parse(&h, &config)?;
        Ok(NamedGenerator {
            inner: config.build().or_throw(&h)?,
            config,
        })
    }

    #[napi(getter, catch_unwind)]
    pub fn kind(&self) -> String {
        self.config.kind().to_string()
    }

    #[napi(getter, catch_unwind)]
    pub fn config(&self) -> String {
        self.config.to_string()
    }

    #[napi(catch_unwind)]
    pub fn next_at<'e>(
        &mut self,
        env: &'e Env,
        now_ms: Unknown<'_>,
        random: Option<Unknown<'_>>,
    ) -> napi::Result<Unknown<'e>> {
        let h = Js(env);
        let now = u64_arg(&h, &now_ms.raw(), "nowMs")?;
        generated(
            env,
            with_random(&h, random, |fill| self.inner.next_at(now, fill))?,
        )
    }
}
