//! PostgreSQL plumbing shared by the lease store ([`PgStore`](crate::lease::PgStore)) and the
//! segment store ([`PostgresStore`](crate::segment::postgres::PostgresStore)): connection
//! strings with libpq's TLS parameters, TLS through rustls, and a client-side deadline on every
//! call.
//!
//! # Deadlines
//!
//! The stores offer blocking calls over `tokio-postgres`, driven by a current-thread tokio
//! runtime that each store owns (it starts no thread of its own; DNS look-ups use its blocking
//! pool). Each store call — connecting (TCP, TLS, startup, authentication) when it has no
//! connection, then its statements — runs under one `tokio::time::timeout` on the client. When
//! it fires, the call's connection is dropped (its socket closed, its task aborted) and the call
//! fails with `StoreUnavailable { reason: "timed out" }`; the next call connects again. This is
//! what bounds a call to a server that is stopped (SIGSTOP), blocked on I/O or behind a firewall
//! that drops packets: there the kernel still acknowledges TCP, so TCP timeouts never fire, and
//! the server-side `statement_timeout` never runs.
//!
//! A statement cut off by the deadline may still have committed on the server: the stores'
//! statements are written so that either outcome is safe (a renewal recorded or not, a grant that
//! nobody holds expires after its TTL).
//!
//! Calling a store from inside a tokio runtime works too: the call then runs on a short-lived
//! helper thread, since a runtime cannot be driven from inside another.
//!
//! # TLS
//!
//! `sslmode` and `sslrootcert` are read from the URL (`?sslmode=verify-full&sslrootcert=/path`)
//! or from a `key=value` connection string, as libpq names them. TLS is rustls with the `ring`
//! provider (TLS 1.2 and 1.3).
//!
//! | `sslmode` | what it does here |
//! |---|---|
//! | `disable` | plain TCP only |
//! | `prefer` (the default, as in libpq) | TLS if the server offers it, plain TCP if it declines; the certificate is not checked (as in libpq: this guards against passive eavesdropping only) |
//! | `require` | TLS or no connection; the certificate is not checked, unless `sslrootcert` names a file: then as `verify-ca` (libpq does the same) |
//! | `verify-ca` | TLS; the server's chain must lead to a trusted root; the host name is not checked |
//! | `verify-full` | TLS; a trusted chain, and the certificate must name the host connected to (DNS name, or IP address for a numeric host) |
//!
//! Trusted roots: `sslrootcert=PATH` trusts exactly the CA certificates in that PEM file;
//! without it (or with `sslrootcert=system`) the operating system's store is used
//! (`rustls-native-certs`; `SSL_CERT_FILE` / `SSL_CERT_DIR` override it). Unlike libpq,
//! `~/.postgresql/root.crt` is not read. `sslmode=allow` and client certificates (`sslcert`,
//! `sslkey`) are not supported: they are [`Error::InvalidConfig`], as is an unreadable
//! `sslrootcert`. A certificate that fails verification is
//! `StoreUnavailable { reason: "TLS certificate not trusted" }` (or `... does not name the host`,
//! `... expired`); a server without TLS under `require` or stricter is
//! `StoreUnavailable { reason: "server does not support TLS" }`.

use std::future::Future;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use idmint::{Error, Result};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio_postgres::config::SslMode as WireSslMode;
use tokio_postgres::{Client, Config, NoTls};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::blocking::Blocking;
use crate::reason::Reason;

/// libpq's `sslmode` values supported here (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(v: &str) -> Result<SslMode> {
        Ok(match v {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            "allow" => {
                return Err(Error::InvalidConfig {
                    reason: "sslmode=allow is not supported (use disable, prefer, require, verify-ca or verify-full)",
                })
            }
            _ => {
                return Err(Error::InvalidConfig {
                    reason: "sslmode must be disable, prefer, require, verify-ca or verify-full",
                })
            }
        })
    }
}

/// A connection string taken apart: what `tokio-postgres` parses, and the TLS settings it does
/// not know.
#[derive(Debug)]
pub(crate) struct Target {
    pub config: Config,
    pub ssl: SslMode,
    pub root: Option<String>,
}

