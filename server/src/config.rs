//! The service's settings: one set of keys that a TOML file, `IDMINT_*` environment variables
//! and command-line flags all set, in that order of increasing precedence.
//!
//! [`ServeConfig`] is the raw, all-optional form (clap flags with `env`, and the file's
//! `serde` form, from one struct so a key cannot exist in one and not the other);
//! [`Settings::resolve`] applies the defaults and checks everything before anything starts.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use idmint::{Error, Layout, Result};
use idmint_coord::segment::MAX_KEYS;
use serde::Deserialize;

use crate::auth::Tokens;
use crate::client_lease::ClientPolicy;
use crate::edge::{HostPolicy, HostRule};
use crate::lease_token::TokenKey;
use crate::rate::{RateLimit, DEFAULT_PER_SECOND};
use crate::segment_keys::is_valid_key_name;
use crate::ServeError;

/// `--segments`' help: the segment stores come from coord's scheme registry.
fn segments_help() -> String {
    format!(
        "Segment store URL: {} [default: sqlite:DATA_DIR/segments.db]",
        idmint_coord::scheme::segment_forms()
    )
}

/// `--lease`'s help: the lease stores come from coord's scheme registry.
fn lease_help() -> String {
    format!(
        "Where the service's own Snowflake node comes from, and where client node leases are \
         granted: {}, or a fixed source (`static:N`, …; then no client leases) [default: \
         file:DATA_DIR/leases]",
        idmint_coord::scheme::lease_forms()
    )
}

