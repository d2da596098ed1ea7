//! The Redis lease store under the faults a Redis deployment meets: its data wiped (`FLUSHALL`,
//! a restart without persistence), the last writes lost (a crash under `appendfsync everysec`,
//! a failover to a lagging replica), a restart, a holder's clock set back; and TLS. The server
//! paused (SIGSTOP) and a holder paused past its TTL are the conformance kit's
//! (`conformance.rs`, `lease_store_paused` and `lease_holder_paused_past_its_ttl`).
//!
//! The rule every process test checks: never two holders minting on one node, so no ID twice
//! across every process's output. Processes are children of this binary (`support::minter`);
//! `fault_child` is their half and does nothing when run as a test.

mod support;

use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use idmint::{Config, Error, Layout};
use idmint_coord::lease::{self, Lease, LeaseSpec, LeaseStore};
use idmint_coord::lease::{LeaseOptions, LeasedSnowflake};
use support::minter::{assert_no_duplicates, Faketime, Minter, MinterSpec};
use support::{ns, wall_ms, TempDir};
use support::{Kind, Persistence, Server};

const NOW: u64 = 1_750_000_000_000;

/// The child half of the process tests (see `support::minter`).
#[test]
fn fault_child() {
    support::minter::child_main();
}

fn con(url: &str) -> redis::Connection {
    redis::Client::open(url).unwrap().get_connection().unwrap()
}

fn flushall(url: &str) {
    let _: () = redis::cmd("FLUSHALL").query(&mut con(url)).unwrap();
}