/// Parses a `postgres://` / `postgresql://` URL or a `key=value` connection string.
pub(crate) fn parse(conn: &str) -> Result<Target> {
    let (rest, taken) = if conn.starts_with("postgres://") || conn.starts_with("postgresql://") {
        split_url(conn)
    } else {
        split_key_values(conn)?
    };
    let mut ssl = SslMode::Prefer;
    let mut root = None;
    for (k, v) in taken {
        match k.as_str() {
            "sslmode" => ssl = SslMode::parse(&v)?,
            "sslrootcert" => root = Some(v),
            _ => {
                return Err(Error::InvalidConfig {
                    reason: "client certificates (sslcert, sslkey) are not supported",
                })
            }
        }
    }
    let mut config = Config::from_str(&rest).map_err(|_| Error::InvalidConfig {
        reason: "invalid PostgreSQL URL or connection string",
    })?;
    config.ssl_mode(match ssl {
        SslMode::Disable => WireSslMode::Disable,
        SslMode::Prefer => WireSslMode::Prefer,
        _ => WireSslMode::Require,
    });
    Ok(Target { config, ssl, root })
}

/// The parameters taken out of a connection string before `tokio-postgres` sees it.
fn ours(key: &str) -> bool {
    matches!(key, "sslmode" | "sslrootcert" | "sslcert" | "sslkey")
}

fn split_url(url: &str) -> (String, Vec<(String, String)>) {
    let Some((base, query)) = url.split_once('?') else {
        return (url.to_string(), Vec::new());
    };
    let mut keep = Vec::new();
    let mut taken = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if ours(k) {
            // A malformed escape stays as written: the driver then reports the file it cannot open.
            let value = crate::url_ref::percent_decode(v).unwrap_or_else(|| v.to_string());
            taken.push((k.to_string(), value));
        } else {
            keep.push(pair);
        }
    }
    let rest = if keep.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", keep.join("&"))
    };
    (rest, taken)
}

/// Splits a libpq `key=value` string (values bare or single-quoted, `\` escapes) into the
/// parameters for `tokio-postgres` and ours.
fn split_key_values(s: &str) -> Result<(String, Vec<(String, String)>)> {
    let bad = || Error::InvalidConfig {
        reason: "invalid PostgreSQL URL or connection string",
    };
    let mut chars = s.char_indices().peekable();
    let mut keep = Vec::new();
    let mut taken = Vec::new();
    loop {
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let Some(&(start, _)) = chars.peek() else {
            break;
        };
        let mut key = String::new();
        while let Some((_, c)) = chars.next_if(|(_, c)| *c != '=' && !c.is_whitespace()) {
            key.push(c);
        }
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        if chars.next().map(|(_, c)| c) != Some('=') {
            return Err(bad());
        }
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let mut value = String::new();
        if chars.next_if(|(_, c)| *c == '\'').is_some() {
            loop {
                match chars.next() {
                    None => return Err(bad()),
                    Some((_, '\'')) => break,
                    Some((_, '\\')) => value.push(chars.next().ok_or_else(bad)?.1),
                    Some((_, c)) => value.push(c),
                }
            }
        } else {
            while let Some((_, c)) = chars.next_if(|(_, c)| !c.is_whitespace()) {
                if c == '\\' {
                    value.push(chars.next().ok_or_else(bad)?.1);
                } else {
                    value.push(c);
                }
            }
        }
        let end = chars.peek().map_or(s.len(), |&(i, _)| i);
        if ours(&key) {
            taken.push((key, value));
        } else {
            keep.push(&s[start..end]);
        }
    }
    Ok((keep.join(" "), taken))
}

