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
//! The lease travels as a token the service signs ([`crate::lease_token`]): everything the
//! service later takes as truth — node, fencing token, owner, TTL, fence, who took it — comes
//! from what the service itself wrote, never from text a client could edit. Any instance that
//! shares the store and the lease key can renew it.
//!
//! What a client says is checked against that record:
//! - the TTL is kept within [`TTL_RANGE_MS`] on every renewal, not only at the grant;
//! - `issued_up_to_ms` (renew and release) is capped at the last bound the service recorded
//!   for the lease, or — for a lease another instance renewed last — at the latest bound any
//!   instance can have recorded (now + [`MAX_CLIENT_SKEW_MS`] + TTL): a client cannot push its
//!   node's fence into the future, and since stores never lower a node's record, it cannot
//!   pull it back either;
//! - namespaces and layouts come from the service's allowlists ([`ClientPolicy`]), never the
//!   service's own node space;
//! - each peer address and each bearer token holds at most its quota of leases.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use idmint::{Error, Layout, LeaseWindow};
use idmint_coord::lease::{Lease, LeaseSpec, LeaseStore};

use crate::clock::now_ms;
use crate::error::{ApiError, ApiResult};
use crate::lease_token::{Grantee, TokenKey};
use crate::metrics::Metrics;

/// Shortest and longest TTL a client may ask for, ms (the core's rule, which clients know too).
pub const TTL_RANGE_MS: (u64, u64) = LeaseWindow::TTL_RANGE_MS;
/// How far ahead of the service's clock a client's clock is believed when it sets the bound.
pub const MAX_CLIENT_SKEW_MS: u64 = 60_000;

/// What clients may lease, and how much of it.
#[derive(Debug, Clone)]
pub struct ClientPolicy {
    /// Namespaces open to clients; the first is where a request naming none goes. Never the
    /// service's own namespace.
    pub namespaces: Vec<String>,
    /// Layouts clients may lease nodes of; the first is the default.
    pub layouts: Vec<Layout>,
    /// Most leases one peer address holds at once (0: no limit).
    pub per_address: usize,
    /// Most leases one bearer token holds at once (0: no limit).
    pub per_token: usize,
}

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
    /// The signed token for renew and release.
    pub token: String,
    /// The lease.
    pub lease: Lease,
    /// The layout's canonical spec.
    pub layout: String,
    /// The window.
    pub window: Window,
}

/// A client lease this instance granted or renewed: for the quotas, the monitor page and, on
/// stores whose leases do not expire by themselves, for releasing it when its client went
/// silent.
#[derive(Debug, Clone)]
pub struct Tracked {
    /// The lease.
    pub lease: Lease,
    /// Who took it.
    pub grantee: Grantee,
    /// The last bound recorded for it.
    pub bound_ms: u64,
    /// When it expires unless renewed.
    pub expires: Instant,
}

#[derive(Default)]
struct Book {
    tracked: HashMap<(String, u64), Tracked>,
    /// Leases released or expired whose recorded bound is still ahead: who took them, and
    /// until when (wall ms) their node stays fenced.
    fenced: Vec<(Grantee, u64)>,
    /// Grants under way (quota already counted, store not yet answered).
    pending: Vec<Grantee>,
}

/// The client-lease desk: the store, the signing key, the policy, and the leases this
/// instance tracks.
pub struct ClientLeases {
    store: Arc<dyn LeaseStore>,
    key: TokenKey,
    policy: ClientPolicy,
    book: Mutex<Book>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn clamp_ttl(ms: u64) -> u64 {
    LeaseWindow::granted_ttl_ms(Some(ms))
}

impl ClientLeases {
    /// Leases from `store`, tokens signed with `key`, within `policy`.
    pub fn new(store: Arc<dyn LeaseStore>, key: TokenKey, policy: ClientPolicy) -> ClientLeases {
        ClientLeases {
            store,
            key,
            policy,
            book: Mutex::new(Book::default()),
        }
    }

