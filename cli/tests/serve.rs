//! `idmint serve` as a process: a graceful stop on SIGTERM, and three instances behind one
//! segment store (PostgreSQL) and one lease store (Redis) with one of them killed and
//! restarted mid-run — never a duplicate.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

#[path = "../../coord/tests/support/mod.rs"]
mod support;

use support::{temp_dir, Kind, Server};

const BIN: &str = env!("CARGO_BIN_EXE_idmint");

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One request over a fresh connection: `(status, body)`, or `None` if nothing answered.
fn call(port: u16, method: &str, path: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(20))).ok()?;
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: 0\r\n\r\n"
    );
    s.write_all(req.as_bytes()).ok()?;
    let mut raw = String::new();
    s.read_to_string(&mut raw).ok()?;
    let (head, body) = raw.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    Some((status, body.to_owned()))
}

fn ids(body: &str) -> Vec<u64> {
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    v["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().parse().unwrap())
        .collect()
}

fn wait_until(what: &str, limit: Duration, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < limit, "timed out waiting for {what}");
        thread::sleep(Duration::from_millis(50));
    }
}

fn serve(port: u16, dir: &Path, extra: &[&str]) -> Child {
    Command::new(BIN)
        .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
        .arg("--data-dir")
        .arg(dir)
        .args(["--log", "warn"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start idmint serve")
}

fn ready(port: u16) -> bool {
    call(port, "GET", "/readyz").is_some_and(|(s, _)| s == 200)
}

fn signal(child: &Child, sig: libc::c_int) {
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as libc::pid_t, sig) };
}

/// Snowflake IDs as they came, with the instance that answered.
type Batches = Arc<Mutex<Vec<(usize, Vec<u64>)>>>;

/// The Leaf layout's worker (node) field.
fn node_of(id: u64) -> u64 {
    (id >> 12) & 1023
}

#[test]
fn sigterm_reports_unready_then_finishes_and_records_everything() {
    let dir = temp_dir("serve-term");
    let port = free_port();
    let mut child = serve(port, &dir, &["--drain-ms", "1500", "--keys", "orders"]);
    wait_until("ready", Duration::from_secs(30), || ready(port));
    let (_, b) = call(port, "GET", "/v1/segments/orders?count=10").unwrap();
    let seg1 = ids(&b);
    let (_, b) = call(port, "GET", "/v1/snowflake?count=1000").unwrap();
    let snow1 = ids(&b);

    signal(&child, libc::SIGTERM);
    // Unready first, while requests are still served.
    wait_until("unready", Duration::from_secs(5), || {
        call(port, "GET", "/readyz").is_some_and(|(s, _)| s == 503)
    });
    let (s, _) = call(port, "GET", "/v1/snowflake").expect("still serving while draining");
    assert_eq!(s, 200);
    let t = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "did not exit after SIGTERM"
        );
        thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "exit {status:?}: {err}");
    let journal = std::fs::read_to_string(dir.join("segments.journal")).unwrap();
    assert!(
        journal.contains("orders"),
        "the remainder was recorded: {journal}"
    );

    // A restart continues above everything, on the same data.
    let mut child = serve(port, &dir, &["--keys", "orders"]);
    wait_until("ready again", Duration::from_secs(30), || ready(port));
    let (_, b) = call(port, "GET", "/v1/segments/orders?count=10").unwrap();
    assert!(ids(&b)[0] > *seg1.last().unwrap());
    let (_, b) = call(port, "GET", "/v1/snowflake").unwrap();
    assert!(ids(&b)[0] > *snow1.last().unwrap());
    signal(&child, libc::SIGTERM);
    assert!(child.wait().unwrap().success());
}

