//! UUIDs (`idmint::formats::uuid`, `idmint::named`) as stdlib `uuid.UUID` objects: module-level
//! `uuid1/3/4/5/6/7`, `uuid7s(n)`, v8 and the v1/v6 conversions, the sans-IO constructors
//! (`uuid4(random)`, `uuid7_at`, `uuid1_at`, `uuid6_at`, ...), `parse_uuid`, `uuid_info`,
//! `NIL`/`MAX`, `UuidGenerator` (clocked, with a sans-IO `next_at`) and the sans-IO
//! `Uuid7Generator` (RFC 9562's three methods).
//!
//! The clocked parts are the core's `idmint::named::clocked`: the process-wide v1/v6/v7 generators,
//! `UuidGenerator`, and OS randomness drawn through a pool (`random_fill`), all restarted in a
//! forked child by the core's `pthread_atfork` handler (which `os.fork()` runs too), so a child
//! never repeats its parent's UUIDs or random bytes. This module converts types; the core calls
//! a Python `random` callback (`next_at(now_ms, random)`) with the generator unlocked. A result
//! becomes a `uuid.UUID` without `UUID.__init__` (see [`PyUuid`]): that conversion is most of
//! what a `uuid7()` call costs.

use std::sync::Mutex;

use idmint::formats::uuid::{self, Uuid, Uuid7Generator, Uuid7Method};
use idmint::named::clocked::{self, random_fill};
use idmint::named::NamedConfig;
use idmint::UuidGenerator;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyList, PyString, PyType};
use pyo3::{ffi, intern};

use crate::error::IntoPyResult;
use crate::int128::u128_to_int;
use crate::methods::{py_methods, py_record};

static UUID_TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn uuid_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    UUID_TYPE.import(py, "uuid", "UUID")
}

/// A UUID result: becomes a stdlib `uuid.UUID`, built the way CPython's own `UUID._from_int`
/// does: a bare instance plus its two slots (`int`, `is_safe`), skipping `UUID.__init__`'s
/// argument parsing.
pub struct PyUuid(pub Uuid);

impl<'py> IntoPyObject<'py> for PyUuid {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    #[inline]
    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        uuid_object(py, self.0.as_u128())
    }
}

