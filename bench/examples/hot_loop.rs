//! A tight loop over one generator call, for instruction-level profiling of the hot path:
//!
//! ```text
//! cargo build --profile bench -p idmint-bench --example hot_loop
//! valgrind --tool=callgrind --callgrind-out-file=cg.out \
//!     target/release/examples/hot_loop atomic 1000000
//! callgrind_annotate cg.out
//! ```
//!
//! Cases: `floor` (fetch_add), `atomic` (`AtomicSnowflake::next_id_at`, `now` advancing every
//! 4,096 calls), `local` (`LocalSnowflake::next_id_at`, same), `snowflake` (`Snowflake::next_id`,
//! `borrow:10^9`), `snowflaked` (peer).

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use idmint::{AtomicSnowflake, LocalSnowflake, Snowflake};
use idmint_bench::{borrow_cfg, twitter, unix_ms, wait_cfg};

static COUNTER: AtomicU64 = AtomicU64::new(0);

#[inline(never)]
fn floor() -> u64 {
    black_box(&COUNTER).fetch_add(1, Relaxed)
}

#[inline(never)]
fn atomic(g: &AtomicSnowflake, now: u64) -> u64 {
    g.next_id_at(now).unwrap()
}

#[inline(never)]
fn local(g: &mut LocalSnowflake, now: u64) -> u64 {
    g.next_id_at(now).unwrap()
}

#[inline(never)]
fn snowflake(g: &Snowflake) -> u64 {
    g.next_id().unwrap()
}

#[inline(never)]
fn snowflaked(g: &snowflaked::sync::Generator) -> u64 {
    g.generate()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let case = args.next().unwrap_or_else(|| "atomic".into());
    let n: u64 = args.next().map_or(1_000_000, |s| s.parse().expect("count"));
    let base = unix_ms();
    let mut acc = 0u64;
    match case.as_str() {
        "floor" => (0..n).for_each(|_| acc ^= floor()),
        "atomic" => {
            let g = AtomicSnowflake::new(wait_cfg(twitter())).unwrap();
            (0..n).for_each(|i| acc ^= atomic(black_box(&g), base + i / 4096));
        }
        "local" => {
            let mut g = LocalSnowflake::new(wait_cfg(twitter())).unwrap();
            (0..n).for_each(|i| acc ^= local(black_box(&mut g), base + i / 4096));
        }
        "snowflake" => {
            let g = Snowflake::new(borrow_cfg(twitter())).unwrap();
            (0..n).for_each(|_| acc ^= snowflake(black_box(&g)));
        }
        "snowflaked" => {
            let g = snowflaked::sync::Generator::new(1);
            (0..n).for_each(|_| acc ^= snowflaked(black_box(&g)));
        }
        other => panic!("unknown case {other}"),
    }
    println!("{case}: {n} calls, checksum {acc:x}");
}
