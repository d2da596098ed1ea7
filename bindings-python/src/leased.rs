//! `LeasedSnowflake` (`idmint_coord::leased`): a Snowflake generator whose node is leased from
//! a store (`file:DIR`, `redis://...`, `postgres://...`) or given by a fixed node source
//! (`static:N`, `env:NAME`, `ip`, `random`), with `LeaseInfo` and `LeaseStats`.
//!
//! Every call that can reach the store — the constructor (acquire), minting (a renewal when
//! the clock passed the recorded bound, a node swap, a wait) and `close()` (release) — runs
//! detached from the interpreter, so other Python threads run meanwhile. The background
//! renewal thread is the coordination crate's and never touches Python.
//!
//! `close()` (or leaving a `with` block) releases the node and records its exact last issued
//! time; a generator dropped without it releases on garbage collection, without reporting
//! errors. A child process after `os.fork()` gets `ForkedGenerator` from every minting call:
//! the lease stays the parent's.

use std::sync::{PoisonError, RwLock};
use std::time::{Duration, Instant};

use idmint::limits::batch_len;
use idmint::{OnBackwards, OnExhausted, SequenceStart};
use idmint_coord::leased::{LeaseInfo, LeaseOptions, LeaseStats, LeasedSnowflake};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::convert::{array_filled, fill_array, LayoutArg, Policy};
use crate::errors::{to_py, IntoPyResult};
use crate::generator::{config, PyStats};
use crate::layout::{decode, PyLayout, PyParts};

/// Runs `f` on the value of a closable handle, or raises `ValueError` once it was closed (the
/// `io` convention for operations on a closed file). The read lock is held during `f`, so
/// `close()` waits for calls in progress.
pub(crate) fn with_open<T, R>(
    lock: &RwLock<Option<T>>,
    what: &str,
    f: impl FnOnce(&T) -> PyResult<R>,
) -> PyResult<R> {
    let guard = lock.read().unwrap_or_else(PoisonError::into_inner);
    match guard.as_ref() {
        Some(v) => f(v),
        None => Err(PyValueError::new_err(format!("{what} is closed"))),
    }
}

/// Empties a closable handle (waiting for calls in progress) and returns what it held.
pub(crate) fn take_open<T: Send + Sync>(py: Python<'_>, lock: &RwLock<Option<T>>) -> Option<T> {
    py.detach(|| lock.write().unwrap_or_else(PoisonError::into_inner).take())
}

/// Whether a closable handle was closed.
pub(crate) fn is_closed<T>(lock: &RwLock<Option<T>>) -> bool {
    lock.read()
        .unwrap_or_else(PoisonError::into_inner)
        .is_none()
}

fn ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

/// The lease a `LeasedSnowflake` mints under.
#[pyclass(frozen, module = "idmint", name = "LeaseInfo")]
pub struct PyLeaseInfo {
    info: LeaseInfo,
    /// When the snapshot was taken (for `expires_in_ms`).
    at: Instant,
}

#[pymethods]
impl PyLeaseInfo {
    /// The store: `file`, `redis` or `postgres`.
    #[getter]
    fn store(&self) -> &'static str {
        self.info.store
    }

    /// The namespace the node was granted in.
    #[getter]
    fn namespace(&self) -> &str {
        &self.info.lease.namespace
    }

    /// The leased node.
    #[getter]
    fn node(&self) -> u64 {
        self.info.lease.node
    }

    /// Fencing token: grows with every grant of this node.
    #[getter]
    fn token(&self) -> u64 {
        self.info.lease.token
    }

    /// The node's recorded last issued time (Unix ms) when it was granted, or None for a node
    /// never used: no ID of this lease is at or before its tick.
    #[getter]
    fn fence_ms(&self) -> Option<u64> {
        self.info.lease.fence_ms
    }

    /// The lease's time to live, in ms.
    #[getter]
    fn ttl_ms(&self) -> u64 {
        u64::try_from(self.info.lease.ttl.as_millis()).unwrap_or(u64::MAX)
    }

    /// The holder name recorded in the store.
    #[getter]
    fn holder(&self) -> &str {
        &self.info.lease.holder
    }

    /// The bound (Unix ms) the last renewal recorded: no ID's time passes it.
    #[getter]
    fn bound_ms(&self) -> u64 {
        self.info.bound_ms
    }

    /// Milliseconds (at the snapshot) until minting stops unless a renewal succeeds first;
    /// 0 if that time has passed, None once the lease is lost.
    #[getter]
    fn expires_in_ms(&self) -> Option<u64> {
        self.info.deadline.map(|d| {
            u64::try_from(d.saturating_duration_since(self.at).as_millis()).unwrap_or(u64::MAX)
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "LeaseInfo(store={:?}, namespace={:?}, node={}, token={}, fence_ms={:?}, bound_ms={})",
            self.info.store,
            self.info.lease.namespace,
            self.info.lease.node,
            self.info.lease.token,
            self.info.lease.fence_ms,
            self.info.bound_ms
        )
    }
}

