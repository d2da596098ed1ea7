//! The std segment allocator on the in-memory store (and, for the crash test, a small
//! file-backed store shared by processes): many threads, store outages short and long, the
//! remainder journal across a clean restart, crash images and a SIGKILLed process, the
//! adaptive step on a manual clock, and stores that misbehave.

mod support;

use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use idmint::segment::{Range, SegmentConfig};
use idmint::{Error, ErrorKind, ManualClock};
use idmint_coord::segment::journal::Journal;
use idmint_coord::segment::memory::MemoryStore;
use idmint_coord::segment::{SegmentAllocator, SegmentStore};
use support::temp_dir;

const T0: u64 = 1_700_000_000_000;
const MINUTE: u64 = 60_000;

/// Waits until `key` has no fetch in flight (the background thread settled it).
fn settle<S: SegmentStore, C: idmint::Clock>(alloc: &SegmentAllocator<S, C>, key: &str) {
    let start = Instant::now();
    while alloc.stats(key).is_some_and(|s| s.fetching) {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "fetch never landed"
        );
        thread::sleep(Duration::from_micros(200));
    }
}

fn assert_unique(ids: &[u64]) {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    for w in sorted.windows(2) {
        assert_ne!(w[0], w[1], "duplicate ID {}", w[0]);
    }
}

#[test]
fn eight_threads_share_one_allocator() {
    let store = Arc::new(MemoryStore::new());
    let cfg = SegmentConfig::new().step(100).step_bounds(100, 20_000);
    let alloc = SegmentAllocator::new(Arc::clone(&store), cfg).unwrap();
    let per_thread: Vec<Vec<u64>> = thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let alloc = &alloc;
                s.spawn(move || {
                    let mut ids = Vec::with_capacity(120_000);
                    let mut batch = vec![0u64; 700];
                    for i in 0..100_000 {
                        ids.push(alloc.next_id("orders").unwrap());
                        if i % 2_000 == t {
                            alloc.next_ids("orders", &mut batch).unwrap();
                            ids.extend_from_slice(&batch);
                        }
                    }
                    ids
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut all = vec![];
    for ids in &per_thread {
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "per-thread increasing");
        all.extend_from_slice(ids);
    }
    assert_eq!(all.len(), 8 * (100_000 + 50 * 700));
    assert_unique(&all);
    let high = store.peek("orders");
    assert!(all.iter().all(|&v| (1..high).contains(&v)));
    let stats = alloc.stats("orders").unwrap();
    assert!(stats.step > 100, "busy: the step grew ({})", stats.step);
    assert!(stats.step <= 20_000);
    assert!(
        store.takes() < 200,
        "one round trip per range: {}",
        store.takes()
    );
    alloc.close().unwrap();
}

#[test]
fn keys_are_independent() {
    fn shareable<T: Send + Sync>() {}
    shareable::<SegmentAllocator<MemoryStore>>();
    shareable::<SegmentAllocator<Box<dyn SegmentStore>, Arc<ManualClock>>>();
    let alloc =
        SegmentAllocator::new(MemoryStore::new(), SegmentConfig::new().fixed_step(10)).unwrap();
    let a: Vec<u64> = (0..25).map(|_| alloc.next_id("a").unwrap()).collect();
    let b: Vec<u64> = (0..25).map(|_| alloc.next_id("b").unwrap()).collect();
    assert_eq!(a, (1..=25).collect::<Vec<_>>());
    assert_eq!(a, b, "each key has its own counter");
    let mut keys = alloc.keys();
    keys.sort();
    assert_eq!(keys, ["a", "b"]);
    assert!(alloc.stats("c").is_none());
    alloc.next_ids("a", &mut []).unwrap();
}

/// Fails on demand; counts calls. Wraps the memory store so tests can also make takes slow.
struct Flaky {
    inner: MemoryStore,
    delay_ms: AtomicU64,
}

impl SegmentStore for Flaky {
    fn kind(&self) -> &'static str {
        "flaky"
    }
    fn take(&self, key: &str, step: u64) -> idmint::Result<Range> {
        thread::sleep(Duration::from_millis(self.delay_ms.load(Ordering::SeqCst)));
        self.inner.take(key, step).map_err(|e| match e {
            Error::StoreUnavailable { reason, .. } => Error::StoreUnavailable {
                store: "flaky",
                op: "take",
                reason,
            },
            other => other,
        })
    }
    fn identity(&self) -> idmint::Result<u64> {
        self.inner.identity()
    }
}

