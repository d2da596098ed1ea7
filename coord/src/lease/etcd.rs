//! Node leases on etcd (v3 API): a node is held by a key attached to an etcd lease, granted by
//! a transaction that only succeeds while nobody holds the node, and fenced like the other
//! network stores.
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
//! The store is blocking: it drives the async client on a small tokio runtime of its own
//! (see `coord/src/blocking.rs`), and each [`LeaseStore`] call — all its requests, on whichever
//! members — ends within `timeout_ms` (default
//! [`DEFAULT_STORE_TIMEOUT`](super::DEFAULT_STORE_TIMEOUT)), also against members stopped with
//! SIGSTOP. Requests go to one member at a time, the last one that answered. A member that
//! refuses the connection, has no leader or does not answer in time is left for the next one;
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

use std::collections::HashSet;
use std::future::Future;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use etcd_client::{
    Client, Compare, CompareOp, ConnectOptions, GetOptions, KeyValue, LeaseGrantOptions,
    PutOptions, ResponseHeader, SortOrder, SortTarget, Txn, TxnOp, TxnOpResponse, TxnResponse,
};
use idmint::{Error, Result};

use crate::blocking::Blocking;
use crate::reason::Reason;

use super::{url, Lease, LeaseSpec, LeaseStore};

const STORE: &str = "etcd";

/// How many node records one acquire reads from the front of the queue (more while held nodes
/// crowd it).
pub const PAGE: i64 = 64;

const DEFAULT_PREFIX: &str = "/idmint";
const DEFAULT_PORT: u16 = 2379;

/// The reason of a call that ran out of time.
const TIMED_OUT: &str = "timed out";

/// Node leases on etcd; see the [module docs](self).
pub struct EtcdStore {
    endpoints: Vec<String>,
    tls: Option<etcd_client::TlsOptions>,
    prefix: String,
    timeout: Duration,
    runtime: Blocking,
    state: Mutex<State>,
}

impl std::fmt::Debug for EtcdStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdStore")
            .field("endpoints", &self.endpoints)
            .field("prefix", &self.prefix)
            .field("tls", &self.tls.is_some())
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// The connections, and what the store learnt about the cluster.
struct State {
    /// One client per endpoint, made on first use and dropped after a failure.
    clients: Vec<Option<Client>>,
    /// The endpoint that answered last: requests go there first.
    current: usize,
    /// The cluster id and the highest revision seen in answers.
    cluster: u64,
    revision: i64,
    /// The revision the cluster answered with after it was seen going back in time (0: never).
    /// Records last written at or before it may be older than what holders saw.
    went_back_at: i64,
}

impl State {
    /// Notes a header of a linearizable answer; sees the cluster's revision go back.
    fn observe(&mut self, h: Option<&ResponseHeader>) {
        let Some(h) = h else { return };
        if h.cluster_id() != self.cluster {
            // Another cluster (or the first answer): its revisions are not comparable. The
            // info keys name the cluster their epoch was started on.
            self.cluster = h.cluster_id();
            self.revision = h.revision();
            return;
        }
        if h.revision() < self.revision {
            self.went_back_at = h.revision();
        }
        self.revision = h.revision();
    }
}

/// Whether a request may be sent again after a failure whose outcome is unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Repeat {
    /// Repeating it does no harm (reads, renewals, keep-alives, compare-guarded writes).
    Safe,
    /// Only if it surely did not take effect (a grant, a release).
    Once,
}

fn unavailable(op: &'static str, reason: &'static str) -> Error {
    Error::StoreUnavailable {
        store: STORE,
        op,
        reason,
    }
}

fn corrupt(op: &'static str) -> Error {
    unavailable(op, "corrupt record")
}

fn lost(node: u64, reason: &'static str) -> Error {
    Error::LeaseLost { node, reason }
}

/// The keys of one namespace.
struct Keys {
    epoch: String,
    info: String,
    lease_dir: String,
    node_dir: String,
}

impl Keys {
    fn new(prefix: &str, ns: &str) -> Keys {
        Keys {
            epoch: format!("{prefix}/epoch/{ns}"),
            info: format!("{prefix}/info/{ns}"),
            lease_dir: format!("{prefix}/lease/{ns}/"),
            node_dir: format!("{prefix}/node/{ns}/"),
        }
    }

    fn lease(&self, node: u64) -> String {
        format!("{}{node:020}", self.lease_dir)
    }

    fn node(&self, node: u64) -> String {
        format!("{}{node:020}", self.node_dir)
    }
}

/// The node of a key `DIR` + 20 digits.
fn node_of(key: &[u8], dir: &str) -> Option<u64> {
    let digits = key.strip_prefix(dir.as_bytes())?;
    if digits.len() != 20 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// A bound as stored: 20 digits, so etcd's byte-wise value comparison is numeric.
fn bound_text(ms: u64) -> String {
    format!("{ms:020}")
}

/// A node record's bound: `None` when empty (never recorded).
fn parse_bound(v: &[u8]) -> std::result::Result<Option<u64>, ()> {
    if v.is_empty() {
        return Ok(None);
    }
    let s = std::str::from_utf8(v).map_err(|_| ())?;
    if s.len() != 20 {
        return Err(());
    }
    s.parse().map(Some).map_err(|_| ())
}

/// The value of a held node's key.
fn lease_value(epoch: u64, owner: u64, holder: &str) -> String {
    format!("{epoch} {owner} {holder}")
}

/// The lock-delay facts of an epoch (`/PREFIX/info/NS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Info {
    cluster: u64,
    horizon: u64,
    fence: u64,
    lost_at: u64,
}

impl Info {
    fn text(&self) -> String {
        format!(
            "v1 {:x} {} {} {}",
            self.cluster, self.horizon, self.fence, self.lost_at
        )
    }