/// Every setting, each optional: a flag (or its `IDMINT_*` variable) wins over the file, the
/// file over the default.
#[derive(Debug, Clone, Default, Args, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServeConfig {
    /// Address to listen on [default: 127.0.0.1:7600].
    #[arg(long, env = "IDMINT_LISTEN", value_name = "ADDR:PORT")]
    pub listen: Option<String>,

    /// Directory for the segment database, its journal and the node lock directory
    /// [default: $XDG_DATA_HOME/idmint/server, else ~/.local/share/idmint/server].
    #[arg(long, env = "IDMINT_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// TOML file with any of these settings (keys as the flags, with `_` for `-`).
    #[arg(long, env = "IDMINT_CONFIG", value_name = "FILE")]
    #[serde(skip)]
    pub config: Option<PathBuf>,

    /// Segment store URL [default: sqlite:DATA_DIR/segments.db].
    #[arg(long, env = "IDMINT_SEGMENTS", value_name = "URL", help = segments_help())]
    pub segments: Option<String>,

    /// Where the service's own Snowflake node comes from, and where client node leases are
    /// granted [default: file:DATA_DIR/leases].
    #[arg(long, env = "IDMINT_LEASE", value_name = "URL", help = lease_help())]
    pub lease: Option<String>,

    /// Segment keys served (Leaf's pre-registered `biz_tag`s), comma-separated.
    #[arg(
        long,
        env = "IDMINT_KEYS",
        value_name = "K1,K2,…",
        value_delimiter = ','
    )]
    pub keys: Option<Vec<String>>,

    /// Create segment keys on first use, by GET or ranges [default: on only for a loopback
    /// listener without --keys].
    #[arg(long, env = "IDMINT_AUTO_KEYS", value_name = "BOOL", num_args = 0..=1,
          default_missing_value = "true")]
    pub auto_keys: Option<bool>,

    /// Most keys auto-keys may create, counting those created by earlier runs on the same
    /// data directory [default: 100000].
    #[arg(long, env = "IDMINT_MAX_AUTO_KEYS", value_name = "N")]
    pub max_auto_keys: Option<usize>,

    /// Most segment keys with their own metrics series (the pre-registered ones first, then
    /// in order of first use); the rest are summed under `key="other"` [default: 100].
    #[arg(long, env = "IDMINT_METRICS_MAX_KEYS", value_name = "N")]
    pub metrics_max_keys: Option<usize>,

    /// Layout of the service's Snowflake IDs: a preset or a spec [default: leaf].
    #[arg(long, env = "IDMINT_LAYOUT", value_name = "LAYOUT")]
    pub layout: Option<String>,

    /// Lease namespace of the service's own node; never open to clients [default: default].
    #[arg(long, env = "IDMINT_LEASE_NAMESPACE", value_name = "NAME")]
    pub lease_namespace: Option<String>,

    /// The key that signs client lease tokens, as `@PATH` or `@env:NAME` (at least 32 bytes;
    /// give every instance sharing a lease store the same one) [default: a key generated
    /// into DATA_DIR/lease.key].
    #[arg(long, env = "IDMINT_LEASE_KEY", value_name = "@PATH|@env:NAME")]
    pub lease_key: Option<String>,

    /// Namespaces open to client leases, comma-separated; the first is the default of a
    /// request that names none. The service's own namespace is never one [default: clients].
    #[arg(
        long,
        env = "IDMINT_CLIENT_NAMESPACES",
        value_name = "NS1,NS2,…",
        value_delimiter = ','
    )]
    pub client_namespaces: Option<Vec<String>>,

    /// Layouts clients may lease nodes of (presets or specs), comma-separated; the first is
    /// the default [default: js53].
    #[arg(
        long,
        env = "IDMINT_CLIENT_LAYOUTS",
        value_name = "L1,L2,…",
        value_delimiter = ','
    )]
    pub client_layouts: Option<Vec<String>>,

    /// Most client leases one peer address holds at once; 0 for no limit [default: 4].
    #[arg(long, env = "IDMINT_CLIENT_LEASES_PER_ADDRESS", value_name = "N")]
    pub client_leases_per_address: Option<usize>,

    /// Most client leases one bearer token holds at once; 0 for no limit [default: 0].
    #[arg(long, env = "IDMINT_CLIENT_LEASES_PER_TOKEN", value_name = "N")]
    pub client_leases_per_token: Option<usize>,

    /// TTL of the service's own node lease, ms [default: 10000].
    #[arg(long, env = "IDMINT_LEASE_TTL_MS", value_name = "MS")]
    pub lease_ttl_ms: Option<u64>,

    /// Most IDs one request may ask for [default: 100000].
    #[arg(long, env = "IDMINT_MAX_COUNT", value_name = "N")]
    pub max_count: Option<u64>,

    /// Largest range one `ranges` request may take [default: 1000000].
    #[arg(long, env = "IDMINT_MAX_RANGE", value_name = "N")]
    pub max_range: Option<u64>,

    /// Bearer tokens and their scopes, from a file (`@PATH`) or an environment variable
    /// (`@env:NAME`), never as text: lines `NAME TOKEN SCOPE,SCOPE` (newline or `;`
    /// separated, `#` comments; scopes read, mint, lease, range, admin, all) [default: none:
    /// every request anonymous, refused on a non-loopback --listen without --allow-anonymous].
    #[arg(long, env = "IDMINT_TOKENS", value_name = "@PATH|@env:NAME")]
    pub tokens: Option<String>,

    /// The token file (same as `--tokens @PATH`).
    #[arg(long, env = "IDMINT_TOKENS_FILE", value_name = "PATH")]
    pub tokens_file: Option<PathBuf>,

    /// Serve without tokens on a non-loopback address: anyone who reaches it may take IDs,
    /// ranges and leases [default: false].
    #[arg(long, env = "IDMINT_ALLOW_ANONYMOUS", value_name = "BOOL", num_args = 0..=1,
          default_missing_value = "true")]
    pub allow_anonymous: Option<bool>,

    /// Browser origins allowed to call the service (CORS), comma-separated, such as
    /// `https://app.example.com`, or `*` for any [default: none: no CORS headers].
    #[arg(
        long,
        env = "IDMINT_CORS_ORIGINS",
        value_name = "ORIGINS",
        value_delimiter = ','
    )]
    pub cors_origins: Option<Vec<String>>,

    /// `Host` values answered, comma-separated, each a name or address with an optional
    /// `:port` [default: on a loopback --listen, loopback names only (localhost, 127.0.0.1,
    /// `[::1]`, any port); else any].
    #[arg(
        long,
        env = "IDMINT_ALLOWED_HOSTS",
        value_name = "H1,H2,…",
        value_delimiter = ','
    )]
    pub allowed_hosts: Option<Vec<String>>,

    /// Requests allowed per peer address and per token: `N/s`, `N/min` or `off`; over it,
    /// 429 [default: 100000/s].
    #[arg(long, env = "IDMINT_RATE_LIMIT", value_name = "N/s|N/min|off")]
    pub rate_limit: Option<String>,

    /// Most requests at once above the rate, after a quiet spell [default: N of the rate].
    #[arg(long, env = "IDMINT_RATE_BURST", value_name = "N")]
    pub rate_burst: Option<u32>,

    /// Longest a request may take, ms [default: 10000].
    #[arg(long, env = "IDMINT_REQUEST_TIMEOUT_MS", value_name = "MS")]
    pub request_timeout_ms: Option<u64>,

    /// Longest a client may take to send a request's headers, ms [default: 5000].
    #[arg(long, env = "IDMINT_HEADER_TIMEOUT_MS", value_name = "MS")]
    pub header_timeout_ms: Option<u64>,

    /// Most open connections; further ones wait to be accepted [default: 1024].
    #[arg(long, env = "IDMINT_MAX_CONNECTIONS", value_name = "N")]
    pub max_connections: Option<usize>,

    /// Longest a write to a client may wait for it to read, ms: a client that stops reading
    /// its answer loses the connection (and the answer's buffer) [default: 10000].
    #[arg(long, env = "IDMINT_WRITE_TIMEOUT_MS", value_name = "MS")]
    pub write_timeout_ms: Option<u64>,

    /// How long a connection may wait between requests without a byte either way before it
    /// is closed, ms (the header deadline also runs meanwhile: the shorter one wins)
    /// [default: 60000].
    #[arg(long, env = "IDMINT_IDLE_TIMEOUT_MS", value_name = "MS")]
    pub idle_timeout_ms: Option<u64>,

    /// Most open connections from one IP address; one more is answered 429 and closed
    /// [default: 64].
    #[arg(long, env = "IDMINT_MAX_CONNECTIONS_PER_IP", value_name = "N")]
    pub max_connections_per_ip: Option<usize>,

    /// Serve HTTPS with this certificate chain (PEM, the server's certificate first); needs
    /// --tls-key. Reloaded with the key on SIGHUP.
    #[arg(long, env = "IDMINT_TLS_CERT", value_name = "PATH")]
    pub tls_cert: Option<PathBuf>,

    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, env = "IDMINT_TLS_KEY", value_name = "PATH")]
    pub tls_key: Option<PathBuf>,

    /// Largest request body, bytes [default: 16384].
    #[arg(long, env = "IDMINT_MAX_BODY_BYTES", value_name = "BYTES")]
    pub max_body_bytes: Option<usize>,

    /// Largest request head (request line and headers), bytes [default: 16384].
    #[arg(long, env = "IDMINT_MAX_HEADER_BYTES", value_name = "BYTES")]
    pub max_header_bytes: Option<usize>,

    /// On SIGTERM/SIGINT, report unready this long before closing the listener, so a load
    /// balancer stops sending first, ms [default: 0].
    #[arg(long, env = "IDMINT_DRAIN_MS", value_name = "MS")]
    pub drain_ms: Option<u64>,

    /// Log filter (`info`, `idmint_server=debug`, …) [default: info].
    #[arg(long, env = "IDMINT_LOG", value_name = "FILTER")]
    pub log: Option<String>,
}

