//! `layouts.json`: presets and custom specs, their derived numbers, compose/decompose, and
//! invalid specs.

use serde_json::Value;

use idmint::{FieldKind, Layout, Parts};

use crate::{case, error, obj, outcome, s, T0};

const COMMENT: &str = "Layouts. For each entry of `layouts`, `spec` is the input given to \
Layout::parse (a preset name or a text spec); parse it and check `canonical` (its Display: the \
spec that parses back to the same fields), `preset` (preset name or null), `width`, \
`epoch_ms`, `tick_ms`, `lifetime_end_ms`, `capacity_per_second`, `is_js_safe`, `max_id`, \
`max_node`, `max_sequence`, `max_time` and `fields` (most significant first: name, kind \
time|node|sequence|rollback, bits, shift). Every case holds its inputs and `expect`: the \
result, or an error object {error: Error::code(), message: its Display, ...the variant's \
fields}. `compose`: Layout::compose(parts) where parts = {time: ticks since the epoch, node: \
all node sub-fields concatenated, sequence, rollback}; expect {id, timestamp_ms (start of the \
id's tick), node_fields (the node split into named sub-fields, in layout order)}. \
`decompose`: Layout::decompose(id); expect the parts. `tick_at`: Layout::tick_at(now_ms); \
expect {tick}. `invalid`: specs Layout::parse rejects (ERR_INVALID_LAYOUT; `at` = byte offset \
for text errors, absent for inconsistent fields). Every u64 is a decimal string.";

/// Specs beyond the presets: rollback bits, the Sonyflake ordering, non-adjacent node fields,
/// second ticks, a declared width, a full 64-bit layout, an epoch in ms, spacing.
const CUSTOM: [&str; 9] = [
    "time=41@1ms,worker=10,seq=12,epoch=2020-01-01",
    "time=40@1ms,rollback=2,worker=8,seq=13,epoch=2010-11-04T01:42:54.657Z",
    "time=39@10ms,seq=8,machine=16,epoch=2014-09-01",
    "time=32@1s,region=3,seq=16,host=5,epoch=1700000000000",
    "time=31@1s,node=8,sequence=14,width=53,epoch=2024-01-01",
    "time=44@1ms,shard=8,seq=12,epoch=0",
    " time=41@1ms , datacenter=5,worker=5 ,seq=12,epoch=1288834974657",
    "time=30@2m,rollback=1,dc=2,rack=3,host=4,seq=6,epoch=2000-02-29T12:00:00Z",
    "time=10@1s,node=2,seq=2,epoch=2020-01-01",
];

const INVALID: [&str; 30] = [
    "",
    "   ",
    "bogus",
    "nope,epoch=0",
    "time=41@1ms,worker=10,seq=x",
    "time=41@1ms,seq=12",
    "time=41@1xs,seq=12,epoch=0",
    "time=41,seq=12,epoch=0",
    "time=41@0ms,seq=12,epoch=0",
    "time=41@ms,seq=12,epoch=0",
    "time=41@1ms,seq=1234,epoch=0",
    "time=41@1ms,seq=12,epoch=2020-02-30",
    "time=41@1ms,seq=12,epoch=1969-12-31",
    "time=41@1ms,seq=12,epoch=2020-01-01T25:00:00Z",
    "time=41@1ms,seq=12,epoch=2020-01-01T00:00:00",
    "time=41@1ms,seq=12,epoch=99999999999999999999",
    "time=41@1ms,seq=12,epoch=0,epoch=0",
    "time=41@1ms,time=41@1ms,seq=12,epoch=0",
    "time=41@1ms,Worker=3,seq=12,epoch=0",
    "time=41@1ms,worker=10,seq=12,width=64,epoch=0",
    "time=41@1ms,seq=12,width=65,epoch=0",
    "time=60@1ms,worker=10,seq=12,epoch=0",
    "seq=12,epoch=0",
    "time=41@1ms,seq=33,epoch=0",
    "time=41@1ms,rollback=9,seq=12,epoch=0",
    "time=41@1ms,worker=0,seq=12,epoch=0",
    "time=41@1ms,worker=10,worker=2,seq=12,epoch=0",
    "time=41@1ms,a=1,b=1,c=1,d=1,e=1,f=1,g=1,seq=2,epoch=0",
    "time=63@1h,seq=1,epoch=0",
    "time=41@1ms,epoch=2020-01-01,seq=12,x=",
];

pub(crate) fn generate() -> Value {
    let mut layouts = Vec::new();
    for spec in idmint::snowflake::preset::NAMES
        .iter()
        .copied()
        .chain(CUSTOM)
    {
        let l = Layout::parse(spec).expect("vector layouts are valid");
        layouts.push(describe(spec, &l));
    }
    let invalid: Vec<Value> = INVALID
        .iter()
        .map(|spec| {
            let e = Layout::parse(spec).expect_err("invalid vector specs fail");
            case([("spec", (*spec).into())], error(&e))
        })
        .collect();
    obj([
        ("_comment", COMMENT.into()),
        ("layouts", layouts.into()),
        ("invalid", invalid.into()),
    ])
}

