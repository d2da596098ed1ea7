//! Layouts: parse a preset or spec, compose and decompose IDs, read a layout's numbers and
//! fields.

use std::ffi::c_char;

use idmint_core::{FieldKind, Layout, Parts};

use crate::error::{guard, idmint_status, Fail};
use crate::ffi::{arg, c_str, call, create, free, opt_out, out, read, slice, text, u64_out};

/// Longest field name, plus its NUL.
pub const IDMINT_FIELD_NAME_SIZE: usize = 16;

/// @brief A validated ID layout (bit fields, epoch, tick). Opaque; immutable once made, so one
/// layout may be used from any number of threads at once.
///
/// Made by #idmint_layout_new or #idmint_snowflake_layout; freed by #idmint_layout_free.
pub struct idmint_layout(pub(crate) Layout);

/// @brief The field values of an ID.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct idmint_parts {
    /// Ticks since the layout epoch.
    pub time: u64,
    /// The whole node value: all node sub-fields concatenated, most significant first.
    pub node: u64,
    /// Position within the tick.
    pub sequence: u64,
    /// Rollback counter (0 when the layout has no rollback field).
    pub rollback: u64,
}

impl From<Parts> for idmint_parts {
    fn from(p: Parts) -> Self {
        let Parts {
            time,
            node,
            sequence,
            rollback,
            ..
        } = p;
        idmint_parts {
            time,
            node,
            sequence,
            rollback,
        }
    }
}

/// @brief The numbers that describe a layout, from #idmint_layout_get_info.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct idmint_layout_info {
    /// Total bits of all fields; every ID is below 2^width.
    pub width: u32,
    /// Whether every ID fits a JavaScript number exactly (width <= 53).
    pub is_js_safe: bool,
    /// Epoch, ms since the Unix epoch.
    pub epoch_ms: u64,
    /// Length of one tick of the time field, in ms.
    pub tick_ms: u64,
    /// The first instant (ms since the Unix epoch) the time field cannot represent
    /// (`UINT64_MAX` for layouts that outlive 64-bit milliseconds).
    pub lifetime_end_ms: u64,
    /// IDs one node can issue per second at most.
    pub capacity_per_second: u64,
    /// The largest ID.
    pub max_id: u64,
    /// The largest whole node value.
    pub max_node: u64,
    /// The largest sequence value in one tick.
    pub max_sequence: u64,
    /// The largest tick count the time field holds.
    pub max_time: u64,
    /// Total bits of the node sub-fields.
    pub node_bits: u32,
    /// Number of fields (see #idmint_layout_field).
    pub field_count: u32,
}

/// @brief What a field of an ID means.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum idmint_field_kind {
    /// Ticks since the layout epoch.
    IDMINT_FIELD_TIME = 0,
    /// Part of the node (worker, datacenter, shard, machine, ...).
    IDMINT_FIELD_NODE = 1,
    /// Position within one tick.
    IDMINT_FIELD_SEQUENCE = 2,
    /// Counter bumped by the `rollback_counter` policy.
    IDMINT_FIELD_ROLLBACK = 3,
}

/// @brief One bit field of a layout, from #idmint_layout_field.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct idmint_field {
    /// The field's name, NUL-terminated: `time`, `seq`, `rollback`, or a node sub-field's name.
    pub name: [c_char; IDMINT_FIELD_NAME_SIZE],
    /// What the field means.
    pub kind: idmint_field_kind,
    /// Width in bits.
    pub bits: u32,
    /// Position of the field's least significant bit in the ID.
    pub shift: u32,
    /// The largest value the field holds.
    pub max: u64,
}

/// @brief Parses a preset name or a layout spec.
///
/// Presets: `twitter`, `discord`, `instagram`, `sonyflake`, `baidu`, `shardingsphere`, `leaf`,
/// `js53`. Specs list fields from the most significant bit, for example
/// `"time=41@1ms,datacenter=5,worker=5,seq=12,epoch=2020-01-01"`.
///
/// @param preset_or_spec NUL-terminated UTF-8 text.
/// @param out_layout Receives a new layout (free it with #idmint_layout_free), or NULL on
///        failure.
/// @return `IDMINT_OK`; `IDMINT_INVALID_LAYOUT` for an unknown preset or a bad spec (the last
///         error message names the byte offset); `IDMINT_BAD_C_ARGUMENT` for text that is not
///         UTF-8; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_layout_new(
    preset_or_spec: *const c_char,
    out_layout: *mut *mut idmint_layout,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        create(out_layout, "out_layout", || {
            Ok(idmint_layout(Layout::parse(c_str(
                preset_or_spec,
                "preset_or_spec",
            )?)?))
        })
    }
}

/// @brief Frees a layout (NULL is ignored); it must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn idmint_layout_free(layout: *mut idmint_layout) {
    // SAFETY: the caller's contract.
    unsafe { free(layout) }
}