macro_rules! merge_fields {
    ($hi:ident, $lo:ident, $($f:ident),*) => {
        ServeConfig { config: $hi.config, $($f: $hi.$f.or($lo.$f)),* }
    };
}

impl ServeConfig {
    /// These settings, with unset ones taken from `lower` (a file's).
    pub fn or(self, lower: ServeConfig) -> ServeConfig {
        let hi = self;
        let lo = lower;
        merge_fields!(
            hi,
            lo,
            listen,
            data_dir,
            segments,
            lease,
            keys,
            auto_keys,
            max_auto_keys,
            metrics_max_keys,
            layout,
            lease_namespace,
            lease_key,
            client_namespaces,
            client_layouts,
            client_leases_per_address,
            client_leases_per_token,
            lease_ttl_ms,
            max_count,
            max_range,
            tokens,
            tokens_file,
            allow_anonymous,
            cors_origins,
            allowed_hosts,
            rate_limit,
            rate_burst,
            request_timeout_ms,
            header_timeout_ms,
            max_connections,
            write_timeout_ms,
            idle_timeout_ms,
            max_connections_per_ip,
            tls_cert,
            tls_key,
            max_body_bytes,
            max_header_bytes,
            drain_ms,
            log
        )
    }

    /// Reads a TOML settings file.
    pub fn from_file(path: &Path) -> std::result::Result<ServeConfig, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read config {}: {e}", path.display()))?;
        toml::from_str(&text).map_err(|e| format!("config {}: {e}", path.display()))
    }

    /// The flags merged over the file they name (if any).
    pub fn with_file(self) -> std::result::Result<ServeConfig, String> {
        match self.config.clone() {
            Some(path) => Ok(self.or(ServeConfig::from_file(&path)?)),
            None => Ok(self),
        }
    }
}

