//! The Rust side of the C benchmark (bench/run.sh): `Snowflake::next_id` and
//! `Snowflake::next_ids` per ID, with the same configuration, counts and rounds as bench.c.
//!
//! `idmint-c-bench-rust [IDS] [ROUNDS] [MODE]` (MODE `both`, `next_id` or `next_ids`, as in bench.c)

use std::hint::black_box;
use std::time::Instant;

use idmint_core::{Config, Layout, OnExhausted, Snowflake};

const BATCH: usize = 1000;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(20_000_000, |s| s.parse().expect("IDS"));
    let rounds: usize = args.next().map_or(5, |s| s.parse().expect("ROUNDS"));
    let mode = args.next().unwrap_or_else(|| "both".into());
    let (do_one, do_many) = (mode != "next_ids", mode != "next_id");
    let layout = Layout::preset("twitter").expect("twitter");
    let cfg = Config::new(layout)
        .node(1)
        .on_exhausted(OnExhausted::Borrow {
            max_ticks: 1_000_000_000,
        });
    let gen = Snowflake::new(cfg).expect("generator");
    let mut batch = vec![0u64; BATCH];
    let (mut one, mut many) = (Vec::new(), Vec::new());
    let mut sink = 0u64;
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..if do_one { n } else { 0 } {
            sink ^= black_box(&gen).next_id().expect("next_id");
        }
        one.push(t.elapsed().as_nanos() as f64 / n as f64);
        let t = Instant::now();
        for _ in 0..if do_many { n / BATCH } else { 0 } {
            black_box(&gen).next_ids(&mut batch).expect("next_ids");
            sink ^= batch[BATCH - 1];
        }
        many.push(t.elapsed().as_nanos() as f64 / (n / BATCH * BATCH) as f64);
    }
    black_box(sink);
    if do_one {
        println!("rust Snowflake::next_id {:.2} ns/id", median(one));
    }
    if do_many {
        println!(
            "rust Snowflake::next_ids({BATCH}) {:.2} ns/id",
            median(many)
        );
    }
}
