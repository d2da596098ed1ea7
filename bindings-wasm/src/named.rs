//! Generators by name: `fromConfig("type=snowflake,layout=twitter,node=5")` (or the JSON form)
//! builds the same generator on every surface, and `NamedGenerator` is its sans-IO form.

use idmint::named::{NamedConfig, NamedGenerator as CoreNamedGenerator};
use wasm_bindgen::prelude::*;

use crate::convert::{string_arg, u64_arg};
use crate::errors::OrThrow;
use crate::generator::JsSnowflake;
use crate::uuids::{generated, next_with_random, UuidGenerator};

/// The clocked generator a named config describes: a `Snowflake` for `type=snowflake`, a
/// `UuidGenerator` for `type=uuid1`, `uuid4` or `uuid7`. Config errors throw
/// `ERR_INVALID_LAYOUT` with `at`, the byte offset of the problem.
#[wasm_bindgen(js_name = fromConfig, unchecked_return_type = "Snowflake | UuidGenerator")]
pub fn from_config(
    #[wasm_bindgen(unchecked_param_type = "string")] config: JsValue,
) -> Result<JsValue, JsValue> {
    let text = string_arg(&config, "config")?;
    let named = NamedConfig::parse(&text).or_throw()?;
    match named.snowflake_config() {
        Some(cfg) => JsSnowflake::from_core(*cfg).map(JsValue::from),
        None => UuidGenerator::from_named(named).map(JsValue::from),
    }
}

/// The sans-IO generator of a named config, of any type: `nextAt(nowMs, random?)` gives a
/// `bigint` for `type=snowflake` and a UUID string otherwise. Replays the shared vectors.
#[wasm_bindgen]
pub struct NamedGenerator {
    inner: CoreNamedGenerator,
    config: NamedConfig,
}

#[wasm_bindgen]
impl NamedGenerator {
    /// Parses and builds the config (compact `key=value,...` or JSON form).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "string")] config: JsValue,
    ) -> Result<NamedGenerator, JsValue> {
        let text = string_arg(&config, "config")?;
        let config = NamedConfig::parse(&text).or_throw()?;
        Ok(NamedGenerator {
            inner: config.build().or_throw()?,
            config,
        })
    }

    /// The type name: `snowflake`, `uuid4`, `uuid7` or `uuid1`.
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> String {
        self.config.kind().to_string()
    }

    /// The canonical compact form of the config.
    #[wasm_bindgen(getter)]
    pub fn config(&self) -> String {
        self.config.to_string()
    }

    /// The next ID at `nowMs`: a `bigint` (snowflake) or a UUID string. `random(n)` must return
    /// a `Uint8Array` of `n` bytes (default: `crypto.getRandomValues`); snowflakes never call it.
    #[wasm_bindgen(js_name = nextAt, unchecked_return_type = "bigint | string")]
    pub fn next_at(
        &mut self,
        #[wasm_bindgen(js_name = nowMs, unchecked_param_type = "bigint | number")] now_ms: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "(n: number) => Uint8Array")]
        random: JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = u64_arg(&now_ms, "nowMs")?;
        Ok(generated(&next_with_random(&mut self.inner, now, &random)?))
    }
}
