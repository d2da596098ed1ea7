//! The segment double buffer: unit cases for each rule, and property tests that drive a buffer
//! with random sequences of next / take_into / supply / fail / clock moves and compare it with
//! a small reference model (which value, when a fetch is asked, what it asks for).

use std::collections::{HashSet, VecDeque};

use idmint::obfuscate::Obfuscator;
use idmint::segment::{
    Batch, Fetch, Range, SegmentBuffer, SegmentConfig, Segments, Stall, Take, DEFAULT_FAST_MS,
    DEFAULT_SLOW_MS,
};
use idmint::{Error, ErrorKind};
use proptest::prelude::*;

const MIN: u64 = 60_000;

fn r(start: u64, end: u64) -> Range {
    Range { start, end }
}

/// Takes one ID, failing the test on anything else (fetch requests are returned).
fn id(buf: &mut SegmentBuffer, now: u64) -> (u64, Option<Fetch>) {
    match buf.next(now).unwrap() {
        Take::Id(v) => (v, None),
        Take::IdAndFetch(v, f) => (v, Some(f)),
        other => panic!("expected an ID, got {other:?}"),
    }
}

fn first_fetch(buf: &mut SegmentBuffer, now: u64) -> Fetch {
    match buf.next(now).unwrap() {
        Take::Fetch(f) => f,
        other => panic!("expected a fetch request, got {other:?}"),
    }
}

#[test]
fn config_validation() {
    let bad = [
        SegmentConfig::new().step_bounds(0, 10).step(0),
        SegmentConfig::new().step_bounds(10, 5),
        SegmentConfig::new().step(100).step_bounds(200, 300),
        SegmentConfig::new().refill_at_percent(101),
        SegmentConfig::new().adapt_window(10, 5),
        SegmentConfig::new().retry_backoff(10, 5),
        SegmentConfig::new().fixed_step(10).gaps(10, 1),
    ];
    for cfg in bad {
        assert_eq!(
            cfg.validate().unwrap_err().kind(),
            ErrorKind::InvalidConfig,
            "{cfg:?}"
        );
        assert!(SegmentBuffer::new(cfg).is_err());
        assert!(Segments::new(cfg).is_err());
    }
    let ok = SegmentConfig::new();
    ok.validate().unwrap();
    assert_eq!(ok.initial_step(), 1000);
    assert_eq!((ok.min_step(), ok.max_step()), (1000, 1_000_000));
    assert_eq!(ok.refill_percent(), 10);
    assert_eq!(ok.adapt_window_ms(), (DEFAULT_FAST_MS, DEFAULT_SLOW_MS));
    let s = SegmentConfig::new().step(5);
    assert_eq!(
        (s.initial_step(), s.min_step(), s.max_step()),
        (5, 5, 1_000_000)
    );
    let s = SegmentConfig::new().step(2_000_000);
    assert_eq!(s.max_step(), 2_000_000);
    s.validate().unwrap();
    SegmentConfig::new()
        .fixed_step(10)
        .gaps(9, 1)
        .validate()
        .unwrap();
    SegmentConfig::new()
        .refill_at_percent(0)
        .validate()
        .unwrap();
    SegmentConfig::new()
        .refill_at_percent(100)
        .validate()
        .unwrap();
}

#[test]
fn leaf_threshold_asks_at_ten_percent() {
    let mut buf = SegmentBuffer::new(SegmentConfig::new()).unwrap();
    let f = first_fetch(&mut buf, 0);
    assert_eq!(f.step(), 1000);
    assert!(buf.fetching());
    assert_eq!(buf.next(0).unwrap(), Take::Stall(Stall::InFlight));
    buf.supply(f, r(1, 1001), 0).unwrap();
    for want in 1..100 {
        assert_eq!(buf.next(0).unwrap(), Take::Id(want));
    }
    // The 100th value uses 10% of the range.
    let (v, f) = id(&mut buf, 0);
    assert_eq!(v, 100);
    let f = f.expect("fetch at 10%");
    assert_eq!(
        f.step(),
        2000,
        "asked right after the first: the step doubles"
    );
    // No second request while one is in flight.
    assert_eq!(buf.next(0).unwrap(), Take::Id(101));
    buf.supply(f, r(1001, 2001), 0).unwrap();
    assert_eq!(buf.buffered(), 900 + 1000 - 1);
    // The standby is there: nothing is asked until it becomes current and is 10% used.
    let mut asked = None;
    for _ in 0..1000 {
        let (v, f) = id(&mut buf, 0);
        if let Some(f) = f {
            asked = Some((v, f));
            break;
        }
    }
    // The store returned only 1000 of the 2000 values asked: 10% of that range is 100 values.
    let (v, f) = asked.unwrap();
    assert_eq!(v, 1100);
    assert_eq!(f.step(), 4000);
}

