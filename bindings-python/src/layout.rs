//! `Layout`, `Field` and `Parts`: the core's `idmint::layout` as Python classes.

use idmint::{FieldKind, Layout, Parts};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::convert::{utc_datetime, NodeArg};
use crate::errors::IntoPyResult;

/// A validated ID layout: which fields an ID holds, how wide, in which order, from which epoch.
#[pyclass(frozen, eq, hash, module = "idmint", name = "Layout")]
#[derive(PartialEq, Eq, Hash)]
pub struct PyLayout {
    pub inner: Layout,
}

/// One bit field of a layout.
#[pyclass(frozen, eq, hash, module = "idmint", name = "Field")]
#[derive(PartialEq, Eq, Hash)]
pub struct PyField {
    /// The field's name (`time`, `seq`, `rollback`, or the node sub-field's own name).
    #[pyo3(get)]
    name: String,
    /// `time`, `node`, `sequence` or `rollback`.
    #[pyo3(get)]
    kind: &'static str,
    /// Width in bits.
    #[pyo3(get)]
    bits: u8,
    /// Position of the field's least significant bit.
    #[pyo3(get)]
    shift: u8,
    /// Largest value the field holds.
    #[pyo3(get)]
    max: u64,
}

#[pymethods]
impl PyField {
    fn __repr__(&self) -> String {
        format!(
            "Field(name='{}', kind='{}', bits={}, shift={})",
            self.name, self.kind, self.bits, self.shift
        )
    }
}

/// The field values of one ID, from `Layout.decompose` / `Snowflake.decode`.
#[pyclass(frozen, eq, hash, module = "idmint", name = "Parts")]
#[derive(PartialEq, Eq, Hash)]
pub struct PyParts {
    /// Ticks since the layout's epoch.
    #[pyo3(get)]
    time: u64,
    /// The whole node value (all node sub-fields, most significant first).
    #[pyo3(get)]
    node: u64,
    /// Sequence within the tick.
    #[pyo3(get)]
    sequence: u64,
    /// Rollback counter (0 when the layout has none).
    #[pyo3(get)]
    rollback: u64,
    /// Start of the ID's tick, ms since the Unix epoch.
    #[pyo3(get)]
    timestamp_ms: u64,
    node_fields: Vec<(String, u64)>,
}

#[pymethods]
impl PyParts {
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

    fn __repr__(&self) -> String {
        let fields: Vec<String> = self
            .node_fields
            .iter()
            .map(|(k, v)| format!("'{k}': {v}"))
            .collect();
        format!(
            "Parts(time={}, node={}, sequence={}, rollback={}, timestamp_ms={}, node_fields={{{}}})",
            self.time,
            self.node,
            self.sequence,
            self.rollback,
            self.timestamp_ms,
            fields.join(", ")
        )
    }
}

fn kind_name(k: FieldKind) -> &'static str {
    match k {
        FieldKind::Time => "time",
        FieldKind::Node => "node",
        FieldKind::Sequence => "sequence",
        FieldKind::Rollback => "rollback",
    }
}

/// Builds `Parts` for `p` decomposed under `layout`.
pub fn parts(layout: &Layout, p: Parts) -> PyParts {
    PyParts {
        time: p.time,
        node: p.node,
        sequence: p.sequence,
        rollback: p.rollback,
        timestamp_ms: layout.tick_start_ms(p.time),
        node_fields: layout
            .split_node(p.node)
            .map(|(n, v)| (n.as_str().to_owned(), v))
            .collect(),
    }
}

/// Decomposes `id` under `layout`.
pub fn decode(layout: &Layout, id: u64) -> PyResult<PyParts> {
    Ok(parts(layout, layout.decompose(id).py()?))
}

#[pymethods]
impl PyLayout {
    /// A preset name (`twitter`, `discord`, `instagram`, `sonyflake`, `baidu`,
    /// `shardingsphere`, `leaf`, `js53`) or a text spec such as
    /// `time=41@1ms,worker=10,seq=12,epoch=2020-01-01`.
    #[new]
    fn new(spec: &str) -> PyResult<Self> {
        Ok(PyLayout {
            inner: Layout::parse(spec).py()?,
        })
    }

    /// Same as `Layout(spec)`.
    #[staticmethod]
    fn parse(spec: &str) -> PyResult<Self> {
        Self::new(spec)
    }

    /// A preset by name only (a spec is refused).
    #[staticmethod]
    fn preset(name: &str) -> PyResult<Self> {
        Ok(PyLayout {
            inner: Layout::preset(name).py()?,
        })
    }

    /// The canonical text spec (`str(layout)`); parses back to an equal layout.
    #[getter]
    fn spec(&self) -> String {
        self.inner.to_string()
    }

