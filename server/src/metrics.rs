//! What an operator watches, in the Prometheus text format (`GET /metrics`): IDs issued, request
//! and store-call latencies, store errors, lease events, clock trouble and buffer fill.
//!
//! Counters the coord types keep themselves (a leased generator's renewals, its clock
//! rollbacks) are read at scrape time and added as deltas, so nothing is counted twice and the
//! hot path pays nothing for them.
//!
//! Label values that come from requests (segment keys) are written escaped ([`LabelText`]:
//! prometheus-client 0.24 writes label values as given), and at most `--metrics-max-keys`
//! keys get series of their own ([`Metrics::key_label`]): the rest are summed under
//! `key="other"`, so no client can grow the scrape without bound.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::{Mutex, RwLock};
use std::time::Duration;

use idmint_coord::lease::LeaseStats;
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

use crate::rates::Rates;

/// The label value of the keys beyond the per-key series cap.
pub const OTHER_KEYS: &str = "other";

/// A label value written escaped as the text exposition format requires (`\\`, `\"`, `\n`),
/// for values that may come from input. prometheus-client 0.24.1 writes `String` label values
/// unescaped, so one `"` or newline in a value would corrupt the whole scrape.
#[derive(Clone, Debug, Default, Hash, PartialEq, Eq)]
pub struct LabelText(pub String);

impl EncodeLabelValue for LabelText {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        let mut rest = self.0.as_str();
        while let Some(i) = rest.find(['\\', '"', '\n']) {
            encoder.write_str(&rest[..i])?;
            encoder.write_str(match rest.as_bytes()[i] {
                b'\\' => "\\\\",
                b'"' => "\\\"",
                _ => "\\n",
            })?;
            rest = &rest[i + 1..];
        }
        encoder.write_str(rest)
    }
}

/// IDs issued, by kind (`snowflake`, `segment`, `range`) and key (`""` for Snowflake IDs).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct IdLabels {
    /// `snowflake`, `segment` or `range`.
    pub kind: &'static str,
    /// The segment key, or [`OTHER_KEYS`].
    pub key: LabelText,
}

/// A request, by matched route and status class.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteLabels {
    /// The route pattern (`/v1/segments/{key}`), or `unmatched`.
    pub route: String,
    /// `2xx`, `4xx`, `5xx`, …
    pub status: &'static str,
}

/// A store call, by store and operation.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StoreLabels {
    /// The store kind (`sqlite`, `redis`, …).
    pub store: &'static str,
    /// `refill` (the allocator's fetches), `range`, `lease_grant`, `lease_renew`, …
    pub op: &'static str,
}

/// A failed store call, with the error's stable code as the reason.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StoreErrorLabels {
    /// The store kind.
    pub store: &'static str,
    /// The operation.
    pub op: &'static str,
    /// The error code (`ERR_STORE_UNAVAILABLE`, …).
    pub reason: &'static str,
}

/// A lease event: whose lease (`service` or `client`) and what happened.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct LeaseLabels {
    /// `service` (the node the service mints with) or `client` (leases it grants).
    pub holder: &'static str,
    /// `granted`, `renewed`, `renew_failed`, `lost`, `swapped`, `reacquired`, `released`.
    pub event: &'static str,
}

/// Why the service closed a connection or stopped a batch.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ReasonLabels {
    /// `per_ip_limit`, `write_timeout`, `idle_timeout`, `tls_handshake`; for batches
    /// `deadline` or `cancelled`.
    pub reason: &'static str,
}

/// A segment key.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct KeyLabels {
    /// The key, or [`OTHER_KEYS`].
    pub key: LabelText,
}

type Hist = Family<StoreLabels, Histogram, fn() -> Histogram>;
type RouteHist = Family<RouteLabels, Histogram, fn() -> Histogram>;

fn latency() -> Histogram {
    // 10 µs to ~5 s.
    Histogram::new(exponential_buckets(0.000_01, 2.0, 20))
}