/// The settings in force, defaults applied and checked.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Listening address.
    pub listen: SocketAddr,
    /// Data directory (created if missing).
    pub data_dir: PathBuf,
    /// Segment store URL.
    pub segments: String,
    /// The segment journal (in the data directory).
    pub journal: PathBuf,
    /// Node source / lease store URL.
    pub lease: String,
    /// Pre-registered segment keys.
    pub keys: Vec<String>,
    /// Whether unknown keys are created on first use.
    pub auto_keys: bool,
    /// Most auto-created keys (with those of earlier runs on the data directory).
    pub max_auto_keys: usize,
    /// Most segment keys with their own metrics series.
    pub metrics_max_keys: usize,
    /// The layout of Snowflake IDs.
    pub layout: Layout,
    /// The service's lease namespace.
    pub lease_namespace: String,
    /// The key that signs client lease tokens, read from `--lease-key`; `None`: the data
    /// directory's generated key. Its `Debug` shows nothing of it.
    pub lease_key: Option<TokenKey>,
    /// What clients may lease.
    pub clients: ClientPolicy,
    /// TTL of the service's own lease.
    pub lease_ttl: Duration,
    /// Most IDs per request.
    pub max_count: u64,
    /// Largest range per request.
    pub max_range: u64,
    /// Bearer tokens and their scopes (none: every request anonymous). `Debug` shows names
    /// and scopes only.
    pub tokens: Tokens,
    /// CORS origins (`*` for any; none: no CORS).
    pub cors_origins: Vec<String>,
    /// The `Host` values answered.
    pub allowed_hosts: HostPolicy,
    /// Each address's and each token's request rate (`None`: unlimited).
    pub rate_limit: Option<RateLimit>,
    /// Request deadline.
    pub request_timeout: Duration,
    /// Header read deadline.
    pub header_timeout: Duration,
    /// Most open connections.
    pub max_connections: usize,
    /// Longest a write may wait for the client to read.
    pub write_timeout: Duration,
    /// Longest silence between requests.
    pub idle_timeout: Duration,
    /// Most open connections from one IP address.
    pub max_connections_per_ip: usize,
    /// HTTPS: the certificate chain and key files; `None` serves plain HTTP.
    pub tls: Option<TlsFiles>,
    /// Largest request body.
    pub max_body_bytes: usize,
    /// Largest request head.
    pub max_header_bytes: usize,
    /// Unready period before closing on a signal.
    pub drain: Duration,
    /// Log filter.
    pub log: String,
}

/// The PEM files HTTPS is served with (read at start and on every SIGHUP).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, the server's certificate first.
    pub cert: PathBuf,
    /// Its private key.
    pub key: PathBuf,
}

fn invalid(reason: &'static str) -> Error {
    Error::InvalidConfig { reason }
}

/// The per-user default data directory.
pub fn default_data_dir() -> Result<PathBuf> {
    let base = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
            Some(h) => PathBuf::from(h).join(".local/share"),
            None => {
                return Err(invalid(
                    "no data directory: set --data-dir (neither XDG_DATA_HOME nor HOME is set)",
                ))
            }
        },
    };
    Ok(base.join("idmint").join("server"))
}

/// The client-lease allowlists and quotas, checked: namespaces valid and never the service's
/// own, layouts parsed.
fn client_policy(c: &ServeConfig, own_namespace: &str) -> Result<ClientPolicy> {
    let list = |v: &Option<Vec<String>>, default: &str| -> Vec<String> {
        let v: Vec<String> = v
            .iter()
            .flatten()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect();
        if v.is_empty() {
            vec![default.to_owned()]
        } else {
            v
        }
    };
    let namespaces = list(&c.client_namespaces, "clients");
    for ns in &namespaces {
        idmint_coord::lease::LeaseSpec::new(ns, 1, Duration::from_secs(1)).validate()?;
        if ns == own_namespace {
            return Err(invalid(
                "client_namespaces may not hold the service's own lease_namespace: clients would take the service's nodes",
            ));
        }
    }
    let layouts = list(&c.client_layouts, "js53")
        .iter()
        .map(|l| Layout::parse(l))
        .collect::<Result<Vec<_>>>()?;
    Ok(ClientPolicy {
        namespaces,
        layouts,
        per_address: c.client_leases_per_address.unwrap_or(4),
        per_token: c.client_leases_per_token.unwrap_or(0),
    })
}

