//! What the service holds: a leased Snowflake generator, a segment allocator, the client-lease
//! desk, and its metrics. Everything here is blocking (store calls, waits); the HTTP layer runs
//! it off the async workers where it may block.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use idmint::segment::SegmentConfig;
use idmint::{Config, Error, Result};
use idmint_coord::lease::{self, LeaseOptions, LeaseStore, LeasedSnowflake};
use idmint_coord::node_source::NodeSource;
use idmint_coord::segment::{open_store, Range, SegmentAllocator, SegmentStore, MAX_KEYS};

use crate::client_lease::ClientLeases;
use crate::config::Settings;
use crate::deadline::Stop;
use crate::error::{ApiError, ApiResult};
use crate::lease_token::TokenKey;
use crate::metrics::{KeyLabels, Metrics};
use crate::segment_keys::KeyRegistry;

/// The segment store, with every call timed and its failures counted.
pub struct MeteredStore {
    inner: Box<dyn SegmentStore>,
    metrics: Arc<Metrics>,
}

impl MeteredStore {
    /// A range of at most `count` values for a client (`POST …/ranges`): straight from the
    /// store, never from the service's buffers, so it cannot overlap what the service serves.
    pub fn take_range(&self, key: &str, count: u64) -> Result<Range> {
        self.call("range", || self.inner.take_at_most(key, count))
    }

    fn call<T>(&self, op: &'static str, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let t = Instant::now();
        let r = f();
        self.metrics
            .store_call(self.inner.kind(), op, t.elapsed(), &r);
        r
    }
}

impl SegmentStore for MeteredStore {
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }
    fn take(&self, key: &str, step: u64) -> Result<Range> {
        self.call("refill", || self.inner.take(key, step))
    }
    fn ascending(&self) -> bool {
        self.inner.ascending()
    }
    fn identity(&self) -> Result<u64> {
        self.call("identity", || self.inner.identity())
    }
}

/// The service's state, shared by every request.
pub struct Service {
    /// The settings in force.
    pub settings: Settings,
    /// Snowflake IDs, on a node leased for the service (or a fixed one).
    pub snowflake: LeasedSnowflake,
    /// Segment IDs.
    pub segments: SegmentAllocator<Arc<MeteredStore>>,
    /// The segment store, for ranges.
    pub store: Arc<MeteredStore>,
    /// Client node leases; `None` when the node source is not a lease store.
    pub clients: Option<ClientLeases>,
    /// Metrics.
    pub metrics: Arc<Metrics>,
    /// Which segment keys may be used (pre-registered, auto-created within the cap).
    pub keys: KeyRegistry,
    stopping: AtomicBool,
    /// Held by whoever mints Snowflake IDs on the blocking pool (see [`Service::snowflakes`]).
    minting: MintGate,
    /// Permits for ID batches on the blocking pool: one per core (see `batch` in the crate
    /// root), so batches cannot take every blocking thread and CPU.
    pub(crate) batches: Arc<tokio::sync::Semaphore>,
    store_ok: AtomicBool,
    /// The lease's renewal counters at the last background check, and whether renewals were
    /// failing then: a store the service retries is logged when it starts and stops failing.
    lease_seen: Mutex<(u64, u64, bool)>,
}

/// One minter at a time, waited for no longer than the waiter's [`Stop`] allows.
struct MintGate {
    busy: Mutex<bool>,
    freed: Condvar,
}

/// The gate held; dropping it lets the next minter in.
struct MintTurn<'a>(&'a MintGate);

impl MintGate {
    fn new() -> MintGate {
        MintGate {
            busy: Mutex::new(false),
            freed: Condvar::new(),
        }
    }

    /// Waits for the gate until `stop` says to give up; `None` then.
    fn enter(&self, stop: &Stop) -> Option<MintTurn<'_>> {
        let mut busy = self.busy.lock().unwrap_or_else(PoisonError::into_inner);
        while *busy {
            stop.check().ok()?;
            // Slices of at most 10 ms: a cancelled request notices soon.
            let slice = stop.remaining().min(Duration::from_millis(10));
            busy = self
                .freed
                .wait_timeout(busy, slice)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        *busy = true;
        Some(MintTurn(self))
    }
}