#[test]
fn outage_shorter_than_the_buffers_is_invisible() {
    let store = Arc::new(Flaky {
        inner: MemoryStore::new(),
        delay_ms: AtomicU64::new(0),
    });
    let cfg = SegmentConfig::new()
        .fixed_step(1000)
        .refill_at_percent(10)
        .retry_backoff(1, 20);
    let alloc = SegmentAllocator::builder(Arc::clone(&store), cfg)
        .wait_timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let mut ids: Vec<u64> = (0..150).map(|_| alloc.next_id("k").unwrap()).collect();
    settle(&alloc, "k");
    let buffered = alloc.stats("k").unwrap().buffered;
    assert_eq!(
        buffered, 1850,
        "rest of the current range plus a full standby"
    );

    // The store goes down; four threads take 1,600 IDs (less than the 1,850 buffered), slowly
    // enough that the allocator tries (and fails) to refill while they do.
    store.inner.set_failing(true);
    let during: Vec<Vec<u64>> = thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|_| {
                let alloc = &alloc;
                s.spawn(move || {
                    let mut v = vec![];
                    for i in 0..400 {
                        v.push(
                            alloc
                                .next_id("k")
                                .expect("no caller error during a short outage"),
                        );
                        if i % 50 == 0 {
                            thread::sleep(Duration::from_millis(2));
                        }
                    }
                    v
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(store.inner.failed_takes() > 0, "the refill was attempted");
    let stats = alloc.stats("k").unwrap();
    assert_eq!(stats.buffered, 250);
    assert_eq!(
        stats.last_error,
        Some(Error::StoreUnavailable {
            store: "flaky",
            op: "take",
            reason: "set failing"
        })
    );
    // Back up: callers keep going through the boundary without an error.
    store.inner.set_failing(false);
    for _ in 0..5000 {
        ids.push(alloc.next_id("k").unwrap());
    }
    for v in during {
        ids.extend(v);
    }
    assert_eq!(ids.len(), 150 + 1600 + 5000);
    assert_unique(&ids);
    assert_eq!(alloc.stats("k").unwrap().last_error, None);
}

#[test]
fn outage_longer_than_the_buffers_reports_then_recovers() {
    let store = Arc::new(MemoryStore::new());
    let cfg = SegmentConfig::new().fixed_step(100).retry_backoff(5, 40);
    let wait = Duration::from_millis(200);
    let alloc = SegmentAllocator::builder(Arc::clone(&store), cfg)
        .wait_timeout(wait)
        .build()
        .unwrap();
    let mut ids: Vec<u64> = (0..20).map(|_| alloc.next_id("k").unwrap()).collect();
    settle(&alloc, "k");
    store.set_failing(true);
    let err = loop {
        match alloc.next_id("k") {
            Ok(v) => ids.push(v),
            Err(e) => break e,
        }
        assert!(ids.len() <= 200, "served more than was buffered");
    };
    assert_eq!(ids.len(), 200, "every buffered value was served first");
    assert_eq!(
        err,
        Error::StoreUnavailable {
            store: "memory",
            op: "take",
            reason: "set failing"
        }
    );
    // Each further call waits its timeout, then fails the same way; batches too.
    let t = Instant::now();
    let mut batch = [0u64; 10];
    assert_eq!(
        alloc.next_ids("k", &mut batch).unwrap_err().kind(),
        ErrorKind::StoreUnavailable
    );
    assert!(t.elapsed() >= wait, "waited {:?}", t.elapsed());
    assert!(t.elapsed() < wait * 10);
    // The store comes back: the next call gets an ID, with no duplicate across the outage.
    store.set_failing(false);
    for _ in 0..1000 {
        ids.push(alloc.next_id("k").unwrap());
    }
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert_unique(&ids);
}

#[test]
fn a_slow_store_times_callers_out_but_its_range_still_lands() {
    let store = Arc::new(Flaky {
        inner: MemoryStore::new(),
        delay_ms: AtomicU64::new(300),
    });
    let alloc = SegmentAllocator::builder(Arc::clone(&store), SegmentConfig::new().fixed_step(10))
        .wait_timeout(Duration::from_millis(50))
        .build()
        .unwrap();
    assert_eq!(
        alloc.next_id("k"),
        Err(Error::StoreUnavailable {
            store: "flaky",
            op: "take",
            reason: "timed out waiting for a range"
        })
    );
    store.delay_ms.store(0, Ordering::SeqCst);
    settle(&alloc, "k");
    assert_eq!(
        alloc.next_id("k").unwrap(),
        1,
        "the late range is served, not lost"
    );
}

#[test]
fn remainder_resumes_after_a_clean_restart() {
    let dir = temp_dir("segment-journal");
    let path = dir.join("segments.journal");
    let store = Arc::new(MemoryStore::new());
    let cfg = SegmentConfig::new().fixed_step(1000);
    let first = SegmentAllocator::builder(Arc::clone(&store), cfg)
        .journal(&path)
        .build()
        .unwrap();
    let served: Vec<u64> = (0..150).map(|_| first.next_id("orders").unwrap()).collect();
    assert_eq!(first.next_id("users").unwrap(), 1);
    settle(&first, "orders");
    // A second allocator cannot share the journal.
    let err = SegmentAllocator::builder(Arc::clone(&store), cfg)
        .journal(&path)
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidConfig);
    first.close().unwrap();

    let recorded = Journal::read(&path).unwrap();
    let orders = recorded.iter().find(|e| e.key == "orders").unwrap();
    assert_eq!(
        orders.ranges,
        [
            Range {
                start: 151,
                end: 1001
            },
            Range {
                start: 1001,
                end: 2001
            }
        ]
    );
    let takes = store.takes();

    let second = SegmentAllocator::builder(Arc::clone(&store), cfg)
        .journal(&path)
        .build()
        .unwrap();
    // Consumed before anything is served: a crash now would lose, not repeat, these values.
    assert!(Journal::read(&path).unwrap().is_empty());
    assert_eq!(second.next_id("orders").unwrap(), 151, "first unused value");
    assert_eq!(second.next_id("users").unwrap(), 2);
    let mut rest = vec![0u64; 1849];
    second.next_ids("orders", &mut rest).unwrap();
    assert!(
        rest.iter().copied().eq(152..2001),
        "both resumed ranges, in order"
    );
    assert_eq!(
        second.next_id("orders").unwrap(),
        2001,
        "then the store's next range"
    );
    assert!(store.takes() > takes);
    let mut all = served;
    all.extend_from_slice(&rest);
    assert_unique(&all);
    // Dropping (not closing) records the remainder too.
    drop(second);
    assert!(!Journal::read(&path).unwrap().is_empty());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn crash_images_of_the_journal_hold_no_served_value() {
    let dir = temp_dir("segment-crash");
    let path = dir.join("segments.journal");
    let store = Arc::new(MemoryStore::new());
    let cfg = SegmentConfig::new()
        .step(200)
        .step_bounds(200, 800)
        .refill_at_percent(10);
    let alloc = SegmentAllocator::builder(Arc::clone(&store), cfg)
        .journal(&path)
        .checkpoint_every(Duration::from_millis(1))
        // A loaded machine can take seconds per fsync: a caller waiting on a checkpoint must
        // not give up while one is in flight.
        .wait_timeout(Duration::from_secs(120))
        .build()
        .unwrap();
    let keys = ["a", "b"];
    let mut served: Vec<Vec<u64>> = vec![vec![]; 2];
    let mut images = 0usize;
    let mut non_empty = 0usize;
    let mut batch = vec![0u64; 97];
    // At least 2,000 rounds, and on until 20 images held values (checkpoints run in the
    // background; a loaded machine runs fewer of them per round).
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut round = 0usize;
    while round < 2_000 || (non_empty < 20 && Instant::now() < deadline) {
        round += 1;
        let k = round % 2;
        if round % 3 == 0 {
            alloc.next_ids(keys[k], &mut batch).unwrap();
            served[k].extend_from_slice(&batch);
        } else {
            for _ in 0..(round % 41) {
                served[k].push(alloc.next_id(keys[k]).unwrap());
            }
        }
        // "Crash" here: the file as it is now is what a restart would resume. Nothing this
        // thread served may be in it (the background threads keep writing; any version
        // counts).
        let image = Journal::read(&path).unwrap();
        images += 1;
        non_empty += usize::from(!image.is_empty());
        for e in &image {
            let k = keys.iter().position(|k| *k == e.key).unwrap();
            let high = served[k].last().copied().unwrap_or(0);
            for r in &e.ranges {
                assert!(
                    r.start > high,
                    "round {round}: journal holds {r:?} but {high} was served"
                );
            }
        }
        if round % 5 == 0 {
            thread::sleep(Duration::from_micros(300));
        }
    }
    assert!(
        non_empty >= 20,
        "checkpoints ran ({non_empty} of {images} images held values)"
    );

    // An explicit checkpoint with no fetch in flight records everything beyond one step.
    for k in keys {
        settle(&alloc, k);
    }
    alloc.checkpoint().unwrap();
    let image = Journal::read(&path).unwrap();
    for (i, k) in keys.iter().enumerate() {
        let stats = alloc.stats(k).unwrap();
        let recorded: u64 = image
            .iter()
            .filter(|e| e.key == *k)
            .flat_map(|e| &e.ranges)
            .map(Range::len)
            .sum();
        assert_eq!(recorded, stats.buffered.saturating_sub(stats.step), "{k}");
        assert!(!served[i].is_empty());
    }

    // Restart from that image (copied, since the live allocator owns the journal): the resumed
    // values are new, and the store continues above everything.
    let copy = dir.join("copy.journal");
    fs::copy(&path, &copy).unwrap();
    let restarted = SegmentAllocator::builder(Arc::clone(&store), cfg)
        .journal(&copy)
        .build()
        .unwrap();
    for (i, k) in keys.iter().enumerate() {
        let mut more = vec![0u64; 3000];
        restarted.next_ids(k, &mut more).unwrap();
        let mut all = served[i].clone();
        all.extend_from_slice(&more);
        assert_unique(&all);
    }
    drop(restarted);
    alloc.close().unwrap();
    fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------------------
// A process killed with SIGKILL, restarted on its journal.

/// A counter store in a file, shared by processes: `flock` on `PATH.lock`, the counter
/// replaced by rename so a killed writer never leaves it half written.
struct FileCounter {
    path: PathBuf,
}

impl SegmentStore for FileCounter {
    fn kind(&self) -> &'static str {
        "file-counter"
    }
    fn take(&self, _key: &str, step: u64) -> idmint::Result<Range> {
        let fail = Error::StoreUnavailable {
            store: "file-counter",
            op: "take",
            reason: "I/O error",
        };
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.path.with_extension("lock"))
            .map_err(|_| fail)?;
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(fail);
        }
        let next: u64 = fs::read_to_string(&self.path)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(1);
        let tmp = self.path.with_extension("tmp");
        fs::write(&tmp, format!("{}\n", next + step)).map_err(|_| fail)?;
        fs::rename(&tmp, &self.path).map_err(|_| fail)?;
        Ok(Range {
            start: next,
            end: next + step,
        })
    }
    /// Kept next to the counter: a new directory is a new store.
    fn identity(&self) -> idmint::Result<u64> {
        let path = self.path.with_extension("identity");
        if let Some(id) = fs::read_to_string(&path)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            return Ok(id);
        }
        let id = idmint::os_random_u64()? | 1;
        let tmp = self.path.with_extension("identity-tmp");
        let fail = Error::StoreUnavailable {
            store: "file-counter",
            op: "identity",
            reason: "I/O error",
        };
        fs::write(&tmp, format!("{id}\n")).map_err(|_| fail)?;
        // Link, not rename: the first identity written wins, as SET NX would.
        let _ = fs::hard_link(&tmp, &path);
        let _ = fs::remove_file(&tmp);
        fs::read_to_string(&path)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .ok_or(fail)
    }
}