/// Waits (up to a minute) until someone holds node `node` of `ns` (its lease key exists).
fn wait_leased(url: &str, ns: &str, node: u64) {
    let key = format!("idmint:{{{ns}}}:lease:{node}");
    let mut c = con(url);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let n: i64 = redis::cmd("EXISTS").arg(&key).query(&mut c).unwrap();
        if n == 1 {
            return;
        }
        assert!(Instant::now() < deadline, "nobody leased node {node}");
        std::thread::sleep(Duration::from_millis(5));
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

const TTL_MS: u64 = 2_000;

/// Calls `f` until it answers other than `StoreUnavailable` (the first call after a server
/// restart finds the old connection gone).
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

fn minter(url: &str, ns: &str, nodes: u64, out: &Path) -> Minter {
    Minter::start(&MinterSpec::new(url, ns, nodes, TTL_MS), out)
}

// ---------------------------------------------------------------------------------------------
// Data loss under live holders

/// Runs a data-loss scenario on a one-node space: A holds the node and mints, B waits for it.
/// A is paused (SIGSTOP, well inside its lease) while `lose` wipes the store's records, until
/// B has leased the node; then A runs on. Whatever the store forgot, A must stop before it
/// mints anything B may mint: zero duplicates.
fn one_node_loss(s: &Server, lose: impl FnOnce(&Server)) {
    let outs = TempDir::new("loss-out");
    let url = s.url();
    let ns = ns("loss");
    let mut a = minter(&url, &ns, 1, &outs.0.join("a"));
    a.wait_for("HOLD");
    a.wait_minted(50_000);
    let mut b = minter(&url, &ns, 1, &outs.0.join("b"));
    assert_eq!(b.wait_for("ERROR"), "ERROR ERR_NO_FREE_NODE");
    a.signal(libc::SIGSTOP);
    lose(s);
    wait_leased(&url, &ns, 0);
    a.signal(libc::SIGCONT);
    b.wait_for("HOLD");
    b.wait_minted(200_000);
    let (ids_a, said_a) = a.finish();
    let (ids_b, _) = b.finish();
    assert_no_duplicates(&[&ids_a, &ids_b]);
    assert!(
        said_a.iter().any(|l| l == "ERROR ERR_LEASE_LOST"),
        "A never found its lease lost: {said_a:?}"
    );
}

/// FLUSHALL while A mints on the only node and B waits for it: B is granted the node again
/// under a new store epoch, fenced past anything A can still mint; A's next renewal finds the
/// epoch changed and stops it. Zero duplicates (today's store gave B the same fencing token,
/// and A renewed on B's lease).
#[test]
fn redis_flushall_while_two_holders_mint_gives_no_duplicate_one_node() {
    let s = Server::start(Kind::Redis);
    one_node_loss(&s, |s| flushall(&s.url()));
}

/// FLUSHALL while A and B mint on both nodes of a two-node space and C waits: C takes a node
/// at once; A and B find their leases lost; whoever gets a node again is fenced past the
/// lock delay. Zero duplicates across the three processes.
#[test]
fn redis_flushall_while_two_holders_mint_gives_no_duplicate_two_nodes() {
    let s = Server::start(Kind::Redis);
    let outs = TempDir::new("flush2-out");
    let url = s.url();
    let ns = ns("flush2");
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
    flushall(&url);
    wait_leased(&url, &ns, 0);
    a.signal(libc::SIGCONT);
    b.signal(libc::SIGCONT);
    c.wait_for("HOLD");
    c.wait_minted(200_000);
    let (ids_a, said_a) = a.finish();
    let (ids_b, said_b) = b.finish();
    let (ids_c, _) = c.finish();
    assert_no_duplicates(&[&ids_a, &ids_b, &ids_c]);
    for said in [said_a, said_b] {
        assert!(said.iter().any(|l| l == "ERROR ERR_LEASE_LOST"), "{said:?}");
    }
}

/// A Redis without persistence is killed and restarted (empty) while A holds the only node and
/// B waits: as FLUSHALL, zero duplicates.
#[test]
fn redis_restart_without_persistence_gives_no_duplicate() {
    let s = Server::start_redis(Persistence::None);
    one_node_loss(&s, |s| {
        s.kill();
        s.resume();
    });
}

/// The append-only file of a Redis under `appendfsync everysec`, as a crash leaves it: the
/// last writes (here A's grant) are lost, everything older is there — including the
/// namespace's epoch, so only the changed server `run_id` tells. B is granted the node again;
/// A must stop. Zero duplicates.
#[test]
fn redis_crash_under_appendfsync_everysec_gives_no_duplicate() {
    let s = Server::start_redis(Persistence::EverySec);
    let outs = TempDir::new("everysec-out");
    let url = s.url();
    let ns = ns("everysec");
    // The namespace exists (epoch, counters) before the writes the crash will lose: an older
    // holder came and went, long enough ago that its lock delay has passed.
    let store = lease::open(&url).unwrap();
    let spec = LeaseSpec::new(&ns, 1, Duration::from_millis(TTL_MS));
    let old = store.acquire(&spec, wall_ms() - 3_600_000, None).unwrap();
    store.release(&old, wall_ms() - 3_600_000).unwrap();
    drop(store);
    let aof = incr_aof(s.dir());
    let kept = std::fs::metadata(&aof).unwrap().len();

    let mut a = minter(&url, &ns, 1, &outs.0.join("a"));
    a.wait_for("HOLD");
    a.wait_minted(50_000);
    let mut b = minter(&url, &ns, 1, &outs.0.join("b"));
    assert_eq!(b.wait_for("ERROR"), "ERROR ERR_NO_FREE_NODE");
    a.signal(libc::SIGSTOP);
    s.kill();
    // What fsync had not reached the disk yet: everything since A was granted the node.
    let f = std::fs::OpenOptions::new().write(true).open(&aof).unwrap();
    f.set_len(kept).unwrap();
    drop(f);
    s.resume();
    wait_leased(&url, &ns, 0);
    a.signal(libc::SIGCONT);
    b.wait_for("HOLD");
    b.wait_minted(200_000);
    let (ids_a, said_a) = a.finish();
    let (ids_b, _) = b.finish();
    assert_no_duplicates(&[&ids_a, &ids_b]);
    assert!(
        said_a.iter().any(|l| l == "ERROR ERR_LEASE_LOST"),
        "{said_a:?}"
    );
}

/// The incremental append-only file of a Redis 7 data directory.
fn incr_aof(dir: &Path) -> PathBuf {
    let aof_dir = dir.join("appendonlydir");
    std::fs::read_dir(&aof_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".incr.aof"))
        .expect("an incremental append-only file")
}

