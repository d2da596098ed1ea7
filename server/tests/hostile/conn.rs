//! Connections and requests that try to hold the service (`serve.rs`, `timed_io.rs`,
//! `per_ip.rs`, `deadline.rs`), and HTTPS (`tls.rs`) with coord's `idmint+https://` store.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use idmint::Error;
use idmint_server::config::{ServeConfig, Settings};
use idmint_server::deadline::Stop;
use idmint_server::service::Service;

use crate::common::{config, get, start, temp_dir};

#[path = "../../../coord/tests/support/tls.rs"]
mod tls;

/// Generous bound for something that should happen soon; never a timing assertion.
const LIVENESS: Duration = Duration::from_secs(30);

/// The value of one sample line of `/metrics` (0 when absent).
fn metric(a: SocketAddr, sample: &str) -> u64 {
    let text = get(a, "/metrics").body;
    text.lines()
        .find_map(|l| l.strip_prefix(sample)?.trim().parse::<f64>().ok())
        .map_or(0, |v| v as u64)
}

/// The value of one sample line of `/metrics` read on a connection of its own, or `None` when
/// the service refused it: under a per-address cap, a connection the test just closed may still
/// hold its slot until the service notices.
fn metric_if_served(a: SocketAddr, sample: &str) -> Option<u64> {
    let mut s = TcpStream::connect(a).ok()?;
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .ok()?;
    let got = read_until_closed(&mut s).ok()?;
    let text = String::from_utf8_lossy(&got);
    let (head, body) = text.split_once("\r\n\r\n")?;
    if !head.starts_with("HTTP/1.1 200 ") {
        return None;
    }
    Some(
        body.lines()
            .find_map(|l| l.strip_prefix(sample)?.trim().parse::<f64>().ok())
            .map_or(0, |v| v as u64),
    )
}

