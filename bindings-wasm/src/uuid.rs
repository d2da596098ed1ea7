//! UUIDs (RFC 9562) as lower-case hyphenated strings: the clocked helpers, the pure
//! constructors, parsing, inspection and `UuidGenerator`. `uuid7()` and `uuid1()` share one
//! generator each per module instance (a page or a worker each load their own): v7 UUIDs from
//! one instance are strictly increasing. Randomness comes from `crypto.getRandomValues`, time
//! from the clock of [`crate::clock`].

use std::cell::RefCell;

use idmint::named::{GeneratedId, NamedConfig, NamedGenerator, Uuid1Generator};
use idmint::uuids::{self, Uuid, V7Generator};
use idmint_js::convert::{
    bounded_arg, bytes_arg, function_arg, is_nullish, string_arg, text_or_bytes_arg, u64_arg,
};
use idmint_js::values;
use wasm_bindgen::prelude::*;

use crate::clock::now_ms;
use crate::convert::{OrThrow, Web};
use crate::random;

thread_local! {
    static V7: RefCell<V7Generator> = const { RefCell::new(V7Generator::new()) };
    static V1: RefCell<Uuid1Generator> = const { RefCell::new(Uuid1Generator::new()) };
}

#[wasm_bindgen]
extern "C" {
    /// The lower-case hyphenated text of the UUID whose 16 bytes are the big-endian words
    /// `a`, `b`, `c`, `d`: a small JavaScript function that scripts/glue.mjs adds to the
    /// generated glue (which calls it by this name).
    #[wasm_bindgen(js_name = __idmintUuidText)]
    fn uuid_text(a: u32, b: u32, c: u32, d: u32) -> JsValue;
}

/// The lower-case hyphenated form as a JavaScript string, spelled out by a small JavaScript
/// function from four words: a string made in Rust would cross through a TextDecoder, which
/// costs about half a microsecond in Chromium, more than the rest of a UUID.
#[cfg(not(test))]
fn text(u: &Uuid) -> JsValue {
    let b = u.as_bytes();
    let w = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    uuid_text(w(0), w(4), w(8), w(12))
}

/// The unit tests run on wasm-bindgen's own glue, without the helper: Rust spells it there.
#[cfg(test)]
fn text(u: &Uuid) -> JsValue {
    JsValue::from(u.hyphenated().to_string())
}

#[wasm_bindgen]
pub fn uuid1() -> Result<JsValue, JsValue> {
    let now = now_ms();
    V1.with(|g| g.borrow_mut().next_at(now, random::fill))
        .or_throw(&Web)
        .map(|u| text(&u))
}

#[wasm_bindgen]
pub fn uuid3(namespace: JsValue, name: JsValue) -> Result<JsValue, JsValue> {
    let ns = values::namespace(&Web, &namespace)?;
    Ok(text(&uuids::v3(
        &ns,
        &text_or_bytes_arg(&Web, &name, "name")?,
    )))
}

#[wasm_bindgen]
pub fn uuid5(namespace: JsValue, name: JsValue) -> Result<JsValue, JsValue> {
    let ns = values::namespace(&Web, &namespace)?;
    Ok(text(&uuids::v5(
        &ns,
        &text_or_bytes_arg(&Web, &name, "name")?,
    )))
}

#[wasm_bindgen]
pub fn uuid4(random: JsValue) -> Result<JsValue, JsValue> {
    let bytes = if is_nullish(&Web, &random) {
        let mut b = [0u8; 16];
        random::fill(&mut b).or_throw(&Web)?;
        b
    } else {
        bytes_arg(&Web, &random, "random")?
    };
    Ok(text(&uuids::v4(bytes)))
}

#[wasm_bindgen]
pub fn uuid7() -> Result<JsValue, JsValue> {
    let mut r = [0u8; 10];
    random::fill(&mut r).or_throw(&Web)?;
    let now = now_ms();
    Ok(text(&V7.with(|g| g.borrow_mut().next_at(now, r))))
}

#[wasm_bindgen(js_name = uuid7At)]
pub fn uuid7_at(unix_ms: JsValue, random: JsValue) -> Result<JsValue, JsValue> {
    let ms = u64_arg(&Web, &unix_ms, "unixMs")?;
    Ok(text(&uuids::v7(ms, bytes_arg(&Web, &random, "random")?)))
}

