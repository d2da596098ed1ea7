//! Segment allocation when what sits behind a journal or a shard set is not what it was: a
//! journal taken to another store (or to its store after a data loss), shard sets whose
//! backends were added, removed, reordered or wiped, planted symbolic links next to the
//! journal, and counts and files larger than anything idmint writes. Each must be refused —
//! no value handed out twice — or bounded.

mod support;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use idmint::segment::{Range, SegmentConfig};
use idmint::{Error, ErrorKind};
use idmint_coord::segment::journal::{Journal, JournalEntry};
use idmint_coord::segment::postgres::PostgresStore;
use idmint_coord::segment::redis::RedisStore;
use idmint_coord::segment::sharded::{ShardRows, ShardedStore, MAX_SHARDS};
use idmint_coord::segment::sqlite::SqliteStore;
use idmint_coord::segment::{open_store, MemoryStore, SegmentAllocator, SegmentStore, MAX_KEYS};
use support::{temp_dir, Kind, Server};

fn cfg() -> SegmentConfig {
    SegmentConfig::new().fixed_step(1000)
}

/// An allocator on `store` (with the journal at `journal`, if any) serves `n` IDs of `orders`
/// and closes, recording its remainder in the journal.
fn serve(store: Arc<dyn SegmentStore>, journal: Option<&Path>, n: usize) -> Vec<u64> {
    let mut b = SegmentAllocator::builder(store, cfg());
    if let Some(j) = journal {
        b = b.journal(j);
    }
    let alloc = b.build().expect("allocator");
    let mut ids = vec![0u64; n];
    alloc.next_ids("orders", &mut ids).unwrap();
    alloc.close().unwrap();
    ids
}

fn duplicates(a: &[u64], b: &[u64]) -> usize {
    let set: std::collections::HashSet<u64> = a.iter().copied().collect();
    b.iter().filter(|v| set.contains(v)).count()
}

fn assert_unique(ids: &[u64]) {
    let mut v = ids.to_vec();
    v.sort_unstable();
    let n = v.len();
    v.dedup();
    assert_eq!(v.len(), n, "an ID was served twice");
}

/// The scenario every journal test plays: store `b` already served IDs of its own; an
/// allocator on store `a` records its remainder in a journal; the journal is then used with
/// `b`. It must be refused, unchanged — resuming it would serve `a`'s values, which `b` served
/// already — and still resume on `a` (reopened as `a_again`, as a new process would).
fn journal_taken_to_another_store(
    a: Arc<dyn SegmentStore>,
    b: Arc<dyn SegmentStore>,
    a_again: Arc<dyn SegmentStore>,
) {
    let dir = temp_dir("seg-journal-moved");
    let journal = dir.join("segments.journal");
    let on_b = serve(Arc::clone(&b), None, 1000);
    let on_a = serve(a, Some(&journal), 500);
    assert!(!Journal::read(&journal).unwrap().is_empty());
    let recorded = fs::read(&journal).unwrap();

    match SegmentAllocator::builder(Arc::clone(&b), cfg())
        .journal(&journal)
        .build()
    {
        Err(e) => assert_eq!(e.kind(), ErrorKind::StoreMismatch, "{e}"),
        Ok(alloc) => {
            let mut ids = vec![0u64; 500];
            alloc.next_ids("orders", &mut ids).unwrap();
            let dups = duplicates(&on_b, &ids);
            panic!("another store's journal was resumed: {dups} duplicates of 500 IDs");
        }
    }
    assert_eq!(fs::read(&journal).unwrap(), recorded, "left as it was");

    // On its own store the journal resumes: the next values, none repeated.
    let more = serve(a_again, Some(&journal), 2000);
    assert_eq!(more[0], on_a[499] + 1, "the first unused value");
    let mut all = on_a;
    all.extend(more);
    assert_unique(&all);
    let _ = fs::remove_dir_all(dir);
}

fn sqlite(path: &Path) -> Arc<dyn SegmentStore> {
    Arc::new(SqliteStore::open(path).unwrap())
}

/// Fault: a journal written against one SQLite file is used with another (a config pointing
/// at the wrong database). Must hold: refused with `StoreMismatch`, zero duplicates, and the
/// journal still resumes on its own file.
#[test]
fn journal_from_another_sqlite_store_is_refused() {
    let dir = temp_dir("seg-journal-sqlite");
    let (a, b) = (dir.join("a.db"), dir.join("b.db"));
    journal_taken_to_another_store(sqlite(&a), sqlite(&b), sqlite(&a));
    let _ = fs::remove_dir_all(dir);
}

