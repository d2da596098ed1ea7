//! The etcd lease store on a private 3-member etcd cluster (`support::etcd`), under what an
//! etcd deployment meets beyond the conformance kit (concurrent holders, expiry and takeover:
//! `conformance.rs`): a follower or the leader killed, the prefix deleted or the cluster wiped under live holders, the whole cluster killed,
//! a restore from an older snapshot, a stopped (SIGSTOP) cluster, TLS, bad URLs.
//!
//! The rule every process test checks: never two holders minting on one node, so no ID twice
//! across every process's output. `fault_child` is the child half of the process tests
//! (`support::minter`) and does nothing as a test.

mod support;

use std::collections::HashSet;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use idmint::{Config, Error, Layout};
use idmint_coord::lease::{self, Lease, LeaseSpec, LeaseStore};
use idmint_coord::lease::{LeaseOptions, LeasedSnowflake};
use support::etcd::{Etcd, MEMBERS, PREFIX};
use support::lease_checks::{self, ns, NOW};
use support::minter::{assert_no_duplicates, Minter, MinterSpec};
use support::{wall_ms, TempDir};

/// etcd's shortest lease with its default election timeout (1 s) is 2 s.
const TTL_MS: u64 = 2_000;
const TTL: Duration = Duration::from_millis(TTL_MS);

/// The child half of the minting-process tests (see `support::minter`).
#[test]
fn fault_child() {
    support::minter::child_main();
}

fn cfg() -> Config {
    Config::new(Layout::preset("twitter").unwrap())
}

fn store(url: &str) -> Arc<dyn LeaseStore> {
    Arc::from(lease::open(url).unwrap())
}

/// A namespace whose first epoch is already behind every clock: its first grant is made at
/// time 0 (a new namespace pays the lock delay, from the asker's clock), so the tests' holders
/// start minting at once.
fn primed(url: &str, tag: &str, nodes: u64) -> String {
    let ns = ns(tag);
    let s = store(url);
    let l = retry(|| s.acquire(&LeaseSpec::new(&ns, nodes, TTL), 0, None)).unwrap();
    assert!(
        l.not_before_ms.is_some(),
        "a new namespace pays the lock delay"
    );
    s.release(&l, 0).unwrap();
    ns
}

/// Calls `f` until it answers other than `StoreUnavailable` (a cluster just started may still
/// elect its leader).
fn retry<T>(mut f: impl FnMut() -> idmint::Result<T>) -> idmint::Result<T> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match f() {
            Err(Error::StoreUnavailable { .. }) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20))
            }
            other => return other,
        }
    }
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

fn minter(url: &str, ns: &str, nodes: u64, out: &std::path::Path) -> Minter {
    Minter::start(&MinterSpec::new(url, ns, nodes, TTL_MS), out)
}

/// Every lease a minting process reported: (node, token, owner).
fn leases_of(said: &[String]) -> Vec<(u64, u64, u64)> {
    said.iter()
        .filter_map(|l| l.strip_prefix("LEASE "))
        .map(|l| {
            let f: Vec<u64> = l.split(' ').map(|v| v.parse().unwrap()).collect();
            (f[0], f[1], f[2])
        })
        .collect()
}

/// The lock delay a grant under a new epoch gets for `spec` (its TTL is whole seconds here).
fn horizon_ms(spec: &LeaseSpec) -> u64 {
    spec.horizon.max(spec.ttl).as_millis() as u64
}

/// The key of node `node`'s lease in namespace `ns` (see the store's module docs).
fn lease_key(ns: &str, node: u64) -> String {
    format!("{PREFIX}/lease/{ns}/{node:020}")
}

// ---------------------------------------------------------------------------------------------
// The checks every store passes

#[test]
fn etcd_queue_order_and_bounds() {
    let c = Etcd::start();
    // A namespace's first grant is fenced at the lock delay (it cannot be told from the first
    // grant after the prefix was deleted): make it long before NOW.
    let ns = ns("queue");
    let s = store(&c.url());
    let first =
        retry(|| s.acquire(&LeaseSpec::new(&ns, 3, Duration::from_secs(30)), 0, None)).unwrap();
    assert_eq!(first.not_before_ms, Some(60_000));
    s.release(&first, 0).unwrap();
    lease_checks::queue_order_in(&c.url(), &ns);
}

