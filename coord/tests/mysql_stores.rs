//! The MySQL/MariaDB stores against private MariaDB servers (`support::mariadb`): segments on
//! Leaf's `leaf_alloc` (concurrent allocators in threads and processes, the per-tag step, Leaf's
//! own SQL next to idmint, a killed server, the journal after a wipe, a counter that would
//! wrap, a paused server) and leases (expiry and takeover with the epoch, a truncate while two
//! holders mint, a killed server, Baidu's boot mode). Concurrent holders and a paused server
//! under leases are the conformance kit's (`conformance.rs`).
//!
//! `fault_child` and `segment_child` are not tests of their own: they are the child halves of
//! the process tests, run by re-executing this binary.
#![cfg(feature = "mysql")]

mod support;

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use idmint::segment::SegmentConfig;
use idmint::{Config, Error, Layout};
use idmint_coord::lease::{self, LeaseSpec, LeaseStore};
use idmint_coord::lease::{LeaseOptions, LeasedSnowflake};
use idmint_coord::segment::mysql::MysqlStore;
use idmint_coord::segment::{open_store, SegmentAllocator, SegmentStore};
use mysql::prelude::Queryable;
use support::mariadb::MariaDb;
use support::minter::{assert_no_duplicates, Minter, MinterSpec};
use support::{ns, TempDir};

const T: u64 = 1_750_000_000_000;

/// A plain client of the test server, as the `idmint` user.
fn client(m: &MariaDb) -> mysql::Conn {
    let opts = mysql::OptsBuilder::from_opts(mysql::Opts::from_url(&m.url()).unwrap())
        .prefer_socket(false);
    mysql::Conn::new(opts).unwrap()
}

fn lease_store(url: &str) -> Arc<dyn LeaseStore> {
    Arc::from(lease::open(url).unwrap())
}

/// Runs `f` on a thread and waits up to `limit` for it: `None` if it did not return (a hang).
fn within<R: Send + 'static>(limit: Duration, f: impl FnOnce() -> R + Send + 'static) -> Option<R> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit).ok()
}

/// The child half of the lease process tests (see `support::minter`).
#[test]
fn fault_child() {
    support::minter::child_main();
}

/// The child half of the segment process test: `IDMINT_SEG_N` IDs of key `orders` from an
/// allocator on `IDMINT_SEG_URL`, written to `IDMINT_SEG_OUT` as 8-byte little-endian values.
#[test]
fn segment_child() {
    let Ok(url) = std::env::var("IDMINT_SEG_URL") else {
        return;
    };
    let n: usize = std::env::var("IDMINT_SEG_N").unwrap().parse().unwrap();
    let ids = allocate(&url, n);
    let bytes: Vec<u8> = ids.iter().flat_map(|id| id.to_le_bytes()).collect();
    std::fs::File::create(std::env::var("IDMINT_SEG_OUT").unwrap())
        .unwrap()
        .write_all(&bytes)
        .unwrap();
}

/// `n` IDs of `orders` from a fresh allocator with a small step (so takes interleave often).
fn allocate(url: &str, n: usize) -> Vec<u64> {
    let alloc = SegmentAllocator::new(
        open_store(url).unwrap(),
        SegmentConfig::new().fixed_step(50),
    )
    .unwrap();
    let key = alloc.key("orders").unwrap();
    let ids = (0..n).map(|_| key.next_id().unwrap()).collect();
    drop(key);
    alloc.close().unwrap();
    ids
}

/// Leaf's own take, played as Leaf's DAO sends it, serving what Leaf's segment serves:
/// `max_id - step ..= max_id - 1`.
fn leaf_take(c: &mut mysql::Conn, tag: &str) -> Vec<u64> {
    c.query_drop("START TRANSACTION").unwrap();
    c.exec_drop(
        "UPDATE leaf_alloc SET max_id = max_id + step WHERE biz_tag = ?",
        (tag,),
    )
    .unwrap();
    let (max_id, step): (u64, u64) = c
        .exec_first(
            "SELECT max_id, step FROM leaf_alloc WHERE biz_tag = ?",
            (tag,),
        )
        .unwrap()
        .unwrap();
    c.query_drop("COMMIT").unwrap();
    (max_id - step..max_id).collect()
}

