//! `LeasedSnowflake` (`idmint_coord::lease`): a Snowflake generator whose node is leased from
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
//! errors. A child process after `os.fork()` gets `Forked` from every minting call:
//! the lease stays the parent's.

use std::time::Instant;

use idmint::OptionValue::{Int, Text};
use idmint_coord::lease::{LeaseInfo, LeaseStats, LeasedSnowflake};
use idmint_coord::options::LeasedSnowflakeOptions;
use pyo3::prelude::*;

use crate::clock::detached;
use crate::convert::{array_filled, fill_array, zeroed};
use crate::error::IntoPyResult;
use crate::layout::{decode, LayoutArg, PyLayout, PyParts};
use crate::methods::{py_methods, Handle};
use crate::options::{default, generator_keywords, set_all};
use crate::stats::PyStats;

/// The lease a `LeasedSnowflake` mints under.
#[pyclass(frozen, module = "idmint", name = "LeaseInfo")]
pub struct PyLeaseInfo {
    info: LeaseInfo,
    /// When the snapshot was taken (for `expires_in_ms`).
    at: Instant,
}

py_methods!(PyLeaseInfo; fields(info) {
    store: &'static str = "The store: `file`, `redis` or `postgres`.",
    bound_ms: u64 = "The bound (Unix ms) the last renewal recorded: no ID's time passes it.",
} fields(info.lease) {
    node: u64 = "The leased node.",
    token: u64 = "Fencing token: grows with every grant of this node.",
    /// The node's recorded last issued time (Unix ms) when it was granted, or None for a node
    fence_ms: Option<u64> = "never used: no ID of this lease is at or before its tick.",
} repr(store, namespace, node, token, fence_ms, bound_ms) {
    /// The namespace the node was granted in.
    #[getter]
    fn namespace(&self) -> &str {
        &self.info.lease.namespace
    }

    /// The holder name recorded in the store.
    #[getter]
    fn holder(&self) -> &str {
        &self.info.lease.holder
    }

    /// The lease's time to live, in ms.
    #[getter]
    fn ttl_ms(&self) -> u64 {
        u64::try_from(self.info.lease.ttl.as_millis()).unwrap_or(u64::MAX)
    }

    /// Milliseconds (at the snapshot) until minting stops unless a renewal succeeds first;
    /// 0 if that time has passed, None once the lease is lost.
    #[getter]
    fn expires_in_ms(&self) -> Option<u64> {
        let left = |d: Instant| d.saturating_duration_since(self.at).as_millis();
        self.info.deadline.map(|d| u64::try_from(left(d)).unwrap_or(u64::MAX))
    }
});

/// Counters of a `LeasedSnowflake`: its generators' and its lease's.
#[pyclass(frozen, module = "idmint", name = "LeaseStats")]
pub struct PyLeaseStats(LeaseStats);

py_methods!(PyLeaseStats; fields(0) {
    renewals: u64 = "Successful renewals.",
    renew_failures: u64 = "Failed renewal attempts (store unavailable).",
    lost: u64 = "Times the lease was found superseded.",
    swaps: u64 = "Node swaps after a clock rollback (`swap_after_ms`).",
    reacquires: u64 = "New leases taken after losing one.",
} repr(renewals, renew_failures, lost, swaps, reacquires) {
    /// The generators' counters, summed over every node this generator used.
    #[getter]
    fn generator(&self) -> PyStats {
        PyStats(self.0.generator)
    }
});

/// A thread-safe Snowflake generator whose node comes from a node source: a lease from a store
/// (`file:DIR`, `redis://...`, `postgres://...`), renewed in the background and fenced by the
/// node's last issued time, or a fixed source (`static:N`, `env:NAME`, `ip`, `random`).
///
/// Lease options left as None take the defaults: namespace `default`, ttl_ms 10000, renewal
/// every ttl/3, retries every ttl/20 (5 to 250 ms), safety margin ttl/10, reserve ttl, no node
/// swap, the layout's whole node space, holder `host:pid:random`.
#[pyclass(frozen, module = "idmint", name = "LeasedSnowflake")]
pub struct PyLeasedSnowflake {
    inner: Handle<LeasedSnowflake>,
}

impl PyLeasedSnowflake {
    fn with<R>(&self, f: impl FnOnce(&LeasedSnowflake) -> PyResult<R>) -> PyResult<R> {
        self.inner.with("LeasedSnowflake", f)
    }

    /// A single-ID call may renew the lease or swap nodes at the store: it runs detached.
    fn one<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> T {
        py.detach(f)
    }

    /// Stops the renewal thread and releases the node, recording its exact last issued time for
    /// the next holder (`close()`).
    fn shut(g: LeasedSnowflake) -> idmint::Result<()> {
        g.release()
    }
}

py_methods!(PyLeasedSnowflake; generator clocked closable {
    #[new]
    #[pyo3(
        signature = (source, layout = LayoutArg::default(), on_backwards = default("on_backwards"), on_exhausted = default("on_exhausted"), sequence_start = default("sequence_start"), seed = None, fence_ms = None, *, namespace = None, ttl_ms = None, renew_every_ms = None, retry_every_ms = None, safety_margin_ms = None, reserve_ms = None, swap_after_ms = None, nodes = None, holder = None),
        text_signature = "(source, layout='twitter', on_backwards='wait:1000', on_exhausted='wait', sequence_start='zero', seed=None, fence_ms=None, *, namespace=None, ttl_ms=None, renew_every_ms=None, retry_every_ms=None, safety_margin_ms=None, reserve_ms=None, swap_after_ms=None, nodes=None, holder=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        source: &str,
        layout: LayoutArg,
        on_backwards: &str,
        on_exhausted: &str,
        sequence_start: &str,
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
        let mut o = LeasedSnowflakeOptions::new();
        let policies = [on_backwards, on_exhausted, sequence_start];
        set_all(|k, v| o.set(k, v), generator_keywords(&layout, policies, seed, fence_ms))?;
        set_all(|k, v| o.set(k, v), [
            ("namespace", namespace.map(Text)),
            ("ttl_ms", ttl_ms.map(Int)),
            ("renew_every_ms", renew_every_ms.map(Int)),
            ("retry_every_ms", retry_every_ms.map(Int)),
            ("safety_margin_ms", safety_margin_ms.map(Int)),
            ("reserve_ms", reserve_ms.map(Int)),
            ("swap_after_ms", swap_after_ms.map(Int)),
            ("nodes", nodes.map(Int)),
            ("holder", holder.map(Text)),
        ])?;
        // No node: the source decides it.
        let gen = py.detach(|| o.open(source)).py()?;
        Ok(PyLeasedSnowflake { inner: Handle::new(gen) })
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

    /// Counters of the generators and the lease.
    fn stats(&self) -> PyResult<PyLeaseStats> {
        self.with(|g| Ok(PyLeaseStats(g.stats())))
    }

    fn __repr__(&self) -> String {
        let repr = |g: &LeasedSnowflake| {
            Ok(match g.lease_info() {
                Some(i) => format!(
                    "<LeasedSnowflake node {} leased from {} (namespace {:?})>",
                    g.node(), i.store, i.lease.namespace
                ),
                None => format!("<LeasedSnowflake node {} (fixed)>", g.node()),
            })
        };
        self.with(repr).unwrap_or_else(|_| "<LeasedSnowflake (closed)>".to_string())
    }
});
