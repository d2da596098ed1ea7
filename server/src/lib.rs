//! # idmint-server
//!
//! The idmint ID service (`idmint serve`): Snowflake IDs, segment IDs and whole ranges, node
//! leases for browsers and edge workers, over HTTP — with Meituan Leaf's paths, so a Leaf
//! client switches by changing a host name — plus Prometheus metrics, health probes and a
//! monitor page.
//!
//! The service adds no ID logic of its own: it holds an `idmint-coord` leased Snowflake
//! generator, a segment allocator and a lease store, and turns HTTP into calls on them. Several
//! instances sharing one segment store and one lease store never issue the same ID.
//!
//! | endpoint | answers |
//! |---|---|
//! | `GET /v1/snowflake?count=N&format=dec\|hex\|base32\|base62` | `{"ids":["…"]}` |
//! | `GET /v1/segments/{key}?count=N` | `{"key":…,"ids":["…"]}` |
//! | `POST /v1/segments/{key}/ranges?count=N` | `{"key":…,"start":"…","end":"…"}` (end exclusive) |
//! | `GET /v1/store` | the segment store's kind and identity |
//! | `POST /v1/leases`, `/v1/leases/renew`, `/v1/leases/release` | client node leases ([`client_lease`]) |
//! | `GET /v1/decode/{id}?layout=…&codec=…`, `GET /v1/layouts` | an ID split into its fields (or a UUID, TypeID, ULID described); the layouts |
//! | `GET /api/segment/get/{key}`, `/api/snowflake/get/{key}` | Leaf: the ID as plain text |
//! | `GET /api/decodeSnowflakeId?snowflakeId=N` | Leaf: timestamp, worker and sequence |
//! | `GET /metrics`, `/healthz`, `/readyz`, `/cache`, `/v1/monitor` | operators |
//!
//! Errors are JSON `{"code","message"}` with the stable `ERR_…` code of every idmint surface
//! ([`error`]).
//!
//! # Running one in a test
//! ```no_run
//! use idmint_server::config::{ServeConfig, Settings};
//!
//! let settings = Settings::resolve(ServeConfig {
//!     listen: Some("127.0.0.1:0".into()),
//!     data_dir: Some(std::env::temp_dir().join("idmint-doc-server")),
//!     ..ServeConfig::default()
//! })?;
//! let server = idmint_server::start(settings)?;
//! println!("serving on http://{}", server.addr());
//! server.stop()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

pub mod app;
pub mod auth;
pub mod client_lease;
pub mod clock;
pub mod config;
pub mod deadline;
pub mod edge;
pub mod error;
pub mod ids;
pub mod lease_token;
pub mod leases;
pub mod lookup;
pub mod metrics;
pub mod params;
pub mod per_ip;
pub mod probes;
pub mod rate;
pub mod rates;
pub mod secret;
pub mod segment_keys;
pub mod serve;
pub mod service;
pub mod timed_io;
pub mod tls;

use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use axum::http::StatusCode;

use crate::config::{ServeConfig, Settings};
use crate::deadline::{CancelOnDrop, Stop};
use crate::error::{ApiError, ApiResult};
use crate::metrics::ReasonLabels;
use crate::service::Service;
use crate::tls::Tls;

/// The service, as every request handler holds it.
pub type Shared = Arc<Service>;

/// Runs a blocking call on the blocking pool: store round trips and waits must not hold an
/// async worker (and the PostgreSQL client must not run inside the async runtime).
pub(crate) async fn blocking<T, E, F>(svc: &Shared, f: F) -> ApiResult<T>
where
    F: FnOnce(&Service) -> Result<T, E> + Send + 'static,
    T: Send + 'static,
    E: Into<ApiError> + Send + 'static,
{
    let s = svc.clone();
    match tokio::task::spawn_blocking(move || f(&s)).await {
        Ok(r) => r.map_err(Into::into),
        Err(_) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "ERR_PANIC",
            "internal error (a bug in idmint-server)",
        )),
    }
}

/// Runs a batch of IDs on the blocking pool within the request's deadline: waits (without a
/// thread) for one of the per-core batch permits — 503 `ERR_BUSY` if none frees up in time —
/// and hands `f` a [`Stop`] that says when to give up: the deadline passed, or the request
/// was dropped (answered 408, or its client left). A stopped batch's IDs are discarded.
pub(crate) async fn batch<T, F>(svc: &Shared, f: F) -> ApiResult<T>
where
    F: FnOnce(&Service, &Stop) -> ApiResult<T> + Send + 'static,
    T: Send + 'static,
{
    let deadline = deadline::current()
        .unwrap_or_else(|| tokio::time::Instant::now() + svc.settings.request_timeout);
    let permits = svc.batches.clone();
    let permit = match tokio::time::timeout_at(deadline, permits.acquire_owned()).await {
        Ok(Ok(p)) => p,
        _ => return Err(deadline::busy()),
    };
    let stop = Arc::new(Stop::at(deadline.into_std()));
    let guard = CancelOnDrop::new(stop.clone());
    let s = svc.clone();
    let done = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        s.metrics.batches_running.inc();
        let r = f(&s, &stop);
        s.metrics.batches_running.dec();
        if let Some(why) = stop.stopped() {
            s.metrics
                .batches_stopped
                .get_or_create(&ReasonLabels {
                    reason: why.label(),
                })
                .inc();
        }
        r
    })
    .await;
    guard.disarm();
    done.unwrap_or_else(|_| {
        Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "ERR_PANIC",
            "internal error (a bug in idmint-server)",
        ))
    })
}

