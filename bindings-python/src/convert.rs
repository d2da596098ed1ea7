//! Argument and result conversions shared by the binding modules: layouts given as text or
//! `Layout`, node values given as an int or by sub-field name, `array.array('Q')` results and
//! aware UTC datetimes.

use idmint::limits::batch_len;
use idmint::{Error, Layout};
use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyAny, PyBytes, PyDict, PyMapping, PyMemoryView, PyString};

use crate::errors::IntoPyResult;
use crate::layout::PyLayout;

/// A layout argument: a `Layout`, or a preset name / text spec.
pub struct LayoutArg(pub Layout);

impl LayoutArg {
    /// The default layout of generators.
    pub fn twitter() -> Self {
        LayoutArg(idmint::preset::twitter())
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for LayoutArg {
    type Error = PyErr;
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        layout_arg(&obj).map(LayoutArg)
    }
}

/// A node argument: the whole node value as an int, or a mapping of node sub-field names to
/// values (joined under the layout, once it is known, by the core's `Layout::join_node`).
pub enum NodeArg<'py> {
    /// The whole node value.
    Value(u64),
    /// Sub-field values by name.
    Named(Bound<'py, PyAny>),
}

impl NodeArg<'_> {
    /// The whole node value under `layout`.
    pub fn resolve(&self, layout: &Layout) -> PyResult<u64> {
        match self {
            NodeArg::Value(v) => Ok(*v),
            NodeArg::Named(m) => join_mapping(layout, m),
        }
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for NodeArg<'py> {
    type Error = PyErr;
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.cast::<PyString>().is_ok() {
            return Err(PyTypeError::new_err(
                "node must be an int or a mapping of node sub-field names to ints, not str",
            ));
        }
        if obj.cast::<PyDict>().is_ok() || obj.cast::<PyMapping>().is_ok() {
            return Ok(NodeArg::Named(obj.to_owned()));
        }
        Ok(NodeArg::Value(obj.extract::<u64>()?))
    }
}

/// A policy text (`"wait:1000"`, `"borrow:16"`, ...) parsed by the core.
pub struct Policy<T>(pub T);

impl<'a, 'py, T> FromPyObject<'a, 'py> for Policy<T>
where
    T: std::str::FromStr<Err = Error>,
{
    type Error = PyErr;
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let s = obj.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err("a policy must be a str such as 'wait:1000' or 'borrow:16'")
        })?;
        s.to_cow()?.parse::<T>().map(Policy).py()
    }
}

fn layout_arg(obj: &Bound<'_, PyAny>) -> PyResult<Layout> {
    if let Ok(l) = obj.cast::<PyLayout>() {
        return Ok(l.get().inner);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Layout::parse(&s.to_cow()?).py();
    }
    Err(PyTypeError::new_err(format!(
        "layout must be a Layout, a preset name or a spec string, not {}",
        obj.get_type().name()?
    )))
}

fn join_mapping(layout: &Layout, map: &Bound<'_, PyAny>) -> PyResult<u64> {
    let names: Vec<&str> = layout.node_fields().map(|f| f.name.as_str()).collect();
    let len = map.len()?;
    let mut values = Vec::with_capacity(names.len());
    for name in &names {
        match map.get_item(name) {
            Ok(v) => values.push(v.extract::<u64>()?),
            Err(e) if e.is_instance_of::<PyKeyError>(map.py()) => {
                return Err(PyKeyError::new_err(format!(
                    "node sub-field `{name}` missing (this layout's node sub-fields: {})",
                    names.join(", ")
                )))
            }
            Err(e) => return Err(e),
        }
    }
    if len != names.len() {
        return Err(PyKeyError::new_err(format!(
            "unknown node sub-field name (this layout's node sub-fields: {})",
            names.join(", ")
        )));
    }
    layout.join_node(&values).py()
}

static ARRAY_ZERO: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static ARRAY_TYPE: PyOnceLock<Py<pyo3::types::PyType>> = PyOnceLock::new();

fn array_type(py: Python<'_>) -> PyResult<&Bound<'_, pyo3::types::PyType>> {
    ARRAY_TYPE.import(py, "array", "array")
}

/// Creates `array.array('Q')` of `n` zeros (at most [`MAX_BATCH`](idmint::limits::MAX_BATCH),
/// else `LimitExceeded`), fills its buffer with `fill` (run through `run`, which may detach
/// from the interpreter) and returns it.
pub fn array_filled<'py, R, F>(
    py: Python<'py>,
    n: u64,
    run: R,
    fill: F,
) -> PyResult<Bound<'py, PyAny>>
where
    F: FnOnce(&mut [u64]) -> Result<(), Error> + Send,
    R: FnOnce(Box<dyn FnOnce() -> Result<(), Error> + Send + '_>) -> Result<(), Error>,
{
    let n = batch_len(n).py()?;
    let ty = array_type(py)?;
    if n == 0 {
        return ty.call1(("Q",));
    }
    let zero = ARRAY_ZERO.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        let a = ty.call1(("Q", (0u64,)))?;
        let itemsize: usize = a.getattr("itemsize")?.extract()?;
        if itemsize != 8 {
            return Err(PyTypeError::new_err(
                "array('Q') items are not 8 bytes here",
            ));
        }
        Ok(a.unbind())
    })?;
    let arr = zero.bind(py).mul(n)?;
    fill_array(py, &arr, run, fill)?;
    Ok(arr)
}

