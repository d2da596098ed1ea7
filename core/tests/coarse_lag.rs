//! The std front door reads a coarse clock that may lag the true time by up to a stated lag.
//! A coarse reading lagging *more* than that (a kernel tick delayed on a busy VM) must not be
//! taken for a clock step back: before a policy acts on it (a rollback epoch, a ring slot of an
//! earlier tick, a logical run ahead) the precise clock must confirm it.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use idmint::{Clock, Config, Layout, OnBackwards, OnExhausted, Snowflake};

const T0: u64 = 1_700_000_000_000;

/// A clock whose coarse reading lags by 2 ms (stated lag: 4 ms), except for the next
/// `glitches` coarse readings, which lag by 10 ms.
struct Glitchy {
    now: AtomicU64,
    glitches: AtomicU64,
}

impl Glitchy {
    fn new() -> Glitchy {
        Glitchy {
            now: AtomicU64::new(T0 + 100),
            glitches: AtomicU64::new(0),
        }
    }
}

impl Clock for Glitchy {
    fn now_ms(&self) -> u64 {
        self.now.load(Relaxed)
    }
    fn coarse_ms(&self) -> u64 {
        let glitch = self
            .glitches
            .fetch_update(Relaxed, Relaxed, |g| g.checked_sub(1))
            .is_ok();
        self.now_ms() - if glitch { 10 } else { 2 }
    }
    fn coarse_lag_ms(&self) -> u64 {
        4
    }
    fn wait_until(&self, until_ms: u64) {
        self.now.fetch_max(until_ms, Relaxed);
    }
}

fn layout() -> Layout {
    Layout::parse("time=41@1ms,rollback=2,worker=8,seq=12,epoch=2020-01-01").unwrap()
}

fn gen(policy: OnBackwards) -> Snowflake<Glitchy> {
    let cfg = Config::new(layout())
        .node(3)
        .on_backwards(policy)
        .on_exhausted(OnExhausted::Wait);
    Snowflake::with_clock(cfg, Glitchy::new()).unwrap()
}

/// Plays a coarse reading that lags 10 ms (more than the stated 4) once per call path, with the
/// true clock standing still: every policy must mint at the true time, with no rollback counted
/// and (for `rollback_counter`) the rollback field untouched.
#[test]
fn coarse_reading_lagging_beyond_its_bound_is_confirmed_before_the_policy_acts() {
    let policies = [
        OnBackwards::Fail,
        OnBackwards::Wait { max_ms: 50 },
        OnBackwards::Logical { max_ms: 50 },
        OnBackwards::RollbackCounter,
        OnBackwards::Ring { ticks: 64 },
    ];
    for policy in policies {
        let g = gen(policy);
        let l = layout();
        let first = g.next_id().unwrap();
        assert_eq!(l.timestamp_ms(first), T0 + 98, "{policy}");
        // The precise clock's tick (2 ms past the coarse reading) is the last one issued.
        let precise = g.next_id_at(T0 + 100).unwrap();
        g.clock().glitches.store(1, Relaxed);
        let r = g.reserve(1).unwrap().first;
        g.clock().glitches.store(2, Relaxed);
        let one = g.next_id().unwrap();
        g.clock().glitches.store(1, Relaxed);
        let tried = g.try_next_id().unwrap();
        let mut batch = [0u64; 3];
        g.clock().glitches.store(3, Relaxed);
        g.next_ids(&mut batch).unwrap();
        let ids = [first, precise, r, one, tried, batch[0], batch[1], batch[2]];
        for id in ids {
            let p = l.decompose(id).unwrap();
            assert_eq!(p.rollback, 0, "{policy}: a rollback epoch was opened");
            assert!(
                l.timestamp_ms(id) >= T0 + 98 && l.timestamp_ms(id) <= T0 + 100,
                "{policy}: {id} carries {} instead of the clock's time",
                l.timestamp_ms(id)
            );
        }
        let mut sorted = ids.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len(), "{policy}: duplicate");
        assert_eq!(g.stats().rollbacks, 0, "{policy}: a rollback was counted");
    }
}

/// The rollback counter must still move on a real step back, which the precise clock confirms.
#[test]
fn a_step_back_confirmed_by_the_precise_clock_still_opens_a_rollback_epoch() {
    let g = gen(OnBackwards::RollbackCounter);
    let l = layout();
    let before = g.next_id_at(T0 + 100).unwrap();
    assert_eq!(l.timestamp_ms(before), T0 + 100);
    g.clock().now.store(T0 + 50, Relaxed);
    let after = g.next_id().unwrap();
    assert_eq!(l.decompose(after).unwrap().rollback, 1);
    // At the precise time: the coarse reading (2 ms earlier) only led to the confirmation.
    assert_eq!(l.timestamp_ms(after), T0 + 50);
    assert_eq!(g.stats().rollbacks, 1);
}
