//! The Node.js binding of idmint: a napi addon that only converts types and errors; every ID
//! rule lives in the core crate.
//!
//! | module      | exports                                                                |
//! |-------------|------------------------------------------------------------------------|
//! | `layout`    | `Layout` (and the `Parts`, `Field`, `ComposeParts` shapes)           |
//! | `generator` | `Snowflake`, `AtomicSnowflake` (and `SnowflakeOptions`, `Stats`, `Run`) |
//! | `named`     | `NamedGenerator`, `fromConfig`                                          |
//! | `uuids`     | `uuid1/3/4/5/7`, `uuid7At`, `uuid1At`, `uuid1RandomNode`, `parseUuid`, `uuidInfo`, `UuidGenerator` |
//! | `codec`     | `encode`, `decodeString`                                                |
//! | `obfuscate` | `Obfuscator`, `SortableObfuscator`                                      |
//! | `coord`     | `LeasedSnowflake`, `SegmentAllocator` (the `idmint-coord` crate)         |
//! | `convert`   | argument conversions (`TypeError` / `RangeError` on bad input)          |
//! | `errors`    | how errors become JavaScript exceptions (`code`, fields)                |
//! | `fast`      | hand-registered per-ID `Snowflake` methods and `_benchFloor` (speed)    |
//!
//! `index.d.ts` is generated from these declarations (`npm run build`).
//!
//! No path may panic (every export runs under `catch_unwind`, so a panic would be thrown as an
//! `Error`, but it would be a bug): the lints below keep the usual sources of panics out.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable,
    clippy::todo
)]

mod codec;
mod convert;
mod coord;
mod errors;
mod fast;
mod generator;
mod layout;
mod named;
mod obfuscate;
mod uuids;

use napi_derive::napi;

/// The package version (the workspace version; equals package.json's).
#[napi(catch_unwind)]
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Benchmark only, not part of the API: an empty call returning a `bigint`, the floor of any
/// napi call that returns one (see BENCHMARKS-node.md).
#[napi(js_name = "_benchFloor", catch_unwind)]
pub fn bench_floor() -> u64 {
    0x0123_4567_89ab_cdef
}
