//! A private 3-member etcd cluster for tests, on loopback, started through
//! `scripts/services.sh` (`start etcd DIR PORT`): member `i` serves clients on `port + i` and
//! its peers on `port + 3 + i`, with its data in `DIR/m<i>`. A test can kill, pause or restart
//! one member (a follower, or the leader it asks for) or the whole cluster, wipe its data or
//! restore it from an older snapshot; dropping the fixture stops every member and removes the
//! directory.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU16, Ordering};

use super::tls::TestPki;

/// How many members the cluster has.
pub const MEMBERS: usize = 3;

/// The key prefix of [`Etcd::url`].
pub const PREFIX: &str = "/idmint";

/// A 3-member etcd cluster owned by one test.
#[derive(Debug)]
pub struct Etcd {
    dir: PathBuf,
    port: u16,
    /// The directory of its TLS certificates (`server.crt`, `server.key`, `ca.crt`): clients
    /// then connect through TLS only.
    tls: Option<PathBuf>,
}

fn services() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/services.sh")
}

/// `2 * MEMBERS` consecutive free loopback ports, below the kernel's ephemeral range (so no
/// outgoing connection takes one meanwhile); the first of them.
fn free_ports() -> u16 {
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let span = 2 * MEMBERS as u16;
    // Start somewhere different in each test process.
    let seed = (std::process::id() % 1500) as u16 * span;
    for _ in 0..2000 {
        let n = NEXT.fetch_add(span, Ordering::Relaxed);
        let base = 12_000 + (seed.wrapping_add(n) % 18_000);
        let all_free = (base..base + span).all(|p| TcpListener::bind(("127.0.0.1", p)).is_ok());
        if all_free {
            return base;
        }
    }
    panic!("no {span} consecutive free loopback ports");
}

