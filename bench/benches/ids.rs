//! idmint against its floor and its peers, side by side in one binary so the ratios between
//! rows are meaningful on a noisy machine. What each row measures: BENCHMARKS.md.
//!
//! Run: `cargo bench -p idmint-bench --bench ids`

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use divan::counter::ItemsCount;
use divan::Bencher;
use idmint::{AtomicSnowflake, LocalSnowflake, Snowflake, ThreadSnowflake};
use idmint_bench::{borrow_cfg, twitter, unix_ms, wait_cfg};

fn main() {
    divan::main();
}

// Every bench fixes its sample count and size (iterations per timed sample) rather than letting
// divan calibrate: calibration picks a size of 1 for functions whose first calls are slow
// (uuid, ulid's generator), and then timer overhead dominates. 1,024 single-ID calls per
// sample also means a generator capped at 4,096 IDs per ms stalls in at most about one sample
// in four, so the median is its per-call cost and the mean shows the cap.
//
// The two-thread benches use 65,536 calls per sample: divan starts both threads' samples at a
// barrier, and waking the second thread takes tens of µs, so short samples would not overlap
// at all (and show no contention). At this size both capped generators (snowflaked, idmint in
// `wait` mode) are held to 4,096 IDs per ms across the two threads for most of each sample.

/// IDs per tick in the Twitter layout (12 sequence bits).
const PER_TICK: u64 = 4096;

/// The cheapest possible unique 64-bit counter: one relaxed `fetch_add` on a shared word.
mod floor {
    use super::*;

    static COUNTER: AtomicU64 = AtomicU64::new(0);

    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn fetch_add() -> u64 {
        black_box(&COUNTER).fetch_add(1, Relaxed)
    }
}

/// What the generators are built from: clock reads and one uncontended CAS.
mod reference {
    use super::*;

    fn clock(id: libc::clockid_t) -> i64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec.
        unsafe { libc::clock_gettime(id, &mut ts) };
        ts.tv_sec * 1_000_000_000 + ts.tv_nsec
    }

    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn clock_monotonic() -> i64 {
        clock(black_box(libc::CLOCK_MONOTONIC))
    }

    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn clock_monotonic_coarse() -> i64 {
        clock(black_box(libc::CLOCK_MONOTONIC_COARSE))
    }

    /// `SystemTime::now()` (CLOCK_REALTIME): what snowflaked, uuid and ulid read.
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn system_time_now() -> std::time::SystemTime {
        std::time::SystemTime::now()
    }

    static WORD: AtomicU64 = AtomicU64::new(0);

    /// One load plus one successful `compare_exchange_weak`, uncontended.
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn cas_increment() -> u64 {
        let w = black_box(&WORD);
        let mut cur = w.load(Relaxed);
        loop {
            match w.compare_exchange_weak(cur, cur + 1, Relaxed, Relaxed) {
                Ok(v) => return v,
                Err(actual) => cur = actual,
            }
        }
    }
}

/// idmint's generators, Twitter layout (4,096 IDs per ms per node).
mod ours {
    use super::*;

    /// Sans-IO, lock-free; default `wait` policy; `now` advances by 1 ms every 4,096 calls,
    /// i.e. the clock of a node minting exactly at the layout's cap: every call succeeds, one
    /// in 4,096 opens a new tick, none exhausts a tick.
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn atomic_next_id_at(bencher: Bencher) {
        let g = AtomicSnowflake::new(wait_cfg(twitter())).unwrap();
        let base = unix_ms();
        let mut i = 0u64;
        bencher.bench_local(|| {
            let now = base + (i / PER_TICK);
            i += 1;
            black_box(&g).next_id_at(black_box(now)).unwrap()
        });
    }

    /// Sans-IO, lock-free, `now` fixed, `borrow:10^9`: after the first 4,096 calls every call
    /// runs ahead of `now` (each 4,097th borrows the next tick), the borrow path.
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn atomic_next_id_at_borrow(bencher: Bencher) {
        let g = AtomicSnowflake::new(borrow_cfg(twitter())).unwrap();
        let now = unix_ms();
        bencher.bench_local(|| black_box(&g).next_id_at(black_box(now)).unwrap());
    }

    /// Single-owner (`&mut`), sans-IO; `now` as in `atomic_next_id_at`.
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn local_next_id_at(bencher: Bencher) {
        let mut g = LocalSnowflake::new(wait_cfg(twitter())).unwrap();
        let base = unix_ms();
        let mut i = 0u64;
        bencher.bench_local(|| {
            let now = base + (i / PER_TICK);
            i += 1;
            black_box(&mut g).next_id_at(black_box(now)).unwrap()
        });
    }

    /// The std front door: coarse clock + fork check + CAS, `borrow:10^9` so it never sleeps.
    /// Flat out it mints far above the 4,096,000/s cap, so its IDs run ahead of the clock.
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn snowflake_next_id_borrow(bencher: Bencher) {
        let g = Snowflake::new(borrow_cfg(twitter())).unwrap();
        bencher.bench_local(|| black_box(&g).next_id().unwrap());
    }

    /// `snowflake_next_id_borrow` on a `ThreadSnowflake` (one thread: a plain store where the
    /// `Snowflake` swaps).
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn thread_snowflake_next_id_borrow(bencher: Bencher) {
        let g = ThreadSnowflake::new(borrow_cfg(twitter())).unwrap();
        bencher.bench_local(|| black_box(&g).next_id().unwrap());
    }

    /// The std front door with the default `wait` policy: after 4,096 IDs in a ms it waits for
    /// the next ms. The median is the per-call cost; the mean includes the waiting (the cap).
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn snowflake_next_id_wait(bencher: Bencher) {
        let g = Snowflake::new(wait_cfg(twitter())).unwrap();
        bencher.bench_local(|| black_box(&g).next_id().unwrap());
    }