/// Fault: a journal written against one PostgreSQL database is used with another database of
/// the same server. Must hold: refused, zero duplicates, still resumes on its own database.
#[test]
fn journal_from_another_postgres_store_is_refused() {
    let server = Server::start(Kind::Postgres);
    let mut c = postgres::Client::connect(&server.url(), postgres::NoTls).unwrap();
    c.batch_execute("CREATE DATABASE other").unwrap();
    let other = server.url().replace("/postgres", "/other");
    let pg = |url: &str| -> Arc<dyn SegmentStore> { Arc::new(PostgresStore::new(url).unwrap()) };
    journal_taken_to_another_store(pg(&server.url()), pg(&other), pg(&server.url()));
}

/// Fault: a journal written against one Redis keyspace is used with another (database 1 of
/// the same server). Must hold: refused, zero duplicates, still resumes on its own keyspace.
#[test]
fn journal_from_another_redis_store_is_refused() {
    let server = Server::start(Kind::Redis);
    let other = format!("{}1", server.url());
    let r = |url: &str| -> Arc<dyn SegmentStore> { Arc::new(RedisStore::new(url).unwrap()) };
    journal_taken_to_another_store(r(&server.url()), r(&other), r(&server.url()));
}

/// Fault: the Redis store loses everything (FLUSHALL, or a restart without persistence)
/// between a clean shutdown and the next start; its counters start over below the journal's
/// values. Must hold: the journal is refused (the store's identity went with its data).
#[test]
fn journal_after_redis_flushall_is_refused() {
    let server = Server::start(Kind::Redis);
    let dir = temp_dir("seg-journal-flushall");
    let journal = dir.join("segments.journal");
    let store = || -> Arc<dyn SegmentStore> { Arc::new(RedisStore::new(&server.url()).unwrap()) };
    serve(store(), Some(&journal), 500);
    let mut con = redis::Client::open(server.url())
        .unwrap()
        .get_connection()
        .unwrap();
    redis::cmd("FLUSHALL").query::<()>(&mut con).unwrap();
    let err = SegmentAllocator::builder(store(), cfg())
        .journal(&journal)
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::StoreMismatch, "{err}");
    let _ = fs::remove_dir_all(dir);
}

/// Fault: a plain SQLite store's journal is resumed by a sharded store on the same file — a
/// different table, whose rows may hand the journal's values out again. Must hold: refused.
#[test]
fn journal_from_a_plain_store_is_refused_by_a_sharded_one() {
    let dir = temp_dir("seg-journal-sharded");
    let db = dir.join("s.db");
    let journal = dir.join("segments.journal");
    serve(sqlite(&db), Some(&journal), 500);
    let sharded = open_store(&format!("sqlite:{}?shards=2&block=1000", db.display())).unwrap();
    let err = SegmentAllocator::builder(sharded, cfg())
        .journal(&journal)
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::StoreMismatch, "{err}");
    let _ = fs::remove_dir_all(dir);
}

/// Fault: a journal of format v1 (written before journals named their store) holds values.
/// Nothing says which store they came from, so resuming could repeat them. Must hold: refused
/// with `StoreMismatch` telling the user to delete it; an empty v1 journal is accepted.
#[test]
fn journal_of_format_v1_with_values_is_refused() {
    let dir = temp_dir("seg-journal-v1");
    let journal = dir.join("segments.journal");
    fs::write(
        &journal,
        "# idmint segment journal v1\n501 1001 orders\n# end 1\n",
    )
    .unwrap();
    let store = Arc::new(MemoryStore::new());
    let err = SegmentAllocator::builder(Arc::clone(&store), cfg())
        .journal(&journal)
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::StoreMismatch);
    assert!(err.to_string().contains("delete it"), "{err}");
    assert_eq!(
        Journal::inspect(&journal).unwrap().version,
        1,
        "left as it was"
    );

    fs::write(&journal, "# idmint segment journal v1\n# end 0\n").unwrap();
    let ids = serve(store, Some(&journal), 10);
    assert_eq!(ids[0], 1);
    assert_eq!(Journal::inspect(&journal).unwrap().version, 2);
    let _ = fs::remove_dir_all(dir);
}

