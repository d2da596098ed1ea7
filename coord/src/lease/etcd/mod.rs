//! Node leases on etcd (v3 API, through its JSON gateway: etcd 3.4 or later): a node is held
//! by a key attached to an etcd lease, granted by a transaction that only succeeds while nobody
//! holds the node, and fenced like the other network stores.
//!
//! # Why the JSON gateway
//!
//! Every etcd since 3.4 serves its v3 API as JSON on its client port (`POST /v3/kv/txn`,
//! `/v3/lease/grant`, ...: grpc-gateway in front of the same gRPC services, with the same
//! linearizable transactions and leases). The store speaks it over HTTP/1.1 with the ureq
//! client coord already has for the idmint service, with the workspace's rustls (*ring*) for
//! `etcds://`. A gRPC client would need `protoc` to build (etcd's `.proto` files are compiled
//! at build time) and would bring tonic, prost, hyper, h2 and tower into every artifact — the
//! CLI, the Python wheel, the npm addon and the C library — for this one store. The gateway
//! needs neither; what it costs is a JSON encoding per request, far below a network round
//! trip, and HTTP/1.1 connections (one per request in flight) instead of one multiplexed
//! HTTP/2 connection per member.
//!
//! The code: `gateway.rs` (members, failover, deadlines, errors), `json.rs` (the requests and
//! answers, base64 keys and values), `target.rs` (the URL, TLS) and `records.rs` (keys,
//! records, the queue); this file grants, renews and releases.
//!
//! # URL
//!
//! `etcd://HOST:PORT[,HOST:PORT...]/PREFIX[?timeout_ms=N]`, or `etcds://...` for TLS
//! (`ca_file=PATH` trusts the CA certificates of that PEM file; without it, the system's).
//! Every key of the store lives under `/PREFIX` (default `/idmint`). A port left out is 2379.
//! User names and client certificates are not supported.
//!
//! # Keys
//!
//! For namespace `NS`, node `N` written as 20 digits (so keys sort by node):
//!
//! | key | content |
//! |---|---|
//! | `/PREFIX/epoch/NS` | the namespace's epoch: a random number, replaced when the records may be lost |
//! | `/PREFIX/info/NS` | `v1 CLUSTER HORIZON FENCE LOST_AT`: the cluster id the epoch was started on, the longest horizon asked for (ms), the lock delay (holders' ms) and when the epoch started |
//! | `/PREFIX/lease/NS/N` | `EPOCH OWNER HOLDER` while node N is held; attached to the etcd lease whose id is the [`Lease::owner`] |
//! | `/PREFIX/node/NS/N` | the node's last-issued bound (20 digits, empty for none); persistent |
//!
//! # How it keeps the promises
//!
//! - **One holder per node.** A grant is a transaction that creates `lease/NS/N` only if it does
//!   not exist (`create_revision == 0`), in the same step checks that the epoch and the node's
//!   record are those the acquirer read, and attaches the key to a fresh etcd lease. Two
//!   acquirers cannot both win; the loser reads again and takes another node.
//! - **Fencing token.** The token is the create revision of `lease/NS/N`: etcd's revision
//!   counter, so a later grant of a node always has a larger token.
//! - **Holder check.** Renew and release run a transaction that compares the node key's create
//!   revision (token), its etcd lease (owner), its value and the namespace's epoch. Renew raises
//!   the node's bound (a value comparison on the zero-padded bound: it never lowers it) and
//!   keeps the etcd lease alive; release raises it to the final bound the same way (never
//!   lowering it), deletes the node key and revokes the etcd lease.
//! - **Queue order.** Never-used nodes come first: those above the highest node with a record.
//!   Then the node records sorted by their last modification (a grant, a renewal that raised the
//!   bound, a release): the front of that order is the node released, or last renewed before it
//!   expired, longest ago. In a page of [`PAGE`] records (more while held nodes crowd the page)
//!   the first free node whose bound is not ahead of the acquirer's clock wins, else the one
//!   with the nearest bound. An acquirer that lost the race for a node tries again from the
//!   losing transaction's answer, and may take one of the next few candidates instead, so that
//!   racing acquirers spread out (never-used nodes it passes over get a record and join the
//!   queue). An acquire reads the keys of the nodes in use and such a page, so its work grows
//!   with the nodes in use and ever used, never with the size of the node space (a 32-bit node
//!   field is fine).
//!
//! # TTL: whole seconds
//!
//! etcd leases have a TTL of whole seconds, and no less than the cluster's minimum (one and a
//! half election timeouts, rounded up: 2 s with etcd's defaults). The store asks for the spec's
//! TTL rounded up to whole seconds and reports the TTL etcd granted — which may be longer — as
//! [`Lease::ttl`], the *effective* TTL. A holder that computes its deadline from the spec's
//! shorter TTL stops early, which is safe; whatever derives a window from the lease itself (the
//! idmint service's client leases) uses the effective TTL, exactly etcd's. The lock delay below
//! adds what the rounding added to the horizon, so it is never computed from a TTL shorter
//! than etcd's. A lease kept alive lives at least the TTL from when the leader received the
//! keep-alive; a new leader extends every lease, never shortens it. An etcd lease that expired
//! cannot be revived: its keys are deleted and a keep-alive then fails.
//!
//! # When the records may be lost
//!
//! The same defence as the Redis and PostgreSQL stores: a random **epoch** per namespace that
//! every renewal and release compares, and a **lock delay** — every grant under a new epoch is
//! fenced past the acquirer's now + the longest horizon ([`LeaseSpec::horizon`], the largest
//! ever asked for in the namespace), returned as [`Lease::not_before_ms`] and folded into
//! [`Lease::fence_ms`]. A new epoch starts when:
//!
//! - the epoch or info key is missing: the prefix (or the whole key space) was deleted, or the
//!   namespace is new — the two cannot be told apart, so a namespace's first grant pays the lock
//!   delay too, once;
//! - the info key names another cluster id than the one answering: the data was restored into
//!   a cluster with other members;
//! - this store object saw the cluster's revision go back (a restore from an older snapshot
//!   that it lived through): every info key written at or before the lower revision is then
//!   suspect, and the renewals of leases under such an epoch fail too.
//!
//! Deleting the prefix does not revoke the etcd leases of live holders, so their keep-alives
//! still succeed; their renewal transaction finds the node key or the epoch gone and they stop.
//!
//! **Not detected**: a restore from a snapshot by a client that never saw the later revisions
//! (a process started after the restore), or with `etcdutl snapshot restore --bump-revision`,
//! into a cluster with the same member names, peer URLs and cluster token (same cluster id);
//! keys edited by hand. After restoring etcd from a snapshot, delete `/PREFIX/epoch/` (every
//! namespace then starts a new epoch with the lock delay). Holders' clocks must agree to well
//! within the horizon, as for the other stores.
//!
//! # Calls and deadlines
//!
//! The store is blocking (no async runtime): each [`LeaseStore`] call — all its HTTP requests,
//! on whichever members — ends within `timeout_ms` (default
//! [`DEFAULT_STORE_TIMEOUT`](super::DEFAULT_STORE_TIMEOUT)), also against members stopped with
//! SIGSTOP: each request gets what is left of the call's deadline as its own (half of it while
//! other members are left to try). Requests go to one member at a time, the last one that
//! answered, and ask for a member with a leader (gRPC metadata `hasleader`, which the gateway
//! passes on). A member that refuses the connection, has no leader or does not answer in time
//! is left for the next one;
//! requests that may be repeated (reads, renewals, keep-alives) are tried again there within
//! the same deadline, and a grant or release whose outcome is unknown fails the call (an
//! unknown grant expires after its TTL: nobody keeps it alive).
//!
//! # What to configure on etcd
//!
//! Every grant and renewal writes a revision. etcd keeps old revisions until they are compacted:
//! run it with `--auto-compaction-retention` (for example `--auto-compaction-mode=periodic
//! --auto-compaction-retention=1h`), or its database grows until the space quota stops all
//! writes. Keep the default durable WAL (no `--unsafe-no-fsync`): the store relies on what etcd
//! acknowledged being kept by a quorum.