/// Counters of a `LeasedSnowflake`: its generators' and its lease's.
#[pyclass(frozen, module = "idmint", name = "LeaseStats")]
pub struct PyLeaseStats {
    stats: LeaseStats,
}

#[pymethods]
impl PyLeaseStats {
    /// The generators' counters, summed over every node this generator used.
    #[getter]
    fn generator(&self) -> PyStats {
        self.stats.generator.into()
    }

    /// Successful renewals.
    #[getter]
    fn renewals(&self) -> u64 {
        self.stats.renewals
    }

    /// Failed renewal attempts (store unavailable).
    #[getter]
    fn renew_failures(&self) -> u64 {
        self.stats.renew_failures
    }

    /// Times the lease was found superseded.
    #[getter]
    fn lost(&self) -> u64 {
        self.stats.lost
    }

    /// Node swaps after a clock rollback (`swap_after_ms`).
    #[getter]
    fn swaps(&self) -> u64 {
        self.stats.swaps
    }

    /// New leases taken after losing one.
    #[getter]
    fn reacquires(&self) -> u64 {
        self.stats.reacquires
    }

    fn __repr__(&self) -> String {
        let s = &self.stats;
        format!(
            "LeaseStats(renewals={}, renew_failures={}, lost={}, swaps={}, reacquires={})",
            s.renewals, s.renew_failures, s.lost, s.swaps, s.reacquires
        )
    }
}

/// A thread-safe Snowflake generator whose node comes from a node source: a lease from a store
/// (`file:DIR`, `redis://...`, `postgres://...`), renewed in the background and fenced by the
/// node's last issued time, or a fixed source (`static:N`, `env:NAME`, `ip`, `random`).
///
/// Lease options left as None take the defaults: namespace `default`, ttl_ms 10000, renewal
/// every ttl/3, retries every ttl/20 (5 to 250 ms), safety margin ttl/10, reserve ttl, no node
/// swap, the layout's whole node space, holder `host:pid:random`.
#[pyclass(frozen, module = "idmint", name = "LeasedSnowflake")]
pub struct PyLeasedSnowflake {
    inner: RwLock<Option<LeasedSnowflake>>,
}

impl PyLeasedSnowflake {
    fn with<R>(&self, f: impl FnOnce(&LeasedSnowflake) -> PyResult<R>) -> PyResult<R> {
        with_open(&self.inner, "LeasedSnowflake", f)
    }
}

