//! `Snowflake` (the clocked, fork-detecting front door), `AtomicSnowflake` (sans-IO, for
//! replays and your own clock), `Stats` and `Run`.
//!
//! Both generator classes are `frozen`: every method takes `&self` and the core types are
//! lock-free (`AtomicSnowflake` inside both), so they are safe to share between threads with or
//! without the GIL.

use std::cell::Cell;

use idmint::limits::batch_len;
use idmint::named::NamedConfig;
use idmint::{
    AtomicSnowflake, Clock, Config, Error, OnBackwards, OnExhausted, Run, SequenceStart, Snowflake,
    Stats, SystemClock,
};
use pyo3::prelude::*;

use crate::convert::{array_filled, array_from, fill_array, LayoutArg, NodeArg, Policy};
use crate::errors::{to_py, IntoPyResult};
use crate::layout::{decode, PyLayout, PyParts};

thread_local! {
    /// Whether this thread runs inside [`detached`] (not attached to the interpreter).
    static DETACHED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` detached from the interpreter (the GIL released), telling [`GilFreeClock`] so.
fn detached<T: Send, F: FnOnce() -> T + Send>(py: Python<'_>, f: F) -> T {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            DETACHED.with(|d| d.set(false));
        }
    }
    py.detach(|| {
        DETACHED.with(|d| d.set(true));
        let _reset = Reset;
        f()
    })
}

/// The core's `SystemClock`, except that waiting never holds the GIL: when the core's
/// generator waits (sequence exhausted, short clock step back) from a thread attached to the
/// interpreter, the wait detaches, so other Python threads run meanwhile. Everything else,
/// including the hot path's coarse reading, is the system clock's.
#[derive(Debug, Default)]
pub struct GilFreeClock(SystemClock);

impl Clock for GilFreeClock {
    #[inline]
    fn now_ms(&self) -> u64 {
        self.0.now_ms()
    }

    #[inline]
    fn coarse_ms(&self) -> u64 {
        self.0.coarse_ms()
    }

    fn coarse_lag_ms(&self) -> u64 {
        self.0.coarse_lag_ms()
    }

    fn wait_until(&self, until_ms: u64) {
        if DETACHED.with(|d| d.get()) {
            self.0.wait_until(until_ms)
        } else {
            Python::attach(|py| py.detach(|| self.0.wait_until(until_ms)))
        }
    }
}

/// The constructor arguments as a core `Config`. The wrappers have already parsed layout,
/// node and policies, in argument order (the order the vectors fix for errors).
pub(crate) fn config(
    layout: LayoutArg,
    node: Option<NodeArg<'_>>,
    on_backwards: Policy<OnBackwards>,
    on_exhausted: Policy<OnExhausted>,
    sequence_start: Policy<SequenceStart>,
    seed: Option<u64>,
    fence_ms: Option<u64>,
) -> PyResult<Config> {
    let layout = layout.0;
    let mut cfg = Config::new(layout)
        .on_backwards(on_backwards.0)
        .on_exhausted(on_exhausted.0)
        .sequence_start(sequence_start.0)
        .seed(seed.unwrap_or(0));
    if let Some(f) = fence_ms {
        cfg = cfg.fence_ms(f);
    }
    // No node: the generator refuses to build (NodeRequired), after any other config mistake.
    if let Some(node) = node {
        cfg = cfg.node(node.resolve(&layout)?);
    }
    Ok(cfg)
}

/// The Snowflake config a named-generator config string holds.
fn named_snowflake(config: &str) -> PyResult<Config> {
    let named = NamedConfig::parse(config).py()?;
    match named.snowflake_config() {
        Some(c) => Ok(*c),
        None => Err(to_py(Error::InvalidConfig {
            reason: "not a snowflake config (type=snowflake,...); use UuidGenerator.from_config or idmint.from_config",
        })),
    }
}

fn canonical(cfg: &Config) -> String {
    NamedConfig::Snowflake(*cfg).to_string()
}

/// A generator's counters.
#[pyclass(frozen, eq, hash, module = "idmint", name = "Stats")]
#[derive(PartialEq, Eq, Hash)]
pub struct PyStats {
    /// Calls that found the clock behind the last issued tick.
    #[pyo3(get)]
    rollbacks: u64,
    /// Total waiting asked of callers, in ms.
    #[pyo3(get)]
    wait_ms: u64,
    /// Furthest the generator ran ahead of the clock, in ms.
    #[pyo3(get)]
    max_ahead_ms: u64,
    /// Times a tick's sequence ran out.
    #[pyo3(get)]
    exhaustions: u64,
}

impl From<Stats> for PyStats {
    fn from(s: Stats) -> Self {
        PyStats {
            rollbacks: s.rollbacks,
            wait_ms: s.wait_ms,
            max_ahead_ms: s.max_ahead_ms,
            exhaustions: s.exhaustions,
        }
    }
}

#[pymethods]
impl PyStats {
    /// The counters as a dict.
    fn as_dict(&self) -> std::collections::BTreeMap<&'static str, u64> {
        [
            ("rollbacks", self.rollbacks),
            ("wait_ms", self.wait_ms),
            ("max_ahead_ms", self.max_ahead_ms),
            ("exhaustions", self.exhaustions),
        ]
        .into_iter()
        .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Stats(rollbacks={}, wait_ms={}, max_ahead_ms={}, exhaustions={})",
            self.rollbacks, self.wait_ms, self.max_ahead_ms, self.exhaustions
        )
    }
}

/// A run of IDs reserved with one swap: `first`, `first + stride`, ... (`count` of them).
#[pyclass(frozen, eq, hash, module = "idmint", name = "Run")]
#[derive(PartialEq, Eq, Hash)]
pub struct PyRun {
    run: Run,
}

#[pymethods]
impl PyRun {
    /// The first ID.
    #[getter]
    fn first(&self) -> u64 {
        self.run.first
    }

    /// How many IDs the run holds.
    #[getter]
    fn count(&self) -> u64 {
        self.run.count
    }

    /// Distance between consecutive IDs.
    #[getter]
    fn stride(&self) -> u64 {
        self.run.stride
    }

    /// The last ID.
    #[getter]
    fn last(&self) -> u64 {
        self.run.last()
    }

    fn __len__(&self) -> usize {
        self.run.count as usize
    }

    fn __getitem__(&self, i: isize) -> PyResult<u64> {
        let n = self.run.count as isize;
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            return Err(pyo3::exceptions::PyIndexError::new_err(
                "run index out of range",
            ));
        }
        Ok(self.run.get(j as u64))
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(pyo3::types::PyList::new(py, self.run.iter())?
            .as_any()
            .try_iter()?
            .into_any())
    }

    /// The IDs as a list.
    fn to_list(&self) -> Vec<u64> {
        self.run.iter().collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Run(first={}, count={}, stride={})",
            self.run.first, self.run.count, self.run.stride
        )
    }
}

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
        Ok(PySnowflake {
            inner: Snowflake::with_clock(cfg, GilFreeClock::default()).py()?,
            given: cfg,
        })
    }
}

#[pymethods]
impl PySnowflake {
    #[new]
    #[pyo3(
        signature = (layout = LayoutArg::twitter(), node = None, on_backwards = Policy(OnBackwards::default()), on_exhausted = Policy(OnExhausted::Wait), sequence_start = Policy(SequenceStart::Zero), seed = None, fence_ms = None),
        text_signature = "(layout='twitter', node=None, on_backwards='wait:1000', on_exhausted='wait', sequence_start='zero', seed=None, fence_ms=None)"
    )]
    fn new(
        layout: LayoutArg,
        node: Option<NodeArg<'_>>,
        on_backwards: Policy<OnBackwards>,
        on_exhausted: Policy<OnExhausted>,
        sequence_start: Policy<SequenceStart>,
        seed: Option<u64>,
        fence_ms: Option<u64>,
    ) -> PyResult<Self> {
        let cfg = config(
            layout,
            node,
            on_backwards,
            on_exhausted,
            sequence_start,
            seed,
            fence_ms,
        )?;
        Self::build(cfg)
    }

    /// A generator from a named config (`type=snowflake,layout=twitter,node=5,...` or JSON).
    #[staticmethod]
    fn from_config(config: &str) -> PyResult<Self> {
        Self::build(named_snowflake(config)?)
    }

    /// Mints one ID, waiting (without the GIL) if the policy asks.
    #[inline]
    fn next_id(&self) -> PyResult<u64> {
        self.inner.next_id().py()
    }

    /// Mints one ID without waiting: raises WouldBlock (with `until_ms`) where `next_id` would wait.
    fn try_next_id(&self) -> PyResult<u64> {
        self.inner.try_next_id().py()
    }

    /// `n` fresh IDs as `array.array('Q')`, made without the GIL, one swap per tick. `n` is at
    /// most `MAX_BATCH` (LimitExceeded beyond).
    fn next_ids<'py>(&self, py: Python<'py>, n: u64) -> PyResult<Bound<'py, PyAny>> {
        let g = &self.inner;
        array_filled(py, n, |fill| detached(py, fill), |out| g.next_ids(out))
    }

    /// Fills all of `out`, an `array.array('Q')`, with fresh IDs (without the GIL; at most
    /// `MAX_BATCH` of them) and returns how many. The array cannot be resized meanwhile: other
    /// threads trying get BufferError.
    fn next_ids_into(&self, py: Python<'_>, out: &Bound<'_, PyAny>) -> PyResult<usize> {
        let g = &self.inner;
        fill_array(py, out, |fill| detached(py, fill), |buf| g.next_ids(buf))
    }

    /// `n` fresh IDs as a list of ints (at most `MAX_BATCH`).
    fn next_ids_list(&self, py: Python<'_>, n: u64) -> PyResult<Vec<u64>> {
        let n = batch_len(n).py()?;
        let g = &self.inner;
        detached(py, || {
            let mut v = Vec::new();
            v.try_reserve_exact(n).map_err(|_| None)?;
            v.resize(n, 0);
            g.next_ids(&mut v).map_err(Some)?;
            Ok(v)
        })
        .map_err(|e: Option<Error>| match e {
            Some(e) => to_py(e),
            None => pyo3::exceptions::PyMemoryError::new_err("cannot allocate that many IDs"),
        })
    }

    /// Reserves a run of up to `max` IDs from one tick (waiting without the GIL if needed).
    fn reserve(&self, py: Python<'_>, max: u64) -> PyResult<PyRun> {
        let g = &self.inner;
        let run = detached(py, || g.reserve(max)).py()?;
        Ok(PyRun { run })
    }

    /// Sans-IO: mints at `now_ms` as given (replays, tests); never waits, raises WouldBlock.
    fn next_id_at(&self, now_ms: u64) -> PyResult<u64> {
        self.inner.next_id_at(now_ms).py()
    }

    /// Sans-IO `reserve`: a run of up to `max` IDs at `now_ms`; never waits.
    fn reserve_at(&self, now_ms: u64, max: u64) -> PyResult<PyRun> {
        Ok(PyRun {
            run: self.inner.reserve_at(now_ms, max).py()?,
        })
    }

    /// Sans-IO `next_ids`: up to `n` IDs at `now_ms` as `array.array('Q')` (fewer when the
    /// policy asks to wait; raises only if not even one can be issued).
    fn next_ids_at<'py>(
        &self,
        py: Python<'py>,
        now_ms: u64,
        n: u64,
    ) -> PyResult<Bound<'py, PyAny>> {
        let n = batch_len(n).py()?;
        let mut v = Vec::new();
        v.try_reserve_exact(n).map_err(|_| {
            pyo3::exceptions::PyMemoryError::new_err("cannot allocate that many IDs")
        })?;
        v.resize(n, 0);
        let k = self.inner.next_ids_at(now_ms, &mut v).py()?;
        array_from(py, &v[..k])
    }

    /// Splits an ID of this generator's layout into its fields.
    fn decode(&self, id: u64) -> PyResult<PyParts> {
        decode(self.inner.config().layout(), id)
    }

    /// The generator's counters.
    fn stats(&self) -> PyStats {
        self.inner.stats().into()
    }

    /// Gives the generator another node; in a child process after `os.fork()` this also
    /// re-arms it (use a node no other process uses).
    fn set_node(&self, node: NodeArg<'_>) -> PyResult<()> {
        let n = node.resolve(self.inner.config().layout())?;
        self.inner.set_node(n).py()
    }

    /// The current node value.
    #[getter]
    fn node(&self) -> u64 {
        self.inner.node()
    }

    /// The layout.
    #[getter]
    fn layout(&self) -> PyLayout {
        PyLayout {
            inner: *self.inner.config().layout(),
        }
    }

    /// The canonical named config it was built from (node as built; see `node` for the
    /// current one; an OS-drawn seed is not shown).
    #[getter]
    fn config(&self) -> String {
        canonical(&self.given)
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

    /// The time fence, if any.
    #[getter]
    fn fence_ms(&self) -> Option<u64> {
        self.inner.config().fence()
    }

    /// `"snowflake"`.
    #[getter]
    fn kind(&self) -> &'static str {
        "snowflake"
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self) -> PyResult<u64> {
        self.next_id()
    }

    fn __repr__(&self) -> String {
        format!(
            "<Snowflake {} (node now {})>",
            self.config(),
            self.inner.node()
        )
    }
}

/// The lock-free, sans-IO generator: you pass `now_ms`; it never reads a clock, waits or
/// detects fork (use `Snowflake` for that). For replays, simulations and your own clock.
#[pyclass(frozen, module = "idmint", name = "AtomicSnowflake")]
pub struct PyAtomicSnowflake {
    inner: AtomicSnowflake,
}

#[pymethods]
impl PyAtomicSnowflake {
    #[new]
    #[pyo3(
        signature = (layout = LayoutArg::twitter(), node = None, on_backwards = Policy(OnBackwards::default()), on_exhausted = Policy(OnExhausted::Wait), sequence_start = Policy(SequenceStart::Zero), seed = None, fence_ms = None),
        text_signature = "(layout='twitter', node=None, on_backwards='wait:1000', on_exhausted='wait', sequence_start='zero', seed=None, fence_ms=None)"
    )]
    fn new(
        layout: LayoutArg,
        node: Option<NodeArg<'_>>,
        on_backwards: Policy<OnBackwards>,
        on_exhausted: Policy<OnExhausted>,
        sequence_start: Policy<SequenceStart>,
        seed: Option<u64>,
        fence_ms: Option<u64>,
    ) -> PyResult<Self> {
        let cfg = config(
            layout,
            node,
            on_backwards,
            on_exhausted,
            sequence_start,
            seed,
            fence_ms,
        )?;
        Ok(PyAtomicSnowflake {
            inner: AtomicSnowflake::new(cfg).py()?,
        })
    }

    /// A generator from a named config (`type=snowflake,...` or JSON).
    #[staticmethod]
    fn from_config(config: &str) -> PyResult<Self> {
        Ok(PyAtomicSnowflake {
            inner: AtomicSnowflake::new(named_snowflake(config)?).py()?,
        })
    }

    /// Mints one ID at `now_ms`, or raises (WouldBlock: call again at `until_ms`).
    fn next_id_at(&self, now_ms: u64) -> PyResult<u64> {
        self.inner.next_id_at(now_ms).py()
    }

    /// Reserves a run of up to `max` IDs at `now_ms` with one swap.
    fn reserve_at(&self, now_ms: u64, max: u64) -> PyResult<PyRun> {
        Ok(PyRun {
            run: self.inner.reserve_at(now_ms, max).py()?,
        })
    }

    /// Up to `n` IDs at `now_ms` as `array.array('Q')` (fewer when the policy asks to wait;
    /// raises only if not even one can be issued).
    fn next_ids_at<'py>(
        &self,
        py: Python<'py>,
        now_ms: u64,
        n: u64,
    ) -> PyResult<Bound<'py, PyAny>> {
        let n = batch_len(n).py()?;
        let mut v = Vec::new();
        v.try_reserve_exact(n).map_err(|_| {
            pyo3::exceptions::PyMemoryError::new_err("cannot allocate that many IDs")
        })?;
        v.resize(n, 0);
        let k = self.inner.next_ids_at(now_ms, &mut v).py()?;
        array_from(py, &v[..k])
    }

    /// Splits an ID of this generator's layout into its fields.
    fn decode(&self, id: u64) -> PyResult<PyParts> {
        decode(self.inner.config().layout(), id)
    }

    /// The generator's counters.
    fn stats(&self) -> PyStats {
        self.inner.stats().into()
    }

    /// Switches to another node value.
    fn set_node(&self, node: NodeArg<'_>) -> PyResult<()> {
        let n = node.resolve(self.inner.config().layout())?;
        self.inner.set_node(n).py()
    }

    /// The current node value.
    #[getter]
    fn node(&self) -> u64 {
        self.inner.node()
    }

    /// The layout.
    #[getter]
    fn layout(&self) -> PyLayout {
        PyLayout {
            inner: *self.inner.config().layout(),
        }
    }

    /// The canonical named config.
    #[getter]
    fn config(&self) -> String {
        canonical(self.inner.config())
    }

    /// Deepest step back (ticks) `rollback_counter` can bridge; None for other policies.
    #[getter]
    fn max_rollback_ticks(&self) -> Option<u64> {
        self.inner.config().max_rollback_ticks()
    }

    fn __repr__(&self) -> String {
        format!("<AtomicSnowflake {}>", self.config())
    }
}
