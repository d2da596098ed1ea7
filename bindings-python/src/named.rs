//! Generators by name (`idmint_coord::named`): `from_config(config)` and `NamedGenerator`.
//!
//! The coordination crate reads the config: a type of the core comes back as its config and
//! becomes this package's own `Snowflake` or `UuidGenerator`; a store-backed type
//! (`type=segment,store=…,key=…`, `type=snowflake,…,lease=…`) or one a Rust program registered
//! comes back built, and is wrapped as a `NamedGenerator`. Building one and every call that can
//! reach its store run detached from the interpreter.

use idmint::host_random::draw_outside;
use idmint::named::clocked::random_fill;
use idmint::named::GeneratedId;
use idmint_coord::named::{self, Named, NamedSource};
use pyo3::prelude::*;

use crate::convert::array_filled;
use crate::error::IntoPyResult;
use crate::methods::{py_methods, Handle};
use crate::snowflake::PySnowflake;
use crate::uuid::{random_callback, PyUuid, PyUuidGenerator};

type Source = Box<dyn NamedSource>;

/// An ID as Python has it: `int` for 64-bit types, `uuid.UUID` for UUID types.
fn to_py(py: Python<'_>, id: GeneratedId) -> PyResult<Py<PyAny>> {
    Ok(match id {
        GeneratedId::U64(v) => v.into_pyobject(py)?.into_any().unbind(),
        GeneratedId::Uuid(u) => PyUuid(u).into_pyobject(py)?.unbind(),
    })
}

/// The generator a named config describes: a `Snowflake` for `type=snowflake` with `node=`, a
/// `UuidGenerator` for `type=uuid1|uuid4|uuid6|uuid7`, and a `NamedGenerator` for the
/// store-backed types (`type=segment,store=URL,key=KEY`, `type=snowflake,...,lease=URL`). All
/// iterate (`next(gen)`).
#[pyfunction]
pub fn from_config(py: Python<'_>, config: &str) -> PyResult<Py<PyAny>> {
    Ok(match py.detach(|| named::resolve(config)).py()? {
        Named::Core(named) => match named.snowflake_config() {
            Some(cfg) => Bound::new(py, PySnowflake::build(*cfg)?)?
                .into_any()
                .unbind(),
            None => Bound::new(py, PyUuidGenerator::from_named(named)?)?
                .into_any()
                .unbind(),
        },
        Named::Source(source) => Bound::new(py, PyNamedGenerator::wrap(source))?
            .into_any()
            .unbind(),
    })
}

/// Any generator by name, the same config on every idmint surface: the core's types
/// (`type=snowflake,layout=twitter,node=5`, `type=uuid7`), a segment allocator serving one key
/// (`type=segment,store=sqlite:ids.db,key=orders[,step=N,journal=PATH,...]`) or a Snowflake
/// generator on a leased node (`type=snowflake,layout=twitter,lease=redis://...[,namespace=...,
/// ttl_ms=...]`). Thread-safe.
///
/// `close()` (or leaving a `with` block) releases what it holds: a leased node with its exact
/// last issued time, a segment allocator's journal.
#[pyclass(frozen, module = "idmint", name = "NamedGenerator")]
pub struct PyNamedGenerator {
    inner: Handle<Source>,
    kind: String,
}

impl PyNamedGenerator {
    fn wrap(source: Source) -> Self {
        PyNamedGenerator {
            kind: source.kind().to_owned(),
            inner: Handle::new(source),
        }
    }

    fn with<R>(&self, f: impl FnOnce(&dyn NamedSource) -> PyResult<R>) -> PyResult<R> {
        self.inner.with("NamedGenerator", |s| f(&**s))
    }

    /// Releases the lease or records the journal (`close()`).
    fn shut(s: Source) -> idmint::Result<()> {
        s.close()
    }
}

py_methods!(PyNamedGenerator; closable {
    #[new]
    fn new(py: Python<'_>, config: &str) -> PyResult<Self> {
        Ok(Self::wrap(py.detach(|| named::build(config)).py()?))
    }

    /// The next ID: an `int` (64-bit types) or a `uuid.UUID` (UUID types). Waits without the
    /// GIL where the type does (a Snowflake's next tick, a segment store's next range).
    fn next_id(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let id = self.with(|s| py.detach(|| s.next_id()).py())?;
        to_py(py, id)
    }

    /// Sans-IO, for the core's types (`snowflake` with `node=`, `uuid1|4|6|7`): the next ID at
    /// `now_ms` (ms since the Unix epoch), exactly as every surface's `next_at` answers for the
    /// same config, `now_ms` and bytes. `random(n)` must return `n` random bytes (None draws
    /// them from the OS); it runs with the generator unlocked, so it may call this generator
    /// again (or close it). A store-backed type raises InvalidConfig.
    #[pyo3(signature = (now_ms, random = None))]
    fn next_at(
        &self,
        py: Python<'_>,
        now_ms: u64,
        random: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let id = match random_callback(random)? {
            None => self.with(|s| s.next_at(now_ms, &mut random_fill).py())?,
            // The bytes are drawn with the handle released (`draw_outside`): the callback may
            // call `next_at` or `close()` here again without waiting for itself.
            Some(random) => draw_outside(
                |fill| match self.with(|s| Ok(s.next_at(now_ms, fill))) {
                    Ok(r) => r.map(Ok),
                    Err(closed) => Ok(Err(closed)),
                },
                random,
            )?
            .py()??,
        };
        to_py(py, id)
    }

    /// The next `n` IDs of a 64-bit type, in order, as `array.array('Q')` (at most
    /// `MAX_BATCH`); a UUID type raises InvalidConfig.
    fn next_ids<'py>(&self, py: Python<'py>, n: u64) -> PyResult<Bound<'py, PyAny>> {
        self.with(|s| array_filled(py, n, |out| s.fill_u64(out)))
    }

    /// The type name: `snowflake`, `uuid7`, `segment`, ...
    #[getter]
    fn kind(&self) -> &str {
        &self.kind
    }

    /// The config it was built from (canonical for the core's types; with passwords in store
    /// URLs hidden).
    #[getter]
    fn config(&self) -> PyResult<String> {
        self.with(|s| Ok(s.config()))
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.next_id(py)
    }

    fn __repr__(&self) -> String {
        let config = self.with(|s| Ok(s.config()));
        match config {
            Ok(c) => format!("<NamedGenerator {c}>"),
            Err(_) => format!("<NamedGenerator {} (closed)>", self.kind),
        }
    }
});
