//! Request rate limits, per peer address and per token: `governor`'s GCRA (one timestamp per
//! key, no timers), keys pruned in the background so a stream of new addresses cannot grow
//! memory without bound.
//!
//! `--rate-limit N/s` (or `N/min`, or `off`) with `--rate-burst B` (default: N) is each
//! address's and each token's allowance; over it a request gets 429 `ERR_RATE_LIMITED` with
//! `Retry-After`. An IPv6 peer counts by its /64 (one host usually owns a whole /64).

use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};

use crate::error::ApiError;

/// The default allowance: well above one loopback client's ~60,000-76,000 requests/s (the
/// load benchmark), far below what a flood sends.
pub const DEFAULT_PER_SECOND: u32 = 100_000;

/// How often idle keys are dropped.
const PRUNE_EVERY: Duration = Duration::from_secs(10);

/// A rate: `count` requests per `period`, with bursts of up to `burst`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests per period.
    pub count: NonZeroU32,
    /// The period: one second or one minute.
    pub period: Duration,
    /// Most requests at once after a quiet spell.
    pub burst: NonZeroU32,
}

impl RateLimit {
    /// Parses `N/s`, `N/sec`, `N/min` or `off` (`None`); `burst` defaults to N.
    pub fn parse(text: &str, burst: Option<u32>) -> Result<Option<RateLimit>, &'static str> {
        const FORM: &str = "rate_limit is N/s, N/min or off (such as 100000/s), N at least 1";
        if text.trim() == "off" {
            return Ok(None);
        }
        let (n, unit) = text.trim().split_once('/').ok_or(FORM)?;
        let count: NonZeroU32 = n.trim().parse().map_err(|_| FORM)?;
        let period = match unit.trim() {
            "s" | "sec" | "second" => Duration::from_secs(1),
            "m" | "min" | "minute" => Duration::from_secs(60),
            _ => return Err(FORM),
        };
        let burst = match burst {
            None => count,
            Some(b) => NonZeroU32::new(b).ok_or("rate_burst must be at least 1")?,
        };
        Ok(Some(RateLimit {
            count,
            period,
            burst,
        }))
    }

    fn quota(self) -> Quota {
        let q = if self.period >= Duration::from_secs(60) {
            Quota::per_minute(self.count)
        } else {
            Quota::per_second(self.count)
        };
        q.allow_burst(self.burst)
    }
}

/// A limiter with one allowance per key.
pub struct KeyedLimiter<K: Hash + Eq + Clone> {
    inner: DefaultKeyedRateLimiter<K>,
}

impl<K> KeyedLimiter<K>
where
    K: Hash + Eq + Clone + Send + Sync + 'static,
{
    /// A limiter at `rate`; inside a Tokio runtime, a task drops its idle keys every few
    /// seconds for as long as the limiter lives.
    pub fn new(rate: RateLimit) -> Arc<Self> {
        let limiter = Arc::new(KeyedLimiter {
            inner: DefaultKeyedRateLimiter::keyed(rate.quota()),
        });
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(prune(Arc::downgrade(&limiter)));
        }
        limiter
    }

    /// Counts a request of `key`: `Err` with the 429 answer when over its allowance.
    #[allow(clippy::result_large_err)]
    pub fn check(&self, key: &K) -> Result<(), Response> {
        self.inner.check_key(key).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            too_many(wait)
        })
    }

    /// Drops the keys whose allowance is full again (they are as if never seen).
    pub fn prune(&self) {
        self.inner.retain_recent();
        self.inner.shrink_to_fit();
    }

    /// How many keys it holds.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether it holds no key.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }
}

async fn prune<K>(limiter: Weak<KeyedLimiter<K>>)
where
    K: Hash + Eq + Clone + Send + Sync + 'static,
{
    loop {
        tokio::time::sleep(PRUNE_EVERY).await;
        match limiter.upgrade() {
            Some(l) => l.prune(),
            None => return,
        }
    }
}

/// The 429 answer, with the whole seconds until a retry can pass (at least 1).
fn too_many(wait: Duration) -> Response {
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let secs = secs.clamp(1, u64::from(u32::MAX));
    let mut res = ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "ERR_RATE_LIMITED",
        "too many requests: slow down and retry after Retry-After seconds",
    )
    .into_response();
    res.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    res
}

/// The key of a peer address: IPv4 as is, IPv6 by its /64.
pub fn address_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(bits.into())
        }
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_and_bad_ones_are_refused() {
        let r = RateLimit::parse("50/s", None).unwrap().unwrap();
        assert_eq!((r.count.get(), r.burst.get()), (50, 50));
        let r = RateLimit::parse("600/min", Some(20)).unwrap().unwrap();
        assert_eq!(r.period, Duration::from_secs(60));
        assert_eq!(r.burst.get(), 20);
        assert_eq!(RateLimit::parse("off", None), Ok(None));
        for bad in ["", "0/s", "10", "10/h", "x/s", "-1/s"] {
            assert!(RateLimit::parse(bad, None).is_err(), "{bad}");
        }
        assert!(RateLimit::parse("1/s", Some(0)).is_err());
    }

    #[test]
    fn a_key_over_its_burst_is_refused_with_a_retry_hint_and_others_are_not() {
        let l = KeyedLimiter::new(RateLimit::parse("1/min", Some(2)).unwrap().unwrap());
        assert!(l.check(&1u8).is_ok());
        assert!(l.check(&1u8).is_ok());
        let res = l.check(&1u8).unwrap_err();
        assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
        let after: u64 = res.headers()[header::RETRY_AFTER]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=60).contains(&after), "{after}");
        assert!(l.check(&2u8).is_ok(), "another key has its own allowance");
        assert_eq!(l.len(), 2);
    }

    #[test]
    fn idle_keys_are_pruned() {
        // A key whose allowance is full again is dropped; one still spent stays.
        let l = KeyedLimiter::new(RateLimit::parse("1/min", Some(5)).unwrap().unwrap());
        let fast = KeyedLimiter::new(RateLimit::parse("1000000/s", Some(1)).unwrap().unwrap());
        assert!(l.check(&1u8).is_ok());
        assert!(fast.check(&1u8).is_ok());
        std::thread::sleep(Duration::from_millis(5));
        l.prune();
        fast.prune();
        assert_eq!(l.len(), 1, "a key still spent stays");
        assert_eq!(fast.len(), 0, "a key refilled is dropped");
    }

    #[test]
    fn ipv6_peers_count_by_their_64_and_mapped_ipv4_as_ipv4() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(address_key(a), address_key(b));
        assert_ne!(address_key(a), address_key(c));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(address_key(mapped), "10.0.0.1".parse::<IpAddr>().unwrap());
    }
}