const CHILD_ENV: &str = "IDMINT_SEGMENT_ALLOCATOR_CHILD";

/// The child half of [`killed_process_never_duplicates`], not a test of its own: without the
/// environment variable it returns at once. With it, it serves IDs forever (until killed),
/// appending each batch to the output file as it is handed out.
#[test]
fn child_serves_until_killed() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let dir = PathBuf::from(spec);
    let alloc = SegmentAllocator::builder(
        FileCounter {
            path: dir.join("counter"),
        },
        crash_config(),
    )
    // Generous: a loaded machine can be slow to take a range from the file counter.
    .wait_timeout(Duration::from_secs(120))
    .journal(dir.join("segments.journal"))
    .checkpoint_every(Duration::from_millis(2))
    .build()
    .unwrap();
    let mut out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("served"))
        .unwrap();
    let mut batch = vec![0u64; 37];
    loop {
        alloc.next_ids("k", &mut batch).unwrap();
        let text: String = batch.iter().map(|v| format!("{v}\n")).collect();
        out.write_all(text.as_bytes()).unwrap();
        thread::sleep(Duration::from_micros(50));
    }
}

fn crash_config() -> SegmentConfig {
    SegmentConfig::new()
        .step(64)
        .step_bounds(64, 256)
        .refill_at_percent(0)
}