#[test]
fn quiet_fast_path_stops_where_a_decision_is_needed() {
    let mut buf =
        SegmentBuffer::new(SegmentConfig::new().fixed_step(100).refill_at_percent(50)).unwrap();
    assert_eq!(buf.next_if_quiet(), None, "empty: a fetch is needed");
    let f = first_fetch(&mut buf, 0);
    assert_eq!(buf.next_if_quiet(), None, "still empty");
    buf.supply(f, r(0, 100), 0).unwrap();
    let quiet: Vec<u64> = std::iter::from_fn(|| buf.next_if_quiet()).collect();
    assert_eq!(quiet, (0..49).collect::<Vec<_>>());
    // Serving 49 reaches the mark: only next() may do that, and it asks for the next range.
    let (v, f) = id(&mut buf, 0);
    assert_eq!(v, 49);
    let f = f.expect("fetch at 50%");
    // With the fetch in flight nothing is left to decide until the end of the range.
    let quiet: Vec<u64> = std::iter::from_fn(|| buf.next_if_quiet()).collect();
    assert_eq!(quiet, (50..100).collect::<Vec<_>>());
    // The current range is used up, so the new one becomes current at once.
    buf.supply(f, r(100, 200), 0).unwrap();
    assert_eq!(buf.next_if_quiet(), Some(100));
    for _ in 101..149 {
        assert!(buf.next_if_quiet().is_some());
    }
    assert_eq!(buf.next_if_quiet(), None, "the mark again");
    let (v, f) = id(&mut buf, 0);
    assert_eq!(v, 149);
    // A standby waiting: the fast path stops at the end of the current range.
    buf.supply(f.unwrap(), r(300, 400), 0).unwrap();
    let quiet: Vec<u64> = std::iter::from_fn(|| buf.next_if_quiet()).collect();
    assert_eq!(quiet, (150..200).collect::<Vec<_>>());
    assert_eq!(id(&mut buf, 0).0, 300, "promotion goes through next()");
    // Gaps or obfuscation: never quiet.
    let mut gappy = SegmentBuffer::new(SegmentConfig::new().fixed_step(100).gaps(3, 1)).unwrap();
    gappy.resume(&[r(0, 100)]).unwrap();
    assert_eq!(gappy.next_if_quiet(), None);
    assert!(gappy.quiet_range().is_empty());
}

#[test]
fn consumed_quiet_values_are_a_prefix_of_the_quiet_run_or_refused() {
    let mut buf =
        SegmentBuffer::new(SegmentConfig::new().fixed_step(100).refill_at_percent(50)).unwrap();
    assert!(buf.quiet_range().is_empty(), "empty buffer");
    let f = first_fetch(&mut buf, 0);
    buf.supply(f, r(0, 100), 0).unwrap();
    assert_eq!(buf.quiet_range(), r(0, 49));
    // Not at the cursor, past the quiet run: refused, nothing changes.
    for bad in [r(1, 5), r(0, 50), r(40, 60)] {
        assert_eq!(
            buf.consume_quiet(bad).unwrap_err().kind(),
            ErrorKind::InvalidConfig,
            "{bad:?}"
        );
    }
    buf.consume_quiet(r(7, 7)).unwrap(); // empty: accepted anywhere
    buf.consume_quiet(r(0, 10)).unwrap();
    assert_eq!(buf.quiet_range(), r(10, 49));
    buf.consume_quiet(r(10, 49)).unwrap();
    assert!(buf.quiet_range().is_empty(), "the mark: next() decides");
    let (v, f) = id(&mut buf, 0);
    assert_eq!(v, 49);
    assert!(f.is_some());
    assert_eq!(buf.quiet_range(), r(50, 100), "in flight: up to the end");
    assert_eq!(buf.buffered(), 50);
}

#[test]
fn refill_edges_zero_and_hundred_percent() {
    // 0%: ask as soon as a range becomes current.
    let mut buf =
        SegmentBuffer::new(SegmentConfig::new().fixed_step(4).refill_at_percent(0)).unwrap();
    let f = first_fetch(&mut buf, 0);
    buf.supply(f, r(0, 4), 0).unwrap();
    let (v, f) = id(&mut buf, 0);
    assert_eq!(v, 0);
    assert!(f.is_some());
    // 100%: only when the range is used up.
    let mut buf =
        SegmentBuffer::new(SegmentConfig::new().fixed_step(4).refill_at_percent(100)).unwrap();
    let f = first_fetch(&mut buf, 0);
    buf.supply(f, r(0, 4), 0).unwrap();
    for want in 0..3 {
        assert_eq!(buf.next(0).unwrap(), Take::Id(want));
    }
    let (v, f) = id(&mut buf, 0);
    assert_eq!(v, 3);
    let f = f.expect("asked with the last value");
    assert_eq!(buf.next(0).unwrap(), Take::Stall(Stall::InFlight));
    buf.supply(f, r(10, 14), 0).unwrap();
    assert_eq!(buf.next(0).unwrap(), Take::Id(10));
}

/// Uses up the current range (and any standby) until a fetch is asked; returns it.
fn run_to_fetch(buf: &mut SegmentBuffer, now: u64) -> Fetch {
    loop {
        match buf.next(now).unwrap() {
            Take::Id(_) => {}
            Take::IdAndFetch(_, f) | Take::Fetch(f) => return f,
            Take::Stall(s) => panic!("stalled: {s:?}"),
        }
    }
}

#[test]
fn step_adapts_within_bounds() {
    let cfg = SegmentConfig::new()
        .step(100)
        .step_bounds(100, 800)
        .refill_at_percent(100)
        .adapt_window(15 * MIN, 30 * MIN);
    let mut buf = SegmentBuffer::new(cfg).unwrap();
    let mut next = 0u64;
    let mut supply = |buf: &mut SegmentBuffer, f: Fetch, now: u64| {
        let step = f.step();
        buf.supply(f, r(next, next + step), now).unwrap();
        next += step;
        step
    };
    let mut t = 0;
    let f = first_fetch(&mut buf, t);
    assert_eq!(supply(&mut buf, f, t), 100, "first fetch: initial step");
    // Ranges lasting 1 minute: the step doubles each time, up to the bound.
    let mut steps = vec![];
    for _ in 0..5 {
        t += MIN;
        let f = run_to_fetch(&mut buf, t);
        steps.push(supply(&mut buf, f, t));
        assert_eq!(buf.step(), *steps.last().unwrap());
    }
    assert_eq!(steps, [200, 400, 800, 800, 800]);
    // Between the windows: unchanged.
    t += 20 * MIN;
    let f = run_to_fetch(&mut buf, t);
    assert_eq!(supply(&mut buf, f, t), 800);
    // Ranges lasting an hour: halves down to the bound.
    let mut steps = vec![];
    for _ in 0..5 {
        t += 60 * MIN;
        let f = run_to_fetch(&mut buf, t);
        steps.push(supply(&mut buf, f, t));
    }
    assert_eq!(steps, [400, 200, 100, 100, 100]);
}