    fn parse(v: &[u8]) -> Option<Info> {
        let s = std::str::from_utf8(v).ok()?;
        let mut it = s.split(' ');
        if it.next()? != "v1" {
            return None;
        }
        let cluster = u64::from_str_radix(it.next()?, 16).ok()?;
        let horizon = it.next()?.parse().ok()?;
        let fence = it.next()?.parse().ok()?;
        let lost_at = it.next()?.parse().ok()?;
        if it.next().is_some() {
            return None;
        }
        Some(Info {
            cluster,
            horizon,
            fence,
            lost_at,
        })
    }
}

/// What an acquire read in one snapshot.
struct Snapshot {
    cluster: u64,
    /// The epoch key: its value (`None` if unreadable) and mod revision.
    epoch: Option<(Option<u64>, i64)>,
    /// The info key: its value (`None` if unreadable) and mod revision.
    info: Option<(Option<Info>, i64)>,
    /// The highest node with a record.
    max_node: Option<u64>,
    /// Nodes held now.
    held: HashSet<u64>,
    /// Node records from the front of the queue: node, bound, mod revision.
    page: Vec<(u64, Option<u64>, i64)>,
    /// Whether there are more records than the page.
    more: bool,
}

fn get_of(r: &TxnResponse, i: usize) -> Option<etcd_client::GetResponse> {
    match r.op_responses().into_iter().nth(i)? {
        TxnOpResponse::Get(g) => Some(g),
        _ => None,
    }
}

fn first_kv(r: &TxnResponse, i: usize) -> Option<KeyValue> {
    get_of(r, i).and_then(|g| g.kvs().first().cloned())
}

/// The page of the queue: node records sorted by last modification, oldest first.
fn page_options(limit: i64) -> GetOptions {
    GetOptions::new()
        .with_prefix()
        .with_sort(SortTarget::Mod, SortOrder::Ascend)
        .with_limit(limit)
}

/// Reads what an acquire decides on, in one linearizable snapshot; `limit` records of the
/// queue (0: all).
fn read_txn(k: &Keys, limit: i64) -> Txn {
    Txn::new().and_then(read_ops(k, limit))
}

/// The reads of [`read_txn`]; also the else branch of a grant, so that an acquirer that lost a
/// race has what it needs for its next try in the same answer.
fn read_ops(k: &Keys, limit: i64) -> Vec<TxnOp> {
    vec![
        TxnOp::get(k.epoch.as_str(), None),
        TxnOp::get(k.info.as_str(), None),
        TxnOp::get(
            k.node_dir.as_str(),
            Some(
                GetOptions::new()
                    .with_prefix()
                    .with_sort(SortTarget::Key, SortOrder::Descend)
                    .with_limit(1)
                    .with_keys_only(),
            ),
        ),
        TxnOp::get(
            k.lease_dir.as_str(),
            Some(GetOptions::new().with_prefix().with_keys_only()),
        ),
        TxnOp::get(k.node_dir.as_str(), Some(page_options(limit))),
    ]
}

fn parse_snapshot(k: &Keys, r: &TxnResponse) -> Result<Snapshot> {
    let bad = || corrupt("acquire");
    let cluster = r.header().map_or(0, |h| h.cluster_id());
    let epoch = first_kv(r, 0).map(|kv| {
        let v = std::str::from_utf8(kv.value())
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .filter(|&e| e != 0);
        (v, kv.mod_revision())
    });
    let info = first_kv(r, 1).map(|kv| (Info::parse(kv.value()), kv.mod_revision()));
    let max_node = match first_kv(r, 2) {
        Some(kv) => Some(node_of(kv.key(), &k.node_dir).ok_or_else(bad)?),
        None => None,
    };
    let held_get = get_of(r, 3).ok_or_else(bad)?;
    let held = held_get
        .kvs()
        .iter()
        .filter_map(|kv| node_of(kv.key(), &k.lease_dir))
        .collect();
    let page_get = get_of(r, 4).ok_or_else(bad)?;
    let mut page = Vec::with_capacity(page_get.kvs().len());
    for kv in page_get.kvs() {
        let Some(node) = node_of(kv.key(), &k.node_dir) else {
            continue;
        };
        let bound = parse_bound(kv.value()).map_err(|_| bad())?;
        page.push((node, bound, kv.mod_revision()));
    }
    Ok(Snapshot {
        cluster,
        epoch,
        info,
        max_node,
        held,
        page,
        more: page_get.more(),
    })
}

/// Which node to grant.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pick {
    /// A never-used node, and the never-used nodes below it that were passed over (the
    /// `avoid` node, or others while acquirers race): they get an empty record if they have
    /// none, so they join the queue instead of being lost.
    New { node: u64, passed: Vec<u64> },
    /// A free node with a record: its bound and the record's mod revision.
    Free {
        node: u64,
        bound: Option<u64>,
        mod_rev: i64,
    },
}

/// How far a retry may stray from the front of the queue: acquirers that lost a race for the
/// same node spread over the next ones instead of racing for one node again.
const SPREAD: u64 = 32;

