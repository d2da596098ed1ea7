//! Model check of the lock-free generator: every interleaving of two or three threads minting
//! from one `AtomicSnowflake` yields distinct IDs, increasing within each thread where the
//! policy promises it (not across a clock step back under rollback_counter or ring).
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p idmint --test loom --release`.
#![cfg(loom)]

use idmint::{AtomicSnowflake, Config, Layout, OnBackwards, OnExhausted};
use loom::sync::Arc;
use loom::thread;

const T0: u64 = 1_700_000_000_000;

fn layout() -> Layout {
    Layout::parse("time=41@1ms,worker=10,seq=2,epoch=2020-01-01").unwrap()
}

fn run(cfg: Config, clocks: [&'static [u64]; 2], increasing: bool) {
    let mut model = loom::model::Builder::new();
    // Bounded preemptions keep the search to seconds while still covering every CAS race
    // between the two threads (each op is a load, a CAS, and at most a retry).
    model.preemption_bound = Some(3);
    model.check(move || {
        let g = Arc::new(AtomicSnowflake::new(cfg).unwrap());
        let hs: Vec<_> = clocks
            .iter()
            .map(|times| {
                let g = g.clone();
                let times = *times;
                thread::spawn(move || {
                    let mut v = Vec::new();
                    for &t in times {
                        if let Ok(id) = g.next_id_at(t) {
                            v.push(id);
                        }
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
