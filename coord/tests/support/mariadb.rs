//! A private MariaDB server for tests (`scripts/services.sh start mariadb DIR PORT`): its own
//! data directory and socket in a temporary directory, TCP on a free loopback port, user
//! `idmint` (no password) owning database `idmint`. Killed, and its directory removed, when
//! dropped.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A MariaDB server owned by one test.
#[derive(Debug)]
pub struct MariaDb {
    dir: PathBuf,
    port: u16,
}

impl MariaDb {
    /// Initialises a new data directory and starts the server on a free loopback port.
    pub fn start() -> MariaDb {
        let m = MariaDb {
            dir: super::temp_dir("mariadb"),
            port: super::free_port(),
        };
        m.resume();
        m
    }

    /// `mysql://idmint@127.0.0.1:PORT/idmint`.
    pub fn url(&self) -> String {
        format!("mysql://idmint@127.0.0.1:{}/idmint", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's directory (data in `data/`, socket `mysqld.sock`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Starts the server again on the same port and data (a no-op while it runs).
    pub fn resume(&self) {
        super::run(&[
            "start",
            "mariadb",
            self.dir.to_str().unwrap(),
            &self.port.to_string(),
        ]);
    }

    /// Stops the server cleanly (its data stays for [`resume`](Self::resume)).
    pub fn stop(&self) {
        super::run(&["stop", "mariadb", self.dir.to_str().unwrap()]);
    }

    /// Kills the server with SIGKILL, as a crash would.
    pub fn kill(&self) {
        super::run(&["kill", "mariadb", self.dir.to_str().unwrap()]);
    }

    /// Sends `sig` (`STOP` pauses, `CONT` resumes) to the server; whether that worked.
    pub fn signal(&self, sig: &str) -> bool {
        Command::new("bash")
            .arg(super::services())
            .args(["signal", "mariadb", self.dir.to_str().unwrap(), sig])
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Runs `sql` as the server's root user (through its socket) in database `idmint`;
    /// returns what it printed (tab-separated, no column names). Panics if it fails.
    pub fn sql(&self, sql: &str) -> String {
        let out = Command::new("mariadb")
            .arg("--no-defaults")
            .arg(format!(
                "--socket={}",
                self.dir.join("mysqld.sock").display()
            ))
            .args([
                "-uroot",
                "--batch",
                "--skip-column-names",
                "idmint",
                "-e",
                sql,
            ])
            .output()
            .expect("run the mariadb client");
        assert!(
            out.status.success(),
            "mariadb -e {sql:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The store loses all its data: `TRUNCATE` of every table of database `idmint` (Leaf's,
    /// Baidu's and idmint's own), the tables themselves staying.
    pub fn wipe(&self) {
        let tables = self.sql(
            "SELECT TABLE_NAME FROM information_schema.TABLES
             WHERE TABLE_SCHEMA = 'idmint' AND TABLE_TYPE = 'BASE TABLE'",
        );
        let stmts: String = tables
            .lines()
            .filter(|t| !t.is_empty())
            .map(|t| format!("TRUNCATE TABLE `{t}`;"))
            .collect();
        if !stmts.is_empty() {
            self.sql(&stmts);
        }
    }
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        // Killed rather than shut down: its data goes with the directory anyway, and a clean
        // InnoDB shutdown takes seconds.
        let _ = Command::new("bash")
            .arg(super::services())
            .args(["kill", "mariadb", self.dir.to_str().unwrap()])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
