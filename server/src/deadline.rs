//! The request deadline (`--request-timeout-ms`), over everything a request does: its
//! handler, the waits for a batch permit and for the mint lock, and the blocking work itself.
//!
//! [`RequestDeadlineLayer`] starts the clock when a request enters the router, answers 408
//! `ERR_TIMEOUT` (JSON, as every error) when it passes, and makes the deadline known to the
//! code the request runs ([`current`]). Work on the blocking pool cannot be dropped as a future
//! can: it gets a [`Stop`] — the deadline plus a flag set when the request goes away — and
//! checks it between chunks, discarding what it made so far.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

tokio::task_local! {
    static DEADLINE: tokio::time::Instant;
}

/// The deadline of the request being handled, when called from within one.
pub fn current() -> Option<tokio::time::Instant> {
    DEADLINE.try_with(|d| *d).ok()
}

/// 408 `ERR_TIMEOUT`: the request ran past its deadline.
pub fn timed_out() -> ApiError {
    ApiError::new(
        StatusCode::REQUEST_TIMEOUT,
        "ERR_TIMEOUT",
        "the request ran past the service's request deadline",
    )
}

/// 503 `ERR_BUSY` with `Retry-After`: too much batch work ahead of this request to start it
/// within its deadline.
pub fn busy() -> ApiError {
    ApiError::unavailable(
        "ERR_BUSY",
        "the service is busy with other batches: retry later or ask for fewer IDs",
    )
}

/// Adds [`RequestDeadline`] around a service.
#[derive(Debug, Clone, Copy)]
pub struct RequestDeadlineLayer {
    timeout: Duration,
}

impl RequestDeadlineLayer {
    /// Requests get `timeout` each.
    pub fn new(timeout: Duration) -> Self {
        RequestDeadlineLayer { timeout }
    }
}

impl<S> tower::Layer<S> for RequestDeadlineLayer {
    type Service = RequestDeadline<S>;
    fn layer(&self, inner: S) -> RequestDeadline<S> {
        RequestDeadline {
            inner,
            timeout: self.timeout,
        }
    }
}

/// A service whose requests end by their deadline: the inner future is dropped and the
/// answer is 408 `ERR_TIMEOUT`.
#[derive(Debug, Clone)]
pub struct RequestDeadline<S> {
    inner: S,
    timeout: Duration,
}

impl<S, B> tower::Service<Request<B>> for RequestDeadline<S>
where
    S: tower::Service<Request<B>, Response = Response> + Send,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let deadline = tokio::time::Instant::now() + self.timeout;
        let answer = DEADLINE.scope(deadline, self.inner.call(req));
        Box::pin(async move {
            match tokio::time::timeout_at(deadline, answer).await {
                Ok(r) => r,
                Err(_) => Ok(timed_out().into_response()),
            }
        })
    }
}

/// Why blocking work stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// Its deadline passed.
    Deadline,
    /// The request went away (answered 408 already, or its client left).
    Cancelled,
}

impl Stopped {
    /// The metric label.
    pub fn label(self) -> &'static str {
        match self {
            Stopped::Deadline => "deadline",
            Stopped::Cancelled => "cancelled",
        }
    }
}

/// When blocking work for a request must stop: its deadline, or the request dropped.
#[derive(Debug)]
pub struct Stop {
    deadline: Instant,
    /// 0 running, 1 cancelled by the request; 2/3 once the work saw it stop (deadline,
    /// cancelled).
    state: AtomicU8,
}

const RUNNING: u8 = 0;
const CANCELLED: u8 = 1;
const SAW_DEADLINE: u8 = 2;
const SAW_CANCEL: u8 = 3;

impl Stop {
    /// How many IDs a batch makes between two checks.
    pub const CHUNK: usize = 4096;

    /// Work that must end by `deadline`.
    pub fn at(deadline: Instant) -> Stop {
        Stop {
            deadline,
            state: AtomicU8::new(RUNNING),
        }
    }

    /// Work that must end within `timeout` from now.
    pub fn within(timeout: Duration) -> Stop {
        Stop::at(Instant::now() + timeout)
    }

