//! A `ThreadSnowflake` writes its state with a plain store where a `Snowflake` swaps it: given
//! the same clock, the same calls must give exactly the same IDs, errors and counters, on every
//! policy, with the coarse clock lagging within its stated bound or beyond it, stepping back and
//! jumping ahead.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use idmint::{
    Clock, Config, Layout, OnBackwards, OnExhausted, Result, Run, Snowflake, ThreadSnowflake,
};
use proptest::prelude::*;

const T0: u64 = 1_700_000_000_000;

/// A clock set by the test: a precise reading and how far the coarse one lags it (the stated
/// lag is 4 ms; the test also plays more).
struct Scripted {
    now: AtomicU64,
    lag: AtomicU64,
}

impl Scripted {
    fn new() -> Scripted {
        Scripted {
            now: AtomicU64::new(T0),
            lag: AtomicU64::new(0),
        }
    }
}

impl Clock for Scripted {
    fn now_ms(&self) -> u64 {
        self.now.load(Relaxed)
    }
    fn coarse_ms(&self) -> u64 {
        self.now_ms() - self.lag.load(Relaxed)
    }
    fn coarse_lag_ms(&self) -> u64 {
        4
    }
    fn wait_until(&self, until_ms: u64) {
        self.now.fetch_max(until_ms, Relaxed);
    }
}

#[derive(Debug, Clone)]
enum Op {
    /// Moves the precise clock by this many ms (negative: a step back) and sets the lag.
    Clock(i64, u64),
    NextId,
    TryNextId,
    NextIds(usize),
    Reserve(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => (-30i64..40, 0u64..12).prop_map(|(d, lag)| Op::Clock(d, lag)),
        8 => Just(Op::NextId),
        1 => Just(Op::TryNextId),
        1 => (1usize..40).prop_map(Op::NextIds),
        1 => (1u64..40).prop_map(Op::Reserve),
    ]
}

fn policy() -> impl Strategy<Value = (OnBackwards, OnExhausted)> {
    let back = prop_oneof![
        Just(OnBackwards::Fail),
        Just(OnBackwards::Wait { max_ms: 20 }),
        Just(OnBackwards::Logical { max_ms: 20 }),
        Just(OnBackwards::RollbackCounter),
        Just(OnBackwards::Ring { ticks: 16 }),
    ];
    let exhausted = prop_oneof![
        Just(OnExhausted::Wait),
        Just(OnExhausted::Fail),
        Just(OnExhausted::Borrow { max_ticks: 8 }),
    ];
    (back, exhausted)
}

/// The calls the test makes, on either generator.
trait Mint {
    fn next_id(&self) -> Result<u64>;
    fn try_next_id(&self) -> Result<u64>;
    fn next_ids(&self, out: &mut [u64]) -> Result<()>;
    fn reserve(&self, max: u64) -> Result<Run>;
}

macro_rules! mint {
    ($t:ty) => {
        impl Mint for $t {
            fn next_id(&self) -> Result<u64> {
                <$t>::next_id(self)
            }
            fn try_next_id(&self) -> Result<u64> {
                <$t>::try_next_id(self)
            }
            fn next_ids(&self, out: &mut [u64]) -> Result<()> {
                <$t>::next_ids(self, out)
            }
            fn reserve(&self, max: u64) -> Result<Run> {
                <$t>::reserve(self, max)
            }
        }
    };
}
mint!(Snowflake<Scripted>);
mint!(ThreadSnowflake<Scripted>);

/// One call, its answer as comparable values.
fn play(op: &Op, g: &dyn Mint) -> Result<Vec<u64>> {
    match *op {
        Op::Clock(..) => Ok(Vec::new()),
        Op::NextId => g.next_id().map(|id| vec![id]),
        Op::TryNextId => g.try_next_id().map(|id| vec![id]),
        Op::NextIds(n) => {
            let mut out = vec![0; n];
            g.next_ids(&mut out).map(|()| out)
        }
        Op::Reserve(max) => g.reserve(max).map(|r| vec![r.first, r.count]),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn a_thread_snowflake_issues_what_a_snowflake_does(
        (back, exhausted) in policy(),
        ops in proptest::collection::vec(op(), 1..300),
    ) {
        // A small sequence (4 per ms) so that exhaustion, borrowing and waits come up often.
        let layout = Layout::parse("time=41@1ms,rollback=2,worker=8,seq=2,epoch=2020-01-01").unwrap();
        let cfg = Config::new(layout).node(5).on_backwards(back).on_exhausted(exhausted);
        let (shared, local) = match (
            Snowflake::with_clock(cfg, Scripted::new()),
            ThreadSnowflake::with_clock(cfg, Scripted::new()),
        ) {
            (Ok(s), Ok(l)) => (s, l),
            // A combination the config refuses (the ring cannot borrow), refused alike.
            (Err(a), Err(b)) => {
                prop_assert_eq!(a, b);
                return Ok(());
            }
            (a, b) => panic!("built differently: {:?} / {:?}", a.err(), b.err()),
        };
        for op in &ops {
            if let Op::Clock(d, lag) = *op {
                for c in [shared.clock(), local.clock()] {
                    let now = c.now_ms().saturating_add_signed(d);
                    c.now.store(now, Relaxed);
                    c.lag.store(lag, Relaxed);
                }
                continue;
            }
            let a = play(op, &shared);
            let b = play(op, &local);
            prop_assert_eq!(&a, &b, "{:?}", op);
            prop_assert_eq!(shared.clock().now_ms(), local.clock().now_ms(), "the same waits");
        }
        prop_assert_eq!(format!("{:?}", shared.stats()), format!("{:?}", local.stats()));
    }
}
