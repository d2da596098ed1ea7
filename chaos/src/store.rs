//! The coordination store under test, its members each in a namespace of their own: a
//! 3-member etcd cluster (started here), or one PostgreSQL, Redis, MariaDB or ZooKeeper server
//! (started by `scripts/services.sh`, as the test suite starts them, on the namespace's
//! address). What the nemesis does to it: kill a member, restart it, wipe everything.

use crate::netns::Host;
use crate::procs::{self, Spec};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// The stores the harness knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// etcd, 3 members.
    Etcd,
    /// PostgreSQL.
    Postgres,
    /// Redis (append-only file, fsync per write).
    Redis,
    /// MariaDB.
    Mariadb,
    /// ZooKeeper, standalone.
    Zookeeper,
}

impl Kind {
    /// Every kind, in the order the bounded run plays them.
    pub const ALL: [Kind; 5] = [
        Kind::Etcd,
        Kind::Postgres,
        Kind::Redis,
        Kind::Mariadb,
        Kind::Zookeeper,
    ];

    /// By name.
    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Etcd => "etcd",
            Kind::Postgres => "postgres",
            Kind::Redis => "redis",
            Kind::Mariadb => "mariadb",
            Kind::Zookeeper => "zookeeper",
        }
    }

    /// How many members it has.
    pub fn members(self) -> usize {
        if self == Kind::Etcd {
            3
        } else {
            1
        }
    }

    /// The port it serves clients on.
    fn port(self) -> u16 {
        match self {
            Kind::Etcd => 2379,
            Kind::Postgres => 5432,
            Kind::Redis => 6379,
            Kind::Mariadb => 3306,
            Kind::Zookeeper => 2181,
        }
    }
}

/// A running store.
pub struct Store {
    kind: Kind,
    members: Vec<Host>,
    dir: PathBuf,
    services: PathBuf,
    /// etcd's member processes (the others are started by services.sh, which keeps pid files).
    etcd: Vec<Option<Child>>,
}

