//! idmint's shared test vectors: JSON files that pin the exact behaviour of the core, so every
//! surface (Rust, Python, Node, C, wasm) can replay the same inputs and expect the same outputs.
//!
//! [`generate`] builds every file in memory from the core; the `gen-vectors` binary writes them
//! next to this crate's manifest, and `tests/replay.rs` fails when the committed files are stale
//! and replays them against the core with an independent JSON reader. See `README.md` for the
//! JSON shapes.

use serde_json::{Map, Value};

use idmint::{Error, FieldValue};

mod codecs;
mod formats;
mod generators;
mod layouts;
mod named;
mod obfuscation;
mod uuids;

/// The command that regenerates the committed files.
pub const REGENERATE: &str = "cargo run -p idmint-vectors --bin gen-vectors";

/// A fixed "now" used throughout: 2023-11-14T22:13:20Z.
pub(crate) const T0: u64 = 1_700_000_000_000;

/// Every vector file, as (file name, JSON), in a fixed order.
pub fn generate() -> Vec<(&'static str, Value)> {
    vec![
        ("layouts.json", layouts::generate()),
        ("generators.json", generators::generate()),
        ("codecs.json", codecs::generate()),
        ("obfuscation.json", obfuscation::generate()),
        ("uuids.json", uuids::generate()),
        ("named.json", named::generate()),
        ("formats.json", formats::generate()),
    ]
}

/// The exact bytes written for a vector file: pretty-printed JSON (two-space indent, keys in
/// sorted order) and a trailing newline.
pub fn render(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// The directory the vector files live in (this crate's directory).
pub fn dir() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A u64 as a decimal string (JSON numbers lose precision above 2^53 in JavaScript).
pub(crate) fn s(v: u64) -> Value {
    Value::String(v.to_string())
}

/// Lower-case hex of bytes.
pub(crate) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Deterministic bytes (SplitMix64 of `seed`); the files carry the bytes themselves, so
/// replayers never need this function.
pub(crate) fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut z = seed;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut x = z;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^= x >> 31;
        out.extend(x.to_be_bytes().iter().take(n - out.len()));
    }
    out
}

/// Builds a JSON object from (key, value) pairs.
pub(crate) fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k.to_string(), v);
    }
    Value::Object(m)
}

/// Adds (key, value) pairs to an object.
pub(crate) fn extend<const N: usize>(mut v: Value, pairs: [(&str, Value); N]) -> Value {
    if let Value::Object(m) = &mut v {
        for (k, x) in pairs {
            m.insert(k.to_string(), x);
        }
    }
    v
}

/// The error as it appears in the vectors: `error` (the stable code from `Error::code()`),
/// `message` (its `Display`), and the variant's fields (u64s as decimal strings, `at` and
/// `needed` as numbers, names and reasons as strings).
pub(crate) fn error(e: &Error) -> Value {
    let mut m = Map::new();
    m.insert("error".into(), Value::from(e.code()));
    m.insert("message".into(), Value::from(e.to_string()));
    for f in e.fields() {
        let v = match f.value {
            FieldValue::Str(t) => Value::from(t),
            FieldValue::Count(n) => Value::from(n),
            FieldValue::U64(n) => s(n),
        };
        m.insert(f.name.into(), v);
    }
    Value::Object(m)
}

/// A case: its inputs plus `"expect"`: the success fields or the error object.
pub(crate) fn case<const N: usize>(inputs: [(&str, Value); N], expect: Value) -> Value {
    extend(obj(inputs), [("expect", expect)])
}

/// `{"id": ...}`-style success or the error object.
pub(crate) fn outcome<T>(r: Result<T, Error>, ok: impl FnOnce(T) -> Value) -> Value {
    match r {
        Ok(v) => ok(v),
        Err(e) => error(&e),
    }
}
