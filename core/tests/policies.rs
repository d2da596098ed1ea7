//! Each policy does what the table in `policy.rs` promises, on hand-made clock scripts.

use idmint::{
    AtomicSnowflake, Config, Error, Layout, LocalSnowflake, OnBackwards, OnExhausted, SequenceStart,
};

const T0: u64 = 1_700_000_000_000;

fn small() -> Layout {
    // 2 sequence bits: 4 IDs per ms, so exhaustion is easy to reach.
    Layout::parse("time=41@1ms,worker=10,seq=2,epoch=2020-01-01").unwrap()
}

fn gen(cfg: Config) -> LocalSnowflake {
    LocalSnowflake::new(cfg).unwrap()
}

#[test]
fn increasing_and_decodable() {
    let l = Layout::preset("twitter").unwrap();
    let mut g = gen(Config::new(l).node(0b10101_01010));
    let mut last = 0;
    for i in 0..10_000u64 {
        let now = T0 + i / 100;
        let id = g.next_id_at(now).unwrap();
        assert!(id > last);
        last = id;
        let p = l.decompose(id).unwrap();
        assert_eq!(l.timestamp_ms(id), now);
        assert_eq!(p.node, 0b10101_01010);
        let sub: Vec<_> = l
            .split_node(p.node)
            .map(|(n, v)| (n.to_string(), v))
            .collect();
        assert_eq!(
            sub,
            vec![
                ("datacenter".to_string(), 0b10101),
                ("worker".to_string(), 0b01010)
            ]
        );
    }
}