/// The TLS connector for `ssl`, or `None` for plain TCP.
fn tls(ssl: SslMode, root: Option<&str>) -> Result<Option<MakeRustlsConnect>> {
    let file = root.filter(|r| *r != "system");
    let check = match ssl {
        SslMode::Disable => return Ok(None),
        SslMode::Prefer => Check::Nothing,
        SslMode::Require if file.is_some() => Check::Chain,
        SslMode::Require => Check::Nothing,
        SslMode::VerifyCa => Check::Chain,
        SslMode::VerifyFull => Check::ChainAndName,
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|_| Error::InvalidConfig {
            reason: "TLS: no protocol version is available",
        })?;
    let verifier: Arc<dyn ServerCertVerifier> = match check {
        Check::Nothing => Arc::new(NoCertificateCheck(provider)),
        Check::Chain | Check::ChainAndName => {
            let webpki =
                WebPkiServerVerifier::builder_with_provider(Arc::new(roots(file)?), provider)
                    .build()
                    .map_err(|_| Error::InvalidConfig {
                        reason: "TLS: no usable trusted root certificate",
                    })?;
            if check == Check::Chain {
                Arc::new(ChainOnly(webpki))
            } else {
                webpki
            }
        }
    };
    let config = builder
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(Some(MakeRustlsConnect::new(config)))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    Nothing,
    Chain,
    ChainAndName,
}

/// The trusted roots: the PEM file's certificates, or the system's store.
fn roots(file: Option<&str>) -> Result<RootCertStore> {
    let mut store = RootCertStore::empty();
    match file {
        Some(path) => {
            let unreadable = || Error::InvalidConfig {
                reason: "sslrootcert: cannot read a PEM CA certificate from that file",
            };
            for cert in CertificateDer::pem_file_iter(path).map_err(|_| unreadable())? {
                store
                    .add(cert.map_err(|_| unreadable())?)
                    .map_err(|_| unreadable())?;
            }
            if store.is_empty() {
                return Err(unreadable());
            }
        }
        None => {
            let found = rustls_native_certs::load_native_certs();
            store.add_parsable_certificates(found.certs);
            if store.is_empty() {
                return Err(Error::InvalidConfig {
                    reason:
                        "no system CA certificates found: install them or give sslrootcert=PATH",
                });
            }
        }
    }
    Ok(store)
}

/// `prefer` and `require` without a CA: any certificate, but the handshake's signatures are
/// still checked against it (as libpq does without verification).
#[derive(Debug)]
struct NoCertificateCheck(Arc<CryptoProvider>);

impl ServerCertVerifier for NoCertificateCheck {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the full WebPKI check, less the host name. The verifier checks the chain before
/// the name, so a name mismatch means the chain was found trusted.
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// One connection: the client, and its I/O task on the store's runtime (aborted, closing the
/// socket, when the connection is dropped).
pub(crate) struct Conn {
    pub client: Client,
    task: tokio::task::AbortHandle,
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A server to connect to, and the runtime that drives its connections.
pub(crate) struct Pg {
    config: Config,
    tls: Option<MakeRustlsConnect>,
    runtime: Blocking,
}

impl std::fmt::Debug for Pg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pg")
            .field("hosts", &self.config.get_hosts())
            .field("ports", &self.config.get_ports())
            .field("dbname", &self.config.get_dbname())
            .field("tls", &self.tls.is_some())
            .finish_non_exhaustive()
    }
}

impl Pg {
    /// A server from a parsed target, with its TLS connector and runtime (no connection yet).
    pub fn new(target: Target) -> Result<Pg> {
        let tls = tls(target.ssl, target.root.as_deref())?;
        Ok(Pg {
            config: target.config,
            tls,
            runtime: Blocking::new("postgres")?,
        })
    }

    /// Opens a connection; call inside [`block`](Self::block).
    pub async fn connect(&self) -> std::result::Result<Conn, tokio_postgres::Error> {
        let (client, task) = match &self.tls {
            None => {
                let (client, io) = self.config.connect(NoTls).await?;
                (client, tokio::spawn(async move { drop(io.await) }))
            }
            Some(tls) => {
                let (client, io) = self.config.connect(tls.clone()).await?;
                (client, tokio::spawn(async move { drop(io.await) }))
            }
        };
        Ok(Conn {
            client,
            task: task.abort_handle(),
        })
    }

