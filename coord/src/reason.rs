//! Why a store call failed, in a few words: the `reason` of
//! [`Error::StoreUnavailable`](idmint::Error::StoreUnavailable). The core error holds only
//! static text, so each driver's error is classified into the causes an operator acts on
//! differently (a server that is down, a wrong password, a missing database, a timeout).

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

#[cfg(feature = "redis")]
impl Reason for redis::RedisError {
    fn reason(&self) -> &'static str {
        use redis::ErrorKind;
        if let Some(tls) = crate::redis_conn::tls_reason(self) {
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

#[cfg(feature = "postgres")]
impl Reason for postgres::Error {
    fn reason(&self) -> &'static str {
        use postgres::error::SqlState;
        if let Some(db) = self.as_db_error() {
            let c = db.code();
            return if *c == SqlState::INVALID_PASSWORD
                || *c == SqlState::INVALID_AUTHORIZATION_SPECIFICATION
            {
                "authentication failed"
            } else if *c == SqlState::INVALID_CATALOG_NAME {
                "database does not exist"
            } else if *c == SqlState::QUERY_CANCELED {
                "statement timed out"
            } else if *c == SqlState::LOCK_NOT_AVAILABLE {
                "lock timed out"
            } else if *c == SqlState::TOO_MANY_CONNECTIONS {
                "too many connections"
            } else if *c == SqlState::ADMIN_SHUTDOWN || *c == SqlState::CANNOT_CONNECT_NOW {
                "server shutting down"
            } else if *c == SqlState::READ_ONLY_SQL_TRANSACTION {
                "server is read-only"
            } else if *c == SqlState::INSUFFICIENT_PRIVILEGE {
                "permission denied"
            } else {
                "server error"
            };
        }
        if self.is_closed() {
            return "connection lost";
        }
        let mut source = std::error::Error::source(self);
        while let Some(s) = source {
            if let Some(io) = s.downcast_ref::<std::io::Error>() {
                return io.reason();
            }
            source = s.source();
        }
        "connection failed"
    }
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
