//! The segment stores against real engines: a SQLite file, private PostgreSQL and Redis
//! servers, and the sharded and auto-increment configurations over them. Every test collects
//! every range handed out and checks that no value was handed out twice.

mod support;

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use idmint::segment::Range;
use idmint::Error;
use idmint_coord::segment::autoinc::AutoIncStore;
use idmint_coord::segment::postgres::PostgresStore;
use idmint_coord::segment::redis::RedisStore;
use idmint_coord::segment::sharded::{ShardRows, ShardedStore};
use idmint_coord::segment::sqlite::SqliteStore;
use idmint_coord::segment::{open_store, SegmentAllocator, SegmentConfig, SegmentStore};
use support::{temp_dir, Kind, Server};

/// Tells a re-executed test binary to act as a child taker (see [`child_takes`]).
const CHILD_ENV: &str = "IDMINT_SEGMENT_CHILD";

/// How soon after a store dies every taker must have seen `StoreUnavailable`.
const FAILURE_BOUND: Duration = Duration::from_secs(5);

const THREADS: usize = 8;
const PROCESSES: usize = 8;

/// Sorts `ranges` and checks each is inside its bounds (non-empty, from 1, at most `max_len`
/// long) and that no two overlap. Returns how many values they hold.
fn assert_disjoint(ranges: &mut [Range], max_len: u64) -> u64 {
    ranges.sort_by_key(|r| r.start);
    let mut end = 1;
    let mut total = 0;
    for r in ranges.iter() {
        assert!(r.start >= 1 && r.start < r.end, "bad range {r:?}");
        assert!(r.len() <= max_len, "range {r:?} longer than {max_len}");
        assert!(
            r.start >= end,
            "range {r:?} overlaps an earlier one ending at {end}"
        );
        end = r.end;
        total += r.len();
    }
    total
}

/// The step for the `i`-th take of a taker: varies so ranges of different sizes interleave.
fn step_of(i: usize, max: u64) -> u64 {
    1 + (i as u64 * 7) % max
}

