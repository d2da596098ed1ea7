//! Blocking calls over an async client: a current-thread tokio runtime that a store owns and
//! drives only while one of its calls runs, with a client-side deadline on each call.
//!
//! The PostgreSQL store offers the blocking [`LeaseStore`](crate::lease::LeaseStore)
//! and segment calls over async clients. The runtime starts no thread of its own (DNS look-ups
//! use its blocking pool); a client's background tasks (connection drivers) run while a call
//! is in [`Blocking::block`]. When a deadline fires, the call's future — and whatever
//! connection it owned — is dropped, so a server that never answers (stopped with SIGSTOP,
//! behind a firewall that drops packets) fails the call instead of hanging it.

use std::future::Future;
use std::time::Duration;

use idmint::{Error, Result};

use crate::reason::Reason;

/// A store's private runtime (see the [module docs](self)).
pub(crate) struct Blocking {
    runtime: Option<tokio::runtime::Runtime>,
}

impl std::fmt::Debug for Blocking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Blocking").finish_non_exhaustive()
    }
}

impl Drop for Blocking {
    fn drop(&mut self) {
        // Never wait here for a DNS look-up stuck in the blocking pool.
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

impl Blocking {
    /// A runtime for the store named `store` (in the error if it cannot be built).
    pub fn new(store: &'static str) -> Result<Blocking> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::StoreUnavailable {
                store,
                op: "open",
                reason: e.reason(),
            })?;
        Ok(Blocking {
            runtime: Some(runtime),
        })
    }

    /// Drives `fut` on the runtime for at most `limit`: `None` when the time ran out (the
    /// future, and any connection it owned, is dropped then).
    ///
    /// Called from inside some other tokio runtime, which cannot drive this one, the call runs
    /// on a short-lived helper thread.
    pub fn block<F>(&self, limit: Duration, fut: F) -> Option<F::Output>
    where
        F: Future + Send,
        F::Output: Send,
    {
        let rt = self.runtime.as_ref()?;
        let drive = move || rt.block_on(async move { tokio::time::timeout(limit, fut).await.ok() });
        if tokio::runtime::Handle::try_current().is_ok() {
            std::thread::scope(|s| s.spawn(drive).join().ok().flatten())
        } else {
            drive()
        }
    }
}
