//! `generators.json`: scripted Snowflake runs for every policy, plus policy texts and configs
//! that generators reject.

use serde_json::Value;

use idmint::named::NamedConfig;
use idmint::{Config, Layout, LocalSnowflake, OnBackwards, OnExhausted, SequenceStart, Stats};

use crate::{case, error, obj, outcome, s, T0};

const COMMENT: &str = "Scripted Snowflake generator runs. For each case build a fresh generator \
from `layout` (Layout::parse), `node`, `on_backwards`, `on_exhausted`, `sequence_start` (the \
policies' text forms), `seed` and `fence_ms` (null: no fence), i.e. Config::new(layout).node(..) \
.on_backwards(..).on_exhausted(..).sequence_start(..).seed(..)[.fence_ms(..)]; `named_config` is \
the same configuration in the named-generator form and `max_rollback_ticks` is \
Config::max_rollback_ticks (null unless rollback_counter). Then run `steps` in order on that \
one generator: a step with only `now_ms` calls next_id_at(now_ms) and expects {id}; a step with \
`reserve: n` calls reserve_at(now_ms, n) and expects {first, count, stride}; a step with \
`next_ids: n` calls next_ids_at(now_ms, buffer of n) and expects {ids} (the ids written, \
possibly fewer than n). Any step may instead expect an error object {error: Error::code(), \
message, ...the variant's fields}; ERR_WOULD_BLOCK is not a failure but 'call again at \
until_ms'. After the last step the generator's stats() must equal `stats`. The expected \
outcomes come from LocalSnowflake; AtomicSnowflake must give identical results. Clock scripts \
use T0 = 1700000000000 (2023-11-14T22:13:20Z). `policy_texts` are policy strings with their \
canonical Display form or their parse error; `invalid_configs` are configs whose policy text or \
generator construction (LocalSnowflake::new) fails, with the first error met when parsing \
layout, then policies in the order on_backwards, on_exhausted, sequence_start, then building. \
Every u64 is a decimal string.";

#[derive(Clone, Copy)]
enum Step {
    Next(u64),
    Reserve(u64, u64),
    NextIds(u64, usize),
}
use Step::{Next, NextIds, Reserve};

struct Case {
    name: &'static str,
    note: &'static str,
    layout: &'static str,
    node: u64,
    on_backwards: &'static str,
    on_exhausted: &'static str,
    sequence_start: &'static str,
    seed: u64,
    fence_ms: Option<u64>,
    steps: Vec<Step>,
}

/// 2 sequence bits (4 IDs per ms) so exhaustion is easy to reach.
const SEQ2: &str = "time=41@1ms,worker=10,seq=2,epoch=2020-01-01";
const SEQ3: &str = "time=41@1ms,worker=10,seq=3,epoch=2020-01-01";
const ROLLBACK: &str = "time=41@1ms,rollback=2,worker=8,seq=2,epoch=2020-01-01";
const SONY: &str = "time=39@10ms,seq=2,machine=16,epoch=2014-09-01";
const SECONDS: &str = "time=31@1s,worker=4,seq=2,epoch=2024-01-01";
const SHORT: &str = "time=10@1s,node=2,seq=2,epoch=2020-01-01";

fn n(count: usize, now: u64) -> Vec<Step> {
    vec![Next(now); count]
}

fn cat(parts: Vec<Vec<Step>>) -> Vec<Step> {
    parts.into_iter().flatten().collect()
}

fn base(name: &'static str, note: &'static str, layout: &'static str) -> Case {
    Case {
        name,
        note,
        layout,
        node: 5,
        on_backwards: "fail",
        on_exhausted: "wait",
        sequence_start: "zero",
        seed: 0,
        fence_ms: None,
        steps: Vec::new(),
    }
}

