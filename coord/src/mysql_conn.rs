//! MySQL and MariaDB plumbing shared by the segment store
//! ([`MysqlStore`](crate::segment::mysql::MysqlStore)) and the lease store
//! ([`MysqlLeaseStore`](crate::lease::mysql::MysqlLeaseStore)): URLs, TLS, the session settings
//! every connection starts with, a small pool, and the deadline of every call.
//!
//! # URLs
//!
//! `mysql://USER[:PASS]@HOST[:PORT]/DB` or `mariadb://…` (the same), options as query
//! parameters. The options are idmint's, and only these: an unknown one is
//! [`Error::InvalidConfig`], so a typo never silently weakens TLS.
//!
//! | option | meaning |
//! |---|---|
//! | `timeout_ms=N` | the deadline of one store call (default [`DEFAULT_STORE_TIMEOUT`](crate::lease::DEFAULT_STORE_TIMEOUT)): TCP connect, every read and write on the socket, and the call as a whole (below) |
//! | `ssl-mode=M` | `DISABLED` (the default), `REQUIRED`, `VERIFY_CA` or `VERIFY_IDENTITY`, as the `mysql` client names them (any case, `_` or `-`); `PREFERRED` is refused: it silently falls back to plain TCP |
//! | `ca_file=PATH` | a PEM file of CA certificates to trust (also `ssl-ca`); `REQUIRED` with a CA file checks the chain, as `VERIFY_CA` (the `mysql` client does the same) |
//! | `mode=boot` / `mode=lease` | lease store only: see [`lease::mysql`](crate::lease::mysql) |
//!
//! What each TLS mode checks (rustls with the `ring` provider, TLS 1.2 and 1.3): `REQUIRED`
//! without a CA file — TLS, any certificate (against passive eavesdropping only);
//! `VERIFY_CA` — a chain to a trusted root, any host name; `VERIFY_IDENTITY` — a trusted chain
//! that names the host (DNS name, or IP address for a numeric host). Trusted roots are the
//! Mozilla roots the `mysql` crate ships (`webpki-roots`) plus the certificates of `ca_file`; the
//! operating system's store is not read. Client certificates are not supported. A certificate
//! that does not verify is `StoreUnavailable { reason: "TLS certificate not trusted" }` (or
//! `… does not name the host`).
//!
//! Connections go to the URL's host and port over TCP, also on loopback (the `mysql` crate's
//! switch to the server's Unix socket is turned off: the URL says where the store is).
//!
//! # Sessions
//!
//! Every connection starts with `READ COMMITTED` isolation, `time_zone = '+00:00'` (server-side
//! times in the lease table compare the same in every session), `innodb_lock_wait_timeout` and
//! `lock_wait_timeout` of the call timeout rounded up to whole seconds (the server's smallest
//! unit), and on MariaDB `max_statement_time` of the call timeout. Affected-row counts are
//! *found* rows (`CLIENT_FOUND_ROWS`), so an update that matched a row but changed nothing is
//! not taken for a miss. Binary logging, where on, must be `ROW` or `MIXED` (the MariaDB
//! default): `STATEMENT` refuses writes under `READ COMMITTED`.
//!
//! # Deadlines
//!
//! The `mysql` crate is blocking. Its socket read and write timeouts and its TCP connect
//! timeout are all set to `timeout_ms`, so no single wait on the server lasts longer; on top of
//! that every call checks its own deadline (`timeout_ms` from its start) before each statement
//! and gives up once it has passed. So a call against a server that stops answering — stopped
//! (SIGSTOP), blocked on I/O, behind a firewall that drops packets — ends within twice
//! `timeout_ms` once connected (the statement in flight at the deadline waits at most one
//! more timeout), and connecting to such a server fails within one timeout of its first
//! unanswered read. A call that fails drops its connection (the server then rolls back what it
//! had not committed) and the next one connects again. A statement cut off after the server
//! committed it is written to be safe either way (a range skipped, a grant nobody holds
//! expiring after its TTL).

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use idmint::{Error, Result};
use mysql::consts::CapabilityFlags;
use mysql::prelude::{FromRow, Queryable};
use mysql::{Conn, Opts, OptsBuilder, Params, SslOpts};

use crate::reason::Reason;
use crate::timeouts::DEFAULT_STORE_TIMEOUT;

/// The TLS modes supported (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SslMode {
    Disabled,
    Required,
    VerifyCa,
    VerifyIdentity,
}