/// A well-mixed number from `seed` (splitmix64's finaliser).
fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Chooses a node (see the module docs' queue order); `None` if the snapshot shows none
/// (`s.more` then says whether a larger page could). `stray` (0 on a first try) lets a retry
/// take one of the first `stray + 1` candidates, chosen by `seed`, instead of the first.
fn choose(
    s: &Snapshot,
    nodes: u64,
    avoid: Option<u64>,
    now_ms: u64,
    stray: u64,
    seed: u64,
) -> Option<Pick> {
    let skip = mix(seed) % (stray + 1);
    // Never-used nodes: above the highest record, and not held (a held node without a record
    // is someone's by hand).
    let mut fresh = Vec::new();
    let mut passed = Vec::new();
    let mut next = s.max_node.map_or(Some(0), |m| m.checked_add(1));
    while let Some(n) = next.filter(|&n| n < nodes && fresh.len() as u64 <= skip) {
        match n {
            _ if s.held.contains(&n) => {}
            _ if Some(n) == avoid => passed.push(n),
            _ => fresh.push(n),
        }
        next = n.checked_add(1);
    }
    if let Some(node) = fresh.pop() {
        passed.extend(fresh);
        passed.retain(|&m| m < node);
        passed.sort_unstable();
        return Some(Pick::New { node, passed });
    }
    // The queue: the first usable node (bound not ahead of now) — or the `skip`-th, or the
    // last usable there is — else the one with the nearest bound.
    let mut usable = 0;
    let mut last_usable = None;
    let mut nearest: Option<(u64, Pick)> = None;
    for &(node, bound, mod_rev) in &s.page {
        if node >= nodes || Some(node) == avoid || s.held.contains(&node) {
            continue;
        }
        let pick = Pick::Free {
            node,
            bound,
            mod_rev,
        };
        match bound {
            Some(b) if b > now_ms => {
                if nearest.as_ref().map_or(true, |(nb, _)| b < *nb) {
                    nearest = Some((b, pick));
                }
            }
            _ => {
                if usable == skip {
                    return Some(pick);
                }
                usable += 1;
                last_usable = Some(pick);
            }
        }
    }
    last_usable.or(nearest.map(|n| n.1))
}

/// Whether a failed request surely did not take effect: no connection could be made (refused,
/// TLS handshake failed), or a member without a leader refused it.
fn not_applied(e: &etcd_client::Error) -> bool {
    match e {
        etcd_client::Error::TransportError(_) | etcd_client::Error::InvalidUri(_) => true,
        etcd_client::Error::GRpcStatus(s) => {
            s.message() == "etcdserver: no leader"
                || crate::reason::io_kind_in(s) == Some(std::io::ErrorKind::ConnectionRefused)
                || crate::reason::tls_error_in(s)
        }
        _ => false,
    }
}

/// Whether a failure says the member cannot be reached (rather than that it answered with an
/// error, or did not answer in time).
fn unreachable(e: &etcd_client::Error) -> bool {
    match e {
        etcd_client::Error::TransportError(_) | etcd_client::Error::IoError(_) => true,
        etcd_client::Error::GRpcStatus(s) => crate::reason::socket_error_in(s),
        _ => false,
    }
}

/// Whether a failure may pass on another member or a moment later (the cluster, not the
/// request, is at fault).
fn transient(e: &etcd_client::Error) -> bool {
    match e {
        etcd_client::Error::TransportError(_) | etcd_client::Error::IoError(_) => true,
        // Cancelled, Unknown, DeadlineExceeded, Aborted, Internal, Unavailable.
        etcd_client::Error::GRpcStatus(s) => matches!(s.code() as i32, 1 | 2 | 4 | 10 | 13 | 14),
        _ => false,
    }
}

/// "lease already exists": a grant of a chosen lease id that already took effect.
fn lease_exists(e: &etcd_client::Error) -> bool {
    matches!(e, etcd_client::Error::GRpcStatus(s) if s.message().ends_with("lease already exists"))
}

/// "lease not found": the etcd lease expired (or was revoked).
fn lease_not_found(e: &etcd_client::Error) -> bool {
    match e {
        etcd_client::Error::GRpcStatus(s) => s.message().ends_with("lease not found"),
        etcd_client::Error::LeaseKeepAliveError(m) => m.contains("lease not found"),
        _ => false,
    }
}

/// An etcd lease id for a new grant: random, positive (etcd's ids are `int64`), never 0.
fn lease_id() -> Result<u64> {
    loop {
        let v = super::random_nonzero()? & (i64::MAX as u64);
        if v != 0 {
            return Ok(v);
        }
    }
}

/// A TTL in whole seconds, rounded up (at least 1).
fn ttl_secs(ttl: Duration) -> i64 {
    let s = ttl.as_secs() + u64::from(ttl.subsec_nanos() > 0);
    i64::try_from(s.max(1)).unwrap_or(i64::MAX)
}

/// What the parsed URL holds.
struct Target {
    endpoints: Vec<String>,
    prefix: String,
    tls: Option<etcd_client::TlsOptions>,
    timeout: Duration,
}

fn invalid(reason: &'static str) -> Error {
    Error::InvalidConfig { reason }
}

/// Parses `etcd://HOST:PORT[,HOST:PORT...]/PREFIX[?timeout_ms=N&ca_file=PATH]`.
fn parse_url(url: &str) -> Result<Target> {
    let split = url::split_params(url)?;
    if split.mode.is_some() {
        return Err(invalid("the etcd lease store has no `mode` parameter"));
    }
    let (scheme, rest) = if let Some(r) = split.url.strip_prefix("etcd://") {
        ("http", r)
    } else if let Some(r) = split.url.strip_prefix("etcds://") {
        ("https", r)
    } else {
        return Err(invalid("an etcd URL starts with etcd:// or etcds://"));
    };
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (rest, None),
    };
    let mut ca_file = None;
    for pair in query.into_iter().flat_map(|q| q.split('&')) {
        match pair.split_once('=') {
            Some(("ca_file", v)) if !v.is_empty() => ca_file = Some(v.to_string()),
            _ if pair.is_empty() => {}
            _ => {
                return Err(invalid(
                    "etcd URL parameters are timeout_ms=N and ca_file=PATH (etcds://)",
                ))
            }
        }
    }
    let (hosts, path) = rest.split_once('/').unwrap_or((rest, ""));
    if hosts.contains('@') {
        return Err(invalid(
            "etcd URLs take no user name or password (not supported)",
        ));
    }
    let mut endpoints = Vec::new();
    for h in hosts.split(',') {
        endpoints.push(format!("{scheme}://{}", host_port(h)?));
    }
    let path = path.trim_end_matches('/');
    let prefix = if path.is_empty() {
        DEFAULT_PREFIX.to_string()
    } else if path
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-' | b'/'))
        && !path.split('/').any(str::is_empty)
    {
        format!("/{path}")
    } else {
        return Err(invalid(
            "an etcd key prefix is made of /-separated names of [A-Za-z0-9_.-]",
        ));
    };
    let tls = match (scheme, ca_file) {
        ("http", Some(_)) => return Err(invalid("ca_file= needs an etcds:// URL")),
        ("http", None) => None,
        (_, Some(path)) => {
            let pem = std::fs::read(&path)
                .map_err(|_| invalid("ca_file: cannot read a PEM CA certificate from that file"))?;
            if !String::from_utf8_lossy(&pem).contains("-----BEGIN CERTIFICATE-----") {
                return Err(invalid(
                    "ca_file: cannot read a PEM CA certificate from that file",
                ));
            }
            Some(
                etcd_client::TlsOptions::new()
                    .ca_certificate(etcd_client::Certificate::from_pem(pem)),
            )
        }
        (_, None) => Some(etcd_client::TlsOptions::new().with_native_roots()),
    };
    Ok(Target {
        endpoints,
        prefix,
        tls,
        timeout: split.timeout,
    })
}