    /// The preset name, if this layout is an unmodified preset.
    #[getter]
    fn preset_name(&self) -> Option<&'static str> {
        self.inner.preset_name()
    }

    /// Total bits used; every ID is below `2**width`.
    #[getter]
    fn width(&self) -> u8 {
        self.inner.width()
    }

    /// Epoch, ms since the Unix epoch.
    #[getter]
    fn epoch_ms(&self) -> u64 {
        self.inner.epoch_ms()
    }

    /// Epoch as an aware UTC datetime.
    #[getter]
    fn epoch<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        utc_datetime(py, self.inner.epoch_ms())
    }

    /// Length of one tick of the time field, in ms.
    #[getter]
    fn tick_ms(&self) -> u64 {
        self.inner.tick_ms()
    }

    /// The largest ID.
    #[getter]
    fn max_id(&self) -> u64 {
        self.inner.max_id()
    }

    /// The largest whole node value.
    #[getter]
    fn max_node(&self) -> u64 {
        self.inner.max_node()
    }

    /// Largest sequence value in one tick.
    #[getter]
    fn max_sequence(&self) -> u64 {
        self.inner.max_sequence()
    }

    /// Largest tick count the time field holds.
    #[getter]
    fn max_time(&self) -> u64 {
        self.inner.max_time()
    }

    /// Total bits of the node sub-fields.
    #[getter]
    fn node_bits(&self) -> u8 {
        self.inner.node_bits()
    }

    /// Whether every ID fits a JavaScript number exactly (width <= 53).
    #[getter]
    fn is_js_safe(&self) -> bool {
        self.inner.is_js_safe()
    }

    /// IDs one node can issue per second at most.
    #[getter]
    fn capacity_per_second(&self) -> u64 {
        self.inner.capacity_per_second()
    }

    /// First instant (ms since the Unix epoch) the time field cannot represent.
    #[getter]
    fn lifetime_end_ms(&self) -> u64 {
        self.inner.lifetime_end_ms()
    }

    /// First instant the time field cannot represent, as an aware UTC datetime. Raises
    /// OverflowError when it lies past year 9999 (use `lifetime_end_ms`).
    #[getter]
    fn lifetime_end<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        utc_datetime(py, self.inner.lifetime_end_ms())
    }

    /// The fields, most significant first.
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let items: Vec<PyField> = self
            .inner
            .fields()
            .iter()
            .map(|f| PyField {
                name: f.name.as_str().to_owned(),
                kind: kind_name(f.kind),
                bits: f.bits,
                shift: f.shift,
                max: f.max(),
            })
            .collect();
        let objs = items
            .into_iter()
            .map(|f| Bound::new(py, f))
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, objs)
    }

    /// Names of the node sub-fields, most significant first.
    #[getter]
    fn node_names(&self) -> Vec<&str> {
        self.inner.node_fields().map(|f| f.name.as_str()).collect()
    }

    /// Packs field values into an ID. `node` is the whole node value or a mapping of node
    /// sub-field names to values.
    #[pyo3(signature = (*, time = 0, node = NodeArg::Value(0), sequence = 0, rollback = 0), text_signature = "($self, *, time=0, node=0, sequence=0, rollback=0)")]
    fn compose(&self, time: u64, node: NodeArg<'_>, sequence: u64, rollback: u64) -> PyResult<u64> {
        let node = node.resolve(&self.inner)?;
        self.inner
            .compose(&Parts {
                time,
                node,
                sequence,
                rollback,
            })
            .py()
    }

    /// Splits an ID into its fields.
    fn decompose(&self, id: u64) -> PyResult<PyParts> {
        decode(&self.inner, id)
    }

    /// The Unix-ms time encoded in `id` (start of its tick).
    fn timestamp_ms(&self, id: u64) -> u64 {
        self.inner.timestamp_ms(id)
    }

    /// The time encoded in `id` as an aware UTC datetime.
    fn datetime<'py>(&self, py: Python<'py>, id: u64) -> PyResult<Bound<'py, PyAny>> {
        utc_datetime(py, self.inner.timestamp_ms(id))
    }

    /// The tick count at `now_ms` (raises BeforeEpoch or LayoutExpired).
    fn tick_at(&self, now_ms: u64) -> PyResult<u64> {
        self.inner.tick_at(now_ms).py()
    }

    /// The start of tick `tick`, ms since the Unix epoch (saturating).
    fn tick_start_ms(&self, tick: u64) -> u64 {
        self.inner.tick_start_ms(tick)
    }

    /// Whether the time field has overflowed at `now_ms`.
    fn is_expired_at(&self, now_ms: u64) -> bool {
        self.inner.is_expired_at(now_ms)
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
    fn join_node(&self, values: NodeArg<'_>) -> PyResult<u64> {
        if let NodeArg::Value(_) = values {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "join_node takes a mapping of node sub-field names to ints",
            ));
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

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, pyo3::types::PyType>, (String,))> {
        let me = slf.get();
        let arg = match me.inner.preset_name() {
            Some(p) => p.to_owned(),
            None => me.inner.to_string(),
        };
        Ok((slf.get_type(), (arg,)))
    }
}