/// The service's metrics and their registry.
pub struct Metrics {
    registry: Registry,
    /// IDs issued.
    pub ids: Family<IdLabels, Counter>,
    /// Request latency.
    pub requests: RouteHist,
    /// Store call latency.
    pub store_calls: Hist,
    /// Store call failures.
    pub store_errors: Family<StoreErrorLabels, Counter>,
    /// Lease events.
    pub leases: Family<LeaseLabels, Counter>,
    /// Times the service's generator found the clock behind its last tick.
    pub clock_backwards: Counter,
    /// Total waiting for the clock (sequence exhaustion, small steps back), seconds.
    pub clock_wait: Counter<f64, std::sync::atomic::AtomicU64>,
    /// Values buffered per segment key.
    pub buffered: Family<KeyLabels, Gauge>,
    /// Client leases this instance currently tracks.
    pub client_leases: Gauge,
    /// 1 when the service reports ready.
    pub ready: Gauge,
    /// Requests and IDs per interval, for the monitor page's chart.
    pub rates: Rates,
    /// Connections the service closed itself, by reason.
    pub connections_closed: Family<ReasonLabels, Counter>,
    /// ID batches stopped before they were done (their IDs discarded), by reason.
    pub batches_stopped: Family<ReasonLabels, Counter>,
    /// ID batches running on the blocking pool now.
    pub batches_running: Gauge,
    seen: Mutex<LeaseStats>,
    /// The keys with series of their own, and how many may have one.
    key_series: RwLock<HashSet<String>>,
    max_key_series: usize,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new(100)
    }
}

impl Metrics {
    /// Registers every metric under the `idmint_` prefix; at most `max_key_series` segment
    /// keys get series of their own.
    pub fn new(max_key_series: usize) -> Metrics {
        let mut registry = Registry::with_prefix("idmint");
        let ids = Family::<IdLabels, Counter>::default();
        let requests: RouteHist = Family::new_with_constructor(latency);
        let store_calls: Hist = Family::new_with_constructor(latency);
        let store_errors = Family::<StoreErrorLabels, Counter>::default();
        let leases = Family::<LeaseLabels, Counter>::default();
        let clock_backwards = Counter::default();
        let clock_wait = Counter::<f64, std::sync::atomic::AtomicU64>::default();
        let buffered = Family::<KeyLabels, Gauge>::default();
        let client_leases = Gauge::default();
        let ready = Gauge::default();
        registry.register("ids_issued", "IDs issued, by kind and key", ids.clone());
        registry.register(
            "request_duration_seconds",
            "HTTP request latency, by route and status class",
            requests.clone(),
        );
        registry.register(
            "store_call_duration_seconds",
            "Store call latency (refill = a segment buffer's fetch), by store and operation",
            store_calls.clone(),
        );
        registry.register(
            "store_errors",
            "Failed store calls, by store, operation and error code",
            store_errors.clone(),
        );
        registry.register(
            "lease_events",
            "Node lease events, for the service's own lease and the client leases it grants",
            leases.clone(),
        );
        registry.register(
            "clock_backwards",
            "Times the Snowflake generator found the clock behind its last issued tick",
            clock_backwards.clone(),
        );
        registry.register(
            "clock_wait_seconds",
            "Waiting for the clock asked by the Snowflake generator",
            clock_wait.clone(),
        );
        registry.register(
            "segment_buffered_values",
            "Values buffered per segment key (current range rest plus standby)",
            buffered.clone(),
        );
        registry.register(
            "client_leases",
            "Client node leases this instance granted or renewed that have not expired",
            client_leases.clone(),
        );
        registry.register("ready", "1 when /readyz answers 200", ready.clone());
        let connections_closed = Family::<ReasonLabels, Counter>::default();
        let batches_stopped = Family::<ReasonLabels, Counter>::default();
        let batches_running = Gauge::default();
        registry.register(
            "connections_closed",
            "Connections the service closed itself (a limit or a deadline), by reason",
            connections_closed.clone(),
        );
        registry.register(
            "batches_stopped",
            "ID batches stopped unfinished, their IDs discarded (deadline passed, request gone)",
            batches_stopped.clone(),
        );
        registry.register(
            "batches_running",
            "ID batches running on the blocking pool now (at most one per core)",
            batches_running.clone(),
        );
        Metrics {
            registry,
            ids,
            requests,
            store_calls,
            store_errors,
            leases,
            clock_backwards,
            clock_wait,
            buffered,
            client_leases,
            ready,
            rates: Rates::new(),
            connections_closed,
            batches_stopped,
            batches_running,
            seen: Mutex::new(LeaseStats::default()),
            key_series: RwLock::new(HashSet::new()),
            max_key_series,
        }
    }

