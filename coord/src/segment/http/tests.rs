//! Unit tests of the idmint service (HTTP) segment store.

use super::*;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::Instant;

type Answer = dyn Fn(&str) -> String + Send + Sync;

/// A canned HTTP/1.1 service on 127.0.0.1: one connection at a time, each answered by
/// `answer(request head)` and closed. Records every request head.
struct Fake {
    addr: SocketAddr,
    heads: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Fake {
    fn start(answer: impl Fn(&str) -> String + Send + Sync + 'static) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let heads = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let answer: Box<Answer> = Box::new(answer);
        let thread = {
            let (heads, stop) = (Arc::clone(&heads), Arc::clone(&stop));
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::Acquire) {
                        return;
                    }
                    let Ok(mut conn) = conn else { continue };
                    let Some(head) = read_head(&mut conn) else {
                        continue;
                    };
                    let reply = answer(&head);
                    heads.lock().unwrap().push(head);
                    let _ = conn.write_all(reply.as_bytes());
                }
            })
        };
        Fake {
            addr,
            heads,
            stop,
            thread: Some(thread),
        }
    }

    fn url(&self, rest: &str) -> String {
        format!("idmint+http://{}{rest}", self.addr)
    }

    fn store(&self, rest: &str) -> HttpStore {
        HttpStore::new(&self.url(rest)).unwrap()
    }

    fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        let _ = TcpStream::connect(self.addr); // wakes the accept
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The request line and headers (the store sends no body).
fn read_head(conn: &mut TcpStream) -> Option<String> {
    conn.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if conn.read(&mut byte).ok()? == 0 {
            return None;
        }
        head.push(byte[0]);
    }
    String::from_utf8(head).ok()
}

fn reply(status: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
}

fn range(key: &str, start: u64, end: u64) -> String {
    reply(
        "200 OK",
        &format!(r#"{{"key":"{key}","start":"{start}","end":"{end}"}}"#),
    )
}

fn unavailable_reason(r: Result<impl std::fmt::Debug>) -> &'static str {
    match r {
        Err(Error::StoreUnavailable {
            store: KIND,
            reason,
            ..
        }) => reason,
        other => panic!("expected StoreUnavailable, got {other:?}"),
    }
}

/// A port nothing listens on (bound, then closed).
fn closed_port() -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap()
}

#[test]
fn a_good_range_is_handed_out() {
    let fake = Fake::start(|_| range("orders", 1001, 2001));
    let store = fake.store("/");
    assert_eq!(store.kind(), "idmint+http");
    assert_eq!(
        store.take("orders", 1000).unwrap(),
        Range {
            start: 1001,
            end: 2001
        }
    );
    // Shorter than asked is fine.
    assert_eq!(store.take("orders", 5000).unwrap().len(), 1000);
    let heads = fake.heads();
    assert!(
        heads[0].starts_with("POST /v1/segments/orders/ranges?count=1000 HTTP/1.1\r\n"),
        "{}",
        heads[0]
    );
    assert!(!heads[0].to_ascii_lowercase().contains("authorization:"));
}

