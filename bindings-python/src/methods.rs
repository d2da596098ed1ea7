//! The method sets Python classes share, written once: [`py_methods!`] writes a class's one
//! `#[pymethods]` block from named groups plus the class's own methods, [`py_record!`] declares
//! a record class around a core value, and [`Handle`] is the closable handle of the classes that
//! hold store connections.
//!
//! The groups name what they use (`decode`, `PyRun`, `array_filled`, ...) as the invoking
//! module imports it, so this module depends on no other of the crate.
//!
//! | group | needs on the class | methods |
//! |---|---|---|
//! | `calls(path) { name: T = "doc", .. }` | | getters `self.path.name()` |
//! | `calls(path) { name(a: A) -> T, .. }` | | methods `self.path.name(a)` (`-> Result<T>`: raising the core's error) |
//! | `fields(path) { name: T = "doc", .. }` | | getters `self.path.name` |
//! | `generator` | `with(f)` | `decode`, `node`, `layout`, `fence_ms` |
//! | `clocked` | `with(f)`, `one(py, f)` | `next_id`, `try_next_id`, `next_ids`, `next_ids_into`, `next_ids_list`, iteration |
//! | `sans_io` | `with(f)`, `build(cfg)`, `given` | the constructor, `from_config`, `config`, `next_id_at`, `reserve_at`, `next_ids_at`, `stats`, `set_node` |
//! | `repr(a, b, ..)` | getters `a`, `b`, .. | `__repr__`: `Name(a=.., b=..)` |
//! | `closable` | `inner: Handle<T>`, `shut(T)` | `closed`, `close`, `with` blocks |

use std::sync::{PoisonError, RwLock, RwLockReadGuard, TryLockError};

use pyo3::prelude::*;

