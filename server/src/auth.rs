//! Who may call what: bearer tokens with scopes, the one table that gives every route its
//! scope, and the [`Caller`] every authorized request carries.
//!
//! # Tokens
//! Loaded from a file (`--tokens-file PATH`) or a secret source (`--tokens @PATH` or
//! `--tokens @env:NAME`, see [`crate::secret`]), never from command-line text. One token per
//! entry, entries separated by newlines or `;`, `#` starting a comment:
//!
//! ```text
//! # NAME      TOKEN                              SCOPES
//! orders-api  3q2+7w8d9f0g1h2j3k4l5m6n7o8p9q0r   mint,range
//! web         Zr7Yq2Wd8Lk4Hs6Jn1Mb5Vc3Xz9Pa0Qe   lease
//! ops         Tg5Bh8Nj2Mk6Lp1Oq9Ir3Us7Wv4Xy0Za   read,admin
//! ```
//!
//! A name is 1–64 of `A-Z a-z 0-9 _ . -` and unique; it is what logs, quotas and errors may
//! show. A token is 16–256 of `A-Z a-z 0-9 . _ ~ + / = -` (hex, base64 and base64url fit) and
//! unique. Scopes are a comma-separated list of [`Scope`]s, or `all`.
//!
//! With no tokens configured every request is anonymous and allowed (the service refuses to
//! start that way on a non-loopback address unless `--allow-anonymous`; see
//! [`crate::config`]). With tokens, every route but the probes needs one whose scopes include
//! the route's ([`ROUTES`]).

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::{ConditionallySelectable, ConstantTimeEq};

use crate::error::ApiError;
use crate::rate::{KeyedLimiter, RateLimit};
use crate::Shared;

/// What a token may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Read what the service knows without taking anything: decode, layouts, store info.
    Read,
    /// Take IDs: Snowflake IDs, segment IDs (also Leaf's paths).
    Mint,
    /// Client node leases: grant, renew, release.
    Lease,
    /// Take whole ranges (`POST /v1/segments/{key}/ranges`).
    Range,
    /// Operate: metrics and the monitor.
    Admin,
}

impl Scope {
    /// Every scope, in the order of their bits.
    pub const ALL: [Scope; 5] = [
        Scope::Read,
        Scope::Mint,
        Scope::Lease,
        Scope::Range,
        Scope::Admin,
    ];

    /// Its name in token files and messages.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Mint => "mint",
            Scope::Lease => "lease",
            Scope::Range => "range",
            Scope::Admin => "admin",
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// A set of [`Scope`]s.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct Scopes(u8);

impl Scopes {
    /// Every scope (an anonymous caller where no tokens are configured).
    pub const ALL: Scopes = Scopes(0b1_1111);

    /// Whether `s` is in the set.
    pub fn has(self, s: Scope) -> bool {
        self.0 & s.bit() != 0
    }

    fn with(self, s: Scope) -> Scopes {
        Scopes(self.0 | s.bit())
    }
}

impl fmt::Debug for Scopes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(
                Scope::ALL
                    .iter()
                    .filter(|s| self.has(**s))
                    .map(|s| s.name()),
            )
            .finish()
    }
}

/// What a route needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Nothing: the probes, so orchestrators need no token.
    Open,
    /// A token with this scope.
    Needs(Scope),
}

/// Every route pattern of [`crate::app::router`] and what it needs: the one place a route gets
/// its scope. A route missing here needs `admin` (fail closed), and a unit test in `app` fails.
pub const ROUTES: &[(&str, Access)] = &[
    ("/v1/snowflake", Access::Needs(Scope::Mint)),
    ("/v1/segments/{key}", Access::Needs(Scope::Mint)),
    ("/v1/segments/{key}/ranges", Access::Needs(Scope::Range)),
    ("/v1/store", Access::Needs(Scope::Read)),
    ("/v1/leases", Access::Needs(Scope::Lease)),
    ("/v1/leases/renew", Access::Needs(Scope::Lease)),
    ("/v1/leases/release", Access::Needs(Scope::Lease)),
    ("/v1/decode/{id}", Access::Needs(Scope::Read)),
    ("/v1/layouts", Access::Needs(Scope::Read)),
    ("/v1/monitor", Access::Needs(Scope::Admin)),
    ("/api/segment/get/{key}", Access::Needs(Scope::Mint)),
    ("/api/snowflake/get/{key}", Access::Needs(Scope::Mint)),
    ("/api/decodeSnowflakeId", Access::Needs(Scope::Read)),
    ("/cache", Access::Needs(Scope::Admin)),
    ("/metrics", Access::Needs(Scope::Admin)),
    ("/healthz", Access::Open),
    ("/readyz", Access::Open),
];

