//! `obfuscation.json`: keyed permutations of full widths and of the bits below a layout's time.

use serde_json::Value;

use idmint::obfuscate::{Obfuscator, SortableObfuscator};
use idmint::{Layout, Parts};

use crate::{case, error, obj, outcome, s, T0};

const COMMENT: &str = "Keyed ID obfuscation. A key is 128 bits, given as `key_hex`: 32 hex \
digits of the key as a big-endian u128 (the Rust value u128::from_str_radix(key_hex, 16)). \
`full`: Obfuscator::new(key, bits); each case maps `input` to `expect.output` with encode, and \
decode(output) must give `input` back; inputs outside [0, 2^bits) fail with the error shown \
(for encode and decode alike). `sortable`: SortableObfuscator::new(key, layout) permutes only \
the bits below the layout's time field (`low_bits` of them), so time order is kept; same \
encode/decode rule, errors for IDs above the layout's max_id. `invalid` lists constructions \
that fail. Every u64 is a decimal string.";

const KEYS: [u128; 4] = [
    0,
    0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
    0x2b7e_1516_28ae_d2a6_abf7_1588_09cf_4f3c,
    u128::MAX,
];

const WIDTHS: [u8; 7] = [2, 3, 16, 32, 53, 63, 64];

fn key_hex(k: u128) -> Value {
    format!("{k:032x}").into()
}

fn inputs(max: u64) -> Vec<u64> {
    let mut v = vec![
        0,
        1,
        2,
        max / 2,
        max - 1,
        max,
        0x0123_4567_89ab_cdef & max,
        0x5555_5555_5555_5555 & max,
    ];
    v.sort_unstable();
    v.dedup();
    if max < u64::MAX {
        v.push(max + 1);
        v.push(u64::MAX);
    }
    v
}

pub(crate) fn generate() -> Value {
    let mut full = Vec::new();
    for key in KEYS {
        for bits in WIDTHS {
            let ob = Obfuscator::new(key, bits).expect("valid width");
            let cases: Vec<Value> = inputs(ob.max())
                .into_iter()
                .map(|x| {
                    case(
                        [("input", s(x))],
                        outcome(ob.encode(x), |y| obj([("output", s(y))])),
                    )
                })
                .collect();
            full.push(obj([
                ("key_hex", key_hex(key)),
                ("bits", bits.into()),
                ("cases", cases.into()),
            ]));
        }
    }
    let mut sortable = Vec::new();
    for key in KEYS {
        for spec in ["twitter", "sonyflake", "js53", "discord"] {
            let l = Layout::parse(spec).expect("preset");
            let ob = SortableObfuscator::new(key, &l).expect("presets have low bits");
            let t = l.tick_at(T0.max(l.epoch_ms())).expect("live preset");
            let mut ids = Vec::new();
            for (time, seq) in [(t, 0), (t, 1), (t, 2), (t + 1, 0)] {
                let p = Parts {
                    time,
                    node: 5,
                    sequence: seq,
                    rollback: 0,
                };
                ids.push(l.compose(&p).expect("fits"));
            }
            ids.extend([0, l.max_id()]);
            if l.max_id() < u64::MAX {
                ids.push(l.max_id() + 1);
            }
            let cases: Vec<Value> = ids
                .into_iter()
                .map(|x| {
                    case(
                        [("input", s(x))],
                        outcome(ob.encode(x), |y| obj([("output", s(y))])),
                    )
                })
                .collect();
            sortable.push(obj([
                ("key_hex", key_hex(key)),
                ("layout", spec.into()),
                ("low_bits", ob.low_bits().into()),
                ("cases", cases.into()),
            ]));
        }
    }
    let mut invalid = Vec::new();
    for bits in [0u8, 1, 65, 255] {
        let e = Obfuscator::new(1, bits).expect_err("bad width");
        invalid.push(case(
            [
                ("kind", "full".into()),
                ("key_hex", key_hex(1)),
                ("bits", bits.into()),
            ],
            error(&e),
        ));
    }
    for spec in ["time=62@1ms,seq=1,epoch=0", "seq=2,time=40@1ms,epoch=0"] {
        let l = Layout::parse(spec).expect("valid layout");
        let e = SortableObfuscator::new(1, &l).expect_err("no low bits");
        invalid.push(case(
            [
                ("kind", "sortable".into()),
                ("key_hex", key_hex(1)),
                ("layout", spec.into()),
            ],
            error(&e),
        ));
    }
    obj([
        ("_comment", COMMENT.into()),
        ("full", full.into()),
        ("sortable", sortable.into()),
        ("invalid", invalid.into()),
    ])
}