    /// Drives `fut` on the runtime for at most `limit`: `None` when the time ran out (the
    /// future, and any connection it owned, is dropped then).
    pub fn block<F>(&self, limit: Duration, fut: F) -> Option<F::Output>
    where
        F: Future + Send,
        F::Output: Send,
    {
        self.runtime.block(limit, fut)
    }
}

/// The reason of a call that timed out.
pub(crate) const TIMED_OUT: &str = "timed out";

impl Reason for tokio_postgres::Error {
    fn reason(&self) -> &'static str {
        use tokio_postgres::error::SqlState;
        if let Some(db) = self.as_db_error() {
            let c = db.code();
            return if *c == SqlState::INVALID_PASSWORD {
                "authentication failed"
            } else if *c == SqlState::INVALID_AUTHORIZATION_SPECIFICATION {
                "not authorized (no pg_hba.conf entry, unknown role, or TLS required)"
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
        let mut source = std::error::Error::source(self);
        while let Some(s) = source {
            if let Some(t) = s.downcast_ref::<rustls::Error>() {
                return tls_reason(t);
            }
            if let Some(io) = s.downcast_ref::<std::io::Error>() {
                // An I/O error may wrap the TLS error (its `source` skips the wrapped error).
                if let Some(t) = io.get_ref().and_then(|e| e.downcast_ref::<rustls::Error>()) {
                    return tls_reason(t);
                }
                return io.reason();
            }
            source = s.source();
        }
        let text = self.to_string();
        if text.contains("server does not support TLS") {
            return "server does not support TLS";
        }
        if text.contains("TLS") {
            return "TLS handshake failed";
        }
        if self.is_closed() {
            return "connection lost";
        }
        "connection failed"
    }
}

fn tls_reason(e: &rustls::Error) -> &'static str {
    match e {
        rustls::Error::InvalidCertificate(c) => match c {
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                "TLS certificate does not name the host"
            }
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                "TLS certificate expired"
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                "TLS certificate not valid yet"
            }
            CertificateError::Revoked => "TLS certificate revoked",
            _ => "TLS certificate not trusted",
        },
        _ => "TLS handshake failed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_parameters_are_taken_out_of_urls() {
        let t = parse(
            "postgres://u@h:5/db?sslmode=verify-full&sslrootcert=%2Ftmp%2Fca.pem&connect_timeout=2",
        )
        .unwrap();
        assert_eq!(t.ssl, SslMode::VerifyFull);
        assert_eq!(t.root.as_deref(), Some("/tmp/ca.pem"));
        assert_eq!(
            t.config.get_connect_timeout(),
            Some(&Duration::from_secs(2))
        );
        let t = parse("postgresql://u@h/db").unwrap();
        assert_eq!((t.ssl, t.root), (SslMode::Prefer, None));
        for bad in [
            "postgres://u@h/db?sslmode=allow",
            "postgres://u@h/db?sslmode=maybe",
            "postgres://u@h/db?sslcert=/c.pem",
            "postgres://u@h/db?nonsense=1",
        ] {
            assert!(
                matches!(parse(bad), Err(Error::InvalidConfig { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn tls_parameters_are_taken_out_of_key_value_strings() {
        let t = parse("host=h  user=u sslmode = 'verify-ca' sslrootcert='/a b/c\\'s.pem' dbname=x")
            .unwrap();
        assert_eq!(t.ssl, SslMode::VerifyCa);
        assert_eq!(t.root.as_deref(), Some("/a b/c's.pem"));
        assert_eq!(t.config.get_dbname(), Some("x"));
        assert_eq!(t.config.get_user(), Some("u"));
        assert!(parse("host=h sslmode='open").is_err());
        assert!(parse("host").is_err());
    }

    #[test]
    fn unreadable_root_files_are_config_errors() {
        let target =
            parse("postgres://u@h/db?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem").unwrap();
        assert!(matches!(Pg::new(target), Err(Error::InvalidConfig { .. })));
    }
}