use std::time::Duration;

use idmint::{Error, Result};

use super::contract::{Lease, LeaseSpec, LeaseStore};

mod gateway;
mod json;
mod records;
mod target;

use gateway::{unavailable, Call, Gateway, Repeat, STORE, TIMED_OUT};
use json::{Compare, CompareOp, Op, Txn, TxnResponse};
use records::{
    bound_text, choose, corrupt, lease_id, lease_value, lost, mix, parse_snapshot, read_ops,
    read_txn, ttl_secs, Info, Keys, Pick, Snapshot, SPREAD,
};

/// How many node records one acquire reads from the front of the queue (more while held nodes
/// crowd it).
pub const PAGE: i64 = 64;

/// Node leases on etcd; see the [module docs](self).
pub struct EtcdStore {
    gateway: Gateway,
    tls: bool,
    prefix: String,
    timeout: Duration,
}

impl std::fmt::Debug for EtcdStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdStore")
            .field("endpoints", &self.gateway.endpoints())
            .field("prefix", &self.prefix)
            .field("tls", &self.tls)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl EtcdStore {
    /// Opens a store for `etcd://HOST:PORT[,HOST:PORT...]/PREFIX` or `etcds://...`, with the
    /// parameters `timeout_ms=N` and `ca_file=PATH` (see the [module docs](self)). Does not
    /// connect yet.
    pub fn open(url: &str) -> Result<EtcdStore> {
        let t = target::parse_url(url)?;
        Ok(EtcdStore {
            gateway: Gateway::new(&t),
            tls: t.tls.is_some(),
            prefix: t.prefix,
            timeout: t.timeout,
        })
    }

    /// The deadline of each call.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The key prefix (`/idmint` unless the URL names another).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    fn acquire_in(
        &self,
        call: &mut Call<'_>,
        spec: &LeaseSpec,
        now_ms: u64,
        avoid: Option<u64>,
    ) -> Result<Lease> {
        let owner = lease_id()?;
        let mut ttl_s: Option<i64> = None;
        let outcome = self.grant_node(call, spec, now_ms, avoid, owner, &mut ttl_s);
        if outcome.is_err() && ttl_s.is_some() {
            // A grant that failed, or whose outcome is unknown: give up the etcd lease (with
            // it, a node key the grant may have created).
            call.revoke(owner as i64);
        }
        outcome
    }

    /// The body of [`acquire_in`](Self::acquire_in): grants the etcd lease (`ttl_s` is then
    /// its TTL), starts a new epoch where the records may be lost, and grants a node.
    fn grant_node(
        &self,
        call: &mut Call<'_>,
        spec: &LeaseSpec,
        now_ms: u64,
        avoid: Option<u64>,
        owner: u64,
        ttl_s: &mut Option<i64>,
    ) -> Result<Lease> {
        let k = Keys::new(&self.prefix, &spec.namespace);
        let holder = spec.holder_clean();
        let id = owner as i64;
        // Grants lost to another acquirer so far.
        let mut races = 0u64;
        // What the last failed grant answered with: the next try starts from it.
        let mut fresh: Option<Snapshot> = None;
        loop {
            let mut snap = match fresh.take() {
                Some(s) => s,
                None => {
                    let r = call.txn("acquire", Repeat::Safe, &read_txn(&k, PAGE))?;
                    parse_snapshot(&k, &r)?
                }
            };
            // The TTL etcd grants decides the horizon, so the lease comes first.
            let granted = match *ttl_s {
                Some(t) => t,
                None => {
                    let asked = ttl_secs(spec.ttl);
                    let t = call.grant_lease(id, asked)?.max(asked);
                    *ttl_s = Some(t);
                    t
                }
            };
            let ttl_ms = u64::try_from(granted).unwrap_or(0).saturating_mul(1000);
            let horizon = spec
                .horizon_ms()
                .saturating_add(ttl_ms.saturating_sub(spec.ttl_ms()));
            let Some((epoch, info, info_rev)) = check(call, &snap) else {
                new_epoch(call, &k, &snap, now_ms, horizon)?;
                continue;
            };
            if horizon > info.horizon {
                raise_horizon(call, &k, epoch, info, info_rev, horizon)?;
                continue;
            }
            let stray = races.saturating_mul(4).min(SPREAD);
            let seed = owner ^ races;
            let mut pick = choose(&snap, spec.nodes, avoid, now_ms, stray, seed);
            if pick.is_none() && snap.more {
                // Held or unusable records crowd the page: read as many as can be held, then
                // all of them.
                for limit in [
                    i64::try_from(snap.held.len()).unwrap_or(i64::MAX) + PAGE + 1,
                    0,
                ] {
                    let r = call.txn("acquire", Repeat::Safe, &read_txn(&k, limit))?;
                    snap = parse_snapshot(&k, &r)?;
                    pick = choose(&snap, spec.nodes, avoid, now_ms, stray, seed);
                    if pick.is_some() || !snap.more {
                        break;
                    }
                }
            }
            let Some(pick) = pick else {
                return Err(Error::NoFreeNode { nodes: spec.nodes });
            };
            let value = lease_value(epoch, owner, &holder);
            let (txn, node, bound) = grant_txn(&k, epoch, info_rev, &pick, &value, id);
            let r = call.txn("acquire", Repeat::Once, &txn)?;
            if !r.succeeded {
                // Another acquirer was faster, or the epoch moved: try again from what the
                // answer holds, after a pause that grows and differs between acquirers.
                fresh = Some(parse_snapshot(&k, &r)?);
                races += 1;
                let pause = Duration::from_micros(mix(seed) % 1000 * races.min(4));
                if !call.has_time_for(pause) {
                    return Err(unavailable("acquire", TIMED_OUT));
                }
                std::thread::sleep(pause);
                continue;
            }
            // The grant's last operation read the node key back: its create revision is the
            // token.
            let token = r
                .responses
                .len()
                .checked_sub(1)
                .and_then(|last| r.first_kv(last))
                .ok_or_else(|| corrupt("acquire"))?
                .create_revision;
            let not_before = (now_ms <= info.fence).then_some(info.fence);
            let fence = bound.into_iter().chain(not_before).max();
            return Ok(Lease {
                namespace: spec.namespace.clone(),
                node,
                token: u64::try_from(token).map_err(|_| corrupt("acquire"))?,
                fence_ms: fence,
                ttl: Duration::from_secs(u64::try_from(granted).unwrap_or(0)),
                holder: holder.clone(),
                owner,
                epoch,
                not_before_ms: not_before,
            });
        }
    }

    /// Renew: raise the bound (never lower it) and keep the etcd lease alive, checking the
    /// holder and the epoch.
    fn renew_in(&self, call: &mut Call<'_>, lease: &Lease, up_to: u64) -> Result<()> {
        let k = Keys::new(&self.prefix, &lease.namespace);
        let (lk, nk) = (k.lease(lease.node), k.node(lease.node));
        let owns = owns(&k, lease);
        let up_to = bound_text(up_to);
        let mut when = owns.clone();
        when.push(Compare::value(&nk, CompareOp::Less, &up_to));
        let txn = Txn::new()
            .when(when)
            .and_then(vec![Op::put(&nk, &up_to), Op::get(&k.info)])
            .or_else(vec![
                Op::get(&k.info),
                Op::txn(&Txn::new().when(owns)),
                Op::get(&k.epoch),
                Op::get(&lk),
                Op::get(&nk),
            ]);
        let (r, alive) = call.txn_and_keep_alive(&txn, lease.owner as i64)?;
        let cluster = r.header.map_or(0, |h| h.cluster_id);
        let info = r.first_kv(if r.succeeded { 1 } else { 0 });
        if !r.succeeded {
            let owned = r.txn(1).ok_or_else(|| corrupt("renew"))?.succeeded;
            if !owned {
                return Err(why_not(lease, &r, 2));
            }
            // Owned, and the recorded bound is already at or above `up_to` — or the record
            // is gone.
            if r.first_kv(4).is_none() {
                return Err(lost(lease.node, "the store lost its records"));
            }
        }
        let Some((info, info_rev)) =
            info.and_then(|kv| Info::parse(&kv.value).map(|i| (i, kv.mod_revision)))
        else {
            return Err(lost(lease.node, "the store lost its records"));
        };
        if info.cluster != cluster {
            return Err(lost(lease.node, "the etcd cluster changed"));
        }
        if info_rev <= call.went_back_at() {
            return Err(lost(lease.node, "the etcd cluster went back in time"));
        }
        if !alive {
            return Err(lost(lease.node, "the etcd lease expired"));
        }
        Ok(())
    }

    /// Release: raise the bound to `last` (never lower it) and free the node, checking the
    /// holder and the epoch; then revoke the etcd lease.
    fn release_in(&self, call: &mut Call<'_>, lease: &Lease, last: u64) -> Result<()> {
        let k = Keys::new(&self.prefix, &lease.namespace);
        let (lk, nk) = (k.lease(lease.node), k.node(lease.node));
        let last = bound_text(last);
        // Bounds are fixed-width text, so they compare as numbers; an empty record is lower.
        // A higher recorded bound stays, but is written again so the release still moves
        // the node to the back of the queue (its modification revision).
        let raise = Txn::new()
            .when(vec![Compare::value(&nk, CompareOp::Less, &last)])
            .and_then(vec![Op::put(&nk, &last)])
            .or_else(vec![Op::touch(&nk)]);
        let txn = Txn::new()
            .when(owns(&k, lease))
            .and_then(vec![Op::txn(&raise), Op::delete(&lk)])
            .or_else(vec![Op::get(&k.epoch), Op::get(&lk)]);
        let r = call.txn("release", Repeat::Once, &txn)?;
        // The etcd lease is this lease's alone: revoked whatever the outcome.
        call.revoke(lease.owner as i64);
        if r.succeeded {
            Ok(())
        } else {
            Err(why_not(lease, &r, 0))
        }
    }
}

