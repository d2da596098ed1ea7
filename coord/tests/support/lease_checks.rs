//! Lease checks on a fixed clock, written once: concurrent holders as threads and as processes
//! and expiry and takeover with the fence (played on every store by the conformance kit,
//! `kit.rs`), queue order and bounds (the file, Redis, PostgreSQL and etcd suites).
//!
//! A binary that uses [`processes`] or [`spawn_holder`] declares the child half:
//!
//! ```ignore
//! #[test]
//! fn child_holder() {
//!     support::lease_checks::child_holder_main();
//! }
//! ```

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use idmint::Error;
use idmint_coord::lease::{self, LeaseSpec};

pub use super::ns;

/// The clock the checks pass to the stores (ms since the Unix epoch).
pub const NOW: u64 = 1_750_000_000_000;

/// A barrier that gives up (panics) after three minutes instead of hanging the suite when a
/// participant died (a slow one is not a failure: four rounds of calls with the crowd checks'
/// 30 s deadline may take minutes on a loaded machine).
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
            .wait_timeout_while(c, Duration::from_secs(180), |c| *c < self.n)
            .unwrap();
        assert!(!t.timed_out(), "gate: only {} of {} arrived", *c, self.n);
    }
}

/// `n` threads, each with its own store connection, acquire at once from `n` nodes; then churn
/// (release and re-acquire) while an occupancy table catches any node granted to two live
/// holders; then one more holder finds no free node.
pub fn threads(url: &str, n: usize) {
    let ns = ns("thr");
    let spec = LeaseSpec::new(&ns, n as u64, Duration::from_secs(30));
    let occupied: Arc<Vec<AtomicU64>> = Arc::new((0..n).map(|_| AtomicU64::new(0)).collect());
    let grants = Arc::new(Mutex::new(Vec::new()));
    let start = Arc::new(Gate::new(n));
    let full = Arc::new(Gate::new(n + 1));
    let done = Arc::new(Gate::new(n + 1));
    let handles: Vec<_> = (0..n as u64)
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
                full.wait(); // all `n` hold a node now
                done.wait(); // one more holder has tried
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
    assert_eq!(nodes.len(), n, "every holder holds a distinct node");
    let extra = lease::open(url).unwrap();
    assert_eq!(
        extra.acquire(&spec, NOW, None).unwrap_err(),
        Error::NoFreeNode { nodes: n as u64 }
    );
    done.wait();
    for h in handles {
        h.join().expect("holder thread");
    }
    let grants = grants.lock().unwrap();
    assert_eq!(grants.len(), 4 * n);
    let unique: HashSet<_> = grants.iter().collect();
    assert_eq!(
        unique.len(),
        4 * n,
        "a (node, token) pair was granted twice"
    );
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

/// The child half of [`processes`], run by a `#[test] fn child_holder()` of the binary that
/// calls it (it does nothing unless started by [`spawn_holder`]): acquires a node, optionally
/// renews it with a bound, prints `GRANT node token`, holds it until stdin closes, releases
/// (unless told to crash by being killed) and prints `DONE`.
pub fn child_holder_main() {
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

/// Starts a holder process: the current test binary running its `child_holder` test.
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

/// `n` holder processes acquire at once from `n` nodes: each gets a distinct node, one more
/// gets none; all release, and the space is free again.
pub fn processes(url: &str, n: usize) {
    let ns = ns("proc");
    let mut children: Vec<Child> = (0..n)
        .map(|_| spawn_holder(url, &ns, n as u64, None))
        .collect();
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
        assert!(node < n as u64);
        assert!(
            nodes.insert(node),
            "node {node} granted to two live processes"
        );
        grants.insert((node, token));
    }
    assert_eq!(nodes.len(), n);
    let store = lease::open(url).unwrap();
    let spec = LeaseSpec::new(&ns, n as u64, Duration::from_secs(30));
    assert_eq!(
        store.acquire(&spec, NOW, None).unwrap_err(),
        Error::NoFreeNode { nodes: n as u64 }
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

/// A holder stops renewing; after the TTL another holder takes the node with a higher token
/// and the first holder's bound as its fence; the first holder's renew and release then fail
/// with `LeaseLost` and do not touch the new holder's record.
pub fn expiry_takeover(url: &str) {
    const TTL: Duration = Duration::from_millis(2_000);
    // A loaded machine can stall this thread for longer than a TTL between two calls; then a
    // lease may expire where the scenario needs it alive, and the run proves nothing either
    // way. Such a run is played again (with a new namespace); a run that was on time must pass.
    for _ in 0..5 {
        if expiry_takeover_once(url, TTL) {
            return;
        }
    }
    panic!("five runs in a row stalled for more than a TTL: the machine is too slow to judge");
}

/// One run of [`expiry_takeover`]; `false` if this thread stalled too long to judge it.
fn expiry_takeover_once(url: &str, ttl: Duration) -> bool {
    let ns = ns("exp");
    let spec = LeaseSpec::new(&ns, 1, ttl);
    let a_store = lease::open(url).unwrap();
    let b_store = lease::open(url).unwrap();
    let a = a_store.acquire(&spec, NOW, None).unwrap();
    let renewed = Instant::now();
    a_store.renew(&a, NOW + 1_000).unwrap();
    let taken = b_store.acquire(&spec, NOW, None);
    if renewed.elapsed() >= ttl {
        return false;
    }
    assert_eq!(taken.unwrap_err(), Error::NoFreeNode { nodes: 1 });
    // Renewal keeps it alive past the first TTL.
    std::thread::sleep(ttl * 2 / 3);
    let last = renewed;
    let renewed = Instant::now();
    // (Had it expired meanwhile, nobody took it: the renewal would still succeed on the stores
    // that keep an expired record until it is taken; etcd and ZooKeeper drop it at once, which
    // only a stall past the TTL since the last renewal can cause here.)
    match a_store.renew(&a, NOW + 2_000) {
        Ok(()) => {}
        Err(Error::LeaseLost { .. }) if last.elapsed() >= ttl => return false,
        Err(e) => panic!("renewal within the TTL failed: {e:?}"),
    }
    std::thread::sleep(ttl * 2 / 3);
    let taken = b_store.acquire(&spec, NOW, None);
    if renewed.elapsed() >= ttl {
        return false;
    }
    assert!(taken.is_err(), "renewed lease was taken");
    // Once the TTL has passed without a renewal, B takes the node.
    let deadline = Instant::now() + Duration::from_secs(60);
    let b = loop {
        match b_store.acquire(&spec, NOW + 5_000, None) {
            Ok(b) => break b,
            Err(Error::NoFreeNode { .. }) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(e) => panic!("the expired lease was never taken over: {e:?}"),
        }
    };
    assert!(renewed.elapsed() >= ttl, "taken before its TTL ran out");
    assert_eq!(b.node, a.node);
    assert!(b.token > a.token, "fencing token must increase");
    assert_eq!(
        b.fence_ms,
        Some(NOW + 2_000),
        "the fence is A's recorded bound"
    );
    let lost = a_store.renew(&a, NOW + 9_000).unwrap_err();
    assert!(matches!(lost, Error::LeaseLost { node, .. } if node == a.node));
    assert!(matches!(
        a_store.release(&a, 0).unwrap_err(),
        Error::LeaseLost { .. }
    ));
    b_store.release(&b, NOW + 6_000).unwrap();
    let c = a_store.acquire(&spec, NOW + 7_000, None).unwrap();
    assert_eq!(
        c.fence_ms,
        Some(NOW + 6_000),
        "A's stale calls changed nothing"
    );
    a_store.release(&c, NOW + 7_000).unwrap();
    true
}

/// Free nodes are granted released-longest-ago first; a node whose bound is ahead of the
/// caller's clock comes after all others; `avoid` is honoured; neither renew nor release ever
/// lowers a bound.
pub fn queue_order(url: &str) {
    queue_order_in(url, &ns("queue"));
}

/// [`queue_order`] in namespace `ns`.
pub fn queue_order_in(url: &str, ns: &str) {
    let spec = LeaseSpec::new(ns, 3, Duration::from_secs(30));
    let store = lease::open(url).unwrap();
    let ls: Vec<_> = (0..3)
        .map(|_| store.acquire(&spec, NOW, None).unwrap())
        .collect();
    let mut nodes: Vec<u64> = ls.iter().map(|l| l.node).collect();
    nodes.sort_unstable();
    assert_eq!(nodes, [0, 1, 2]);
    let by_node = |n: u64| ls.iter().find(|l| l.node == n).unwrap().clone();
    // Renew never lowers, and neither does release: a record only rises (a release below the
    // last renewal used to record the exact final value; the ID service passes client values
    // here, and a lying client must not lower a node's fence).
    let l1 = by_node(1);
    store.renew(&l1, NOW + 500).unwrap();
    store.renew(&l1, NOW + 100).unwrap();
    // Release order 1, 2, 0 (file-store queue times are wall ms: keep them apart).
    store.release(&l1, NOW + 50).unwrap();
    std::thread::sleep(Duration::from_millis(5));
    store.release(&by_node(2), NOW + 60).unwrap();
    std::thread::sleep(Duration::from_millis(5));
    store.release(&by_node(0), NOW + 70).unwrap();
    let a = store.acquire(&spec, NOW + 1_000, None).unwrap();
    assert_eq!(
        (a.node, a.fence_ms),
        (1, Some(NOW + 500)),
        "released longest ago first, with the bound it renewed (the release did not lower it)"
    );
    let b = store.acquire(&spec, NOW + 1_000, Some(2)).unwrap();
    assert_eq!(b.node, 0, "avoid skips node 2");
    let c = store.acquire(&spec, NOW + 1_000, None).unwrap();
    assert_eq!((c.node, c.fence_ms), (2, Some(NOW + 60)));
    // Release 1 and 0 with 1's bound far ahead: 0 is preferred although 1 was released first.
    store.release(&a, NOW + 900_000).unwrap();
    std::thread::sleep(Duration::from_millis(5));
    store.release(&b, NOW + 80).unwrap();
    let d = store.acquire(&spec, NOW + 1_000, None).unwrap();
    assert_eq!(
        d.node, 0,
        "a node whose bound is ahead of the clock comes last"
    );
    let e = store.acquire(&spec, NOW + 1_000, None).unwrap();
    assert_eq!((e.node, e.fence_ms), (1, Some(NOW + 900_000)));
    // Only `avoid` is left: nothing to grant.
    store.release(&e, NOW + 900_000).unwrap();
    assert_eq!(
        store.acquire(&spec, NOW, Some(1)).unwrap_err(),
        Error::NoFreeNode { nodes: 3 }
    );
    for l in [c, d] {
        store.release(&l, NOW).unwrap();
    }
}