/// Checks one `HOST[:PORT]` (IPv6 in brackets) and adds the default port.
fn host_port(h: &str) -> Result<String> {
    let bad = || invalid("an etcd URL lists HOST:PORT endpoints separated by commas");
    let (host, port) = if let Some(v6) = h.strip_prefix('[') {
        let (addr, after) = v6.split_once(']').ok_or_else(bad)?;
        if addr.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(bad());
        }
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':').ok_or_else(bad)?),
        };
        (format!("[{addr}]"), port)
    } else {
        let (host, port) = match h.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (h, None),
        };
        let ok = !host.is_empty()
            && host
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_'));
        if !ok {
            return Err(bad());
        }
        (host.to_string(), port)
    };
    let port = match port {
        None => DEFAULT_PORT,
        Some(p) => p.parse::<u16>().ok().filter(|&p| p != 0).ok_or_else(bad)?,
    };
    Ok(format!("{host}:{port}"))
}

impl EtcdStore {
    /// Opens a store for `etcd://HOST:PORT[,HOST:PORT...]/PREFIX` or `etcds://...`, with the
    /// parameters `timeout_ms=N` and `ca_file=PATH` (see the [module docs](self)). Does not
    /// connect yet.
    pub fn open(url: &str) -> Result<EtcdStore> {
        let t = parse_url(url)?;
        let n = t.endpoints.len();
        Ok(EtcdStore {
            endpoints: t.endpoints,
            tls: t.tls,
            prefix: t.prefix,
            timeout: t.timeout,
            runtime: Blocking::new(STORE)?,
            state: Mutex::new(State {
                clients: (0..n).map(|_| None).collect(),
                current: 0,
                cluster: 0,
                revision: 0,
                went_back_at: 0,
            }),
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

    /// The state, for one call, and the call's deadline.
    fn begin(&self) -> (MutexGuard<'_, State>, Instant) {
        let guard = self.state.lock().unwrap_or_else(|p| p.into_inner());
        (guard, Instant::now() + self.timeout)
    }

    /// Drives one call's future on the store's runtime. Its requests keep to the call's
    /// deadline; the runtime's own limit, a little later, only catches one that does not.
    fn finish<T: Send>(&self, fut: impl Future<Output = Result<T>> + Send) -> Option<Result<T>> {
        self.runtime
            .block(self.timeout + Duration::from_millis(50), fut)
    }

    /// Sends one request (`f` on a client), on the member that answered last, and on the
    /// others while it fails in a way another member or a moment may not (see the module
    /// docs), within `deadline`.
    async fn request<T, F, Fut>(
        &self,
        st: &mut State,
        deadline: Instant,
        op: &'static str,
        repeat: Repeat,
        mut f: F,
    ) -> Result<T>
    where
        F: FnMut(Client) -> Fut,
        Fut: Future<Output = std::result::Result<T, etcd_client::Error>>,
    {
        let n = self.endpoints.len();
        let mut tried = 0usize;
        // Failures in a row of members that cannot be reached: once every member failed so,
        // the cluster is down (or not there), and waiting out the deadline helps nobody.
        let mut unreachable_streak = 0usize;
        loop {
            let i = st.current % n;
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(unavailable(op, TIMED_OUT));
            }
            let client = match &st.clients[i] {
                Some(c) => c.clone(),
                None => {
                    let mut opts = ConnectOptions::new()
                        .with_connect_timeout(self.timeout)
                        .with_require_leader(true);
                    if let Some(tls) = &self.tls {
                        opts = opts.with_tls(tls.clone());
                    }
                    let made = tokio::time::timeout(
                        left,
                        Client::connect([self.endpoints[i].as_str()], Some(opts)),
                    )
                    .await;
                    match made {
                        Ok(Ok(c)) => {
                            st.clients[i] = Some(c.clone());
                            c
                        }
                        Ok(Err(e)) => return Err(unavailable(op, e.reason())),
                        Err(_) => return Err(unavailable(op, TIMED_OUT)),
                    }
                }
            };
            // The first tries leave time for another member: one that is stopped never answers.
            let cap = if tried + 1 < n { left / 2 } else { left };
            let failure = match tokio::time::timeout(cap, f(client)).await {
                Ok(Ok(v)) => return Ok(v),
                Ok(Err(e)) => {
                    let again = not_applied(&e) || (repeat == Repeat::Safe && transient(&e));
                    if unreachable(&e) {
                        unreachable_streak += 1;
                    } else {
                        unreachable_streak = 0;
                    }
                    if !again || unreachable_streak >= n {
                        st.clients[i] = None;
                        st.current = (i + 1) % n;
                        return Err(unavailable(op, e.reason()));
                    }
                    e.reason()
                }
                Err(_) if repeat == Repeat::Safe => {
                    unreachable_streak = 0;
                    TIMED_OUT
                }
                Err(_) => {
                    st.clients[i] = None;
                    st.current = (i + 1) % n;
                    return Err(unavailable(op, TIMED_OUT));
                }
            };
            st.clients[i] = None;
            st.current = (i + 1) % n;
            tried += 1;
            if Instant::now() >= deadline {
                return Err(unavailable(op, failure));
            }
            if tried % n == 0 {
                // Every member failed once (an election, say): a moment before the next round.
                let rest = deadline.saturating_duration_since(Instant::now());
                tokio::time::sleep(rest.min(Duration::from_millis(50))).await;
            }
        }
    }

    /// A transaction (see [`request`](Self::request)); notes its header.
    async fn txn(
        &self,
        st: &mut State,
        deadline: Instant,
        op: &'static str,
        repeat: Repeat,
        txn: Txn,
    ) -> Result<TxnResponse> {
        let r = self
            .request(st, deadline, op, repeat, |mut c| {
                let t = txn.clone();
                async move { c.txn(t).await }
            })
            .await?;
        st.observe(r.header());
        Ok(r)
    }

    /// Grants the etcd lease `id` with `ttl` seconds; returns the TTL etcd granted.
    async fn grant_lease(
        &self,
        st: &mut State,
        deadline: Instant,
        id: i64,
        ttl: i64,
    ) -> Result<i64> {
        let granted = self
            .request(st, deadline, "acquire", Repeat::Safe, |mut c| async move {
                match c
                    .lease_grant(ttl, Some(LeaseGrantOptions::new().with_id(id)))
                    .await
                {
                    Ok(r) => Ok(Some(r.ttl())),
                    // A grant sent again after its answer was lost; ask what it got.
                    Err(e) if lease_exists(&e) => Ok(None),
                    Err(e) => Err(e),
                }
            })
            .await?;
        if let Some(t) = granted {
            return Ok(t);
        }
        self.request(st, deadline, "acquire", Repeat::Safe, |mut c| async move {
            c.lease_time_to_live(id, None)
                .await
                .map(|r| r.granted_ttl())
        })
        .await
    }

    /// Revokes the etcd lease `id`, if time is left; failures are ignored (the lease expires
    /// by itself: nobody keeps it alive).
    async fn revoke(&self, st: &mut State, deadline: Instant, id: i64) {
        let _ = self
            .request(st, deadline, "release", Repeat::Safe, |mut c| async move {
                match c.lease_revoke(id).await {
                    Err(e) if lease_not_found(&e) => Ok(()),
                    r => r.map(drop),
                }
            })
            .await;
    }

    async fn acquire_in(
        &self,
        st: &mut State,
        deadline: Instant,
        spec: &LeaseSpec,
        now_ms: u64,
        avoid: Option<u64>,
    ) -> Result<Lease> {
        let owner = lease_id()?;
        let id = owner as i64;
        let mut ttl_s: Option<i64> = None;
        let outcome = self
            .grant_node(st, deadline, spec, now_ms, avoid, owner, &mut ttl_s)
            .await;
        if outcome.is_err() && ttl_s.is_some() {
            // A grant that failed, or whose outcome is unknown: give up the etcd lease (with
            // it, a node key the grant may have created).
            self.revoke(st, deadline, id).await;
        }
        outcome
    }

    /// The body of [`acquire_in`](Self::acquire_in): grants the etcd lease (`ttl_s` is then
    /// its TTL), starts a new epoch where the records may be lost, and grants a node.
    #[allow(clippy::too_many_arguments)]
    async fn grant_node(
        &self,
        st: &mut State,
        deadline: Instant,
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
                    let r = self
                        .txn(st, deadline, "acquire", Repeat::Safe, read_txn(&k, PAGE))
                        .await?;
                    parse_snapshot(&k, &r)?
                }
            };
            // The TTL etcd grants decides the horizon, so the lease comes first.
            let granted = match *ttl_s {
                Some(t) => t,
                None => {
                    let asked = ttl_secs(spec.ttl);
                    let t = self.grant_lease(st, deadline, id, asked).await?.max(asked);
                    *ttl_s = Some(t);
                    t
                }
            };
            let ttl_ms = u64::try_from(granted).unwrap_or(0).saturating_mul(1000);
            let horizon = spec
                .horizon_ms()
                .saturating_add(ttl_ms.saturating_sub(spec.ttl_ms()));
            let (epoch, info, info_rev) = match self.check(st, &snap) {
                Some((e, info, rev)) => (e, info, rev),
                None => {
                    self.new_epoch(st, deadline, &k, &snap, now_ms, horizon)
                        .await?;
                    continue;
                }
            };
            if horizon > info.horizon {
                self.raise_horizon(st, deadline, &k, epoch, info, info_rev, horizon)
                    .await?;
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
                    let r = self
                        .txn(st, deadline, "acquire", Repeat::Safe, read_txn(&k, limit))
                        .await?;
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
            let r = self.txn(st, deadline, "acquire", Repeat::Once, txn).await?;
            if !r.succeeded() {
                // Another acquirer was faster, or the epoch moved: try again from what the
                // answer holds, after a pause that grows and differs between acquirers.
                fresh = Some(parse_snapshot(&k, &r)?);
                races += 1;
                let pause = Duration::from_micros(mix(seed) % 1000 * races.min(4));
                if Instant::now() + pause >= deadline {
                    return Err(unavailable("acquire", TIMED_OUT));
                }
                tokio::time::sleep(pause).await;
                continue;
            }
            let Some(kv) = r.op_responses().into_iter().last().and_then(|op| match op {
                TxnOpResponse::Get(g) => g.kvs().first().cloned(),
                _ => None,
            }) else {
                return Err(corrupt("acquire"));
            };
            let not_before = (now_ms <= info.fence).then_some(info.fence);
            let fence = bound.into_iter().chain(not_before).max();
            return Ok(Lease {
                namespace: spec.namespace.clone(),
                node,
                token: u64::try_from(kv.create_revision()).map_err(|_| corrupt("acquire"))?,
                fence_ms: fence,
                ttl: Duration::from_secs(u64::try_from(granted).unwrap_or(0)),
                holder: holder.clone(),
                owner,
                epoch,
                not_before_ms: not_before,
            });
        }
    }

