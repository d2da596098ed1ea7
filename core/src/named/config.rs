//! The config model: [`NamedType`], [`NamedConfig`], and the interpretation of parsed
//! entries (which keys a type takes, defaults, validation).

use core::fmt;
use core::str::FromStr;

use super::entry::{spec_err, Entry, NamedEntry, Val};
use super::parse::parse_entries;
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::formats::uuid::Uuid7Method;
use crate::snowflake::layout::Layout;
use crate::snowflake::policy::{Config, OnBackwards, OnExhausted, SequenceStart};
use crate::snowflake::state::Packing;

/// The kinds of generator a [`NamedConfig`] can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NamedType {
    /// A Snowflake-family 64-bit ID generator ([`LocalSnowflake`](crate::LocalSnowflake), or
    /// [`AtomicSnowflake`](crate::AtomicSnowflake) built from [`NamedConfig::snowflake_config`]).
    Snowflake,
    /// Random version 4 UUIDs.
    Uuid4,
    /// Monotonic version 7 UUIDs ([`Uuid7Generator`](crate::formats::uuid::Uuid7Generator)).
    Uuid7,
    /// Version 1 UUIDs with a random node ([`Uuid1Generator`](crate::formats::uuid::Uuid1Generator)).
    Uuid1,
    /// Version 6 UUIDs: v1 reordered to sort by time
    /// ([`Uuid6Generator`](crate::formats::uuid::Uuid6Generator)).
    Uuid6,
}

impl NamedType {
    /// Every type, in the order of their names in error messages.
    pub const ALL: [NamedType; 5] = [
        NamedType::Snowflake,
        NamedType::Uuid4,
        NamedType::Uuid7,
        NamedType::Uuid6,
        NamedType::Uuid1,
    ];

    /// The name used in configs (`snowflake`, `uuid4`, `uuid7`, `uuid6`, `uuid1`).
    pub const fn name(self) -> &'static str {
        match self {
            NamedType::Snowflake => "snowflake",
            NamedType::Uuid4 => "uuid4",
            NamedType::Uuid7 => "uuid7",
            NamedType::Uuid6 => "uuid6",
            NamedType::Uuid1 => "uuid1",
        }
    }

    /// The UUID version this type mints (1, 4, 6 or 7), or `None` for `snowflake`.
    pub const fn uuid_version(self) -> Option<u8> {
        match self {
            NamedType::Snowflake => None,
            NamedType::Uuid4 => Some(4),
            NamedType::Uuid7 => Some(7),
            NamedType::Uuid6 => Some(6),
            NamedType::Uuid1 => Some(1),
        }
    }

    /// Looks a type up by its name (exact, lower case).
    pub fn from_name(name: &str) -> Option<NamedType> {
        NamedType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// How many random bytes one call of [`NamedGenerator::next_at`](super::NamedGenerator::next_at) may request: 16 for
    /// `uuid4`, 10 for `uuid7`, 8 for `uuid1` and `uuid6` (on their first call only), 0 for
    /// `snowflake`.
    pub const fn random_bytes(self) -> usize {
        match self {
            NamedType::Snowflake => 0,
            NamedType::Uuid4 => 16,
            NamedType::Uuid7 => 10,
            NamedType::Uuid1 | NamedType::Uuid6 => 8,
        }
    }
}

impl fmt::Display for NamedType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A parsed, validated generator configuration. See the [module docs](crate::named) for the text forms.
///
/// [`parse`](Self::parse) validates everything a generator would; a value built by hand (for
/// example `NamedConfig::Snowflake(config)`) is validated by [`build`](Self::build).
// A config is built once and held by value; boxing the big variant would only add a
// pointer chase (and an allocation per parse).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NamedConfig {
    /// A Snowflake generator with this config.
    Snowflake(Config),
    /// Random version 4 UUIDs.
    Uuid4,
    /// Monotonic version 7 UUIDs by one of RFC 9562's methods (`method=` in the config; the
    /// counter when left out).
    Uuid7(Uuid7Method),
    /// Version 1 UUIDs with a random node and clock sequence.
    Uuid1,
    /// Version 6 UUIDs (v1 reordered to sort by time).
    Uuid6,
}