#[pymethods]
impl PyLeasedSnowflake {
    #[new]
    #[pyo3(
        signature = (source, layout = LayoutArg::twitter(), on_backwards = Policy(OnBackwards::default()), on_exhausted = Policy(OnExhausted::Wait), sequence_start = Policy(SequenceStart::Zero), seed = None, fence_ms = None, *, namespace = None, ttl_ms = None, renew_every_ms = None, retry_every_ms = None, safety_margin_ms = None, reserve_ms = None, swap_after_ms = None, nodes = None, holder = None),
        text_signature = "(source, layout='twitter', on_backwards='wait:1000', on_exhausted='wait', sequence_start='zero', seed=None, fence_ms=None, *, namespace=None, ttl_ms=None, renew_every_ms=None, retry_every_ms=None, safety_margin_ms=None, reserve_ms=None, swap_after_ms=None, nodes=None, holder=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        source: &str,
        layout: LayoutArg,
        on_backwards: Policy<OnBackwards>,
        on_exhausted: Policy<OnExhausted>,
        sequence_start: Policy<SequenceStart>,
        seed: Option<u64>,
        fence_ms: Option<u64>,
        namespace: Option<&str>,
        ttl_ms: Option<u64>,
        renew_every_ms: Option<u64>,
        retry_every_ms: Option<u64>,
        safety_margin_ms: Option<u64>,
        reserve_ms: Option<u64>,
        swap_after_ms: Option<u64>,
        nodes: Option<u64>,
        holder: Option<&str>,
    ) -> PyResult<Self> {
        // No node: the source decides it.
        let cfg = config(
            layout,
            None,
            on_backwards,
            on_exhausted,
            sequence_start,
            seed,
            fence_ms,
        )?;
        let mut opts = LeaseOptions::new();
        if let Some(ns) = namespace {
            opts = opts.namespace(ns);
        }
        if let Some(v) = ttl_ms {
            opts = opts.ttl(ms(v));
        }
        if let Some(v) = renew_every_ms {
            opts = opts.renew_every(ms(v));
        }
        if let Some(v) = retry_every_ms {
            opts = opts.retry_every(ms(v));
        }
        if let Some(v) = safety_margin_ms {
            opts = opts.safety_margin(ms(v));
        }
        if let Some(v) = reserve_ms {
            opts = opts.reserve(ms(v));
        }
        if let Some(v) = swap_after_ms {
            opts = opts.swap_after_ms(v);
        }
        if let Some(v) = nodes {
            opts = opts.nodes(v);
        }
        if let Some(h) = holder {
            opts = opts.holder(h);
        }
        let gen = py
            .detach(|| LeasedSnowflake::from_source(source, cfg, opts))
            .py()?;
        Ok(PyLeasedSnowflake {
            inner: RwLock::new(Some(gen)),
        })
    }

    /// Mints one ID (waiting where the policy asks). Raises LeaseLost once the lease could not
    /// be kept, ForkedGenerator in a child process.
    fn next_id(&self, py: Python<'_>) -> PyResult<u64> {
        self.with(|g| py.detach(|| g.next_id()).py())
    }

    /// Mints one ID without waiting on the clock: raises WouldBlock (with `until_ms`) where
    /// `next_id` would wait.
    fn try_next_id(&self, py: Python<'_>) -> PyResult<u64> {
        self.with(|g| py.detach(|| g.try_next_id()).py())
    }

    /// `n` fresh IDs as `array.array('Q')`, one reservation per tick (at most `MAX_BATCH`).
    fn next_ids<'py>(&self, py: Python<'py>, n: u64) -> PyResult<Bound<'py, PyAny>> {
        self.with(|g| array_filled(py, n, |fill| py.detach(fill), |out| g.next_ids(out)))
    }

    /// Fills all of `out`, an `array.array('Q')`, with fresh IDs and returns how many (as
    /// `Snowflake.next_ids_into`).
    fn next_ids_into(&self, py: Python<'_>, out: &Bound<'_, PyAny>) -> PyResult<usize> {
        self.with(|g| fill_array(py, out, |fill| py.detach(fill), |buf| g.next_ids(buf)))
    }

    /// `n` fresh IDs as a list of ints (at most `MAX_BATCH`).
    fn next_ids_list(&self, py: Python<'_>, n: u64) -> PyResult<Vec<u64>> {
        let n = batch_len(n).py()?;
        let mut v = Vec::new();
        v.try_reserve_exact(n).map_err(|_| {
            pyo3::exceptions::PyMemoryError::new_err("cannot allocate that many IDs")
        })?;
        v.resize(n, 0);
        self.with(|g| py.detach(|| g.next_ids(&mut v)).py())?;
        Ok(v)
    }

    /// Splits an ID of this generator's layout into its fields.
    fn decode(&self, id: u64) -> PyResult<PyParts> {
        self.with(|g| decode(g.config().layout(), id))
    }

    /// The node IDs are minted with now (it changes after a swap or after a lost lease is
    /// replaced).
    #[getter]
    fn node(&self) -> PyResult<u64> {
        self.with(|g| Ok(g.node()))
    }

    /// The lease minted under now, or None for a fixed node source.
    #[getter]
    fn lease(&self) -> PyResult<Option<PyLeaseInfo>> {
        let at = Instant::now();
        self.with(|g| Ok(g.lease_info().map(|info| PyLeaseInfo { info, at })))
    }

    /// The current generator's high-water mark (Unix ms: start of the latest tick issued, or
    /// the fence), or None before the first ID.
    #[getter]
    fn high_water_ms(&self) -> PyResult<Option<u64>> {
        self.with(|g| Ok(g.high_water_ms()))
    }

    /// The layout.
    #[getter]
    fn layout(&self) -> PyResult<PyLayout> {
        self.with(|g| {
            Ok(PyLayout {
                inner: *g.config().layout(),
            })
        })
    }

    /// The time fence IDs are minted after now (the lease's, or the one given), if any.
    #[getter]
    fn fence_ms(&self) -> PyResult<Option<u64>> {
        self.with(|g| Ok(g.config().fence()))
    }

    /// Counters of the generators and the lease.
    fn stats(&self) -> PyResult<PyLeaseStats> {
        self.with(|g| Ok(PyLeaseStats { stats: g.stats() }))
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        is_closed(&self.inner)
    }

    /// Stops the renewal thread and releases the node, recording its exact last issued time
    /// for the next holder. Later calls do nothing; minting afterwards raises ValueError.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        match take_open(py, &self.inner) {
            Some(g) => py.detach(|| g.release()).map_err(to_py),
            None => Ok(()),
        }
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Closes the generator; exceptions propagate.
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

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<u64> {
        self.next_id(py)
    }

    fn __repr__(&self) -> String {
        let guard = self.inner.read().unwrap_or_else(PoisonError::into_inner);
        match guard.as_ref() {
            None => "<LeasedSnowflake (closed)>".to_string(),
            Some(g) => match g.lease_info() {
                Some(i) => format!(
                    "<LeasedSnowflake node {} leased from {} (namespace {:?})>",
                    g.node(),
                    i.store,
                    i.lease.namespace
                ),
                None => format!("<LeasedSnowflake node {} (fixed)>", g.node()),
            },
        }
    }
}
