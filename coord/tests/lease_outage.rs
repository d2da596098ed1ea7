//! `LeasedSnowflake` against a store that dies mid-run (SIGKILL on a private Redis and a
//! private PostgreSQL): minting stops with `LeaseLost` before the lease could have expired,
//! and after the store comes back minting resumes without a duplicate of anything issued
//! before — also across a second holder that joins afterwards.

mod support;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use idmint::{Clock, Config, Error, Layout};
use idmint_coord::lease::{self, LeaseSpec, LeaseStore};
use idmint_coord::lease::{LeaseOptions, LeasedSnowflake};
use support::ns;
use support::{Kind, Server};

fn cfg() -> Config {
    Config::new(Layout::preset("twitter").unwrap())
}

fn store(url: &str) -> Arc<dyn LeaseStore> {
    Arc::from(lease::open(url).unwrap())
}

const TTL: Duration = Duration::from_millis(1000);

fn outage(kind: Kind) {
    let s = Server::start(kind);
    let url = format!("{}?timeout_ms=200", s.url());
    let ns = ns("outage");
    let opts = LeaseOptions::new().namespace(&ns).ttl(TTL).nodes(4);
    let g = LeasedSnowflake::new(store(&url), cfg(), opts.clone()).unwrap();
    let first = g.lease_info().unwrap().lease;
    let mut ids = Vec::new();
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_millis(700) {
        ids.push(g.next_id().unwrap());
        std::thread::sleep(Duration::from_micros(200));
    }
    assert!(g.stats().renewals >= 2, "renewal keeps the lease alive");

    // Kill the store (from another thread: the script takes a while) and keep minting,
    // watching the deadline the generator works to.
    let t_kill = Instant::now();
    let killer = {
        let s = &s;
        std::thread::scope(|sc| {
            let k = sc.spawn(move || {
                s.kill();
                Instant::now()
            });
            let mut last_ok = t_kill;
            let mut deadline = g.lease_info().unwrap().deadline.unwrap();
            let err = loop {
                // Taken before the call: the ID was admitted after this moment, however long
                // this thread is descheduled around the call on a loaded machine.
                let before = Instant::now();
                match g.next_id() {
                    Ok(id) => {
                        ids.push(id);
                        last_ok = before;
                        if let Some(d) = g.lease_info().and_then(|i| i.deadline) {
                            deadline = d;
                        }
                    }
                    Err(e) => break (e, t_kill.elapsed()),
                }
                assert!(t_kill.elapsed() < Duration::from_secs(60), "never stopped");
                std::thread::sleep(Duration::from_micros(200));
            };
            (k.join().unwrap(), last_ok, deadline, err)
        })
    };
    let (t_killed, last_ok, deadline, (err, stopped)) = killer;
    assert!(
        matches!(err, Error::LeaseLost { reason, .. } if reason == "renewal failed before the deadline"),
        "{err:?}"
    );
    // The last successful renewal was sent before the store died (at the latest when the kill
    // command returned), so the store's expiry is at least its send time + TTL, which is
    // the deadline + margin + coarse lag; and at most t_killed + TTL.
    // (`last_ok` is read just before the call of the last successful mint.)
    assert!(
        last_ok <= deadline,
        "minted {:?} after the deadline",
        last_ok - deadline
    );
    assert!(
        deadline + TTL / 10 <= t_killed + TTL,
        "deadline past any possible expiry less the safety margin"
    );
    assert!(
        last_ok < t_killed + TTL - TTL / 10,
        "minting went on {:?} after the kill",
        last_ok - t_kill
    );
    eprintln!(
        "{kind:?}: minting stopped {stopped:?} after the kill (last ID {:?} after), TTL {TTL:?}",
        last_ok - t_kill
    );
    assert!(matches!(g.next_id(), Err(Error::LeaseLost { .. })));
    assert!(matches!(g.try_next_id(), Err(Error::LeaseLost { .. })));
    let mut batch = [0u64; 8];
    assert!(matches!(
        g.next_ids(&mut batch),
        Err(Error::LeaseLost { .. })
    ));

    // The store comes back: the renewal thread restores minting by itself.
    s.resume();
    let back = Instant::now();
    let resumed = loop {
        match g.next_id() {
            Ok(id) => break id,
            Err(Error::LeaseLost { .. }) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => panic!("{e:?}"),
        }
        assert!(back.elapsed() < Duration::from_secs(60), "never resumed");
    };
    let max_before = *ids.iter().max().unwrap();
    assert!(resumed > max_before);
    ids.push(resumed);
    let info = g.lease_info().unwrap();
    let st = g.stats();
    if (info.lease.node, info.lease.token, info.lease.owner)
        == (first.node, first.token, first.owner)
    {
        // The store kept the lease (PostgreSQL's row) and nobody took the node: the same
        // lease is renewed. (Redis takes a restart for a possible loss unless its URL says
        // `restart=durable`, and grants anew.)
        assert_eq!(st.reacquires, 0);
    } else {
        // The lease was gone with the store's data: a new one was taken, fenced by this
        // generator's own high-water mark as well as the store's record.
        assert!(st.lost >= 1 && st.reacquires >= 1, "{st:?}");
    }
    assert!(st.renew_failures >= 1);
    for _ in 0..2000 {
        ids.push(g.next_id().unwrap());
    }
    // A second holder joins; everything stays unique.
    let h = LeasedSnowflake::new(store(&url), cfg(), opts).unwrap();
    assert_ne!(h.node(), g.node());
    let mut more = vec![0u64; 5000];
    h.next_ids(&mut more).unwrap();
    ids.extend_from_slice(&more);
    let unique: HashSet<u64> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "duplicate IDs across the outage");
    drop(h);
    g.release().unwrap();
}