impl NamedConfig {
    /// Parses the compact or the JSON form (see the [module docs](crate::named)) and validates it.
    ///
    /// # Examples
    /// ```
    /// use idmint::{named::NamedConfig, Error};
    /// let e = NamedConfig::parse("type=snowflake,layout=twitter,nod=5").unwrap_err();
    /// assert!(matches!(e, Error::InvalidSpec { at: 30, .. }));
    /// let e = NamedConfig::parse("type=snowflake,layout=(time=41@1ms,seq=x,epoch=0)").unwrap_err();
    /// assert!(matches!(e, Error::InvalidSpec { at: 39, .. })); // offsets count from the config's start
    /// ```
    pub fn parse(s: &str) -> Result<NamedConfig> {
        NamedConfig::from_entries(s, &parse_entries(s)?)
    }

    /// [`parse`](Self::parse) for a front door that builds only Snowflake generators
    /// (`Snowflake.fromConfig`): the Snowflake config, or the answer of
    /// [`require_snowflake`](Self::require_snowflake) for a UUID type, decided before the
    /// UUID keys are read. A build that calls only this carries no UUID-config code (the
    /// browser's Snowflake entry).
    ///
    /// # Examples
    /// ```
    /// use idmint::{named::NamedConfig, ErrorKind};
    /// let cfg = NamedConfig::parse_snowflake("type=snowflake,layout=twitter,node=5")?;
    /// assert_eq!(cfg.node_value(), Some(5));
    /// let e = NamedConfig::parse_snowflake("type=uuid7,method=nope").unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::InvalidConfig); // the type is the first problem
    /// # Ok::<(), idmint::Error>(())
    /// ```
    pub fn parse_snowflake(s: &str) -> Result<Config> {
        let entries = parse_entries(s)?;
        match checked_kind(s, &entries)? {
            NamedType::Snowflake => snowflake_config(s, &entries, Node::Given),
            _ => Err(NOT_SNOWFLAKE),
        }
    }

    /// [`parse`](Self::parse) for a front door that builds only UUID generators
    /// (`UuidGenerator.fromConfig`): a UUID config, or the answer of
    /// [`require_uuid`](Self::require_uuid) for a Snowflake config, decided before its
    /// layout is read. A build that calls only this carries no Snowflake code (the browser's
    /// formats entry).
    ///
    /// # Examples
    /// ```
    /// use idmint::{named::{NamedConfig, NamedType}, ErrorKind};
    /// assert_eq!(NamedConfig::parse_uuid("type=uuid7")?.kind(), NamedType::Uuid7);
    /// let e = NamedConfig::parse_uuid("type=snowflake,layout=(nope)").unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::InvalidConfig);
    /// # Ok::<(), idmint::Error>(())
    /// ```
    pub fn parse_uuid(s: &str) -> Result<NamedConfig> {
        let entries = parse_entries(s)?;
        match checked_kind(s, &entries)? {
            NamedType::Snowflake => Err(NOT_UUID),
            kind => uuid_config(kind, &entries),
        }
    }

    /// Interprets the entries [`parse_entries`] read from `input` (errors point into `input`,
    /// and a missing key is reported at its end): what [`parse`](Self::parse) does after the
    /// syntax, for a layer that looked at the entries first (`idmint-coord` picks out its
    /// store-backed types and hands every other config here, so each keeps the core's errors).
    pub fn from_entries(input: &str, entries: &[NamedEntry]) -> Result<NamedConfig> {
        interpret(input, entries, Node::Given)
    }

