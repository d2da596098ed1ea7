//! The ZooKeeper lease store (`zk://`) on a private standalone ZooKeeper: Meituan Leaf's worker
//! ids (the same identity gets its node back) under this crate's lease promises, and the faults
//! a ZooKeeper deployment meets — a holder whose session expires (SIGSTOP), the server
//! restarted, paused or unreachable, its data wiped, a holder's clock set back.
//!
//! The rule every process test checks: never two holders minting on one node, so no ID twice
//! across every process's output. Processes are children of this binary (`support::minter`);
//! `fault_child` is their half and does nothing when run as a test. Concurrent holders, expiry
//! and a paused holder are also the conformance kit's (`conformance.rs`).

mod support;

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use idmint::{Config, Error, Layout};
use idmint_coord::lease::{self, Lease, LeaseSpec, LeaseStore};
use idmint_coord::lease::{LeaseOptions, LeasedSnowflake};
use support::minter::{assert_no_duplicates, Faketime, Minter, MinterSpec};
use support::zookeeper::ZooKeeper;
use support::{ns, wall_ms, TempDir};
use zookeeper_client::Client;

const NOW: u64 = 1_750_000_000_000;

/// The child half of the minting process tests (see `support::minter`).
#[test]
fn fault_child() {
    support::minter::child_main();
}

fn open(url: &str) -> Arc<dyn LeaseStore> {
    Arc::from(lease::open(url).unwrap())
}

fn cfg() -> Config {
    Config::new(Layout::preset("twitter").unwrap())
}

/// Runs `f` on another thread and returns its result, or panics if it does not return within
/// a minute: a store call must fail on its timeout, never hang.
fn returns<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{what} hung"))
}

/// Acquires until the store grants (up to a minute): `NoFreeNode` while a node is still held
/// by a session that has not expired yet, `StoreUnavailable` while the server comes back.
fn acquire_eventually(store: &dyn LeaseStore, spec: &LeaseSpec, now: u64) -> Lease {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match store.acquire(spec, now, None) {
            Ok(l) => return l,
            Err(Error::NoFreeNode { .. } | Error::StoreUnavailable { .. })
                if Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(e) => panic!("never granted: {e:?}"),
        }
    }
}

/// The lease TTL of the process tests: sessions of 1.5 s.
const TTL_MS: u64 = 1_500;

fn minter(url: &str, ns: &str, nodes: u64, out: &Path) -> Minter {
    Minter::start(&MinterSpec::new(url, ns, nodes, TTL_MS), out)
}

/// Pays a new namespace's lock delay long ago: one grant at time 0 with a two-minute horizon
/// (the longest any test asks for), so the process tests' first grants are fenced by the
/// nodes' records only and start minting at once. Its identity takes sequence number 0.
fn warm(z: &ZooKeeper, ns: &str, nodes: u64) {
    let store = open(&z.url());
    let spec = LeaseSpec::new(ns, nodes, Duration::from_secs(30)).horizon(Duration::from_secs(120));
    let l = store.acquire(&spec, 0, None).unwrap();
    assert_eq!(l.not_before_ms, Some(120_000));
    store.release(&l, 0).unwrap();
}

/// A client on `z` to look at its znodes.
fn probe(z: &ZooKeeper) -> Probe {
    Probe::connect(&z.hosts())
}

/// A blocking ZooKeeper client for tests: reads and deletes znodes behind the store's back.
struct Probe {
    rt: tokio::runtime::Runtime,
    client: Client,
}

