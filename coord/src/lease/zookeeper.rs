//! Node leases on ZooKeeper: Meituan Leaf's worker ids, with this crate's lease promises.
//!
//! # Leaf's scheme, and what is added to it
//!
//! Leaf's Snowflake mode takes its worker id from ZooKeeper: each service instance, named by
//! its `ip:port`, creates a persistent *sequential* znode under `forever/` once, and the
//! sequence number in its name is the instance's worker id for good; the instance uploads a
//! timestamp every few seconds, and refuses to start when its clock is behind the recorded one.
//! This store keeps that shape and adds what the [`LeaseStore`] trait promises:
//!
//! | Leaf | here |
//! |---|---|
//! | `forever/IP:PORT-0000000007` gives worker id 7 for good | `PATH/NS/forever/IDENTITY-0000000007` gives identity `IDENTITY` node 7 whenever node 7 is free (the same identity gets the same id back after a restart) |
//! | a timestamp uploaded every 3 s | [`LeaseStore::renew`]'s `issued_up_to_ms`, raised (never lowered) in the node's persistent record `PATH/NS/node/N` by a version-checked `setData` |
//! | refuses to start while the clock is behind the upload | the record's bound is the next holder's time fence, [`Lease::fence_ms`]: the generator's `on_backwards` policy decides (wait, a logical clock, fail, or a swap to another node) |
//! | nothing stops two instances from using one id | an **ephemeral** znode `PATH/NS/held/N` per held node, created by the grant (so two acquirers cannot both win node N); its `czxid` is the fencing token, [`Lease::token`]; it lives as long as the lease's ZooKeeper session |
//! | ids past the worker field's range | never granted: a sequence number outside the node space is not used (see *Which node*) |
//! | a lost data directory hands ids out again | a per-namespace epoch znode `PATH/NS/epoch`; when it (or the namespace) is gone, a new epoch starts and every grant is fenced past now + the longest horizon: the lock delay, [`Lease::not_before_ms`] |
//!
//! `IDENTITY` is the URL's `identity=` (Leaf uses `ip:port`), else the spec's
//! [`holder`](LeaseSpec::holder) name: give a service instance a stable one, as the default
//! holder name (`host:pid:random`) is new in every process.
//!
//! # Which node
//!
//! An acquire takes the first of these that is free (no `held/N`), inside the node space and
//! not the `avoid` node:
//!
//! 1. **The identity's own id**, the lowest sequence number among its `forever/` entries —
//!    whatever its recorded bound (Leaf's "same id back"; the time fence makes a bound ahead of
//!    the clock safe). An identity without an entry gets one, unless the sequence already
//!    passed the node space (the parent's `cversion`, which is the next sequence number, is at
//!    least `nodes`): `forever/` never grows past the node space.
//! 2. **The lowest never-used node** (no record under `node/` in this epoch), like the counters
//!    of the Redis and PostgreSQL stores.
//! 3. **The used free nodes in the trait's queue order**: those whose recorded bound is not
//!    ahead of the caller's clock first, released longest ago first — by the `mzxid` of the
//!    record's last write (the release, or the last renewal of a holder whose session
//!    expired); then those whose bound is ahead, the nearest bound first.
//!
//! So an identity's own free id wins over the queue order (a node just released by the same
//! identity is the first it gets back), and the fallback of an identity whose id is held by a
//! live session, or whose sequence number lies outside the node space, is 2 then 3. Two
//! processes that start with the same identity at the same moment may both create an entry;
//! the lower sequence number is the identity's id from then on, the other stays unused.
//!
//! Under contention the order loosens by design: each node in 2 or 3 that another acquirer
//! creates `held/N` for first (the grant's multi fails) widens the choice to a random one of the
//! next 2, 4, 8, … candidates in that order, so 64 acquirers starting at once each need a few
//! attempts instead of queueing one behind another on the same lowest node. An acquirer alone
//! always takes the first candidate. A snapshot whose free nodes were all won by others is read
//! again (up to 64 times) before [`Error::NoFreeNode`]; a snapshot with none is `NoFreeNode` at
//! once.
//!
//! # Sessions are the leases
//!
//! Every lease has its own ZooKeeper session, opened by the acquire and closed by the release,
//! and its own current-thread tokio runtime that only that lease's calls drive (the client
//! library's pings and reconnects run only then too). A session is therefore touched exactly
//! when its lease is renewed: a holder that stops renewing (its
//! process killed, stopped with SIGSTOP, or its renewal thread stuck) lets the session expire,
//! ZooKeeper deletes `held/N`, and the node is granted again — above the bound the holder
//! recorded, since only a holder can raise its record. A lease can be renewed or released only
//! through the store object that acquired it (it holds the session).
//!
//! The session timeout asked for is the URL's `session_timeout_ms`, else the lease's TTL; the
//! server clamps it to its `minSessionTimeout`..`maxSessionTimeout` (by default 2 to 20
//! `tickTime`s). A lease whose TTL exceeds the timeout the server granted is refused with
//! [`Error::InvalidConfig`], because of the deadline arithmetic:
//!
//! - a [`LeasedSnowflake`](crate::lease::LeasedSnowflake) mints only until *S + TTL − margin*,
//!   where *S* is its monotonic clock just before it sent its last successful renewal;
//! - that renewal's request reached the server after *S*, which touched the session then; a
//!   server expires a session no sooner than its last touch plus the negotiated timeout
//!   (rounded up to a tick), and a leader change or restart only extends that;
//! - so with *timeout ≥ TTL*, the holder stops minting before its session could expire and
//!   `held/N` could be deleted, by at least the safety margin (which covers clock rate
//!   differences). A longer session timeout only keeps a crashed holder's node longer.
//!
//! Renew checks, in one multi-read, that the session's `held/N` is still its own — ephemeral
//! owner the lease's session, `czxid` the lease's token, data holding the lease's owner nonce
//! and epoch —, that the epoch is the lease's and the record names the lease's owner; then a
//! multi-write checks the epoch and `held/N` versions and sets the record (its version, which
//! every grant bumps, must not have moved). Any difference is [`Error::LeaseLost`]; so is a
//! session that expired (ZooKeeper says so, or the client gave up reconnecting after 7/5 of the
//! timeout). Release does the same checks, raises the bound to the final value (never lowers
//! it), deletes `held/N` and closes the session.
//!
//! # Data loss
//!
//! A ZooKeeper can lose what it acknowledged: its data directory wiped or replaced, `PATH` (or
//! a namespace) deleted by hand. A holder whose records vanished does not stop at once: it
//! mints until its next renewal fails, up to the bound it recorded. So when an acquire finds the
//! epoch znode, or any of `forever/`, `held/`, `node/` of the namespace, missing, it starts a
//! new epoch: a new random value (renewals of leases of the old one fail: "the store lost its
//! records") and a lock delay, `fence = now + the longest horizon` ([`LeaseSpec::horizon`]; the
//! largest asked for in the namespace is recorded in the epoch znode), that every grant before
//! it carries as [`Lease::not_before_ms`], folded into [`Lease::fence_ms`]. A namespace's first
//! grant cannot be told from the first grant after a loss, so it pays the lock delay too,
//! once. A wiped server also forgets its sessions: old holders' clients cannot resume them (the
//! server refuses a client that saw newer transactions than it has), their renewals fail, and
//! they stop minting at their deadline.
//!
//! **Not detected**: a ZooKeeper restored from an older snapshot that still holds the
//! namespace's epoch (grants and bounds after the snapshot are forgotten, with no sign); single
//! znodes deleted or edited by hand (a `node/N` record deleted while its node is free loses the
//! node's fence). The lock delay and every fence are in the holders' clocks, which must agree
//! to well within the horizon.
//!
//! # Calls and deadlines
//!
//! `timeout_ms` (default [`DEFAULT_STORE_TIMEOUT`](super::DEFAULT_STORE_TIMEOUT)) bounds every
//! call on the client: an acquire connects a new session within one timeout and does its
//! requests within a second one; renew and release end within one timeout (release's closing
//! of the session gets what is left of it). A stopped server (SIGSTOP), a dead host or a
//! partition fails a call with [`Error::StoreUnavailable`] at the deadline. A renewal or release
//! whose connection drops (a server restart, or a lease renewed less often than the client's
//! connection timeout, 3/5 of the session's, whose idle connection is given up at the call's
//! first poll) waits, within its deadline, for the client to reconnect to the same session and
//! tries again — or finds the session expired: [`Error::LeaseLost`]. A request cut off by
//! the deadline may still reach the server later: every write is version-checked, so a late
//! renewal only raises a record that is still its lease's, and a late grant belongs to a
//! session that the failed acquire closed.
//!
//! # Work per call
//!
//! An acquire reads the namespace in one multi-read (the epoch, `forever/`'s children,
//! `held/`'s, `node/`'s), writes a grant as one multi (epoch check, `create` of `held/N`, the
//! record's versioned `setData` or `create`), and reads the records of used free nodes only
//! when no never-used node is left, in multi-reads of [`READ_BATCH`]: its work grows with the
//! nodes ever used in the namespace, not with the node space. Renew and release are one
//! multi-read and one multi-write. Needs ZooKeeper 3.6 or later (multi-read).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use idmint::{Error, Result};
use zookeeper_client::{
    Acls, Client, CreateMode, MultiReadResult, MultiWriteError, MultiWriteResult, SessionState,
    Stat,
};