/// The namespace's epoch, info and info mod revision if its records are whole; `None` if they
/// may be lost (missing, unreadable, another cluster, older than a jump back).
fn check(call: &Call<'_>, s: &Snapshot) -> Option<(u64, Info, i64)> {
    let (Some(epoch), _) = s.epoch? else {
        return None;
    };
    let (Some(info), rev) = s.info? else {
        return None;
    };
    if info.cluster != s.cluster || rev <= call.went_back_at() {
        return None;
    }
    Some((epoch, info, rev))
}

/// Starts a new epoch fenced past the lock delay (unless another acquirer just did).
fn new_epoch(call: &mut Call<'_>, k: &Keys, s: &Snapshot, now_ms: u64, horizon: u64) -> Result<()> {
    let recorded = s.info.and_then(|(i, _)| i).map_or(0, |i| i.horizon);
    let horizon = horizon.max(recorded);
    let info = Info {
        cluster: s.cluster,
        horizon,
        fence: now_ms.saturating_add(horizon),
        lost_at: now_ms,
    };
    let epoch = super::contract::random_nonzero()?;
    let epoch_rev = s.epoch.map_or(0, |e| e.1);
    let info_rev = s.info.map_or(0, |i| i.1);
    let txn = Txn::new()
        .when(vec![
            Compare::mod_revision(&k.epoch, CompareOp::Equal, epoch_rev),
            Compare::mod_revision(&k.info, CompareOp::Equal, info_rev),
        ])
        .and_then(vec![
            Op::put(&k.epoch, &epoch.to_string()),
            Op::put(&k.info, &info.text()),
        ]);
    // Compare-guarded: sent twice, the second finds the first's epoch and changes nothing.
    call.txn("acquire", Repeat::Safe, &txn)?;
    Ok(())
}