fn read_served(path: &Path) -> Vec<u64> {
    match File::open(path) {
        // A line cut by the kill is not an ID that was used; skip it.
        Ok(f) => BufReader::new(f)
            .lines()
            .map_while(|l| l.ok())
            .filter_map(|l| l.parse().ok())
            .collect(),
        Err(_) => vec![],
    }
}

#[test]
fn killed_process_never_duplicates() {
    let dir = temp_dir("segment-kill");
    let exe = std::env::current_exe().unwrap();
    let mut resumed_any = false;
    // Three kills at least, and on (up to 30) until one found a checkpoint on disk: how many
    // checkpoints a child writes before its kill depends on the machine's load.
    let mut kills = 0;
    while kills < 3 || (!resumed_any && kills < 30) {
        kills += 1;
        let before = read_served(&dir.join("served")).len();
        let mut child = Command::new(&exe)
            .args(["--exact", "child_serves_until_killed", "--nocapture"])
            .args(["--test-threads=1"])
            .env(CHILD_ENV, &dir)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while read_served(&dir.join("served")).len() < before + 3000 {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "child served nothing"
            );
            if let Some(status) = child.try_wait().unwrap() {
                panic!("child exited early: {status}");
            }
            thread::sleep(Duration::from_millis(5));
        }
        child.kill().unwrap(); // SIGKILL: no close, no journal write
        child.wait().unwrap();
        resumed_any |= !Journal::read(dir.join("segments.journal"))
            .unwrap()
            .is_empty();
    }
    assert!(resumed_any, "a checkpoint was on disk at some kill");
    // Restart in this process on the same journal (the kernel released the dead child's lock)
    // and the same store.
    let alloc = SegmentAllocator::builder(
        FileCounter {
            path: dir.join("counter"),
        },
        crash_config(),
    )
    // Generous: a loaded machine can be slow to take a range from the file counter.
    .wait_timeout(Duration::from_secs(120))
    .journal(dir.join("segments.journal"))
    .build()
    .unwrap();
    let mut all = read_served(&dir.join("served"));
    let mut more = vec![0u64; 5000];
    alloc.next_ids("k", &mut more).unwrap();
    all.extend_from_slice(&more);
    assert_unique(&all);
    drop(alloc);
    fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------------------
