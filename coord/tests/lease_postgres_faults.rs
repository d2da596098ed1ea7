//! The PostgreSQL stores under the faults production meets: the lease table truncated or
//! restored from an older backup (in the same cluster, into a new one), the segment store while
//! the server is stopped (SIGSTOP), a restart with the clock set back, and TLS; plus
//! the lease protocol's owner and epoch checks, the migration of old tables and huge node
//! spaces. A holder paused past its TTL and the lease store while the server is stopped are
//! the conformance kit's (`conformance.rs`).
//!
//! `fault_child` is not a test of its own: it is the child half of the process tests, run by
//! re-executing this binary (see `support::minter`).

mod support;

use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use idmint::Error;
use idmint_coord::lease::{self, LeaseSpec, LeaseStore};
use idmint_coord::segment::postgres::PostgresStore;
use idmint_coord::segment::SegmentStore;
use support::minter::{assert_no_duplicates, Faketime, Minter, MinterSpec};
use support::{ns, TempDir};
use support::{Kind, Server};

const T: u64 = 1_750_000_000_000;

fn client(s: &Server) -> postgres::Client {
    postgres::Client::connect(&s.url(), postgres::NoTls).expect("connect to the test server")
}

fn store(url: &str) -> Arc<dyn LeaseStore> {
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

/// The server stopped (SIGSTOP to every process of it) until dropped (SIGCONT).
struct Stopped<'a>(&'a Server);

impl<'a> Stopped<'a> {
    fn new(s: &'a Server) -> Stopped<'a> {
        assert!(s.signal("STOP"), "could not stop the server");
        Stopped(s)
    }
}

impl Drop for Stopped<'_> {
    fn drop(&mut self) {
        self.0.signal("CONT");
    }
}

/// The child half of the process tests (see `support::minter`).
#[test]
fn fault_child() {
    support::minter::child_main();
}

// ---------------------------------------------------------------------------------------------
// Lost and restored records

