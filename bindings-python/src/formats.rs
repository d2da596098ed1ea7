//! TypeIDs, ULIDs and KSUIDs (`idmint::formats::typeid`, `idmint::formats::ulid`,
//! `idmint::formats::ksuid`): `typeid(prefix)`, `ulid()` and `ksuid()` as text from the core's
//! process-wide generators (`idmint::named::clocked`), the value classes `TypeId`, `Ulid` and
//! `Ksuid` (parse, fields, the UUID as a stdlib `uuid.UUID`), and the sans-IO generators
//! `TypeIdGenerator`, `UlidGenerator` and `KsuidGenerator` for replays, and `parse_any` (the core's
//! `AnyId::parse`: which of them, or which 64-bit ID, a text holds). Conversions only.

use std::sync::Mutex;

use idmint::formats::typeid::MAX_LEN;
use idmint::formats::uuid::Uuid7Method;
use idmint::named::clocked;
use idmint::{AnyId, Ksuid, KsuidGenerator, TypeId, TypeIdGenerator, Ulid, UlidGenerator};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::codec::codec_arg;
use crate::error::IntoPyResult;
use crate::methods::record_repr;
use crate::uuid::{PyUuid, UuidArg};

fn random10(b: &[u8]) -> PyResult<[u8; 10]> {
    <[u8; 10]>::try_from(b).map_err(|_| {
        PyValueError::new_err(format!("random must be exactly 10 bytes, got {}", b.len()))
    })
}

/// The core's text forms are ASCII (a-z, `_` and Crockford base32).
fn ascii(b: &[u8]) -> PyResult<&str> {
    std::str::from_utf8(b).map_err(|e| PyValueError::new_err(e.to_string()))
}

fn typeid_str<'py>(py: Python<'py>, t: &TypeId) -> PyResult<Bound<'py, PyString>> {
    let mut buf = [0u8; MAX_LEN];
    let n = t.encode_into(&mut buf).py()?;
    Ok(PyString::new(py, ascii(&buf[..n])?))
}

fn ulid_str<'py>(py: Python<'py>, u: &Ulid) -> PyResult<Bound<'py, PyString>> {
    let b = u.encode();
    Ok(PyString::new(py, ascii(&b)?))
}

/// A new TypeID (`prefix_` + 26 base32 characters) on a version 7 UUID from the process-wide
/// generator, as text; InvalidEncoding for a bad prefix (lower-case a-z and `_`, at most 63,
/// not starting or ending with `_`; "" for none).
#[pyfunction]
pub fn typeid<'py>(py: Python<'py>, prefix: &str) -> PyResult<Bound<'py, PyString>> {
    typeid_str(py, &clocked::typeid(prefix).py()?)
}

/// A new ULID (26 upper-case Crockford base32 characters) from the process-wide monotonic
/// generator, as text.
#[pyfunction]
pub fn ulid(py: Python<'_>) -> PyResult<Bound<'_, PyString>> {
    ulid_str(py, &clocked::ulid().py()?)
}

/// A TypeID: a type prefix and a UUID. `TypeId(prefix, uuid)` or `TypeId.parse(text)`;
/// `str()` is the text form. Compares and hashes by (prefix, uuid).
#[pyclass(frozen, eq, ord, hash, module = "idmint", name = "TypeId")]
#[derive(PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PyTypeId(TypeId);

#[pymethods]
impl PyTypeId {
    #[new]
    fn new(prefix: &str, uuid: UuidArg) -> PyResult<Self> {
        TypeId::new(prefix, uuid.0).py().map(PyTypeId)
    }

    /// Reads a TypeID; InvalidEncoding (with `at`, the character index) if it is not one.
    #[staticmethod]
    fn parse(text: &str) -> PyResult<Self> {
        TypeId::parse(text).py().map(PyTypeId)
    }

    /// The type prefix ("" for none).
    #[getter]
    fn prefix(&self) -> &str {
        self.0.prefix()
    }

    /// The UUID, a `uuid.UUID`.
    #[getter]
    fn uuid(&self) -> PyUuid {
        PyUuid(self.0.uuid())
    }

    /// The 26-character base32 suffix.
    #[getter]
    fn suffix(&self) -> PyResult<String> {
        Ok(ascii(&self.0.suffix())?.to_owned())
    }

    fn __str__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        typeid_str(py, &self.0)
    }

    fn __repr__(&self) -> String {
        format!("TypeId('{}')", self.0)
    }
}

/// A ULID: a 48-bit millisecond timestamp and 80 random bits. `Ulid.parse(text)` (either
/// case), `Ulid.from_parts(timestamp_ms, random)`, `Ulid.from_uuid(u)`; `str()` is the
/// canonical upper-case text. Compares and hashes by value.
#[pyclass(frozen, eq, ord, hash, module = "idmint", name = "Ulid")]
#[derive(PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PyUlid(Ulid);

#[pymethods]
impl PyUlid {
    /// Reads the 26-character text form; InvalidEncoding (with `at`) if it is not one.
    #[staticmethod]
    fn parse(text: &str) -> PyResult<Self> {
        Ulid::parse(text).py().map(PyUlid)
    }

