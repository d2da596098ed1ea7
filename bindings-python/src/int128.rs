//! A 128-bit value as a Python int (a UUID's `int`), the fastest way the interpreter allows.
//!
//! An abi3 wheel may only call the stable ABI, whose one route for 128 bits is two ints, a
//! shift and an or. CPython has two faster ones outside it, looked up at run time with
//! `dlsym` (PyPy and other interpreters have neither and take the stable route):
//! - `_PyLong_New(n)` with the 30-bit digits written in place, where a check at first use
//!   found them: ~7 ns a UUID less than the next route, whose byte loop was an eighth of a
//!   `uuid7()` call;
//! - `_PyLong_FromByteArray`, CPython's own conversion behind `int.from_bytes`.

use std::sync::OnceLock;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

/// `_PyLong_FromByteArray(bytes, n, little_endian, is_signed)`, in every CPython from 3.9 to
/// 3.14.
type FromByteArray = unsafe extern "C" fn(*const u8, usize, i32, i32) -> *mut ffi::PyObject;

/// `_PyLong_New(ndigits)`: a positive int of `ndigits` digits, the digits not yet written.
type LongNew = unsafe extern "C" fn(ffi::Py_ssize_t) -> *mut ffi::PyObject;

/// Bits per digit of a CPython int (`sys.int_info.bits_per_digit` on every 64-bit build).
const DIGIT_BITS: u32 = 30;

/// The interpreter's function `name` (NUL-terminated), or None.
fn interpreter_symbol(name: &std::ffi::CStr) -> Option<*mut std::ffi::c_void> {
    #[cfg(unix)]
    {
        extern "C" {
            fn dlsym(
                handle: *mut std::ffi::c_void,
                symbol: *const std::ffi::c_char,
            ) -> *mut std::ffi::c_void;
        }
        // RTLD_DEFAULT: the global symbols of the process, the interpreter's among them.
        #[cfg(target_vendor = "apple")]
        let default = -2isize as *mut std::ffi::c_void;
        #[cfg(not(target_vendor = "apple"))]
        let default = std::ptr::null_mut();
        // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name.
        let p = unsafe { dlsym(default, name.as_ptr()) };
        (!p.is_null()).then_some(p)
    }
    #[cfg(not(unix))]
    {
        let _ = name;
        None
    }
}

fn from_byte_array() -> Option<FromByteArray> {
    static F: OnceLock<Option<FromByteArray>> = OnceLock::new();
    // SAFETY: the symbol, where present, has this signature in every CPython the wheel supports.
    *F.get_or_init(|| {
        interpreter_symbol(c"_PyLong_FromByteArray")
            .map(|p| unsafe { std::mem::transmute::<*mut std::ffi::c_void, FromByteArray>(p) })
    })
}

/// `_PyLong_New` and the byte offset of digit 0 in an int, both checked (see [`DigitWriter::find`]).
#[derive(Clone, Copy)]
struct DigitWriter {
    new: LongNew,
    at: usize,
}

impl DigitWriter {
    /// The writer, found and checked once per process; None where any check failed.
    fn get(py: Python<'_>) -> Option<DigitWriter> {
        // A `PyOnceLock`: the check calls Python, which may let another thread run.
        static W: PyOnceLock<Option<DigitWriter>> = PyOnceLock::new();
        *W.get_or_init(py, || DigitWriter::find(py).ok().flatten())
    }