// ---------------------------------------------------------------------------------------------
// Shard sets

/// A sharded store over the SQLite files `paths`, in that order, each opened afresh (as a new
/// process would).
fn sharded(paths: &[&Path], shards: u32) -> ShardedStore {
    let backends: Vec<Arc<dyn ShardRows>> = paths
        .iter()
        .map(|p| Arc::new(SqliteStore::open(p).unwrap()) as Arc<dyn ShardRows>)
        .collect();
    ShardedStore::new(backends, shards, 10).unwrap()
}

/// Takes `n` ranges of `key` from `store`.
fn takes(store: &ShardedStore, key: &str, n: usize) -> Vec<Range> {
    (0..n).map(|_| store.take(key, 10).unwrap()).collect()
}

fn assert_disjoint(ranges: &mut [Range]) {
    ranges.sort_by_key(|r| r.start);
    for w in ranges.windows(2) {
        assert!(w[0].end <= w[1].start, "{:?} overlaps {:?}", w[0], w[1]);
    }
}

/// Both an existing key and a new one are refused with `StoreMismatch`.
fn assert_refused(store: &ShardedStore) {
    for key in ["orders", "new-key"] {
        match store.take(key, 10) {
            Err(e) => assert_eq!(e.kind(), ErrorKind::StoreMismatch, "{key}: {e}"),
            Ok(r) => panic!("{key}: handed out {r:?} from a changed shard set"),
        }
    }
}

struct Files {
    dir: PathBuf,
}

