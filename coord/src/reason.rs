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
