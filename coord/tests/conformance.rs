//! The store conformance kit (`support/kit.rs`) played on every store: the file lease, SQLite
//! segments, Redis, PostgreSQL and MariaDB (both kinds), etcd and ZooKeeper (leases). Each store runs its checks at once: the ones that
//! leave the store as they found it share one server, and each check that kills or wipes the
//! store gets a server of its own.

mod support;

use std::path::PathBuf;

use support::kit::{self, Backend};
use support::{temp_dir, Kind, Server};

#[test]
fn fault_child() {
    support::minter::child_main();
}

/// The child half of the kit's holder processes (`support::lease_checks::processes`).
#[test]
fn child_holder() {
    support::lease_checks::child_holder_main();
}

type Check = fn(&dyn Backend);

/// The call deadline of the crowd checks' store URLs: they prove exclusivity under
/// contention, and a loaded machine (every store's servers at once on two cores) can stretch
/// one call of 32 racing acquirers past the default second.
const PATIENT: &str = "timeout_ms=30000";

/// Plays every group at once, each on a fresh backend from `make`, its checks at once too.
fn play(make: &(dyn Fn() -> Box<dyn Backend> + Sync), groups: &[&[(&str, Check)]]) {
    std::thread::scope(|s| {
        for group in groups {
            s.spawn(move || {
                let backend = make();
                let b = &*backend;
                std::thread::scope(|s| {
                    for (name, check) in group.iter() {
                        std::thread::Builder::new()
                            .name(format!("{}: {name}", b.name()))
                            .spawn_scoped(s, move || {
                                let t = std::time::Instant::now();
                                check(b);
                                eprintln!("{}: {name} passed in {:?}", b.name(), t.elapsed());
                            })
                            .unwrap();
                    }
                });
            });
        }
    });
}

/// 32 threads and 16 processes at once: on a server of its own, so that the other checks'
/// calls do not queue behind theirs.
const LEASE_CONCURRENT: &[(&str, Check)] =
    &[("lease_concurrent_holders", kit::lease_concurrent_holders)];
const LEASE_SHARED: &[(&str, Check)] = &[
    ("lease_expiry_and_takeover", kit::lease_expiry_and_takeover),
    (
        "lease_bound_never_decreases",
        kit::lease_bound_never_decreases,
    ),
    (
        "lease_fence_after_restart_with_the_clock_back",
        kit::lease_fence_after_restart_with_the_clock_back,
    ),
];
/// A paused holder process next to a minting one, on a server of its own.
const LEASE_PAUSED_HOLDER: &[(&str, Check)] = &[(
    "lease_holder_paused_past_its_ttl",
    kit::lease_holder_paused_past_its_ttl,
)];
const SEGMENT_SHARED: &[(&str, Check)] = &[
    ("segment_eight_allocators", kit::segment_eight_allocators),
    ("segment_restart", kit::segment_restart),
];

struct FileBackend(PathBuf);

impl Backend for FileBackend {
    fn name(&self) -> &str {
        "file"
    }
    fn lease_url(&self) -> Option<String> {
        Some(format!("file:{}", self.0.display()))
    }
    fn segment_url(&self) -> Option<String> {
        None
    }
    fn leases_expire(&self) -> bool {
        false
    }
    fn kill(&self) -> bool {
        false
    }
    fn resume(&self) {}
    /// A temp cleaner removes the lease directory (under holders still running).
    fn wipe(&self) {
        support::remove_dir_under_holders(&self.0);
    }
}

