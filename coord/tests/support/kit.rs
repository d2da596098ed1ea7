//! The store conformance kit: one suite that every lease store and every segment store runs,
//! through the [`Backend`] fixture of its server. A new store is done when it passes the kit
//! (`tests/conformance.rs` plays it on every store).
//!
//! Lease stores:
//! - [`lease_concurrent_holders`]: 32 threads, each with its own store object, hold all 32 nodes
//!   of a space and churn (release, acquire again) while an occupancy table catches a node
//!   granted to two live holders; a 33rd finds none; no (node, token) pair twice. Then 16 holder
//!   processes take all 16 nodes of another space, and four processes mint on a four-node space
//!   at once, no ID twice.
//! - [`lease_expiry_and_takeover`]: a holder that stops renewing loses its node to the next
//!   (stores whose leases expire), who is fenced past the first one's recorded bound, under a
//!   higher token; a renewal kept the lease alive past its first TTL; the first one's renewal
//!   and release are `LeaseLost` and change nothing the next holder recorded. On the file
//!   store, whose locks live as long as the holder, the node stays taken until release.
//! - [`lease_holder_paused_past_its_ttl`]: a minting holder process stopped (SIGSTOP) for three
//!   TTLs on a one-node space: the next one takes the node (stores whose leases expire) and
//!   every ID it mints lies above the paused one's; resumed, the paused one mints nothing past
//!   its deadline and stops (its lease lost, no node free). On the file store the next one waits instead.
//! - [`lease_bound_never_decreases`]: on a one-node space, renewals and releases with bounds
//!   below what was recorded (a lower renewal, a release with 0, a release just below the
//!   last renewal) leave the record as it was: the next grant is fenced at the highest bound.
//! - [`lease_fence_after_restart_with_the_clock_back`]: a holder process is killed (no
//!   release) and the next one starts with its wall clock 5 s back: every ID it mints is above
//!   the dead one's maximum.
//! - [`lease_store_killed_mid_run`]: two processes mint, the store is killed: both stop with
//!   `ERR_LEASE_LOST` (before the lease could expire), resume when it is back, no ID twice.
//! - [`lease_data_loss`]: the store loses its data while one process mints on the only node
//!   and another waits for it: no ID twice across both, whatever the store grants.
//! - [`lease_store_paused`]: the server paused (SIGSTOP) for three TTLs under two live
//!   generators: minting stops before the lease's deadline, store calls fail on their timeout,
//!   dropping a generator returns, and minting goes on after SIGCONT; no ID twice.
//!
//! Segment stores:
//! - [`segment_eight_allocators`]: eight allocators, each on its own handle, draw from one key
//!   at once: no value twice.
//! - [`segment_store_killed_mid_run`]: four allocators draw while the store is killed and
//!   resumed: typed errors in between, no value twice.
//! - [`segment_data_loss`]: a journal written before the store lost its data is refused
//!   (`ERR_STORE_MISMATCH`), and an allocator that lives through the loss never serves a value
//!   twice.
//! - [`segment_restart`]: an allocator closed into its journal and reopened resumes with
//!   values never served before.
#![allow(dead_code)]

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{mpsc, Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use idmint::segment::SegmentConfig;
use idmint::{Config, Error, Layout};
use idmint_coord::lease::{self, LeaseOptions, LeaseSpec, LeaseStore, LeasedSnowflake};
use idmint_coord::segment::{open_store, SegmentAllocator, SegmentStore};

use super::lease_checks;
use super::minter::{assert_no_duplicates, Faketime, Minter, MinterSpec};
use super::{temp_dir, wall_ms};

/// A store under test and what can be done to its server.
pub trait Backend: Send + Sync {
    /// Its name in messages.
    fn name(&self) -> &str;
    /// Its URL as a lease store, if it is one.
    fn lease_url(&self) -> Option<String>;
    /// Its URL as a segment store, if it is one.
    fn segment_url(&self) -> Option<String>;
    /// Its lease URL with calls given thirty seconds (`timeout_ms=30000` where the store
    /// takes it), for the check that races 32 acquires on a loaded machine: it tests who wins,
    /// not how fast.
    fn patient_lease_url(&self) -> Option<String> {
        self.lease_url()
    }
    /// Whether a lease ends when its live holder stops renewing (network stores). The file
    /// store's locks are held by the kernel for as long as the holder lives.
    fn leases_expire(&self) -> bool {
        true
    }
    /// Kills the store as a crash would (SIGKILL); `false` when there is no server to kill
    /// (the file and SQLite stores live in the caller's file system).
    fn kill(&self) -> bool;
    /// Starts a killed store again on the same data.
    fn resume(&self);
    /// The store loses all its data (`FLUSHALL`, `TRUNCATE`, a wiped data directory, a
    /// deleted file), while holders may be live.
    fn wipe(&self);
    /// Pauses the store's server (SIGSTOP); `false` when the fixture cannot.
    fn pause(&self) -> bool {
        false
    }
    /// Lets a paused server go on (SIGCONT).
    fn unpause(&self) {}
}

fn unique(tag: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "kit-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

fn lease_url(b: &dyn Backend) -> String {
    b.lease_url()
        .unwrap_or_else(|| panic!("{} is not a lease store", b.name()))
}

fn segment_url(b: &dyn Backend) -> String {
    b.segment_url()
        .unwrap_or_else(|| panic!("{} is not a segment store", b.name()))
}

const TTL: Duration = Duration::from_millis(1000);

fn minter(url: &str, ns: &str, nodes: u64, out: &std::path::Path) -> Minter {
    Minter::start(
        &MinterSpec::new(url, ns, nodes, TTL.as_millis() as u64),
        out,
    )
}

/// 32 threads hold and churn the nodes of a 32-node space, each pair (node, token) granted
/// once and no node to two live holders ([`lease_checks::threads`]); 16 processes hold all 16
/// nodes of another ([`lease_checks::processes`]; the binary declares `child_holder`). Then
/// four processes mint on a four-node space at once: no ID twice.
pub fn lease_concurrent_holders(b: &dyn Backend) {
    let url = b.patient_lease_url().unwrap_or_else(|| lease_url(b));
    lease_checks::threads(&url, 32);
    lease_checks::processes(&url, 16);

    let outs = temp_dir("kit-holders-out");
    let ns = unique("procs");
    let mut ms: Vec<Minter> = (0..4)
        .map(|i| minter(&url, &ns, 4, &outs.join(i.to_string())))
        .collect();
    for m in &mut ms {
        m.wait_for("HOLD");
    }
    for m in &ms {
        m.wait_minted(20_000);
    }
    let ids: Vec<Vec<u64>> = ms.into_iter().map(|m| m.finish().0).collect();
    let sets: Vec<&[u64]> = ids.iter().map(Vec::as_slice).collect();
    assert!(assert_no_duplicates(&sets) >= 80_000);
    let _ = std::fs::remove_dir_all(outs);
}

/// A holder renews with a bound and then stops renewing; the next holder takes the node once
/// the lease ran out, fenced past that bound and under a higher token, and the first one's
/// renewal and release are refused, on the wall clock and on a fixed clock with renewals that
/// keep the lease alive first ([`lease_checks::expiry_takeover`]). (File store: the node stays
/// taken until release.)
pub fn lease_expiry_and_takeover(b: &dyn Backend) {
    let url = lease_url(b);
    if b.leases_expire() {
        // On a fixed clock first: renewals keep a lease past its TTL, stale calls of the first
        // holder change nothing. (Patient calls: a run that stalls past a TTL is played again.)
        lease_checks::expiry_takeover(&b.patient_lease_url().unwrap_or_else(|| url.clone()));
    }
    let store = lease::open(&url).unwrap();
    let spec = LeaseSpec::new(&unique("expiry"), 1, TTL);
    let first = store.acquire(&spec, wall_ms(), None).unwrap();
    let bound = wall_ms() + 5_000;
    store.renew(&first, bound).unwrap();
    let other = lease::open(&url).unwrap();
    if !b.leases_expire() {
        assert!(matches!(
            other.acquire(&spec, wall_ms(), None),
            Err(Error::NoFreeNode { .. })
        ));
        store.release(&first, bound + 1).unwrap();
        let next = other.acquire(&spec, wall_ms(), None).unwrap();
        assert!(next.fence_ms.unwrap() > bound, "{}: {next:?}", b.name());
        other.release(&next, next.fence_ms.unwrap()).unwrap();
        return;
    }
    // A store may round the TTL up (etcd counts whole seconds): wait on what it granted.
    let t = Instant::now();
    let next = loop {
        match other.acquire(&spec, wall_ms(), None) {
            Ok(l) => break l,
            Err(Error::NoFreeNode { .. }) => {
                assert!(
                    t.elapsed() < first.ttl * 3 + Duration::from_secs(10),
                    "{}: the lapsed lease never freed its node",
                    b.name()
                );
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => panic!("{}: {e}", b.name()),
        }
    };
    assert!(
        t.elapsed() >= first.ttl.saturating_sub(Duration::from_millis(200)),
        "{}: the node was granted again before the lease could have run out",
        b.name()
    );
    assert_eq!(next.node, first.node);
    assert!(next.token > first.token, "{}: {first:?} {next:?}", b.name());
    assert!(next.fence_ms.unwrap() >= bound, "{}: {next:?}", b.name());
    assert!(matches!(
        store.renew(&first, bound + 10),
        Err(Error::LeaseLost { .. })
    ));
    assert!(matches!(
        store.release(&first, bound + 10),
        Err(Error::LeaseLost { .. })
    ));
    other.renew(&next, wall_ms() + 10).unwrap();
    other.release(&next, next.fence_ms.unwrap()).unwrap();
}

/// A node's recorded bound never goes down: a renewal below the recorded bound, a release with
/// 0, and a release below the holder's own last renewal all leave it, so the next grant (asked
/// with a clock well below the bound) is fenced at the highest bound ever given. The ID service
/// passes client-supplied values to these calls: a lying client must not lower a fence.
pub fn lease_bound_never_decreases(b: &dyn Backend) {
    let url = lease_url(b);
    let store = lease::open(&url).unwrap();
    let spec = LeaseSpec::new(&unique("bound"), 1, TTL);
    let x = wall_ms() + 60_000;
    let first = store.acquire(&spec, wall_ms(), None).unwrap();
    store.renew(&first, x).unwrap();
    store.renew(&first, x - 1_000).unwrap();
    store.release(&first, 0).unwrap();
    let second = store.acquire(&spec, wall_ms(), None).unwrap();
    assert_eq!(second.node, first.node);
    let fence = second.fence_ms.unwrap();
    assert!(
        fence >= x,
        "{}: the record went down: {fence} < {x}",
        b.name()
    );
    // A holder that renews higher, then releases just below it.
    store.renew(&second, x + 5_000).unwrap();
    store.release(&second, x + 4_999).unwrap();
    let third = store.acquire(&spec, wall_ms(), None).unwrap();
    let fence = third.fence_ms.unwrap();
    assert!(
        fence >= x + 5_000,
        "{}: a release below the last renewal lowered the record: {fence}",
        b.name()
    );
    store.release(&third, x - 1).unwrap();
    let fourth = store.acquire(&spec, wall_ms(), None).unwrap();
    assert!(fourth.fence_ms.unwrap() >= x + 5_000, "{}", b.name());
    store.release(&fourth, 0).unwrap();
}

/// A holder process is killed mid-run (no release); the next one starts with its wall clock
/// 5 s back and a `logical` policy: all its IDs lie above the dead one's. (Longer steps back
/// are each store's own tests; on a namespace younger than its lock delay, a clock that far
/// back waits the delay out on its own clock, which a kit run need not sit through.)
pub fn lease_fence_after_restart_with_the_clock_back(b: &dyn Backend) {
    let url = lease_url(b);
    let ns = unique("fence");
    let outs = temp_dir("kit-fence-out");
    let mut a = minter(&url, &ns, 1, &outs.join("a"));
    a.wait_for("HOLD");
    a.wait_minted(50_000);
    let ids_a = a.kill();
    let spec = MinterSpec::new(&url, &ns, 1, TTL.as_millis() as u64)
        .policy("logical:10000")
        .faketime(Faketime::Offset("-5s".into()));
    let mut next = Minter::start(&spec, &outs.join("b"));
    let behind = wall_ms() as i64 - next.clock() as i64;
    assert!(
        (4_000..15_000).contains(&behind),
        "faketime did not set the clock back ({behind} ms)"
    );
    next.wait_for("HOLD");
    next.wait_minted(50_000);
    let (ids_b, _) = next.finish();
    let max_a = ids_a.iter().max().unwrap();
    let min_b = ids_b.iter().min().unwrap();
    assert!(
        min_b > max_a,
        "{}: the next holder minted at or below the killed one's maximum",
        b.name()
    );
    let layout = Layout::preset("twitter").unwrap();
    assert!(layout.timestamp_ms(*min_b) > layout.timestamp_ms(*max_a));
    let _ = std::fs::remove_dir_all(outs);
}

/// A holder process mints on a one-node space and is stopped (SIGSTOP) for three TTLs while B
/// starts. B takes the node once A's lease ran out, fenced at A's recorded bound: every ID of
/// B's lies above every ID of A's. A, resumed past its deadline, mints nothing more (at most
/// the batch it had been handed before the pause reaches its file) and stops: its lease lost,
/// or no node free while B holds it.
/// On the file store, whose lock lives as long as A, B is refused until A ends.
pub fn lease_holder_paused_past_its_ttl(b: &dyn Backend) {
    let url = lease_url(b);
    let ns = unique("paused");
    let outs = temp_dir("kit-paused-out");
    let mut a = minter(&url, &ns, 1, &outs.join("a"));
    a.wait_for("HOLD");
    a.wait_minted(50_000);
    a.signal(libc::SIGSTOP);
    let paused = Instant::now();
    let mut next = minter(&url, &ns, 1, &outs.join("b"));
    if !b.leases_expire() {
        assert_eq!(next.wait_for("ERROR"), "ERROR ERR_NO_FREE_NODE");
        std::thread::sleep((TTL * 3).saturating_sub(paused.elapsed()));
        a.signal(libc::SIGCONT);
        let before = a.minted();
        a.wait_minted(before + 10_000);
        let (ids_a, _) = a.finish();
        next.wait_for("HOLD");
        next.wait_minted(50_000);
        let (ids_b, _) = next.finish();
        assert_after(b, &ids_a, &ids_b);
        let _ = std::fs::remove_dir_all(outs);
        return;
    }
    next.wait_for("HOLD");
    next.wait_minted(50_000);
    std::thread::sleep((TTL * 3).saturating_sub(paused.elapsed()));
    let before = a.minted();
    a.signal(libc::SIGCONT);
    // Its first error says it stopped: the lease lost, or (when its generator already asked
    // for a node again) no node free while B holds the only one.
    let stopped = a.wait_for("ERROR");
    assert!(
        ["ERROR ERR_LEASE_LOST", "ERROR ERR_NO_FREE_NODE"].contains(&stopped.as_str()),
        "{}: {stopped}",
        b.name()
    );
    next.wait_minted(next.minted() + 50_000);
    let (ids_a, _) = a.finish();
    let (ids_b, _) = next.finish();
    assert!(
        ids_a.len() as u64 <= before + 1_000,
        "{}: A minted {} IDs after its deadline",
        b.name(),
        ids_a.len() as u64 - before
    );
    assert_after(b, &ids_a, &ids_b);
    let _ = std::fs::remove_dir_all(outs);
}

/// Every ID of `later` lies above every ID of `earlier` (the next holder of one node is fenced
/// past the previous one's IDs), and none is repeated.
fn assert_after(b: &dyn Backend, earlier: &[u64], later: &[u64]) {
    assert_no_duplicates(&[earlier, later]);
    let (max, min) = (earlier.iter().max().unwrap(), later.iter().min().unwrap());
    assert!(
        min > max,
        "{}: the next holder minted {min} at or below the previous one's maximum {max}",
        b.name()
    );
}

/// Two processes mint; the store is killed: both stop (`ERR_LEASE_LOST`) before their leases
/// could have run out, and mint again once it is back. No ID twice.
pub fn lease_store_killed_mid_run(b: &dyn Backend) {
    let url = lease_url(b);
    let ns = unique("killed");
    let outs = temp_dir("kit-killed-out");
    let mut a = minter(&url, &ns, 2, &outs.join("a"));
    let mut c = minter(&url, &ns, 2, &outs.join("b"));
    a.wait_for("HOLD");
    c.wait_for("HOLD");
    a.wait_minted(20_000);
    c.wait_minted(20_000);
    a.forget("HOLD");
    c.forget("HOLD");
    assert!(b.kill(), "{} has no server to kill", b.name());
    for m in [&mut a, &mut c] {
        m.wait_for("ERROR ERR_LEASE_LOST");
    }
    b.resume();
    for m in [&mut a, &mut c] {
        m.wait_for("HOLD");
        m.wait_minted(20_000);
    }
    let (ids_a, _) = a.finish();
    let (ids_c, _) = c.finish();
    assert_no_duplicates(&[&ids_a, &ids_c]);
    let _ = std::fs::remove_dir_all(outs);
}

/// The store loses its data while A mints on the only node (paused meanwhile, the worst
/// moment) and B waits for the node. A is resumed; after a while A stops and B goes on.
/// Whoever the store granted the node to, no ID is minted twice.
pub fn lease_data_loss(b: &dyn Backend) {
    let url = lease_url(b);
    let ns = unique("loss");
    let outs = temp_dir("kit-loss-out");
    let mut a = minter(&url, &ns, 1, &outs.join("a"));
    a.wait_for("HOLD");
    a.wait_minted(50_000);
    let mut waiting = minter(&url, &ns, 1, &outs.join("b"));
    assert_eq!(waiting.wait_for("ERROR"), "ERROR ERR_NO_FREE_NODE");
    a.signal(libc::SIGSTOP);
    b.wipe();
    // Long enough for B to be granted the node if the store lets it.
    std::thread::sleep(TTL * 2);
    a.signal(libc::SIGCONT);
    std::thread::sleep(TTL * 2);
    let (ids_a, _) = a.finish();
    waiting.wait_for("HOLD");
    waiting.wait_minted(100_000);
    let (ids_b, _) = waiting.finish();
    assert_no_duplicates(&[&ids_a, &ids_b]);
    let _ = std::fs::remove_dir_all(outs);
}

/// Runs `f` on another thread and returns its result, or panics if it does not return within
/// a minute: a store call must fail on its timeout, never hang.
pub fn returns<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{what} hung"))
}

/// The server stopped (SIGSTOP) for three TTLs under two live generators: minting stops
/// before the lease's deadline; store calls fail on their timeout (300 ms) instead of hanging;
/// dropping a generator (which releases) returns; after SIGCONT the other one mints again
/// (the same lease, or a new one once the store expired those it could not hear from).
/// Zero duplicates.
pub fn lease_store_paused(b: &dyn Backend) {
    let base = lease_url(b);
    let sep = if base.contains('?') { '&' } else { '?' };
    let url = format!("{base}{sep}timeout_ms=300");
    let open = |url: &str| -> Arc<dyn LeaseStore> { Arc::from(lease::open(url).unwrap()) };
    let cfg = Config::new(Layout::preset("twitter").unwrap());
    let ns = unique("srvpause");
    let ttl = Duration::from_millis(1_500);
    let opts = LeaseOptions::new().namespace(&ns).ttl(ttl).nodes(2);
    let g = LeasedSnowflake::new(open(&url), cfg, opts.clone()).unwrap();
    let h = LeasedSnowflake::new(open(&url), cfg, opts).unwrap();
    // Both past the namespace's lock delay.
    let mut ids = Vec::new();
    for _ in 0..1_000 {
        ids.push(g.next_id().unwrap());
        ids.push(h.next_id().unwrap());
    }
    let raw = open(&url);
    let kind = raw.kind();
    let spec = LeaseSpec::new(&ns, 2, ttl);
    assert!(
        b.pause(),
        "{}: the fixture cannot pause its server",
        b.name()
    );
    let stopped = Instant::now();
    // Minting goes on until the deadline the last renewal gave, and no further.
    let err = loop {
        let asked = Instant::now();
        match g.next_id() {
            Ok(id) => {
                // The deadline only grows while the lease lives; the ID was admitted after
                // `asked` and before the deadline.
                if let Some(deadline) = g.lease_info().and_then(|i| i.deadline) {
                    assert!(asked <= deadline, "minted past the lease's deadline");
                }
                ids.push(id);
            }
            Err(e) => break e,
        }
        assert!(stopped.elapsed() < Duration::from_secs(60), "never stopped");
        std::thread::sleep(Duration::from_micros(200));
    };
    assert!(matches!(err, Error::LeaseLost { .. }), "{err:?}");
    // A store call fails (on its 300 ms timeout), it does not wait for the server.
    let t = Instant::now();
    let e = returns("acquire on a stopped store", move || {
        raw.acquire(&spec, wall_ms(), None)
    });
    assert!(
        matches!(
            &e,
            Err(Error::StoreUnavailable {
                store,
                op: "acquire",
                ..
            }) if *store == kind
        ),
        "{e:?}"
    );
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    // Dropping a generator joins its renewal thread and releases its node: it returns.
    returns("drop of a generator", move || drop(h));
    std::thread::sleep(Duration::from_millis(3 * 1_500).saturating_sub(stopped.elapsed()));
    b.unpause();
    let back = Instant::now();
    let id = loop {
        match g.next_id() {
            Ok(id) => break id,
            Err(Error::LeaseLost { .. } | Error::WouldBlock { .. }) => {
                std::thread::sleep(Duration::from_millis(10))
            }
            Err(e) => panic!("{e:?}"),
        }
        assert!(back.elapsed() < Duration::from_secs(60), "never resumed");
    };
    ids.push(id);
    for _ in 0..1_000 {
        ids.push(g.next_id().unwrap());
    }
    assert_no_duplicates(&[&ids]);
    returns("release", move || g.release()).unwrap();
}

fn allocator(
    url: &str,
    journal: Option<&std::path::Path>,
) -> SegmentAllocator<Box<dyn SegmentStore>> {
    let mut builder = SegmentAllocator::builder(
        open_store(url).unwrap(),
        SegmentConfig::new().fixed_step(500),
    );
    if let Some(j) = journal {
        builder = builder.journal(j);
    }
    builder.build().unwrap()
}

fn assert_unique(b: &dyn Backend, ids: &[u64]) {
    let mut v = ids.to_vec();
    v.sort_unstable();
    let n = v.len();
    v.dedup();
    assert_eq!(v.len(), n, "{}: a value was served twice", b.name());
}

/// Eight allocators, each on its own store handle, draw 20,000 values of one key at once:
/// all distinct.
pub fn segment_eight_allocators(b: &dyn Backend) {
    let url = segment_url(b);
    let key = unique("eight");
    let start = Barrier::new(8);
    let all = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                let alloc = allocator(&url, None);
                start.wait();
                let mut ids = vec![0u64; 20_000];
                for chunk in ids.chunks_mut(100) {
                    alloc.next_ids(&key, chunk).unwrap();
                }
                all.lock().unwrap().extend(ids);
            });
        }
    });
    let all = all.into_inner().unwrap();
    assert_eq!(all.len(), 160_000);
    assert_unique(b, &all);
}