fn cfg() -> Config {
    Config::new(Layout::preset("twitter").unwrap())
}

fn open(url: &str) -> Arc<dyn LeaseStore> {
    Arc::from(lease::open(url).unwrap())
}

// ---------------------------------------------------------------------------------------------
// Clocks

/// A holder process mints and exits; the next one runs with its wall clock 12 s back
/// (libfaketime) and a logical-clock policy: the node's recorded bound fences it, so no ID of
/// it is at or below the first process's maximum. (A new namespace's first epoch carries a lock
/// delay of now + the horizon, which a `logical:L` policy stretches by L: the process behind
/// waits it out on its own clock, about offset + L + 2 TTL — kept short here. PostgreSQL and
/// the file store, which tell a new namespace from a lost one, run the same with 30 s.)
#[test]
fn redis_faketime_process_clock_set_back() {
    let s = Server::start(Kind::Redis);
    let outs = TempDir::new("faketime-out");
    let url = s.url();
    let ns = ns("faketime");
    let mut first = minter(&url, &ns, 1, &outs.0.join("a"));
    first.wait_for("HOLD");
    first.wait_minted(50_000);
    let (ids1, _) = first.finish();
    let spec = MinterSpec::new(&url, &ns, 1, TTL_MS)
        .policy("logical:15000")
        .faketime(Faketime::Offset("-12s".into()));
    let mut second = Minter::start(&spec, &outs.0.join("b"));
    let behind = wall_ms() as i64 - second.clock() as i64;
    assert!(
        (11_000..22_000).contains(&behind),
        "faketime did not set the child's clock back ({behind} ms)"
    );
    second.wait_for("HOLD");
    second.wait_minted(50_000);
    let (ids2, _) = second.finish();
    let max1 = ids1.iter().max().unwrap();
    let min2 = ids2.iter().min().unwrap();
    assert!(min2 > max1, "an ID at or below the first process's maximum");
    assert_no_duplicates(&[&ids1, &ids2]);
}

// ---------------------------------------------------------------------------------------------
// The store's checks, one call at a time

/// After the store lost its records, another grant of the same node gets the same fencing
/// token (its counter started over) but another owner: the first lease is lost, the second
/// renews; a lease that differs from a live one in its owner only is refused too.
#[test]
fn redis_equal_token_other_owner_is_lost() {
    let s = Server::start(Kind::Redis);
    let url = s.url();
    let store = open(&url);
    let spec = LeaseSpec::new(&ns("owner"), 1, Duration::from_secs(30));
    let a = store.acquire(&spec, NOW, None).unwrap();
    flushall(&url);
    let b = open(&url).acquire(&spec, NOW + 1, None).unwrap();
    assert_eq!((b.node, b.token), (a.node, a.token));
    assert_ne!(b.owner, a.owner);
    assert!(matches!(
        store.renew(&a, NOW + 2),
        Err(Error::LeaseLost { .. })
    ));
    store.renew(&b, NOW + 2).unwrap();
    let forged = Lease {
        owner: b.owner ^ 1,
        ..b.clone()
    };
    assert!(matches!(
        store.renew(&forged, NOW + 3),
        Err(Error::LeaseLost { .. })
    ));
    assert!(matches!(
        store.release(&forged, NOW + 3),
        Err(Error::LeaseLost { .. })
    ));
    store.release(&b, NOW + 3).unwrap();
}