impl Drop for MintTurn<'_> {
    fn drop(&mut self) {
        *self.0.busy.lock().unwrap_or_else(PoisonError::into_inner) = false;
        self.0.freed.notify_one();
    }
}

/// How long until `ms` (ms since the Unix epoch) by the wall clock; at least 50 µs, so a
/// caller that loops on it never spins.
fn until_unix_ms(ms: u64) -> Duration {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    Duration::from_millis(ms)
        .saturating_sub(now)
        .max(Duration::from_micros(50))
}

fn make_private_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| Error::StoreUnavailable {
            store: "file",
            op: "create the data directory",
            reason: match e.kind() {
                std::io::ErrorKind::PermissionDenied => "permission denied",
                std::io::ErrorKind::NotADirectory => "not a directory",
                std::io::ErrorKind::ReadOnlyFilesystem => "read-only file system",
                _ => "I/O error",
            },
        })
}

impl Service {
    /// Opens the stores, leases the node and warms the pre-registered keys (blocking).
    pub fn open(settings: Settings) -> Result<Service> {
        let metrics = Arc::new(Metrics::new(settings.metrics_max_keys));
        // The pre-registered keys are the first to get series of their own.
        for k in &settings.keys {
            metrics.key_label(k);
        }
        make_private_dir(&settings.data_dir)?;
        let store = Arc::new(MeteredStore {
            inner: open_store(&settings.segments)?,
            metrics: metrics.clone(),
        });
        let segments = SegmentAllocator::builder(store.clone(), SegmentConfig::new())
            .journal(&settings.journal)
            .build()?;
        let cfg = Config::new(settings.layout);
        let (snowflake, clients) = match NodeSource::parse(&settings.lease)? {
            NodeSource::Leased(url) => {
                let store: Arc<dyn LeaseStore> = Arc::from(lease::open(&url)?);
                let opts = LeaseOptions::new()
                    .namespace(&settings.lease_namespace)
                    .ttl(settings.lease_ttl)
                    .on_wait(|w| tracing::warn!("snowflake {w}"));
                let gen = LeasedSnowflake::new(store.clone(), cfg, opts)?;
                let key = match &settings.lease_key {
                    Some(k) => k.clone(),
                    None => TokenKey::generated(&settings.data_dir)?,
                };
                let desk = ClientLeases::new(store, key, settings.clients.clone());
                (gen, Some(desk))
            }
            fixed => {
                let node = fixed.resolve(cfg.layout())?;
                (
                    LeasedSnowflake::unleased(cfg.node(node), idmint::SystemClock::new())?,
                    None,
                )
            }
        };
        // The allocator holds at most MAX_KEYS keys, the pre-registered ones included.
        let limit = settings
            .max_auto_keys
            .min(MAX_KEYS.saturating_sub(settings.keys.len()));
        let keys = KeyRegistry::open(
            &settings.data_dir,
            &settings.keys,
            settings.auto_keys,
            limit,
            &segments.keys(),
        )?;
        let svc = Service {
            settings,
            snowflake,
            segments,
            store,
            clients,
            metrics,
            keys,
            stopping: AtomicBool::new(false),
            minting: MintGate::new(),
            batches: Arc::new(tokio::sync::Semaphore::new(
                std::thread::available_parallelism().map_or(2, usize::from),
            )),
            store_ok: AtomicBool::new(true),
            lease_seen: Mutex::new((0, 0, false)),
        };
        svc.check_store();
        Ok(svc)
    }

