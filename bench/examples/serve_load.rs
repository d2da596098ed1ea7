//! Load benchmark of the ID service (`idmint serve`) over HTTP/1.1 on loopback.
//!
//! Starts the service in-process (`idmint_server::start` on 127.0.0.1:0, a fresh temporary data
//! directory, pre-registered segment key `bench`, segments in SQLite) — or uses a running one
//! given with `--url` — and drives it with `C` keep-alive connections of hyper's HTTP/1.1
//! client, scenario after scenario, each a fixed number of requests after a warm-up:
//!
//! 1. the HTTP floor: `GET /healthz` on the same server (routing, middleware, JSON, no ID);
//! 2. one Snowflake ID: `GET /v1/snowflake`;
//! 3. one segment ID: `GET /v1/segments/bench`;
//! 4. Leaf's path: `GET /api/segment/get/bench` (plain text);
//! 5. batches: `GET /v1/segments/bench?count=1000` and `GET /v1/snowflake?count=1000`;
//! 6. fixed rate: single Snowflake IDs at 20,000 requests/s for N seconds, open loop: request
//!    `i` is due at `t0 + i/rate` whether or not earlier ones have answered, and its latency is
//!    measured from that due time, so a stall shows up in the latencies of every request it
//!    delayed (no coordinated omission); before it, `/healthz` at the same rate, its floor.
//!
//! Every response is checked: status 200, the body's shape, the number of IDs, and — over the
//! whole run, warm-ups included — that no ID was issued twice (per ID space: the Snowflake
//! node, and the segment key). Any failure makes the run exit with status 1: a benchmark that
//! gets garbage back fast must not report a rate.
//!
//! ```text
//! cargo run --release -p idmint-bench --example serve_load -- [options]
//!   --url http://HOST:PORT   a running service instead of an in-process one (it must serve
//!                            the key given with --key, default `bench`)
//!   --connections C          keep-alive connections [32]
//!   --requests N             requests per single-ID scenario (and the floor) [200000]
//!   --batch-requests N       requests per batch scenario [20000]
//!   --batch N                IDs per batch request [1000]
//!   --rate R                 fixed-rate scenario, requests/s [20000]
//!   --seconds S              fixed-rate scenario, seconds [10]
//!   --warmup N               warm-up requests before each scenario [5000]
//!   --threads T              generator runtime: 0 = tokio current-thread, else multi-thread
//!                            with T workers [0]
//!   --only a,b,…             only these scenarios (floor always runs): snowflake, segment,
//!                            leaf, seg_batch, sf_batch, rate_floor, rate
//! ```
//!
//! The generator and the service share this machine's cores; the output says how many.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper::{header, Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use idmint_server::config::{ServeConfig, Settings};

/// Targets printed next to the results (not asserted: the machine decides).
const TARGET_SINGLE_VS_FLOOR: f64 = 0.8;
const TARGET_SINGLE_RPS: f64 = 50_000.0;
const TARGET_RATE_P999_US: f64 = 1_000.0;
const TARGET_BATCH_IDS: f64 = 20_000_000.0;

#[derive(Clone)]
struct Opts {
    url: Option<String>,
    key: String,
    connections: usize,
    requests: u64,
    batch_requests: u64,
    batch: u64,
    rate: u64,
    secs: u64,
    warmup: u64,
    threads: usize,
    only: Option<Vec<String>>,
}

