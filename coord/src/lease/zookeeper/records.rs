//! The ZooKeeper store's records: `key=value` words in znodes (the epoch, a node's bound),
//! holder identities as znode names, the namespace's paths, and the URL's parts checked.

use idmint::{Error, Result};
use zookeeper_client::Stat;

use super::session::{Fail, Step};

/// The longest `identity=` (or holder name used as the identity), in bytes.
pub(super) const MAX_IDENTITY: usize = 128;

// ---------------------------------------------------------------------------------------------
// Records: `key=value` words, ASCII.

/// The value of `key` in a record, if the record is text and has it.
pub(super) fn field<'a>(data: &'a [u8], key: &str) -> Option<&'a str> {
    let text = std::str::from_utf8(data).ok()?;
    text.split(' ')
        .filter_map(|w| w.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

pub(super) fn num_field(data: &[u8], key: &str) -> Step<u64> {
    field(data, key)
        .and_then(|v| v.parse().ok())
        .ok_or(Fail::Corrupt)
}

pub(super) fn hex_field(data: &[u8], key: &str) -> Step<u64> {
    field(data, key)
        .and_then(|v| u64::from_str_radix(v, 16).ok())
        .ok_or(Fail::Corrupt)
}

/// A number that may be `-` (none).
pub(super) fn opt_field(data: &[u8], key: &str, radix: u32) -> Step<Option<u64>> {
    match field(data, key) {
        Some("-") => Ok(None),
        Some(v) => u64::from_str_radix(v, radix)
            .map(Some)
            .map_err(|_| Fail::Corrupt),
        None => Err(Fail::Corrupt),
    }
}

pub(super) fn opt_text(v: Option<u64>, hex: bool) -> String {
    match v {
        None => "-".to_string(),
        Some(v) if hex => format!("{v:x}"),
        Some(v) => v.to_string(),
    }
}

/// The namespace's epoch znode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Epoch {
    /// Random, nonzero: [`Lease::epoch`].
    pub(super) value: u64,
    /// The longest horizon asked for in the namespace, ms.
    pub(super) horizon: u64,
    /// When the epoch began (the acquirer's clock).
    pub(super) lost_at: u64,
    /// The lock delay: no grant of this epoch mints at or before it.
    pub(super) fence: u64,
    /// The znode's data version.
    pub(super) version: i32,
}

impl Epoch {
    pub(super) fn parse(data: &[u8], stat: &Stat) -> Step<Epoch> {
        let value = hex_field(data, "epoch")?;
        if value == 0 {
            return Err(Fail::Corrupt);
        }
        Ok(Epoch {
            value,
            horizon: num_field(data, "horizon")?,
            lost_at: num_field(data, "lost_at")?,
            fence: num_field(data, "fence")?,
            version: stat.version,
        })
    }

    pub(super) fn data(&self) -> String {
        format!(
            "epoch={:x} horizon={} lost_at={} fence={}",
            self.value, self.horizon, self.lost_at, self.fence
        )
    }
}

/// A node's persistent record `node/N`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NodeRecord {
    /// The last-issued bound, ms (`None` before the first renewal).
    pub(super) bound: Option<u64>,
    /// The owner nonce of the latest grant, `None` once released.
    pub(super) owner: Option<u64>,
    pub(super) version: i32,
    /// The zxid of its last write: its place in the queue when free.
    pub(super) mzxid: i64,
}

impl NodeRecord {
    pub(super) fn parse(data: &[u8], stat: &Stat) -> Step<NodeRecord> {
        Ok(NodeRecord {
            bound: opt_field(data, "bound", 10)?,
            owner: opt_field(data, "owner", 16)?,
            version: stat.version,
            mzxid: stat.mzxid,
        })
    }
}

pub(super) fn record_data(
    bound: Option<u64>,
    owner: Option<u64>,
    holder: &str,
    identity: &str,
) -> String {
    format!(
        "bound={} owner={} holder={holder} identity={identity}",
        opt_text(bound, false),
        opt_text(owner, true)
    )
}

