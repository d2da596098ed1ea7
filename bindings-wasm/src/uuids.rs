//! UUIDs (RFC 9562) as lower-case hyphenated strings: the clocked helpers (`uuid1`, `uuid4`,
//! `uuid7`), the pure constructors that take time and randomness as arguments, parsing,
//! inspection, and `UuidGenerator`. Same members and types as the Node package.
//!
//! `uuid7()` and `uuid1()` share one generator each per module instance (a page or a worker
//! each load their own): v7 UUIDs from one instance are strictly increasing, v1 UUIDs distinct.
//! Randomness comes from `crypto.getRandomValues`, time from the clock of [`crate::clock`].

use std::cell::RefCell;

use idmint::named::{GeneratedId, NamedConfig, NamedGenerator, Uuid1Generator};
use idmint::uuids::{self, Uuid, V7Generator};
use wasm_bindgen::prelude::*;

use crate::clock::now_ms;
use crate::convert::{
    bounded_arg, bytes_arg, call_random, function_arg, is_nullish, string_arg, text_or_bytes_arg,
    u64_arg,
};
use crate::errors::{make, range_error, Class, OrThrow};
use crate::random;

#[wasm_bindgen(typescript_custom_section)]
const TS_UUIDS: &str = r#"
/** What a UUID says about itself. */
export interface UuidInfo {
  /** The version nibble (0-15). */
  version: number
  /** `ncs` (includes the nil UUID), `rfc9562`, `microsoft` or `future` (includes the max UUID). */
  variant: string
  /** Creation time in ms since the Unix epoch for RFC 9562 versions 1, 6 and 7, else `null`. */
  unixMs: bigint | null
}
"#;

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

fn namespace(v: &JsValue) -> Result<Uuid, JsValue> {
    let s = string_arg(v, "namespace")?;
    Ok(match s.as_str() {
        "dns" => uuids::NAMESPACE_DNS,
        "url" => uuids::NAMESPACE_URL,
        "oid" => uuids::NAMESPACE_OID,
        "x500" => uuids::NAMESPACE_X500,
        other => uuids::parse(other).or_throw()?,
    })
}

/// A version 1 UUID with a random node (never a MAC address) from the module-wide generator.
#[wasm_bindgen(unchecked_return_type = "string")]
pub fn uuid1() -> Result<JsValue, JsValue> {
    let now = now_ms();
    V1.with(|g| g.borrow_mut().next_at(now, random::fill))
        .or_throw()
        .map(|u| text(&u))
}

/// A version 3 (MD5, name-based) UUID. `namespace` is a UUID or `dns`, `url`, `oid`, `x500`.
#[wasm_bindgen(unchecked_return_type = "string")]
pub fn uuid3(
    #[wasm_bindgen(unchecked_param_type = "string")] namespace: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] name: JsValue,
) -> Result<JsValue, JsValue> {
    let ns = self::namespace(&namespace)?;
    let name = text_or_bytes_arg(&name, "name")?;
    Ok(text(&uuids::v3(&ns, &name)))
}

/// A version 5 (SHA-1, name-based) UUID. `namespace` is a UUID or `dns`, `url`, `oid`, `x500`.
#[wasm_bindgen(unchecked_return_type = "string")]
pub fn uuid5(
    #[wasm_bindgen(unchecked_param_type = "string")] namespace: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] name: JsValue,
) -> Result<JsValue, JsValue> {
    let ns = self::namespace(&namespace)?;
    let name = text_or_bytes_arg(&name, "name")?;
    Ok(text(&uuids::v5(&ns, &name)))
}

/// A version 4 (random) UUID from `crypto.getRandomValues`, or from the 16 bytes given.
#[wasm_bindgen(unchecked_return_type = "string")]
pub fn uuid4(
    #[wasm_bindgen(unchecked_optional_param_type = "Uint8Array")] random: JsValue,
) -> Result<JsValue, JsValue> {
    let bytes = if is_nullish(&random) {
        let mut b = [0u8; 16];
        random::fill(&mut b).or_throw()?;
        b
    } else {
        bytes_arg::<16>(&random, "random")?
    };
    Ok(text(&uuids::v4(bytes)))
}

/// A version 7 UUID from the module-wide monotonic generator: strictly increasing within
/// the page or worker, even within one millisecond.
#[wasm_bindgen(unchecked_return_type = "string")]
pub fn uuid7() -> Result<JsValue, JsValue> {
    let mut r = [0u8; 10];
    random::fill(&mut r).or_throw()?;
    let now = now_ms();
    Ok(text(&V7.with(|g| g.borrow_mut().next_at(now, r))))
}