    /// The deadline.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Tells the work to stop (its request went away).
    pub fn cancel(&self) {
        let _ =
            self.state
                .compare_exchange(RUNNING, CANCELLED, Ordering::AcqRel, Ordering::Acquire);
    }

    /// `Err` once the work must stop; the work then discards what it made and returns.
    pub fn check(&self) -> Result<(), Stopped> {
        let state = self.state.load(Ordering::Acquire);
        let (why, seen) = match state {
            RUNNING if Instant::now() < self.deadline => return Ok(()),
            RUNNING | SAW_DEADLINE => (Stopped::Deadline, SAW_DEADLINE),
            _ => (Stopped::Cancelled, SAW_CANCEL),
        };
        if state != seen {
            // Losing to a cancel that came meanwhile is fine: the next check says so.
            let _ = self
                .state
                .compare_exchange(state, seen, Ordering::AcqRel, Ordering::Acquire);
        }
        Err(why)
    }

    /// Why the work stopped, if it saw [`check`](Stop::check) fail.
    pub fn stopped(&self) -> Option<Stopped> {
        match self.state.load(Ordering::Acquire) {
            SAW_DEADLINE => Some(Stopped::Deadline),
            SAW_CANCEL => Some(Stopped::Cancelled),
            _ => None,
        }
    }

    /// Time left, zero once past.
    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// Fills `out` by calls to `fill` of at most [`CHUNK`](Stop::CHUNK) slots each, checking
    /// between them; a stop ends it with [`timed_out`] (what was filled is the caller's to
    /// discard).
    pub fn fill_in_chunks<E: Into<ApiError>>(
        &self,
        out: &mut [u64],
        mut fill: impl FnMut(&mut [u64]) -> Result<(), E>,
    ) -> Result<(), ApiError> {
        for chunk in out.chunks_mut(Self::CHUNK) {
            self.check().map_err(|_| timed_out())?;
            fill(chunk).map_err(Into::into)?;
        }
        Ok(())
    }
}

/// Cancels a [`Stop`] when dropped before [`disarm`](CancelOnDrop::disarm): held by the
/// request's future, so a request dropped (deadline, client gone) stops its blocking work.
#[derive(Debug)]
pub struct CancelOnDrop(Option<Arc<Stop>>);

impl CancelOnDrop {
    /// Guards `stop`.
    pub fn new(stop: Arc<Stop>) -> Self {
        CancelOnDrop(Some(stop))
    }

    /// The work finished: nothing to cancel.
    pub fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(s) = self.0.take() {
            s.cancel();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_says_why_once_seen() {
        let s = Stop::within(Duration::from_secs(60));
        assert_eq!(s.check(), Ok(()));
        assert_eq!(s.stopped(), None);
        s.cancel();
        assert_eq!(s.stopped(), None, "not seen by the work yet");
        assert_eq!(s.check(), Err(Stopped::Cancelled));
        assert_eq!(s.stopped(), Some(Stopped::Cancelled));

        let s = Stop::at(Instant::now());
        assert_eq!(s.check(), Err(Stopped::Deadline));
        s.cancel();
        assert_eq!(s.check(), Err(Stopped::Deadline), "the first reason stays");
        assert_eq!(s.stopped(), Some(Stopped::Deadline));
    }

    #[test]
    fn chunks_stop_at_the_first_check_after_a_cancel() {
        let s = Stop::within(Duration::from_secs(60));
        let mut out = vec![0u64; Stop::CHUNK * 3];
        let mut calls = 0;
        let r = s.fill_in_chunks(&mut out, |c| {
            calls += 1;
            c.fill(7);
            s.cancel();
            Ok::<(), ApiError>(())
        });
        assert_eq!(r.unwrap_err().code, "ERR_TIMEOUT");
        assert_eq!(calls, 1);
        assert_eq!(out[Stop::CHUNK], 0, "nothing made after the stop");
    }

    #[test]
    fn a_dropped_guard_cancels_and_a_disarmed_one_does_not() {
        let s = Arc::new(Stop::within(Duration::from_secs(60)));
        CancelOnDrop::new(s.clone()).disarm();
        assert_eq!(s.check(), Ok(()));
        drop(CancelOnDrop::new(s.clone()));
        assert_eq!(s.check(), Err(Stopped::Cancelled));
    }
}
