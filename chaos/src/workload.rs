//! The clients, all in the clients' namespace: per instance a Snowflake client (single IDs and
//! batches) and a segment client (a few keys), a poller of each instance's `/v1/monitor` (the
//! node, fence and bound it holds), and browser-style clients that lease a node from the
//! service and mint locally in the lease's window.
//!
//! The browser clients run the browser package itself in Node.js (`--browser-js`, see
//! [`crate::browser_js`]; the test command does). Without it they follow the package's
//! `LeasedSnowflake` (bindings-wasm's `src/leased.js` and `src/leased.rs`) step by step, in
//! Rust: the same requests (`POST /v1/leases`, `/v1/leases/renew`), the same core
//! `LeaseWindow` deciding what may go out, when to renew and when to retry, renewals at the
//! instance that granted the lease — for a machine without the built package.

use crate::clients::{Recorded, Shared};
use crate::history::{Group, Op, Tenure};
use crate::http;
use idmint::{Config, LeaseWindow, LocalSnowflake};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A request's deadline: long enough for a store failover, short against a hang.
const REQUEST_TIMEOUT_MS: u64 = 2_500;

/// `CODE: message` of an error answer (the message cut short), or the HTTP status.
fn error_of(status: u16, body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| {
            let code = v["code"].as_str()?;
            let msg: String = v["message"]
                .as_str()
                .unwrap_or("")
                .chars()
                .take(100)
                .collect();
            Some(format!("{code}: {msg}"))
        })
        .unwrap_or_else(|| format!("HTTP {status}"))
}

/// Whether an HTTP status is a success (a grant answers 201).
fn success(status: u16) -> bool {
    (200..300).contains(&status)
}

fn ids_of(body: &str) -> Option<Vec<u64>> {
    let v: Value = serde_json::from_str(body).ok()?;
    v["ids"]
        .as_array()?
        .iter()
        .map(|x| x.as_str().and_then(|s| s.parse().ok()))
        .collect()
}

/// One GET for IDs, recorded.
fn fetch_ids(sh: &Shared, group: Group, instance: usize, key: &str, path: &str) -> Op {
    let (base, inc) = &sh.instances[instance];
    let incarnation = inc.load(Ordering::SeqCst);
    let start_ms = sh.now();
    let r = http::get(&format!("{base}{path}"), REQUEST_TIMEOUT_MS);
    let end_ms = sh.now();
    let (ok, error, ids) = match r {
        Ok((status, body)) if success(status) => match ids_of(&body) {
            Some(ids) => (true, String::new(), ids),
            None => (false, "malformed answer".to_string(), Vec::new()),
        },
        Ok((status, body)) => (false, error_of(status, &body), Vec::new()),
        Err(e) => (false, short(&e), Vec::new()),
    };
    Op {
        group,
        instance,
        incarnation,
        client: 0,
        key: key.to_string(),
        tenure: None,
        start_ms,
        end_ms,
        ok,
        error,
        ids,
    }
}

fn short(e: &str) -> String {
    let e = e.to_ascii_lowercase();
    if e.contains("timeout") || e.contains("timed out") {
        "timeout".into()
    } else if e.contains("refused") {
        "refused".into()
    } else if e.contains("unreachable") {
        "unreachable".into()
    } else {
        "transport".into()
    }
}

/// Sleeps `ms` unless stopped first.
fn pause(sh: &Shared, ms: u64) {
    let until = Instant::now() + Duration::from_millis(ms);
    while !sh.stopped() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(ms.min(20)));
    }
}

