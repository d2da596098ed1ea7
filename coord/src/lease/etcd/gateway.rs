//! The members of an etcd cluster through their JSON gateways (`POST /v3/...` on each member's
//! client port), with ureq: one call's deadline across all its requests, failover from a member
//! that is down, has no leader or does not answer, and the answers classified into what the
//! store does next (try another member, fail the call) and the reason it reports.
//!
//! Each request carries the gRPC metadata `hasleader: true` (the gateway passes
//! `Grpc-Metadata-*` headers on), so a member cut off from its leader refuses at once with
//! `etcdserver: no leader` instead of waiting for its own request timeout.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use idmint::{Error, Result};
use serde_json::{json, Value};

use super::json::{lease_field, Header, Malformed, Txn, TxnResponse};
use super::target::Target;
use crate::reason::Reason;

/// The store's name in errors.
pub(super) const STORE: &str = "etcd";

/// The reason of a call that ran out of time.
pub(super) const TIMED_OUT: &str = "timed out";

/// The largest answer read (a range of every node record of a namespace).
const MAX_ANSWER_BYTES: u64 = 64 << 20;

pub(super) fn unavailable(op: &'static str, reason: &'static str) -> Error {
    Error::StoreUnavailable {
        store: STORE,
        op,
        reason,
    }
}

/// The cluster's members, and what the store learnt about them.
pub(super) struct Gateway {
    endpoints: Vec<String>,
    agent: ureq::Agent,
    timeout: Duration,
    state: Mutex<State>,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("endpoints", &self.endpoints)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// Where requests go first, and what the answers' headers said.
struct State {
    /// The member that answered last: requests go there first.
    current: usize,
    /// The cluster id and the highest revision seen in answers.
    cluster: u64,
    revision: i64,
    /// The revision the cluster answered with after it was seen going back in time (0: never).
    /// Records last written at or before it may be older than what holders saw.
    went_back_at: i64,
}

impl State {
    /// Notes a header of a linearizable answer; sees the cluster's revision go back.
    fn observe(&mut self, h: Option<Header>) {
        let Some(h) = h else { return };
        if h.cluster_id != self.cluster {
            // Another cluster (or the first answer): its revisions are not comparable. The
            // info keys name the cluster their epoch was started on.
            self.cluster = h.cluster_id;
            self.revision = h.revision;
            return;
        }
        if h.revision < self.revision {
            self.went_back_at = h.revision;
        }
        self.revision = h.revision;
    }
}

/// Whether a request may be sent again after a failure whose outcome is unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Repeat {
    /// Repeating it does no harm (reads, renewals, keep-alives, compare-guarded writes).
    Safe,
    /// Only if it surely did not take effect (a grant, a release).
    Once,
}

/// Why one request to one member failed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Failure {
    /// No answer in time.
    TimedOut,
    /// No answer: the connection could not be made (`sent: false`: the request surely did not
    /// reach the member), or it broke.
    Transport { reason: &'static str, sent: bool },
    /// The member answered with an error: etcd's message and gRPC code.
    Answer { code: i64, message: String },
    /// An answer that is not the gateway's JSON (another server on the port, plain HTTP to a
    /// TLS port).
    Malformed,
}

impl From<Malformed> for Failure {
    fn from(_: Malformed) -> Failure {
        Failure::Malformed
    }
}

