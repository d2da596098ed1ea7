//! The idmint service as a segment store: ranges from `idmint serve` over HTTP, so that
//! allocators in any number of processes and languages (the Python and Node bindings open
//! stores through [`open_store`](super::open_store) too) share one service instead of each
//! holding credentials for a database.
//!
//! # URL
//!
//! `idmint+http://HOST[:PORT][/PREFIX][?token=T&timeout_ms=N]`, and
//! `idmint+https://…[?ca_file=PATH]` for TLS (rustls with the *ring* provider, checked against
//! the system's trusted roots, or only the CA certificates of `ca_file`; the certificate must
//! name `HOST`). Without a port, 80 or 443 as for any HTTP URL (the service
//! itself listens on 7600 by default). `PREFIX` is a path the service is mounted under behind
//! a proxy; a trailing `/` is ignored. Options:
//!
//! - `token=T` (percent-decoded, printable ASCII without spaces): sent as
//!   `Authorization: Bearer T` with every call. The URL then holds a secret: pass it by
//!   reference ([`url_ref`](crate::url_ref): `@env:NAME`, `@PATH`).
//! - `ca_file=PATH` (percent-decoded; `idmint+https://` only): trust the CA certificates in
//!   the PEM file `PATH` — a private CA, as the service's `--tls-cert` is often signed by —
//!   instead of the system's. Read when the store is opened: a file that cannot be read or
//!   holds no PEM certificate is [`Error::InvalidConfig`].
//! - `timeout_ms=N`: the deadline of one call, from the DNS lookup and connect to the last
//!   byte of the answer (default [`DEFAULT_STORE_TIMEOUT`](crate::lease::DEFAULT_STORE_TIMEOUT),
//!   one second). At least 1; above [`MAX_TIMEOUT`] (one hour, as `busy_timeout_ms=`) it is
//!   [`Error::LimitExceeded`].
//!
//! Anything else — another or a repeated option, a `user:password@`, a `#fragment`, a host,
//! port or path that does not parse — is [`Error::InvalidConfig`]. The store talks to the
//! service directly, as a database client would: `HTTP_PROXY`-style variables are not used
//! and redirects are not followed.
//!
//! # Calls
//!
//! - [`take`](SegmentStore::take): `POST {PREFIX}/v1/segments/{key}/ranges?count={step}`,
//!   the key percent-encoded (everything but `A-Z a-z 0-9 - . _ ~`). The answer
//!   `{"key":…,"start":"…","end":"…"}` (decimal strings) is handed out only when it checks
//!   out: the same key, `1 <= start < end`, and `end - start <= step`. The service may answer
//!   fewer values than asked, as the trait allows.
//! - [`identity`](SegmentStore::identity): `GET {PREFIX}/v1/store`, whose `identity` (a
//!   nonzero decimal string) is the identity of the store behind the service, passed through:
//!   the values are that store's, so a journal written through the service resumes on the
//!   same store reached directly, and the other way round.
//! - [`ascending`](SegmentStore::ascending): that answer's `ascending`, asked once. The trait
//!   method cannot fail and the allocator asks it once, when it is built; opening the store
//!   does not connect (as with Redis and PostgreSQL), so the first `ascending()` (or
//!   `identity()`) call asks the service and keeps the answer. While the service cannot be
//!   reached the answer is `true` and nothing is kept: an allocator built then refuses a range
//!   that goes back — from a service on sharded rows, a range it would rightly take — rather
//!   than risk reissuing values after a counter reset. Build allocators while the service is
//!   up.
//!
//! # Failures
//!
//! Every call has the one deadline above. Connections are kept alive and reused; a call whose
//! connection turns out closed (the service restarted, or dropped an idle connection) is sent
//! once more on a fresh one — when the first one had reached the service, its range is
//! skipped, never handed out twice — so a call ends within two timeouts at worst. The core
//! error holds static text only, so the service's `message` cannot be carried: its status and
//! `code` are classified as follows (`op` is `take` or `identity`).
//!
//! | answer | error |
//! |---|---|
//! | none: refused, lost, timed out, unknown host, TLS | [`Error::StoreUnavailable`]: `connection refused`, `connection lost`, `timed out`, `host not found`, `TLS certificate not trusted`, … |
//! | 2xx that does not check out | [`Error::StoreUnavailable`]: `service answered a bad range`, `… a range for another key`, `… a bad identity`, `… malformed JSON` |
//! | 400 `ERR_LIMIT_EXCEEDED` (count above the service's `max_range`) | [`Error::LimitExceeded`]; the service does not say its limit, so `limit` is one less than the count refused |
//! | other 400 | [`Error::InvalidConfig`] |
//! | 401, 403 | [`Error::StoreUnavailable`]: `authentication failed …`, `forbidden …` |
//! | 404 `ERR_NOT_FOUND` on take (the service serves registered keys only) | [`Error::InvalidArgument`] naming the key (its first 15 bytes) |
//! | other 404 | [`Error::StoreUnavailable`]: `no idmint service at this URL …` |
//! | 409, 429, 5xx, 3xx, anything else | [`Error::StoreUnavailable`] naming the status (503 `ERR_STORE_UNAVAILABLE`: `the service's own store is unavailable`) |
//!
//! A wrong token is a store failure, as a wrong password is for Redis and PostgreSQL: the
//! allocator keeps retrying failed fetches, so a token fixed on the service side takes effect
//! without a restart.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::reason::Reason;
use idmint::segment::Range;
use idmint::{Error, Name, Result};
use serde_json::Value;
use ureq::http::Response;
use ureq::Body;