impl Files {
    fn new(tag: &str) -> Files {
        Files { dir: temp_dir(tag) }
    }
    fn db(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.db"))
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Fault: a backend is added to a shard set in use (rows move: row 2 to the new, empty
/// backend, where it would start over). Must hold: every take refused with `StoreMismatch`.
#[test]
fn sharded_backend_added_is_refused() {
    let f = Files::new("seg-shard-add");
    let (a, b, c) = (f.db("a"), f.db("b"), f.db("c"));
    takes(&sharded(&[&a, &b], 4), "orders", 20);
    assert_refused(&sharded(&[&a, &b, &c], 4));
}

/// Fault: a backend is removed from a shard set in use (its rows move to the others, where
/// they do not exist). Must hold: refused.
#[test]
fn sharded_backend_removed_is_refused() {
    let f = Files::new("seg-shard-remove");
    let (a, b, c) = (f.db("a"), f.db("b"), f.db("c"));
    takes(&sharded(&[&a, &b, &c], 4), "orders", 20);
    assert_refused(&sharded(&[&a, &b], 4));
}

/// Fault: the backends of a shard set in use are listed in another order (each row now lives
/// in the other database). Must hold: refused.
#[test]
fn sharded_backends_reordered_is_refused() {
    let f = Files::new("seg-shard-order");
    let (a, b) = (f.db("a"), f.db("b"));
    takes(&sharded(&[&a, &b], 4), "orders", 20);
    assert_refused(&sharded(&[&b, &a], 4));
}

/// Fault: the shard count of a set in use changes (rows are placed and strided differently).
/// Must hold: refused, for new keys too.
#[test]
fn sharded_shard_count_changed_is_refused() {
    let f = Files::new("seg-shard-count");
    let (a, b) = (f.db("a"), f.db("b"));
    takes(&sharded(&[&a, &b], 4), "orders", 20);
    assert_refused(&sharded(&[&a, &b], 6));
}

/// Control: the same files in the same order, reopened by a new store, keep serving and
/// nothing overlaps what the first store handed out.
#[test]
fn sharded_same_topology_reopened_never_duplicates() {
    let f = Files::new("seg-shard-same");
    let (a, b) = (f.db("a"), f.db("b"));
    let mut all = takes(&sharded(&[&a, &b], 4), "orders", 40);
    all.extend(takes(&sharded(&[&a, &b], 4), "orders", 40));
    assert_disjoint(&mut all);
}

/// Fault: one backend of a shard set loses its data (its file replaced by a fresh one); its
/// rows would start over. Must hold: refused — the other backend's record names the lost
/// database's identity, which the fresh file does not have — whichever backend it was (so
/// whichever is checked first).
#[test]
fn sharded_backend_wiped_is_refused() {
    for wiped in 0..2 {
        let f = Files::new("seg-shard-wipe");
        let paths = [f.db("a"), f.db("b")];
        let set = [paths[0].as_path(), paths[1].as_path()];
        takes(&sharded(&set, 4), "orders", 20);
        for suffix in ["", "-wal", "-shm"] {
            let _ = fs::remove_file(format!("{}{suffix}", paths[wiped].display()));
        }
        assert_refused(&sharded(&set, 4));
    }
}

/// Partial failure: a new set's topology reached one backend only (the process died between
/// the two writes, played by erasing one record). Must hold: the next store completes the
/// record and serves, with no overlap.
#[test]
fn sharded_topology_recorded_in_some_backends_only_is_completed() {
    let f = Files::new("seg-shard-partial");
    let (a, b) = (f.db("a"), f.db("b"));
    let mut all = takes(&sharded(&[&a, &b], 4), "orders", 20);
    let c = rusqlite::Connection::open(&b).unwrap();
    c.execute("UPDATE idmint_segment_identity SET topology = NULL", [])
        .unwrap();
    all.extend(takes(&sharded(&[&a, &b], 4), "orders", 40));
    assert_disjoint(&mut all);
    let topology = |p: &Path| {
        Arc::new(SqliteStore::open(p).unwrap())
            .topology()
            .unwrap()
            .1
            .expect("recorded")
    };
    assert_eq!(topology(&a), topology(&b));
}

/// Faults on PostgreSQL backends (two databases of one server): reordered, then one database
/// dropped and created again (lost data). Must hold: both refused; the right order works.
#[test]
fn sharded_postgres_backends_reordered_or_recreated_are_refused() {
    let server = Server::start(Kind::Postgres);
    let mut admin = postgres::Client::connect(&server.url(), postgres::NoTls).unwrap();
    for sql in ["CREATE DATABASE a", "CREATE DATABASE b"] {
        admin.batch_execute(sql).unwrap();
    }
    let a = server.url().replace("/postgres", "/a");
    let b = server.url().replace("/postgres", "/b");
    let open = |urls: &[&str]| {
        let backends: Vec<Arc<dyn ShardRows>> = urls
            .iter()
            .map(|u| Arc::new(PostgresStore::new(u).unwrap()) as Arc<dyn ShardRows>)
            .collect();
        ShardedStore::new(backends, 4, 10).unwrap()
    };
    let mut all = takes(&open(&[&a, &b]), "orders", 20);
    assert_refused(&open(&[&b, &a]));
    all.extend(takes(&open(&[&a, &b]), "orders", 20));
    assert_disjoint(&mut all);

    for sql in ["DROP DATABASE b WITH (FORCE)", "CREATE DATABASE b"] {
        admin.batch_execute(sql).unwrap();
    }
    assert_refused(&open(&[&a, &b]));
}

// ---------------------------------------------------------------------------------------------
// Bounds

/// Fault: a URL asks for 2^32 - 1 shards (a lock and a hint per shard: tens of gigabytes).
/// Must hold: `LimitExceeded` naming the limit, before anything is allocated or opened.
#[test]
fn shard_count_of_4294967295_is_refused_quickly() {
    let f = Files::new("seg-shard-limit");
    let url = format!("sqlite:{}?shards=4294967295", f.db("s").display());
    match open_store(&url) {
        Err(Error::LimitExceeded { limit, .. }) => assert_eq!(limit, u64::from(MAX_SHARDS)),
        Err(e) => panic!("{e}"),
        Ok(s) => panic!("opened a {} store", s.kind()),
    }
    assert!(!f.db("s").exists(), "nothing opened");
    let rows: Vec<Arc<dyn ShardRows>> = vec![Arc::new(SqliteStore::open(f.db("t")).unwrap())];
    assert!(matches!(
        ShardedStore::new(rows, u32::MAX, 10),
        Err(Error::LimitExceeded { .. })
    ));
}

/// Fault: a busy timeout too large to add to a clock reading (it used to panic at open).
/// Must hold: `LimitExceeded`, from the API and from a URL.
#[test]
fn busy_timeout_beyond_the_limit_is_refused() {
    let f = Files::new("seg-busy-limit");
    assert!(matches!(
        SqliteStore::open_with_busy_timeout(f.db("s"), Duration::MAX),
        Err(Error::LimitExceeded { .. })
    ));
    let url = format!(
        "sqlite:{}?busy_timeout_ms={}",
        f.db("s").display(),
        u64::MAX
    );
    assert!(matches!(open_store(&url), Err(Error::LimitExceeded { .. })));
}

/// Fault: a journal file of a terabyte (sparse) where a journal should be. Must hold: refused
/// after reading at most a line, instead of reading the whole file into memory.
#[test]
fn journal_of_a_terabyte_is_refused_without_reading_it() {
    let dir = temp_dir("seg-journal-huge");
    let journal = dir.join("segments.journal");
    fs::File::create(&journal)
        .unwrap()
        .set_len(1 << 40)
        .unwrap();
    let err = SegmentAllocator::builder(MemoryStore::new(), cfg())
        .journal(&journal)
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidConfig, "{err}");
    let _ = fs::remove_dir_all(dir);
}

/// Fault: keys taken from user input, one new key per request. Must hold: an allocator holds
/// at most `MAX_KEYS` keys; the next new one is `LimitExceeded`, the known ones still serve.
#[test]
fn keys_beyond_the_limit_are_refused() {
    let alloc = SegmentAllocator::new(MemoryStore::new(), SegmentConfig::new()).unwrap();
    for i in 0..MAX_KEYS {
        alloc.key(&format!("k{i}")).unwrap();
    }
    assert!(matches!(
        alloc.next_id("one-too-many"),
        Err(Error::LimitExceeded { .. })
    ));
    assert_eq!(alloc.next_id("k7").unwrap(), 1);
}

// ---------------------------------------------------------------------------------------------
// Symbolic links next to the journal

fn victim(dir: &Path) -> PathBuf {
    let v = dir.join("victim");
    fs::write(&v, "precious\n").unwrap();
    v
}

/// Fault: a symbolic link planted at the journal's old temporary path (`PATH.tmp`), pointing
/// at another file. Must hold: writes go to fresh files of their own; the target is untouched
/// and the journal is a regular file holding the remainder.
#[test]
fn symlink_at_the_journal_temp_path_is_not_followed() {
    let dir = temp_dir("seg-journal-tmp-link");
    let journal = dir.join("segments.journal");
    let target = victim(&dir);
    symlink(&target, dir.join("segments.journal.tmp")).unwrap();
    let store = Arc::new(MemoryStore::new());
    serve(store, Some(&journal), 10);
    assert_eq!(fs::read_to_string(&target).unwrap(), "precious\n");
    assert!(fs::symlink_metadata(&journal).unwrap().is_file());
    assert!(!Journal::read(&journal).unwrap().is_empty());
    let _ = fs::remove_dir_all(dir);
}

/// Fault: the journal path is a symbolic link to another allocator's journal, whose values
/// that allocator resumes too. Must hold: refused (`InvalidConfig`); nothing resumed, the
/// other journal untouched.
#[test]
fn symlink_at_the_journal_path_is_refused() {
    let dir = temp_dir("seg-journal-link");
    let store = Arc::new(MemoryStore::new());
    let other = dir.join("other.journal");
    let (j, _) = Journal::open(&other, &*store).unwrap();
    let entry = JournalEntry {
        key: "orders".into(),
        ranges: vec![Range {
            start: 1,
            end: 1001,
        }],
    };
    j.write(Some(store.identity().unwrap()), &[entry]).unwrap();
    drop(j);
    let before = fs::read(&other).unwrap();
    let journal = dir.join("segments.journal");
    symlink(&other, &journal).unwrap();
    let err = SegmentAllocator::builder(Arc::clone(&store), cfg())
        .journal(&journal)
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidConfig, "{err}");
    assert_eq!(fs::read(&other).unwrap(), before);
    let _ = fs::remove_dir_all(dir);
}

/// Fault: the journal's lock file is a dangling symbolic link. Must hold: refused; no file is
/// created through the link.
#[test]
fn symlink_at_the_journal_lock_path_is_refused() {
    let dir = temp_dir("seg-journal-lock-link");
    let journal = dir.join("segments.journal");
    let target = dir.join("created-through-the-link");
    symlink(&target, dir.join("segments.journal.lock")).unwrap();
    let err = SegmentAllocator::builder(MemoryStore::new(), cfg())
        .journal(&journal)
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidConfig, "{err}");
    assert!(!target.exists());
    let _ = fs::remove_dir_all(dir);
}