// ---------------------------------------------------------------------------------------------
// Segments

/// Four allocators in threads and four in processes take from one tag at once: no duplicate.
#[test]
fn mysql_eight_concurrent_allocators_threads_and_processes_mint_no_duplicate() {
    let m = MariaDb::start();
    let url = m.url();
    let outs = TempDir::new("mysql-seg-procs");
    const N: usize = 4_000;
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..4)
        .map(|i| {
            let out = outs.0.join(format!("p{i}"));
            let child = Command::new(&exe)
                .args([
                    "--exact",
                    "segment_child",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env("IDMINT_SEG_URL", &url)
                .env("IDMINT_SEG_N", N.to_string())
                .env("IDMINT_SEG_OUT", &out)
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            (child, out)
        })
        .collect();
    let mut sets: Vec<Vec<u64>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4).map(|_| s.spawn(|| allocate(&url, N))).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (mut child, out) in children {
        assert!(child.wait().unwrap().success(), "a child allocator failed");
        let bytes = std::fs::read(out).unwrap();
        let ids: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(ids.len(), N);
        sets.push(ids);
    }
    let refs: Vec<&[u64]> = sets.iter().map(Vec::as_slice).collect();
    assert_eq!(assert_no_duplicates(&refs), 8 * N);
    assert!(sets.iter().flatten().all(|&id| id >= 1));
}

/// A tag's step in the table is the least a take hands out, the step asked is used when
/// larger, and idmint never writes the column; a missing tag is created as documented; a
/// take that would wrap `max_id` is refused and changes nothing.
#[test]
fn mysql_per_tag_step_from_the_table_is_honoured_and_never_overwritten() {
    let m = MariaDb::start();
    let store = MysqlStore::new(&m.url()).unwrap();
    // First use of a tag creates Leaf's table and the tag (max_id 1, the asked step).
    assert_eq!(
        store.take("fresh", 300).unwrap(),
        idmint::segment::Range { start: 1, end: 301 }
    );
    assert_eq!(
        m.sql("SELECT max_id, step, description FROM leaf_alloc WHERE biz_tag = 'fresh'"),
        "301\t300\tcreated by idmint\n"
    );
    m.sql("INSERT INTO leaf_alloc (biz_tag, max_id, step, description) VALUES ('wide', 1, 5000, 'set by hand')");
    let r = store.take("wide", 100).unwrap();
    assert_eq!(
        (r.start, r.end),
        (1, 5001),
        "the row's step, not the one asked"
    );
    let r = store.take("wide", 8_000).unwrap();
    assert_eq!(
        (r.start, r.end),
        (5001, 13_001),
        "a larger step asked is honoured"
    );
    assert_eq!(
        m.sql("SELECT max_id, step FROM leaf_alloc WHERE biz_tag = 'wide'"),
        "13001\t5000\n",
        "the step column is never written"
    );
    // An allocator asking 100 at a time serves the table's 5000-value ranges whole.
    let alloc = SegmentAllocator::new(
        MysqlStore::new(&m.url()).unwrap(),
        SegmentConfig::new().fixed_step(100),
    )
    .unwrap();
    let mut ids = vec![0u64; 6_000];
    alloc.next_ids("wide", &mut ids).unwrap();
    assert!(ids.iter().copied().eq(13_001..19_001));
    alloc.close().unwrap();
    assert!(m
        .sql("SELECT step FROM leaf_alloc WHERE biz_tag = 'wide'")
        .starts_with("5000"));
    // A take that would pass i64::MAX: refused, typed, and the row stays as it was.
    m.sql("UPDATE leaf_alloc SET max_id = 9223372036854775000 WHERE biz_tag = 'wide'");
    assert!(matches!(
        store.take("wide", 1),
        Err(Error::OutOfRange { .. })
    ));
    assert_eq!(
        m.sql("SELECT max_id FROM leaf_alloc WHERE biz_tag = 'wide'"),
        "9223372036854775000\n"
    );
    assert!(matches!(
        store.take(&"k".repeat(129), 1),
        Err(Error::InvalidConfig { .. })
    ));
}