use super::contract::SegmentStore;
use super::counter;

const KIND: &str = "idmint+http";

/// Longest `timeout_ms=` accepted: one hour, as `busy_timeout_ms=` of SQLite.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);

/// Largest answer read: the service's answers are a few hundred bytes.
const MAX_ANSWER_BYTES: u64 = 64 * 1024;

/// Idle connections kept for reuse.
const MAX_IDLE: usize = 8;

/// A [`SegmentStore`] on an idmint service. See the [module docs](self).
///
/// # Examples
/// ```no_run
/// use idmint_coord::segment::{http::HttpStore, SegmentStore};
///
/// let store = HttpStore::new("idmint+http://ids.internal:7600/?timeout_ms=500")?;
/// let r = store.take("orders", 1_000)?;
/// assert!(r.len() <= 1_000);
/// # Ok::<(), idmint::Error>(())
/// ```
pub struct HttpStore {
    agent: ureq::Agent,
    /// `http://HOST:PORT/PREFIX` (or `https://`) without a trailing slash.
    base: String,
    /// The whole `Authorization` value, `Bearer T`.
    bearer: Option<String>,
    timeout: Duration,
    ascending: OnceLock<bool>,
}

impl std::fmt::Debug for HttpStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpStore")
            .field("service", &self.base)
            .field("token", &self.bearer.as_ref().map(|_| "***"))
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl HttpStore {
    /// A store on the service at `url` (see the [module docs](self) for the grammar). Does
    /// not connect: the first call does. A URL that does not parse is
    /// [`Error::InvalidConfig`], a `timeout_ms=` above [`MAX_TIMEOUT`] is
    /// [`Error::LimitExceeded`]; `idmint+https://` on a host without trusted CA certificates is
    /// [`Error::InvalidConfig`].
    pub fn new(url: &str) -> Result<Self> {
        let target = Target::parse(url)?;
        let mut config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(target.timeout))
            .max_redirects(0)
            .proxy(None)
            .user_agent(concat!("idmint-coord/", env!("CARGO_PKG_VERSION")))
            .accept("application/json")
            .max_idle_connections(MAX_IDLE)
            .max_idle_connections_per_host(MAX_IDLE);
        if target.tls {
            config = config.tls_config(tls_config(target.ca_file.as_deref())?);
        }
        Ok(HttpStore {
            agent: config.build().new_agent(),
            base: target.base,
            bearer: target.token.map(|t| format!("Bearer {t}")),
            timeout: target.timeout,
            ascending: OnceLock::new(),
        })
    }

    /// The deadline of one call (`timeout_ms=`).
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Sends a request (built afresh by `send` for a retry) and reads the answer: its status
    /// and body, or why there is none.
    fn exchange(
        &self,
        op: &'static str,
        send: impl Fn() -> std::result::Result<Response<Body>, ureq::Error>,
    ) -> Result<(u16, String)> {
        let mut retried = false;
        loop {
            let failure = match send() {
                Ok(mut answer) => {
                    let status = answer.status().as_u16();
                    let body = answer
                        .body_mut()
                        .with_config()
                        .limit(MAX_ANSWER_BYTES)
                        .read_to_string();
                    match body {
                        Ok(body) => return Ok((status, body)),
                        Err(e) => e,
                    }
                }
                Err(e) => e,
            };
            let reason = transport_reason(&failure);
            // A kept-alive connection the service had closed fails fast; one fresh try.
            if reason == "connection lost" && !retried {
                retried = true;
                continue;
            }
            return Err(Error::StoreUnavailable {
                store: KIND,
                op,
                reason,
            });
        }
    }

    /// `GET /v1/store`, keeping its `ascending` for [`SegmentStore::ascending`].
    fn store_info(&self) -> Result<Value> {
        const OP: &str = "identity";
        let url = format!("{}/v1/store", self.base);
        let (status, body) = self.exchange(OP, || {
            let mut req = self.agent.get(&url);
            if let Some(b) = &self.bearer {
                req = req.header("Authorization", b.as_str());
            }
            req.call()
        })?;
        if !(200..300).contains(&status) {
            return Err(self.refusal(OP, status, &body, None));
        }
        let info: Value = serde_json::from_str(&body).map_err(|_| Error::StoreUnavailable {
            store: KIND,
            op: OP,
            reason: "service answered malformed JSON",
        })?;
        if let Some(ascending) = info.get("ascending").and_then(Value::as_bool) {
            let _ = self.ascending.set(ascending);
        }
        Ok(info)
    }

    /// The error for a non-2xx answer (see the table in the [module docs](self)); `take` is
    /// the key and count of a take.
    fn refusal(
        &self,
        op: &'static str,
        status: u16,
        body: &str,
        take: Option<(&str, u64)>,
    ) -> Error {
        let code = serde_json::from_str::<Value>(body)
            .ok()
            .and_then(|v| v.get("code")?.as_str().map(str::to_owned));
        let unavailable = |reason| Error::StoreUnavailable {
            store: KIND,
            op,
            reason,
        };
        match (status, code.as_deref(), take) {
            (400, Some("ERR_LIMIT_EXCEEDED"), Some((_, count))) => Error::LimitExceeded {
                what: "the count asked of the idmint service (above its max_range: lower max_step)",
                limit: count.saturating_sub(1),
            },
            (400, ..) => Error::InvalidConfig {
                reason: "the idmint service refused the request as invalid (400)",
            },
            (401, ..) if self.bearer.is_none() => {
                unavailable("authentication failed (401): the service wants token= in the URL")
            }
            (401, ..) => unavailable("authentication failed (401): the service refused the token"),
            (403, ..) => unavailable("forbidden (403): the service refuses this token"),
            (404, Some("ERR_NOT_FOUND"), Some((key, _))) => Error::InvalidArgument {
                argument: Name::lossy(key),
                reason:
                    "is not a segment key of the idmint service (it serves registered keys only)",
            },
            (404, ..) => unavailable("no idmint service at this URL (404): check host and path"),
            (409, ..) => unavailable("conflict (409)"),
            (429, ..) => unavailable("rate limited by the service (429)"),
            (500..=599, Some("ERR_STORE_UNAVAILABLE"), _) => {
                unavailable("the service's own store is unavailable")
            }
            (500, ..) => unavailable("internal error of the service (500)"),
            (502, ..) => unavailable("bad gateway in front of the service (502)"),
            (503, ..) => unavailable("service unavailable (503)"),
            (504, ..) => unavailable("gateway timeout in front of the service (504)"),
            (500..=599, ..) => unavailable("server error (5xx)"),
            (300..=399, ..) => unavailable("the service redirected (3xx, not followed)"),
            _ => unavailable("unexpected HTTP status"),
        }
    }
}

