//! Private Redis and PostgreSQL servers for tests, started on loopback in a temporary
//! directory through `scripts/services.sh` and stopped when dropped. A test can stop or kill
//! its server mid-run and start it again on the same port and data.
#![allow(dead_code)]

pub mod minter;
pub mod tls;

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

/// A server owned by one test.
#[derive(Debug)]
pub struct Server {
    kind: Kind,
    dir: PathBuf,
    port: u16,
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
        let dir = temp_dir(kind.name());
        let s = Server {
            kind,
            dir,
            port: free_port(),
        };
        s.resume();
        s
    }

    /// Its URL: `redis://127.0.0.1:PORT/` or `postgres://idmint@127.0.0.1:PORT/postgres`.
    pub fn url(&self) -> String {
        match self.kind {
            Kind::Redis => format!("redis://127.0.0.1:{}/", self.port),
            Kind::Postgres => format!("postgres://idmint@127.0.0.1:{}/postgres", self.port),
        }
    }

    pub fn port(&self) -> u16 {
        self.port
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
        run(&["start", self.kind.name(), self.dir.to_str().unwrap(), &port]);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(services())
            .args(["stop", self.kind.name(), self.dir.to_str().unwrap()])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