    /// Fills the buffers of pre-registered keys that hold nothing (at start, and after an
    /// outage drained them), so the first request does not wait for a fetch and `/readyz`
    /// can say the buffers are ready. Takes no value: the first request gets the first value
    /// of the range. Waits (at most the request timeout) until the fetches landed or failed
    /// (blocking).
    pub fn warm_keys(&self) {
        let idle: Vec<&String> = self
            .settings
            .keys
            .iter()
            .filter(|k| {
                self.segments
                    .stats(k)
                    .map_or(true, |s| s.buffered == 0 && !s.fetching)
            })
            .collect();
        for k in &idle {
            let _ = self.segments.prefetch(k);
        }
        let give_up = Instant::now() + self.settings.request_timeout;
        while Instant::now() < give_up
            && idle
                .iter()
                .any(|k| self.segments.stats(k).is_some_and(|s| s.fetching))
        {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Fills `out` with Snowflake IDs, sleeping where the sequence of the current tick is
    /// spent (blocking). Gives up when `stop` says so — waiting for its turn (503 `ERR_BUSY`)
    /// or between chunks of [`Stop::CHUNK`] IDs and in tick waits (408 `ERR_TIMEOUT`) — and
    /// what it filled is then the caller's to discard: those IDs are never issued again, so a
    /// stopped batch wastes IDs but never duplicates one.
    ///
    /// One caller at a time, and no spinning: the generator's own wait
    /// ([`LeasedSnowflake::next_ids`]) yields in a loop for waits under 2 ms, so concurrent
    /// batches — one blocking-pool thread each — all spun on the CPU the HTTP workers need,
    /// for IDs the layout's cap lets through one tick at a time anyway. Here the others sleep
    /// on the gate, and the holder sleeps until the tick it was told (in slices of at most
    /// 1 ms, so a clock that disagrees with ours costs at most one slice).
    pub fn snowflakes(&self, out: &mut [u64], stop: &Stop) -> ApiResult<()> {
        let Some(_turn) = self.minting.enter(stop) else {
            return Err(crate::deadline::busy());
        };
        let mut filled = 0;
        while let Some(slot) = out.get_mut(filled) {
            if filled % Stop::CHUNK == 0 {
                stop.check().map_err(|_| crate::deadline::timed_out())?;
            }
            match self.snowflake.try_next_id() {
                Ok(id) => {
                    *slot = id;
                    filled += 1;
                }
                Err(Error::WouldBlock { until_ms }) => {
                    stop.check().map_err(|_| crate::deadline::timed_out())?;
                    std::thread::sleep(
                        until_unix_ms(until_ms)
                            .min(Duration::from_millis(1))
                            .min(stop.remaining()),
                    );
                }
                Err(e) => return Err(ApiError::own(e)),
            }
        }
        Ok(())
    }

    /// Admits `key` for a request: a valid name, pre-registered or (with auto-keys) created
    /// within the cap; see [`KeyRegistry::admit`].
    pub fn admit_key(&self, key: &str) -> std::result::Result<(), ApiError> {
        self.keys.admit(key)
    }

    /// Asks the segment store for its identity (one round trip) and remembers whether it
    /// answered, for `/readyz` (blocking). Logs one line when it stops answering (what the
    /// service does meanwhile, how often it asks again) and one when it answers again.
    pub fn check_store(&self) -> bool {
        let answer = self.store.identity();
        let ok = answer.is_ok();
        let was = self.store_ok.swap(ok, Ordering::Relaxed);
        match answer {
            Err(e) if was => tracing::warn!(
                "the segment store ({}) does not answer: {e}; keys with buffered IDs keep \
                 serving, the others answer 503 with Retry-After; asking again every {} s",
                self.store.kind(),
                Self::CHECK_EVERY.as_secs()
            ),
            Ok(_) if !was => {
                tracing::info!("the segment store ({}) answers again", self.store.kind())
            }
            _ => {}
        }
        ok
    }

    /// From the background check: logs one line when the service's own lease renewals start
    /// failing (the lease store does not answer; renewals are retried), saying until when
    /// Snowflake IDs are still served, and one when a renewal succeeds again.
    pub fn watch_lease(&self) {
        let Some(info) = self.snowflake.lease_info() else {
            return;
        };
        let stats = self.snowflake.stats();
        let mut seen = self
            .lease_seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (failures, renewals, was_failing) = *seen;
        let failing = if stats.renew_failures > failures {
            true
        } else if stats.renewals > renewals {
            false
        } else {
            was_failing
        };
        *seen = (stats.renew_failures, stats.renewals, failing);
        drop(seen);
        if failing && !was_failing {
            let until = match info.deadline {
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now()).as_millis();
                    let at = crate::clock::now_ms().saturating_add(left as u64);
                    format!("Snowflake IDs are served until {}, then refused with 503 until one succeeds", idmint::Rfc3339(at))
                }
                None => {
                    "the lease is lost: Snowflake IDs are refused with 503 until a new one is taken"
                        .to_owned()
                }
            };
            tracing::warn!(
                "lease renewals of snowflake node {} fail (the {} lease store does not answer); retrying; {until}",
                info.lease.node,
                info.store
            );
        } else if was_failing && !failing {
            tracing::info!(
                "lease renewals of snowflake node {} succeed again",
                info.lease.node
            );
        }
    }