use crate::reason::Reason;

use super::{url, Lease, LeaseSpec, LeaseStore};

type ZkError = zookeeper_client::Error;

const STORE: &str = "zookeeper";

/// How many node records one multi-read of an acquire reads.
pub const READ_BATCH: usize = 256;

/// How often an acquire starts over after the namespace changed under it, or after every node
/// it found free was taken by someone else first.
const PLANS: u64 = 64;

/// The longest `identity=` (or holder name used as the identity), in bytes.
const MAX_IDENTITY: usize = 128;

/// Node leases on ZooKeeper; see the [module docs](self).
pub struct ZkStore {
    /// `HOST:PORT[,HOST:PORT...]`, as the client takes it.
    hosts: String,
    /// The znode under which the namespaces live (`/idmint`), without a trailing `/`.
    root: String,
    timeout: Duration,
    session_timeout: Option<Duration>,
    identity: Option<String>,
    /// The sessions of the leases this store granted, by owner nonce.
    sessions: Mutex<HashMap<u64, Arc<Mutex<Option<Session>>>>>,
}

impl std::fmt::Debug for ZkStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZkStore")
            .field("hosts", &self.hosts)
            .field("root", &self.root)
            .field("timeout", &self.timeout)
            .field("session_timeout", &self.session_timeout)
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

/// A lease's ZooKeeper session, and the runtime that alone drives it: the session is touched
/// only while a call of this lease runs.
struct Session {
    client: Client,
    runtime: Runtime,
    /// The lease it was opened for: (namespace, node, token, epoch).
    granted: (String, u64, u64, u64),
    /// The timeout the server granted.
    negotiated: Duration,
    /// When a call on it last succeeded.
    last_ok: Instant,
}

/// A current-thread runtime that is shut down without waiting when dropped: a session not
/// closed by then expires on the server.
struct Runtime(Option<tokio::runtime::Runtime>);

impl Drop for Runtime {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

impl Session {
    /// Drives `fut` on the session's runtime for at most `limit`; `None` when time ran out.
    fn block<F>(&self, limit: Duration, fut: F) -> Option<F::Output>
    where
        F: Future + Send,
        F::Output: Send,
    {
        block(self.runtime.0.as_ref()?, limit, fut)
    }

    /// Closes the session (ZooKeeper deletes its ephemeral znodes), waiting up to `limit`
    /// for the server's answer.
    fn close(self, limit: Duration) {
        let Session {
            client, runtime, ..
        } = self;
        let mut watcher = client.state_watcher();
        // With the last client handle gone, the session task sends `closeSession`.
        drop(client);
        let Some(rt) = runtime.0.as_ref() else {
            return;
        };
        if !limit.is_zero() {
            block(rt, limit, async move {
                while !watcher.peek_state().is_terminated() {
                    watcher.changed().await;
                }
            });
        }
    }
}

/// Drives `fut` on `rt` for at most `limit`: `None` when the time ran out (the future is
/// dropped then). Inside another tokio runtime, which cannot drive this one, a helper thread
/// drives it.
fn block<F>(rt: &tokio::runtime::Runtime, limit: Duration, fut: F) -> Option<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    let drive = move || rt.block_on(async move { tokio::time::timeout(limit, fut).await.ok() });
    if tokio::runtime::Handle::try_current().is_ok() {
        std::thread::scope(|s| s.spawn(drive).join().ok().flatten())
    } else {
        drive()
    }
}

fn unavailable(op: &'static str, reason: &'static str) -> Error {
    Error::StoreUnavailable {
        store: STORE,
        op,
        reason,
    }
}

const TIMED_OUT: &str = "timed out";
const CORRUPT: &str = "corrupt record";
const SESSION_GONE: &str = "the ZooKeeper session expired";
const RECORDS_LOST: &str = "the store lost its records";
const TAKEN: &str = "another holder has the node";

impl Reason for ZkError {
    fn reason(&self) -> &'static str {
        match self {
            ZkError::NoHosts => "no server reachable",
            ZkError::Timeout => TIMED_OUT,
            ZkError::ConnectionLoss => "connection lost",
            ZkError::SessionExpired | ZkError::SessionMoved => "session expired",
            ZkError::ClientClosed => "session closed",
            ZkError::NoAuth => "permission denied",
            ZkError::AuthFailed => "authentication failed",
            ZkError::Throttled => "server busy",
            ZkError::NotReadOnly => "server is read-only",
            ZkError::QuotaExceeded => "quota exceeded",
            ZkError::Unimplemented => "server too old (needs ZooKeeper 3.6 or later)",
            // The client's own connection failures ("no response from connection in N ms").
            ZkError::Custom(_) => "connection lost",
            _ => "server error",
        }
    }
}