#[test]
fn failed_fetches_back_off_and_do_not_compound_the_step() {
    let cfg = SegmentConfig::new()
        .step(10)
        .step_bounds(10, 1000)
        .refill_at_percent(100)
        .retry_backoff(10, 35);
    let mut buf = SegmentBuffer::new(cfg).unwrap();
    let f = first_fetch(&mut buf, 0);
    buf.supply(f, r(0, 10), 0).unwrap();
    let mut t = 1000;
    let f = run_to_fetch(&mut buf, t);
    assert_eq!(f.step(), 20, "fast: doubled");
    // Fail repeatedly: delays 10, 20, 35 (capped), 35.
    let mut f = f;
    for delay in [10u64, 20, 35, 35] {
        buf.fail(f, t).unwrap();
        assert_eq!(
            buf.next(t).unwrap(),
            Take::Stall(Stall::RetryAt {
                until_ms: t + delay
            })
        );
        assert_eq!(
            buf.next(t + delay - 1).unwrap(),
            Take::Stall(Stall::RetryAt {
                until_ms: t + delay
            })
        );
        t += delay;
        f = first_fetch(&mut buf, t);
        assert_eq!(
            f.step(),
            20,
            "retries ask the same step, not a compounded one"
        );
    }
    buf.supply(f, r(10, 30), t).unwrap();
    assert_eq!(buf.step(), 20);
    // Success reset the backoff: the next failure waits the first delay again.
    let f = run_to_fetch(&mut buf, t);
    buf.fail(f, t).unwrap();
    assert_eq!(
        buf.next(t).unwrap(),
        Take::Stall(Stall::RetryAt { until_ms: t + 10 })
    );
}

#[test]
fn retry_window_holds_back_prefetch_but_not_serving() {
    let cfg = SegmentConfig::new()
        .fixed_step(10)
        .refill_at_percent(10)
        .retry_backoff(100, 100);
    let mut buf = SegmentBuffer::new(cfg).unwrap();
    let f = first_fetch(&mut buf, 0);
    buf.supply(f, r(0, 10), 0).unwrap();
    let (_, f) = id(&mut buf, 0);
    buf.fail(f.unwrap(), 0).unwrap();
    assert_eq!(buf.next(50).unwrap(), Take::Id(1), "serves without asking");
    let (v, f) = id(&mut buf, 100);
    assert_eq!(v, 2);
    assert!(f.is_some(), "asks again once the window has passed");
}

#[test]
fn bad_ranges_and_foreign_fetches_are_refused() {
    let cfg = SegmentConfig::new().fixed_step(10);
    let mut a = SegmentBuffer::for_key(cfg, "a").unwrap();
    let mut b = SegmentBuffer::for_key(cfg, "b").unwrap();
    let fa = first_fetch(&mut a, 0);
    let fb = first_fetch(&mut b, 0);
    // b's token does not settle a's fetch, and a stays in flight.
    assert_eq!(
        a.supply(fb, r(0, 10), 0).unwrap_err().kind(),
        ErrorKind::InvalidConfig
    );
    assert!(a.fetching());
    // An empty range counts as a failed fetch.
    assert!(a.supply(fa, r(5, 5), 0).is_err());
    assert!(!a.fetching());
    assert!(matches!(
        a.next(0).unwrap(),
        Take::Stall(Stall::RetryAt { .. })
    ));
    let f = first_fetch(&mut a, 1000);
    a.supply(f, r(100, 110), 1000).unwrap();
    let f = run_to_fetch(&mut a, 1000);
    // A range below one already accepted: refused, nothing of it served.
    assert_eq!(
        a.supply(f, r(105, 115), 1000),
        Err(Error::InvalidConfig {
            reason: "the segment store returned a range below one it handed out before"
        })
    );
    // After the retry delay the next answer asks again; the refused range served nothing.
    let f = loop {
        match a.next(5000).unwrap() {
            Take::Id(v) => assert!((100..110).contains(&v)),
            Take::IdAndFetch(v, f) => {
                assert!((100..110).contains(&v));
                break f;
            }
            Take::Fetch(f) => break f,
            Take::Stall(s) => panic!("{s:?}"),
        }
    };
    while let Take::Id(v) = a.next(5000).unwrap() {
        assert!((100..110).contains(&v));
    }
    a.supply(f, r(110, 120), 5000).unwrap();
    assert_eq!(id(&mut a, 5000).0, 110);
}

