//! `Layout`, `Field` and `Parts`: the core's `idmint::snowflake::layout` as Python classes, and the layout
//! and node arguments other classes take.

use idmint::{Layout, Parts, SnowflakeOptions};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyMapping, PyString, PyTuple, PyType};

use crate::convert::utc_datetime;

/// 10000-01-01T00:00:00Z in ms since the Unix epoch: the first instant `datetime` cannot hold.
const DATETIME_END_MS: u64 = 253_402_300_800_000;
use crate::error::IntoPyResult;
use crate::methods::py_methods;

/// A layout argument: a `Layout`, or a preset name / text spec (parsed by the core).
pub struct LayoutArg(pub Layout);

impl Default for LayoutArg {
    /// The core's default layout (`twitter`).
    fn default() -> Self {
        LayoutArg(SnowflakeOptions::new().layout())
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for LayoutArg {
    type Error = PyErr;
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(l) = obj.cast::<PyLayout>() {
            return Ok(LayoutArg(l.get().inner));
        }
        if let Ok(s) = obj.cast::<PyString>() {
            return Layout::parse(&s.to_cow()?).py().map(LayoutArg);
        }
        Err(PyTypeError::new_err(format!(
            "layout must be a Layout, a preset name or a spec string, not {}",
            obj.get_type().name()?
        )))
    }
}

/// A node argument: the whole node value as an int, or a mapping of node sub-field names to
/// values, joined under the layout by the core's rule (`Layout::node_from_parts`).
pub enum NodeArg {
    /// The whole node value.
    Value(u64),
    /// Sub-field values by name (a name that is not a `str` is kept as its `str()`, which no
    /// sub-field has).
    Parts(Vec<(String, u64)>),
}

impl NodeArg {
    /// The whole node value under `layout`.
    pub fn resolve(&self, layout: &Layout) -> PyResult<u64> {
        match self {
            NodeArg::Value(v) => Ok(*v),
            NodeArg::Parts(p) => {
                let parts: Vec<(&str, u64)> = p.iter().map(|(k, v)| (k.as_str(), *v)).collect();
                layout.node_from_parts(&parts).py()
            }
        }
    }

    /// Sets the node in generator options (joined once the layout is known).
    pub fn set_on(&self, o: &mut SnowflakeOptions) -> PyResult<()> {
        match self {
            NodeArg::Value(v) => o.set("node", idmint::OptionValue::Int(*v)),
            NodeArg::Parts(p) => p.iter().try_for_each(|(k, v)| o.set_node_part(k, *v)),
        }
        .py()
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for NodeArg {
    type Error = PyErr;
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.cast::<PyString>().is_ok() {
            return Err(PyTypeError::new_err(
                "node must be an int or a mapping of node sub-field names to ints, not str",
            ));
        }
        if obj.cast::<PyDict>().is_err() && obj.cast::<PyMapping>().is_err() {
            return Ok(NodeArg::Value(obj.extract()?));
        }
        let mut parts = Vec::new();
        for item in obj.call_method0("items")?.try_iter()? {
            let (k, v): (Bound<'py, PyAny>, u64) = item?.extract()?;
            parts.push((k.str()?.to_cow()?.into_owned(), v));
        }
        Ok(NodeArg::Parts(parts))
    }
}

/// A validated ID layout: which fields an ID holds, how wide, in which order, from which epoch.
#[pyclass(frozen, eq, hash, module = "idmint", name = "Layout")]
#[derive(PartialEq, Eq, Hash)]
pub struct PyLayout {
    pub inner: Layout,
}

/// One bit field of a layout.
#[pyclass(frozen, eq, hash, get_all, module = "idmint", name = "Field")]
#[derive(PartialEq, Eq, Hash)]
pub struct PyField {
    /// The field's name (`time`, `seq`, `rollback`, or the node sub-field's own name).
    name: String,
    /// `time`, `node`, `sequence` or `rollback`.
    kind: &'static str,
    /// Width in bits.
    bits: u8,
    /// Position of the field's least significant bit.
    shift: u8,
    /// Largest value the field holds.
    max: u64,
}

py_methods!(PyField; repr(name, kind, bits, shift) {});

/// The field values of one ID, from `Layout.decompose` / `Snowflake.decode`.
#[pyclass(frozen, eq, hash, module = "idmint", name = "Parts")]
#[derive(PartialEq, Eq, Hash)]
pub struct PyParts {
    parts: Parts,
    timestamp_ms: u64,
    node_fields: Vec<(String, u64)>,
}

py_methods!(PyParts; fields(parts) {
    time: u64 = "Ticks since the layout's epoch.",
    node: u64 = "The whole node value (all node sub-fields, most significant first).",
    sequence: u64 = "Sequence within the tick.",
    rollback: u64 = "Rollback counter (0 when the layout has none).",
} repr(time, node, sequence, rollback, timestamp_ms, node_fields) {
    /// Start of the ID's tick, ms since the Unix epoch.
    #[getter]
    fn timestamp_ms(&self) -> u64 {
        self.timestamp_ms
    }

    /// The node split into its named sub-fields, in layout order.
    #[getter]
    fn node_fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in &self.node_fields {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// Start of the ID's tick as an aware UTC datetime.
    #[getter]
    fn datetime<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        utc_datetime(py, self.timestamp_ms)
    }
});

/// Decomposes `id` under `layout`.
pub fn decode(layout: &Layout, id: u64) -> PyResult<PyParts> {
    let parts = layout.decompose(id).py()?;
    Ok(PyParts {
        parts,
        timestamp_ms: layout.tick_start_ms(parts.time),
        node_fields: layout
            .split_node(parts.node)
            .map(|(n, v)| (n.as_str().to_owned(), v))
            .collect(),
    })
}

py_methods!(PyLayout; calls(inner) {
    preset_name: Option<&'static str> = "The preset name, if this layout is an unmodified preset.",
    width: u8 = "Total bits used; every ID is below `2**width`.",
    epoch_ms: u64 = "Epoch, ms since the Unix epoch.",
    tick_ms: u64 = "Length of one tick of the time field, in ms.",
    max_id: u64 = "The largest ID.",
    max_node: u64 = "The largest whole node value.",
    max_sequence: u64 = "Largest sequence value in one tick.",
    max_time: u64 = "Largest tick count the time field holds.",
    node_bits: u8 = "Total bits of the node sub-fields.",
    is_js_safe: bool = "Whether every ID fits a JavaScript number exactly (width <= 53).",
    capacity_per_second: u64 = "IDs one node can issue per second at most.",
    /// First instant (ms since the Unix epoch) the time field cannot represent.
    lifetime_end_ms: u64,
    timestamp_ms(id: u64) -> u64 = "The Unix-ms time encoded in `id` (start of its tick).",
    /// The tick count at `now_ms` (raises BeforeEpoch or LayoutExpired).
    tick_at(now_ms: u64) -> Result<u64>,
    tick_start_ms(tick: u64) -> u64 = "The start of tick `tick`, ms since the Unix epoch (saturating).",
    is_expired_at(now_ms: u64) -> bool = "Whether the time field has overflowed at `now_ms`.",
} {
    /// A preset name (`twitter`, `discord`, `instagram`, `sonyflake`, `baidu`,
    /// `shardingsphere`, `leaf`, `js53`) or a text spec such as
    /// `time=41@1ms,worker=10,seq=12,epoch=2020-01-01`.
    #[new]
    fn new(spec: &str) -> PyResult<Self> {
        Ok(PyLayout { inner: Layout::parse(spec).py()? })
    }

    /// Same as `Layout(spec)`.
    #[staticmethod]
    fn parse(spec: &str) -> PyResult<Self> {
        Self::new(spec)
    }

    /// A preset by name only (a spec is refused).
    #[staticmethod]
    fn preset(name: &str) -> PyResult<Self> {
        Ok(PyLayout { inner: Layout::preset(name).py()? })
    }

    /// The canonical text spec (`str(layout)`); parses back to an equal layout.
    #[getter]
    fn spec(&self) -> String {
        self.inner.to_string()
    }

    /// Epoch as an aware UTC datetime.
    #[getter]
    fn epoch<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        utc_datetime(py, self.inner.epoch_ms())
    }

    /// First instant the time field cannot represent, as an aware UTC datetime; `None` when it
    /// lies past year 9999, beyond what `datetime` can hold: the layout does not run out before
    /// year 10000 (`lifetime_end_ms` has the exact instant).
    #[getter]
    fn lifetime_end<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let ms = self.inner.lifetime_end_ms();
        if ms >= DATETIME_END_MS {
            return Ok(None);
        }
        utc_datetime(py, ms).map(Some)
    }

    /// The fields, most significant first.
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let fields = self.inner.fields().iter().map(|f| {
            let (name, kind) = (f.name.as_str().to_owned(), f.kind.name());
            Bound::new(py, PyField { name, kind, bits: f.bits, shift: f.shift, max: f.max() })
        });
        PyTuple::new(py, fields.collect::<PyResult<Vec<_>>>()?)
    }