impl Settings {
    /// Applies defaults and checks every value, reads the tokens, and refuses what would be
    /// unsafe on a network (no tokens on a non-loopback address without `allow_anonymous`).
    pub fn resolve(c: ServeConfig) -> std::result::Result<Settings, ServeError> {
        let clients = client_policy(&c, c.lease_namespace.as_deref().unwrap_or("default"))?;
        let listen: SocketAddr = c
            .listen
            .as_deref()
            .unwrap_or("127.0.0.1:7600")
            .parse()
            .map_err(|_| invalid("listen must be ADDR:PORT, such as 127.0.0.1:7600"))?;
        let data_dir = match c.data_dir {
            Some(d) => d,
            None => default_data_dir()?,
        };
        let segments = c
            .segments
            .unwrap_or_else(|| format!("sqlite:{}", data_dir.join("segments.db").display()));
        let lease = c
            .lease
            .unwrap_or_else(|| format!("file:{}", data_dir.join("leases").display()));
        let keys: Vec<String> = c
            .keys
            .unwrap_or_default()
            .into_iter()
            .map(|k| k.trim().to_owned())
            .filter(|k| !k.is_empty())
            .collect();
        if !keys.iter().all(|k| is_valid_key_name(k)) {
            return Err(invalid(
                "segment keys are 1 to 128 characters of A-Z a-z 0-9 . _ : - ([A-Za-z0-9._:-]{1,128})",
            )
            .into());
        }
        if keys.len() > MAX_KEYS {
            return Err(Error::LimitExceeded {
                what: "pre-registered segment keys",
                limit: MAX_KEYS as u64,
            }
            .into());
        }
        // A GET that creates a key writes to the store: any web page a browser on the network
        // opens could do it. Only a service reachable from this machine alone does it by
        // default.
        let auto_keys = c
            .auto_keys
            .unwrap_or(keys.is_empty() && listen.ip().is_loopback());
        let max_auto_keys = c.max_auto_keys.unwrap_or(MAX_KEYS);
        if max_auto_keys > MAX_KEYS {
            return Err(Error::LimitExceeded {
                what: "max_auto_keys",
                limit: MAX_KEYS as u64,
            }
            .into());
        }
        let metrics_max_keys = c.metrics_max_keys.unwrap_or(100);
        if metrics_max_keys > 10_000 {
            return Err(Error::LimitExceeded {
                what: "metrics_max_keys",
                limit: 10_000,
            }
            .into());
        }
        let layout = Layout::parse(c.layout.as_deref().unwrap_or("leaf"))?;
        let lease_namespace = c.lease_namespace.unwrap_or_else(|| "default".into());
        let lease_key = match &c.lease_key {
            Some(spec) => {
                let bytes = crate::secret::read(spec, "--lease-key")
                    .map_err(|e| ServeError::Config(e.to_string()))?;
                Some(TokenKey::new(bytes.trim_ascii())?)
            }
            None => None,
        };
        let ms = |v: Option<u64>, d: u64, what: &'static str| -> Result<Duration> {
            match v.unwrap_or(d) {
                0 => Err(invalid(what)),
                n => Ok(Duration::from_millis(n)),
            }
        };
        let lease_ttl = ms(c.lease_ttl_ms, 10_000, "lease_ttl_ms must be at least 1")?;
        let max_count = c.max_count.unwrap_or(100_000);
        let max_range = c.max_range.unwrap_or(1_000_000);
        if max_count == 0 || max_range == 0 {
            return Err(invalid("max_count and max_range must be at least 1").into());
        }
        if max_count > 10_000_000 {
            return Err(Error::LimitExceeded {
                what: "max_count",
                limit: 10_000_000,
            }
            .into());
        }
        let tokens = load_tokens(c.tokens.as_deref(), c.tokens_file.as_deref())?;
        if tokens.is_empty() && !listen.ip().is_loopback() && c.allow_anonymous != Some(true) {
            return Err(ServeError::Config(format!(
                "refusing to serve {listen} without tokens: anyone who reaches it could take \
                 IDs, ranges and leases. Give tokens (--tokens-file PATH or --tokens \
                 @env:NAME), or accept that with --allow-anonymous"
            )));
        }
        let cors_origins = c.cors_origins.unwrap_or_default();
        if let Some(bad) = cors_origins.iter().find(|o| !origin_ok(o)) {
            return Err(ServeError::Config(format!(
                "cors_origins: {bad:?} is not an origin: give scheme://host[:port] (such as \
                 https://app.example.com) or *"
            )));
        }
        let allowed_hosts = match c.allowed_hosts {
            Some(list) if !list.is_empty() => HostPolicy::List(
                list.iter()
                    .map(|h| HostRule::parse(h))
                    .collect::<std::result::Result<_, _>>()
                    .map_err(invalid)?,
            ),
            _ if listen.ip().is_loopback() => HostPolicy::Loopback,
            _ => HostPolicy::Any,
        };
        let rate_limit = RateLimit::parse(
            c.rate_limit
                .as_deref()
                .unwrap_or(&format!("{DEFAULT_PER_SECOND}/s")),
            c.rate_burst,
        )
        .map_err(invalid)?;
        let tls = match (c.tls_cert, c.tls_key) {
            (Some(cert), Some(key)) => Some(TlsFiles { cert, key }),
            (None, None) => None,
            _ => {
                return Err(invalid(
                    "tls_cert and tls_key go together: give both (HTTPS) or neither (HTTP)",
                )
                .into())
            }
        };
        Ok(Settings {
            listen,
            journal: data_dir.join("segments.journal"),
            data_dir,
            segments,
            lease,
            keys,
            auto_keys,
            max_auto_keys,
            metrics_max_keys,
            layout,
            lease_namespace,
            lease_key,
            clients,
            lease_ttl,
            max_count,
            max_range,
            tokens,
            cors_origins,
            allowed_hosts,
            rate_limit,
            request_timeout: ms(
                c.request_timeout_ms,
                10_000,
                "request_timeout_ms must be at least 1",
            )?,
            header_timeout: ms(
                c.header_timeout_ms,
                5_000,
                "header_timeout_ms must be at least 1",
            )?,
            max_connections: c.max_connections.unwrap_or(1024).max(1),
            write_timeout: ms(
                c.write_timeout_ms,
                10_000,
                "write_timeout_ms must be at least 1",
            )?,
            idle_timeout: ms(
                c.idle_timeout_ms,
                60_000,
                "idle_timeout_ms must be at least 1",
            )?,
            max_connections_per_ip: c.max_connections_per_ip.unwrap_or(64).max(1),
            tls,
            max_body_bytes: c.max_body_bytes.unwrap_or(16 * 1024),
            max_header_bytes: c.max_header_bytes.unwrap_or(16 * 1024).max(8192),
            drain: Duration::from_millis(c.drain_ms.unwrap_or(0)),
            log: c.log.unwrap_or_else(|| "info".into()),
        })
    }
}

