//! Generators by name: `fromConfig("type=snowflake,layout=twitter,node=5")` (or the JSON form)
//! builds the same generator on every surface, and `NamedGenerator` is its sans-IO form.

use std::cell::RefCell;

use idmint::named::{NamedConfig, NamedGenerator as CoreNamedGenerator};
use idmint_js::convert::u64_arg;
use idmint_js::values;
use wasm_bindgen::prelude::*;

use crate::convert::{OrThrow, Web};
use crate::snowflake::JsSnowflake;
use crate::uuid::{generated, next_with_random, UuidGenerator};

#[wasm_bindgen(js_name = fromConfig)]
pub fn from_config(config: JsValue) -> Result<JsValue, JsValue> {
    let named = values::named_config(&Web, &config)?;
    match named.snowflake_config() {
        Some(cfg) => JsSnowflake::from_core(*cfg).map(JsValue::from),
        None => UuidGenerator::from_named(named).map(JsValue::from),
    }
}

#[wasm_bindgen]
pub struct NamedGenerator {
    inner: RefCell<CoreNamedGenerator>,
    config: NamedConfig,
}

#[wasm_bindgen]
impl NamedGenerator {
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<NamedGenerator, JsValue> {
        let config = values::named_config(&Web, &config)?;
        Ok(NamedGenerator {
            inner: RefCell::new(config.build().or_throw(&Web)?),
            config,
        })
    }

    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> String {
        self.config.kind().to_string()
    }

    #[wasm_bindgen(getter)]
    pub fn config(&self) -> String {
        self.config.to_string()
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
}
