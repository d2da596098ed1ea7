//! Connections to Redis, shared by the Redis lease store, the Redis segment store and the Redis
//! composition generator: the idmint URL parameters taken out before the URL reaches the
//! client, TLS, and a deadline on every connect, read and write.
//!
//! # URL parameters
//!
//! - `timeout_ms=N`: bounds one connection attempt and each command's send and reply (every
//!   store call then fails within a few timeouts instead of hanging on a stopped or
//!   unreachable server).
//! - `ca_file=PATH` (`rediss://` only): trust the CA certificates in the PEM file `PATH`
//!   *instead of* the system's roots — for a private CA. Without it, `rediss://` checks the
//!   server's certificate against the system's trusted roots. The certificate must name the
//!   host of the URL (IP addresses work when the certificate lists them). Checks cannot be
//!   turned off: the client library's `#insecure` fragment is refused.
//!
//! TLS is rustls with the *ring* provider; client certificates are not supported.

use std::sync::Once;
use std::time::Duration;

use idmint::{Error, Result};
use redis::{Client, Connection, TlsCertificates};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;

/// A URL's Redis client and the timeout it asked for.
pub(crate) struct Target {
    pub client: Client,
    /// From `timeout_ms=`, if given.
    pub timeout: Option<Duration>,
}

fn bad<T>(reason: &'static str) -> Result<T> {
    Err(Error::InvalidConfig { reason })
}

/// Takes every `name=value` pair out of `url`'s query; returns the URL without them and the
/// last value (percent-decoded).
pub(crate) fn take_param(url: &str, name: &str) -> Result<(String, Option<String>)> {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, q),
        None => return Ok((url.to_string(), None)),
    };
    let (query, fragment) = match query.split_once('#') {
        Some((q, f)) => (q, Some(f)),
        None => (query, None),
    };
    let mut keep = Vec::new();
    let mut value = None;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some((k, v)) if k == name => {
                value = Some(crate::url_ref::percent_decode(v).map_or_else(
                    || bad("a URL parameter has a malformed %-escape or is not UTF-8"),
                    Ok,
                )?)
            }
            None if pair == name => value = Some(String::new()),
            _ => keep.push(pair),
        }
    }
    let mut out = base.to_string();
    if !keep.is_empty() {
        out.push('?');
        out.push_str(&keep.join("&"));
    }
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    Ok((out, value))
}

/// Installs rustls's *ring* provider as the process default unless one is installed: the
/// client library builds its TLS config from the default, and with more than one provider
/// compiled in (another crate may bring aws-lc) rustls would panic instead of choosing.
fn ensure_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // Losing a race with another installer is fine: a provider is installed either way.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
    });
}

/// Parses `url` (`redis://`, `rediss://`, `redis+unix://`) with the parameters above into a
/// client. Does not connect. Configuration mistakes are [`Error::InvalidConfig`].
pub(crate) fn target(url: &str) -> Result<Target> {
    let (url, timeout) = take_param(url, "timeout_ms")?;
    let timeout = match timeout {
        None => None,
        Some(v) => match v.parse::<u64>() {
            Ok(0) => return bad("timeout_ms must be at least 1"),
            Ok(ms) => Some(Duration::from_millis(ms)),
            Err(_) => return bad("timeout_ms must be a whole number of milliseconds"),
        },
    };
    let (url, ca_file) = take_param(&url, "ca_file")?;
    let tls = url.starts_with("rediss://");
    if tls && url.contains('#') {
        return bad("rediss:// URLs take no #fragment: certificate checks cannot be turned off");
    }
    let client = match ca_file {
        Some(_) if !tls => return bad("ca_file needs a rediss:// URL"),
        Some(path) => {
            let pem = std::fs::read(&path).or_else(|_| bad("cannot read the ca_file"))?;
            let certs: std::result::Result<Vec<_>, _> =
                CertificateDer::pem_slice_iter(&pem).collect();
            match certs {
                Ok(c) if !c.is_empty() => {}
                _ => return bad("the ca_file holds no PEM certificate"),
            }
            ensure_crypto_provider();
            let certs = TlsCertificates {
                client_tls: None,
                root_cert: Some(pem),
            };
            Client::build_with_tls(url.as_str(), certs).or_else(|_| bad("invalid Redis URL"))?
        }
        None => {
            if tls {
                ensure_crypto_provider();
            }
            Client::open(url.as_str()).or_else(|_| bad("invalid Redis URL"))?
        }
    };
    Ok(Target { client, timeout })
}

/// A new connection whose connect (TCP, TLS handshake, connection setup) and every later
/// read and write are bounded by `connect` and `io` (zero counts as 1 ms: std sockets take
/// zero for "no timeout").
pub(crate) fn connect(
    client: &Client,
    connect: Duration,
    io: Duration,
) -> redis::RedisResult<Connection> {
    let floor = Duration::from_millis(1);
    let con = client.get_connection_with_timeout(connect.max(floor))?;
    con.set_read_timeout(Some(io.max(floor)))?;
    con.set_write_timeout(Some(io.max(floor)))?;
    Ok(con)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_come_out_and_the_rest_stays() {
        let (u, v) =
            take_param("rediss://h:1/0?a=1&ca_file=%2Ftmp%2Fca.pem&b=2", "ca_file").unwrap();
        assert_eq!(
            (u.as_str(), v.as_deref()),
            ("rediss://h:1/0?a=1&b=2", Some("/tmp/ca.pem"))
        );
        let (u, v) = take_param("redis://h/?timeout_ms=5", "timeout_ms").unwrap();
        assert_eq!((u.as_str(), v.as_deref()), ("redis://h/", Some("5")));
        let (u, v) = take_param("redis://h/", "x").unwrap();
        assert_eq!((u.as_str(), v), ("redis://h/", None));
        assert!(take_param("redis://h/?x=%zz", "x").is_err());
    }

    #[test]
    fn bad_urls_are_config_errors() {
        for bad in [
            "redis://h/?timeout_ms=0",
            "redis://h/?timeout_ms=soon",
            "redis://h/?ca_file=/etc/hostname",
            "rediss://h/?ca_file=/nonexistent/ca.pem",
            "rediss://h/#insecure",
            "http://h/",
        ] {
            assert!(
                matches!(target(bad), Err(Error::InvalidConfig { .. })),
                "{bad}"
            );
        }
        let t = target("rediss://127.0.0.1:1/?timeout_ms=250").unwrap();
        assert_eq!(t.timeout, Some(Duration::from_millis(250)));
    }
}
