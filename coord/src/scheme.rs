//! The one list of store URL schemes: which store each names, which cargo feature builds it,
//! what it serves (node leases, segments or both) and how its help text reads.
//!
//! [`lease::open`](crate::lease::open), [`segment::open_store`](crate::segment::open_store) and
//! [`NodeSource::parse`](crate::node_source::NodeSource::parse) find a URL's store here, and the
//! CLI's and the service's help texts are written from it ([`lease_forms`], [`segment_forms`]),
//! so a new store is listed once. A scheme whose feature this build lacks is an
//! [`Error::InvalidConfig`] that names the feature, and what to install for it when the
//! surface said so ([`set_install_hint`]: the light Python, Node and C packages leave the network
//! stores to an add-on).
//!
//! # Examples
//! ```
//! use idmint_coord::scheme::{self, Role, Store};
//! assert_eq!(scheme::find("zk://a:2181/x", Role::Lease)?.store, Store::Zookeeper);
//! assert!(scheme::lease_forms().contains("zk://"));
//! assert!(scheme::segment_forms().contains("mysql://"));
//! assert!(scheme::find("sqlite:x.db", Role::Lease).is_err());
//! # Ok::<(), idmint::Error>(())
//! ```

use std::sync::OnceLock;

use idmint::{Error, Result};

/// The stores a URL can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Store {
    /// `local`: the per-user lock directory (leases).
    Local,
    /// `file:DIR`: lock files in a directory (leases).
    File,
    /// Redis (leases and segments).
    Redis,
    /// PostgreSQL (leases and segments).
    Postgres,
    /// MySQL or MariaDB (leases and segments).
    Mysql,
    /// etcd v3 (leases).
    Etcd,
    /// ZooKeeper (leases).
    Zookeeper,
    /// SQLite (segments).
    Sqlite,
    /// An idmint service over HTTP (segments).
    Http,
    /// This process's memory, for tests (segments).
    Memory,
}

/// What a store is opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Node leases ([`crate::lease::open`]).
    Lease,
    /// Segment ranges ([`crate::segment::open_store`]).
    Segment,
}

/// One scheme of the registry.
#[derive(Debug)]
pub struct Scheme {
    /// The store it names.
    pub store: Store,
    /// The URL beginnings that name it (`local` and `memory:` are whole URLs).
    pub prefixes: &'static [&'static str],
    /// The cargo feature of `idmint-coord` that builds the store, if any.
    pub feature: Option<&'static str>,
    /// Whether this build has that feature.
    pub enabled: bool,
    /// The URL's form as a lease store, for help texts; `None` if it holds no leases.
    pub lease_form: Option<&'static str>,
    /// The URL's form as a segment store, for help texts; `None` if it hands out no ranges.
    pub segment_form: Option<&'static str>,
    /// The error of a build without the feature.
    missing: &'static str,
}

impl Scheme {
    /// Whether the scheme serves `role`.
    pub fn serves(&self, role: Role) -> bool {
        match role {
            Role::Lease => self.lease_form.is_some(),
            Role::Segment => self.segment_form.is_some(),
        }
    }

    /// Whether `url` is of this scheme.
    fn names(&self, url: &str) -> bool {
        self.prefixes.iter().any(|p| match *p {
            "local" => url == "local",
            p => url.starts_with(p),
        })
    }
}

/// One registry row; the error text of a build without the feature is written from its parts.
macro_rules! scheme {
    ($store:ident, $name:literal, $feature:literal, [$($prefix:literal),+], $lease:expr, $segment:expr) => {
        Scheme {
            store: Store::$store,
            prefixes: &[$($prefix),+],
            feature: Some($feature),
            enabled: cfg!(feature = $feature),
            lease_form: $lease,
            segment_form: $segment,
            missing: concat!(
                "this build of idmint has no ", $name,
                " store: idmint-coord was built without its cargo feature `", $feature, "`"
            ),
        }
    };
    ($store:ident, [$($prefix:literal),+], $lease:expr, $segment:expr) => {
        Scheme {
            store: Store::$store,
            prefixes: &[$($prefix),+],
            feature: None,
            enabled: true,
            lease_form: $lease,
            segment_form: $segment,
            missing: "",
        }
    };
}