/// A grant under a new epoch (the first in a namespace, or the first after a loss) is fenced
/// at now + the horizon — every node granted before the lock delay passes, not only the first;
/// renewals of leases from the old epoch fail with "the store lost its records".
#[test]
fn redis_grant_under_a_new_epoch_is_fenced_past_the_horizon() {
    let s = Server::start(Kind::Redis);
    let url = s.url();
    let store = open(&url);
    let h = 5_000;
    let spec =
        LeaseSpec::new(&ns("epoch"), 4, Duration::from_secs(1)).horizon(Duration::from_millis(h));
    let a = store.acquire(&spec, NOW, None).unwrap();
    assert_ne!(a.epoch, 0);
    assert_eq!(
        (a.not_before_ms, a.fence_ms),
        (Some(NOW + h), Some(NOW + h))
    );
    let b = store.acquire(&spec, NOW + 100, None).unwrap();
    assert_eq!((b.epoch, b.not_before_ms), (a.epoch, Some(NOW + h)));
    let c = store.acquire(&spec, NOW + h + 1, None).unwrap();
    assert_eq!(
        (c.epoch, c.not_before_ms, c.fence_ms),
        (a.epoch, None, None)
    );
    store.renew(&a, NOW + 200).unwrap();

    flushall(&url);
    let d = store.acquire(&spec, NOW + 6_000, None).unwrap();
    assert_ne!(d.epoch, a.epoch);
    assert_eq!(d.not_before_ms, Some(NOW + 6_000 + h));
    assert!(d.fence_ms >= d.not_before_ms);
    for (l, op) in [(&a, "renew"), (&b, "release")] {
        let e = if op == "renew" {
            store.renew(l, NOW + 6_001)
        } else {
            store.release(l, NOW + 6_001)
        };
        assert!(
            matches!(
                e,
                Err(Error::LeaseLost {
                    reason: "the store lost its records",
                    ..
                })
            ),
            "{op}: {e:?}"
        );
    }

    // The largest horizon asked for is recorded: after a restart (the data kept, the epoch
    // replaced) a grant with a short horizon is fenced by the long one.
    // A longer horizon than recorded stretches the current lock delay too.
    let long = spec.clone().horizon(Duration::from_secs(40));
    let e = store.acquire(&long, NOW + 20_000, None).unwrap();
    assert_eq!(e.not_before_ms, Some(NOW + 6_000 + 40_000));
    s.stop();
    s.resume();
    let f = retry(|| store.acquire(&spec, NOW + 100_000, None)).unwrap();
    assert_ne!(f.epoch, e.epoch);
    assert_eq!(f.not_before_ms, Some(NOW + 100_000 + 40_000));
}

/// A node bound recorded under the key layout of earlier versions (`bound:N`) still fences the
/// node's next grant.
#[test]
fn redis_bounds_of_the_earlier_key_layout_still_fence() {
    let s = Server::start(Kind::Redis);
    let url = s.url();
    let ns = ns("legacy");
    let _: () = redis::cmd("SET")
        .arg(format!("idmint:{{{ns}}}:bound:0"))
        .arg(NOW + 99_000)
        .query(&mut con(&url))
        .unwrap();
    let spec = LeaseSpec::new(&ns, 1, Duration::from_secs(1));
    let a = open(&url).acquire(&spec, NOW, None).unwrap();
    assert_eq!(a.fence_ms, Some(NOW + 99_000));
}