fn run(args: &[&str]) -> String {
    let out = Command::new("bash")
        .arg(services())
        .args(args)
        .output()
        .expect("run scripts/services.sh");
    assert!(
        out.status.success(),
        "scripts/services.sh {args:?} failed (install etcd with scripts/setup.sh):\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

impl Etcd {
    /// Starts a new cluster (all three members at once, returning once they are healthy).
    pub fn start() -> Etcd {
        let e = Etcd {
            dir: super::temp_dir("etcd"),
            port: free_ports(),
            tls: None,
        };
        e.resume();
        e
    }

    /// Starts a new cluster whose members take client connections through TLS only, with the
    /// certificates of `pki` (see [`super::tls::make_pki`]).
    pub fn start_tls(pki: &TestPki) -> Etcd {
        let certs = super::temp_dir("etcd-certs");
        std::fs::copy(&pki.server_cert, certs.join("server.crt")).unwrap();
        std::fs::copy(&pki.server_key, certs.join("server.key")).unwrap();
        std::fs::copy(&pki.ca_cert, certs.join("ca.crt")).unwrap();
        let e = Etcd {
            dir: super::temp_dir("etcd-tls"),
            port: free_ports(),
            tls: Some(certs),
        };
        e.resume();
        e
    }

    fn kind(&self) -> &'static str {
        if self.tls.is_some() {
            "etcd-tls"
        } else {
            "etcd"
        }
    }

    fn dir_str(&self) -> &str {
        self.dir.to_str().unwrap()
    }

    /// The store URL: every member, prefix [`PREFIX`] (`etcds://` with TLS; the CA file is
    /// the caller's to add).
    pub fn url(&self) -> String {
        let scheme = if self.tls.is_some() { "etcds" } else { "etcd" };
        format!("{scheme}://{}{PREFIX}", self.endpoints().join(","))
    }

    /// `127.0.0.1:PORT` of every member.
    pub fn endpoints(&self) -> Vec<String> {
        (0..MEMBERS).map(|i| self.endpoint(i)).collect()
    }

    /// `127.0.0.1:PORT` of member `i`.
    pub fn endpoint(&self, i: usize) -> String {
        format!("127.0.0.1:{}", self.port + i as u16)
    }

    /// The data directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Kills every member with SIGKILL, as a crash (or a power cut) would.
    pub fn kill(&self) {
        run(&["kill", "etcd", self.dir_str()]);
    }

    /// Stops every member cleanly (slow: each tries to hand its leadership on first).
    pub fn stop(&self) {
        run(&["stop", "etcd", self.dir_str()]);
    }

    /// Starts every member again on its data and ports (they start together: one alone has
    /// no quorum), returning once the cluster is healthy.
    pub fn resume(&self) {
        let port = self.port.to_string();
        match &self.tls {
            Some(certs) => run(&[
                "start",
                "etcd-tls",
                self.dir_str(),
                &port,
                certs.to_str().unwrap(),
            ]),
            None => run(&["start", "etcd", self.dir_str(), &port]),
        };
    }

    /// Sends `sig` (`STOP` pauses, `CONT` resumes) to every member; whether that worked.
    pub fn signal(&self, sig: &str) -> bool {
        Command::new("bash")
            .arg(services())
            .args(["signal", "etcd", self.dir_str(), sig])
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Sends `sig` to member `i` only.
    pub fn signal_member(&self, i: usize, sig: &str) -> bool {
        Command::new("bash")
            .arg(services())
            .args(["signal", "etcd", self.dir_str(), sig, &i.to_string()])
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Kills member `i` with SIGKILL.
    pub fn kill_member(&self, i: usize) {
        run(&["kill", "etcd", self.dir_str(), &i.to_string()]);
    }

    /// Starts member `i` again on its data, returning once it is healthy (with the others).
    pub fn resume_member(&self, i: usize) {
        let (port, member) = (self.port.to_string(), i.to_string());
        match &self.tls {
            Some(certs) => run(&[
                "start",
                "etcd-tls",
                self.dir_str(),
                &port,
                certs.to_str().unwrap(),
                &member,
            ]),
            None => run(&["start", "etcd", self.dir_str(), &port, &member]),
        };
    }

    /// The index of the current leader (waiting for one to be elected).
    pub fn leader(&self) -> usize {
        run(&["leader", self.kind(), self.dir_str()])
            .trim()
            .parse()
            .expect("a member index from services.sh leader")
    }

    /// Runs `etcdctl ARGS` against the cluster; its output.
    pub fn etcdctl(&self, args: &[&str]) -> String {
        let mut all = vec!["etcdctl", self.kind(), self.dir_str()];
        all.extend_from_slice(args);
        run(&all)
    }

    /// How many keys start with `prefix`.
    pub fn count(&self, prefix: &str) -> usize {
        self.etcdctl(&["get", "--prefix", "--keys-only", prefix])
            .lines()
            .filter(|l| !l.is_empty())
            .count()
    }

    /// Whether `key` exists.
    pub fn exists(&self, key: &str) -> bool {
        !self.etcdctl(&["get", "--keys-only", key]).trim().is_empty()
    }

    /// Deletes every key under the store's prefix (etcd leases stay, as they do when an
    /// operator runs `etcdctl del --prefix`).
    pub fn delete_prefix(&self) {
        self.etcdctl(&["del", "--prefix", &format!("{PREFIX}/")]);
    }

    /// The cluster loses all its data, as far as etcd can while it runs: every key deleted and
    /// every lease revoked (etcd's `FLUSHALL`).
    pub fn wipe(&self) {
        self.etcdctl(&["del", "", "--from-key"]);
        // `found N leases` and then one lease id (hex) a line.
        for id in self.etcdctl(&["lease", "list"]).lines().skip(1) {
            let id = id.trim();
            if !id.is_empty() {
                // Revoked meanwhile by its holder: not an error here.
                let _ = Command::new("bash")
                    .arg(services())
                    .args([
                        "etcdctl",
                        self.kind(),
                        self.dir_str(),
                        "lease",
                        "revoke",
                        id,
                    ])
                    .output();
            }
        }
    }

    /// Saves a snapshot of the cluster's data to `file` (from the leader).
    pub fn snapshot(&self, file: &Path) {
        let leader = self.endpoint(self.leader());
        let mut args = vec!["--endpoints".to_string(), leader];
        if let Some(certs) = &self.tls {
            args.extend(["--cacert".into(), format!("{}/ca.crt", certs.display())]);
        }
        args.extend(["snapshot".into(), "save".into(), file.display().to_string()]);
        let out = Command::new("etcdctl").args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Kills the cluster and restores every member from `file` (as an operator restores a
    /// backup: same member names, peer URLs and cluster token, so the same cluster id), then
    /// starts it.
    pub fn restore(&self, file: &Path) {
        self.kill();
        let cluster: Vec<String> = (0..MEMBERS)
            .map(|j| format!("m{j}=http://127.0.0.1:{}", self.peer_port(j)))
            .collect();
        for i in 0..MEMBERS {
            let data = self.dir.join(format!("m{i}/data"));
            std::fs::remove_dir_all(&data).unwrap();
            let out = Command::new("etcdctl")
                .args(["snapshot", "restore", &file.display().to_string()])
                .args(["--name", &format!("m{i}")])
                .args(["--data-dir", data.to_str().unwrap()])
                .args(["--initial-cluster", &cluster.join(",")])
                .args(["--initial-cluster-token", &format!("idmint-{}", self.port)])
                .args([
                    "--initial-advertise-peer-urls",
                    &format!("http://127.0.0.1:{}", self.peer_port(i)),
                ])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        self.resume();
    }

    fn peer_port(&self, i: usize) -> u16 {
        self.port + (MEMBERS + i) as u16
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        // Killed, not stopped: its data goes anyway, and members stopping together each wait
        // seconds to hand their leadership to another.
        let _ = Command::new("bash")
            .arg(services())
            .args(["kill", "etcd", self.dir_str()])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
        if let Some(certs) = &self.tls {
            let _ = std::fs::remove_dir_all(certs);
        }
    }
}
