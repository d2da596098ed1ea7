//! Property tests: for random clock scripts (jumps forward and back, bursts), every policy
//! issues no duplicate, and IDs only decrease where the policy table says they may. The `&mut`
//! and the atomic forms give identical results. Also: restarts behind a time fence, the std
//! front door on a coarse clock that lags by up to its stated lag, and `rollback_counter` under
//! steps back deeper, and more often, than its field and state can count.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

use idmint::{
    AtomicSnowflake, Clock, Config, Error, Layout, LocalSnowflake, OnBackwards, OnExhausted, Parts,
    SequenceStart, Snowflake,
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
                        Error::ClockBackwards { .. } | Error::SequenceExhausted { .. }
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

/// The errors a clock script may meet (besides `WouldBlock`, checked by the caller).
fn documented(e: &Error) -> bool {
    matches!(
        e,
        Error::ClockBackwards { .. } | Error::SequenceExhausted { .. }
    )
}

/// Mints through `script` from `start`, returning every ID issued.
fn mint_script(g: &AtomicSnowflake, start: i64, s: &[(i64, u64)]) -> Vec<u64> {
    let mut ids = Vec::new();
    let mut now = start;
    for &(delta, want) in s {
        now += delta;
        for _ in 0..want {
            match g.next_id_at(now as u64) {
                Ok(id) => ids.push(id),
                Err(Error::WouldBlock { .. }) => {}
                Err(e) => assert!(documented(&e), "unexpected {e:?}"),
            }
        }
    }
    ids
}

/// A clock whose precise reading follows a script and whose coarse reading lags it by a
/// scripted amount up to `lag` (the stated lag, never exceeded). Waiting moves it forward.
struct LaggingClock {
    now: AtomicU64,
    lags: Vec<u64>,
    next: AtomicUsize,
    lag: u64,
}

impl Clock for LaggingClock {
    fn now_ms(&self) -> u64 {
        self.now.load(Relaxed)
    }
    fn coarse_ms(&self) -> u64 {
        let i = self.next.fetch_add(1, Relaxed) % self.lags.len();
        self.now_ms() - self.lags[i].min(self.lag)
    }
    fn coarse_lag_ms(&self) -> u64 {
        self.lag
    }
    fn wait_until(&self, until_ms: u64) {
        self.now.fetch_max(until_ms, Relaxed);
    }
}

/// One call of the std front door.
#[derive(Debug, Clone, Copy)]
enum Call {
    One,
    Try,
    Reserve(u64),
    Batch(usize),
}

fn call() -> impl Strategy<Value = Call> {
    prop_oneof![
        4 => Just(Call::One),
        2 => Just(Call::Try),
        1 => (1u64..20).prop_map(Call::Reserve),
        1 => (1usize..20).prop_map(Call::Batch),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A process mints on a script, and the next holder of its node restarts fenced at its
    /// high-water mark, on a clock up to 100 ms behind or 20 ms ahead: nothing the second one
    /// issues lies at or before the fence, and the two never share an ID.
    #[test]
    fn fenced_restart_never_reissues(
        p in policies(), first in script(), second in script(), seed in any::<u64>(),
        tick in prop_oneof![Just(1u64), Just(10)], shift in -100i64..=20,
    ) {
        let cfg = config(p, seed, tick);
        let a = AtomicSnowflake::new(cfg).unwrap();
        let ids_a = mint_script(&a, T0 as i64, &first);
        let Some(hw) = a.high_water_ms() else { return Ok(()) };
        let end = T0 as i64 + first.iter().map(|s| s.0).sum::<i64>();
        let b = AtomicSnowflake::new(cfg.fence_ms(hw)).unwrap();
        let ids_b = mint_script(&b, end + shift, &second);
        let mut seen: HashSet<u64> = ids_a.iter().copied().collect();
        prop_assert_eq!(seen.len(), ids_a.len());
        let fence_tick = (hw - cfg.layout().epoch_ms()) / tick;
        for id in ids_b {
            prop_assert!(seen.insert(id), "the restart reissued {}", id);
            prop_assert!(cfg.layout().decompose(id).unwrap().time > fence_tick,
                "{} lies at or before the fence", id);
        }
    }

    /// The std front door on a clock whose coarse reading lags by up to the stated lag, the
    /// precise one never going back, through every call form: no duplicate, IDs increasing, no
    /// rollback counted, no `ClockBackwards`, and every ID's time between the coarse
    /// bound (true time − lag) and the true time (plus the borrow bound).
    #[test]
    fn coarse_lag_within_its_bound_is_never_a_step_back(
        p in policies(), seed in any::<u64>(), lag in 1u64..8,
        lags in prop::collection::vec(0u64..12, 1..40),
        steps in prop::collection::vec((0u64..4, call()), 1..150),
    ) {
        let cfg = config(p, seed, 1);
        let clock = LaggingClock { now: AtomicU64::new(T0), lags, next: AtomicUsize::new(0), lag };
        let g = Snowflake::with_clock(cfg, clock).unwrap();
        let ahead = match cfg.on_exhausted_policy() {
            OnExhausted::Borrow { max_ticks } => max_ticks,
            _ => 0,
        };
        let l = *cfg.layout();
        let mut seen = HashSet::new();
        let mut last = 0u64;
        for (delta, c) in steps {
            g.clock().now.fetch_add(delta, Relaxed);
            let before = g.clock().now_ms();
            let r: Result<Vec<u64>, Error> = match c {
                Call::One => g.next_id().map(|id| vec![id]),
                Call::Try => g.try_next_id().map(|id| vec![id]),
                Call::Reserve(n) => g.reserve(n).map(|r| r.iter().collect()),
                Call::Batch(n) => {
                    let mut out = vec![0; n];
                    g.next_ids(&mut out).map(|_| out)
                }
            };
            let after = g.clock().now_ms();
            match r {
                Ok(ids) => {
                    for id in ids {
                        prop_assert!(seen.insert(id), "duplicate {}", id);
                        prop_assert!(id > last, "decreased: {} after {}", id, last);
                        last = id;
                        let t = l.timestamp_ms(id);
                        prop_assert!(t + lag >= before, "{} more than {} ms behind {}", t, lag, before);
                        prop_assert!(t <= after + ahead, "{} ahead of {}", t, after);
                    }
                }
                Err(Error::WouldBlock { .. }) => prop_assert!(matches!(c, Call::Try)),
                Err(e) => prop_assert!(matches!(e, Error::SequenceExhausted { .. }), "unexpected {:?}", e),
            }
        }
        prop_assert_eq!(g.stats().rollbacks, 0);
    }

    /// `rollback_counter` with a 1- or 2-bit rollback field and 3 to 15 ticks of depth, under
    /// frequent steps back, many deeper than that: IDs stay unique across any number of epochs
    /// (more than the field counts), an issued ID is never further behind the highest one than
    /// the depth, and a step back deeper than the depth is refused with ClockBackwards.
    #[test]
    fn rollback_counter_deeper_than_it_can_count(
        spare in 3u8..=5, rb in 1u8..=2, seed in any::<u64>(),
        s in prop::collection::vec((prop_oneof![3 => 0i64..=4, 2 => -30i64..0], 1u64..6), 1..300),
    ) {
        // 48 time bits + 1 + sequence + counter leave `spare` state bits: depth 2^(spare-1) - 1.
        let seq = 15 - spare - rb;
        let spec = format!("time=48@1ms,rollback={rb},worker={spare},seq={seq},epoch=2020-01-01");
        let cfg = Config::new(Layout::parse(&spec).unwrap())
            .node(1)
            .seed(seed)
            .on_backwards(OnBackwards::RollbackCounter);
        let depth = cfg.max_rollback_ticks().unwrap();
        prop_assert!((3..=15).contains(&depth));
        let l = *cfg.layout();
        let mut local = LocalSnowflake::new(cfg).unwrap();
        let shared = AtomicSnowflake::new(cfg).unwrap();
        let mut seen = HashSet::new();
        let mut now = T0 as i64;
        // The highest tick issued, and the tick of the last ID (the generator's last tick).
        let (mut high, mut prev): (Option<u64>, Option<u64>) = (None, None);
        for (delta, want) in s {
            now += delta;
            for _ in 0..want {
                let a = local.next_id_at(now as u64);
                prop_assert_eq!(a, shared.next_id_at(now as u64));
                let t = now as u64 - l.epoch_ms();
                match a {
                    Ok(id) => {
                        prop_assert!(seen.insert(id), "duplicate {}", id);
                        let tick = l.decompose(id).unwrap().time;
                        let h = high.map_or(tick, |h| h.max(tick));
                        prop_assert!(h - tick <= depth, "{} ticks behind the highest", h - tick);
                        high = Some(h);
                        prev = Some(tick);
                    }
                    Err(Error::WouldBlock { .. }) => {}
                    Err(e) => prop_assert!(matches!(e, Error::ClockBackwards { .. }), "unexpected {:?}", e),
                }
                if let Some(p) = prev {
                    if p > t + depth {
                        prop_assert!(matches!(a, Err(Error::ClockBackwards { .. })),
                            "a step back of {} ticks (depth {}) gave {:?}", p - t, depth, a);
                    }
                }
            }
        }
    }
}

/// Five steps back in a row on a 1-bit rollback field (two counter values), each landing above
/// the epoch before the last: the counter cycles 1, 0, 1, 0, 1 and no ID repeats.
#[test]
fn rollback_counter_cycles_its_field_without_reissuing() {
    let l = Layout::parse("time=41@1ms,rollback=1,worker=9,seq=2,epoch=2020-01-01").unwrap();
    let mut g = LocalSnowflake::new(
        Config::new(l)
            .node(0)
            .on_backwards(OnBackwards::RollbackCounter),
    )
    .unwrap();
    let mut seen = HashSet::new();
    let mut counters = Vec::new();
    let mut now = T0 + 100;
    for _ in 0..6 {
        // Six ticks forward, then two back: above the high-water mark of the epoch before.
        for t in now..now + 6 {
            while let Ok(id) = g.next_id_at(t) {
                assert!(seen.insert(id), "duplicate {id}");
            }
        }
        now += 3;
        let id = g.next_id_at(now).unwrap();
        assert!(seen.insert(id), "duplicate {id}");
        counters.push(l.decompose(id).unwrap().rollback);
    }
    assert_eq!(counters, [1, 0, 1, 0, 1, 0]);
    assert_eq!(g.stats().rollbacks, 6);
}
