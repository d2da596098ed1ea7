//! What generators report: `Stats` (the core's counters) and `Run` (a run of reserved IDs).

use idmint::{Run, Stats};
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::methods::py_methods;

/// A generator's counters.
#[pyclass(frozen, eq, hash, module = "idmint", name = "Stats")]
#[derive(PartialEq, Eq, Hash)]
pub struct PyStats(pub Stats);

py_methods!(PyStats; fields(0) {
    /// Calls that found the clock behind the last issued tick.
    rollbacks: u64,
    /// Total waiting asked of callers, in ms.
    wait_ms: u64,
    /// Furthest the generator ran ahead of the clock, in ms.
    max_ahead_ms: u64,
    /// Times a tick's sequence ran out.
    exhaustions: u64,
} repr(rollbacks, wait_ms, max_ahead_ms, exhaustions) {
    /// The counters as a dict.
    fn as_dict(&self) -> std::collections::BTreeMap<&'static str, u64> {
        let s = &self.0;
        let (r, w, m, e) = (s.rollbacks, s.wait_ms, s.max_ahead_ms, s.exhaustions);
        [("rollbacks", r), ("wait_ms", w), ("max_ahead_ms", m), ("exhaustions", e)].into()
    }
});

/// A run of IDs reserved with one swap: `first`, `first + stride`, ... (`count` of them).
#[pyclass(frozen, eq, hash, module = "idmint", name = "Run")]
#[derive(PartialEq, Eq, Hash)]
pub struct PyRun(pub Run);

py_methods!(PyRun; fields(0) {
    /// The first ID.
    first: u64,
    /// How many IDs the run holds.
    count: u64,
    /// Distance between consecutive IDs.
    stride: u64,
} calls(0) {
    /// The last ID.
    last: u64,
} repr(first, count, stride) {
    fn __len__(&self) -> usize {
        self.0.count as usize
    }

    fn __getitem__(&self, i: isize) -> PyResult<u64> {
        let n = self.0.count as isize;
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            return Err(PyIndexError::new_err("run index out of range"));
        }
        Ok(self.0.get(j as u64))
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(PyList::new(py, self.0.iter())?.as_any().try_iter()?.into_any())
    }

    /// The IDs as a list.
    fn to_list(&self) -> Vec<u64> {
        self.0.iter().collect()
    }
});
