//! The `idmint serve` instances, each in its namespace with its own wall clock (libfaketime,
//! steered through an offset file), and what the nemesis does to them: pause, resume, kill,
//! restart with another clock, move the clock while they run.

use crate::netns::Host;
use crate::procs::{self, Spec};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The port every instance listens on (each on its own address).
pub const PORT: u16 = 7600;
/// Segment keys the instances serve.
pub const KEYS: [&str; 3] = ["k0", "k1", "k2"];

/// What every instance is started with.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The `idmint` binary.
    pub idmint: PathBuf,
    /// The lease store's URL.
    pub lease_url: String,
    /// The service's own lease TTL, ms.
    pub ttl_ms: u64,
    /// The service's Snowflake layout.
    pub layout: String,
    /// The client lease layout.
    pub client_layout: String,
    /// The file with the key that signs client lease tokens (the same for all instances).
    pub lease_key: PathBuf,
}

/// One instance.
pub struct Instance {
    /// Its index.
    pub index: usize,
    /// Its host.
    pub host: Host,
    dir: PathBuf,
    clock: PathBuf,
    /// Its current clock offset from true time, ms.
    pub offset_ms: i64,
    child: Option<Child>,
    /// Which run of its process is up (grows at each restart); requests record it.
    pub incarnation: Arc<AtomicU32>,
}

impl Instance {
    /// Its base URL.
    pub fn url(&self) -> String {
        format!("http://{}:{PORT}", self.host.ip)
    }

    /// Creates instance `index` on `host` with its data under `dir` (not started).
    pub fn new(index: usize, host: Host, dir: &Path) -> Result<Instance, String> {
        std::fs::create_dir_all(dir.join("data")).map_err(|e| format!("{}: {e}", dir.display()))?;
        let clock = dir.join("faketime");
        procs::set_offset(&clock, 0)?;
        Ok(Instance {
            index,
            host,
            dir: dir.to_path_buf(),
            clock,
            offset_ms: 0,
            child: None,
            incarnation: Arc::new(AtomicU32::new(0)),
        })
    }

    /// Starts its process (a new incarnation).
    pub fn start(&mut self, s: &Settings) -> Result<(), String> {
        let data = self.dir.join("data");
        let args = vec![
            "serve".to_string(),
            format!("--listen={}:{PORT}", self.host.ip),
            format!("--data-dir={}", data.display()),
            format!("--lease={}", s.lease_url),
            format!("--lease-ttl-ms={}", s.ttl_ms),
            format!("--layout={}", s.layout),
            format!("--client-layouts={}", s.client_layout),
            format!("--lease-key=@{}", s.lease_key.display()),
            format!("--keys={}", KEYS.join(",")),
            "--allow-anonymous=true".to_string(),
            "--client-leases-per-address=0".to_string(),
            "--rate-limit=off".to_string(),
            "--request-timeout-ms=2000".to_string(),
            "--log=warn".to_string(),
        ];
        let spec = Spec {
            ns: self.host.ns.clone(),
            program: s.idmint.clone(),
            args,
            env: Vec::new(),
            log: self.dir.join("idmint.log"),
            clock: Some(self.clock.clone()),
        };
        self.child = Some(procs::spawn(&spec)?);
        Ok(())
    }

    /// Waits until it mints a Snowflake ID. `/readyz` says ready as soon as the node lease is
    /// held, while minting may still wait for the node's fence (a namespace's first grant pays
    /// the store's lock delay): the run starts once every instance really serves.
    pub fn wait_ready(&self, within: Duration) -> Result<(), String> {
        let until = Instant::now() + within;
        let url = format!("{}/v1/snowflake", self.url());
        while Instant::now() < until {
            if let Ok((200, _)) = crate::http::get(&url, 2_500) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Err(format!(
            "n{} not ready within {within:?} (see {}/idmint.log)",
            self.index,
            self.dir.display()
        ))
    }

    /// SIGSTOP or SIGCONT.
    pub fn signal(&self, sig: i32) {
        if let Some(c) = &self.child {
            procs::signal(c, sig);
        }
    }

    /// SIGKILLs it; the next [`start`](Self::start) is a new incarnation.
    pub fn kill(&mut self) {
        if let Some(c) = self.child.take() {
            procs::kill(c);
        }
        self.incarnation.fetch_add(1, Ordering::SeqCst);
    }

    /// Moves its wall clock to `offset_ms` from true time (also while it runs).
    pub fn set_offset(&mut self, offset_ms: i64) -> Result<(), String> {
        self.offset_ms = offset_ms;
        procs::set_offset(&self.clock, offset_ms)
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        if let Some(c) = self.child.take() {
            procs::kill(c);
        }
    }
}