macro_rules! py_methods {
    ($cls:ty; $($rest:tt)*) => { py_methods!(@ $cls [] $($rest)*); };
    (@ $cls:ty [$($m:tt)*] repr($($f:ident),*) $($rest:tt)*) => { py_methods!(@ $cls [$($m)*
        fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
            $crate::methods::record_repr(slf.as_any(), &[$(stringify!($f)),*])
        }
    ] $($rest)*); };
    (@ $cls:ty [$($m:tt)*] $g:ident($($p:tt)+) {} $($rest:tt)*) => { py_methods!(@ $cls [$($m)*] $($rest)*); };
    (@ $cls:ty [$($m:tt)*] calls($($p:tt)+) { $(#[$a:meta])* $f:ident($($x:ident: $xt:ty),*) -> Result<$t:ty> $(= $d:literal)? $(, $($more:tt)*)? } $($rest:tt)*) => {
        py_methods!(@ $cls [$($m)* $(#[$a])* $(#[doc = $d])? fn $f(&self, $($x: $xt),*) -> PyResult<$t> { self.$($p)+.$f($($x),*).py() }] calls($($p)+) { $($($more)*)? } $($rest)*);
    };
    (@ $cls:ty [$($m:tt)*] calls($($p:tt)+) { $(#[$a:meta])* $f:ident($($x:ident: $xt:ty),*) -> $t:ty $(= $d:literal)? $(, $($more:tt)*)? } $($rest:tt)*) => {
        py_methods!(@ $cls [$($m)* $(#[$a])* $(#[doc = $d])? fn $f(&self, $($x: $xt),*) -> $t { self.$($p)+.$f($($x),*) }] calls($($p)+) { $($($more)*)? } $($rest)*);
    };
    (@ $cls:ty [$($m:tt)*] calls($($p:tt)+) { $(#[$a:meta])* $f:ident: $t:ty $(= $d:literal)? $(, $($more:tt)*)? } $($rest:tt)*) => {
        py_methods!(@ $cls [$($m)* $(#[$a])* $(#[doc = $d])? #[getter] fn $f(&self) -> $t { self.$($p)+.$f() }] calls($($p)+) { $($($more)*)? } $($rest)*);
    };
    (@ $cls:ty [$($m:tt)*] fields($($p:tt)+) { $(#[$a:meta])* $f:ident: $t:ty $(= $d:literal)? $(, $($more:tt)*)? } $($rest:tt)*) => {
        py_methods!(@ $cls [$($m)* $(#[$a])* $(#[doc = $d])? #[getter] fn $f(&self) -> $t { self.$($p)+.$f }] fields($($p)+) { $($($more)*)? } $($rest)*);
    };
    (@ $cls:ty [$($m:tt)*] generator $($rest:tt)*) => { py_methods!(@ $cls [$($m)*
        /// Splits an ID of this generator's layout into its fields.
        fn decode(&self, id: u64) -> PyResult<PyParts> {
            self.with(|g| decode(g.config().layout(), id))
        }
        /// The node IDs are minted with now.
        #[getter]
        fn node(&self) -> PyResult<u64> {
            self.with(|g| Ok(g.node()))
        }
        /// The layout.
        #[getter]
        fn layout(&self) -> PyResult<PyLayout> {
            self.with(|g| Ok(PyLayout { inner: *g.config().layout() }))
        }
        /// The time fence IDs are minted after, if any.
        #[getter]
        fn fence_ms(&self) -> PyResult<Option<u64>> {
            self.with(|g| Ok(g.config().fence()))
        }
    ] $($rest)*); };
    (@ $cls:ty [$($m:tt)*] clocked $($rest:tt)*) => { py_methods!(@ $cls [$($m)*
        /// Mints one ID, waiting (without the GIL) where the policy asks.
        #[inline]
        fn next_id(&self, py: Python<'_>) -> PyResult<u64> {
            self.with(|g| Self::one(py, || g.next_id()).py())
        }
        /// Mints one ID without waiting: raises WouldBlock (with `until_ms`) where `next_id` would wait.
        fn try_next_id(&self, py: Python<'_>) -> PyResult<u64> {
            self.with(|g| Self::one(py, || g.try_next_id()).py())
        }
        /// `n` fresh IDs as `array.array('Q')`, made without the GIL (at most `MAX_BATCH`).
        fn next_ids<'py>(&self, py: Python<'py>, n: u64) -> PyResult<Bound<'py, PyAny>> {
            self.with(|g| array_filled(py, n, |out| g.next_ids(out)))
        }
        /// Fills all of `out`, an `array.array('Q')`, with fresh IDs (without the GIL) and returns
        /// how many. The array cannot be resized meanwhile: other threads trying get BufferError.
        fn next_ids_into(&self, py: Python<'_>, out: &Bound<'_, PyAny>) -> PyResult<usize> {
            self.with(|g| fill_array(py, out, |buf| g.next_ids(buf)))
        }
        /// `n` fresh IDs as a list of ints (at most `MAX_BATCH`).
        fn next_ids_list(&self, py: Python<'_>, n: u64) -> PyResult<Vec<u64>> {
            let mut v = zeroed(n)?;
            self.with(|g| detached(py, || g.next_ids(&mut v)).py())?;
            Ok(v)
        }
        fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
            slf
        }
        fn __next__(&self, py: Python<'_>) -> PyResult<u64> {
            self.next_id(py)
        }
    ] $($rest)*); };
    (@ $cls:ty [$($m:tt)*] sans_io $($rest:tt)*) => { py_methods!(@ $cls [$($m)*
        #[new]
        #[pyo3(
            signature = (layout = LayoutArg::default(), node = None, on_backwards = options::default("on_backwards"), on_exhausted = options::default("on_exhausted"), sequence_start = options::default("sequence_start"), seed = None, fence_ms = None),
            text_signature = "(layout='twitter', node=None, on_backwards='wait:1000', on_exhausted='wait', sequence_start='zero', seed=None, fence_ms=None)"
        )]
        fn new(
            layout: LayoutArg,
            node: Option<NodeArg>,
            on_backwards: &str,
            on_exhausted: &str,
            sequence_start: &str,
            seed: Option<u64>,
            fence_ms: Option<u64>,
        ) -> PyResult<Self> {
            let p = [on_backwards, on_exhausted, sequence_start];
            Self::build(options::generator(layout, node, p, seed, fence_ms)?)
        }
        /// A generator from a named config (`type=snowflake,layout=twitter,node=5,...` or JSON).
        #[staticmethod]
        fn from_config(config: &str) -> PyResult<Self> {
            Self::build(options::named_snowflake(config)?)
        }
        /// The canonical named config it was built from (node as built; an OS-drawn seed is not shown).
        #[getter]
        fn config(&self) -> String {
            idmint::named::NamedConfig::Snowflake(self.given).to_string()
        }
        /// Sans-IO: mints at `now_ms` as given (replays, tests); never waits, raises WouldBlock.
        fn next_id_at(&self, now_ms: u64) -> PyResult<u64> {
            self.with(|g| g.next_id_at(now_ms).py())
        }
        /// Sans-IO: reserves a run of up to `max` IDs at `now_ms` with one swap.
        fn reserve_at(&self, now_ms: u64, max: u64) -> PyResult<PyRun> {
            self.with(|g| g.reserve_at(now_ms, max).py()).map(PyRun)
        }
        /// Sans-IO: up to `n` IDs at `now_ms` as `array.array('Q')` (fewer when the policy asks
        /// to wait; raises only if not even one can be issued).
        fn next_ids_at<'py>(&self, py: Python<'py>, now_ms: u64, n: u64) -> PyResult<Bound<'py, PyAny>> {
            let mut v = zeroed(n)?;
            let k = self.with(|g| g.next_ids_at(now_ms, &mut v).py())?;
            array_from(py, &v[..k])
        }
        /// The generator's counters.
        fn stats(&self) -> PyResult<PyStats> {
            self.with(|g| Ok(PyStats(g.stats())))
        }
        /// Gives the generator another node; in a child process after `os.fork()` this also
        /// re-arms a `Snowflake` (use a node no other process uses).
        fn set_node(&self, node: NodeArg) -> PyResult<()> {
            self.with(|g| g.set_node(node.resolve(g.config().layout())?).py())
        }
    ] $($rest)*); };
    (@ $cls:ty [$($m:tt)*] closable $($rest:tt)*) => { py_methods!(@ $cls [$($m)*
        /// Whether `close()` was called.
        #[getter]
        fn closed(&self) -> bool {
            self.inner.is_closed()
        }
        /// Releases what the object holds (see the class). Later calls do nothing; using the
        /// object afterwards raises ValueError.
        fn close(&self, py: Python<'_>) -> PyResult<()> {
            match self.inner.take(py) {
                Some(v) => py.detach(|| Self::shut(v)).py(),
                None => Ok(()),
            }
        }
        fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
            slf
        }
        /// Closes the object; exceptions propagate.
        fn __exit__(
            &self,
            py: Python<'_>,
            exc_type: &Bound<'_, PyAny>,
            exc_value: &Bound<'_, PyAny>,
            traceback: &Bound<'_, PyAny>,
        ) -> PyResult<()> {
            let _ = (exc_type, exc_value, traceback);
            self.close(py)
        }
    ] $($rest)*); };
    (@ $cls:ty [$($m:tt)*] { $($own:tt)* }) => {
        #[pymethods]
        impl $cls {
            $($m)*
            $($own)*
        }
    };
}

pub(crate) use py_methods;

/// Declares a frozen, comparable, hashable Python record class that wraps a core value, then
/// writes its methods with [`py_methods!`].
macro_rules! py_record {
    ($(#[$doc:meta])* $cls:ident($inner:ty) as $name:literal; $($rest:tt)*) => {
        $(#[$doc])*
        #[pyclass(frozen, eq, hash, module = "idmint", name = $name)]
        #[derive(PartialEq, Eq, Hash)]
        pub struct $cls(pub $inner);

        py_methods!($cls; $($rest)*);
    };
}

pub(crate) use py_record;

/// `Name(a=repr(obj.a), ...)`: the repr of a record-like class, from its own getters.
pub fn record_repr(obj: &Bound<'_, PyAny>, fields: &[&str]) -> PyResult<String> {
    let mut items = Vec::with_capacity(fields.len());
    for f in fields {
        items.push(format!("{f}={}", obj.getattr(*f)?.repr()?));
    }
    Ok(format!("{}({})", obj.get_type().name()?, items.join(", ")))
}

/// A value that `close()` takes away: calls on it after that raise `ValueError` (the `io`
/// convention for a closed file). Calls hold the read lock, so `close()` waits for them.
pub struct Handle<T: Send + Sync>(RwLock<Option<T>>);

/// An object dropped open (never closed) shuts down what it holds as `close()` does, without
/// the GIL: releasing a lease may wait for its store (up to the store's timeouts, longer than
/// ever when the store has stopped answering), and the interpreter's other threads must not
/// wait with it.
impl<T: Send + Sync> Drop for Handle<T> {
    fn drop(&mut self) {
        let open = self
            .0
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(v) = open {
            Python::attach(|py| py.detach(move || drop(v)));
        }
    }
}

impl<T: Send + Sync> Handle<T> {
    /// An open handle on `v`.
    pub fn new(v: T) -> Self {
        Handle(RwLock::new(Some(v)))
    }

    /// Runs `f` on the value, or raises the core's `Closed` error (`idmint.Closed`, also a
    /// `ValueError`).
    pub fn with<R>(&self, what: &'static str, f: impl FnOnce(&T) -> PyResult<R>) -> PyResult<R> {
        match self.read().as_ref() {
            Some(v) => f(v),
            None => Err(crate::error::to_py(idmint::Error::Closed { what })),
        }
    }

    /// The read lock, never waited for while holding the GIL. A `close()` waiting for the calls
    /// in progress blocks new readers, and those calls may need the GIL to return (they run
    /// detached and attach again to finish): a new call that waited for the lock holding the
    /// GIL would wait for itself through them. So a call that finds the lock taken waits for
    /// it detached, then tries again.
    fn read(&self) -> RwLockReadGuard<'_, Option<T>> {
        loop {
            match self.0.try_read() {
                Ok(g) => return g,
                Err(TryLockError::Poisoned(p)) => return p.into_inner(),
                Err(TryLockError::WouldBlock) => {
                    Python::attach(|py| py.detach(|| drop(self.0.read())));
                }
            }
        }
    }

    /// Empties the handle (waiting for calls in progress) and returns what it held.
    pub fn take(&self, py: Python<'_>) -> Option<T> {
        py.detach(|| {
            self.0
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
        })
    }

    /// Whether the handle was closed.
    pub fn is_closed(&self) -> bool {
        self.read().is_none()
    }
}
