//! The browser (WebAssembly) binding of idmint, npm package `idmint-web`: wasm-bindgen exports
//! that only convert types and errors; every ID rule lives in the core crate (`no_std` +
//! `alloc`, without its `std` clock). Same API and `.d.ts` shape as the Node package.
//!
//! | module      | exports                                                                |
//! |-------------|------------------------------------------------------------------------|
//! | `layout`    | `Layout`                                                               |
//! | `snowflake` | `Snowflake`, `AtomicSnowflake`, `randomNode`                            |
//! | `leased`    | `LeasedSnowflake`'s checked options, its grant's generator and lease window (the class itself and its requests: `leased.js`) |
//! | `named`     | `NamedGenerator`, `fromConfig`                                          |
//! | `uuid`      | the clocked `uuid1/4/6/7`, `uuid7s`, `typeid`, `ulid`; `UuidGenerator`, `Uuid7Generator`, `UlidGenerator` |
//! | `functions` | `encode`, `parseId`, the sans-IO UUID/TypeID/ULID functions, parsing (listed in bindings-js) |
//! | `obfuscate` | `Obfuscator`, `SortableObfuscator`                                      |
//! | `clock`     | the time source (`performance.timeOrigin + performance.now()`) and bounded waiting |
//! | `random`    | `crypto.getRandomValues`                                                |
//! | `convert`   | the shared crate's `Host` on `JsValue`s (conversions, errors: `idmint-js`) |
//! | `error`     | the parked errors of the per-ID methods                                |
//!
//! The WebAssembly entries of the npm package are builds with the cargo features of their part
//! of the API: `formats` (`uuid`, the format half of `functions`: `idmint-web/formats`) and
//! `full`, the default (`snowflake` — `layout`, `snowflake`, `error` — and `formats`, plus
//! `leased`, `named`, `obfuscate` and the codecs: `idmint-web`). The Snowflake-only entry
//! `idmint-web/snowflake` is JavaScript (`js/`), a port of the core's Snowflake rules tested
//! against this crate's build.
//!
//! Every conversion, option object and error mapping comes from the shared crate `idmint-js`
//! (bindings-js), which the Node package uses too. `index.d.ts` and `web.d.ts` are generated
//! from bindings-js/idmint.d.ts, the one declaration of both packages (`scripts/build.sh`), and
//! `scripts/glue.mjs` completes wasm-bindgen's JavaScript where Rust cannot: the receiver check
//! of every method (`ERR_CLOSED` once freed), own per-ID methods, the parked errors of the
//! per-ID methods (see [`error`]) and the UUID text helper (see [`convert`]).

// Each WebAssembly entry is one build with the cargo features of its part of the API
// (Cargo.toml, scripts/build.sh): `formats`, or `snowflake`, `formats` and the rest (`full`).
#[cfg(not(any(feature = "snowflake", feature = "formats")))]
compile_error!("build with the feature `snowflake`, `formats` or `full` (the default)");

mod clock;
mod convert;
#[cfg(feature = "snowflake")]
mod error;
#[cfg(feature = "formats")]
mod functions;
#[cfg(feature = "snowflake")]
mod layout;
#[cfg(feature = "full")]
mod leased;
#[cfg(feature = "full")]
mod named;
#[cfg(feature = "full")]
mod obfuscate;
mod random;
#[cfg(feature = "snowflake")]
mod snowflake;
#[cfg(all(test, feature = "full"))]
mod tests;
#[cfg(feature = "formats")]
mod uuid;

use wasm_bindgen::prelude::*;

/// Talc instead of the standard library's dlmalloc (see Cargo.toml). The module is
/// single-threaded (no `atomics` target feature): the allocator needs no lock.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// The package version (the workspace version; equals package.json's).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// Benchmark only, not part of the API (and not declared in `index.d.ts`): an empty call
/// returning a `bigint`, the floor of any export that returns one (see BENCHMARKS-wasm.md).
#[cfg(feature = "snowflake")]
#[wasm_bindgen(js_name = "_benchFloor", skip_typescript)]
pub fn bench_floor() -> u64 {
    0x0123_4567_89ab_cdef
}

/// Benchmark only, not part of the API (and not declared in `index.d.ts`): `_benchFloor` plus
/// one read of the time source as clocked calls read it (`Date.now()`, and `performance.now()`
/// once per millisecond), the floor of any clocked call.
#[cfg(feature = "snowflake")]
#[wasm_bindgen(js_name = "_benchFloorClock", skip_typescript)]
pub fn bench_floor_clock() -> u64 {
    clock::now_ms()
}

/// Benchmark only, not part of the API (and not declared in `index.d.ts`): `_benchFloor` plus
/// one `Date.now()` call.
#[cfg(feature = "snowflake")]
#[wasm_bindgen(js_name = "_benchFloorDate", skip_typescript)]
pub fn bench_floor_date() -> u64 {
    clock::date_ms()
}

/// Benchmark only, not part of the API (and not declared in `index.d.ts`): `_benchFloor` plus
/// one `performance.timeOrigin + performance.now()` reading, for comparison.
#[cfg(feature = "snowflake")]
#[wasm_bindgen(js_name = "_benchFloorPrecise", skip_typescript)]
pub fn bench_floor_precise() -> u64 {
    clock::precise_ms()
}