/// Polls until `cond` holds, up to [`LIVENESS`].
fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let t = Instant::now();
    while !cond() {
        assert!(t.elapsed() < LIVENESS, "not within {LIVENESS:?}: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Sends a keep-alive request and reads its answer (head and `Content-Length` body).
fn keep_alive_call(s: &mut TcpStream, path: &str) -> (u16, String) {
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").as_bytes())
        .unwrap();
    let mut raw = Vec::new();
    let mut byte = [0u8; 1];
    while !raw.ends_with(b"\r\n\r\n") {
        assert_eq!(s.read(&mut byte).unwrap(), 1, "closed mid-answer");
        raw.push(byte[0]);
    }
    let head = String::from_utf8(raw).unwrap();
    let len: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .expect("a Content-Length");
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, String::from_utf8(body).unwrap())
}

/// Reads until the service closes the connection; `Err` if it did not within the read
/// timeout. A reset counts as closed.
fn read_until_closed(s: &mut TcpStream) -> Result<Vec<u8>, std::io::Error> {
    s.set_read_timeout(Some(LIVENESS)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return Ok(got),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return Ok(got),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

#[test]
fn a_client_that_never_reads_its_answer_loses_the_connection_and_others_are_served() {
    let dir = temp_dir("never-reads");
    let svc = start(ServeConfig {
        write_timeout_ms: Some(300),
        ..config(&dir)
    });
    let a = svc.addr();
    let mut hostile = TcpStream::connect(a).unwrap();
    // Twenty answers of 100,000 IDs (~2 MB each): more than any socket buffers hold.
    let ask = "GET /v1/snowflake?count=100000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    hostile.write_all(ask.repeat(20).as_bytes()).unwrap();
    hostile
        .set_write_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    // It never reads. Meanwhile others are served; its writes fail once the service has
    // closed its side (the service resets a connection it closed with bytes unread).
    let t = Instant::now();
    loop {
        assert_eq!(get(a, "/v1/snowflake?count=10").ids().len(), 10);
        match hostile.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") {
            Ok(()) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(e) => {
                assert!(
                    matches!(e.kind(), ErrorKind::BrokenPipe | ErrorKind::ConnectionReset),
                    "{e}"
                );
                break;
            }
        }
        assert!(
            t.elapsed() < LIVENESS,
            "the service still holds a client that does not read"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        metric(
            a,
            "idmint_connections_closed_total{reason=\"write_timeout\"}"
        ) >= 1
    );
    svc.stop().unwrap();
}

#[test]
fn a_connection_silent_between_requests_is_closed_at_the_idle_deadline() {
    let dir = temp_dir("idle");
    let svc = start(ServeConfig {
        idle_timeout_ms: Some(300),
        // Hyper's header deadline also runs between requests: keep it out of the way.
        header_timeout_ms: Some(600_000),
        ..config(&dir)
    });
    let a = svc.addr();
    let mut s = TcpStream::connect(a).unwrap();
    let (status, _) = keep_alive_call(&mut s, "/healthz");
    assert_eq!(status, 200);
    let rest = read_until_closed(&mut s).expect("the idle connection is closed");
    assert!(rest.is_empty(), "{rest:?}");
    assert!(
        metric(
            a,
            "idmint_connections_closed_total{reason=\"idle_timeout\"}"
        ) >= 1
    );
    svc.stop().unwrap();
}

#[test]
fn connections_over_the_per_address_cap_are_refused_and_a_freed_slot_is_reused() {
    let dir = temp_dir("per-ip");
    let svc = start(ServeConfig {
        max_connections_per_ip: Some(2),
        ..config(&dir)
    });
    let a = svc.addr();
    // Two connections, each surely accepted: they had an answer.
    let mut held: Vec<TcpStream> = (0..2)
        .map(|_| {
            let mut s = TcpStream::connect(a).unwrap();
            assert_eq!(keep_alive_call(&mut s, "/healthz").0, 200);
            s
        })
        .collect();
    // A third from the same address gets a 429 and is closed.
    let mut third = TcpStream::connect(a).unwrap();
    let got = read_until_closed(&mut third).expect("the extra connection is closed");
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 429 "), "{text}");
    let (_, body) = text.split_once("\r\n\r\n").unwrap();
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(v["code"], "ERR_LIMIT_EXCEEDED");
    // The held ones still work; closing one frees a slot.
    assert_eq!(keep_alive_call(&mut held[0], "/healthz").0, 200);
    drop(held.pop());
    eventually("a freed slot serves a new connection", || {
        let mut s = TcpStream::connect(a).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .is_ok()
            && read_until_closed(&mut s).is_ok_and(|b| b.starts_with(b"HTTP/1.1 200 "))
    });
    drop(held);
    eventually("the refusal is counted", || {
        metric_if_served(
            a,
            "idmint_connections_closed_total{reason=\"per_ip_limit\"}",
        )
        .is_some_and(|n| n >= 1)
    });
    svc.stop().unwrap();
}

fn open_service(dir: &Path) -> Service {
    Service::open(
        Settings::resolve(ServeConfig {
            max_count: Some(10_000_000),
            ..config(dir)
        })
        .unwrap(),
    )
    .unwrap()
}

#[test]
fn a_batch_waiting_for_the_mint_lock_gives_up_at_its_deadline_and_a_cancelled_batch_stops() {
    let dir = temp_dir("mint-gate");
    let svc = Arc::new(open_service(&dir));
    // 4,000,000 IDs take at least 976 ms in the leaf layout (4,096 per ms).
    let big = 4_000_000;
    let mut rounds = 0;
    loop {
        rounds += 1;
        assert!(rounds <= 20, "the long batch never held the gate first");
        let holder_stop = Arc::new(Stop::within(Duration::from_secs(600)));
        let holder = {
            let (svc, stop) = (svc.clone(), holder_stop.clone());
            std::thread::spawn(move || {
                let mut out = vec![0u64; big];
                let r = svc.snowflakes(&mut out, &stop);
                (r, out)
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        let mut small = vec![0u64; 10];
        let waited = svc.snowflakes(&mut small, &Stop::within(Duration::from_millis(200)));
        holder_stop.cancel();
        let (held, out) = holder.join().unwrap();
        match waited {
            // It went first: try again.
            Ok(()) => {
                let _ = held;
                continue;
            }
            Err(e) => {
                assert_eq!((e.status.as_u16(), e.code), (503, "ERR_BUSY"), "{e:?}");
                assert_eq!(e.retry_after, Some(1));
            }
        }
        // The holder was cancelled long before its four seconds of work: it stopped, and
        // what it had made is not handed out.
        let e = held.unwrap_err();
        assert_eq!((e.status.as_u16(), e.code), (408, "ERR_TIMEOUT"));
        assert_eq!(
            *out.last().unwrap(),
            0,
            "the cancelled batch ran to the end"
        );
        break;
    }
    // The gate is free again, and IDs carry on above everything made before.
    let mut after = vec![0u64; 5_000];
    svc.snowflakes(&mut after, &Stop::within(Duration::from_secs(60)))
        .unwrap();
    assert!(after.windows(2).all(|w| w[0] < w[1]));
    Arc::try_unwrap(svc).ok().unwrap().close().unwrap();
}

#[test]
fn a_request_past_its_deadline_gets_json_and_its_batch_stops_freeing_the_mint_lock() {
    let dir = temp_dir("deadline");
    let svc = start(ServeConfig {
        request_timeout_ms: Some(500),
        max_count: Some(10_000_000),
        ..config(&dir)
    });
    let a = svc.addr();
    // Ten million IDs take at least 2.4 s: far past the deadline.
    let r = get(a, "/v1/snowflake?count=10000000");
    assert!(matches!(r.status, 408 | 503), "{} {}", r.status, r.body);
    let code = r.json()["code"].as_str().unwrap().to_owned();
    assert!(
        matches!(code.as_str(), "ERR_TIMEOUT" | "ERR_BUSY"),
        "{code}"
    );
    assert!(r.json()["message"].is_string());
    // The batch stopped (it would otherwise hold the mint lock for seconds): the next one
    // gets the lock within its own deadline.
    eventually("the timed-out batch is counted as stopped", || {
        metric(a, "idmint_batches_stopped_total{reason=\"deadline\"}")
            + metric(a, "idmint_batches_stopped_total{reason=\"cancelled\"}")
            >= 1
    });
    assert_eq!(get(a, "/v1/snowflake?count=5000").ids().len(), 5000);
    svc.stop().unwrap();
}

#[test]
fn a_batch_whose_client_left_stops() {
    let dir = temp_dir("client-left");
    let svc = start(ServeConfig {
        request_timeout_ms: Some(600_000),
        max_count: Some(10_000_000),
        ..config(&dir)
    });
    let a = svc.addr();
    let mut s = TcpStream::connect(a).unwrap();
    s.write_all(b"GET /v1/snowflake?count=10000000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    eventually("the batch runs", || {
        metric(a, "idmint_batches_running ") == 1
    });
    // Gone before the answer: without a stop the batch would run to its end (2.4 s and
    // more) and never count as stopped.
    drop(s);
    eventually("the abandoned batch is counted as stopped", || {
        metric(a, "idmint_batches_stopped_total{reason=\"cancelled\"}") >= 1
    });
    assert_eq!(metric(a, "idmint_batches_running "), 0);
    assert_eq!(get(a, "/v1/snowflake?count=5000").ids().len(), 5000);
    svc.stop().unwrap();
}

fn https_store(a: SocketAddr, ca: &Path) -> Box<dyn idmint_coord::segment::SegmentStore> {
    idmint_coord::segment::open_store(&format!(
        "idmint+https://{a}/?timeout_ms=10000&ca_file={}",
        ca.display()
    ))
    .unwrap()
}

fn tls_reason(r: idmint::Result<impl std::fmt::Debug>) -> &'static str {
    match r {
        Err(Error::StoreUnavailable { reason, .. }) => reason,
        other => panic!("expected a TLS failure, got {other:?}"),
    }
}

#[test]
fn https_with_a_private_ca_serves_coords_store_and_reloads_its_certificate() {
    let dir = temp_dir("tls");
    let first = tls::make_pki(&dir.join("pki1"));
    let second = tls::make_pki(&dir.join("pki2"));
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let install = |pki: &tls::TestPki| {
        std::fs::copy(&pki.server_cert, &cert).unwrap();
        std::fs::copy(&pki.server_key, &key).unwrap();
    };

    // Both files or neither; unreadable and mismatched files are refused at start, by name.
    let refused = |c: Option<&Path>, k: Option<&Path>| {
        let data = temp_dir("tls-bad");
        let settings = Settings::resolve(ServeConfig {
            tls_cert: c.map(Path::to_path_buf),
            tls_key: k.map(Path::to_path_buf),
            ..config(&data)
        });
        match settings {
            Err(e) => e.to_string(),
            Ok(s) => match idmint_server::start(s) {
                Err(e) => e.to_string(),
                Ok(_) => panic!("started with {c:?} {k:?}"),
            },
        }
    };
    assert!(refused(Some(&first.server_cert), None).contains("tls_key"));
    let missing = dir.join("missing.pem");
    assert!(refused(Some(&missing), Some(&first.server_key)).contains("missing.pem"));
    assert!(refused(Some(&first.server_cert), Some(&missing)).contains("missing.pem"));
    assert!(refused(Some(&first.server_cert), Some(&second.server_key)).contains("is not the key"),);
    assert!(refused(Some(&first.ca_cert), Some(&first.server_cert)).contains("--tls-key"));

    install(&first);
    let svc = start(ServeConfig {
        tls_cert: Some(cert.clone()),
        tls_key: Some(key.clone()),
        ..config(&dir.join("data"))
    });
    let a = svc.addr();
    let store = https_store(a, &first.ca_cert);
    let r = store.take("orders", 100).unwrap();
    assert!(!r.is_empty() && r.len() <= 100);
    assert!(store.identity().unwrap() != 0);
    // A CA that did not sign the certificate: a typed refusal, not a hang.
    assert_eq!(
        tls_reason(https_store(a, &first.other_ca_cert).take("orders", 1)),
        "TLS certificate not trusted"
    );
    // Plain HTTP on the TLS port gets nothing it can use.
    let plain =
        idmint_coord::segment::open_store(&format!("idmint+http://{a}/?timeout_ms=5000")).unwrap();
    assert!(plain.take("orders", 1).is_err());

    // A new certificate from another CA: new connections get it.
    install(&second);
    svc.reload_tls().unwrap();
    let renewed = https_store(a, &second.ca_cert);
    let r2 = renewed.take("orders", 100).unwrap();
    assert!(r2.start >= r.end, "ranges never overlap");
    assert_eq!(
        tls_reason(https_store(a, &first.ca_cert).take("orders", 1)),
        "TLS certificate not trusted"
    );
    // A broken reload keeps the certificate in force.
    std::fs::write(&key, "not a key").unwrap();
    let e = svc.reload_tls().unwrap_err().to_string();
    assert!(e.contains("--tls-key"), "{e}");
    assert!(https_store(a, &second.ca_cert).take("orders", 1).is_ok());
    svc.stop().unwrap();
}
