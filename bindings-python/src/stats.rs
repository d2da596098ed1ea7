//! What generators report: `Stats` (the core's counters) and `Run` (a run of reserved IDs).

use idmint::{Run, Stats};
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::methods::{py_methods, py_record};

py_record!(
    /// A generator's counters.
    PyStats(Stats) as "Stats";
    fields(0) {
        rollbacks: u64 = "Calls that found the clock behind the last issued tick.",
        wait_ms: u64 = "Total waiting asked of callers, in ms.",
        max_ahead_ms: u64 = "Furthest the generator ran ahead of the clock, in ms.",
        exhaustions: u64 = "Times a tick's sequence ran out.",
    } repr(rollbacks, wait_ms, max_ahead_ms, exhaustions) {
        /// The counters as a dict.
        fn as_dict(&self) -> std::collections::BTreeMap<&'static str, u64> {
            let s = &self.0;
            let (r, w, m, e) = (s.rollbacks, s.wait_ms, s.max_ahead_ms, s.exhaustions);
            [("rollbacks", r), ("wait_ms", w), ("max_ahead_ms", m), ("exhaustions", e)].into()
        }
    }
);

py_record!(
    /// A run of IDs reserved with one swap: `first`, `first + stride`, ... (`count` of them).
    PyRun(Run) as "Run";
    fields(0) {
        first: u64 = "The first ID.",
        count: u64 = "How many IDs the run holds.",
        stride: u64 = "Distance between consecutive IDs.",
    } calls(0) {
        last: u64 = "The last ID.",
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
    }
);