// The adaptive step, on a manual clock.

/// Records the step of every take.
struct Recording {
    inner: MemoryStore,
    asked: Mutex<Vec<u64>>,
}

impl SegmentStore for Recording {
    fn kind(&self) -> &'static str {
        "recording"
    }
    fn take(&self, key: &str, step: u64) -> idmint::Result<Range> {
        self.asked.lock().unwrap().push(step);
        self.inner.take(key, step)
    }
    fn identity(&self) -> idmint::Result<u64> {
        self.inner.identity()
    }
}

#[test]
fn step_doubles_when_busy_and_halves_when_idle() {
    let store = Arc::new(Recording {
        inner: MemoryStore::new(),
        asked: Mutex::new(vec![]),
    });
    let clock = Arc::new(ManualClock::new(T0));
    let cfg = SegmentConfig::new()
        .step(100)
        .step_bounds(100, 1600)
        .refill_at_percent(100) // ask exactly when a range is used up
        .adapt_window(15 * MINUTE, 30 * MINUTE);
    let alloc = SegmentAllocator::builder(Arc::clone(&store), cfg)
        .clock(Arc::clone(&clock))
        .build()
        .unwrap();
    let use_up = |alloc: &SegmentAllocator<Arc<Recording>, Arc<ManualClock>>| {
        settle(alloc, "k");
        let n = alloc.stats("k").map_or(1, |s| s.buffered.max(1));
        let mut out = vec![0u64; n as usize];
        alloc.next_ids("k", &mut out).unwrap();
        settle(alloc, "k");
    };
    use_up(&alloc); // first range at T0 (100), one ID taken
    for _ in 0..5 {
        clock.advance(MINUTE); // each range lasts a minute: busy
        use_up(&alloc);
    }
    clock.advance(20 * MINUTE); // between the windows: unchanged
    use_up(&alloc);
    for _ in 0..5 {
        clock.advance(60 * MINUTE); // each range lasts an hour: idle
        use_up(&alloc);
    }
    assert_eq!(
        *store.asked.lock().unwrap(),
        [100, 200, 400, 800, 1600, 1600, 1600, 800, 400, 200, 100, 100]
    );
    assert_eq!(alloc.stats("k").unwrap().step, 100);
}