/// The tokens from `--tokens @…` or `--tokens-file` (not both); none when neither is given.
fn load_tokens(spec: Option<&str>, file: Option<&Path>) -> std::result::Result<Tokens, ServeError> {
    let (spec, what) = match (spec, file) {
        (None, None) => return Ok(Tokens::default()),
        (Some(_), Some(_)) => {
            return Err(ServeError::Config(
                "give --tokens or --tokens-file, not both".into(),
            ))
        }
        (Some(s), None) => (s.to_owned(), "--tokens"),
        (None, Some(p)) => (format!("@{}", p.display()), "--tokens-file"),
    };
    let text = crate::secret::read(&spec, what).map_err(|e| ServeError::Config(e.to_string()))?;
    // The source is a path or a variable name here, never the secret (read refused those).
    Tokens::parse(&text, spec.trim_start_matches('@')).map_err(ServeError::Config)
}

/// Whether `o` is `*` or an origin: `scheme://host[:port]`, nothing after.
fn origin_ok(o: &str) -> bool {
    if o == "*" {
        return true;
    }
    let Some((scheme, rest)) = o.split_once("://") else {
        return false;
    };
    !scheme.is_empty()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-')
        && !rest.is_empty()
        && !rest.contains(['/', '?', '#', '@', ' '])
        && axum::http::HeaderValue::from_str(o).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_win_over_the_file_and_defaults_fill_the_rest() {
        let file: ServeConfig =
            toml::from_str("listen = \"127.0.0.1:9000\"\nkeys = [\"a\", \"b\"]\nmax_count = 5\n")
                .unwrap();
        let flags = ServeConfig {
            max_count: Some(7),
            data_dir: Some("/tmp/x".into()),
            ..ServeConfig::default()
        };
        let s = Settings::resolve(flags.or(file)).unwrap();
        assert_eq!(s.listen.to_string(), "127.0.0.1:9000");
        assert_eq!(s.max_count, 7);
        assert_eq!(s.keys, ["a", "b"]);
        assert!(
            !s.auto_keys,
            "pre-registered keys turn auto-keys off by default"
        );
        assert_eq!(s.segments, "sqlite:/tmp/x/segments.db");
        assert_eq!(s.lease, "file:/tmp/x/leases");
        assert_eq!(s.layout.preset_name(), Some("leaf"));
    }

    #[test]
    fn flags_win_over_the_environment_and_the_environment_over_the_file() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            c: ServeConfig,
        }
        let file: ServeConfig = toml::from_str("max_range = 5\nlayout = \"twitter\"").unwrap();
        std::env::set_var("IDMINT_MAX_RANGE", "9");
        let env_only = Cli::parse_from(["t"]).c.or(file.clone());
        let flag = Cli::parse_from(["t", "--max-range", "3"]).c.or(file);
        std::env::remove_var("IDMINT_MAX_RANGE");
        assert_eq!(env_only.max_range, Some(9));
        assert_eq!(
            env_only.layout.as_deref(),
            Some("twitter"),
            "the file fills the rest"
        );
        assert_eq!(flag.max_range, Some(3));
    }

    #[test]
    fn unknown_file_keys_and_bad_values_are_refused() {
        assert!(toml::from_str::<ServeConfig>("listn = \"x\"").is_err());
        let bad = |c: ServeConfig| Settings::resolve(c).unwrap_err().to_string();
        let base = ServeConfig {
            data_dir: Some("/tmp/x".into()),
            ..ServeConfig::default()
        };
        assert!(bad(ServeConfig {
            listen: Some("nowhere".into()),
            ..base.clone()
        })
        .contains("ADDR:PORT"));
        assert!(bad(ServeConfig {
            layout: Some("twiter".into()),
            ..base.clone()
        })
        .contains("unknown preset"));
        assert!(bad(ServeConfig {
            rate_limit: Some("lots".into()),
            ..base.clone()
        })
        .contains("rate_limit"));
        assert!(bad(ServeConfig {
            cors_origins: Some(vec!["example.com".into()]),
            ..base.clone()
        })
        .contains("not an origin"));
        assert!(bad(ServeConfig {
            allowed_hosts: Some(vec!["a b".into()]),
            ..base.clone()
        })
        .contains("allowed_hosts"));
        assert!(bad(ServeConfig {
            max_count: Some(0),
            ..base.clone()
        })
        .contains("at least 1"));
        assert!(bad(ServeConfig {
            write_timeout_ms: Some(0),
            ..base.clone()
        })
        .contains("write_timeout_ms"));
        assert!(bad(ServeConfig {
            tls_cert: Some("/tmp/x/cert.pem".into()),
            ..base
        })
        .contains("tls_key"));
    }

    #[test]
    fn auto_keys_default_to_off_beyond_loopback_and_bad_keys_are_refused() {
        let at = |listen: &str, keys: Option<Vec<String>>| {
            Settings::resolve(ServeConfig {
                listen: Some(listen.into()),
                data_dir: Some("/tmp/x".into()),
                keys,
                allow_anonymous: Some(true),
                ..ServeConfig::default()
            })
        };
        assert!(at("127.0.0.1:7600", None).unwrap().auto_keys);
        assert!(at("[::1]:7600", None).unwrap().auto_keys);
        assert!(!at("0.0.0.0:7600", None).unwrap().auto_keys);
        assert!(
            !at("127.0.0.1:7600", Some(vec!["a".into()]))
                .unwrap()
                .auto_keys
        );
        let s = at("127.0.0.1:7600", None).unwrap();
        assert_eq!((s.max_auto_keys, s.metrics_max_keys), (100_000, 100));
        for bad in ["a\"b", "a}b", "a\nb", &"x".repeat(129)] {
            let e = at("127.0.0.1:7600", Some(vec!["ok".into(), bad.into()])).unwrap_err();
            assert!(e.to_string().contains("[A-Za-z0-9._:-]{1,128}"), "{e}");
        }
    }
}