/// Whether a ZooKeeper error is the connection's, not the session's: the client reconnects
/// to the same session by itself, and a request may be sent again.
fn connection_error(e: &ZkError) -> bool {
    matches!(e, ZkError::ConnectionLoss | ZkError::Custom(_))
}

/// Whether a ZooKeeper error means the session is gone for good.
fn session_ended(e: &ZkError) -> bool {
    matches!(
        e,
        ZkError::SessionExpired
            | ZkError::SessionMoved
            | ZkError::ClientClosed
            | ZkError::AuthFailed
    )
}

/// What stopped an operation.
#[derive(Debug)]
enum Fail {
    Zk(ZkError),
    Corrupt,
    NoFree,
    Lost(&'static str),
    Contention,
}

impl From<ZkError> for Fail {
    fn from(e: ZkError) -> Fail {
        Fail::Zk(e)
    }
}

impl From<MultiWriteError> for Fail {
    fn from(e: MultiWriteError) -> Fail {
        Fail::Zk(e.into())
    }
}

type Step<T> = std::result::Result<T, Fail>;

// ---------------------------------------------------------------------------------------------
// Records: `key=value` words, ASCII.

/// The value of `key` in a record, if the record is text and has it.
fn field<'a>(data: &'a [u8], key: &str) -> Option<&'a str> {
    let text = std::str::from_utf8(data).ok()?;
    text.split(' ')
        .filter_map(|w| w.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

fn num_field(data: &[u8], key: &str) -> Step<u64> {
    field(data, key)
        .and_then(|v| v.parse().ok())
        .ok_or(Fail::Corrupt)
}

fn hex_field(data: &[u8], key: &str) -> Step<u64> {
    field(data, key)
        .and_then(|v| u64::from_str_radix(v, 16).ok())
        .ok_or(Fail::Corrupt)
}

/// A number that may be `-` (none).
fn opt_field(data: &[u8], key: &str, radix: u32) -> Step<Option<u64>> {
    match field(data, key) {
        Some("-") => Ok(None),
        Some(v) => u64::from_str_radix(v, radix)
            .map(Some)
            .map_err(|_| Fail::Corrupt),
        None => Err(Fail::Corrupt),
    }
}

fn opt_text(v: Option<u64>, hex: bool) -> String {
    match v {
        None => "-".to_string(),
        Some(v) if hex => format!("{v:x}"),
        Some(v) => v.to_string(),
    }
}

/// The namespace's epoch znode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Epoch {
    /// Random, nonzero: [`Lease::epoch`].
    value: u64,
    /// The longest horizon asked for in the namespace, ms.
    horizon: u64,
    /// When the epoch began (the acquirer's clock).
    lost_at: u64,
    /// The lock delay: no grant of this epoch mints at or before it.
    fence: u64,
    /// The znode's data version.
    version: i32,
}

impl Epoch {
    fn parse(data: &[u8], stat: &Stat) -> Step<Epoch> {
        let value = hex_field(data, "epoch")?;
        if value == 0 {
            return Err(Fail::Corrupt);
        }
        Ok(Epoch {
            value,
            horizon: num_field(data, "horizon")?,
            lost_at: num_field(data, "lost_at")?,
            fence: num_field(data, "fence")?,
            version: stat.version,
        })
    }

    fn data(&self) -> String {
        format!(
            "epoch={:x} horizon={} lost_at={} fence={}",
            self.value, self.horizon, self.lost_at, self.fence
        )
    }
}

/// A node's persistent record `node/N`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct NodeRecord {
    /// The last-issued bound, ms (`None` before the first renewal).
    bound: Option<u64>,
    /// The owner nonce of the latest grant, `None` once released.
    owner: Option<u64>,
    version: i32,
    /// The zxid of its last write: its place in the queue when free.
    mzxid: i64,
}

impl NodeRecord {
    fn parse(data: &[u8], stat: &Stat) -> Step<NodeRecord> {
        Ok(NodeRecord {
            bound: opt_field(data, "bound", 10)?,
            owner: opt_field(data, "owner", 16)?,
            version: stat.version,
            mzxid: stat.mzxid,
        })
    }
}

fn record_data(bound: Option<u64>, owner: Option<u64>, holder: &str, identity: &str) -> String {
    format!(
        "bound={} owner={} holder={holder} identity={identity}",
        opt_text(bound, false),
        opt_text(owner, true)
    )
}

/// Rewrites a record's `bound` and `owner`, keeping its other words.
fn rewrite(data: &[u8], bound: Option<u64>, owner: Option<u64>) -> String {
    let text = std::str::from_utf8(data).unwrap_or("");
    let rest: Vec<&str> = text
        .split(' ')
        .filter(|w| !w.is_empty() && !w.starts_with("bound=") && !w.starts_with("owner="))
        .collect();
    let mut out = format!(
        "bound={} owner={}",
        opt_text(bound, false),
        opt_text(owner, true)
    );
    for w in rest {
        out.push(' ');
        out.push_str(w);
    }
    out
}

/// An identity as a znode name: bytes outside `[A-Za-z0-9_.:@-]` become `%XX`.
fn encode_identity(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'@' | b'-') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out == "." || out == ".." {
        out = out.replace('.', "%2E");
    }
    out
}