// ---------------------------------------------------------------------------------------
// Misbehaving stores and bad configs.

/// A counter that can be reset, as a Redis without persistence is by a restart.
struct Resettable {
    inner: Mutex<MemoryStore>,
    ascending: bool,
}

impl SegmentStore for Resettable {
    fn kind(&self) -> &'static str {
        "resettable"
    }
    fn take(&self, key: &str, step: u64) -> idmint::Result<Range> {
        self.inner.lock().unwrap().take(key, step)
    }
    fn ascending(&self) -> bool {
        self.ascending
    }
    fn identity(&self) -> idmint::Result<u64> {
        self.inner.lock().unwrap().identity()
    }
}

#[test]
fn a_store_that_went_back_stops_the_key_instead_of_repeating() {
    let store = Arc::new(Resettable {
        inner: Mutex::new(MemoryStore::new()),
        ascending: true,
    });
    // A long retry delay: the refused range is the last word within the wait.
    let cfg = SegmentConfig::new()
        .fixed_step(50)
        .retry_backoff(5000, 5000);
    let alloc = SegmentAllocator::builder(Arc::clone(&store), cfg)
        .wait_timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    let mut ids: Vec<u64> = (0..20).map(|_| alloc.next_id("k").unwrap()).collect();
    settle(&alloc, "k");
    *store.inner.lock().unwrap() = MemoryStore::new(); // the counter restarts at 1
    let err = loop {
        match alloc.next_id("k") {
            Ok(v) => ids.push(v),
            Err(e) => break e,
        }
    };
    assert_eq!(ids.len(), 100, "buffered values are still served");
    assert_eq!(err.kind(), ErrorKind::InvalidConfig, "{err}");
    assert_unique(&ids);

    // A store that says its ranges interleave is not held to ascending order.
    let store = Arc::new(Resettable {
        inner: Mutex::new(MemoryStore::starting_at(1000)),
        ascending: false,
    });
    let alloc =
        SegmentAllocator::new(Arc::clone(&store), SegmentConfig::new().fixed_step(10)).unwrap();
    assert!(!alloc.config().is_ordered());
    let a = alloc.next_id("k").unwrap();
    settle(&alloc, "k");
    *store.inner.lock().unwrap() = MemoryStore::starting_at(1);
    let mut ids = vec![a];
    for _ in 0..30 {
        ids.push(alloc.next_id("k").unwrap());
    }
    assert!(ids.contains(&1), "the lower range was accepted");
}

