//! Seed 000's Redis composition generator against a private Redis: uniqueness across threads
//! and generators, a server clock behind the high-water mark (simulated by seeding the mark
//! ahead of the server's time), sequence exhaustion, and a server killed mid-run.

mod support;

use std::collections::HashSet;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use idmint::{Error, Layout};
use idmint_coord::redis_compose::RedisCompose;
use support::{Kind, Server};

const LAYOUT: &str = "time=41@1ms,shard=12,seq=10,epoch=2020-01-01";

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn layout(spec: &str) -> Layout {
    Layout::parse(spec).unwrap()
}

fn set(url: &str, key: &str, value: u64) {
    let mut con = redis::Client::open(url).unwrap().get_connection().unwrap();
    redis::cmd("SET")
        .arg(key)
        .arg(value)
        .query::<()>(&mut con)
        .unwrap();
}

fn assert_strictly_ascending(ids: &[u64]) {
    for w in ids.windows(2) {
        assert!(w[0] < w[1], "{} then {}", w[0], w[1]);
    }
}

#[test]
fn ids_are_unique_across_threads_and_carry_time_and_shard() {
    let server = Server::start(Kind::Redis);
    let l = layout(LAYOUT);
    let before = now_ms();
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let url = server.url();
            thread::spawn(move || {
                let g = RedisCompose::new(&url, l, "orders", 99).unwrap();
                let mut ids: Vec<u64> = (0..300).map(|_| g.next_id().unwrap()).collect();
                ids.extend(g.next_ids(2_500).unwrap());
                assert_strictly_ascending(&ids);
                ids
            })
        })
        .collect();
    let all: Vec<u64> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    let after = now_ms();
    let unique: HashSet<u64> = all.iter().copied().collect();
    assert_eq!(unique.len(), all.len(), "duplicate IDs");
    for &id in &all {
        let parts = l.decompose(id).unwrap();
        assert_eq!(parts.node, 99);
        let t = l.timestamp_ms(id);
        // Same host as the server; the time field may run a little ahead when a tick's
        // sequence runs out (8 × 2,800 IDs at 1,024 per ms).
        assert!(
            t + 1_000 >= before && t <= after + 1_000,
            "time {t} outside [{before}, {after}]"
        );
    }
}

/// The server's clock behind the high-water tick (as after a step back): issuing continues on
/// the high-water tick and after it, never below; when the high-water tick's counter has
/// expired, that tick is not reused.
#[test]
fn a_server_clock_behind_the_high_water_mark_never_repeats() {
    let server = Server::start(Kind::Redis);
    let l = layout(LAYOUT);
    let g = RedisCompose::new(&server.url(), l, "stepback", 5)
        .unwrap()
        .with_seq_ttl(Duration::from_millis(20));
    let mut ids = g.next_ids(100).unwrap();
    let ahead = l.tick_at(now_ms()).unwrap() + 60_000;
    set(&server.url(), g.high_water_key(), ahead);

    let first = g.next_ids(1_000).unwrap();
    assert!(
        first
            .iter()
            .all(|&id| l.decompose(id).unwrap().time >= ahead),
        "an ID below the high-water tick"
    );
    ids.extend(&first);
    let last_tick = l.decompose(*ids.last().unwrap()).unwrap().time;

    // Let the counters expire while the clock is still a minute behind: the high-water tick's
    // past is now unknown, so issuing must move past it rather than restart its sequence.
    thread::sleep(Duration::from_millis(100));
    let second: Vec<u64> = (0..50).map(|_| g.next_id().unwrap()).collect();
    assert!(l.decompose(second[0]).unwrap().time > last_tick);
    ids.extend(&second);
    assert_strictly_ascending(&ids);

    // Another generator on the same namespace agrees (the mark lives in Redis).
    let other = RedisCompose::new(&server.url(), l, "stepback", 5).unwrap();
    let id = other.next_id().unwrap();
    assert!(id > *ids.last().unwrap());
}