/// A version 7 UUID from the given time and 10 random bytes (no monotonic counter).
#[wasm_bindgen(js_name = uuid7At, unchecked_return_type = "string")]
pub fn uuid7_at(
    #[wasm_bindgen(js_name = unixMs, unchecked_param_type = "bigint | number")] unix_ms: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] random: JsValue,
) -> Result<JsValue, JsValue> {
    let ms = u64_arg(&unix_ms, "unixMs")?;
    let r = bytes_arg::<10>(&random, "random")?;
    Ok(text(&uuids::v7(ms, r)))
}

/// A version 1 UUID from a 60-bit count of 100 ns intervals since 1582-10-15, a 14-bit clock
/// sequence and a 6-byte random node (its multicast bit is forced on).
#[wasm_bindgen(js_name = uuid1At, unchecked_return_type = "string")]
pub fn uuid1_at(
    #[wasm_bindgen(unchecked_param_type = "bigint | number")] ticks: JsValue,
    #[wasm_bindgen(js_name = clockSeq, unchecked_param_type = "number")] clock_seq: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] node: JsValue,
) -> Result<JsValue, JsValue> {
    let ticks = u64_arg(&ticks, "ticks")?;
    let seq = bounded_arg(&clock_seq, "clockSeq", u64::from(u16::MAX))? as u16;
    let node = bytes_arg::<6>(&node, "node")?;
    Ok(text(&uuids::v1(ticks, seq, node)))
}

/// A version 1 UUID at `unixMs` plus `extraTicks` (0..=9999) 100 ns ticks, with a
/// 14-bit clock sequence and a 6-byte random node.
#[wasm_bindgen(js_name = uuid1RandomNode, unchecked_return_type = "string")]
pub fn uuid1_random_node(
    #[wasm_bindgen(js_name = unixMs, unchecked_param_type = "bigint | number")] unix_ms: JsValue,
    #[wasm_bindgen(js_name = extraTicks, unchecked_param_type = "number")] extra_ticks: JsValue,
    #[wasm_bindgen(js_name = clockSeq, unchecked_param_type = "number")] clock_seq: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] node: JsValue,
) -> Result<JsValue, JsValue> {
    let ms = u64_arg(&unix_ms, "unixMs")?;
    let extra = bounded_arg(&extra_ticks, "extraTicks", u64::from(u16::MAX))? as u16;
    let seq = bounded_arg(&clock_seq, "clockSeq", u64::from(u16::MAX))? as u16;
    let node = bytes_arg::<6>(&node, "node")?;
    Ok(text(&uuids::v1_random_node(ms, extra, seq, node)))
}

/// Parses a UUID in any usual form (hyphenated, 32 hex digits, `{braced}`, `urn:uuid:`, any
/// case) and returns the lower-case hyphenated form; `ERR_INVALID_ENCODING` with `at`.
#[wasm_bindgen(js_name = parseUuid, unchecked_return_type = "string")]
pub fn parse_uuid(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
) -> Result<JsValue, JsValue> {
    let s = string_arg(&text, "text")?;
    uuids::parse(&s).or_throw().map(|u| self::text(&u))
}

/// Version, variant and (for v1, v6, v7) creation time of a UUID string.
#[wasm_bindgen(js_name = uuidInfo, unchecked_return_type = "UuidInfo")]
pub fn uuid_info(
    #[wasm_bindgen(unchecked_param_type = "string")] uuid: JsValue,
) -> Result<JsValue, JsValue> {
    let s = string_arg(&uuid, "uuid")?;
    let u = uuids::parse(&s).or_throw()?;
    let i = uuids::inspect(&u);
    Ok(crate::convert::object(&[
        ("version", JsValue::from_f64(f64::from(i.version))),
        ("variant", crate::convert::js_str(i.variant)),
        ("unixMs", i.unix_ms.map_or(JsValue::NULL, JsValue::from)),
    ]))
}

/// A generated ID as JavaScript sees it: a `bigint` for a Snowflake ID, a string for a UUID.
pub(crate) fn generated(id: &GeneratedId) -> JsValue {
    match id {
        GeneratedId::U64(v) => JsValue::from(*v),
        GeneratedId::Uuid(u) => text(u),
    }
}

