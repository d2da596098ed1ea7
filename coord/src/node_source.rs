//! Where a generator's node value comes from, behind one interface and one text form, so the
//! CLI, the bindings and config files can all say `--node static:5` or `--node redis://...`.
//!
//! | text | source | notes |
//! |---|---|---|
//! | `static:N` (or just `N`) | a fixed value | for hand-assigned nodes |
//! | `env:NAME` | the decimal value of environment variable `NAME` | set per pod/instance by the orchestrator |
//! | `ip` / `ip:A.B.C.D` | the low node bits of the host's private IPv4 address (Sonyflake) | unique only while no two hosts share those bits |
//! | `random` | OS randomness over the node space | collisions become likely near √(node space) generators (birthday bound) |
//! | `local` | a lease from the per-user local lock directory ([`crate::lease::local`]) | distinct nodes for every process of the host; the CLI's default |
//! | a lease store URL ([`crate::scheme::lease_forms`]: `file:DIR`, `redis://...`, …) | a lease from a store ([`crate::lease`]) | the only sources that *guarantee* distinct nodes, and carry a time fence |
//! | `@env:NAME`, `@PATH` | the source text from an environment variable or a file ([`crate::url_ref`]) | keeps passwords in store URLs off the command line |
//!
//! A value is checked against the layout's node field and rejected when it does not fit
//! ([`Error::OutOfRange`]) — never truncated or wrapped. Only the IP source takes *low bits*
//! by design (Sonyflake's machine id is the address's low 16 bits).

use std::net::Ipv4Addr;
use std::sync::OnceLock;

use idmint::{Error, Layout, Result};

use crate::scheme::Role;

/// One node source; see the [module docs](self).
///
/// # Examples
/// ```
/// use idmint::Layout;
/// use idmint_coord::node_source::NodeSource;
/// let twitter = Layout::preset("twitter")?; // 10 node bits
/// assert_eq!(NodeSource::parse("static:5")?.resolve(&twitter)?, 5);
/// assert_eq!(NodeSource::parse("ip:10.0.3.7")?.resolve(&twitter)?, (3 << 8 | 7) & 1023);
/// assert!(NodeSource::parse("static:1024")?.resolve(&twitter).is_err());
/// assert!(NodeSource::parse("redis://127.0.0.1/")?.is_leased());
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeSource {
    /// A fixed node value.
    Static(u64),
    /// The decimal value of this environment variable.
    Env(String),
    /// The low node bits of this IPv4 address, or of the host's first private one (`None`).
    Ip(Option<Ipv4Addr>),
    /// A random value over the node space.
    Random,
    /// A lease store URL; see [`crate::lease::open`].
    Leased(String),
}

fn invalid(reason: &'static str) -> Error {
    Error::InvalidConfig { reason }
}

fn parse_decimal(s: &str, reason: &'static str) -> Result<u64> {
    let s = s.trim();
    if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
        return Err(invalid(reason));
    }
    s.parse().map_err(|_| invalid(reason))
}

impl NodeSource {
    /// Parses the text form (see the [module docs](self)).
    pub fn parse(s: &str) -> Result<NodeSource> {
        let resolved = crate::url_ref::resolve(s)?;
        let s = resolved.as_str();
        if crate::scheme::scheme_of(s).is_some_and(|f| f.serves(Role::Lease)) {
            return Ok(NodeSource::Leased(s.to_string()));
        }
        match s.split_once(':') {
            Some(("static", v)) => Ok(NodeSource::Static(parse_decimal(
                v,
                "static node must be a decimal number (static:5)",
            )?)),
            Some(("env", name)) => {
                if name.is_empty() || name.contains('=') || name.contains('\0') {
                    return Err(invalid(
                        "env node source needs a variable name (env:NODE_ID)",
                    ));
                }
                Ok(NodeSource::Env(name.to_string()))
            }
            Some(("ip", addr)) => {
                let a = addr
                    .parse::<Ipv4Addr>()
                    .map_err(|_| invalid("ip node source takes an IPv4 address (ip:10.0.0.7)"))?;
                Ok(NodeSource::Ip(Some(a)))
            }
            None if s == "ip" => Ok(NodeSource::Ip(None)),
            None if s == "random" => Ok(NodeSource::Random),
            None if !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()) => Ok(
                NodeSource::Static(parse_decimal(s, "static node must be a decimal number")?),
            ),
            _ => Err(invalid(unknown_source())),
        }
    }

    /// Whether this source is a lease store (resolved by a [`LeasedSnowflake`](crate::lease::LeasedSnowflake), not by [`resolve`](Self::resolve)).
    pub fn is_leased(&self) -> bool {
        matches!(self, NodeSource::Leased(_))
    }

    /// The node value for `layout`, checked against its node field. Lease stores cannot be
    /// resolved to a plain value ([`Error::InvalidConfig`]): a lease must be held, renewed and
    /// released, which [`LeasedSnowflake`](crate::lease::LeasedSnowflake) does.
    pub fn resolve(&self, layout: &Layout) -> Result<u64> {
        let node = match self {
            NodeSource::Static(n) => *n,
            NodeSource::Env(name) => {
                let v = std::env::var(name).map_err(|e| match e {
                    std::env::VarError::NotPresent => {
                        invalid("the node's environment variable is not set")
                    }
                    std::env::VarError::NotUnicode(_) => {
                        invalid("the node's environment variable is not valid text")
                    }
                })?;
                parse_decimal(
                    &v,
                    "the node's environment variable must hold a decimal number",
                )?
            }
            NodeSource::Ip(addr) => {
                let a = match addr {
                    Some(a) => *a,
                    None => private_ipv4()?,
                };
                if layout.node_bits() == 0 {
                    return Err(invalid("the layout has no node field to derive from an IP"));
                }
                u64::from(u32::from(a)) & layout.max_node()
            }
            NodeSource::Random => {
                if layout.node_bits() == 0 {
                    return Ok(0);
                }
                idmint::os_random_u64()? & layout.max_node()
            }
            NodeSource::Leased(_) => {
                return Err(invalid(
                    "a lease store is not a fixed node; build a LeasedSnowflake from it",
                ))
            }
        };
        layout.node_to_bits(node)?;
        Ok(node)
    }
}