/// Fills the whole of `arr`, an `array.array` of 8-byte unsigned items (`'Q'`, or `'L'` where
/// it is 8 bytes; not a subclass, whose methods could lie about the buffer), with `fill` run
/// through `run`; returns how many IDs that is.
///
/// A buffer export (a `memoryview` of the array) is held from before its address is read until
/// `fill` returns, so the array cannot be resized, moved or freed meanwhile: another thread
/// that tries (`append`, `extend`, `del a[:]`, ...) gets `BufferError` instead of making us
/// write into freed memory. (`PyBuffer` would do the same, but the limited API of the abi3
/// wheel has the buffer protocol only from Python 3.11.)
pub fn fill_array<'py, R, F>(
    py: Python<'py>,
    arr: &Bound<'py, PyAny>,
    run: R,
    fill: F,
) -> PyResult<usize>
where
    F: FnOnce(&mut [u64]) -> Result<(), Error> + Send,
    R: FnOnce(Box<dyn FnOnce() -> Result<(), Error> + Send + '_>) -> Result<(), Error>,
{
    let ty = array_type(py)?;
    if !arr.get_type().is(ty) {
        return Err(PyTypeError::new_err(format!(
            "expected an array.array('Q'), not {}",
            arr.get_type().name()?
        )));
    }
    let typecode: String = arr.getattr("typecode")?.extract()?;
    let itemsize: usize = arr.getattr("itemsize")?.extract()?;
    if !matches!(typecode.as_str(), "Q" | "L") || itemsize != 8 {
        return Err(PyTypeError::new_err(format!(
            "expected an array.array('Q') of 8-byte unsigned items, not typecode {typecode:?}"
        )));
    }
    let view = PyMemoryView::from(arr)?;
    let result = (|| {
        let (addr, n): (usize, usize) = arr.call_method0("buffer_info")?.extract()?;
        let n = batch_len(n as u64).py()?;
        if n == 0 {
            return Ok(0);
        }
        if addr == 0 || addr % std::mem::align_of::<u64>() != 0 {
            return Err(PyTypeError::new_err("unexpected array('Q') buffer"));
        }
        run(Box::new(move || {
            // SAFETY: `addr` is the start of the array's buffer of `n` u64 items, aligned
            // (checked above). The array is alive (borrowed by the caller) and the export held
            // by `view` until after this returns keeps it from being resized, moved or freed.
            let out = unsafe { std::slice::from_raw_parts_mut(addr as *mut u64, n) };
            fill(out)
        }))
        .py()?;
        Ok(n)
    })();
    // Give the export back now rather than when the view is collected: until then the array
    // could not be resized by its owner.
    view.call_method0("release")?;
    result
}

/// `array.array('Q')` holding `ids` (copied).
pub fn array_from<'py>(py: Python<'py>, ids: &[u64]) -> PyResult<Bound<'py, PyAny>> {
    let bytes: Vec<u8> = ids.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let arr = array_type(py)?.call1(("Q",))?;
    arr.call_method1("frombytes", (PyBytes::new(py, &bytes),))?;
    Ok(arr)
}

static UNIX_EPOCH: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static TIMEDELTA: PyOnceLock<Py<pyo3::types::PyType>> = PyOnceLock::new();

/// An aware UTC `datetime` for `ms` milliseconds since the Unix epoch (exact: integer
/// arithmetic). Raises OverflowError past year 9999, which `datetime` cannot represent.
pub fn utc_datetime(py: Python<'_>, ms: u64) -> PyResult<Bound<'_, PyAny>> {
    let epoch = UNIX_EPOCH.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        let dt = py.import("datetime")?;
        let utc = dt.getattr("timezone")?.getattr("utc")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("tzinfo", utc)?;
        Ok(dt
            .getattr("datetime")?
            .call((1970, 1, 1), Some(&kwargs))?
            .unbind())
    })?;
    let td = TIMEDELTA.import(py, "datetime", "timedelta")?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("milliseconds", ms)?;
    let delta = td.call((), Some(&kwargs))?;
    epoch.bind(py).add(delta)
}