/// Starts every client; join them after setting `stop`.
pub fn start(sh: &Shared, browsers: usize) -> Vec<JoinHandle<Recorded>> {
    let mut threads = Vec::new();
    for i in 0..sh.instances.len() {
        let s = sh.clone();
        threads.push(std::thread::spawn(move || {
            let mut r = Recorded::default();
            let mut k = 0u64;
            while !s.stopped() {
                k += 1;
                let op = if k % 5 == 0 {
                    fetch_ids(&s, Group::Batch, i, "", "/v1/snowflake?count=50")
                } else {
                    fetch_ids(&s, Group::Snowflake, i, "", "/v1/snowflake")
                };
                r.ops.push(op);
                pause(&s, 10);
            }
            r
        }));
        let s = sh.clone();
        threads.push(std::thread::spawn(move || {
            let mut r = Recorded::default();
            let mut k = 0usize;
            while !s.stopped() {
                k += 1;
                let key = crate::cluster::KEYS[k % crate::cluster::KEYS.len()];
                let count = if k % 4 == 0 { 10 } else { 1 };
                let path = format!("/v1/segments/{key}?count={count}");
                r.ops.push(fetch_ids(&s, Group::Segment, i, key, &path));
                pause(&s, 15);
            }
            r
        }));
    }
    let s = sh.clone();
    threads.push(std::thread::spawn(move || monitor(&s)));
    for b in 0..browsers {
        let s = sh.clone();
        threads.push(match sh.browser_js.clone() {
            Some((pkg, script)) => {
                std::thread::spawn(move || crate::browser_js::run(s, b, script, pkg))
            }
            None => std::thread::spawn(move || Browser::new(s, b).run()),
        });
    }
    threads
}

/// Polls every instance's `/v1/monitor`: which node it holds under which token, the fence
/// and the bound — the windows the checker holds its IDs to.
fn monitor(sh: &Shared) -> Recorded {
    let mut r = Recorded::default();
    // A grant is told by its token and its fence: a store that lost its records hands out
    // the same tokens again, but under a new fence.
    let mut index: HashMap<(usize, u32, u64, u64, Option<u64>), usize> = HashMap::new();
    while !sh.stopped() {
        for (i, (base, inc)) in sh.instances.iter().enumerate() {
            let incarnation = inc.load(Ordering::SeqCst);
            let Ok((200, body)) = http::get(&format!("{base}/v1/monitor"), 500) else {
                continue;
            };
            let now = sh.now();
            let Ok(v) = serde_json::from_str::<Value>(&body) else {
                continue;
            };
            let s = &v["snowflake"];
            let (Some(node), Some(token), Some(bound)) = (
                s["node"].as_u64(),
                s["token"].as_u64(),
                s["bound_ms"].as_u64(),
            ) else {
                continue;
            };
            // A lease past its deadline mints nothing more: its bound is still the right one.
            let fence = s["fence_ms"].as_u64();
            let k = *index
                .entry((i, incarnation, node, token, fence))
                .or_insert_with(|| {
                    r.tenures.push(Tenure {
                        holder: format!("n{i}#{incarnation}"),
                        owner: i,
                        incarnation,
                        browser: false,
                        node,
                        token,
                        fence_ms: fence,
                        bound_ms: bound,
                        first_seen_ms: now,
                        last_seen_ms: now,
                    });
                    r.tenures.len() - 1
                });
            let t = &mut r.tenures[k];
            t.bound_ms = t.bound_ms.max(bound);
            t.last_seen_ms = now;
        }
        pause(sh, 200);
    }
    r
}

fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A browser-style client: `LeasedSnowflake` of the browser package.
struct Browser {
    sh: Shared,
    id: usize,
    /// Where to ask for the next lease (moves on after a failure).
    target: usize,
    rec: Recorded,
    lease: Option<Held>,
}

/// A lease in hand.
struct Held {
    token: String,
    instance: usize,
    tenure: usize,
    gen: LocalSnowflake,
    window: LeaseWindow,
    /// Monotonic ms (since t0) when the next renewal (or retry) is due.
    next_renewal: u64,
    /// Monotonic ms (since t0) before which nothing is minted: the node's fence is ahead of
    /// the clock (`lease()` resolves only then).
    ready_at: u64,
}

