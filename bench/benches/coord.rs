//! Coordination costs, side by side with their floors in one binary: IDs served from segments
//! (against one bare `fetch_add`), and lease operations on loopback Redis and PostgreSQL
//! (against one bare round trip to the same server). What each row measures: BENCHMARKS.md.
//!
//! The Redis and PostgreSQL servers are private ones this binary starts on loopback through
//! `scripts/services.sh` (installed by `scripts/setup.sh`), and stops at exit.
//!
//! Run: `cargo bench -p idmint-bench --bench coord`

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use divan::counter::ItemsCount;
use divan::Bencher;
use idmint::segment::{SegmentBuffer, SegmentConfig, Take};
use idmint_coord::lease::{self, Lease, LeaseSpec, LeaseStore};
use idmint_coord::segment::{MemoryStore, SegmentAllocator, SegmentStore};

#[path = "../../coord/tests/support/mod.rs"]
mod support;

use support::{temp_dir, Kind, Server};

fn main() {
    divan::main();
    // Statics are never dropped: stop the servers here.
    if let Some((redis, pg)) = SERVERS.get() {
        redis.stop();
        pg.stop();
    }
}

/// Values per store round trip in the segment rows: large, so refills are rare and the rows
/// show the cached path (one round trip per 1,000,000 IDs).
const STEP: u64 = 1_000_000;

static SERVERS: OnceLock<(Server, Server)> = OnceLock::new();

fn servers() -> &'static (Server, Server) {
    SERVERS.get_or_init(|| (Server::start(Kind::Redis), Server::start(Kind::Postgres)))
}

mod floor {
    use super::*;

    static COUNTER: AtomicU64 = AtomicU64::new(0);

    /// The cheapest unique 64-bit counter: one relaxed `fetch_add` on a shared word.
    #[divan::bench(sample_count = 1000, sample_size = 1024)]
    fn fetch_add() -> u64 {
        black_box(&COUNTER).fetch_add(1, Relaxed)
    }
}

mod segments {
    use super::*;

    fn allocator<S: SegmentStore + 'static>(store: S) -> SegmentAllocator<S> {
        SegmentAllocator::new(store, SegmentConfig::new().fixed_step(STEP)).expect("allocator")
    }

    /// The core state machine alone (`SegmentBuffer::next`), ranges supplied inline.
    #[divan::bench(sample_count = 1000, sample_size = 1024)]
    fn core_buffer_next(b: Bencher) {
        let mut buf = SegmentBuffer::new(SegmentConfig::new().fixed_step(STEP)).expect("config");
        let mut next = 1u64;
        b.bench_local(|| loop {
            match buf.next(0).expect("next") {
                Take::Id(id) => return id,
                Take::IdAndFetch(id, f) => {
                    buf.supply(
                        f,
                        idmint::segment::Range {
                            start: next,
                            end: next + STEP,
                        },
                        0,
                    )
                    .expect("supply");
                    next += STEP;
                    return id;
                }
                Take::Fetch(f) => {
                    buf.supply(
                        f,
                        idmint::segment::Range {
                            start: next,
                            end: next + STEP,
                        },
                        0,
                    )
                    .expect("supply");
                    next += STEP;
                }
                Take::Stall(s) => panic!("stalled: {s:?}"),
            }
        });
    }

    /// `SegmentAllocator::next_id(key)` on an in-memory store: the cached path (key lookup,
    /// per-key lock, one value), prefetch on the background thread.
    #[divan::bench(sample_count = 1000, sample_size = 1024)]
    fn allocator_next_id_memory(b: Bencher) {
        let a = allocator(MemoryStore::new());
        b.bench_local(|| a.next_id(black_box("orders")).expect("id"));
    }

    /// `SegmentKey::next_id()`: a handle on the key (`allocator.key("orders")`), no lookup.
    #[divan::bench(sample_count = 1000, sample_size = 1024)]
    fn key_next_id_memory(b: Bencher) {
        let a = allocator(MemoryStore::new());
        let k = a.key("orders").expect("key");
        b.bench_local(|| k.next_id().expect("id"));
    }

    /// Same on SQLite (embedded default): refills are real transactions on a file.
    #[divan::bench(sample_count = 1000, sample_size = 1024)]
    fn allocator_next_id_sqlite(b: Bencher) {
        let dir = temp_dir("bench-sqlite");
        let url = format!("sqlite:{}", dir.join("segments.db").display());
        let a = allocator(idmint_coord::segment::open_store(&url).expect("sqlite"));
        b.bench_local(|| a.next_id(black_box("orders")).expect("id"));
    }

    /// `next_ids(key, &mut [u64; 100_000])`, per ID.
    #[divan::bench(sample_count = 200, sample_size = 1)]
    fn allocator_next_ids_100k_memory(b: Bencher) {
        let a = allocator(MemoryStore::new());
        let mut buf = vec![0u64; 100_000];
        b.counter(ItemsCount::new(buf.len()))
            .bench_local(|| a.next_ids(black_box("orders"), &mut buf).expect("ids"));
    }

    /// Two threads on one allocator and key.
    #[divan::bench(threads = [2], sample_count = 200, sample_size = 16384)]
    fn allocator_next_id_memory_2_threads(b: Bencher) {
        static A: OnceLock<SegmentAllocator<MemoryStore>> = OnceLock::new();
        let a = A.get_or_init(|| allocator(MemoryStore::new()));
        b.bench(|| a.next_id(black_box("orders")).expect("id"));
    }

    /// One store round trip (`take`) on each store, for the cost of a refill.
    #[divan::bench(args = ["sqlite", "redis", "postgres"], sample_count = 200, sample_size = 8)]
    fn store_take(b: Bencher, store: &str) {
        let (redis, pg) = servers();
        let url = match store {
            "sqlite" => format!(
                "sqlite:{}",
                temp_dir("bench-take").join("segments.db").display()
            ),
            "redis" => redis.url(),
            _ => pg.url(),
        };
        let s = idmint_coord::segment::open_store(&url).expect("store");
        s.take("warm", 1).expect("take");
        b.bench_local(|| s.take(black_box("orders"), STEP).expect("take"));
    }
}

