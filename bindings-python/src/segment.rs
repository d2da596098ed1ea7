//! `SegmentAllocator` (`idmint_coord::segment`): IDs per key from ranges taken from a store
//! (`sqlite:PATH`, `postgres://...`, `redis://...`) one round trip per range, served from a
//! double buffer, with an optional remainder journal; and `SegmentKeyStats`.
//!
//! Range fetches run on the allocator's own background thread. A call waits only when both
//! buffers of its key are empty (the first call for a key, an outage longer than the buffers
//! last); every call that can wait, and the constructor and `close()`, which talk to the store
//! or the journal, run detached from the interpreter.

use std::path::PathBuf;
use std::sync::RwLock;
use std::time::Duration;

use idmint_coord::segment::{open_store, KeyStats, SegmentAllocator, SegmentConfig, SegmentStore};
use pyo3::prelude::*;

use crate::convert::array_filled;
use crate::errors::{to_py, IntoPyResult};
use crate::leased::{is_closed, take_open, with_open};
use crate::obfuscate::PyObfuscator;

type Allocator = SegmentAllocator<Box<dyn SegmentStore>>;

/// A snapshot of one key's buffers.
#[pyclass(frozen, module = "idmint", name = "SegmentKeyStats")]
pub struct PySegmentKeyStats {
    stats: KeyStats,
}

#[pymethods]
impl PySegmentKeyStats {
    /// The current step: what the next fetch asks for before adaptation.
    #[getter]
    fn step(&self) -> u64 {
        self.stats.step
    }

    /// Unserved values held (current range plus standby).
    #[getter]
    fn buffered(&self) -> u64 {
        self.stats.buffered
    }

    /// Whether a fetch is in flight.
    #[getter]
    fn fetching(&self) -> bool {
        self.stats.fetching
    }

    /// The checkpoint fence, if a journal checkpoint recorded some of the buffered values.
    #[getter]
    fn fence(&self) -> Option<u64> {
        self.stats.fence
    }

    /// The error of the last fetch, if it failed (an `IdmintError`, not raised).
    #[getter]
    fn last_error(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.stats
            .last_error
            .map(|e| to_py(e).into_value(py).into_any())
    }

    fn __repr__(&self) -> String {
        let s = &self.stats;
        format!(
            "SegmentKeyStats(step={}, buffered={}, fetching={}, fence={:?}, last_error={:?})",
            s.step,
            s.buffered,
            if s.fetching { "True" } else { "False" },
            s.fence,
            s.last_error.map(|e| e.code())
        )
    }
}

/// IDs per key (`biz_tag`) from ranges of a segment store, for any number of threads: one
/// store round trip per range, the next range fetched in the background before the current
/// one runs out, the step adapting to the load.
///
/// Options left as None take the defaults: step 1000 (also the least it adapts down to),
/// max_step 1000000, refill_at_percent 10, wait_timeout_ms 2000; no gaps, no obfuscation, no
/// journal.
#[pyclass(frozen, module = "idmint", name = "SegmentAllocator")]
pub struct PySegmentAllocator {
    inner: RwLock<Option<Allocator>>,
    store: &'static str,
}

impl PySegmentAllocator {
    fn with<R>(&self, f: impl FnOnce(&Allocator) -> PyResult<R>) -> PyResult<R> {
        with_open(&self.inner, "SegmentAllocator", f)
    }
}

#[pymethods]
impl PySegmentAllocator {
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
        let mut cfg = SegmentConfig::new();
        if let Some(s) = step {
            cfg = cfg.step(s);
        }
        if let Some(m) = max_step {
            cfg = cfg.step_bounds(cfg.min_step(), m);
        }
        if let Some(p) = refill_at_percent {
            cfg = cfg.refill_at_percent(p);
        }
        if max_gap > 0 {
            cfg = cfg.gaps(max_gap, gap_seed);
        }
        if let Some(o) = obfuscator {
            cfg = cfg.obfuscate(o.inner);
        }
        let (alloc, store) = py
            .detach(|| {
                let store = open_store(store_url)?;
                let kind = store.kind();
                let mut b = SegmentAllocator::builder(store, cfg);
                if let Some(w) = wait_timeout_ms {
                    b = b.wait_timeout(Duration::from_millis(w));
                }
                if let Some(path) = journal {
                    b = b.journal(path);
                }
                if let Some(every) = checkpoint_every_ms {
                    b = b.checkpoint_every(Duration::from_millis(every));
                }
                b.build().map(|a| (a, kind))
            })
            .py()?;
        Ok(PySegmentAllocator {
            inner: RwLock::new(Some(alloc)),
            store,
        })
    }

    /// The next ID for `key`. Waits (without the GIL, up to `wait_timeout_ms`) only when both
    /// of the key's buffers are empty, then raises the store's error (StoreUnavailable).
    fn next_id(&self, py: Python<'_>, key: &str) -> PyResult<u64> {
        self.with(|a| py.detach(|| a.next_id(key)).py())
    }

    /// The next `n` IDs for `key`, increasing, as `array.array('Q')` (at most `MAX_BATCH`).
    fn next_ids<'py>(&self, py: Python<'py>, key: &str, n: u64) -> PyResult<Bound<'py, PyAny>> {
        self.with(|a| array_filled(py, n, |fill| py.detach(fill), |out| a.next_ids(key, out)))
    }

    /// A snapshot of `key`'s buffers, or None if the key was never used (nor resumed from the
    /// journal).
    fn stats(&self, key: &str) -> PyResult<Option<PySegmentKeyStats>> {
        self.with(|a| Ok(a.stats(key).map(|stats| PySegmentKeyStats { stats })))
    }

    /// The keys used or resumed so far, sorted.
    fn keys(&self) -> PyResult<Vec<String>> {
        self.with(|a| {
            let mut k = a.keys();
            k.sort();
            Ok(k)
        })
    }

    /// Writes a journal checkpoint now (needs `journal` and `checkpoint_every_ms`).
    fn checkpoint(&self, py: Python<'_>) -> PyResult<()> {
        self.with(|a| py.detach(|| a.checkpoint()).py())
    }

    /// The store: `sqlite`, `postgres`, `redis`, ...
    #[getter]
    fn store(&self) -> &'static str {
        self.store
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        is_closed(&self.inner)
    }

    /// Stops the background threads (after a fetch in progress lands) and records the unserved
    /// values in the journal, if any, for the next start. Later calls do nothing; using the
    /// allocator afterwards raises ValueError.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        match take_open(py, &self.inner) {
            Some(a) => py.detach(|| a.close()).py(),
            None => Ok(()),
        }
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Closes the allocator; exceptions propagate.
    fn __exit__(
        &self,
        py: Python<'_>,
        exc_type: &Bound<'_, PyAny>,
        exc_value: &Bound<'_, PyAny>,
        traceback: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let _ = (exc_type, exc_value, traceback);
        self.close(py)
    }

    fn __repr__(&self) -> String {
        if is_closed(&self.inner) {
            format!("<SegmentAllocator on {} (closed)>", self.store)
        } else {
            format!("<SegmentAllocator on {}>", self.store)
        }
    }
}