    /// The label value of `key`'s series: the key itself for the first `max_key_series` keys
    /// given here (the service gives its pre-registered keys first, then keys in order of
    /// first use), [`OTHER_KEYS`] for the rest. A key named `other` always shares the
    /// overflow's series.
    pub fn key_label(&self, key: &str) -> LabelText {
        let own = |set: &HashSet<String>| set.contains(key);
        if key != OTHER_KEYS {
            if own(&self.key_series.read().unwrap_or_else(|p| p.into_inner())) {
                return LabelText(key.to_owned());
            }
            let mut set = self.key_series.write().unwrap_or_else(|p| p.into_inner());
            if own(&set) || set.len() < self.max_key_series {
                set.insert(key.to_owned());
                return LabelText(key.to_owned());
            }
        }
        LabelText(OTHER_KEYS.to_owned())
    }

    /// Counts one request that issued `n` IDs of `kind` for `key` (`""` for Snowflake IDs).
    pub fn issued(&self, kind: &'static str, key: &str, n: u64) {
        let key = if key.is_empty() {
            LabelText::default()
        } else {
            self.key_label(key)
        };
        self.ids.get_or_create(&IdLabels { kind, key }).inc_by(n);
        self.rates.record(n);
    }

    /// Records one store call's latency and, if it failed, its error.
    pub fn store_call<T>(
        &self,
        store: &'static str,
        op: &'static str,
        took: Duration,
        result: &idmint::Result<T>,
    ) {
        self.store_calls
            .get_or_create(&StoreLabels { store, op })
            .observe(took.as_secs_f64());
        if let Err(e) = result {
            self.store_errors
                .get_or_create(&StoreErrorLabels {
                    store,
                    op,
                    reason: e.code(),
                })
                .inc();
        }
    }

    /// Counts a lease event.
    pub fn lease_event(&self, holder: &'static str, event: &'static str) {
        self.leases
            .get_or_create(&LeaseLabels { holder, event })
            .inc();
    }

    /// Brings the counters kept by the service's leased generator up to `now`.
    pub fn observe_service_lease(&self, now: LeaseStats) {
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let d = |new: u64, old: u64| new.saturating_sub(old);
        let svc = |event, n| {
            if n > 0 {
                self.leases
                    .get_or_create(&LeaseLabels {
                        holder: "service",
                        event,
                    })
                    .inc_by(n);
            }
        };
        svc("renewed", d(now.renewals, seen.renewals));
        svc("renew_failed", d(now.renew_failures, seen.renew_failures));
        svc("lost", d(now.lost, seen.lost));
        svc("swapped", d(now.swaps, seen.swaps));
        svc("reacquired", d(now.reacquires, seen.reacquires));
        self.clock_backwards
            .inc_by(d(now.generator.rollbacks, seen.generator.rollbacks));
        let waited = d(now.generator.wait_ms, seen.generator.wait_ms);
        if waited > 0 {
            self.clock_wait.inc_by(waited as f64 / 1000.0);
        }
        *seen = now;
    }

    /// The registry in the Prometheus text format.
    pub fn encode(&self) -> String {
        let mut out = String::with_capacity(8 * 1024);
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_escaped_and_keys_beyond_the_cap_are_other() {
        let m = Metrics::new(2);
        m.issued("segment", "a\"b}\nc\\d", 1);
        m.issued("segment", "second", 2);
        m.issued("segment", "third", 3);
        m.issued("segment", "fourth", 4);
        m.issued("segment", "second", 5);
        let text = m.encode();
        assert!(
            text.contains(r#"idmint_ids_issued_total{kind="segment",key="a\"b}\nc\\d"} 1"#),
            "{text}"
        );
        assert!(text.contains(r#"key="second"} 7"#), "{text}");
        assert!(text.contains(r#"key="other"} 7"#), "{text}");
        assert!(!text.contains("third"), "{text}");
    }
}