    /// The namespace's epoch, info and info mod revision if its records are whole; `None` if
    /// they may be lost (missing, unreadable, another cluster, older than a jump back).
    fn check(&self, st: &State, s: &Snapshot) -> Option<(u64, Info, i64)> {
        let (Some(epoch), _) = s.epoch? else {
            return None;
        };
        let (Some(info), rev) = s.info? else {
            return None;
        };
        if info.cluster != s.cluster || rev <= st.went_back_at {
            return None;
        }
        Some((epoch, info, rev))
    }

    /// Starts a new epoch fenced past the lock delay (unless another acquirer just did).
    async fn new_epoch(
        &self,
        st: &mut State,
        deadline: Instant,
        k: &Keys,
        s: &Snapshot,
        now_ms: u64,
        horizon: u64,
    ) -> Result<()> {
        let recorded = s.info.and_then(|(i, _)| i).map_or(0, |i| i.horizon);
        let horizon = horizon.max(recorded);
        let info = Info {
            cluster: s.cluster,
            horizon,
            fence: now_ms.saturating_add(horizon),
            lost_at: now_ms,
        };
        let epoch = super::random_nonzero()?;
        let epoch_rev = s.epoch.map_or(0, |e| e.1);
        let info_rev = s.info.map_or(0, |i| i.1);
        let txn = Txn::new()
            .when(vec![
                Compare::mod_revision(k.epoch.as_str(), CompareOp::Equal, epoch_rev),
                Compare::mod_revision(k.info.as_str(), CompareOp::Equal, info_rev),
            ])
            .and_then(vec![
                TxnOp::put(k.epoch.as_str(), epoch.to_string(), None),
                TxnOp::put(k.info.as_str(), info.text(), None),
            ]);
        // Compare-guarded: sent twice, the second finds the first's epoch and changes nothing.
        self.txn(st, deadline, "acquire", Repeat::Safe, txn).await?;
        Ok(())
    }

