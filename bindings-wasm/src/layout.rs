//! `Layout`: the bit layout of an ID, and the `Parts` / `Field` objects it hands out.
//! Same members and types as the Node package's `Layout`.

use std::cell::Cell;

use idmint::{FieldKind, Layout, Parts};
use js_sys::{Date, Function};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::convert::{
    expect_object, get, id_arg, is_nullish, js_str, layout_arg, node_arg, object, only_keys,
    string_arg, u64_arg,
};
use crate::errors::OrThrow;

#[wasm_bindgen(typescript_custom_section)]
const TS_LAYOUT: &str = r#"
/** The field values of one ID, from `Layout.decompose` or a generator's `decode`. */
export interface Parts {
  /** Ticks since the layout's epoch. */
  time: bigint
  /** The whole node value (all node sub-fields, most significant first). */
  node: bigint
  /** Position within the tick (at most 32 bits). */
  sequence: number
  /** Rollback counter (0 when the layout has none; at most 8 bits). */
  rollback: number
  /** The node split into its named sub-fields, in layout order. */
  nodeFields: Record<string, bigint>
  /** Start of the ID's tick, ms since the Unix epoch. */
  timestampMs: bigint
}

/** One bit field of a layout, most significant first in `Layout.fields`. */
export interface Field {
  /** `time`, `seq`, `rollback`, or the node sub-field's own name. */
  name: string
  /** `time`, `node`, `sequence` or `rollback`. */
  kind: string
  /** Width in bits. */
  bits: number
  /** Position of the field's least significant bit. */
  shift: number
  /** The largest value the field holds. */
  max: bigint
}

/**
 * The values `Layout.compose` takes. Every value defaults to 0; `node` may also give the node
 * sub-fields by name (`{ datacenter: 1, worker: 2 }`).
 */
export interface ComposeParts {
  /** Ticks since the layout's epoch. */
  time?: bigint | number
  /** The whole node value, or the node sub-fields by name. */
  node?: bigint | number | Record<string, bigint | number>
  /** Position within the tick. */
  sequence?: bigint | number
  /** Rollback counter (layouts with a `rollback` field only). */
  rollback?: bigint | number
}
"#;

/// A `Date` for `ms` since the Unix epoch (an Invalid Date beyond JavaScript's range of
/// ±8.64e15 ms, i.e. after the year 275760).
pub(crate) fn date(ms: u64) -> Date {
    let t = if ms > 8_640_000_000_000_000 {
        f64::NAN
    } else {
        ms as f64
    };
    Date::new(&JsValue::from_f64(t))
}

/// Sub-field values by name, as a `Record<string, bigint>` in layout order.
fn record(fields: impl Iterator<Item = (idmint::Name, u64)>) -> JsValue {
    let o = js_sys::Object::new();
    for (name, v) in fields {
        let _ = js_sys::Reflect::set(&o, &js_str(name.as_str()), &JsValue::from(v));
    }
    o.into()
}

/// The `Parts` object of `id` (already decomposed into `p`) under `layout`.
pub(crate) fn parts_object(layout: &Layout, id: u64, p: Parts) -> JsValue {
    object(&[
        ("time", JsValue::from(p.time)),
        ("node", JsValue::from(p.node)),
        // The layout caps the sequence at 32 bits and rollback at 8.
        ("sequence", JsValue::from_f64(p.sequence as f64)),
        ("rollback", JsValue::from_f64(p.rollback as f64)),
        ("nodeFields", record(layout.split_node(p.node))),
        ("timestampMs", JsValue::from(layout.timestamp_ms(id))),
    ])
}

/// Decomposes `id` under `layout` into an `Parts` object.
pub(crate) fn decompose(layout: &Layout, id: u64) -> Result<JsValue, JsValue> {
    let p = layout.decompose(id).or_throw()?;
    Ok(parts_object(layout, id, p))
}

thread_local! {
    /// Where a `Layout` object posts its value when asked by [`layout_of`].
    static POSTED: Cell<Option<Layout>> = const { Cell::new(None) };
}

