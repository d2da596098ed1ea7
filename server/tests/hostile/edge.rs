//! The edge: tokens and scopes, refused unsafe starts, browsers (CORS, JSON-only POSTs, Host),
//! request rates, and errors that stay JSON.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use idmint_server::config::{ServeConfig, Settings};

use crate::common::{call, config, get, start, temp_dir, Answer};

const LEASE_TOKEN: &str = "lease-only-0123456789";
const ALL_TOKEN: &str = "everything-0123456789";

/// A token file in `dir`: a `lease`-only token and an all-scopes one.
fn tokens_file(dir: &Path) -> PathBuf {
    let path = dir.join("tokens");
    std::fs::write(
        &path,
        format!("# NAME TOKEN SCOPES\nbrowser {LEASE_TOKEN} lease\nops {ALL_TOKEN} all\n"),
    )
    .unwrap();
    path
}

fn bearer(token: &str) -> (&'static str, String) {
    ("Authorization", format!("Bearer {token}"))
}

fn with(a: SocketAddr, method: &str, path: &str, body: Option<&str>, token: &str) -> Answer {
    let (k, v) = bearer(token);
    call(a, method, path, body, &[(k, v.as_str())])
}

/// Sends `head` (request line and headers, without the blank line) and `body` as they are.
fn raw(a: SocketAddr, head: &str, body: &[u8]) -> Answer {
    let mut s = TcpStream::connect(a).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(format!("{head}\r\nConnection: close\r\n\r\n").as_bytes())
        .unwrap();
    let _ = s.write_all(body);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    Answer {
        status: head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0),
        head: head.to_owned(),
        body: body.to_owned(),
    }
}

fn code(a: &Answer) -> String {
    a.json()["code"].as_str().unwrap_or("").to_owned()
}

fn client_leases(a: SocketAddr) -> usize {
    let m = with(a, "GET", "/v1/monitor", None, ALL_TOKEN);
    assert_eq!(m.status, 200, "{}", m.body);
    m.json()["client_leases"].as_array().map_or(0, Vec::len)
}

fn range(a: SocketAddr, token: &str) -> (u64, u64) {
    let r = with(a, "POST", "/v1/segments/k/ranges?count=10", Some(""), token);
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    let n = |f: &str| v[f].as_str().unwrap().parse::<u64>().unwrap();
    (n("start"), n("end"))
}

#[test]
fn a_lease_token_cannot_take_ranges_or_mint_and_no_or_a_wrong_token_gets_401() {
    let dir = temp_dir("hostile-scopes");
    let svc = start(ServeConfig {
        tokens_file: Some(tokens_file(&dir)),
        ..config(&dir)
    });
    let a = svc.addr();
    let lease_body = r#"{"layout":"js53","ttl_ms":5000}"#;

    for (method, path, body) in [
        ("POST", "/v1/segments/k/ranges?count=10", Some("")),
        ("GET", "/v1/snowflake", None),
        ("GET", "/v1/segments/k", None),
        ("GET", "/api/segment/get/k", None),
        ("GET", "/api/snowflake/get/k", None),
        ("GET", "/metrics", None),
        ("GET", "/v1/monitor", None),
    ] {
        let r = with(a, method, path, body, LEASE_TOKEN);
        assert_eq!(
            (r.status, code(&r).as_str()),
            (403, "ERR_FORBIDDEN"),
            "{path}"
        );
    }
    let granted = with(a, "POST", "/v1/leases", Some(lease_body), LEASE_TOKEN);
    assert_eq!(granted.status, 201, "{}", granted.body);

    for token in [
        None,
        Some("wrong-token-0123456789"),
        Some(&LEASE_TOKEN[1..]),
    ] {
        let headers: Vec<(&str, String)> = token.map(bearer).into_iter().collect();
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        for (method, path, body) in [
            ("POST", "/v1/leases", Some(lease_body)),
            ("POST", "/v1/segments/k/ranges", Some("")),
            ("GET", "/v1/snowflake", None),
            ("GET", "/v1/decode/1", None),
            ("GET", "/nowhere", None),
        ] {
            let r = call(a, method, path, body, &headers);
            assert_eq!(
                (r.status, code(&r).as_str()),
                (401, "ERR_UNAUTHORIZED"),
                "{path}"
            );
            assert_eq!(r.header("www-authenticate").as_deref(), Some("Bearer"));
            assert!(!r.body.contains("0123456789"), "echoed a token: {}", r.body);
        }
    }
    assert_eq!(client_leases(a), 1, "only the granted lease");
    assert_eq!(get(a, "/healthz").status, 200, "probes stay open");
    svc.stop().unwrap();
}