/// The `uuid.UUID` of `v`. Takes the value, not the `Uuid`: a 128-bit argument travels in two
/// registers, where the 16 bytes of a just-minted `Uuid` went through memory in pieces and
/// reading them back as words stalled (~3 ns a UUID).
#[inline(never)]
fn uuid_object(py: Python<'_>, v: u128) -> PyResult<Bound<'_, PyAny>> {
    let maker = UUID_MAKER.get_or_try_init(py, || UuidMaker::new(py))?;
    maker.make(py, u128_to_int(py, v)?)
}

/// What building a `uuid.UUID` needs, found once: the class, its `SafeUUID.unknown`, and where
/// in an instance its two slots live.
struct UuidMaker {
    cls: Py<PyType>,
    safe: Py<PyAny>,
    /// Byte offsets of the `int` and `is_safe` slots in an instance, when found (see
    /// [`UuidMaker::find_offsets`]); else the slots are set through `object.__setattr__`.
    offsets: Option<(usize, usize)>,
    /// The class's `tp_alloc`, read once (a heap type's slots do not change).
    alloc: Option<ffi::allocfunc>,
}

static UUID_MAKER: PyOnceLock<UuidMaker> = PyOnceLock::new();

impl UuidMaker {
    fn new(py: Python<'_>) -> PyResult<UuidMaker> {
        let cls = uuid_type(py)?.clone();
        let safe = py.import("uuid")?.getattr("SafeUUID")?.getattr("unknown")?;
        // SAFETY: `cls` is a live type object; PyType_GetSlot returns its tp_alloc slot or NULL,
        // and a non-NULL Py_tp_alloc slot holds an `allocfunc`.
        let alloc = unsafe {
            let slot = ffi::PyType_GetSlot(cls.as_type_ptr(), ffi::Py_tp_alloc);
            (!slot.is_null()).then(|| std::mem::transmute::<_, ffi::allocfunc>(slot))
        };
        let mut m = UuidMaker {
            cls: cls.unbind(),
            safe: safe.unbind(),
            offsets: None,
            alloc,
        };
        m.offsets = m.find_offsets(py)?;
        Ok(m)
    }

    /// A bare instance with its slots set the portable way (`PyObject_GenericSetAttr`, which
    /// `object.__setattr__` is, past UUID's read-only `__setattr__`).
    fn make_generic<'py>(
        &self,
        py: Python<'py>,
        int: &Bound<'py, PyAny>,
        safe: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let obj = self.bare(py)?;
        for (name, value) in [(intern!(py, "int"), int), (intern!(py, "is_safe"), safe)] {
            // SAFETY: all three are valid, live objects.
            if unsafe { ffi::PyObject_GenericSetAttr(obj.as_ptr(), name.as_ptr(), value.as_ptr()) }
                != 0
            {
                return Err(PyErr::fetch(py));
            }
        }
        Ok(obj)
    }

    /// Where the two slots (`__slots__` members, stored as object pointers inside the
    /// instance) are: one instance is given two fresh marker objects through the portable
    /// path, and the instance's `__basicsize__` bytes are searched for them. Each marker must be
    /// found exactly once and be read back by `getattr`, else None (the portable path is used).
    fn find_offsets(&self, py: Python<'_>) -> PyResult<Option<(usize, usize)>> {
        let cls = self.cls.bind(py);
        let size: usize = cls.getattr(intern!(py, "__basicsize__"))?.extract()?;
        let word = std::mem::size_of::<*mut ffi::PyObject>();
        let (a, b) = (PyList::empty(py).into_any(), PyList::empty(py).into_any());
        let obj = self.make_generic(py, &a, &b)?;
        let (mut at_a, mut at_b) = (Vec::new(), Vec::new());
        let mut off = std::mem::size_of::<ffi::PyObject>();
        while off + word <= size {
            // SAFETY: `off + word <= __basicsize__`, so the word lies inside the instance,
            // which is word-aligned; it is only read.
            let p = unsafe {
                obj.as_ptr()
                    .cast::<u8>()
                    .add(off)
                    .cast::<*mut ffi::PyObject>()
                    .read()
            };
            if p == a.as_ptr() {
                at_a.push(off);
            } else if p == b.as_ptr() {
                at_b.push(off);
            }
            off += word;
        }
        let (&[ia], &[ib]) = (at_a.as_slice(), at_b.as_slice()) else {
            return Ok(None);
        };
        let found =
            obj.getattr(intern!(py, "int"))?.is(&a) && obj.getattr(intern!(py, "is_safe"))?.is(&b);
        Ok(found.then_some((ia, ib)))
    }

    /// `object.__new__(uuid.UUID)`: the class's `tp_alloc` (a heap type's slot, readable
    /// through the stable ABI), which is all `object.__new__` does for a class without abstract
    /// methods, or the `__new__` call when the slot is not there.
    fn bare<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let cls = self.cls.bind(py);
        let Some(alloc) = self.alloc else {
            return cls.call_method1(intern!(py, "__new__"), (cls,));
        };
        // SAFETY: `alloc` is the class's own tp_alloc; called with that class and 0 items it
        // returns a new reference to a zero-initialised instance, or NULL with an exception set.
        unsafe { Bound::from_owned_ptr_or_err(py, alloc(cls.as_type_ptr(), 0)) }
    }

    fn make<'py>(&self, py: Python<'py>, int: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let safe = self.safe.bind(py);
        let (Some((ia, ib)), Some(_)) = (self.offsets, self.alloc) else {
            return self.make_generic(py, &int, safe);
        };
        let obj = self.bare(py)?;
        // SAFETY: a fresh instance from tp_alloc has its slots zeroed (NULL); the offsets are
        // those `find_offsets` saw `object.__setattr__` write. Each slot takes a strong
        // reference, as the member descriptor's setter would (nothing is released: they were
        // NULL). The GIL is held.
        unsafe {
            let base = obj.as_ptr().cast::<u8>();
            base.add(ia)
                .cast::<*mut ffi::PyObject>()
                .write(int.into_ptr());
            base.add(ib)
                .cast::<*mut ffi::PyObject>()
                .write(safe.clone().into_ptr());
        }
        Ok(obj)
    }
}

