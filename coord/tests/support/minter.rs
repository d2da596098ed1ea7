//! A minting child process for fault tests, on any lease store: it leases a node, mints in
//! batches until told to stop, and writes every ID it hands out to a file, so a test can pause
//! it (SIGSTOP), kill it, wipe its store or step its clock, and then check the union of every
//! process's IDs for duplicates.
//!
//! The child half runs inside the test binary itself: a binary that uses [`Minter`] declares
//!
//! ```ignore
//! #[test]
//! fn fault_child() {
//!     support::minter::child_main();
//! }
//! ```
//!
//! which does nothing unless started by [`Minter::start`] (it reads its orders from the
//! environment).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use idmint::{Clock, Config, Layout, SystemClock};
use idmint_coord::lease::{LeaseOptions, LeasedSnowflake};

/// Marks the child's report lines among the test harness's output.
const MARK: &str = "@@child ";

/// The shared libfaketime preload library (Debian's `libfaketime`).
pub const LIBFAKETIME: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

/// Runs `cmd` with its wall clock offset by `offset` (for example `-30s`): libfaketime by its
/// environment, not the `faketime` program, whose named semaphore (`/faketime_sem_PID`) is left
/// behind when a child is killed and makes a later wrapper with the same PID fail at start.
pub fn faketime_offset<'a>(cmd: &'a mut Command, offset: &str) -> &'a mut Command {
    cmd.env("LD_PRELOAD", LIBFAKETIME).env("FAKETIME", offset)
}

/// How the child's wall clock is faked.
#[derive(Debug, Clone)]
pub enum Faketime {
    /// `faketime -f OFFSET` (for example `-30s`): a fixed offset for the child's life.
    Offset(String),
    /// libfaketime reading the offset from this file at every clock read
    /// (`FAKETIME_TIMESTAMP_FILE`, `FAKETIME_NO_CACHE=1`): write `+0`, `-30s`, `+5s`... into it
    /// while the child runs to step its clock.
    File(PathBuf),
}

/// What the child does.
#[derive(Debug, Clone)]
pub struct MinterSpec {
    /// The node source (a lease store URL).
    pub url: String,
    /// The lease namespace.
    pub namespace: String,
    /// The node space leased from (`0..nodes`).
    pub nodes: u64,
    /// The lease TTL, ms.
    pub ttl_ms: u64,
    /// The generator's `on_backwards` policy text.
    pub policy: String,
    /// The layout preset.
    pub layout: String,
    /// IDs per batch.
    pub batch: usize,
    /// Faked wall clock, if any (the monotonic clock always stays real).
    pub faketime: Option<Faketime>,
    /// A pause after each batch (none: as fast as it can), to keep a long run's output small.
    pub pause: Option<Duration>,
}

impl MinterSpec {
    /// Twitter layout, `wait:1000`, batches of 1,000, real clock.
    pub fn new(url: &str, namespace: &str, nodes: u64, ttl_ms: u64) -> MinterSpec {
        MinterSpec {
            url: url.to_string(),
            namespace: namespace.to_string(),
            nodes,
            ttl_ms,
            policy: "wait:1000".to_string(),
            layout: "twitter".to_string(),
            batch: 1000,
            faketime: None,
            pause: None,
        }
    }

    /// Pauses after each batch.
    pub fn pause(mut self, d: Duration) -> MinterSpec {
        self.pause = Some(d);
        self
    }

    /// Sets the `on_backwards` policy.
    pub fn policy(mut self, policy: &str) -> MinterSpec {
        self.policy = policy.to_string();
        self
    }

    /// Fakes the child's wall clock.
    pub fn faketime(mut self, f: Faketime) -> MinterSpec {
        self.faketime = Some(f);
        self
    }
}

