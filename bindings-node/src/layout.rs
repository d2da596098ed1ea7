//! `Layout`: the bit layout of an ID, and the `Parts` / `Field` objects it hands out.

use idmint::{FieldKind, Layout as CoreLayout, Name, Parts as CoreParts};
use napi::bindgen_prelude::{ToNapiValue, TypeName, Unknown};
use napi::{check_status, sys, Env, JsDate, ValueType};
use napi_derive::napi;

use crate::convert::{
    expect_object, get, id_arg, is_nullish, layout_arg, node_arg, only_keys, string_arg, u64_arg,
};
use crate::errors::OrThrow;

/// The node split into named sub-fields, as a `Record<string, bigint>` in layout order.
pub struct NodeFields(pub Vec<(Name, u64)>);

impl TypeName for NodeFields {
    fn type_name() -> &'static str {
        "Record<string, bigint>"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for NodeFields {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        let mut obj = std::ptr::null_mut();
        // SAFETY: plain object constructor with a valid out pointer.
        check_status!(unsafe { sys::napi_create_object(env, &mut obj) })?;
        for (name, v) in val.0 {
            // SAFETY: `env` is the live env napi-rs passes in.
            let key = unsafe { <&str>::to_napi_value(env, name.as_str()) }?;
            // SAFETY: as above.
            let value = unsafe { u64::to_napi_value(env, v) }?;
            // SAFETY: `obj` is an object, `key` a string, `value` a bigint, all of this env.
            check_status!(unsafe { sys::napi_set_property(env, obj, key, value) })?;
        }
        Ok(obj)
    }
}

/// The field values of one ID, from `Layout.decompose` or a generator's `decode`.
#[napi(object, object_from_js = false)]
pub struct Parts {
    /// Ticks since the layout's epoch.
    pub time: u64,
    /// The whole node value (all node sub-fields, most significant first).
    pub node: u64,
    /// Position within the tick (at most 32 bits).
    pub sequence: u32,
    /// Rollback counter (0 when the layout has none; at most 8 bits).
    pub rollback: u32,
    /// The node split into its named sub-fields, in layout order.
    #[napi(ts_type = "Record<string, bigint>")]
    pub node_fields: NodeFields,
    /// Start of the ID's tick, ms since the Unix epoch.
    pub timestamp_ms: u64,
}

/// One bit field of a layout, most significant first in `Layout.fields`.
#[napi(object, object_from_js = false)]
pub struct Field {
    /// `time`, `seq`, `rollback`, or the node sub-field's own name.
    pub name: String,
    /// `time`, `node`, `sequence` or `rollback`.
    pub kind: String,
    /// Width in bits.
    pub bits: u32,
    /// Position of the field's least significant bit.
    pub shift: u32,
    /// The largest value the field holds.
    pub max: u64,
}

/// The values `Layout.compose` takes. Every value defaults to 0; `node` may also give the node
/// sub-fields by name (`{ datacenter: 1, worker: 2 }`).
#[napi(object, object_from_js = false, object_to_js = false)]
#[allow(dead_code)] // describes the argument for index.d.ts; the binding reads it field by field
pub struct ComposeParts {
    /// Ticks since the layout's epoch.
    #[napi(ts_type = "bigint | number")]
    pub time: Option<u64>,
    /// The whole node value, or the node sub-fields by name.
    #[napi(ts_type = "bigint | number | Record<string, bigint | number>")]
    pub node: Option<u64>,
    /// Position within the tick.
    #[napi(ts_type = "bigint | number")]
    pub sequence: Option<u64>,
    /// Rollback counter (layouts with a `rollback` field only).
    #[napi(ts_type = "bigint | number")]
    pub rollback: Option<u64>,
}

pub(crate) fn parts_object(layout: &CoreLayout, id: u64, p: CoreParts) -> Parts {
    Parts {
        time: p.time,
        node: p.node,
        // The layout caps the sequence at 32 bits and rollback at 8.
        sequence: u32::try_from(p.sequence).unwrap_or(u32::MAX),
        rollback: u32::try_from(p.rollback).unwrap_or(u32::MAX),
        node_fields: NodeFields(layout.split_node(p.node).collect()),
        timestamp_ms: layout.timestamp_ms(id),
    }
}

