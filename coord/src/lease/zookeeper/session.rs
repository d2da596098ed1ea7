//! The ZooKeeper store's connection plumbing: a session per lease on its own runtime, opening
//! and closing it, the per-lease session table, and what the client's errors mean.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use idmint::{Error, Result};
use zookeeper_client::{Client, MultiWriteError};

use crate::lease::contract::Lease;
use crate::reason::Reason;

pub(super) type ZkError = zookeeper_client::Error;

pub(super) const STORE: &str = "zookeeper";

/// A lease's ZooKeeper session, and the runtime that alone drives it: the session is touched
/// only while a call of this lease runs.
pub(super) struct Session {
    pub(super) client: Client,
    pub(super) runtime: Runtime,
    /// The lease it was opened for: (namespace, node, token, epoch).
    pub(super) granted: (String, u64, u64, u64),
    /// The timeout the server granted.
    pub(super) negotiated: Duration,
    /// When a call on it last succeeded.
    pub(super) last_ok: Instant,
}

/// A current-thread runtime that is shut down without waiting when dropped: a session not
/// closed by then expires on the server.
pub(super) struct Runtime(pub(super) Option<tokio::runtime::Runtime>);

impl Drop for Runtime {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

impl Session {
    /// Drives `fut` on the session's runtime for at most `limit`; `None` when time ran out.
    pub(super) fn block<F>(&self, limit: Duration, fut: F) -> Option<F::Output>
    where
        F: Future + Send,
        F::Output: Send,
    {
        block(self.runtime.0.as_ref()?, limit, fut)
    }

    /// Closes the session (ZooKeeper deletes its ephemeral znodes), waiting up to `limit`
    /// for the server's answer.
    pub(super) fn close(self, limit: Duration) {
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
pub(super) fn block<F>(rt: &tokio::runtime::Runtime, limit: Duration, fut: F) -> Option<F::Output>
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

pub(super) fn unavailable(op: &'static str, reason: &'static str) -> Error {
    Error::StoreUnavailable {
        store: STORE,
        op,
        reason,
    }
}

pub(super) const TIMED_OUT: &str = "timed out";
pub(super) const CORRUPT: &str = "corrupt record";
pub(super) const SESSION_GONE: &str = "the ZooKeeper session expired";
pub(super) const RECORDS_LOST: &str = "the store lost its records";
pub(super) const TAKEN: &str = "another holder has the node";

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
pub(super) fn connection_error(e: &ZkError) -> bool {
    matches!(e, ZkError::ConnectionLoss | ZkError::Custom(_))
}

/// Whether a ZooKeeper error means the session is gone for good.
pub(super) fn session_ended(e: &ZkError) -> bool {
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
pub(super) enum Fail {
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

pub(super) type Step<T> = std::result::Result<T, Fail>;

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Session {
    /// Opens a new session for a lease of `ttl` on `hosts`, within `timeout`; the session
    /// timeout asked for is `session_timeout`, by default the TTL.
    pub(super) fn open(
        hosts: &str,
        timeout: Duration,
        session_timeout: Option<Duration>,
        ttl: Duration,
    ) -> Result<Session> {
        let asked = session_timeout.unwrap_or(ttl);
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
        let client = match block(&runtime, timeout, connector.connect(hosts)) {
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
            session.close(timeout);
            return Err(Error::InvalidConfig {
                reason: "the ZooKeeper server grants sessions shorter than the lease TTL: raise its maxSessionTimeout or lower the TTL",
            });
        }
        Ok(session)
    }
}

/// A session in the table: locked by the one call of its lease that runs; `None` once closed.
pub(super) type Slot = Arc<Mutex<Option<Session>>>;

/// The sessions of the leases a store granted, by owner nonce.
#[derive(Default)]
pub(super) struct Sessions(Mutex<HashMap<u64, Slot>>);

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} sessions", lock(&self.0).len())
    }
}

impl Sessions {
    /// Drops sessions that cannot be alive any more (the client gave up, or nothing succeeded
    /// on them for two session timeouts): their leases' holders stopped renewing long ago.
    pub(super) fn sweep(&self) {
        let now = Instant::now();
        let mut map = lock(&self.0);
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

    /// The session `lease` was granted through.
    pub(super) fn of(&self, lease: &Lease) -> Option<Slot> {
        lock(&self.0).get(&lease.owner).cloned()
    }

    pub(super) fn insert(&self, owner: u64, session: Session) {
        lock(&self.0).insert(owner, Arc::new(Mutex::new(Some(session))));
    }

    pub(super) fn forget(&self, lease: &Lease) {
        lock(&self.0).remove(&lease.owner);
    }

    pub(super) fn clear(&self) {
        lock(&self.0).clear();
    }
}
