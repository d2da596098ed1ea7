//! Concurrent holders of one node space, as threads and as processes, on any lease store.
//!
//! The process tests re-execute the test binary; a binary that uses them declares
//!
//! ```ignore
//! #[test]
//! fn child_holder() {
//!     support::holders::child_main();
//! }
//! ```
//!
//! which does nothing unless started by [`spawn_holder`] (it reads its orders from the
//! environment).

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use idmint::Error;
use idmint_coord::lease::{self, LeaseSpec};

/// The caller's clock the holders pass (mid-2025).
pub const NOW: u64 = 1_750_000_000_000;

/// A fresh namespace per call: `tag-PID-N`.
pub fn ns(tag: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// A barrier that gives up (panics) after a minute instead of hanging the suite when a
/// participant died.
pub struct Gate {
    n: usize,
    count: Mutex<usize>,
    cv: Condvar,
}

impl Gate {
    pub fn new(n: usize) -> Gate {
        Gate {
            n,
            count: Mutex::new(0),
            cv: Condvar::new(),
        }
    }

    pub fn wait(&self) {
        let mut c = self.count.lock().unwrap();
        *c += 1;
        self.cv.notify_all();
        let (c, t) = self
            .cv
            .wait_timeout_while(c, Duration::from_secs(60), |c| *c < self.n)
            .unwrap();
        assert!(!t.timed_out(), "gate: only {} of {} arrived", *c, self.n);
    }
}

/// 64 threads, each with its own store connection, acquire at once from 64 nodes; then churn
/// (release and re-acquire) while an occupancy table catches any node granted to two live
/// holders; then a 65th holder finds no free node.
pub fn threads_64(url: &str) {
    let ns = ns("thr");
    let spec = LeaseSpec::new(&ns, 64, Duration::from_secs(30));
    let occupied: Arc<Vec<AtomicU64>> = Arc::new((0..64).map(|_| AtomicU64::new(0)).collect());
    let grants = Arc::new(Mutex::new(Vec::new()));
    let start = Arc::new(Gate::new(64));
    let full = Arc::new(Gate::new(65));
    let done = Arc::new(Gate::new(65));
    let handles: Vec<_> = (0..64u64)
        .map(|i| {
            let (url, spec, occupied, grants) = (
                url.to_string(),
                spec.clone(),
                occupied.clone(),
                grants.clone(),
            );
            let (start, full, done) = (start.clone(), full.clone(), done.clone());
            std::thread::spawn(move || {
                let store = lease::open(&url).expect("open");
                start.wait();
                let mut held = None;
                for round in 0..4 {
                    let l = store
                        .acquire(&spec, NOW, None)
                        .unwrap_or_else(|e| panic!("holder {i} round {round}: {e}"));
                    let prev = occupied[l.node as usize].swap(i + 1, Ordering::SeqCst);
                    assert_eq!(prev, 0, "node {} granted twice (holder {i})", l.node);
                    grants.lock().unwrap().push((l.node, l.token));
                    if round < 3 {
                        occupied[l.node as usize].store(0, Ordering::SeqCst);
                        store.release(&l, NOW + round).expect("release");
                    } else {
                        held = Some(l);
                    }
                }
                full.wait(); // all 64 hold a node now
                done.wait(); // the 65th holder has tried
                let l = held.expect("held");
                occupied[l.node as usize].store(0, Ordering::SeqCst);
                store.release(&l, NOW).expect("release");
            })
        })
        .collect();
    full.wait();
    let nodes: HashSet<u64> = occupied
        .iter()
        .enumerate()
        .filter(|(_, o)| o.load(Ordering::SeqCst) != 0)
        .map(|(n, _)| n as u64)
        .collect();
    assert_eq!(nodes.len(), 64, "every holder holds a distinct node");
    let extra = lease::open(url).unwrap();
    assert_eq!(
        extra.acquire(&spec, NOW, None).unwrap_err(),
        Error::NoFreeNode { nodes: 64 }
    );
    done.wait();
    for h in handles {
        h.join().expect("holder thread");
    }
    let grants = grants.lock().unwrap();
    assert_eq!(grants.len(), 256);
    let unique: HashSet<_> = grants.iter().collect();
    assert_eq!(unique.len(), 256, "a (node, token) pair was granted twice");
    // Tokens of a node strictly increase with each grant.
    let mut per_node: HashMap<u64, Vec<u64>> = HashMap::new();
    for &(n, t) in grants.iter() {
        per_node.entry(n).or_default().push(t);
    }
    for (n, mut ts) in per_node {
        let len = ts.len();
        ts.sort_unstable();
        ts.dedup();
        assert_eq!(ts.len(), len, "node {n}: token reused");
    }
    // Everything was released: the whole space is free again.
    let again = extra.acquire(&spec, NOW, None).unwrap();
    extra.release(&again, NOW).unwrap();
}

/// The child half of the process tests (see the module docs): acquires a node, optionally
/// renews it with a bound, prints `GRANT node token`, holds it until stdin closes, releases
/// (unless told to crash by being killed) and prints `DONE`. Returns at once unless started by
/// [`spawn_holder`].
pub fn child_main() {
    let Ok(url) = std::env::var("IDMINT_LEASE_CHILD_URL") else {
        return;
    };
    let ns = std::env::var("IDMINT_LEASE_CHILD_NS").unwrap();
    let nodes: u64 = std::env::var("IDMINT_LEASE_CHILD_NODES")
        .unwrap()
        .parse()
        .unwrap();
    let bound: Option<u64> = std::env::var("IDMINT_LEASE_CHILD_BOUND")
        .ok()
        .map(|b| b.parse().unwrap());
    let store = lease::open(&url).unwrap();
    let spec = LeaseSpec::new(&ns, nodes, Duration::from_secs(30));
    let out = std::io::stdout();
    match store.acquire(&spec, NOW, None) {
        Ok(l) => {
            if let Some(b) = bound {
                store.renew(&l, b).unwrap();
            }
            writeln!(out.lock(), "GRANT {} {}", l.node, l.token).unwrap();
            out.lock().flush().unwrap();
            let mut sink = Vec::new();
            let _ = std::io::stdin().read_to_end(&mut sink);
            store.release(&l, NOW).unwrap();
            writeln!(out.lock(), "DONE").unwrap();
        }
        Err(e) => {
            writeln!(out.lock(), "ERROR {}", e.code()).unwrap();
        }
    }
}

/// Starts a holder process: the current test binary, running its `child_holder` test.
pub fn spawn_holder(url: &str, ns: &str, nodes: u64, bound: Option<u64>) -> Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child_holder", "--nocapture", "--test-threads=1"])
        .env("IDMINT_LEASE_CHILD_URL", url)
        .env("IDMINT_LEASE_CHILD_NS", ns)
        .env("IDMINT_LEASE_CHILD_NODES", nodes.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(b) = bound {
        cmd.env("IDMINT_LEASE_CHILD_BOUND", b.to_string());
    }
    cmd.spawn().expect("re-exec the test binary")
}

/// Reads the child's first protocol line (`GRANT ...` or `ERROR ...`), skipping the test
/// harness's own output.
pub fn protocol_line(r: &mut impl BufRead) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        if r.read_line(&mut line).unwrap() == 0 {
            panic!("child ended without a protocol line");
        }
        // libtest may print `test child_holder ... ` on the same line first.
        for marker in ["GRANT ", "ERROR ", "DONE"] {
            if let Some(at) = line.find(marker) {
                return line[at..].trim().to_string();
            }
        }
    }
}