#[test]
fn three_instances_on_shared_stores_never_repeat_even_when_one_is_killed() {
    let pg = Server::start(Kind::Postgres);
    let redis = Server::start(Kind::Redis);
    let flags = |_: usize| -> Vec<String> {
        vec![
            "--segments".into(),
            pg.url(),
            "--lease".into(),
            redis.url(),
            "--lease-ttl-ms".into(),
            "2000".into(),
            "--keys".into(),
            "orders".into(),
        ]
    };
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let dirs: Vec<_> = (0..3)
        .map(|i| temp_dir(&format!("serve-scale-{i}")))
        .collect();
    let start = |i: usize| {
        let f = flags(i);
        let f: Vec<&str> = f.iter().map(String::as_str).collect();
        serve(ports[i], &dirs[i], &f)
    };
    let mut children: Vec<Child> = (0..3).map(start).collect();
    for &p in &ports {
        wait_until("ready", Duration::from_secs(60), || ready(p));
    }

    let stop = Arc::new(AtomicBool::new(false));
    // Snowflake IDs per instance, and every segment value.
    let snow: Batches = Arc::default();
    let segs: Arc<Mutex<Vec<u64>>> = Arc::default();
    let clients: Vec<_> = (0..6)
        .map(|c| {
            let (stop, snow, segs, ports) =
                (stop.clone(), snow.clone(), segs.clone(), ports.clone());
            thread::spawn(move || {
                let mut i = c;
                while !stop.load(Ordering::Relaxed) {
                    let inst = i % 3;
                    let p = ports[inst];
                    let path = match i % 3 {
                        0 => "/v1/snowflake?count=200",
                        1 => "/v1/segments/orders?count=100",
                        _ => "/api/segment/get/orders",
                    };
                    if let Some((200, body)) = call(p, "GET", path) {
                        match i % 3 {
                            0 => snow.lock().unwrap().push((inst, ids(&body))),
                            1 => segs.lock().unwrap().extend(ids(&body)),
                            _ => segs.lock().unwrap().push(body.trim().parse().unwrap()),
                        }
                    }
                    i += 1;
                }
            })
        })
        .collect();

    thread::sleep(Duration::from_millis(1500));
    let node_before = |inst: usize| -> u64 {
        let (_, b) = call(ports[inst], "GET", "/v1/monitor").unwrap();
        let v: serde_json::Value = serde_json::from_str(&b).unwrap();
        v["snowflake"]["node"].as_u64().unwrap()
    };
    let nodes: Vec<u64> = (0..3).map(node_before).collect();
    assert_eq!(
        nodes.iter().collect::<HashSet<_>>().len(),
        3,
        "distinct nodes: {nodes:?}"
    );
    // Kill one as a crash would, and start it again on the same data.
    children[1].kill().unwrap();
    children[1].wait().unwrap();
    let killed_at = snow.lock().unwrap().len();
    children[1] = start(1);
    wait_until(
        "the restarted instance ready",
        Duration::from_secs(60),
        || ready(ports[1]),
    );
    thread::sleep(Duration::from_millis(1500));
    let nodes_after: Vec<u64> = (0..3).map(node_before).collect();
    assert_eq!(
        nodes_after.iter().collect::<HashSet<_>>().len(),
        3,
        "distinct nodes: {nodes_after:?}"
    );
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        c.join().unwrap();
    }
    for c in &mut children {
        signal(c, libc::SIGTERM);
        assert!(c.wait().unwrap().success());
    }

    let snow = snow.lock().unwrap();
    let segs = segs.lock().unwrap();
    let all_snow: Vec<u64> = snow.iter().flat_map(|(_, v)| v.iter().copied()).collect();
    assert!(
        all_snow.len() > 1000 && segs.len() > 100,
        "too little traffic: {} {}",
        all_snow.len(),
        segs.len()
    );
    assert_eq!(
        all_snow.iter().collect::<HashSet<_>>().len(),
        all_snow.len(),
        "duplicate Snowflake ID"
    );
    assert_eq!(
        segs.iter().collect::<HashSet<_>>().len(),
        segs.len(),
        "duplicate segment value"
    );
    // The restarted instance is fenced: on any node, IDs minted after the restart are above
    // every ID minted on that node before the kill.
    let mut before_max: HashMap<u64, u64> = HashMap::new();
    for (_, v) in &snow[..killed_at] {
        for &id in v {
            let m = before_max.entry(node_of(id)).or_default();
            *m = (*m).max(id);
        }
    }
    for (inst, v) in &snow[killed_at..] {
        if *inst == 1 {
            for &id in v {
                if let Some(&m) = before_max.get(&node_of(id)) {
                    assert!(
                        id > m,
                        "the restarted instance reissued below its node's fence"
                    );
                }
            }
        }
    }
}

