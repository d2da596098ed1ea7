//! The checks every request meets before routing, cheapest first: its `Host` (against DNS
//! rebinding), its peer's request rate, and for a POST its content type (JSON only, so a web
//! page cannot send one without a CORS preflight the service does not grant by default).
//!
//! A refused request gets a JSON error: 403 `ERR_HOST_NOT_ALLOWED`, 429 `ERR_RATE_LIMITED`
//! with `Retry-After`, 415 `ERR_UNSUPPORTED_MEDIA_TYPE`.

use std::convert::Infallible;
use std::future::{ready, Ready};
use std::net::IpAddr;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::http::{header, HeaderMap, Method, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::future::Either;
use tower::Service;

use crate::auth::peer_of;
use crate::error::ApiError;
use crate::rate::{address_key, KeyedLimiter, RateLimit};

/// One allowed `Host`: a name or address, and a port (any when `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostRule {
    host: String,
    port: Option<u16>,
}

/// Which `Host` values the service answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPolicy {
    /// Any (a non-loopback listener without `--allowed-hosts`).
    Any,
    /// `localhost`, `*.localhost` and loopback addresses, any port (the default on a loopback
    /// listener: a page whose name was rebound to 127.0.0.1 still sends its own name).
    Loopback,
    /// These (`--allowed-hosts`).
    List(Vec<HostRule>),
}

/// A `Host` value split into a lowercase name (brackets kept for IPv6, a trailing dot dropped)
/// and its port.
fn split_host(value: &str) -> Option<(String, Option<u16>)> {
    let value = value.trim();
    let (host, port) = if value.starts_with('[') {
        let end = value.find(']')?;
        let rest = &value[end + 1..];
        let port = match rest.strip_prefix(':') {
            Some(p) => Some(p),
            None if rest.is_empty() => None,
            None => return None,
        };
        (&value[..=end], port)
    } else {
        match value.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (value, None),
        }
    };
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok()?),
        None => None,
    };
    let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    if host.is_empty() || (host.contains(['/', '@', ' ', ':']) && !host.starts_with('[')) {
        return None;
    }
    Some((host, port))
}

impl HostRule {
    /// Parses `name`, `name:port`, `1.2.3.4`, `[::1]:7600`.
    pub fn parse(text: &str) -> Result<HostRule, &'static str> {
        let (host, port) = split_host(text).ok_or(
            "allowed_hosts are host names or addresses, each with an optional :port \
             (ids.example.com, ids.example.com:7600, [::1]:7600)",
        )?;
        Ok(HostRule { host, port })
    }
}

impl HostPolicy {
    /// Whether a request with these headers may be answered. One without `Host` passes: a
    /// browser always sends one, and the check is against browsers (DNS rebinding).
    pub fn allows(&self, headers: &HeaderMap) -> bool {
        if *self == HostPolicy::Any {
            return true;
        }
        let Some(value) = headers.get(header::HOST) else {
            return true;
        };
        let Some((host, port)) = value.to_str().ok().and_then(split_host) else {
            return false;
        };
        match self {
            HostPolicy::Any => true,
            HostPolicy::Loopback => is_loopback_name(&host),
            HostPolicy::List(rules) => rules
                .iter()
                .any(|r| r.host == host && (r.port.is_none() || r.port == port)),
        }
    }
}

fn is_loopback_name(host: &str) -> bool {
    if host == "localhost" || host.ends_with(".localhost") {
        return true;
    }
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    bare.parse::<IpAddr>()
        .is_ok_and(|ip| ip.to_canonical().is_loopback())
}

/// Whether a content type is JSON: `application/json`, any parameters (`charset=utf-8`).
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

/// What [`Edge`] checks.
pub struct Rules {
    hosts: HostPolicy,
    per_address: Option<Arc<KeyedLimiter<IpAddr>>>,
}

impl Rules {
    /// The checks for these settings.
    pub fn new(hosts: HostPolicy, rate: Option<RateLimit>) -> Rules {
        Rules {
            hosts,
            per_address: rate.map(KeyedLimiter::new),
        }
    }