    /// The ULID of `timestamp_ms` (48 bits, else OutOfRange) and an 80-bit `random` int (else
    /// InvalidArgument).
    #[staticmethod]
    fn from_parts(timestamp_ms: u64, random: u128) -> PyResult<Self> {
        Ulid::from_parts(timestamp_ms, random).py().map(PyUlid)
    }

    /// The ULID with the same 128 bits as a UUID (`uuid.UUID` or text).
    #[staticmethod]
    fn from_uuid(u: UuidArg) -> Self {
        PyUlid(Ulid::from_uuid(&u.0))
    }

    /// The time, ms since the Unix epoch.
    #[getter]
    fn timestamp_ms(&self) -> u64 {
        self.0.timestamp_ms()
    }

    /// The 80-bit random part, an int.
    #[getter]
    fn random(&self) -> u128 {
        self.0.random()
    }

    /// The 128 bits as an int.
    #[getter]
    fn int(&self) -> u128 {
        self.0 .0
    }

    /// The same 128 bits as a `uuid.UUID` (not an RFC 9562 version: ULIDs have none).
    #[getter]
    fn uuid(&self) -> PyUuid {
        PyUuid(self.0.to_uuid())
    }

    fn __str__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        ulid_str(py, &self.0)
    }

    fn __repr__(&self) -> String {
        format!("Ulid('{}')", self.0)
    }
}

/// Sans-IO TypeIDs of one prefix on monotonic version 7 UUIDs (`method` as for Uuid7Generator):
/// the core's `TypeIdGenerator`, fed the time and 10 random bytes per call.
#[pyclass(frozen, module = "idmint", name = "TypeIdGenerator")]
pub struct PyTypeIdGenerator {
    inner: Mutex<TypeIdGenerator>,
}

#[pymethods]
impl PyTypeIdGenerator {
    #[new]
    #[pyo3(signature = (prefix, method = "counter"))]
    fn new(prefix: &str, method: &str) -> PyResult<Self> {
        let m = Uuid7Method::parse(method).py()?;
        let inner = TypeIdGenerator::with_method(prefix, m).py()?;
        Ok(PyTypeIdGenerator {
            inner: Mutex::new(inner),
        })
    }

    /// The next TypeID at `unix_ms` from 10 `random` bytes.
    fn next_at(&self, unix_ms: u64, random: &[u8]) -> PyResult<PyTypeId> {
        let r = random10(random)?;
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        Ok(PyTypeId(g.next_at(unix_ms, r)))
    }

    /// The prefix.
    #[getter]
    fn prefix(&self) -> String {
        let g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.prefix().to_owned()
    }

    fn __repr__(&self) -> String {
        format!("<TypeIdGenerator {:?}>", self.prefix())
    }
}

/// Sans-IO monotonic ULIDs: the core's `UlidGenerator`, fed the time and 10 random bytes per
/// call. Within a millisecond (or when the clock steps back) each is the last plus one;
/// WouldBlock (`until_ms`) when the 80-bit part cannot grow within the millisecond.
#[pyclass(frozen, module = "idmint", name = "UlidGenerator")]
pub struct PyUlidGenerator {
    inner: Mutex<UlidGenerator>,
}

#[pymethods]
impl PyUlidGenerator {
    #[new]
    fn new() -> Self {
        PyUlidGenerator {
            inner: Mutex::new(UlidGenerator::new()),
        }
    }

    /// The next ULID at `unix_ms` from 10 `random` bytes.
    fn next_at(&self, unix_ms: u64, random: &[u8]) -> PyResult<PyUlid> {
        let r = random10(random)?;
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.next_at(unix_ms, r).py().map(PyUlid)
    }

    /// The last ULID issued, None before the first.
    #[getter]
    fn last(&self) -> Option<PyUlid> {
        let g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.last().map(PyUlid)
    }

    fn __repr__(&self) -> String {
        "<UlidGenerator>".to_owned()
    }
}

fn ksuid_str<'py>(py: Python<'py>, k: &Ksuid) -> PyResult<Bound<'py, PyString>> {
    let b = k.encode();
    Ok(PyString::new(py, ascii(&b)?))
}

fn bytes16(b: &[u8], what: &str) -> PyResult<[u8; 16]> {
    <[u8; 16]>::try_from(b).map_err(|_| {
        PyValueError::new_err(format!("{what} must be exactly 16 bytes, got {}", b.len()))
    })
}

