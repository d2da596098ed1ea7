//! A private PostgreSQL cluster per test: `initdb` into a temporary directory, started on a
//! free loopback port with `shared_preload_libraries = 'idmint'` and the test's `idmint.*`
//! settings, restarted with other settings or under libfaketime, stopped when dropped.
//! The extension must be installed into the machine's PostgreSQL first
//! (`cargo pgrx install --release`, which `scripts/test.sh` runs).

#![allow(dead_code)]

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

static SEQ: AtomicU32 = AtomicU32::new(0);

/// PostgreSQL's programs (`pg_config --bindir`).
fn bindir() -> PathBuf {
    let out = Command::new("pg_config")
        .arg("--bindir")
        .output()
        .expect("pg_config (install postgresql-server-dev-15: scripts/setup.sh servers)");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

fn is_root() -> bool {
    // SAFETY: getuid has no preconditions.
    unsafe { libc::getuid() == 0 }
}

/// Debian's libfaketime (package `faketime`, installed by scripts/setup.sh).
const FAKETIME_LIB: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

/// Runs a PostgreSQL program, as the `postgres` user when the tests run as root (PostgreSQL
/// refuses to run as root), with `faketime` offsetting its wall clock when given.
fn pg_command(program: &str, faketime: Option<&str>) -> Command {
    let exe = bindir().join(program);
    let mut argv: Vec<String> = Vec::new();
    if is_root() {
        argv.extend(["runuser", "-u", "postgres", "--"].map(String::from));
    }
    if let Some(offset) = faketime {
        // libfaketime by its environment, not the `faketime` program (which waits for every
        // process it started, the server included, to exit). Only the wall clock moves.
        argv.extend([
            "env".to_string(),
            format!("LD_PRELOAD={FAKETIME_LIB}"),
            format!("FAKETIME={offset}"),
            "FAKETIME_DONT_FAKE_MONOTONIC=1".to_string(),
        ]);
    }
    argv.push(exe.display().to_string());
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]);
    cmd
}

fn run(mut cmd: Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// A running private cluster.
pub struct Cluster {
    pub dir: PathBuf,
    pub port: u16,
    running: bool,
}

impl Cluster {
    /// A new cluster started with `settings` (lines of postgresql.conf).
    pub fn start(settings: &[&str]) -> Cluster {
        let dir = std::env::temp_dir().join(format!(
            "idmint-pg-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("cluster directory");
        if is_root() {
            run(
                {
                    let mut c = Command::new("chown");
                    c.arg("postgres").arg(&dir);
                    c
                },
                "chown",
            );
        }
        let mut initdb = pg_command("initdb", None);
        initdb
            .arg("-D")
            .arg(dir.join("data"))
            .args(["-A", "trust", "-U", "idmint", "--no-sync"]);
        run(initdb, "initdb");
        let conf = dir.join("data/postgresql.conf");
        let mut text = fs::read_to_string(&conf).expect("postgresql.conf");
        text.push_str("\ninclude_if_exists = 'idmint_test.conf'\n");
        fs::write(&conf, text).expect("postgresql.conf");
        let mut c = Cluster {
            dir,
            port: free_port(),
            running: false,
        };
        c.restart(settings, None);
        c
    }

    /// A hot standby of `primary` (pg_basebackup with `-R`), started with `settings`.
    pub fn standby_of(primary: &Cluster, settings: &[&str]) -> Cluster {
        let dir = std::env::temp_dir().join(format!(
            "idmint-pg-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("cluster directory");
        if is_root() {
            let mut c = Command::new("chown");
            c.arg("postgres").arg(&dir);
            run(c, "chown");
        }
        let mut backup = pg_command("pg_basebackup", None);
        backup
            .arg("-D")
            .arg(dir.join("data"))
            .args(["-R", "-X", "stream", "-h", "127.0.0.1", "-U", "idmint"])
            .arg("-p")
            .arg(primary.port.to_string());
        run(backup, "pg_basebackup");
        let mut c = Cluster {
            dir,
            port: free_port(),
            running: false,
        };
        c.restart(settings, None);
        c
    }

    /// The data directory.
    pub fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// Stops the server (fast shutdown: sessions end, the lease worker releases its node).
    pub fn stop(&mut self) {
        if self.running {
            let mut c = pg_command("pg_ctl", None);
            c.arg("-D")
                .arg(self.data())
                .args(["-m", "fast", "-w", "stop"]);
            run(c, "pg_ctl stop");
            self.running = false;
        }
    }

    /// Stops the server if running, then starts it with `settings`, under `faketime` if given
    /// (an offset such as `-10s`).
    pub fn restart(&mut self, settings: &[&str], faketime: Option<&str>) {
        self.stop();
        let mut lines = vec![
            "shared_preload_libraries = 'idmint'".to_string(),
            "listen_addresses = '127.0.0.1'".to_string(),
            format!("port = {}", self.port),
            format!("unix_socket_directories = '{}'", self.dir.display()),
            "fsync = off".to_string(),
            "max_connections = 60".to_string(),
        ];
        lines.extend(settings.iter().map(|s| s.to_string()));
        fs::write(
            self.data().join("idmint_test.conf"),
            lines.join("\n") + "\n",
        )
        .expect("idmint_test.conf");
        let mut c = pg_command("pg_ctl", faketime);
        c.arg("-D")
            .arg(self.data())
            .arg("-l")
            .arg(self.dir.join("postgres.log"))
            .args(["-w", "-t", "60", "start"]);
        let out = c.output().expect("pg_ctl start");
        if !out.status.success() {
            let log = fs::read_to_string(self.dir.join("postgres.log")).unwrap_or_default();
            panic!(
                "pg_ctl start failed:\n{}\n{log}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        self.running = true;
    }

    /// A connection URL for database `postgres`.
    pub fn url(&self) -> String {
        format!("postgres://idmint@127.0.0.1:{}/postgres", self.port)
    }

    /// A new session.
    pub fn client(&self) -> postgres::Client {
        postgres::Client::connect(&self.url(), postgres::NoTls)
            .expect("connect to the test cluster")
    }

    /// The server log so far.
    pub fn log(&self) -> String {
        fs::read_to_string(self.dir.join("postgres.log")).unwrap_or_default()
    }

    /// A session with the extension created.
    pub fn with_extension(&self) -> postgres::Client {
        let mut c = self.client();
        c.batch_execute("CREATE EXTENSION IF NOT EXISTS idmint")
            .expect("CREATE EXTENSION idmint (install it first: cargo pgrx install --release)");
        c
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if self.running {
            let mut c = pg_command("pg_ctl", None);
            c.arg("-D")
                .arg(self.data())
                .args(["-m", "immediate", "-w", "stop"]);
            let _ = c.output();
        }
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// The SQL error's message (`ERR_…: …`), or panics if `r` succeeded.
pub fn sql_error<T: std::fmt::Debug>(r: Result<T, postgres::Error>) -> String {
    let e = r.expect_err("the statement must fail");
    match e.as_db_error() {
        Some(db) => db.message().to_string(),
        None => panic!("not a server error: {e}"),
    }
}

/// The path of a shared vector file.
pub fn vectors(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../vectors")
        .join(name)
}