fn kind(k: FieldKind) -> &'static str {
    match k {
        FieldKind::Time => "time",
        FieldKind::Node => "node",
        FieldKind::Sequence => "sequence",
        FieldKind::Rollback => "rollback",
    }
}

fn parts_json(p: &Parts) -> Value {
    obj([
        ("time", s(p.time)),
        ("node", s(p.node)),
        ("sequence", s(p.sequence)),
        ("rollback", s(p.rollback)),
    ])
}

fn id_json(l: &Layout, id: u64) -> Value {
    let node = l.decompose(id).map(|p| p.node).unwrap_or(0);
    let fields: Vec<Value> = l
        .split_node(node)
        .map(|(n, v)| obj([("name", n.as_str().into()), ("value", s(v))]))
        .collect();
    obj([
        ("id", s(id)),
        ("timestamp_ms", s(l.timestamp_ms(id))),
        ("node_fields", fields.into()),
    ])
}

fn describe(spec: &str, l: &Layout) -> Value {
    let fields: Vec<Value> = l
        .fields()
        .iter()
        .map(|f| {
            obj([
                ("name", f.name.as_str().into()),
                ("kind", kind(f.kind).into()),
                ("bits", f.bits.into()),
                ("shift", f.shift.into()),
            ])
        })
        .collect();
    let rb_max = l.rollback_field().map_or(0, |f| f.max());
    let zero = Parts::default();
    let max = Parts {
        time: l.max_time(),
        node: l.max_node(),
        sequence: l.max_sequence(),
        rollback: rb_max,
    };
    // Alternating bit patterns, cut to each field.
    let mixed = Parts {
        time: 0x5555_5555_5555_5555 & l.max_time(),
        node: 0xaaaa_aaaa_aaaa_aaaa & l.max_node(),
        sequence: 0x5555_5555 & l.max_sequence(),
        rollback: 0xaa & rb_max,
    };
    let one = Parts {
        time: 1,
        node: 1.min(l.max_node()),
        sequence: 1,
        rollback: 1.min(rb_max),
    };
    let mut compose_cases = vec![zero, max, mixed, one];
    if let Ok(t) = l.tick_at(T0) {
        compose_cases.push(Parts {
            time: t,
            node: l.max_node() / 3,
            sequence: l.max_sequence() / 2,
            rollback: 0,
        });
    }
    // Each field one past its maximum, and a rollback value on a layout without the field.
    compose_cases.push(Parts {
        time: l.max_time() + 1,
        ..zero
    });
    compose_cases.push(Parts {
        node: l.max_node() + 1,
        ..zero
    });
    compose_cases.push(Parts {
        sequence: l.max_sequence() + 1,
        ..zero
    });
    compose_cases.push(Parts {
        rollback: rb_max + 1,
        ..zero
    });
    let compose: Vec<Value> = compose_cases
        .iter()
        .map(|p| {
            case(
                [("parts", parts_json(p))],
                outcome(l.compose(p), |id| id_json(l, id)),
            )
        })
        .collect();
    let mut ids = vec![
        0,
        1,
        l.max_id(),
        0x5555_5555_5555_5555 & l.max_id(),
        0xaaaa_aaaa_aaaa_aaaa & l.max_id(),
        0x0123_4567_89ab_cdef & l.max_id(),
    ];
    if l.max_id() < u64::MAX {
        ids.push(l.max_id() + 1);
        ids.push(u64::MAX);
    }
    let decompose: Vec<Value> = ids
        .iter()
        .map(|&id| {
            case(
                [("id", s(id))],
                outcome(l.decompose(id), |p| parts_json(&p)),
            )
        })
        .collect();
    let times = [
        0,
        l.epoch_ms().saturating_sub(1),
        l.epoch_ms(),
        l.epoch_ms() + l.tick_ms() - 1,
        l.epoch_ms() + l.tick_ms(),
        T0,
        l.lifetime_end_ms() - 1,
        l.lifetime_end_ms(),
        u64::MAX,
    ];
    let tick_at: Vec<Value> = times
        .iter()
        .map(|&t| {
            case(
                [("now_ms", s(t))],
                outcome(l.tick_at(t), |tick| obj([("tick", s(tick))])),
            )
        })
        .collect();
    obj([
        ("spec", spec.into()),
        ("preset", l.preset_name().map_or(Value::Null, Value::from)),
        ("canonical", l.to_string().into()),
        ("width", l.width().into()),
        ("epoch_ms", s(l.epoch_ms())),
        ("tick_ms", s(l.tick_ms())),
        ("lifetime_end_ms", s(l.lifetime_end_ms())),
        ("capacity_per_second", s(l.capacity_per_second())),
        ("is_js_safe", l.is_js_safe().into()),
        ("max_id", s(l.max_id())),
        ("max_node", s(l.max_node())),
        ("max_sequence", s(l.max_sequence())),
        ("max_time", s(l.max_time())),
        ("fields", fields.into()),
        ("compose", compose.into()),
        ("decompose", decompose.into()),
        ("tick_at", tick_at.into()),
    ])
}
