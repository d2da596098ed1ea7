//! 10 million keys through one `SectionSequencer` (WeChat seqsvr's per-user sequences):
//! sequences per second in sequential, scattered, batched and two-thread passes, and the
//! memory it takes per key — counted by a counting global allocator (bytes live) and from the
//! process's resident set — then a restart on the same SQLite file, checked against a sample
//! of keys.
//!
//! ```text
//! cargo run --release -p idmint-bench --example sections -- [--keys N] [--store sqlite|memory]
//! ```
//!
//! Sections of 100,000 keys and steps of 10,000 (seqsvr's defaults); the store is a SQLite file
//! in a temporary directory (`synchronous=FULL`: every raise is on disk before it is used).

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::path::Path;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use idmint::segment::Range;
use idmint_coord::segment::sqlite::SqliteStore;
use idmint_coord::segment::{MemoryStore, SectionSequencer, SegmentStore};

#[path = "../../coord/tests/support/mod.rs"]
mod support;

/// Bytes the process holds from the heap right now, and how many allocations it made.
struct Counting;

static LIVE: AtomicI64 = AtomicI64::new(0);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the counters only watch.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as i64, Relaxed);
        ALLOCATIONS.fetch_add(1, Relaxed);
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as i64, Relaxed);
        ALLOCATIONS.fetch_add(1, Relaxed);
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as i64, Relaxed);
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as i64 - layout.size() as i64, Relaxed);
        ALLOCATIONS.fetch_add(1, Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The process's resident set, in bytes (`VmRSS`).
fn rss() -> i64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<i64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// A store that counts its takes (the raises).
struct Counted<S> {
    inner: S,
    takes: AtomicU64,
}

impl<S: SegmentStore> SegmentStore for Counted<S> {
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }
    fn take(&self, key: &str, step: u64) -> idmint::Result<Range> {
        self.takes.fetch_add(1, Relaxed);
        self.inner.take(key, step)
    }
    fn identity(&self) -> idmint::Result<u64> {
        self.inner.identity()
    }
}

type Seq = SectionSequencer<Counted<Box<dyn SegmentStore>>>;

fn open(dir: &Path, store: &str) -> Seq {
    let inner: Box<dyn SegmentStore> = match store {
        "memory" => Box::new(MemoryStore::new()),
        _ => Box::new(SqliteStore::open(dir.join("sections.db")).expect("sqlite")),
    };
    let mut b = SectionSequencer::builder(Counted {
        inner,
        takes: AtomicU64::new(0),
    });
    b = if store == "memory" {
        b.without_record()
    } else {
        b.record(dir.join("sections.record"))
    };
    b.build().expect("sequencer")
}

/// A scattered order over `0..n`: a multiplier coprime with n steps through every key once,
/// far from the last one (the cache misses of keys that arrive in no particular order).
fn scattered(i: u64, n: u64) -> u64 {
    ((i as u128 * 7_919_993) % n as u128) as u64
}

struct Row {
    name: &'static str,
    calls: u64,
    took: Duration,
    takes: u64,
}

fn pass(rows: &mut Vec<Row>, seq: &Seq, name: &'static str, calls: u64, f: impl FnOnce(&Seq)) {
    let takes = seq.store().takes.load(Relaxed);
    let t = Instant::now();
    f(seq);
    rows.push(Row {
        name,
        calls,
        took: t.elapsed(),
        takes: seq.store().takes.load(Relaxed) - takes,
    });
}