/// What the route `pattern` needs ([`ROUTES`]; `admin` for a pattern missing there).
pub fn access(pattern: &str) -> Access {
    ROUTES
        .iter()
        .find(|(p, _)| *p == pattern)
        .map_or(Access::Needs(Scope::Admin), |(_, a)| *a)
}

/// Who sent a request, as the edge established it.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The peer's IP address.
    pub peer: IpAddr,
    /// The name of the token it presented (never the secret); None when anonymous.
    pub token: Option<Arc<str>>,
    /// What it may do: its token's scopes, or every scope when the service has no tokens.
    pub scopes: Scopes,
}

/// The peer of a request: the address `serve` recorded ([`ConnectInfo`]), or 127.0.0.1 for a
/// request that did not come through a listener (an in-process `oneshot` in tests). IPv4
/// addresses mapped into IPv6 count as IPv4.
pub fn peer_of<B>(req: &axum::http::Request<B>) -> IpAddr {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::LOCALHOST), |c| c.0.ip().to_canonical())
}

struct Entry {
    name: Arc<str>,
    secret: Box<[u8]>,
    scopes: Scopes,
}

/// The configured tokens. Their `Debug` shows names and scopes, never a secret.
#[derive(Clone, Default)]
pub struct Tokens {
    entries: Arc<[Entry]>,
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.entries.iter().map(|e| (&*e.name, e.scopes)))
            .finish()
    }
}

fn name_ok(n: &str) -> bool {
    (1..=64).contains(&n.len())
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

fn token_ok(t: &str) -> bool {
    (16..=256).contains(&t.len())
        && t.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'~' | b'+' | b'/' | b'=' | b'-')
        })
}

impl Tokens {
    /// Parses the token list (the format in the [module docs](self)); `source` names where it
    /// came from in errors, which name lines and token names, never a token.
    pub fn parse(text: &[u8], source: &str) -> Result<Tokens, String> {
        let text = std::str::from_utf8(text)
            .map_err(|_| format!("tokens from {source}: not UTF-8 text"))?;
        let mut entries: Vec<Entry> = Vec::new();
        for (i, raw) in text.split(['\n', ';']).enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = |m: &str| format!("tokens from {source}: entry {}: {m}", i + 1);
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [name, token, scopes] = fields[..] else {
                return Err(at("expected `NAME TOKEN SCOPES`"));
            };
            if !name_ok(name) {
                return Err(at("a name is 1 to 64 of A-Z a-z 0-9 _ . -"));
            }
            if !token_ok(token) {
                return Err(at(&format!(
                    "the token of {name} must be 16 to 256 of A-Z a-z 0-9 . _ ~ + / = -"
                )));
            }
            let mut set = Scopes::default();
            for word in scopes.split(',') {
                match word {
                    "all" => set = Scopes::ALL,
                    w => match Scope::ALL.iter().find(|s| s.name() == w) {
                        Some(s) => set = set.with(*s),
                        None => {
                            return Err(at(&format!(
                                "unknown scope {w:?} for {name} (read, mint, lease, range, \
                                 admin or all)"
                            )))
                        }
                    },
                }
            }
            if entries.iter().any(|e| &*e.name == name) {
                return Err(at(&format!("the name {name} is used twice")));
            }
            if entries.iter().any(|e| &*e.secret == token.as_bytes()) {
                return Err(at(&format!(
                    "the token of {name} is also another name's: give each its own"
                )));
            }
            entries.push(Entry {
                name: name.into(),
                secret: token.as_bytes().into(),
                scopes: set,
            });
        }
        if entries.is_empty() {
            return Err(format!("tokens from {source}: no token defined"));
        }
        Ok(Tokens {
            entries: entries.into(),
        })
    }

    /// Whether no token is configured (every request anonymous).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The names configured.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| &*e.name)
    }

    /// The name and scopes of the token `given`, comparing it with every configured token in
    /// constant time (no early exit on a match; only the length of a token shows in timing).
    pub fn find(&self, given: &[u8]) -> Option<(Arc<str>, Scopes)> {
        let mut found = subtle::Choice::from(0);
        let mut index = 0u32;
        for (i, e) in self.entries.iter().enumerate() {
            let eq = e.secret.ct_eq(given);
            index.conditional_assign(&(i as u32), eq);
            found |= eq;
        }
        if bool::from(found) {
            let e = &self.entries[index as usize];
            Some((e.name.clone(), e.scopes))
        } else {
            None
        }
    }
}

/// The state of [`authorize`]: the service and the per-token rate limiter.
#[derive(Clone)]
pub struct Gate {
    svc: Shared,
    per_token: Option<Arc<KeyedLimiter<Arc<str>>>>,
}