/// Rewrites a record's `bound` and `owner`, keeping its other words.
pub(super) fn rewrite(data: &[u8], bound: Option<u64>, owner: Option<u64>) -> String {
    let text = std::str::from_utf8(data).unwrap_or("");
    let rest: Vec<&str> = text
        .split(' ')
        .filter(|w| !w.is_empty() && !w.starts_with("bound=") && !w.starts_with("owner="))
        .collect();
    let mut out = format!(
        "bound={} owner={}",
        opt_text(bound, false),
        opt_text(owner, true)
    );
    for w in rest {
        out.push(' ');
        out.push_str(w);
    }
    out
}

/// An identity as a znode name: bytes outside `[A-Za-z0-9_.:@-]` become `%XX`.
pub(super) fn encode_identity(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'@' | b'-') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out == "." || out == ".." {
        out = out.replace('.', "%2E");
    }
    out
}

/// The sequence number of `name` if it is an entry of `identity` (`IDENTITY-0000000007`).
pub(super) fn entry_sequence(name: &str, identity: &str) -> Option<u64> {
    let digits = name.strip_prefix(identity)?.strip_prefix('-')?;
    if digits.len() < 10 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

pub(super) fn check_identity(id: &str) -> Result<()> {
    if id.is_empty()
        || id.len() > MAX_IDENTITY
        || id.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(Error::InvalidConfig {
            reason: "a ZooKeeper lease identity must be 1 to 128 bytes without spaces or control characters",
        });
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// URL

/// A znode path: `/a/b`, segments of printable ASCII other than `/`, not `.` or `..`, and not
/// under ZooKeeper's own `/zookeeper`.
pub(super) fn check_root(path: &str) -> Result<()> {
    let bad = Error::InvalidConfig {
        reason: "zk:// URL path must be a znode path such as /idmint (no empty, `.` or `..` segments, not under /zookeeper)",
    };
    let Some(rest) = path.strip_prefix('/') else {
        return Err(bad);
    };
    let mut segments = rest.split('/');
    if segments.clone().next() == Some("zookeeper") {
        return Err(bad);
    }
    if segments
        .any(|s| s.is_empty() || s == "." || s == ".." || !s.bytes().all(|b| b.is_ascii_graphic()))
    {
        return Err(bad);
    }
    Ok(())
}

/// `HOST:PORT`, with a bracketed IPv6 host allowed.
pub(super) fn check_host(hp: &str) -> Result<()> {
    let bad = Error::InvalidConfig {
        reason: "zk:// URL hosts must be HOST:PORT[,HOST:PORT...] with ports 1 to 65535",
    };
    let (host, port) = hp.rsplit_once(':').ok_or(bad)?;
    let port_ok = !port.is_empty()
        && port.bytes().all(|b| b.is_ascii_digit())
        && port.parse::<u16>().is_ok_and(|p| p != 0);
    let host_ok = if let Some(inner) = host.strip_prefix('[') {
        inner.strip_suffix(']').is_some_and(|h| !h.is_empty())
    } else {
        !host.is_empty()
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
    };
    if port_ok && host_ok {
        Ok(())
    } else {
        Err(bad)
    }
}

/// The namespace's znodes.
pub(super) struct Paths {
    pub(super) epoch: String,
    pub(super) forever: String,
    pub(super) held: String,
    pub(super) node: String,
}

impl Paths {
    pub(super) fn new(root: &str, ns: &str) -> Paths {
        Paths {
            epoch: format!("{root}/{ns}/epoch"),
            forever: format!("{root}/{ns}/forever"),
            held: format!("{root}/{ns}/held"),
            node: format!("{root}/{ns}/node"),
        }
    }

    pub(super) fn held(&self, n: u64) -> String {
        format!("{}/{n}", self.held)
    }

    pub(super) fn node(&self, n: u64) -> String {
        format!("{}/{n}", self.node)
    }
}