impl Store {
    /// Starts `kind` on `members` (one host per member), with its data under `dir`.
    pub fn start(
        kind: Kind,
        members: Vec<Host>,
        dir: &Path,
        services: &Path,
    ) -> Result<Store, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut s = Store {
            kind,
            etcd: (0..members.len()).map(|_| None).collect(),
            members,
            dir: dir.to_path_buf(),
            services: services.to_path_buf(),
        };
        s.start_all()?;
        Ok(s)
    }

    /// The lease URL instances are given.
    pub fn lease_url(&self) -> String {
        let p = self.kind.port();
        let m = &self.members;
        match self.kind {
            Kind::Etcd => {
                let eps: Vec<String> = m.iter().map(|h| format!("{}:{p}", h.ip)).collect();
                format!("etcd://{}/idmint", eps.join(","))
            }
            Kind::Postgres => format!("postgres://idmint@{}:{p}/postgres", m[0].ip),
            Kind::Redis => format!("redis://{}:{p}/", m[0].ip),
            Kind::Mariadb => format!("mysql://idmint@{}:{p}/idmint", m[0].ip),
            Kind::Zookeeper => format!("zk://{}:{p}/idmint", m[0].ip),
        }
    }

    /// Its kind.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    fn member_dir(&self, m: usize) -> PathBuf {
        self.dir.join(format!("m{m}"))
    }

    fn services(&self, m: usize, args: &[&str]) -> Result<(), String> {
        let host = &self.members[m];
        procs::run(
            Command::new("ip")
                .args(["netns", "exec", &host.ns, "env"])
                .arg(format!("IDMINT_SERVICES_HOST={}", host.ip))
                .arg("bash")
                .arg(&self.services)
                .args(args),
        )
    }

    /// Starts every member (on the data they have) and waits until the store serves.
    pub fn start_all(&mut self) -> Result<(), String> {
        for m in 0..self.members.len() {
            self.start_member_only(m)?;
        }
        self.wait_ready(Duration::from_secs(60))
    }

    /// Starts member `m` again (on its own data) without waiting for the whole store.
    pub fn start_member(&mut self, m: usize) -> Result<(), String> {
        self.start_member_only(m)
    }

    fn start_member_only(&mut self, m: usize) -> Result<(), String> {
        let dir = self.member_dir(m);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let port = self.kind.port().to_string();
        let d = dir.to_string_lossy().into_owned();
        match self.kind {
            Kind::Etcd => {
                if self.etcd[m].is_some() {
                    return Ok(());
                }
                let peers: Vec<String> = self
                    .members
                    .iter()
                    .enumerate()
                    .map(|(i, h)| format!("m{i}=http://{}:2380", h.ip))
                    .collect();
                let ip = &self.members[m].ip;
                let args = vec![
                    format!("--name=m{m}"),
                    format!("--data-dir={d}/data"),
                    format!("--listen-client-urls=http://{ip}:2379"),
                    format!("--advertise-client-urls=http://{ip}:2379"),
                    format!("--listen-peer-urls=http://{ip}:2380"),
                    format!("--initial-advertise-peer-urls=http://{ip}:2380"),
                    format!("--initial-cluster={}", peers.join(",")),
                    "--initial-cluster-token=idmint-chaos".to_string(),
                    "--initial-cluster-state=new".to_string(),
                    // A member back from a partition asks for a vote first instead of
                    // deposing the leader with its higher term (etcd 3.4 has pre-vote off),
                    // and a dead leader is replaced within about a second: an election must
                    // fit in the instances' lease margin (a 3 s TTL renews every second and
                    // stops minting 2.7 s after the last renewal).
                    "--pre-vote=true".to_string(),
                    "--heartbeat-interval=100".to_string(),
                    "--election-timeout=500".to_string(),
                    "--log-level=warn".to_string(),
                ];
                let spec = Spec {
                    ns: self.members[m].ns.clone(),
                    program: PathBuf::from("etcd"),
                    args,
                    env: Vec::new(),
                    log: dir.join("etcd.log"),
                    clock: None,
                };
                self.etcd[m] = Some(procs::spawn(&spec)?);
                Ok(())
            }
            Kind::Postgres => self.services(m, &["start", "postgres", &d, &port]),
            Kind::Redis => self.services(m, &["start", "redis", &d, &port]),
            Kind::Mariadb => self.services(m, &["start", "mariadb", &d, &port]),
            Kind::Zookeeper => self.services(m, &["start", "zookeeper", &d, &port]),
        }
    }

    /// SIGKILLs member `m`, as a crash would.
    pub fn kill_member(&mut self, m: usize) -> Result<(), String> {
        let d = self.member_dir(m).to_string_lossy().into_owned();
        match self.kind {
            Kind::Etcd => {
                if let Some(c) = self.etcd[m].take() {
                    procs::kill(c);
                }
                Ok(())
            }
            k => procs::run(
                Command::new("bash")
                    .arg(&self.services)
                    .args(["kill", k.name(), &d]),
            ),
        }
    }

    /// Kills every member, deletes their data, starts them again empty.
    pub fn wipe(&mut self) -> Result<(), String> {
        self.kill_all()?;
        for m in 0..self.members.len() {
            let dir = self.member_dir(m);
            std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        Ok(())
    }

    /// Kills every member.
    pub fn kill_all(&mut self) -> Result<(), String> {
        for m in 0..self.members.len() {
            self.kill_member(m)?;
        }
        Ok(())
    }

    /// Whether the store answers (etcd: every started member reports a leader).
    fn ready(&self) -> bool {
        match self.kind {
            Kind::Etcd => self.members.iter().zip(&self.etcd).all(|(h, c)| {
                c.is_none()
                    || crate::http::get(&format!("http://{}:2379/health", h.ip), 1_000)
                        .map(|(status, body)| status == 200 && body.contains("true"))
                        .unwrap_or(false)
            }),
            // services.sh returns once the server answers.
            _ => true,
        }
    }

    fn wait_ready(&self, within: Duration) -> Result<(), String> {
        let until = Instant::now() + within;
        while Instant::now() < until {
            if self.ready() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Err(format!("{} did not become ready", self.kind.name()))
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        let _ = self.kill_all();
    }
}