/// A new KSUID (27 base62 characters) from the process-wide generator, as text: a random
/// payload on a new second, the last plus one within it.
#[pyfunction]
pub fn ksuid(py: Python<'_>) -> PyResult<Bound<'_, PyString>> {
    ksuid_str(py, &clocked::ksuid().py()?)
}

/// A KSUID: 32-bit seconds since 2014-05-13T16:53:20Z and a 128-bit payload.
/// `Ksuid.parse(text)`, `Ksuid.from_parts(timestamp, payload)`, `Ksuid.from_unix_ms(unix_ms,
/// payload)`; `str()` is the 27-character base62 text. Compares and hashes by value.
#[pyclass(frozen, eq, ord, hash, module = "idmint", name = "Ksuid")]
#[derive(PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PyKsuid(Ksuid);

#[pymethods]
impl PyKsuid {
    /// Reads the 27-character text form; InvalidEncoding (with `at`) if it is not one.
    #[staticmethod]
    fn parse(text: &str) -> PyResult<Self> {
        Ksuid::parse(text).py().map(PyKsuid)
    }

    /// The KSUID of `timestamp` (seconds since the KSUID epoch, 32 bits) and 16 payload bytes.
    #[staticmethod]
    fn from_parts(timestamp: u32, payload: &[u8]) -> PyResult<Self> {
        Ok(PyKsuid(Ksuid::from_parts(
            timestamp,
            bytes16(payload, "payload")?,
        )))
    }

    /// The KSUID of the second holding `unix_ms` and 16 payload bytes: BeforeEpoch before
    /// 2014-05-13T16:53:20Z, OutOfRange past the 32-bit seconds.
    #[staticmethod]
    fn from_unix_ms(unix_ms: u64, payload: &[u8]) -> PyResult<Self> {
        Ksuid::from_unix_ms(unix_ms, bytes16(payload, "payload")?)
            .py()
            .map(PyKsuid)
    }

    /// Seconds since the KSUID epoch (1400000000).
    #[getter]
    fn timestamp(&self) -> u32 {
        self.0.timestamp()
    }

    /// The time, ms since the Unix epoch (a whole second).
    #[getter]
    fn unix_ms(&self) -> u64 {
        self.0.unix_ms()
    }

    /// The 16 payload bytes.
    #[getter]
    fn payload<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.payload())
    }

    /// The 20 bytes.
    #[getter]
    fn bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.to_bytes())
    }

    fn __str__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        ksuid_str(py, &self.0)
    }

    fn __repr__(&self) -> String {
        format!("Ksuid('{}')", self.0)
    }
}

/// Sans-IO KSUIDs: the core's `KsuidGenerator`, fed the time and 16 random bytes per call.
/// Within the last one's second (or when the clock steps back) each is the last plus one;
/// WouldBlock (`until_ms`) when the payload cannot grow within the second.
#[pyclass(frozen, module = "idmint", name = "KsuidGenerator")]
pub struct PyKsuidGenerator {
    inner: Mutex<KsuidGenerator>,
}

#[pymethods]
impl PyKsuidGenerator {
    #[new]
    fn new() -> Self {
        PyKsuidGenerator {
            inner: Mutex::new(KsuidGenerator::new()),
        }
    }

    /// The next KSUID at `unix_ms` from 16 `random` bytes.
    fn next_at(&self, unix_ms: u64, random: &[u8]) -> PyResult<PyKsuid> {
        let r = bytes16(random, "random")?;
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.next_at(unix_ms, r).py().map(PyKsuid)
    }

    /// The last KSUID issued, None before the first.
    #[getter]
    fn last(&self) -> Option<PyKsuid> {
        let g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.last().map(PyKsuid)
    }

    fn __repr__(&self) -> String {
        "<KsuidGenerator>".to_owned()
    }
}

/// What `parse_any` read: `kind` (`snowflake`, `uuid`, `typeid`, `ulid` or `ksuid`), `value`
/// (an `int`, a `uuid.UUID`, a `TypeId`, a `Ulid` or a `Ksuid`) and `unix_ms` (the time the
/// value carries, ms since the Unix epoch, or None: a 64-bit ID's time needs its layout).
#[pyclass(frozen, module = "idmint", name = "AnyId")]
pub struct PyAnyId {
    #[pyo3(get)]
    kind: &'static str,
    #[pyo3(get)]
    value: Py<PyAny>,
    #[pyo3(get)]
    unix_ms: Option<u64>,
}

#[pymethods]
impl PyAnyId {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        record_repr(slf.as_any(), &["kind", "value", "unix_ms"])
    }
}

/// Which ID `text` holds, told by its shape as `idmint decode` does: a UUID (hyphenated,
/// braced, `urn:uuid:`), a TypeID, a ULID, a KSUID, or a 64-bit ID in any codec. With `codec`
/// (a codec's name; None or "auto": guessed), the text is a 64-bit ID in that codec only.
#[pyfunction]
#[pyo3(signature = (text, codec = None))]
pub fn parse_any(py: Python<'_>, text: &str, codec: Option<&str>) -> PyResult<PyAnyId> {
    let id = AnyId::parse(text, codec_arg(codec)?).py()?;
    let value = match id {
        AnyId::Snowflake(v) => v.into_pyobject(py)?.into_any(),
        AnyId::Uuid(u) => PyUuid(u).into_pyobject(py)?,
        AnyId::TypeId(t) => Bound::new(py, PyTypeId(t))?.into_any(),
        AnyId::Ulid(u) => Bound::new(py, PyUlid(u))?.into_any(),
        AnyId::Ksuid(k) => Bound::new(py, PyKsuid(k))?.into_any(),
    };
    Ok(PyAnyId {
        kind: id.kind(),
        value: value.unbind(),
        unix_ms: id.unix_ms(),
    })
}