    /// The store kind.
    pub fn store_kind(&self) -> &'static str {
        self.store.kind()
    }

    /// The policy in force.
    pub fn policy(&self) -> &ClientPolicy {
        &self.policy
    }

    /// The bound to record: the client's clock (believed up to [`MAX_CLIENT_SKEW_MS`] ahead of
    /// ours, never behind it) plus one TTL, and never below what it says it issued (which the
    /// caller has capped).
    fn bound(now: u64, client_ms: Option<u64>, issued: Option<u64>, ttl_ms: u64) -> u64 {
        let base = client_ms
            .unwrap_or(now)
            .clamp(now, now.saturating_add(MAX_CLIENT_SKEW_MS));
        base.saturating_add(ttl_ms).max(issued.unwrap_or(0))
    }

    /// The most a client may claim to have issued under `lease`: the last bound recorded for
    /// it here, or, when another instance renewed it last, the latest bound any instance can
    /// have recorded by now.
    fn issued_cap(&self, lease: &Lease, now: u64, ttl_ms: u64) -> u64 {
        let latest = now
            .saturating_add(MAX_CLIENT_SKEW_MS)
            .saturating_add(ttl_ms);
        let book = lock(&self.book);
        match book.tracked.get(&(lease.namespace.clone(), lease.node)) {
            Some(t) if t.lease.token == lease.token && t.lease.owner == lease.owner => {
                t.bound_ms.min(latest)
            }
            _ => latest,
        }
    }

