//! The listener: connections accepted up to a limit (and a smaller one per client address),
//! optionally over TLS, each served by hyper's HTTP/1.1 with a header deadline, a head-size
//! limit and the write and idle deadlines of [`TimedIo`], and a graceful stop — unready first,
//! then no new connections, then in-flight requests finished — before the service closes its
//! stores.

use std::future::Future;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use crate::metrics::ReasonLabels;
use crate::per_ip::PerIp;
use crate::service::Service;
use crate::timed_io::{Deadlines, TimedIo};
use crate::tls::Tls;
use crate::{app, Shared};

/// What a connection over the per-address limit gets before it is closed.
const TOO_MANY: &[u8] = b"HTTP/1.1 429 Too Many Requests\r\n\
    Content-Type: application/json\r\nConnection: close\r\nContent-Length: 85\r\n\r\n\
    {\"code\":\"ERR_LIMIT_EXCEEDED\",\"message\":\"too many open connections from this address\"}";

/// Serves `svc` on `listener` (over TLS with `tls`) until `stop` completes, then drains.
pub async fn serve(
    svc: Shared,
    listener: TcpListener,
    tls: Option<Arc<Tls>>,
    stop: impl Future<Output = ()>,
) -> io::Result<()> {
    let app = app::service(svc.clone());
    let s = &svc.settings;
    let permits = Arc::new(Semaphore::new(s.max_connections));
    let per_ip = PerIp::new(s.max_connections_per_ip);
    let deadlines = Deadlines {
        write: s.write_timeout,
        idle: s.idle_timeout,
    };
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(s.header_timeout)
        .max_buf_size(s.max_header_bytes.max(8192))
        .keep_alive(true);
    let checker = tokio::spawn(background_checks(svc.clone()));
    tokio::pin!(stop);
    loop {
        let permit = tokio::select! {
            _ = &mut stop => break,
            p = permits.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
        };
        let (stream, peer) = tokio::select! {
            _ = &mut stop => break,
            r = listener.accept() => match r {
                Ok(c) => c,
                // Out of file descriptors and the like: wait instead of spinning.
                Err(e) => {
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Some(slot) = per_ip.admit(peer.ip()) else {
            if tls.is_none() {
                // Best effort and never waiting (the socket is non-blocking, and the buffer of
                // a new connection is empty). Straight to the socket: tokio's own `try_write`
                // knows no readiness yet for a connection this new.
                if let Ok(s) = stream.into_std() {
                    let _ = (&s).write(TOO_MANY);
                }
            }
            closed(&svc, "per_ip_limit");
            continue;
        };
        let _ = stream.set_nodelay(true);
        let io = TimedIo::new(stream, deadlines);
        let report = io.report();
        let conn = Connection {
            svc: svc.clone(),
            http: http.clone(),
            app: TowerToHyperService::new(app::FromPeer::new(app.clone(), peer)),
            watcher: graceful.watcher(),
        };
        let tls = tls.clone();
        tokio::spawn(async move {
            let svc = conn.svc.clone();
            conn.run(io, tls).await;
            drop((slot, permit));
            if let Some(why) = report.get() {
                closed(&svc, why.label());
            }
        });
    }
    drop(listener);
    tracing::info!("stopped accepting; finishing requests in flight");
    let bound = s.request_timeout + Duration::from_secs(1);
    if tokio::time::timeout(bound, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("requests still running after {bound:?}; closing anyway");
    }
    checker.abort();
    Ok(())
}

/// One accepted connection and what serves it.
struct Connection {
    svc: Shared,
    http: hyper::server::conn::http1::Builder,
    app: TowerToHyperService<app::FromPeer>,
    watcher: Watcher,
}

impl Connection {
    /// The TLS handshake (bounded by the header deadline) if any, then HTTP until either side
    /// closes, a deadline closes it, or the service stops.
    async fn run(self, io: TimedIo<TcpStream>, tls: Option<Arc<Tls>>) {
        let Some(tls) = tls else {
            return self.http(io).await;
        };
        let handshake = tls.acceptor().accept(io);
        match tokio::time::timeout(self.svc.settings.header_timeout, handshake).await {
            Ok(Ok(stream)) => self.http(stream).await,
            Ok(Err(e)) => tracing::debug!("TLS handshake failed: {e}"),
            Err(_) => closed(&self.svc, "tls_handshake"),
        }
    }

    async fn http<I>(self, io: I)
    where
        I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let conn = self.http.serve_connection(TokioIo::new(io), self.app);
        let _ = self.watcher.watch(conn).await;
    }
}

/// Counts a connection the service closed itself.
fn closed(svc: &Shared, reason: &'static str) {
    svc.metrics
        .connections_closed
        .get_or_create(&ReasonLabels { reason })
        .inc();
}

/// At start and then every few seconds: fill empty pre-registered keys, ask the segment store
/// whether it answers (for `/readyz`), and release
/// client leases that expired on a store that does not expire them itself.
async fn background_checks(svc: Shared) {
    let mut first = true;
    loop {
        if !first {
            tokio::time::sleep(Service::CHECK_EVERY).await;
        }
        first = false;
        let s = svc.clone();
        let _ = tokio::task::spawn_blocking(move || {
            s.warm_keys();
            s.check_store();
            s.watch_lease();
            if let Some(c) = &s.clients {
                c.reap(&s.metrics);
            }
        })
        .await;
    }
}

/// Completes on SIGTERM or SIGINT, after marking the service unready and waiting its drain
/// period (so a load balancer stops sending first).
pub async fn signal(svc: Shared) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        // No signal handling (should not happen on Unix): never stop on a signal.
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    tracing::info!("signal received: reporting unready");
    svc.stop();
    tokio::time::sleep(svc.settings.drain).await;
}

/// The address a listener got (for `--listen 127.0.0.1:0`).
pub fn local_addr(l: &TcpListener) -> io::Result<SocketAddr> {
    l.local_addr()
}

/// Reloads the TLS certificate and key on every SIGHUP; a failed reload is logged and the
/// certificate in force stays.
pub async fn reload_on_sighup(tls: Arc<Tls>) {
    use tokio::signal::unix::{signal, SignalKind};
    let Ok(mut hup) = signal(SignalKind::hangup()) else {
        tracing::warn!("cannot handle SIGHUP: the TLS certificate will not be reloaded");
        return;
    };
    while hup.recv().await.is_some() {
        match tls.reload() {
            Ok(()) => tracing::info!("SIGHUP: TLS certificate reloaded"),
            Err(e) => {
                tracing::error!("SIGHUP: TLS certificate not reloaded, keeping the old one: {e}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_429_is_well_formed_json_of_its_stated_length() {
        let text = std::str::from_utf8(super::TOO_MANY).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(
            head.contains(&format!("Content-Length: {}", body.len())),
            "{head}"
        );
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["code"], "ERR_LIMIT_EXCEEDED");
    }
}
