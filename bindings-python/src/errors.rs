//! The core's one error type as Python exceptions: one class per [`ErrorKind`], all under
//! `idmint.IdmintError`, each instance carrying `.code` (the core's `Error::code()`) and the
//! variant's fields as attributes (`until_ms`, `at`, `reason`, ...). `str(exc)` is the core's
//! `Display` text.
//!
//! The classes are made with `type(name, bases, namespace)` so that the value-like kinds can
//! also subclass `ValueError` (and a store outage `ConnectionError`), which
//! `create_exception!` (one base) cannot express.

use idmint::{Error, ErrorKind};
use pyo3::exceptions::{PyConnectionError, PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

/// The built-in exception a kind also subclasses, besides `IdmintError`, so that generic
/// handlers (`except ValueError`, `except ConnectionError`) catch it too.
#[derive(Clone, Copy)]
enum Also {
    /// Only `IdmintError`.
    Nothing,
    /// A bad value or text from the caller.
    ValueError,
    /// A store (Redis, PostgreSQL, SQLite, lease directory) could not be used; retrying later
    /// may work.
    ConnectionError,
}

use Also::{ConnectionError, Nothing, ValueError};

/// Exception class names, in the order of [`ErrorKind::ALL`], with the built-in class each also
/// subclasses and its docstring.
const KINDS: [(&str, Also, &str); 18] = [
    (
        "InvalidLayout",
        ValueError,
        "A layout spec, preset name or named-generator config is invalid (`at` is the byte offset for text errors, else None).",
    ),
    (
        "LayoutExpired",
        Nothing,
        "The layout's time field cannot represent the time any more (`end_ms`: its first unrepresentable instant).",
    ),
    (
        "BeforeEpoch",
        Nothing,
        "A time before the layout's epoch (`now_ms`, `epoch_ms`).",
    ),
    (
        "OutOfRange",
        ValueError,
        "A value does not fit its field (`field`, `value`, `max`); a ValueError. Integers outside 0..2**64 raise the built-in OverflowError before reaching the core.",
    ),
    (
        "ClockMovedBackwards",
        Nothing,
        "The clock went back further than the generator's on_backwards policy allows (`by_ms`, `last_ms`).",
    ),
    (
        "SequenceExhausted",
        Nothing,
        "Every sequence value of the tick is used and on_exhausted is 'fail' (`tick_ms`).",
    ),
    (
        "WouldBlock",
        Nothing,
        "Not a failure: no ID can be issued before `until_ms` (sans-IO calls); call again then.",
    ),
    (
        "ForkedGenerator",
        Nothing,
        "The generator was created before os.fork(); call set_node(new_node) in the child to re-arm it.",
    ),
    (
        "InvalidConfig",
        ValueError,
        "A generator, policy, codec or obfuscation configuration is invalid (`reason`).",
    ),
    (
        "InvalidEncoding",
        ValueError,
        "Text could not be decoded (`codec`, `at`: character index, `reason`).",
    ),
    (
        "BufferTooSmall",
        Nothing,
        "An output buffer is too small (`needed` bytes); not raised by the Python API.",
    ),
    (
        "RandomSource",
        Nothing,
        "The operating system's random source failed.",
    ),
    (
        "StoreUnavailable",
        ConnectionError,
        "A lease or segment store could not be reached or answered with an error (`store`, `op`); also a ConnectionError. Nothing was issued on the strength of the failed call; retrying later may succeed.",
    ),
    (
        "LeaseLost",
        Nothing,
        "The generator's node lease was not renewed in time or was taken over (`node`, `reason`); it stopped minting. Make a new generator to lease a node again.",
    ),
    (
        "NoFreeNode",
        Nothing,
        "Every node of the node space is leased by a live holder (`nodes`: the size of the space searched).",
    ),
    (
        "NodeRequired",
        ValueError,
        "No node was given: pass node=N (one no other process uses), lease one with LeasedSnowflake('local') (this host) or LeasedSnowflake('redis://...' / 'postgres://...') (many hosts), or take LeasedSnowflake('random') knowing its collision odds.",
    ),
    (
        "StoreMismatch",
        Nothing,
        "A journal or shard set does not match the store it was recorded with (`store`, `reason`); resuming would repeat values.",
    ),
    (
        "LimitExceeded",
        ValueError,
        "A request is larger than idmint does in one call (`what`, `limit`).",
    ),
];

struct Classes {
    base: Py<PyType>,
    kinds: Vec<Py<PyType>>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

fn make_class<'py>(
    py: Python<'py>,
    name: &str,
    bases: Bound<'py, PyTuple>,
    doc: &str,
    code: Option<&str>,
) -> PyResult<Bound<'py, PyType>> {
    let ns = PyDict::new(py);
    ns.set_item("__module__", "idmint")?;
    ns.set_item("__doc__", doc)?;
    if let Some(code) = code {
        ns.set_item("code", code)?;
    }
    let ty = py.get_type::<PyType>();
    Ok(ty.call1((name, bases, ns))?.cast_into::<PyType>()?)
}

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    CLASSES.get_or_try_init(py, || {
        let exc = py.get_type::<PyException>();
        let value_error = py.get_type::<PyValueError>();
        let connection_error = py.get_type::<PyConnectionError>();
        let base = make_class(
            py,
            "IdmintError",
            PyTuple::new(py, [exc])?,
            "Base class of every idmint error; `.code` is the stable code shared by all surfaces (ERR_...).",
            None,
        )?;
        let mut kinds = Vec::with_capacity(KINDS.len());
        for ((name, also, doc), kind) in KINDS.iter().zip(ErrorKind::ALL) {
            let bases = match also {
                Nothing => PyTuple::new(py, [base.clone()])?,
                ValueError => PyTuple::new(py, [base.clone(), value_error.clone()])?,
                ConnectionError => PyTuple::new(py, [base.clone(), connection_error.clone()])?,
            };
            kinds.push(make_class(py, name, bases, doc, Some(kind.code()))?.unbind());
        }
        Ok(Classes {
            base: base.unbind(),
            kinds,
        })
    })
}

