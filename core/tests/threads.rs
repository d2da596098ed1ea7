//! Threads sharing one generator: zero duplicates, each thread's IDs strictly increasing.

use std::collections::HashSet;
use std::sync::Arc;

use idmint::{
    AtomicSnowflake, Config, Error, Layout, ManualClock, OnBackwards, OnExhausted, Snowflake,
};

fn check(per_thread: Vec<Vec<u64>>, total: usize) {
    let mut all = HashSet::with_capacity(total);
    for ids in &per_thread {
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "a thread saw IDs go down"
        );
        for &id in ids {
            assert!(all.insert(id), "duplicate {id}");
        }
    }
    assert_eq!(all.len(), total);
}

#[test]
fn two_threads_million_each_on_the_system_clock() {
    let g = Snowflake::new(Config::new(Layout::preset("twitter").unwrap()).node(3)).unwrap();
    let per = 1_000_000;
    let res: Vec<Vec<u64>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2)
            .map(|_| s.spawn(|| (0..per).map(|_| g.next_id().unwrap()).collect()))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    check(res, 2 * per);
}

#[test]
fn four_threads_bulk_and_single_mixed() {
    let g = Snowflake::new(Config::new(Layout::preset("leaf").unwrap()).node(9)).unwrap();
    let res: Vec<Vec<u64>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|i| {
                let g = &g;
                s.spawn(move || {
                    let mut v = Vec::new();
                    for _ in 0..50 {
                        if i % 2 == 0 {
                            let mut buf = vec![0; 1000];
                            g.next_ids(&mut buf).unwrap();
                            v.extend(buf);
                        } else {
                            v.extend((0..1000).map(|_| g.next_id().unwrap()));
                        }
                    }
                    v
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    check(res, 200_000);
}

#[test]
fn ring_policy_under_threads_with_a_clock_going_back() {
    let cfg = Config::new(Layout::parse("time=41@1ms,worker=10,seq=6,epoch=2020-01-01").unwrap())
        .node(0)
        .on_backwards(OnBackwards::Ring { ticks: 64 })
        .on_exhausted(OnExhausted::Wait);
    let g = AtomicSnowflake::new(cfg).unwrap();
    let t0 = 1_700_000_000_000u64;
    let res: Vec<Vec<u64>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let g = &g;
                s.spawn(move || {
                    let mut v = Vec::new();
                    // Both threads walk the clock forward 100 ms, back 30, forward again.
                    for now in (t0..t0 + 100).chain(t0 + 70..t0 + 200) {
                        while let Ok(id) = g.next_id_at(now) {
                            v.push(id);
                            if v.len() % 7 == 0 {
                                break;
                            }
                        }
                    }
                    v
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut all = HashSet::new();
    for ids in res {
        for id in ids {
            assert!(all.insert(id), "duplicate {id}");
        }
    }
}

#[test]
fn manual_clock_waits_instead_of_failing() {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let cfg =
        Config::new(Layout::parse("time=41@1ms,worker=10,seq=2,epoch=2020-01-01").unwrap()).node(0);
    let g = Snowflake::with_clock(cfg, clock.clone()).unwrap();
    let ids: Vec<u64> = (0..12).map(|_| g.next_id().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    // 12 IDs at 4 per ms: the clock was waited forward 2 ms.
    assert_eq!(clock.now_ms(), 1_700_000_000_002);
    assert_eq!(
        g.try_next_id(),
        Err(Error::WouldBlock {
            until_ms: 1_700_000_000_003
        })
    );
    // A short step back is waited out (default policy wait:1000)...
    clock.set(1_700_000_000_000);
    let next = g.next_id().unwrap();
    assert!(next > ids[11]);
    // ...a long one is an error.
    clock.set(1_699_999_000_000);
    assert!(matches!(g.next_id(), Err(Error::ClockBackwards { .. })));
    assert!(g.stats().rollbacks >= 1);
}

#[test]
fn expired_layout_refuses_at_construction() {
    let e = Snowflake::new(Config::new(Layout::preset("baidu").unwrap()).node(0)).unwrap_err();
    assert!(matches!(
        e,
        Error::LayoutExpired {
            end_ms: 1_732_137_856_000
        }
    ));
    assert!(e.to_string().contains("2024-11-20"), "{e}");
    let future = Layout::parse("time=41@1ms,worker=10,seq=12,epoch=2999-01-01").unwrap();
    assert!(matches!(
        Snowflake::new(Config::new(future).node(0)),
        Err(Error::BeforeEpoch { .. })
    ));
}

use idmint::Clock;