#[test]
fn exhausted_wait_borrow_fail() {
    let mut w = gen(Config::new(small()).node(0));
    for _ in 0..4 {
        w.next_id_at(T0).unwrap();
    }
    assert_eq!(
        w.next_id_at(T0),
        Err(Error::WouldBlock { until_ms: T0 + 1 })
    );
    assert_eq!(w.stats().exhaustions, 1);
    assert_eq!(w.stats().wait_ms, 1);

    let mut f = gen(Config::new(small()).node(0).on_exhausted(OnExhausted::Fail));
    for _ in 0..4 {
        f.next_id_at(T0).unwrap();
    }
    assert_eq!(
        f.next_id_at(T0),
        Err(Error::SequenceExhausted { tick_ms: T0 })
    );

    let mut b = gen(Config::new(small())
        .node(0)
        .on_exhausted(OnExhausted::Borrow { max_ticks: 2 }));
    let l = small();
    let ids: Vec<u64> = (0..12).map(|_| b.next_id_at(T0).unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(l.timestamp_ms(ids[11]), T0 + 2);
    assert_eq!(
        b.next_id_at(T0),
        Err(Error::WouldBlock { until_ms: T0 + 1 })
    );
    assert_eq!(b.stats().max_ahead_ms, 2);
    // The clock catching up continues the borrowed tick, never reissuing it.
    let next = b.next_id_at(T0 + 1).unwrap();
    assert_eq!(l.timestamp_ms(next), T0 + 3);
}

#[test]
fn backwards_fail_and_wait() {
    let mut f = gen(Config::new(small()).node(0).on_backwards(OnBackwards::Fail));
    f.next_id_at(T0 + 10).unwrap();
    assert_eq!(
        f.next_id_at(T0),
        Err(Error::ClockBackwards {
            by_ms: 10,
            last_ms: T0 + 10
        })
    );
    assert_eq!(f.stats().rollbacks, 1);

    let mut w = gen(Config::new(small())
        .node(0)
        .on_backwards(OnBackwards::Wait { max_ms: 5 }));
    let a = w.next_id_at(T0 + 10).unwrap();
    assert_eq!(
        w.next_id_at(T0 + 6),
        Err(Error::WouldBlock { until_ms: T0 + 10 })
    );
    assert_eq!(
        w.next_id_at(T0),
        Err(Error::ClockBackwards {
            by_ms: 10,
            last_ms: T0 + 10
        })
    );
    let b = w.next_id_at(T0 + 10).unwrap();
    assert!(b > a);
}

#[test]
fn backwards_logical_keeps_increasing_within_bound() {
    let l = small();
    let mut g = gen(Config::new(l)
        .node(0)
        .on_backwards(OnBackwards::Logical { max_ms: 20 }));
    let mut last = g.next_id_at(T0 + 10).unwrap();
    // Clock 5 ms behind: 40 IDs need 10 ticks, borrowed up to 20 ms ahead of the clock.
    for _ in 0..40 {
        let id = g.next_id_at(T0 + 5).unwrap();
        assert!(id > last);
        last = id;
    }
    assert_eq!(l.timestamp_ms(last), T0 + 20);
    assert!(g.stats().max_ahead_ms >= 14);
    assert!(matches!(
        g.next_id_at(T0 - 100),
        Err(Error::ClockBackwards { .. })
    ));
}

#[test]
fn rollback_counter_bumps_and_stays_unique() {
    let l = Layout::parse("time=41@1ms,rollback=1,worker=9,seq=2,epoch=2020-01-01").unwrap();
    let mut g = gen(Config::new(l)
        .node(0)
        .on_backwards(OnBackwards::RollbackCounter));
    let mut seen = std::collections::HashSet::new();
    for now in T0..T0 + 5 {
        for _ in 0..4 {
            assert!(seen.insert(g.next_id_at(now).unwrap()));
        }
    }
    // Step back 3 ms: the counter bumps and the earlier ticks are reissued under counter 1.
    let id = g.next_id_at(T0 + 1).unwrap();
    assert!(seen.insert(id));
    assert_eq!(l.decompose(id).unwrap().rollback, 1);
    assert_eq!(l.timestamp_ms(id), T0 + 1);
    for now in T0 + 1..T0 + 8 {
        while let Ok(id) = g.next_id_at(now) {
            assert!(seen.insert(id), "duplicate {id}");
        }
    }
    // A second step back below the first epoch's high-water mark is refused...
    let mut h = gen(Config::new(l)
        .node(0)
        .on_backwards(OnBackwards::RollbackCounter));
    h.next_id_at(T0 + 10).unwrap();
    h.next_id_at(T0 + 5).unwrap();
    assert!(matches!(
        h.next_id_at(T0 + 2),
        Err(Error::ClockBackwards { .. })
    ));
    // ...and so is any step back to or below that mark (tick 10 under counter 0 is taken)...
    h.next_id_at(T0 + 20).unwrap();
    assert!(matches!(
        h.next_id_at(T0 + 10),
        Err(Error::ClockBackwards { .. })
    ));
    // ...but a step back that stays above it is bridged with the next counter value.
    let id = h.next_id_at(T0 + 15).unwrap();
    assert_eq!(l.decompose(id).unwrap().rollback, 0);
    assert!(Config::new(small())
        .node(0)
        .on_backwards(OnBackwards::RollbackCounter)
        .max_rollback_ticks()
        .is_none());
    assert!(LocalSnowflake::new(
        Config::new(small())
            .node(0)
            .on_backwards(OnBackwards::RollbackCounter)
    )
    .is_err());
}

#[test]
fn ring_continues_each_ticks_sequence() {
    let l = small();
    let mut g = gen(Config::new(l)
        .node(0)
        .on_backwards(OnBackwards::Ring { ticks: 8 }));
    let a = g.next_id_at(T0).unwrap();
    let b = g.next_id_at(T0 + 3).unwrap();
    // Back to T0: continues T0's sequence.
    let c = g.next_id_at(T0).unwrap();
    assert_eq!(l.decompose(c).unwrap().sequence, 1);
    assert_eq!(l.timestamp_ms(c), T0);
    assert!(c != a && c != b);
    // Back beyond the ring: refused.
    g.next_id_at(T0 + 20).unwrap();
    assert!(matches!(
        g.next_id_at(T0 + 12),
        Err(Error::ClockBackwards { .. })
    ));
    assert!(g.next_id_at(T0 + 13).is_ok());
    // Exhausted slot waits for the next tick.
    while g.next_id_at(T0 + 13).is_ok() {}
    assert_eq!(
        g.next_id_at(T0 + 13),
        Err(Error::WouldBlock { until_ms: T0 + 14 })
    );
    assert!(LocalSnowflake::new(
        Config::new(l)
            .node(0)
            .on_backwards(OnBackwards::Ring { ticks: 8 })
            .on_exhausted(OnExhausted::Borrow { max_ticks: 1 })
    )
    .is_err());
}

#[test]
fn sequence_starts() {
    let l = small();
    let mut v = gen(Config::new(l)
        .node(0)
        .sequence_start(SequenceStart::Vibrate { max_offset: 1 }));
    let seqs: Vec<u64> = (0..4)
        .map(|i| {
            l.decompose(v.next_id_at(T0 + 2 * i).unwrap())
                .unwrap()
                .sequence
        })
        .collect();
    assert_eq!(seqs, vec![0, 1, 0, 1]);

    let l12 = Layout::preset("twitter").unwrap();
    let mut r = gen(Config::new(l12)
        .node(0)
        .sequence_start(SequenceStart::Random)
        .seed(7));
    let starts: Vec<u64> = (0..64)
        .map(|i| {
            l12.decompose(r.next_id_at(T0 + i).unwrap())
                .unwrap()
                .sequence
        })
        .collect();
    assert!(starts.iter().all(|&s| s < 2048));
    assert!(
        starts
            .iter()
            .collect::<std::collections::HashSet<_>>()
            .len()
            > 32
    );
    // Same seed, same starts: replays are exact.
    let mut r2 = gen(Config::new(l12)
        .node(0)
        .sequence_start(SequenceStart::Random)
        .seed(7));
    let again: Vec<u64> = (0..64)
        .map(|i| {
            l12.decompose(r2.next_id_at(T0 + i).unwrap())
                .unwrap()
                .sequence
        })
        .collect();
    assert_eq!(starts, again);
}

#[test]
fn fence_blocks_reissue_after_restart() {
    let l = small();
    let mut first = gen(Config::new(l).node(1));
    let last = (0..4)
        .map(|_| first.next_id_at(T0 + 50).unwrap())
        .max()
        .unwrap();
    // "Restart" with the clock set back 30 ms: the fence keeps it from reissuing.
    let mut again = gen(Config::new(l)
        .node(1)
        .fence_ms(T0 + 50)
        .on_backwards(OnBackwards::Fail));
    assert!(matches!(
        again.next_id_at(T0 + 20),
        Err(Error::ClockBackwards { .. })
    ));
    assert!(matches!(
        again.next_id_at(T0 + 50),
        Err(Error::ClockBackwards { .. }) | Err(Error::WouldBlock { .. })
    ));
    assert!(again.next_id_at(T0 + 51).unwrap() > last);
    let mut logical = gen(Config::new(l)
        .node(1)
        .fence_ms(T0 + 50)
        .on_backwards(OnBackwards::Logical { max_ms: 100 }));
    assert!(logical.next_id_at(T0 + 20).unwrap() > last);
}

#[test]
fn expired_and_before_epoch() {
    let baidu = Layout::preset("baidu").unwrap();
    let mut g = gen(Config::new(baidu).node(0));
    let e = g.next_id_at(T0 + 400 * 86_400_000).unwrap_err();
    assert_eq!(
        e,
        Error::LayoutExpired {
            end_ms: 1_732_137_856_000
        }
    );
    assert!(e.to_string().contains("2024-11-20T21:24:16"));
    let mut t = gen(Config::new(Layout::preset("twitter").unwrap()).node(0));
    assert!(matches!(t.next_id_at(1000), Err(Error::BeforeEpoch { .. })));
    assert!(LocalSnowflake::new(Config::new(small()).node(1 << 10)).is_err());
}

/// A time the layout cannot hold is its own error under every policy and in both generators:
/// the ring's coarse-clock check once answered a step back (`by_ms: 0`) for it.
#[test]
fn expired_and_before_epoch_under_every_policy() {
    let twitter = Layout::preset("twitter").unwrap();
    let baidu = Layout::preset("baidu").unwrap();
    let policies = [
        OnBackwards::Fail,
        OnBackwards::Wait { max_ms: 10 },
        OnBackwards::Logical { max_ms: 10 },
        OnBackwards::RollbackCounter,
        OnBackwards::Ring { ticks: 8 },
    ];
    for policy in policies {
        let layout = if matches!(policy, OnBackwards::RollbackCounter) {
            Layout::parse("time=41@1ms,node=10,rollback=2,seq=10,epoch=2010-11-04").unwrap()
        } else {
            twitter
        };
        let cfg = Config::new(layout).node(0).on_backwards(policy);
        let before =
            |e: Error| assert!(matches!(e, Error::BeforeEpoch { .. }), "{policy:?}: {e:?}");
        before(gen(cfg).next_id_at(1000).unwrap_err());
        let atomic = AtomicSnowflake::new(cfg).unwrap();
        before(atomic.next_id_at(1000).unwrap_err());
        before(atomic.reserve_at(1000, 4).unwrap_err());
        // After IDs were issued, too.
        atomic.next_id_at(T0).unwrap();
        before(atomic.next_id_at(1000).unwrap_err());
        if matches!(policy, OnBackwards::RollbackCounter) {
            continue;
        }
        let cfg = Config::new(baidu).node(0).on_backwards(policy);
        let expired = |e: Error| {
            assert!(
                matches!(e, Error::LayoutExpired { .. }),
                "{policy:?}: {e:?}"
            )
        };
        expired(gen(cfg).next_id_at(T0 + 400 * 86_400_000).unwrap_err());
        expired(
            AtomicSnowflake::new(cfg)
                .unwrap()
                .next_id_at(T0 + 400 * 86_400_000)
                .unwrap_err(),
        );
    }
}

#[test]
fn reserve_runs_cover_ticks() {
    let l = Layout::preset("twitter").unwrap();
    let mut g = gen(Config::new(l)
        .node(0)
        .on_exhausted(OnExhausted::Borrow { max_ticks: 1000 }));
    let mut total = 0;
    let mut runs = 0;
    while total < 100_000 {
        let r = g.reserve_at(T0, 100_000 - total).unwrap();
        total += r.count;
        runs += 1;
    }
    assert_eq!(runs, 25); // 100,000 / 4,096 per tick, rounded up
    let sony = Layout::preset("sonyflake").unwrap();
    let mut s = gen(Config::new(sony).node(9));
    let r = s.reserve_at(T0, 10).unwrap();
    assert_eq!(r.stride, 1 << 16);
    let ids: Vec<u64> = r.iter().collect();
    assert_eq!(ids.len(), 10);
    for (i, id) in ids.iter().enumerate() {
        let p = sony.decompose(*id).unwrap();
        assert_eq!((p.sequence, p.node), (i as u64, 9));
    }
    let mut buf = vec![0u64; 5000];
    let a = AtomicSnowflake::new(Config::new(l).node(0)).unwrap();
    assert_eq!(a.next_ids_at(T0, &mut buf).unwrap(), 4096);
}

#[test]
fn fence_holds_for_rollback_counter_and_ring() {
    let l = Layout::parse("time=41@1ms,rollback=1,worker=9,seq=2,epoch=2020-01-01").unwrap();
    let cfg = Config::new(l)
        .node(4)
        .on_backwards(OnBackwards::RollbackCounter);
    // A previous process issued up to T0+5, including a rollback epoch at T0+3.
    let mut before = gen(cfg);
    let mut issued: Vec<u64> = (0..4).map(|_| before.next_id_at(T0 + 5).unwrap()).collect();
    issued.extend((0..4).map(|_| before.next_id_at(T0 + 3).unwrap()));
    // The restarted process, fenced at T0+5, must not open an epoch at or below the fence.
    let mut after = gen(cfg.fence_ms(T0 + 5));
    assert!(matches!(
        after.next_id_at(T0 + 3),
        Err(Error::ClockBackwards { .. })
    ));
    let next = after.next_id_at(T0 + 6).unwrap();
    assert!(!issued.contains(&next));
    let mut ring = gen(Config::new(small())
        .node(0)
        .fence_ms(T0 + 5)
        .on_backwards(OnBackwards::Ring { ticks: 8 }));
    assert_eq!(
        ring.next_id_at(T0 + 5),
        Err(Error::WouldBlock { until_ms: T0 + 6 })
    );
    assert!(matches!(
        ring.next_id_at(T0 + 3),
        Err(Error::ClockBackwards { .. })
    ));
    assert!(ring.next_id_at(T0 + 6).is_ok());
}

#[test]
fn unbounded_borrow_does_not_overflow() {
    let cfg = Config::new(small())
        .node(0)
        .on_exhausted(OnExhausted::Borrow {
            max_ticks: u64::MAX,
        });
    let mut g = gen(cfg);
    let ids: Vec<u64> = (0..100).map(|_| g.next_id_at(T0).unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(small().timestamp_ms(ids[99]), T0 + 24);
    // The clock catching up lands inside the borrowed range and carries on from it.
    assert!(g.next_id_at(T0 + 10).unwrap() > ids[99]);
}

#[test]
fn precise_clock_front_door() {
    use idmint::{Snowflake, SystemClock};
    let g = Snowflake::with_clock(
        Config::new(Layout::preset("twitter").unwrap()).node(0),
        SystemClock::precise(),
    )
    .unwrap();
    let mut last = 0;
    for _ in 0..10_000 {
        let id = g.next_id().unwrap();
        assert!(id > last);
        last = id;
    }
}