impl SegmentStore for HttpStore {
    fn kind(&self) -> &'static str {
        KIND
    }

    /// One `POST`; the range is checked before it is handed out (see the [module docs](self)).
    fn take(&self, key: &str, step: u64) -> Result<Range> {
        counter::check_take(key, step)?;
        let mut url = format!("{}/v1/segments/", self.base);
        push_segment(&mut url, key);
        url.push_str("/ranges?count=");
        url.push_str(&step.to_string());
        let (status, body) = self.exchange("take", || {
            // The service takes only JSON POSTs (a web page cannot send one without CORS).
            let mut req = self
                .agent
                .post(&url)
                .header("Content-Type", "application/json");
            if let Some(b) = &self.bearer {
                req = req.header("Authorization", b.as_str());
            }
            req.send_empty()
        })?;
        if !(200..300).contains(&status) {
            return Err(self.refusal("take", status, &body, Some((key, step))));
        }
        checked_range(key, step, &body)
    }

    /// The service's answer, asked once; `true` while it cannot be had (see the
    /// [module docs](self)).
    fn ascending(&self) -> bool {
        if let Some(a) = self.ascending.get() {
            return *a;
        }
        let _ = self.store_info();
        self.ascending.get().copied().unwrap_or(true)
    }

    /// The identity of the store behind the service, asked every time (callers keep it).
    fn identity(&self) -> Result<u64> {
        let info = self.store_info()?;
        match info.get("identity").and_then(decimal) {
            Some(id) if id != 0 => Ok(id),
            _ => Err(Error::StoreUnavailable {
                store: KIND,
                op: "identity",
                reason: "service answered a bad identity",
            }),
        }
    }
}

