//! `SegmentAllocator` (`idmint_coord::segment`): IDs per key from ranges taken from a store
//! (`sqlite:PATH`, `postgres://...`, `redis://...`) one round trip per range, served from a
//! double buffer, with an optional remainder journal; and `SegmentKeyStats`.
//!
//! Range fetches run on the allocator's own background thread. A call waits only when both
//! buffers of its key are empty (the first call for a key, an outage longer than the buffers
//! last); every call that can wait, and the constructor and `close()`, which talk to the store
//! or the journal, run detached from the interpreter.

use std::path::PathBuf;

use idmint::OptionValue::{Int, Text};
use idmint_coord::options::SegmentAllocatorOptions;
use idmint_coord::segment::{KeyStats, SegmentAllocator, SegmentStore};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::convert::array_filled;
use crate::error::{to_py, IntoPyResult};
use crate::methods::{py_methods, Handle};
use crate::obfuscate::PyObfuscator;

type Allocator = SegmentAllocator<Box<dyn SegmentStore>>;

/// A snapshot of one key's buffers.
#[pyclass(frozen, module = "idmint", name = "SegmentKeyStats")]
pub struct PySegmentKeyStats(KeyStats);

py_methods!(PySegmentKeyStats; fields(0) {
    step: u64 = "The current step: what the next fetch asks for before adaptation.",
    buffered: u64 = "Unserved values held (current range plus standby).",
    fetching: bool = "Whether a fetch is in flight.",
    /// The checkpoint fence, if a journal checkpoint recorded some of the buffered values.
    fence: Option<u64>,
} repr(step, buffered, fetching, fence, last_error) {
    /// The error of the last fetch, if it failed (an `IdmintError`, not raised).
    #[getter]
    fn last_error(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.0.last_error.map(|e| to_py(e).into_value(py).into_any())
    }
});

/// IDs per key (`biz_tag`) from ranges of a segment store, for any number of threads: one
/// store round trip per range, the next range fetched in the background before the current
/// one runs out, the step adapting to the load.
///
/// Options left as None take the defaults: step 1000 (also the least it adapts down to),
/// max_step 1000000, refill_at_percent 10, wait_timeout_ms 2000; no gaps, no obfuscation, no
/// journal.
#[pyclass(frozen, module = "idmint", name = "SegmentAllocator")]
pub struct PySegmentAllocator {
    inner: Handle<Allocator>,
    store: &'static str,
}

impl PySegmentAllocator {
    fn with<R>(&self, f: impl FnOnce(&Allocator) -> PyResult<R>) -> PyResult<R> {
        self.inner.with("SegmentAllocator", f)
    }

    /// Stops the background threads (after a fetch in progress lands) and records the unserved
    /// values in the journal, if any, for the next start (`close()`).
    fn shut(a: Allocator) -> idmint::Result<()> {
        a.close()
    }
}

py_methods!(PySegmentAllocator; closable {
    #[new]
    #[pyo3(
        signature = (store_url, *, step = None, max_step = None, refill_at_percent = None, max_gap = 0, gap_seed = 0, obfuscator = None, journal = None, checkpoint_every_ms = None, wait_timeout_ms = None),
        text_signature = "(store_url, *, step=None, max_step=None, refill_at_percent=None, max_gap=0, gap_seed=0, obfuscator=None, journal=None, checkpoint_every_ms=None, wait_timeout_ms=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        store_url: &str,
        step: Option<u64>,
        max_step: Option<u64>,
        refill_at_percent: Option<u8>,
        max_gap: u64,
        gap_seed: u64,
        obfuscator: Option<PyRef<'_, PyObfuscator>>,
        journal: Option<PathBuf>,
        checkpoint_every_ms: Option<u64>,
        wait_timeout_ms: Option<u64>,
    ) -> PyResult<Self> {
        let journal = match &journal {
            Some(p) => Some(p.to_str().ok_or_else(|| PyValueError::new_err("journal path is not UTF-8"))?),
            None => None,
        };
        let mut o = SegmentAllocatorOptions::new();
        crate::options::set_all(|k, v| o.set(k, v), [
            ("step", step.map(Int)),
            ("max_step", max_step.map(Int)),
            ("refill_at_percent", refill_at_percent.map(|p| Int(p.into()))),
            ("max_gap", Some(Int(max_gap))),
            ("gap_seed", Some(Int(gap_seed))),
            ("journal", journal.map(Text)),
            ("checkpoint_every_ms", checkpoint_every_ms.map(Int)),
            ("wait_timeout_ms", wait_timeout_ms.map(Int)),
        ])?;
        if let Some(ob) = obfuscator {
            o.obfuscate(ob.inner);
        }
        let alloc = py.detach(|| o.open(store_url)).py()?;
        let store = alloc.store().kind();
        Ok(PySegmentAllocator { inner: Handle::new(alloc), store })
    }

    /// The next ID for `key`. Waits (without the GIL, up to `wait_timeout_ms`) only when both
    /// of the key's buffers are empty, then raises the store's error (StoreUnavailable).
    fn next_id(&self, py: Python<'_>, key: &str) -> PyResult<u64> {
        self.with(|a| py.detach(|| a.next_id(key)).py())
    }

    /// The next `n` IDs for `key`, increasing, as `array.array('Q')` (at most `MAX_BATCH`).
    fn next_ids<'py>(&self, py: Python<'py>, key: &str, n: u64) -> PyResult<Bound<'py, PyAny>> {
        self.with(|a| array_filled(py, n, |out| a.next_ids(key, out)))
    }

    /// A snapshot of `key`'s buffers, or None if the key was never used (nor resumed from the
    /// journal).
    fn stats(&self, key: &str) -> PyResult<Option<PySegmentKeyStats>> {
        self.with(|a| Ok(a.stats(key).map(PySegmentKeyStats)))
    }

    /// The keys used or resumed so far, sorted.
    fn keys(&self) -> PyResult<Vec<String>> {
        self.with(|a| {
            let mut k = a.keys();
            k.sort();
            Ok(k)
        })
    }

    /// Writes a journal checkpoint now. Raises `InvalidConfig` unless the allocator was opened
    /// with `checkpoint_every_ms` (and `journal`): a journal alone is written at `close()` only.
    fn checkpoint(&self, py: Python<'_>) -> PyResult<()> {
        self.with(|a| py.detach(|| a.checkpoint()).py())
    }

    /// The store: `sqlite`, `postgres`, `redis`, ...
    #[getter]
    fn store(&self) -> &'static str {
        self.store
    }

    fn __repr__(&self) -> String {
        let closed = if self.inner.is_closed() { " (closed)" } else { "" };
        format!("<SegmentAllocator on {}{closed}>", self.store)
    }
});
