//! The listener: connections accepted up to a limit, each served by hyper's HTTP/1.1 with a
//! header deadline and a head-size limit, and a graceful stop — unready first, then no new
//! connections, then in-flight requests finished — before the service closes its stores.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::service::Service;
use crate::{app, Shared};

/// Serves `svc` on `listener` until `stop` completes, then drains.
pub async fn serve(
    svc: Shared,
    listener: TcpListener,
    stop: impl Future<Output = ()>,
) -> io::Result<()> {
    let app = app::service(svc.clone());
    let s = &svc.settings;
    let permits = Arc::new(Semaphore::new(s.max_connections));
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
        let _ = stream.set_nodelay(true);
        let conn = http.serve_connection(
            TokioIo::new(stream),
            TowerToHyperService::new(app::FromPeer::new(app.clone(), peer)),
        );
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
            drop(permit);
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
