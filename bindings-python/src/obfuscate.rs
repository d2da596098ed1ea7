//! Keyed obfuscation (`idmint::obfuscate`): `Obfuscator` and `SortableObfuscator`.
//! Obfuscation, not encryption; `repr` never shows key material and neither class pickles.

use idmint::obfuscate::{Obfuscator, SortableObfuscator};
use pyo3::prelude::*;

use crate::error::IntoPyResult;
use crate::layout::LayoutArg;

/// A keyed permutation of `[0, 2**bits)` (bits in 2..=64); `key` is a 128-bit int.
#[pyclass(frozen, module = "idmint", name = "Obfuscator")]
pub struct PyObfuscator {
    pub(crate) inner: Obfuscator,
}

#[pymethods]
impl PyObfuscator {
    #[new]
    fn new(key: u128, bits: u8) -> PyResult<Self> {
        Ok(PyObfuscator {
            inner: Obfuscator::new(key, bits).py()?,
        })
    }

    /// A full-width permutation for a layout's IDs (time order is lost).
    #[staticmethod]
    fn for_layout(key: u128, layout: LayoutArg) -> PyResult<Self> {
        Ok(PyObfuscator {
            inner: Obfuscator::for_layout(key, &layout.0).py()?,
        })
    }

    /// Width of the domain in bits.
    #[getter]
    fn bits(&self) -> u8 {
        self.inner.bits()
    }

    /// Largest value of the domain.
    #[getter]
    fn max(&self) -> u64 {
        self.inner.max()
    }

    /// Maps `x` to its obfuscated image (OutOfRange outside the domain).
    fn encode(&self, x: u64) -> PyResult<u64> {
        self.inner.encode(x).py()
    }

    /// Inverts `encode`.
    fn decode(&self, y: u64) -> PyResult<u64> {
        self.inner.decode(y).py()
    }

    fn __repr__(&self) -> String {
        format!("<Obfuscator bits={}>", self.inner.bits())
    }
}

/// Obfuscates only the bits below a layout's time field, so IDs stay time-sorted.
#[pyclass(frozen, module = "idmint", name = "SortableObfuscator")]
pub struct PySortableObfuscator {
    inner: SortableObfuscator,
}

#[pymethods]
impl PySortableObfuscator {
    #[new]
    fn new(key: u128, layout: LayoutArg) -> PyResult<Self> {
        Ok(PySortableObfuscator {
            inner: SortableObfuscator::new(key, &layout.0).py()?,
        })
    }

    /// How many low bits are permuted.
    #[getter]
    fn low_bits(&self) -> u8 {
        self.inner.low_bits()
    }

    /// Obfuscates the low bits of `id` (OutOfRange above the layout's max_id).
    fn encode(&self, id: u64) -> PyResult<u64> {
        self.inner.encode(id).py()
    }

    /// Inverts `encode`.
    fn decode(&self, id: u64) -> PyResult<u64> {
        self.inner.decode(id).py()
    }

    fn __repr__(&self) -> String {
        format!("<SortableObfuscator low_bits={}>", self.inner.low_bits())
    }
}