/// Four allocators draw while the store is killed and comes back: calls fail with a typed
/// error in between (never hang past the wait timeout), and no value is served twice.
pub fn segment_store_killed_mid_run(b: &dyn Backend) {
    let url = segment_url(b);
    let key = unique("killed");
    let stop = AtomicBool::new(false);
    let all = Mutex::new(Vec::new());
    let errors = Mutex::new(HashSet::new());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let alloc = allocator(&url, None);
                let mut mine = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    match alloc.next_id(&key) {
                        Ok(v) => mine.push(v),
                        Err(e) => {
                            errors.lock().unwrap().insert(e.code());
                            std::thread::sleep(Duration::from_millis(20));
                        }
                    }
                }
                all.lock().unwrap().extend(mine);
            });
        }
        std::thread::sleep(Duration::from_millis(500));
        assert!(b.kill(), "{} has no server to kill", b.name());
        std::thread::sleep(Duration::from_millis(1500));
        b.resume();
        std::thread::sleep(Duration::from_millis(1500));
        stop.store(true, Ordering::Relaxed);
    });
    let all = all.into_inner().unwrap();
    assert_unique(b, &all);
    let errors = errors.into_inner().unwrap();
    assert!(
        errors
            .iter()
            .all(|c| ["ERR_STORE_UNAVAILABLE", "ERR_WOULD_BLOCK"].contains(c)),
        "{}: {errors:?}",
        b.name()
    );
    // It serves again once the store is back.
    let alloc = allocator(&url, None);
    let after = alloc.next_id(&key).unwrap();
    assert!(!all.contains(&after));
}