impl Failure {
    fn of(e: &ureq::Error) -> Failure {
        use std::io::ErrorKind;
        let tls = |reason| Failure::Transport {
            reason,
            sent: false,
        };
        match e {
            ureq::Error::Timeout(_) => Failure::TimedOut,
            ureq::Error::Io(io) => {
                if let Some(t) = io.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
                    return tls(t.reason());
                }
                match io.kind() {
                    ErrorKind::TimedOut | ErrorKind::WouldBlock => Failure::TimedOut,
                    kind => Failure::Transport {
                        reason: io.reason(),
                        sent: kind != ErrorKind::ConnectionRefused,
                    },
                }
            }
            ureq::Error::Rustls(t) => tls(t.reason()),
            ureq::Error::Tls(_) | ureq::Error::Pem(_) => tls("TLS handshake failed"),
            ureq::Error::HostNotFound => tls("host not found"),
            ureq::Error::ConnectionFailed => tls("connection failed"),
            ureq::Error::Protocol(_) => Failure::Malformed,
            ureq::Error::BodyExceedsLimit(_) => Failure::Transport {
                reason: "answer too large",
                sent: true,
            },
            _ => Failure::Transport {
                reason: "HTTP client error",
                sent: true,
            },
        }
    }

    /// Whether the request surely did not take effect: no connection could be made (refused,
    /// TLS handshake failed), or a member without a leader refused it.
    fn not_applied(&self) -> bool {
        match self {
            Failure::Transport { sent, .. } => !sent,
            Failure::Answer { message, .. } => message.ends_with("no leader"),
            _ => false,
        }
    }

    /// Whether the member cannot be reached (rather than that it answered with an error, or
    /// did not answer in time).
    fn unreachable(&self) -> bool {
        matches!(self, Failure::Transport { .. })
    }

    /// Whether the failure may pass on another member or a moment later (the cluster, not the
    /// request, is at fault).
    fn transient(&self) -> bool {
        match self {
            Failure::Transport { .. } | Failure::TimedOut => true,
            // Cancelled, Unknown, DeadlineExceeded, Aborted, Internal, Unavailable.
            Failure::Answer { code, .. } => matches!(code, 1 | 2 | 4 | 10 | 13 | 14),
            Failure::Malformed => false,
        }
    }

    /// Whether etcd answered that the etcd lease does not exist (expired or revoked).
    fn lease_not_found(&self) -> bool {
        matches!(self, Failure::Answer { message, .. } if message.ends_with("lease not found"))
    }

    /// Whether etcd answered that the etcd lease already exists (a grant sent again after its
    /// answer was lost).
    fn lease_exists(&self) -> bool {
        matches!(self, Failure::Answer { message, .. } if message.ends_with("lease already exists"))
    }
}

/// etcd's own error texts first (`etcdserver: ...`), then the gRPC code.
impl Reason for Failure {
    fn reason(&self) -> &'static str {
        match self {
            Failure::TimedOut => TIMED_OUT,
            Failure::Transport { reason, .. } => reason,
            Failure::Malformed => "malformed answer (not etcd's JSON gateway)",
            Failure::Answer { code, message } => {
                if message.contains("no leader") {
                    "no leader"
                } else if message.contains("leader changed") {
                    "leader changed"
                } else if message.contains("timed out") {
                    "timed out"
                } else if message.contains("database space exceeded") {
                    "database space exceeded"
                } else {
                    // etcd answers most failures of the cluster as Unavailable.
                    match code {
                        1 => "cancelled",
                        4 => "timed out",
                        7 => "permission denied",
                        8 => "resource exhausted",
                        14 => "unavailable",
                        16 => "authentication failed",
                        _ => "server error",
                    }
                }
            }
        }
    }
}

impl Gateway {
    /// The members of `target`; does not connect yet.
    pub fn new(target: &Target) -> Gateway {
        let mut config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .proxy(None)
            .user_agent(concat!("idmint-coord/", env!("CARGO_PKG_VERSION")))
            .accept("application/json");
        if let Some(tls) = &target.tls {
            config = config.tls_config(tls.clone());
        }
        Gateway {
            endpoints: target.endpoints.clone(),
            agent: config.build().new_agent(),
            timeout: target.timeout,
            state: Mutex::new(State {
                current: 0,
                cluster: 0,
                revision: 0,
                went_back_at: 0,
            }),
        }
    }

    pub fn endpoints(&self) -> &[String] {
        &self.endpoints
    }

    /// A call: the store's state while it runs (one call at a time), and its deadline.
    pub fn begin(&self) -> Call<'_> {
        Call {
            gateway: self,
            state: self.state.lock().unwrap_or_else(|p| p.into_inner()),
            deadline: Instant::now() + self.timeout,
        }
    }

    /// `POST` of `body` to `path` on member `member`, answered by `until`: the first JSON
    /// value of the answer (a keep-alive's answer is a stream of them), or why there is none.
    fn post(
        &self,
        member: usize,
        path: &str,
        body: &Value,
        until: Instant,
    ) -> std::result::Result<Value, Failure> {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Failure::TimedOut);
        }
        let url = format!("{}{path}", self.endpoints[member]);
        let mut answer = self
            .agent
            .post(&url)
            .config()
            .timeout_global(Some(left))
            .build()
            .header("content-type", "application/json")
            .header("grpc-metadata-hasleader", "true")
            .send(body.to_string())
            .map_err(|e| Failure::of(&e))?;
        let status = answer.status().as_u16();
        let text = answer
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER_BYTES)
            .read_to_string()
            .map_err(|e| Failure::of(&e))?;
        answer_of(status, &text)
    }
}

