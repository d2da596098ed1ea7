//! A private standalone ZooKeeper for tests (Debian's `zookeeper` package on the JRE), started
//! on loopback in a temporary directory through `scripts/services.sh start zookeeper` and
//! stopped, its directory removed, when dropped. `tickTime` is 200 ms, so sessions may be as
//! short as 400 ms (and as long as 120 s).
//!
//! Besides start and stop, a test can crash it ([`kill`](ZooKeeper::kill)), pause it
//! ([`signal`](ZooKeeper::signal)), start it again on the same data and port
//! ([`resume`](ZooKeeper::resume)), or make it lose everything ([`wipe`](ZooKeeper::wipe)).
//!
//! Plain std only: this module is shared with the CLI's, the service's and the benchmarks'
//! tests, which have no ZooKeeper client (`lease_zookeeper.rs` has its own, to look at znodes).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{free_port, services, temp_dir};

fn run(args: &[&str]) {
    super::run(args)
}

/// A ZooKeeper server owned by one test.
#[derive(Debug)]
pub struct ZooKeeper {
    dir: PathBuf,
    port: u16,
}

impl ZooKeeper {
    /// Starts a new server on a free loopback port, and waits until it serves requests.
    pub fn start() -> ZooKeeper {
        let z = ZooKeeper {
            dir: temp_dir("zookeeper"),
            port: free_port(),
        };
        z.resume();
        z
    }

    /// The lease store URL: `zk://127.0.0.1:PORT/idmint`.
    pub fn url(&self) -> String {
        format!("zk://127.0.0.1:{}/idmint", self.port)
    }

    /// `HOST:PORT` for a ZooKeeper client.
    pub fn hosts(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its directory (`zoo.cfg`, `data/`, `zookeeper.log`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Stops the server cleanly (SIGTERM); its data stays for [`resume`](Self::resume).
    pub fn stop(&self) {
        run(&["stop", "zookeeper", self.dir.to_str().unwrap()]);
    }

    /// Kills the server with SIGKILL, as a crash would.
    pub fn kill(&self) {
        run(&["kill", "zookeeper", self.dir.to_str().unwrap()]);
    }

    /// Starts the server again on the same port and data (its sessions survive, if clients
    /// come back within their timeouts).
    pub fn resume(&self) {
        let port = self.port.to_string();
        run(&["start", "zookeeper", self.dir.to_str().unwrap(), &port]);
    }

    /// The server loses all its data: stopped, its data directory (snapshots and transaction
    /// log) deleted, started again empty on the same port — every znode and session is gone.
    pub fn wipe(&self) {
        self.stop();
        std::fs::remove_dir_all(self.dir.join("data")).expect("remove the data directory");
        self.resume();
    }

    /// Sends `sig` (`STOP` pauses, `CONT` resumes) to the server; whether that worked.
    pub fn signal(&self, sig: &str) -> bool {
        Command::new("bash")
            .arg(services())
            .args(["signal", "zookeeper", self.dir.to_str().unwrap(), sig])
            .status()
            .is_ok_and(|s| s.success())
    }
}

impl Drop for ZooKeeper {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(services())
            .args(["kill", "zookeeper", self.dir.to_str().unwrap()])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