#[test]
fn redis_killed_mid_run() {
    outage(Kind::Redis);
}

#[test]
fn postgres_killed_mid_run() {
    outage(Kind::Postgres);
}

/// A lease superseded while its holder was cut off (another holder took the node after the
/// TTL): the cut-off generator stops, and on its next renewal learns it lost the node, takes
/// another one, and never mints on the taken node again.
#[test]
fn redis_superseded_lease_moves_to_another_node() {
    let s = Server::start(Kind::Redis);
    let url = s.url();
    let ns = ns("super");
    let g = LeasedSnowflake::new(
        store(&url),
        cfg(),
        LeaseOptions::new().namespace(&ns).ttl(TTL).nodes(2),
    )
    .unwrap();
    let first = g.lease_info().unwrap().lease;
    let a = g.next_id().unwrap();
    // Someone deletes the lease key behind the holder's back and takes the node (what an
    // expiry during a partition looks like from the store's side).
    let mut con = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let key = format!("idmint:{{{ns}}}:lease:{}", first.node);
    let other = store(&url);
    let spec = LeaseSpec::new(&ns, 2, TTL);
    // The holder's renewal may run between the delete and the grant and re-arm its key (an
    // expired key nobody took yet is its own again): then the node is still held, and the
    // thief tries again.
    let thief = (0..50)
        .find_map(|_| {
            let _: () = redis::cmd("DEL").arg(&key).query(&mut con).unwrap();
            match other.acquire(&spec, 0, Some(1 - first.node)) {
                Ok(l) => Some(l),
                Err(Error::NoFreeNode { .. }) => None,
                Err(e) => panic!("{e}"),
            }
        })
        .expect("the deleted lease was never granted to another holder");
    assert_eq!(thief.node, first.node);
    assert!(thief.token > first.token);
    // Within one renewal period the generator finds out and moves.
    let t = Instant::now();
    while g.lease_info().unwrap().lease.node == first.node {
        assert!(t.elapsed() < Duration::from_secs(60), "never noticed");
        std::thread::sleep(Duration::from_millis(10));
    }
    let b = g.next_id().unwrap();
    assert!(b > a);
    assert_eq!(g.node(), 1 - first.node);
    let st = g.stats();
    assert!(st.lost >= 1 && st.reacquires >= 1);
    other.release(&thief, 0).unwrap();
}

/// The store loses its data while a generator holds a lease (Redis `FLUSHALL`, as a Redis
/// without persistence does on restart): the generator loses the lease and takes node 0 again
/// under the store's new epoch, fenced at the lock delay (its own high-water mark fences it
/// too) — it mints nothing it minted before. The clock is held still at T, so without a fence
/// the new generator would start at (T, node 0, sequence 0) again.
#[test]
fn redis_data_loss_is_fenced_by_own_high_water() {
    let s = Server::start(Kind::Redis);
    let url = s.url();
    let ns = ns("flush");
    const T: u64 = 1_750_000_000_000;
    let g = LeasedSnowflake::with_clock(
        store(&url),
        cfg(),
        LeaseOptions::new()
            .namespace(&ns)
            .ttl(Duration::from_millis(600))
            .nodes(1),
        idmint::ManualClock::new(T),
    )
    .unwrap();
    let mut ids = HashSet::new();
    for _ in 0..10 {
        assert!(ids.insert(g.next_id().unwrap()));
    }
    let token = g.lease_info().unwrap().lease.token;
    let mut con = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let _: () = redis::cmd("FLUSHALL").query(&mut con).unwrap();
    let t = Instant::now();
    while g.stats().reacquires == 0 {
        assert!(t.elapsed() < Duration::from_secs(60), "never re-acquired");
        std::thread::sleep(Duration::from_millis(10));
    }
    let info = g.lease_info().unwrap();
    let delay = info
        .lease
        .not_before_ms
        .expect("a grant under a new epoch is fenced");
    assert!(delay > T, "the lock delay runs from the grant's time");
    assert_eq!((info.lease.node, info.lease.fence_ms), (0, Some(delay)));
    assert!(info.lease.token <= token, "the store forgot its tokens");
    for _ in 0..10 {
        let id = g.next_id().unwrap();
        assert!(
            ids.insert(id),
            "re-minted an ID after the store lost its data"
        );
    }
    assert!(
        g.clock().now_ms() > T,
        "the new generator waited out the fenced tick"
    );
}