/// Decomposes `id` under `layout` into a `Parts` object.
pub(crate) fn decompose(env: &Env, layout: &CoreLayout, id: u64) -> napi::Result<Parts> {
    let p = layout.decompose(id).or_throw(env)?;
    Ok(parts_object(layout, id, p))
}

/// A `Date` for `ms` since the Unix epoch (an Invalid Date beyond JavaScript's range of
/// ±8.64e15 ms, i.e. after the year 275760).
pub(crate) fn date(env: &Env, ms: u64) -> napi::Result<JsDate<'_>> {
    let t = if ms > 8_640_000_000_000_000 {
        f64::NAN
    } else {
        ms as f64
    };
    env.create_date(t)
}

/// A validated ID layout: which fields an ID holds, how wide each is, in which order, and from
/// when time counts. Build it from a preset name (`twitter`, `discord`, `instagram`,
/// `sonyflake`, `baidu`, `shardingsphere`, `leaf`, `js53`) or a text spec such as
/// `time=41@1ms,worker=10,seq=12,epoch=2020-01-01`.
///
/// Values that can exceed 2^53 (IDs, times, node values, epochs) are `bigint`s; widths, shifts
/// and sequence numbers are `number`s.
#[napi]
pub struct Layout {
    pub(crate) inner: CoreLayout,
}

#[napi]
impl Layout {
    /// Parses a preset name or a text spec; throws `ERR_INVALID_LAYOUT` (with `at`, the byte
    /// offset of the problem, for text errors).
    #[napi(constructor, catch_unwind)]
    pub fn new(env: &Env, #[napi(ts_arg_type = "string")] spec: Unknown<'_>) -> napi::Result<Self> {
        let spec = string_arg(env, &spec, "spec")?;
        Ok(Layout {
            inner: CoreLayout::parse(&spec).or_throw(env)?,
        })
    }

    /// Same as `new Layout(spec)`.
    #[napi(factory, catch_unwind)]
    pub fn parse(
        env: &Env,
        #[napi(ts_arg_type = "string")] spec: Unknown<'_>,
    ) -> napi::Result<Self> {
        Self::new(env, spec)
    }

    /// A preset by name only (no text specs).
    #[napi(factory, catch_unwind)]
    pub fn preset(
        env: &Env,
        #[napi(ts_arg_type = "string")] name: Unknown<'_>,
    ) -> napi::Result<Self> {
        let name = string_arg(env, &name, "name")?;
        Ok(Layout {
            inner: CoreLayout::preset(&name).or_throw(env)?,
        })
    }