impl SslMode {
    fn parse(v: &str) -> Result<SslMode> {
        let v = v.to_ascii_uppercase().replace('-', "_");
        Ok(match v.as_str() {
            "DISABLED" => SslMode::Disabled,
            "REQUIRED" => SslMode::Required,
            "VERIFY_CA" => SslMode::VerifyCa,
            "VERIFY_IDENTITY" => SslMode::VerifyIdentity,
            "PREFERRED" => {
                return Err(Error::InvalidConfig {
                    reason: "ssl-mode=PREFERRED is not supported (use DISABLED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY)",
                })
            }
            _ => {
                return Err(Error::InvalidConfig {
                    reason: "ssl-mode must be DISABLED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY",
                })
            }
        })
    }
}

/// A MySQL URL taken apart: the driver's options, the call timeout and the lease `mode`.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub opts: Opts,
    pub timeout: Duration,
    pub mode: Option<String>,
    pub ssl: SslMode,
}

fn bad(reason: &'static str) -> Error {
    Error::InvalidConfig { reason }
}

/// Parses a `mysql://` / `mariadb://` URL (see the [module docs](self)).
pub(crate) fn parse(url: &str) -> Result<Target> {
    let rest = url
        .strip_prefix("mysql://")
        .or_else(|| url.strip_prefix("mariadb://"))
        .ok_or(bad("MySQL URL must start with mysql:// or mariadb://"))?;
    let (base, query) = match rest.split_once('?') {
        Some((b, q)) => (b, q),
        None => (rest, ""),
    };
    let mut timeout = DEFAULT_STORE_TIMEOUT;
    let mut mode = None;
    let mut ssl = SslMode::Disabled;
    let mut ca = None;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let v =
            crate::url_ref::percent_decode(v).ok_or(bad("malformed %-escape in a MySQL URL"))?;
        match k {
            "timeout_ms" => {
                let ms: u64 = v
                    .parse()
                    .map_err(|_| bad("timeout_ms must be a whole number of milliseconds"))?;
                if ms == 0 {
                    return Err(bad("timeout_ms must be at least 1"));
                }
                timeout = Duration::from_millis(ms);
            }
            "mode" => mode = Some(v),
            "ssl-mode" | "ssl_mode" => ssl = SslMode::parse(&v)?,
            "ca_file" | "ssl-ca" | "ssl_ca" => ca = Some(v),
            _ => {
                return Err(bad(
                    "unknown option in a MySQL URL (takes timeout_ms, ssl-mode, ca_file, mode)",
                ))
            }
        }
    }
    if ssl == SslMode::Disabled && ca.is_some() {
        return Err(bad(
            "ca_file needs ssl-mode=REQUIRED, VERIFY_CA or VERIFY_IDENTITY",
        ));
    }
    if ssl == SslMode::Required && ca.is_some() {
        ssl = SslMode::VerifyCa;
    }
    if let Some(path) = &ca {
        if std::fs::metadata(path).map_or(true, |m| !m.is_file()) {
            return Err(bad("ca_file: cannot read that file"));
        }
    }
    let opts = Opts::from_url(&format!("mysql://{base}"))
        .map_err(|_| bad("invalid MySQL URL (mysql://USER[:PASS]@HOST[:PORT]/DB)"))?;
    if opts.get_db_name().is_none() {
        return Err(bad(
            "a MySQL URL must name a database (mysql://USER@HOST:PORT/DB)",
        ));
    }
    let tls = match ssl {
        SslMode::Disabled => None,
        _ => Some(
            SslOpts::default()
                .with_root_cert_path(ca.map(std::path::PathBuf::from))
                .with_danger_accept_invalid_certs(ssl == SslMode::Required)
                .with_danger_skip_domain_validation(ssl == SslMode::VerifyCa),
        ),
    };
    let secs = timeout.as_millis().div_ceil(1000).max(1);
    let init = vec![
        "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED".to_string(),
        format!("SET SESSION innodb_lock_wait_timeout = {secs}, lock_wait_timeout = {secs}, time_zone = '+00:00'"),
    ];
    let opts = OptsBuilder::from_opts(opts)
        .prefer_socket(false)
        .tcp_connect_timeout(Some(timeout))
        .read_timeout(Some(timeout))
        .write_timeout(Some(timeout))
        .tcp_keepalive_time_ms(Some(1000))
        .additional_capabilities(CapabilityFlags::CLIENT_FOUND_ROWS)
        .ssl_opts(tls)
        .init(init);
    Ok(Target {
        opts: opts.into(),
        timeout,
        mode,
        ssl,
    })
}