struct Panicking;

impl SegmentStore for Panicking {
    fn kind(&self) -> &'static str {
        "panicking"
    }
    fn take(&self, _: &str, _: u64) -> idmint::Result<Range> {
        panic!("store bug");
    }
    fn identity(&self) -> idmint::Result<u64> {
        panic!("store bug");
    }
}

#[test]
fn a_panicking_store_is_a_failed_fetch() {
    let alloc = SegmentAllocator::builder(Panicking, SegmentConfig::new())
        .wait_timeout(Duration::from_millis(50))
        .build()
        .unwrap();
    for _ in 0..2 {
        // Which reason a caller sees depends on whether the fetch thread ran before the
        // 50 ms wait ended; either way it is a typed error, never a panic.
        let e = alloc.next_id("k").unwrap_err();
        assert!(
            matches!(
                e,
                Error::StoreUnavailable {
                    store: "panicking",
                    op: "take",
                    reason: "the store panicked" | "timed out waiting for a range",
                }
            ),
            "{e:?}"
        );
    }
    // The panic was recorded as the key's failed fetch.
    let t = Instant::now();
    while alloc.stats("k").and_then(|s| s.last_error).is_none() {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "no fetch failure recorded"
        );
        thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        alloc.stats("k").unwrap().last_error,
        Some(Error::StoreUnavailable {
            store: "panicking",
            op: "take",
            reason: "the store panicked"
        })
    );
}

#[test]
fn bad_configs_are_refused() {
    let bad = SegmentConfig::new().refill_at_percent(200);
    assert_eq!(
        SegmentAllocator::new(MemoryStore::new(), bad)
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidConfig
    );
    let no_journal = SegmentAllocator::builder(MemoryStore::new(), SegmentConfig::new())
        .checkpoint_every(Duration::from_secs(1))
        .build();
    assert_eq!(no_journal.unwrap_err().kind(), ErrorKind::InvalidConfig);
    let dir = temp_dir("segment-bad");
    let zero = SegmentAllocator::builder(MemoryStore::new(), SegmentConfig::new())
        .journal(dir.join("j"))
        .checkpoint_every(Duration::ZERO)
        .build();
    assert_eq!(zero.unwrap_err().kind(), ErrorKind::InvalidConfig);
    let plain = SegmentAllocator::new(MemoryStore::new(), SegmentConfig::new()).unwrap();
    assert_eq!(
        plain.checkpoint().unwrap_err().kind(),
        ErrorKind::InvalidConfig
    );
    assert!(plain.journal_path().is_none());
    // A corrupt journal is refused rather than guessed at.
    fs::write(dir.join("broken"), "not a journal\n").unwrap();
    let broken = SegmentAllocator::builder(MemoryStore::new(), SegmentConfig::new())
        .journal(dir.join("broken"))
        .build();
    assert_eq!(broken.unwrap_err().kind(), ErrorKind::InvalidConfig);
    fs::remove_dir_all(&dir).unwrap();
}