/// The forms of a node source, for its error and for help texts: the fixed sources, every lease
/// store of the [scheme registry](crate::scheme), and the references that hold one.
pub fn source_forms() -> &'static str {
    static FORMS: OnceLock<String> = OnceLock::new();
    FORMS.get_or_init(|| {
        format!(
            "static:N, env:NAME, ip, ip:ADDR, random, a lease store ({}), or @env:NAME / @PATH holding one",
            crate::scheme::lease_forms()
        )
    })
}

fn unknown_source() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| format!("node source must be {}", source_forms()))
}

impl std::str::FromStr for NodeSource {
    type Err = Error;
    fn from_str(s: &str) -> Result<NodeSource> {
        NodeSource::parse(s)
    }
}

impl std::fmt::Display for NodeSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NodeSource::Static(n) => write!(f, "static:{n}"),
            NodeSource::Env(name) => write!(f, "env:{name}"),
            NodeSource::Ip(None) => f.write_str("ip"),
            NodeSource::Ip(Some(a)) => write!(f, "ip:{a}"),
            NodeSource::Random => f.write_str("random"),
            NodeSource::Leased(url) => f.write_str(&crate::url_ref::redact(url)),
        }
    }
}

/// Whether `a` is in a private range (RFC 1918: 10/8, 172.16/12, 192.168/16) or the shared
/// address space of carrier NAT and many container networks (RFC 6598: 100.64/10).
pub fn is_private_ipv4(a: Ipv4Addr) -> bool {
    let [x, y, ..] = a.octets();
    a.is_private() || (x == 100 && (64..128).contains(&y))
}

/// The host's first private IPv4 address ([`is_private_ipv4`]), in interface order, read with
/// `getifaddrs` (no packet is sent). [`Error::InvalidConfig`] if there is none.
pub fn private_ipv4() -> Result<Ipv4Addr> {
    interface_ipv4s()?
        .into_iter()
        .find(|a| is_private_ipv4(*a))
        .ok_or_else(|| {
            invalid("no private IPv4 address (10/8, 172.16/12, 192.168/16, 100.64/10) on this host; name the address whose low bits make the node with ip:ADDR (e.g. ip:10.0.3.7), or use another node source")
        })
}

/// Every IPv4 address of the host's interfaces that are up, in interface order.
#[cfg(unix)]
fn interface_ipv4s() -> Result<Vec<Ipv4Addr>> {
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs writes a list head we free below with freeifaddrs.
    if unsafe { libc::getifaddrs(&mut head) } != 0 {
        return Err(invalid("cannot list network interfaces"));
    }
    let mut out = Vec::new();
    let mut cur = head;
    while !cur.is_null() {
        // SAFETY: `cur` is a node of the list getifaddrs returned, not yet freed.
        let ifa = unsafe { &*cur };
        let up = ifa.ifa_flags & (libc::IFF_UP as libc::c_uint) != 0;
        if up && !ifa.ifa_addr.is_null() {
            // SAFETY: ifa_addr points to a sockaddr whose family says how to read it.
            let family = unsafe { (*ifa.ifa_addr).sa_family };
            if i32::from(family) == libc::AF_INET {
                // SAFETY: AF_INET addresses are sockaddr_in.
                let sin = unsafe { &*(ifa.ifa_addr as *const libc::sockaddr_in) };
                out.push(Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr)));
            }
        }
        cur = ifa.ifa_next;
    }
    // SAFETY: `head` came from getifaddrs and is freed once.
    unsafe { libc::freeifaddrs(head) };
    Ok(out)
}

#[cfg(not(unix))]
fn interface_ipv4s() -> Result<Vec<Ipv4Addr>> {
    Err(invalid(
        "listing interfaces is not supported here; use ip:ADDR",
    ))
}