    /// Where digit 0 lives: an int of five known digits is made by `_PyLong_FromByteArray`,
    /// and its memory past the object header is searched for them; they must appear exactly
    /// once. Then ints built by [`Self::build`] must equal the reference conversion's for
    /// values at the edges of each digit count, or the writer is not used.
    fn find(py: Python<'_>) -> PyResult<Option<DigitWriter>> {
        let info = py.import("sys")?.getattr("int_info")?;
        let bits: u32 = info.getattr("bits_per_digit")?.extract()?;
        let size: usize = info.getattr("sizeof_digit")?.extract()?;
        let (Some(reference), Some(new)) = (from_byte_array(), interpreter_symbol(c"_PyLong_New"))
        else {
            return Ok(None);
        };
        if bits != DIGIT_BITS || size != 4 {
            return Ok(None);
        }
        // SAFETY: the symbol has this signature in every CPython from 3.9 to 3.14.
        let new = unsafe { std::mem::transmute::<*mut std::ffi::c_void, LongNew>(new) };
        let marks: [u32; 5] = [0x0ABC_DEF1, 0x1BCD_EF12, 0x2CDE_F123, 0x3DEF_1234, 0x9A];
        let probe = from_digits(&marks);
        let obj = reference_int(py, reference, probe)?;
        let total: usize = obj.call_method0("__sizeof__")?.extract()?;
        let header = std::mem::size_of::<ffi::PyObject>();
        let mut found = Vec::new();
        let mut at = header;
        while at + 20 <= total {
            // SAFETY: `at + 20 <= __sizeof__`, so the five words lie inside the object; the
            // int is immutable and only read.
            let words: [u32; 5] = unsafe {
                std::array::from_fn(|i| {
                    obj.as_ptr()
                        .cast::<u8>()
                        .add(at + 4 * i)
                        .cast::<u32>()
                        .read_unaligned()
                })
            };
            if words == marks {
                found.push(at);
            }
            at += 4;
        }
        let &[at] = found.as_slice() else {
            return Ok(None);
        };
        let writer = DigitWriter { new, at };
        let edges = [
            1u128 << 64,
            (1 << 90) - 1,
            1 << 90,
            (1 << 120) - 1,
            1 << 120,
            probe,
            0x0189_0A5D_AC96_774B_BCCE_B302_099A_8057,
            u128::MAX,
        ];
        for v in edges {
            let ours = writer.build(py, v)?;
            if !ours.eq(reference_int(py, reference, v)?)? {
                return Ok(None);
            }
        }
        Ok(Some(writer))
    }

    /// `v` (at least 2^64) as an int of as many digits as it needs.
    fn build(self, py: Python<'_>, v: u128) -> PyResult<Bound<'_, PyAny>> {
        let n = (128 - v.leading_zeros()).div_ceil(DIGIT_BITS) as usize;
        // SAFETY: `_PyLong_New(n)` returns a new positive int with room for `n` digits, or NULL
        // with an exception set.
        let obj = unsafe { Bound::from_owned_ptr_or_err(py, (self.new)(n as ffi::Py_ssize_t))? };
        // SAFETY: `find` saw digit 0 of every int at `at`; this one has `n` of them, the top
        // one non-zero (as `n` was counted), written before the int is shared.
        unsafe {
            let digits = obj.as_ptr().cast::<u8>().add(self.at).cast::<u32>();
            for i in 0..n {
                digits.add(i).write_unaligned(
                    ((v >> (DIGIT_BITS as usize * i)) as u32) & ((1 << DIGIT_BITS) - 1),
                );
            }
        }
        Ok(obj)
    }
}

/// The value whose 30-bit digits are `digits`, least significant first.
fn from_digits(digits: &[u32]) -> u128 {
    digits
        .iter()
        .rev()
        .fold(0u128, |v, &d| (v << DIGIT_BITS) | u128::from(d))
}

fn reference_int(py: Python<'_>, f: FromByteArray, v: u128) -> PyResult<Bound<'_, PyAny>> {
    let b = v.to_le_bytes();
    // SAFETY: 16 readable bytes, little-endian, unsigned; returns a new reference or NULL with
    // an exception set.
    unsafe { Bound::from_owned_ptr_or_err(py, f(b.as_ptr(), 16, 1, 0)) }
}

/// `v` as a Python int.
pub fn u128_to_int(py: Python<'_>, v: u128) -> PyResult<Bound<'_, PyAny>> {
    if let Ok(small) = u64::try_from(v) {
        return Ok(small.into_pyobject(py)?.into_any());
    }
    if let Some(w) = DigitWriter::get(py) {
        return w.build(py, v);
    }
    if let Some(f) = from_byte_array() {
        return reference_int(py, f, v);
    }
    Ok(v.into_pyobject(py)?.into_any())
}
