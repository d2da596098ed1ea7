//! `Snowflake` (the clocked, fork-detecting front door) and `AtomicSnowflake` (sans-IO, for
//! replays and your own clock): the core's generators, their methods written once by
//! [`py_methods!`].
//!
//! Both classes are `frozen`: every method takes `&self` and the core types are lock-free
//! (`AtomicSnowflake` inside both), so they are safe to share between threads with or without
//! the GIL.

use idmint::{AtomicSnowflake, Config, Snowflake};
use pyo3::prelude::*;

use crate::clock::{detached, GilFreeClock};
use crate::convert::{array_filled, array_from, fill_array, zeroed};
use crate::error::IntoPyResult;
use crate::layout::{decode, LayoutArg, NodeArg, PyLayout, PyParts};
use crate::methods::py_methods;
use crate::options;
use crate::stats::{PyRun, PyStats};

/// A thread-safe, fork-safe Snowflake generator on the system clock.
#[pyclass(frozen, module = "idmint", name = "Snowflake")]
pub struct PySnowflake {
    inner: Snowflake<GilFreeClock>,
    /// The config as given: the core replaces a zero seed of `random` starts with one from the
    /// OS, which `config` and `repr` must not reveal.
    given: Config,
}

impl PySnowflake {
    /// Builds the clocked generator for `cfg`.
    pub fn build(cfg: Config) -> PyResult<Self> {
        let inner = Snowflake::with_clock(cfg, GilFreeClock::default()).py()?;
        Ok(PySnowflake { inner, given: cfg })
    }

    #[inline]
    fn with<R>(&self, f: impl FnOnce(&Snowflake<GilFreeClock>) -> PyResult<R>) -> PyResult<R> {
        f(&self.inner)
    }

    /// A single-ID call runs attached: the clock detaches only to wait.
    #[inline]
    fn one<T>(_: Python<'_>, f: impl FnOnce() -> T) -> T {
        f()
    }
}

py_methods!(PySnowflake; generator clocked sans_io {
    /// Reserves a run of up to `max` IDs from one tick (waiting without the GIL if needed).
    fn reserve(&self, py: Python<'_>, max: u64) -> PyResult<PyRun> {
        let g = &self.inner;
        detached(py, || g.reserve(max)).py().map(PyRun)
    }

    /// The canonical on_backwards policy text.
    #[getter]
    fn on_backwards(&self) -> String {
        self.inner.config().on_backwards_policy().to_string()
    }

    /// The canonical on_exhausted policy text.
    #[getter]
    fn on_exhausted(&self) -> String {
        self.inner.config().on_exhausted_policy().to_string()
    }

    /// The canonical sequence_start policy text.
    #[getter]
    fn sequence_start(&self) -> String {
        self.inner.config().sequence_start_policy().to_string()
    }

    /// `"snowflake"`.
    #[getter]
    fn kind(&self) -> &'static str {
        "snowflake"
    }

    fn __repr__(&self) -> String {
        format!("<Snowflake {} (node now {})>", self.config(), self.inner.node())
    }
});

/// The lock-free, sans-IO generator: you pass `now_ms`; it never reads a clock, waits or
/// detects fork (use `Snowflake` for that). For replays, simulations and your own clock.
#[pyclass(frozen, module = "idmint", name = "AtomicSnowflake")]
pub struct PyAtomicSnowflake {
    inner: AtomicSnowflake,
    given: Config,
}

impl PyAtomicSnowflake {
    fn build(cfg: Config) -> PyResult<Self> {
        let inner = AtomicSnowflake::new(cfg).py()?;
        Ok(PyAtomicSnowflake { inner, given: cfg })
    }

    fn with<R>(&self, f: impl FnOnce(&AtomicSnowflake) -> PyResult<R>) -> PyResult<R> {
        f(&self.inner)
    }
}

py_methods!(PyAtomicSnowflake; generator sans_io {
    /// Deepest step back (ticks) `rollback_counter` can bridge; None for other policies.
    #[getter]
    fn max_rollback_ticks(&self) -> Option<u64> {
        self.inner.config().max_rollback_ticks()
    }

    fn __repr__(&self) -> String {
        format!("<AtomicSnowflake {}>", self.config())
    }
});