impl Opts {
    fn parse() -> Result<Opts, String> {
        let mut o = Opts {
            url: None,
            key: "bench".into(),
            connections: 32,
            requests: 200_000,
            batch_requests: 20_000,
            batch: 1000,
            rate: 20_000,
            secs: 10,
            warmup: 5_000,
            threads: 0,
            only: None,
        };
        let mut args = std::env::args().skip(1);
        while let Some(flag) = args.next() {
            let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
            let num = |v: String| {
                v.replace('_', "")
                    .parse::<u64>()
                    .map_err(|_| format!("{flag}: not a number: {v}"))
            };
            match flag.as_str() {
                "--url" => o.url = Some(value()?.trim_end_matches('/').to_owned()),
                "--key" => o.key = value()?,
                "--connections" => o.connections = num(value()?)? as usize,
                "--requests" => o.requests = num(value()?)?,
                "--batch-requests" => o.batch_requests = num(value()?)?,
                "--batch" => o.batch = num(value()?)?,
                "--rate" => o.rate = num(value()?)?,
                "--seconds" => o.secs = num(value()?)?,
                "--warmup" => o.warmup = num(value()?)?,
                "--threads" => o.threads = num(value()?)? as usize,
                "--only" => o.only = Some(value()?.split(',').map(str::to_owned).collect()),
                "-h" | "--help" => {
                    println!("see the header of bench/examples/serve_load.rs for the options");
                    std::process::exit(0);
                }
                _ => return Err(format!("unknown option {flag}")),
            }
        }
        if o.connections == 0
            || o.requests == 0
            || o.batch_requests == 0
            || o.batch == 0
            || o.rate == 0
        {
            return Err(
                "connections, requests, batch-requests, batch and rate must be at least 1".into(),
            );
        }
        Ok(o)
    }

    fn wants(&self, name: &str) -> bool {
        match &self.only {
            None => true,
            Some(l) => l.iter().any(|n| n == name),
        }
    }
}

/// The ID space a scenario's IDs come from: uniqueness is checked within each.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Space {
    Snowflake,
    Segment,
}

/// What a scenario's responses must look like.
#[derive(Clone, Copy)]
enum Expect {
    /// `{"status":"ok"}`.
    Health,
    /// `{"ids":["…",…]}` (or with a `"key"` first) holding exactly `n` decimal IDs.
    Json { space: Space, n: u64 },
    /// One decimal ID as plain text.
    Text { space: Space },
}

impl Expect {
    fn space(self) -> Option<Space> {
        match self {
            Expect::Health => None,
            Expect::Json { space, .. } | Expect::Text { space } => Some(space),
        }
    }

    fn ids_per_request(self) -> u64 {
        match self {
            Expect::Health => 0,
            Expect::Json { n, .. } => n,
            Expect::Text { .. } => 1,
        }
    }
}

#[derive(Clone)]
struct Scenario {
    name: &'static str,
    label: String,
    path: Uri,
    expect: Expect,
    requests: u64,
    /// Requests per second for the open-loop scenario; `None` for closed loop.
    rate: Option<u64>,
}

/// One keep-alive connection.
struct Conn {
    tx: SendRequest<Empty<Bytes>>,
}