/// Why the service could not start or stopped with an error.
#[derive(Debug)]
pub enum ServeError {
    /// A setting, a store or the lease.
    Idmint(idmint::Error),
    /// The listener or the runtime.
    Io(std::io::Error),
    /// The config file, or the TLS certificate and key files.
    Config(String),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Idmint(e) => write!(f, "{e}"),
            ServeError::Io(e) => write!(f, "{e}"),
            ServeError::Config(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for ServeError {}

impl From<idmint::Error> for ServeError {
    fn from(e: idmint::Error) -> Self {
        ServeError::Idmint(e)
    }
}

impl From<std::io::Error> for ServeError {
    fn from(e: std::io::Error) -> Self {
        ServeError::Io(e)
    }
}

/// A service running on its own threads.
pub struct Running {
    addr: SocketAddr,
    tls: Option<Arc<Tls>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<Result<(), ServeError>>>,
}

impl Running {
    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Reads the TLS certificate and key files again and serves new connections with them,
    /// as SIGHUP does in `idmint serve`. On failure the certificate in force stays and the
    /// error says why; without TLS there is nothing to reload (an error too).
    pub fn reload_tls(&self) -> Result<(), ServeError> {
        match &self.tls {
            Some(t) => t.reload().map_err(ServeError::Config),
            None => Err(ServeError::Config(
                "not serving TLS: there is no certificate to reload".into(),
            )),
        }
    }

    /// Stops it as a signal would (unready, drain, finish requests), closes the allocator
    /// (journal written) and releases the node lease.
    pub fn stop(mut self) -> Result<(), ServeError> {
        self.finish()
    }

    /// Waits until it stops by itself (a signal, when started with signals).
    pub fn wait(mut self) -> Result<(), ServeError> {
        // The stop sender stays alive meanwhile: dropping it would stop the service.
        self.join()
    }

    fn finish(&mut self) -> Result<(), ServeError> {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        self.join()
    }

    fn join(&mut self) -> Result<(), ServeError> {
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(ServeError::Io(std::io::Error::other(
                "the service thread panicked",
            ))),
            None => Ok(()),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// Opens the stores, leases the node, binds the listener and serves on background threads
/// until [`Running::stop`].
pub fn start(settings: Settings) -> Result<Running, ServeError> {
    spawn(settings, false)
}

/// The refusal to open the segment journal, said as what it nearly always means for a service:
/// another `idmint serve` already runs on the data directory.
fn data_dir_in_use(e: idmint::Error, data_dir: &std::path::Path) -> ServeError {
    if idmint_coord::segment::is_held_elsewhere(&e) {
        ServeError::Config(format!(
            "the data directory {} is in use by another `idmint serve` (its segment journal is \
             locked); stop that service, or give this one its own --data-dir",
            data_dir.display()
        ))
    } else {
        ServeError::Idmint(e)
    }
}

fn spawn(settings: Settings, signals: bool) -> Result<Running, ServeError> {
    // The certificate first: a mistake in it must not cost a lease and a store connection.
    let tls = match &settings.tls {
        Some(files) => Some(Arc::new(Tls::new(files).map_err(ServeError::Config)?)),
        None => None,
    };
    let data_dir = settings.data_dir.clone();
    let svc: Shared = Arc::new(Service::open(settings).map_err(|e| data_dir_in_use(e, &data_dir))?);
    let listener = std::net::TcpListener::bind(svc.settings.listen)?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let served_tls = tls.clone();
    let thread = std::thread::Builder::new()
        .name("idmint-serve".into())
        .spawn(move || -> Result<(), ServeError> {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .thread_name("idmint-http")
                .build()?;
            let s = svc.clone();
            let served = rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener)?;
                let stop = async {
                    if signals {
                        tokio::select! {
                            _ = serve::signal(s.clone()) => {}
                            _ = rx => {}
                        }
                    } else {
                        let _ = rx.await;
                    }
                    s.stop();
                };
                if let (true, Some(t)) = (signals, &served_tls) {
                    tokio::spawn(serve::reload_on_sighup(t.clone()));
                }
                serve::serve(s.clone(), listener, served_tls, stop).await
            });
            rt.shutdown_timeout(Duration::from_secs(5));
            let closed = match Arc::try_unwrap(svc) {
                Ok(svc) => svc.close().map_err(ServeError::from),
                Err(_) => {
                    tracing::warn!("requests still hold the service; it closes when they end");
                    Ok(())
                }
            };
            served?;
            closed
        })?;
    Ok(Running {
        addr,
        tls,
        stop: Some(tx),
        thread: Some(thread),
    })
}

/// `idmint serve`: reads the settings (flags over environment over file), logs to stderr,
/// serves until SIGTERM/SIGINT, then stops gracefully.
pub fn run(flags: ServeConfig) -> Result<(), ServeError> {
    let cfg = flags.with_file().map_err(ServeError::Config)?;
    let settings = Settings::resolve(cfg)?;
    let filter = tracing_subscriber::EnvFilter::try_new(&settings.log)
        .map_err(|e| ServeError::Config(format!("log filter {:?}: {e}", settings.log)))?;
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
    let scheme = if settings.tls.is_some() {
        "https"
    } else {
        "http"
    };
    let running = spawn(settings, true)?;
    tracing::info!("idmint service listening on {scheme}://{}", running.addr());
    running.wait()
}