    /// The answer refusing `req`, if it is refused.
    fn refuse<B>(&self, req: &Request<B>) -> Option<Response> {
        if !self.hosts.allows(req.headers()) {
            return Some(
                ApiError::new(
                    StatusCode::FORBIDDEN,
                    "ERR_HOST_NOT_ALLOWED",
                    "this Host is not served here (allow it with --allowed-hosts)",
                )
                .into_response(),
            );
        }
        if let Some(limiter) = &self.per_address {
            if let Err(res) = limiter.check(&address_key(peer_of(req))) {
                return Some(res);
            }
        }
        if req.method() == Method::POST && !is_json(req.headers()) {
            return Some(
                ApiError::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    "ERR_UNSUPPORTED_MEDIA_TYPE",
                    "a POST must have Content-Type: application/json",
                )
                .into_response(),
            );
        }
        None
    }
}

/// `inner` behind the [`Rules`].
#[derive(Clone)]
pub struct Edge<S> {
    inner: S,
    rules: Arc<Rules>,
}

impl<S> Edge<S> {
    /// `inner` behind `rules`.
    pub fn new(inner: S, rules: Arc<Rules>) -> Edge<S> {
        Edge { inner, rules }
    }
}

impl<S, B> Service<Request<B>> for Edge<S>
where
    S: Service<Request<B>, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<Ready<Result<Response, Infallible>>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        match self.rules.refuse(&req) {
            Some(res) => Either::Left(ready(Ok(res))),
            None => Either::Right(self.inner.call(req)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with_host(h: &str) -> HeaderMap {
        let mut m = HeaderMap::new();
        m.insert(header::HOST, HeaderValue::from_str(h).unwrap());
        m
    }

    #[test]
    fn loopback_names_pass_the_default_and_others_do_not() {
        let p = HostPolicy::Loopback;
        for ok in [
            "localhost",
            "localhost:7600",
            "LOCALHOST.",
            "app.localhost:1",
            "127.0.0.1",
            "127.0.0.1:7600",
            "127.1.2.3:80",
            "[::1]",
            "[::1]:7600",
        ] {
            assert!(p.allows(&with_host(ok)), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:7600",
            "localhost.evil.example",
            "10.0.0.1:7600",
            "[::2]:7600",
            "127.0.0.1:notaport",
            "",
        ] {
            assert!(!p.allows(&with_host(bad)), "{bad}");
        }
        assert!(p.allows(&HeaderMap::new()), "no Host: not a browser");
        assert!(HostPolicy::Any.allows(&with_host("evil.example")));
    }

    #[test]
    fn a_list_matches_names_and_optional_ports() {
        let p = HostPolicy::List(vec![
            HostRule::parse("ids.example.com").unwrap(),
            HostRule::parse("Other.example:8443").unwrap(),
            HostRule::parse("[::1]:7600").unwrap(),
        ]);
        assert!(p.allows(&with_host("ids.example.com")));
        assert!(p.allows(&with_host("ids.example.com:1234")));
        assert!(p.allows(&with_host("other.example:8443")));
        assert!(!p.allows(&with_host("other.example:8444")));
        assert!(!p.allows(&with_host("other.example")));
        assert!(p.allows(&with_host("[::1]:7600")));
        assert!(!p.allows(&with_host("localhost")));
        assert!(HostRule::parse("a b").is_err());
        assert!(HostRule::parse("h:99999").is_err());
        assert!(HostRule::parse("http://h").is_err());
    }

    #[test]
    fn only_json_content_types_pass() {
        let ct = |v: &str| {
            let mut m = HeaderMap::new();
            m.insert(header::CONTENT_TYPE, HeaderValue::from_str(v).unwrap());
            is_json(&m)
        };
        assert!(ct("application/json"));
        assert!(ct("Application/JSON; charset=utf-8"));
        for bad in [
            "application/x-www-form-urlencoded",
            "text/plain",
            "multipart/form-data; boundary=x",
            "application/jsonx",
            "application/json-seq",
        ] {
            assert!(!ct(bad), "{bad}");
        }
        assert!(!is_json(&HeaderMap::new()));
    }
}
