//! Pure value conversions shared by the binding modules: `array.array('Q')` results (filled
//! without the GIL) and aware UTC datetimes.

use idmint::limits::batch_len;
use idmint::Error;
use pyo3::exceptions::{PyMemoryError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyAny, PyBytes, PyDict, PyMemoryView};

use crate::error::IntoPyResult;

/// A vector of `n` zeros to fill with IDs (at most `MAX_BATCH`, else `LimitExceeded`).
pub fn zeroed(n: u64) -> PyResult<Vec<u64>> {
    let n = batch_len(n).py()?;
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| PyMemoryError::new_err("cannot allocate that many IDs"))?;
    v.resize(n, 0);
    Ok(v)
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