fn main() {
    let mut keys: u64 = 10_000_000;
    let mut store = String::from("sqlite");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--keys" => keys = args.next().and_then(|v| v.parse().ok()).expect("--keys N"),
            "--store" => store = args.next().expect("--store sqlite|memory"),
            other => panic!("unknown argument {other}"),
        }
    }
    let dir = support::temp_dir("bench-sections");
    let (rss0, live0) = (rss(), LIVE.load(Relaxed));
    let seq = open(&dir, &store);
    let mut rows = Vec::new();

    pass(
        &mut rows,
        &seq,
        "first pass, keys in order (allocates every section)",
        keys,
        |s| {
            for k in 0..keys {
                black_box(s.next(k).expect("next"));
            }
        },
    );
    let (rss1, live1) = (rss(), LIVE.load(Relaxed));
    pass(&mut rows, &seq, "keys in order", keys, |s| {
        for k in 0..keys {
            black_box(s.next(k).expect("next"));
        }
    });
    pass(&mut rows, &seq, "keys scattered", keys, |s| {
        for i in 0..keys {
            black_box(s.next(scattered(i, keys)).expect("next"));
        }
    });
    pass(
        &mut rows,
        &seq,
        "next_many, batches of 1,000 keys in order",
        keys,
        |s| {
            let mut batch: Vec<u64> = Vec::with_capacity(1_000);
            let mut out = vec![0u64; 1_000];
            for chunk_start in (0..keys).step_by(1_000) {
                batch.clear();
                batch.extend(chunk_start..(chunk_start + 1_000).min(keys));
                s.next_many(&batch, &mut out[..batch.len()])
                    .expect("next_many");
                black_box(&out);
            }
        },
    );
    pass(
        &mut rows,
        &seq,
        "two threads, each half the keys scattered",
        keys,
        |s| {
            std::thread::scope(|sc| {
                for half in 0..2u64 {
                    sc.spawn(move || {
                        for i in (half..keys).step_by(2) {
                            black_box(s.next(scattered(i, keys)).expect("next"));
                        }
                    });
                }
            });
        },
    );
    let hot = 2_000_000u64;
    pass(
        &mut rows,
        &seq,
        "two threads, the same 1,000 keys",
        hot,
        |s| {
            std::thread::scope(|sc| {
                for _ in 0..2 {
                    sc.spawn(move || {
                        for i in 0..hot / 2 {
                            black_box(s.next(i % 1_000).expect("next"));
                        }
                    });
                }
            });
        },
    );
    pass(
        &mut rows,
        &seq,
        "one key (a raise every 10,000)",
        hot,
        |s| {
            for _ in 0..hot {
                black_box(s.next(42).expect("next"));
            }
        },
    );

    // A sample of keys, then a restart on the same file: each must resume above.
    let sample: Vec<(u64, u64)> = (0..keys)
        .step_by(997)
        .map(|k| (k, seq.current(k).expect("current")))
        .collect();
    let memory_bytes = seq.memory_bytes();
    let sections = seq.sections();
    drop(seq);
    let t = Instant::now();
    let seq = open(&dir, &store);
    let reopened = t.elapsed();
    pass(
        &mut rows,
        &seq,
        "after a restart: keys in order (one take per section)",
        keys,
        |s| {
            for k in 0..keys {
                black_box(s.next(k).expect("next"));
            }
        },
    );
    let back = if store == "memory" {
        0 // a new in-memory store starts over: nothing to check
    } else {
        sample
            .iter()
            .filter(|&&(k, before)| seq.current(k).expect("current") <= before)
            .count()
    };

    println!("SectionSequencer, {keys} keys, store {store}, sections of 100,000, step 10,000\n");
    println!("| pass | calls | seconds | sequences/s | ns/call | store takes |");
    println!("|---|---|---|---|---|---|");
    for r in &rows {
        let s = r.took.as_secs_f64();
        println!(
            "| {} | {} | {:.3} | {:.1} M | {:.1} | {} |",
            r.name,
            r.calls,
            s,
            r.calls as f64 / s / 1e6,
            s * 1e9 / r.calls as f64,
            r.takes
        );
    }
    let per_key = |bytes: i64| bytes as f64 / keys as f64;
    println!();
    println!(
        "memory after the first pass: {} sections; allocator (live heap): {:.2} bytes/key \
         ({} bytes); resident set: {:.2} bytes/key ({} bytes); memory_bytes(): {:.2} bytes/key",
        sections,
        per_key(live1 - live0),
        live1 - live0,
        per_key(rss1 - rss0),
        rss1 - rss0,
        per_key(memory_bytes as i64),
    );
    println!("allocations in total: {}", ALLOCATIONS.load(Relaxed));
    println!(
        "restart: sequencer built in {:.1} ms; sampled keys {} (every 997th), of which resumed at \
         or below their last sequence: {back}",
        reopened.as_secs_f64() * 1e3,
        sample.len()
    );
    drop(seq);
    let _ = std::fs::remove_dir_all(&dir);
    if back > 0 {
        std::process::exit(1);
    }
}