/// @brief All of a layout's numbers at once.
///
/// @param out_info Receives the numbers.
/// @return `IDMINT_OK` or `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_layout_get_info(
    layout: *const idmint_layout,
    out_info: *mut idmint_layout_info,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        read(layout, "layout", out_info, "out_info", |l| {
            idmint_layout_info {
                width: u32::from(l.0.width()),
                is_js_safe: l.0.is_js_safe(),
                epoch_ms: l.0.epoch_ms(),
                tick_ms: l.0.tick_ms(),
                lifetime_end_ms: l.0.lifetime_end_ms(),
                capacity_per_second: l.0.capacity_per_second(),
                max_id: l.0.max_id(),
                max_node: l.0.max_node(),
                max_sequence: l.0.max_sequence(),
                max_time: l.0.max_time(),
                node_bits: u32::from(l.0.node_bits()),
                field_count: l.0.fields().len() as u32,
            }
        })
    }
}

/// @brief Total bits of the layout's fields; every ID is below 2^width.
///
/// @return `IDMINT_OK` or `IDMINT_NULL_POINTER` (as every layout getter).
#[no_mangle]
pub unsafe extern "C" fn idmint_layout_width(
    layout: *const idmint_layout,
    out_width: *mut u32,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        read(layout, "layout", out_width, "out_width", |l| {
            u32::from(l.0.width())
        })
    }
}

/// @brief Whether every ID of the layout fits a JavaScript number exactly (width <= 53).
#[no_mangle]
pub unsafe extern "C" fn idmint_layout_is_js_safe(
    layout: *const idmint_layout,
    out_is_js_safe: *mut bool,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        read(layout, "layout", out_is_js_safe, "out_is_js_safe", |l| {
            l.0.is_js_safe()
        })
    }
}

/// @brief The first instant (ms since the Unix epoch) the layout's time field cannot represent:
/// from then on generators refuse with `IDMINT_LAYOUT_EXPIRED`. `UINT64_MAX` for layouts that
/// outlive 64-bit milliseconds.
#[no_mangle]
pub unsafe extern "C" fn idmint_layout_lifetime_end_ms(
    layout: *const idmint_layout,
    out_ms: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        read(layout, "layout", out_ms, "out_ms", |l| {
            l.0.lifetime_end_ms()
        })
    }
}

/// @brief IDs one node can issue per second at most (sequence values per tick times ticks per
/// second, rounded down).
#[no_mangle]
pub unsafe extern "C" fn idmint_layout_capacity_per_second(
    layout: *const idmint_layout,
    out_capacity: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        read(layout, "layout", out_capacity, "out_capacity", |l| {
            l.0.capacity_per_second()
        })
    }
}

/// @brief Writes the layout's canonical spec (which #idmint_layout_new parses back to the same
/// layout) as a NUL-terminated string.
///
/// @param buf Output buffer of `buf_len` bytes. May be NULL only if `buf_len` is 0 (a size
///        query).
/// @param buf_len Size of `buf` in bytes; the spec needs its length plus 1.
/// @param out_len If not NULL, receives the spec's length without the NUL, also when `buf` is
///        too small.
/// @return `IDMINT_OK`; `IDMINT_BUFFER_TOO_SMALL` (then `buf`, if `buf_len` > 0, holds `""`);
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_layout_spec(
    layout: *const idmint_layout,
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { text(layout, "layout", buf, buf_len, out_len, |l| l.0.to_string()) }
}

/// @brief Writes the preset name of the layout (`"twitter"`, ...) as a NUL-terminated string, or
/// `""` if it was not made from a preset name. Buffer rules as #idmint_layout_spec.
#[no_mangle]
pub unsafe extern "C" fn idmint_layout_preset_name(
    layout: *const idmint_layout,
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        text(layout, "layout", buf, buf_len, out_len, |l| {
            l.0.preset_name().unwrap_or("")
        })
    }
}

/// @brief Packs field values into an ID.
///
/// @param parts The field values; each must fit its field.
/// @param out_id Receives the ID.
/// @return `IDMINT_OK`; `IDMINT_OUT_OF_RANGE` if a value does not fit (the message names the
///         field and its maximum); `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_layout_compose(
    layout: *const idmint_layout,
    parts: *const idmint_parts,
    out_id: *mut u64,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (l, p, dst) = unsafe {
            (
                arg(layout, "layout")?,
                arg(parts, "parts")?,
                out(out_id, "out_id")?,
            )
        };
        let &idmint_parts {
            time,
            node,
            sequence,
            rollback,
        } = p;
        dst.write(l.0.compose(&Parts {
            time,
            node,
            sequence,
            rollback,
        })?);
        Ok(())
    })
}