impl Browser {
    fn new(sh: Shared, id: usize) -> Browser {
        let target = id % sh.instances.len();
        Browser {
            sh,
            id,
            target,
            rec: Recorded::default(),
            lease: None,
        }
    }

    fn op(&self, instance: usize, start_ms: u64, result: Result<u64, String>) -> Op {
        let (ok, error, ids) = match result {
            Ok(id) => (true, String::new(), vec![id]),
            Err(e) => (false, e, Vec::new()),
        };
        Op {
            group: Group::Browser,
            instance,
            incarnation: 0,
            client: self.id,
            key: String::new(),
            tenure: self.lease.as_ref().map(|l| l.tenure),
            start_ms,
            end_ms: self.sh.now(),
            ok,
            error,
            ids,
        }
    }

    fn run(mut self) -> Recorded {
        while !self.sh.stopped() {
            if self.lease.is_none() {
                self.acquire();
                if self.lease.is_none() {
                    pause(&self.sh, 200);
                    continue;
                }
            }
            self.renew_if_due();
            self.mint();
            pause(&self.sh, 20);
        }
        self.rec
    }

    /// `LeasedSnowflake.lease(url, { ttlMs })`.
    fn acquire(&mut self) {
        let instance = self.target;
        let base = self.sh.instances[instance].0.clone();
        let body = json!({ "client_time_ms": wall_ms(), "ttl_ms": self.sh.ttl_ms });
        let start = self.sh.now();
        let answer = http::post_json(&format!("{base}/v1/leases"), &body, self.sh.ttl_ms / 3);
        let grant = match answer {
            Ok((status, text)) if success(status) => {
                serde_json::from_str::<Value>(&text).map_err(|e| e.to_string())
            }
            Ok((status, text)) => Err(error_of(status, &text)),
            Err(e) => Err(short(&e)),
        };
        let made = grant.and_then(|g| self.granted(instance, &g, start));
        match made {
            Ok(held) => {
                self.lease = Some(held);
            }
            Err(e) => {
                let op = self.op(instance, start, Err(e));
                self.rec.ops.push(op);
                self.target = (self.target + 1) % self.sh.instances.len();
            }
        }
    }

    fn granted(&mut self, instance: usize, g: &Value, sent: u64) -> Result<Held, String> {
        let (Some(token), Some(node), Some(bound), Some(ttl)) = (
            g["lease"].as_str(),
            g["node"].as_u64(),
            g["bound_ms"].as_u64(),
            g["ttl_ms"].as_u64(),
        ) else {
            return Err("malformed grant".into());
        };
        let fence = g["fence_ms"].as_u64();
        let renew_after = g["renew_after_ms"].as_u64();
        let layout = self.sh.browser_layout;
        let mut cfg = Config::new(layout).node(node);
        if let Some(f) = fence {
            cfg = cfg.fence_ms(f);
        }
        let gen = LocalSnowflake::new(cfg).map_err(|e| e.code().to_string())?;
        let mut window = LeaseWindow::new(node, fence, bound, sent, ttl, renew_after)
            .map_err(|e| e.code().to_string())?;
        if let Some(t) = g["server_time_ms"].as_u64() {
            window = window.service_time(t);
        }
        // `leased.js`: a fence ahead of the clock is waited for (renewing), one too far
        // ahead refused.
        let wait = window
            .fence_wait_ms(wall_ms(), &layout)
            .map_err(|e| e.code().to_string())?;
        let n = self.rec.tenures.len();
        let now = self.sh.now();
        self.rec.tenures.push(Tenure {
            holder: format!("b{}#{n}", self.id),
            owner: self.id,
            incarnation: 0,
            browser: true,
            node,
            token: n as u64,
            fence_ms: fence,
            bound_ms: bound,
            first_seen_ms: now,
            last_seen_ms: now,
        });
        Ok(Held {
            token: token.to_string(),
            instance,
            tenure: n,
            next_renewal: sent + window.renew_in(sent),
            ready_at: now + wait,
            gen,
            window,
        })
    }