    /// The Snowflake config of `type=snowflake` entries whose node is chosen elsewhere (a
    /// lease, in `idmint-coord`): validated like [`from_entries`](Self::from_entries) but
    /// without a node, which the returned config leaves unset. A `node` key is
    /// [`Error::InvalidSpec`] at the key, and any other type [`Error::InvalidConfig`].
    ///
    /// # Examples
    /// ```
    /// use idmint::{named::{parse_entries, NamedConfig}, Error};
    /// let text = "type=snowflake,layout=leaf,on_exhausted=borrow";
    /// let cfg = NamedConfig::snowflake_without_node(text, &parse_entries(text)?)?;
    /// assert_eq!(cfg.node_value(), None);
    /// let text = "type=snowflake,layout=leaf,node=3";
    /// let e = NamedConfig::snowflake_without_node(text, &parse_entries(text)?).unwrap_err();
    /// assert!(matches!(e, Error::InvalidSpec { at: 27, .. }));
    /// # Ok::<(), idmint::Error>(())
    /// ```
    pub fn snowflake_without_node(input: &str, entries: &[NamedEntry]) -> Result<Config> {
        match checked_kind(input, entries)? {
            NamedType::Snowflake => snowflake_config(input, entries, Node::Elsewhere),
            _ => Err(Error::InvalidConfig {
                reason: "only type snowflake takes its node from elsewhere",
            }),
        }
    }

    /// The type of generator this config builds.
    pub const fn kind(&self) -> NamedType {
        match self {
            NamedConfig::Snowflake(_) => NamedType::Snowflake,
            NamedConfig::Uuid4 => NamedType::Uuid4,
            NamedConfig::Uuid7(_) => NamedType::Uuid7,
            NamedConfig::Uuid1 => NamedType::Uuid1,
            NamedConfig::Uuid6 => NamedType::Uuid6,
        }
    }

    /// The time `clock` gives for this config's next ID: a v7 generator of the sub-millisecond
    /// method, the one that uses it, gets the nanoseconds into the millisecond
    /// ([`Clock::now_ms_nanos`]); every other type the plain reading and 0 (a host whose
    /// precise reading is dear, a browser's, pays for it only there). For
    /// [`NamedGenerator::next_at_precise`](super::NamedGenerator::next_at_precise).
    pub fn now_from<C: Clock + ?Sized>(&self, clock: &C) -> (u64, u32) {
        match self {
            NamedConfig::Uuid7(Uuid7Method::SubMillisecond) => clock.now_ms_nanos(),
            _ => (clock.now_ms(), 0),
        }
    }

    /// The Snowflake config, for `type=snowflake` (to build an
    /// [`AtomicSnowflake`](crate::AtomicSnowflake) or a clocked [`Snowflake`](crate::Snowflake)).
    pub const fn snowflake_config(&self) -> Option<&Config> {
        match self {
            NamedConfig::Snowflake(c) => Some(c),
            _ => None,
        }
    }

    /// The config of a UUID generator of `version` 1, 4, 6 or 7 ([`Error::InvalidConfig`] for
    /// any other): what every surface's `UuidGenerator(version)` takes.
    pub const fn uuid_of_version(version: u64) -> Result<NamedConfig> {
        match version {
            1 => Ok(NamedConfig::Uuid1),
            4 => Ok(NamedConfig::Uuid4),
            6 => Ok(NamedConfig::Uuid6),
            7 => Ok(NamedConfig::Uuid7(Uuid7Method::Counter)),
            _ => Err(Error::InvalidConfig {
                reason: "UUID generators are version 1, 4, 6 or 7",
            }),
        }
    }

    /// The Snowflake config, or [`Error::InvalidConfig`] for a UUID type: the one answer of
    /// every surface's Snowflake-only `from_config`.
    pub const fn require_snowflake(&self) -> Result<Config> {
        match self {
            NamedConfig::Snowflake(c) => Ok(*c),
            _ => Err(NOT_SNOWFLAKE),
        }
    }