/// Calls `gen.next_at(now, random)` where `random` is `crypto.getRandomValues`, or the
/// JavaScript function `(n) => Uint8Array` when given (for replays); an exception thrown by that
/// function is passed on as is.
pub(crate) fn next_with_random(
    gen: &mut NamedGenerator,
    now: u64,
    random: &JsValue,
) -> Result<GeneratedId, JsValue> {
    if is_nullish(random) {
        return gen.next_at(now, random::fill).or_throw();
    }
    let f = function_arg(random, "random")?;
    let mut failure = None;
    let r = gen.next_at(now, |buf: &mut [u8]| {
        call_random(&f, buf).map_err(|e| {
            failure = Some(e);
            idmint::Error::RandomSource
        })
    });
    if let Some(e) = failure {
        return Err(e);
    }
    r.or_throw()
}

/// A UUID generator (version 1, 4 or 7) on the page's clock, with a sans-IO `nextAt` for
/// replays. Version 7 is monotonic per generator; version 1 keeps one random node per generator.
#[wasm_bindgen]
pub struct UuidGenerator {
    inner: NamedGenerator,
    config: NamedConfig,
}

impl UuidGenerator {
    pub(crate) fn from_named(config: NamedConfig) -> Result<UuidGenerator, JsValue> {
        Ok(UuidGenerator {
            inner: config.build().or_throw()?,
            config,
        })
    }
}

#[wasm_bindgen]
impl UuidGenerator {
    /// A generator of `version` 1, 4 or 7 (default 7).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "1 | 4 | 7")] version: JsValue,
    ) -> Result<UuidGenerator, JsValue> {
        let v = if is_nullish(&version) {
            7
        } else {
            bounded_arg(&version, "version", 255)?
        };
        let config = match v {
            1 => NamedConfig::Uuid1,
            4 => NamedConfig::Uuid4,
            7 => NamedConfig::Uuid7,
            _ => {
                return Err(range_error(&format!(
                    "version must be 1, 4 or 7; received {v}"
                )))
            }
        };
        UuidGenerator::from_named(config)
    }

    /// A generator from a named config (`type=uuid7`, `{"type":"uuid4"}`, ...).
    #[wasm_bindgen(js_name = fromConfig)]
    pub fn from_config(
        #[wasm_bindgen(unchecked_param_type = "string")] config: JsValue,
    ) -> Result<UuidGenerator, JsValue> {
        let text = string_arg(&config, "config")?;
        let named = NamedConfig::parse(&text).or_throw()?;
        if named.snowflake_config().is_some() {
            return Err(make(
                Class::Error,
                "ERR_INVALID_CONFIG",
                "UuidGenerator.fromConfig needs type=uuid1, uuid4 or uuid7, not type=snowflake; use fromConfig() for any type",
                &[],
            ));
        }
        UuidGenerator::from_named(named)
    }

    /// The next UUID, at the current time with `crypto.getRandomValues` randomness.
    #[wasm_bindgen(unchecked_return_type = "string")]
    pub fn next(&mut self) -> Result<JsValue, JsValue> {
        let id = next_with_random(&mut self.inner, now_ms(), &JsValue::UNDEFINED)?;
        Ok(generated(&id))
    }

    /// The next UUID at `nowMs`; `random(n)` must return a `Uint8Array` of `n` bytes
    /// (default: `crypto.getRandomValues`).
    #[wasm_bindgen(js_name = nextAt, unchecked_return_type = "string")]
    pub fn next_at(
        &mut self,
        #[wasm_bindgen(js_name = nowMs, unchecked_param_type = "bigint | number")] now_ms: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "(n: number) => Uint8Array")]
        random: JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = u64_arg(&now_ms, "nowMs")?;
        let id = next_with_random(&mut self.inner, now, &random)?;
        Ok(generated(&id))
    }

    /// The UUID version (1, 4 or 7).
    #[wasm_bindgen(getter)]
    pub fn version(&self) -> u32 {
        match self.config {
            NamedConfig::Uuid1 => 1,
            NamedConfig::Uuid4 => 4,
            _ => 7,
        }
    }

    /// The type name (`uuid1`, `uuid4`, `uuid7`).
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> String {
        self.config.kind().to_string()
    }

    /// The canonical named config (`type=uuid7`).
    #[wasm_bindgen(getter)]
    pub fn config(&self) -> String {
        self.config.to_string()
    }

    /// The millisecond of the last UUID issued (v1 and v7; may run ahead of the clock), or
    /// `null` before the first and for v4.
    #[wasm_bindgen(getter, js_name = lastUnixMs, unchecked_return_type = "bigint | null")]
    pub fn last_unix_ms(&self) -> JsValue {
        let ms = match &self.inner {
            NamedGenerator::Uuid7(g) => g.last_unix_ms(),
            NamedGenerator::Uuid1(g) => g.last_unix_ms(),
            _ => None,
        };
        ms.map_or(JsValue::NULL, JsValue::from)
    }
}