/// A UUID argument: a `uuid.UUID` or its text in any usual form.
pub struct UuidArg(pub Uuid);

impl<'a, 'py> FromPyObject<'a, 'py> for UuidArg {
    type Error = PyErr;
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(s) = obj.cast::<PyString>() {
            return Ok(UuidArg(uuid::parse(&s.to_cow()?).py()?));
        }
        if obj.is_instance(uuid_type(obj.py())?)? {
            let v: u128 = obj.getattr(intern!(obj.py(), "int"))?.extract()?;
            return Ok(UuidArg(Uuid::from_u128(v)));
        }
        let t = obj.get_type().name()?;
        Err(PyTypeError::new_err(format!(
            "expected a uuid.UUID or a str, not {t}"
        )))
    }
}

/// A name for v3/v5: `str` (UTF-8 encoded, as the standard library does) or `bytes`.
pub struct NameArg(Vec<u8>);

impl<'a, 'py> FromPyObject<'a, 'py> for NameArg {
    type Error = PyErr;
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(s) = obj.cast::<PyString>() {
            return Ok(NameArg(s.to_cow()?.as_bytes().to_vec()));
        }
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(NameArg(b.as_bytes().to_vec()));
        }
        let t = obj.get_type().name()?;
        Err(PyTypeError::new_err(format!(
            "name must be str or bytes, not {t}"
        )))
    }
}

fn fixed<const N: usize>(b: &[u8], what: &str) -> PyResult<[u8; N]> {
    <[u8; N]>::try_from(b).map_err(|_| {
        PyValueError::new_err(format!("{what} must be exactly {N} bytes, got {}", b.len()))
    })
}

/// A clocked UUID generator (`version` 1, 4, 6 or 7) with a sans-IO `next_at` for replays: the
/// core's `idmint::UuidGenerator` (thread-safe, OS-seeded randomness, restarted after fork).
/// v7 UUIDs of one generator are strictly increasing (RFC 9562 method 1, 42-bit counter).
#[pyclass(frozen, module = "idmint", name = "UuidGenerator")]
pub struct PyUuidGenerator {
    inner: UuidGenerator,
}

impl PyUuidGenerator {
    /// The generator for a parsed config (the core refuses snowflake configs).
    pub fn from_named(cfg: NamedConfig) -> PyResult<Self> {
        let inner = UuidGenerator::from_config(cfg).py()?;
        Ok(PyUuidGenerator { inner })
    }
}

#[pymethods]
impl PyUuidGenerator {
    #[new]
    #[pyo3(signature = (version = 7))]
    fn new(version: u8) -> PyResult<Self> {
        let inner = UuidGenerator::new(version).py()?;
        Ok(PyUuidGenerator { inner })
    }

    /// A generator from a named config (`type=uuid7`, `{"type":"uuid4"}`, ...).
    #[staticmethod]
    fn from_config(config: &str) -> PyResult<Self> {
        Self::from_named(NamedConfig::parse_uuid(config).py()?)
    }

    /// The next UUID (system clock, OS randomness).
    fn next(&self) -> PyResult<PyUuid> {
        self.inner.next().py().map(PyUuid)
    }