    /// Records a longer horizon, and the lock delay it makes (from when the epoch started).
    #[allow(clippy::too_many_arguments)]
    async fn raise_horizon(
        &self,
        st: &mut State,
        deadline: Instant,
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
                Compare::value(k.epoch.as_str(), CompareOp::Equal, epoch.to_string()),
                Compare::mod_revision(k.info.as_str(), CompareOp::Equal, info_rev),
            ])
            .and_then(vec![TxnOp::put(k.info.as_str(), raised.text(), None)]);
        self.txn(st, deadline, "acquire", Repeat::Safe, txn).await?;
        Ok(())
    }

    /// Renew: raise the bound (never lower it) and keep the etcd lease alive, checking the
    /// holder and the epoch.
    async fn renew_in(
        &self,
        st: &mut State,
        deadline: Instant,
        lease: &Lease,
        up_to: u64,
    ) -> Result<()> {
        let k = Keys::new(&self.prefix, &lease.namespace);
        let (lk, nk) = (k.lease(lease.node), k.node(lease.node));
        let owns = owns(&k, lease);
        let up_to = bound_text(up_to);
        let mut when = owns.clone();
        when.push(Compare::value(nk.as_str(), CompareOp::Less, up_to.as_str()));
        let txn = Txn::new()
            .when(when)
            .and_then(vec![
                TxnOp::put(nk.as_str(), up_to.as_str(), None),
                TxnOp::get(k.info.as_str(), None),
            ])
            .or_else(vec![
                TxnOp::get(k.info.as_str(), None),
                TxnOp::txn(Txn::new().when(owns)),
                TxnOp::get(k.epoch.as_str(), None),
                TxnOp::get(lk.as_str(), None),
                TxnOp::get(nk.as_str(), None),
            ]);
        let id = lease.owner as i64;
        // The transaction and the keep-alive, side by side on one member: both may be repeated.
        let (r, alive) = self
            .request(st, deadline, "renew", Repeat::Safe, |c| {
                let t = txn.clone();
                async move {
                    let mut kv = c.clone();
                    let mut ls = c;
                    let (r, ka) = tokio::join!(kv.txn(t), ls.lease_keep_alive(id));
                    let alive = match ka {
                        Ok(_) => true,
                        Err(e) if lease_not_found(&e) => false,
                        Err(e) => return Err(e),
                    };
                    Ok((r?, alive))
                }
            })
            .await?;
        st.observe(r.header());
        let cluster = r.header().map_or(0, |h| h.cluster_id());
        let info = first_kv(&r, if r.succeeded() { 1 } else { 0 });
        if !r.succeeded() {
            let owned = match r.op_responses().into_iter().nth(1) {
                Some(TxnOpResponse::Txn(t)) => t.succeeded(),
                _ => return Err(corrupt("renew")),
            };
            if !owned {
                return Err(why_not(lease, &r, 2));
            }
            // Owned, and the recorded bound is already at or above `up_to` — or the record
            // is gone.
            if first_kv(&r, 4).is_none() {
                return Err(lost(lease.node, "the store lost its records"));
            }
        }
        let Some(info) =
            info.and_then(|kv| Info::parse(kv.value()).map(|i| (i, kv.mod_revision())))
        else {
            return Err(lost(lease.node, "the store lost its records"));
        };
        if info.0.cluster != cluster {
            return Err(lost(lease.node, "the etcd cluster changed"));
        }
        if info.1 <= st.went_back_at {
            return Err(lost(lease.node, "the etcd cluster went back in time"));
        }
        if !alive {
            return Err(lost(lease.node, "the etcd lease expired"));
        }
        Ok(())
    }

    /// Release: raise the bound to `last` (never lower it) and free the node, checking the
    /// holder and the epoch; then revoke the etcd lease.
    async fn release_in(
        &self,
        st: &mut State,
        deadline: Instant,
        lease: &Lease,
        last: u64,
    ) -> Result<()> {
        let k = Keys::new(&self.prefix, &lease.namespace);
        let (lk, nk) = (k.lease(lease.node), k.node(lease.node));
        let last = bound_text(last);
        // Bounds are fixed-width text, so they compare as numbers; an empty record is lower.
        // A higher recorded bound stays, but is written again so the release still moves
        // the node to the back of the queue (its modification revision).
        let raise = Txn::new()
            .when(vec![Compare::value(
                nk.as_str(),
                CompareOp::Less,
                last.as_str(),
            )])
            .and_then(vec![TxnOp::put(nk.as_str(), last.as_str(), None)])
            .or_else(vec![TxnOp::put(
                nk.as_str(),
                "",
                Some(PutOptions::new().with_ignore_value()),
            )]);
        let txn = Txn::new()
            .when(owns(&k, lease))
            .and_then(vec![TxnOp::txn(raise), TxnOp::delete(lk.as_str(), None)])
            .or_else(vec![
                TxnOp::get(k.epoch.as_str(), None),
                TxnOp::get(lk.as_str(), None),
            ]);
        let r = self.txn(st, deadline, "release", Repeat::Once, txn).await?;
        // The etcd lease is this lease's alone: revoked whatever the outcome.
        self.revoke(st, deadline, lease.owner as i64).await;
        if r.succeeded() {
            Ok(())
        } else {
            Err(why_not(lease, &r, 0))
        }
    }
}