/// Every scheme, in the order help texts list them.
pub static SCHEMES: &[Scheme] = &[
    scheme!(Local, ["local"], Some("local"), None),
    scheme!(File, ["file:"], Some("file:DIR"), None),
    scheme!(
        Sqlite,
        "SQLite",
        "sqlite",
        ["sqlite:"],
        None,
        Some("sqlite:PATH")
    ),
    scheme!(
        Redis,
        "Redis",
        "redis",
        ["redis://", "rediss://", "redis+unix:"],
        Some("redis://…"),
        Some("redis://…")
    ),
    scheme!(
        Postgres,
        "PostgreSQL",
        "postgres",
        ["postgres://", "postgresql://"],
        Some("postgres://…"),
        Some("postgres://…")
    ),
    scheme!(
        Mysql,
        "MySQL",
        "mysql",
        ["mysql://", "mariadb://"],
        Some("mysql://…"),
        Some("mysql://…")
    ),
    scheme!(
        Etcd,
        "etcd",
        "etcd",
        ["etcd://", "etcds://"],
        Some("etcd://HOST:PORT,…/PREFIX"),
        None
    ),
    scheme!(
        Zookeeper,
        "ZooKeeper",
        "zookeeper",
        ["zk://"],
        Some("zk://HOST:PORT,…/PATH"),
        None
    ),
    scheme!(
        Http,
        "idmint service",
        "http",
        ["idmint+http://", "idmint+https://"],
        None,
        Some("idmint+http://HOST:PORT/")
    ),
    scheme!(Memory, ["memory:"], None, Some("memory:")),
];

/// The scheme `url` is of, whatever it serves; `None` if no store has it.
pub fn scheme_of(url: &str) -> Option<&'static Scheme> {
    SCHEMES.iter().find(|s| s.names(url))
}

/// The scheme of a store `url` opened for `role`: [`Error::InvalidConfig`] when no store of
/// that role has it (the message lists those that do), or when this build lacks its feature
/// (the message names the feature).
pub fn find(url: &str, role: Role) -> Result<&'static Scheme> {
    match scheme_of(url).filter(|s| s.serves(role)) {
        Some(s) if s.enabled => Ok(s),
        Some(s) => Err(Error::InvalidConfig {
            reason: missing_reason(s),
        }),
        None => Err(Error::InvalidConfig {
            reason: match role {
                Role::Lease => unknown(&LEASE_UNKNOWN, "lease store URL must be", Role::Lease),
                Role::Segment => {
                    unknown(&SEGMENT_UNKNOWN, "segment store URL must be", Role::Segment)
                }
            },
        }),
    }
}

/// What a user of this build installs to get the stores it lacks, as the surface words it
/// (`pip install 'idmint[stores]'`); `None` until [`set_install_hint`].
static INSTALL_HINT: OnceLock<&'static str> = OnceLock::new();

/// Tells the registry what a user of this build installs to get a store whose feature it lacks:
/// the error for such a URL then ends with it (`…; install the stores add-on: HINT`). A package
/// built without the stores calls it once when loaded; the first call wins.
pub fn set_install_hint(hint: &'static str) {
    let _ = INSTALL_HINT.set(hint);
}