/// 64 holder processes acquire at once from 64 nodes: every one gets a distinct node, a 65th
/// acquire finds none, and after they release the space is free again.
pub fn processes_64(url: &str) {
    let ns = ns("proc");
    let mut children: Vec<Child> = (0..64).map(|_| spawn_holder(url, &ns, 64, None)).collect();
    let mut readers: Vec<_> = children
        .iter_mut()
        .map(|c| BufReader::new(c.stdout.take().unwrap()))
        .collect();
    let mut grants = HashSet::new();
    let mut nodes = HashSet::new();
    for r in readers.iter_mut() {
        let line = protocol_line(r);
        let parts: Vec<&str> = line.split(' ').collect();
        assert_eq!(parts[0], "GRANT", "a holder process got no node: {line}");
        let node: u64 = parts[1].parse().unwrap();
        let token: u64 = parts[2].parse().unwrap();
        assert!(node < 64);
        assert!(
            nodes.insert(node),
            "node {node} granted to two live processes"
        );
        grants.insert((node, token));
    }
    assert_eq!(nodes.len(), 64);
    let store = lease::open(url).unwrap();
    let spec = LeaseSpec::new(&ns, 64, Duration::from_secs(30));
    assert_eq!(
        store.acquire(&spec, NOW, None).unwrap_err(),
        Error::NoFreeNode { nodes: 64 }
    );
    for c in children.iter_mut() {
        drop(c.stdin.take()); // EOF: release and exit
    }
    for (c, r) in children.iter_mut().zip(readers.iter_mut()) {
        assert_eq!(protocol_line(r), "DONE");
        assert!(c.wait().unwrap().success());
    }
    let l = store.acquire(&spec, NOW, None).unwrap();
    store.release(&l, NOW).unwrap();
}
