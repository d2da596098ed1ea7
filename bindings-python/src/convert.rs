//! Pure value conversions shared by the binding modules: IDs into `array.array('Q')` (filled
//! without the GIL) and times into aware UTC datetimes.

use idmint::limits::batch_len;
use idmint::Error;
use pyo3::exceptions::{PyMemoryError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyMemoryView, PyType};

use crate::clock::detached;
use crate::error::IntoPyResult;

static ARRAY_TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static ARRAY_ZERO: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static UNIX_EPOCH: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static TIMEDELTA: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// A vector of `n` zeros to fill with IDs (at most `MAX_BATCH`, else `LimitExceeded`).
pub fn zeroed(n: u64) -> PyResult<Vec<u64>> {
    let n = batch_len(n).py()?;
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| PyMemoryError::new_err("cannot allocate that many IDs"))?;
    v.resize(n, 0);
    Ok(v)
}

/// Creates `array.array('Q')` of `n` zeros (at most [`MAX_BATCH`](idmint::limits::MAX_BATCH),
/// else `LimitExceeded`), fills it with `fill` as [`fill_array`] does and returns it.
pub fn array_filled<'py, F>(py: Python<'py>, n: u64, fill: F) -> PyResult<Bound<'py, PyAny>>
where
    F: FnOnce(&mut [u64]) -> Result<(), Error> + Send,
{
    let n = batch_len(n).py()?;
    let ty = ARRAY_TYPE.import(py, "array", "array")?;
    if n == 0 {
        return ty.call1(("Q",));
    }
    let zero = ARRAY_ZERO.get_or_try_init(py, || ty.call1(("Q", (0u64,))).map(Bound::unbind))?;
    let arr = zero.bind(py).mul(n)?;
    fill_array(py, &arr, fill)?;
    Ok(arr)
}

/// Fills the whole of `arr`, an `array.array` of 8-byte unsigned items (`'Q'`, or `'L'` where
/// it is 8 bytes; not a subclass, whose methods could lie about the buffer), with `fill` run
/// without the GIL; returns how many IDs that is.
///
/// A buffer export (a `memoryview` of the array) is held from before its address is read until
/// `fill` returns, so the array cannot be resized, moved or freed meanwhile: another thread
/// that tries (`append`, `extend`, `del a[:]`, ...) gets `BufferError` instead of making us
/// write into freed memory. (`PyBuffer` would do the same, but the limited API of the abi3
/// wheel has the buffer protocol only from Python 3.11.)
pub fn fill_array<F>(py: Python<'_>, arr: &Bound<'_, PyAny>, fill: F) -> PyResult<usize>
where
    F: FnOnce(&mut [u64]) -> Result<(), Error> + Send,
{
    let t = arr.get_type();
    let is_u64_array = t.is(ARRAY_TYPE.import(py, "array", "array")?)
        && matches!(
            arr.getattr("typecode")?.extract::<String>()?.as_str(),
            "Q" | "L"
        )
        && arr.getattr("itemsize")?.extract::<usize>()? == 8;
    if !is_u64_array {
        let e = format!("expected an array.array('Q') of 8-byte unsigned items, not {arr:.40}");
        return Err(PyTypeError::new_err(e));
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
        detached(py, move || {
            // SAFETY: `addr` is the start of the array's buffer of `n` u64 items, aligned
            // (checked above). The array is alive (borrowed by the caller) and the export held
            // by `view` until after this returns keeps it from being resized, moved or freed.
            fill(unsafe { std::slice::from_raw_parts_mut(addr as *mut u64, n) })
        })
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
    let ty = ARRAY_TYPE.import(py, "array", "array")?;
    ty.call1(("Q", PyBytes::new(py, &bytes)))
}

/// An aware UTC `datetime` for `ms` milliseconds since the Unix epoch (exact: integer
/// arithmetic). Raises OverflowError past year 9999, which `datetime` cannot represent.
pub fn utc_datetime(py: Python<'_>, ms: u64) -> PyResult<Bound<'_, PyAny>> {
    let epoch = UNIX_EPOCH.get_or_try_init(py, || {
        let dt = py.import("datetime")?;
        let utc = dt.getattr("timezone")?.getattr("utc")?;
        let epoch = dt
            .getattr("datetime")?
            .call_method1("fromtimestamp", (0, utc))?;
        Ok::<_, PyErr>(epoch.unbind())
    })?;
    let delta = TIMEDELTA
        .import(py, "datetime", "timedelta")?
        .call1((0, 0, 0, ms))?;
    epoch.bind(py).add(delta)
}
