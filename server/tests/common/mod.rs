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
    let mut s = TcpStream::connect(addr).unwrap();
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

/// A holder that issued nothing and releases saying 0 must not lower its node's record below
/// the fence it was granted: the next holder stays fenced past the holder before it.
pub fn release_keeps_the_fence(svc: &idmint_server::Running) {
    let a = svc.addr();
    let body =
        r#"{"namespace":"f","layout":"time=41@1ms,node=1,seq=12,epoch=2020-01-01","ttl_ms":5000}"#;
    // One node stays held throughout, so every later grant gets the other one.
    let held = post(a, "/v1/leases", body);
    assert_eq!(held.status, 201, "{}", held.body);
    // The first holder renews far ahead (it says it issued up to then) and releases there.
    let g1 = post(a, "/v1/leases", body).json();
    let token1 = g1["lease"].as_str().unwrap().to_owned();
    let far = now_ms() + 50_000;
    let r = post(
        a,
        "/v1/leases/renew",
        &format!(r#"{{"lease":"{token1}","issued_up_to_ms":{far}}}"#),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let rel = post(
        a,
        "/v1/leases/release",
        &format!(r#"{{"lease":"{token1}","issued_up_to_ms":{far}}}"#),
    );
    assert_eq!(rel.status, 204);
    // The second holder is fenced at `far`, issues nothing and releases saying 0.
    let g2 = post(a, "/v1/leases", body).json();
    assert_eq!(g2["node"], g1["node"]);
    assert!(g2["fence_ms"].as_u64().is_some_and(|f| f >= far), "{g2}");
    let token2 = g2["lease"].as_str().unwrap().to_owned();
    let rel = post(
        a,
        "/v1/leases/release",
        &format!(r#"{{"lease":"{token2}","issued_up_to_ms":0}}"#),
    );
    assert_eq!(rel.status, 204);
    // The third is still fenced past everything the first issued.
    let g3 = post(a, "/v1/leases", body).json();
    assert_eq!(g3["node"], g1["node"]);
    assert!(g3["fence_ms"].as_u64().is_some_and(|f| f >= far), "{g3}");
}
