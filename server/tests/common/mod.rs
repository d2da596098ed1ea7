//! A service on a temporary data directory, and a minimal blocking HTTP/1.1 client for it (one
//! connection per request, so a test sees exactly what the wire carries).
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use idmint_server::config::{ServeConfig, Settings};
use idmint_server::Running;

/// A fresh, empty directory under the system temp dir.
pub fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "idmint-srv-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Settings for a service on `dir`, listening on a free loopback port.
pub fn config(dir: &Path) -> ServeConfig {
    ServeConfig {
        listen: Some("127.0.0.1:0".into()),
        data_dir: Some(dir.to_path_buf()),
        ..ServeConfig::default()
    }
}

/// Starts a service.
pub fn start(cfg: ServeConfig) -> Running {
    idmint_server::start(Settings::resolve(cfg).unwrap()).unwrap()
}

/// An answer.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", self.status, self.body))
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
        })
    }

    /// The IDs of a `{"ids":[…]}` answer, as numbers.
    pub fn ids(&self) -> Vec<u64> {
        assert_eq!(self.status, 200, "{}", self.body);
        self.json()["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().parse().unwrap())
            .collect()
    }
}

/// Sends one request (`Connection: close`) and reads the whole answer.
pub fn call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> Answer {
    exchange(
        TcpStream::connect(addr).unwrap(),
        addr,
        method,
        path,
        body,
        headers,
    )
}

/// [`call`] from the loopback address `from` (any of 127.0.0.0/8), so a test can play
/// several peers.
pub fn call_from(
    from: std::net::IpAddr,
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> Answer {
    use socket2::{Domain, Socket, Type};
    let sock = Socket::new(Domain::for_address(addr), Type::STREAM, None).unwrap();
    sock.bind(&SocketAddr::new(from, 0).into()).unwrap();
    sock.connect(&addr.into()).unwrap();
    exchange(sock.into(), addr, method, path, body, headers)
}

fn exchange(
    mut s: TcpStream,
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> Answer {
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(b) = body {
        req.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            b.len()
        ));
    }
    req.push_str("\r\n");
    if let Some(b) = body {
        req.push_str(b);
    }
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {head:?}"));
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_owned()
    };
    Answer {
        status,
        head: head.to_owned(),
        body,
    }
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((len, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(len.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
    out
}

pub fn get(addr: SocketAddr, path: &str) -> Answer {
    call(addr, "GET", path, None, &[])
}

pub fn post(addr: SocketAddr, path: &str, body: &str) -> Answer {
    call(addr, "POST", path, Some(body), &[])
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The namespace and layout of [`release_keeps_the_fence`]: a two-node space.
pub const FENCE_NAMESPACE: &str = "f";
/// See [`FENCE_NAMESPACE`].
pub const FENCE_LAYOUT: &str = "time=41@1ms,node=1,seq=12,epoch=2020-01-01";

/// `cfg` with client leases open in `namespace` for `layout`.
pub fn open_to_clients(cfg: ServeConfig, namespace: &str, layout: &str) -> ServeConfig {
    ServeConfig {
        client_namespaces: Some(vec![namespace.into()]),
        client_layouts: Some(vec![layout.into()]),
        ..cfg
    }
}

/// A holder that issued nothing and releases saying 0 must not lower its node's record below
/// what the holder before it was granted, and a holder that claims to have issued far past its
/// bound must not push the record there: the next holder's fence is the last bound the service
/// granted. The service must be open to clients in [`FENCE_NAMESPACE`] for [`FENCE_LAYOUT`].
pub fn release_keeps_the_fence(svc: &idmint_server::Running) {
    let a = svc.addr();
    let body = format!(r#"{{"layout":"{FENCE_LAYOUT}","ttl_ms":5000}}"#);
    // One node stays held throughout, so every later grant gets the other one.
    let held = post(a, "/v1/leases", &body);
    assert_eq!(held.status, 201, "{}", held.body);
    // The first holder renews claiming it issued far ahead, and releases claiming the same.
    let g1 = post(a, "/v1/leases", &body).json();
    let token1 = g1["lease"].as_str().unwrap().to_owned();
    let far = now_ms() + 50_000;
    let r = post(
        a,
        "/v1/leases/renew",
        &format!(r#"{{"lease":"{token1}","issued_up_to_ms":{far}}}"#),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let bound = r.json()["bound_ms"].as_u64().unwrap();
    assert!(
        bound < far,
        "a claim past the granted bound is capped: {bound}"
    );
    let rel = post(
        a,
        "/v1/leases/release",
        &format!(r#"{{"lease":"{token1}","issued_up_to_ms":{far}}}"#),
    );
    assert_eq!(rel.status, 204);
    // The second holder is fenced at the granted bound (not at `far`), issues nothing and
    // releases saying 0.
    let g2 = post(a, "/v1/leases", &body).json();
    assert_eq!(g2["node"], g1["node"]);
    let fence2 = g2["fence_ms"].as_u64().unwrap();
    assert!(fence2 >= bound && fence2 < far, "{g2}");
    let token2 = g2["lease"].as_str().unwrap().to_owned();
    let rel = post(
        a,
        "/v1/leases/release",
        &format!(r#"{{"lease":"{token2}","issued_up_to_ms":0}}"#),
    );
    assert_eq!(rel.status, 204);
    // The third is still fenced past everything the first could issue.
    let g3 = post(a, "/v1/leases", &body).json();
    assert_eq!(g3["node"], g1["node"]);
    assert!(g3["fence_ms"].as_u64().is_some_and(|f| f >= bound), "{g3}");
}