/// Adds `IdmintError` and one class per kind to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let c = classes(py)?;
    m.add("IdmintError", c.base.bind(py))?;
    for ((name, _, _), cls) in KINDS.iter().zip(&c.kinds) {
        m.add(*name, cls.bind(py))?;
    }
    Ok(())
}

fn class_for<'py>(py: Python<'py>, kind: ErrorKind) -> PyResult<Bound<'py, PyType>> {
    let c = classes(py)?;
    let i = ErrorKind::ALL.iter().position(|k| *k == kind);
    Ok(match i.and_then(|i| c.kinds.get(i)) {
        Some(cls) => cls.bind(py).clone(),
        None => c.base.bind(py).clone(),
    })
}

/// What the core's `NodeRequired` text says, in this package's spelling.
const NODE_REQUIRED_HINT: &str = " (in Python: Snowflake(node=N); LeasedSnowflake('local') leases a node from this host's lock directory, LeasedSnowflake('redis://...') or LeasedSnowflake('postgres://...') from a store shared by hosts; LeasedSnowflake('random') takes a random node)";

fn build(py: Python<'_>, e: &Error) -> PyResult<PyErr> {
    let cls = class_for(py, e.kind())?;
    let message = match e {
        Error::NodeRequired => format!("{e}{NODE_REQUIRED_HINT}"),
        _ => e.to_string(),
    };
    let inst = cls.call1((message,))?;
    inst.setattr("code", e.code())?;
    match *e {
        Error::InvalidLayout { reason } => {
            inst.setattr("at", py.None())?;
            inst.setattr("reason", reason)?;
        }
        Error::InvalidSpec { at, reason } => {
            inst.setattr("at", at)?;
            inst.setattr("reason", reason)?;
        }
        Error::LayoutExpired { end_ms } => inst.setattr("end_ms", end_ms)?,
        Error::BeforeEpoch { now_ms, epoch_ms } => {
            inst.setattr("now_ms", now_ms)?;
            inst.setattr("epoch_ms", epoch_ms)?;
        }
        Error::FieldOverflow { field, value, max } => {
            inst.setattr("field", field.as_str())?;
            inst.setattr("value", value)?;
            inst.setattr("max", max)?;
        }
        Error::ClockMovedBackwards { by_ms, last_ms } => {
            inst.setattr("by_ms", by_ms)?;
            inst.setattr("last_ms", last_ms)?;
        }
        Error::SequenceExhausted { tick_ms } => inst.setattr("tick_ms", tick_ms)?,
        Error::WouldBlock { until_ms } => inst.setattr("until_ms", until_ms)?,
        Error::InvalidConfig { reason } => inst.setattr("reason", reason)?,
        Error::InvalidEncoding { codec, at, reason } => {
            inst.setattr("codec", codec)?;
            inst.setattr("at", at)?;
            inst.setattr("reason", reason)?;
        }
        Error::BufferTooSmall { needed } => inst.setattr("needed", needed)?,
        Error::StoreUnavailable { store, op, reason } => {
            inst.setattr("store", store)?;
            inst.setattr("op", op)?;
            inst.setattr("reason", reason)?;
        }
        Error::LeaseLost { node, reason } => {
            inst.setattr("node", node)?;
            inst.setattr("reason", reason)?;
        }
        Error::NoFreeNode { nodes } => inst.setattr("nodes", nodes)?,
        Error::StoreMismatch { store, reason } => {
            inst.setattr("store", store)?;
            inst.setattr("reason", reason)?;
        }
        Error::LimitExceeded { what, limit } => {
            inst.setattr("what", what)?;
            inst.setattr("limit", limit)?;
        }
        // Forked, RandomSource and NodeRequired carry no fields; kinds added to the core later still get
        // their code and message through the base class.
        _ => {}
    }
    Ok(PyErr::from_value(inst))
}

/// Converts a core error to the matching Python exception.
pub fn to_py(e: Error) -> PyErr {
    Python::attach(|py| build(py, &e).unwrap_or_else(|err| err))
}

/// `Result<T, idmint::Error>` → `PyResult<T>`.
pub trait IntoPyResult<T> {
    /// Maps the core error with [`to_py`].
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for Result<T, Error> {
    #[inline]
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