/// Parses a decimal ID: 1 to 20 ASCII digits, no sign, fits in a u64.
fn parse_id(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in s {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

/// Parses `"1","22",…` (the inside of a JSON array of decimal strings, no spaces: what the
/// service writes) into `ids`, in one pass; `None` for anything else.
fn parse_ids(list: &[u8], ids: &mut Vec<u64>) -> Option<()> {
    let mut i = 0;
    if list.is_empty() {
        return Some(());
    }
    loop {
        if list.get(i) != Some(&b'"') {
            return None;
        }
        i += 1;
        let start = i;
        let mut v: u64 = 0;
        while let Some(&c) = list.get(i) {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v.wrapping_mul(10).wrapping_add(u64::from(d));
            i += 1;
        }
        match i - start {
            0 => return None,
            1..=19 => {}
            // 20 digits may overflow: the careful parse decides.
            _ => v = parse_id(&list[start..i])?,
        }
        if list.get(i) != Some(&b'"') {
            return None;
        }
        ids.push(v);
        i += 1;
        match list.get(i) {
            None => return Some(()),
            Some(b',') => i += 1,
            Some(_) => return None,
        }
    }
}

/// Checks one response and appends its IDs to `ids`.
fn check(
    expect: Expect,
    key: &str,
    status: StatusCode,
    body: &[u8],
    ids: &mut Vec<u64>,
) -> Result<(), String> {
    let show = || String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
    if status != StatusCode::OK {
        return Err(format!("status {status}: {}", show()));
    }
    match expect {
        Expect::Health => {
            if body != br#"{"status":"ok"}"# {
                return Err(format!("unexpected /healthz body: {}", show()));
            }
        }
        Expect::Text { .. } => {
            let id = parse_id(body).ok_or_else(|| format!("not a decimal ID: {}", show()))?;
            ids.push(id);
        }
        Expect::Json { space, n } => {
            let rest = match space {
                Space::Snowflake => body.strip_prefix(b"{\"ids\":[".as_slice()),
                Space::Segment => {
                    body.strip_prefix(format!("{{\"key\":\"{key}\",\"ids\":[").as_bytes())
                }
            }
            .ok_or_else(|| format!("unexpected JSON head: {}", show()))?;
            let list = rest
                .strip_suffix(b"]}".as_slice())
                .ok_or_else(|| format!("unexpected JSON tail: {}", show()))?;
            let before = ids.len();
            parse_ids(list, ids)
                .ok_or_else(|| format!("not a list of quoted decimal IDs: {}", show()))?;
            let got = (ids.len() - before) as u64;
            if got != n {
                return Err(format!("{got} IDs in a response, {n} asked for"));
            }
        }
    }
    Ok(())
}

/// What one connection's share of a scenario gave back.
#[derive(Default)]
struct Part {
    /// Latency of each request, ns.
    lat: Vec<u64>,
    /// Open loop: how late each request left the generator (due time to send), ns.
    lag: Vec<u64>,
    ids: Vec<u64>,
    errors: u64,
    first_error: Option<String>,
}

/// Sends one request and checks its answer.
async fn one(
    conn: &mut Conn,
    s: &Scenario,
    host: &header::HeaderValue,
    key: &str,
    part: &mut Part,
) -> Result<(), String> {
    let req = Request::get(s.path.clone())
        .header(header::HOST, host.clone())
        .body(Empty::<Bytes>::new())
        .map_err(|e| e.to_string())?;
    conn.tx
        .ready()
        .await
        .map_err(|e| format!("connection: {e}"))?;
    let res = conn
        .tx
        .send_request(req)
        .await
        .map_err(|e| format!("request: {e}"))?;
    let status = res.status();
    let body = res
        .into_body()
        .collect()
        .await
        .map_err(|e| format!("body: {e}"))?
        .to_bytes();
    check(s.expect, key, status, &body, &mut part.ids)
}

/// Runs `n` requests of `s` on every connection at once: closed loop (each connection sends
/// its next request when the previous one answered) or, with `s.rate`, open loop.
async fn run_phase(
    conns: Vec<Conn>,
    s: &Scenario,
    n: u64,
    host: &header::HeaderValue,
    key: &str,
) -> (Vec<Conn>, Vec<Part>, Duration) {
    let next = Arc::new(AtomicU64::new(0));
    let c = conns.len() as u64;
    // Open loop: a pacer thread releases one permit per due time; request i is due at
    // t0 + i × interval and its latency counts from then.
    let pacing = s.rate.map(|rate| {
        let interval = Duration::from_nanos(1_000_000_000 / rate);
        let t0 = Instant::now() + Duration::from_millis(2);
        let permits = Arc::new(tokio::sync::Semaphore::new(0));
        let p = permits.clone();
        let pacer = std::thread::Builder::new()
            .name("load-pacer".into())
            .spawn(move || pace(&p, t0, interval, n, c))
            .expect("pacer thread");
        (t0, interval, permits, pacer)
    });
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(conns.len());
    for mut conn in conns {
        let s = s.clone();
        let next = next.clone();
        let host = host.clone();
        let key = key.to_owned();
        let pacing = pacing.as_ref().map(|(t0, iv, p, _)| (*t0, *iv, p.clone()));
        tasks.push(tokio::spawn(async move {
            let mut part = Part {
                lat: Vec::with_capacity((n / c + 1) as usize),
                ..Part::default()
            };
            loop {
                let due = match &pacing {
                    Some((t0, iv, permits)) => {
                        match permits.acquire().await {
                            Ok(p) => p.forget(),
                            Err(_) => break,
                        }
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break;
                        }
                        *t0 + Duration::from_nanos(iv.as_nanos() as u64 * i)
                    }
                    None => {
                        if next.fetch_add(1, Ordering::Relaxed) >= n {
                            break;
                        }
                        Instant::now()
                    }
                };
                if pacing.is_some() {
                    part.lag.push(due.elapsed().as_nanos() as u64);
                }
                match one(&mut conn, &s, &host, &key, &mut part).await {
                    Ok(()) => part.lat.push(due.elapsed().as_nanos() as u64),
                    Err(e) => {
                        part.errors += 1;
                        part.first_error.get_or_insert(e);
                        if conn.tx.is_closed() {
                            break;
                        }
                    }
                }
            }
            (conn, part)
        }));
    }
    let mut conns = Vec::new();
    let mut parts = Vec::new();
    for t in tasks {
        let (conn, part) = t.await.expect("a connection task panicked");
        conns.push(conn);
        parts.push(part);
    }
    let start = pacing.as_ref().map_or(started, |(t0, ..)| *t0);
    let took = start.elapsed();
    if let Some((.., pacer)) = pacing {
        pacer.join().expect("the pacer thread panicked");
    }
    conns.retain(|c| !c.tx.is_closed());
    (conns, parts, took)
}