/// One connection, with what was learnt about its server when it was opened.
pub(crate) struct MyConn {
    pub conn: Conn,
    /// `@@server_uuid` (MySQL) or `@@server_uid` (MariaDB), when readable.
    pub server_id: Option<String>,
    /// The `information_schema` table of InnoDB's table ids, when this user may read it.
    pub innodb_tables: Option<&'static str>,
    /// Whether the store using it checked its tables on it.
    pub schema_ready: bool,
}

/// A store call's deadline: checked before each statement.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline(Instant);

impl Deadline {
    /// `Err` once the call's time is up (the caller drops its connection).
    pub fn check(&self) -> std::result::Result<(), CallError> {
        if Instant::now() >= self.0 {
            Err(CallError::TimedOut)
        } else {
            Ok(())
        }
    }
}

/// Why one attempt at a call failed.
#[derive(Debug)]
pub(crate) enum CallError {
    /// The call's deadline passed between statements.
    TimedOut,
    /// The driver or the server failed.
    Driver(mysql::Error),
    /// A row that does not convert to what the store reads (a column edited to another type).
    Unexpected,
}

impl From<mysql::Error> for CallError {
    fn from(e: mysql::Error) -> CallError {
        CallError::Driver(e)
    }
}

impl CallError {
    pub fn reason(&self) -> &'static str {
        match self {
            CallError::TimedOut => TIMED_OUT,
            CallError::Driver(e) => e.reason(),
            CallError::Unexpected => "unexpected row",
        }
    }

    /// Whether the server picked this transaction as a deadlock's victim (error 1213) and
    /// rolled it back: nothing of it was kept, and the same transaction may simply run again.
    pub fn is_deadlock(&self) -> bool {
        matches!(self, CallError::Driver(mysql::Error::MySqlError(m)) if m.code == 1213)
    }

    /// Whether the server answered (the connection is alive).
    fn server_answered(&self) -> bool {
        matches!(self, CallError::Driver(mysql::Error::MySqlError(_)))
    }
}

pub(crate) type CallResult<T> = std::result::Result<T, CallError>;

/// The first row of a prepared statement, converted without panicking (the driver's
/// `exec_first` panics on a row that does not convert).
pub(crate) fn exec_first<T: FromRow>(
    c: &mut Conn,
    sql: &str,
    params: impl Into<Params>,
) -> CallResult<Option<T>> {
    match c.exec_first_opt::<T, _, _>(sql, params)? {
        None => Ok(None),
        Some(Ok(v)) => Ok(Some(v)),
        Some(Err(_)) => Err(CallError::Unexpected),
    }
}

/// The first row of a text query, converted without panicking.
pub(crate) fn query_first<T: FromRow>(c: &mut Conn, sql: &str) -> CallResult<Option<T>> {
    match c.query_first_opt::<T, _>(sql)? {
        None => Ok(None),
        Some(Ok(v)) => Ok(Some(v)),
        Some(Err(_)) => Err(CallError::Unexpected),
    }
}

/// The reason of a call that ran out of time.
pub(crate) const TIMED_OUT: &str = "timed out";

/// Idle connections kept for reuse; more concurrent callers open more, then close the extras.
const MAX_IDLE: usize = 8;

/// How many times a call chosen as a deadlock's victim runs again before the deadlock is
/// reported (as `StoreUnavailable`, "deadlock, try again").
const DEADLOCK_RETRIES: u64 = 20;

/// A server to connect to, and its idle connections.
pub(crate) struct My {
    store: &'static str,
    target: Target,
    idle: Mutex<Vec<MyConn>>,
}

impl std::fmt::Debug for My {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("My")
            .field("host", &self.target.opts.get_ip_or_hostname())
            .field("port", &self.target.opts.get_tcp_port())
            .field("db", &self.target.opts.get_db_name())
            .field("tls", &self.target.ssl)
            .field("timeout", &self.target.timeout)
            .finish_non_exhaustive()
    }
}