fn cases() -> Vec<Case> {
    let t = T0;
    let short_epoch = 1_577_836_800_000; // 2020-01-01
    let t2 = 1_750_000_000_500; // 2025-06-15T15:06:40.500Z, for the 2024 epoch
    vec![
        Case {
            steps: cat(vec![
                vec![Next(t), Next(t + 1), Next(t + 2)],
                n(5, t + 3),
                vec![Next(t + 4), Next(t + 4)],
            ]),
            ..base(
                "steady_then_burst_wait",
                "one ID per ms, then a burst of 5 in one ms: the 5th waits for the next ms",
                SEQ2,
            )
        },
        Case {
            on_exhausted: "fail",
            steps: cat(vec![n(5, t), vec![Next(t + 1)]]),
            ..base(
                "exhausted_fail",
                "a burst of 5 with on_exhausted=fail",
                SEQ2,
            )
        },
        Case {
            on_exhausted: "borrow:2",
            steps: cat(vec![n(13, t), vec![Next(t + 1), Next(t + 2)], n(2, t + 3), vec![Next(t + 4)]]),
            ..base(
                "exhausted_borrow",
                "a burst of 13 in one ms borrows 2 ticks ahead and then waits; the clock catches up",
                SEQ2,
            )
        },
        Case {
            steps: vec![
                Next(t),
                Next(t + 10),
                Next(t + 9),
                Next(t + 5),
                Next(t + 10),
                Next(t + 11),
            ],
            ..base(
                "backwards_fail",
                "steps back of 1 and 5 ms fail; the same ms as the last tick continues it",
                SEQ2,
            )
        },
        Case {
            on_backwards: "wait:5",
            steps: vec![
                Next(t + 10),
                Next(t + 7),
                Next(t + 5),
                Next(t + 4),
                Next(t + 10),
                Next(t + 12),
            ],
            ..base(
                "backwards_wait",
                "wait:5 asks to wait out steps back of up to 5 ms and fails beyond",
                SEQ2,
            )
        },
        Case {
            on_backwards: "logical:5",
            steps: cat(vec![
                vec![Next(t + 10), Next(t + 8)],
                n(22, t + 8),
                vec![Next(t + 2), Next(t + 14), Next(t + 20)],
            ]),
            ..base(
                "backwards_logical",
                "logical:5 keeps issuing on the last tick and borrows later ticks while at most 5 ms behind, then waits; 8 ms behind fails",
                SEQ2,
            )
        },
        Case {
            on_backwards: "logical:3",
            on_exhausted: "borrow:1",
            steps: cat(vec![n(6, t), n(8, t - 2), vec![Next(t + 5)]]),
            ..base(
                "logical_with_borrow",
                "borrow:1 first runs a tick ahead; then the clock steps back 2 ms into logical:3",
                SEQ2,
            )
        },
        Case {
            on_backwards: "rollback_counter",
            layout: ROLLBACK,
            steps: vec![
                Next(t + 10),
                Next(t + 5),
                Next(t + 6),
                Next(t + 3),
                Next(t + 10),
                Next(t + 11),
                Next(t + 8),
                Next(t + 9),
                Next(t + 12),
                Next(t + 7),
                Next(t + 13),
                Next(t + 1),
                Next(t + 20),
                Next(t + 200_000),
                Next(t + 30),
                Next(t + 100_000),
                Next(t + 200_001),
            ],
            ..base(
                "backwards_rollback_counter",
                "each step back bumps the rollback field and issues at the earlier time; a second step back before passing the first one's high-water mark fails, as does one deeper than max_rollback_ticks",
                ROLLBACK,
            )
        },
        Case {
            on_backwards: "rollback_counter",
            layout: ROLLBACK,
            steps: cat(vec![
                vec![Next(t + 10), Next(t + 9), Next(t + 11), Next(t + 10)],
                vec![Next(t + 12), Next(t + 11), Next(t + 13), Next(t + 12)],
                vec![Next(t + 14), Next(t + 13), Next(t + 15)],
            ]),
            ..base(
                "rollback_counter_wraps",
                "repeated one-ms steps back cycle the 2-bit rollback counter 1, 2, 3, 0, 1",
                ROLLBACK,
            )
        },
        Case {
            on_backwards: "rollback_counter",
            node: 255,
            on_exhausted: "borrow:4",
            steps: vec![
                Next(t + 1000),
                Next(t + 873),
                Next(t + 1200),
                Next(t + 1072),
                Next(t + 1073),
                Next(t + 1074),
            ],
            ..base(
                "rollback_counter_depth",
                "with 13 sequence bits the state leaves 8 spare bits: max_rollback_ticks is 127, so a step back of 127 ms works and 128 fails",
                "time=40@1ms,rollback=2,worker=8,seq=13,epoch=2010-11-04T01:42:54.657Z",
            )
        },
        Case {
            on_backwards: "ring:4",
            steps: cat(vec![
                vec![Next(t), Next(t + 1), Next(t + 2), Next(t), Next(t + 1)],
                n(3, t),
                vec![Next(t - 3), Next(t + 3), Next(t + 10), Next(t + 6), Next(t + 7), Next(t + 7)],
            ]),
            ..base(
                "backwards_ring",
                "ring:4 continues each of the last 4 ticks' own sequence; 5 or more ticks back fails",
                SEQ2,
            )
        },
        Case {
            on_backwards: "ring:2",
            on_exhausted: "fail",
            sequence_start: "random",
            seed: 7,
            steps: cat(vec![n(3, t), vec![Next(t + 1), Next(t)], n(3, t + 1), vec![Next(t + 3)]]),
            ..base(
                "ring_random_fail",
                "ring:2 with random starts and on_exhausted=fail",
                SEQ3,
            )
        },
        Case {
            on_backwards: "ring:3",
            fence_ms: Some(t + 5),
            steps: vec![Next(t + 3), Next(t + 5), Next(t + 6), Next(t + 4), Next(t + 6)],
            ..base(
                "ring_with_fence",
                "ring:3 with a fence at T0+5: nothing at or before the fenced tick",
                SEQ2,
            )
        },
        Case {
            sequence_start: "vibrate:1",
            steps: cat(vec![
                vec![Next(t), Next(t + 1), Next(t + 2), Next(t + 3)],
                n(5, t + 4),
            ]),
            ..base(
                "vibrate_1",
                "ShardingSphere vibration: each new tick starts at 0, 1, 0, 1, ...",
                SEQ2,
            )
        },
        Case {
            sequence_start: "vibrate:3",
            on_exhausted: "borrow:4",
            steps: cat(vec![
                vec![Next(t), Next(t + 1), Next(t + 2), Next(t + 3), Next(t + 4)],
                n(12, t + 5),
            ]),
            ..base(
                "vibrate_3_borrow",
                "vibrate:3 cycles 0..3 including on borrowed ticks",
                SEQ3,
            )
        },
        Case {
            sequence_start: "random",
            seed: 42,
            steps: cat(vec![
                vec![Next(t), Next(t + 1), Next(t + 2), Next(t + 3)],
                n(10, t + 4),
            ]),
            ..base(
                "random_start",
                "random starts below half the sequence range, a fixed function of (seed, tick)",
                SEQ3,
            )
        },
        Case {
            sequence_start: "random",
            seed: u64::MAX,
            on_exhausted: "borrow:16",
            on_backwards: "logical:1000",
            steps: vec![Reserve(t, 100), Reserve(t, 100), NextIds(t, 12), Next(t + 1)],
            ..base(
                "random_start_reserve",
                "random starts with reserve_at and next_ids_at across borrowed ticks",
                SEQ3,
            )
        },
        Case {
            on_backwards: "wait:10",
            fence_ms: Some(t + 5),
            steps: vec![Next(t), Next(t + 5), Next(t + 6), Next(t + 6)],
            ..base(
                "fence_wait",
                "a fence at T0+5: the clock behind it waits; the fenced ms itself is used up",
                SEQ2,
            )
        },
        Case {
            on_backwards: "fail",
            fence_ms: Some(t + 5),
            steps: vec![Next(t), Next(t + 4), Next(t + 5), Next(t + 6)],
            ..base(
                "fence_fail",
                "a fence with on_backwards=fail",
                SEQ2,
            )
        },
        Case {
            on_backwards: "logical:10",
            fence_ms: Some(t + 5),
            steps: vec![Next(t), Next(t), Next(t + 6), Next(t + 7)],
            ..base(
                "fence_logical",
                "a fence with logical:10: IDs start just after the fenced tick even with the clock behind",
                SEQ2,
            )
        },
        Case {
            on_backwards: "rollback_counter",
            fence_ms: Some(t + 5),
            steps: vec![Next(t + 3), Next(t + 4), Next(t + 5), Next(t + 6)],
            ..base(
                "fence_rollback_counter",
                "a fence with rollback_counter: the clock behind the fence starts a new rollback epoch",
                ROLLBACK,
            )
        },
        Case {
            on_backwards: "logical:5",
            on_exhausted: "fail",
            steps: cat(vec![n(5, t + 10), vec![Next(t + 8)], n(5, t + 8), vec![Next(t + 11)]]),
            ..base(
                "logical_with_exhausted_fail",
                "on_exhausted=fail applies while the clock is current; while it is behind, logical borrows ticks",
                SEQ2,
            )
        },
        Case {
            fence_ms: Some(1_000),
            steps: vec![Next(t)],
            ..base(
                "fence_before_epoch",
                "a fence before the layout epoch has no effect",
                SEQ2,
            )
        },
        Case {
            node: 0xffff,
            on_exhausted: "borrow:3",
            steps: vec![
                Next(t),
                Next(t + 3),
                Next(t + 9),
                Reserve(t + 10, 3),
                Reserve(t + 10, 3),
                Reserve(t + 10, 0),
                NextIds(t + 15, 10),
                NextIds(t + 15, 10),
            ],
            ..base(
                "sonyflake_order_reserve",
                "10 ms ticks with the sequence above the machine id: runs have stride 65536",
                SONY,
            )
        },
        Case {
            node: 15,
            on_backwards: "wait:1000",
            steps: cat(vec![
                n(5, t2),
                vec![
                    Next(t2 + 499),
                    Next(t2 + 500),
                    Next(t2 + 1000),
                    Next(t2 + 700),
                    Next(t2 + 400),
                    Next(t2 - 1000),
                    Next(t2 - 5000),
                ],
            ]),
            ..base(
                "second_ticks",
                "1 s ticks: a step back within the same second is no step back at all",
                SECONDS,
            )
        },
        Case {
            node: 3,
            on_exhausted: "borrow:2",
            steps: vec![
                Next(short_epoch - 1),
                Next(short_epoch),
                Next(short_epoch + 1_022_999),
                NextIds(short_epoch + 1_023_000, 12),
                Next(short_epoch + 1_024_000),
            ],
            ..base(
                "before_epoch_and_expiry",
                "a 10-bit seconds layout: before the epoch, its last tick, borrowing past the end, and after it",
                SHORT,
            )
        },
        Case {
            node: 1,
            on_backwards: "wait:1000",
            steps: cat(vec![n(3, t), vec![Next(t - 1000), Next(t - 1001), Next(t + 86_400_000)]]),
            ..base(
                "defaults_wait_1000",
                "the default policies wait:1000, wait, zero",
                "twitter",
            )
        },
        Case {
            node: 0,
            steps: vec![NextIds(t, 9), NextIds(t, 2), Next(t + 1)],
            ..base(
                "next_ids_partial",
                "next_ids_at stops when the policy says wait, and fails only if nothing was written",
                SEQ2,
            )
        },
    ]
}