/// The open loop's clock: releases a permit for request i at t0 + i × interval (checking the
/// clock at least every interval), then one per connection so every task sees the end.
fn pace(permits: &tokio::sync::Semaphore, t0: Instant, interval: Duration, n: u64, conns: u64) {
    // Timer slack 1 µs (Linux's default is 50 µs): the pacer's lateness adds to every latency.
    // SAFETY: prctl(PR_SET_TIMERSLACK) takes an integer and changes only this thread.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong, 0, 0, 0);
    }
    let iv = interval.as_nanos() as u64;
    let mut released = 0u64;
    while released < n {
        let now = Instant::now();
        let due = if now < t0 {
            0
        } else {
            ((now - t0).as_nanos() as u64 / iv + 1).min(n)
        };
        if due > released {
            permits.add_permits((due - released) as usize);
            released = due;
        }
        let next = t0 + Duration::from_nanos(iv * released);
        let now = Instant::now();
        if next > now {
            std::thread::sleep(next - now);
        }
    }
    permits.add_permits(conns as usize);
}

/// CPU time consumed so far by each of this process's threads, ns, by thread ID, with whether
/// it is one of the service's (named `idmint-…`) rather than the generator's. From
/// `/proc/self/task/*/sched` (`se.sum_exec_runtime`), else `stat`'s 10 ms ticks.
fn cpu_snapshot() -> HashMap<u64, (bool, u64)> {
    let mut out = HashMap::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return out;
    };
    for t in tasks.flatten() {
        let Some(tid) = t.file_name().to_str().and_then(|n| n.parse::<u64>().ok()) else {
            continue;
        };
        let dir = t.path();
        let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        let ns = std::fs::read_to_string(dir.join("sched"))
            .ok()
            .and_then(|s| {
                let line = s.lines().find(|l| l.starts_with("se.sum_exec_runtime"))?;
                let ms: f64 = line.split(':').nth(1)?.trim().parse().ok()?;
                Some((ms * 1e6) as u64)
            })
            .or_else(|| {
                let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
                // Fields after the `(comm)`: utime and stime are the 12th and 13th.
                let rest = stat.rsplit_once(')')?.1;
                let f: Vec<&str> = rest.split_whitespace().collect();
                let ticks: u64 =
                    f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
                Some(ticks * 10_000_000)
            })
            .unwrap_or(0);
        out.insert(tid, (comm.starts_with("idmint-"), ns));
    }
    out
}