/// A take's answer, if it checks out (see the [module docs](self)).
fn checked_range(key: &str, step: u64, body: &str) -> Result<Range> {
    let v: Value = serde_json::from_str(body)
        .map_err(|_| counter::unavailable(KIND, "service answered malformed JSON"))?;
    if v.get("key").and_then(Value::as_str) != Some(key) {
        return Err(counter::unavailable(
            KIND,
            "service answered a range for another key",
        ));
    }
    let start = v.get("start").and_then(decimal);
    let end = v.get("end").and_then(decimal);
    match (start, end) {
        (Some(start), Some(end)) if start >= 1 && start < end && end - start <= step => {
            Ok(Range { start, end })
        }
        _ => Err(counter::unavailable(KIND, "service answered a bad range")),
    }
}

/// A JSON string of decimal digits as a `u64` (no sign, no spaces, no JSON number).
fn decimal(v: &Value) -> Option<u64> {
    let s = v.as_str()?;
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Appends `s` percent-encoded as one path segment: everything but the unreserved characters.
fn push_segment(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
}

/// Why a call got no answer, in a few words.
fn transport_reason(e: &ureq::Error) -> &'static str {
    match e {
        ureq::Error::Timeout(_) => "timed out",
        ureq::Error::Io(io) => match io.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
            Some(tls) => tls.reason(),
            None => io.reason(),
        },
        ureq::Error::Rustls(tls) => tls.reason(),
        ureq::Error::Tls(_) | ureq::Error::Pem(_) => "TLS handshake failed",
        ureq::Error::HostNotFound => "host not found",
        ureq::Error::ConnectionFailed => "connection failed",
        ureq::Error::Protocol(_) => "malformed HTTP answer",
        ureq::Error::BodyExceedsLimit(_) => "answer too large",
        ureq::Error::TooManyRedirects | ureq::Error::RedirectFailed => {
            "the service redirected (not followed)"
        }
        _ => "HTTP client error",
    }
}

/// rustls with *ring* (passed explicitly: no process-wide provider is needed or installed)
/// and the CA certificates of `ca_file`, or else the system's trusted roots.
fn tls_config(ca_file: Option<&str>) -> Result<ureq::tls::TlsConfig> {
    use ureq::tls::{Certificate, RootCerts, TlsConfig, TlsProvider};
    let roots: Vec<Certificate<'static>> = match ca_file {
        Some(path) => {
            use rustls::pki_types::pem::PemObject;
            use rustls::pki_types::CertificateDer;
            let pem = std::fs::read(path).or_else(|_| bad("cannot read the ca_file"))?;
            CertificateDer::pem_slice_iter(&pem)
                .map(|c| c.map(|c| Certificate::from_der(c.as_ref()).to_owned()))
                .collect::<std::result::Result<_, _>>()
                .or_else(|_| bad("the ca_file holds a malformed PEM certificate"))?
        }
        None => rustls_native_certs::load_native_certs()
            .certs
            .iter()
            .map(|c| Certificate::from_der(c.as_ref()).to_owned())
            .collect(),
    };
    if roots.is_empty() {
        return match ca_file {
            Some(_) => bad("the ca_file holds no PEM certificate"),
            None => {
                bad("no system CA certificates found: idmint+https:// needs them (or ca_file=)")
            }
        };
    }
    Ok(TlsConfig::builder()
        .provider(TlsProvider::Rustls)
        .root_certs(RootCerts::from(roots))
        .unversioned_rustls_crypto_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .build())
}