/// A 2^32 node space: records exist only for nodes granted; nothing is filled in advance.
#[test]
fn etcd_acquire_on_a_2_pow_32_node_space_writes_keys_only_for_granted_nodes() {
    let c = Etcd::start();
    let s = store(&c.url());
    let ns = primed(&c.url(), "huge", 1 << 32);
    // Long enough to count the leases before they expire.
    let spec = LeaseSpec::new(&ns, 1 << 32, Duration::from_secs(30));
    let t = Instant::now();
    let ls: Vec<Lease> = (0..20)
        .map(|_| s.acquire(&spec, NOW, None).unwrap())
        .collect();
    eprintln!("20 acquires on a 2^32 node space took {:?}", t.elapsed());
    let nodes: HashSet<u64> = ls.iter().map(|l| l.node).collect();
    assert_eq!(nodes.len(), 20);
    // The primed grant's record, and one per grant here.
    assert_eq!(c.count(&format!("{PREFIX}/node/{ns}/")), 21);
    assert_eq!(c.count(&format!("{PREFIX}/lease/{ns}/")), 20);
    for l in &ls {
        s.release(l, NOW).unwrap();
    }
    assert_eq!(c.count(&format!("{PREFIX}/lease/{ns}/")), 0);
}

/// The TTL etcd grants is whole seconds: the lease reports the effective one, never shorter
/// than the spec's; a lease not kept alive is taken over only after it.
#[test]
fn etcd_ttl_is_rounded_up_to_whole_seconds() {
    let c = Etcd::start();
    let s = store(&c.url());
    let ns = primed(&c.url(), "ttl", 2);
    let spec = LeaseSpec::new(&ns, 1, Duration::from_millis(2_300));
    let l = s.acquire(&spec, NOW, None).unwrap();
    assert_eq!(l.ttl, Duration::from_secs(3));
    // Shorter than etcd's minimum (2 s here): etcd's minimum.
    let short = LeaseSpec::new(&ns, 2, Duration::from_millis(300));
    let m = s.acquire(&short, NOW, None).unwrap();
    assert_eq!(m.ttl, Duration::from_secs(2));
    let t = Instant::now();
    let other = store(&c.url());
    let taken = loop {
        match other.acquire(&LeaseSpec::new(&ns, 2, TTL), NOW, Some(l.node)) {
            Ok(t) => break t,
            Err(Error::NoFreeNode { .. }) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("{e:?}"),
        }
        assert!(t.elapsed() < Duration::from_secs(30), "never expired");
    };
    assert_eq!(taken.node, m.node);
    assert!(
        t.elapsed() >= Duration::from_secs(2),
        "taken over after {:?}, before etcd's TTL",
        t.elapsed()
    );
    s.release(&l, NOW).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Members killed

/// Two generators mint while a follower is killed and started again: their stores move to a
/// member that answers within the same call, and minting never stops.
#[test]
fn etcd_follower_killed_holders_keep_minting() {
    let c = Etcd::start();
    let url = c.url();
    let ns = primed(&url, "follower", 4);
    let opts = LeaseOptions::new().namespace(&ns).ttl(TTL).nodes(4);
    let a = LeasedSnowflake::new(store(&url), cfg(), opts.clone()).unwrap();
    let b = LeasedSnowflake::new(store(&url), cfg(), opts).unwrap();
    let mut ids = Vec::new();
    let mint_for = |d: Duration, ids: &mut Vec<u64>| {
        let t = Instant::now();
        while t.elapsed() < d {
            for g in [&a, &b] {
                ids.push(g.next_id().unwrap_or_else(|e| {
                    panic!("minting stopped {:?} into the phase: {e:?}", t.elapsed())
                }));
            }
            std::thread::sleep(Duration::from_micros(500));
        }
    };
    mint_for(Duration::from_millis(500), &mut ids);
    let follower = (c.leader() + 1) % MEMBERS;
    c.kill_member(follower);
    mint_for(TTL * 2, &mut ids);
    c.resume_member(follower);
    mint_for(TTL / 2, &mut ids);
    let (sa, sb) = (a.stats(), b.stats());
    assert_eq!((sa.lost, sb.lost), (0, 0), "{sa:?} {sb:?}");
    assert!(sa.renewals >= 4 && sb.renewals >= 4, "{sa:?} {sb:?}");
    assert_no_duplicates(&[&ids]);
    a.release().unwrap();
    b.release().unwrap();
}

/// Two processes mint on the two nodes of a space while the leader is killed mid-run: minting
/// pauses at most while a new leader is elected, each process keeps its lease (etcd keeps
/// leases across a leader change), nothing is granted twice and no ID repeats.
#[test]
fn etcd_leader_killed_while_two_processes_mint_gives_no_duplicate() {
    let c = Etcd::start();
    let outs = TempDir::new("leader-out");
    let url = c.url();
    let ns = primed(&url, "leader", 2);
    // Paced: a run of seconds, not millions of IDs a second.
    let paced = |out: &str| {
        let spec = MinterSpec::new(&url, &ns, 2, TTL_MS).pause(Duration::from_millis(5));
        Minter::start(&spec, &outs.0.join(out))
    };
    let mut a = paced("a");
    let mut b = paced("b");
    a.wait_for("HOLD");
    b.wait_for("HOLD");
    a.wait_minted(20_000);
    b.wait_minted(20_000);
    let leader = c.leader();
    c.kill_member(leader);
    // Two TTLs: every lease has needed renewals through the new leader since.
    std::thread::sleep(TTL * 2);
    a.wait_minted(20_000);
    b.wait_minted(20_000);
    c.resume_member(leader);
    a.wait_minted(20_000);
    b.wait_minted(20_000);
    let (ids_a, said_a) = a.finish();
    let (ids_b, said_b) = b.finish();
    let total = assert_no_duplicates(&[&ids_a, &ids_b]);
    let leases: Vec<_> = leases_of(&said_a)
        .into_iter()
        .chain(leases_of(&said_b))
        .collect();
    let tokens: HashSet<u64> = leases.iter().map(|l| l.1).collect();
    assert_eq!(
        tokens.len(),
        leases.len(),
        "a token granted twice: {leases:?}"
    );
    assert_eq!(
        (leases_of(&said_a).len(), leases_of(&said_b).len()),
        (1, 1),
        "a lease was lost across the leader change: {said_a:?} {said_b:?}"
    );
    eprintln!("{total} IDs across the leader change, leases {leases:?}");
}

/// The whole cluster is killed mid-run (SIGKILL, every member): the generator stops minting
/// before its lease could have expired and resumes by itself when the cluster is back — on
/// the same lease, which etcd kept — and a second holder that joins afterwards repeats nothing.
#[test]
fn etcd_cluster_killed_and_resumed_minting_stops_before_the_deadline_and_resumes() {
    let c = Etcd::start();
    let url = format!("{}?timeout_ms=300", c.url());
    let ns = primed(&url, "outage", 4);
    let opts = LeaseOptions::new().namespace(&ns).ttl(TTL).nodes(4);
    let g = LeasedSnowflake::new(store(&url), cfg(), opts.clone()).unwrap();
    let first = g.lease_info().unwrap().lease;
    let mut ids = Vec::new();
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_millis(1_500) {
        ids.push(g.next_id().unwrap());
        std::thread::sleep(Duration::from_micros(200));
    }
    assert!(g.stats().renewals >= 2, "renewal keeps the lease alive");
    let t_kill = Instant::now();
    let (t_killed, last_ok, deadline, err) = std::thread::scope(|sc| {
        let k = sc.spawn(|| {
            c.kill();
            Instant::now()
        });
        let mut last_ok = t_kill;
        let mut deadline = g.lease_info().unwrap().deadline.unwrap();
        let err = loop {
            // Taken before the call: the ID was admitted after this moment.
            let before = Instant::now();
            match g.next_id() {
                Ok(id) => {
                    ids.push(id);
                    last_ok = before;
                    if let Some(d) = g.lease_info().and_then(|i| i.deadline) {
                        deadline = d;
                    }
                }
                Err(e) => break e,
            }
            assert!(t_kill.elapsed() < Duration::from_secs(60), "never stopped");
            std::thread::sleep(Duration::from_micros(200));
        };
        (k.join().unwrap(), last_ok, deadline, err)
    });
    assert!(
        matches!(err, Error::LeaseLost { reason, .. } if reason == "renewal failed before the deadline"),
        "{err:?}"
    );
    // The last successful renewal was sent before the cluster died, so etcd's expiry is at
    // least its send time + TTL (the deadline + margin); minting stopped before the deadline.
    assert!(
        last_ok <= deadline,
        "minted {:?} after the deadline",
        last_ok - deadline
    );
    assert!(
        deadline + TTL / 10 <= t_killed + TTL,
        "deadline past any possible expiry"
    );
    eprintln!("minting stopped {:?} after the kill", last_ok - t_kill);
    c.resume();
    let back = Instant::now();
    let resumed = loop {
        match g.next_id() {
            Ok(id) => break id,
            Err(Error::LeaseLost { .. }) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => panic!("{e:?}"),
        }
        assert!(back.elapsed() < Duration::from_secs(60), "never resumed");
    };
    assert!(resumed > *ids.iter().max().unwrap());
    ids.push(resumed);
    let info = g.lease_info().unwrap().lease;
    assert_eq!(
        (info.node, info.token, info.owner),
        (first.node, first.token, first.owner),
        "etcd keeps its leases across a restart of the whole cluster"
    );
    assert!(g.stats().renew_failures >= 1);
    let h = LeasedSnowflake::new(store(&url), cfg(), opts).unwrap();
    assert_ne!(h.node(), g.node());
    let mut more = vec![0u64; 5000];
    h.next_ids(&mut more).unwrap();
    ids.extend_from_slice(&more);
    for _ in 0..2000 {
        ids.push(g.next_id().unwrap());
    }
    assert_no_duplicates(&[&ids]);
    drop(h);
    g.release().unwrap();
}

// ---------------------------------------------------------------------------------------------
// Lost records

/// The prefix is deleted (`etcdctl del --prefix`) while A mints on the only node and B waits
/// for it. A is paused meanwhile (SIGSTOP, well inside its lease) until B has the node, then
/// runs on: its etcd lease still lives (deleting keys revokes no lease), but its renewal finds
/// the node key and the epoch gone and stops it; B's grant is under a new epoch, fenced past
/// anything A can still mint. Zero duplicates.
#[test]
fn etcd_prefix_deleted_while_two_holders_mint_gives_no_duplicate() {
    let c = Etcd::start();
    let outs = TempDir::new("prefix-out");
    let url = c.url();
    let ns = primed(&url, "prefix", 1);
    let mut a = minter(&url, &ns, 1, &outs.0.join("a"));
    a.wait_for("HOLD");
    a.wait_minted(50_000);
    let mut b = minter(&url, &ns, 1, &outs.0.join("b"));
    assert_eq!(b.wait_for("ERROR"), "ERROR ERR_NO_FREE_NODE");
    a.signal(libc::SIGSTOP);
    c.delete_prefix();
    let t = Instant::now();
    while !c.exists(&lease_key(&ns, 0)) {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "B never took the node"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    a.signal(libc::SIGCONT);
    b.wait_for("HOLD");
    b.wait_minted(200_000);
    let (ids_a, said_a) = a.finish();
    let (ids_b, said_b) = b.finish();
    assert_no_duplicates(&[&ids_a, &ids_b]);
    assert!(
        said_a.iter().any(|l| l == "ERROR ERR_LEASE_LOST"),
        "A never found its lease lost: {said_a:?}"
    );
    let (la, lb) = (leases_of(&said_a), leases_of(&said_b));
    assert!(lb.iter().all(|l| !la.contains(l)), "{la:?} {lb:?}");
}

/// The cluster loses all its data while a lease is held (every key deleted, every etcd lease
/// revoked): the holder's renewal is `LeaseLost`; the next grant of the node starts a new epoch
/// and is fenced at the lock delay, past what the old holder recorded.
#[test]
fn etcd_wipe_loses_every_lease_and_fences_the_next_grant() {
    let c = Etcd::start();
    let s = store(&c.url());
    let ns = primed(&c.url(), "wipe", 1);
    let spec = LeaseSpec::new(&ns, 1, TTL);
    let a = s.acquire(&spec, NOW, None).unwrap();
    s.renew(&a, NOW + TTL_MS).unwrap();
    c.wipe();
    let e = s.renew(&a, NOW + 2 * TTL_MS).unwrap_err();
    assert!(matches!(e, Error::LeaseLost { node: 0, .. }), "{e:?}");
    let b = s.acquire(&spec, NOW + 500, None).unwrap();
    assert_eq!(b.node, 0);
    assert_ne!(b.epoch, a.epoch, "a new epoch");
    let delay = NOW + 500 + horizon_ms(&spec);
    assert_eq!((b.not_before_ms, b.fence_ms), (Some(delay), Some(delay)));
    assert!(matches!(s.release(&a, NOW), Err(Error::LeaseLost { .. })));
    s.release(&b, delay).unwrap();
}

/// The cluster is restored from a snapshot older than the last grants (an operator's backup,
/// same member names and peer URLs: the same cluster id). A store object that saw the later
/// revisions sees the revision go back: its holder's renewal fails, and its next acquire
/// starts a new epoch whose grants are fenced at the lock delay — not at the bound of the
/// restored record, which is older than what its holder recorded.
#[test]
fn etcd_restored_from_an_older_snapshot_is_fenced_by_a_store_that_saw_later_revisions() {
    let c = Etcd::start();
    let snap = TempDir::new("snap");
    let url = c.url();
    let ns = primed(&url, "restore", 1);
    let spec = LeaseSpec::new(&ns, 1, TTL);
    let t = wall_ms();
    let s1 = store(&url);
    let a = s1.acquire(&spec, t, None).unwrap();
    s1.renew(&a, t + 1_000).unwrap();
    let file = snap.0.join("etcd.db");
    c.snapshot(&file);
    s1.release(&a, t + 1_000).unwrap();
    // B holds the node after the snapshot, and records a bound the snapshot does not have.
    let s2 = store(&url);
    let b = s2.acquire(&spec, t + 100, None).unwrap();
    assert_eq!(b.fence_ms, Some(t + 1_000));
    for i in 0..20 {
        s2.renew(&b, t + 100 + TTL_MS + i).unwrap();
    }
    c.restore(&file);
    let e = retry(|| s2.renew(&b, t + 200 + TTL_MS)).unwrap_err();
    assert!(matches!(e, Error::LeaseLost { .. }), "{e:?}");
    // A's lease came back with the snapshot (etcd restores leases with a full TTL); once it
    // expires the node is granted again, under a new epoch.
    let now = t + 300;
    let started = Instant::now();
    let g = loop {
        match retry(|| s2.acquire(&spec, now, None)) {
            Ok(g) => break g,
            Err(Error::NoFreeNode { .. }) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("{e:?}"),
        }
        assert!(started.elapsed() < Duration::from_secs(60), "never granted");
    };
    assert_ne!(g.epoch, b.epoch);
    let delay = g.not_before_ms.expect("fenced at the lock delay");
    assert!(delay >= now + horizon_ms(&spec), "{delay}");
    assert!(g.fence_ms.unwrap() > t + 100 + TTL_MS + 19, "{g:?}");
    // A store object that never saw the later revisions gets the same fence now.
    s2.release(&g, delay).unwrap();
    let fresh = store(&url).acquire(&spec, now, None).unwrap();
    assert!(fresh.fence_ms.unwrap() >= delay, "{fresh:?}");
}

// ---------------------------------------------------------------------------------------------
// Deadlines, URLs, TLS

/// A cluster that does not answer (every member stopped with SIGSTOP: the kernel still takes
/// the connections) fails every call within its timeout; one that is gone fails at once; both
/// work again afterwards.
#[test]
fn etcd_unreachable_cluster_fails_within_the_timeout() {
    let c = Etcd::start();
    const TIMEOUT: Duration = Duration::from_millis(400);
    let url = format!("{}?timeout_ms={}", c.url(), TIMEOUT.as_millis());
    let ns = primed(&url, "down", 4);
    // Long enough to outlive the pause: the lease is renewed after it.
    let spec = LeaseSpec::new(&ns, 4, Duration::from_secs(20));
    let s = store(&url);
    let l = s.acquire(&spec, NOW, None).unwrap();
    // Stopped: renew and acquire time out. (A release is tried last: a request that timed out
    // may still be carried out when the cluster runs again, and then the lease is gone.)
    for op in ["renew", "acquire", "release"] {
        assert!(c.signal("STOP"));
        let (s2, l2, spec2) = (s.clone(), l.clone(), spec.clone());
        let t = Instant::now();
        let e = returns(op, move || match op {
            "renew" => s2.renew(&l2, NOW + 1).unwrap_err(),
            "acquire" => s2.acquire(&spec2, NOW, None).unwrap_err(),
            _ => s2.release(&l2, NOW + 1).unwrap_err(),
        });
        let took = t.elapsed();
        assert!(c.signal("CONT"));
        assert!(
            matches!(e, Error::StoreUnavailable { store: "etcd", op: o, reason: "timed out" } if o == op),
            "{op}: {e:?}"
        );
        assert!(
            took < TIMEOUT + Duration::from_millis(300),
            "{op} took {took:?} with a {TIMEOUT:?} timeout"
        );
        if op != "release" {
            // Running again: the same lease renews.
            retry(|| s.renew(&l, NOW + 2)).unwrap();
        }
    }
    // Nothing listens at all: refused at once.
    let gone = store("etcd://127.0.0.1:1,127.0.0.1:2/x?timeout_ms=5000");
    let t = Instant::now();
    let e = gone.acquire(&spec, NOW, None).unwrap_err();
    assert!(
        matches!(
            e,
            Error::StoreUnavailable {
                store: "etcd",
                op: "acquire",
                reason: "connection refused"
            }
        ),
        "{e:?}"
    );
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}

#[test]
fn etcd_bad_urls_are_typed_errors() {
    for bad in [
        "etcd://",
        "etcd:///idmint",
        "etcd://127.0.0.1:0/x",
        "etcd://127.0.0.1:2379,,127.0.0.1:2380/x",
        "etcd://user:secret@127.0.0.1:2379/x",
        "etcd://127.0.0.1:2379/a b",
        "etcd://127.0.0.1:2379/x?timeout_ms=abc",
        "etcd://127.0.0.1:2379/x?timeout_ms=0",
        "etcd://127.0.0.1:2379/x?mode=boot",
        "etcd://127.0.0.1:2379/x?ca_file=/etc/hostname",
        "etcds://127.0.0.1:2379/x?ca_file=/nonexistent.pem",
        "etcd://127.0.0.1:2379/x?sslmode=require",
    ] {
        assert!(
            matches!(lease::open(bad), Err(Error::InvalidConfig { .. })),
            "{bad:?} was accepted"
        );
    }
    let s = lease::open("etcd://127.0.0.1:1/x").unwrap();
    assert_eq!(s.kind(), "etcd");
    for spec in [
        LeaseSpec::new("x", 0, TTL),
        LeaseSpec::new("a/b", 4, TTL),
        LeaseSpec::new("x", 4, Duration::ZERO),
    ] {
        assert!(
            matches!(
                s.acquire(&spec, NOW, None),
                Err(Error::InvalidConfig { .. })
            ),
            "{spec:?}"
        );
    }
}

/// `etcds://` with `ca_file`: leases work through TLS; a client trusting another CA, or
/// speaking plain gRPC to the TLS port, fails with a typed error naming the cause.
#[test]
fn etcd_tls_with_its_ca_works_and_another_ca_is_refused() {
    let pki_dir = TempDir::new("etcd-pki");
    let pki = support::tls::make_pki(&pki_dir.0);
    let c = Etcd::start_tls(&pki);
    let url = format!("{}?ca_file={}", c.url(), pki.ca_cert.display());
    let ns = primed(&url, "tls", 2);
    let s = store(&url);
    let l = s.acquire(&LeaseSpec::new(&ns, 2, TTL), NOW, None).unwrap();
    s.renew(&l, NOW + 1).unwrap();
    s.release(&l, NOW + 1).unwrap();
    let other = store(&format!(
        "{}?ca_file={}",
        c.url(),
        pki.other_ca_cert.display()
    ));
    let e = other
        .acquire(&LeaseSpec::new(&ns, 2, TTL), NOW, None)
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::StoreUnavailable {
                reason: "TLS certificate not trusted",
                ..
            }
        ),
        "{e:?}"
    );
    let plain = store(&c.url().replacen("etcds://", "etcd://", 1));
    let t = Instant::now();
    let e = plain
        .acquire(&LeaseSpec::new(&ns, 2, TTL), NOW, None)
        .unwrap_err();
    assert!(matches!(e, Error::StoreUnavailable { .. }), "{e:?}");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}