/// After fork() the child would serve the parent's buffered values again: every call refuses
/// with `Forked`, and closing records nothing in the parent's journal. The parent carries on.
#[test]
fn a_forked_child_refuses_to_serve() {
    let dir = std::env::temp_dir().join(format!("idmint-alloc-fork-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let journal = dir.join("segments.journal");
    let store = Arc::new(MemoryStore::new());
    let alloc = SegmentAllocator::builder(Arc::clone(&store), SegmentConfig::new().fixed_step(100))
        .journal(&journal)
        .build()
        .unwrap();
    let before = alloc.next_id("k").unwrap();
    // SAFETY: the child only touches atomics and makes syscalls before _exit; its refusals
    // return before any lock or allocation.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let mut code = 0;
        if alloc.next_id("k") != Err(Error::Forked) {
            code |= 1;
        }
        let mut buf = [0u64; 4];
        if alloc.next_ids("k", &mut buf) != Err(Error::Forked) {
            code |= 2;
        }
        if alloc.key("k").err() != Some(Error::Forked) {
            code |= 4;
        }
        if alloc.close() != Err(Error::Forked) {
            code |= 8;
        }
        // SAFETY: ends the child without running destructors or atexit handlers.
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    // SAFETY: waits for the child we just forked.
    let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
    assert_eq!(rc, pid);
    assert!(libc::WIFEXITED(status), "child crashed or hung");
    assert_eq!(libc::WEXITSTATUS(status), 0, "child served or failed oddly");
    assert_eq!(alloc.next_id("k").unwrap(), before + 1);
    alloc.close().unwrap();
    // The parent's close recorded its remainder; the child wrote nothing over it.
    let next = SegmentAllocator::builder(store, SegmentConfig::new().fixed_step(100))
        .journal(&journal)
        .build()
        .unwrap();
    assert_eq!(next.next_id("k").unwrap(), before + 2);
    next.close().unwrap();
    let _ = fs::remove_dir_all(&dir);
}

/// A store whose keys carry their own step, larger than what the allocator asks (Leaf's
/// `leaf_alloc` rows on MySQL): every range is `own` values whatever `step` asks.
struct OwnStep {
    next: Mutex<u64>,
    own: u64,
    asked: Mutex<Vec<u64>>,
}

impl SegmentStore for OwnStep {
    fn kind(&self) -> &'static str {
        "own-step"
    }
    fn take(&self, _key: &str, step: u64) -> idmint::Result<Range> {
        self.asked.lock().unwrap().push(step);
        let mut next = self.next.lock().unwrap();
        let len = step.max(self.own);
        let r = Range {
            start: *next,
            end: *next + len,
        };
        *next = r.end;
        Ok(r)
    }
    fn identity(&self) -> idmint::Result<u64> {
        Ok(7)
    }
}

/// Ranges larger than asked are served whole, in order, with nothing skipped or repeated —
/// single calls, batches larger than one range, and across a journal restart.
#[test]
fn ranges_larger_than_asked_are_served_whole() {
    let dir = temp_dir("segment-own-step");
    let path = dir.join("segments.journal");
    let store = Arc::new(OwnStep {
        next: Mutex::new(1),
        own: 250,
        asked: Mutex::new(Vec::new()),
    });
    let cfg = SegmentConfig::new().fixed_step(100);
    let first = SegmentAllocator::builder(Arc::clone(&store), cfg)
        .journal(&path)
        .build()
        .unwrap();
    let mut served: Vec<u64> = (0..300).map(|_| first.next_id("k").unwrap()).collect();
    let mut batch = vec![0u64; 1_000];
    first.next_ids("k", &mut batch).unwrap();
    served.extend_from_slice(&batch);
    assert!(
        served.iter().copied().eq(1..=1_300),
        "every value of every range, in order"
    );
    settle(&first, "k");
    first.close().unwrap();
    let left: u64 = Journal::read(&path).unwrap()[0]
        .ranges
        .iter()
        .map(Range::len)
        .sum();
    assert!(
        left > 0,
        "the unserved rest of the large ranges is recorded"
    );

    let second = SegmentAllocator::builder(Arc::clone(&store), cfg)
        .journal(&path)
        .build()
        .unwrap();
    let mut rest = vec![0u64; left as usize + 500];
    second.next_ids("k", &mut rest).unwrap();
    assert!(
        rest.iter().copied().eq(1_301..1_301 + left + 500),
        "the journal's rest, then the store's next ranges"
    );
    served.extend_from_slice(&rest);
    assert_unique(&served);
    assert!(store.asked.lock().unwrap().iter().all(|&s| s >= 100));
    second.close().unwrap();
    fs::remove_dir_all(&dir).unwrap();
}