#[test]
fn a_service_paused_past_its_lease_never_repeats_the_ids_of_the_next_holder() {
    let redis = Server::start(Kind::Redis);
    let flags = [
        "--lease".to_owned(),
        redis.url(),
        "--lease-ttl-ms".to_owned(),
        "1000".to_owned(),
        "--layout".to_owned(),
        // One node bit: the second service can only take the paused one's node or the other.
        "time=41@1ms,worker=1,seq=12,epoch=2020-01-01".to_owned(),
    ];
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let (pa, pb) = (free_port(), free_port());
    let (da, db) = (temp_dir("serve-pause-a"), temp_dir("serve-pause-b"));
    let mut a = serve(pa, &da, &flags);
    wait_until("a ready", Duration::from_secs(60), || ready(pa));
    let mut ids_all: Vec<u64> = Vec::new();
    let (_, body) = call(pa, "GET", "/v1/snowflake?count=100").unwrap();
    ids_all.extend(ids(&body));

    // Paused well past its TTL: its lease expires and another service may take its node.
    signal(&a, libc::SIGSTOP);
    thread::sleep(Duration::from_millis(3000));
    let mut b = serve(pb, &db, &flags);
    wait_until("b ready", Duration::from_secs(60), || ready(pb));
    signal(&a, libc::SIGCONT);
    // Both answer at once after the pause: A must refuse (503, its lease lost) until its
    // renewer has leased the other node, never repeat B's IDs.
    let t = Instant::now();
    let (mut a_refusals, mut a_served) = (0, 0);
    while t.elapsed() < Duration::from_secs(3)
        || (a_served == 0 && t.elapsed() < Duration::from_secs(30))
    {
        for p in [pa, pb] {
            match call(p, "GET", "/v1/snowflake?count=50") {
                Some((200, body)) => {
                    ids_all.extend(ids(&body));
                    a_served += usize::from(p == pa);
                }
                Some((503, body)) if p == pa => {
                    assert!(
                        body.contains("ERR_LEASE_LOST") || body.contains("ERR_NO_FREE_NODE"),
                        "{body}"
                    );
                    a_refusals += 1;
                }
                other => panic!("port {p}: {other:?}"),
            }
        }
    }
    assert!(
        a_served > 0,
        "the paused service never leased a node again ({a_refusals} refusals)"
    );
    let n = ids_all.len();
    ids_all.sort_unstable();
    ids_all.dedup();
    assert_eq!(
        ids_all.len(),
        n,
        "a duplicate after the pause ({a_refusals} refusals)"
    );
    for c in [&mut a, &mut b] {
        signal(c, libc::SIGTERM);
        let _ = c.wait();
    }
}

/// A service whose own lease must wait (here the lock delay of a fresh Redis namespace, which
/// cannot be told from a wiped one) says so in its log before its first Snowflake ID: one line
/// with the node, the cause and the time it waits until.
#[test]
fn a_service_whose_lease_waits_logs_what_it_awaits_and_until_when() {
    let redis = Server::start(Kind::Redis);
    let url = redis.url();
    let flags = ["--lease", &url, "--lease-ttl-ms", "1000"];
    let port = free_port();
    let dir = temp_dir("serve-wait-line");
    let mut child = serve(port, &dir, &flags);
    wait_until("ready", Duration::from_secs(60), || ready(port));
    let (status, body) = call(port, "GET", "/v1/snowflake?count=3").unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(ids(&body).len(), 3);
    signal(&child, libc::SIGTERM);
    let mut log = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    let _ = child.wait();
    let waits: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("is fenced until"))
        .collect();
    assert_eq!(waits.len(), 1, "one line per wait: {log}");
    assert!(
        waits[0].contains("snowflake node ")
            && waits[0].contains(" of lease namespace default is fenced until 20")
            && waits[0].contains("(the lease store's lock delay")
            && waits[0].contains("; waiting "),
        "{log}"
    );
}

/// `/readyz` says "not ready" while the service's node is fenced (here: a fresh Redis
/// namespace's lock delay, two TTLs), naming until when, and "ready" only once that time has
/// passed — so a load balancer routes no request to a wait.
#[test]
fn readyz_waits_for_the_nodes_fence() {
    let redis = Server::start(Kind::Redis);
    let url = redis.url();
    let flags = ["--lease", &url, "--lease-ttl-ms", "4000"];
    let port = free_port();
    let dir = temp_dir("serve-ready-fence");
    let mut child = serve(port, &dir, &flags);
    let mut fenced_until = None;
    let started = Instant::now();
    let ready_at = loop {
        assert!(started.elapsed() < Duration::from_secs(60), "never ready");
        let Some((status, body)) = call(port, "GET", "/readyz") else {
            thread::sleep(Duration::from_millis(20));
            continue;
        };
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        let lease = v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "lease")
            .cloned()
            .unwrap();
        if status == 200 {
            break now;
        }
        let detail = lease["detail"].as_str().unwrap_or("");
        if let Some(at) = detail.split(" fenced until ").nth(1) {
            fenced_until = Some(at.to_string());
        }
        thread::sleep(Duration::from_millis(20));
    };
    let until = fenced_until.expect("/readyz never said the node was fenced");
    let until_ms = humantime_ms(&until);
    assert!(
        ready_at >= until_ms,
        "ready at {ready_at}, fenced until {until} ({until_ms})"
    );
    let (status, body) = call(port, "GET", "/v1/snowflake").unwrap();
    assert_eq!(status, 200, "{body}");
    signal(&child, libc::SIGTERM);
    let _ = child.wait();
}

