//! Small URL helpers shared by the stores: the `file:` path, and the idmint query parameters
//! (`timeout_ms`, `mode`) that are taken out before a URL goes to the Redis, PostgreSQL or
//! ZooKeeper client (which would reject or misread them).

// Without the network stores only the `file:` helper is used.
#![cfg_attr(
    not(any(
        feature = "redis",
        feature = "postgres",
        feature = "etcd",
        feature = "zookeeper"
    )),
    allow(dead_code)
)]

use std::path::PathBuf;
use std::time::Duration;

use idmint::{Error, Result};

/// `file:DIR`, `file://DIR` or `file:///abs/dir` → the directory.
pub(crate) fn file_path(rest: &str) -> Result<PathBuf> {
    let p = rest.strip_prefix("//").unwrap_or(rest);
    if p.is_empty() {
        return Err(Error::InvalidConfig {
            reason: "file: lease URL needs a directory (file:/var/lib/idmint)",
        });
    }
    Ok(PathBuf::from(p))
}

/// A URL with the idmint parameters removed, and their values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Split {
    pub url: String,
    pub timeout: Duration,
    pub mode: Option<String>,
}

impl Split {
    /// Refuses a `mode=` parameter, for the stores that have no modes.
    #[cfg(any(feature = "redis", feature = "etcd", feature = "zookeeper"))]
    pub(crate) fn no_mode(&self, reason: &'static str) -> Result<()> {
        match self.mode {
            Some(_) => Err(Error::InvalidConfig { reason }),
            None => Ok(()),
        }
    }
}

/// `url`'s part before the query, and the query's `key=value` pairs (a bare `key` has the
/// value `""`), with each pair's text as written.
pub(crate) fn query_pairs(url: &str) -> (&str, Vec<(&str, &str, &str)>) {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, q),
        None => (url, ""),
    };
    let pairs = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (k, v, pair)
        })
        .collect();
    (base, pairs)
}

/// Takes `timeout_ms` and `mode` out of the query string of `url`.
pub(crate) fn split_params(url: &str) -> Result<Split> {
    let (base, pairs) = query_pairs(url);
    let mut keep = Vec::new();
    let mut timeout = crate::timeouts::DEFAULT_STORE_TIMEOUT;
    let mut mode = None;
    for (k, v, pair) in pairs {
        match k {
            "timeout_ms" => {
                let ms: u64 = v.parse().map_err(|_| Error::InvalidConfig {
                    reason: "timeout_ms must be a whole number of milliseconds",
                })?;
                if ms == 0 {
                    return Err(Error::InvalidConfig {
                        reason: "timeout_ms must be at least 1",
                    });
                }
                timeout = Duration::from_millis(ms);
            }
            "mode" => mode = Some(v.to_string()),
            _ => keep.push(pair),
        }
    }
    let url = if keep.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", keep.join("&"))
    };
    Ok(Split { url, timeout, mode })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_taken_out() {
        let s =
            split_params("postgres://u@h:5/db?mode=boot&sslmode=disable&timeout_ms=250").unwrap();
        assert_eq!(s.url, "postgres://u@h:5/db?sslmode=disable");
        assert_eq!(s.timeout, Duration::from_millis(250));
        assert_eq!(s.mode.as_deref(), Some("boot"));
        let s = split_params("redis://127.0.0.1:6379/").unwrap();
        assert_eq!(s.url, "redis://127.0.0.1:6379/");
        assert_eq!(s.mode, None);
        assert!(split_params("redis://h/?timeout_ms=x").is_err());
        assert!(split_params("redis://h/?timeout_ms=0").is_err());
    }

    #[test]
    fn file_paths() {
        assert_eq!(
            file_path("/var/lib/x").unwrap(),
            PathBuf::from("/var/lib/x")
        );
        assert_eq!(
            file_path("///var/lib/x").unwrap(),
            PathBuf::from("/var/lib/x")
        );
        assert_eq!(file_path("rel/dir").unwrap(), PathBuf::from("rel/dir"));
        assert!(file_path("").is_err());
    }
}