const POLICY_TEXTS: [(&str, &str); 27] = [
    ("on_backwards", "fail"),
    ("on_backwards", "wait"),
    ("on_backwards", "wait:250"),
    ("on_backwards", " logical "),
    ("on_backwards", "logical:18446744073709551615"),
    ("on_backwards", "rollback_counter"),
    ("on_backwards", "ring"),
    ("on_backwards", "ring:64"),
    ("on_backwards", "ring:4294967296"),
    ("on_backwards", "fail:1"),
    ("on_backwards", "wait:"),
    ("on_backwards", "wait:-1"),
    ("on_backwards", "Wait:5"),
    ("on_backwards", "sideways"),
    ("on_exhausted", "wait"),
    ("on_exhausted", "borrow"),
    ("on_exhausted", "borrow:3"),
    ("on_exhausted", "fail"),
    ("on_exhausted", "wait:3"),
    ("on_exhausted", "borrow:x"),
    ("sequence_start", "zero"),
    ("sequence_start", "random"),
    ("sequence_start", "vibrate"),
    ("sequence_start", "vibrate:255"),
    ("sequence_start", "vibrate:256"),
    ("sequence_start", "random:1"),
    ("sequence_start", "one"),
];

/// (layout, node, on_backwards, on_exhausted, sequence_start)
const INVALID_CONFIGS: [(&str, u64, &str, &str, &str); 14] = [
    (SEQ2, 1024, "fail", "wait", "zero"),
    (SEQ2, 0, "rollback_counter", "wait", "zero"),
    (SEQ2, 0, "ring:4", "borrow:1", "zero"),
    (SEQ2, 0, "ring:4", "wait", "vibrate:1"),
    (SEQ2, 0, "ring:1", "wait", "zero"),
    (SEQ2, 0, "ring:65537", "wait", "zero"),
    (SEQ2, 0, "wait:0", "wait", "zero"),
    (SEQ2, 0, "logical:0", "wait", "zero"),
    (SEQ2, 0, "fail", "borrow:0", "zero"),
    (SEQ2, 0, "fail", "wait", "vibrate:4"),
    (SEQ2, 0, "fail", "wait", "vibrate:0"),
    (
        "time=41@1ms,seq=23,epoch=2020-01-01",
        0,
        "fail",
        "wait",
        "zero",
    ),
    (
        "time=40@1ms,rollback=8,seq=14,epoch=2020-01-01",
        0,
        "rollback_counter",
        "wait",
        "zero",
    ),
    (SEQ2, 0, "sideways", "borrow:0", "vibrate:9"),
];