/// A Leaf server (played with Leaf's own SQL) and idmint allocators share one tag at once:
/// not one value is handed out twice.
#[test]
fn mysql_leaf_sql_interleaved_with_idmint_never_overlaps() {
    let m = MariaDb::start();
    let url = m.url();
    m.sql(
        "CREATE TABLE IF NOT EXISTS `leaf_alloc` (
          `biz_tag` varchar(128) NOT NULL DEFAULT '', `max_id` bigint(20) NOT NULL DEFAULT '1',
          `step` int(11) NOT NULL, `description` varchar(256) DEFAULT NULL,
          `update_time` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
          PRIMARY KEY (`biz_tag`)) ENGINE=InnoDB;
         INSERT INTO leaf_alloc (biz_tag, max_id, step, description)
           VALUES ('orders', 1, 70, 'Leaf test tag')",
    );
    let mut sets: Vec<Vec<u64>> = std::thread::scope(|s| {
        let leaf: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut c = client(&m);
                    (0..60).flat_map(|_| leaf_take(&mut c, "orders")).collect()
                })
            })
            .collect();
        let ours: Vec<_> = (0..2).map(|_| s.spawn(|| allocate(&url, 5_000))).collect();
        leaf.into_iter()
            .chain(ours)
            .map(|h| h.join().unwrap())
            .collect()
    });
    // And in turns: Leaf's next range starts exactly where idmint's last take ended.
    let store = MysqlStore::new(&url).unwrap();
    let r = store.take("orders", 10).unwrap();
    let leaf_next = leaf_take(&mut client(&m), "orders");
    assert_eq!(r.len(), 70, "the tag's own step");
    assert_eq!(leaf_next.first(), Some(&r.end));
    sets.push((r.start..r.end).collect());
    sets.push(leaf_next);
    let refs: Vec<&[u64]> = sets.iter().map(Vec::as_slice).collect();
    let total = assert_no_duplicates(&refs);
    assert!(total > 2 * 5_000 + 2 * 60 * 70);
}

/// The server is killed while an allocator serves: callers see at most a store error while it
/// is down, and once it is back the allocator goes on with no value served twice.
#[test]
fn mysql_segment_server_killed_mid_run_resumes_without_duplicate() {
    let m = MariaDb::start();
    let url = format!("{}?timeout_ms=500", m.url());
    let alloc = SegmentAllocator::builder(
        open_store(&url).unwrap(),
        SegmentConfig::new().fixed_step(20),
    )
    .wait_timeout(Duration::from_millis(1_000))
    .build()
    .unwrap();
    let mut ids: Vec<u64> = (0..500).map(|_| alloc.next_id("k").unwrap()).collect();
    m.kill();
    let mut failed = 0;
    for _ in 0..200 {
        match alloc.next_id("k") {
            Ok(id) => ids.push(id),
            Err(Error::StoreUnavailable { store: "mysql", .. }) => failed += 1,
            Err(e) => panic!("{e:?}"),
        }
        if failed == 3 {
            break;
        }
    }
    assert!(
        failed > 0,
        "served 200 values of 20-value ranges with the server dead"
    );
    m.resume();
    let back = Instant::now();
    while ids.len() < 1_500 {
        match alloc.next_id("k") {
            Ok(id) => ids.push(id),
            Err(Error::StoreUnavailable { .. }) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => panic!("{e:?}"),
        }
        assert!(back.elapsed() < Duration::from_secs(60), "never resumed");
    }
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "values ascend");
    assert_no_duplicates(&[&ids]);
    alloc.close().unwrap();
}

