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
//! This build is the package's entry `idmint-web/wasm` (the core itself, compiled) and the
//! reference the package's JavaScript entries (`js/`, a port of the core's rules: see
//! js/full.js for why) are tested against, call by call (tests/js/).
//!
//! Every conversion, option object and error mapping comes from the shared crate `idmint-js`
//! (bindings-js), which the Node package uses too. `index.d.ts` and `web.d.ts` are generated
//! from bindings-js/idmint.d.ts, the one declaration of both packages (`scripts/build.sh`), and
//! `scripts/glue.mjs` completes wasm-bindgen's JavaScript where Rust cannot: the receiver check
//! of every method (`ERR_CLOSED` once freed), own per-ID methods, the parked errors of the
//! per-ID methods (see [`error`]) and the UUID text helper (see [`convert`]).

mod clock;
mod convert;
mod error;
mod functions;
mod layout;
mod leased;
mod named;
mod obfuscate;
mod random;
mod snowflake;
#[cfg(test)]
mod tests;
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
#[wasm_bindgen(js_name = "_benchFloor", skip_typescript)]
pub fn bench_floor() -> u64 {
    0x0123_4567_89ab_cdef
}

/// Benchmark only, not part of the API (and not declared in `index.d.ts`): `_benchFloor` plus
/// one read of the time source as clocked calls read it (`Date.now()`, and `performance.now()`
/// once per millisecond), the floor of any clocked call.
#[wasm_bindgen(js_name = "_benchFloorClock", skip_typescript)]
pub fn bench_floor_clock() -> u64 {
    clock::now_ms()
}

/// Benchmark only, not part of the API (and not declared in `index.d.ts`): `_benchFloor` plus
/// one `Date.now()` call.
#[wasm_bindgen(js_name = "_benchFloorDate", skip_typescript)]
pub fn bench_floor_date() -> u64 {
    clock::date_ms()
}

/// Benchmark only, not part of the API (and not declared in `index.d.ts`): `_benchFloor` plus
/// one `performance.timeOrigin + performance.now()` reading, for comparison.
#[wasm_bindgen(js_name = "_benchFloorPrecise", skip_typescript)]
pub fn bench_floor_precise() -> u64 {
    clock::precise_ms()
}
