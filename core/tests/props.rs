//! Property tests: for random clock scripts (jumps forward and back, bursts), every policy
//! issues no duplicate, and IDs only decrease where the policy table says they may. The `&mut`
//! and the atomic forms give identical results.

use std::collections::HashSet;

use idmint::{
    AtomicSnowflake, Config, Error, Layout, LocalSnowflake, OnBackwards, OnExhausted, Parts,
    SequenceStart,
};
use proptest::prelude::*;

const T0: u64 = 1_700_000_000_000;

fn policies() -> impl Strategy<Value = (OnBackwards, OnExhausted, SequenceStart)> {
    let back = prop_oneof![
        Just(OnBackwards::Fail),
        (1u64..50).prop_map(|max_ms| OnBackwards::Wait { max_ms }),
        (1u64..50).prop_map(|max_ms| OnBackwards::Logical { max_ms }),
        Just(OnBackwards::RollbackCounter),
        (2u32..20).prop_map(|ticks| OnBackwards::Ring { ticks }),
    ];
    let exh = prop_oneof![
        Just(OnExhausted::Wait),
        Just(OnExhausted::Fail),
        (1u64..5).prop_map(|max_ticks| OnExhausted::Borrow { max_ticks }),
    ];
    let start = prop_oneof![
        Just(SequenceStart::Zero),
        Just(SequenceStart::Random),
        (1u8..3).prop_map(|max_offset| SequenceStart::Vibrate { max_offset }),
    ];
    (back, exh, start)
}

/// A clock script: each step moves the clock by -40..=+5 ms (mostly forward) and asks for 1..6 IDs.
fn script() -> impl Strategy<Value = Vec<(i64, u64)>> {
    prop::collection::vec(
        (prop_oneof![8 => 0i64..=5, 1 => -40i64..0], 1u64..6),
        1..200,
    )
}

fn config(p: (OnBackwards, OnExhausted, SequenceStart), seed: u64, tick_ms: u64) -> Config {
    let spec = format!("time=40@{tick_ms}ms,rollback=2,worker=8,seq=3,epoch=2020-01-01");
    let mut c = Config::new(Layout::parse(&spec).unwrap())
        .node(77)
        .seed(seed);
    c = c.on_backwards(p.0).on_exhausted(p.1).sequence_start(p.2);
    if matches!(p.0, OnBackwards::Ring { .. }) {
        c = c.sequence_start(SequenceStart::Zero);
        if matches!(p.1, OnExhausted::Borrow { .. }) {
            c = c.on_exhausted(OnExhausted::Wait);
        }
    }
    c
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn no_duplicates_and_documented_order(p in policies(), s in script(), seed in any::<u64>(), tick in prop_oneof![Just(1u64), Just(10)]) {
        let cfg = config(p, seed, tick);
        let mut local = LocalSnowflake::new(cfg).unwrap();
        let shared = AtomicSnowflake::new(cfg).unwrap();
        let may_decrease = matches!(cfg.on_backwards_policy(), OnBackwards::RollbackCounter | OnBackwards::Ring { .. });
        let mut seen = HashSet::new();
        let mut now = T0 as i64;
        let mut last = 0u64;
        for (delta, want) in s {
            now += delta;
            for _ in 0..want {
                let a = local.next_id_at(now as u64);
                let b = shared.next_id_at(now as u64);
                prop_assert_eq!(a, b);
                match a {
                    Ok(id) => {
                        prop_assert!(seen.insert(id), "duplicate {}", id);
                        prop_assert!(may_decrease || id > last, "decreased: {} after {}", id, last);
                        prop_assert_eq!(cfg.layout().decompose(id).unwrap().node, 77);
                        last = id;
                    }
                    Err(Error::WouldBlock { until_ms }) => prop_assert!(until_ms > now as u64),
                    Err(e) => prop_assert!(matches!(
                        e,
                        Error::ClockMovedBackwards { .. } | Error::SequenceExhausted { .. }
                    ), "unexpected {:?}", e),
                }
            }
        }
        prop_assert_eq!(local.stats(), shared.stats());
    }

    #[test]
    fn reserve_matches_single_steps(n in 1u64..40, seed in any::<u64>()) {
        let cfg = config((OnBackwards::Fail, OnExhausted::Borrow { max_ticks: 100 }, SequenceStart::Random), seed, 1);
        let mut one = LocalSnowflake::new(cfg).unwrap();
        let mut bulk = LocalSnowflake::new(cfg).unwrap();
        let singles: Vec<u64> = (0..n).map(|_| one.next_id_at(T0).unwrap()).collect();
        let mut out = vec![0; n as usize];
        prop_assert_eq!(bulk.next_ids_at(T0, &mut out).unwrap(), n as usize);
        prop_assert_eq!(singles, out);
    }

    #[test]
    fn compose_decompose_round_trip(
        time_bits in 1u32..=36, node_a in 1u32..=8, node_b in 0u32..=6, seq_bits in 1u32..=12, rb in 0u32..=2,
        epoch in 0u64..2_000_000_000_000, tick in 1u64..2000, seq_first in any::<bool>(), raw in any::<[u64; 4]>()
    ) {
        let mut b = Layout::builder().epoch_ms(epoch).time(time_bits, tick);
        if seq_first { b = b.sequence(seq_bits); }
        if rb > 0 { b = b.rollback(rb); }
        b = b.node("a", node_a);
        if node_b > 0 { b = b.node("b", node_b); }
        if !seq_first { b = b.sequence(seq_bits); }
        let l = b.build().unwrap();
        let p = Parts {
            time: raw[0] & l.max_time(),
            node: raw[1] & l.max_node(),
            sequence: raw[2] & l.max_sequence(),
            rollback: l.rollback_field().map_or(0, |f| raw[3] & f.max()),
        };
        let id = l.compose(&p).unwrap();
        prop_assert!(id <= l.max_id());
        prop_assert_eq!(l.decompose(id).unwrap(), p);
        prop_assert_eq!(l.compose(&l.decompose(id).unwrap()).unwrap(), id);
        prop_assert_eq!(Layout::parse(&l.to_string()).unwrap(), l);
    }

    #[test]
    fn spec_parse_never_panics(s in ".{0,80}") {
        let _ = Layout::parse(&s);
        let _ = s.parse::<OnBackwards>();
        let _ = s.parse::<OnExhausted>();
        let _ = s.parse::<SequenceStart>();
    }

    #[test]
    fn spec_like_strings_never_panic(s in "(time|seq|rollback|epoch|width|worker|x)=[0-9@a-z:TZ.-]{0,12}(,(time|seq|epoch|worker|rollback)=[0-9@a-z:TZ.-]{0,12}){0,5}") {
        let _ = Layout::parse(&s);
    }
}