/// A journal written against the database is refused once the database lost its data (every
/// table truncated: the identity row went with it); against the same data it resumes.
#[test]
fn mysql_journal_after_a_wipe_is_refused() {
    let m = MariaDb::start();
    let dir = TempDir::new("mysql-journal");
    let journal = dir.0.join("j");
    let build = || {
        SegmentAllocator::builder(
            MysqlStore::new(&m.url()).unwrap(),
            SegmentConfig::new().fixed_step(100),
        )
        .journal(&journal)
        .build()
    };
    let a = build().unwrap();
    assert_eq!(a.next_id("k").unwrap(), 1);
    a.close().unwrap();
    let b = build().unwrap();
    assert_eq!(b.next_id("k").unwrap(), 2, "resumed on the same database");
    b.close().unwrap();
    m.wipe();
    assert!(matches!(build(), Err(Error::StoreMismatch { .. })));
}

// ---------------------------------------------------------------------------------------------
// Leases

/// An acquire the server rolls back as a deadlock's victim runs again and gets its node,
/// instead of failing with "deadlock, try again". The deadlock is made on purpose: another
/// session, heavier (it inserted 1,000 rows, so InnoDB picks the acquire as the victim),
/// holds the store's record while the acquire, which raises the store's horizon, waits for
/// it; then that session asks for the namespace's record, which the acquire holds.
#[test]
fn mysql_acquire_chosen_as_a_deadlock_victim_runs_again() {
    let m = MariaDb::start();
    let url = m.url();
    let name = ns("deadlock");
    let store = lease_store(&url);
    let first = store
        .acquire(&LeaseSpec::new(&name, 64, Duration::from_secs(30)), T, None)
        .unwrap();
    let mut other = client(&m);
    other
        .query_drop("CREATE TABLE weight (id INT PRIMARY KEY) ENGINE = InnoDB")
        .unwrap();
    other.query_drop("START TRANSACTION").unwrap();
    let rows: Vec<String> = (0..1000).map(|i| format!("({i})")).collect();
    other
        .query_drop(format!("INSERT INTO weight VALUES {}", rows.join(",")))
        .unwrap();
    other
        .query_drop("UPDATE idmint_lease_epoch SET changed_at = changed_at WHERE namespace = ''")
        .unwrap();
    let (url2, name2) = (url.clone(), name.clone());
    let acquire = std::thread::spawn(move || {
        // A horizon above the store's: the acquire updates the store's record last.
        let spec =
            LeaseSpec::new(&name2, 64, Duration::from_secs(30)).horizon(Duration::from_secs(3600));
        lease_store(&url2).acquire(&spec, T, None)
    });
    // Let the acquire lock the namespace's record and wait for the store's.
    std::thread::sleep(Duration::from_millis(500));
    let closing = other.exec_drop(
        "SELECT epoch FROM idmint_lease_epoch WHERE namespace = ? FOR UPDATE",
        (name.as_str(),),
    );
    assert!(
        closing.is_ok(),
        "the other session, not the acquire, was the victim: {closing:?}"
    );
    other.query_drop("ROLLBACK").unwrap();
    let second = acquire
        .join()
        .unwrap()
        .expect("the acquire ran again and got a node");
    assert_ne!(second.node, first.node);
    let victims: i64 = m
        .sql("SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'")
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    assert!(victims >= 1, "no deadlock happened");
}

