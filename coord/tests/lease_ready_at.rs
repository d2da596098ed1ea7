//! A node whose fence is ahead of the clock is "ready at T", not a clock step.
//!
//! The previous holder of a node renewed with a bound ahead of its clock (a `LeasedSnowflake`
//! records `max(high-water, now) + reserve`), then stopped renewing (SIGSTOP, a crash) or
//! released early; stores never lower that record. The next holder finds the fence ahead of
//! its own clock. `LeasedSnowflake` then:
//!
//! - waits for it when an honest holder can have put it there (within the lease's horizon:
//!   TTL + reserve + what the policies let a generator run ahead), whatever the `on_backwards`
//!   budget, renewing the lease while it waits, and reports the wait once (`on_wait`);
//! - refuses at once with `Error::NodeFenced` (node, how far behind, the fence) when the fence
//!   is further ahead (this host's clock is behind), or when the policy is `fail`.
//!
//! On the file store with a manual clock (deterministic: a wait moves the manual clock, so "did
//! not wait" is "the clock did not move"), and on a private Redis with the system clock, where
//! the previous holder's lease really expires.

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use idmint::{Clock, Config, Error, Layout, ManualClock};
use idmint_coord::lease::{
    self, FileStore, LeaseOptions, LeaseSpec, LeaseStore, LeaseWait, LeasedSnowflake, WaitCause,
};
use support::wall_ms;
use support::{temp_dir, Kind, Server};

const T: u64 = 1_750_000_000_000;

fn layout() -> Layout {
    Layout::preset("twitter").unwrap()
}

/// The default config: `on_backwards` is `wait:1000`.
fn cfg() -> Config {
    Config::new(layout())
}

fn opts(ns: &str, ttl_ms: u64, waits: &Arc<Mutex<Vec<LeaseWait>>>) -> LeaseOptions {
    let waits = waits.clone();
    LeaseOptions::new()
        .namespace(ns)
        .nodes(1)
        .ttl(Duration::from_millis(ttl_ms))
        .on_wait(move |w| waits.lock().unwrap().push(w.clone()))
}

/// A previous holder of node 0 that renewed with `bound` and then vanished without a release:
/// its store handle (and with it the file locks) is dropped.
fn vanished_file_holder(dir: &std::path::Path, ns: &str, now: u64, bound: u64) {
    let store = FileStore::open(dir).unwrap();
    let spec = LeaseSpec::new(ns, 1, Duration::from_secs(10));
    let l = store.acquire(&spec, now, None).unwrap();
    store.renew(&l, bound).unwrap();
}

fn file_store(dir: &std::path::Path) -> Arc<dyn LeaseStore> {
    Arc::new(FileStore::open(dir).unwrap())
}

/// The previous holder's bound is 1.5 s ahead (more than the default `wait:1000` budget, well
/// within the 20 s horizon of a 10 s TTL): the new holder waits for it and mints above it.
#[test]
fn file_takeover_waits_for_the_fence_and_mints_above_it() {
    let dir = temp_dir("ready-file");
    vanished_file_holder(&dir, "ready", T, T + 1_500);
    let waits = Arc::new(Mutex::new(Vec::new()));
    let g = LeasedSnowflake::with_clock(
        file_store(&dir),
        cfg(),
        opts("ready", 10_000, &waits),
        ManualClock::new(T),
    )
    .unwrap();
    let id = g.next_id().unwrap();
    assert!(
        layout().timestamp_ms(id) > T + 1_500,
        "minted above the fence"
    );
    assert!(g.clock().now_ms() > T + 1_500, "it waited for the fence");
    let more: Vec<u64> = (0..1000).map(|_| g.next_id().unwrap()).collect();
    assert!(more.iter().all(|&m| layout().timestamp_ms(m) > T + 1_500));
    let w = waits.lock().unwrap().clone();
    assert_eq!(w.len(), 1, "one report per wait: {w:?}");
    assert_eq!(
        (w[0].node, w[0].cause, w[0].until_ms, w[0].wait_ms),
        (0, WaitCause::Fence, T + 1_501, 1_501)
    );
    assert_eq!(w[0].namespace, "ready");
    assert!(g.stats().renewals >= 2, "the wait renewed the lease");
    g.release().unwrap();
}