#[wasm_bindgen(js_name = uuid1At)]
pub fn uuid1_at(ticks: JsValue, clock_seq: JsValue, node: JsValue) -> Result<JsValue, JsValue> {
    let ticks = u64_arg(&Web, &ticks, "ticks")?;
    let seq = bounded_arg(&Web, &clock_seq, "clockSeq", u64::from(u16::MAX))? as u16;
    Ok(text(&uuids::v1(
        ticks,
        seq,
        bytes_arg(&Web, &node, "node")?,
    )))
}

#[wasm_bindgen(js_name = uuid1RandomNode)]
pub fn uuid1_random_node(
    unix_ms: JsValue,
    extra_ticks: JsValue,
    clock_seq: JsValue,
    node: JsValue,
) -> Result<JsValue, JsValue> {
    let ms = u64_arg(&Web, &unix_ms, "unixMs")?;
    let extra = bounded_arg(&Web, &extra_ticks, "extraTicks", u64::from(u16::MAX))? as u16;
    let seq = bounded_arg(&Web, &clock_seq, "clockSeq", u64::from(u16::MAX))? as u16;
    Ok(text(&uuids::v1_random_node(
        ms,
        extra,
        seq,
        bytes_arg(&Web, &node, "node")?,
    )))
}

#[wasm_bindgen(js_name = parseUuid)]
pub fn parse_uuid(text: JsValue) -> Result<JsValue, JsValue> {
    uuids::parse(&string_arg(&Web, &text, "text")?)
        .or_throw(&Web)
        .map(|u| self::text(&u))
}

#[wasm_bindgen(js_name = uuidInfo)]
pub fn uuid_info(uuid: JsValue) -> Result<JsValue, JsValue> {
    values::uuid_info(&Web, &uuid)
}

/// A generated ID as JavaScript sees it: a `bigint` for a Snowflake ID, a string for a UUID.
pub(crate) fn generated(id: &GeneratedId) -> JsValue {
    match id {
        GeneratedId::U64(v) => JsValue::from(*v),
        GeneratedId::Uuid(u) => text(u),
    }
}

/// `gen.next_at(now, random)` with `crypto.getRandomValues`, or the JavaScript function
/// `(n) => Uint8Array` when given (for replays), whose exception passes on as is.
pub(crate) fn next_with_random(
    gen: &mut NamedGenerator,
    now: u64,
    random: &JsValue,
) -> Result<GeneratedId, JsValue> {
    if is_nullish(&Web, random) {
        return gen.next_at(now, random::fill).or_throw(&Web);
    }
    function_arg(&Web, random, "random")?;
    let mut failure = None;
    let r = gen.next_at(now, |buf: &mut [u8]| {
        Web.call_random(random, buf).map_err(|e| {
            failure = Some(e);
            idmint::Error::RandomSource
        })
    });
    match failure {
        Some(e) => Err(e),
        None => r.or_throw(&Web),
    }
}

#[wasm_bindgen]
pub struct UuidGenerator {
    inner: NamedGenerator,
    config: NamedConfig,
}

impl UuidGenerator {
    pub(crate) fn from_named(config: NamedConfig) -> Result<UuidGenerator, JsValue> {
        Ok(UuidGenerator {
            inner: config.build().or_throw(&Web)?,
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

    pub fn next(&mut self) -> Result<JsValue, JsValue> {
        Ok(generated(&next_with_random(
            &mut self.inner,
            now_ms(),
            &JsValue::UNDEFINED,
        )?))
    }

    #[wasm_bindgen(js_name = nextAt)]
    pub fn next_at(&mut self, now_ms: JsValue, random: JsValue) -> Result<JsValue, JsValue> {
        let now = u64_arg(&Web, &now_ms, "nowMs")?;
        Ok(generated(&next_with_random(&mut self.inner, now, &random)?))
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
        let ms = match &self.inner {
            NamedGenerator::Uuid7(g) => g.last_unix_ms(),
            NamedGenerator::Uuid1(g) => g.last_unix_ms(),
            _ => None,
        };
        values::opt_big(&Web, ms)
    }
}