/// The layout held by a JavaScript `Layout` object, or `None` for any other object.
///
/// wasm-bindgen can hand Rust an exported object only by taking it away from JavaScript, so
/// instead the object is asked (through a hidden method) to post a copy of its value.
pub(crate) fn layout_of(v: &JsValue) -> Option<Layout> {
    let f = get(v, "__idmintPostLayout")
        .ok()?
        .dyn_into::<Function>()
        .ok()?;
    POSTED.with(|p| p.set(None));
    f.call0(v).ok()?;
    POSTED.with(|p| p.take())
}

/// A validated ID layout: which fields an ID holds, how wide each is, in which order, and from
/// when time counts. Build it from a preset name (`twitter`, `discord`, `instagram`,
/// `sonyflake`, `baidu`, `shardingsphere`, `leaf`, `js53`) or a text spec such as
/// `time=41@1ms,worker=10,seq=12,epoch=2020-01-01`.
///
/// Values that can exceed 2^53 (IDs, times, node values, epochs) are `bigint`s; widths, shifts
/// and sequence numbers are `number`s.
#[wasm_bindgen(js_name = Layout)]
pub struct JsLayout {
    pub(crate) inner: Layout,
}

#[wasm_bindgen(js_class = Layout)]
impl JsLayout {
    /// Parses a preset name or a text spec; throws `ERR_INVALID_LAYOUT` (with `at`, the byte
    /// offset of the problem, for text errors).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "string")] spec: JsValue,
    ) -> Result<JsLayout, JsValue> {
        let spec = string_arg(&spec, "spec")?;
        Ok(JsLayout {
            inner: Layout::parse(&spec).or_throw()?,
        })
    }

    /// Same as `new Layout(spec)`.
    pub fn parse(
        #[wasm_bindgen(unchecked_param_type = "string")] spec: JsValue,
    ) -> Result<JsLayout, JsValue> {
        JsLayout::new(spec)
    }

    /// A preset by name only (no text specs).
    pub fn preset(
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> Result<JsLayout, JsValue> {
        let name = string_arg(&name, "name")?;
        Ok(JsLayout {
            inner: Layout::preset(&name).or_throw()?,
        })
    }

    /// The preset names.
    pub fn presets() -> Vec<String> {
        idmint::preset::NAMES
            .iter()
            .map(|s| (*s).to_owned())
            .collect()
    }

    /// Internal: posts this layout's value for `layout_of` (not part of the API).
    #[wasm_bindgen(js_name = "__idmintPostLayout", skip_typescript)]
    pub fn post_layout(&self) {
        POSTED.with(|p| p.set(Some(self.inner)));
    }

    /// The canonical text spec (parses back to an equal layout).
    #[wasm_bindgen(getter)]
    pub fn spec(&self) -> String {
        self.inner.to_string()
    }

    /// The canonical text spec.
    #[wasm_bindgen(js_name = toString)]
    pub fn to_js_string(&self) -> String {
        self.inner.to_string()
    }

    /// The canonical text spec, so `JSON.stringify` writes layouts as their spec.
    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> String {
        self.inner.to_string()
    }

    /// The preset name, if this layout is an unmodified preset.
    #[wasm_bindgen(getter, js_name = presetName, unchecked_return_type = "string | null")]
    pub fn preset_name(&self) -> JsValue {
        self.inner.preset_name().map_or(JsValue::NULL, js_str)
    }

    /// Total bits of all fields; every ID is below 2^width.
    #[wasm_bindgen(getter)]
    pub fn width(&self) -> u32 {
        u32::from(self.inner.width())
    }

    /// The epoch, ms since the Unix epoch.
    #[wasm_bindgen(getter, js_name = epochMs)]
    pub fn epoch_ms(&self) -> u64 {
        self.inner.epoch_ms()
    }

    /// The epoch as a `Date`.
    #[wasm_bindgen(getter)]
    pub fn epoch(&self) -> Date {
        date(self.inner.epoch_ms())
    }

    /// Length of one tick of the time field, in ms.
    #[wasm_bindgen(getter, js_name = tickMs)]
    pub fn tick_ms(&self) -> u64 {
        self.inner.tick_ms()
    }

    /// The largest ID the layout can produce.
    #[wasm_bindgen(getter, js_name = maxId)]
    pub fn max_id(&self) -> u64 {
        self.inner.max_id()
    }

    /// The largest whole node value.
    #[wasm_bindgen(getter, js_name = maxNode)]
    pub fn max_node(&self) -> u64 {
        self.inner.max_node()
    }

    /// The largest sequence value in one tick.
    #[wasm_bindgen(getter, js_name = maxSequence)]
    pub fn max_sequence(&self) -> u32 {
        u32::try_from(self.inner.max_sequence()).unwrap_or(u32::MAX)
    }

    /// The largest tick count the time field holds.
    #[wasm_bindgen(getter, js_name = maxTime)]
    pub fn max_time(&self) -> u64 {
        self.inner.max_time()
    }

    /// Total bits of all node sub-fields.
    #[wasm_bindgen(getter, js_name = nodeBits)]
    pub fn node_bits(&self) -> u32 {
        u32::from(self.inner.node_bits())
    }

    /// The node sub-field names, most significant first.
    #[wasm_bindgen(getter, js_name = nodeNames)]
    pub fn node_names(&self) -> Vec<String> {
        self.inner
            .node_fields()
            .map(|f| f.name.as_str().to_owned())
            .collect()
    }

    /// Whether every ID fits a JavaScript `number` exactly (width ≤ 53): then
    /// `Snowflake.nextIdNumber()` is allowed.
    #[wasm_bindgen(getter, js_name = isJsSafe)]
    pub fn is_js_safe(&self) -> bool {
        self.inner.is_js_safe()
    }

    /// IDs one node can issue per second at most (below 2^43, so a `number`).
    #[wasm_bindgen(getter, js_name = capacityPerSecond)]
    pub fn capacity_per_second(&self) -> f64 {
        self.inner.capacity_per_second() as f64
    }

    /// The first instant (ms since the Unix epoch) the time field cannot represent.
    #[wasm_bindgen(getter, js_name = lifetimeEndMs)]
    pub fn lifetime_end_ms(&self) -> u64 {
        self.inner.lifetime_end_ms()
    }

    /// `lifetimeEndMs` as a `Date` (an Invalid Date past the year 275760).
    #[wasm_bindgen(getter, js_name = lifetimeEnd)]
    pub fn lifetime_end(&self) -> Date {
        date(self.inner.lifetime_end_ms())
    }

    /// The fields, most significant first.
    #[wasm_bindgen(getter, unchecked_return_type = "Field[]")]
    pub fn fields(&self) -> js_sys::Array {
        self.inner
            .fields()
            .iter()
            .map(|f| {
                let kind = match f.kind {
                    FieldKind::Time => "time",
                    FieldKind::Node => "node",
                    FieldKind::Sequence => "sequence",
                    FieldKind::Rollback => "rollback",
                };
                object(&[
                    ("name", js_str(f.name.as_str())),
                    ("kind", js_str(kind)),
                    ("bits", JsValue::from_f64(f64::from(f.bits))),
                    ("shift", JsValue::from_f64(f64::from(f.shift))),
                    ("max", JsValue::from(f.max())),
                ])
            })
            .collect()
    }

    /// Packs field values into an ID; every value must fit its field (`ERR_OUT_OF_RANGE`). A
    /// `Parts` object from `decompose` is accepted too (its `nodeFields` and `timestampMs` are
    /// ignored).
    pub fn compose(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ComposeParts")] parts: JsValue,
    ) -> Result<u64, JsValue> {
        expect_object(&parts, "parts")?;
        // `nodeFields` and `timestampMs` are allowed (and ignored) so that a `Parts` object from
        // `decompose` composes back.
        only_keys(
            &parts,
            "parts",
            &[
                "time",
                "node",
                "sequence",
                "rollback",
                "nodeFields",
                "timestampMs",
            ],
        )?;
        let l = &self.inner;
        let field = |key: &str, what: &str| -> Result<u64, JsValue> {
            let v = get(&parts, key)?;
            if is_nullish(&v) {
                Ok(0)
            } else {
                u64_arg(&v, what)
            }
        };
        let node_v = get(&parts, "node")?;
        let node = if is_nullish(&node_v) {
            0
        } else {
            node_arg(&node_v, l, "parts.node")?
        };
        let p = Parts {
            time: field("time", "parts.time")?,
            node,
            sequence: field("sequence", "parts.sequence")?,
            rollback: field("rollback", "parts.rollback")?,
        };
        l.compose(&p).or_throw()
    }

    /// Splits an ID (bigint, safe integer number or decimal string) into its field values;
    /// `ERR_OUT_OF_RANGE` if it exceeds `maxId`.
    #[wasm_bindgen(unchecked_return_type = "Parts")]
    pub fn decompose(
        &self,
        #[wasm_bindgen(unchecked_param_type = "bigint | number | string")] id: JsValue,
    ) -> Result<JsValue, JsValue> {
        let id = id_arg(&id, "id")?;
        decompose(&self.inner, id)
    }

    /// The Unix-ms time encoded in `id` (start of its tick).
    #[wasm_bindgen(js_name = timestampMs)]
    pub fn timestamp_ms(
        &self,
        #[wasm_bindgen(unchecked_param_type = "bigint | number | string")] id: JsValue,
    ) -> Result<u64, JsValue> {
        let id = id_arg(&id, "id")?;
        Ok(self.inner.timestamp_ms(id))
    }

    /// The time encoded in `id` as a `Date`.
    pub fn timestamp(
        &self,
        #[wasm_bindgen(unchecked_param_type = "bigint | number | string")] id: JsValue,
    ) -> Result<Date, JsValue> {
        let id = id_arg(&id, "id")?;
        Ok(date(self.inner.timestamp_ms(id)))
    }

    /// The tick count at `nowMs`; `ERR_BEFORE_EPOCH` or `ERR_LAYOUT_EXPIRED` when there is none.
    #[wasm_bindgen(js_name = tickAt)]
    pub fn tick_at(
        &self,
        #[wasm_bindgen(js_name = nowMs, unchecked_param_type = "bigint | number")] now_ms: JsValue,
    ) -> Result<u64, JsValue> {
        let now = u64_arg(&now_ms, "nowMs")?;
        self.inner.tick_at(now).or_throw()
    }

    /// The start of tick `tick`, ms since the Unix epoch (saturating).
    #[wasm_bindgen(js_name = tickStartMs)]
    pub fn tick_start_ms(
        &self,
        #[wasm_bindgen(unchecked_param_type = "bigint | number")] tick: JsValue,
    ) -> Result<u64, JsValue> {
        let tick = u64_arg(&tick, "tick")?;
        Ok(self.inner.tick_start_ms(tick))
    }

    /// Whether the time field has run out at `nowMs`.
    #[wasm_bindgen(js_name = isExpiredAt)]
    pub fn is_expired_at(
        &self,
        #[wasm_bindgen(js_name = nowMs, unchecked_param_type = "bigint | number")] now_ms: JsValue,
    ) -> Result<bool, JsValue> {
        let now = u64_arg(&now_ms, "nowMs")?;
        Ok(self.inner.is_expired_at(now))
    }

    /// Splits a whole node value into its named sub-fields.
    #[wasm_bindgen(js_name = splitNode, unchecked_return_type = "Record<string, bigint>")]
    pub fn split_node(
        &self,
        #[wasm_bindgen(unchecked_param_type = "bigint | number")] node: JsValue,
    ) -> Result<JsValue, JsValue> {
        let node = u64_arg(&node, "node")?;
        Ok(record(self.inner.try_split_node(node).or_throw()?))
    }

    /// Joins node sub-field values given by name into the whole node value.
    #[wasm_bindgen(js_name = joinNode)]
    pub fn join_node(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Record<string, bigint | number>")] values: JsValue,
    ) -> Result<u64, JsValue> {
        expect_object(&values, "values")?;
        node_arg(&values, &self.inner, "values")
    }

    /// Whether both layouts have the same fields, epoch and tick (preset names are ignored).
    pub fn equals(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Layout | string")] other: JsValue,
    ) -> Result<bool, JsValue> {
        Ok(self.inner == layout_arg(&other, "other")?)
    }
}
