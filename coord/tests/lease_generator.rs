//! `LeasedSnowflake` itself, on the file store: options validation, background renewal of
//! the durable high-water mark, fork safety, and the cost of the lease checks on the hot path.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use idmint::{Config, Error, Layout, ManualClock};
use idmint_coord::lease::{FileStore, LeaseStore};
use idmint_coord::lease::{LeaseOptions, LeasedSnowflake};
use support::TempDir;

const T: u64 = 1_750_000_000_000;

fn twitter() -> Config {
    Config::new(Layout::preset("twitter").unwrap())
}

fn file_store(dir: &std::path::Path) -> Arc<dyn LeaseStore> {
    Arc::new(FileStore::open(dir).unwrap())
}

#[test]
fn generator_types_are_shareable() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<LeasedSnowflake>();
    send_sync::<LeasedSnowflake<ManualClock>>();
    send_sync::<FileStore>();
    send_sync::<idmint_coord::lease::RedisStore>();
    send_sync::<idmint_coord::lease::PgStore>();
}

#[test]
fn options_are_validated() {
    let dir = TempDir::new("opts");
    let store = file_store(&dir);
    let bad = [
        LeaseOptions::new().ttl(Duration::from_millis(5)),
        LeaseOptions::new()
            .ttl(Duration::from_secs(1))
            .renew_every(Duration::from_millis(950)),
        LeaseOptions::new()
            .ttl(Duration::from_secs(1))
            .reserve(Duration::from_millis(300)),
        LeaseOptions::new().nodes(0),
        LeaseOptions::new().nodes(1025),
        LeaseOptions::new().swap_after_ms(0),
        LeaseOptions::new().namespace("no/slash"),
        LeaseOptions::new().namespace(""),
    ];
    for o in bad {
        let r =
            LeasedSnowflake::with_clock(store.clone(), twitter(), o.clone(), ManualClock::new(T));
        assert!(
            matches!(r, Err(Error::InvalidConfig { .. })),
            "{o:?} accepted: {r:?}"
        );
    }
    // A node the layout cannot hold is refused too (Sonyflake: 16 node bits, fine; a 2-bit
    // node field with a 4-node space, fine; asking for 5 of them is not).
    let tiny = Config::new(Layout::parse("time=41@1ms,node=2,seq=12,epoch=2020-01-01").unwrap());
    assert!(LeasedSnowflake::with_clock(
        store.clone(),
        tiny,
        LeaseOptions::new().nodes(5),
        ManualClock::new(T)
    )
    .is_err());
    let ok =
        LeasedSnowflake::with_clock(store, tiny, LeaseOptions::new(), ManualClock::new(T)).unwrap();
    assert!(ok.node() < 4);
}

/// The file store's flock never expires, but the durable high-water mark must run ahead of
/// the clock: the background renewal keeps pushing it (here with the manual clock moved on
/// and nothing minted).
#[test]
fn renewal_pushes_the_durable_high_water_mark() {
    let dir = TempDir::new("push");
    let store = file_store(&dir);
    let g = LeasedSnowflake::with_clock(
        store,
        twitter(),
        LeaseOptions::new()
            .namespace("push")
            .nodes(1)
            .ttl(Duration::from_millis(300)),
        ManualClock::new(T),
    )
    .unwrap();
    let rec = dir.join("push").join("node-0.rec");
    let recorded = || -> u64 {
        let text = std::fs::read_to_string(&rec).unwrap();
        let v = text
            .split(' ')
            .find_map(|f| f.strip_prefix("last_issued_ms="))
            .unwrap();
        v.parse().unwrap()
    };
    assert_eq!(recorded(), T + 300);
    g.clock().set(T + 60_000);
    let t = Instant::now();
    // Renewals come every TTL/3 (100 ms); the limit only keeps a broken renewal from hanging
    // the suite, with room for a machine too loaded to run the renewal thread for seconds.
    while recorded() < T + 60_300 {
        assert!(t.elapsed() < Duration::from_secs(30), "bound not pushed");
        std::thread::sleep(Duration::from_millis(10));
    }
    let id = g.next_id().unwrap();
    assert_eq!(
        Layout::preset("twitter").unwrap().timestamp_ms(id),
        T + 60_000
    );
    assert!(g.stats().renewals >= 2);
}

/// After fork() the child cannot mint on the parent's lease (core `Forked` error through
/// every minting call), and dropping the inherited generator neither releases the parent's
/// lease nor waits for the renewal thread, which does not exist in the child. The parent
/// carries on.
#[test]
fn forked_child_cannot_mint_or_release() {
    let dir = TempDir::new("fork");
    let store = file_store(&dir);
    let g = LeasedSnowflake::new(
        store.clone(),
        twitter(),
        LeaseOptions::new().namespace("fork").nodes(1),
    )
    .unwrap();
    let before = g.next_id().unwrap();
    // SAFETY: the child only touches atomics and makes syscalls (no allocation, no locks
    // other threads may hold) before _exit.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let mut code = 0;
        if g.next_id() != Err(Error::Forked) {
            code |= 1;
        }
        if g.try_next_id() != Err(Error::Forked) {
            code |= 2;
        }
        let mut buf = [0u64; 4];
        if g.next_ids(&mut buf) != Err(Error::Forked) {
            code |= 4;
        }
        // Releasing in the child releases nothing: the lease is the parent's.
        if g.release() != Err(Error::Forked) {
            code |= 8;
        }
        // SAFETY: ends the child without running the parent's atexit handlers or destructors.
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    // SAFETY: waits for the child we just forked.
    let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
    assert_eq!(rc, pid);
    assert!(libc::WIFEXITED(status), "child crashed or hung");
    assert_eq!(libc::WEXITSTATUS(status), 0, "child minted or failed oddly");
    // The parent still holds the node and mints on.
    assert!(g.next_id().unwrap() > before);
    let spec = idmint_coord::lease::LeaseSpec::new("fork", 1, Duration::from_secs(1));
    assert_eq!(
        store.acquire(&spec, T, None).unwrap_err(),
        Error::NoFreeNode { nodes: 1 }
    );
    g.release().unwrap();
    let l = store.acquire(&spec, T, None).unwrap();
    store.release(&l, 0).unwrap();
}