#[test]
fn ranges_that_do_not_check_out_are_refused() {
    for (answer, why) in [
        (range("k", 1, 12), "service answered a bad range"), // 11 > 10 asked
        (range("k", 5, 5), "service answered a bad range"),  // empty
        (range("k", 9, 5), "service answered a bad range"),  // backwards
        (range("k", 0, 10), "service answered a bad range"), // value 0
        (
            reply("200 OK", r#"{"key":"k","start":1,"end":5}"#),
            "service answered a bad range",
        ),
        (
            reply("200 OK", r#"{"key":"k","start":"+1","end":"5"}"#),
            "service answered a bad range",
        ),
        (
            reply(
                "200 OK",
                r#"{"key":"k","start":"1","end":"99999999999999999999"}"#,
            ),
            "service answered a bad range",
        ),
        (
            range("other", 1, 5),
            "service answered a range for another key",
        ),
        (
            reply("200 OK", "not json"),
            "service answered malformed JSON",
        ),
    ] {
        let fake = Fake::start(move |_| answer.clone());
        assert_eq!(unavailable_reason(fake.store("").take("k", 10)), why);
    }
}

#[test]
fn service_errors_are_classified() {
    let json = |code: &str| {
        format!(
            r#"{{"code":"{code}","message":"sqlite store unavailable during take: database is locked"}}"#
        )
    };
    let fake =
        Fake::start(move |_| reply("503 Service Unavailable", &json("ERR_STORE_UNAVAILABLE")));
    assert_eq!(
        unavailable_reason(fake.store("").take("k", 10)),
        "the service's own store is unavailable"
    );
    for (status, body, why) in [
        ("503 Service Unavailable", "", "service unavailable (503)"),
        (
            "500 Internal Server Error",
            "{}",
            "internal error of the service (500)",
        ),
        (
            "502 Bad Gateway",
            "",
            "bad gateway in front of the service (502)",
        ),
        ("507 Insufficient Storage", "", "server error (5xx)"),
        ("409 Conflict", "", "conflict (409)"),
        (
            "429 Too Many Requests",
            "",
            "rate limited by the service (429)",
        ),
        (
            "301 Moved Permanently",
            "",
            "the service redirected (3xx, not followed)",
        ),
        (
            "404 Not Found",
            "<html>",
            "no idmint service at this URL (404): check host and path",
        ),
        (
            "403 Forbidden",
            "",
            "forbidden (403): the service refuses this token",
        ),
    ] {
        let fake = Fake::start(move |_| reply(status, body));
        assert_eq!(
            unavailable_reason(fake.store("").take("k", 10)),
            why,
            "{status}"
        );
    }
}

#[test]
fn unknown_keys_and_refused_counts_say_so() {
    let fake = Fake::start(|_| {
        reply(
            "404 Not Found",
            r#"{"code":"ERR_NOT_FOUND","message":"unknown key"}"#,
        )
    });
    match fake.store("").take("invoices-2024-eu-west", 10) {
        Err(e @ Error::InvalidArgument { argument, .. }) => {
            assert_eq!(argument.as_str(), "invoices-2024-e");
            assert!(e.to_string().contains("not a segment key"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    let fake = Fake::start(|_| {
        reply(
            "400 Bad Request",
            r#"{"code":"ERR_LIMIT_EXCEEDED","message":"count above 1000"}"#,
        )
    });
    assert!(matches!(
        fake.store("").take("k", 5000),
        Err(Error::LimitExceeded { limit: 4999, .. })
    ));
    let fake = Fake::start(|_| reply("400 Bad Request", r#"{"code":"ERR_INVALID_CONFIG"}"#));
    assert!(matches!(
        fake.store("").take("k", 5),
        Err(Error::InvalidConfig { .. })
    ));
}

#[test]
fn tokens_are_sent_and_refusals_reported() {
    let fake = Fake::start(|head| {
        if head
            .to_ascii_lowercase()
            .contains("\r\nauthorization: bearer s3cr&t\r\n")
        {
            range("k", 1, 11)
        } else {
            reply("401 Unauthorized", r#"{"code":"ERR_UNAUTHORIZED"}"#)
        }
    });
    assert_eq!(
        fake.store("/?token=s3cr%26t").take("k", 10).unwrap().len(),
        10
    );
    assert_eq!(
        unavailable_reason(fake.store("/?token=wrong").take("k", 10)),
        "authentication failed (401): the service refused the token"
    );
    assert_eq!(
        unavailable_reason(fake.store("/").take("k", 10)),
        "authentication failed (401): the service wants token= in the URL"
    );
    let debug = format!("{:?}", fake.store("/?token=s3cr%26t"));
    assert!(!debug.contains("s3cr"), "{debug}");
}

#[test]
fn keys_are_percent_encoded_under_the_prefix() {
    let fake = Fake::start(|_| reply("200 OK", r#"{"key":"a/b c?%é","start":"1","end":"2"}"#));
    let store = fake.store("/edge/idmint/");
    assert_eq!(store.take("a/b c?%é", 1).unwrap().len(), 1);
    let head = &fake.heads()[0];
    assert!(
        head.starts_with(
            "POST /edge/idmint/v1/segments/a%2Fb%20c%3F%25%C3%A9/ranges?count=1 HTTP/1.1\r\n"
        ),
        "{head}"
    );
    // Keys are checked as every store checks them, before any round trip.
    assert!(matches!(
        store.take("", 1),
        Err(Error::InvalidConfig { .. })
    ));
    assert!(matches!(
        store.take("k", 0),
        Err(Error::InvalidConfig { .. })
    ));
    assert_eq!(fake.heads().len(), 1);
}

#[test]
fn a_silent_server_fails_the_call_in_bounded_time() {
    // Bound but never accepted: the kernel completes the handshake, nobody answers.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "idmint+http://{}/?timeout_ms=300",
        silent.local_addr().unwrap()
    );
    let store = HttpStore::new(&url).unwrap();
    let t0 = Instant::now();
    assert_eq!(unavailable_reason(store.take("k", 10)), "timed out");
    assert_eq!(unavailable_reason(store.identity()), "timed out");
    // Two calls of 300 ms each; 5x per call leaves room for a loaded machine.
    assert!(
        t0.elapsed() < Duration::from_millis(2 * 5 * 300),
        "{:?}",
        t0.elapsed()
    );
    drop(silent);
}

#[test]
fn a_connection_closed_without_an_answer_is_tried_once_more() {
    // An empty reply closes the connection unanswered, as a service restarting would.
    let calls = Arc::new(AtomicU64::new(0));
    let fake = {
        let calls = Arc::clone(&calls);
        Fake::start(move |_| match calls.fetch_add(1, Ordering::SeqCst) {
            0 => String::new(),
            _ => range("k", 11, 21),
        })
    };
    assert_eq!(fake.store("").take("k", 10).unwrap().start, 11);
    assert_eq!(fake.heads().len(), 2);
    // Once only.
    let fake = Fake::start(|_| String::new());
    assert_eq!(
        unavailable_reason(fake.store("").take("k", 10)),
        "connection lost"
    );
    assert_eq!(fake.heads().len(), 2);
}

#[test]
fn a_closed_port_is_connection_refused() {
    let store = HttpStore::new(&format!("idmint+http://{}/", closed_port())).unwrap();
    assert_eq!(
        unavailable_reason(store.take("k", 10)),
        "connection refused"
    );
    assert_eq!(unavailable_reason(store.identity()), "connection refused");
    // Unreachable: ascending() cannot fail and says true (the allocator then refuses a
    // range that goes back), and keeps nothing.
    assert!(store.ascending());
    assert!(store.ascending.get().is_none());
}

#[test]
fn identity_and_ascending_come_from_the_service() {
    let fake = Fake::start(|head| {
        assert!(head.starts_with("GET /v1/store HTTP/1.1\r\n"), "{head}");
        reply(
            "200 OK",
            r#"{"kind":"sqlite","identity":"1234567890123","ascending":false}"#,
        )
    });
    let store = fake.store("");
    assert!(!store.ascending());
    assert_eq!(store.identity().unwrap(), 1_234_567_890_123);
    drop(fake);
    // Kept: asked once, and the allocator asks it once anyway.
    assert!(!store.ascending());

    for (body, why) in [
        (
            r#"{"identity":"0","ascending":true}"#,
            "service answered a bad identity",
        ),
        (r#"{"identity":"-4"}"#, "service answered a bad identity"),
        (r#"{"identity":42}"#, "service answered a bad identity"),
        (r#"{"ascending":true}"#, "service answered a bad identity"),
        ("[", "service answered malformed JSON"),
    ] {
        let fake = Fake::start(move |_| reply("200 OK", body));
        assert_eq!(unavailable_reason(fake.store("").identity()), why, "{body}");
    }
    // An answer without `ascending` leaves the safe default.
    let fake = Fake::start(|_| reply("200 OK", r#"{"identity":"7"}"#));
    assert!(fake.store("").ascending());
}

#[test]
fn urls_parse_and_refuse_what_they_do_not_take() {
    let t =
        Target::parse("idmint+http://ids.internal:7600/edge/?token=a%2Bb&timeout_ms=250").unwrap();
    assert_eq!(
        t,
        Target {
            base: "http://ids.internal:7600/edge".into(),
            tls: false,
            token: Some("a+b".into()),
            ca_file: None,
            timeout: Duration::from_millis(250),
        }
    );
    let t = Target::parse("idmint+https://h:1/?ca_file=%2Fetc%2Fca%20x.pem").unwrap();
    assert_eq!(t.ca_file.as_deref(), Some("/etc/ca x.pem"));
    let t = Target::parse("idmint+http://[::1]:7600").unwrap();
    assert_eq!(t.base, "http://[::1]:7600");
    assert_eq!(t.timeout, crate::lease::DEFAULT_STORE_TIMEOUT);
    assert_eq!(t.token, None);
    let t = Target::parse("idmint+https://ids.internal/").unwrap();
    assert_eq!((t.base.as_str(), t.tls), ("https://ids.internal", true));

    for bad in [
        "idmint+http://",
        "idmint+http:///v1",
        "idmint+http://h:1/?frobnicate=1",
        "idmint+http://h:1/?token=a&token=b",
        "idmint+http://h:1/?token=",
        "idmint+http://h:1/?token=a%20b",
        "idmint+http://h:1/?token=%zz",
        "idmint+http://h:1/?token=%+1",
        "idmint+http://h:1/?timeout_ms=0",
        "idmint+http://h:1/?timeout_ms=soon",
        "idmint+http://h:1/?timeout_ms=1&timeout_ms=2",
        "idmint+http://h:1/?ca_file=/etc/ca.pem",
        "idmint+https://h:1/?ca_file=",
        "idmint+https://h:1/?ca_file=/a&ca_file=/b",
        "idmint+http://user:pw@h:1/",
        "idmint+http://h:1/#x",
        "idmint+http://h:99999/",
        "idmint+http://h:x/",
        "idmint+http://h h/",
        "idmint+http://h:1/a b",
        "idmint+ftp://h:1/",
        "http://h:1/",
    ] {
        assert!(
            matches!(Target::parse(bad), Err(Error::InvalidConfig { .. })),
            "{bad}"
        );
    }
    assert!(matches!(
        Target::parse("idmint+http://h:1/?timeout_ms=3600001"),
        Err(Error::LimitExceeded {
            limit: 3_600_000,
            ..
        })
    ));
    assert!(Target::parse("idmint+http://h:1/?timeout_ms=3600000").is_ok());
}

#[test]
fn open_store_opens_the_service_without_connecting() {
    let port = closed_port();
    let s = super::super::open_store(&format!("idmint+http://{port}/?timeout_ms=200")).unwrap();
    assert_eq!(s.kind(), "idmint+http");
    for bad in [
        "idmint+http://h:1/?shards=2",
        "idmint+http://h:1/?busy_timeout_ms=2",
        "idmint+http://h:1/?ca_file=/x",
        "idmint+https://h:1/?ca_file=/nonexistent/ca.pem",
        "idmint+https://h:1/?ca_file=/etc/hostname",
    ] {
        assert!(
            matches!(
                super::super::open_store(bad),
                Err(Error::InvalidConfig { .. })
            ),
            "{bad}"
        );
    }
}

#[test]
fn https_speaks_tls() {
    // A plain-HTTP server behind an https URL: it answers the TLS hello with plain text,
    // and the handshake fails as a StoreUnavailable.
    let plain = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = plain.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        if let Ok((mut conn, _)) = plain.accept() {
            let _ = conn.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
            let _ = conn.set_read_timeout(Some(Duration::from_secs(2)));
            let _ = conn.read(&mut [0u8; 512]);
        }
    });
    match HttpStore::new(&format!("idmint+https://{addr}/?timeout_ms=2000")) {
        Ok(store) => {
            let why = unavailable_reason(store.take("k", 1));
            assert!(why.starts_with("TLS") || why == "corrupt data", "{why}");
        }
        // A host without system CA certificates cannot speak https at all.
        Err(Error::InvalidConfig { reason }) => {
            assert!(reason.contains("CA"), "{reason}");
            let _ = TcpStream::connect(addr); // releases the server thread
        }
        Err(e) => panic!("{e}"),
    }
    server.join().unwrap();
}

#[test]
fn an_allocator_on_the_service_hands_out_unique_ids() {
    let next = Arc::new(AtomicU64::new(1));
    let fake = {
        let next = Arc::clone(&next);
        Fake::start(move |head| {
            if head.starts_with("GET /v1/store ") {
                return reply("200 OK", r#"{"identity":"99","ascending":true}"#);
            }
            let count: u64 = head
                .split_once("count=")
                .and_then(|(_, rest)| rest.split(' ').next()?.parse().ok())
                .unwrap_or(1)
                .min(700); // shorter than asked, as a service may answer
            let start = next.fetch_add(count, Ordering::SeqCst);
            range("orders", start, start + count)
        })
    };
    let store = super::super::open_store(&fake.url("/?timeout_ms=2000")).unwrap();
    let alloc =
        super::super::SegmentAllocator::new(store, idmint::segment::SegmentConfig::new()).unwrap();
    let per_thread = 5_000;
    let ids: Vec<u64> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    (0..per_thread)
                        .map(|_| alloc.next_id("orders").unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    alloc.close().unwrap();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), 4 * per_thread, "duplicate IDs");
    assert!(sorted[0] >= 1 && *sorted.last().unwrap() < next.load(Ordering::SeqCst));
}
