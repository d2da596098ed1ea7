//! Why a store call failed, in a few words: the `reason` of
//! [`Error::StoreUnavailable`](idmint::Error::StoreUnavailable). The core error holds only
//! static text, so each driver's error is classified into the causes an operator acts on
//! differently (a server that is down, a wrong password, a missing database, a timeout).
//! PostgreSQL's classification (TLS included) lives with its connection code, in `pg.rs`.

/// A driver error's cause, for [`idmint::Error::StoreUnavailable`].
pub(crate) trait Reason {
    /// A short lower-case phrase: `connection refused`, `authentication failed`, ...
    fn reason(&self) -> &'static str;
}

impl Reason for std::io::Error {
    fn reason(&self) -> &'static str {
        use std::io::ErrorKind::*;
        match self.kind() {
            ConnectionRefused => "connection refused",
            ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof | NotConnected => {
                "connection lost"
            }
            TimedOut | WouldBlock => "timed out",
            NotFound => "not found",
            NotADirectory => "not a directory",
            PermissionDenied => "permission denied",
            AddrNotAvailable | AddrInUse => "address unavailable",
            StorageFull => "disk full",
            ReadOnlyFilesystem => "read-only file system",
            InvalidData => "corrupt data",
            _ => "I/O error",
        }
    }
}

/// TLS failures of the clients that use rustls directly (Redis, etcd, the idmint service).
#[cfg(any(feature = "redis", feature = "http", feature = "etcd"))]
impl Reason for rustls::Error {
    fn reason(&self) -> &'static str {
        use rustls::CertificateError as C;
        match self {
            rustls::Error::InvalidCertificate(
                C::NotValidForName | C::NotValidForNameContext { .. },
            ) => "TLS certificate does not name the server",
            rustls::Error::InvalidCertificate(
                C::Expired
                | C::ExpiredContext { .. }
                | C::NotValidYet
                | C::NotValidYetContext { .. },
            ) => "TLS certificate expired or not yet valid",
            rustls::Error::InvalidCertificate(_) => "TLS certificate not trusted",
            rustls::Error::AlertReceived(_) => "TLS handshake refused by the server",
            _ => "TLS handshake failed",
        }
    }
}

#[cfg(feature = "redis")]
impl Reason for redis::RedisError {
    fn reason(&self) -> &'static str {
        use redis::ErrorKind;
        if let Some(tls) = redis_tls_reason(self) {
            tls
        } else if self.is_timeout() {
            "timed out"
        } else if self.is_connection_refusal() {
            "connection refused"
        } else if self.is_connection_dropped() {
            "connection lost"
        } else if self.is_io_error() {
            "I/O error"
        } else {
            match self.kind() {
                ErrorKind::AuthenticationFailed => "authentication failed",
                ErrorKind::InvalidClientConfig => "invalid URL or client config",
                ErrorKind::UnexpectedReturnType | ErrorKind::Parse => "unexpected reply",
                _ => "server error",
            }
        }
    }
}

/// Why a Redis TLS connection failed, when it did: the rustls error inside a client error.
#[cfg(feature = "redis")]
fn redis_tls_reason(e: &redis::RedisError) -> Option<&'static str> {
    use std::sync::Arc;
    type Inner = Arc<dyn std::error::Error + Send + Sync>;
    // The client keeps I/O and rustls errors behind an Arc: unwrap that, then the I/O error.
    let inner = std::error::Error::source(e)?.downcast_ref::<Inner>()?;
    let tls = match (**inner).downcast_ref::<std::io::Error>() {
        Some(io) => io.get_ref()?.downcast_ref::<rustls::Error>()?,
        None => (**inner).downcast_ref::<rustls::Error>()?,
    };
    Some(tls.reason())
}

#[cfg(feature = "sqlite")]
impl Reason for rusqlite::Error {
    fn reason(&self) -> &'static str {
        use rusqlite::ErrorCode::*;
        match self.sqlite_error_code() {
            Some(DatabaseBusy | DatabaseLocked) => "database is locked",
            Some(CannotOpen) => "cannot open the database file",
            Some(ReadOnly) => "database is read-only",
            Some(DiskFull) => "disk full",
            Some(NotADatabase | DatabaseCorrupt) => "corrupt database",
            Some(PermissionDenied) => "permission denied",
            Some(SystemIoFailure) => "I/O error",
            _ => "SQLite error",
        }
    }
}

/// The first I/O error kind among the causes of `e` (itself included).
#[cfg(feature = "etcd")]
pub(crate) fn io_kind_in(e: &(dyn std::error::Error + 'static)) -> Option<std::io::ErrorKind> {
    let mut cur = Some(e);
    while let Some(err) = cur {
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        cur = err.source();
    }
    None
}

/// Whether the causes of `e` (itself included) hold a socket or TLS error: the member could
/// not be reached, or the connection to it broke.
#[cfg(feature = "etcd")]
pub(crate) fn socket_error_in(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    while let Some(err) = cur {
        if err.is::<std::io::Error>() || err.is::<rustls::Error>() {
            return true;
        }
        cur = err.source();
    }
    false
}

/// Whether the causes of `e` hold a TLS error.
#[cfg(feature = "etcd")]
pub(crate) fn tls_error_in(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    while let Some(err) = cur {
        let inner_tls = err
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .is_some_and(|i| i.is::<rustls::Error>());
        if err.is::<rustls::Error>() || inner_tls {
            return true;
        }
        cur = err.source();
    }
    false
}

/// The reason of the deepest cause we know among the causes of `e`: a TLS failure, else an
/// I/O error.
#[cfg(feature = "etcd")]
fn cause_reason(e: &(dyn std::error::Error + 'static)) -> Option<&'static str> {
    let mut cur = Some(e);
    let mut io = None;
    while let Some(err) = cur {
        if let Some(tls) = err.downcast_ref::<rustls::Error>() {
            return Some(tls.reason());
        }
        if let Some(e) = err.downcast_ref::<std::io::Error>() {
            if let Some(tls) = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
                return Some(tls.reason());
            }
            io.get_or_insert(e.reason());
        }
        cur = err.source();
    }
    io
}

/// etcd's gRPC answers: its own error texts first (`etcdserver: ...`), then the gRPC code.
#[cfg(feature = "etcd")]
impl Reason for etcd_client::Error {
    fn reason(&self) -> &'static str {
        use etcd_client::Error as E;
        let cause: Option<&(dyn std::error::Error + 'static)> = match self {
            E::TransportError(t) => Some(t),
            E::GRpcStatus(s) => std::error::Error::source(s),
            E::IoError(e) => Some(e),
            _ => None,
        };
        if let Some(r) = cause.and_then(cause_reason) {
            return r;
        }
        match self {
            E::GRpcStatus(s) => {
                let m = s.message();
                if m.contains("no leader") {
                    "no leader"
                } else if m.contains("leader changed") {
                    "leader changed"
                } else if m.contains("timed out") {
                    "timed out"
                } else if m.contains("database space exceeded") {
                    "database space exceeded"
                } else {
                    // gRPC codes: etcd answers most failures of the cluster as Unavailable.
                    match s.code() as i32 {
                        1 => "cancelled",
                        4 => "timed out",
                        7 => "permission denied",
                        8 => "resource exhausted",
                        14 => "unavailable",
                        16 => "authentication failed",
                        _ => "server error",
                    }
                }
            }
            E::TransportError(_) => "connection failed",
            E::InvalidArgs(_) | E::InvalidUri(_) => "invalid URL or client config",
            E::LeaseKeepAliveError(_) => "lease keep-alive failed",
            _ => "client error",
        }
    }
}