impl Gate {
    /// A gate for `svc`, limiting each token to `rate` (if any).
    pub fn new(svc: Shared, rate: Option<RateLimit>) -> Gate {
        let per_token = match rate {
            Some(r) if !svc.settings.tokens.is_empty() => Some(KeyedLimiter::new(r)),
            _ => None,
        };
        Gate { svc, per_token }
    }
}

fn unauthorized() -> Response {
    let mut res = ApiError::unauthorized().into_response();
    res.headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    res
}

/// Lets a request through if its token (if tokens are configured) has the scope of its route,
/// and within the token's rate; records the [`Caller`] in its extensions.
pub async fn authorize(State(gate): State<Gate>, mut req: Request, next: Next) -> Response {
    let tokens = &gate.svc.settings.tokens;
    let peer = peer_of(&req);
    // What the route needs: nothing (a probe), a scope, or for an unmatched path (it will be
    // a 404) a valid token of any scope.
    let required: Option<Option<Scope>> = match req.extensions().get::<MatchedPath>() {
        Some(m) => match access(m.as_str()) {
            Access::Open => None,
            Access::Needs(s) => Some(Some(s)),
        },
        None => Some(None),
    };
    let caller = if tokens.is_empty() {
        Caller {
            peer,
            token: None,
            scopes: Scopes::ALL,
        }
    } else if required.is_none() {
        Caller {
            peer,
            token: None,
            scopes: Scopes::default(),
        }
    } else {
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim);
        let Some((name, scopes)) = given.and_then(|g| tokens.find(g.as_bytes())) else {
            return unauthorized();
        };
        if let Some(Some(scope)) = required {
            if !scopes.has(scope) {
                return ApiError::new(
                    StatusCode::FORBIDDEN,
                    "ERR_FORBIDDEN",
                    format!("this token lacks the `{}` scope", scope.name()),
                )
                .into_response();
            }
        }
        if let Some(limiter) = &gate.per_token {
            if let Err(res) = limiter.check(&name) {
                return res;
            }
        }
        Caller {
            peer,
            token: Some(name),
            scopes,
        }
    };
    req.extensions_mut().insert(caller);
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# comment\n\
        a  aaaaaaaaaaaaaaaa1  mint,range  # trailing comment\n\
        \n\
        b  bbbbbbbbbbbbbbbb2  lease;c cccccccccccccccc3 all\n";

    #[test]
    fn a_token_list_parses_and_finds_by_secret_only() {
        let t = Tokens::parse(FILE.as_bytes(), "test").unwrap();
        assert_eq!(t.names().collect::<Vec<_>>(), ["a", "b", "c"]);
        let (name, scopes) = t.find(b"bbbbbbbbbbbbbbbb2").unwrap();
        assert_eq!(&*name, "b");
        assert!(scopes.has(Scope::Lease) && !scopes.has(Scope::Mint));
        let (_, all) = t.find(b"cccccccccccccccc3").unwrap();
        assert_eq!(all, Scopes::ALL);
        assert!(t.find(b"bbbbbbbbbbbbbbbb").is_none());
        assert!(t.find(b"").is_none());
        assert!(t.find(b"a").is_none());
        let debug = format!("{t:?}");
        assert!(
            debug.contains("\"a\"") && debug.contains("\"range\""),
            "{debug}"
        );
        assert!(!debug.contains("aaaaaaaaaaaaaaaa1"), "{debug}");
    }

    #[test]
    fn bad_lists_are_refused_without_showing_a_token() {
        let secret = "sssssssssssssssss9";
        for (text, says) in [
            (format!("x {secret}"), "NAME TOKEN SCOPES"),
            (format!("x {secret} mint extra"), "NAME TOKEN SCOPES"),
            (format!("bad/name {secret} mint"), "a name is"),
            ("x short mint".to_owned(), "16 to 256"),
            (format!("x {secret} mnit"), "unknown scope \"mnit\""),
            (format!("x {secret} mint\nx {secret}0 mint"), "used twice"),
            (format!("x {secret} mint\ny {secret} read"), "also another"),
            ("# nothing\n".to_owned(), "no token"),
        ] {
            let e = Tokens::parse(text.as_bytes(), "@env:T").unwrap_err();
            assert!(e.contains(says), "{text:?}: {e}");
            assert!(!e.contains(secret), "{e}");
        }
        assert!(Tokens::parse(&[0xff, 0xfe], "x").is_err());
    }

    #[test]
    fn every_route_pattern_is_listed_once() {
        for (i, (p, _)) in ROUTES.iter().enumerate() {
            assert!(ROUTES[i + 1..].iter().all(|(q, _)| q != p), "{p} twice");
        }
        assert_eq!(access("/nowhere"), Access::Needs(Scope::Admin));
        assert_eq!(access("/healthz"), Access::Open);
    }
}