impl Probe {
    /// Connects (retrying for up to a minute: a server just restarted may refuse at first).
    fn connect(hosts: &str) -> Probe {
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
    fn get(&self, path: &str) -> Option<String> {
        match self.rt.block_on(self.client.get_data(path)) {
            Ok((data, _)) => Some(String::from_utf8_lossy(&data).into_owned()),
            Err(zookeeper_client::Error::NoNode) => None,
            Err(e) => panic!("get {path}: {e}"),
        }
    }

    /// Whether `path` exists.
    fn exists(&self, path: &str) -> bool {
        self.rt
            .block_on(self.client.check_stat(path))
            .unwrap_or_else(|e| panic!("exists {path}: {e}"))
            .is_some()
    }

    /// The session that owns ephemeral `path`, if it exists.
    fn owner(&self, path: &str) -> Option<i64> {
        self.rt
            .block_on(self.client.check_stat(path))
            .unwrap_or_else(|e| panic!("stat {path}: {e}"))
            .map(|s| s.ephemeral_owner)
    }

    /// The children of `path`, sorted (empty if it does not exist).
    fn children(&self, path: &str) -> Vec<String> {
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
    fn set(&self, path: &str, data: &str) {
        self.rt
            .block_on(self.client.set_data(path, data.as_bytes(), None))
            .unwrap_or_else(|e| panic!("set {path}: {e}"));
    }

    /// Deletes `path` and everything under it (ephemeral znodes of other sessions too).
    fn delete_all(&self, path: &str) {
        for c in self.children(path) {
            self.delete_all(&format!("{path}/{c}"));
        }
        match self.rt.block_on(self.client.delete(path, None)) {
            Ok(()) | Err(zookeeper_client::Error::NoNode) => {}
            Err(e) => panic!("delete {path}: {e}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Grants, renewals, the time fence and the epoch

/// Acquire, renew and release on one namespace: distinct nodes, the fencing token is the
/// ephemeral znode's czxid, neither renew nor release ever lowers the bound (a release below
/// the last renewal leaves it; one below the lease's fence records the fence); the first grant of a namespace is fenced at its lock
/// delay (it cannot be told from the first grant after a loss), and so is every grant until
/// the delay has passed.
#[test]
fn zk_grants_renewals_and_the_bound_record() {
    let z = ZooKeeper::start();
    let store = open(&z.url());
    let probe = probe(&z);
    let ns = ns("basic");
    let spec = LeaseSpec::new(&ns, 4, Duration::from_secs(10)).horizon(Duration::from_secs(20));
    let a = store.acquire(&spec, NOW, None).unwrap();
    assert_eq!(
        a.not_before_ms,
        Some(NOW + 20_000),
        "a namespace's first grant"
    );
    assert_eq!(a.fence_ms, Some(NOW + 20_000));
    assert_ne!(a.epoch, 0);
    let b = store.acquire(&spec, NOW + 1, None).unwrap();
    assert_ne!(a.node, b.node);
    assert_eq!(
        (b.epoch, b.not_before_ms),
        (a.epoch, Some(NOW + 20_000)),
        "every grant until the delay passed"
    );
    let held = format!("/idmint/{ns}/held/{}", a.node);
    let record = format!("/idmint/{ns}/node/{}", a.node);
    assert!(
        probe.owner(&held).is_some_and(|o| o != 0),
        "held/N is ephemeral"
    );
    store.renew(&a, NOW + 30_000).unwrap();
    store.renew(&a, NOW + 25_000).unwrap();
    let rec = probe.get(&record).unwrap();
    assert!(
        rec.starts_with(&format!("bound={} ", NOW + 30_000)),
        "{rec}"
    );
    // Below the last renewal: the record keeps the renewal's bound (a record never goes
    // down; it used to take the exact final value).
    store.release(&a, NOW + 21_000).unwrap();
    assert!(!probe.exists(&held), "release deletes held/N");
    let rec = probe.get(&record).unwrap();
    assert!(
        rec.starts_with(&format!("bound={} owner=- ", NOW + 30_000)),
        "{rec}"
    );
    // Below the lease's fence, release records the fence.
    store.release(&b, NOW).unwrap();
    let rec = probe.get(&format!("/idmint/{ns}/node/{}", b.node)).unwrap();
    assert!(
        rec.starts_with(&format!("bound={} ", NOW + 20_000)),
        "{rec}"
    );
    // A released lease is gone: renewing or releasing it again is LeaseLost.
    assert!(matches!(
        store.renew(&a, NOW + 60),
        Err(Error::LeaseLost { .. })
    ));
    assert!(matches!(
        store.release(&a, NOW + 60),
        Err(Error::LeaseLost { .. })
    ));
    // Past the lock delay, a grant is fenced by the node's record only.
    let c = store.acquire(&spec, NOW + 30_000, Some(b.node)).unwrap();
    assert_eq!(
        (c.node, c.not_before_ms, c.fence_ms),
        (a.node, None, Some(NOW + 30_000))
    );
    assert!(c.token > a.token, "the czxid of the new held/N");
    store.release(&c, NOW + 30_000).unwrap();
}

/// The ZooKeeper store's queue: every acquire here is a new identity (a new holder name), so
/// nothing is anyone's own id; free nodes go released-longest-ago first, a node whose bound is
/// ahead of the caller's clock comes after all others, `avoid` is honoured. Once the
/// `forever/` sequence has passed the node space, new identities get no entry (and no id).
#[test]
fn zk_queue_order_and_bounds() {
    let z = ZooKeeper::start();
    let store = open(&z.url());
    let probe = probe(&z);
    let ns = ns("queue");
    let n = AtomicU32::new(0);
    // A new identity per acquire; the first grant pays the namespace's lock delay, long ago.
    let spec = || {
        LeaseSpec::new(&ns, 3, Duration::from_secs(30))
            .holder(&format!("h{}", n.fetch_add(1, Ordering::Relaxed)))
    };
    let first = store.acquire(&spec(), 0, None).unwrap();
    store.release(&first, 0).unwrap();
    let ls: Vec<Lease> = (0..3)
        .map(|_| store.acquire(&spec(), NOW, None).unwrap())
        .collect();
    let mut nodes: Vec<u64> = ls.iter().map(|l| l.node).collect();
    nodes.sort_unstable();
    assert_eq!(nodes, [0, 1, 2]);
    let by_node = |n: u64| ls.iter().find(|l| l.node == n).unwrap().clone();
    let l1 = by_node(1);
    store.renew(&l1, NOW + 500).unwrap();
    store.renew(&l1, NOW + 100).unwrap();
    store.release(&l1, NOW + 50).unwrap();
    store.release(&by_node(2), NOW + 60).unwrap();
    store.release(&by_node(0), NOW + 70).unwrap();
    let a = store.acquire(&spec(), NOW + 1_000, None).unwrap();
    assert_eq!(
        (a.node, a.fence_ms),
        (1, Some(NOW + 500)),
        "released longest ago first, with the bound it renewed (the release did not lower it)"
    );
    let b = store.acquire(&spec(), NOW + 1_000, Some(2)).unwrap();
    assert_eq!(b.node, 0, "avoid skips node 2");
    let c = store.acquire(&spec(), NOW + 1_000, None).unwrap();
    assert_eq!((c.node, c.fence_ms), (2, Some(NOW + 60)));
    store.release(&a, NOW + 900_000).unwrap();
    store.release(&b, NOW + 80).unwrap();
    let d = store.acquire(&spec(), NOW + 1_000, None).unwrap();
    assert_eq!(
        d.node, 0,
        "a node whose bound is ahead of the clock comes last"
    );
    let e = store.acquire(&spec(), NOW + 1_000, None).unwrap();
    assert_eq!((e.node, e.fence_ms), (1, Some(NOW + 900_000)));
    store.release(&e, NOW + 900_000).unwrap();
    assert_eq!(
        store.acquire(&spec(), NOW, Some(1)).unwrap_err(),
        Error::NoFreeNode { nodes: 3 }
    );
    for l in [c, d] {
        store.release(&l, NOW).unwrap();
    }
    // Three identities got sequence numbers 0, 1 and 2; everyone after them got none.
    let entries = probe.children(&format!("/idmint/{ns}/forever"));
    assert_eq!(
        entries,
        ["h0-0000000000", "h1-0000000001", "h2-0000000002"],
        "forever/ never grows past the node space"
    );
}

/// Leaf's worker ids: an identity (`identity=` in the URL) gets its own node back after a
/// clean restart, ahead of the queue order; while a live session holds it, the identity falls
/// back to the lowest never-used node, then to the queue; an identity whose sequence number
/// lies outside the node space gets no id of its own.
#[test]
fn zk_same_identity_gets_its_worker_id_back() {
    let z = ZooKeeper::start();
    let ns = ns("leaf");
    let spec = LeaseSpec::new(&ns, 4, Duration::from_secs(30));
    let as_id = |id: &str| open(&format!("{}?identity={id}", z.url()));
    // The namespace's lock delay, paid long ago.
    let warm = as_id("warm");
    let w = warm.acquire(&spec, 0, None).unwrap();
    assert_eq!(w.node, 0);
    warm.release(&w, 0).unwrap();
    let x = as_id("10.0.0.1:8080");
    let lx = x.acquire(&spec, NOW, None).unwrap();
    let a = as_id("10.0.0.2:8080");
    let la = a.acquire(&spec, NOW, None).unwrap();
    let b = as_id("10.0.0.3:8080");
    let lb = b.acquire(&spec, NOW, None).unwrap();
    assert_eq!((lx.node, la.node, lb.node), (1, 2, 3), "sequence numbers");
    // Released in the order x, b, a: the queue would give x's node first.
    x.release(&lx, NOW + 10).unwrap();
    b.release(&lb, NOW + 20).unwrap();
    a.release(&la, NOW + 30).unwrap();
    drop((x, a, b));
    // `a` restarts (a new store, as a new process would have): its own node back, fenced at
    // its own last bound.
    let a = as_id("10.0.0.2:8080");
    let la = a.acquire(&spec, NOW + 1_000, None).unwrap();
    assert_eq!((la.node, la.fence_ms), (2, Some(NOW + 30)));
    // A second process with the same identity while the first holds its node: the fallback
    // is the queue (no never-used node is left): `warm`'s node 0, released longest ago.
    let a2 = as_id("10.0.0.2:8080");
    let la2 = a2.acquire(&spec, NOW + 1_000, None).unwrap();
    assert_eq!(la2.node, 0);
    // A new identity: the sequence has passed the node space (it is 4), so it has no id of
    // its own and takes the queue's next node, x's.
    let c = as_id("10.0.0.4:8080");
    let lc = c.acquire(&spec, NOW + 1_000, None).unwrap();
    assert_eq!(lc.node, 1);
    let probe = probe(&z);
    assert!(probe
        .children(&format!("/idmint/{ns}/forever"))
        .iter()
        .all(|e| !e.starts_with("10.0.0.4")));
    // The holder's own node when swapping away from it (`avoid`) is not taken again.
    let ld = as_id("10.0.0.3:8080").acquire(&spec, NOW + 1_000, Some(3));
    assert_eq!(ld.unwrap_err(), Error::NoFreeNode { nodes: 4 });
    for (s, l) in [(&a, &la), (&a2, &la2), (&c, &lc)] {
        s.release(l, NOW + 2_000).unwrap();
    }
}

/// Leaf's worker ids across processes: a minting process with `identity=` exits cleanly,
/// another identity comes and goes, and the first identity's next process holds the same node
/// again, minting above everything the first one minted.
#[test]
fn zk_same_identity_process_restart_holds_the_same_node() {
    let z = ZooKeeper::start();
    let outs = TempDir::new("leaf-out");
    let ns = ns("leafproc");
    let url_p = format!("{}?identity=orders-7", z.url());
    let url_q = format!("{}?identity=orders-8", z.url());
    warm(&z, &ns, 4);
    let mut p1 = minter(&url_p, &ns, 4, &outs.0.join("p1"));
    let held = p1.wait_for("HOLD ");
    p1.wait_minted(20_000);
    let (ids1, _) = p1.finish();
    let mut q = minter(&url_q, &ns, 4, &outs.0.join("q"));
    let other = q.wait_for("HOLD ");
    assert_ne!(other, held);
    q.wait_minted(20_000);
    let (ids_q, _) = q.finish();
    let mut p2 = minter(&url_p, &ns, 4, &outs.0.join("p2"));
    assert_eq!(p2.wait_for("HOLD "), held, "the identity's own node");
    p2.wait_minted(20_000);
    let (ids2, _) = p2.finish();
    assert!(ids2.iter().min() > ids1.iter().max());
    assert_no_duplicates(&[&ids1, &ids_q, &ids2]);
}

/// A lease whose holder stops calling the store expires with its session: another store
/// takes the node with a higher token, fenced at the holder's recorded bound, and the first
/// holder's renew and release are `LeaseLost` and change nothing.
#[test]
fn zk_expiry_and_takeover() {
    let z = ZooKeeper::start();
    let ns = ns("exp");
    let ttl = Duration::from_millis(1_000);
    let spec = LeaseSpec::new(&ns, 1, ttl);
    let a_store = open(&z.url());
    let b_store = open(&z.url());
    let a = a_store.acquire(&spec, NOW, None).unwrap();
    a_store.renew(&a, NOW + 100_000).unwrap();
    // Renewed within its session timeout, it stays.
    let mut last = Instant::now();
    let mut longest_gap = Duration::ZERO;
    for _ in 0..3 {
        std::thread::sleep(ttl / 3);
        let sent = Instant::now();
        a_store.renew(&a, NOW + 100_000).unwrap();
        longest_gap = longest_gap.max(sent - last);
        last = sent;
        assert_eq!(
            b_store.acquire(&spec, NOW, None).unwrap_err(),
            Error::NoFreeNode { nodes: 1 }
        );
    }
    let b = acquire_eventually(&*b_store, &spec, NOW + 200_000);
    let waited = last.elapsed();
    // The server expires a session no sooner than a timeout after its last touch. When this
    // process was starved so long that a renewal came late (near the end of the timeout), a
    // ZooKeeper server may expire the session in the same tick as the renewal it just served:
    // the fence below still keeps B above A's bound, which is what makes that safe, but the
    // timing says nothing then.
    if longest_gap < ttl / 2 {
        assert!(
            waited >= ttl,
            "taken {waited:?} after the last renewal was sent, before the session could expire"
        );
    }
    assert_eq!(b.node, a.node);
    assert!(b.token > a.token);
    assert_eq!(b.fence_ms, Some(NOW + 100_000), "A's recorded bound");
    let r = a_store.renew(&a, NOW + 300_000);
    assert!(matches!(r, Err(Error::LeaseLost { .. })), "{r:?}");
    assert!(matches!(
        a_store.release(&a, 0),
        Err(Error::LeaseLost { .. })
    ));
    b_store.release(&b, NOW + 200_001).unwrap();
    let c = a_store.acquire(&spec, NOW + 300_000, None).unwrap();
    assert_eq!(
        c.fence_ms,
        Some(NOW + 200_001),
        "A's stale calls changed nothing"
    );
    a_store.release(&c, NOW + 300_000).unwrap();
}

/// The checks of renew and release: a lease from another store object (no session), a forged
/// owner or token, and the lease's znodes deleted or replaced behind its back.
#[test]
fn zk_renew_checks_the_session_and_the_znodes() {
    let z = ZooKeeper::start();
    let store = open(&z.url());
    let probe = probe(&z);
    let ns = ns("checks");
    let spec = LeaseSpec::new(&ns, 2, Duration::from_secs(30));
    let a = store.acquire(&spec, NOW, None).unwrap();
    let other = open(&z.url());
    assert!(matches!(
        other.renew(&a, NOW + 1),
        Err(Error::LeaseLost { .. })
    ));
    for forged in [
        Lease {
            owner: a.owner ^ 1,
            ..a.clone()
        },
        Lease {
            token: a.token + 1,
            ..a.clone()
        },
        Lease {
            epoch: a.epoch ^ 1,
            ..a.clone()
        },
    ] {
        assert!(matches!(
            store.renew(&forged, NOW + 1),
            Err(Error::LeaseLost { .. })
        ));
    }
    // The forged calls changed nothing.
    store.renew(&a, NOW + 2).unwrap();
    // The lease's held/N deleted behind its back (what an expiry looks like): lost, and the
    // session that can no longer hold anything is closed.
    probe.delete_all(&format!("/idmint/{ns}/held/{}", a.node));
    assert!(matches!(
        store.renew(&a, NOW + 3),
        Err(Error::LeaseLost { .. })
    ));
    // The epoch znode alone deleted: renewals of the lease fail ("the store lost its
    // records"); the next acquire starts a new epoch, fenced past now + the horizon.
    let b = store.acquire(&spec, NOW, None).unwrap();
    probe.delete_all(&format!("/idmint/{ns}/epoch"));
    assert_eq!(
        store.renew(&b, NOW + 3),
        Err(Error::LeaseLost {
            node: b.node,
            reason: "the store lost its records"
        })
    );
    let c = store.acquire(&spec, NOW + 5_000, None).unwrap();
    assert_ne!(c.epoch, b.epoch);
    assert_eq!(c.not_before_ms, Some(NOW + 5_000 + 60_000));
    assert!(c.fence_ms >= c.not_before_ms);
    // The whole namespace deleted (its held/N with it): lost too, and a new epoch again.
    probe.delete_all(&format!("/idmint/{ns}"));
    assert!(matches!(
        store.renew(&c, NOW + 6_000),
        Err(Error::LeaseLost { .. })
    ));
    let d = store.acquire(&spec, NOW + 10_000, None).unwrap();
    assert_ne!(d.epoch, c.epoch);
    assert_eq!(d.not_before_ms, Some(NOW + 10_000 + 60_000));
    // A longer horizon than recorded stretches the current lock delay.
    let long = spec.clone().horizon(Duration::from_secs(100));
    let e = store.acquire(&long, NOW + 20_000, None).unwrap();
    assert_eq!(e.not_before_ms, Some(NOW + 10_000 + 100_000));
    // A corrupt record is never granted: its fence is unknown.
    store.release(&d, NOW + 20_000).unwrap();
    probe.set(&format!("/idmint/{ns}/node/{}", d.node), "garbage");
    assert_eq!(
        store.acquire(&spec, NOW + 20_000, None).unwrap_err(),
        Error::StoreUnavailable {
            store: "zookeeper",
            op: "acquire",
            reason: "corrupt record"
        }
    );
}

/// A 2^40-node space costs what the nodes in use cost: a grant creates two znodes, no scan.
#[test]
fn zk_huge_node_spaces_are_not_scanned() {
    let z = ZooKeeper::start();
    let store = open(&z.url());
    let probe = probe(&z);
    let ns = ns("huge");
    let spec = LeaseSpec::new(&ns, 1 << 40, Duration::from_secs(30));
    let t = Instant::now();
    let a = store.acquire(&spec, NOW, None).unwrap();
    let b = store.acquire(&spec, NOW, None).unwrap();
    assert!(t.elapsed() < Duration::from_secs(10));
    assert_eq!((a.node, b.node), (0, 1));
    assert_eq!(probe.children(&format!("/idmint/{ns}/node")).len(), 2);
    assert_eq!(probe.children(&format!("/idmint/{ns}/held")).len(), 2);
    store.release(&a, NOW).unwrap();
    store.release(&b, NOW).unwrap();
}

// ---------------------------------------------------------------------------------------------
// A holder whose session expires

/// A holder process stopped (SIGSTOP) past its session timeout on a one-node space: its
/// session expires, the node is granted again — fenced at the bound the paused holder
/// recorded, which covers every ID it minted — and, resumed, the holder mints nothing more
/// (at most the batch it had been handed before the pause) and finds its lease lost. Zero
/// duplicates.
#[test]
fn zk_holder_paused_past_its_session_timeout() {
    let z = ZooKeeper::start();
    let outs = TempDir::new("paused-out");
    let url = z.url();
    let ns = ns("paused");
    let probe = probe(&z);
    warm(&z, &ns, 1);
    let mut a = minter(&url, &ns, 1, &outs.0.join("a"));
    a.wait_for("HOLD");
    a.wait_minted(50_000);
    a.signal(libc::SIGSTOP);
    let paused = Instant::now();
    let store = open(&url);
    let spec = LeaseSpec::new(&ns, 1, Duration::from_millis(TTL_MS));
    let taken = acquire_eventually(&*store, &spec, wall_ms());
    // A's session was last touched by a renewal at most a renewal period (TTL/3) before the
    // pause, and lives a session timeout (the TTL) after that.
    assert!(
        paused.elapsed() >= Duration::from_millis(TTL_MS / 2),
        "granted again {:?} after the pause, while A's session was surely alive",
        paused.elapsed()
    );
    // The record A raised at each renewal is the new grant's fence.
    let bound: u64 = probe
        .get(&format!("/idmint/{ns}/node/0"))
        .and_then(|r| r.split(' ').next()?.strip_prefix("bound=")?.parse().ok())
        .expect("A's recorded bound");
    assert_eq!((taken.node, taken.fence_ms), (0, Some(bound)));
    assert!(
        bound > wall_ms() - 60_000,
        "A renewed the bound while minting"
    );
    store.release(&taken, bound).unwrap();
    let mut b = minter(&url, &ns, 1, &outs.0.join("b"));
    b.wait_for("HOLD");
    b.wait_minted(50_000);
    let before = a.minted();
    a.signal(libc::SIGCONT);
    assert_eq!(a.wait_for("ERROR"), "ERROR ERR_LEASE_LOST");
    b.wait_minted(50_000);
    let (ids_a, _) = a.finish();
    let (ids_b, _) = b.finish();
    assert!(
        ids_a.len() as u64 <= before + 1_000,
        "A minted {} IDs after its deadline",
        ids_a.len() as u64 - before
    );
    let layout = Layout::preset("twitter").unwrap();
    let max_a = ids_a.iter().max().unwrap();
    let ms = layout.epoch_ms() + layout.decompose(*max_a).unwrap().time * layout.tick_ms();
    assert!(
        ms <= bound,
        "A minted at {ms}, past its recorded bound {bound}"
    );
    assert_no_duplicates(&[&ids_a, &ids_b]);
}

// ---------------------------------------------------------------------------------------------
// The server restarted, wiped, paused, unreachable

/// The server killed (SIGKILL) and started again while two processes mint, each with a
/// session timeout (10 s) longer than its lease TTL (1.5 s): minting stops at the lease's
/// deadline while the server is down, their sessions survive the restart (ZooKeeper restores
/// them from its log, and the clients come back within the timeout), and both go on minting on
/// the nodes they held; a third process that joins afterwards gets the free node. Zero
/// duplicates. (With a session as short as the TTL a restart longer than about the TTL expires
/// the sessions: the holders then lose their leases and take other nodes, still without a
/// duplicate — the data-wipe test below plays that.)
#[test]
fn zk_server_restart_mid_run_keeps_the_sessions_and_gives_no_duplicate() {
    let z = ZooKeeper::start();
    let outs = TempDir::new("restart-out");
    let url = format!("{}?session_timeout_ms=10000", z.url());
    let ns = ns("restart");
    warm(&z, &ns, 3);
    let mut a = minter(&url, &ns, 3, &outs.0.join("a"));
    let mut b = minter(&url, &ns, 3, &outs.0.join("b"));
    let node_a = a.wait_for("HOLD");
    let node_b = b.wait_for("HOLD");
    a.wait_minted(50_000);
    b.wait_minted(50_000);
    z.kill();
    std::thread::sleep(Duration::from_millis(300));
    z.resume();
    a.wait_minted(100_000);
    b.wait_minted(100_000);
    let mut c = minter(&url, &ns, 3, &outs.0.join("c"));
    c.wait_for("HOLD");
    c.wait_minted(50_000);
    let (ids_a, said_a) = a.finish();
    let (ids_b, said_b) = b.finish();
    let (ids_c, _) = c.finish();
    assert_no_duplicates(&[&ids_a, &ids_b, &ids_c]);
    for (said, node) in [(said_a, node_a), (said_b, node_b)] {
        assert!(
            said.iter()
                .filter(|l| l.starts_with("HOLD"))
                .all(|l| *l == node),
            "a session did not survive the restart: {said:?}"
        );
    }
}

/// The server loses all its data (stopped, data directory deleted, started empty) while A and
/// B mint on both nodes of a two-node space and C waits; A and B are paused across the wipe
/// until C is granted a node. The wipe takes the namespace's epoch and every session with it:
/// C's grant is under a new epoch, fenced past now + the longest horizon, and A and B, resumed,
/// find their leases lost. Zero duplicates across the three.
#[test]
fn zk_server_data_wiped_while_two_holders_mint_gives_no_duplicate() {
    let z = ZooKeeper::start();
    let outs = TempDir::new("wipe-out");
    let url = z.url();
    let ns = ns("wipe");
    let mut a = minter(&url, &ns, 2, &outs.0.join("a"));
    a.wait_for("HOLD");
    let mut b = minter(&url, &ns, 2, &outs.0.join("b"));
    b.wait_for("HOLD");
    a.wait_minted(50_000);
    b.wait_minted(50_000);
    let mut c = minter(&url, &ns, 2, &outs.0.join("c"));
    assert_eq!(c.wait_for("ERROR"), "ERROR ERR_NO_FREE_NODE");
    a.signal(libc::SIGSTOP);
    b.signal(libc::SIGSTOP);
    z.wipe();
    let probe = probe(&z);
    let deadline = Instant::now() + Duration::from_secs(60);
    while probe.children(&format!("/idmint/{ns}/held")).is_empty() {
        assert!(Instant::now() < deadline, "nobody was granted a node");
        std::thread::sleep(Duration::from_millis(10));
    }
    a.signal(libc::SIGCONT);
    b.signal(libc::SIGCONT);
    c.wait_for("HOLD");
    c.wait_minted(100_000);
    let (ids_a, said_a) = a.finish();
    let (ids_b, said_b) = b.finish();
    let (ids_c, _) = c.finish();
    assert_no_duplicates(&[&ids_a, &ids_b, &ids_c]);
    for said in [said_a, said_b] {
        assert!(said.iter().any(|l| l == "ERROR ERR_LEASE_LOST"), "{said:?}");
    }
}

/// Nothing listens, or the server is gone: a typed `StoreUnavailable` well within the
/// deadline, never a hang.
#[test]
fn zk_unreachable_server_fails_within_the_timeout() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let store = open(&format!("zk://127.0.0.1:{port}/idmint?timeout_ms=500"));
    let spec = LeaseSpec::new("down", 4, Duration::from_secs(10));
    let t = Instant::now();
    let e = returns("acquire", move || store.acquire(&spec, NOW, None));
    assert_eq!(
        e.unwrap_err(),
        Error::StoreUnavailable {
            store: "zookeeper",
            op: "acquire",
            reason: "no server reachable"
        }
    );
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    // A listener that accepts and never answers (a black hole): the deadline ends the call.
    let hole = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = hole.local_addr().unwrap().port();
    let store = open(&format!("zk://127.0.0.1:{port}/idmint?timeout_ms=500"));
    let spec = LeaseSpec::new("hole", 4, Duration::from_secs(10));
    let t = Instant::now();
    let e = returns("acquire", move || store.acquire(&spec, NOW, None));
    assert_eq!(
        e.unwrap_err(),
        Error::StoreUnavailable {
            store: "zookeeper",
            op: "acquire",
            reason: "timed out"
        }
    );
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    drop(hole);
}

/// Bad URLs and settings are `InvalidConfig`, when opened or (the session timeout against the
/// TTL) at the first acquire.
#[test]
fn zk_bad_urls_and_session_timeouts_are_typed_errors() {
    for bad in [
        "zk://127.0.0.1:2181",
        "zk://127.0.0.1:2181/",
        "zk:///idmint",
        "zk://127.0.0.1/idmint",
        "zk://127.0.0.1:70000/idmint",
        "zk://127.0.0.1:2181/zookeeper",
        "zk://127.0.0.1:2181/a//b",
        "zk://127.0.0.1:2181/idmint?timeout_ms=abc",
        "zk://127.0.0.1:2181/idmint?session_timeout_ms=0",
        "zk://127.0.0.1:2181/idmint?identity=",
        "zk://127.0.0.1:2181/idmint?mode=boot",
        "zk://127.0.0.1:2181/idmint?unknown=1",
    ] {
        assert!(
            matches!(lease::open(bad), Err(Error::InvalidConfig { .. })),
            "{bad:?} was accepted"
        );
    }
    assert_eq!(lease::open("zk://a:1,b:2/x/y").unwrap().kind(), "zookeeper");
    let z = ZooKeeper::start();
    let ns = ns("cfg");
    // A session shorter than the TTL could expire while the holder still mints.
    let short = open(&format!("{}?session_timeout_ms=1000", z.url()));
    let spec = LeaseSpec::new(&ns, 4, Duration::from_secs(2));
    assert!(matches!(
        short.acquire(&spec, NOW, None),
        Err(Error::InvalidConfig { .. })
    ));
    // The server grants at most 120 s (its maxSessionTimeout): a 200 s TTL is refused.
    let long = LeaseSpec::new(&ns, 4, Duration::from_secs(200));
    assert!(matches!(
        open(&z.url()).acquire(&long, NOW, None),
        Err(Error::InvalidConfig { .. })
    ));
    // A longer session than the TTL is fine.
    let longer = open(&format!("{}?session_timeout_ms=5000", z.url()));
    let l = longer.acquire(&spec, NOW, None).unwrap();
    longer.release(&l, NOW).unwrap();
    // Namespaces and the spec are checked as by every store.
    let store = open(&z.url());
    for bad in [
        LeaseSpec::new("x", 0, Duration::from_secs(1)),
        LeaseSpec::new("../escape", 4, Duration::from_secs(1)),
    ] {
        assert!(matches!(
            store.acquire(&bad, NOW, None),
            Err(Error::InvalidConfig { .. })
        ));
    }
}

// ---------------------------------------------------------------------------------------------
// Clocks

/// A holder process with identity `billing-1` mints and exits; the next one with the same
/// identity runs with its wall clock 30 s back (libfaketime) and a logical-clock policy: it
/// gets the same node (Leaf's worker id) and the node's recorded bound fences it, so none of
/// its IDs is at or below the first process's maximum.
#[test]
fn zk_restart_with_the_clock_set_back_issues_nothing_at_or_below_the_last_maximum() {
    let z = ZooKeeper::start();
    let outs = TempDir::new("faketime-out");
    let url = format!("{}?identity=billing-1", z.url());
    let ns = ns("faketime");
    // The second process's logical policy lets it run 60 s ahead of its clock: its horizon
    // is over a minute, and a horizon longer than recorded stretches a running lock delay.
    // Paid long ago here, so it does not wait it out behind its slow clock.
    warm(&z, &ns, 4);
    let mut first = minter(&url, &ns, 4, &outs.0.join("a"));
    let node = first.wait_for("HOLD ");
    first.wait_minted(50_000);
    let (ids1, _) = first.finish();
    let spec = MinterSpec::new(&url, &ns, 4, TTL_MS)
        .policy("logical:60000")
        .faketime(Faketime::Offset("-30s".into()));
    let mut second = Minter::start(&spec, &outs.0.join("b"));
    let behind = wall_ms() as i64 - second.clock() as i64;
    assert!(
        (29_000..40_000).contains(&behind),
        "faketime did not set the child's clock back ({behind} ms)"
    );
    assert_eq!(second.wait_for("HOLD "), node, "the identity's own node");
    second.wait_minted(50_000);
    let (ids2, _) = second.finish();
    let max1 = ids1.iter().max().unwrap();
    let min2 = ids2.iter().min().unwrap();
    assert!(min2 > max1, "an ID at or below the first process's maximum");
    assert_no_duplicates(&[&ids1, &ids2]);
}

/// A leased generator on ZooKeeper: mints, renews, and its lease's TTL is bound to the session
/// timeout the server granted.
#[test]
fn zk_leased_generator_mints_and_releases() {
    let z = ZooKeeper::start();
    let ns = ns("gen");
    let opts = LeaseOptions::new()
        .namespace(&ns)
        .ttl(Duration::from_millis(900))
        .nodes(4);
    let g = LeasedSnowflake::from_source(&z.url(), cfg(), opts.clone()).unwrap();
    let h = LeasedSnowflake::from_source(&z.url(), cfg(), opts).unwrap();
    assert_ne!(g.node(), h.node());
    let mut ids = Vec::new();
    let t = Instant::now();
    while t.elapsed() < Duration::from_millis(2_500) {
        ids.push(g.next_id().unwrap());
        ids.push(h.next_id().unwrap());
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(g.stats().renewals >= 3, "{:?}", g.stats());
    assert_eq!(g.stats().lost, 0, "renewals keep the session alive");
    assert_no_duplicates(&[&ids]);
    g.release().unwrap();
    h.release().unwrap();
}