/// Four IDs per tick: a burst moves on to the following ticks at once, never more than four
/// per tick, all unique and ascending.
#[test]
fn an_exhausted_tick_moves_to_the_next() {
    let server = Server::start(Kind::Redis);
    let l = layout("time=41@1ms,shard=4,seq=2,epoch=2020-01-01");
    let g = RedisCompose::new(&server.url(), l, "tiny", 3).unwrap();
    let start = l.tick_at(now_ms()).unwrap();
    let mut ids = g.next_ids(2_000).unwrap();
    ids.extend((0..200).map(|_| g.next_id().unwrap()));
    assert_strictly_ascending(&ids);
    let mut per_tick = std::collections::HashMap::new();
    for &id in &ids {
        let p = l.decompose(id).unwrap();
        assert!(p.time >= start);
        *per_tick.entry(p.time).or_insert(0) += 1;
    }
    assert!(per_tick.values().all(|&n| n <= 4));
    assert!(per_tick.len() >= 2_200 / 4);
}

/// A coarser tick and another epoch: the layout, not the script, decides the shifts.
#[test]
fn the_layout_decides_tick_and_epoch() {
    let server = Server::start(Kind::Redis);
    let l = layout("time=40@10ms,dc=3,shard=5,seq=15,epoch=2024-06-01");
    let node = l.join_node(&[5, 17]).unwrap();
    let g = RedisCompose::new(&server.url(), l, "coarse", node).unwrap();
    let before = now_ms();
    let ids = g.next_ids(5_000).unwrap();
    let after = now_ms();
    assert_strictly_ascending(&ids);
    for &id in &ids {
        assert_eq!(l.decompose(id).unwrap().node, node);
        let t = l.timestamp_ms(id);
        assert!(t + 20 >= before && t <= after + 20);
    }
}

#[test]
fn a_killed_server_fails_in_bounded_time_and_issuing_resumes_above() {
    let server = Server::start(Kind::Redis);
    let l = layout(LAYOUT);
    let g = RedisCompose::new(&server.url(), l, "kill", 1)
        .unwrap()
        .with_timeouts(Duration::from_millis(500), Duration::from_secs(1));
    let mut ids = g.next_ids(500).unwrap();
    server.kill();
    for _ in 0..3 {
        let t = Instant::now();
        let e = g.next_id().unwrap_err();
        assert!(
            matches!(
                e,
                Error::StoreUnavailable {
                    store: "redis",
                    op: "compose",
                    reason: "connection refused" | "connection lost" | "timed out" | "I/O error",
                }
            ),
            "{e:?}"
        );
        assert!(t.elapsed() < Duration::from_secs(3));
    }
    server.resume();
    ids.extend(g.next_ids(500).unwrap());
    // The test server keeps no data, so the mark is gone; the server clock moved on.
    assert_strictly_ascending(&ids);
}

#[test]
fn bad_configurations_are_refused() {
    let l = layout(LAYOUT);
    let url = "redis://127.0.0.1:1/";
    assert!(matches!(
        RedisCompose::new(url, l, "ns", 1 << 12),
        Err(Error::OutOfRange { .. })
    ));
    for ns in ["", "a{b}", &"n".repeat(65)] {
        assert!(matches!(
            RedisCompose::new(url, l, ns, 1),
            Err(Error::InvalidConfig { .. })
        ));
    }
    assert!(matches!(
        RedisCompose::new("mysql://x", l, "ns", 1),
        Err(Error::InvalidConfig { .. })
    ));
}

#[test]
fn an_epoch_after_the_server_clock_is_an_error() {
    let server = Server::start(Kind::Redis);
    let epoch = now_ms() + 86_400_000;
    let l = Layout::builder()
        .epoch_ms(epoch)
        .time(41, 1)
        .node("shard", 10)
        .sequence(12)
        .build()
        .unwrap();
    let g = RedisCompose::new(&server.url(), l, "future", 0).unwrap();
    assert!(matches!(
        g.next_id(),
        Err(Error::BeforeEpoch { epoch_ms, .. }) if epoch_ms == epoch
    ));
}