    /// The renewal timer of `leased.js` (`__idmintRenew`).
    fn renew_if_due(&mut self) {
        let now = self.sh.now();
        let Some(held) = self.lease.as_mut() else {
            return;
        };
        if now < held.next_renewal {
            return;
        }
        let base = self.sh.instances[held.instance].0.clone();
        let mut body = json!({ "lease": held.token, "client_time_ms": wall_ms() });
        if let Some(issued) = held.window.issued_ms() {
            body["issued_up_to_ms"] = issued.into();
        }
        let sent = self.sh.now();
        let answer = http::post_json(
            &format!("{base}/v1/leases/renew"),
            &body,
            held.window.ttl_ms() / 3,
        );
        let after = self.sh.now();
        let renewed = match answer {
            Ok((status, text)) if success(status) => serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| {
                    Some((
                        v["bound_ms"].as_u64()?,
                        v["ttl_ms"].as_u64()?,
                        v["renew_after_ms"].as_u64(),
                    ))
                })
                .ok_or_else(|| "malformed renewal".to_string()),
            Ok((status, text)) => Err(error_of(status, &text)),
            Err(e) => Err(short(&e)),
        };
        match renewed {
            Ok((bound, ttl, renew_after)) => {
                match held.window.renewed(bound, sent, ttl, renew_after) {
                    Ok(()) => {
                        held.next_renewal = after + held.window.renew_in(after);
                        let t = &mut self.rec.tenures[held.tenure];
                        t.bound_ms = t.bound_ms.max(bound);
                        t.last_seen_ms = after;
                    }
                    Err(_) => held.next_renewal = after + held.window.retry_in(after, None),
                }
            }
            Err(code) if code.starts_with("ERR_LEASE_LOST") => {
                held.window.lose();
                self.lease = None;
                self.target = (self.target + 1) % self.sh.instances.len();
            }
            Err(_) => held.next_renewal = after + held.window.retry_in(after, None),
        }
    }

    /// `nextId()`: mint, then pass the ID through the window; a refused ID never goes out.
    fn mint(&mut self) {
        let start = self.sh.now();
        let Some(held) = self.lease.as_mut() else {
            return;
        };
        if start < held.ready_at {
            return;
        }
        let instance = held.instance;
        let result = match held.gen.next_id_at(wall_ms()) {
            Ok(id) => {
                let t = held.gen.config().layout().timestamp_ms(id);
                held.window
                    .admit(t, self.sh.now())
                    .map(|()| id)
                    .map_err(|e| e.code().to_string())
            }
            Err(e) => Err(e.code().to_string()),
        };
        let expired = held.window.expires_in(self.sh.now()) == Some(0);
        let op = self.op(instance, start, result);
        self.rec.ops.push(op);
        // A lease past its deadline whose renewals keep failing: give it up, lease anew
        // elsewhere (the package's user would see ERR_LEASE_LOST and lease again).
        if expired && self.sh.now() > self.lease.as_ref().map_or(0, |l| l.next_renewal) {
            if let Some(l) = self.lease.as_ref() {
                if self.sh.now().saturating_sub(l.next_renewal) > self.sh.ttl_ms {
                    self.lease = None;
                    self.target = (self.target + 1) % self.sh.instances.len();
                }
            }
        }
    }
}

/// Joins the client threads and merges what they recorded (browser ops' tenure indexes are
/// renumbered into the merged list).
pub fn join(threads: Vec<JoinHandle<Recorded>>) -> (Vec<Op>, Vec<Tenure>) {
    let mut ops = Vec::new();
    let mut tenures = Vec::new();
    for t in threads {
        let Ok(mut r) = t.join() else {
            continue;
        };
        let base = tenures.len();
        for op in &mut r.ops {
            op.tenure = op.tenure.map(|k| k + base);
        }
        ops.append(&mut r.ops);
        tenures.append(&mut r.tenures);
    }
    ops.sort_by_key(|o| o.start_ms);
    (ops, tenures)
}