#[test]
fn tokens_given_as_text_are_refused_and_never_shown() {
    let dir = temp_dir("hostile-literal");
    let secret = "literal-secret-0123456789";
    let e = Settings::resolve(ServeConfig {
        tokens: Some(format!("ops {secret} all")),
        ..config(&dir)
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("@PATH") && e.contains("@env:NAME"), "{e}");
    assert!(!e.contains(secret), "{e}");

    // From a variable they are read, and the settings never show them.
    let var = format!("IDMINT_HOSTILE_TOKENS_{}", std::process::id());
    std::env::set_var(
        &var,
        format!("ops {secret} all; web web-0123456789abcdef lease"),
    );
    let s = Settings::resolve(ServeConfig {
        tokens: Some(format!("@env:{var}")),
        ..config(&dir)
    })
    .unwrap();
    std::env::remove_var(&var);
    assert_eq!(s.tokens.names().collect::<Vec<_>>(), ["ops", "web"]);
    let shown = format!("{s:?}");
    assert!(
        !shown.contains(secret) && !shown.contains("web-0123"),
        "{shown}"
    );

    // A malformed file names the line, never the token.
    let path = dir.join("bad-tokens");
    std::fs::write(&path, format!("ops {secret} al")).unwrap();
    let e = Settings::resolve(ServeConfig {
        tokens_file: Some(path),
        ..config(&dir)
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("unknown scope") && !e.contains(secret), "{e}");
}

#[test]
fn a_non_loopback_listener_without_tokens_is_refused_unless_anonymous_is_allowed() {
    let dir = temp_dir("hostile-anon");
    let open = ServeConfig {
        listen: Some("0.0.0.0:0".into()),
        data_dir: Some(dir.clone()),
        ..ServeConfig::default()
    };
    let e = Settings::resolve(open.clone()).unwrap_err().to_string();
    assert!(
        e.contains("--allow-anonymous") && e.contains("--tokens-file"),
        "{e}"
    );
    let s = Settings::resolve(ServeConfig {
        allow_anonymous: Some(true),
        ..open.clone()
    })
    .unwrap();
    assert!(s.tokens.is_empty());
    let s = Settings::resolve(ServeConfig {
        tokens_file: Some(tokens_file(&dir)),
        ..open
    })
    .unwrap();
    assert!(!s.tokens.is_empty());
    // Loopback needs neither.
    assert!(Settings::resolve(config(&dir)).is_ok());
}

#[test]
fn cross_origin_requests_get_no_cors_headers_unless_the_origin_is_configured() {
    let dir = temp_dir("hostile-cors");
    let origin = "http://127.0.0.1:8000";
    let preflight = |a: SocketAddr, from: &str| {
        raw(
            a,
            &format!(
                "OPTIONS /v1/leases HTTP/1.1\r\nHost: {a}\r\nOrigin: {from}\r\n\
                 Access-Control-Request-Method: POST\r\n\
                 Access-Control-Request-Headers: content-type"
            ),
            b"",
        )
    };
    let svc = start(config(&dir));
    let a = svc.addr();
    let r = call(a, "GET", "/v1/snowflake", None, &[("Origin", origin)]);
    assert_eq!(r.status, 200);
    assert!(
        !r.head.to_ascii_lowercase().contains("access-control"),
        "{}",
        r.head
    );
    let r = preflight(a, origin);
    assert!(
        !r.head.to_ascii_lowercase().contains("access-control"),
        "{}",
        r.head
    );
    svc.stop().unwrap();

    let svc = start(ServeConfig {
        cors_origins: Some(vec![origin.into()]),
        ..config(&dir)
    });
    let a = svc.addr();
    let r = call(a, "GET", "/v1/snowflake", None, &[("Origin", origin)]);
    assert_eq!(
        r.header("access-control-allow-origin").as_deref(),
        Some(origin)
    );
    let r = preflight(a, origin);
    assert_eq!(
        r.header("access-control-allow-origin").as_deref(),
        Some(origin)
    );
    let r = call(
        a,
        "GET",
        "/v1/snowflake",
        None,
        &[("Origin", "https://evil.example")],
    );
    assert_eq!(r.header("access-control-allow-origin"), None);
    svc.stop().unwrap();
}

#[test]
fn form_and_text_posts_are_refused_with_415_and_take_nothing() {
    let dir = temp_dir("hostile-forms");
    let svc = start(config(&dir));
    let a = svc.addr();
    let before = range(a, ALL_TOKEN);
    for path in [
        "/v1/leases",
        "/v1/segments/k/ranges?count=10",
        "/v1/leases/renew",
    ] {
        for (ctype, body) in [
            (
                Some("application/x-www-form-urlencoded"),
                "namespace=x&count=10",
            ),
            (Some("text/plain"), r#"{"namespace":"x"}"#),
            (Some("multipart/form-data; boundary=b"), "--b--"),
            (None, ""),
        ] {
            let ct = ctype.map_or(String::new(), |c| format!("\r\nContent-Type: {c}"));
            let r = raw(
                a,
                &format!(
                    "POST {path} HTTP/1.1\r\nHost: {a}\r\nOrigin: https://evil.example{ct}\r\n\
                     Content-Length: {}",
                    body.len()
                ),
                body.as_bytes(),
            );
            assert_eq!(
                (r.status, code(&r).as_str()),
                (415, "ERR_UNSUPPORTED_MEDIA_TYPE"),
                "{path} {ctype:?}"
            );
        }
    }
    let after = range(a, ALL_TOKEN);
    assert_eq!(after.0, before.1, "the refused posts took no range");
    assert_eq!(client_leases(a), 0, "the refused posts leased no node");
    // JSON with a charset passes.
    let r = raw(
        a,
        &format!(
            "POST /v1/segments/k/ranges?count=1 HTTP/1.1\r\nHost: {a}\r\n\
             Content-Type: application/json; charset=utf-8\r\nContent-Length: 0"
        ),
        b"",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    svc.stop().unwrap();
}

#[test]
fn a_foreign_host_is_refused_by_a_loopback_service_and_an_allowlist_is_exact() {
    let dir = temp_dir("hostile-host");
    let svc = start(config(&dir));
    let a = svc.addr();
    let with_host = |a: SocketAddr, host: &str| {
        raw(
            a,
            &format!("GET /v1/snowflake HTTP/1.1\r\nHost: {host}"),
            b"",
        )
    };
    for host in [
        "evil.example",
        "evil.example:7600",
        &format!("attacker.test:{}", a.port()),
    ] {
        let r = with_host(a, host);
        assert_eq!(
            (r.status, code(&r).as_str()),
            (403, "ERR_HOST_NOT_ALLOWED"),
            "{host}"
        );
    }
    for host in [
        format!("localhost:{}", a.port()),
        a.to_string(),
        "[::1]".into(),
    ] {
        assert_eq!(with_host(a, &host).status, 200, "{host}");
    }
    svc.stop().unwrap();

    let svc = start(ServeConfig {
        allowed_hosts: Some(vec!["ids.example.com".into()]),
        ..config(&dir)
    });
    let a = svc.addr();
    assert_eq!(with_host(a, "ids.example.com:7600").status, 200);
    assert_eq!(
        with_host(a, "localhost").status,
        403,
        "the list replaces the default"
    );
    assert_eq!(with_host(a, "evil.example").status, 403);
    svc.stop().unwrap();
}

#[test]
fn over_the_rate_a_client_gets_429_with_retry_after() {
    let dir = temp_dir("hostile-rate");
    let svc = start(ServeConfig {
        rate_limit: Some("1/min".into()),
        rate_burst: Some(3),
        ..config(&dir)
    });
    let a = svc.addr();
    for _ in 0..3 {
        assert_eq!(get(a, "/v1/layouts").status, 200);
    }
    let r = get(a, "/v1/snowflake");
    assert_eq!((r.status, code(&r).as_str()), (429, "ERR_RATE_LIMITED"));
    let after: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&after), "{after}");
    svc.stop().unwrap();
}

#[test]
fn a_body_over_the_limit_gets_a_json_413_however_it_is_sent() {
    let dir = temp_dir("hostile-413");
    let svc = start(ServeConfig {
        max_body_bytes: Some(64),
        ..config(&dir)
    });
    let a = svc.addr();
    let big = vec![b' '; 65];
    let declared = raw(
        a,
        &format!(
            "POST /v1/leases HTTP/1.1\r\nHost: {a}\r\nContent-Type: application/json\r\n\
             Content-Length: 65"
        ),
        &big,
    );
    let mut chunked_body = b"41\r\n".to_vec();
    chunked_body.extend_from_slice(&big);
    chunked_body.extend_from_slice(b"\r\n0\r\n\r\n");
    let chunked = raw(
        a,
        &format!(
            "POST /v1/leases HTTP/1.1\r\nHost: {a}\r\nContent-Type: application/json\r\n\
             Transfer-Encoding: chunked"
        ),
        &chunked_body,
    );
    for r in [declared, chunked] {
        assert_eq!(
            (r.status, code(&r).as_str()),
            (413, "ERR_LIMIT_EXCEEDED"),
            "{}",
            r.head
        );
        assert!(r
            .header("content-type")
            .unwrap()
            .starts_with("application/json"));
    }
    let r = raw(a, &format!("DELETE /v1/leases HTTP/1.1\r\nHost: {a}"), b"");
    assert_eq!(
        (r.status, code(&r).as_str()),
        (405, "ERR_METHOD_NOT_ALLOWED")
    );
    svc.stop().unwrap();
}