/// The fence is further ahead than an honest holder can have put it (this host's clock is
/// behind: here 10 min): refused at once, naming the node, how far behind and what to do.
/// The manual clock did not move: nothing waited.
#[test]
fn file_fence_beyond_the_horizon_is_refused_at_once() {
    let dir = temp_dir("ready-far");
    let fence = T + 600_000;
    vanished_file_holder(&dir, "far", T, fence);
    let waits = Arc::new(Mutex::new(Vec::new()));
    let g = LeasedSnowflake::with_clock(
        file_store(&dir),
        cfg(),
        opts("far", 10_000, &waits),
        ManualClock::new(T),
    )
    .unwrap();
    let e = g.next_id().unwrap_err();
    assert_eq!(
        e,
        Error::NodeFenced {
            node: 0,
            by_ms: 600_000,
            fence_ms: fence
        }
    );
    assert_eq!(e.code(), "ERR_CLOCK_BACKWARDS");
    let msg = e.to_string();
    for part in ["node 0", "600000 ms behind", "fix the clock", "more nodes"] {
        assert!(msg.contains(part), "{msg}");
    }
    assert_eq!(g.clock().now_ms(), T, "refused without waiting");
    assert!(waits.lock().unwrap().is_empty());
    let mut out = [0u64; 4];
    assert!(matches!(
        g.next_ids(&mut out),
        Err(Error::NodeFenced { .. })
    ));
    assert!(matches!(g.try_next_id(), Err(Error::NodeFenced { .. })));
    g.release().unwrap();
}

/// `on_backwards = fail` never sleeps: a fence 1.5 s ahead is refused at once.
#[test]
fn file_fence_under_fail_is_refused_at_once() {
    let dir = temp_dir("ready-fail");
    vanished_file_holder(&dir, "fail", T, T + 1_500);
    let waits = Arc::new(Mutex::new(Vec::new()));
    let g = LeasedSnowflake::with_clock(
        file_store(&dir),
        cfg().on_backwards("fail".parse().unwrap()),
        opts("fail", 10_000, &waits),
        ManualClock::new(T),
    )
    .unwrap();
    assert!(matches!(
        g.next_id(),
        Err(Error::NodeFenced {
            node: 0,
            by_ms: 1_500,
            ..
        })
    ));
    assert_eq!(g.clock().now_ms(), T, "refused without waiting");
    assert!(waits.lock().unwrap().is_empty());
    g.release().unwrap();
}

/// `try_next_id` does not wait: it says when the node is ready, and reports that wait to
/// `on_wait` once (its caller, e.g. the service, does the waiting and logs it).
#[test]
fn file_fence_try_next_id_says_when() {
    let dir = temp_dir("ready-try");
    vanished_file_holder(&dir, "try", T, T + 1_500);
    let waits = Arc::new(Mutex::new(Vec::new()));
    let g = LeasedSnowflake::with_clock(
        file_store(&dir),
        cfg(),
        opts("try", 10_000, &waits),
        ManualClock::new(T),
    )
    .unwrap();
    assert_eq!(
        g.try_next_id(),
        Err(Error::WouldBlock {
            until_ms: T + 1_501
        })
    );
    assert!(matches!(g.try_next_id(), Err(Error::WouldBlock { .. })));
    {
        let waits = waits.lock().unwrap();
        assert_eq!(
            waits.len(),
            1,
            "one report per lease, however often it is asked"
        );
        assert_eq!(
            (waits[0].cause, waits[0].until_ms, waits[0].wait_ms),
            (WaitCause::Fence, T + 1_501, 1_501)
        );
    }
    g.clock().set(T + 1_501);
    assert!(layout().timestamp_ms(g.try_next_id().unwrap()) > T + 1_500);
    g.release().unwrap();
}

/// A holder released early: the record keeps its last renewal's bound (a reserve ahead of
/// its clock), so a restart on a one-node space finds the fence ahead and waits for it.
#[test]
fn file_restart_after_release_waits_for_the_reserve() {
    let dir = temp_dir("ready-restart");
    let store = file_store(&dir);
    let waits = Arc::new(Mutex::new(Vec::new()));
    let first = LeasedSnowflake::with_clock(
        store.clone(),
        cfg(),
        opts("restart", 2_000, &waits),
        ManualClock::new(T),
    )
    .unwrap();
    let last = first.next_id().unwrap();
    let bound = first.lease_info().unwrap().bound_ms;
    assert!(bound > T + 1_000, "renewed a reserve ahead: {bound}");
    first.release().unwrap();
    let second = LeasedSnowflake::with_clock(
        store,
        cfg(),
        opts("restart", 2_000, &waits),
        ManualClock::new(T + 1),
    )
    .unwrap();
    let id = second.next_id().unwrap();
    assert!(id > last);
    assert!(layout().timestamp_ms(id) > bound);
    assert_eq!(waits.lock().unwrap().len(), 1);
    second.release().unwrap();
}