/// A restart of a durable Redis (the data is all there, the server's run_id changed) is treated
/// as a possible loss: renewals of older leases fail and the next grant is fenced. With
/// `restart=durable` in the URL (an `appendfsync always` server without failover) a restart
/// costs nothing.
#[test]
fn redis_restart_is_a_possible_loss_unless_the_url_says_durable() {
    let s = Server::start(Kind::Redis);
    let store = open(&s.url());
    let spec = LeaseSpec::new(&ns("restart"), 2, Duration::from_secs(30));
    let a = store.acquire(&spec, NOW, None).unwrap();
    store.renew(&a, NOW + 1).unwrap();
    s.stop();
    s.resume();
    let e = retry(|| store.renew(&a, NOW + 2));
    assert!(
        matches!(
            e,
            Err(Error::LeaseLost {
                reason: "the store restarted or failed over",
                ..
            })
        ),
        "{e:?}"
    );
    let b = store.acquire(&spec, NOW + 100_000, None).unwrap();
    assert_ne!(b.epoch, a.epoch);
    assert_eq!(b.not_before_ms, Some(NOW + 100_000 + 60_000));

    let trusting = open(&format!("{}?restart=durable", s.url()));
    let spec = LeaseSpec::new(&ns("durable"), 2, Duration::from_secs(30));
    let c = trusting.acquire(&spec, NOW, None).unwrap();
    s.stop();
    s.resume();
    retry(|| trusting.renew(&c, NOW + 1)).unwrap();
    let d = trusting.acquire(&spec, NOW + 100_000, None).unwrap();
    assert_eq!((d.epoch, d.not_before_ms), (c.epoch, None));
    assert!(matches!(
        lease::open(&format!("{}?restart=sometimes", s.url())),
        Err(Error::InvalidConfig { .. })
    ));
}

/// How much a namespace holds in Redis: keys, plus the members of its sorted sets and hashes.
fn namespace_size(url: &str, ns: &str) -> u64 {
    let mut c = con(url);
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("idmint:{{{ns}}}:*"))
        .query(&mut c)
        .unwrap();
    let mut size = 0;
    for k in keys {
        let t: String = redis::cmd("TYPE").arg(&k).query(&mut c).unwrap();
        size += match t.as_str() {
            "zset" => redis::cmd("ZCARD").arg(&k).query::<u64>(&mut c).unwrap(),
            "hash" => redis::cmd("HLEN").arg(&k).query::<u64>(&mut c).unwrap(),
            _ => 1,
        };
    }
    size
}

/// Commands the server ran since the last `CONFIG RESETSTAT` (those run by scripts included).
fn commands_run(url: &str) -> u64 {
    let info: String = redis::cmd("INFO")
        .arg("commandstats")
        .query(&mut con(url))
        .unwrap();
    info.lines()
        .filter_map(|l| {
            l.split_once("calls=")?
                .1
                .split(',')
                .next()?
                .parse::<u64>()
                .ok()
        })
        .sum()
}

/// Acquiring from a 2^20-node space does work of the nodes in use, not of the space: a few
/// commands and a few records. 2^40 nodes work too; a space too large for the store's
/// numbers is refused with `LimitExceeded`.
#[test]
fn redis_acquire_work_is_bounded_on_a_huge_node_space() {
    let s = Server::start(Kind::Redis);
    let url = s.url();
    let store = open(&url);
    let ns = ns("huge");
    let spec = LeaseSpec::new(&ns, 1 << 20, Duration::from_secs(30));
    let _: () = redis::cmd("CONFIG")
        .arg("RESETSTAT")
        .query(&mut con(&url))
        .unwrap();
    let a = store.acquire(&spec, NOW, None).unwrap();
    let b = store.acquire(&spec, NOW, None).unwrap();
    assert_eq!((a.node, b.node), (0, 1));
    let ran = commands_run(&url);
    assert!(ran < 1_000, "two acquires ran {ran} commands");
    let size = namespace_size(&url, &ns);
    assert!(size < 50, "two leases take {size} records");
    store.release(&a, NOW + 1).unwrap();
    let c = store.acquire(&spec, NOW + 2, None).unwrap();
    assert_eq!(c.node, 2, "never-used nodes come before released ones");

    let big = LeaseSpec::new(&ns, 1 << 40, Duration::from_secs(30));
    assert_eq!(store.acquire(&big, NOW, None).unwrap().node, 3);
    let absurd = LeaseSpec::new(&ns, 1 << 60, Duration::from_secs(30));
    assert!(matches!(
        store.acquire(&absurd, NOW, None),
        Err(Error::LimitExceeded { .. })
    ));
}