/// The store loses its data. A journal written before is refused; an allocator that lived
/// through the loss serves nothing twice (it refuses a range that goes back).
pub fn segment_data_loss(b: &dyn Backend) {
    let url = segment_url(b);
    let key = unique("loss");
    let dir = temp_dir("kit-journal");
    let journal = dir.join("journal");
    let alloc = allocator(&url, Some(&journal));
    let mut before = vec![0u64; 1_200];
    alloc.next_ids(&key, &mut before).unwrap();
    alloc.close().unwrap();
    let live = allocator(&url, None);
    let mut served = vec![0u64; 700];
    live.next_ids(&key, &mut served).unwrap();
    served.extend(before);

    b.wipe();

    match SegmentAllocator::builder(open_store(&url).unwrap(), SegmentConfig::new())
        .journal(&journal)
        .build()
    {
        Err(Error::StoreMismatch { .. }) => {}
        Err(e) => panic!("{}: the journal was refused with {e}", b.name()),
        Ok(_) => panic!("{}: a journal from before the loss was resumed", b.name()),
    }
    for _ in 0..3_000 {
        match live.next_id(&key) {
            Ok(v) => served.push(v),
            Err(_) => break,
        }
    }
    assert_unique(b, &served);
    let _ = std::fs::remove_dir_all(dir);
}

/// An allocator closed into its journal and reopened (a restart) resumes its remainder; with
/// a second allocator on the store meanwhile, no value is served twice.
pub fn segment_restart(b: &dyn Backend) {
    let url = segment_url(b);
    let key = unique("restart");
    let dir = temp_dir("kit-restart");
    let journal = dir.join("journal");
    let mut served = Vec::new();
    for round in 0..3 {
        let alloc = allocator(&url, Some(&journal));
        let other = allocator(&url, None);
        let mut ids = vec![0u64; 300 + round * 100];
        alloc.next_ids(&key, &mut ids).unwrap();
        served.extend_from_slice(&ids);
        let mut theirs = vec![0u64; 200];
        other.next_ids(&key, &mut theirs).unwrap();
        served.extend(theirs);
        alloc.close().unwrap();
        other.close().unwrap();
    }
    assert_unique(b, &served);
    let _ = std::fs::remove_dir_all(dir);
}