    /// Sans-IO: the next UUID at `now_ms` (ms since the Unix epoch). `random(n)` must return
    /// `n` random bytes (uuid4: 16 per call, uuid7: 10, uuid1: 8 on the first call only);
    /// None draws them from the OS.
    #[pyo3(signature = (now_ms, random = None))]
    fn next_at(&self, now_ms: u64, random: Option<Bound<'_, PyAny>>) -> PyResult<PyUuid> {
        let Some(random) = random_callback(random)? else {
            return self.inner.next_at(now_ms, random_fill).py().map(PyUuid);
        };
        // The core calls `random` with the generator unlocked, so the callback (Python code)
        // may block, switch threads or call this generator again; its exception is raised as is.
        self.inner.next_at_with(now_ms, random)?.py().map(PyUuid)
    }

    /// The type name: `uuid1`, `uuid4`, `uuid6` or `uuid7`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.config().kind().name()
    }

    /// The UUID version (1, 4, 6 or 7).
    #[getter]
    fn version(&self) -> u8 {
        self.inner.config().kind().uuid_version().unwrap_or(7)
    }

    /// The canonical named config (`type=uuid7`).
    #[getter]
    fn config(&self) -> String {
        self.inner.config().to_string()
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self) -> PyResult<PyUuid> {
        self.next()
    }

    fn __repr__(&self) -> String {
        format!("<UuidGenerator {}>", self.inner.config())
    }
}

/// A `next_at` call's `random` argument: None (the OS's bytes), or a callable `random(n)` that
/// returns `n` bytes, as a function that fills a buffer with them.
pub(crate) fn random_callback<'py>(
    random: Option<Bound<'py, PyAny>>,
) -> PyResult<Option<impl FnMut(&mut [u8]) -> PyResult<()> + 'py>> {
    let Some(f) = random else {
        return Ok(None);
    };
    if !f.is_callable() {
        return Err(PyTypeError::new_err(
            "random must be a callable taking a byte count and returning bytes, or None",
        ));
    }
    Ok(Some(move |buf: &mut [u8]| random_bytes(&f, buf)))
}

/// `random(n)` for `n = buf.len()`, which must return exactly that many bytes, into `buf`.
fn random_bytes(random: &Bound<'_, PyAny>, buf: &mut [u8]) -> PyResult<()> {
    let wanted = buf.len();
    let b = random.call1((wanted,))?.cast_into::<PyBytes>();
    let b = b.map_err(|_| PyTypeError::new_err("random(n) must return bytes"))?;
    if b.as_bytes().len() != wanted {
        let got = b.as_bytes().len();
        let e = format!("random(n) returned {got} bytes, expected {wanted}");
        return Err(PyValueError::new_err(e));
    }
    buf.copy_from_slice(b.as_bytes());
    Ok(())
}

/// A version 1 UUID (time-based) with a random multicast node, never a MAC address.
#[pyfunction]
pub fn uuid1() -> PyResult<PyUuid> {
    clocked::uuid1().py().map(PyUuid)
}

/// A version 3 (MD5) UUID of `namespace` and `name`; equal to `uuid.uuid3`.
#[pyfunction]
pub fn uuid3(namespace: UuidArg, name: NameArg) -> PyUuid {
    PyUuid(uuid::v3(&namespace.0, &name.0))
}

/// A version 4 (random) UUID from the OS, or from exactly 16 given `random` bytes.
#[pyfunction]
#[pyo3(signature = (random = None))]
pub fn uuid4(random: Option<&[u8]>) -> PyResult<PyUuid> {
    match random {
        Some(b) => Ok(PyUuid(uuid::v4(fixed::<16>(b, "random")?))),
        None => clocked::uuid4().py().map(PyUuid),
    }
}

/// A version 5 (SHA-1) UUID of `namespace` and `name`; equal to `uuid.uuid5`.
#[pyfunction]
pub fn uuid5(namespace: UuidArg, name: NameArg) -> PyUuid {
    PyUuid(uuid::v5(&namespace.0, &name.0))
}