/// CPU time (service's, generator's) spent between two snapshots, ns, per thread: a thread
/// that ended in between (an idle blocking-pool thread) loses only its time since `before`,
/// not its whole life; one started in between counts from zero.
fn cpu_between(
    before: &HashMap<u64, (bool, u64)>,
    after: &HashMap<u64, (bool, u64)>,
) -> (u64, u64) {
    let (mut server, mut generator) = (0, 0);
    for (tid, &(is_server, ns)) in after {
        let d = ns.saturating_sub(before.get(tid).map_or(0, |b| b.1));
        if is_server {
            server += d;
        } else {
            generator += d;
        }
    }
    (server, generator)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// The q-quantile of sorted ns values, µs (nearest rank).
fn quantile_us(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let n = sorted.len();
    let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
    sorted[rank - 1] as f64 / 1000.0
}

/// One scenario's results.
struct Outcome {
    name: &'static str,
    label: String,
    requests: u64,
    ids_per_request: u64,
    took: Duration,
    /// Sorted latencies, ns.
    lat: Vec<u64>,
    errors: u64,
    rate: Option<u64>,
    /// CPU time of the service's and the generator's threads during the scenario, ns.
    cpu: (u64, u64),
    /// Open loop: sorted send lateness, ns.
    lag: Vec<u64>,
}

impl Outcome {
    fn rps(&self) -> f64 {
        self.lat.len() as f64 / self.took.as_secs_f64()
    }

    fn ids_per_sec(&self) -> f64 {
        self.rps() * self.ids_per_request as f64
    }

    /// The q-quantile, µs (nearest rank).
    fn q_us(&self, q: f64) -> f64 {
        quantile_us(&self.lat, q)
    }

    fn max_us(&self) -> f64 {
        self.lat.last().map_or(f64::NAN, |&v| v as f64 / 1000.0)
    }
}

async fn connect(addr: &str, c: usize) -> Vec<Conn> {
    let mut conns = Vec::with_capacity(c);
    for _ in 0..c {
        let stream = tokio::net::TcpStream::connect(addr)
            .await
            .unwrap_or_else(|e| panic!("cannot connect to {addr}: {e}"));
        stream.set_nodelay(true).expect("TCP_NODELAY");
        let (tx, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .expect("HTTP/1.1 handshake");
        tokio::spawn(async move {
            let _ = conn.await;
        });
        conns.push(Conn { tx });
    }
    conns
}

fn fmt_n(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let s = format!("{:.0}", v);
    let (sign, digits) = s.strip_prefix('-').map_or(("", s.as_str()), |d| ("-", d));
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    format!("{sign}{out}")
}

fn fmt_us(v: f64) -> String {
    if !v.is_finite() {
        "-".into()
    } else if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

fn main() {
    let opts = match Opts::parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("serve_load: {e}");
            std::process::exit(2);
        }
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());

    // The service: in-process, or the one at --url.
    let mut data_dir = None;
    let (server, addr) = match &opts.url {
        Some(url) => {
            let uri: Uri = url.parse().unwrap_or_else(|e| panic!("--url {url}: {e}"));
            let auth = uri
                .authority()
                .unwrap_or_else(|| panic!("--url {url}: no host:port"))
                .clone();
            let port = auth.port_u16().unwrap_or(80);
            (None, format!("{}:{port}", auth.host()))
        }
        None => {
            let dir = std::env::temp_dir().join(format!(
                "idmint-serve-load-{}-{}",
                std::process::id(),
                idmint_bench::unix_ms()
            ));
            let settings = Settings::resolve(ServeConfig {
                listen: Some("127.0.0.1:0".into()),
                data_dir: Some(dir.clone()),
                keys: Some(vec![opts.key.clone()]),
                // Room for the batch scenario's count.
                max_count: Some(opts.batch.max(100_000)),
                log: Some("warn".into()),
                ..ServeConfig::default()
            })
            .expect("service settings");
            let segments = settings.segments.clone();
            let running = idmint_server::start(settings).expect("start the service");
            let addr = running.addr().to_string();
            data_dir = Some((dir, segments));
            (Some(running), addr)
        }
    };
    let host = header::HeaderValue::from_str(&addr).expect("host header");

    let rt = if opts.threads == 0 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(opts.threads)
            .enable_all()
            .build()
    }
    .expect("generator runtime");

    println!("# idmint serve under load: HTTP/1.1 over loopback");
    println!();
    match (&server, &data_dir) {
        (Some(_), Some((dir, seg))) => println!(
            "service    in-process idmint_server::start on http://{addr} (tokio multi-thread runtime, \
             one worker per core, blocking pool for store calls); data dir {}; segments {seg}; key `{}` \
             pre-registered; layout leaf (4,096 Snowflake IDs per ms)",
            dir.display(),
            opts.key
        ),
        _ => println!("service    {} (running elsewhere)", opts.url.as_deref().unwrap_or("?")),
    }
    println!(
        "generator  hyper 1.12.0 HTTP/1.1 client, {} keep-alive connections, tokio {} \
         plus a pacer thread in the fixed-rate scenario; response checks and ID uniqueness on",
        opts.connections,
        if opts.threads == 0 {
            "current-thread runtime (1 thread)".to_owned()
        } else {
            format!("multi-thread runtime ({} workers)", opts.threads)
        },
    );
    println!(
        "machine    {cores} cores, shared by the service AND the generator (and anything else running): \
         every number below is what both together get out of them"
    );
    println!();

    let key = opts.key.clone();
    let sc = |name: &'static str,
              label: String,
              path: String,
              expect: Expect,
              requests: u64,
              rate: Option<u64>| Scenario {
        name,
        label,
        path: path.parse().expect("scenario path"),
        expect,
        requests,
        rate,
    };
    let b = opts.batch;
    let mut scenarios = vec![sc(
        "floor",
        "GET /healthz (HTTP floor)".into(),
        "/healthz".into(),
        Expect::Health,
        opts.requests,
        None,
    )];
    let all = [
        sc(
            "snowflake",
            "GET /v1/snowflake (1 ID)".into(),
            "/v1/snowflake".into(),
            Expect::Json {
                space: Space::Snowflake,
                n: 1,
            },
            opts.requests,
            None,
        ),
        sc(
            "segment",
            format!("GET /v1/segments/{key} (1 ID)"),
            format!("/v1/segments/{key}"),
            Expect::Json {
                space: Space::Segment,
                n: 1,
            },
            opts.requests,
            None,
        ),
        sc(
            "leaf",
            format!("GET /api/segment/get/{key} (Leaf, 1 ID)"),
            format!("/api/segment/get/{key}"),
            Expect::Text {
                space: Space::Segment,
            },
            opts.requests,
            None,
        ),
        sc(
            "seg_batch",
            format!("GET /v1/segments/{key}?count={b}"),
            format!("/v1/segments/{key}?count={b}"),
            Expect::Json {
                space: Space::Segment,
                n: b,
            },
            opts.batch_requests,
            None,
        ),
        sc(
            "sf_batch",
            format!("GET /v1/snowflake?count={b}"),
            format!("/v1/snowflake?count={b}"),
            Expect::Json {
                space: Space::Snowflake,
                n: b,
            },
            opts.batch_requests,
            None,
        ),
        sc(
            "rate_floor",
            format!(
                "GET /healthz at {} req/s for {} s (open loop: its floor)",
                fmt_n(opts.rate as f64),
                opts.secs
            ),
            "/healthz".into(),
            Expect::Health,
            opts.rate * opts.secs,
            Some(opts.rate),
        ),
        sc(
            "rate",
            format!(
                "GET /v1/snowflake at {} req/s for {} s (open loop)",
                fmt_n(opts.rate as f64),
                opts.secs
            ),
            "/v1/snowflake".into(),
            Expect::Json {
                space: Space::Snowflake,
                n: 1,
            },
            opts.rate * opts.secs,
            Some(opts.rate),
        ),
    ];
    scenarios.extend(all.into_iter().filter(|s| opts.wants(s.name)));

    let load_before = loadavg();
    let mut outcomes: Vec<Outcome> = Vec::new();
    let mut ids: HashMap<Space, Vec<u64>> = HashMap::new();
    let mut failures: Vec<String> = Vec::new();
    rt.block_on(async {
        let mut conns = connect(&addr, opts.connections).await;
        for s in &scenarios {
            for (phase, n) in [("warm-up", opts.warmup), ("measure", s.requests)] {
                if n == 0 {
                    continue;
                }
                // The warm-up runs closed loop, even before the fixed-rate scenario.
                let mut run = s.clone();
                if phase == "warm-up" {
                    run.rate = None;
                }
                let cpu0 = cpu_snapshot();
                let (c, parts, took) =
                    run_phase(std::mem::take(&mut conns), &run, n, &host, &key).await;
                let cpu1 = cpu_snapshot();
                conns = c;
                let mut lat = Vec::with_capacity(n as usize);
                let mut lag = Vec::new();
                let mut errors = 0;
                for mut p in parts {
                    lat.append(&mut p.lat);
                    lag.append(&mut p.lag);
                    errors += p.errors;
                    if let Some(e) = p.first_error {
                        failures.push(format!("{} ({phase}): {e}", s.label));
                    }
                    if let Some(space) = s.expect.space() {
                        ids.entry(space).or_default().append(&mut p.ids);
                    }
                }
                if errors > 0 || (lat.len() as u64) < n {
                    failures.push(format!(
                        "{} ({phase}): {} of {n} requests answered correctly",
                        s.label,
                        lat.len()
                    ));
                }
                if conns.len() < opts.connections {
                    let more = connect(&addr, opts.connections - conns.len()).await;
                    conns.extend(more);
                }
                if phase == "measure" {
                    lat.sort_unstable();
                    let o = Outcome {
                        name: s.name,
                        label: s.label.clone(),
                        requests: n,
                        ids_per_request: s.expect.ids_per_request(),
                        took,
                        lat,
                        errors,
                        rate: s.rate,
                        cpu: cpu_between(&cpu0, &cpu1),
                        lag: {
                            lag.sort_unstable();
                            lag
                        },
                    };
                    eprintln!(
                        "  done: {:<48} {:>10} req/s  p99.9 {:>8} µs",
                        o.label,
                        fmt_n(o.rps()),
                        fmt_us(o.q_us(0.999))
                    );
                    outcomes.push(o);
                }
            }
        }
    });
    drop(rt);

    // Results, ratios to the floor first.
    let floor = outcomes
        .iter()
        .find(|o| o.name == "floor")
        .map_or(f64::NAN, Outcome::rps);
    println!(
        "| scenario | × floor req/s | requests/s | IDs/s | p50 µs | p99 µs | p99.9 µs | max µs \
         | service CPU µs/req | generator CPU µs/req | requests | errors |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for o in &outcomes {
        let per = |ns: u64| format!("{:.1}", ns as f64 / 1000.0 / o.lat.len().max(1) as f64);
        println!(
            "| {} | {:.2} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            o.label,
            o.rps() / floor,
            fmt_n(o.rps()),
            if o.ids_per_request == 0 {
                "-".into()
            } else {
                fmt_n(o.ids_per_sec())
            },
            fmt_us(o.q_us(0.50)),
            fmt_us(o.q_us(0.99)),
            fmt_us(o.q_us(0.999)),
            fmt_us(o.max_us()),
            // A service at --url runs in another process: its CPU is not ours to read.
            if server.is_some() {
                per(o.cpu.0)
            } else {
                "-".into()
            },
            per(o.cpu.1),
            fmt_n(o.requests as f64),
            o.errors,
        );
    }
    println!();
    println!(
        "Load average (1, 5, 15 min) before: {load_before}; after: {}",
        loadavg()
    );
    println!(
        "CPU µs/req: CPU time of the service's threads (named idmint-*) and of the generator's"
    );
    println!(
        "threads during the scenario, per request: the cost of a request on this machine, less"
    );
    println!("sensitive than requests/s to whatever else runs on it.");
    println!(
        "Latency: closed-loop rows from send to the last body byte; the fixed-rate row from each"
    );
    println!("request's due time (t0 + i/rate), so time spent queued behind a stall counts.");
    for o in outcomes.iter().filter(|o| !o.lag.is_empty()) {
        println!(
            "Of which the generator's own lateness (due time to send) in \"{}\": p50 {} µs, \
             p99 {} µs, p99.9 {} µs, max {} µs",
            o.label,
            fmt_us(quantile_us(&o.lag, 0.5)),
            fmt_us(quantile_us(&o.lag, 0.99)),
            fmt_us(quantile_us(&o.lag, 0.999)),
            fmt_us(o.lag.last().map_or(f64::NAN, |&v| v as f64 / 1000.0)),
        );
    }
    println!();

    // Uniqueness over the whole run (warm-ups included).
    println!("Checks:");
    println!(
        "- responses: status 200, expected body shape and ID count: {}",
        if failures.is_empty() {
            "all OK".to_owned()
        } else {
            format!("{} FAILURES", failures.len())
        }
    );
    for f in &failures {
        println!("    {f}");
    }
    let mut spaces: Vec<_> = ids.into_iter().collect();
    spaces.sort_by_key(|(s, _)| format!("{s:?}"));
    for (space, mut v) in spaces {
        let total = v.len();
        v.sort_unstable();
        let dups = v.windows(2).filter(|w| w[0] == w[1]).count();
        let zero = v.first() == Some(&0);
        println!(
            "- {space:?} IDs: {} issued in this run, {} duplicates{}: {}",
            fmt_n(total as f64),
            dups,
            if zero { ", an ID 0" } else { "" },
            if dups == 0 && !zero {
                "unique"
            } else {
                "FAILED"
            }
        );
        if dups > 0 || zero {
            failures.push(format!("{space:?}: {dups} duplicate IDs"));
        }
    }
    println!();

    // Targets, printed, not asserted.
    let get = |name: &str| outcomes.iter().find(|o| o.name == name);
    let mark = |ok: bool| if ok { "met" } else { "MISSED" };
    println!("Targets (compared, not asserted):");
    for name in ["snowflake", "segment", "leaf"] {
        if let Some(o) = get(name) {
            let r = o.rps() / floor;
            println!(
                "- {}: {:.2}× floor (target ≥ {TARGET_SINGLE_VS_FLOOR}×: {}), {} req/s (target ≥ {}: {})",
                o.label,
                r,
                mark(r >= TARGET_SINGLE_VS_FLOOR),
                fmt_n(o.rps()),
                fmt_n(TARGET_SINGLE_RPS),
                mark(o.rps() >= TARGET_SINGLE_RPS)
            );
        }
    }
    if let Some(o) = get("rate_floor") {
        println!(
            "- (floor of the next line: /healthz at the same fixed rate: p99.9 {} µs)",
            fmt_us(o.q_us(0.999))
        );
    }
    if let Some(o) = get("rate") {
        let achieved = o.rps();
        println!(
            "- fixed {} req/s (achieved {}): p99.9 {} µs (target ≤ {} µs: {})",
            fmt_n(o.rate.unwrap_or(0) as f64),
            fmt_n(achieved),
            fmt_us(o.q_us(0.999)),
            fmt_n(TARGET_RATE_P999_US),
            mark(o.q_us(0.999) <= TARGET_RATE_P999_US)
        );
    }
    for name in ["seg_batch", "sf_batch"] {
        if let Some(o) = get(name) {
            println!(
                "- {}: {} IDs/s (target ≥ {}: {})",
                o.label,
                fmt_n(o.ids_per_sec()),
                fmt_n(TARGET_BATCH_IDS),
                mark(o.ids_per_sec() >= TARGET_BATCH_IDS)
            );
        }
    }
    println!("- anchors: Meituan Leaf ~50,000 QPS with p99.9 ≈ 1 ms on a 4-core VM; WeChat seqsvr p99.9 < 3 ms");

    if let Some(s) = server {
        s.stop().expect("stop the service");
    }
    if let Some((dir, _)) = data_dir {
        let _ = std::fs::remove_dir_all(dir);
    }
    if !failures.is_empty() {
        eprintln!("serve_load: FAILED: {}", failures.join("; "));
        std::process::exit(1);
    }
}