    /// `Ok` for a UUID type, [`Error::InvalidConfig`] for a Snowflake config: the one answer of
    /// every surface's UUID-only `from_config`.
    pub const fn require_uuid(&self) -> Result<()> {
        match self {
            NamedConfig::Snowflake(_) => Err(NOT_UUID),
            _ => Ok(()),
        }
    }
}

impl FromStr for NamedConfig {
    type Err = Error;
    fn from_str(s: &str) -> Result<NamedConfig> {
        NamedConfig::parse(s)
    }
}

/// The canonical compact form (see the [module docs](crate::named)).
impl fmt::Display for NamedConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "type={}", self.kind())?;
        if let NamedConfig::Snowflake(c) = self {
            match c.layout.preset_name() {
                Some(p) => write!(f, ",layout={p}")?,
                None => write!(f, ",layout=({})", c.layout)?,
            }
            if let Some(node) = c.node {
                write!(f, ",node={node}")?;
            }
            write!(
                f,
                ",on_backwards={},on_exhausted={},sequence_start={}",
                c.on_backwards, c.on_exhausted, c.sequence_start
            )?;
            if c.seed != 0 {
                write!(f, ",seed={}", c.seed)?;
            }
            if let Some(fence) = c.fence_ms {
                write!(f, ",fence_ms={fence}")?;
            }
        }
        // The counter is the default and goes unsaid, so `type=uuid7` stays canonical.
        if let NamedConfig::Uuid7(m) = self {
            if *m != Uuid7Method::Counter {
                write!(f, ",method={}", m.name())?;
            }
        }
        Ok(())
    }
}

/// The answer of a Snowflake-only front door to a UUID config.
pub(super) const NOT_SNOWFLAKE: Error = Error::InvalidConfig {
    reason: "not a snowflake config (type=snowflake,...); a UUID type builds with the UUID generator or the named generator",
};

/// The answer of a UUID-only front door to a Snowflake config.
pub(super) const NOT_UUID: Error = Error::InvalidConfig {
    reason: "a snowflake config, not a UUID one; it builds with a Snowflake generator or the named generator",
};

pub(super) const KEYS_REASON: &str =
    "unknown key (type, layout, node, on_backwards, on_exhausted, sequence_start, seed, fence_ms, method)";

/// Where a Snowflake config's node comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Node {
    /// The `node` key (required).
    Given,
    /// Another layer (a lease): no `node` key.
    Elsewhere,
}

fn interpret(input: &str, entries: &[Entry], node: Node) -> Result<NamedConfig> {
    match checked_kind(input, entries)? {
        NamedType::Snowflake => snowflake_config(input, entries, node).map(NamedConfig::Snowflake),
        kind => uuid_config(kind, entries),
    }
}

/// What every config is checked for before its type's keys are read: known keys, each once,
/// and a known type (which it returns).
pub(super) fn checked_kind(input: &str, entries: &[Entry]) -> Result<NamedType> {
    const KNOWN: [&str; 9] = [
        "type",
        "layout",
        "node",
        "on_backwards",
        "on_exhausted",
        "sequence_start",
        "seed",
        "fence_ms",
        "method",
    ];
    for (i, e) in entries.iter().enumerate() {
        if e.key == "layout" {
            // Before the unknown-key check: the rest of an unwrapped spec reads as keys.
            check_wrapped(e)?;
        }
        if !KNOWN.contains(&e.key.as_str()) {
            return Err(spec_err(e.key_at, KEYS_REASON));
        }
        if entries[..i].iter().any(|p| p.key == e.key) {
            return Err(spec_err(e.key_at, "key given twice"));
        }
    }
    let find = |k: &str| entries.iter().find(|e| e.key == k);
    let Some(t) = find("type") else {
        return Err(spec_err(
            input.len(),
            "missing type (snowflake, uuid4, uuid7, uuid6, uuid1)",
        ));
    };
    let name = t.text()?;
    match NamedType::from_name(name) {
        Some(k) => Ok(k),
        None if name == "segment" => Err(spec_err(
            t.val_at,
            "type segment takes its IDs from a store: build it with idmint-coord",
        )),
        None => Err(spec_err(
            t.val_at,
            "unknown type (snowflake, uuid4, uuid7, uuid6, uuid1)",
        )),
    }
}