/// The child half (see the module docs); returns at once unless started by [`Minter::start`].
///
/// Leases from `IDMINT_MINTER_URL`, retrying while that fails, and mints batches, appending
/// every ID as 8 little-endian bytes to `IDMINT_MINTER_OUT`, until its stdin closes. Reports
/// `CLOCK now_ms` once, `HOLD node` when it (re)starts minting on a node, `LEASE node token
/// owner` for each lease it mints under (seen after a batch) and `ERROR code` for each new
/// error.
pub fn child_main() {
    let Ok(url) = std::env::var("IDMINT_MINTER_URL") else {
        return;
    };
    let var = |n: &str| std::env::var(n).unwrap();
    let nodes: u64 = var("IDMINT_MINTER_NODES").parse().unwrap();
    let ttl: u64 = var("IDMINT_MINTER_TTL_MS").parse().unwrap();
    let batch: usize = var("IDMINT_MINTER_BATCH").parse().unwrap();
    let pause = std::env::var("IDMINT_MINTER_PAUSE_US")
        .ok()
        .map(|us| Duration::from_micros(us.parse().unwrap()));
    let (stop_tx, stop) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut sink);
        let _ = stop_tx.send(());
    });
    let stopped = || !matches!(stop.try_recv(), Err(mpsc::TryRecvError::Empty));
    let mut out = std::fs::File::create(var("IDMINT_MINTER_OUT")).unwrap();
    let say = |line: String| {
        let mut o = std::io::stdout();
        // On a line of its own, behind a marker: the test harness prints its own text
        // ("test fault_child ... ") on the same stdout without a newline.
        let _ = writeln!(o, "\n{MARK}{line}");
        let _ = o.flush();
    };
    say(format!("CLOCK {}", SystemClock::new().now_ms()));
    let layout = Layout::preset(&var("IDMINT_MINTER_LAYOUT")).unwrap();
    let cfg = Config::new(layout).on_backwards(var("IDMINT_MINTER_POLICY").parse().unwrap());
    let opts = LeaseOptions::new()
        .namespace(&var("IDMINT_MINTER_NAMESPACE"))
        .nodes(nodes)
        .ttl(Duration::from_millis(ttl));
    let mut last_error = None;
    let gen = loop {
        match LeasedSnowflake::from_source(&url, cfg, opts.clone()) {
            Ok(g) => break g,
            Err(e) => {
                if last_error != Some(e.code()) {
                    say(format!("ERROR {}", e.code()));
                    last_error = Some(e.code());
                }
                if stopped() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    };
    let mut node = None;
    let mut lease = None;
    last_error = None;
    let mut buf = vec![0u64; batch];
    while !stopped() {
        match gen.next_ids(&mut buf) {
            Ok(()) => {
                if node != Some(gen.node()) {
                    node = Some(gen.node());
                    say(format!("HOLD {}", gen.node()));
                }
                if let Some(info) = gen.lease_info() {
                    let l = info.lease;
                    if lease != Some((l.node, l.token, l.owner)) {
                        lease = Some((l.node, l.token, l.owner));
                        say(format!("LEASE {} {} {}", l.node, l.token, l.owner));
                    }
                }
                last_error = None;
                let bytes: Vec<u8> = buf.iter().flat_map(|id| id.to_le_bytes()).collect();
                out.write_all(&bytes).unwrap();
                if let Some(p) = pause {
                    std::thread::sleep(p);
                }
            }
            Err(e) => {
                if last_error != Some(e.code()) {
                    say(format!("ERROR {}", e.code()));
                    last_error = Some(e.code());
                }
                node = None;
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }
    out.flush().unwrap();
    let _ = gen.release();
}

/// A running child minter and the lines it reported so far.
pub struct Minter {
    pub child: Child,
    out: PathBuf,
    lines: mpsc::Receiver<String>,
    /// Every report line received so far.
    pub seen: Vec<String>,
}

impl Minter {
    /// Starts a child of the current test binary (which must declare `fault_child`).
    pub fn start(spec: &MinterSpec, out: &Path) -> Minter {
        let exe = std::env::current_exe().unwrap();
        let mut cmd = Command::new(&exe);
        match &spec.faketime {
            Some(Faketime::Offset(offset)) => {
                faketime_offset(&mut cmd, offset);
            }
            Some(Faketime::File(path)) => {
                cmd.env("LD_PRELOAD", LIBFAKETIME)
                    .env("FAKETIME_TIMESTAMP_FILE", path)
                    .env("FAKETIME_NO_CACHE", "1");
            }
            None => {}
        }
        if let Some(p) = spec.pause {
            cmd.env("IDMINT_MINTER_PAUSE_US", p.as_micros().to_string());
        }
        if spec.faketime.is_some() {
            // Only the wall clock moves: lease deadlines run on the monotonic clock.
            cmd.env("FAKETIME_DONT_FAKE_MONOTONIC", "1");
        }
        let mut child = cmd
            .args(["--exact", "fault_child", "--nocapture", "--test-threads=1"])
            .env("IDMINT_MINTER_URL", &spec.url)
            .env("IDMINT_MINTER_NAMESPACE", &spec.namespace)
            .env("IDMINT_MINTER_NODES", spec.nodes.to_string())
            .env("IDMINT_MINTER_TTL_MS", spec.ttl_ms.to_string())
            .env("IDMINT_MINTER_POLICY", &spec.policy)
            .env("IDMINT_MINTER_LAYOUT", &spec.layout)
            .env("IDMINT_MINTER_BATCH", spec.batch.to_string())
            .env("IDMINT_MINTER_OUT", out)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the child minter");
        let (tx, lines) = mpsc::channel();
        let r = BufReader::new(child.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in r.lines().map_while(|l| l.ok()) {
                let Some(said) = line.strip_prefix(MARK) else {
                    continue;
                };
                if tx.send(said.to_string()).is_err() {
                    break;
                }
            }
        });
        Minter {
            child,
            out: out.to_path_buf(),
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits (up to three minutes: a grant may wait out a lock delay first) for a report
    /// starting with `prefix`; returns it.
    pub fn wait_for(&mut self, prefix: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(180);
        loop {
            if let Some(l) = self.seen.iter().find(|l| l.starts_with(prefix)) {
                return l.clone();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => self.seen.push(l),
                Err(_) => panic!("no {prefix:?} from the child; it said {:?}", self.seen),
            }
        }
    }

    /// Waits (as [`wait_for`](Self::wait_for)) until the child has made `n` reports starting
    /// with `prefix`; returns the `n`-th. Unlike [`forget`](Self::forget) and `wait_for`, it
    /// cannot miss a report that came before the call.
    pub fn wait_for_nth(&mut self, prefix: &str, n: usize) -> String {
        let deadline = Instant::now() + Duration::from_secs(180);
        loop {
            if let Some(l) = self
                .seen
                .iter()
                .filter(|l| l.starts_with(prefix))
                .nth(n - 1)
            {
                return l.clone();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => self.seen.push(l),
                Err(_) => panic!("no {n} {prefix:?} from the child; it said {:?}", self.seen),
            }
        }
    }

    /// Forgets the reports seen so far that start with `prefix` (to wait for the next one).
    /// Only before what makes the next one happen: a report that came already is lost.
    pub fn forget(&mut self, prefix: &str) {
        while let Ok(l) = self.lines.try_recv() {
            self.seen.push(l);
        }
        self.seen.retain(|l| !l.starts_with(prefix));
    }

    /// The child's wall clock when it started (its `CLOCK` report).
    pub fn clock(&mut self) -> u64 {
        let l = self.wait_for("CLOCK ");
        l["CLOCK ".len()..].parse().unwrap()
    }

    /// How many IDs it wrote so far.
    pub fn minted(&self) -> u64 {
        std::fs::metadata(&self.out).map_or(0, |m| m.len() / 8)
    }

    /// Waits (up to three minutes) until it wrote at least `n` more IDs than now.
    pub fn wait_minted(&self, n: u64) {
        let start = self.minted();
        let deadline = Instant::now() + Duration::from_secs(180);
        while self.minted() < start + n {
            assert!(Instant::now() < deadline, "the child stopped minting");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Sends `sig` to the child.
    pub fn signal(&self, sig: libc::c_int) {
        // SAFETY: signalling our own child.
        assert_eq!(
            unsafe { libc::kill(self.child.id() as libc::pid_t, sig) },
            0
        );
    }

    /// Kills the child (SIGKILL) and returns every ID it wrote.
    pub fn kill(mut self) -> Vec<u64> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.ids()
    }

    /// Closes its stdin, waits for it to exit, and returns every ID it wrote and its reports.
    pub fn finish(mut self) -> (Vec<u64>, Vec<String>) {
        drop(self.child.stdin.take());
        assert!(self.child.wait().unwrap().success(), "the child failed");
        while let Ok(l) = self.lines.try_recv() {
            self.seen.push(l);
        }
        let ids = self.ids();
        (ids, self.seen)
    }

    fn ids(&self) -> Vec<u64> {
        let bytes = std::fs::read(&self.out).unwrap_or_default();
        bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
}

/// Asserts that no ID occurs twice across `sets`; returns how many there were.
pub fn assert_no_duplicates(sets: &[&[u64]]) -> usize {
    // Sorted rather than hashed: millions of IDs, in a debug build, in a second or two.
    let mut all: Vec<u64> = sets.iter().flat_map(|s| s.iter().copied()).collect();
    let total = all.len();
    all.sort_unstable();
    let dups: Vec<u64> = all
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| w[0])
        .collect();
    assert_eq!(
        dups.len(),
        0,
        "{} duplicate IDs of {total}, the first {:?}",
        dups.len(),
        dups.first()
    );
    total
}
