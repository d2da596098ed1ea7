//! Private Redis, PostgreSQL (and, in [`mariadb`], MariaDB; etcd clusters: [`etcd`]) servers for tests, started on loopback in a temporary
//! directory through `scripts/services.sh` and stopped when dropped. A test can stop or kill
//! its server mid-run and start it again on the same port and data. ZooKeeper has its own
//! fixture, [`zookeeper::ZooKeeper`].
#![allow(dead_code)]

pub mod etcd;
pub mod kit;
pub mod lease_checks;
pub mod mariadb;
pub mod minter;
pub mod tls;
pub mod zookeeper;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// Which server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Redis,
    Postgres,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Redis => "redis",
            Kind::Postgres => "postgres",
        }
    }
}

/// How a test Redis persists its data (`scripts/services.sh start redis DIR PORT MODE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Persistence {
    /// Append-only file fsynced before every reply (the default of every other test).
    Always,
    /// Append-only file fsynced once a second: a crash loses up to a second of writes.
    EverySec,
    /// No persistence: a restart starts empty.
    None,
}

impl Persistence {
    fn arg(self) -> &'static str {
        match self {
            Persistence::Always => "always",
            Persistence::EverySec => "everysec",
            Persistence::None => "none",
        }
    }
}

/// A server owned by one test.
#[derive(Debug)]
pub struct Server {
    kind: Kind,
    dir: PathBuf,
    port: u16,
    /// Redis only: how it persists.
    persistence: Persistence,
    /// The directory of its TLS certificates (`server.crt`, `server.key`, and `ca.crt` for
    /// Redis); it then takes TCP connections through TLS only.
    tls: Option<PathBuf>,
}

fn services() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/services.sh")
}

/// A fresh, empty directory under the system temp dir.
pub fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "idmint-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Removes `dir` as a temp cleaner would under a running holder: a holder may write into it
/// while it goes (`ENOTEMPTY`), so it is tried again until it is gone (at most a second).
pub fn remove_dir_under_holders(dir: &std::path::Path) {
    let mut last = None;
    for _ in 0..100 {
        match std::fs::remove_dir_all(dir) {
            Ok(()) => return,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(e) => last = Some(e),
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("removing {} for a second: {last:?}", dir.display());
}

/// A fresh, empty temporary directory, removed when dropped.
#[derive(Debug)]
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A new directory under the system temp dir, named after `tag`.
    pub fn new(tag: &str) -> TempDir {
        TempDir(temp_dir(tag))
    }

    /// The path of the file `name` in it, as text (for store URLs).
    pub fn file(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A namespace (or key) no other test of this process uses: `TAG-PID-N`.
pub fn ns(tag: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// The wall clock, in ms since the Unix epoch.
pub fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

fn run(args: &[&str]) {
    let out = Command::new("bash")
        .arg(services())
        .args(args)
        .output()
        .expect("run scripts/services.sh");
    assert!(
        out.status.success(),
        "scripts/services.sh {args:?} failed (install the servers with scripts/setup.sh):\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Server {
    /// Starts a new server of `kind` on a free loopback port.
    pub fn start(kind: Kind) -> Server {
        Server::start_with(kind, Persistence::Always, None)
    }

    /// Starts a Redis that persists as `persistence` says.
    pub fn start_redis(persistence: Persistence) -> Server {
        Server::start_with(Kind::Redis, persistence, None)
    }

    /// Starts a Redis that listens for TLS only, with the certificates of `pki`
    /// (see [`tls::make_pki`]).
    pub fn start_redis_tls(pki: &tls::TestPki) -> Server {
        let certs = pki
            .ca_cert
            .parent()
            .expect("the PKI directory")
            .to_path_buf();
        Server::start_with(Kind::Redis, Persistence::Always, Some(certs))
    }

    fn start_with(kind: Kind, persistence: Persistence, tls: Option<PathBuf>) -> Server {
        let dir = temp_dir(kind.name());
        let s = Server {
            kind,
            dir,
            port: free_port(),
            persistence,
            tls,
        };
        s.resume();
        s
    }

    /// Starts a PostgreSQL server with `ssl=on`, its certificate and key from `pki`, that
    /// accepts TCP connections only through TLS (`hostssl` in pg_hba.conf).
    pub fn start_postgres_tls(pki: &tls::TestPki) -> Server {
        let certs = temp_dir("postgres-certs");
        std::fs::copy(&pki.server_cert, certs.join("server.crt")).unwrap();
        std::fs::copy(&pki.server_key, certs.join("server.key")).unwrap();
        let s = Server {
            kind: Kind::Postgres,
            dir: temp_dir("postgres-tls"),
            port: free_port(),
            persistence: Persistence::Always,
            tls: Some(certs),
        };
        s.resume();
        s
    }

    /// Sends `sig` (`STOP` pauses, `CONT` resumes) to every process of the server; whether
    /// that worked.
    pub fn signal(&self, sig: &str) -> bool {
        Command::new("bash")
            .arg(services())
            .args(["signal", self.kind.name(), self.dir.to_str().unwrap(), sig])
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Its URL: `redis://127.0.0.1:PORT/` (`rediss://` with TLS) or
    /// `postgres://idmint@127.0.0.1:PORT/postgres`.
    pub fn url(&self) -> String {
        match self.kind {
            Kind::Redis if self.tls.is_some() => format!("rediss://127.0.0.1:{}/", self.port),
            Kind::Redis => format!("redis://127.0.0.1:{}/", self.port),
            Kind::Postgres => format!("postgres://idmint@127.0.0.1:{}/postgres", self.port),
        }
    }

    /// The server's process id (Redis only), to pause it with SIGSTOP.
    pub fn pid(&self) -> u32 {
        assert_eq!(self.kind, Kind::Redis, "pid() is for Redis");
        let text = std::fs::read_to_string(self.dir.join("redis.pid")).expect("redis.pid");
        text.trim().parse().expect("a pid in redis.pid")
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's data directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Stops the server cleanly (its data stays for [`resume`](Self::resume)).
    pub fn stop(&self) {
        run(&["stop", self.kind.name(), self.dir.to_str().unwrap()]);
    }

    /// Kills the server with SIGKILL, as a crash would.
    pub fn kill(&self) {
        run(&["kill", self.kind.name(), self.dir.to_str().unwrap()]);
    }

    /// Starts the server again on the same port and data.
    pub fn resume(&self) {
        let port = self.port.to_string();
        let dir = self.dir.to_str().unwrap();
        match (self.kind, &self.tls) {
            (Kind::Redis, Some(certs)) => {
                run(&["start", "redis-tls", dir, &port, certs.to_str().unwrap()])
            }
            (Kind::Redis, None) => run(&["start", "redis", dir, &port, self.persistence.arg()]),
            (Kind::Postgres, Some(certs)) => {
                run(&["start", "postgres-tls", dir, &port, certs.to_str().unwrap()])
            }
            (Kind::Postgres, None) => run(&["start", "postgres", dir, &port]),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(services())
            .args(["stop", self.kind.name(), self.dir.to_str().unwrap()])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
        if let Some(certs) = &self.tls {
            let _ = std::fs::remove_dir_all(certs);
        }
    }
}

/// A PostgreSQL client program (`pg_dump`, `psql`) of the installed server version.
pub fn pg_tool(name: &str) -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL is installed (scripts/setup.sh)")
        .flatten()
        .map(|e| e.path().join("bin").join(name))
        .filter(|p| p.exists())
        .collect();
    found.sort();
    found.pop().expect("the PostgreSQL client programs")
}