/// A UUID type's config: only `method`, and only for uuid7.
fn uuid_config(kind: NamedType, entries: &[Entry]) -> Result<NamedConfig> {
    let mut method = Uuid7Method::Counter;
    for e in entries.iter().filter(|e| e.key != "type") {
        match (kind, e.key.as_str()) {
            (NamedType::Uuid7, "method") => {
                method = Uuid7Method::parse(e.text()?).map_err(|_| {
                    spec_err(
                        e.val_at,
                        "unknown method (counter, random_increment, sub_millisecond)",
                    )
                })?;
            }
            (_, "method") => return Err(spec_err(e.key_at, "this key applies to type uuid7 only")),
            _ => {
                return Err(spec_err(
                    e.key_at,
                    "this key applies to type snowflake only",
                ))
            }
        }
    }
    Ok(match kind {
        NamedType::Uuid4 => NamedConfig::Uuid4,
        NamedType::Uuid7 => NamedConfig::Uuid7(method),
        NamedType::Uuid6 => NamedConfig::Uuid6,
        _ => NamedConfig::Uuid1,
    })
}

/// A Snowflake config: its layout, then every other key in the order written.
fn snowflake_config(input: &str, entries: &[Entry], node: Node) -> Result<Config> {
    let find = |k: &str| entries.iter().find(|e| e.key == k);
    let Some(l) = find("layout") else {
        return Err(spec_err(
            input.len(),
            "type snowflake needs a layout: a preset name or a spec (in parentheses in the compact form)",
        ));
    };
    // Read every value in the order written, so the first problem is the one reported.
    let mut cfg = Config::new(parse_layout(l)?);
    for e in entries {
        match e.key.as_str() {
            "node" if node == Node::Elsewhere => {
                return Err(spec_err(
                    e.key_at,
                    "this config's node is chosen elsewhere (a lease): leave node out",
                ))
            }
            "node" => cfg.node = Some(e.u64()?),
            "on_backwards" => cfg.on_backwards = e.text()?.parse::<OnBackwards>()?,
            "on_exhausted" => cfg.on_exhausted = e.text()?.parse::<OnExhausted>()?,
            "sequence_start" => cfg.sequence_start = e.text()?.parse::<SequenceStart>()?,
            "seed" => cfg.seed = e.u64()?,
            "fence_ms" => cfg.fence_ms = Some(e.u64()?),
            "method" => return Err(spec_err(e.key_at, "this key applies to type uuid7 only")),
            _ => {}
        }
    }
    match node {
        Node::Given => Packing::new(&cfg)?,
        // Node 0 fits every layout: the rest of the config is checked as it will be used.
        Node::Elsewhere => Packing::new(&cfg.node(0))?,
    };
    Ok(cfg)
}

fn check_wrapped(e: &Entry) -> Result<()> {
    match &e.val {
        Val::Str { text, .. } if e.bare && text.contains('=') => Err(spec_err(
            e.val_at,
            "a layout spec contains commas: wrap it in parentheses, layout=(time=...,seq=...,epoch=...)",
        )),
        _ => Ok(()),
    }
}

fn parse_layout(e: &Entry) -> Result<Layout> {
    let text = e.text()?;
    let raw_at = match &e.val {
        Val::Str { raw_at, .. } => *raw_at,
        _ => None,
    };
    Layout::parse(text).map_err(|err| match err {
        Error::InvalidSpec { at, reason } => Error::InvalidSpec {
            at: raw_at.map_or(e.val_at, |r| r + at),
            reason,
        },
        other => other,
    })
}
