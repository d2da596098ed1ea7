//! A private standalone ZooKeeper for tests (Debian's `zookeeper` package on the JRE), started
//! on loopback in a temporary directory through `scripts/services.sh start zookeeper` and
//! stopped, its directory removed, when dropped. `tickTime` is 200 ms, so sessions may be as
//! short as 400 ms (and as long as 120 s).
//!
//! Besides start and stop, a test can crash it ([`kill`](ZooKeeper::kill)), pause it
//! ([`signal`](ZooKeeper::signal)), start it again on the same data and port
//! ([`resume`](ZooKeeper::resume)), or make it lose everything ([`wipe`](ZooKeeper::wipe)); and
//! look at its znodes ([`Probe`]).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use zookeeper_client::Client;

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
        self.kill();
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

    /// A client to look at the server's znodes.
    pub fn probe(&self) -> Probe {
        Probe::connect(&self.hosts())
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

/// A blocking ZooKeeper client for tests: reads and deletes znodes behind the store's back.
pub struct Probe {
    rt: tokio::runtime::Runtime,
    client: Client,
}

impl Probe {
    /// Connects (retrying for up to a minute: a server just restarted may refuse at first).
    pub fn connect(hosts: &str) -> Probe {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        let client = loop {
            let c = rt.block_on(async {
                tokio::time::timeout(
                    Duration::from_secs(5),
                    Client::connector()
                        .with_session_timeout(Duration::from_secs(30))
                        .connect(hosts),
                )
                .await
            });
            match c {
                Ok(Ok(c)) => break c,
                _ if std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(50))
                }
                other => panic!("cannot connect to ZooKeeper at {hosts}: {other:?}"),
            }
        };
        Probe { rt, client }
    }

    /// The data of `path`, or `None` if it does not exist.
    pub fn get(&self, path: &str) -> Option<String> {
        match self.rt.block_on(self.client.get_data(path)) {
            Ok((data, _)) => Some(String::from_utf8_lossy(&data).into_owned()),
            Err(zookeeper_client::Error::NoNode) => None,
            Err(e) => panic!("get {path}: {e}"),
        }
    }

    /// Whether `path` exists.
    pub fn exists(&self, path: &str) -> bool {
        self.rt
            .block_on(self.client.check_stat(path))
            .unwrap_or_else(|e| panic!("exists {path}: {e}"))
            .is_some()
    }

    /// The session that owns ephemeral `path`, if it exists.
    pub fn owner(&self, path: &str) -> Option<i64> {
        self.rt
            .block_on(self.client.check_stat(path))
            .unwrap_or_else(|e| panic!("stat {path}: {e}"))
            .map(|s| s.ephemeral_owner)
    }

    /// The children of `path`, sorted (empty if it does not exist).
    pub fn children(&self, path: &str) -> Vec<String> {
        match self.rt.block_on(self.client.list_children(path)) {
            Ok(mut v) => {
                v.sort();
                v
            }
            Err(zookeeper_client::Error::NoNode) => Vec::new(),
            Err(e) => panic!("children {path}: {e}"),
        }
    }

    /// Sets the data of `path`.
    pub fn set(&self, path: &str, data: &str) {
        self.rt
            .block_on(self.client.set_data(path, data.as_bytes(), None))
            .unwrap_or_else(|e| panic!("set {path}: {e}"));
    }

    /// Deletes `path` and everything under it (ephemeral znodes of other sessions too).
    pub fn delete_all(&self, path: &str) {
        for c in self.children(path) {
            self.delete_all(&format!("{path}/{c}"));
        }
        match self.rt.block_on(self.client.delete(path, None)) {
            Ok(()) | Err(zookeeper_client::Error::NoNode) => {}
            Err(e) => panic!("delete {path}: {e}"),
        }
    }

    /// Waits (up to a minute) until `path` exists.
    pub fn wait_exists(&self, path: &str) {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while !self.exists(path) {
            assert!(
                std::time::Instant::now() < deadline,
                "{path} never appeared"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