#[test]
fn drain_and_resume() {
    let cfg = SegmentConfig::new().fixed_step(10).refill_at_percent(50);
    let mut buf = SegmentBuffer::new(cfg).unwrap();
    let f = first_fetch(&mut buf, 0);
    buf.supply(f, r(0, 10), 0).unwrap();
    for want in 0..4 {
        assert_eq!(buf.next(0).unwrap(), Take::Id(want));
    }
    let (_, f) = id(&mut buf, 0);
    buf.supply(f.unwrap(), r(20, 30), 0).unwrap();
    let rem = buf.remainder();
    assert_eq!(rem.ranges(), [r(5, 10), r(20, 30)]);
    assert_eq!(rem.values(), 15);
    assert_eq!(buf.drain(), rem);
    assert!(buf.remainder().is_empty());
    assert_eq!(buf.buffered(), 0);
    assert!(matches!(buf.next(0).unwrap(), Take::Fetch(_)));

    // A fresh buffer resumes the remainder and serves it first.
    let mut again = SegmentBuffer::new(cfg).unwrap();
    again.resume(rem.ranges()).unwrap();
    assert_eq!(again.remainder(), rem);
    let mut got = vec![];
    let mut asked = vec![];
    for _ in 0..15 {
        match again.next(0).unwrap() {
            Take::Id(v) => got.push(v),
            Take::IdAndFetch(v, f) => {
                got.push(v);
                asked.push(f);
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(got, [5, 6, 7, 8, 9, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]);
    // The standby became current; half of it used: the next range is asked.
    assert_eq!(asked.len(), 1);
    assert_eq!(again.next(0).unwrap(), Take::Stall(Stall::InFlight));
    // Resume refuses a busy buffer, unordered ranges, or more than two ranges.
    assert!(again.resume(&[r(40, 50)]).is_err(), "fetch in flight");
    let mut fresh = SegmentBuffer::new(cfg).unwrap();
    assert!(fresh.resume(&[r(20, 30), r(5, 10)]).is_err());
    assert!(fresh.resume(&[r(0, 1), r(2, 3), r(4, 5)]).is_err());
    fresh.resume(&[r(7, 7), r(8, 9)]).unwrap();
    let (v, f) = id(&mut fresh, 0);
    assert_eq!(v, 8);
    assert!(f.is_some(), "one value: used up at once");
    // A store range below the resumed ones is refused.
    let f = f.unwrap();
    assert!(fresh.supply(f, r(3, 6), 0).is_err());
}

#[test]
fn gaps_skip_values_deterministically() {
    let cfg = SegmentConfig::new().fixed_step(1000).gaps(9, 42);
    let run = |cfg: SegmentConfig, key: &str| {
        let mut buf = SegmentBuffer::for_key(cfg, key).unwrap();
        let mut next = 0u64;
        let mut out = vec![];
        while out.len() < 2000 {
            match buf.next(0).unwrap() {
                Take::Id(v) => out.push(v),
                Take::IdAndFetch(v, f) => {
                    out.push(v);
                    buf.supply(f, r(next, next + 1000), 0).unwrap();
                    next += 2000; // leave holes between ranges
                }
                Take::Fetch(f) => {
                    buf.supply(f, r(next, next + 1000), 0).unwrap();
                    next += 2000;
                }
                Take::Stall(s) => panic!("{s:?}"),
            }
        }
        out
    };
    let a = run(cfg, "k");
    assert_eq!(a, run(cfg, "k"), "same seed and key: same IDs");
    assert_ne!(a, run(cfg, "other"));
    assert_ne!(
        a,
        run(SegmentConfig::new().fixed_step(1000).gaps(9, 43), "k")
    );
    assert!(a.windows(2).all(|w| w[0] < w[1]));
    assert!(
        a.iter().all(|v| v % 2000 < 1000),
        "inside the supplied ranges"
    );
    let steps: Vec<u64> = a
        .windows(2)
        .filter(|w| w[1] / 2000 == w[0] / 2000)
        .map(|w| w[1] - w[0])
        .collect();
    assert!(steps.iter().all(|d| (1..=10).contains(d)));
    let mean = steps.iter().sum::<u64>() as f64 / steps.len() as f64;
    assert!((5.0..6.0).contains(&mean), "mean distance {mean}");
    assert!(steps.contains(&1) && steps.contains(&10));
}

#[test]
fn obfuscated_ids_are_unique_and_decode_to_the_sequence() {
    let ob = Obfuscator::new(0xfeed_beef, 20).unwrap();
    let cfg = SegmentConfig::new().fixed_step(500).obfuscate(ob);
    let mut buf = SegmentBuffer::new(cfg).unwrap();
    let f = first_fetch(&mut buf, 0);
    buf.supply(f, r(1, 501), 0).unwrap();
    let mut out = vec![0u64; 300];
    let batch = buf.take_into(&mut out, 0).unwrap();
    assert_eq!(batch.filled, 300);
    assert!(batch.fetch.is_some(), "10% used");
    let single = match buf.next(0).unwrap() {
        Take::Id(v) => v,
        other => panic!("{other:?}"),
    };
    out.push(single);
    let decoded: Vec<u64> = out.iter().map(|&v| ob.decode(v).unwrap()).collect();
    assert_eq!(decoded, (1..=301).collect::<Vec<_>>());
    assert!(
        out.windows(2).any(|w| w[0] > w[1]),
        "outputs look irregular"
    );

    // Values outside the obfuscator's domain are refused, nothing consumed.
    let mut buf = SegmentBuffer::new(cfg).unwrap();
    let f = first_fetch(&mut buf, 0);
    buf.supply(f, r((1 << 20) - 2, (1 << 20) + 498), 0).unwrap();
    let mut out = [0u64; 2];
    let batch = buf.take_into(&mut out, 0).unwrap();
    assert_eq!(batch.filled, 2);
    assert!(matches!(buf.next(0), Err(Error::OutOfRange { .. })));
    assert!(matches!(
        buf.take_into(&mut out, 0),
        Err(Error::OutOfRange { .. })
    ));
    assert_eq!(buf.remainder().ranges(), [r(1 << 20, (1 << 20) + 498)]);
    // A batch that runs into the end of the domain fails; what it wrote is consumed.
    let mut buf = SegmentBuffer::new(cfg).unwrap();
    buf.resume(&[r((1 << 20) - 2, (1 << 20) + 3)]).unwrap();
    let mut out = [0u64; 5];
    assert!(matches!(
        buf.take_into(&mut out, 0),
        Err(Error::OutOfRange { .. })
    ));
    assert_eq!(buf.remainder().ranges(), [r(1 << 20, (1 << 20) + 3)]);
}

#[test]
fn a_big_batch_asks_for_its_shortfall() {
    let cfg = SegmentConfig::new().step(1000).step_bounds(1000, 1_000_000);
    let mut buf = SegmentBuffer::new(cfg).unwrap();
    let mut out = vec![0u64; 100_000];
    let b = buf.take_into(&mut out, 0).unwrap();
    assert_eq!(b.filled, 0);
    assert_eq!(b.stall, Some(Stall::InFlight));
    let f = b.fetch.unwrap();
    assert_eq!(f.step(), 100_000);
    buf.supply(f, r(1, 100_001), 0).unwrap();
    assert_eq!(buf.step(), 1000, "the boost is not adopted as the step");
    let b = buf.take_into(&mut out, 0).unwrap();
    assert_eq!(b.filled, 100_000);
    assert_eq!(b.stall, None);
    assert!(out.iter().copied().eq(1..=100_000));
    let f = b.fetch.expect("range used up");
    assert_eq!(f.step(), 2000, "fast: doubled from the adopted step");
    // The boost is capped by the upper bound.
    let mut small = SegmentBuffer::new(SegmentConfig::new().fixed_step(10)).unwrap();
    let b = small.take_into(&mut out, 0).unwrap();
    assert_eq!(b.fetch.unwrap().step(), 10);
    // An empty output asks nothing of a fresh buffer beyond the usual due fetch.
    let b: Batch = small.take_into(&mut [], 0).unwrap();
    assert_eq!((b.filled, b.stall), (0, None));
}

#[test]
fn checkpoint_fences_recorded_values() {
    let cfg = SegmentConfig::new().fixed_step(10).refill_at_percent(50);
    let mut buf = SegmentBuffer::new(cfg).unwrap();
    let f = first_fetch(&mut buf, 0);
    buf.supply(f, r(0, 10), 0).unwrap();
    for _ in 0..4 {
        let _ = id(&mut buf, 0);
    }
    let (_, f) = id(&mut buf, 0);
    buf.supply(f.unwrap(), r(20, 30), 0).unwrap();
    // Unserved: 5..10, 20..30. Reserve 7: record 22..30, serve 5..10, 20, 21.
    let cp = buf.begin_checkpoint(7);
    assert_eq!(cp.remainder().ranges(), [r(22, 30)]);
    assert_eq!(cp.fence(), 22);
    assert_eq!(buf.fence(), Some(22));
    assert_eq!(buf.headroom(), 7);
    let mut got = vec![];
    let mut out = [0u64; 4];
    loop {
        let b = buf.take_into(&mut out, 0).unwrap();
        got.extend_from_slice(&out[..b.filled]);
        if let Some(s) = b.stall {
            assert_eq!(s, Stall::Fenced);
            break;
        }
    }
    assert_eq!(got, [5, 6, 7, 8, 9, 20, 21]);
    assert_eq!(buf.next(0).unwrap(), Take::Stall(Stall::Fenced));
    // A newer checkpoint with a smaller reserve: the fence stays as low as either record
    // until the newer one is durable.
    let cp2 = buf.begin_checkpoint(3);
    assert_eq!(cp2.remainder().ranges(), [r(25, 30)]);
    assert_eq!(buf.fence(), Some(22));
    assert_eq!(buf.next(0).unwrap(), Take::Stall(Stall::Fenced));
    buf.end_checkpoint(cp2);
    assert_eq!(buf.fence(), Some(25));
    for want in 22..25 {
        let (v, _) = id(&mut buf, 0);
        assert_eq!(v, want);
    }
    assert_eq!(buf.next(0).unwrap(), Take::Stall(Stall::Fenced));
    // Reserving more than is buffered records nothing and lifts the fence.
    let cp3 = buf.begin_checkpoint(100);
    assert!(cp3.remainder().is_empty());
    assert_eq!(cp3.fence(), u64::MAX);
    buf.end_checkpoint(cp3);
    assert_eq!(buf.fence(), None);
    let (v, _) = id(&mut buf, 0);
    assert_eq!(v, 25);
}

#[test]
fn unordered_ranges_for_interleaving_stores() {
    let cfg = SegmentConfig::new().fixed_step(10).ordered(false);
    assert!(!cfg.is_ordered() && SegmentConfig::new().is_ordered());
    let mut buf = SegmentBuffer::new(cfg).unwrap();
    let f = first_fetch(&mut buf, 0);
    buf.supply(f, r(100, 110), 0).unwrap();
    let (v, f) = id(&mut buf, 0);
    assert_eq!(v, 100);
    // A lower, disjoint range (another shard row) is accepted as the standby.
    buf.supply(f.unwrap(), r(0, 10), 0).unwrap();
    assert_eq!(buf.remainder().ranges(), [r(101, 110), r(0, 10)]);
    // A checkpoint keeps the reserve servable: 101..106 reserved, so only values at or above
    // 106 are recorded — the lower standby is left out, never fenced.
    let abandoned = buf.begin_checkpoint(5);
    assert_eq!(abandoned.remainder().ranges(), [r(106, 110)]);
    assert_eq!(buf.headroom(), 5);
    let mut got = vec![];
    let mut out = [0u64; 20];
    let b = buf.take_into(&mut out, 0).unwrap();
    got.extend_from_slice(&out[..b.filled]);
    assert_eq!(got, [101, 102, 103, 104, 105]);
    assert_eq!(b.stall, Some(Stall::Fenced));
    // Reserving the whole current range records nothing (the standby is below it).
    let cp2 = buf.begin_checkpoint(4);
    assert!(cp2.remainder().is_empty());
    buf.end_checkpoint(cp2);
    let b = buf.take_into(&mut out, 0).unwrap();
    assert_eq!(
        &out[..b.filled],
        [106, 107, 108, 109, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    );
    // Resume takes the remainder back in the order it was given, as long as it is disjoint.
    let mut again = SegmentBuffer::new(cfg).unwrap();
    again.resume(&[r(50, 52), r(10, 12)]).unwrap();
    assert!(SegmentBuffer::new(cfg)
        .unwrap()
        .resume(&[r(50, 52), r(51, 60)])
        .is_err());
    assert!(SegmentBuffer::new(cfg.ordered(true))
        .unwrap()
        .resume(&[r(50, 52), r(10, 12)])
        .is_err());
    let mut got = vec![];
    for _ in 0..4 {
        got.push(id(&mut again, 0).0);
    }
    assert_eq!(got, [50, 51, 10, 11]);
}

#[test]
fn segments_map_keeps_keys_apart() {
    let mut segs = Segments::new(SegmentConfig::new().fixed_step(5)).unwrap();
    assert!(segs.is_empty());
    let fa = match segs.next("a", 0).unwrap() {
        Take::Fetch(f) => f,
        other => panic!("{other:?}"),
    };
    let mut out = [0u64; 3];
    let fb = segs.take_into("b", &mut out, 0).unwrap().fetch.unwrap();
    // A key's fetch does not settle another key's.
    assert!(segs.supply("b", fa, r(0, 5), 0).is_err());
    assert!(segs.supply("zzz", fb, r(0, 5), 0).is_err(), "unknown key");
    assert_eq!(segs.next("b", 0).unwrap(), Take::Stall(Stall::InFlight));
    assert!(segs.get("b").unwrap().fetching());
    segs.resume("c", &[r(100, 103), r(200, 210)]).unwrap();
    assert_eq!(segs.next("c", 0).unwrap(), Take::Id(100));
    assert_eq!(segs.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
    assert_eq!(segs.len(), 3);
    let drained = segs.drain();
    assert_eq!(drained.len(), 1);
    assert_eq!(drained[0].0, "c");
    assert_eq!(drained[0].1.ranges(), [r(101, 103), r(200, 210)]);
    assert!(segs.buffer("c").remainder().is_empty());
    assert_eq!(segs.config().initial_step(), 5);
}

// ---------------------------------------------------------------------------------------
// Property tests against a reference model.

#[derive(Debug, Clone)]
enum Op {
    /// Move the clock forward.
    Advance(u64),
    Next,
    /// The clock-free fast path.
    Quiet,
    Batch(usize),
    /// Settle the fetch in flight (if any): store skips `skip` values, returns `len` of the
    /// asked step (1..=ask, clamped), or fails.
    Supply {
        skip: u64,
        len: u64,
    },
    Fail,
    /// Settle with a range below one already handed out (the buffer must refuse it).
    Stale,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => prop_oneof![0u64..5, 0u64..(40 * MIN)].prop_map(Op::Advance),
        10 => Just(Op::Next),
        5 => Just(Op::Quiet),
        3 => (0usize..40).prop_map(Op::Batch),
        4 => (0u64..4, 1u64..200).prop_map(|(skip, len)| Op::Supply { skip, len }),
        1 => Just(Op::Fail),
        1 => Just(Op::Stale),
    ]
}

fn config() -> impl Strategy<Value = SegmentConfig> {
    (
        1u64..20,
        0u64..4,
        0u8..=100,
        0u64..(20 * MIN),
        0u64..(20 * MIN),
        0u64..50,
        0u64..200,
        any::<bool>(),
    )
        .prop_map(|(min, extra, pct, fast, more, rmin, rmore, ordered)| {
            SegmentConfig::new()
                .step(min << (extra / 2))
                .step_bounds(min, min << extra)
                .refill_at_percent(pct)
                .adapt_window(fast, fast + more)
                .retry_backoff(rmin, rmin + rmore)
                .ordered(ordered)
        })
}

/// The rules of the module docs, written as plainly as possible.
struct Model {
    cfg: SegmentConfig,
    /// Current range (with how many of its values are used), then the standby.
    queue: VecDeque<(Range, u64)>,
    in_flight: Option<(u64, u64)>, // (adapted step, request time)
    step: u64,
    last_request: Option<u64>,
    failures: u32,
    retry_at: u64,
}

impl Model {
    fn new(cfg: SegmentConfig) -> Model {
        Model {
            cfg,
            queue: VecDeque::new(),
            in_flight: None,
            step: cfg.initial_step(),
            last_request: None,
            failures: 0,
            retry_at: 0,
        }
    }

    fn pop(&mut self) -> Option<u64> {
        loop {
            let (range, used) = self.queue.front_mut()?;
            if *used < range.len() {
                *used += 1;
                return Some(range.start + *used - 1);
            }
            if self.queue.len() == 1 {
                return None;
            }
            self.queue.pop_front();
        }
    }

    fn due(&self, now: u64) -> bool {
        let used_enough = match self.queue.front() {
            None => true,
            Some((range, used)) => {
                u128::from(*used) * 100
                    >= u128::from(range.len()) * u128::from(self.cfg.refill_percent())
            }
        };
        self.in_flight.is_none() && self.queue.len() <= 1 && used_enough && now >= self.retry_at
    }

    /// The step a request at `now` asks for (and records it as in flight).
    fn request(&mut self, now: u64, want: u64) -> u64 {
        let (fast, slow) = self.cfg.adapt_window_ms();
        let mut step = self.step;
        if let Some(prev) = self.last_request.filter(|&p| p <= now) {
            if now - prev < fast {
                step = (step * 2).min(self.cfg.max_step());
            } else if now - prev > slow {
                step = (step / 2).max(self.cfg.min_step());
            }
        }
        self.in_flight = Some((step, now));
        step.max(want.min(self.cfg.max_step()))
    }

    fn fail(&mut self, now: u64) {
        self.in_flight = None;
        self.failures += 1;
        let (lo, hi) = self.cfg.retry_backoff_ms();
        let mut delay = lo;
        for _ in 1..self.failures {
            delay = delay.saturating_mul(2).min(hi);
        }
        self.retry_at = now + delay.min(hi);
    }

    fn supply(&mut self, range: Range) {
        let (step, at) = self.in_flight.take().unwrap();
        self.step = step;
        self.last_request = Some(at);
        self.failures = 0;
        self.retry_at = 0;
        if let Some((cur, used)) = self.queue.front() {
            if *used == cur.len() && self.queue.len() == 1 {
                self.queue.pop_front();
            }
        }
        self.queue.push_back((range, 0));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Values come from supplied ranges, in increasing order, never twice; a fetch is asked
    /// exactly when the model says the threshold is crossed, with the model's step; steps stay
    /// within bounds; nothing is lost (served + remainder = supplied).
    #[test]
    fn buffer_matches_model(cfg in config(), ops in prop::collection::vec(op(), 1..300)) {
        let mut buf = SegmentBuffer::new(cfg).unwrap();
        let mut model = Model::new(cfg);
        let mut now = 1_700_000_000_000u64;
        let mut pending: Option<Fetch> = None;
        let mut store_next = 1u64;
        let mut supplied: Vec<Range> = vec![];
        let mut served: Vec<u64> = vec![];
        let check_fetch = |f: Option<Fetch>, model: &mut Model, now: u64, want: u64,
                               pending: &mut Option<Fetch>| -> Result<(), TestCaseError> {
            let expect = model.due(now);
            prop_assert_eq!(f.is_some(), expect, "fetch asked iff due");
            if let Some(f) = f {
                let ask = model.request(now, want);
                prop_assert_eq!(f.step(), ask);
                prop_assert!(f.step() >= cfg.min_step() && f.step() <= cfg.max_step());
                prop_assert!(pending.is_none());
                *pending = Some(f);
            }
            Ok(())
        };
        for op in ops {
            match op {
                Op::Advance(dt) => now += dt,
                Op::Next => {
                    let want = model.pop();
                    let take = buf.next(now).unwrap();
                    let (got, fetch) = match take {
                        Take::Id(v) => (Some(v), None),
                        Take::IdAndFetch(v, f) => (Some(v), Some(f)),
                        Take::Fetch(f) => (None, Some(f)),
                        Take::Stall(s) => {
                            match s {
                                Stall::InFlight => prop_assert!(model.in_flight.is_some()),
                                Stall::RetryAt { until_ms } => {
                                    prop_assert!(model.in_flight.is_none());
                                    prop_assert_eq!(until_ms, model.retry_at);
                                    prop_assert!(now < until_ms);
                                }
                                Stall::Fenced => prop_assert!(false, "no checkpoint was taken"),
                            }
                            (None, None)
                        }
                    };
                    prop_assert_eq!(got, want);
                    served.extend(got);
                    check_fetch(fetch, &mut model, now, 1, &mut pending)?;
                }
                Op::Quiet => {
                    if let Some(v) = buf.next_if_quiet() {
                        prop_assert_eq!(Some(v), model.pop());
                        // No fetch may become due at any time: the fast path decides nothing.
                        prop_assert!(!model.due(u64::MAX));
                        served.push(v);
                    }
                }
                Op::Batch(n) => {
                    let mut out = vec![0u64; n];
                    let b = buf.take_into(&mut out, now).unwrap();
                    let mut want = vec![];
                    while want.len() < n {
                        match model.pop() {
                            Some(v) => want.push(v),
                            None => break,
                        }
                    }
                    prop_assert_eq!(&out[..b.filled], &want[..]);
                    prop_assert_eq!(b.stall.is_some(), b.filled < n);
                    served.extend_from_slice(&out[..b.filled]);
                    check_fetch(b.fetch, &mut model, now, (n - b.filled) as u64, &mut pending)?;
                }
                Op::Supply { skip, len } => {
                    if let Some(f) = pending.take() {
                        let len = len.min(f.step()).max(1);
                        let range = Range { start: store_next + skip, end: store_next + skip + len };
                        store_next = range.end;
                        buf.supply(f, range, now).unwrap();
                        model.supply(range);
                        supplied.push(range);
                    }
                }
                Op::Fail => {
                    if let Some(f) = pending.take() {
                        buf.fail(f, now).unwrap();
                        model.fail(now);
                    }
                }
                Op::Stale => {
                    // Only an ordered buffer can tell; an unordered one trusts the store.
                    if let Some(f) = pending.take() {
                        if store_next > 1 && cfg.is_ordered() {
                            let range = Range { start: store_next - 1, end: store_next + 5 };
                            prop_assert!(buf.supply(f, range, now).is_err());
                            model.fail(now);
                        } else {
                            pending = Some(f);
                        }
                    }
                }
            }
            prop_assert_eq!(buf.fetching(), model.in_flight.is_some());
            prop_assert_eq!(buf.step(), model.step);
        }
        // Increasing (hence unique), and inside supplied ranges.
        prop_assert!(served.windows(2).all(|w| w[0] < w[1]));
        for v in &served {
            prop_assert!(supplied.iter().any(|r| r.start <= *v && *v < r.end));
        }
        // Nothing lost: served values and the remainder make up exactly what was supplied.
        let mut all: Vec<u64> = served.clone();
        for r in buf.remainder().ranges() {
            all.extend(r.start..r.end);
        }
        all.sort_unstable();
        let want: Vec<u64> = supplied.iter().flat_map(|r| r.start..r.end).collect();
        prop_assert_eq!(all, want);
    }

    /// With gaps, obfuscation and journal checkpoints: outputs are unique, decode to increasing
    /// values inside supplied ranges, never lie in a recorded checkpoint (durable or being
    /// written), and replay identically.
    #[test]
    fn gaps_obfuscation_and_checkpoints(
        seed in any::<u64>(),
        key in any::<u128>(),
        max_gap in 0u64..8,
        ordered in any::<bool>(),
        script in prop::collection::vec((0u8..6, 0u64..40), 1..300),
    ) {
        let ob = Obfuscator::new(key, 24).unwrap();
        let cfg = SegmentConfig::new()
            .step(8)
            .step_bounds(8, 64)
            .refill_at_percent(25)
            .gaps(max_gap, seed)
            .obfuscate(ob)
            .ordered(ordered);
        let run = || -> Result<(Vec<u64>, Vec<Range>), TestCaseError> {
            let mut buf = SegmentBuffer::for_key(cfg, "k").unwrap();
            let mut pending: Option<Fetch> = None;
            let mut store_next = 1u64;
            // Unordered: two interleaved rows of 64-value blocks (TDDL's sharded records).
            let mut rows = [0u64, 1u64];
            let mut supplied = vec![];
            let mut out = vec![];
            let mut durable: Vec<Range> = vec![];
            let mut writing: Option<idmint::segment::Checkpoint> = None;
            let mut now = 0u64;
            for &(kind, arg) in &script {
                now += arg;
                match kind {
                    0 | 1 => {
                        let mut tmp = vec![0u64; (arg % 7) as usize + 1];
                        let b = if kind == 0 {
                            match buf.next(now).unwrap() {
                                Take::Id(v) => { tmp[0] = v; Batch { filled: 1, fetch: None, stall: None } }
                                Take::IdAndFetch(v, f) => { tmp[0] = v; Batch { filled: 1, fetch: Some(f), stall: None } }
                                Take::Fetch(f) => Batch { filled: 0, fetch: Some(f), stall: Some(Stall::InFlight) },
                                Take::Stall(s) => Batch { filled: 0, fetch: None, stall: Some(s) },
                            }
                        } else {
                            buf.take_into(&mut tmp, now).unwrap()
                        };
                        out.extend_from_slice(&tmp[..b.filled]);
                        if let Some(f) = b.fetch {
                            prop_assert!(pending.is_none());
                            pending = Some(f);
                        }
                    }
                    2 => if let Some(f) = pending.take() {
                        let len = (arg % f.step()).max(1);
                        let range = if ordered {
                            let start = store_next + arg % 3;
                            store_next = start + len;
                            Range { start, end: start + len }
                        } else {
                            let row = &mut rows[(arg % 2) as usize];
                            let start = 1 + *row * 64;
                            *row += 2;
                            Range { start, end: start + len }
                        };
                        buf.supply(f, range, now).unwrap();
                        supplied.push(range);
                    },
                    3 => if let Some(f) = pending.take() {
                        buf.fail(f, now).unwrap();
                    },
                    4 => if writing.is_none() {
                        writing = Some(buf.begin_checkpoint(arg % 20));
                    },
                    _ => if let Some(cp) = writing.take() {
                        durable = cp.remainder().ranges().to_vec();
                        buf.end_checkpoint(cp);
                    },
                }
                // Nothing served may lie in a record that is durable or being written.
                let plain: Vec<u64> = out.iter().map(|&v| ob.decode(v).unwrap()).collect();
                let recorded = durable.iter().chain(writing.iter().flat_map(|c| c.remainder().ranges()));
                for r in recorded {
                    prop_assert!(!plain.iter().any(|v| r.start <= *v && *v < r.end));
                }
            }
            let plain: Vec<u64> = out.iter().map(|&v| ob.decode(v).unwrap()).collect();
            let range_of = |v: u64| supplied.iter().position(|r| r.start <= v && v < r.end);
            for v in &plain {
                prop_assert!(range_of(*v).is_some());
            }
            for w in plain.windows(2) {
                if ordered || range_of(w[0]) == range_of(w[1]) {
                    prop_assert!(w[0] < w[1]);
                }
            }
            let unique: HashSet<u64> = out.iter().copied().collect();
            prop_assert_eq!(unique.len(), out.len());
            Ok((out, supplied))
        };
        let first = run()?;
        prop_assert_eq!(run()?, first, "deterministic given the seed");
    }
}
