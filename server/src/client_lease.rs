//! Node leases for clients that cannot reach a lease store themselves (browsers, edge
//! workers): the service acquires, renews and releases on their behalf in its own lease store,
//! with the store's fencing, and tells the client the window it may mint in.
//!
//! The client may mint only IDs whose time is after `fence_ms` and at most `bound_ms`, and only
//! until its send time of the last successful grant or renewal plus the TTL (less a margin).
//! The bound is recorded in the store *before* the client hears of it, so the next holder of
//! the node is fenced past anything this client can mint — even if the client, the network or
//! this service dies.
//!
//! The lease itself travels as an opaque token holding everything a store checks (namespace,
//! node, fencing token, random owner, epoch, TTL, holder): any instance sharing the store can
//! renew it. The random owner makes a token hard to forge.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use idmint::{Error, Layout};
use idmint_coord::lease::{Lease, LeaseSpec, LeaseStore};

use crate::error::{ApiError, ApiResult};
use crate::metrics::Metrics;

/// Shortest and longest TTL a client may ask for, ms.
pub const TTL_RANGE_MS: (u64, u64) = (1_000, 300_000);
/// TTL when the client asks none, ms.
pub const DEFAULT_TTL_MS: u64 = 30_000;
/// How far ahead of the service's clock a client's clock is believed when it sets the bound.
pub const MAX_CLIENT_SKEW_MS: u64 = 60_000;

/// What a grant or renewal tells the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// No ID's time may exceed this (ms since the Unix epoch).
    pub bound_ms: u64,
    /// The lease's TTL.
    pub ttl_ms: u64,
    /// When to renew, ms after sending the request.
    pub renew_after_ms: u64,
    /// The service's clock when it answered.
    pub server_time_ms: u64,
}

/// A granted client lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The opaque token for renew and release.
    pub token: String,
    /// The lease.
    pub lease: Lease,
    /// The layout's canonical spec.
    pub layout: String,
    /// The window.
    pub window: Window,
}

/// A client lease this instance granted or renewed, for the monitor page and, on stores whose
/// leases do not expire by themselves, for releasing it when its client went silent.
#[derive(Debug, Clone)]
pub struct Tracked {
    /// The lease.
    pub lease: Lease,
    /// The last bound recorded for it.
    pub bound_ms: u64,
    /// When it expires unless renewed.
    pub expires: Instant,
}

/// The client-lease desk: the store, and the leases this instance tracks.
pub struct ClientLeases {
    store: Arc<dyn LeaseStore>,
    default_namespace: String,
    tracked: Mutex<HashMap<(String, u64), Tracked>>,
}