    /// The preset names.
    #[napi(catch_unwind)]
    pub fn presets() -> Vec<&'static str> {
        idmint::preset::NAMES.to_vec()
    }

    /// The canonical text spec (parses back to an equal layout).
    #[napi(getter, catch_unwind)]
    pub fn spec(&self) -> String {
        self.inner.to_string()
    }

    /// The canonical text spec.
    #[napi(js_name = "toString", catch_unwind)]
    pub fn to_js_string(&self) -> String {
        self.inner.to_string()
    }

    /// The canonical text spec, so `JSON.stringify` writes layouts as their spec.
    #[napi(js_name = "toJSON", catch_unwind)]
    pub fn to_json(&self) -> String {
        self.inner.to_string()
    }

    /// The preset name, if this layout is an unmodified preset.
    #[napi(getter, catch_unwind)]
    pub fn preset_name(&self) -> Option<&'static str> {
        self.inner.preset_name()
    }

    /// Total bits of all fields; every ID is below 2^width.
    #[napi(getter, catch_unwind)]
    pub fn width(&self) -> u32 {
        u32::from(self.inner.width())
    }

    /// The epoch, ms since the Unix epoch.
    #[napi(getter, catch_unwind)]
    pub fn epoch_ms(&self) -> u64 {
        self.inner.epoch_ms()
    }

    /// The epoch as a `Date`.
    #[napi(getter, catch_unwind)]
    pub fn epoch<'e>(&self, env: &'e Env) -> napi::Result<JsDate<'e>> {
        date(env, self.inner.epoch_ms())
    }

    /// Length of one tick of the time field, in ms.
    #[napi(getter, catch_unwind)]
    pub fn tick_ms(&self) -> u64 {
        self.inner.tick_ms()
    }

    /// The largest ID the layout can produce.
    #[napi(getter, catch_unwind)]
    pub fn max_id(&self) -> u64 {
        self.inner.max_id()
    }

    /// The largest whole node value.
    #[napi(getter, catch_unwind)]
    pub fn max_node(&self) -> u64 {
        self.inner.max_node()
    }

    /// The largest sequence value in one tick.
    #[napi(getter, catch_unwind)]
    pub fn max_sequence(&self) -> u32 {
        u32::try_from(self.inner.max_sequence()).unwrap_or(u32::MAX)
    }

    /// The largest tick count the time field holds.
    #[napi(getter, catch_unwind)]
    pub fn max_time(&self) -> u64 {
        self.inner.max_time()
    }

    /// Total bits of all node sub-fields.
    #[napi(getter, catch_unwind)]
    pub fn node_bits(&self) -> u32 {
        u32::from(self.inner.node_bits())
    }

    /// The node sub-field names, most significant first.
    #[napi(getter, catch_unwind)]
    pub fn node_names(&self) -> Vec<String> {
        self.inner
            .node_fields()
            .map(|f| f.name.as_str().to_owned())
            .collect()
    }

    /// Whether every ID fits a JavaScript `number` exactly (width ≤ 53): then
    /// `Snowflake.nextIdNumber()` is allowed.
    #[napi(getter, catch_unwind)]
    pub fn is_js_safe(&self) -> bool {
        self.inner.is_js_safe()
    }

    /// IDs one node can issue per second at most (below 2^43, so a `number`).
    #[napi(getter, catch_unwind)]
    pub fn capacity_per_second(&self) -> f64 {
        self.inner.capacity_per_second() as f64
    }

    /// The first instant (ms since the Unix epoch) the time field cannot represent.
    #[napi(getter, catch_unwind)]
    pub fn lifetime_end_ms(&self) -> u64 {
        self.inner.lifetime_end_ms()
    }

    /// `lifetimeEndMs` as a `Date` (an Invalid Date past the year 275760).
    #[napi(getter, catch_unwind)]
    pub fn lifetime_end<'e>(&self, env: &'e Env) -> napi::Result<JsDate<'e>> {
        date(env, self.inner.lifetime_end_ms())
    }

    /// The fields, most significant first.
    #[napi(getter, catch_unwind)]
    pub fn fields(&self) -> Vec<Field> {
        self.inner
            .fields()
            .iter()
            .map(|f| Field {
                name: f.name.as_str().to_owned(),
                kind: match f.kind {
                    FieldKind::Time => "time",
                    FieldKind::Node => "node",
                    FieldKind::Sequence => "sequence",
                    FieldKind::Rollback => "rollback",
                }
                .to_owned(),
                bits: u32::from(f.bits),
                shift: u32::from(f.shift),
                max: f.max(),
            })
            .collect()
    }

    /// Packs field values into an ID; every value must fit its field (`ERR_OUT_OF_RANGE`). A
    /// `Parts` object from `decompose` is accepted too (its `nodeFields` and `timestampMs` are
    /// ignored).
    #[napi(catch_unwind)]
    pub fn compose(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "ComposeParts")] parts: Unknown<'_>,
    ) -> napi::Result<u64> {
        expect_object(env, &parts, "parts")?;
        // `nodeFields` and `timestampMs` are allowed (and ignored) so that a `Parts` object from
        // `decompose` composes back.
        only_keys(
            env,
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
        let field = |key: &std::ffi::CStr, what: &str| -> napi::Result<u64> {
            let v = get(env, &parts, key)?;
            if is_nullish(&v)? {
                Ok(0)
            } else {
                u64_arg(env, &v, what)
            }
        };
        let node_v = get(env, &parts, c"node")?;
        let node = if is_nullish(&node_v)? {
            0
        } else {
            node_arg(env, &node_v, l, "parts.node")?
        };
        let p = CoreParts {
            time: field(c"time", "parts.time")?,
            node,
            sequence: field(c"sequence", "parts.sequence")?,
            rollback: field(c"rollback", "parts.rollback")?,
        };
        l.compose(&p).or_throw(env)
    }

    /// Splits an ID (bigint, safe integer number or decimal string) into its field values;
    /// `ERR_OUT_OF_RANGE` if it exceeds `maxId`.
    #[napi(catch_unwind)]
    pub fn decompose(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number | string")] id: Unknown<'_>,
    ) -> napi::Result<Parts> {
        let id = id_arg(env, &id, "id")?;
        decompose(env, &self.inner, id)
    }

    /// The Unix-ms time encoded in `id` (start of its tick).
    #[napi(catch_unwind)]
    pub fn timestamp_ms(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number | string")] id: Unknown<'_>,
    ) -> napi::Result<u64> {
        let id = id_arg(env, &id, "id")?;
        Ok(self.inner.timestamp_ms(id))
    }

    /// The time encoded in `id` as a `Date`.
    #[napi(catch_unwind)]
    pub fn timestamp<'e>(
        &self,
        env: &'e Env,
        #[napi(ts_arg_type = "bigint | number | string")] id: Unknown<'_>,
    ) -> napi::Result<JsDate<'e>> {
        let id = id_arg(env, &id, "id")?;
        date(env, self.inner.timestamp_ms(id))
    }

    /// The tick count at `nowMs`; `ERR_BEFORE_EPOCH` or `ERR_LAYOUT_EXPIRED` when there is none.
    #[napi(catch_unwind)]
    pub fn tick_at(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number")] now_ms: Unknown<'_>,
    ) -> napi::Result<u64> {
        let now = u64_arg(env, &now_ms, "nowMs")?;
        self.inner.tick_at(now).or_throw(env)
    }

    /// The start of tick `tick`, ms since the Unix epoch (saturating).
    #[napi(catch_unwind)]
    pub fn tick_start_ms(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number")] tick: Unknown<'_>,
    ) -> napi::Result<u64> {
        let tick = u64_arg(env, &tick, "tick")?;
        Ok(self.inner.tick_start_ms(tick))
    }

    /// Whether the time field has run out at `nowMs`.
    #[napi(catch_unwind)]
    pub fn is_expired_at(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number")] now_ms: Unknown<'_>,
    ) -> napi::Result<bool> {
        let now = u64_arg(env, &now_ms, "nowMs")?;
        Ok(self.inner.is_expired_at(now))
    }

    /// Splits a whole node value into its named sub-fields.
    #[napi(catch_unwind, ts_return_type = "Record<string, bigint>")]
    pub fn split_node(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number")] node: Unknown<'_>,
    ) -> napi::Result<NodeFields> {
        let node = u64_arg(env, &node, "node")?;
        Ok(NodeFields(
            self.inner.try_split_node(node).or_throw(env)?.collect(),
        ))
    }

    /// Joins node sub-field values given by name into the whole node value.
    #[napi(catch_unwind)]
    pub fn join_node(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "Record<string, bigint | number>")] values: Unknown<'_>,
    ) -> napi::Result<u64> {
        expect_object(env, &values, "values")?;
        node_arg(env, &values, &self.inner, "values")
    }

    /// Whether both layouts have the same fields, epoch and tick (preset names are ignored).
    #[napi(catch_unwind)]
    pub fn equals(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "Layout | string")] other: Unknown<'_>,
    ) -> napi::Result<bool> {
        Ok(self.inner == layout_arg(env, &other, "other")?)
    }
}