pub(crate) fn generate() -> Value {
    let cases: Vec<Value> = cases().iter().map(run).collect();
    let texts: Vec<Value> = POLICY_TEXTS
        .iter()
        .map(|&(kind, text)| {
            let r = match kind {
                "on_backwards" => text.parse::<OnBackwards>().map(|p| p.to_string()),
                "on_exhausted" => text.parse::<OnExhausted>().map(|p| p.to_string()),
                _ => text.parse::<SequenceStart>().map(|p| p.to_string()),
            };
            case(
                [("policy", kind.into()), ("text", text.into())],
                outcome(r, |c| obj([("canonical", c.into())])),
            )
        })
        .collect();
    let invalid: Vec<Value> = INVALID_CONFIGS
        .iter()
        .map(|&(layout, node, ob, oe, ss)| {
            let r = (|| {
                let cfg = Config::new(Layout::parse(layout)?)
                    .node(node)
                    .on_backwards(ob.parse()?)
                    .on_exhausted(oe.parse()?)
                    .sequence_start(ss.parse()?);
                LocalSnowflake::new(cfg)
            })();
            let e = r.expect_err("invalid configs fail");
            case(
                [
                    ("layout", layout.into()),
                    ("node", s(node)),
                    ("on_backwards", ob.into()),
                    ("on_exhausted", oe.into()),
                    ("sequence_start", ss.into()),
                ],
                error(&e),
            )
        })
        .collect();
    obj([
        ("_comment", COMMENT.into()),
        ("cases", cases.into()),
        ("policy_texts", texts.into()),
        ("invalid_configs", invalid.into()),
    ])
}