/// `THREADS` threads, each taking `takes` ranges of `key` from `store`.
fn threads(store: &Arc<dyn SegmentStore>, key: &str, takes: usize, max_step: u64) -> Vec<Range> {
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let store = Arc::clone(store);
            let key = key.to_owned();
            thread::spawn(move || {
                (0..takes)
                    .map(|i| {
                        let step = step_of(i, max_step);
                        let r = store.take(&key, step).expect("take");
                        assert!(r.len() <= step);
                        r
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    handles
        .into_iter()
        .flat_map(|h| h.join().expect("taker thread"))
        .collect()
}

/// Starts `PROCESSES` copies of this test binary, each taking `takes` ranges of `key` from the
/// store `url` names (see [`child_takes`]).
fn spawn_children(url: &str, key: &str, takes: usize, max_step: u64) -> Vec<Child> {
    let exe = std::env::current_exe().expect("test binary path");
    (0..PROCESSES)
        .map(|_| {
            Command::new(&exe)
                .args(["child_takes", "--exact", "--nocapture", "--test-threads=1"])
                .env(CHILD_ENV, format!("{url}\t{key}\t{takes}\t{max_step}"))
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .expect("spawn child taker")
        })
        .collect()
}

/// Waits for the children and reads back the ranges they printed.
fn collect_children(children: Vec<Child>, takes: usize) -> Vec<Range> {
    let mut all = Vec::new();
    for child in children {
        let out = child.wait_with_output().expect("child taker output");
        assert!(out.status.success(), "child taker failed: {:?}", out.status);
        let ranges: Vec<Range> = BufReader::new(&out.stdout[..])
            .lines()
            .map_while(|l| l.ok())
            .filter_map(|l| {
                let rest = l.strip_prefix("range ")?;
                let (s, e) = rest.split_once(' ')?;
                Some(Range {
                    start: s.parse().ok()?,
                    end: e.parse().ok()?,
                })
            })
            .collect();
        assert_eq!(ranges.len(), takes, "a child printed too few ranges");
        all.extend(ranges);
    }
    all
}

/// The child half of the multi-process tests, not a test of its own: without
/// `IDMINT_SEGMENT_CHILD` it does nothing. With it (`URL \t KEY \t TAKES \t MAX_STEP`) it opens
/// the store through `open_store` and prints one `range START END` line per take.
#[test]
fn child_takes() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let parts: Vec<&str> = spec.split('\t').collect();
    let [url, key, takes, max_step] = parts[..] else {
        panic!("bad {CHILD_ENV}: {spec}");
    };
    let (takes, max_step): (usize, u64) = (takes.parse().unwrap(), max_step.parse().unwrap());
    if let Ok(go) = std::env::var(GO_ENV) {
        wait_for_file(Path::new(&go));
    }
    let store = open_child_store(url);
    // libtest has already printed "test child_takes ... " without a newline.
    let mut out = String::from("\n");
    for i in 0..takes {
        let r = store.take(key, step_of(i, max_step)).expect("child take");
        out.push_str(&format!("range {} {}\n", r.start, r.end));
    }
    print!("{out}");
}

/// Tells a child taker to wait until this file exists before it opens its store, so the
/// children race their first use of the store.
const GO_ENV: &str = "IDMINT_SEGMENT_CHILD_GO";

/// A busy timeout far above the longest `fsync` a loaded machine takes (seconds, seen here),
/// for tests that play contention only: a take that fails with it did not fail on a slow disk.
const PATIENT: Duration = Duration::from_secs(30);

/// Child store URLs the tests know beyond `open_store`'s: `sqlite-set:A,B,…` is a sharded
/// store of 4 rows and blocks of 10 over those SQLite files ([`sqlite_set`], busy timeout
/// [`PATIENT`]).
fn open_child_store(url: &str) -> Box<dyn SegmentStore> {
    match url.strip_prefix("sqlite-set:") {
        Some(paths) => {
            let paths: Vec<PathBuf> = paths.split(',').map(PathBuf::from).collect();
            Box::new(sqlite_set(&paths, PATIENT))
        }
        None => open_store(url).expect("child opens the store"),
    }
}

/// A sharded store of 4 rows and blocks of 10 over the SQLite files `paths`.
fn sqlite_set(paths: &[PathBuf], busy_timeout: Duration) -> ShardedStore {
    let backends: Vec<Arc<dyn ShardRows>> = paths
        .iter()
        .map(|p| {
            Arc::new(SqliteStore::open_with_busy_timeout(p, busy_timeout).unwrap())
                as Arc<dyn ShardRows>
        })
        .collect();
    ShardedStore::new(backends, 4, 10).unwrap()
}

/// Waits (up to a minute) until `path` exists.
fn wait_for_file(path: &Path) {
    let t = Instant::now();
    while !path.exists() {
        assert!(t.elapsed() < Duration::from_secs(60), "{path:?} never came");
        thread::sleep(Duration::from_millis(1));
    }
}

/// Threads and processes take from one key at the same time; nothing overlaps, and another key
/// starts from 1 regardless.
fn threads_and_processes(url: &str, max_step: u64) {
    let (takes, key) = (40, "orders");
    let children = spawn_children(url, key, takes, max_step);
    let store: Arc<dyn SegmentStore> = Arc::from(open_store(url).expect("open"));
    let mut all = threads(&store, key, takes, max_step);
    all.extend(collect_children(children, takes));
    assert_eq!(all.len(), (THREADS + PROCESSES) * takes);
    assert_disjoint(&mut all, max_step);

    // Keys are independent: a fresh key starts from 1 and does not move the first one.
    let before = store.take(key, 1).unwrap();
    let other = store.take("invoices", 5).unwrap();
    assert!(other.start == 1 || store.kind() == "sharded");
    assert_eq!(other.len(), 5);
    let after = store.take(key, 1).unwrap();
    assert!(after.start > before.start);
    if store.kind() != "sharded" {
        assert_eq!(after.start, before.end, "keys share a counter");
    }
}

/// Puts `key`'s counter 5 below `i64::MAX` with `set`: a take of 5 still fits, a take of 6
/// more is refused with `OutOfRange` (never a wrapped or negative range), and the key stays
/// usable for takes that fit.
fn assert_refuses_to_wrap(store: &dyn SegmentStore, set: impl Fn(&str, i64)) {
    store.take("full", 1).unwrap();
    set("full", i64::MAX - 10);
    let r = store.take("full", 5).unwrap();
    assert_eq!(r.end, i64::MAX as u64 - 4);
    assert!(matches!(
        store.take("full", 6),
        Err(Error::OutOfRange { max, .. }) if max == i64::MAX as u64
    ));
    let r = store.take("full", 5).unwrap();
    assert_eq!(r.end, i64::MAX as u64 + 1);
}

/// What one taker thread saw while its store went down and came back.
#[derive(Default)]
struct Seen {
    ranges: Vec<Range>,
    first_error: Option<Instant>,
    ok_after_resume: usize,
}

const RUNNING: u8 = 0;
const DOWN: u8 = 1;
const RESUMED: u8 = 2;
const STOP: u8 = 3;

/// `THREADS` threads take from `store` while `down` makes it fail and `up` brings it back: every
/// thread must see `StoreUnavailable` within [`FAILURE_BOUND`] (never a panic), take again
/// after `up`, and nothing taken before, during or after may overlap.
fn through_outage(
    store: Arc<dyn SegmentStore>,
    max_step: u64,
    down: impl FnOnce(),
    up: impl FnOnce(),
) -> Vec<Range> {
    let phase = Arc::new(AtomicU8::new(RUNNING));
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let (store, phase) = (Arc::clone(&store), Arc::clone(&phase));
            let seen = Arc::new(Mutex::new(Seen::default()));
            let out = Arc::clone(&seen);
            let h = thread::spawn(move || {
                let mut i = 0;
                loop {
                    let p = phase.load(Ordering::SeqCst);
                    if p == STOP {
                        break;
                    }
                    i += 1;
                    match store.take("outage", step_of(i, max_step)) {
                        Ok(r) => {
                            let mut s = seen.lock().unwrap();
                            s.ranges.push(r);
                            if p == RESUMED {
                                s.ok_after_resume += 1;
                            }
                        }
                        Err(e) => {
                            assert!(
                                matches!(e, Error::StoreUnavailable { op: "take", .. }),
                                "unexpected error {e:?}"
                            );
                            assert_ne!(
                                phase.load(Ordering::SeqCst),
                                RUNNING,
                                "failure before the store went down: {e}"
                            );
                            seen.lock()
                                .unwrap()
                                .first_error
                                .get_or_insert(Instant::now());
                            thread::sleep(Duration::from_millis(10));
                        }
                    }
                }
            });
            (h, out)
        })
        .collect();
    let wait_for = |what: &str, limit: Duration, done: &dyn Fn() -> bool| {
        let t = Instant::now();
        while !done() {
            assert!(t.elapsed() < limit, "timed out waiting until {what}");
            thread::sleep(Duration::from_millis(10));
        }
    };
    let all_seen = |f: &dyn Fn(&Seen) -> bool| handles.iter().all(|(_, s)| f(&s.lock().unwrap()));

    wait_for("every taker took a range", Duration::from_secs(10), &|| {
        all_seen(&|s| s.ranges.len() >= 3)
    });
    let killed = Instant::now();
    phase.store(DOWN, Ordering::SeqCst);
    down();
    wait_for(
        "every taker saw the store fail",
        FAILURE_BOUND + Duration::from_secs(5),
        &|| all_seen(&|s| s.first_error.is_some()),
    );
    for (_, s) in &handles {
        let after = s.lock().unwrap().first_error.unwrap() - killed;
        assert!(after < FAILURE_BOUND, "took {after:?} to report the outage");
    }
    up();
    phase.store(RESUMED, Ordering::SeqCst);
    wait_for(
        "every taker took again after the store came back",
        Duration::from_secs(20),
        &|| all_seen(&|s| s.ok_after_resume >= 3),
    );
    phase.store(STOP, Ordering::SeqCst);
    let mut all = Vec::new();
    for (h, s) in handles {
        h.join().expect("taker thread must not panic");
        all.append(&mut s.lock().unwrap().ranges);
    }
    all
}

// ---------------------------------------------------------------------------------------------
// SQLite

fn sqlite_url(dir: &Path, query: &str) -> String {
    format!("sqlite:{}{query}", dir.join("segments.db").display())
}

/// Takes the file's write lock from a connection of its own, as another program writing the
/// file would, and holds it until the connection commits. Tries in short attempts: takers poll
/// the lock often, and SQLite's default busy handler would lose to them.
fn lock_file(path: &Path) -> rusqlite::Connection {
    let c = rusqlite::Connection::open(path).unwrap();
    c.busy_timeout(Duration::from_millis(2)).unwrap();
    let t = Instant::now();
    while let Err(e) = c.execute_batch("BEGIN EXCLUSIVE") {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "cannot lock {path:?}: {e}"
        );
    }
    c
}