/// The sequence number of `name` if it is an entry of `identity` (`IDENTITY-0000000007`).
fn entry_sequence(name: &str, identity: &str) -> Option<u64> {
    let digits = name.strip_prefix(identity)?.strip_prefix('-')?;
    if digits.len() < 10 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn check_identity(id: &str) -> Result<()> {
    if id.is_empty()
        || id.len() > MAX_IDENTITY
        || id.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(Error::InvalidConfig {
            reason: "a ZooKeeper lease identity must be 1 to 128 bytes without spaces or control characters",
        });
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// URL

/// A znode path: `/a/b`, segments of printable ASCII other than `/`, not `.` or `..`, and not
/// under ZooKeeper's own `/zookeeper`.
fn check_root(path: &str) -> Result<()> {
    let bad = Error::InvalidConfig {
        reason: "zk:// URL path must be a znode path such as /idmint (no empty, `.` or `..` segments, not under /zookeeper)",
    };
    let Some(rest) = path.strip_prefix('/') else {
        return Err(bad);
    };
    let mut segments = rest.split('/');
    if segments.clone().next() == Some("zookeeper") {
        return Err(bad);
    }
    if segments
        .any(|s| s.is_empty() || s == "." || s == ".." || !s.bytes().all(|b| b.is_ascii_graphic()))
    {
        return Err(bad);
    }
    Ok(())
}

/// `HOST:PORT`, with a bracketed IPv6 host allowed.
fn check_host(hp: &str) -> Result<()> {
    let bad = Error::InvalidConfig {
        reason: "zk:// URL hosts must be HOST:PORT[,HOST:PORT...] with ports 1 to 65535",
    };
    let (host, port) = hp.rsplit_once(':').ok_or(bad)?;
    let port_ok = !port.is_empty()
        && port.bytes().all(|b| b.is_ascii_digit())
        && port.parse::<u16>().is_ok_and(|p| p != 0);
    let host_ok = if let Some(inner) = host.strip_prefix('[') {
        inner.strip_suffix(']').is_some_and(|h| !h.is_empty())
    } else {
        !host.is_empty()
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
    };
    if port_ok && host_ok {
        Ok(())
    } else {
        Err(bad)
    }
}

/// The namespace's znodes.
struct Paths {
    epoch: String,
    forever: String,
    held: String,
    node: String,
}

impl Paths {
    fn new(root: &str, ns: &str) -> Paths {
        Paths {
            epoch: format!("{root}/{ns}/epoch"),
            forever: format!("{root}/{ns}/forever"),
            held: format!("{root}/{ns}/held"),
            node: format!("{root}/{ns}/node"),
        }
    }

    fn held(&self, n: u64) -> String {
        format!("{}/{n}", self.held)
    }

    fn node(&self, n: u64) -> String {
        format!("{}/{n}", self.node)
    }
}

/// What an acquire asks for.
struct Ask<'a> {
    nodes: u64,
    now: u64,
    avoid: Option<u64>,
    horizon: u64,
    holder: &'a str,
    identity: &'a str,
    owner: u64,
    fresh_epoch: u64,
}

/// A grant.
struct Granted {
    node: u64,
    token: u64,
    bound: Option<u64>,
    epoch: Epoch,
}

/// One grant attempt's outcome.
enum Try {
    Granted(Granted),
    /// Someone else has the node, or granted it meanwhile: try the next one.
    Taken,
    /// The namespace changed (epoch, directories): plan again.
    Changed,
}

fn persistent() -> zookeeper_client::CreateOptions<'static> {
    CreateMode::Persistent.with_acls(Acls::anyone_all())
}

fn ephemeral() -> zookeeper_client::CreateOptions<'static> {
    CreateMode::Ephemeral.with_acls(Acls::anyone_all())
}

/// The data of a multi-read result; `None` for `NoNode`.
fn data_of(r: MultiReadResult) -> Step<Option<(Vec<u8>, Stat)>> {
    match r {
        MultiReadResult::Data { data, stat } => Ok(Some((data, stat))),
        MultiReadResult::Error {
            err: ZkError::NoNode,
        } => Ok(None),
        MultiReadResult::Error { err } => Err(Fail::Zk(err)),
        _ => Err(Fail::Corrupt),
    }
}

fn children_of(r: MultiReadResult) -> Step<Option<Vec<String>>> {
    match r {
        MultiReadResult::Children { children } => Ok(Some(children)),
        MultiReadResult::Error {
            err: ZkError::NoNode,
        } => Ok(None),
        MultiReadResult::Error { err } => Err(Fail::Zk(err)),
        _ => Err(Fail::Corrupt),
    }
}

fn numbered(children: &[String]) -> impl Iterator<Item = u64> + '_ {
    children.iter().filter_map(|c| {
        if c.bytes().all(|b| b.is_ascii_digit()) {
            c.parse().ok()
        } else {
            None
        }
    })
}