/// A lease that expires without a release (its holder died) is found again although it never
/// went back to the queue — also behind many live leases.
#[test]
fn redis_expired_leases_are_granted_again() {
    let s = Server::start(Kind::Redis);
    let store = open(&s.url());
    let ns = ns("expired");
    let long = LeaseSpec::new(&ns, 200, Duration::from_secs(120));
    let short = LeaseSpec::new(&ns, 200, Duration::from_secs(3));
    let mut held: Vec<Lease> = (0..150)
        .map(|_| store.acquire(&long, NOW, None).unwrap())
        .collect();
    let dying = store.acquire(&short, NOW, None).unwrap();
    store.renew(&dying, NOW + 42_000).unwrap();
    held.extend((0..49).map(|_| store.acquire(&long, NOW, None).unwrap()));
    assert_eq!(
        store.acquire(&long, NOW, None).unwrap_err(),
        Error::NoFreeNode { nodes: 200 }
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    let again = loop {
        match store.acquire(&long, NOW + 1, None) {
            Ok(l) => break l,
            Err(Error::NoFreeNode { .. }) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("{e:?}"),
        }
        assert!(
            Instant::now() < deadline,
            "the expired lease was never found"
        );
    };
    assert_eq!(again.node, dying.node);
    assert!(again.token > dying.token);
    assert!(again.fence_ms >= Some(NOW + 42_000));
    assert!(matches!(
        store.renew(&dying, NOW + 2),
        Err(Error::LeaseLost { .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// TLS

/// A Redis listening for TLS only, with certificates of a throwaway CA.
fn tls_server(tag: &str) -> (TempDir, support::tls::TestPki, Server) {
    let dir = TempDir::new(tag);
    let pki = support::tls::make_pki(&dir.0);
    let s = Server::start_redis_tls(&pki);
    (dir, pki, s)
}

/// `rediss://` with `ca_file=` naming the server's CA: the lease store, a leased generator, the
/// segment store and the Redis composition generator all work over TLS.
#[test]
fn redis_tls_with_the_servers_ca_works_for_every_redis_store() {
    let (_dir, pki, s) = tls_server("tls-ok");
    let url = format!("{}?ca_file={}", s.url(), pki.ca_cert.display());
    let store = open(&url);
    let spec = LeaseSpec::new(&ns("tls"), 4, Duration::from_secs(30));
    let l = store.acquire(&spec, NOW, None).unwrap();
    store.renew(&l, NOW + 1).unwrap();
    store.release(&l, NOW + 1).unwrap();
    let opts = LeaseOptions::new()
        .namespace(&ns("tlsgen"))
        .ttl(Duration::from_millis(600))
        .nodes(4);
    let g = LeasedSnowflake::from_source(&url, cfg(), opts).unwrap();
    assert!(g.next_id().unwrap() < g.next_id().unwrap());
    g.release().unwrap();
    let seg = idmint_coord::segment::url::open_store(&url).unwrap();
    assert_eq!(seg.take("tls", 10).unwrap().start, 1);
    let layout = Layout::parse("time=41@1ms,shard=12,seq=10,epoch=2020-01-01").unwrap();
    let compose = idmint_coord::redis_compose::RedisCompose::new(&url, layout, "tls", 7).unwrap();
    assert_eq!(
        layout.decompose(compose.next_id().unwrap()).unwrap().node,
        7
    );
}

fn is_tls_refusal(e: &Error) -> bool {
    matches!(
        e,
        Error::StoreUnavailable {
            store: "redis",
            reason: "TLS certificate not trusted",
            ..
        }
    )
}

/// A client that trusts another CA (or only the system's roots) refuses the server's
/// certificate: a typed `StoreUnavailable` whose reason names TLS, from every Redis store.
#[test]
fn redis_tls_trusting_another_ca_is_refused() {
    let (_dir, pki, s) = tls_server("tls-other");
    for url in [
        format!("{}?ca_file={}", s.url(), pki.other_ca_cert.display()),
        s.url(),
    ] {
        let store = open(&url);
        let spec = LeaseSpec::new(&ns("tlsbad"), 4, Duration::from_secs(30));
        let e = store.acquire(&spec, NOW, None).unwrap_err();
        assert!(is_tls_refusal(&e), "{url}: {e:?}");
        let seg = idmint_coord::segment::url::open_store(&url).unwrap();
        let e = seg.take("tls", 10).unwrap_err();
        assert!(is_tls_refusal(&e), "{url}: {e:?}");
        let layout = Layout::parse("time=41@1ms,shard=12,seq=10,epoch=2020-01-01").unwrap();
        let compose =
            idmint_coord::redis_compose::RedisCompose::new(&url, layout, "tls", 7).unwrap();
        let e = compose.next_id().unwrap_err();
        assert!(is_tls_refusal(&e), "{url}: {e:?}");
    }
}

/// A plain `redis://` URL pointed at the TLS port fails with `StoreUnavailable` (on the
/// connection or its timeout), and does not hang; a CA file that cannot be used is a config
/// error when the store is opened.
#[test]
fn redis_plain_url_to_a_tls_port_fails_cleanly() {
    let (dir, pki, s) = tls_server("tls-plain");
    let url = format!("redis://127.0.0.1:{}/?timeout_ms=500", s.port());
    let store = open(&url);
    let spec = LeaseSpec::new(&ns("plain"), 4, Duration::from_secs(30));
    let e = returns("acquire over plain TCP", move || {
        store.acquire(&spec, NOW, None)
    });
    assert!(
        matches!(e, Err(Error::StoreUnavailable { store: "redis", .. })),
        "{e:?}"
    );
    let seg = idmint_coord::segment::url::open_store(&url).unwrap();
    let e = returns("take over plain TCP", move || seg.take("k", 1));
    assert!(
        matches!(e, Err(Error::StoreUnavailable { store: "redis", .. })),
        "{e:?}"
    );
    let garbage = dir.0.join("garbage.pem");
    std::fs::write(&garbage, "not a certificate\n").unwrap();
    for bad in [
        format!(
            "{}?ca_file={}",
            s.url(),
            dir.0.join("missing.pem").display()
        ),
        format!("{}?ca_file={}", s.url(), garbage.display()),
        format!("redis://127.0.0.1:1/?ca_file={}", pki.ca_cert.display()),
    ] {
        assert!(
            matches!(lease::open(&bad), Err(Error::InvalidConfig { .. })),
            "{bad}"
        );
        assert!(
            matches!(
                idmint_coord::segment::url::open_store(&bad),
                Err(Error::InvalidConfig { .. })
            ),
            "{bad}"
        );
    }
}

/// A `logical:N` generator can mint up to N ms above its clock, and its recorded bound runs a
/// reserve above that: the lock delay of a grant under a new epoch covers it, so a holder of
/// lost records that was running ahead (a clock stepped back under `logical`) is still fenced.
#[test]
fn redis_lock_delay_covers_how_far_a_logical_generator_runs_ahead() {
    let s = Server::start(Kind::Redis);
    let ttl = Duration::from_secs(1);
    let horizon_of = |policy: &str, ns: &str| {
        let cfg =
            Config::new(Layout::preset("twitter").unwrap()).on_backwards(policy.parse().unwrap());
        let g = LeasedSnowflake::with_clock(
            open(&s.url()),
            cfg,
            LeaseOptions::new().namespace(ns).ttl(ttl).nodes(2),
            idmint::ManualClock::new(NOW),
        )
        .unwrap();
        let nb = g.lease_info().unwrap().lease.not_before_ms.unwrap();
        drop(g);
        nb - NOW
    };
    // TTL + reserve (a TTL by default), and the 60 s a logical:60000 generator may run ahead.
    assert_eq!(horizon_of("wait:1000", &ns("ahead-wait")), 2_000);
    assert_eq!(horizon_of("logical:60000", &ns("ahead-logical")), 62_000);
}