/// The first JSON value of an answer with HTTP status `status` (a keep-alive's answer is a
/// stream of them), or the error it holds.
fn answer_of(status: u16, text: &str) -> std::result::Result<Value, Failure> {
    let value = serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .next()
        .and_then(|v| v.ok())
        .ok_or(Failure::Malformed)?;
    // A unary call's error: {"error": "...", "message": "...", "code": N}; a stream's:
    // {"error": {"grpc_code": N, "message": "...", ...}}.
    let (code, message) = match value.get("error") {
        Some(e @ Value::Object(_)) => (e.get("grpc_code"), e.get("message")),
        Some(_) => (value.get("code"), value.get("message")),
        None if status == 200 => return Ok(value),
        None => return Err(Failure::Malformed),
    };
    Err(Failure::Answer {
        // Unknown, if the gateway did not say.
        code: code.and_then(Value::as_i64).unwrap_or(2),
        message: message.and_then(Value::as_str).unwrap_or("").to_string(),
    })
}

/// One store call: its requests, on whichever members, end by its deadline.
pub(super) struct Call<'a> {
    gateway: &'a Gateway,
    state: MutexGuard<'a, State>,
    deadline: Instant,
}

impl Call<'_> {
    /// The revision after which records can be trusted (see [`State::went_back_at`]).
    pub fn went_back_at(&self) -> i64 {
        self.state.went_back_at
    }

    /// Whether `pause` still fits before the deadline.
    pub fn has_time_for(&self, pause: Duration) -> bool {
        Instant::now() + pause < self.deadline
    }

    /// Sends one request (`f` on a member, answered by an instant), on the member that
    /// answered last, and on the others while it fails in a way another member or a moment
    /// may not (see the store's module docs), within the call's deadline.
    fn request<T>(
        &mut self,
        op: &'static str,
        repeat: Repeat,
        mut f: impl FnMut(&Gateway, usize, Instant) -> std::result::Result<T, Failure>,
    ) -> Result<T> {
        let n = self.gateway.endpoints.len();
        let mut tried = 0usize;
        // Failures in a row of members that cannot be reached: once every member failed so,
        // the cluster is down (or not there), and waiting out the deadline helps nobody.
        let mut unreachable_streak = 0usize;
        loop {
            let i = self.state.current % n;
            let now = Instant::now();
            let left = self.deadline.saturating_duration_since(now);
            if left.is_zero() {
                return Err(unavailable(op, TIMED_OUT));
            }
            // The first tries leave time for another member: one that is stopped never answers.
            let cap = if tried + 1 < n { left / 2 } else { left };
            let failure = match f(self.gateway, i, now + cap) {
                Ok(v) => return Ok(v),
                Err(Failure::TimedOut) if repeat == Repeat::Safe => {
                    unreachable_streak = 0;
                    Failure::TimedOut
                }
                Err(Failure::TimedOut) => {
                    self.state.current = (i + 1) % n;
                    return Err(unavailable(op, TIMED_OUT));
                }
                Err(e) => {
                    let again = e.not_applied() || (repeat == Repeat::Safe && e.transient());
                    if e.unreachable() {
                        unreachable_streak += 1;
                    } else {
                        unreachable_streak = 0;
                    }
                    if !again || unreachable_streak >= n {
                        self.state.current = (i + 1) % n;
                        return Err(unavailable(op, e.reason()));
                    }
                    e
                }
            };
            self.state.current = (i + 1) % n;
            tried += 1;
            if Instant::now() >= self.deadline {
                return Err(unavailable(op, failure.reason()));
            }
            if tried % n == 0 {
                // Every member failed once (an election, say): a moment before the next round.
                let rest = self.deadline.saturating_duration_since(Instant::now());
                std::thread::sleep(rest.min(Duration::from_millis(50)));
            }
        }
    }

    /// A transaction (see [`request`](Self::request)); notes its header.
    pub fn txn(&mut self, op: &'static str, repeat: Repeat, txn: &Txn) -> Result<TxnResponse> {
        let body = txn.to_json();
        let r = self.request(op, repeat, |g, i, until| {
            let v = g.post(i, "/v3/kv/txn", &body, until)?;
            Ok(TxnResponse::parse(&v)?)
        })?;
        self.state.observe(r.header);
        Ok(r)
    }

    /// A renewal's transaction and the keep-alive of the etcd lease `id`, one after the other
    /// on one member (both may be repeated); notes the transaction's header. The flag says
    /// whether the etcd lease is alive.
    pub fn txn_and_keep_alive(&mut self, txn: &Txn, id: i64) -> Result<(TxnResponse, bool)> {
        let body = txn.to_json();
        let ka = json!({ "ID": id.to_string() });
        let (r, alive) = self.request("renew", Repeat::Safe, |g, i, until| {
            let alive = match g.post(i, "/v3/lease/keepalive", &ka, until) {
                // An etcd lease that expired answers with a TTL of 0 (left out).
                Ok(v) => lease_field(v.get("result").ok_or(Failure::Malformed)?, "TTL")? > 0,
                Err(e) if e.lease_not_found() => false,
                Err(e) => return Err(e),
            };
            let v = g.post(i, "/v3/kv/txn", &body, until)?;
            Ok((TxnResponse::parse(&v)?, alive))
        })?;
        self.state.observe(r.header);
        Ok((r, alive))
    }

    /// Grants the etcd lease `id` with `ttl` seconds; returns the TTL etcd granted.
    pub fn grant_lease(&mut self, id: i64, ttl: i64) -> Result<i64> {
        let body = json!({ "ID": id.to_string(), "TTL": ttl.to_string() });
        let granted = self.request("acquire", Repeat::Safe, |g, i, until| {
            match g.post(i, "/v3/lease/grant", &body, until) {
                Ok(v) => Ok(Some(lease_field(&v, "TTL")?)),
                // A grant sent again after its answer was lost; ask what it got.
                Err(e) if e.lease_exists() => Ok(None),
                Err(e) => Err(e),
            }
        })?;
        if let Some(t) = granted {
            return Ok(t);
        }
        let body = json!({ "ID": id.to_string() });
        self.request("acquire", Repeat::Safe, |g, i, until| {
            let v = g.post(i, "/v3/lease/timetolive", &body, until)?;
            Ok(lease_field(&v, "grantedTTL")?)
        })
    }

    /// Revokes the etcd lease `id`, if time is left; failures are ignored (the lease expires
    /// by itself: nobody keeps it alive).
    pub fn revoke(&mut self, id: i64) {
        let body = json!({ "ID": id.to_string() });
        let _ = self.request("release", Repeat::Safe, |g, i, until| {
            match g.post(i, "/v3/lease/revoke", &body, until) {
                Err(e) if e.lease_not_found() => Ok(()),
                r => r.map(drop),
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_classified() {
        let answer = |code, message: &str| Failure::Answer {
            code,
            message: message.to_string(),
        };
        let no_leader = answer(14, "etcdserver: no leader");
        assert!(no_leader.not_applied() && no_leader.transient() && !no_leader.unreachable());
        assert_eq!(no_leader.reason(), "no leader");
        let refused = Failure::Transport {
            reason: "connection refused",
            sent: false,
        };
        assert!(refused.not_applied() && refused.unreachable() && refused.transient());
        let lost = Failure::Transport {
            reason: "connection lost",
            sent: true,
        };
        assert!(!lost.not_applied() && lost.unreachable() && lost.transient());
        assert!(answer(5, "etcdserver: requested lease not found").lease_not_found());
        assert!(answer(9, "etcdserver: lease already exists").lease_exists());
        let bad = answer(3, "unknown value \"X\" for enum");
        assert!(!bad.transient() && !bad.not_applied());
        assert_eq!(bad.reason(), "server error");
        assert_eq!(
            answer(14, "etcdserver: request timed out").reason(),
            "timed out"
        );
        assert!(!Failure::Malformed.transient());
    }

    #[test]
    fn answers_and_their_errors_are_told_apart() {
        // As etcd 3.4's gateway answers.
        let ka = "{\"result\":{\"header\":{\"revision\":\"2\"},\"ID\":\"7\",\"TTL\":\"2\"}}\n";
        assert_eq!(answer_of(200, ka).unwrap()["result"]["TTL"], "2");
        let unary =
            r#"{"error":"etcdserver: no leader","message":"etcdserver: no leader","code":14}"#;
        assert_eq!(
            answer_of(503, unary),
            Err(Failure::Answer {
                code: 14,
                message: "etcdserver: no leader".into()
            })
        );
        let stream = r#"{"error":{"grpc_code":5,"http_code":404,"message":"etcdserver: requested lease not found","http_status":"Not Found"}}"#;
        assert!(answer_of(200, stream).unwrap_err().lease_not_found());
        assert_eq!(
            answer_of(400, "Client sent an HTTP request to an HTTPS server.\n"),
            Err(Failure::Malformed)
        );
        assert_eq!(answer_of(502, "{}"), Err(Failure::Malformed));
        assert_eq!(answer_of(200, ""), Err(Failure::Malformed));
    }
}