impl My {
    /// A server for `target` (no connection yet); `store` names it in errors.
    pub fn new(store: &'static str, target: Target) -> My {
        if target.ssl != SslMode::Disabled {
            // The driver builds its TLS config from the process's default provider: make it
            // ring (as everywhere in idmint) unless the program chose one already.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
        My {
            store,
            target,
            idle: Mutex::new(Vec::new()),
        }
    }

    pub fn timeout(&self) -> Duration {
        self.target.timeout
    }

    fn idle(&self) -> MutexGuard<'_, Vec<MyConn>> {
        self.idle.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Opens a connection with the session settings (see the [module docs](self)).
    fn connect(&self) -> CallResult<MyConn> {
        let mut conn = Conn::new(self.target.opts.clone())?;
        let version: Option<String> = query_first(&mut conn, "SELECT VERSION()")?;
        let maria = version.is_some_and(|v| v.contains("MariaDB"));
        let server_id: Option<Option<String>> = if maria {
            let secs = self.target.timeout.as_secs_f64();
            conn.query_drop(format!("SET SESSION max_statement_time = {secs:.3}"))?;
            query_first(&mut conn, "SELECT @@server_uid")?
        } else {
            query_first(&mut conn, "SELECT @@server_uuid").unwrap_or(None)
        };
        // InnoDB's table ids (a TRUNCATE gives a table a new one) need the PROCESS privilege.
        let innodb_tables = ["INNODB_SYS_TABLES", "INNODB_TABLES"]
            .into_iter()
            .find(|t| {
                conn.query_drop(format!(
                    "SELECT TABLE_ID FROM information_schema.{t} WHERE 1 = 0"
                ))
                .is_ok()
            });
        Ok(MyConn {
            conn,
            server_id: server_id.flatten(),
            innodb_tables,
            schema_ready: false,
        })
    }

    /// Runs `f` on a pooled connection or a new one, under the call's deadline. Any failure
    /// drops the connection and becomes `StoreUnavailable { op }`; one the server did not
    /// answer drops the idle connections too. With `retry`, a pooled connection that fails
    /// with anything but a server-reported error or a time-out (it went stale: the server
    /// restarted, or closed it while idle) is dropped with its idle siblings and `f` runs once
    /// more on a new connection; only for calls that are safe to repeat. A call the server
    /// rolls back as a deadlock's victim runs again on its connection (up to
    /// `DEADLOCK_RETRIES` times within the deadline), whatever `retry` says: the server
    /// answered that nothing of it was kept.
    pub fn call<T>(
        &self,
        op: &'static str,
        retry: bool,
        mut f: impl FnMut(&mut MyConn, Deadline) -> CallResult<T>,
    ) -> Result<T> {
        // Every call is one transaction or statements that each stand alone, and a deadlock's
        // victim is rolled back whole: it runs again on the same connection.
        let mut run = |c: &mut MyConn, d: Deadline| {
            let mut tries = 0u64;
            loop {
                match f(c, d) {
                    Err(e) if e.is_deadlock() && tries < DEADLOCK_RETRIES => {
                        tries += 1;
                        c.conn.query_drop("ROLLBACK")?;
                        d.check()?;
                        std::thread::sleep(Duration::from_millis(tries));
                    }
                    other => return other,
                }
            }
        };
        let started = Instant::now();
        let deadline = Deadline(started + self.target.timeout);
        let pooled = self.idle().pop();
        if let Some(mut c) = pooled {
            match run(&mut c, deadline) {
                Ok(v) => {
                    self.give_back(c);
                    return Ok(v);
                }
                // A server that did not answer in time will not on a new connection either.
                Err(e) if !retry || e.server_answered() || e.reason() == TIMED_OUT => {
                    if !e.server_answered() {
                        // Its idle siblings are likely as dead: the next call connects anew.
                        self.idle().clear();
                    }
                    return Err(self.unavailable(op, &e));
                }
                Err(_) => self.idle().clear(),
            }
        }
        // A fresh connection gets the whole timeout to connect, and the call its own after.
        let mut c = self.connect().map_err(|e| self.unavailable(op, &e))?;
        let deadline = Deadline(Instant::now() + self.target.timeout);
        match run(&mut c, deadline) {
            Ok(v) => {
                self.give_back(c);
                Ok(v)
            }
            Err(e) => Err(self.unavailable(op, &e)),
        }
    }

    fn give_back(&self, c: MyConn) {
        let mut idle = self.idle();
        if idle.len() < MAX_IDLE {
            idle.push(c);
        }
    }

    fn unavailable(&self, op: &'static str, e: &CallError) -> Error {
        Error::StoreUnavailable {
            store: self.store,
            op,
            reason: e.reason(),
        }
    }
}

impl Reason for mysql::Error {
    fn reason(&self) -> &'static str {
        use mysql::{DriverError as D, Error as E};
        match self {
            E::IoError(io) => io_reason(io),
            E::DriverError(D::ConnectTimeout | D::Timeout) => TIMED_OUT,
            E::DriverError(D::CouldNotConnect(Some((_, _, kind)))) => {
                std::io::Error::from(*kind).reason()
            }
            E::DriverError(D::CouldNotConnect(None)) => "connection failed",
            E::DriverError(D::TlsNotSupported) => "server does not support TLS",
            E::DriverError(D::UnknownAuthPlugin(_) | D::CleartextPluginDisabled) => {
                "authentication method not supported"
            }
            // Reads and writes go through the packet codec, which wraps their I/O errors.
            E::CodecError(c) => match std::error::Error::source(c) {
                Some(io) => match io.downcast_ref::<std::io::Error>() {
                    Some(io) => io_reason(io),
                    None => "protocol error",
                },
                None => "protocol error",
            },
            E::DriverError(_) => "protocol error",
            E::MySqlError(m) => server_reason(m.code),
            E::TlsError(t) => match t {
                mysql::error::tls::TlsError::Tls(r) => tls_reason(r),
                _ => "TLS handshake failed",
            },
            E::UrlError(_) => "invalid URL",
            E::FromValueError(_) | E::FromRowError(_) => "unexpected row",
        }
    }
}

