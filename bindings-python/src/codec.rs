//! Text codecs (`idmint::codec`): `encode(id, codec)` and `parse_id(text, codec=None)`, and the
//! `codec` argument `parse_any` shares.

use idmint::codec::Codec;
use pyo3::prelude::*;

use crate::error::IntoPyResult;

/// Encodes `id` as text: `decimal` (default), `hex` (`0x` and lower-case digits, so that
/// `parse_id` reads it back without a codec), `base32` (13 chars, sortable) or `base62`
/// (11 chars, sortable).
#[pyfunction]
#[pyo3(signature = (id, codec = "decimal"))]
pub fn encode(id: u64, codec: &str) -> PyResult<String> {
    Ok(Codec::parse(codec).py()?.format(id).as_str().to_owned())
}

/// Decodes text to an ID. `codec=None` (or `"auto"`) guesses it from the shape: digits are
/// decimal, a `0x` prefix hex, 13 characters base32, 11 characters base62.
#[pyfunction]
#[pyo3(signature = (text, codec = None))]
pub fn parse_id(text: &str, codec: Option<&str>) -> PyResult<u64> {
    match codec_arg(codec)? {
        None => idmint::codec::parse_id(text).py(),
        Some(c) => c.decode(text).py(),
    }
}

/// A `codec` argument: `None` or `"auto"` (guess from the shape; the core's
/// `Codec::parse_or_auto`), else a codec's name.
pub fn codec_arg(codec: Option<&str>) -> PyResult<Option<Codec>> {
    codec.map_or(Ok(None), |name| Codec::parse_or_auto(name).py())
}