/// Unix ms of an RFC 3339 time as the service writes it (`2026-11-28T23:30:00.123Z`).
fn humantime_ms(t: &str) -> u64 {
    let out = Command::new("date")
        .args(["-u", "-d", t, "+%s%3N"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

/// A service whose lease store stops answering logs it once — the node, that it retries, and
/// until when it still serves Snowflake IDs — from its background check.
#[test]
fn a_service_whose_lease_store_stops_answering_logs_until_when_it_serves() {
    let redis = Server::start(Kind::Redis);
    let url = redis.url();
    let flags = ["--lease", &url, "--lease-ttl-ms", "3000"];
    let port = free_port();
    let dir = temp_dir("serve-renew-line");
    let mut child = serve(port, &dir, &flags);
    let log = Arc::new(Mutex::new(String::new()));
    let reader = {
        let (log, mut stderr) = (log.clone(), child.stderr.take().unwrap());
        thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = stderr.read(&mut buf) {
                log.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        })
    };
    wait_until("ready", Duration::from_secs(60), || ready(port));
    let (status, body) = call(port, "GET", "/v1/snowflake?count=1").unwrap();
    assert_eq!(status, 200, "{body}");
    redis.kill();
    let line = |log: &str| {
        log.lines()
            .find(|l| l.contains("lease renewals of snowflake node"))
            .map(str::to_owned)
    };
    wait_until("the renewal failure line", Duration::from_secs(60), || {
        line(&log.lock().unwrap()).is_some()
    });
    signal(&child, libc::SIGTERM);
    let _ = child.wait();
    reader.join().unwrap();
    let log = log.lock().unwrap();
    let l = line(&log).unwrap();
    // Seen before the lease's deadline (the usual case), or after it.
    assert!(
        l.contains("fail (the redis lease store does not answer); retrying; ")
            && (l.contains("Snowflake IDs are served until 20") || l.contains("the lease is lost")),
        "{log}"
    );
    assert_eq!(
        log.matches("lease renewals of snowflake node").count(),
        1,
        "{log}"
    );
}

/// A secret on the command line is refused before anything starts, with a message saying how
/// to pass it, which never repeats it; so is an anonymous service on a non-loopback address.
#[test]
fn unsafe_starts_are_refused_with_a_way_out() {
    let dir = temp_dir("serve-refused");
    let secret = "ops literal-secret-0123456789 all";
    let out = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--tokens", secret])
        .arg("--data-dir")
        .arg(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("@env:NAME"), "{err}");
    assert!(!err.contains("literal-secret"), "{err}");

    let out = Command::new(BIN)
        .args(["serve", "--listen", "0.0.0.0:0"])
        .arg("--data-dir")
        .arg(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--allow-anonymous"), "{err}");
}

/// `idmint serve --tls-cert --tls-key` reads both files again on SIGHUP: new connections get
/// the new certificate (a client trusting only the new CA gets through, one trusting only the
/// old is refused), with the process still the same.
#[test]
fn sighup_reloads_the_tls_certificate() {
    let dir = temp_dir("serve-sighup");
    let (a, b) = (
        support::tls::make_pki(&dir.join("a")),
        support::tls::make_pki(&dir.join("b")),
    );
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let install = |pki: &support::tls::TestPki| {
        std::fs::copy(&pki.server_cert, &cert).unwrap();
        std::fs::copy(&pki.server_key, &key).unwrap();
    };
    install(&a);
    let port = free_port();
    let mut child = serve(
        port,
        &dir.join("data"),
        &[
            "--tls-cert",
            cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
    );
    // A range through `idmint+https://` trusting only `ca`.
    let through = |ca: &Path| {
        let url = format!(
            "idmint+https://127.0.0.1:{port}/?ca_file={}&timeout_ms=2000",
            ca.display()
        );
        idmint_coord::segment::open_store(&url)
            .and_then(|s| s.take("tls", 10))
            .is_ok()
    };
    wait_until("the TLS service answers", Duration::from_secs(60), || {
        through(&a.ca_cert)
    });
    assert!(
        !through(&b.ca_cert),
        "only the first CA's certificate is served"
    );
    install(&b);
    signal(&child, libc::SIGHUP);
    wait_until(
        "new connections get the reloaded certificate",
        Duration::from_secs(30),
        || through(&b.ca_cert),
    );
    assert!(!through(&a.ca_cert), "the old certificate is gone");
    assert!(
        child.try_wait().unwrap().is_none(),
        "SIGHUP did not stop it"
    );
    signal(&child, libc::SIGTERM);
    assert!(child.wait().unwrap().success());
}