/// Records a longer horizon, and the lock delay it makes (from when the epoch started).
fn raise_horizon(
    call: &mut Call<'_>,
    k: &Keys,
    epoch: u64,
    info: Info,
    info_rev: i64,
    horizon: u64,
) -> Result<()> {
    let raised = Info {
        horizon,
        fence: info.fence.max(info.lost_at.saturating_add(horizon)),
        ..info
    };
    let txn = Txn::new()
        .when(vec![
            Compare::value(&k.epoch, CompareOp::Equal, &epoch.to_string()),
            Compare::mod_revision(&k.info, CompareOp::Equal, info_rev),
        ])
        .and_then(vec![Op::put(&k.info, &raised.text())]);
    call.txn("acquire", Repeat::Safe, &txn)?;
    Ok(())
}

/// The comparisons that say `lease` still holds its node: the epoch, and the node key's token
/// (create revision), etcd lease (owner) and value.
fn owns(k: &Keys, lease: &Lease) -> Vec<Compare> {
    let lk = k.lease(lease.node);
    vec![
        Compare::value(&k.epoch, CompareOp::Equal, &lease.epoch.to_string()),
        Compare::create_revision(
            &lk,
            CompareOp::Equal,
            i64::try_from(lease.token).unwrap_or(-1),
        ),
        Compare::lease(&lk, CompareOp::Equal, lease.owner as i64),
        Compare::value(
            &lk,
            CompareOp::Equal,
            &lease_value(lease.epoch, lease.owner, &lease.holder),
        ),
    ]
}