/// A lease that is not renewed expires; the node goes to the next holder with a higher token
/// and the recorded bound as its fence; the old holder's renewal and release are lost. Owner
/// and epoch mismatches are lost too.
#[test]
fn mysql_expiry_and_takeover_with_fence() {
    let m = MariaDb::start();
    let store = lease_store(&m.url());
    let spec = LeaseSpec::new(&ns("expiry"), 1, Duration::from_millis(400));
    let a = store.acquire(&spec, T, None).unwrap();
    assert_eq!((a.node, a.token, a.fence_ms), (0, 1, None));
    store.renew(&a, T + 5_000).unwrap();
    store.renew(&a, T + 5_000).unwrap(); // the same bound twice is still a match
    let mut other = a.clone();
    other.owner ^= 1;
    assert!(matches!(
        store.renew(&other, T),
        Err(Error::LeaseLost { .. })
    ));
    let mut stale = a.clone();
    stale.epoch ^= 1;
    assert!(matches!(
        store.renew(&stale, T),
        Err(Error::LeaseLost {
            reason: "the store's records changed (a new epoch)",
            ..
        })
    ));
    assert!(matches!(
        store.acquire(&spec, T, None),
        Err(Error::NoFreeNode { nodes: 1 })
    ));
    std::thread::sleep(Duration::from_millis(600));
    let b = store.acquire(&spec, T, None).unwrap();
    assert_eq!((b.node, b.token, b.fence_ms), (0, 2, Some(T + 5_000)));
    assert!(matches!(
        store.renew(&a, T + 6_000),
        Err(Error::LeaseLost {
            reason: "fencing token superseded",
            ..
        })
    ));
    assert!(matches!(
        store.release(&a, T + 6_000),
        Err(Error::LeaseLost { .. })
    ));
    store.release(&b, T + 7_000).unwrap();
    let c = store.acquire(&spec, T, None).unwrap();
    assert_eq!((c.token, c.fence_ms), (3, Some(T + 7_000)));
    // The whole store wiped: the holder is lost, and the next grant waits out the lock delay.
    m.wipe();
    assert!(matches!(
        store.renew(&c, T + 8_000),
        Err(Error::LeaseLost { .. })
    ));
    let d = store.acquire(&spec, T + 10_000, None).unwrap();
    assert_ne!(d.epoch, c.epoch);
    let delay = d.not_before_ms.expect("a grant after a loss is fenced");
    assert!(delay >= T + 10_000 + 800, "lock delay {delay}");
    assert_eq!(d.fence_ms, Some(delay));
}

/// A new database set up by many store objects at once (a fleet's first start): exactly one
/// creates the tables and writes the store row, and none of the others may take the new
/// database for one that lost its records. Every first grant comes without a lock delay. (The
/// marker table used to be created before the store row, and a store object that found all
/// three tables in between started a lock delay for every new namespace.)
#[test]
fn mysql_a_new_database_set_up_by_many_at_once_has_no_lock_delay() {
    let m = MariaDb::start();
    for round in 0..4 {
        let db = format!("fresh{round}");
        m.sql(&format!(
            "CREATE DATABASE {db}; GRANT ALL ON {db}.* TO 'idmint'@'%'"
        ));
        let url = format!("{}/{db}", m.url().strip_suffix("/idmint").unwrap());
        let start = Arc::new(std::sync::Barrier::new(16));
        let firsts: Vec<_> = (0..16)
            .map(|i| {
                let (url, start) = (url.clone(), start.clone());
                std::thread::spawn(move || {
                    let store = lease::open(&url).unwrap();
                    let spec =
                        LeaseSpec::new(&ns(&format!("fleet{i}")), 4, Duration::from_secs(10));
                    start.wait();
                    // Staggered, so that some arrive while the first is setting up.
                    std::thread::sleep(Duration::from_millis(i as u64 * 3));
                    store.acquire(&spec, T, None).unwrap()
                })
            })
            .collect();
        for h in firsts {
            let l = h.join().unwrap();
            assert_eq!(
                (l.not_before_ms, l.fence_ms),
                (None, None),
                "round {round}: {l:?}"
            );
        }
    }
}

