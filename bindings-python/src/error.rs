//! The core's one error type as Python exceptions: one class per [`ErrorKind`], all under
//! `idmint.IdmintError`, each instance carrying `.code` (the core's `Error::code()`) and the
//! variant's fields as attributes, set from the core's `Error::fields()` so a variant added to
//! the core keeps its fields here too. `str(exc)` is the core's `Display` text.
//!
//! The classes are made with `type(name, bases, namespace)` so that a kind can also subclass
//! built-in exceptions (`ValueError`, `ConnectionError`, `KeyError`), which
//! `create_exception!` (one base) cannot express.

use idmint::{Error, ErrorKind, FieldValue};
use pyo3::exceptions::{PyBaseException, PyException};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

/// One line per kind, by the core's kind name ([`ErrorKind::name`], which is the class name):
/// the name, the built-in classes the class also subclasses (`-` for none) and its docstring.
/// A kind without a line fails the import, naming it.
const KINDS: &str = "\
InvalidLayout ValueError A layout spec, preset name or named-generator config is invalid (`at` is the byte offset for text errors, else None).
LayoutExpired - The layout's time field cannot represent the time any more (`end_ms`: its first unrepresentable instant).
BeforeEpoch - A time before the layout's epoch (`now_ms`, `epoch_ms`).
OutOfRange ValueError A value does not fit its field (`field`, `value`, `max`); a ValueError. Integers outside 0..2**64 raise the built-in OverflowError before reaching the core.
ClockBackwards - The clock went back further than the generator's on_backwards policy allows (`by_ms`, `last_ms`).
SequenceExhausted - Every sequence value of the tick is used and on_exhausted is 'fail' (`tick_ms`).
WouldBlock - Not a failure: no ID can be issued before `until_ms` (sans-IO calls); call again then.
Forked - The generator was created before os.fork(); call set_node(new_node) in the child to re-arm it.
InvalidConfig ValueError A generator, policy, codec or obfuscation configuration is invalid (`reason`).
InvalidEncoding ValueError Text could not be decoded (`codec`, `at`: character index, `reason`).
BufferTooSmall - An output buffer is too small (`needed` bytes); not raised by the Python API.
RandomSource - The operating system's random source failed.
StoreUnavailable ConnectionError A lease or segment store could not be reached or answered with an error (`store`, `op`); also a ConnectionError. Nothing was issued on the strength of the failed call; retrying later may succeed.
LeaseLost - The generator's node lease was not renewed in time or was taken over (`node`, `reason`); it stopped minting. Make a new generator to lease a node again.
NoFreeNode - Every node of the node space is leased by a live holder (`nodes`: the size of the space searched).
NodeRequired ValueError No node was given: pass node=N (one no other process uses), lease one with LeasedSnowflake('local') (this host) or LeasedSnowflake('redis://...' / 'postgres://...') (many hosts), or take LeasedSnowflake('random') knowing its collision odds.
StoreMismatch - A journal or shard set does not match the store it was recorded with (`store`, `reason`); resuming would repeat values.
LimitExceeded ValueError A request is larger than idmint does in one call (`what`, `limit`).
InvalidArgument KeyError,ValueError An argument names something that does not exist or leaves out something required: an unknown option key, an unknown, missing or repeated node sub-field (`argument`, `reason`); also a KeyError and a ValueError.
Closed ValueError The object was closed (close() or the end of its with block): only close() may follow (`what`); a ValueError, as for a closed file.
";

/// What the core's `NodeRequired` text says, in this package's spelling.
const NODE_REQUIRED_HINT: &str = " (in Python: Snowflake(node=N); LeasedSnowflake('local') leases a node from this host's lock directory, LeasedSnowflake('redis://...') or LeasedSnowflake('postgres://...') from a store shared by hosts; LeasedSnowflake('random') takes a random node)";

struct Classes {
    base: Py<PyType>,
    kinds: Vec<(String, Py<PyType>)>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

fn make_class<'py>(
    py: Python<'py>,
    name: &str,
    bases: Vec<Bound<'py, PyAny>>,
    doc: &str,
    attrs: &[(&str, Bound<'py, PyAny>)],
) -> PyResult<Bound<'py, PyType>> {
    let ns = PyDict::new(py);
    ns.set_item("__module__", "idmint")?;
    ns.set_item("__doc__", doc)?;
    for (k, v) in attrs {
        ns.set_item(k, v)?;
    }
    let bases = PyTuple::new(py, bases)?;
    Ok(py
        .get_type::<PyType>()
        .call1((name, bases, ns))?
        .cast_into()?)
}

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    CLASSES.get_or_try_init(py, || {
        let builtins = py.import("builtins")?;
        // `KeyError.__str__` quotes the message: every idmint error prints the core's text.
        let str_ = py.get_type::<PyBaseException>().getattr("__str__")?;
        let exc = py.get_type::<PyException>().into_any();
        let doc = "Base class of every idmint error; `.code` is the stable code shared by all surfaces (ERR_...).";
        let base = make_class(py, "IdmintError", vec![exc], doc, &[("__str__", str_)])?;
        let mut kinds = Vec::with_capacity(ErrorKind::ALL.len());
        for kind in ErrorKind::ALL {
            let name = kind.name();
            let line = KINDS
                .lines()
                .find(|l| l.split_once(' ').is_some_and(|(n, _)| n == name))
                .ok_or_else(|| {
                    pyo3::exceptions::PyImportError::new_err(format!(
                        "idmint: no exception class for the core's error kind {name}"
                    ))
                })?;
            let (_, rest) = line.split_once(' ').unwrap_or((line, ""));
            let (also, doc) = rest.split_once(' ').unwrap_or(("-", rest));
            let mut bases = vec![base.clone().into_any()];
            for b in also.split(',').filter(|b| *b != "-") {
                bases.push(builtins.getattr(b)?);
            }
            let mut attrs = vec![("code", kind.code().into_pyobject(py)?.into_any())];
            if kind == ErrorKind::InvalidLayout {
                // Its text errors (`InvalidSpec`) carry `at`; the others leave it None.
                attrs.push(("at", py.None().into_bound(py)));
            }
            let cls = make_class(py, name, bases, doc, &attrs)?;
            kinds.push((name.to_owned(), cls.unbind()));
        }
        Ok(Classes {
            base: base.unbind(),
            kinds,
        })
    })
}

/// Adds `IdmintError` and one class per kind to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let c = classes(m.py())?;
    m.add("IdmintError", c.base.bind(m.py()))?;
    for (name, cls) in &c.kinds {
        m.add(name.as_str(), cls.bind(m.py()))?;
    }
    Ok(())
}

fn build(py: Python<'_>, e: &Error) -> PyResult<PyErr> {
    let c = classes(py)?;
    // By the kind's name, the class's name: never by position in a table.
    let name = e.kind().name();
    let cls = c
        .kinds
        .iter()
        .find(|(n, _)| n == name)
        .map_or(&c.base, |(_, cls)| cls);
    let mut message = e.to_string();
    if e.kind() == ErrorKind::NodeRequired {
        message.push_str(NODE_REQUIRED_HINT);
    }
    let inst = cls.bind(py).call1((message,))?;
    inst.setattr("code", e.code())?;
    for f in e.fields() {
        match f.value {
            FieldValue::Str(s) => inst.setattr(f.name, s)?,
            FieldValue::Count(n) => inst.setattr(f.name, n)?,
            FieldValue::U64(n) => inst.setattr(f.name, n)?,
        }
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