    fn window(bound_ms: u64, ttl_ms: u64) -> Window {
        Window {
            bound_ms,
            ttl_ms,
            renew_after_ms: LeaseWindow::third_of_ttl_ms(ttl_ms),
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

    /// The namespace a request names (or the default), if clients may lease there.
    fn namespace<'a>(&'a self, asked: Option<&'a str>) -> ApiResult<&'a str> {
        match asked {
            None => Ok(&self.policy.namespaces[0]),
            Some(ns) if self.policy.namespaces.iter().any(|n| n == ns) => Ok(ns),
            Some(_) => Err(ApiError::bad_arg(format!(
                "that namespace is not open to clients (open: {})",
                self.policy.namespaces.join(", ")
            ))),
        }
    }

    /// The layout a request names (or the default), if clients may lease nodes of it.
    pub fn layout(&self, asked: Option<&str>) -> ApiResult<Layout> {
        let Some(text) = asked else {
            return Ok(self.policy.layouts[0]);
        };
        let layout = Layout::parse(text)?;
        if self.policy.layouts.contains(&layout) {
            Ok(layout)
        } else {
            let open: Vec<String> = self
                .policy
                .layouts
                .iter()
                .map(ToString::to_string)
                .collect();
            Err(ApiError::bad_arg(format!(
                "that layout is not open to clients (open: {})",
                open.join(", ")
            )))
        }
    }

    /// Counts `who` against the quotas and holds its place until [`Self::settle`].
    ///
    /// A lease counts until its node is usable again: while it lives, and after its release or
    /// expiry until the bound recorded for it passes — a lease released with its bound far
    /// ahead (a claimed clock in the future, a long TTL) keeps its node fenced, so it keeps its
    /// place in the quota. One client can thus fence at most its quota of nodes at any time.
    fn reserve(&self, who: &Grantee) -> ApiResult<()> {
        let mut book = lock(&self.book);
        let (now, wall) = (Instant::now(), now_ms());
        book.fenced.retain(|(_, until)| *until > wall);
        // Each of `who`'s charges, as the wall time it ends.
        let mut mine_peer = Vec::new();
        let mut mine_token = Vec::new();
        let charges = book
            .tracked
            .values()
            .map(|t| {
                let expires =
                    wall.saturating_add(duration_ms(t.expires.saturating_duration_since(now)));
                (&t.grantee, expires.max(t.bound_ms))
            })
            .filter(|(_, until)| *until > wall)
            .chain(book.fenced.iter().map(|(g, until)| (g, *until)))
            .chain(book.pending.iter().map(|g| (g, u64::MAX)));
        for (g, until) in charges {
            if g.peer == who.peer {
                mine_peer.push(until);
            }
            if who.token.is_some() && g.token == who.token {
                mine_token.push(until);
            }
        }
        let over = |held: &[u64], quota: usize| quota != 0 && held.len() >= quota;
        let refused = if over(&mine_token, self.policy.per_token) {
            Some(("bearer token", self.policy.per_token, mine_token))
        } else if over(&mine_peer, self.policy.per_address) {
            Some(("address", self.policy.per_address, mine_peer))
        } else {
            None
        };
        if let Some((what, quota, charges)) = refused {
            let soonest = charges
                .into_iter()
                .min()
                .unwrap_or(wall)
                .saturating_sub(wall);
            let mut e = ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "ERR_LIMIT_EXCEEDED",
                format!(
                    "this {what} already holds {quota} client leases, its quota (a lease counts until its node's recorded bound passes): release one or wait"
                ),
            );
            e.retry_after = Some(u32::try_from(soonest.div_ceil(1_000).max(1)).unwrap_or(u32::MAX));
            return Err(e);
        }
        book.pending.push(who.clone());
        Ok(())
    }

    /// Ends a reservation made by [`Self::reserve`].
    fn settle(&self, who: &Grantee) {
        let mut book = lock(&self.book);
        if let Some(i) = book.pending.iter().position(|p| p == who) {
            book.pending.swap_remove(i);
        }
    }

    /// Grants a node of `layout`'s node space in `namespace` to `who` (blocking: store
    /// calls).
    pub fn grant(
        &self,
        metrics: &Metrics,
        who: &Grantee,
        namespace: Option<&str>,
        layout: &Layout,
        ttl_ms: Option<u64>,
        client_ms: Option<u64>,
    ) -> ApiResult<Grant> {
        let ns = self.namespace(namespace)?;
        let ttl_ms = LeaseWindow::granted_ttl_ms(ttl_ms);
        let spec = LeaseSpec::new(ns, layout.max_node() + 1, Duration::from_millis(ttl_ms))
            .holder(&holder());
        spec.validate()?;
        if let Err(e) = self.reserve(who) {
            metrics.lease_event("client", "over_quota");
            return Err(e);
        }
        let granted = self.grant_reserved(metrics, who, &spec, layout, ttl_ms, client_ms);
        self.settle(who);
        granted
    }

    fn grant_reserved(
        &self,
        metrics: &Metrics,
        who: &Grantee,
        spec: &LeaseSpec,
        layout: &Layout,
        ttl_ms: u64,
        client_ms: Option<u64>,
    ) -> ApiResult<Grant> {
        let now = now_ms();
        let mut lease = match self.timed(metrics, "lease_grant", |s| s.acquire(spec, now, None)) {
            Ok(l) => l,
            // Every node is held: a passing state, to retry when a lease ends.
            Err(e @ Error::NoFreeNode { .. }) => {
                let mut err = ApiError::unavailable(e.code(), e.to_string());
                err.retry_after = Some(u32::try_from(ttl_ms.div_ceil(3_000)).unwrap_or(1));
                return Err(err);
            }
            Err(e) => return Err(e.into()),
        };
        // A node fenced further ahead than the lease would live (its last holder recorded a
        // bound far ahead: a long TTL, a clock claimed in the future) is no use to this client
        // for a while: give it back and say when one is ready, rather than have the client
        // wait out someone else's bound. Nodes fenced less are granted; the client waits.
        let fence = lease.fence_ms.unwrap_or(0);
        let ahead = fence.saturating_sub(now);
        // While the store's own lock delay is in force (it found its records lost) every node
        // is fenced alike: that the client waits out, as every holder does.
        let delay_in_force = lease.not_before_ms.is_some_and(|nb| nb > now);
        let lock_delay = lease.not_before_ms.is_some_and(|nb| fence <= nb);
        if ahead > ttl_ms && !delay_in_force {
            let _ = self.timed(metrics, "lease_release", |s| s.release(&lease, fence));
            metrics.lease_event("client", "fenced");
            let mut err = ApiError::unavailable(
                "ERR_NO_FREE_NODE",
                format!(
                    "no free node of namespace {} is ready: the soonest is fenced until {fence} ms since the Unix epoch ({} s from now) by the bound its last holder recorded; retry then",
                    spec.namespace,
                    ahead.div_ceil(1_000)
                ),
            );
            err.retry_after =
                Some(u32::try_from((ahead - ttl_ms).div_ceil(1_000).max(1)).unwrap_or(u32::MAX));
            return Err(err);
        }
        // What the store granted, within our range (etcd may grant whole seconds more).
        lease.ttl = Duration::from_millis(clamp_ttl(duration_ms(lease.ttl)).max(ttl_ms));
        let ttl_ms = duration_ms(lease.ttl);
        // Record the bound before the client may mint under it.
        // After the fence (at most a TTL ahead, see above), and no further: a bound of fence +
        // TTL would push each next holder's fence one TTL further ahead of the clock. Past a
        // lock delay, a whole TTL's window.
        let after_fence = if lock_delay { ttl_ms } else { 1 };
        let bound =
            Self::bound(now, client_ms, None, ttl_ms).max(fence.saturating_add(after_fence));
        if let Err(e) = self.timed(metrics, "lease_renew", |s| s.renew(&lease, bound)) {
            let _ = self.timed(metrics, "lease_release", |s| s.release(&lease, fence));
            return Err(e.into());
        }
        metrics.lease_event("client", "granted");
        self.track(&lease, who, bound);
        Ok(Grant {
            token: self.key.sign(&lease, who),
            layout: layout.to_string(),
            window: Self::window(bound, ttl_ms),
            lease,
        })
    }

    /// The lease a token names, with its TTL brought within [`TTL_RANGE_MS`].
    fn open_token(&self, token: &str) -> ApiResult<(Lease, Grantee, u64)> {
        let (mut lease, who) = self.key.verify(token)?;
        let ttl_ms = clamp_ttl(duration_ms(lease.ttl));
        lease.ttl = Duration::from_millis(ttl_ms);
        Ok((lease, who, ttl_ms))
    }

    /// Renews a client's lease (blocking).
    pub fn renew(
        &self,
        metrics: &Metrics,
        token: &str,
        issued: Option<u64>,
        client_ms: Option<u64>,
    ) -> ApiResult<Window> {
        let (lease, who, ttl_ms) = self.open_token(token)?;
        let now = now_ms();
        let cap = self.issued_cap(&lease, now, ttl_ms);
        // Always after the fence: a node fenced ahead of the clock keeps a window after it.
        let bound = Self::bound(now, client_ms, issued.map(|i| i.min(cap)), ttl_ms)
            .max(lease.fence_ms.unwrap_or(0).saturating_add(1));
        match self.timed(metrics, "lease_renew", |s| s.renew(&lease, bound)) {
            Ok(()) => {
                metrics.lease_event("client", "renewed");
                self.track(&lease, &who, bound);
                Ok(Self::window(bound, ttl_ms))
            }
            Err(e) => {
                if matches!(e, Error::LeaseLost { .. }) {
                    metrics.lease_event("client", "lost");
                    self.untrack(&lease, None);
                } else {
                    metrics.lease_event("client", "renew_failed");
                }
                Err(e.into())
            }
        }
    }

    /// Releases a client's lease, recording what it says it issued — capped as for a renewal,
    /// and never below the fence it was granted with — as the node's final bound (the store
    /// keeps the higher of that and its record) (blocking).
    pub fn release(&self, metrics: &Metrics, token: &str, issued: u64) -> ApiResult<()> {
        let (lease, _, ttl_ms) = self.open_token(token)?;
        let cap = self.issued_cap(&lease, now_ms(), ttl_ms);
        let last = issued.min(cap).max(lease.fence_ms.unwrap_or(0));
        let r = self.timed(metrics, "lease_release", |s| s.release(&lease, last));
        self.untrack(&lease, Some(last));
        r?;
        metrics.lease_event("client", "released");
        Ok(())
    }

    fn track(&self, lease: &Lease, who: &Grantee, bound_ms: u64) {
        let mut book = lock(&self.book);
        let replaced = book.tracked.insert(
            (lease.namespace.clone(), lease.node),
            Tracked {
                lease: lease.clone(),
                grantee: who.clone(),
                bound_ms,
                expires: Instant::now() + lease.ttl,
            },
        );
        // An earlier lease of the node (it expired here unseen): its charge stays.
        if let Some(old) =
            replaced.filter(|t| t.lease.token != lease.token || t.lease.owner != lease.owner)
        {
            book.fenced.push((old.grantee, old.bound_ms));
        }
    }

    /// Stops tracking `lease` (released, with `released_at` recorded, or lost); its grantee's
    /// charge stays until the node's recorded bound passes.
    fn untrack(&self, lease: &Lease, released_at: Option<u64>) {
        let mut book = lock(&self.book);
        let key = (lease.namespace.clone(), lease.node);
        if book
            .tracked
            .get(&key)
            .is_some_and(|t| t.lease.token == lease.token && t.lease.owner == lease.owner)
        {
            if let Some(t) = book.tracked.remove(&key) {
                let until = t.bound_ms.max(released_at.unwrap_or(0));
                book.fenced.push((t.grantee, until));
            }
        }
    }

    /// The leases tracked and not yet expired.
    pub fn live(&self) -> Vec<Tracked> {
        let now = Instant::now();
        let mut v: Vec<Tracked> = lock(&self.book)
            .tracked
            .values()
            .filter(|t| t.expires > now)
            .cloned()
            .collect();
        v.sort_by(|a, b| {
            (&a.lease.namespace, a.lease.node).cmp(&(&b.lease.namespace, b.lease.node))
        });
        v
    }

    /// For each namespace open to clients: the live leases tracked here, and the size of the
    /// largest node space a client may lease in it.
    pub fn per_namespace(&self) -> Vec<(String, usize, u64)> {
        let live = self.live();
        let nodes = self
            .policy
            .layouts
            .iter()
            .map(|l| l.max_node().saturating_add(1))
            .max()
            .unwrap_or(0);
        self.policy
            .namespaces
            .iter()
            .map(|ns| {
                let held = live.iter().filter(|t| &t.lease.namespace == ns).count();
                (ns.clone(), held, nodes)
            })
            .collect()
    }

    /// Releases, with their last recorded bound, the expired leases of a store whose leases
    /// never expire by themselves (the file store: this process holds the locks), so a client
    /// that went away does not keep its node forever. Stores with their own expiry are left to
    /// it: another instance may be renewing the lease now (blocking).
    pub fn reap(&self, metrics: &Metrics) {
        let now = Instant::now();
        let expired: Vec<Tracked> = {
            let mut book = lock(&self.book);
            let keys: Vec<_> = book
                .tracked
                .iter()
                .filter(|(_, t)| t.expires <= now)
                .map(|(k, _)| k.clone())
                .collect();
            let expired: Vec<Tracked> = keys
                .into_iter()
                .filter_map(|k| book.tracked.remove(&k))
                .collect();
            for t in &expired {
                book.fenced.push((t.grantee.clone(), t.bound_ms));
            }
            expired
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

/// A holder name for the store's records: random per grant.
fn holder() -> String {
    format!(
        "client-{:016x}",
        idmint::os_random_u64().unwrap_or_else(|_| u64::from(std::process::id()))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // What it already issued (capped by the caller) is covered.
        assert_eq!(
            ClientLeases::bound(now, None, Some(now + 500), 100),
            now + 500
        );
    }
}