/// Another session holds the store's record while an acquire that raises the store's horizon
/// runs, then asks for the namespace's record: the acquire still gets its node once that
/// session ends, and no deadlock happens, since an acquire here locks one record at a time
/// (the grant, then the horizon, each its own statement). The MySQL store, whose acquire is one
/// transaction, meets the same session as a deadlock and runs again
/// (`mysql_stores.rs`, `mysql_acquire_chosen_as_a_deadlock_victim_runs_again`).
#[test]
fn postgres_acquire_next_to_a_session_crossing_its_locks_gets_a_node() {
    let s = Server::start(Kind::Postgres);
    let url = format!("{}?timeout_ms=5000", s.url());
    let name = ns("deadlock");
    let first = store(&url)
        .acquire(&LeaseSpec::new(&name, 64, Duration::from_secs(30)), T, None)
        .unwrap();
    let mut other = client(&s);
    let mut tx = other.transaction().unwrap();
    tx.execute(
        "UPDATE idmint_lease_epoch SET changed_at = changed_at WHERE namespace = ''",
        &[],
    )
    .unwrap();
    let (url2, name2) = (url.clone(), name.clone());
    let acquire = std::thread::spawn(move || {
        // A horizon above the store's: the acquire updates the store's record last.
        let spec =
            LeaseSpec::new(&name2, 64, Duration::from_secs(30)).horizon(Duration::from_secs(3600));
        store(&url2).acquire(&spec, T, None)
    });
    // Let the acquire lock the namespace's record and wait for the store's.
    std::thread::sleep(Duration::from_millis(300));
    let closing = tx.query(
        "SELECT epoch FROM idmint_lease_epoch WHERE namespace = $1 FOR UPDATE",
        &[&name],
    );
    assert!(closing.is_ok(), "the other session deadlocked: {closing:?}");
    tx.rollback().unwrap();
    let second = acquire.join().unwrap().expect("the acquire got a node");
    assert_ne!(second.node, first.node);
    let deadlocks: i64 = client(&s)
        .query_one(
            "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(deadlocks, 0);
}

/// `TRUNCATE idmint_lease` while A mints on the only node and B waits for it: B gets the node
/// at once, but only under a new epoch fenced past now + the longest horizon, and A's next
/// renewal fails. Zero duplicates.
#[test]
fn postgres_truncate_while_two_holders_mint_gives_no_duplicate() {
    let s = Server::start(Kind::Postgres);
    let outs = TempDir::new("pg-truncate");
    let url = format!("{}?timeout_ms=500", s.url());
    let spec = MinterSpec::new(&url, "truncate", 1, 3_000);
    let mut a = Minter::start(&spec, &outs.0.join("a"));
    a.wait_for("HOLD");
    a.wait_minted(20_000);
    let mut b = Minter::start(&spec, &outs.0.join("b"));
    assert_eq!(b.wait_for("ERROR"), "ERROR ERR_NO_FREE_NODE");
    client(&s).batch_execute("TRUNCATE idmint_lease").unwrap();
    b.wait_for("HOLD");
    b.wait_minted(20_000);
    assert_eq!(a.wait_for("ERROR"), "ERROR ERR_LEASE_LOST");
    let (ids_a, _) = a.finish();
    let (ids_b, _) = b.finish();
    assert_no_duplicates(&[&ids_a, &ids_b]);
}

/// The lease table is copied early, A keeps minting (and renewing) on the only node, then the
/// table is restored from the copy in the same cluster (TRUNCATE + INSERT of the old rows): the
/// node looks expired with an old fence. B, waiting for the node, must not mint A's IDs again.
#[test]
fn postgres_table_restored_from_an_older_copy_gives_no_duplicate() {
    let s = Server::start(Kind::Postgres);
    let outs = TempDir::new("pg-restore");
    let url = format!("{}?timeout_ms=500", s.url());
    let spec = MinterSpec::new(&url, "restore", 1, 3_000);
    let mut a = Minter::start(&spec, &outs.0.join("a"));
    a.wait_for("HOLD");
    a.wait_minted(20_000);
    let mut c = client(&s);
    c.batch_execute("CREATE TABLE lease_copy AS SELECT * FROM idmint_lease")
        .unwrap();
    let mut b = Minter::start(&spec, &outs.0.join("b"));
    assert_eq!(b.wait_for("ERROR"), "ERROR ERR_NO_FREE_NODE");
    // Until the copy's lease has expired and its recorded bound lies in the past.
    std::thread::sleep(Duration::from_millis(7_000));
    a.wait_minted(20_000);
    c.batch_execute(
        "BEGIN; TRUNCATE idmint_lease; INSERT INTO idmint_lease SELECT * FROM lease_copy; COMMIT",
    )
    .unwrap();
    b.wait_for("HOLD");
    b.wait_minted(20_000);
    let (ids_a, _) = a.finish();
    let (ids_b, _) = b.finish();
    assert_no_duplicates(&[&ids_a, &ids_b]);
}

/// The database is dumped (pg_dump) early while A mints; later A's server dies and the dump is
/// restored into a new cluster, where B leases the same one-node space. A mints until its
/// deadline on the dead server; B's grant comes from the old dump and must be fenced above
/// everything A could have minted. Zero duplicates.
#[test]
fn postgres_restored_into_a_new_cluster_gives_no_duplicate() {
    let old = Server::start(Kind::Postgres);
    let new = Server::start(Kind::Postgres);
    let outs = TempDir::new("pg-newcluster");
    let dump = outs.0.join("dump.sql");
    let spec_a = MinterSpec::new(&format!("{}?timeout_ms=500", old.url()), "moved", 1, 3_000);
    let spec_b = MinterSpec::new(&format!("{}?timeout_ms=500", new.url()), "moved", 1, 3_000);
    let mut a = Minter::start(&spec_a, &outs.0.join("a"));
    a.wait_for("HOLD");
    a.wait_minted(20_000);
    let pg_dump = std::process::Command::new(support::pg_tool("pg_dump"))
        .args([
            "-h",
            "127.0.0.1",
            "-p",
            &old.port().to_string(),
            "-U",
            "idmint",
        ])
        .args(["-d", "postgres", "-f"])
        .arg(&dump)
        .status()
        .unwrap();
    assert!(pg_dump.success());
    std::thread::sleep(Duration::from_millis(7_000));
    a.wait_minted(20_000);
    old.kill();
    let psql = std::process::Command::new(support::pg_tool("psql"))
        .args([
            "-h",
            "127.0.0.1",
            "-p",
            &new.port().to_string(),
            "-U",
            "idmint",
        ])
        .args(["-d", "postgres", "-q", "-v", "ON_ERROR_STOP=1", "-f"])
        .arg(&dump)
        .output()
        .unwrap();
    assert!(
        psql.status.success(),
        "{}",
        String::from_utf8_lossy(&psql.stderr)
    );
    let mut b = Minter::start(&spec_b, &outs.0.join("b"));
    b.wait_for("HOLD");
    b.wait_minted(20_000);
    let (ids_a, _) = a.finish();
    let (ids_b, _) = b.finish();
    assert_no_duplicates(&[&ids_a, &ids_b]);
}

// ---------------------------------------------------------------------------------------------
// A paused server

/// The PostgreSQL segment store while the server is stopped: a take fails with
/// `StoreUnavailable` instead of hanging, and works again (with a fresh range) after SIGCONT.
#[test]
fn postgres_segment_store_call_fails_within_its_timeout_while_the_server_is_stopped() {
    let s = Server::start(Kind::Postgres);
    let store = Arc::new(
        PostgresStore::new(&format!("{}?connect_timeout=1", s.url()))
            .unwrap()
            .with_statement_timeout(Duration::from_millis(300)),
    );
    let first = store.take("stopped", 100).unwrap();
    let stopped = Stopped::new(&s);
    let st = store.clone();
    match within(Duration::from_secs(60), move || st.take("stopped", 100)) {
        Some(Err(Error::StoreUnavailable {
            store: "postgres", ..
        })) => {}
        Some(other) => panic!("{other:?}"),
        None => panic!("a take hung while the server was stopped"),
    }
    drop(stopped);
    let back = Instant::now();
    let next = loop {
        match store.take("stopped", 100) {
            Ok(r) => break r,
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
        assert!(back.elapsed() < Duration::from_secs(60), "never resumed");
    };
    assert!(next.start >= first.end, "{next:?} overlaps {first:?}");
}

// ---------------------------------------------------------------------------------------------
// Clock set back across a restart

/// A holder mints and exits; the next holder of the node runs with its wall clock 30 s back
/// (libfaketime): it issues nothing at or below the first holder's largest ID.
#[test]
fn postgres_restart_with_the_clock_30s_back_issues_nothing_at_or_below_the_last_maximum() {
    let s = Server::start(Kind::Postgres);
    let outs = TempDir::new("pg-faketime");
    let spec = MinterSpec::new(&s.url(), "faketime", 1, 1_500);
    let mut a = Minter::start(&spec, &outs.0.join("a"));
    let clock_a = a.clock();
    a.wait_for("HOLD");
    a.wait_minted(20_000);
    let (ids_a, _) = a.finish();
    let max_a = *ids_a.iter().max().unwrap();
    let spec_b = spec
        .policy("logical:60000")
        .faketime(Faketime::Offset("-30s".into()));
    let mut b = Minter::start(&spec_b, &outs.0.join("b"));
    assert!(b.clock() + 20_000 < clock_a, "the clock was not set back");
    b.wait_for("HOLD");
    b.wait_minted(20_000);
    let (ids_b, _) = b.finish();
    assert!(ids_b.iter().all(|&id| id > max_a), "an ID at or below A's");
    assert_no_duplicates(&[&ids_a, &ids_b]);
}

// ---------------------------------------------------------------------------------------------
// The protocol: owner, epoch, fence after a loss, migration, bounded acquire

/// A lease with the right token but another owner (what a store that handed out a token
/// twice would see) is lost for renew and release; the real holder is unaffected.
#[test]
fn postgres_renew_with_the_right_token_but_another_owner_is_lease_lost() {
    let s = Server::start(Kind::Postgres);
    let store = lease::open(&s.url()).unwrap();
    let spec = LeaseSpec::new(&ns("owner"), 2, Duration::from_secs(30));
    let l = store.acquire(&spec, T, None).unwrap();
    let mut other = l.clone();
    other.owner = if l.owner == 1 { 2 } else { 1 };
    assert!(matches!(
        store.renew(&other, T + 5),
        Err(Error::LeaseLost { .. })
    ));
    assert!(matches!(
        store.release(&other, T + 5),
        Err(Error::LeaseLost { .. })
    ));
    store.renew(&l, T + 10).unwrap();
    store.release(&l, T + 10).unwrap();
}

/// A lease naming another epoch is lost; after `TRUNCATE` the store starts a new epoch, so the
/// old lease is lost and a new one carries another epoch.
#[test]
fn postgres_renew_under_a_changed_epoch_is_lease_lost() {
    let s = Server::start(Kind::Postgres);
    let store = lease::open(&s.url()).unwrap();
    let spec = LeaseSpec::new(&ns("epoch"), 2, Duration::from_secs(30));
    let l = store.acquire(&spec, T, None).unwrap();
    let mut stale = l.clone();
    stale.epoch = l.epoch.wrapping_add(1);
    assert!(matches!(
        store.renew(&stale, T + 5),
        Err(Error::LeaseLost { .. })
    ));
    store.renew(&l, T + 10).unwrap();
    client(&s).batch_execute("TRUNCATE idmint_lease").unwrap();
    assert!(matches!(
        store.renew(&l, T + 20),
        Err(Error::LeaseLost { .. })
    ));
    let m = store.acquire(&spec, T, None).unwrap();
    assert_ne!(m.epoch, l.epoch);
    store.renew(&m, T + 30).unwrap();
}

/// After the records are lost, every grant of the new epoch is fenced past the caller's now +
/// the longest horizon ever asked for in the namespace, also when this caller asks for less.
#[test]
fn postgres_grant_after_lost_records_is_fenced_past_now_plus_the_longest_horizon() {
    let s = Server::start(Kind::Postgres);
    let store = lease::open(&s.url()).unwrap();
    let ns = ns("fence");
    let long = LeaseSpec::new(&ns, 2, Duration::from_secs(10)).horizon(Duration::from_secs(90));
    let short = LeaseSpec::new(&ns, 2, Duration::from_secs(10)).horizon(Duration::from_secs(20));
    let first = store.acquire(&long, T, None).unwrap();
    assert_eq!(
        first.not_before_ms, None,
        "a new namespace has no lock delay"
    );
    store.release(&first, T + 100).unwrap();
    client(&s).batch_execute("TRUNCATE idmint_lease").unwrap();
    let a = store.acquire(&short, T + 1_000, None).unwrap();
    let b = store.acquire(&short, T + 2_000, None).unwrap();
    for l in [&a, &b] {
        assert!(l.not_before_ms >= Some(T + 1_000 + 90_000), "{l:?}");
        assert!(l.fence_ms >= l.not_before_ms, "{l:?}");
    }
}

/// The server's data lost under a live holder (killed, its data directory deleted, started
/// again: a new, empty cluster): a store object that saw the tables takes their absence for a
/// loss, so its next grant is fenced past the lock delay — the old holder may still mint up to
/// its bound, and a grant of the same node from the restarted counter would repeat its IDs
/// (found by `idmint-chaos --store postgres --minutes 10 --seed 2026`: instances whose clocks
/// were 3 s apart minted the same IDs).
#[test]
fn postgres_data_lost_under_a_store_object_fences_the_next_grant() {
    let s = Server::start(Kind::Postgres);
    let store = lease::open(&s.url()).unwrap();
    let ns = ns("wiped");
    let spec = LeaseSpec::new(&ns, 2, Duration::from_secs(10)).horizon(Duration::from_secs(90));
    let first = store.acquire(&spec, T, None).unwrap();
    assert_eq!(first.not_before_ms, None, "a new store has no lock delay");
    store.renew(&first, T + 100).unwrap();
    s.kill();
    std::fs::remove_dir_all(s.dir().join("data")).unwrap();
    s.resume();
    // The call on the connection to the killed server fails and drops it; the next connects
    // to the new cluster and finds no tables.
    let again = (0..3)
        .find_map(|k| store.acquire(&spec, T + 1_000 + k, None).ok())
        .expect("a grant once the schema is made again");
    assert_eq!(
        again.node, first.node,
        "the counter restarted: the same node again"
    );
    assert!(again.not_before_ms >= Some(T + 1_000 + 90_000), "{again:?}");
    assert!(again.fence_ms >= again.not_before_ms, "{again:?}");
    assert!(matches!(
        store.renew(&first, T + 2_000),
        Err(Error::LeaseLost { .. })
    ));
}

/// A table made by the first version of this store (no owner, no epoch table) is migrated in
/// place: its rows keep their tokens and bounds, the new columns appear, and the first grant
/// is fenced as after a loss (the store cannot know what holders of the old rows do).
#[test]
fn postgres_old_schema_table_is_migrated_in_place() {
    let s = Server::start(Kind::Postgres);
    client(&s)
        .batch_execute(&format!(
            "CREATE TABLE idmint_lease (
                namespace text NOT NULL, node bigint NOT NULL, holder text,
                token bigint NOT NULL DEFAULT 0, expires_at timestamptz,
                last_issued_ms bigint, released_at timestamptz, PRIMARY KEY (namespace, node));
             CREATE TABLE idmint_boot_seq (namespace text PRIMARY KEY, next_node bigint NOT NULL);
             CREATE TABLE idmint_boot (
                namespace text NOT NULL, node bigint NOT NULL, host text NOT NULL,
                pid bigint NOT NULL, holder text NOT NULL,
                started_at timestamptz NOT NULL DEFAULT now(), stopped_at timestamptz,
                last_issued_ms bigint, PRIMARY KEY (namespace, node));
             INSERT INTO idmint_lease (namespace, node, token, last_issued_ms, released_at)
                VALUES ('mig', 0, 5, {}, now());",
            T + 500
        ))
        .unwrap();
    let store = lease::open(&s.url()).unwrap();
    let spec = LeaseSpec::new("mig", 1, Duration::from_secs(10));
    let l = store.acquire(&spec, T, None).unwrap();
    assert_eq!((l.node, l.token), (0, 6));
    assert!(l.fence_ms >= Some(T + 20_000), "{l:?}");
    let columns: i64 = client(&s)
        .query_one(
            "SELECT count(*) FROM information_schema.columns
             WHERE table_name = 'idmint_lease' AND column_name IN ('owner', 'horizon_ms')",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(columns, 2);
    store.renew(&l, T + 30_000).unwrap();
    store.release(&l, T + 30_000).unwrap();
    let again = store.acquire(&spec, T + 40_000, None).unwrap();
    assert_eq!((again.token, again.fence_ms), (7, Some(T + 30_000)));
}

/// A 2^32-node space: acquiring creates rows for the granted nodes only (never-used nodes come
/// from a counter), so it takes no longer than for a small space.
#[test]
fn postgres_acquire_on_a_2_pow_32_node_space_creates_rows_only_for_granted_nodes() {
    let s = Server::start(Kind::Postgres);
    let store = lease::open(&s.url()).unwrap();
    let ns = ns("huge");
    let spec = LeaseSpec::new(&ns, 1 << 32, Duration::from_secs(30));
    let a = store.acquire(&spec, T, None).unwrap();
    let b = store.acquire(&spec, T, None).unwrap();
    assert_eq!((a.node, b.node), (0, 1));
    store.release(&a, T + 1).unwrap();
    let c = store.acquire(&spec, T + 2, None).unwrap();
    assert_eq!(c.node, 2, "never-used nodes come before released ones");
    let rows: i64 = client(&s)
        .query_one(
            "SELECT count(*) FROM idmint_lease WHERE namespace = $1",
            &[&ns],
        )
        .unwrap()
        .get(0);
    assert_eq!(rows, 3);
}

// ---------------------------------------------------------------------------------------------
// TLS

/// A server with TLS only (`hostssl`), its certificate from a private CA.
fn tls_server() -> (TempDir, support::tls::TestPki, Server, String) {
    let dir = TempDir::new("pg-pki");
    let pki = support::tls::make_pki(&dir.0);
    let s = Server::start_postgres_tls(&pki);
    let base = format!("postgres://idmint@127.0.0.1:{}/postgres", s.port());
    (dir, pki, s, base)
}

/// `sslmode=verify-full` with the CA that signed the server's certificate works for both
/// stores, by IP address and by host name (the server takes TCP only through TLS, so a working
/// session is an encrypted one).
#[test]
fn postgres_tls_verify_full_with_the_right_ca_works() {
    let (_dir, pki, s, base) = tls_server();
    let ca = pki.ca_cert.display();
    for url in [
        format!("{base}?sslmode=verify-full&sslrootcert={ca}"),
        format!(
            "postgres://idmint@localhost:{}/postgres?sslmode=verify-full&sslrootcert={ca}",
            s.port()
        ),
    ] {
        let store = lease::open(&url).unwrap();
        let spec = LeaseSpec::new(&ns("tls"), 2, Duration::from_secs(30));
        let l = store.acquire(&spec, T, None).unwrap();
        store.renew(&l, T + 1).unwrap();
        store.release(&l, T + 1).unwrap();
        let seg = PostgresStore::new(&url).unwrap();
        assert_eq!(seg.take("tls", 10).unwrap().len(), 10);
    }
}

/// `sslmode=verify-full` (and `verify-ca`) with a CA that did not sign the server's
/// certificate fails with a typed `StoreUnavailable` that names the certificate.
#[test]
fn postgres_tls_with_another_ca_fails_naming_the_certificate() {
    let (_dir, pki, _s, base) = tls_server();
    let other = pki.other_ca_cert.display();
    for mode in ["verify-full", "verify-ca"] {
        let url = format!("{base}?sslmode={mode}&sslrootcert={other}&timeout_ms=2000");
        let store = lease::open(&url).unwrap();
        let spec = LeaseSpec::new(&ns("badca"), 2, Duration::from_secs(30));
        match store.acquire(&spec, T, None) {
            Err(Error::StoreUnavailable {
                store: "postgres",
                reason,
                ..
            }) => assert!(
                reason.contains("TLS") && reason.contains("certificate"),
                "{reason}"
            ),
            other => panic!("{mode}: {other:?}"),
        }
        let seg = PostgresStore::new(&url.replace("&timeout_ms=2000", "")).unwrap();
        match seg.take("badca", 1) {
            Err(Error::StoreUnavailable { reason, .. }) => {
                assert!(reason.contains("certificate"), "{reason}")
            }
            other => panic!("{mode}: {other:?}"),
        }
    }
}

/// `sslmode=require` encrypts without checking the certificate, and works; `sslmode=disable`
/// against a server that takes TCP only through TLS is refused with a typed error, not a hang.
#[test]
fn postgres_tls_require_works_and_disable_is_refused() {
    let (_dir, _pki, _s, base) = tls_server();
    let spec = LeaseSpec::new(&ns("require"), 2, Duration::from_secs(30));
    let store = lease::open(&format!("{base}?sslmode=require")).unwrap();
    let l = store.acquire(&spec, T, None).unwrap();
    store.release(&l, T + 1).unwrap();
    let plain = lease::open(&format!("{base}?sslmode=disable&timeout_ms=2000")).unwrap();
    match plain.acquire(&spec, T, None) {
        Err(Error::StoreUnavailable {
            store: "postgres",
            reason,
            ..
        }) => assert!(reason.starts_with("not authorized"), "{reason}"),
        other => panic!("{other:?}"),
    }
}