impl Drop for FileBackend {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The file lease has no server to kill: its locks are the kernel's.
#[test]
fn file_lease_store() {
    play(
        &|| Box::new(FileBackend(temp_dir("kit-file"))),
        &[
            LEASE_CONCURRENT,
            LEASE_SHARED,
            LEASE_PAUSED_HOLDER,
            &[("lease_data_loss", kit::lease_data_loss)],
        ],
    );
}

struct SqliteBackend(PathBuf);

impl Backend for SqliteBackend {
    fn name(&self) -> &str {
        "sqlite"
    }
    fn lease_url(&self) -> Option<String> {
        None
    }
    fn segment_url(&self) -> Option<String> {
        Some(format!("sqlite:{}", self.0.join("segments.db").display()))
    }
    fn kill(&self) -> bool {
        false
    }
    fn resume(&self) {}
    /// The database file is deleted.
    fn wipe(&self) {
        for f in ["segments.db", "segments.db-wal", "segments.db-shm"] {
            let _ = std::fs::remove_file(self.0.join(f));
        }
    }
}

impl Drop for SqliteBackend {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// SQLite lives in the caller's file system: no server to kill.
#[test]
fn sqlite_segment_store() {
    play(
        &|| Box::new(SqliteBackend(temp_dir("kit-sqlite"))),
        &[
            SEGMENT_SHARED,
            &[("segment_data_loss", kit::segment_data_loss)],
        ],
    );
}

struct ServerBackend(Server, &'static str);

impl Backend for ServerBackend {
    fn patient_lease_url(&self) -> Option<String> {
        Some(with_query(&self.0.url(), PATIENT))
    }
    fn name(&self) -> &str {
        self.1
    }
    fn lease_url(&self) -> Option<String> {
        Some(self.0.url())
    }
    fn segment_url(&self) -> Option<String> {
        Some(self.0.url())
    }
    fn kill(&self) -> bool {
        self.0.kill();
        true
    }
    fn resume(&self) {
        self.0.resume();
    }
    fn pause(&self) -> bool {
        self.0.signal("STOP")
    }
    fn unpause(&self) {
        self.0.signal("CONT");
    }
    fn wipe(&self) {
        match self.1 {
            "redis" => {
                let mut c = redis::Client::open(self.0.url())
                    .unwrap()
                    .get_connection()
                    .unwrap();
                let _: () = redis::cmd("FLUSHALL").query(&mut c).unwrap();
            }
            _ => {
                let mut c = postgres::Client::connect(&self.0.url(), postgres::NoTls).unwrap();
                let tables: Vec<String> = c
                    .query(
                        "SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = 'public'",
                        &[],
                    )
                    .unwrap()
                    .iter()
                    .map(|r| r.get(0))
                    .collect();
                c.batch_execute(&format!("TRUNCATE {}", tables.join(", ")))
                    .unwrap();
            }
        }
    }
}

/// The groups every store with a server plays (both kinds of store).
fn server_groups() -> [&'static [(&'static str, Check)]; 8] {
    [
        LEASE_CONCURRENT,
        LEASE_SHARED,
        LEASE_PAUSED_HOLDER,
        SEGMENT_SHARED,
        &[(
            "lease_store_killed_mid_run",
            kit::lease_store_killed_mid_run,
        )],
        &[("lease_data_loss", kit::lease_data_loss)],
        &[(
            "segment_store_killed_mid_run",
            kit::segment_store_killed_mid_run,
        )],
        &[("segment_data_loss", kit::segment_data_loss)],
    ]
}

/// Pausing the server (SIGSTOP), on the stores whose fixtures can (all but the file, SQLite and
/// etcd ones).
const PAUSED: &[(&str, Check)] = &[("lease_store_paused", kit::lease_store_paused)];

#[test]
fn redis_stores() {
    play(
        &|| Box::new(ServerBackend(Server::start(Kind::Redis), "redis")),
        &[server_groups().as_slice(), &[PAUSED]].concat(),
    );
}

#[test]
fn postgres_stores() {
    play(
        &|| Box::new(ServerBackend(Server::start(Kind::Postgres), "postgres")),
        &[server_groups().as_slice(), &[PAUSED]].concat(),
    );
}

struct MariaBackend(support::mariadb::MariaDb);

impl Backend for MariaBackend {
    fn patient_lease_url(&self) -> Option<String> {
        Some(with_query(&self.0.url(), PATIENT))
    }
    fn name(&self) -> &str {
        "mariadb"
    }
    fn lease_url(&self) -> Option<String> {
        Some(self.0.url())
    }
    fn segment_url(&self) -> Option<String> {
        Some(self.0.url())
    }
    fn kill(&self) -> bool {
        self.0.kill();
        true
    }
    fn resume(&self) {
        self.0.resume();
    }
    fn pause(&self) -> bool {
        self.0.signal("STOP")
    }
    fn unpause(&self) {
        self.0.signal("CONT");
    }
    /// Every table of the database truncated.
    fn wipe(&self) {
        self.0.wipe();
    }
}

#[test]
fn mariadb_stores() {
    play(
        &|| Box::new(MariaBackend(support::mariadb::MariaDb::start())),
        &[server_groups().as_slice(), &[PAUSED]].concat(),
    );
}

/// The lease-only stores' groups.
fn lease_groups() -> [&'static [(&'static str, Check)]; 5] {
    [
        LEASE_CONCURRENT,
        LEASE_SHARED,
        LEASE_PAUSED_HOLDER,
        &[(
            "lease_store_killed_mid_run",
            kit::lease_store_killed_mid_run,
        )],
        &[("lease_data_loss", kit::lease_data_loss)],
    ]
}

/// A 3-member etcd cluster; killed and resumed whole.
struct EtcdBackend(support::etcd::Etcd);

impl Backend for EtcdBackend {
    fn name(&self) -> &str {
        "etcd"
    }
    fn lease_url(&self) -> Option<String> {
        Some(self.0.url())
    }
    fn patient_lease_url(&self) -> Option<String> {
        Some(with_query(&self.0.url(), PATIENT))
    }
    fn segment_url(&self) -> Option<String> {
        None
    }
    fn kill(&self) -> bool {
        self.0.kill();
        true
    }
    fn resume(&self) {
        self.0.resume();
    }
    /// Every key deleted and every etcd lease revoked.
    fn wipe(&self) {
        self.0.wipe();
    }
}

#[test]
fn etcd_lease_store() {
    play(
        &|| Box::new(EtcdBackend(support::etcd::Etcd::start())),
        &lease_groups(),
    );
}

/// A standalone ZooKeeper; wiped by deleting its data directory under it.
struct ZkBackend(support::zookeeper::ZooKeeper);

impl Backend for ZkBackend {
    fn name(&self) -> &str {
        "zookeeper"
    }
    fn lease_url(&self) -> Option<String> {
        Some(self.0.url())
    }
    fn patient_lease_url(&self) -> Option<String> {
        Some(with_query(&self.0.url(), PATIENT))
    }
    fn segment_url(&self) -> Option<String> {
        None
    }
    fn kill(&self) -> bool {
        self.0.kill();
        true
    }
    fn resume(&self) {
        self.0.resume();
    }
    fn pause(&self) -> bool {
        self.0.signal("STOP")
    }
    fn unpause(&self) {
        assert!(self.0.signal("CONT"));
    }
    fn wipe(&self) {
        self.0.wipe();
    }
}

#[test]
fn zookeeper_lease_store() {
    play(
        &|| Box::new(ZkBackend(support::zookeeper::ZooKeeper::start())),
        &[lease_groups().as_slice(), &[PAUSED]].concat(),
    );
}

/// `url` with `param` added to its query.
fn with_query(url: &str, param: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{param}")
}