/// @brief Splits an ID into its field values.
///
/// @param id The ID.
/// @param out_parts Receives the field values.
/// @return `IDMINT_OK`; `IDMINT_OUT_OF_RANGE` if `id` is above the layout's largest ID;
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_layout_decompose(
    layout: *const idmint_layout,
    id: u64,
    out_parts: *mut idmint_parts,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        call(layout, "layout", out_parts, "out_parts", |l| {
            l.0.decompose(id)
        })
    }
}

/// @brief The time an ID carries: the start of its tick, in ms since the Unix epoch.
#[no_mangle]
pub unsafe extern "C" fn idmint_layout_timestamp_ms(
    layout: *const idmint_layout,
    id: u64,
    out_ms: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { read(layout, "layout", out_ms, "out_ms", |l| l.0.timestamp_ms(id)) }
}

/// @brief The tick count for a time.
///
/// @param now_ms Milliseconds since the Unix epoch.
/// @param out_tick Receives the ticks since the layout epoch.
/// @return `IDMINT_OK`; `IDMINT_BEFORE_EPOCH`; `IDMINT_LAYOUT_EXPIRED`; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_layout_tick_at(
    layout: *const idmint_layout,
    now_ms: u64,
    out_tick: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        call(layout, "layout", out_tick, "out_tick", |l| {
            l.0.tick_at(now_ms)
        })
    }
}

/// @brief Describes field number `index` (0 is the most significant; see
/// `idmint_layout_info.field_count`).
///
/// @return `IDMINT_OK`; `IDMINT_BAD_C_ARGUMENT` if `index` is not below the field count;
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_layout_field(
    layout: *const idmint_layout,
    index: usize,
    out_field: *mut idmint_field,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        call(layout, "layout", out_field, "out_field", |l| {
            let f = l.0.fields().get(index);
            let f = f.ok_or(Fail::Arg(
                "field index is not below the layout's field count",
            ))?;
            let mut name = [0 as c_char; IDMINT_FIELD_NAME_SIZE];
            for (d, s) in name.iter_mut().zip(f.name.as_str().bytes()) {
                *d = s as c_char;
            }
            let kind = match f.kind {
                FieldKind::Time => idmint_field_kind::IDMINT_FIELD_TIME,
                FieldKind::Node => idmint_field_kind::IDMINT_FIELD_NODE,
                FieldKind::Sequence => idmint_field_kind::IDMINT_FIELD_SEQUENCE,
                FieldKind::Rollback => idmint_field_kind::IDMINT_FIELD_ROLLBACK,
            };
            let (bits, shift, max) = (u32::from(f.bits), u32::from(f.shift), f.max());
            Ok::<_, Fail>(idmint_field {
                name,
                kind,
                bits,
                shift,
                max,
            })
        })
    }
}

/// @brief Splits a whole node value into its named sub-fields' values, most significant first
/// (the order of the node fields in #idmint_layout_field).
///
/// @param node The whole node value; must not exceed `idmint_layout_info.max_node`.
/// @param out_values Array of `len` values. May be NULL only if `len` is 0.
/// @param len Length of `out_values`; needs one per node sub-field.
/// @param out_count If not NULL, receives the number of node sub-fields, also on
///        `IDMINT_BUFFER_TOO_SMALL`.
/// @return `IDMINT_OK`; `IDMINT_OUT_OF_RANGE`; `IDMINT_BUFFER_TOO_SMALL`;
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_layout_split_node(
    layout: *const idmint_layout,
    node: u64,
    out_values: *mut u64,
    len: usize,
    out_count: *mut usize,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract (here and below).
        let (l, count) = unsafe { (arg(layout, "layout")?, opt_out(out_count, "out_count")?) };
        let n = l.0.node_fields().count();
        if let Some(c) = count {
            c.write(n);
        }
        let values = l.0.try_split_node(node)?;
        if len < n {
            let needed = n * std::mem::size_of::<u64>();
            return Err(idmint_core::Error::BufferTooSmall { needed }.into());
        }
        // SAFETY: as above.
        let dst = unsafe { u64_out(out_values, len, "out_values") }?;
        for (d, (_, v)) in dst.iter_mut().zip(values) {
            *d = v;
        }
        Ok(())
    })
}

/// @brief Joins node sub-field values (most significant first, one per node sub-field) into a
/// whole node value, for example datacenter 3 and worker 7 in the `twitter` layout.
///
/// @return `IDMINT_OK`; `IDMINT_OUT_OF_RANGE` if a value does not fit its sub-field;
///         `IDMINT_INVALID_CONFIG` if `len` is not the number of node sub-fields;
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_layout_join_node(
    layout: *const idmint_layout,
    values: *const u64,
    len: usize,
    out_node: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        call(layout, "layout", out_node, "out_node", |l| {
            Ok::<_, Fail>(l.0.join_node(slice(values, len, "values")?)?)
        })
    }
}