    /// `next_ids` into a preallocated 100,000-slot buffer, `borrow:10^9` (25 ticks per call).
    /// Throughput is per ID.
    #[divan::bench(sample_count = 2000, sample_size = 4)]
    fn snowflake_next_ids_100k(bencher: Bencher) {
        let g = Snowflake::new(borrow_cfg(twitter())).unwrap();
        let mut buf = vec![0u64; 100_000];
        bencher
            .counter(ItemsCount::new(buf.len()))
            .bench_local(|| black_box(&g).next_ids(black_box(&mut buf)).unwrap());
    }

    /// `reserve(100_000)`, `borrow:10^9`: a run never spans ticks, so each call returns one
    /// whole tick, 4,096 IDs (checked). Throughput is per reserved ID.
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn snowflake_reserve_100k(bencher: Bencher) {
        let g = Snowflake::new(borrow_cfg(twitter())).unwrap();
        bencher.counter(ItemsCount::new(PER_TICK)).bench_local(|| {
            let run = black_box(&g).reserve(black_box(100_000)).unwrap();
            assert_eq!(run.count, PER_TICK);
            run
        });
    }

    /// Sans-IO `reserve_at(now, 4096)` with `now` advancing 1 ms per call: each call takes one
    /// whole tick (4,096 IDs) with one CAS. Throughput is per reserved ID.
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn atomic_reserve_at_4096(bencher: Bencher) {
        let g = AtomicSnowflake::new(wait_cfg(twitter())).unwrap();
        let mut now = unix_ms();
        bencher.counter(ItemsCount::new(PER_TICK)).bench_local(|| {
            now += 1;
            let run = black_box(&g)
                .reserve_at(black_box(now), black_box(PER_TICK))
                .unwrap();
            assert_eq!(run.count, PER_TICK);
            run
        });
    }
}

/// Other crates, each called the way its docs show.
mod peers {
    use super::*;

    /// snowflaked's thread-safe generator (SystemTime + `fetch_update` CAS; spins for the
    /// next ms after 4,096 IDs). Median = per-call cost; mean includes the spinning.
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn snowflaked_sync_generate(bencher: Bencher) {
        let g = snowflaked::sync::Generator::new(1);
        bencher.bench_local(|| black_box(&g).generate::<u64>());
    }

    /// snowflaked's `&mut` generator (same clock and cap, no atomics).
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn snowflaked_generate(bencher: Bencher) {
        let mut g = snowflaked::Generator::new(1);
        bencher.bench_local(|| black_box(&mut g).generate::<u64>());
    }

    /// `Uuid::now_v7()` (uuid with `fast-rng`: SystemTime + a mutex-guarded counter
    /// context + thread-local rand).
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn uuid_now_v7() -> uuid::Uuid {
        uuid::Uuid::now_v7()
    }

    /// `ulid::Generator::generate()` (monotonic: SystemTime, increments within a ms).
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn ulid_generator(bencher: Bencher) {
        let mut g = ulid::Generator::new();
        bencher.bench_local(|| black_box(&mut g).generate().unwrap());
    }

    /// `Ulid::generate()` (SystemTime + 80 fresh random bits from thread-local rand).
    #[divan::bench(sample_count = 2000, sample_size = 1024)]
    fn ulid_ulid_generate() -> ulid::Ulid {
        ulid::Ulid::generate()
    }
}

/// Two threads hammering one shared generator (each thread's time per call is reported).
mod threads2 {
    use super::*;

    static COUNTER: AtomicU64 = AtomicU64::new(0);

    /// The floor under contention: one cache line bouncing between two cores.
    #[divan::bench(threads = [2], sample_count = 200, sample_size = 65_536)]
    fn fetch_add() -> u64 {
        black_box(&COUNTER).fetch_add(1, Relaxed)
    }

    /// One `Snowflake`, `borrow:10^9` (never waits), shared by both threads.
    #[divan::bench(threads = [2], sample_count = 200, sample_size = 65_536)]
    fn snowflake_next_id_borrow(bencher: Bencher) {
        let g = Snowflake::new(borrow_cfg(twitter())).unwrap();
        bencher.bench(|| black_box(&g).next_id().unwrap());
    }

    /// One `Snowflake`, default `wait` policy, shared by both threads (capped at 4,096 IDs per
    /// ms like snowflaked: the per-call time is mostly waiting).
    #[divan::bench(threads = [2], sample_count = 200, sample_size = 65_536)]
    fn snowflake_next_id_wait(bencher: Bencher) {
        let g = Snowflake::new(wait_cfg(twitter())).unwrap();
        bencher.bench(|| black_box(&g).next_id().unwrap());
    }

    /// One `AtomicSnowflake`, `now` fixed, `borrow:10^9`, shared by both threads.
    #[divan::bench(threads = [2], sample_count = 200, sample_size = 65_536)]
    fn atomic_next_id_at_borrow(bencher: Bencher) {
        let g = AtomicSnowflake::new(borrow_cfg(twitter())).unwrap();
        let now = unix_ms();
        bencher.bench(|| black_box(&g).next_id_at(black_box(now)).unwrap());
    }

    /// One snowflaked `sync::Generator` shared by both threads (capped at 4,096 IDs per ms).
    #[divan::bench(threads = [2], sample_count = 200, sample_size = 65_536)]
    fn snowflaked_sync_generate(bencher: Bencher) {
        let g = snowflaked::sync::Generator::new(1);
        bencher.bench(|| black_box(&g).generate::<u64>());
    }
}