/// The error text for `scheme`, whose feature this build lacks: the feature, then the hint.
fn missing_reason(scheme: &'static Scheme) -> &'static str {
    static WITH_HINT: OnceLock<Vec<String>> = OnceLock::new();
    let Some(hint) = INSTALL_HINT.get() else {
        return scheme.missing;
    };
    let texts =
        WITH_HINT.get_or_init(|| SCHEMES.iter().map(|s| with_hint(s.missing, hint)).collect());
    SCHEMES
        .iter()
        .position(|s| std::ptr::eq(s, scheme))
        .and_then(|i| texts.get(i))
        .map_or(scheme.missing, String::as_str)
}

/// A missing feature's text followed by what to install.
fn with_hint(missing: &str, hint: &str) -> String {
    format!("{missing}; install the stores add-on: {hint}")
}

static LEASE_UNKNOWN: OnceLock<String> = OnceLock::new();
static SEGMENT_UNKNOWN: OnceLock<String> = OnceLock::new();
static LEASE_FORMS: OnceLock<String> = OnceLock::new();
static SEGMENT_FORMS: OnceLock<String> = OnceLock::new();

fn unknown(cell: &'static OnceLock<String>, lead: &str, role: Role) -> &'static str {
    cell.get_or_init(|| format!("{lead} {}", forms(role, false)))
}

/// The forms of the lease store URLs, for help texts: `local, file:DIR, redis://…, …`.
pub fn lease_forms() -> &'static str {
    LEASE_FORMS.get_or_init(|| forms(Role::Lease, false))
}

/// The forms of the segment store URLs a user names, for help texts: `sqlite:PATH, …`
/// (without the test store `memory:`).
pub fn segment_forms() -> &'static str {
    SEGMENT_FORMS.get_or_init(|| forms(Role::Segment, true))
}

/// The forms of `role`, comma-separated with a final "or"; `users_only` leaves out `memory:`.
fn forms(role: Role, users_only: bool) -> String {
    let list: Vec<&str> = SCHEMES
        .iter()
        .filter(|s| !(users_only && s.store == Store::Memory))
        .filter_map(|s| match role {
            Role::Lease => s.lease_form,
            Role::Segment => s.segment_form,
        })
        .collect();
    match list.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => list.concat(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_prefix_names_one_store() {
        for s in SCHEMES {
            for p in s.prefixes {
                assert_eq!(scheme_of(p).map(|f| f.store), Some(s.store), "{p}");
            }
        }
    }

    #[test]
    fn help_lists_every_store_of_its_role() {
        for s in SCHEMES {
            if let Some(f) = s.lease_form {
                assert!(lease_forms().contains(f), "{f}");
            }
            if let Some(f) = s.segment_form.filter(|_| s.store != Store::Memory) {
                assert!(segment_forms().contains(f), "{f}");
            }
        }
    }

    #[test]
    fn a_scheme_of_the_other_role_is_unknown() {
        for (url, role) in [
            ("sqlite:/x.db", Role::Lease),
            ("etcd://h:1/p", Role::Segment),
            ("memcached://x", Role::Lease),
        ] {
            match find(url, role) {
                Err(Error::InvalidConfig { reason }) => {
                    assert!(reason.contains(" or "), "{reason}")
                }
                other => panic!("{url}: {other:?}"),
            }
        }
    }

    #[test]
    fn the_install_hint_follows_the_feature() {
        let text = with_hint(SCHEMES[3].missing, "pip install 'idmint[stores]'");
        assert!(text.starts_with(SCHEMES[3].missing), "{text}");
        assert!(
            text.ends_with("install the stores add-on: pip install 'idmint[stores]'"),
            "{text}"
        );
    }

    #[test]
    fn a_missing_feature_is_named() {
        for s in SCHEMES {
            let Some(feature) = s.feature else { continue };
            assert!(s.missing.contains(&format!("`{feature}`")), "{}", s.missing);
            let role = if s.serves(Role::Lease) {
                Role::Lease
            } else {
                Role::Segment
            };
            let url = format!("{}x", s.prefixes[0]);
            match find(&url, role) {
                Ok(found) => assert!(s.enabled && found.store == s.store, "{url}"),
                Err(Error::InvalidConfig { reason }) => {
                    assert!(!s.enabled && reason == s.missing, "{url}: {reason}")
                }
                Err(e) => panic!("{url}: {e}"),
            }
        }
    }
}
