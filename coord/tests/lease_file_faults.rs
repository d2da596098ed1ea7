//! The file lease store under the faults a host meets: its directory removed under a live
//! holder (a temp cleaner), a holder paused past its TTL, a forked child, planted symbolic
//! links, and node spaces too large to scan.
//!
//! `fault_child` is not a test of its own: it is the child half of the process tests, run by
//! re-executing this binary, and does nothing without `IDMINT_FAULT_CHILD_URL`.

mod support;

use std::time::Duration;

use idmint::Error;
use idmint_coord::lease::{FileStore, LeaseSpec, LeaseStore};
use support::minter::{assert_no_duplicates, Minter, MinterSpec};
use support::TempDir;

const T: u64 = 1_750_000_000_000;

fn spec(ns: &str, nodes: u64) -> LeaseSpec {
    LeaseSpec::new(ns, nodes, Duration::from_secs(10))
}

/// The child half of the process tests (see `support::minter`).
#[test]
fn fault_child() {
    support::minter::child_main();
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
    let dir = TempDir::new("removed");
    let outs = TempDir::new("removed-out");
    let url = format!("file:{}", dir.0.display());
    let mut a = Minter::start(
        &MinterSpec::new(&url, "faults", nodes, 1_500),
        &outs.0.join("a"),
    );
    a.wait_for("HOLD");
    a.wait_minted(50_000);
    support::remove_dir_under_holders(&dir.0);
    let mut b = Minter::start(
        &MinterSpec::new(&url, "faults", nodes, 1_500),
        &outs.0.join("b"),
    );
    if nodes == 1 {
        // Until A gives the node up, B finds it taken.
        assert_eq!(b.wait_for("ERROR"), "ERROR ERR_NO_FREE_NODE");
    }
    // A notices at its next renewal (every 500 ms) that its lock file is gone.
    assert_eq!(a.wait_for("ERROR"), "ERROR ERR_LEASE_LOST");
    if nodes == 2 {
        b.wait_for("HOLD");
        // A leases again, on the node B does not hold (it may have done so already).
        a.wait_for_nth("HOLD", 2);
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
    let dir = TempDir::new("paused");
    let outs = TempDir::new("paused-out");
    let url = format!("file:{}", dir.0.display());
    let mut a = Minter::start(&MinterSpec::new(&url, "faults", 2, 600), &outs.0.join("a"));
    a.wait_for("HOLD");
    a.wait_minted(20_000);
    a.signal(libc::SIGSTOP);
    std::thread::sleep(Duration::from_millis(1_800));
    let mut b = Minter::start(&MinterSpec::new(&url, "faults", 2, 600), &outs.0.join("b"));
    assert_eq!(
        b.wait_for("HOLD"),
        "HOLD 1",
        "the paused holder keeps node 0"
    );
    b.wait_minted(20_000);
    a.signal(libc::SIGCONT);
    a.wait_minted(20_000);
    let (ids_a, _) = a.finish();
    let (ids_b, _) = b.finish();
    assert_no_duplicates(&[&ids_a, &ids_b]);
}

// ---------------------------------------------------------------------------------------------
// Renewals check the ground

#[test]
fn renewal_finds_the_lock_file_removed() {
    let dir = TempDir::new("ground");
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
    let dir = TempDir::new("record");
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
    let dir = TempDir::new("fork");
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
    // Retried for a while: another test of this process may be spawning a program at this
    // moment, and its child shares our descriptors until it execs (they are close-on-exec).
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let got = loop {
        match other.acquire(&spec("f", 1), T + 3, None) {
            Err(Error::NoFreeNode { .. }) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20))
            }
            r => break r,
        }
    };
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
    let dir = TempDir::new("links");
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
/// a record per node of the space; a released node is reused before a never-used one, so a
/// thousand runs one after another leave the directory with one node, not a thousand.
#[test]
fn huge_node_spaces_are_not_scanned() {
    let dir = TempDir::new("huge");
    let store = FileStore::open(&dir.0).unwrap();
    let s = spec("h", 1 << 32);
    let a = store.acquire(&s, T, None).unwrap();
    let b = store.acquire(&s, T, None).unwrap();
    assert_eq!((a.node, b.node), (0, 1));
    store.release(&a, T + 1).unwrap();
    let c = store.acquire(&s, T + 2, None).unwrap();
    assert_eq!(
        (c.node, c.fence_ms),
        (0, Some(T + 1)),
        "a released node whose bound is behind the clock comes before a never-used one"
    );
    // Its bound ahead of the clock: a never-used node is better.
    store.release(&c, T + 60_000).unwrap();
    let d = store.acquire(&s, T + 3, None).unwrap();
    assert_eq!(d.node, 2);
    store.release(&b, T).unwrap();
    store.release(&d, T).unwrap();
    for i in 0..1000 {
        let l = store.acquire(&s, T + 120_000 + i, None).unwrap();
        store.release(&l, T + 120_000 + i).unwrap();
    }
    let files = std::fs::read_dir(dir.0.join("h")).unwrap().count();
    assert!(files <= 6, "{files} files after 1,000 runs");
}
