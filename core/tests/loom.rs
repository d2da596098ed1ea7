//! Model check of the lock-free generator: every interleaving of two threads minting from one
//! `AtomicSnowflake` — single IDs, reserved runs and batches mixed — yields distinct IDs,
//! increasing within each thread where the policy promises it (not across a clock step back
//! under rollback_counter or ring).
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p idmint --test loom --release`.
#![cfg(loom)]

use idmint::{AtomicSnowflake, Config, Layout, OnBackwards, OnExhausted};
use loom::sync::Arc;
use loom::thread;

const T0: u64 = 1_700_000_000_000;

fn layout() -> Layout {
    Layout::parse("time=41@1ms,worker=10,seq=2,epoch=2020-01-01").unwrap()
}

/// One call: a single ID, a reserved run of up to `n`, or a batch of `n` (`next_ids_at`), at a
/// given time.
#[derive(Debug, Clone, Copy)]
enum Op {
    One(u64),
    Reserve(u64, u64),
    Batch(u64, usize),
}

fn call(g: &AtomicSnowflake, op: Op, out: &mut Vec<u64>) {
    match op {
        Op::One(t) => out.extend(g.next_id_at(t)),
        Op::Reserve(t, n) => {
            if let Ok(run) = g.reserve_at(t, n) {
                out.extend(run.iter());
            }
        }
        Op::Batch(t, n) => {
            let mut buf = [0u64; 4];
            if let Ok(k) = g.next_ids_at(t, &mut buf[..n]) {
                out.extend_from_slice(&buf[..k]);
            }
        }
    }
}

fn run(cfg: Config, clocks: [&'static [u64]; 2], increasing: bool) {
    let ops = clocks.map(|times| times.iter().map(|&t| Op::One(t)).collect::<Vec<_>>());
    run_ops(cfg, ops, increasing);
}

fn run_ops(cfg: Config, threads: [Vec<Op>; 2], increasing: bool) {
    let mut model = loom::model::Builder::new();
    // Bounded preemptions keep the search to seconds while still covering every CAS race
    // between the two threads (each op is a load, a CAS, and at most a retry).
    model.preemption_bound = Some(3);
    model.check(move || {
        let g = Arc::new(AtomicSnowflake::new(cfg).unwrap());
        let hs: Vec<_> = threads
            .iter()
            .map(|ops| {
                let g = g.clone();
                let ops = ops.clone();
                thread::spawn(move || {
                    let mut v = Vec::new();
                    for op in ops {
                        call(&g, op, &mut v);
                    }
                    v
                })
            })
            .collect();
        let mut all: Vec<u64> = Vec::new();
        for h in hs {
            let v = h.join().unwrap();
            assert!(!increasing || v.windows(2).all(|w| w[0] < w[1]));
            all.extend(v);
        }
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "duplicate ID under some interleaving");
    });
}

#[test]
fn exhaustion_and_ticks() {
    let cfg = Config::new(layout())
        .node(0)
        .on_exhausted(OnExhausted::Borrow { max_ticks: 2 });
    run(cfg, [&[T0, T0, T0], &[T0, T0 + 1]], true);
}

#[test]
fn rollback_counter_races() {
    let l = Layout::parse("time=41@1ms,rollback=1,worker=9,seq=2,epoch=2020-01-01").unwrap();
    let cfg = Config::new(l)
        .node(0)
        .on_backwards(OnBackwards::RollbackCounter);
    run(cfg, [&[T0 + 5, T0 + 2], &[T0 + 3, T0 + 6]], false);
}

#[test]
fn ring_races() {
    let cfg = Config::new(layout())
        .node(0)
        .on_backwards(OnBackwards::Ring { ticks: 4 });
    run(cfg, [&[T0 + 3, T0 + 1], &[T0 + 1, T0 + 3]], false);
}

/// Reserved runs and batches racing single IDs, across exhaustion and borrowed ticks.
#[test]
fn batches_race_single_ids() {
    let cfg = Config::new(layout())
        .node(0)
        .on_exhausted(OnExhausted::Borrow { max_ticks: 2 });
    run_ops(
        cfg,
        [
            vec![Op::Reserve(T0, 3), Op::One(T0 + 1), Op::Batch(T0 + 1, 2)],
            vec![Op::One(T0), Op::Batch(T0, 3), Op::Reserve(T0 + 2, 2)],
        ],
        true,
    );
}

/// Runs and batches racing a rollback epoch opened by the other thread.
#[test]
fn batches_race_rollback_counter() {
    let l = Layout::parse("time=41@1ms,rollback=1,worker=9,seq=2,epoch=2020-01-01").unwrap();
    let cfg = Config::new(l)
        .node(0)
        .on_backwards(OnBackwards::RollbackCounter);
    run_ops(
        cfg,
        [
            vec![Op::Reserve(T0 + 5, 2), Op::Batch(T0 + 2, 2)],
            vec![Op::One(T0 + 3), Op::Reserve(T0 + 6, 2)],
        ],
        false,
    );
}

/// Runs and batches on ring slots, the clock going back and forth between two ticks.
#[test]
fn batches_race_ring() {
    let cfg = Config::new(layout())
        .node(0)
        .on_backwards(OnBackwards::Ring { ticks: 4 });
    run_ops(
        cfg,
        [
            vec![Op::Reserve(T0 + 3, 2), Op::One(T0 + 1)],
            vec![Op::Batch(T0 + 1, 2), Op::Reserve(T0 + 3, 3)],
        ],
        false,
    );
}