/// Creates the namespace's missing znodes. A namespace that lacks its epoch, or any of its
/// directories, may have lost records: it gets a new epoch whose grants are fenced past now +
/// the longest horizon (the lock delay).
async fn repair(c: &Client, p: &Paths, a: &Ask<'_>, seen: Option<Epoch>) -> Step<()> {
    for dir in [&p.forever, &p.held, &p.node] {
        c.mkdir(dir, &persistent()).await?;
    }
    let horizon = seen.map_or(0, |e| e.horizon).max(a.horizon);
    let fresh = Epoch {
        value: a.fresh_epoch,
        horizon,
        lost_at: a.now,
        fence: a
            .now
            .saturating_add(horizon)
            .max(seen.map_or(0, |e| e.fence)),
        version: 0,
    };
    let r = match seen {
        None => c
            .create(&p.epoch, fresh.data().as_bytes(), &persistent())
            .await
            .map(drop),
        Some(old) => c
            .set_data(&p.epoch, fresh.data().as_bytes(), Some(old.version))
            .await
            .map(drop),
    };
    match r {
        // Another acquirer repaired it first: planning again reads its epoch.
        Ok(()) | Err(ZkError::NodeExists | ZkError::BadVersion | ZkError::NoNode) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// The acquire: plans from one snapshot of the namespace, and grants the first free node in
/// the order of the module docs, planning again when the namespace changed meanwhile.
async fn acquire_on(c: &Client, p: &Paths, a: &Ask<'_>) -> Step<Granted> {
    for plan in 0..PLANS {
        if plan > 0 {
            // Others won the nodes this one saw free: let them finish before looking again.
            tokio::time::sleep(Duration::from_millis(plan.min(10))).await;
        }
        let mut r = c.new_multi_reader();
        r.add_get_data(&p.epoch)?;
        r.add_get_data(&p.forever)?;
        r.add_get_children(&p.forever)?;
        r.add_get_children(&p.held)?;
        r.add_get_children(&p.node)?;
        let mut res = r.commit().await?.into_iter();
        let mut next = || res.next().ok_or(Fail::Corrupt);
        let epoch = match data_of(next()?)? {
            Some((d, s)) => Some(Epoch::parse(&d, &s)?),
            None => None,
        };
        let forever_stat = data_of(next()?)?.map(|(_, s)| s);
        let forever = children_of(next()?)?;
        let held = children_of(next()?)?;
        let used = children_of(next()?)?;
        let (Some(mut epoch), Some(forever_stat), Some(forever), Some(held), Some(used)) =
            (epoch, forever_stat, forever, held, used)
        else {
            repair(c, p, a, epoch).await?;
            continue;
        };
        if a.horizon > epoch.horizon {
            // A longer horizon than recorded stretches the current lock delay too.
            let raised = Epoch {
                horizon: a.horizon,
                fence: epoch.fence.max(epoch.lost_at.saturating_add(a.horizon)),
                ..epoch
            };
            match c
                .set_data(&p.epoch, raised.data().as_bytes(), Some(epoch.version))
                .await
            {
                Ok(stat) => {
                    epoch = Epoch {
                        version: stat.version,
                        ..raised
                    }
                }
                Err(ZkError::BadVersion | ZkError::NoNode) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        let held: HashSet<u64> = numbered(&held).collect();
        let used: BTreeSet<u64> = numbered(&used).collect();
        let free = |n: u64| n < a.nodes && Some(n) != a.avoid && !held.contains(&n);

        // 1. The identity's own id.
        let mut mine = forever
            .iter()
            .filter_map(|name| entry_sequence(name, a.identity))
            .min();
        if mine.is_none() && u64::try_from(forever_stat.cversion).is_ok_and(|v| v < a.nodes) {
            let entry = format!(
                "identity={} holder={} host={} pid={} created_ms={}",
                a.identity,
                a.holder,
                super::hostname().replace(' ', "_"),
                std::process::id(),
                a.now
            );
            let seq_mode = CreateMode::PersistentSequential.with_acls(Acls::anyone_all());
            match c
                .create(
                    &format!("{}/{}-", p.forever, a.identity),
                    entry.as_bytes(),
                    &seq_mode,
                )
                .await
            {
                Ok((_, seq)) => mine = u64::try_from(seq.into_i64()).ok(),
                Err(ZkError::NoNode) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        let mine = mine.filter(|&m| free(m));
        if let Some(m) = mine {
            let record = if used.contains(&m) {
                read_records(c, p, &[m]).await?.pop().map(|(_, r)| r)
            } else {
                None
            };
            // A used node whose record vanished in between: plan again.
            if used.contains(&m) && record.is_none() {
                continue;
            }
            match grant(c, p, a, epoch, m, record).await? {
                Try::Granted(g) => return Ok(g),
                Try::Taken => {}
                Try::Changed => continue,
            }
        }

        // 2. The lowest never-used node; 3. used free nodes in queue order. Each node another
        // acquirer takes first widens the choice (see `Spread`), so a crowd spreads out.
        let mut spread = Spread::new(a.owner ^ plan);
        let mut tried = mine.is_some();
        let mut taken: HashSet<u64> = HashSet::new();
        let mut changed = false;
        loop {
            let window = never_used(a.nodes, spread.window(), |k| {
                used.contains(&k) || !free(k) || Some(k) == mine || taken.contains(&k)
            });
            let Some(&k) = spread.pick(&window) else {
                break;
            };
            tried = true;
            match grant(c, p, a, epoch, k, None).await? {
                Try::Granted(g) => return Ok(g),
                Try::Taken => {
                    taken.insert(k);
                    spread.lost();
                }
                Try::Changed => {
                    changed = true;
                    break;
                }
            }
        }
        if changed {
            continue;
        }
        let candidates: Vec<u64> = used
            .iter()
            .copied()
            .filter(|&n| free(n) && Some(n) != mine)
            .collect();
        let mut records = Vec::with_capacity(candidates.len());
        for chunk in candidates.chunks(READ_BATCH) {
            records.extend(read_records(c, p, chunk).await?);
        }
        records.sort_by_key(|(n, r)| {
            let ahead = r.bound.is_some_and(|b| b > a.now);
            let bound = if ahead { r.bound.unwrap_or(0) } else { 0 };
            (ahead, bound, r.mzxid, *n)
        });
        while !records.is_empty() {
            let end = spread.window().min(records.len());
            let Some(i) = spread.pick_index(end) else {
                break;
            };
            let (n, r) = records.remove(i);
            tried = true;
            match grant(c, p, a, epoch, n, Some(r)).await? {
                Try::Granted(g) => return Ok(g),
                Try::Taken => spread.lost(),
                Try::Changed => {
                    changed = true;
                    break;
                }
            }
        }
        if !changed && !tried {
            // Nothing free in this snapshot of the namespace.
            return Err(Fail::NoFree);
        }
    }
    // Every node seen free was taken first by others, plan after plan.
    Err(Fail::NoFree)
}

/// The first `count` nodes below `nodes` that `skip` does not exclude, lowest first. Costs
/// the excluded nodes below the last one returned plus `count`, not the node space.
fn never_used(nodes: u64, count: usize, skip: impl Fn(u64) -> bool) -> Vec<u64> {
    let mut out = Vec::with_capacity(count);
    let mut k = 0u64;
    while k < nodes && out.len() < count {
        if !skip(k) {
            out.push(k);
        }
        k += 1;
    }
    out
}

/// How an acquire chooses among candidates in preference order: the first, until another
/// acquirer takes a node first; after `f` such losses, a random one of the first `2^f`. One
/// acquirer alone always gets the first; 64 acquirers at once need a few attempts each
/// instead of queueing one after another on the same node.
struct Spread {
    losses: u32,
    state: u64,
}

impl Spread {
    fn new(seed: u64) -> Spread {
        Spread {
            losses: 0,
            state: seed,
        }
    }

    fn window(&self) -> usize {
        1usize << self.losses.min(16)
    }

    fn lost(&mut self) {
        self.losses = self.losses.saturating_add(1);
    }

    /// A random index below `len` (0 before any loss); `None` when `len` is 0.
    fn pick_index(&mut self, len: usize) -> Option<usize> {
        if len == 0 {
            return None;
        }
        // splitmix64
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        Some((z % len as u64) as usize)
    }

    fn pick<'a>(&mut self, window: &'a [u64]) -> Option<&'a u64> {
        let i = self.pick_index(window.len())?;
        window.get(i)
    }
}

/// The records of `nodes` that exist, in one multi-read.
async fn read_records(c: &Client, p: &Paths, nodes: &[u64]) -> Step<Vec<(u64, NodeRecord)>> {
    let mut r = c.new_multi_reader();
    for &n in nodes {
        r.add_get_data(&p.node(n))?;
    }
    let res = r.commit().await?;
    let mut out = Vec::with_capacity(nodes.len());
    for (&n, item) in nodes.iter().zip(res) {
        if let Some((d, s)) = data_of(item)? {
            out.push((n, NodeRecord::parse(&d, &s)?));
        }
    }
    Ok(out)
}

/// Grants node `n`: one multi that checks the epoch is unchanged, creates `held/N` (fails if
/// anyone holds it) and writes the record under the version read (or creates it).
async fn grant(
    c: &Client,
    p: &Paths,
    a: &Ask<'_>,
    epoch: Epoch,
    n: u64,
    record: Option<NodeRecord>,
) -> Step<Try> {
    let held_path = p.held(n);
    let node_path = p.node(n);
    let held_data = format!(
        "epoch={:x} owner={:x} holder={} identity={}",
        epoch.value, a.owner, a.holder, a.identity
    );
    let bound = record.as_ref().and_then(|r| r.bound);
    let rec = record_data(bound, Some(a.owner), a.holder, a.identity);
    let mut w = c.new_multi_writer();
    w.add_check_version(&p.epoch, epoch.version)?;
    w.add_create(&held_path, held_data.as_bytes(), &ephemeral())?;
    match &record {
        Some(r) => w.add_set_data(&node_path, rec.as_bytes(), Some(r.version))?,
        None => w.add_create(&node_path, rec.as_bytes(), &persistent())?,
    }
    let results = match w.commit().await {
        Ok(results) => results,
        Err(MultiWriteError::OperationFailed { index, source }) => {
            return match (index, source) {
                (0, ZkError::BadVersion | ZkError::NoNode) => Ok(Try::Changed),
                (1, ZkError::NodeExists) => Ok(Try::Taken),
                (1, ZkError::NoNode) => Ok(Try::Changed),
                (2, ZkError::BadVersion | ZkError::NoNode | ZkError::NodeExists) => Ok(Try::Taken),
                (_, e) => Err(e.into()),
            }
        }
        Err(e) => return Err(e.into()),
    };
    let mut token = match results.get(1) {
        Some(MultiWriteResult::Create { stat, .. }) if stat.czxid > 0 => stat.czxid,
        _ => 0,
    };
    if token == 0 {
        // Some servers answer a create inside a multi without its stat: read it back.
        let (_, stat) = c.get_data(&held_path).await?;
        if stat.ephemeral_owner != c.session_id().0 {
            return Err(Fail::Lost(TAKEN));
        }
        token = stat.czxid;
    }
    Ok(Try::Granted(Granted {
        node: n,
        token: u64::try_from(token).map_err(|_| Fail::Corrupt)?,
        bound,
        epoch,
    }))
}

/// What a holder call does once the lease is found to be its own.
#[derive(Debug, Clone, Copy)]
enum Hold {
    /// Raise the record's bound to this (never lower it).
    Renew(u64),
    /// Raise the bound to this (never lower it), delete `held/N`.
    Release(u64),
}

/// [`hold_on`], again after the connection dropped (the client reconnects to the same session,
/// or finds it expired): a lease renewed less often than the connection timeout (3/5 of the
/// session's) finds its idle connection given up at the call's first poll. Bounded by the
/// call's deadline. A release whose first attempt went through is recognised by its record.
async fn hold_retrying(c: &Client, p: &Paths, lease: &Lease, what: Hold) -> Step<()> {
    let mut again = false;
    let mut attempts = 0;
    loop {
        attempts += 1;
        let r = hold_on(c, p, lease, what).await;
        match (r, what) {
            (Err(Fail::Zk(e)), _) if connection_error(&e) && attempts < 8 => {
                let mut watcher = c.state_watcher();
                loop {
                    let state = watcher.peek_state();
                    if state.is_terminated() {
                        return Err(Fail::Lost(SESSION_GONE));
                    }
                    if state == SessionState::SyncConnected {
                        break;
                    }
                    watcher.changed().await;
                }
                again = true;
            }
            (Err(Fail::Lost(_)), Hold::Release(last))
                if again && released(c, p, lease, last).await =>
            {
                return Ok(())
            }
            (r, _) => return r,
        }
    }
}

/// Whether the lease's release is already recorded: `held/N` gone, the record freed with
/// this bound or a higher one.
async fn released(c: &Client, p: &Paths, lease: &Lease, last: u64) -> bool {
    let held = c.check_stat(&p.held(lease.node)).await;
    let rec = c.get_data(&p.node(lease.node)).await;
    match (held, rec) {
        (Ok(None), Ok((data, stat))) => NodeRecord::parse(&data, &stat)
            .is_ok_and(|r| r.owner.is_none() && r.bound.is_some_and(|b| b >= last)),
        _ => false,
    }
}

/// Renew or release: checks that `held/N`, the record and the epoch are still the lease's,
/// then writes, version-checked; reads again if a version moved meanwhile.
async fn hold_on(c: &Client, p: &Paths, lease: &Lease, what: Hold) -> Step<()> {
    let held_path = p.held(lease.node);
    let node_path = p.node(lease.node);
    let session = c.session_id().0;
    for _ in 0..4 {
        let mut r = c.new_multi_reader();
        r.add_get_data(&p.epoch)?;
        r.add_get_data(&held_path)?;
        r.add_get_data(&node_path)?;
        let mut res = r.commit().await?.into_iter();
        let mut next = || res.next().ok_or(Fail::Corrupt);
        let epoch = match data_of(next()?)? {
            Some((d, s)) => Epoch::parse(&d, &s)?,
            None => return Err(Fail::Lost(RECORDS_LOST)),
        };
        if epoch.value != lease.epoch {
            return Err(Fail::Lost(RECORDS_LOST));
        }
        let Some((held_data, held_stat)) = data_of(next()?)? else {
            return Err(Fail::Lost(SESSION_GONE));
        };
        let ours = held_stat.ephemeral_owner == session
            && u64::try_from(held_stat.czxid) == Ok(lease.token)
            && hex_field(&held_data, "owner").ok() == Some(lease.owner)
            && hex_field(&held_data, "epoch").ok() == Some(lease.epoch);
        if !ours {
            return Err(Fail::Lost(TAKEN));
        }
        let Some((rec_data, rec_stat)) = data_of(next()?)? else {
            return Err(Fail::Lost(RECORDS_LOST));
        };
        let rec = NodeRecord::parse(&rec_data, &rec_stat)?;
        if rec.owner != Some(lease.owner) {
            return Err(Fail::Lost(TAKEN));
        }
        let mut w = c.new_multi_writer();
        w.add_check_version(&p.epoch, epoch.version)?;
        match what {
            Hold::Renew(up_to) => {
                let bound = rec.bound.map_or(up_to, |b| b.max(up_to));
                let data = rewrite(&rec_data, Some(bound), Some(lease.owner));
                w.add_check_version(&held_path, held_stat.version)?;
                w.add_set_data(&node_path, data.as_bytes(), Some(rec.version))?;
            }
            Hold::Release(last) => {
                // The record only rises: a release below what was renewed leaves it.
                let bound = rec.bound.map_or(last, |b| b.max(last));
                let data = rewrite(&rec_data, Some(bound), None);
                w.add_set_data(&node_path, data.as_bytes(), Some(rec.version))?;
                w.add_delete(&held_path, Some(held_stat.version))?;
            }
        }
        match w.commit().await {
            Ok(_) => return Ok(()),
            Err(MultiWriteError::OperationFailed {
                source: ZkError::BadVersion | ZkError::NoNode,
                ..
            }) => continue, // something moved: look again
            Err(e) => return Err(e.into()),
        }
    }
    Err(Fail::Contention)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl ZkStore {
    /// Opens a store for `zk://HOST:PORT[,HOST:PORT...]/PATH` with the parameters
    /// `timeout_ms=N` (the deadline of each call), `session_timeout_ms=N` (the session timeout
    /// asked for; default the lease's TTL) and `identity=NAME` (Leaf's worker identity;
    /// default the holder name). Does not connect yet.
    pub fn open(url: &str) -> Result<ZkStore> {
        let split = url::split_params(url)?;
        if split.mode.is_some() {
            return Err(Error::InvalidConfig {
                reason: "the ZooKeeper lease store has no `mode` parameter",
            });
        }
        let rest = split
            .url
            .strip_prefix("zk://")
            .ok_or(Error::InvalidConfig {
                reason: "a ZooKeeper lease store URL starts with zk://",
            })?;
        let (base, query) = match rest.split_once('?') {
            Some((b, q)) => (b, Some(q)),
            None => (rest, None),
        };
        let mut session_timeout = None;
        let mut identity = None;
        for pair in query.into_iter().flat_map(|q| q.split('&')) {
            if pair.is_empty() {
                continue;
            }
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            match k {
                "session_timeout_ms" => {
                    let ms: u64 = v.parse().map_err(|_| Error::InvalidConfig {
                        reason: "session_timeout_ms must be a whole number of milliseconds",
                    })?;
                    if ms == 0 || ms > i32::MAX as u64 {
                        return Err(Error::InvalidConfig {
                            reason: "session_timeout_ms must be 1 to 2147483647",
                        });
                    }
                    session_timeout = Some(Duration::from_millis(ms));
                }
                "identity" => {
                    check_identity(v)?;
                    identity = Some(v.to_string());
                }
                _ => {
                    return Err(Error::InvalidConfig {
                        reason:
                            "zk:// URL parameters are timeout_ms, session_timeout_ms and identity",
                    })
                }
            }
        }
        let Some((hosts, path)) = base.split_once('/') else {
            return Err(Error::InvalidConfig {
                reason: "zk:// URL needs a path: zk://HOST:PORT[,HOST:PORT...]/PATH",
            });
        };
        if hosts.is_empty() {
            return Err(Error::InvalidConfig {
                reason: "zk:// URL needs at least one HOST:PORT",
            });
        }
        for hp in hosts.split(',') {
            check_host(hp)?;
        }
        let root = format!("/{path}");
        check_root(&root)?;
        Ok(ZkStore {
            hosts: hosts.to_string(),
            root,
            timeout: split.timeout,
            session_timeout,
            identity,
            sessions: Mutex::new(HashMap::new()),
        })
    }

    /// The timeout of each call.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The znode under which the namespaces live.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// Opens a new session for a lease of `ttl`, within one timeout.
    fn connect(&self, ttl: Duration) -> Result<Session> {
        let asked = self.session_timeout.unwrap_or(ttl);
        if asked < ttl {
            return Err(Error::InvalidConfig {
                reason: "session_timeout_ms must be at least the lease TTL: a holder must stop minting before its session can expire",
            });
        }
        // The session task runs only while a call of this lease drives the runtime; 3/5 of the
        // session timeout between calls (a renewal period is at most a third) must not be
        // taken for a dead connection.
        let asked = asked.min(Duration::from_millis(i32::MAX as u64));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .map_err(|e| unavailable("acquire", e.reason()))?;
        let connector = Client::connector()
            .with_session_timeout(asked)
            .with_connection_timeout(asked * 3 / 5)
            .with_fail_eagerly();
        let hosts = self.hosts.as_str();
        let client = match block(&runtime, self.timeout, connector.connect(hosts)) {
            None => return Err(unavailable("acquire", TIMED_OUT)),
            Some(Err(e)) => return Err(unavailable("acquire", e.reason())),
            Some(Ok(c)) => c,
        };
        let session = Session {
            negotiated: client.session_timeout(),
            client,
            runtime: Runtime(Some(runtime)),
            granted: (String::new(), 0, 0, 0),
            last_ok: Instant::now(),
        };
        if session.negotiated < ttl {
            session.close(self.timeout);
            return Err(Error::InvalidConfig {
                reason: "the ZooKeeper server grants sessions shorter than the lease TTL: raise its maxSessionTimeout or lower the TTL",
            });
        }
        Ok(session)
    }

    /// Drops sessions that cannot be alive any more (the client gave up, or nothing succeeded
    /// on them for two session timeouts): their leases' holders stopped renewing long ago.
    fn sweep(&self) {
        let now = Instant::now();
        let mut map = lock(&self.sessions);
        map.retain(|_, slot| {
            // A session in use by a call right now is alive enough.
            let Ok(s) = slot.try_lock() else {
                return true;
            };
            s.as_ref().is_some_and(|s| {
                !s.client.state().is_terminated() && now < s.last_ok + s.negotiated * 2
            })
        });
    }

    fn session_of(&self, lease: &Lease) -> Option<Arc<Mutex<Option<Session>>>> {
        lock(&self.sessions).get(&lease.owner).cloned()
    }

    fn forget(&self, lease: &Lease) {
        lock(&self.sessions).remove(&lease.owner);
    }

    /// Renew or release through the lease's session.
    fn hold(&self, op: &'static str, lease: &Lease, what: Hold) -> Result<()> {
        let started = Instant::now();
        let lost = |reason| Error::LeaseLost {
            node: lease.node,
            reason,
        };
        let Some(slot) = self.session_of(lease) else {
            return Err(lost("not held through this store (its session is gone)"));
        };
        let mut guard = lock(&slot);
        let Some(s) = guard.as_mut() else {
            return Err(lost(SESSION_GONE));
        };
        let (ns, node, token, epoch) = &s.granted;
        if (ns.as_str(), *node, *token, *epoch)
            != (
                lease.namespace.as_str(),
                lease.node,
                lease.token,
                lease.epoch,
            )
        {
            // Not the lease this session was opened for (the owner nonce alone matched).
            return Err(lost(TAKEN));
        }
        let outcome = if s.client.state().is_terminated() {
            Err(Fail::Lost(SESSION_GONE))
        } else {
            let p = Paths::new(&self.root, &lease.namespace);
            let c = &s.client;
            match s.block(self.timeout, async {
                hold_retrying(c, &p, lease, what).await
            }) {
                None => Err(Fail::Zk(ZkError::Timeout)),
                Some(r) => r,
            }
        };
        let error = match outcome {
            Ok(()) => {
                s.last_ok = Instant::now();
                if let Hold::Release(_) = what {
                    let s = guard.take();
                    drop(guard);
                    self.forget(lease);
                    if let Some(s) = s {
                        s.close(self.timeout.saturating_sub(started.elapsed()));
                    }
                }
                return Ok(());
            }
            Err(Fail::Zk(e)) if session_ended(&e) => lost(SESSION_GONE),
            Err(Fail::Zk(ZkError::Timeout)) => unavailable(op, TIMED_OUT),
            Err(Fail::Zk(e)) => return Err(unavailable(op, e.reason())),
            Err(Fail::Lost(reason)) => lost(reason),
            Err(Fail::Corrupt) => return Err(unavailable(op, CORRUPT)),
            Err(Fail::NoFree) | Err(Fail::Contention) => {
                return Err(unavailable(op, "the lease's znodes kept changing"))
            }
        };
        if let Error::LeaseLost { .. } = error {
            // Nothing can be done through this session any more: close it, so ZooKeeper
            // frees anything it still holds.
            let s = guard.take();
            drop(guard);
            self.forget(lease);
            if let Some(s) = s {
                s.close(self.timeout.saturating_sub(started.elapsed()));
            }
        }
        Err(error)
    }
}

impl Drop for ZkStore {
    fn drop(&mut self) {
        // Sessions of leases never released expire on the server after their timeout, as a
        // crashed holder's would.
        lock(&self.sessions).clear();
    }
}

impl LeaseStore for ZkStore {
    fn kind(&self) -> &'static str {
        STORE
    }

    fn acquire(&self, spec: &LeaseSpec, now_ms: u64, avoid: Option<u64>) -> Result<Lease> {
        spec.validate()?;
        let holder = spec.holder_clean();
        let raw_identity = self.identity.clone().unwrap_or_else(|| holder.clone());
        check_identity(&raw_identity)?;
        let identity = encode_identity(&raw_identity);
        let holder_word = encode_identity(&holder);
        self.sweep();
        let session = self.connect(spec.ttl)?;
        let ask = Ask {
            nodes: spec.nodes,
            now: now_ms,
            avoid: avoid.filter(|&a| a < spec.nodes),
            horizon: spec.horizon_ms(),
            holder: &holder_word,
            identity: &identity,
            owner: super::random_nonzero()?,
            fresh_epoch: super::random_nonzero()?,
        };
        let p = Paths::new(&self.root, &spec.namespace);
        let started = Instant::now();
        let c = &session.client;
        let outcome = match session.block(self.timeout, async { acquire_on(c, &p, &ask).await }) {
            None => Err(Fail::Zk(ZkError::Timeout)),
            Some(r) => r,
        };
        let g = match outcome {
            Ok(g) => g,
            Err(f) => {
                // Whatever this session may have been granted meanwhile goes with it.
                session.close(self.timeout.saturating_sub(started.elapsed()));
                return Err(match f {
                    Fail::NoFree => Error::NoFreeNode { nodes: spec.nodes },
                    Fail::Zk(ZkError::Timeout) => unavailable("acquire", TIMED_OUT),
                    Fail::Zk(e) => unavailable("acquire", e.reason()),
                    Fail::Corrupt => unavailable("acquire", CORRUPT),
                    Fail::Lost(_) | Fail::Contention => {
                        unavailable("acquire", "the namespace kept changing")
                    }
                });
            }
        };
        let not_before_ms = (now_ms <= g.epoch.fence).then_some(g.epoch.fence);
        let fence_ms = [g.bound, not_before_ms].into_iter().flatten().max();
        let lease = Lease {
            namespace: spec.namespace.clone(),
            node: g.node,
            token: g.token,
            fence_ms,
            ttl: spec.ttl,
            holder,
            owner: ask.owner,
            epoch: g.epoch.value,
            not_before_ms,
        };
        let mut session = session;
        session.last_ok = Instant::now();
        session.granted = (
            lease.namespace.clone(),
            lease.node,
            lease.token,
            lease.epoch,
        );
        lock(&self.sessions).insert(lease.owner, Arc::new(Mutex::new(Some(session))));
        Ok(lease)
    }

    fn renew(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
        self.hold("renew", lease, Hold::Renew(issued_up_to_ms))
    }

    fn release(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
        self.hold(
            "release",
            lease,
            Hold::Release(lease.final_bound(issued_up_to_ms)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let s = ZkStore::open("zk://127.0.0.1:2181,[::1]:2182/apps/idmint?timeout_ms=250&session_timeout_ms=4000&identity=10.0.0.7:8080").unwrap();
        assert_eq!(s.hosts, "127.0.0.1:2181,[::1]:2182");
        assert_eq!(s.root, "/apps/idmint");
        assert_eq!(s.timeout, Duration::from_millis(250));
        assert_eq!(s.session_timeout, Some(Duration::from_secs(4)));
        assert_eq!(s.identity.as_deref(), Some("10.0.0.7:8080"));
        let s = ZkStore::open("zk://zk-1.example:2181/idmint").unwrap();
        assert_eq!(
            (s.timeout, s.session_timeout),
            (super::super::DEFAULT_STORE_TIMEOUT, None)
        );
        for bad in [
            "zk://127.0.0.1:2181",
            "zk://127.0.0.1:2181/",
            "zk:///idmint",
            "zk://127.0.0.1/idmint",
            "zk://127.0.0.1:0/idmint",
            "zk://127.0.0.1:99999/idmint",
            "zk://127.0.0.1:2181,/idmint",
            "zk://127.0.0.1:2181/a//b",
            "zk://127.0.0.1:2181/a/",
            "zk://127.0.0.1:2181/a/../b",
            "zk://127.0.0.1:2181/zookeeper/x",
            "zk://127.0.0.1:2181/idmint?mode=boot",
            "zk://127.0.0.1:2181/idmint?timeout_ms=0",
            "zk://127.0.0.1:2181/idmint?session_timeout_ms=x",
            "zk://127.0.0.1:2181/idmint?session_timeout_ms=0",
            "zk://127.0.0.1:2181/idmint?identity=",
            "zk://127.0.0.1:2181/idmint?color=blue",
            "zk://bad host:2181/idmint",
        ] {
            assert!(
                matches!(ZkStore::open(bad), Err(Error::InvalidConfig { .. })),
                "{bad} was accepted"
            );
        }
    }

    #[test]
    fn identities_as_znode_names() {
        assert_eq!(encode_identity("10.0.0.7:8080"), "10.0.0.7:8080");
        assert_eq!(encode_identity("a/b c%"), "a%2Fb%20c%25");
        assert_eq!(encode_identity(".."), "%2E%2E");
        assert_eq!(entry_sequence("svc-a-0000000007", "svc-a"), Some(7));
        assert_eq!(entry_sequence("svc-a-b-0000000007", "svc-a"), None);
        assert_eq!(entry_sequence("svc-a-0000000007", "svc"), None);
        assert_eq!(entry_sequence("svc-a-12", "svc-a"), None);
        assert!(check_identity(&"x".repeat(129)).is_err());
        assert!(check_identity("with space").is_err());
    }

    #[test]
    fn records() {
        let stat = Stat {
            czxid: 1,
            mzxid: 9,
            pzxid: 1,
            ctime: 0,
            mtime: 0,
            version: 3,
            cversion: 0,
            aversion: 0,
            ephemeral_owner: 0,
            data_length: 0,
            num_children: 0,
        };
        let data = record_data(None, Some(0xabc), "h:1:ff", "svc");
        assert_eq!(data, "bound=- owner=abc holder=h:1:ff identity=svc");
        let r = NodeRecord::parse(data.as_bytes(), &stat).unwrap();
        assert_eq!(
            (r.bound, r.owner, r.version, r.mzxid),
            (None, Some(0xabc), 3, 9)
        );
        let renewed = rewrite(data.as_bytes(), Some(42), Some(0xabc));
        assert_eq!(renewed, "bound=42 owner=abc holder=h:1:ff identity=svc");
        let released = rewrite(renewed.as_bytes(), Some(40), None);
        assert_eq!(
            NodeRecord::parse(released.as_bytes(), &stat).unwrap().owner,
            None
        );
        assert!(NodeRecord::parse(b"bound=x owner=-", &stat).is_err());
        let e = Epoch {
            value: 0xfeed,
            horizon: 2_000,
            lost_at: 5,
            fence: 2_005,
            version: 3,
        };
        assert_eq!(Epoch::parse(e.data().as_bytes(), &stat).unwrap(), e);
        assert!(Epoch::parse(b"epoch=0 horizon=1 lost_at=1 fence=1", &stat).is_err());
    }
}