    /// Marks the service as stopping: `/readyz` answers 503 from now on.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Relaxed);
    }

    /// What `/readyz` checks: not stopping, the segment store answered the last check, every
    /// pre-registered key has values buffered, and the node lease is held.
    pub fn readiness(&self) -> Vec<(&'static str, bool, String)> {
        let mut checks = Vec::new();
        checks.push((
            "accepting",
            !self.stopping.load(Ordering::Relaxed),
            String::new(),
        ));
        checks.push((
            "segment_store",
            self.store_ok.load(Ordering::Relaxed),
            self.store.kind().to_owned(),
        ));
        let empty: Vec<&String> = self
            .settings
            .keys
            .iter()
            .filter(|k| self.segments.stats(k).map_or(true, |s| s.buffered == 0))
            .collect();
        checks.push((
            "buffers",
            empty.is_empty(),
            if empty.is_empty() {
                String::new()
            } else {
                format!(
                    "empty: {}",
                    empty
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(",")
                )
            },
        ));
        let lease = match self.snowflake.lease_info() {
            None => (true, "fixed node".to_owned()),
            Some(info) => match info.deadline {
                // Held, but its fence is still ahead: a request would wait for it.
                Some(d) if d > Instant::now() => match self.snowflake.fenced_until() {
                    Some(until) => (
                        false,
                        format!(
                            "node {} fenced until {}",
                            info.lease.node,
                            idmint::Rfc3339(until)
                        ),
                    ),
                    None => (true, format!("node {}", info.lease.node)),
                },
                Some(_) => (false, "renewal overdue".to_owned()),
                None => (false, "lost".to_owned()),
            },
        };
        checks.push(("lease", lease.0, lease.1));
        checks
    }

    /// Refreshes the scrape-time metrics (buffer fill, the leased generator's counters).
    pub fn refresh_metrics(&self) {
        self.metrics.observe_service_lease(self.snowflake.stats());
        // Keys beyond the series cap are summed under one label.
        let mut buffered: HashMap<_, u64> = HashMap::new();
        for key in self.segments.keys() {
            if let Some(s) = self.segments.stats(&key) {
                *buffered.entry(self.metrics.key_label(&key)).or_default() += s.buffered;
            }
        }
        for (key, n) in buffered {
            let g = self.metrics.buffered.get_or_create(&KeyLabels { key });
            g.set(i64::try_from(n).unwrap_or(i64::MAX));
        }
        if let Some(c) = &self.clients {
            self.metrics
                .client_leases
                .set(i64::try_from(c.live().len()).unwrap_or(i64::MAX));
        }
        let ready = self.readiness().iter().all(|c| c.1);
        self.metrics.ready.set(i64::from(ready));
    }

    /// Closes the allocator (recording the unserved remainder in the journal) and releases
    /// the node lease with the exact last issued time (blocking).
    pub fn close(self) -> Result<()> {
        let seg = self.segments.close();
        let lease = self.snowflake.release();
        seg.and(lease)
    }

    /// How long the background checks wait between rounds.
    pub const CHECK_EVERY: Duration = Duration::from_secs(2);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ServeConfig;

    #[test]
    fn batches_span_ticks_by_sleeping_and_stay_unique() {
        let dir = std::env::temp_dir().join(format!("idmint-service-test-{}", std::process::id()));
        let svc = Service::open(
            Settings::resolve(ServeConfig {
                listen: Some("127.0.0.1:0".into()),
                data_dir: Some(dir.clone()),
                ..ServeConfig::default()
            })
            .unwrap(),
        )
        .unwrap();
        // The leaf layout mints 4,096 per ms: 10,000 need at least three ticks.
        let mut ids = vec![0u64; 10_000];
        let stop = Stop::within(Duration::from_secs(60));
        svc.snowflakes(&mut ids, &stop).unwrap();
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "IDs ascend, so none repeats"
        );
        let mut more = vec![0u64; 5];
        svc.snowflakes(&mut more, &stop).unwrap();
        assert!(more[0] > ids[ids.len() - 1]);
        svc.close().unwrap();
        let _ = std::fs::remove_dir_all(dir);
    }
}
