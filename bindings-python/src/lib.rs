//! `idmint._native`: the Python binding of the `idmint` core. It converts types and errors
//! only; every ID decision is the core's. One module per core module:
//!
//! | module         | core                          | Python                                              |
//! |----------------|-------------------------------|-----------------------------------------------------|
//! | `errors`       | `Error`, `ErrorKind`          | `IdmintError` and one subclass per kind              |
//! | `layout`       | `layout`                      | `Layout`, `Field`, `Parts`                           |
//! | `generator`    | `Snowflake`, `AtomicSnowflake`| `Snowflake`, `AtomicSnowflake`, `Stats`, `Run`       |
//! | `codec`        | `codec`                       | `encode`, `decode_str`                               |
//! | `obfuscate`    | `obfuscate`                   | `Obfuscator`, `SortableObfuscator`                   |
//! | `uuids`        | `uuids`, `named` (UUID kinds) | `uuid1/3/4/5/7`, `UuidGenerator`, `uuid_info`, ...   |
//! | `leased`       | `idmint_coord::leased`        | `LeasedSnowflake`, `LeaseInfo`, `LeaseStats`         |
//! | `segment`      | `idmint_coord::segment`       | `SegmentAllocator`, `SegmentKeyStats`                |
//!
//! The module supports free-threaded Python (`gil_used = false`): every class is `frozen`,
//! generators are lock-free (Snowflake) or hold a short internal lock (UUIDs).

use idmint::named::NamedConfig;
use pyo3::prelude::*;

mod codec;
mod convert;
mod errors;
mod generator;
mod layout;
mod leased;
mod obfuscate;
mod segment;
mod uuids;

use errors::IntoPyResult;

/// The clocked generator a named config describes: a `Snowflake` for `type=snowflake`, a
/// `UuidGenerator` for `type=uuid1|uuid4|uuid7`. Both iterate (`next(gen)`).
#[pyfunction]
fn from_config(py: Python<'_>, config: &str) -> PyResult<Py<PyAny>> {
    let named = NamedConfig::parse(config).py()?;
    Ok(match named.snowflake_config() {
        Some(cfg) => Bound::new(py, generator::PySnowflake::build(*cfg)?)?
            .into_any()
            .unbind(),
        None => Bound::new(py, uuids::PyUuidGenerator::from_named(named)?)?
            .into_any()
            .unbind(),
    })
}

/// Benchmark only: an empty function returning a large int, the floor a `next_id()` call
/// cannot beat (argument-free call plus one int object). Not part of the API.
#[pyfunction]
fn _bench_floor() -> u64 {
    0x0123_4567_89ab_cdef
}

#[pymodule(gil_used = false)]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_BATCH", idmint::limits::MAX_BATCH)?;
    errors::register(m)?;
    m.add_class::<layout::PyLayout>()?;
    m.add_class::<layout::PyField>()?;
    m.add_class::<layout::PyParts>()?;
    m.add("PRESETS", idmint::preset::NAMES.to_vec())?;
    m.add_class::<generator::PySnowflake>()?;
    m.add_class::<generator::PyAtomicSnowflake>()?;
    m.add_class::<generator::PyStats>()?;
    m.add_class::<generator::PyRun>()?;
    m.add_function(wrap_pyfunction!(codec::encode, m)?)?;
    m.add_function(wrap_pyfunction!(codec::decode_str, m)?)?;
    m.add(
        "CODECS",
        idmint::codec::Codec::ALL
            .iter()
            .map(|c| c.name())
            .collect::<Vec<_>>(),
    )?;
    m.add_class::<obfuscate::PyObfuscator>()?;
    m.add_class::<obfuscate::PySortableObfuscator>()?;
    m.add_class::<uuids::PyUuidGenerator>()?;
    m.add_class::<uuids::PyUuidInfo>()?;
    m.add_function(wrap_pyfunction!(uuids::uuid1, m)?)?;
    m.add_function(wrap_pyfunction!(uuids::uuid3, m)?)?;
    m.add_function(wrap_pyfunction!(uuids::uuid4, m)?)?;
    m.add_function(wrap_pyfunction!(uuids::uuid5, m)?)?;
    m.add_function(wrap_pyfunction!(uuids::uuid7, m)?)?;
    m.add_function(wrap_pyfunction!(uuids::uuid7_at, m)?)?;
    m.add_function(wrap_pyfunction!(uuids::uuid1_at, m)?)?;
    m.add_function(wrap_pyfunction!(uuids::uuid1_random_node, m)?)?;
    m.add_function(wrap_pyfunction!(uuids::parse_uuid, m)?)?;
    m.add_function(wrap_pyfunction!(uuids::uuid_info, m)?)?;
    m.add_class::<leased::PyLeasedSnowflake>()?;
    m.add_class::<leased::PyLeaseInfo>()?;
    m.add_class::<leased::PyLeaseStats>()?;
    m.add_class::<segment::PySegmentAllocator>()?;
    m.add_class::<segment::PySegmentKeyStats>()?;
    m.add_function(wrap_pyfunction!(from_config, m)?)?;
    m.add_function(wrap_pyfunction!(_bench_floor, m)?)?;
    // Fork needs no hook here: the core's `pthread_atfork` handler (run by `os.fork()`)
    // restarts the UUID generators and the random pool in the child, and Snowflake
    // generators refuse in the child until given a node of their own (LeasedSnowflake for
    // good: the lease is the parent's).
    Ok(())
}
