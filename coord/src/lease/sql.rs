//! What the PostgreSQL and MySQL lease stores share: the grant and verdict skeleton over a
//! small [`SqlDialect`] trait. Both keep a lease table (a row per node, with its fencing token,
//! owner and recorded bound) and a per-namespace epoch row; a dialect gives its SQL and value
//! conversions, this module the decisions: how an acquire retries, how a grant becomes a
//! [`Lease`], how records found lost are repaired ([`plan_repair`]), and what a renewal or
//! release that matched no row means ([`verdict`]).

use std::time::{Duration, Instant};

use idmint::{Error, Result};

use super::contract::{Lease, LeaseSpec};

/// How many times `acquire` tries again while free rows exist but are all locked for the
/// moment, or the records were just repaired.
const ACQUIRE_RETRIES: u64 = 60;

/// What one acquire asks for, as the SQL values both dialects bind.
pub(super) struct Ask<'a> {
    pub ns: &'a str,
    pub nodes: i64,
    /// The node the holder swaps away from, or -1.
    pub avoid: i64,
    pub holder: &'a str,
    pub ttl: Duration,
    pub now: i64,
    pub horizon: i64,
    pub owner: i64,
    /// The epoch to start if one is needed.
    pub fresh_epoch: i64,
}

/// What one acquire attempt came to.
pub(super) enum Step {
    Granted(Grant),
    /// Try again: rows are free but locked, the records changed between check and grant, or
    /// they were just repaired.
    Again,
    NoFree,
}

/// A granted row.
pub(super) struct Grant {
    pub node: i64,
    pub token: i64,
    pub bound: Option<i64>,
    pub epoch: i64,
    pub not_before: Option<i64>,
}

/// A renewal or a release, as a holder asks it.
#[derive(Clone, Copy)]
pub(super) enum HolderOp {
    /// Extend by `ttl` and raise the bound to `up_to`.
    Renew { ttl: Duration, up_to: i64 },
    /// Raise the bound to `last` and free the node.
    Release { last: i64 },
}

impl HolderOp {
    /// The operation's name in errors.
    pub fn name(self) -> &'static str {
        match self {
            HolderOp::Renew { .. } => "renew",
            HolderOp::Release { .. } => "release",
        }
    }
}

/// What a holder's statement found: whether it matched the lease's row, and if not, whether
/// the namespace's epoch was still the lease's.
pub(super) struct Matched {
    pub row: bool,
    pub epoch_ok: bool,
}

/// One SQL database's side of the lease store.
pub(super) trait SqlDialect: Send + Sync {
    /// The store's name in errors.
    const STORE: &'static str;
    /// The refusal of a node space larger than a signed 64-bit column holds.
    const TOO_MANY_NODES: &'static str;
    /// Longest holder name a row keeps.
    const HOLDER_MAX: usize;

    /// Whether the store runs in the new-row-per-boot mode.
    fn boot(&self) -> bool;
    /// How long an acquire keeps trying while free rows are locked (at least a second).
    fn call_timeout(&self) -> Duration;
    /// A node in new-row-per-boot mode.
    fn acquire_boot(&self, spec: &LeaseSpec) -> Result<Lease>;
    /// Marks a boot node stopped, with its last bound.
    fn release_boot(&self, lease: &Lease, last: i64) -> Result<()>;
    /// One acquire attempt: check the records, then grant or repair.
    fn attempt(&self, ask: &Ask<'_>) -> Result<Step>;
    /// A renewal or release: one statement that checks token, owner and epoch.
    fn holder(&self, lease: &Lease, op: HolderOp) -> Result<Matched>;
}

/// A value for a signed 64-bit column, saturating.
pub(super) fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Implements [`LeaseStore`](super::LeaseStore) for a dialect through this module's skeleton
/// (a blanket impl would collide with the one for `Box`).
macro_rules! sql_lease_store {
    ($store:ty) => {
        impl $crate::lease::LeaseStore for $store {
            fn kind(&self) -> &'static str {
                <$store as $crate::lease::sql::SqlDialect>::STORE
            }
            fn acquire(
                &self,
                spec: &$crate::lease::LeaseSpec,
                now_ms: u64,
                avoid: Option<u64>,
            ) -> idmint::Result<$crate::lease::Lease> {
                $crate::lease::sql::acquire(self, spec, now_ms, avoid)
            }
            fn renew(
                &self,
                lease: &$crate::lease::Lease,
                issued_up_to_ms: u64,
            ) -> idmint::Result<()> {
                $crate::lease::sql::renew(self, lease, issued_up_to_ms)
            }
            fn release(
                &self,
                lease: &$crate::lease::Lease,
                issued_up_to_ms: u64,
            ) -> idmint::Result<()> {
                $crate::lease::sql::release(self, lease, issued_up_to_ms)
            }
        }
    };
}
pub(super) use sql_lease_store;

