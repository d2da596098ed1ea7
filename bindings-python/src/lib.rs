//! `idmint._native`: the Python binding of the `idmint` core. It converts types and errors
//! only; every ID decision is the core's. One module per core module:
//!
//! | module      | core                                   | Python                                                   |
//! |-------------|----------------------------------------|----------------------------------------------------------|
//! | `error`     | `Error`, `ErrorKind`                   | `IdmintError` and one subclass per kind                  |
//! | `layout`    | `snowflake::layout`                    | `Layout`, `Field`, `Parts`                               |
//! | `options`   | `snowflake::options`, `coord::options` | keyword arguments → the core's options by key            |
//! | `snowflake` | `Snowflake`, `AtomicSnowflake`         | `Snowflake`, `AtomicSnowflake`                           |
//! | `stats`     | `Stats`, `Run`                         | `Stats`, `Run`                                           |
//! | `clock`     | `Clock`                                | (the system clock, waiting without the GIL)              |
//! | `codec`     | `codec`                                | `encode`, `parse_id`                                     |
//! | `obfuscate` | `obfuscate`                            | `Obfuscator`, `SortableObfuscator`                       |
//! | `uuid`      | `formats::uuid`, `named` (UUID kinds)  | `uuid1/3/4/5/6/7/8`, `UuidGenerator`, `Uuid7Generator`, ... |
//! | `formats`   | `formats::{typeid, ulid, ksuid, any_id}` | `typeid`, `ulid`, `ksuid`, their classes and generators, `parse_any` |
//! | `int128`    | —                                      | a UUID's 128 bits as an `int`, CPython's fast way        |
//! | `leased`    | `idmint_coord::lease`                  | `LeasedSnowflake`, `LeaseInfo`, `LeaseStats`             |
//! | `segment`   | `idmint_coord::segment`                | `SegmentAllocator`, `SegmentKeyStats`                    |
//! | `named`     | `idmint_coord::named`                  | `from_config`, `NamedGenerator`                          |
//!
//! The module supports free-threaded Python (`gil_used = false`): every class is `frozen`,
//! generators are lock-free (Snowflake) or hold a short internal lock (UUIDs). `methods` writes
//! the method sets classes share once; `convert` holds pure value conversions.

use pyo3::prelude::*;

mod methods;

mod clock;
mod codec;
mod convert;
mod error;
mod formats;
mod int128;
mod layout;
mod leased;
mod named;
mod obfuscate;
mod options;
mod segment;
mod snowflake;
mod stats;
mod uuid;

/// Benchmark only: an empty function returning a large int, the floor a `next_id()` call
/// cannot beat (argument-free call plus one int object). Not part of the API.
#[pyfunction]
fn _bench_floor() -> u64 {
    0x0123_4567_89ab_cdef
}

/// What a user of the light wheel installs for a store URL it was built without: the message of
/// coord's `InvalidConfig` for such a URL ends with it.
#[cfg(not(feature = "stores"))]
const INSTALL_STORES: &str = "pip install 'idmint[stores]'";

/// The module: `idmint._native` in the wheel `idmint`, `idmint_stores._native` (the same classes,
/// with every store) in the add-on wheel `idmint-stores`; `idmint/__init__.py` picks one.
#[pymodule(gil_used = false)]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    #[cfg(not(feature = "stores"))]
    idmint_coord::scheme::set_install_hint(INSTALL_STORES);
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_BATCH", idmint::limits::MAX_BATCH)?;
    error::register(m)?;
    m.add_class::<layout::PyLayout>()?;
    m.add_class::<layout::PyField>()?;
    m.add_class::<layout::PyParts>()?;
    m.add("PRESETS", idmint::snowflake::preset::NAMES.to_vec())?;
    m.add_class::<snowflake::PySnowflake>()?;
    m.add_class::<snowflake::PyAtomicSnowflake>()?;
    m.add_class::<stats::PyStats>()?;
    m.add_class::<stats::PyRun>()?;
    m.add_function(wrap_pyfunction!(codec::encode, m)?)?;
    m.add_function(wrap_pyfunction!(codec::parse_id, m)?)?;
    m.add(
        "CODECS",
        idmint::codec::Codec::ALL
            .iter()
            .map(|c| c.name())
            .collect::<Vec<_>>(),
    )?;
    m.add_class::<obfuscate::PyObfuscator>()?;
    m.add_class::<obfuscate::PySortableObfuscator>()?;
    m.add_class::<uuid::PyUuidGenerator>()?;
    m.add_class::<uuid::PyUuidInfo>()?;
    m.add_function(wrap_pyfunction!(uuid::uuid1, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid3, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid4, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid5, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid7, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid7_at, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid1_at, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid1_random_node, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::parse_uuid, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid_info, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid6, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid6_at, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid8, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid8_from_fields, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid8_fields, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid8_sha256, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid1_to_uuid6, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid6_to_uuid1, m)?)?;
    m.add_function(wrap_pyfunction!(uuid::uuid7s, m)?)?;
    m.add_class::<uuid::PyUuid7Generator>()?;
    m.add("NIL", uuid::PyUuid(idmint::formats::uuid::NIL))?;
    m.add("MAX", uuid::PyUuid(idmint::formats::uuid::MAX))?;
    m.add_function(wrap_pyfunction!(formats::typeid, m)?)?;
    m.add_function(wrap_pyfunction!(formats::ulid, m)?)?;
    m.add_class::<formats::PyTypeId>()?;
    m.add_class::<formats::PyUlid>()?;
    m.add_class::<formats::PyTypeIdGenerator>()?;
    m.add_class::<formats::PyUlidGenerator>()?;
    m.add_function(wrap_pyfunction!(formats::ksuid, m)?)?;
    m.add_class::<formats::PyKsuid>()?;
    m.add_class::<formats::PyKsuidGenerator>()?;
    m.add_function(wrap_pyfunction!(formats::parse_any, m)?)?;
    m.add_class::<formats::PyAnyId>()?;
    m.add_class::<leased::PyLeasedSnowflake>()?;
    m.add_class::<leased::PyLeaseInfo>()?;
    m.add_class::<leased::PyLeaseStats>()?;
    m.add_class::<segment::PySegmentAllocator>()?;
    m.add_class::<segment::PySegmentKeyStats>()?;
    m.add_class::<named::PyNamedGenerator>()?;
    m.add_function(wrap_pyfunction!(named::from_config, m)?)?;
    m.add_function(wrap_pyfunction!(_bench_floor, m)?)?;
    // Fork needs no hook here: the core's `pthread_atfork` handler (run by `os.fork()`)
    // restarts the UUID generators and the random streams in the child, and Snowflake
    // generators refuse in the child until given a node of their own (LeasedSnowflake for
    // good: the lease is the parent's).
    Ok(())
}
