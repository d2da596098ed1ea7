//! Unit tests of the sharded segment store.

use super::*;

/// Rows in memory, with a switch that makes the backend fail like a dead server.
struct Rows {
    rows: Mutex<HashMap<(String, u32), ShardRow>>,
    down: std::sync::atomic::AtomicBool,
    identity: u64,
    topology: Mutex<Option<String>>,
}

impl Default for Rows {
    fn default() -> Self {
        Rows {
            rows: Mutex::default(),
            down: false.into(),
            identity: crate::segment::contract::random_identity().unwrap(),
            topology: Mutex::default(),
        }
    }
}

impl Rows {
    fn check(&self) -> Result<()> {
        if self.down.load(std::sync::atomic::Ordering::SeqCst) {
            Err(Error::StoreUnavailable {
                store: "test",
                op: "take",
                reason: "down",
            })
        } else {
            Ok(())
        }
    }
}

impl ShardRows for Rows {
    fn kind(&self) -> &'static str {
        "test"
    }
    fn topology(&self) -> Result<(u64, Option<String>)> {
        self.check()?;
        Ok((self.identity, self.topology.lock().unwrap().clone()))
    }
    fn record_topology(&self, identity: u64, topology: &str) -> Result<Option<String>> {
        self.check()?;
        if identity != self.identity {
            return Ok(None);
        }
        let mut t = self.topology.lock().unwrap();
        Ok(Some(t.get_or_insert_with(|| topology.to_owned()).clone()))
    }
    fn load_row(&self, key: &str, spec: &RowSpec) -> Result<ShardRow> {
        self.check()?;
        let mut rows = self.rows.lock().unwrap();
        Ok(*rows
            .entry((key.to_owned(), spec.shard))
            .or_insert(ShardRow {
                next: spec.initial(),
                version: 0,
                shards: spec.shards,
                block: spec.block,
            }))
    }
    fn swap_row(&self, key: &str, shard: u32, version: u64, next: u64) -> Result<bool> {
        self.check()?;
        let mut rows = self.rows.lock().unwrap();
        match rows.get_mut(&(key.to_owned(), shard)) {
            Some(r) if r.version == version => {
                r.next = next;
                r.version += 1;
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

#[test]
fn rows_interleave_blocks() {
    let rows = Arc::new(Rows::default());
    let s = ShardedStore::new(vec![rows], 3, 10)
        .unwrap()
        .with_route_salt(0);
    let first = s.first_row("k");
    let a = s.take("k", 10).unwrap();
    let b = s.take("k", 10).unwrap();
    assert_eq!(a.start, 1 + u64::from(first) * 10);
    assert_eq!(b.start, a.start + 30);
    assert_eq!(s.take("k", 4).unwrap().len(), 4);
}

#[test]
fn a_failed_backend_falls_over_to_the_next_row() {
    let a = Arc::new(Rows::default());
    let b = Arc::new(Rows::default());
    let s = ShardedStore::new(vec![a.clone(), b.clone()], 2, 5).unwrap();
    s.take("other", 5).unwrap(); // records the new set: every backend must be up for it
    a.down.store(true, std::sync::atomic::Ordering::SeqCst);
    for _ in 0..4 {
        // Row 1 lives in b: values 6..11, 16..21, ...
        let r = s.take("k", 5).unwrap();
        assert_eq!((r.start - 1) / 5 % 2, 1);
    }
    b.down.store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(matches!(
        s.take("k", 5),
        Err(Error::StoreUnavailable {
            store: "sharded",
            op: "take",
            ..
        })
    ));
}

#[test]
fn a_stale_hint_is_corrected_by_the_version() {
    let rows = Arc::new(Rows::default());
    let one = ShardedStore::new(vec![rows.clone()], 1, 10).unwrap();
    let two = ShardedStore::new(vec![rows], 1, 10).unwrap();
    let mut seen = Vec::new();
    for _ in 0..5 {
        seen.push(one.take("k", 10).unwrap().start);
        seen.push(two.take("k", 10).unwrap().start);
    }
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 10);
}

#[test]
fn changed_sharding_of_an_existing_key_is_refused() {
    let rows = Arc::new(Rows::default());
    let four = ShardedStore::new(vec![rows.clone()], 4, 10)
        .unwrap()
        .with_route_salt(0);
    four.take("k", 10).unwrap();
    let row = four.first_row("k");
    let other = ShardedStore::new(vec![rows], 4, 20)
        .unwrap()
        .with_route_salt(0);
    assert_eq!(other.first_row("k"), row);
    assert!(matches!(
        other.take("k", 10),
        Err(Error::InvalidConfig { .. })
    ));
}

#[test]
fn a_backend_down_at_first_use_keeps_a_new_set_unrecorded() {
    let a = Arc::new(Rows::default());
    let b = Arc::new(Rows::default());
    b.down.store(true, Ordering::SeqCst);
    let s = ShardedStore::new(vec![a.clone(), b.clone()], 2, 5).unwrap();
    assert!(matches!(
        s.take("k", 5),
        Err(Error::StoreUnavailable { .. })
    ));
    assert!(a.topology.lock().unwrap().is_none(), "nothing recorded");
    b.down.store(false, Ordering::SeqCst);
    s.take("k", 5).unwrap();
    assert_eq!(*a.topology.lock().unwrap(), *b.topology.lock().unwrap());
    // Later, a backend down at a store's first take is checked when it returns.
    b.down.store(true, Ordering::SeqCst);
    let t = ShardedStore::new(vec![a.clone(), b.clone()], 2, 5).unwrap();
    for _ in 0..3 {
        let r = t.take("k", 5).unwrap();
        assert_eq!((r.start - 1) / 5 % 2, 0, "rows of a only");
    }
    b.down.store(false, Ordering::SeqCst);
    std::thread::sleep(SKIP_FAILED_BACKEND);
    t.take("k", 5).unwrap();
    assert!(t.verified[1].load(Ordering::SeqCst), "b is checked again");
}

#[test]
fn a_row_that_went_back_is_refused() {
    let rows = Arc::new(Rows::default());
    let s = ShardedStore::new(vec![rows.clone()], 1, 10).unwrap();
    s.take("k", 10).unwrap();
    s.take("k", 10).unwrap();
    rows.rows.lock().unwrap().clear(); // the table lost its rows, not its identity
    assert!(matches!(s.take("k", 10), Err(Error::StoreMismatch { .. })));
}

#[test]
fn topology_records_round_trip_exactly() {
    let t = Topology {
        shards: 8,
        backends: vec![1, u64::MAX, 0xabc],
    };
    assert_eq!(Topology::parse(&t.text()), Some(t.clone()));
    let text = t.text();
    for bad in [
        text.replace("v1", "v2"),
        text.replace("shards=8", "shards=08"),
        text.replace("0000000000000001", "+000000000000001"),
        text.replace("0000000000000001", "1"),
        format!("{text},"),
        "x".repeat(MAX_TOPOLOGY_BYTES + 1),
    ] {
        assert_eq!(Topology::parse(&bad), None, "{bad}");
    }
}

/// Rows where another taker wins every race until `until`: each swap finds the row moved
/// by a take of its own first.
struct Rival {
    rows: Rows,
    until: Instant,
    stride: u64,
}

impl ShardRows for Rival {
    fn kind(&self) -> &'static str {
        "test"
    }
    fn topology(&self) -> Result<(u64, Option<String>)> {
        self.rows.topology()
    }
    fn record_topology(&self, identity: u64, topology: &str) -> Result<Option<String>> {
        self.rows.record_topology(identity, topology)
    }
    fn load_row(&self, key: &str, spec: &RowSpec) -> Result<ShardRow> {
        self.rows.load_row(key, spec)
    }
    fn swap_row(&self, key: &str, shard: u32, version: u64, next: u64) -> Result<bool> {
        if Instant::now() < self.until {
            let row = self.rows.rows.lock().unwrap()[&(key.to_owned(), shard)];
            assert!(self
                .rows
                .swap_row(key, shard, row.version, row.next + self.stride)?);
        }
        self.rows.swap_row(key, shard, version, next)
    }
}

/// Fault: other takers win every race for every row, for longer than a take used to wait.
/// Each lost race is another taker's success, so the take keeps trying and succeeds once
/// it wins; only a caller that set a contention timeout gets `StoreUnavailable`.
#[test]
fn a_take_that_keeps_losing_races_waits_instead_of_failing() {
    let rival = Arc::new(Rival {
        rows: Rows::default(),
        until: Instant::now() + Duration::from_millis(2500),
        stride: 40,
    });
    let bounded = ShardedStore::new(vec![rival.clone()], 4, 10)
        .unwrap()
        .with_contention_timeout(Duration::from_millis(100));
    assert!(matches!(
        bounded.take("k", 10),
        Err(Error::StoreUnavailable {
            reason: "timed out waiting for a shard",
            ..
        })
    ));
    let patient = ShardedStore::new(vec![rival.clone()], 4, 10).unwrap();
    let r = patient.take("k", 10).unwrap();
    assert_eq!(r.len(), 10);
    assert!(
        Instant::now() >= rival.until,
        "it won only once the rival stopped"
    );
}

#[test]
fn a_huge_contention_timeout_does_not_overflow() {
    let rows = Arc::new(Rows::default());
    let s = ShardedStore::new(vec![rows], 2, 10)
        .unwrap()
        .with_contention_timeout(Duration::MAX);
    s.take("k", 10).unwrap();
}

#[test]
fn bad_configs_are_refused() {
    let rows: Arc<dyn ShardRows> = Arc::new(Rows::default());
    assert!(ShardedStore::new(vec![], 1, 1).is_err());
    assert!(ShardedStore::new(vec![rows.clone()], 0, 1).is_err());
    assert!(ShardedStore::new(vec![rows.clone()], 1, 0).is_err());
    assert!(ShardedStore::new(vec![rows.clone(), rows.clone()], 1, 1).is_err());
    assert!(ShardedStore::new(vec![rows.clone()], 4, u64::MAX / 2).is_err());
    assert_eq!(
        ShardedStore::new(vec![rows], u32::MAX, 1).unwrap_err(),
        Error::LimitExceeded {
            what: "shards of a sharded segment store",
            limit: u64::from(MAX_SHARDS),
        }
    );
}
