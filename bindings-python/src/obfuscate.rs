//! Keyed obfuscation (`idmint::obfuscate`): `Obfuscator` and `SortableObfuscator`.
//! Obfuscation, not encryption; `repr` never shows key material and neither class pickles.

use idmint::obfuscate::{Obfuscator, SortableObfuscator};
use pyo3::prelude::*;

use crate::error::IntoPyResult;
use crate::layout::LayoutArg;
use crate::methods::py_methods;

/// A keyed permutation of `[0, 2**bits)` (bits in 2..=64); `key` is a 128-bit int.
#[pyclass(frozen, module = "idmint", name = "Obfuscator")]
pub struct PyObfuscator {
    pub(crate) inner: Obfuscator,
}

py_methods!(PyObfuscator; calls(inner) {
    bits: u8 = "Width of the domain in bits.",
    max: u64 = "Largest value of the domain.",
    encode(x: u64) -> Result<u64> = "Maps `x` to its obfuscated image (OutOfRange outside the domain).",
    decode(y: u64) -> Result<u64> = "Inverts `encode`.",
} {
    #[new]
    fn new(key: u128, bits: u8) -> PyResult<Self> {
        let inner = Obfuscator::new(key, bits).py()?;
        Ok(PyObfuscator { inner })
    }

    /// A full-width permutation for a layout's IDs (time order is lost).
    #[staticmethod]
    fn for_layout(key: u128, layout: LayoutArg) -> PyResult<Self> {
        let inner = Obfuscator::for_layout(key, &layout.0).py()?;
        Ok(PyObfuscator { inner })
    }

    fn __repr__(&self) -> String {
        format!("<Obfuscator bits={}>", self.inner.bits())
    }
});

/// Obfuscates only the bits below a layout's time field, so IDs stay time-sorted.
#[pyclass(frozen, module = "idmint", name = "SortableObfuscator")]
pub struct PySortableObfuscator {
    inner: SortableObfuscator,
}

py_methods!(PySortableObfuscator; calls(inner) {
    low_bits: u8 = "How many low bits are permuted.",
    encode(id: u64) -> Result<u64> = "Obfuscates the low bits of `id` (OutOfRange above the layout's max_id).",
    decode(id: u64) -> Result<u64> = "Inverts `encode`.",
} {
    #[new]
    fn new(key: u128, layout: LayoutArg) -> PyResult<Self> {
        let inner = SortableObfuscator::new(key, &layout.0).py()?;
        Ok(PySortableObfuscator { inner })
    }

    fn __repr__(&self) -> String {
        format!("<SortableObfuscator low_bits={}>", self.inner.low_bits())
    }
});