/// Why `lease` no longer holds its node, from an else branch that read the epoch (at `at`)
/// and the node key (at `at + 1`).
fn why_not(lease: &Lease, r: &TxnResponse, at: usize) -> Error {
    let epoch_ok = r
        .first_kv(at)
        .is_some_and(|kv| kv.value == lease.epoch.to_string().as_bytes());
    if !epoch_ok {
        return lost(lease.node, "the store lost its records");
    }
    match r.first_kv(at + 1) {
        None => lost(lease.node, "the lease expired or was released"),
        // The grant's own key, changed: not by this store.
        Some(kv) if kv.create_revision as u64 == lease.token => {
            lost(lease.node, "the store lost its records")
        }
        Some(_) => lost(lease.node, "another holder has the node"),
    }
}

/// The grant transaction for `pick`, the node, and the bound it is granted with.
fn grant_txn(
    k: &Keys,
    epoch: u64,
    info_rev: i64,
    pick: &Pick,
    value: &str,
    id: i64,
) -> (Txn, u64, Option<u64>) {
    let mut when = vec![
        Compare::value(&k.epoch, CompareOp::Equal, &epoch.to_string()),
        Compare::mod_revision(&k.info, CompareOp::Equal, info_rev),
    ];
    let mut then = Vec::new();
    let (node, bound) = match *pick {
        Pick::New { node, ref passed } => {
            when.push(Compare::create_revision(&k.node(node), CompareOp::Equal, 0));
            for &m in passed {
                // A record if it has none (a nested transaction: its condition does not decide
                // the grant).
                let nm = k.node(m);
                then.push(Op::txn(
                    &Txn::new()
                        .when(vec![Compare::create_revision(&nm, CompareOp::Equal, 0)])
                        .and_then(vec![Op::put(&nm, "")]),
                ));
            }
            then.push(Op::put(&k.node(node), ""));
            (node, None)
        }
        Pick::Free {
            node,
            bound,
            mod_rev,
        } => {
            when.push(Compare::mod_revision(
                &k.node(node),
                CompareOp::Equal,
                mod_rev,
            ));
            // Written again unchanged: the node goes to the back of the queue.
            then.push(Op::put(
                &k.node(node),
                &bound.map(bound_text).unwrap_or_default(),
            ));
            (node, bound)
        }
    };
    let lk = k.lease(node);
    when.push(Compare::create_revision(&lk, CompareOp::Equal, 0));
    then.push(Op::put_leased(&lk, value, id));
    // Read back for its create revision: the token.
    then.push(Op::get(&lk));
    let txn = Txn::new()
        .when(when)
        .and_then(then)
        .or_else(read_ops(k, PAGE));
    (txn, node, bound)
}

impl LeaseStore for EtcdStore {
    fn kind(&self) -> &'static str {
        STORE
    }

    fn acquire(&self, spec: &LeaseSpec, now_ms: u64, avoid: Option<u64>) -> Result<Lease> {
        spec.validate()?;
        // A node outside the space is never granted anyway.
        let avoid = avoid.filter(|&a| a < spec.nodes);
        self.acquire_in(&mut self.gateway.begin(), spec, now_ms, avoid)
    }

    fn renew(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
        self.renew_in(&mut self.gateway.begin(), lease, issued_up_to_ms)
    }

    fn release(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
        let last = lease.final_bound(issued_up_to_ms);
        self.release_in(&mut self.gateway.begin(), lease, last)
    }
}
