//! 1,024 simulated workers leasing nodes from one store: every worker acquires a node, renews
//! it, and releases it, over several rounds, from a pool of threads. Prints throughput and
//! latency percentiles per operation, and checks that no node was ever granted to two live
//! workers.
//!
//! ```text
//! cargo run --release -p idmint-bench --example lease_swarm -- [redis|postgres|file] [ROUNDS]
//! ```
//!
//! Redis and PostgreSQL are private servers started on loopback for the run (through
//! `scripts/services.sh`); `file` uses a temporary lease directory.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use idmint_coord::lease::{self, Lease, LeaseSpec, LeaseStore};

#[path = "../../coord/tests/support/mod.rs"]
mod support;

use support::{temp_dir, Kind, Server};

const WORKERS: usize = 1024;
const THREADS: usize = 16;
const RENEWALS: usize = 3;

/// Latencies of one operation, in µs.
#[derive(Default)]
struct Samples(Vec<u64>);

impl Samples {
    fn time<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let r = f();
        self.0.push(t.elapsed().as_micros() as u64);
        r
    }

    fn report(&mut self, name: &str, wall: Duration) {
        self.0.sort_unstable();
        let n = self.0.len();
        let p = |q: f64| self.0[((n as f64 - 1.0) * q) as usize];
        println!(
            "{name:<8} {n:>7} ops  {:>9.0} ops/s  p50 {:>6} µs  p99 {:>6} µs  max {:>6} µs",
            n as f64 / wall.as_secs_f64(),
            p(0.50),
            p(0.99),
            self.0[n - 1]
        );
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_else(|| "redis".into());
    let rounds: usize = args.next().map_or(3, |r| r.parse().expect("ROUNDS"));
    let (_server, url) = match kind.as_str() {
        "redis" => {
            let s = Server::start(Kind::Redis);
            let u = s.url();
            (Some(s), u)
        }
        "postgres" => {
            let s = Server::start(Kind::Postgres);
            let u = s.url();
            (Some(s), u)
        }
        "file" => (None, format!("file:{}", temp_dir("swarm").display())),
        other => panic!("unknown store {other}: redis, postgres or file"),
    };
    let store: Arc<dyn LeaseStore> = Arc::from(lease::open(&url).expect("open the store"));
    let spec = LeaseSpec::new("swarm", WORKERS as u64, Duration::from_secs(30));
    // node -> (worker, token) of its live holder, to catch any double grant.
    let holders: Arc<Mutex<HashMap<u64, (usize, u64)>>> = Arc::default();
    let (mut acq, mut ren, mut rel) = (Samples::default(), Samples::default(), Samples::default());
    let (mut acq_wall, mut ren_wall, mut rel_wall) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for round in 0..rounds {
        let now_ms = 1_700_000_000_000 + round as u64 * 60_000;
        // Each phase runs all workers across the thread pool; workers w ≡ t (mod THREADS) on
        // thread t.
        let phase = |op: &str,
                     bound: u64,
                     leases: Vec<Option<Lease>>|
         -> (Vec<Option<Lease>>, Samples, Duration) {
            let leases: Vec<Mutex<Option<Lease>>> = leases.into_iter().map(Mutex::new).collect();
            let samples = Mutex::new(Samples::default());
            let t0 = Instant::now();
            std::thread::scope(|s| {
                for t in 0..THREADS {
                    let (store, spec, holders, leases, samples) =
                        (&store, &spec, &holders, &leases, &samples);
                    s.spawn(move || {
                        let mut mine = Samples::default();
                        for w in (t..WORKERS).step_by(THREADS) {
                            let mut slot = leases[w].lock().unwrap();
                            match op {
                                "acquire" => {
                                    let l = mine
                                        .time(|| store.acquire(spec, now_ms, None))
                                        .expect("acquire");
                                    let prev = holders.lock().unwrap().insert(l.node, (w, l.token));
                                    assert!(
                                        prev.is_none(),
                                        "node {} granted twice: {prev:?}",
                                        l.node
                                    );
                                    *slot = Some(l);
                                }
                                "renew" => {
                                    let l = slot.as_ref().expect("held");
                                    mine.time(|| store.renew(l, bound)).expect("renew");
                                }
                                _ => {
                                    let l = slot.take().expect("held");
                                    holders.lock().unwrap().remove(&l.node);
                                    mine.time(|| store.release(&l, bound)).expect("release");
                                }
                            }
                        }
                        samples.lock().unwrap().0.extend(mine.0);
                    });
                }
            });
            let wall = t0.elapsed();
            let leases = leases
                .into_iter()
                .map(|m| m.into_inner().unwrap())
                .collect();
            (leases, samples.into_inner().unwrap(), wall)
        };
        let (leases, s, w) = phase("acquire", 0, (0..WORKERS).map(|_| None).collect());
        acq.0.extend(s.0);
        acq_wall += w;
        assert_eq!(
            holders.lock().unwrap().len(),
            WORKERS,
            "every worker holds a distinct node"
        );
        // The node space is full: one more worker gets NoFreeNode.
        assert!(matches!(
            store.acquire(&spec, now_ms, None),
            Err(idmint::Error::NoFreeNode { .. })
        ));
        let mut leases = leases;
        for r in 0..RENEWALS {
            // Each renewal raises the recorded bound, so every one is a real write.
            let (l, s, w) = phase("renew", now_ms + 1_000 * (r as u64 + 1), leases);
            leases = l;
            ren.0.extend(s.0);
            ren_wall += w;
        }
        let (_, s, w) = phase("release", now_ms + 10_000, leases);
        rel.0.extend(s.0);
        rel_wall += w;
    }
    println!(
        "{kind}: {WORKERS} workers on {THREADS} threads, {rounds} rounds of acquire, {RENEWALS} renewals, release"
    );
    acq.report("acquire", acq_wall);
    ren.report("renew", ren_wall);
    rel.report("release", rel_wall);
    println!("double grants: 0");
}
