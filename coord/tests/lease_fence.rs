//! The time fence and the node swap of `LeasedSnowflake`, on the file store:
//!
//! - a holder mints up to T and releases (or crashes); the next holder of the node, with its
//!   clock set back 5 s, never mints an ID at or below the first holder's largest — it waits,
//!   continues on a logical clock or fails, as its `on_backwards` policy says (ManualClock);
//! - the same across real processes, the second one run under `faketime -f "-30s"`;
//! - seed 001's swap: a rollback beyond `swap_after_ms` moves the generator to another node at
//!   once and puts the old node at the back of the queue.
//!
//! `child_minter` is not a test of its own: it is the child half of the process tests, run by
//! re-executing this binary, and does nothing without `IDMINT_FENCE_CHILD_URL`.

mod support;

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use idmint::{Clock, Config, Error, Layout, ManualClock, OnBackwards, SystemClock};
use idmint_coord::lease::{self, FileStore, LeaseSpec, LeaseStore};
use idmint_coord::lease::{LeaseOptions, LeasedSnowflake};
use support::{wall_ms, TempDir};

const T: u64 = 1_750_000_000_000;

fn layout() -> Layout {
    Layout::preset("twitter").unwrap()
}

fn opts(ns: &str, nodes: u64) -> LeaseOptions {
    LeaseOptions::new()
        .namespace(ns)
        .nodes(nodes)
        .ttl(Duration::from_secs(10))
}

fn cfg(policy: &str) -> Config {
    Config::new(layout()).on_backwards(policy.parse().unwrap())
}

fn file_store(dir: &std::path::Path) -> Arc<dyn LeaseStore> {
    Arc::new(FileStore::open(dir).unwrap())
}

/// Holder A on a manual clock mints from T − 1 s up to T and releases; returns its largest
/// ID, its node and the bound its last renewal recorded (a reserve, the 10 s TTL, ahead of
/// its clock), which the release leaves in place: a record never goes down.
fn holder_a(store: &Arc<dyn LeaseStore>, ns: &str) -> (u64, u64, u64) {
    let clock = ManualClock::new(T - 1_000);
    let a =
        LeasedSnowflake::with_clock(store.clone(), cfg("wait:1000"), opts(ns, 1), clock).unwrap();
    let mut max = 0;
    for step in 0..=100 {
        a.clock().set(T - 1_000 + step * 10);
        for _ in 0..5 {
            let id = a.next_id().unwrap();
            assert!(id > max);
            max = id;
        }
    }
    assert_eq!(layout().timestamp_ms(max), T);
    let node = a.node();
    let bound = a.lease_info().unwrap().bound_ms;
    assert!(bound > T, "{bound}");
    a.release().unwrap();
    (max, node, bound)
}