/// A name-based version 8 UUID: the first 16 bytes of SHA-256 over `namespace` and `name`
/// (RFC 9562 appendix B.2); the same UUID as every idmint surface gives.
#[pyfunction]
pub fn uuid8_sha256(namespace: UuidArg, name: NameArg) -> PyUuid {
    PyUuid(uuid::v8_sha256(&namespace.0, &name.0))
}

/// A version 7 UUID from the process-wide monotonic generator: strictly increasing within the
/// process (all threads share it), restarted in a forked child.
#[pyfunction]
pub fn uuid7() -> PyResult<PyUuid> {
    clocked::uuid7().py().map(PyUuid)
}

/// Sans-IO version 7 UUID from `unix_ms` and 10 `random` bytes (not monotonic by itself).
#[pyfunction]
pub fn uuid7_at(unix_ms: u64, random: &[u8]) -> PyResult<PyUuid> {
    Ok(PyUuid(uuid::v7(unix_ms, fixed::<10>(random, "random")?)))
}

/// Sans-IO version 1 UUID from 100 ns ticks since 1582-10-15, a clock sequence (14 bits
/// used) and a 6-byte random node (its multicast bit is forced on).
#[pyfunction]
pub fn uuid1_at(ticks: u64, clock_seq: u16, node: &[u8]) -> PyResult<PyUuid> {
    Ok(PyUuid(uuid::v1(
        ticks,
        clock_seq,
        fixed::<6>(node, "node")?,
    )))
}

/// Sans-IO version 1 UUID at `unix_ms` plus `ticks_100ns_extra` (clamped to 9999) 100 ns
/// ticks, with a clock sequence and a 6-byte random node.
#[pyfunction]
pub fn uuid1_random_node(
    unix_ms: u64,
    ticks_100ns_extra: u16,
    clock_seq: u16,
    node: &[u8],
) -> PyResult<PyUuid> {
    let node = fixed::<6>(node, "node")?;
    Ok(PyUuid(uuid::v1_random_node(
        unix_ms,
        ticks_100ns_extra,
        clock_seq,
        node,
    )))
}

/// Parses a UUID (hyphenated, 32 hex digits, braced or urn:uuid:, either case); errors are
/// InvalidEncoding with the character index.
#[pyfunction]
pub fn parse_uuid(text: &str) -> PyResult<PyUuid> {
    uuid::parse(text).py().map(PyUuid)
}

py_record!(
    /// What a UUID says about itself.
    PyUuidInfo(uuid::UuidInfo) as "UuidInfo";
    fields(0) {
        version: u8 = "The version nibble (0-15).",
        variant: &'static str = "`ncs`, `rfc9562`, `microsoft` or `future`.",
        /// Creation time (ms since the Unix epoch) for versions 1, 6 and 7, else None.
        unix_ms: Option<u64>,
    } repr(version, variant, unix_ms) {}
);

/// Version, variant and (v1, v6, v7) creation time of a UUID or UUID text.
#[pyfunction]
pub fn uuid_info(u: UuidArg) -> PyUuidInfo {
    PyUuidInfo(uuid::inspect(&u.0))
}

/// A version 6 UUID (v1's fields reordered so they sort by time) from the process-wide
/// generator: increasing within the process, random node and clock sequence.
#[pyfunction]
pub fn uuid6() -> PyResult<PyUuid> {
    clocked::uuid6().py().map(PyUuid)
}

/// Sans-IO version 6 UUID from 100 ns ticks since 1582-10-15, a clock sequence (14 bits
/// used) and a 6-byte random node (its multicast bit is forced on).
#[pyfunction]
pub fn uuid6_at(ticks: u64, clock_seq: u16, node: &[u8]) -> PyResult<PyUuid> {
    Ok(PyUuid(uuid::v6(
        ticks,
        clock_seq,
        fixed::<6>(node, "node")?,
    )))
}

/// A version 8 (custom) UUID from 16 bytes; the version and variant bits are overwritten.
#[pyfunction]
pub fn uuid8(data: &[u8]) -> PyResult<PyUuid> {
    Ok(PyUuid(uuid::v8(fixed::<16>(data, "data")?)))
}