pub(crate) fn stats_json(st: &Stats) -> Value {
    obj([
        ("rollbacks", s(st.rollbacks)),
        ("wait_ms", s(st.wait_ms)),
        ("max_ahead_ms", s(st.max_ahead_ms)),
        ("exhaustions", s(st.exhaustions)),
    ])
}

fn run(c: &Case) -> Value {
    let layout = Layout::parse(c.layout).expect("case layout");
    let mut cfg = Config::new(layout)
        .node(c.node)
        .on_backwards(c.on_backwards.parse().expect("case policy"))
        .on_exhausted(c.on_exhausted.parse().expect("case policy"))
        .sequence_start(c.sequence_start.parse().expect("case policy"))
        .seed(c.seed);
    if let Some(f) = c.fence_ms {
        cfg = cfg.fence_ms(f);
    }
    let mut g = LocalSnowflake::new(cfg).expect("case config");
    let steps: Vec<Value> = c
        .steps
        .iter()
        .map(|&st| match st {
            Next(now) => obj([
                ("now_ms", s(now)),
                (
                    "expect",
                    outcome(g.next_id_at(now), |id| obj([("id", s(id))])),
                ),
            ]),
            Reserve(now, k) => obj([
                ("now_ms", s(now)),
                ("reserve", s(k)),
                (
                    "expect",
                    outcome(g.reserve_at(now, k), |r| {
                        obj([
                            ("first", s(r.first)),
                            ("count", s(r.count)),
                            ("stride", s(r.stride)),
                        ])
                    }),
                ),
            ]),
            NextIds(now, k) => {
                let mut buf = vec![0u64; k];
                let r = g.next_ids_at(now, &mut buf);
                obj([
                    ("now_ms", s(now)),
                    ("next_ids", s(k as u64)),
                    (
                        "expect",
                        outcome(r, |written| {
                            let ids: Vec<Value> = buf[..written].iter().map(|&i| s(i)).collect();
                            obj([("ids", ids.into())])
                        }),
                    ),
                ])
            }
        })
        .collect();
    let named = NamedConfig::Snowflake(cfg).to_string();
    obj([
        ("name", c.name.into()),
        ("note", c.note.into()),
        ("layout", c.layout.into()),
        ("node", s(c.node)),
        ("on_backwards", c.on_backwards.into()),
        ("on_exhausted", c.on_exhausted.into()),
        ("sequence_start", c.sequence_start.into()),
        ("seed", s(c.seed)),
        ("fence_ms", c.fence_ms.map_or(Value::Null, s)),
        ("named_config", named.into()),
        (
            "max_rollback_ticks",
            cfg.max_rollback_ticks().map_or(Value::Null, s),
        ),
        ("steps", steps.into()),
        ("stats", stats_json(&g.stats())),
    ])
}