/// The wall clock, ms since the Unix epoch (0 before it).
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, duration_ms)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl ClientLeases {
    /// Leases from `store`; `namespace` is the default namespace (the service's own).
    pub fn new(store: Arc<dyn LeaseStore>, namespace: &str) -> ClientLeases {
        ClientLeases {
            store,
            default_namespace: namespace.to_owned(),
            tracked: Mutex::new(HashMap::new()),
        }
    }

    /// The store kind.
    pub fn store_kind(&self) -> &'static str {
        self.store.kind()
    }

    /// The bound to record: the client's clock (believed up to [`MAX_CLIENT_SKEW_MS`] ahead of
    /// ours, never behind it) plus one TTL, and never below what it says it issued.
    fn bound(now: u64, client_ms: Option<u64>, issued: Option<u64>, ttl_ms: u64) -> u64 {
        let base = client_ms
            .unwrap_or(now)
            .clamp(now, now.saturating_add(MAX_CLIENT_SKEW_MS));
        let bound = base.saturating_add(ttl_ms);
        bound.max(
            issued
                .unwrap_or(0)
                .min(bound.saturating_add(MAX_CLIENT_SKEW_MS)),
        )
    }

    fn window(bound_ms: u64, ttl_ms: u64) -> Window {
        Window {
            bound_ms,
            ttl_ms,
            renew_after_ms: ttl_ms / 3,
            server_time_ms: now_ms(),
        }
    }

    fn timed<T>(
        &self,
        metrics: &Metrics,
        op: &'static str,
        f: impl FnOnce(&dyn LeaseStore) -> idmint::Result<T>,
    ) -> idmint::Result<T> {
        let t = Instant::now();
        let r = f(&*self.store);
        metrics.store_call(self.store.kind(), op, t.elapsed(), &r);
        r
    }

    /// Grants a node of `layout`'s node space in `namespace` (blocking: store calls).
    pub fn grant(
        &self,
        metrics: &Metrics,
        namespace: Option<&str>,
        layout: &Layout,
        ttl_ms: Option<u64>,
        client_ms: Option<u64>,
        holder: &str,
    ) -> ApiResult<Grant> {
        let ttl_ms = ttl_ms
            .unwrap_or(DEFAULT_TTL_MS)
            .clamp(TTL_RANGE_MS.0, TTL_RANGE_MS.1);
        let ns = namespace.unwrap_or(&self.default_namespace);
        let spec =
            LeaseSpec::new(ns, layout.max_node() + 1, Duration::from_millis(ttl_ms)).holder(holder);
        spec.validate()?;
        let now = now_ms();
        let lease = self.timed(metrics, "lease_grant", |s| s.acquire(&spec, now, None))?;
        // Record the bound before the client may mint under it.
        let fence = lease.fence_ms.unwrap_or(0);
        let bound = Self::bound(now, client_ms, None, ttl_ms).max(fence.saturating_add(ttl_ms));
        if let Err(e) = self.timed(metrics, "lease_renew", |s| s.renew(&lease, bound)) {
            let _ = self.timed(metrics, "lease_release", |s| s.release(&lease, fence));
            return Err(e.into());
        }
        metrics.lease_event("client", "granted");
        self.track(&lease, bound);
        Ok(Grant {
            token: encode(&lease),
            layout: layout.to_string(),
            window: Self::window(bound, ttl_ms),
            lease,
        })
    }

    /// Renews a client's lease (blocking).
    pub fn renew(
        &self,
        metrics: &Metrics,
        token: &str,
        issued: Option<u64>,
        client_ms: Option<u64>,
    ) -> ApiResult<Window> {
        let lease = decode(token)?;
        let ttl_ms = duration_ms(lease.ttl);
        let bound = Self::bound(now_ms(), client_ms, issued, ttl_ms);
        match self.timed(metrics, "lease_renew", |s| s.renew(&lease, bound)) {
            Ok(()) => {
                metrics.lease_event("client", "renewed");
                self.track(&lease, bound);
                Ok(Self::window(bound, ttl_ms))
            }
            Err(e) => {
                if matches!(e, Error::LeaseLost { .. }) {
                    metrics.lease_event("client", "lost");
                    self.untrack(&lease);
                } else {
                    metrics.lease_event("client", "renew_failed");
                }
                Err(e.into())
            }
        }
    }

    /// Releases a client's lease, recording `issued` as the node's final bound (blocking).
    pub fn release(&self, metrics: &Metrics, token: &str, issued: u64) -> ApiResult<()> {
        let lease = decode(token)?;
        let r = self.timed(metrics, "lease_release", |s| s.release(&lease, issued));
        self.untrack(&lease);
        r?;
        metrics.lease_event("client", "released");
        Ok(())
    }

    fn track(&self, lease: &Lease, bound_ms: u64) {
        lock(&self.tracked).insert(
            (lease.namespace.clone(), lease.node),
            Tracked {
                lease: lease.clone(),
                bound_ms,
                expires: Instant::now() + lease.ttl,
            },
        );
    }

    fn untrack(&self, lease: &Lease) {
        let mut map = lock(&self.tracked);
        let key = (lease.namespace.clone(), lease.node);
        if map.get(&key).is_some_and(|t| t.lease.token == lease.token) {
            map.remove(&key);
        }
    }

    /// The leases tracked and not yet expired.
    pub fn live(&self) -> Vec<Tracked> {
        let now = Instant::now();
        let mut v: Vec<Tracked> = lock(&self.tracked)
            .values()
            .filter(|t| t.expires > now)
            .cloned()
            .collect();
        v.sort_by(|a, b| {
            (&a.lease.namespace, a.lease.node).cmp(&(&b.lease.namespace, b.lease.node))
        });
        v
    }

    /// How many live leases each namespace holds, by namespace (the monitor page shows them
    /// against the namespace's quota).
    pub fn per_namespace(&self) -> Vec<(String, usize)> {
        let now = Instant::now();
        let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
        for t in lock(&self.tracked).values().filter(|t| t.expires > now) {
            *counts.entry(t.lease.namespace.clone()).or_default() += 1;
        }
        counts.into_iter().collect()
    }

    /// Releases, with their last recorded bound, the expired leases of a store whose leases
    /// never expire by themselves (the file store: this process holds the locks), so a client
    /// that went away does not keep its node forever. Stores with their own expiry are left to
    /// it: another instance may be renewing the lease now (blocking).
    pub fn reap(&self, metrics: &Metrics) {
        let now = Instant::now();
        let expired: Vec<Tracked> = {
            let mut map = lock(&self.tracked);
            let keys: Vec<_> = map
                .iter()
                .filter(|(_, t)| t.expires <= now)
                .map(|(k, _)| k.clone())
                .collect();
            keys.into_iter().filter_map(|k| map.remove(&k)).collect()
        };
        if self.store.kind() != "file" {
            return;
        }
        for t in expired {
            if self
                .timed(metrics, "lease_release", |s| {
                    s.release(&t.lease, t.bound_ms)
                })
                .is_ok()
            {
                metrics.lease_event("client", "expired");
            }
        }
    }
}

fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

const TOKEN_VERSION: &str = "l2";

/// The lease as a token: `l2~NAMESPACE~NODE~TOKEN~OWNER~EPOCH~TTL_MS~FENCE_MS~HOLDER` (owner
/// and epoch in hex, fence `-` for none, holder hex-encoded); namespaces never hold `~`. The
/// fence travels with it because a release never records less than the fence the lease was
/// granted with: a client that issued nothing must not lower its node's record below what
/// the previous holder issued.
pub fn encode(l: &Lease) -> String {
    let holder: String = l.holder.bytes().map(|b| format!("{b:02x}")).collect();
    let fence = l.fence_ms.map_or_else(|| "-".to_owned(), |f| f.to_string());
    format!(
        "{TOKEN_VERSION}~{}~{}~{}~{:x}~{:x}~{}~{fence}~{holder}",
        l.namespace,
        l.node,
        l.token,
        l.owner,
        l.epoch,
        duration_ms(l.ttl)
    )
}

/// Reads a token made by [`encode`].
pub fn decode(text: &str) -> ApiResult<Lease> {
    let bad = || ApiError::bad_arg("`lease` is not a lease token this service issued");
    let parts: Vec<&str> = text.split('~').collect();
    let [v, ns, node, token, owner, epoch, ttl, fence, holder] = parts[..] else {
        return Err(bad());
    };
    let fence_ms = match fence {
        "-" => None,
        f => Some(f.parse().map_err(|_| bad())?),
    };
    if v != TOKEN_VERSION || holder.len() % 2 != 0 || holder.len() > 512 {
        return Err(bad());
    }
    idmint_coord::lease::LeaseSpec::new(ns, 1, Duration::from_secs(1))
        .validate()
        .map_err(|_| bad())?;
    let holder: Option<Vec<u8>> = (0..holder.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(holder.get(i..i + 2)?, 16).ok())
        .collect();
    let holder = String::from_utf8(holder.ok_or_else(bad)?).map_err(|_| bad())?;
    let ttl: u64 = ttl.parse().map_err(|_| bad())?;
    Ok(Lease {
        namespace: ns.to_owned(),
        node: node.parse().map_err(|_| bad())?,
        token: token.parse().map_err(|_| bad())?,
        owner: u64::from_str_radix(owner, 16).map_err(|_| bad())?,
        epoch: u64::from_str_radix(epoch, 16).map_err(|_| bad())?,
        ttl: Duration::from_millis(ttl),
        holder,
        fence_ms,
        not_before_ms: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_garbage_is_refused() {
        let l = Lease {
            namespace: "web.app-1".into(),
            node: 17,
            token: 99,
            owner: u64::MAX,
            epoch: 0xabc,
            ttl: Duration::from_millis(30_000),
            holder: "web:127.0.0.1:ß".into(),
            fence_ms: Some(1_700_000_000_000),
            not_before_ms: None,
        };
        assert_eq!(decode(&encode(&l)).unwrap(), l);
        let unfenced = Lease {
            fence_ms: None,
            ..l.clone()
        };
        assert_eq!(decode(&encode(&unfenced)).unwrap(), unfenced);
        for bad in [
            "",
            "l2",
            "l1~a~1~1~1~1~1~-~",
            "l2~bad ns~1~1~1~1~1~-~",
            "l2~a~x~1~1~1~1~-~",
            "l2~a~1~1~1~1~1~x~",
            "l2~a~1~1~1~1~1~-~abc",
            "l2~a~1~1~1~1~1~-~zz",
            "l2~a~1~1~1~1~1~-~~",
        ] {
            assert_eq!(
                decode(bad).unwrap_err().code,
                "ERR_INVALID_ARG_VALUE",
                "{bad}"
            );
        }
    }

    #[test]
    fn the_bound_covers_the_clients_clock_within_the_skew() {
        let now = 1_000_000;
        assert_eq!(ClientLeases::bound(now, None, None, 100), now + 100);
        // A client behind us is fenced by our clock; one ahead, by its own, up to the skew.
        assert_eq!(ClientLeases::bound(now, Some(5), None, 100), now + 100);
        assert_eq!(
            ClientLeases::bound(now, Some(now + 50), None, 100),
            now + 150
        );
        assert_eq!(
            ClientLeases::bound(now, Some(u64::MAX), None, 100),
            now + MAX_CLIENT_SKEW_MS + 100
        );
        // What it already issued is covered.
        assert_eq!(
            ClientLeases::bound(now, None, Some(now + 500), 100),
            now + 500
        );
    }
}