/// The lease tables dropped under a live holder (the database emptied, as a wiped server
/// started again): a store object that saw them takes their absence for a loss, so its next
/// grant — the same node again, from the restarted counter — is fenced past the lock delay
/// (the same hole `idmint-chaos` found in the PostgreSQL store).
#[test]
fn mysql_tables_dropped_under_a_store_object_fence_the_next_grant() {
    let m = MariaDb::start();
    let store = lease::open(&m.url()).unwrap();
    let ns = ns("dropped");
    let spec = LeaseSpec::new(&ns, 2, Duration::from_secs(10)).horizon(Duration::from_secs(90));
    let first = store.acquire(&spec, T, None).unwrap();
    assert_eq!(first.not_before_ms, None, "a new store has no lock delay");
    store.renew(&first, T + 100).unwrap();
    m.sql("DROP TABLE idmint_lease, idmint_lease_epoch, idmint_lease_installed");
    let again = (0..3)
        .find_map(|k| store.acquire(&spec, T + 1_000 + k, None).ok())
        .expect("a grant once the tables are made again");
    assert_eq!(
        again.node, first.node,
        "the counter restarted: the same node again"
    );
    assert!(again.not_before_ms >= Some(T + 1_000 + 90_000), "{again:?}");
    assert!(again.fence_ms >= again.not_before_ms, "{again:?}");
}

/// `TRUNCATE idmint_lease` while A mints on the only node and B waits for it: B gets the node,
/// but only under a new epoch fenced past now + the longest horizon, and A's next renewal
/// fails. Zero duplicates.
#[test]
fn mysql_truncate_while_two_holders_mint_gives_no_duplicate() {
    let m = MariaDb::start();
    let outs = TempDir::new("mysql-truncate");
    let url = format!("{}?timeout_ms=500", m.url());
    let spec = MinterSpec::new(&url, "truncate", 1, 2_000);
    let mut a = Minter::start(&spec, &outs.0.join("a"));
    a.wait_for("HOLD");
    a.wait_minted(20_000);
    let mut b = Minter::start(&spec, &outs.0.join("b"));
    assert_eq!(b.wait_for("ERROR"), "ERROR ERR_NO_FREE_NODE");
    m.sql("TRUNCATE idmint_lease");
    b.wait_for("HOLD");
    b.wait_minted(20_000);
    assert_eq!(a.wait_for("ERROR"), "ERROR ERR_LEASE_LOST");
    let (ids_a, _) = a.finish();
    let (ids_b, _) = b.finish();
    assert_no_duplicates(&[&ids_a, &ids_b]);
}

