//! The store's URL: the members' gateway addresses, the key prefix, the deadline of a call
//! and TLS (rustls with *ring*, trusting `ca_file=` or the system's CA certificates).

use std::sync::Arc;
use std::time::Duration;

use idmint::{Error, Result};

use super::super::url;

const DEFAULT_PREFIX: &str = "/idmint";
const DEFAULT_PORT: u16 = 2379;

/// What the parsed URL holds.
pub(super) struct Target {
    /// `http://HOST:PORT` or `https://HOST:PORT` of each member.
    pub endpoints: Vec<String>,
    pub prefix: String,
    /// The TLS settings of an `etcds://` URL.
    pub tls: Option<ureq::tls::TlsConfig>,
    pub timeout: Duration,
}

fn invalid(reason: &'static str) -> Error {
    Error::InvalidConfig { reason }
}

/// Parses `etcd://HOST:PORT[,HOST:PORT...]/PREFIX[?timeout_ms=N&ca_file=PATH]`.
pub(super) fn parse_url(url: &str) -> Result<Target> {
    let split = url::split_params(url)?;
    split.no_mode("the etcd lease store has no `mode` parameter")?;
    let (scheme, rest) = if let Some(r) = split.url.strip_prefix("etcd://") {
        ("http", r)
    } else if let Some(r) = split.url.strip_prefix("etcds://") {
        ("https", r)
    } else {
        return Err(invalid("an etcd URL starts with etcd:// or etcds://"));
    };
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (rest, None),
    };
    let mut ca_file = None;
    for pair in query.into_iter().flat_map(|q| q.split('&')) {
        match pair.split_once('=') {
            Some(("ca_file", v)) if !v.is_empty() => ca_file = Some(v.to_string()),
            _ if pair.is_empty() => {}
            _ => {
                return Err(invalid(
                    "etcd URL parameters are timeout_ms=N and ca_file=PATH (etcds://)",
                ))
            }
        }
    }
    let (hosts, path) = rest.split_once('/').unwrap_or((rest, ""));
    if hosts.contains('@') {
        return Err(invalid(
            "etcd URLs take no user name or password (not supported)",
        ));
    }
    let mut endpoints = Vec::new();
    for h in hosts.split(',') {
        endpoints.push(format!("{scheme}://{}", host_port(h)?));
    }
    let path = path.trim_end_matches('/');
    let prefix = if path.is_empty() {
        DEFAULT_PREFIX.to_string()
    } else if path
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-' | b'/'))
        && !path.split('/').any(str::is_empty)
    {
        format!("/{path}")
    } else {
        return Err(invalid(
            "an etcd key prefix is made of /-separated names of [A-Za-z0-9_.-]",
        ));
    };
    let tls = match (scheme, ca_file) {
        ("http", Some(_)) => return Err(invalid("ca_file= needs an etcds:// URL")),
        ("http", None) => None,
        (_, Some(path)) => Some(tls_config(Some(&path))?),
        (_, None) => Some(tls_config(None)?),
    };
    Ok(Target {
        endpoints,
        prefix,
        tls,
        timeout: split.timeout,
    })
}

/// Checks one `HOST[:PORT]` (IPv6 in brackets) and adds the default port.
fn host_port(h: &str) -> Result<String> {
    let bad = || invalid("an etcd URL lists HOST:PORT endpoints separated by commas");
    let (host, port) = if let Some(v6) = h.strip_prefix('[') {
        let (addr, after) = v6.split_once(']').ok_or_else(bad)?;
        if addr.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(bad());
        }
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':').ok_or_else(bad)?),
        };
        (format!("[{addr}]"), port)
    } else {
        let (host, port) = match h.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (h, None),
        };
        let ok = !host.is_empty()
            && host
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_'));
        if !ok {
            return Err(bad());
        }
        (host.to_string(), port)
    };
    let port = match port {
        None => DEFAULT_PORT,
        Some(p) => p.parse::<u16>().ok().filter(|&p| p != 0).ok_or_else(bad)?,
    };
    Ok(format!("{host}:{port}"))
}

/// rustls with *ring* (passed explicitly: no process-wide provider is needed or installed),
/// trusting the CA certificates of the PEM file `ca_file`, or else the system's. A host without
/// system CA certificates is not refused here: its handshakes then fail as untrusted.
fn tls_config(ca_file: Option<&str>) -> Result<ureq::tls::TlsConfig> {
    use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig, TlsProvider};
    let roots: Vec<Certificate<'static>> = match ca_file {
        Some(path) => {
            let unreadable = || invalid("ca_file: cannot read a PEM CA certificate from that file");
            let pem = std::fs::read(path).map_err(|_| unreadable())?;
            let certs: Vec<_> = ureq::tls::parse_pem(&pem)
                .filter_map(|item| match item {
                    Ok(PemItem::Certificate(c)) => Some(c.to_owned()),
                    _ => None,
                })
                .collect();
            if certs.is_empty() {
                return Err(unreadable());
            }
            certs
        }
        None => rustls_native_certs::load_native_certs()
            .certs
            .iter()
            .map(|c| Certificate::from_der(c.as_ref()).to_owned())
            .collect(),
    };
    Ok(TlsConfig::builder()
        .provider(TlsProvider::Rustls)
        .root_certs(RootCerts::from(roots))
        .unversioned_rustls_crypto_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .build())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let t =
            parse_url("etcd://127.0.0.1:2379,localhost:2380,[::1]/app/ids?timeout_ms=250").unwrap();
        assert_eq!(
            t.endpoints,
            [
                "http://127.0.0.1:2379",
                "http://localhost:2380",
                "http://[::1]:2379"
            ]
        );
        assert_eq!(t.prefix, "/app/ids");
        assert_eq!(t.timeout, Duration::from_millis(250));
        assert!(t.tls.is_none());
        let t = parse_url("etcd://h:1/").unwrap();
        assert_eq!(t.prefix, "/idmint");
        let t = parse_url("etcds://h:1/x").unwrap();
        assert!(t.tls.is_some());
        assert_eq!(t.endpoints, ["https://h:1"]);
        for bad in [
            "etcd://",
            "etcd:///x",
            "etcd://h:0/x",
            "etcd://h:99999/x",
            "etcd://h:1,,h:2/x",
            "etcd://u:p@h:1/x",
            "etcd://h:1/a//b",
            "etcd://h:1/a b",
            "etcd://h:1/x?mode=boot",
            "etcd://h:1/x?ca_file=/etc/hosts",
            "etcds://h:1/x?ca_file=/nonexistent/ca.pem",
            "etcds://h:1/x?ca_file=/etc/hostname",
            "etcd://h:1/x?what=1",
            "etcd://[zz]:1/x",
            "http://h:1/x",
        ] {
            assert!(
                matches!(parse_url(bad), Err(Error::InvalidConfig { .. })),
                "{bad:?} was accepted"
            );
        }
    }
}
