//! The file lease store under the faults a host meets: its directory removed under a live
//! holder (a temp cleaner), a holder paused past its TTL, a forked child, planted symbolic
//! links, and node spaces too large to scan.
//!
//! `fault_child` is not a test of its own: it is the child half of the process tests, run by
//! re-executing this binary, and does nothing without `IDMINT_FAULT_CHILD_URL`.

mod support;

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use idmint::{Config, Error, Layout};
use idmint_coord::lease::{FileStore, LeaseSpec, LeaseStore};
use idmint_coord::leased::{LeaseOptions, LeasedSnowflake};

const T: u64 = 1_750_000_000_000;

/// Marks the child's report lines among the test harness's output.
const MARK: &str = "@@child ";

/// A temporary directory removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(tag: &str) -> TempDir {
    TempDir(support::temp_dir(tag))
}

fn spec(ns: &str, nodes: u64) -> LeaseSpec {
    LeaseSpec::new(ns, nodes, Duration::from_secs(10))
}

// ---------------------------------------------------------------------------------------------
// The child: mints until told to stop, writing every ID it hands out.

/// The child half: leases from `IDMINT_FAULT_CHILD_URL` (`IDMINT_FAULT_CHILD_NODES` nodes,
/// TTL `IDMINT_FAULT_CHILD_TTL_MS`), retrying while no node is free, and mints in batches,
/// appending every ID as 8 little-endian bytes to `IDMINT_FAULT_CHILD_OUT`, until its stdin
/// closes. Reports on stdout: `HOLD node` when it (re)starts minting on a node, `ERROR code`
/// for each error met.
#[test]
fn fault_child() {
    let Ok(url) = std::env::var("IDMINT_FAULT_CHILD_URL") else {
        return;
    };
    let var = |n: &str| std::env::var(n).unwrap();
    let nodes: u64 = var("IDMINT_FAULT_CHILD_NODES").parse().unwrap();
    let ttl: u64 = var("IDMINT_FAULT_CHILD_TTL_MS").parse().unwrap();
    let out_path = var("IDMINT_FAULT_CHILD_OUT");
    let (stop_tx, stop) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut sink);
        let _ = stop_tx.send(());
    });
    let stopped = || !matches!(stop.try_recv(), Err(mpsc::TryRecvError::Empty));
    let mut out = std::fs::File::create(out_path).unwrap();
    let say = |line: String| {
        let mut o = std::io::stdout();
        // On a line of its own, behind a marker: the test harness prints its own text
        // ("test fault_child ... ") on the same stdout without a newline.
        writeln!(o, "\n{MARK}{line}").unwrap();
        o.flush().unwrap();
    };
    let cfg = Config::new(Layout::preset("twitter").unwrap());
    let opts = LeaseOptions::new()
        .namespace("faults")
        .nodes(nodes)
        .ttl(Duration::from_millis(ttl));
    let gen = loop {
        match LeasedSnowflake::from_source(&url, cfg, opts.clone()) {
            Ok(g) => break g,
            Err(e) => {
                say(format!("ERROR {}", e.code()));
                if stopped() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    };
    let mut node = None;
    let mut last_error = None;
    let mut buf = vec![0u64; 1000];
    while !stopped() {
        match gen.next_ids(&mut buf) {
            Ok(()) => {
                if node != Some(gen.node()) {
                    node = Some(gen.node());
                    say(format!("HOLD {}", gen.node()));
                }
                last_error = None;
                let bytes: Vec<u8> = buf.iter().flat_map(|id| id.to_le_bytes()).collect();
                out.write_all(&bytes).unwrap();
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

/// A running child minter and the lines it printed so far.
struct Minter {
    child: Child,
    out: PathBuf,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Minter {
    fn start(url: &str, nodes: u64, ttl_ms: u64, out: &Path) -> Minter {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "fault_child", "--nocapture", "--test-threads=1"])
            .env("IDMINT_FAULT_CHILD_URL", url)
            .env("IDMINT_FAULT_CHILD_NODES", nodes.to_string())
            .env("IDMINT_FAULT_CHILD_TTL_MS", ttl_ms.to_string())
            .env("IDMINT_FAULT_CHILD_OUT", out)
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

    /// Waits (up to a minute) for a line starting with `prefix`; returns it.
    fn wait_for(&mut self, prefix: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
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

    /// How many IDs it wrote so far.
    fn minted(&self) -> u64 {
        std::fs::metadata(&self.out).map_or(0, |m| m.len() / 8)
    }

    /// Waits (up to a minute) until it wrote at least `n` more IDs than now.
    fn wait_minted(&self, n: u64) {
        let start = self.minted();
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.minted() < start + n {
            assert!(Instant::now() < deadline, "the child stopped minting");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Closes its stdin, waits for it to exit, and returns every ID it wrote.
    fn finish(mut self) -> (Vec<u64>, Vec<String>) {
        drop(self.child.stdin.take());
        assert!(self.child.wait().unwrap().success(), "the child failed");
        while let Ok(l) = self.lines.try_recv() {
            self.seen.push(l);
        }
        let bytes = std::fs::read(&self.out).unwrap();
        let ids = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        (ids, self.seen)
    }
}

fn assert_no_duplicates(sets: &[&[u64]]) -> usize {
    let mut all = HashSet::new();
    let mut total = 0;
    for ids in sets {
        for &id in *ids {
            assert!(all.insert(id), "duplicate ID {id}");
            total += 1;
        }
    }
    total
}

// ---------------------------------------------------------------------------------------------
// The directory removed under a live holder

/// A temp cleaner removes the lease directory while A mints on the only node; B then leases
/// the same one-node space. B cannot have the node while A is alive (the node's lock by name
/// survives the directory); A finds its lock file gone at its next renewal and stops. Whoever
/// holds the node afterwards starts above everything minted before: zero duplicates.
#[test]
fn directory_removed_under_a_live_holder_one_node() {
    directory_removed_case(1);
}

/// The same with two nodes: B leases the free node while A still holds the other (on a lock
/// file that no longer exists); A then loses its lease and leases again. Zero duplicates.
#[test]
fn directory_removed_under_a_live_holder_two_nodes() {
    directory_removed_case(2);
}

fn directory_removed_case(nodes: u64) {
    let dir = temp_dir("removed");
    let outs = temp_dir("removed-out");
    let url = format!("file:{}", dir.0.display());
    let mut a = Minter::start(&url, nodes, 1_500, &outs.0.join("a"));
    a.wait_for("HOLD");
    a.wait_minted(50_000);
    std::fs::remove_dir_all(&dir.0).unwrap();
    let mut b = Minter::start(&url, nodes, 1_500, &outs.0.join("b"));
    if nodes == 1 {
        // Until A gives the node up, B finds it taken.
        assert_eq!(b.wait_for("ERROR"), "ERROR ERR_NO_FREE_NODE");
    }
    // A notices at its next renewal (every 500 ms) that its lock file is gone.
    assert_eq!(a.wait_for("ERROR"), "ERROR ERR_LEASE_LOST");
    if nodes == 2 {
        b.wait_for("HOLD");
        // A leases again, on the node B does not hold.
        a.seen.retain(|l| !l.starts_with("HOLD"));
        a.wait_for("HOLD");
        a.wait_minted(50_000);
    }
    b.wait_minted(50_000);
    let (ids_a, _) = a.finish();
    let (ids_b, said_b) = b.finish();
    assert!(said_b.iter().any(|l| l.starts_with("HOLD")));
    let total = assert_no_duplicates(&[&ids_a, &ids_b]);
    assert!(total >= 150_000);
}

/// A holder stopped (SIGSTOP) for three TTLs while another process leases from the same
/// directory: its file lock is still held, so the newcomer takes another node; when it resumes
/// past its deadline it mints nothing until a renewal succeeds. Zero duplicates.
#[test]
fn holder_paused_past_its_ttl() {
    let dir = temp_dir("paused");
    let outs = temp_dir("paused-out");
    let url = format!("file:{}", dir.0.display());
    let mut a = Minter::start(&url, 2, 600, &outs.0.join("a"));
    a.wait_for("HOLD");
    a.wait_minted(20_000);
    let pid = a.child.id() as libc::pid_t;
    // SAFETY: signalling our own child.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGSTOP) }, 0);
    std::thread::sleep(Duration::from_millis(1_800));
    let mut b = Minter::start(&url, 2, 600, &outs.0.join("b"));
    assert_eq!(
        b.wait_for("HOLD"),
        "HOLD 1",
        "the paused holder keeps node 0"
    );
    b.wait_minted(20_000);
    // SAFETY: as above.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGCONT) }, 0);
    a.wait_minted(20_000);
    let (ids_a, _) = a.finish();
    let (ids_b, _) = b.finish();
    assert_no_duplicates(&[&ids_a, &ids_b]);
}

// ---------------------------------------------------------------------------------------------
// Renewals check the ground

#[test]
fn renewal_finds_the_lock_file_removed() {
    let dir = temp_dir("ground");
    let store = FileStore::open(&dir.0).unwrap();
    let l = store.acquire(&spec("g", 4), T, None).unwrap();
    store.renew(&l, T + 10).unwrap();
    std::fs::remove_dir_all(&dir.0).unwrap();
    assert!(matches!(
        store.renew(&l, T + 20),
        Err(Error::LeaseLost {
            reason: "the lock file was removed",
            ..
        })
    ));
    // Lost stays lost, and the locks are kept until the holder releases.
    assert!(matches!(
        store.renew(&l, T + 30),
        Err(Error::LeaseLost { .. })
    ));
    let other = FileStore::open(&dir.0).unwrap();
    let o = other.acquire(&spec("g", 4), T, None).unwrap();
    assert_ne!(
        o.node, l.node,
        "the lost lease's node is still locked by name"
    );
    assert!(matches!(
        store.release(&l, T + 30),
        Err(Error::LeaseLost { .. })
    ));
    // Released: its node is free again, fenced at the time of the grant (its record is gone).
    let again = other.acquire(&spec("g", 4), T + 5, None).unwrap();
    assert_eq!((again.node, again.fence_ms), (l.node, Some(T + 5)));
    other.release(&o, T).unwrap();
    other.release(&again, T).unwrap();
}

#[test]
fn renewal_finds_another_holder_in_the_record() {
    let dir = temp_dir("record");
    let store = FileStore::open(&dir.0).unwrap();
    let l = store.acquire(&spec("r", 1), T, None).unwrap();
    let rec = dir.0.join("r").join(format!("node-{}.rec", l.node));
    let text = std::fs::read_to_string(&rec).unwrap();
    let forged = text.replace(&format!("owner={}", l.owner), "owner=12345");
    std::fs::write(&rec, forged).unwrap();
    assert!(matches!(
        store.renew(&l, T + 1),
        Err(Error::LeaseLost {
            reason: "the record names another holder",
            ..
        })
    ));
    assert!(store.release(&l, T + 1).is_err());
}

// ---------------------------------------------------------------------------------------------
// fork()

/// Runs `f` in a forked child and returns its exit code.
fn in_child(f: impl FnOnce() -> i32) -> i32 {
    // SAFETY: the child runs `f` and leaves with _exit, never returning into the test harness.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(99);
        // SAFETY: leaving the child without running the parent's destructors.
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    // SAFETY: waiting for our own child.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    assert!(libc::WIFEXITED(status));
    libc::WEXITSTATUS(status)
}

/// A forked child that releases an inherited lease gets `Forked` and leaves the parent's node
/// locked; a child that lives on does not keep the parent's node locked after the parent lets
/// it go.
#[test]
fn forked_child_neither_unlocks_nor_keeps_the_parents_node() {
    let dir = temp_dir("fork");
    let store = FileStore::open(&dir.0).unwrap();
    let l = store.acquire(&spec("f", 1), T, None).unwrap();
    let code = in_child(|| match (store.release(&l, T), store.renew(&l, T)) {
        (Err(Error::Forked), Err(Error::Forked)) => 0,
        _ => 1,
    });
    assert_eq!(code, 0, "the child's release and renew answer Forked");
    let other = FileStore::open(&dir.0).unwrap();
    assert!(
        matches!(
            other.acquire(&spec("f", 1), T, None),
            Err(Error::NoFreeNode { .. })
        ),
        "the parent still holds its node"
    );
    store.renew(&l, T + 1).unwrap();

    // A child that outlives the parent's lease: the parent releases while it runs.
    let mut pipe = [0; 2];
    // SAFETY: a plain pipe for the child to wait on.
    assert_eq!(unsafe { libc::pipe(pipe.as_mut_ptr()) }, 0);
    // SAFETY: the child only blocks in read(2) and exits.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        let mut b = [0u8; 1];
        // SAFETY: reading one byte from our pipe end; then leaving the child.
        unsafe {
            libc::read(pipe[0], b.as_mut_ptr().cast(), 1);
            libc::_exit(0);
        }
    }
    store.release(&l, T + 2).unwrap();
    let got = other.acquire(&spec("f", 1), T + 3, None);
    // SAFETY: release the child and reap it.
    unsafe {
        libc::write(pipe[1], b"x".as_ptr().cast(), 1);
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
        libc::close(pipe[0]);
        libc::close(pipe[1]);
    }
    let got = got.expect("the living child does not keep the released node locked");
    assert_eq!(got.fence_ms, Some(T + 2));
    other.release(&got, T + 3).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Symbolic links and bounded work

#[test]
fn symbolic_links_are_not_followed() {
    let dir = temp_dir("links");
    let victim = dir.0.join("victim");
    std::fs::write(&victim, "keep").unwrap();
    let store = FileStore::open(dir.0.join("store")).unwrap();
    let ns = dir.0.join("store").join("s");
    std::fs::create_dir_all(&ns).unwrap();
    std::os::unix::fs::symlink(&victim, ns.join("node-0.lock")).unwrap();
    assert!(matches!(
        store.acquire(&spec("s", 1), T, None),
        Err(Error::StoreUnavailable {
            reason: "refused to follow a symbolic link",
            ..
        })
    ));
    // A record that is a link is not read as a record: with no other node, nothing is granted.
    std::fs::remove_file(ns.join("node-0.lock")).unwrap();
    std::os::unix::fs::symlink(&victim, ns.join("node-0.rec")).unwrap();
    assert!(matches!(
        store.acquire(&spec("s", 1), T, None),
        Err(Error::StoreUnavailable {
            reason: "corrupt record",
            ..
        })
    ));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
}

/// A node space of 2^32 nodes (a 32-bit node field): acquiring reads the directory once, not
/// a record per node of the space.
#[test]
fn huge_node_spaces_are_not_scanned() {
    let dir = temp_dir("huge");
    let store = FileStore::open(&dir.0).unwrap();
    let s = spec("h", 1 << 32);
    let a = store.acquire(&s, T, None).unwrap();
    let b = store.acquire(&s, T, None).unwrap();
    assert_eq!((a.node, b.node), (0, 1));
    store.release(&a, T + 1).unwrap();
    let c = store.acquire(&s, T + 2, None).unwrap();
    assert_eq!(c.node, 2, "never-used nodes come before released ones");
    store.release(&b, T).unwrap();
    store.release(&c, T).unwrap();
}