/// The server stopped (SIGSTOP): a segment take fails with `StoreUnavailable` instead of
/// hanging, and after SIGCONT the next range lies past the last one. (Leases on a stopped
/// server are the conformance kit's `lease_store_paused`.)
#[test]
fn mysql_segment_take_on_a_paused_server_fails_within_the_timeout_and_resumes() {
    let m = MariaDb::start();
    let url = format!("{}?timeout_ms=300", m.url());
    let seg = Arc::new(MysqlStore::new(&url).unwrap());
    let first = seg.take("paused", 10).unwrap();
    assert!(m.signal("STOP"));
    let s2 = Arc::clone(&seg);
    match within(Duration::from_secs(30), move || s2.take("paused", 10)) {
        Some(Err(Error::StoreUnavailable { store: "mysql", .. })) => {}
        Some(other) => panic!("{other:?}"),
        None => panic!("a take hung while the server was stopped"),
    }
    assert!(m.signal("CONT"));
    let back = Instant::now();
    let next = loop {
        match seg.take("paused", 10) {
            Ok(r) => break r,
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
        assert!(
            back.elapsed() < Duration::from_secs(30),
            "segments never resumed"
        );
    };
    assert!(next.start >= first.end, "{next:?} overlaps {first:?}");
}

/// The server killed (SIGKILL) under a minting generator: minting stops with `LeaseLost`
/// before the lease could expire, resumes by itself when the server is back, and a second
/// holder joining afterwards repeats nothing.
#[test]
fn mysql_killed_mid_run_resumes_without_duplicate() {
    let m = MariaDb::start();
    let url = format!("{}?timeout_ms=200", m.url());
    let ttl = Duration::from_millis(1_000);
    let opts = LeaseOptions::new()
        .namespace(&ns("killed"))
        .ttl(ttl)
        .nodes(4);
    let cfg = Config::new(Layout::preset("twitter").unwrap());
    let g = LeasedSnowflake::new(lease_store(&url), cfg, opts.clone()).unwrap();
    let mut ids: Vec<u64> = (0..2_000).map(|_| g.next_id().unwrap()).collect();
    let t_kill = Instant::now();
    m.kill();
    let err = loop {
        match g.next_id() {
            Ok(id) => ids.push(id),
            Err(e) => break e,
        }
        assert!(t_kill.elapsed() < Duration::from_secs(30), "never stopped");
        std::thread::sleep(Duration::from_micros(200));
    };
    assert!(matches!(err, Error::LeaseLost { .. }), "{err:?}");
    assert!(t_kill.elapsed() < ttl + Duration::from_secs(2));
    m.resume();
    let back = Instant::now();
    loop {
        match g.next_id() {
            Ok(id) => {
                ids.push(id);
                break;
            }
            Err(Error::LeaseLost { .. }) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => panic!("{e:?}"),
        }
        assert!(back.elapsed() < Duration::from_secs(30), "never resumed");
    }
    ids.extend((0..2_000).map(|_| g.next_id().unwrap()));
    // The newcomer with the default timeout: on a loaded machine 200 ms can be short for a
    // first connection and acquire.
    let h = LeasedSnowflake::new(lease_store(&m.url()), cfg, opts).unwrap();
    assert_ne!(h.node(), g.node());
    ids.extend((0..2_000).map(|_| h.next_id().unwrap()));
    assert_no_duplicates(&[&ids]);
    drop(h);
    g.release().unwrap();
}

/// Boot mode on Baidu's `WORKER_NODE`: every acquire is a new row and its ID the node, never
/// reused (also across a UidGenerator inserting its own rows), and past the node space
/// `NoFreeNode`.
#[test]
fn mysql_boot_mode_assigns_fresh_nodes_and_refuses_past_the_node_space() {
    let m = MariaDb::start();
    let store = lease_store(&format!("{}?mode=boot", m.url()));
    let spec = LeaseSpec::new("boot", 6, Duration::from_secs(10));
    let a = store.acquire(&spec, T, None).unwrap();
    let b = store.acquire(&spec, T, None).unwrap();
    assert_eq!((a.node, b.node), (1, 2));
    store.renew(&a, T + 1).unwrap();
    store.release(&a, T + 2).unwrap();
    // A UidGenerator boots on the same table (Baidu's own insert).
    m.sql(
        "INSERT INTO WORKER_NODE (HOST_NAME, PORT, TYPE, LAUNCH_DATE, MODIFIED, CREATED)
         VALUES ('10.0.0.7', '1750000000000-4711', 2, CURDATE(), NOW(), NOW())",
    );
    let c = store.acquire(&spec, T, None).unwrap();
    assert_eq!(
        c.node, 4,
        "released nodes and Baidu's node are never handed out"
    );
    let row = m.sql("SELECT HOST_NAME <> '', PORT LIKE '%-%', TYPE FROM WORKER_NODE WHERE ID = 4");
    assert_eq!(row, "1\t1\t2\n");
    assert_eq!(store.acquire(&spec, T, None).unwrap().node, 5);
    assert!(matches!(
        store.acquire(&spec, T, None),
        Err(Error::NoFreeNode { nodes: 6 })
    ));
}