/// [`LeaseStore::acquire`](super::LeaseStore::acquire) of a SQL store.
pub(super) fn acquire<D: SqlDialect>(
    this: &D,
    spec: &LeaseSpec,
    now_ms: u64,
    avoid: Option<u64>,
) -> Result<Lease> {
    spec.validate()?;
    if spec.nodes > i64::MAX as u64 {
        return Err(Error::InvalidConfig {
            reason: D::TOO_MANY_NODES,
        });
    }
    if this.boot() {
        return this.acquire_boot(spec);
    }
    let holder: String = spec.holder_clean().chars().take(D::HOLDER_MAX).collect();
    let owner = super::contract::random_nonzero()?;
    let ask = Ask {
        ns: spec.namespace.as_str(),
        nodes: to_i64(spec.nodes),
        avoid: avoid.map_or(-1, to_i64),
        holder: holder.as_str(),
        ttl: spec.ttl,
        now: to_i64(now_ms),
        horizon: to_i64(spec.horizon_ms()),
        owner: owner as i64,
        fresh_epoch: super::contract::random_nonzero()? as i64,
    };
    // `SKIP LOCKED` also skips a free row that another session has locked for a moment
    // (a release committing). So "no row" is only believed once no free row is visible at
    // all; otherwise try again, for about a second at most.
    let started = Instant::now();
    let mut tries = 0u64;
    let g = loop {
        match this.attempt(&ask)? {
            Step::Granted(g) => break g,
            Step::Again
                if tries < ACQUIRE_RETRIES
                    && started.elapsed() < this.call_timeout().max(Duration::from_secs(1)) =>
            {
                tries += 1;
                std::thread::sleep(Duration::from_millis(tries.min(20)));
            }
            Step::Again | Step::NoFree => return Err(Error::NoFreeNode { nodes: spec.nodes }),
        }
    };
    let not_before = g.not_before.map(|v| v.max(0) as u64);
    let fence = [g.bound.map(|b| b.max(0) as u64), not_before]
        .into_iter()
        .flatten()
        .max();
    Ok(Lease {
        namespace: spec.namespace.clone(),
        node: g.node as u64,
        token: g.token as u64,
        fence_ms: fence,
        ttl: spec.ttl,
        holder,
        owner,
        epoch: g.epoch as u64,
        not_before_ms: not_before,
    })
}

/// [`LeaseStore::renew`](super::LeaseStore::renew) of a SQL store.
pub(super) fn renew<D: SqlDialect>(this: &D, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
    if this.boot() {
        // A boot node is never granted again: nothing to extend or fence.
        return Ok(());
    }
    let op = HolderOp::Renew {
        ttl: lease.ttl,
        up_to: to_i64(issued_up_to_ms),
    };
    verdict(lease, this.holder(lease, op)?)
}

/// [`LeaseStore::release`](super::LeaseStore::release) of a SQL store.
pub(super) fn release<D: SqlDialect>(this: &D, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
    let last = to_i64(lease.final_bound(issued_up_to_ms));
    if this.boot() {
        return this.release_boot(lease, last);
    }
    verdict(lease, this.holder(lease, HolderOp::Release { last })?)
}

/// A holder's statement that matched no row lost its lease: to a new epoch (the records were
/// lost and repaired) or to a newer grant of the node.
fn verdict(lease: &Lease, m: Matched) -> Result<()> {
    if m.row {
        Ok(())
    } else if !m.epoch_ok {
        Err(Error::LeaseLost {
            node: lease.node,
            reason: "the store's records changed (a new epoch)",
        })
    } else {
        Err(Error::LeaseLost {
            node: lease.node,
            reason: "fencing token superseded",
        })
    }
}

/// What the check under the namespace's lock saw, in both dialects' terms.
pub(super) struct Seen {
    /// The store row is present and names these tables on this server.
    pub store_ok: bool,
    /// The namespace's records are whole (its epoch row present and consistent).
    pub ns_ok: bool,
    pub store_horizon: i64,
    pub store_not_before: Option<i64>,
    /// The namespace's epoch row: next node, horizon, lock delay.
    pub ns: Option<(i64, i64, Option<i64>)>,
    /// Lease rows of the namespace.
    pub rows: i64,
    /// One past the highest node a row exists for.
    pub after: i64,
    /// The longest horizon a row records.
    pub rows_horizon: i64,
}

/// What a repair writes.
pub(super) struct Repair {
    /// Start the store-wide lock delay: `(not_before, horizon)`.
    pub heal_store: Option<(i64, i64)>,
    pub ns: NsRepair,
}

/// What a repair does to the namespace.
pub(super) enum NsRepair {
    /// Repaired by another session meanwhile.
    Nothing,
    /// A new namespace: its epoch row, counting from 0.
    Create {
        horizon: i64,
        not_before: Option<i64>,
    },
    /// Records lost: a new epoch counting on from `next`, every grant under it fenced past the
    /// lock delay; the missing rows below `next` re-created and the rows recounted.
    NewEpoch {
        /// Whether the epoch row exists (it is updated) or not (it is inserted).
        exists: bool,
        next: i64,
        horizon: i64,
        not_before: Option<i64>,
    },
}

/// Decides a repair from what the check under the namespace's lock saw.
pub(super) fn plan_repair(a: &Ask<'_>, f: &Seen) -> Repair {
    let (ns_nb, ns_h) = f.ns.map_or((None, 0), |n| (n.2, n.1));
    let h = [a.horizon, f.store_horizon, ns_h, f.rows_horizon]
        .into_iter()
        .max()
        .unwrap_or(0);
    let delay = a.now.saturating_add(h);
    let mut store_nb = f.store_not_before;
    let mut heal_store = None;
    if !f.store_ok {
        // The store row is missing or names other tables or another server: every namespace's
        // records are suspect. Start the store-wide lock delay, which namespaces without any
        // record left get.
        heal_store = Some((delay, h));
        store_nb = Some(store_nb.unwrap_or(delay).max(delay));
    }
    let ns = if f.store_ok && f.ns_ok {
        NsRepair::Nothing
    } else if f.ns.is_none() && f.rows == 0 && f.store_ok {
        // A new namespace: nothing of it can be live, unless the store lost its records
        // lately and the namespace's went with them.
        NsRepair::Create {
            horizon: a.horizon,
            not_before: store_nb.filter(|&nb| nb > a.now),
        }
    } else {
        NsRepair::NewEpoch {
            exists: f.ns.is_some(),
            next: f.ns.map_or(0, |n| n.0).max(f.after),
            horizon: h,
            not_before: [Some(delay), ns_nb, store_nb].into_iter().flatten().max(),
        }
    };
    Repair { heal_store, ns }
}