/// A call's result, or `timed out` if its future had to be dropped (its connections with it).
fn timed_out<T>(st: &mut State, op: &'static str, r: Option<Result<T>>) -> Result<T> {
    r.unwrap_or_else(|| {
        st.clients.iter_mut().for_each(|c| *c = None);
        Err(unavailable(op, TIMED_OUT))
    })
}

/// The comparisons that say `lease` still holds its node: the epoch, and the node key's token
/// (create revision), etcd lease (owner) and value.
fn owns(k: &Keys, lease: &Lease) -> Vec<Compare> {
    let lk = k.lease(lease.node);
    vec![
        Compare::value(k.epoch.as_str(), CompareOp::Equal, lease.epoch.to_string()),
        Compare::create_revision(
            lk.as_str(),
            CompareOp::Equal,
            i64::try_from(lease.token).unwrap_or(-1),
        ),
        Compare::lease(lk.as_str(), CompareOp::Equal, lease.owner as i64),
        Compare::value(
            lk.as_str(),
            CompareOp::Equal,
            lease_value(lease.epoch, lease.owner, &lease.holder),
        ),
    ]
}

/// Why `lease` no longer holds its node, from an else branch that read the epoch (at `at`)
/// and the node key (at `at + 1`).
fn why_not(lease: &Lease, r: &TxnResponse, at: usize) -> Error {
    let epoch_ok =
        first_kv(r, at).is_some_and(|kv| kv.value() == lease.epoch.to_string().as_bytes());
    if !epoch_ok {
        return lost(lease.node, "the store lost its records");
    }
    match first_kv(r, at + 1) {
        None => lost(lease.node, "the lease expired or was released"),
        // The grant's own key, changed: not by this store.
        Some(kv) if kv.create_revision() as u64 == lease.token => {
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
        Compare::value(k.epoch.as_str(), CompareOp::Equal, epoch.to_string()),
        Compare::mod_revision(k.info.as_str(), CompareOp::Equal, info_rev),
    ];
    let mut then = Vec::new();
    let (node, bound) = match *pick {
        Pick::New { node, ref passed } => {
            when.push(Compare::create_revision(k.node(node), CompareOp::Equal, 0));
            for &m in passed {
                // A record if it has none (a nested transaction: its condition does not decide
                // the grant).
                then.push(TxnOp::txn(
                    Txn::new()
                        .when(vec![Compare::create_revision(
                            k.node(m),
                            CompareOp::Equal,
                            0,
                        )])
                        .and_then(vec![TxnOp::put(k.node(m), "", None)]),
                ));
            }
            then.push(TxnOp::put(k.node(node), "", None));
            (node, None)
        }
        Pick::Free {
            node,
            bound,
            mod_rev,
        } => {
            when.push(Compare::mod_revision(
                k.node(node),
                CompareOp::Equal,
                mod_rev,
            ));
            // Written again unchanged: the node goes to the back of the queue.
            then.push(TxnOp::put(
                k.node(node),
                bound.map(bound_text).unwrap_or_default(),
                None,
            ));
            (node, bound)
        }
    };
    let lk = k.lease(node);
    when.push(Compare::create_revision(lk.as_str(), CompareOp::Equal, 0));
    then.push(TxnOp::put(
        lk.as_str(),
        value,
        Some(PutOptions::new().with_lease(id)),
    ));
    // Read back for its create revision: the token.
    then.push(TxnOp::get(lk.as_str(), None));
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
        let (mut st, deadline) = self.begin();
        let r = self.finish(self.acquire_in(&mut st, deadline, spec, now_ms, avoid));
        timed_out(&mut st, "acquire", r)
    }

    fn renew(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
        let (mut st, deadline) = self.begin();
        let r = self.finish(self.renew_in(&mut st, deadline, lease, issued_up_to_ms));
        timed_out(&mut st, "renew", r)
    }

    fn release(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
        let last = lease.final_bound(issued_up_to_ms);
        let (mut st, deadline) = self.begin();
        let r = self.finish(self.release_in(&mut st, deadline, lease, last));
        timed_out(&mut st, "release", r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let t =
            parse_url("etcd://127.0.0.1:2379,localhost:2380,[::1]/app/ids?timeout_ms=250").unwrap();
        assert_eq!(
            t.endpoints,
            [
                "http://127.0.0.1:2379",
                "http://localhost:2380",
                "http://[::1]:2379"
            ]
        );
        assert_eq!(t.prefix, "/app/ids");
        assert_eq!(t.timeout, Duration::from_millis(250));
        assert!(t.tls.is_none());
        let t = parse_url("etcd://h:1/").unwrap();
        assert_eq!(t.prefix, "/idmint");
        assert!(parse_url("etcds://h:1/x").unwrap().tls.is_some());
        for bad in [
            "etcd://",
            "etcd:///x",
            "etcd://h:0/x",
            "etcd://h:99999/x",
            "etcd://h:1,,h:2/x",
            "etcd://u:p@h:1/x",
            "etcd://h:1/a//b",
            "etcd://h:1/a b",
            "etcd://h:1/x?mode=boot",
            "etcd://h:1/x?ca_file=/etc/hosts",
            "etcds://h:1/x?ca_file=/nonexistent/ca.pem",
            "etcds://h:1/x?ca_file=/etc/hostname",
            "etcd://h:1/x?what=1",
            "etcd://[zz]:1/x",
            "http://h:1/x",
        ] {
            assert!(
                matches!(parse_url(bad), Err(Error::InvalidConfig { .. })),
                "{bad:?} was accepted"
            );
        }
    }

    #[test]
    fn keys_and_values() {
        let k = Keys::new("/p", "ns");
        assert_eq!(k.lease(7), "/p/lease/ns/00000000000000000007");
        assert_eq!(
            node_of(k.node(u64::MAX).as_bytes(), &k.node_dir),
            Some(u64::MAX)
        );
        assert_eq!(node_of(b"/p/node/ns/12", &k.node_dir), None);
        assert!(bound_text(9) < bound_text(10));
        assert_eq!(parse_bound(b""), Ok(None));
        assert_eq!(parse_bound(bound_text(42).as_bytes()), Ok(Some(42)));
        assert!(parse_bound(b"42").is_err());
        let i = Info {
            cluster: 0xdead_beef,
            horizon: 4000,
            fence: 1_750_000_004_000,
            lost_at: 1_750_000_000_000,
        };
        assert_eq!(Info::parse(i.text().as_bytes()), Some(i));
        assert_eq!(Info::parse(b"v2 1 2 3 4"), None);
        assert_eq!(ttl_secs(Duration::from_millis(1)), 1);
        assert_eq!(ttl_secs(Duration::from_millis(2000)), 2);
        assert_eq!(ttl_secs(Duration::from_millis(2001)), 3);
    }

    #[test]
    fn queue_choice() {
        let snap = |max: Option<u64>, held: &[u64], page: Vec<(u64, Option<u64>, i64)>| Snapshot {
            cluster: 1,
            epoch: None,
            info: None,
            max_node: max,
            held: held.iter().copied().collect(),
            page,
            more: false,
        };
        let new = |p: Option<Pick>| match p {
            Some(Pick::New { node, passed }) => Some((node, passed)),
            _ => None,
        };
        let free = |p: Option<Pick>| match p {
            Some(Pick::Free { node, .. }) => Some(node),
            _ => None,
        };
        let empty = snap(None, &[], vec![]);
        assert_eq!(new(choose(&empty, 4, None, 0, 0, 0)), Some((0, vec![])));
        assert_eq!(new(choose(&empty, 4, Some(0), 0, 0, 0)), Some((1, vec![0])));
        let s = snap(Some(1), &[2], vec![]);
        assert_eq!(new(choose(&s, 4, None, 0, 0, 0)), Some((3, vec![])));
        // A retry strays over the next never-used nodes, recording those it passes.
        let strays: HashSet<_> = (0..64)
            .filter_map(|seed| new(choose(&empty, 100, Some(1), 0, 3, seed)))
            .collect();
        let want: HashSet<_> = [
            (0, vec![]),
            (2, vec![0, 1]),
            (3, vec![0, 1, 2]),
            (4, vec![0, 1, 2, 3]),
        ]
        .into_iter()
        .collect();
        assert_eq!(strays, want);
        // Fewer never-used nodes than the stray: the last one.
        for seed in 0..16 {
            let p = new(choose(&snap(Some(1), &[], vec![]), 4, None, 0, 8, seed)).unwrap();
            assert!(p == (2, vec![]) || p == (3, vec![2]), "{p:?}");
        }
        // The space is used up: the queue, oldest first, bound not ahead of now first.
        let page = vec![(2, Some(900), 5), (0, Some(50), 6), (1, None, 7)];
        let s = snap(Some(3), &[3], page);
        assert_eq!(free(choose(&s, 4, None, 100, 0, 0)), Some(0));
        assert_eq!(free(choose(&s, 4, Some(0), 100, 0, 0)), Some(1));
        assert_eq!(free(choose(&s, 2, Some(0), 10, 0, 0)), Some(1));
        let strays: HashSet<_> = (0..64)
            .filter_map(|seed| free(choose(&s, 4, None, 100, 5, seed)))
            .collect();
        assert_eq!(strays, [0, 1].into_iter().collect(), "only usable nodes");
        let s = snap(Some(3), &[3, 1], vec![(2, Some(900), 5), (0, Some(500), 6)]);
        assert_eq!(
            free(choose(&s, 4, None, 100, 0, 0)),
            Some(0),
            "nearest bound"
        );
        let s = snap(Some(3), &[0, 1, 2, 3], vec![]);
        assert!(choose(&s, 4, None, 100, 0, 0).is_none());
    }
}
