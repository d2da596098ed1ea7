//! A connection's socket with the two deadlines hyper's HTTP/1.1 server does not have: a
//! write that waits longer than the write deadline for the client to read fails (hyper then
//! drops the connection and the answer it was holding), and a connection silent between
//! requests for the idle deadline reads as closed.
//!
//! "Between requests" is read off the traffic: after the service wrote and before the client
//! sends again. While a request is read or handled the idle clock does not run (the header
//! and request deadlines bound those), so a slow handler never loses its connection to it.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// What a deadline closed, for the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// A write waited past the write deadline.
    WriteTimeout,
    /// Silent between requests past the idle deadline.
    Idle,
}

impl Closed {
    /// The metric label.
    pub fn label(self) -> &'static str {
        match self {
            Closed::WriteTimeout => "write_timeout",
            Closed::Idle => "idle_timeout",
        }
    }
}

/// Which deadline closed a connection, readable after the connection (and its [`TimedIo`])
/// is gone.
#[derive(Debug, Clone, Default)]
pub struct CloseReport(Arc<AtomicU8>);

impl CloseReport {
    /// The deadline that closed it, if one did.
    pub fn get(&self) -> Option<Closed> {
        match self.0.load(Ordering::Relaxed) {
            1 => Some(Closed::WriteTimeout),
            2 => Some(Closed::Idle),
            _ => None,
        }
    }

    fn set(&self, c: Closed) {
        let v = match c {
            Closed::WriteTimeout => 1,
            Closed::Idle => 2,
        };
        self.0.store(v, Ordering::Relaxed);
    }
}

/// The deadlines of one connection.
#[derive(Debug, Clone, Copy)]
pub struct Deadlines {
    /// Longest one write may wait for the client.
    pub write: Duration,
    /// Longest silence between requests.
    pub idle: Duration,
}

/// `S` with [`Deadlines`].
pub struct TimedIo<S> {
    inner: S,
    limits: Deadlines,
    /// The one timer: the write deadline while a write waits, else the idle deadline.
    timer: Pin<Box<Sleep>>,
    /// When the current write started waiting.
    write_waiting: Option<Instant>,
    /// When bytes last moved either way.
    last_activity: Instant,
    /// Whether the last bytes moved were written (or none moved yet): between requests.
    between_requests: bool,
    closed: CloseReport,
}

impl<S> TimedIo<S> {
    /// Wraps a freshly accepted connection.
    pub fn new(inner: S, limits: Deadlines) -> TimedIo<S> {
        let now = Instant::now();
        TimedIo {
            inner,
            limits,
            timer: Box::pin(tokio::time::sleep_until(now + limits.idle)),
            write_waiting: None,
            last_activity: now,
            between_requests: true,
            closed: CloseReport::default(),
        }
    }

    /// Where to read which deadline closed the connection, if one does.
    pub fn report(&self) -> CloseReport {
        self.closed.clone()
    }

    /// Which deadline closed the connection, if one did.
    pub fn closed_by(&self) -> Option<Closed> {
        self.closed.get()
    }

    /// Whether `deadline` has passed; if not, the timer is set to it and will wake `cx`.
    fn passed(&mut self, deadline: Instant, cx: &mut Context<'_>) -> bool {
        if self.timer.deadline() != deadline {
            self.timer.as_mut().reset(deadline);
        }
        self.timer.as_mut().poll(cx).is_ready()
    }

    fn moved(&mut self, wrote: bool) {
        self.last_activity = Instant::now();
        self.between_requests = wrote;
    }