fn bad<T>(reason: &'static str) -> Result<T> {
    Err(Error::InvalidConfig { reason })
}

/// A parsed `idmint+http://` URL.
#[derive(Debug, PartialEq, Eq)]
struct Target {
    base: String,
    tls: bool,
    token: Option<String>,
    /// `ca_file=`: the PEM file of CA certificates to trust (https only).
    ca_file: Option<String>,
    timeout: Duration,
}

impl Target {
    fn parse(url: &str) -> Result<Target> {
        let (tls, rest) = if let Some(rest) = url.strip_prefix("idmint+http://") {
            (false, rest)
        } else if let Some(rest) = url.strip_prefix("idmint+https://") {
            (true, rest)
        } else {
            return bad("an idmint service URL starts with idmint+http:// or idmint+https://");
        };
        if rest.contains('#') {
            return bad("idmint+http:// URLs take no #fragment");
        }
        let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if authority.contains('@') {
            return bad("idmint+http:// URLs take no user@: give the token as token=");
        }
        if authority.is_empty() {
            return bad("idmint+http:// needs a host (idmint+http://HOST:PORT/)");
        }
        let mut token = None;
        let mut ca_file = None;
        let mut timeout = None;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let repeated = match k {
                "token" => token
                    .replace(crate::url_ref::percent_decode(v).map_or_else(
                        || bad("an idmint+http:// option has a malformed %-escape or is not UTF-8"),
                        Ok,
                    )?)
                    .is_some(),
                "ca_file" => ca_file
                    .replace(crate::url_ref::percent_decode(v).map_or_else(
                        || bad("an idmint+http:// option has a malformed %-escape or is not UTF-8"),
                        Ok,
                    )?)
                    .is_some(),
                "timeout_ms" => timeout.replace(timeout_ms(v)?).is_some(),
                _ => {
                    return bad(
                        "unknown option for idmint+http:// (takes token, timeout_ms; ca_file with https)",
                    )
                }
            };
            if repeated {
                return bad("an option of an idmint+http:// URL is given twice");
            }
        }
        match &ca_file {
            Some(_) if !tls => return bad("ca_file needs an idmint+https:// URL"),
            Some(f) if f.is_empty() => return bad("ca_file= needs a path"),
            _ => {}
        }
        if let Some(t) = &token {
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_graphic()) {
                return bad("token= must be printable ASCII without spaces");
            }
        }
        let prefix = path.trim_end_matches('/');
        let base = format!(
            "{}://{authority}{prefix}",
            if tls { "https" } else { "http" }
        );
        // Every request URL is this base plus a fixed or encoded path: check the base once.
        let probe = format!("{base}/v1/store");
        let ok = probe.parse::<ureq::http::Uri>().is_ok_and(|u| {
            let Some(auth) = u.authority() else {
                return false;
            };
            // The URI type takes any digits as a port; a port must be a u16.
            let port = auth.as_str().strip_prefix(auth.host()).unwrap_or(":");
            let port_ok = port.is_empty()
                || port.strip_prefix(':').is_some_and(|p| {
                    p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u16>().is_ok()
                });
            !auth.host().is_empty() && port_ok && u.path() == &probe[base.len() - prefix.len()..]
        });
        if !ok {
            return bad("idmint+http:// URL has an invalid host, port or path");
        }
        Ok(Target {
            base,
            tls,
            token,
            ca_file,
            timeout: timeout.unwrap_or(crate::lease::DEFAULT_STORE_TIMEOUT),
        })
    }
}

/// `timeout_ms=` as a duration: 1 ms to [`MAX_TIMEOUT`].
fn timeout_ms(v: &str) -> Result<Duration> {
    let ms: u64 = v
        .parse()
        .or_else(|_| bad("timeout_ms must be a whole number of milliseconds"))?;
    if ms == 0 {
        return bad("timeout_ms must be at least 1");
    }
    let t = Duration::from_millis(ms);
    if t > MAX_TIMEOUT {
        return Err(Error::LimitExceeded {
            what: "`timeout_ms=` of a segment store URL",
            limit: MAX_TIMEOUT.as_millis() as u64,
        });
    }
    Ok(t)
}

#[cfg(test)]
mod tests;