#[test]
fn fence_after_release_with_clock_set_back() {
    let dir = TempDir::new("rel");
    let store = file_store(&dir);
    // The release leaves A's last renewal's bound F on record (it used to record A's exact
    // maximum T; a record never goes down now). B's clock is 5 s behind F.
    let (max_a, node, f) = holder_a(&store, "rel");
    let l = layout();

    // wait:N covering the step: B waits until the clock passes the fence, then mints above.
    let b = LeasedSnowflake::with_clock(
        store.clone(),
        cfg("wait:10000"),
        opts("rel", 1),
        ManualClock::new(f - 5_000),
    )
    .unwrap();
    assert_eq!(b.node(), node);
    assert_eq!(b.lease_info().unwrap().lease.fence_ms, Some(f));
    let id = b.next_id().unwrap();
    assert!(id > max_a, "wait policy minted at or below A's maximum");
    assert!(
        b.clock().now_ms() > f,
        "the manual clock was advanced by the wait"
    );
    assert_eq!(l.timestamp_ms(id), f + 1);
    assert_eq!(b.try_next_id().map(|x| x > id), Ok(true));
    // Its renewal recorded a bound a reserve ahead, and the release leaves it: the next B's
    // fence.
    let f = b.lease_info().unwrap().bound_ms;
    b.release().unwrap();

    // logical:N: B keeps minting at once, on a logical clock ahead of its own.
    let b = LeasedSnowflake::with_clock(
        store.clone(),
        cfg("logical:10000"),
        opts("rel", 1),
        ManualClock::new(f - 5_000),
    )
    .unwrap();
    assert_eq!(b.lease_info().unwrap().lease.fence_ms, Some(f));
    let mut batch = vec![0u64; 10_000];
    b.next_ids(&mut batch).unwrap();
    assert!(
        batch[0] > max_a,
        "logical policy minted at or below A's maximum"
    );
    assert!(batch.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(b.clock().now_ms(), f - 5_000, "logical does not wait");
    let max_b = *batch.last().unwrap();
    let bound_b = b.lease_info().unwrap().bound_ms;
    assert!(bound_b > l.timestamp_ms(max_b));
    b.release().unwrap();

    // fail: B refuses at once (`NodeFenced`, the node's fence is not a clock step here).
    // Further back than an honest holder can have put the bound (the horizon: TTL + reserve
    // + how far the policy runs ahead), every policy refuses at once, without waiting.
    for (policy, back) in [
        ("fail", 5_000),
        ("wait:1000", 25_000),
        ("logical:1000", 25_000),
    ] {
        let b = LeasedSnowflake::with_clock(
            store.clone(),
            cfg(policy),
            opts("rel", 1),
            ManualClock::new(bound_b - back),
        )
        .unwrap();
        let e = b.next_id().unwrap_err();
        assert!(
            matches!(e, Error::NodeFenced { by_ms, .. } if by_ms == back),
            "{policy}: {e:?}"
        );
        assert!(matches!(b.try_next_id(), Err(Error::NodeFenced { .. })));
        assert_eq!(b.clock().now_ms(), bound_b - back, "{policy}: no wait");
        // Released without minting: the recorded bound stays at B's (logical) one.
        b.release().unwrap();
    }
    let s = FileStore::open(&*dir).unwrap();
    let l2 = s
        .acquire(&LeaseSpec::new("rel", 1, Duration::from_secs(1)), 0, None)
        .unwrap();
    assert_eq!(l2.fence_ms, Some(bound_b));
    s.release(&l2, 0).unwrap();
}

/// Dropping the generator releases too, with its exact high-water mark; the store keeps the
/// reservation the renewals recorded (a record never goes down), so that is the next
/// holder's fence.
#[test]
fn drop_releases_and_the_record_keeps_the_reservation() {
    let dir = TempDir::new("drop");
    let store = file_store(&dir);
    {
        let g = LeasedSnowflake::with_clock(
            store.clone(),
            cfg("fail"),
            opts("drop", 1),
            ManualClock::new(T),
        )
        .unwrap();
        // A never-used node is fenced at the time of the grant: the first ID is a tick later.
        let id = g.next_id().unwrap();
        assert_eq!(layout().timestamp_ms(id), T + 1);
        let info = g.lease_info().unwrap();
        assert_eq!(info.store, "file");
        assert_eq!(info.bound_ms, T + 10_000, "renewal reserved a TTL ahead");
        assert!(info.deadline.is_some());
    }
    let l = store
        .acquire(&LeaseSpec::new("drop", 1, Duration::from_secs(1)), T, None)
        .unwrap();
    // It used to be T + 1, the exact maximum; a release no longer lowers the record.
    assert_eq!(l.fence_ms, Some(T + 10_000));
    store.release(&l, T).unwrap();
}

/// The wall clock jumps ahead of the recorded bound (here: the manual clock, 1 h forward):
/// the generator renews on the spot and goes on; IDs never pass the recorded bound.
#[test]
fn clock_jump_past_the_bound_renews_synchronously() {
    let dir = TempDir::new("jump");
    let store = file_store(&dir);
    let g = LeasedSnowflake::with_clock(
        store.clone(),
        cfg("fail"),
        opts("jump", 1),
        ManualClock::new(T),
    )
    .unwrap();
    let a = g.next_id().unwrap();
    let renewals = g.stats().renewals;
    g.clock().set(T + 3_600_000);
    let b = g.next_id().unwrap();
    assert!(b > a);
    assert_eq!(layout().timestamp_ms(b), T + 3_600_000);
    assert!(g.stats().renewals > renewals);
    assert!(g.lease_info().unwrap().bound_ms >= T + 3_600_000);
}

// ---------------------------------------------------------------------------------------------
// Swap on rollback

/// Releases nodes 1, 2, 0 in that order, so the queue is 1, 2, 0.
fn queue_1_2_0(store: &Arc<dyn LeaseStore>, ns: &str) {
    let spec = LeaseSpec::new(ns, 3, Duration::from_secs(10));
    // Granted long before T: a never-used node's fence is the time of its grant.
    let ls: Vec<_> = (0..3)
        .map(|_| store.acquire(&spec, T - 200_000, None).unwrap())
        .collect();
    for n in [1, 2, 0] {
        let l = ls.iter().find(|l| l.node == n).unwrap();
        store.release(l, T - 100_000).unwrap();
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn swap_case(policy: &str) {
    let dir = TempDir::new("swap");
    let store = file_store(&dir);
    queue_1_2_0(&store, "swap");
    let g = LeasedSnowflake::with_clock(
        store.clone(),
        cfg(policy),
        opts("swap", 3).swap_after_ms(1_000),
        ManualClock::new(T),
    )
    .unwrap();
    assert_eq!(g.node(), 1, "the front of the queue");
    let mut ids = HashSet::new();
    for i in 0..200 {
        g.clock().set(T + i);
        assert!(ids.insert(g.next_id().unwrap()));
    }
    // A step back within swap_after_ms is the policy's business, not a swap (logical bridges it).
    if policy.starts_with("logical") {
        g.clock().set(T + 199 - 500);
        assert!(ids.insert(g.next_id().unwrap()));
        assert_eq!(g.node(), 1);
    }
    // 5 s back: beyond swap_after_ms. The generator moves to node 2 and mints at once, at the
    // clock's time, without an error and without waiting.
    g.clock().set(T - 5_000);
    let id = g.next_id().unwrap();
    assert_eq!(g.node(), 2);
    assert_eq!(g.clock().now_ms(), T - 5_000);
    let l = layout();
    let parts = l.decompose(id).unwrap();
    assert_eq!((parts.node, l.timestamp_ms(id)), (2, T - 5_000));
    assert!(ids.insert(id));
    for _ in 0..1000 {
        assert!(ids.insert(g.next_id().unwrap()), "duplicate after the swap");
    }
    let st = g.stats();
    assert_eq!(st.swaps, 1);
    // The old node went to the back of the queue: node 0 (released earlier) comes first.
    let spec = LeaseSpec::new("swap", 3, Duration::from_secs(10));
    let far = T + 1_000_000;
    let first = store.acquire(&spec, far, None).unwrap();
    let second = store.acquire(&spec, far, None).unwrap();
    assert_eq!((first.node, second.node), (0, 1));
    // Node 1 was released with its recorded bound, which covers everything minted on it.
    assert!(second.fence_ms.unwrap() >= T + 199);
    store.release(&first, 0).unwrap();
    store.release(&second, second.fence_ms.unwrap()).unwrap();
    drop(g);
}

#[test]
fn swap_on_rollback_fail_policy() {
    swap_case("fail");
}

#[test]
fn swap_on_rollback_instead_of_waiting() {
    swap_case("wait:100000");
}

#[test]
fn swap_on_rollback_beyond_the_logical_window() {
    swap_case("logical:2000");
}

/// Four threads mint while the clock is set back: exactly one swap happens, every thread
/// carries on on the new node (a thread that finished a mint on the old node either had its ID
/// admitted under the old lease or retries on the new one), and no ID repeats.
#[test]
fn swap_while_threads_mint() {
    let dir = TempDir::new("swapmt");
    let store = file_store(&dir);
    let cfg = cfg("fail").on_exhausted(idmint::OnExhausted::Borrow { max_ticks: 100 });
    let g = LeasedSnowflake::with_clock(
        store,
        cfg,
        opts("swapmt", 4).swap_after_ms(1_000),
        ManualClock::new(T),
    )
    .unwrap();
    let old = g.node();
    let gate = std::sync::Barrier::new(5);
    let all: Vec<Vec<u64>> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..4)
            .map(|_| {
                sc.spawn(|| {
                    let mut ids = Vec::with_capacity(20_000);
                    for _ in 0..10_000 {
                        ids.push(g.next_id().unwrap());
                    }
                    gate.wait();
                    gate.wait();
                    for _ in 0..10_000 {
                        ids.push(g.next_id().unwrap());
                    }
                    ids
                })
            })
            .collect();
        gate.wait();
        g.clock().set(T - 5_000);
        gate.wait();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(g.stats().swaps, 1);
    assert_ne!(g.node(), old);
    let l = layout();
    let mut seen = HashSet::new();
    for ids in &all {
        for (i, &id) in ids.iter().enumerate() {
            assert!(seen.insert(id), "duplicate ID");
            let node = l.decompose(id).unwrap().node;
            if i >= 10_000 {
                assert_eq!(node, g.node(), "minted on the old node after the swap");
            } else {
                assert_eq!(node, old);
            }
        }
    }
    assert_eq!(seen.len(), 80_000);
}

/// No other node is free: the policy's answer stands, and minting resumes on the same node
/// once the clock is back.
#[test]
fn swap_without_a_free_node_falls_back_to_the_policy() {
    let dir = TempDir::new("noswap");
    let store = file_store(&dir);
    let g = LeasedSnowflake::with_clock(
        store.clone(),
        cfg("fail"),
        opts("noswap", 1).swap_after_ms(1_000),
        ManualClock::new(T),
    )
    .unwrap();
    let a = g.next_id().unwrap();
    g.clock().set(T - 5_000);
    assert!(matches!(g.next_id(), Err(Error::ClockBackwards { .. })));
    assert_eq!((g.node(), g.stats().swaps), (0, 0));
    g.clock().set(T + 1);
    assert!(g.next_id().unwrap() > a);
}

// ---------------------------------------------------------------------------------------------
// Real processes: a killed holder, and faketime

/// The child half of the process tests (not a test by itself): builds a `LeasedSnowflake` on
/// the system clock from `IDMINT_FENCE_CHILD_URL`, mints `IDMINT_FENCE_CHILD_COUNT` IDs, prints
/// `CLOCK now_ms` and `IDS min max count` (or `ERROR code`), then either releases or, with
/// `IDMINT_FENCE_CHILD_HOLD`, waits on stdin (to be killed).
#[test]
fn child_minter() {
    let Ok(url) = std::env::var("IDMINT_FENCE_CHILD_URL") else {
        return;
    };
    let policy = std::env::var("IDMINT_FENCE_CHILD_POLICY").unwrap();
    let count: usize = std::env::var("IDMINT_FENCE_CHILD_COUNT")
        .unwrap()
        .parse()
        .unwrap();
    let hold = std::env::var("IDMINT_FENCE_CHILD_HOLD").is_ok();
    let mut out = std::io::stdout();
    let clock = SystemClock::new();
    writeln!(out, "\nCLOCK {}", clock.now_ms()).unwrap();
    let g = LeasedSnowflake::from_source_with_clock(
        &url,
        cfg(&policy),
        opts("proc", 1).ttl(Duration::from_secs(3)),
        clock,
    )
    .unwrap();
    let mut ids = vec![0u64; count];
    match g.next_ids(&mut ids) {
        Ok(()) => {
            assert!(ids.windows(2).all(|w| w[0] < w[1]));
            writeln!(out, "IDS {} {} {}", ids[0], ids[count - 1], count).unwrap();
        }
        Err(e) => writeln!(out, "ERROR {}", e.code()).unwrap(),
    }
    out.flush().unwrap();
    if hold {
        let mut sink = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut sink);
    }
    g.release().unwrap();
}

fn spawn_minter(url: &str, policy: &str, faketime: Option<&str>, hold: bool) -> Child {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new(&exe);
    if let Some(offset) = faketime {
        // Keep CLOCK_MONOTONIC real: only the wall clock is set back.
        support::minter::faketime_offset(&mut cmd, offset).env("FAKETIME_DONT_FAKE_MONOTONIC", "1");
    }
    cmd.args(["--exact", "child_minter", "--nocapture", "--test-threads=1"])
        .env("IDMINT_FENCE_CHILD_URL", url)
        .env("IDMINT_FENCE_CHILD_POLICY", policy)
        .env("IDMINT_FENCE_CHILD_COUNT", "20000")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if hold {
        cmd.env("IDMINT_FENCE_CHILD_HOLD", "1");
    }
    cmd.spawn().expect("spawn the child minter")
}

/// Reads `CLOCK` and then `IDS`/`ERROR` from a child: (its clock, Ok((min, max)) or the code).
fn child_result(child: &mut Child) -> (u64, Result<(u64, u64), String>) {
    let mut r = BufReader::new(child.stdout.take().unwrap());
    let mut clock = None;
    let mut line = String::new();
    loop {
        line.clear();
        assert!(r.read_line(&mut line).unwrap() > 0, "child ended early");
        let l = line.trim();
        let result = if let Some(v) = l.strip_prefix("CLOCK ") {
            clock = Some(v.parse().unwrap());
            continue;
        } else if let Some(v) = l.strip_prefix("IDS ") {
            let p: Vec<u64> = v.split(' ').map(|x| x.parse().unwrap()).collect();
            Ok((p[0], p[1]))
        } else if let Some(v) = l.strip_prefix("ERROR ") {
            Err(v.to_string())
        } else {
            continue;
        };
        // Keep reading, so the child's later output does not fail on a closed pipe.
        std::thread::spawn(move || std::io::copy(&mut r, &mut std::io::sink()));
        return (clock.unwrap(), result);
    }
}

/// A process mints and exits; the next holder of its node runs with its wall clock 30 s back
/// (`faketime -f -30s`): with `logical` all its IDs are above the first process's, with
/// `fail` or a short `wait` it refuses.
#[test]
fn faketime_process_clock_set_back() {
    let dir = TempDir::new("faketime");
    let url = format!("file:{}", dir.display());
    let mut first = spawn_minter(&url, "wait:1000", None, false);
    let (_, r1) = child_result(&mut first);
    let (_, max1) = r1.expect("first process mints");
    assert!(first.wait().unwrap().success());

    let mut second = spawn_minter(&url, "logical:60000", Some("-30s"), false);
    let (clock2, r2) = child_result(&mut second);
    assert!(second.wait().unwrap().success());
    let behind = wall_ms() as i64 - clock2 as i64;
    assert!(
        (29_000..40_000).contains(&behind),
        "faketime did not set the child's clock back ({behind} ms)"
    );
    let (min2, max2) = r2.expect("logical policy keeps minting");
    assert!(min2 > max1, "an ID at or below the first process's maximum");

    for policy in ["fail", "wait:1000"] {
        let mut third = spawn_minter(&url, policy, Some("-30s"), false);
        let (_, r3) = child_result(&mut third);
        assert_eq!(r3, Err("ERR_CLOCK_BACKWARDS".to_string()), "{policy}");
        assert!(third.wait().unwrap().success());
    }
    // Those refusals released the node without lowering its fence.
    let s = lease::open(&url).unwrap();
    let l = s
        .acquire(&LeaseSpec::new("proc", 1, Duration::from_secs(1)), 0, None)
        .unwrap();
    assert!(l.fence_ms.unwrap() >= layout().timestamp_ms(max2));
    s.release(&l, l.fence_ms.unwrap()).unwrap();
}

/// A holder process is killed (SIGKILL) after minting: no release ran, but its renewals
/// recorded a bound ahead of everything it minted. The next holder, its clock 5 s behind
/// (ManualClock), never mints at or below the dead holder's maximum, under each policy.
#[test]
fn killed_holder_fence_with_each_policy() {
    let dir = TempDir::new("killed");
    let url = format!("file:{}", dir.display());
    let mut child = spawn_minter(&url, "wait:1000", None, true);
    let (_, r) = child_result(&mut child);
    let (_, max_dead) = r.expect("child mints");
    child.kill().unwrap();
    child.wait().unwrap();
    let l = layout();
    let dead_ms = l.timestamp_ms(max_dead);
    let store = file_store(&dir);

    let b = LeasedSnowflake::with_clock(
        store.clone(),
        cfg("logical:60000"),
        opts("proc", 1),
        ManualClock::new(dead_ms - 5_000),
    )
    .unwrap();
    let fence = b.lease_info().unwrap().lease.fence_ms.unwrap();
    assert!(
        fence > dead_ms,
        "the dead holder's reservation is the fence"
    );
    let id = b.next_id().unwrap();
    assert!(id > max_dead);
    b.release().unwrap();

    let b = LeasedSnowflake::with_clock(
        store.clone(),
        cfg("wait:60000"),
        opts("proc", 1),
        ManualClock::new(dead_ms - 5_000),
    )
    .unwrap();
    let id2 = b.next_id().unwrap();
    assert!(id2 > id && b.clock().now_ms() > fence);
    b.release().unwrap();

    let b = LeasedSnowflake::with_clock(
        store,
        cfg("fail"),
        opts("proc", 1),
        ManualClock::new(dead_ms - 5_000),
    )
    .unwrap();
    // The node's fence is ahead of this clock: under `fail` that is refused at once, as
    // `NodeFenced` (not a clock step: no clock moved in this process).
    assert!(matches!(b.next_id(), Err(Error::NodeFenced { .. })));
    assert_eq!(
        b.clock().now_ms(),
        dead_ms - 5_000,
        "refused without waiting"
    );
    assert_eq!(b.config().on_backwards_policy(), OnBackwards::Fail);
}
