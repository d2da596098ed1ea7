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

use std::time::{Duration, Instant};

use idmint::{Error, Result};

use crate::reason::Reason;

use super::contract::{Lease, LeaseSpec, LeaseStore};
use super::url;

mod grant;
mod records;
mod session;

pub use grant::READ_BATCH;
use grant::{acquire_on, hold_retrying, Ask, Hold};
use records::{check_host, check_identity, check_root, encode_identity, Paths};
use session::{
    lock, session_ended, unavailable, Fail, Session, Sessions, ZkError, CORRUPT, SESSION_GONE,
    STORE, TAKEN, TIMED_OUT,
};

/// Node leases on ZooKeeper; see the [module docs](self).
#[derive(Debug)]
pub struct ZkStore {
    /// `HOST:PORT[,HOST:PORT...]`, as the client takes it.
    hosts: String,
    /// The znode under which the namespaces live (`/idmint`), without a trailing `/`.
    root: String,
    timeout: Duration,
    session_timeout: Option<Duration>,
    identity: Option<String>,
    /// The sessions of the leases this store granted, by owner nonce.
    sessions: Sessions,
}

impl ZkStore {
    /// Opens a store for `zk://HOST:PORT[,HOST:PORT...]/PATH` with the parameters
    /// `timeout_ms=N` (the deadline of each call), `session_timeout_ms=N` (the session timeout
    /// asked for; default the lease's TTL) and `identity=NAME` (Leaf's worker identity;
    /// default the holder name). Does not connect yet.
    pub fn open(url: &str) -> Result<ZkStore> {
        let split = url::split_params(url)?;
        split.no_mode("the ZooKeeper lease store has no `mode` parameter")?;
        let rest = split
            .url
            .strip_prefix("zk://")
            .ok_or(Error::InvalidConfig {
                reason: "a ZooKeeper lease store URL starts with zk://",
            })?;
        let (base, pairs) = url::query_pairs(rest);
        let mut session_timeout = None;
        let mut identity = None;
        for (k, v, _) in pairs {
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
            sessions: Sessions::default(),
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
        Session::open(&self.hosts, self.timeout, self.session_timeout, ttl)
    }

    /// Renew or release through the lease's session.
    fn hold(&self, op: &'static str, lease: &Lease, what: Hold) -> Result<()> {
        let started = Instant::now();
        let lost = |reason| Error::LeaseLost {
            node: lease.node,
            reason,
        };
        let Some(slot) = self.sessions.of(lease) else {
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
                    self.sessions.forget(lease);
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
            self.sessions.forget(lease);
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
        self.sessions.clear();
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
        self.sessions.sweep();
        let session = self.connect(spec.ttl)?;
        let ask = Ask {
            nodes: spec.nodes,
            now: now_ms,
            avoid: avoid.filter(|&a| a < spec.nodes),
            horizon: spec.horizon_ms(),
            holder: &holder_word,
            identity: &identity,
            owner: super::contract::random_nonzero()?,
            fresh_epoch: super::contract::random_nonzero()?,
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
        self.sessions.insert(lease.owner, session);
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
mod tests;