fn io_reason(io: &std::io::Error) -> &'static str {
    // TLS failures surface from the stream as I/O errors wrapping rustls's.
    if let Some(t) = io.get_ref().and_then(|e| e.downcast_ref::<rustls::Error>()) {
        return tls_reason(t);
    }
    io.reason()
}

fn tls_reason(e: &rustls::Error) -> &'static str {
    use rustls::CertificateError as C;
    match e {
        rustls::Error::InvalidCertificate(
            C::NotValidForName | C::NotValidForNameContext { .. },
        ) => "TLS certificate does not name the host",
        rustls::Error::InvalidCertificate(
            C::Expired | C::ExpiredContext { .. } | C::NotValidYet | C::NotValidYetContext { .. },
        ) => "TLS certificate expired or not yet valid",
        rustls::Error::InvalidCertificate(_) => "TLS certificate not trusted",
        rustls::Error::AlertReceived(_) => "TLS handshake refused by the server",
        _ => "TLS handshake failed",
    }
}

/// MySQL and MariaDB error codes, classified.
fn server_reason(code: u16) -> &'static str {
    match code {
        1045 | 1698 => "authentication failed",
        1044 | 1142 | 1143 | 1227 | 1370 => "permission denied",
        1049 => "database does not exist",
        1146 => "table does not exist",
        1205 => "lock timed out",
        1213 => "deadlock, try again",
        1969 | 3024 => "statement timed out",
        1040 | 1203 => "too many connections",
        1053 | 1077 | 1078 | 1079 | 1080 => "server shutting down",
        1290 | 1792 | 1836 => "server is read-only",
        1021 | 1114 => "disk full",
        1690 => "value out of range",
        3572 => "statement needs MySQL 8.0 or MariaDB 10.6 (SKIP LOCKED)",
        _ => "server error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_taken_apart() {
        let t = parse("mariadb://u:p%40ss@h:3307/db?timeout_ms=250&mode=boot").unwrap();
        assert_eq!(t.timeout, Duration::from_millis(250));
        assert_eq!(t.mode.as_deref(), Some("boot"));
        assert_eq!(t.ssl, SslMode::Disabled);
        assert_eq!(t.opts.get_user(), Some("u"));
        assert_eq!(t.opts.get_pass(), Some("p@ss"));
        assert_eq!(t.opts.get_tcp_port(), 3307);
        assert_eq!(t.opts.get_db_name(), Some("db"));
        assert!(!t.opts.get_prefer_socket());
        assert_eq!(t.opts.get_read_timeout(), Some(&Duration::from_millis(250)));
        let t = parse("mysql://u@h/db?ssl-mode=verify_identity").unwrap();
        assert_eq!(
            (t.ssl, t.timeout),
            (SslMode::VerifyIdentity, DEFAULT_STORE_TIMEOUT)
        );
        assert_eq!(t.opts.get_tcp_port(), 3306);
        for bad in [
            "mysql://u@h/db?ssl-mode=PREFERRED",
            "mysql://u@h/db?ssl-mode=sometimes",
            "mysql://u@h/db?verify_ca=true",
            "mysql://u@h/db?timeout_ms=0",
            "mysql://u@h/db?timeout_ms=x",
            "mysql://u@h/db?ssl-mode=REQUIRED&ca_file=/nonexistent/ca.pem",
            "mysql://u@h/db?ca_file=/etc/hostname",
            "mysql://u@h/",
            "mysql://u@h",
            "postgres://u@h/db",
        ] {
            assert!(
                matches!(parse(bad), Err(Error::InvalidConfig { .. })),
                "{bad}"
            );
        }
    }
}
