//! The Node.js binding of idmint: a napi addon that only declares the classes and functions
//! and converts; every ID rule lives in the core crate, and every conversion, option object and
//! error mapping in the shared crate `idmint-js` (bindings-js), which the browser package uses
//! too. The API is declared and documented once, in bindings-js/idmint.d.ts (index.d.ts is
//! generated from it).
//!
//! | module      | exports                                                                |
//! |-------------|------------------------------------------------------------------------|
//! | `layout`    | `Layout`                                                               |
//! | `snowflake` | `Snowflake`, `AtomicSnowflake` (per-ID methods of `Snowflake`: `fast`)  |
//! | `leased`    | `LeasedSnowflake` (the `idmint-coord` crate)                            |
//! | `segment`   | `SegmentAllocator` (the `idmint-coord` crate)                           |
//! | `named`     | `NamedGenerator`, `fromConfig`                                          |
//! | `uuid`      | the clocked `uuid1/4/6/7`, `uuid7s`, `typeid`, `ulid`; `UuidGenerator`, `Uuid7Generator`, `UlidGenerator` |
//! | `functions` | `encode`, `parseId`, the sans-IO UUID/TypeID/ULID functions, parsing (listed in bindings-js) |
//! | `obfuscate` | `Obfuscator`, `SortableObfuscator`                                      |
//! | `convert`   | the shared crate's `Host` on Node-API values                           |
//! | `error`     | throwing with Node-API                                                 |
//! | `release`   | shutting down store-backed objects collected without `close()`          |
//! | `fast`      | hand-registered per-ID methods and `_benchFloor` (speed)               |
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

mod convert;
mod error;
mod fast;
mod functions;
mod layout;
mod leased;
mod named;
mod obfuscate;
mod release;
mod segment;
mod snowflake;
mod uuid;

use napi_derive::napi;

#[napi(catch_unwind)]
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}