    /// A write (or flush) that returned `Pending`: an error once it has waited too long.
    fn write_pending<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let since = *self.write_waiting.get_or_insert_with(Instant::now);
        if self.passed(since + self.limits.write, cx) {
            self.closed.set(Closed::WriteTimeout);
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client did not read its answer within the write deadline",
            )));
        }
        Poll::Pending
    }

    fn write_done<T>(&mut self, r: Poll<io::Result<T>>, progressed: bool) -> Poll<io::Result<T>> {
        self.write_waiting = None;
        if progressed {
            self.moved(true);
        }
        r
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for TimedIo<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = &mut *self;
        let before = buf.filled().len();
        match Pin::new(&mut me.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    me.moved(false);
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => {
                // A write waiting owns the timer; its deadline is the shorter concern.
                if me.between_requests && me.write_waiting.is_none() {
                    let idle_until = me.last_activity + me.limits.idle;
                    if me.passed(idle_until, cx) {
                        // As if the client had closed: hyper ends the connection quietly.
                        me.closed.set(Closed::Idle);
                        return Poll::Ready(Ok(()));
                    }
                }
                Poll::Pending
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for TimedIo<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let me = &mut *self;
        match Pin::new(&mut me.inner).poll_write(cx, buf) {
            Poll::Pending => me.write_pending(cx),
            Poll::Ready(Ok(n)) => me.write_done(Poll::Ready(Ok(n)), n > 0),
            r => me.write_done(r, false),
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let me = &mut *self;
        match Pin::new(&mut me.inner).poll_write_vectored(cx, bufs) {
            Poll::Pending => me.write_pending(cx),
            Poll::Ready(Ok(n)) => me.write_done(Poll::Ready(Ok(n)), n > 0),
            r => me.write_done(r, false),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = &mut *self;
        match Pin::new(&mut me.inner).poll_flush(cx) {
            Poll::Pending => me.write_pending(cx),
            r => me.write_done(r, false),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = &mut *self;
        match Pin::new(&mut me.inner).poll_shutdown(cx) {
            Poll::Pending => me.write_pending(cx),
            r => me.write_done(r, false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap()
    }

    const LIMITS: Deadlines = Deadlines {
        write: Duration::from_secs(1),
        idle: Duration::from_secs(5),
    };

    #[test]
    fn a_write_the_peer_never_reads_fails_at_the_write_deadline() {
        rt().block_on(async {
            let (ours, _theirs) = tokio::io::duplex(64);
            let mut io = TimedIo::new(ours, LIMITS);
            let err = io.write_all(&[0u8; 1024]).await.unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::TimedOut);
            assert_eq!(io.closed_by(), Some(Closed::WriteTimeout));
        });
    }

    #[test]
    fn a_slow_reader_that_keeps_reading_is_not_cut() {
        rt().block_on(async {
            let (ours, mut theirs) = tokio::io::duplex(64);
            let reader = tokio::spawn(async move {
                let mut buf = [0u8; 64];
                let mut total = 0;
                while total < 1024 {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    total += theirs.read(&mut buf).await.unwrap();
                }
                total
            });
            let mut io = TimedIo::new(ours, LIMITS);
            io.write_all(&[0u8; 1024]).await.unwrap();
            assert_eq!(reader.await.unwrap(), 1024);
            assert_eq!(io.closed_by(), None);
        });
    }

    #[test]
    fn silence_after_an_answer_reads_as_closed_but_not_while_a_request_is_handled() {
        rt().block_on(async {
            let (ours, mut theirs) = tokio::io::duplex(64);
            let mut io = TimedIo::new(ours, LIMITS);
            theirs.write_all(b"request").await.unwrap();
            let mut buf = [0u8; 16];
            assert_eq!(io.read(&mut buf).await.unwrap(), 7);
            // Handling: a read waits longer than the idle deadline and is not cut.
            let waited = tokio::time::timeout(LIMITS.idle * 2, io.read(&mut buf)).await;
            assert!(waited.is_err(), "still open while the request is handled");
            io.write_all(b"answer").await.unwrap();
            // Between requests: the idle deadline closes it.
            assert_eq!(io.read(&mut buf).await.unwrap(), 0);
            assert_eq!(io.closed_by(), Some(Closed::Idle));
        });
    }
}