    /// Names of the node sub-fields, most significant first.
    #[getter]
    fn node_names(&self) -> Vec<&str> {
        self.inner.node_fields().map(|f| f.name.as_str()).collect()
    }

    /// Packs field values into an ID. `node` is the whole node value or a mapping of node
    /// sub-field names to values.
    #[pyo3(signature = (*, time = 0, node = NodeArg::Value(0), sequence = 0, rollback = 0), text_signature = "($self, *, time=0, node=0, sequence=0, rollback=0)")]
    fn compose(&self, time: u64, node: NodeArg, sequence: u64, rollback: u64) -> PyResult<u64> {
        let node = node.resolve(&self.inner)?;
        self.inner.compose(&Parts { time, node, sequence, rollback }).py()
    }

    /// Splits an ID into its fields.
    fn decompose(&self, id: u64) -> PyResult<PyParts> {
        decode(&self.inner, id)
    }

    /// The time encoded in `id` as an aware UTC datetime.
    fn datetime<'py>(&self, py: Python<'py>, id: u64) -> PyResult<Bound<'py, PyAny>> {
        utc_datetime(py, self.inner.timestamp_ms(id))
    }

    /// Splits a whole node value into its named sub-fields (raises OutOfRange above
    /// `max_node`).
    fn split_node<'py>(&self, py: Python<'py>, node: u64) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, v) in self.inner.try_split_node(node).py()? {
            d.set_item(name.as_str(), v)?;
        }
        Ok(d)
    }

    /// Joins node sub-field values (a mapping by name) into a whole node value.
    fn join_node(&self, values: NodeArg) -> PyResult<u64> {
        if let NodeArg::Value(_) = values {
            let e = "join_node takes a mapping of node sub-field names to ints";
            return Err(PyTypeError::new_err(e));
        }
        values.resolve(&self.inner)
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        match self.inner.preset_name() {
            Some(p) => format!("Layout('{p}')"),
            None => format!("Layout('{}')", self.inner),
        }
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyType>, (String,))> {
        let l = &slf.get().inner;
        let arg = l.preset_name().map_or_else(|| l.to_string(), str::to_owned);
        Ok((slf.get_type(), (arg,)))
    }
});