#[test]
fn sqlite_threads_and_processes_never_overlap() {
    let dir = temp_dir("seg-sqlite");
    threads_and_processes(&sqlite_url(&dir, ""), 13);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn sqlite_counter_refuses_to_wrap() {
    let dir = temp_dir("seg-sqlite-wrap");
    let path = dir.join("segments.db");
    let store = SqliteStore::open(&path).unwrap();
    let c = rusqlite::Connection::open(&path).unwrap();
    assert_refuses_to_wrap(&store, |key, v| {
        c.execute(
            "UPDATE idmint_segment SET max_id = ?1 WHERE biz_tag = ?2",
            rusqlite::params![v, key],
        )
        .unwrap();
    });
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn sqlite_sharded_threads_and_processes_never_overlap() {
    let dir = temp_dir("seg-sqlite-sharded");
    let url = sqlite_url(&dir, "?shards=4&block=16");
    threads_and_processes(&url, 16);
    // Every range is a prefix of one whole block of its row.
    let store = open_store(&url).unwrap();
    for _ in 0..20 {
        let r = store.take("orders", 16).unwrap();
        assert_eq!((r.start - 1) % 16, 0);
        assert_eq!(r.len(), 16);
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Holds the file's write lock from another connection for longer than the store's busy
/// timeout: takes fail with `StoreUnavailable`, then continue once the lock is gone.
#[test]
fn sqlite_lock_outage_fails_in_bounded_time_and_resumes() {
    let dir = temp_dir("seg-sqlite-lock");
    let path = dir.join("segments.db");
    let store = SqliteStore::open_with_busy_timeout(&path, Duration::from_secs(1)).unwrap();
    let locker: Mutex<Option<rusqlite::Connection>> = Mutex::new(None);
    let mut all = through_outage(
        Arc::new(store),
        9,
        || *locker.lock().unwrap() = Some(lock_file(&path)),
        || {
            let c = locker.lock().unwrap().take().unwrap();
            c.execute_batch("COMMIT").unwrap();
        },
    );
    assert_disjoint(&mut all, 9);
    let _ = std::fs::remove_dir_all(dir);
}

/// Another program writes the file in a stream of short transactions: it holds the write lock
/// far longer in total than the store's busy timeout, but never long without a commit. That is
/// contention, not an outage: the take must wait its turn and succeed. (A lock held without
/// commits still fails in bounded time: `sqlite_lock_outage_fails_in_bounded_time_and_resumes`.)
#[test]
fn sqlite_take_waits_behind_a_writer_that_keeps_committing() {
    let dir = temp_dir("seg-sqlite-stream");
    let path = dir.join("segments.db");
    let busy = Duration::from_secs(2);
    let store = SqliteStore::open_with_busy_timeout(&path, busy).unwrap();
    store.take("k", 1).unwrap();
    let (locked, lock_held) = std::sync::mpsc::channel();
    let writer = {
        let path = path.clone();
        thread::spawn(move || {
            let c = rusqlite::Connection::open(&path).unwrap();
            // Its commits skip fsync, so a slow disk cannot stretch one of its transactions
            // past the busy timeout; it waits as long as needed if the take gets in between.
            c.execute_batch("PRAGMA synchronous = OFF").unwrap();
            c.busy_timeout(Duration::from_secs(60)).unwrap();
            c.execute_batch("CREATE TABLE other (x INTEGER); BEGIN IMMEDIATE")
                .unwrap();
            locked.send(()).unwrap();
            // Twice the busy timeout, in transactions of about 100 ms, each taking the lock
            // again at once.
            let t = Instant::now();
            while t.elapsed() < 2 * busy {
                c.execute("INSERT INTO other VALUES (1)", []).unwrap();
                thread::sleep(Duration::from_millis(100));
                c.execute_batch("COMMIT; BEGIN IMMEDIATE").unwrap();
            }
            c.execute_batch("COMMIT").unwrap();
        })
    };
    lock_held.recv().unwrap();
    let r = store
        .take("k", 1)
        .expect("a take waits for a writer that keeps committing");
    assert_eq!(r, Range { start: 2, end: 3 });
    writer.join().unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

/// Rows of one key in two SQLite files: locking one file is invisible to callers (its rows are
/// skipped); locking both fails in bounded time; after the locks go nothing overlaps.
#[test]
fn sharded_over_two_sqlite_files_falls_over() {
    let dir = temp_dir("seg-sqlite-sharded-lock");
    let paths = [dir.join("a.db"), dir.join("b.db")];
    // A busy timeout short enough that a locked file is noticed soon.
    let store: Arc<dyn SegmentStore> = Arc::new(sqlite_set(&paths, Duration::from_millis(500)));
    let mut all = threads(&store, "outage", 10, 10);
    let a = lock_file(&paths[0]);
    // Every take now lands on b's rows (odd rows), without an error.
    let mut on_b = threads(&store, "outage", 10, 10);
    assert!(on_b.iter().all(|r| ((r.start - 1) / 10) % 2 == 1));
    all.append(&mut on_b);
    let b: Mutex<Option<rusqlite::Connection>> = Mutex::new(None);
    let mut rest = through_outage(
        Arc::clone(&store),
        10,
        || *b.lock().unwrap() = Some(lock_file(&paths[1])),
        || {
            a.execute_batch("COMMIT").unwrap();
            let b = b.lock().unwrap().take().unwrap();
            b.execute_batch("COMMIT").unwrap();
        },
    );
    all.append(&mut rest);
    assert_disjoint(&mut all, 10);
    let _ = std::fs::remove_dir_all(dir);
}

/// A new set of two SQLite files used for the first time by several processes, and by two
/// store instances with threads of their own in this one, all at once: they race to create
/// the files, their tables, identities and the set's topology record, then to take. Plays
/// contention only — nothing is locked or lost — so every take must succeed: neither queueing
/// behind the other takers for the files' locks, however long, nor losing the race for rows
/// again and again may become `StoreUnavailable`. Nothing may overlap, and the set must end
/// up with one recorded topology that a later store accepts.
#[test]
fn sharded_sqlite_set_first_used_by_several_processes_at_once() {
    let dir = temp_dir("seg-sqlite-sharded-race");
    let paths = [dir.join("a.db"), dir.join("b.db")];
    let go = dir.join("go");
    let (takes, key) = (30, "race");
    let url = format!("sqlite-set:{},{}", paths[0].display(), paths[1].display());
    let exe = std::env::current_exe().expect("test binary path");
    let children: Vec<Child> = (0..PROCESSES)
        .map(|_| {
            Command::new(&exe)
                .args(["child_takes", "--exact", "--nocapture", "--test-threads=1"])
                .env(CHILD_ENV, format!("{url}\t{key}\t{takes}\t10"))
                .env(GO_ENV, &go)
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .expect("spawn child taker")
        })
        .collect();
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let (paths, go) = (paths.clone(), go.clone());
            thread::spawn(move || {
                wait_for_file(&go);
                let store: Arc<dyn SegmentStore> = Arc::new(sqlite_set(&paths, PATIENT));
                threads(&store, key, takes, 10)
            })
        })
        .collect();
    std::fs::write(&go, b"").unwrap();
    let mut all: Vec<Range> = handles
        .into_iter()
        .flat_map(|h| h.join().expect("store instance"))
        .collect();
    all.extend(collect_children(children, takes));
    assert_eq!(all.len(), (2 * THREADS + PROCESSES) * takes);
    assert_disjoint(&mut all, 10);
    // One topology was recorded, in both files, and a store opened later accepts it.
    let recorded: Vec<Option<String>> = paths
        .iter()
        .map(|p| {
            rusqlite::Connection::open(p)
                .unwrap()
                .query_row("SELECT topology FROM idmint_segment_identity", [], |r| {
                    r.get(0)
                })
                .unwrap()
        })
        .collect();
    assert!(
        recorded[0].is_some() && recorded[0] == recorded[1],
        "{recorded:?}"
    );
    sqlite_set(&paths, PATIENT).take(key, 10).unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

/// Instance `k` of `N` SQLite files issues exactly the values `≡ k + 1 (mod N)`, one per take,
/// and the others keep serving while one is locked.
#[test]
fn autoinc_over_sqlite_files_interleaves_and_falls_over() {
    let dir = temp_dir("seg-autoinc");
    let paths: Vec<PathBuf> = (0..3).map(|k| dir.join(format!("db{k}.db"))).collect();
    let open = |timeout_ms| -> Arc<dyn SegmentStore> {
        let instances: Vec<Box<dyn SegmentStore>> = paths
            .iter()
            .map(|p| {
                Box::new(
                    SqliteStore::open_with_busy_timeout(p, Duration::from_millis(timeout_ms))
                        .unwrap(),
                ) as Box<dyn SegmentStore>
            })
            .collect();
        Arc::new(AutoIncStore::new(instances).unwrap())
    };
    let store = open(5_000);
    let mut all = threads(&store, "k", 25, 50);
    assert!(all.iter().all(|r| r.len() == 1));
    let total = assert_disjoint(&mut all, 1);
    assert_eq!(total, (THREADS * 25) as u64);
    // Each file's counter says how many values it issued; they carry its residue.
    let mut by_residue: HashMap<u64, i64> = HashMap::new();
    for r in &all {
        *by_residue.entry(r.start % 3).or_default() += 1;
    }
    for (k, p) in paths.iter().enumerate() {
        let c = rusqlite::Connection::open(p).unwrap();
        let issued: i64 = c
            .query_row(
                "SELECT max_id FROM idmint_segment WHERE biz_tag = 'k'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(by_residue.get(&((k as u64 + 1) % 3)).copied(), Some(issued));
    }

    // Lock instance 1 (residue 2): the others still serve, without errors.
    let locked = lock_file(&paths[1]);
    let store = open(50);
    let mut more: Vec<Range> = (0..12).map(|_| store.take("k", 1).unwrap()).collect();
    assert!(more.iter().all(|r| r.start % 3 != 2));
    locked.execute_batch("COMMIT").unwrap();
    all.append(&mut more);
    assert_disjoint(&mut all, 1);
    let _ = std::fs::remove_dir_all(dir);
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

#[test]
fn postgres_threads_and_processes_never_overlap() {
    let server = Server::start(Kind::Postgres);
    threads_and_processes(&server.url(), 13);
    // A sharded configuration on the same database: its own table, same guarantees.
    threads_and_processes(&format!("{}?shards=4&block=16", server.url()), 16);

    let store = PostgresStore::new(&server.url()).unwrap();
    let c = Mutex::new(postgres::Client::connect(&server.url(), postgres::NoTls).unwrap());
    assert_refuses_to_wrap(&store, |key, v| {
        c.lock()
            .unwrap()
            .execute(
                "UPDATE idmint_segment SET max_id = $1 WHERE biz_tag = $2",
                &[&v, &key],
            )
            .unwrap();
    });
}

#[test]
fn postgres_killed_mid_run_fails_in_bounded_time_and_resumes() {
    let server = Server::start(Kind::Postgres);
    let store = PostgresStore::new(&server.url()).unwrap();
    let mut all = through_outage(Arc::new(store), 11, || server.kill(), || server.resume());
    assert_disjoint(&mut all, 11);
}

/// Rows of one key spread over two servers: killing one is invisible to callers (its rows are
/// skipped); killing both fails in bounded time; after both return nothing overlaps.
#[test]
fn sharded_over_two_postgres_servers_fails_over() {
    let (a, b) = (Server::start(Kind::Postgres), Server::start(Kind::Postgres));
    let backends: Vec<Arc<dyn ShardRows>> = vec![
        Arc::new(PostgresStore::new(&a.url()).unwrap()),
        Arc::new(PostgresStore::new(&b.url()).unwrap()),
    ];
    let store: Arc<dyn SegmentStore> = Arc::new(ShardedStore::new(backends, 4, 20).unwrap());
    let mut all = threads(&store, "outage", 10, 20);
    a.kill();
    // Every take now lands on b's rows (odd rows), without an error.
    let mut on_b = threads(&store, "outage", 10, 20);
    assert!(on_b.iter().all(|r| ((r.start - 1) / 20) % 2 == 1));
    all.append(&mut on_b);
    let mut rest = through_outage(
        Arc::clone(&store),
        20,
        || b.kill(),
        || {
            a.resume();
            b.resume();
        },
    );
    all.append(&mut rest);
    assert_disjoint(&mut all, 20);
}

// ---------------------------------------------------------------------------------------------
// Redis

/// A Redis server that keeps every acknowledged write (`appendfsync always`), as the Redis
/// store requires, so a SIGKILL and restart lose nothing. (The shared test servers run
/// without persistence.)
struct DurableRedis {
    dir: PathBuf,
    port: u16,
    child: Mutex<Option<Child>>,
}

impl DurableRedis {
    fn start() -> DurableRedis {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap();
        let r = DurableRedis {
            dir: temp_dir("seg-redis"),
            port,
            child: Mutex::new(None),
        };
        r.resume();
        r
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    fn resume(&self) {
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .arg("--dir")
            .arg(&self.dir)
            .args([
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
            ])
            .args(["--logfile", "redis.log"])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server (install it with scripts/setup.sh)");
        *self.child.lock().unwrap() = Some(child);
        let t = Instant::now();
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(t.elapsed() < Duration::from_secs(10), "redis did not start");
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// SIGKILL, as a crash would.
    fn kill(&self) {
        if let Some(mut c) = self.child.lock().unwrap().take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for DurableRedis {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn redis_threads_never_overlap_and_survive_a_kill() {
    let server = DurableRedis::start();
    let store: Arc<dyn SegmentStore> = Arc::new(
        RedisStore::new(&server.url())
            .unwrap()
            .with_timeouts(Duration::from_millis(500), Duration::from_secs(1)),
    );
    let mut all = threads(&store, "orders", 100, 13);
    assert_disjoint(&mut all, 13);
    assert_eq!(
        store.take("invoices", 3).unwrap(),
        Range { start: 1, end: 4 }
    );

    let mut all = through_outage(Arc::clone(&store), 13, || server.kill(), || server.resume());
    assert_disjoint(&mut all, 13);

    let c = Mutex::new(
        redis::Client::open(server.url())
            .unwrap()
            .get_connection()
            .unwrap(),
    );
    let redis_store = RedisStore::new(&server.url()).unwrap();
    assert_refuses_to_wrap(&redis_store, |key, v| {
        redis::cmd("SET")
            .arg(redis_store.counter_key(key))
            .arg(v)
            .query::<()>(&mut *c.lock().unwrap())
            .unwrap();
    });
}

/// A store that is down from the start fails every take within the bound and never panics.
#[test]
fn unreachable_stores_fail_in_bounded_time() {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap();
    let stores: Vec<Box<dyn SegmentStore>> = vec![
        open_store(&format!("postgres://idmint@127.0.0.1:{port}/postgres")).unwrap(),
        open_store(&format!(
            "postgres://idmint@127.0.0.1:{port}/postgres?shards=2"
        ))
        .unwrap(),
        open_store(&format!("redis://127.0.0.1:{port}/")).unwrap(),
    ];
    for s in &stores {
        for _ in 0..3 {
            let t = Instant::now();
            let e = s.take("k", 10).unwrap_err();
            assert!(t.elapsed() < FAILURE_BOUND);
            let reason = if s.kind() == "sharded" {
                "every shard failed"
            } else {
                "connection refused"
            };
            assert_eq!(
                e,
                Error::StoreUnavailable {
                    store: s.kind(),
                    op: "take",
                    reason
                }
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Allocators on the stores

const ALLOCATORS: usize = 8;

/// `ALLOCATORS` allocators, each with its own store handle (as separate processes would have),
/// serve one key at once, one ID at a time and in batches: no ID is served twice.
fn allocators_never_duplicate(url: &str) {
    const PER: usize = 20_000;
    let handles: Vec<_> = (0..ALLOCATORS)
        .map(|_| {
            let url = url.to_owned();
            thread::spawn(move || {
                let store: Arc<dyn SegmentStore> = Arc::from(open_store(&url).unwrap());
                let alloc =
                    SegmentAllocator::new(store, SegmentConfig::new().fixed_step(250)).unwrap();
                let mut ids: Vec<u64> = (0..PER / 2)
                    .map(|_| alloc.next_id("orders").unwrap())
                    .collect();
                let mut batch = vec![0u64; PER / 2];
                for chunk in batch.chunks_mut(777) {
                    alloc.next_ids("orders", chunk).unwrap();
                }
                ids.extend(batch);
                alloc.close().unwrap();
                ids
            })
        })
        .collect();
    let mut all: Vec<u64> = handles
        .into_iter()
        .flat_map(|h| h.join().expect("allocator thread"))
        .collect();
    assert_eq!(all.len(), ALLOCATORS * PER);
    all.sort_unstable();
    let before = all.len();
    all.dedup();
    assert_eq!(all.len(), before, "an ID was served twice");
    assert!(all[0] >= 1);
}

#[test]
fn allocators_on_sqlite_never_duplicate() {
    let dir = temp_dir("seg-alloc-sqlite");
    allocators_never_duplicate(&sqlite_url(&dir, ""));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn allocators_on_postgres_never_duplicate() {
    let server = Server::start(Kind::Postgres);
    allocators_never_duplicate(&server.url());
    // Sharded rows interleave: the allocator accepts ranges that go down, still no duplicate.
    allocators_never_duplicate(&format!("{}?shards=4&block=250", server.url()));
}

/// The store goes away for less time than the buffered values last: callers see no error,
/// although the allocator's fetch failed (it is in the stats), and after the store returns the
/// buffers fill again. Nothing is served twice.
fn outage_shorter_than_a_buffer(
    store: Arc<dyn SegmentStore>,
    down: impl FnOnce(),
    up: impl FnOnce(),
) {
    const STEP: u64 = 20_000;
    let alloc = SegmentAllocator::builder(store, SegmentConfig::new().fixed_step(STEP))
        .wait_timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let stats = || alloc.stats("k").unwrap();
    let wait_until = |what: &str, done: &dyn Fn() -> bool, ids: &mut Vec<u64>| {
        let t = Instant::now();
        while !done() {
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "timed out waiting until {what}"
            );
            ids.push(alloc.next_id("k").expect("no caller error"));
            thread::sleep(Duration::from_millis(1));
        }
    };
    let mut ids: Vec<u64> = (0..3_000).map(|_| alloc.next_id("k").unwrap()).collect();
    wait_until(
        "the standby range arrived",
        &|| stats().buffered > STEP,
        &mut ids,
    );

    down();
    // Use up the current range and cross into the standby: the allocator asks for the next
    // range, and that fetch fails.
    let left = stats().buffered - STEP;
    for _ in 0..left + 3_000 {
        ids.push(
            alloc
                .next_id("k")
                .expect("no caller error during the outage"),
        );
    }
    wait_until(
        "the allocator saw the outage",
        &|| {
            matches!(
                stats().last_error,
                Some(Error::StoreUnavailable { op: "take", .. })
            )
        },
        &mut ids,
    );
    up();
    wait_until(
        "the buffers filled again",
        &|| {
            let s = stats();
            s.last_error.is_none() && s.buffered > STEP
        },
        &mut ids,
    );
    ids.extend((0..1_000).map(|_| alloc.next_id("k").unwrap()));
    alloc.close().unwrap();
    for w in ids.windows(2) {
        assert!(w[0] < w[1], "{} then {}", w[0], w[1]);
    }
}

#[test]
fn allocator_on_postgres_rides_out_a_short_outage() {
    let server = Server::start(Kind::Postgres);
    let store = PostgresStore::new(&server.url()).unwrap();
    outage_shorter_than_a_buffer(Arc::new(store), || server.kill(), || server.resume());
}

#[test]
fn allocator_on_sqlite_rides_out_a_short_outage() {
    let dir = temp_dir("seg-alloc-sqlite-lock");
    let path = dir.join("segments.db");
    let store = SqliteStore::open_with_busy_timeout(&path, Duration::from_millis(100)).unwrap();
    let locker: Mutex<Option<rusqlite::Connection>> = Mutex::new(None);
    outage_shorter_than_a_buffer(
        Arc::new(store),
        || *locker.lock().unwrap() = Some(lock_file(&path)),
        || {
            let c = locker.lock().unwrap().take().unwrap();
            c.execute_batch("COMMIT").unwrap();
        },
    );
    let _ = std::fs::remove_dir_all(dir);
}