/// A version 8 UUID from its custom fields `custom_a` (48 bits), `custom_b` (12 bits) and
/// `custom_c` (62 bits), as in RFC 9562 appendix B.1; OutOfRange if one does not fit.
#[pyfunction]
pub fn uuid8_from_fields(custom_a: u64, custom_b: u64, custom_c: u64) -> PyResult<PyUuid> {
    uuid::v8_from_fields(custom_a, custom_b, custom_c)
        .py()
        .map(PyUuid)
}

/// The custom fields `(custom_a, custom_b, custom_c)` of a version 8 UUID, or None for a UUID
/// of another version.
#[pyfunction]
pub fn uuid8_fields(u: UuidArg) -> Option<(u64, u16, u64)> {
    uuid::v8_fields(&u.0)
}

/// The version 6 UUID with the same time, clock sequence and node as a version 1 UUID;
/// InvalidArgument for a UUID of another version.
#[pyfunction]
pub fn uuid1_to_uuid6(u: UuidArg) -> PyResult<PyUuid> {
    uuid::v1_to_v6(&u.0).py().map(PyUuid)
}

/// The version 1 UUID with the same time, clock sequence and node as a version 6 UUID;
/// InvalidArgument for a UUID of another version.
#[pyfunction]
pub fn uuid6_to_uuid1(u: UuidArg) -> PyResult<PyUuid> {
    uuid::v6_to_v1(&u.0).py().map(PyUuid)
}

/// `n` version 7 UUIDs from the process-wide generator, increasing (and above every UUID it
/// issued before), made under one lock and one clock reading: the batch form of `uuid7()`.
#[pyfunction]
pub fn uuid7s(py: Python<'_>, n: u64) -> PyResult<Bound<'_, PyList>> {
    let n = idmint::limits::batch_len(n).py()?;
    let mut out = vec![Uuid::nil(); n];
    if n > 64 {
        py.detach(|| clocked::uuid7_fill(&mut out)).py()?;
    } else {
        clocked::uuid7_fill(&mut out).py()?;
    }
    PyList::new(py, out.into_iter().map(PyUuid))
}

/// A sans-IO version 7 generator using one of RFC 9562's three monotonic methods
/// (`counter`, `random_increment`, `sub_millisecond`): the core's `Uuid7Generator`, fed the time
/// and 10 random bytes per call.
#[pyclass(frozen, module = "idmint", name = "Uuid7Generator")]
pub struct PyUuid7Generator {
    inner: Mutex<Uuid7Generator>,
}

#[pymethods]
impl PyUuid7Generator {
    #[new]
    #[pyo3(signature = (method = "counter"))]
    fn new(method: &str) -> PyResult<Self> {
        let m = Uuid7Method::parse(method).py()?;
        Ok(PyUuid7Generator {
            inner: Mutex::new(Uuid7Generator::with_method(m)),
        })
    }

    /// The next UUID at `unix_ms` plus `sub_ms_nanos` (0-999999, used by `sub_millisecond`)
    /// from 10 `random` bytes; strictly greater than the one before.
    #[pyo3(signature = (unix_ms, random, sub_ms_nanos = 0))]
    fn next_at(&self, unix_ms: u64, random: &[u8], sub_ms_nanos: u32) -> PyResult<PyUuid> {
        let r = fixed::<10>(random, "random")?;
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        Ok(PyUuid(g.next_at_precise(unix_ms, sub_ms_nanos, r)))
    }

    /// The method name.
    #[getter]
    fn method(&self) -> &'static str {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .method()
            .name()
    }

    /// The timestamp (ms) of the last UUID issued, None before the first.
    #[getter]
    fn last_unix_ms(&self) -> Option<u64> {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .last_unix_ms()
    }

    fn __repr__(&self) -> String {
        format!("<Uuid7Generator {}>", self.method())
    }
}