mod leases {
    use super::*;
    use idmint::{Config, Layout, OnExhausted, Snowflake};
    use idmint_coord::lease::{LeaseOptions, LeasedSnowflake};

    /// Twitter layout, node 1, borrowing future ticks so no call waits.
    fn cfg() -> Config {
        Config::new(Layout::preset("twitter").expect("preset"))
            .node(1)
            .on_exhausted(OnExhausted::Borrow {
                max_ticks: 1_000_000_000,
            })
    }

    /// Reference: the plain `Snowflake::next_id` the leased generator wraps.
    #[divan::bench(sample_count = 1000, sample_size = 1024)]
    fn snowflake_next_id(b: Bencher) {
        let g = Snowflake::new(cfg()).expect("generator");
        b.bench_local(|| g.next_id().expect("id"));
    }

    /// `LeasedSnowflake::next_id` on a file lease: the generator plus the lease checks (the
    /// ID's time against the recorded bound, the deadline against a coarse monotonic read).
    #[divan::bench(sample_count = 1000, sample_size = 1024)]
    fn leased_next_id(b: Bencher) {
        let dir = temp_dir("bench-leased");
        let opts = LeaseOptions::new().ttl(Duration::from_secs(60));
        let g = LeasedSnowflake::from_source(&format!("file:{}", dir.display()), cfg(), opts)
            .expect("leased generator");
        b.bench_local(|| g.next_id().expect("id"));
    }

    fn store(kind: &str) -> Arc<dyn LeaseStore> {
        let (redis, pg) = servers();
        let url = match kind {
            "file" => format!("file:{}", temp_dir("bench-lease").display()),
            "redis" => redis.url(),
            _ => pg.url(),
        };
        Arc::from(lease::open(&url).expect("lease store"))
    }

    fn spec(ns: &str) -> LeaseSpec {
        LeaseSpec::new(ns, 1024, Duration::from_secs(10))
    }

    /// Floor: one `PING` (Redis) or `SELECT 1` (PostgreSQL) round trip on the same loopback.
    #[divan::bench(args = ["redis", "postgres"], sample_count = 200, sample_size = 8)]
    fn round_trip(b: Bencher, kind: &str) {
        let (redis, pg) = servers();
        if kind == "redis" {
            let client = redis::Client::open(redis.url()).expect("client");
            let mut c = client.get_connection().expect("connect");
            b.bench_local(|| redis::cmd("PING").query::<String>(&mut c).expect("ping"));
        } else {
            let mut c = postgres::Client::connect(&pg.url(), postgres::NoTls).expect("connect");
            b.bench_local(|| c.query_one("SELECT 1", &[]).expect("select"));
        }
    }

    /// Acquire then release one node (two round trips), on a node space of 1,024.
    #[divan::bench(args = ["file", "redis", "postgres"], sample_count = 100, sample_size = 4)]
    fn acquire_release(b: Bencher, kind: &str) {
        let s = store(kind);
        let spec = spec(&format!("bench-ar-{kind}"));
        b.bench_local(|| {
            let l: Lease = s.acquire(&spec, 0, None).expect("acquire");
            s.release(&l, 0).expect("release");
        });
    }

    /// Renew one held lease (records the last-issued bound; the file store fsyncs it).
    #[divan::bench(args = ["file", "redis", "postgres"], sample_count = 200, sample_size = 8)]
    fn renew(b: Bencher, kind: &str) {
        let s = store(kind);
        let spec = spec(&format!("bench-renew-{kind}"));
        let l = s.acquire(&spec, 0, None).expect("acquire");
        let mut t = 1_700_000_000_000u64;
        b.bench_local(|| {
            t += 1;
            s.renew(&l, t).expect("renew")
        });
        s.release(&l, t).expect("release");
    }
}