fn redis_spec(ns: &str, ttl_ms: u64) -> LeaseSpec {
    // The same horizon a LeasedSnowflake with this TTL (and the default reserve) asks for.
    LeaseSpec::new(ns, 1, Duration::from_millis(ttl_ms)).horizon(Duration::from_millis(2 * ttl_ms))
}

/// Simulates a Redis holder that is SIGSTOPped: it renews with `ahead_ms` ahead of its clock,
/// then never again; returns its bound once its lease has run out.
fn stopped_redis_holder(url: &str, ns: &str, ttl_ms: u64, ahead_ms: u64) -> u64 {
    let store = lease::open(url).unwrap();
    let spec = redis_spec(ns, ttl_ms);
    let l = store.acquire(&spec, wall_ms(), None).unwrap();
    let bound = wall_ms() + ahead_ms;
    store.renew(&l, bound).unwrap();
    // Wait until the lease is gone from the store (it expires a TTL after the renewal).
    let probe = lease::open(url).unwrap();
    loop {
        std::thread::sleep(Duration::from_millis(50));
        match probe.acquire(&spec, wall_ms(), None) {
            Ok(got) => {
                // Give it back at once, as it found it (the record only rises anyway).
                probe.release(&got, 0).unwrap();
                return bound;
            }
            Err(Error::NoFreeNode { .. }) => {}
            Err(e) => panic!("{e}"),
        }
    }
}

/// Bug 1 and 2 on Redis: the previous holder stopped renewing with its bound 1.9 s ahead (TTL
/// 1 s). Its lease runs out; the next `LeasedSnowflake` with the default policy (`wait:1000`)
/// gets the node with the fence still ahead: it waits — longer than its own TTL, renewing —
/// keeps its lease, and mints above the old bound. Then a fence far beyond the horizon, and
/// one under `fail`, are refused before the fence time.
#[test]
fn redis_takeover_after_a_stopped_holder() {
    let server = Server::start(Kind::Redis);
    let url = server.url();
    let ttl = 1_000;

    let bound = stopped_redis_holder(&url, "stopped", ttl, 1_900 + ttl);
    let waits = Arc::new(Mutex::new(Vec::new()));
    let store: Arc<dyn LeaseStore> = Arc::from(lease::open(&url).unwrap());
    let g = LeasedSnowflake::new(store.clone(), cfg(), opts("stopped", ttl, &waits)).unwrap();
    let fence = g.lease_info().unwrap().lease.fence_ms.unwrap();
    assert!(fence >= bound);
    let ids: Vec<u64> = (0..10_000).map(|_| g.next_id().unwrap()).collect();
    assert!(ids
        .iter()
        .all(|&id| layout().timestamp_ms(id) > bound && layout().timestamp_ms(id) > fence));
    let w = waits.lock().unwrap().clone();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!((w[0].cause, w[0].until_ms), (WaitCause::Fence, fence + 1));
    let info = g.lease_info().unwrap();
    assert!(info.deadline.is_some(), "the lease outlived the wait");
    assert_eq!(g.stats().lost, 0);
    g.release().unwrap();

    // Far beyond the horizon (2 TTL here): refused while the clock is still before the fence.
    let far = stopped_redis_holder(&url, "far", ttl, 600_000);
    let g = LeasedSnowflake::new(store.clone(), cfg(), opts("far", ttl, &waits)).unwrap();
    let e = g.next_id().unwrap_err();
    assert!(wall_ms() < far, "refused before the fence time");
    match e {
        Error::NodeFenced {
            node: 0,
            by_ms,
            fence_ms,
        } => {
            assert!(fence_ms >= far);
            assert!(by_ms > 500_000, "{by_ms}");
        }
        e => panic!("{e}"),
    }
    g.release().unwrap();

    // `fail`: refused at once, also within the horizon.
    let near = stopped_redis_holder(&url, "fail", ttl, 1_900 + ttl);
    let g = LeasedSnowflake::new(
        store,
        cfg().on_backwards("fail".parse().unwrap()),
        opts("fail", ttl, &waits),
    )
    .unwrap();
    let e = g.next_id().unwrap_err();
    assert!(wall_ms() < near, "refused before the fence time");
    assert!(matches!(e, Error::NodeFenced { node: 0, .. }), "{e}");
    assert_eq!(waits.lock().unwrap().len(), 1, "no new wait was reported");
    g.release().unwrap();
}
