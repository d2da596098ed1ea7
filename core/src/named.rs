//! Generators by name: one configuration string that builds the same generator on every
//! surface (Rust, Python, Node, C, CLI), in the spirit of ShardingSphere's pluggable key
//! generators.
//!
//! A [`NamedConfig`] is read from one of two equivalent forms:
//!
//! * the **compact form**, comma-separated `key=value` pairs:
//!
//!   ```text
//!   type=snowflake,layout=twitter,node=5,on_backwards=wait:1000,on_exhausted=borrow:16,sequence_start=vibrate:1,seed=42
//!   ```
//!
//!   A layout spec contains commas itself, so a custom layout is wrapped in parentheses:
//!   `layout=(time=41@1ms,worker=10,seq=12,epoch=2020-01-01)`. Any value may be parenthesised;
//!   the value then runs to the first `)` (no value of any key contains one). Spaces around
//!   keys, values and separators are ignored.
//!
//! * the **JSON form**, one flat JSON object (recognised by a leading `{`):
//!
//!   ```text
//!   {"type":"snowflake","layout":"time=41@1ms,worker=10,seq=12,epoch=2020-01-01","node":5,"on_backwards":"logical:500"}
//!   ```
//!
//!   The parser is strict, small and allocation-light: one object, string keys, and values
//!   that are strings, non-negative integers or booleans (no nesting, no `null`, no fractions
//!   or exponents, no duplicate keys, nothing after the closing brace). Integer-valued keys also
//!   take a string of decimal digits, so JavaScript callers can pass 64-bit seeds exactly.
//!
//! Keys (all lower case; each at most once):
//!
//! | key              | types     | value                                                          | default    |
//! |------------------|-----------|----------------------------------------------------------------|------------|
//! | `type`           | all       | `snowflake`, `uuid4`, `uuid7` (monotonic) or `uuid1`           | required   |
//! | `layout`         | snowflake | a preset name, or a layout spec (parenthesised in compact form)| required   |
//! | `node`           | snowflake | the whole node value (all node sub-fields), an integer        | required ([`Error::NodeRequired`]) |
//! | `on_backwards`   | snowflake | [`OnBackwards`] text form (`fail`, `wait:MS`, `logical:MS`, `rollback_counter`, `ring:TICKS`) | `wait:1000` |
//! | `on_exhausted`   | snowflake | [`OnExhausted`] text form (`wait`, `borrow:TICKS`, `fail`)     | `wait`     |
//! | `sequence_start` | snowflake | [`SequenceStart`] text form (`zero`, `random`, `vibrate:K`)    | `zero`     |
//! | `seed`           | snowflake | seed of random sequence starts ([`Config::seed`]), an integer  | `0`        |
//! | `fence_ms`       | snowflake | time fence ([`Config::fence_ms`]), Unix ms                     | none       |
//!
//! `Display` prints the canonical compact form: keys in the order of this table, policies in
//! their canonical text (`wait` → `wait:1000`), a preset layout by name and any other layout as
//! its canonical spec in parentheses, `seed` only when not 0 and `fence_ms` only when set.
//! Parsing the canonical form gives back an equal config.
//!
//! Errors: problems the parser finds at a place in the text (syntax, unknown or repeated keys,
//! a key the type does not use, a malformed number, an unknown type, a missing required key)
//! are [`Error::InvalidSpec`] with the byte offset into the whole config string (the length of
//! the string for missing keys). A layout spec's own [`Error::InvalidSpec`] is re-based to the
//! whole string (when the spec is a JSON string with escapes, `at` points at its opening quote).
//! Invalid policy texts keep the policies' own [`Error::InvalidConfig`], and a config the
//! generator rejects (node too large, contradictory policies) fails as
//! [`LocalSnowflake::new`] would.
//!
//! # Examples
//! ```
//! use idmint::named::{GeneratedId, NamedConfig};
//!
//! let cfg: NamedConfig = "type=snowflake, layout=leaf, node=5, on_exhausted=borrow".parse()?;
//! assert_eq!(
//!     cfg.to_string(),
//!     "type=snowflake,layout=leaf,node=5,on_backwards=wait:1000,on_exhausted=borrow:16,sequence_start=zero"
//! );
//! let json: NamedConfig =
//!     r#"{"type":"snowflake","layout":"leaf","node":5,"on_exhausted":"borrow:16"}"#.parse()?;
//! assert_eq!(json, cfg);
//!
//! let mut gen = cfg.build()?;
//! let no_random = |_: &mut [u8]| Ok(()); // snowflakes draw no randomness
//! let id = gen.next_at(1_700_000_000_000, no_random)?;
//! assert!(matches!(id, GeneratedId::U64(_)));
//!
//! let mut uuids = NamedConfig::parse("type=uuid7")?.build()?;
//! let u = uuids.next_at(1_700_000_000_000, |buf: &mut [u8]| {
//!     buf.fill(0x42); // your RNG here
//!     Ok(())
//! })?;
//! assert_eq!(u.to_string().len(), 36);
//! # Ok::<(), idmint::Error>(())
//! ```

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::local::LocalSnowflake;
use crate::policy::{Config, OnBackwards, OnExhausted, SequenceStart};
use crate::state::Packing;
use crate::uuids::{self, Uuid, V7Generator};

/// The kinds of generator a [`NamedConfig`] can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NamedType {
    /// A Snowflake-family 64-bit ID generator ([`LocalSnowflake`], or
    /// [`AtomicSnowflake`](crate::AtomicSnowflake) built from [`NamedConfig::snowflake_config`]).
    Snowflake,
    /// Random version 4 UUIDs.
    Uuid4,
    /// Monotonic version 7 UUIDs ([`V7Generator`]).
    Uuid7,
    /// Version 1 UUIDs with a random node ([`Uuid1Generator`]).
    Uuid1,
}

impl NamedType {
    /// Every type, in the order of their names in error messages.
    pub const ALL: [NamedType; 4] = [
        NamedType::Snowflake,
        NamedType::Uuid4,
        NamedType::Uuid7,
        NamedType::Uuid1,
    ];

    /// The name used in configs (`snowflake`, `uuid4`, `uuid7`, `uuid1`).
    pub const fn name(self) -> &'static str {
        match self {
            NamedType::Snowflake => "snowflake",
            NamedType::Uuid4 => "uuid4",
            NamedType::Uuid7 => "uuid7",
            NamedType::Uuid1 => "uuid1",
        }
    }

    /// Looks a type up by its name (exact, lower case).
    pub fn from_name(name: &str) -> Option<NamedType> {
        NamedType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// How many random bytes one call of [`NamedGenerator::next_at`] may request: 16 for
    /// `uuid4`, 10 for `uuid7`, 8 for `uuid1` (on its first call only), 0 for `snowflake`.
    pub const fn random_bytes(self) -> usize {
        match self {
            NamedType::Snowflake => 0,
            NamedType::Uuid4 => 16,
            NamedType::Uuid7 => 10,
            NamedType::Uuid1 => 8,
        }
    }
}

impl fmt::Display for NamedType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A parsed, validated generator configuration. See the [module docs](self) for the text forms.
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
    /// Monotonic version 7 UUIDs.
    Uuid7,
    /// Version 1 UUIDs with a random node and clock sequence.
    Uuid1,
}

impl NamedConfig {
    /// Parses the compact or the JSON form (see the [module docs](self)) and validates it.
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
        let entries = if s.trim_start().starts_with('{') {
            parse_json(s)?
        } else {
            parse_compact(s)?
        };
        interpret(s, &entries)
    }

    /// The type of generator this config builds.
    pub const fn kind(&self) -> NamedType {
        match self {
            NamedConfig::Snowflake(_) => NamedType::Snowflake,
            NamedConfig::Uuid4 => NamedType::Uuid4,
            NamedConfig::Uuid7 => NamedType::Uuid7,
            NamedConfig::Uuid1 => NamedType::Uuid1,
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

    /// Builds a fresh generator from this config.
    pub fn build(&self) -> Result<NamedGenerator> {
        NamedGenerator::new(self)
    }
}

impl FromStr for NamedConfig {
    type Err = Error;
    fn from_str(s: &str) -> Result<NamedConfig> {
        NamedConfig::parse(s)
    }
}

/// The canonical compact form (see the [module docs](self)).
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
        Ok(())
    }
}

/// One generated ID: a 64-bit integer (Snowflake) or a UUID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GeneratedId {
    /// A 64-bit ID from a Snowflake generator.
    U64(u64),
    /// A UUID.
    Uuid(Uuid),
}

impl GeneratedId {
    /// The 64-bit ID, if this is one.
    pub const fn as_u64(&self) -> Option<u64> {
        match self {
            GeneratedId::U64(v) => Some(*v),
            GeneratedId::Uuid(_) => None,
        }
    }

    /// The UUID, if this is one.
    pub const fn as_uuid(&self) -> Option<&Uuid> {
        match self {
            GeneratedId::Uuid(u) => Some(u),
            GeneratedId::U64(_) => None,
        }
    }
}

/// Decimal for 64-bit IDs, lower-case hyphenated for UUIDs.
impl fmt::Display for GeneratedId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GeneratedId::U64(v) => write!(f, "{v}"),
            GeneratedId::Uuid(u) => write!(f, "{}", u.hyphenated()),
        }
    }
}

/// Sans-IO version 1 UUIDs with a random node, for `type=uuid1`.
///
/// The first call draws 8 random bytes: 2 for the 14-bit clock sequence and 6 for the node
/// (whose multicast bit is then forced on, so it can never equal a real MAC address). Later
/// calls draw nothing. Within one millisecond, and while the clock is behind the last UUID's
/// time, the generator keeps the last time and counts up the 100 ns ticks below it (10 000 per
/// millisecond, then it moves on to the next millisecond), so every UUID it issues has a
/// distinct timestamp and the timestamps never decrease.
///
/// # Examples
/// ```
/// use idmint::named::Uuid1Generator;
/// use idmint::uuids::inspect;
///
/// let mut g = Uuid1Generator::new();
/// let a = g.next_at(1_700_000_000_000, |b: &mut [u8]| { b.fill(3); Ok(()) })?;
/// let b = g.next_at(1_700_000_000_000, |_: &mut [u8]| unreachable!())?;
/// assert_ne!(a, b);
/// assert_eq!(inspect(&b).unix_ms, Some(1_700_000_000_000));
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Uuid1Generator {
    last_ms: u64,
    extra: u16,
    clock_seq: u16,
    node: [u8; 6],
    started: bool,
}

/// 100 ns ticks in one millisecond, minus one: the largest sub-millisecond count.
const V1_MAX_EXTRA: u16 = 9_999;

impl Uuid1Generator {
    /// A generator that has issued nothing (and drawn no randomness) yet.
    pub const fn new() -> Uuid1Generator {
        Uuid1Generator {
            last_ms: 0,
            extra: 0,
            clock_seq: 0,
            node: [0; 6],
            started: false,
        }
    }

    /// The millisecond of the last UUID issued (may be ahead of the clock); `None` before the
    /// first.
    pub const fn last_unix_ms(&self) -> Option<u64> {
        if self.started {
            Some(self.last_ms)
        } else {
            None
        }
    }

    /// The next UUID at `now_ms`; `random` fills a buffer with random bytes (called once, on
    /// the first call, with 8 bytes) and its error is passed on.
    pub fn next_at<F>(&mut self, now_ms: u64, mut random: F) -> Result<Uuid>
    where
        F: FnMut(&mut [u8]) -> Result<()>,
    {
        if !self.started {
            let mut b = [0u8; 8];
            random(&mut b)?;
            let [s0, s1, n0, n1, n2, n3, n4, n5] = b;
            self.clock_seq = u16::from_be_bytes([s0, s1]) & 0x3fff;
            self.node = [n0, n1, n2, n3, n4, n5];
            self.started = true;
            self.last_ms = now_ms;
            self.extra = 0;
        } else if now_ms > self.last_ms {
            self.last_ms = now_ms;
            self.extra = 0;
        } else if self.extra < V1_MAX_EXTRA {
            self.extra += 1;
        } else {
            self.last_ms = self.last_ms.saturating_add(1);
            self.extra = 0;
        }
        Ok(uuids::v1_random_node(
            self.last_ms,
            self.extra,
            self.clock_seq,
            self.node,
        ))
    }
}

/// A generator built from a [`NamedConfig`]: one sans-IO call, whatever the type.
// One generator per owner, called on the hot path: keep it inline rather than boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum NamedGenerator {
    /// A Snowflake generator.
    Snowflake(LocalSnowflake),
    /// Random version 4 UUIDs (stateless).
    Uuid4,
    /// Monotonic version 7 UUIDs.
    Uuid7(V7Generator),
    /// Version 1 UUIDs with a random node.
    Uuid1(Uuid1Generator),
}

impl NamedGenerator {
    /// Validates `cfg` and builds a fresh generator.
    pub fn new(cfg: &NamedConfig) -> Result<NamedGenerator> {
        Ok(match cfg {
            NamedConfig::Snowflake(c) => NamedGenerator::Snowflake(LocalSnowflake::new(*c)?),
            NamedConfig::Uuid4 => NamedGenerator::Uuid4,
            NamedConfig::Uuid7 => NamedGenerator::Uuid7(V7Generator::new()),
            NamedConfig::Uuid1 => NamedGenerator::Uuid1(Uuid1Generator::new()),
        })
    }

    /// The type of this generator.
    pub const fn kind(&self) -> NamedType {
        match self {
            NamedGenerator::Snowflake(_) => NamedType::Snowflake,
            NamedGenerator::Uuid4 => NamedType::Uuid4,
            NamedGenerator::Uuid7(_) => NamedType::Uuid7,
            NamedGenerator::Uuid1(_) => NamedType::Uuid1,
        }
    }

    /// The next ID at `now_ms` (ms since the Unix epoch).
    ///
    /// `random` fills the buffer it is given with random bytes (see
    /// [`NamedType::random_bytes`] for how many) or fails, typically with
    /// [`Error::RandomSource`]; its error is returned as is. Snowflake generators never call
    /// it, and return their own errors ([`Error::WouldBlock`] and the like) unchanged.
    pub fn next_at<F>(&mut self, now_ms: u64, mut random: F) -> Result<GeneratedId>
    where
        F: FnMut(&mut [u8]) -> Result<()>,
    {
        match self {
            NamedGenerator::Snowflake(g) => g.next_id_at(now_ms).map(GeneratedId::U64),
            NamedGenerator::Uuid4 => {
                let mut b = [0u8; 16];
                random(&mut b)?;
                Ok(GeneratedId::Uuid(uuids::v4(b)))
            }
            NamedGenerator::Uuid7(g) => {
                let mut b = [0u8; 10];
                random(&mut b)?;
                Ok(GeneratedId::Uuid(g.next_at(now_ms, b)))
            }
            NamedGenerator::Uuid1(g) => g.next_at(now_ms, random).map(GeneratedId::Uuid),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/// A value as written.
#[derive(Debug)]
enum Val {
    /// Text (compact values are always text). `raw_at` is the byte offset of its first
    /// character when the text appears verbatim in the input (no JSON escapes).
    Str { text: String, raw_at: Option<usize> },
    /// A JSON integer.
    Num(u64),
    /// A JSON boolean.
    Bool,
}

#[derive(Debug)]
struct Entry {
    key: String,
    key_at: usize,
    val: Val,
    val_at: usize,
    /// Compact form, value without parentheses.
    bare: bool,
}

const fn spec_err(at: usize, reason: &'static str) -> Error {
    Error::InvalidSpec { at, reason }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|&c| is_ws(c)) {
        i += 1;
    }
    i
}

/// `key=value,key=(value),...`
fn parse_compact(s: &str) -> Result<Vec<Entry>> {
    let b = s.as_bytes();
    if s.trim().is_empty() {
        return Err(spec_err(
            0,
            "empty config; give type=... or a JSON object such as {\"type\":\"uuid7\"}",
        ));
    }
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        let key_at = skip_ws(b, i);
        let mut j = key_at;
        while j < b.len() && b[j] != b'=' && b[j] != b',' {
            j += 1;
        }
        if j == b.len() || b[j] == b',' {
            return Err(spec_err(key_at, "expected key=value"));
        }
        // s[key_at..j] ends at an ASCII '=', so both ends are char boundaries.
        let key = s.get(key_at..j).unwrap_or("").trim_end();
        if key.is_empty() {
            return Err(spec_err(key_at, "missing key before '='"));
        }
        let val_at = skip_ws(b, j + 1);
        let (val, bare, next);
        if b.get(val_at) == Some(&b'(') {
            let Some(close) = b[val_at + 1..].iter().position(|&c| c == b')') else {
                return Err(spec_err(val_at, "unclosed '(': expected ')'"));
            };
            let close = val_at + 1 + close;
            let inner = s.get(val_at + 1..close).unwrap_or("");
            if inner.contains('(') {
                return Err(spec_err(
                    val_at + 1 + inner.find('(').unwrap_or(0),
                    "nested '(' in a value",
                ));
            }
            let lead = inner.len() - inner.trim_start().len();
            val = Val::Str {
                text: String::from(inner.trim()),
                raw_at: Some(val_at + 1 + lead),
            };
            bare = false;
            let after = skip_ws(b, close + 1);
            if after < b.len() && b[after] != b',' {
                return Err(spec_err(after, "expected ',' after ')'"));
            }
            next = after;
        } else {
            let mut k = val_at;
            while k < b.len() && b[k] != b',' {
                if b[k] == b'(' || b[k] == b')' {
                    return Err(spec_err(
                        k,
                        "parentheses must wrap a whole value: key=(value)",
                    ));
                }
                k += 1;
            }
            let text = s.get(val_at..k).unwrap_or("").trim_end();
            val = Val::Str {
                text: String::from(text),
                raw_at: Some(val_at),
            };
            bare = true;
            next = k;
        }
        if matches!(&val, Val::Str { text, .. } if text.is_empty()) {
            return Err(spec_err(val_at, "missing value after '='"));
        }
        out.push(Entry {
            key: String::from(key),
            key_at,
            val,
            val_at,
            bare,
        });
        if next >= b.len() {
            return Ok(out);
        }
        // b[next] == b','
        i = next + 1;
        if skip_ws(b, i) == b.len() {
            return Err(spec_err(next, "trailing ',' without a key=value after it"));
        }
    }
}

/// One flat JSON object.
fn parse_json(s: &str) -> Result<Vec<Entry>> {
    let b = s.as_bytes();
    let mut i = skip_ws(b, 0);
    // The caller checked the '{'.
    i += 1;
    let mut out = Vec::new();
    i = skip_ws(b, i);
    if b.get(i) == Some(&b'}') {
        i += 1;
    } else {
        loop {
            i = skip_ws(b, i);
            if b.get(i) != Some(&b'"') {
                return Err(spec_err(i, "expected a string key in double quotes"));
            }
            let key_at = i;
            let (key, _, end) = json_string(s, i)?;
            i = skip_ws(b, end);
            if b.get(i) != Some(&b':') {
                return Err(spec_err(i, "expected ':' after the key"));
            }
            i = skip_ws(b, i + 1);
            let val_at = i;
            let (val, end) = match b.get(i) {
                Some(b'"') => {
                    let (text, verbatim, end) = json_string(s, i)?;
                    let raw_at = verbatim.then_some(i + 1);
                    (Val::Str { text, raw_at }, end)
                }
                Some(b'0'..=b'9') => {
                    let (n, end) = json_number(b, i)?;
                    (Val::Num(n), end)
                }
                Some(b'-') => {
                    return Err(spec_err(
                        i,
                        "negative numbers are not allowed; expected a non-negative integer",
                    ))
                }
                Some(b't') if b[i..].starts_with(b"true") => (Val::Bool, i + 4),
                Some(b'f') if b[i..].starts_with(b"false") => (Val::Bool, i + 5),
                Some(b'n') if b[i..].starts_with(b"null") => {
                    return Err(spec_err(i, "null is not allowed; leave the key out instead"))
                }
                Some(b'{' | b'[') => {
                    return Err(spec_err(
                        i,
                        "nested objects and arrays are not supported; values are strings, integers or booleans",
                    ))
                }
                Some(_) => return Err(spec_err(i, "expected a string, integer or boolean value")),
                None => return Err(spec_err(i, "unexpected end: expected a value")),
            };
            out.push(Entry {
                key,
                key_at,
                val,
                val_at,
                bare: false,
            });
            i = skip_ws(b, end);
            match b.get(i) {
                Some(b',') => {
                    i += 1;
                }
                Some(b'}') => {
                    i += 1;
                    break;
                }
                Some(_) => return Err(spec_err(i, "expected ',' or '}'")),
                None => return Err(spec_err(i, "unexpected end: expected ',' or '}'")),
            }
        }
    }
    let i = skip_ws(b, i);
    if i != b.len() {
        return Err(spec_err(i, "unexpected text after the closing '}'"));
    }
    Ok(out)
}

/// A JSON string starting at the quote at byte `at`: (text, verbatim, byte after the closing
/// quote). `verbatim` is true when the string had no escapes.
fn json_string(s: &str, at: usize) -> Result<(String, bool, usize)> {
    let mut out = String::new();
    let mut verbatim = true;
    let rest = s.get(at + 1..).unwrap_or("");
    let mut chars = rest.char_indices();
    let pos = |off: usize| at + 1 + off;
    while let Some((off, c)) = chars.next() {
        match c {
            '"' => return Ok((out, verbatim, pos(off) + 1)),
            '\\' => {
                verbatim = false;
                let Some((eoff, e)) = chars.next() else {
                    break;
                };
                match e {
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    '/' => out.push('/'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    'u' => {
                        let hi = hex4(rest, eoff + 1)
                            .ok_or(spec_err(pos(off), "\\u needs four hexadecimal digits"))?;
                        // Skip the four digits (ASCII, one byte each).
                        for _ in 0..4 {
                            chars.next();
                        }
                        let code = if (0xD800..0xDC00).contains(&hi) {
                            let low_at = eoff + 5;
                            let lo = match rest.get(low_at..low_at + 2) {
                                Some("\\u") => hex4(rest, low_at + 2),
                                _ => None,
                            };
                            match lo {
                                Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                                    for _ in 0..6 {
                                        chars.next();
                                    }
                                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                                }
                                _ => {
                                    return Err(spec_err(
                                        pos(off),
                                        "unpaired UTF-16 surrogate in a \\u escape",
                                    ))
                                }
                            }
                        } else {
                            hi
                        };
                        match char::from_u32(code) {
                            Some(ch) => out.push(ch),
                            None => {
                                return Err(spec_err(
                                    pos(off),
                                    "unpaired UTF-16 surrogate in a \\u escape",
                                ))
                            }
                        }
                    }
                    _ => return Err(spec_err(pos(off), "invalid escape in a string")),
                }
            }
            c if (c as u32) < 0x20 => {
                return Err(spec_err(
                    pos(off),
                    "control character in a string (escape it)",
                ))
            }
            c => out.push(c),
        }
    }
    Err(spec_err(s.len(), "unterminated string: expected '\"'"))
}

fn hex4(s: &str, at: usize) -> Option<u32> {
    let h = s.get(at..at + 4)?;
    if !h.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(h, 16).ok()
}

/// A non-negative JSON integer starting at byte `at` (a digit): (value, byte after it).
fn json_number(b: &[u8], at: usize) -> Result<(u64, usize)> {
    let mut i = at;
    let mut v: u64 = 0;
    while let Some(&c) = b.get(i) {
        if !c.is_ascii_digit() {
            break;
        }
        if i > at && b[at] == b'0' {
            return Err(spec_err(
                at,
                "leading zeros are not allowed in JSON numbers",
            ));
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(c - b'0')))
            .ok_or(spec_err(at, "number does not fit 64 bits"))?;
        i += 1;
    }
    if matches!(b.get(i), Some(b'.' | b'e' | b'E')) {
        return Err(spec_err(i, "expected an integer (no fraction or exponent)"));
    }
    Ok((v, i))
}

const KEYS_REASON: &str =
    "unknown key (type, layout, node, on_backwards, on_exhausted, sequence_start, seed, fence_ms)";

/// Text of a string-valued key.
fn text_of(e: &Entry) -> Result<&str> {
    match &e.val {
        Val::Str { text, .. } => Ok(text),
        _ => Err(spec_err(e.val_at, "expected a string value")),
    }
}

/// An integer-valued key: a JSON integer, or decimal digits as text.
fn u64_of(e: &Entry) -> Result<u64> {
    const R: &str = "expected a non-negative integer";
    match &e.val {
        Val::Num(n) => Ok(*n),
        Val::Str { text, .. } => {
            if text.is_empty() || !text.bytes().all(|c| c.is_ascii_digit()) {
                return Err(spec_err(e.val_at, R));
            }
            text.parse()
                .map_err(|_| spec_err(e.val_at, "number does not fit 64 bits"))
        }
        Val::Bool => Err(spec_err(e.val_at, R)),
    }
}

fn interpret(input: &str, entries: &[Entry]) -> Result<NamedConfig> {
    const KNOWN: [&str; 8] = [
        "type",
        "layout",
        "node",
        "on_backwards",
        "on_exhausted",
        "sequence_start",
        "seed",
        "fence_ms",
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
            "missing type (snowflake, uuid4, uuid7, uuid1)",
        ));
    };
    let name = text_of(t)?;
    let kind = match NamedType::from_name(name) {
        Some(k) => k,
        None if name == "segment" => {
            return Err(spec_err(t.val_at, "type segment is not available yet"))
        }
        None => {
            return Err(spec_err(
                t.val_at,
                "unknown type (snowflake, uuid4, uuid7, uuid1)",
            ))
        }
    };
    if kind != NamedType::Snowflake {
        if let Some(e) = entries.iter().find(|e| e.key != "type") {
            return Err(spec_err(
                e.key_at,
                "this key applies to type snowflake only",
            ));
        }
        return Ok(match kind {
            NamedType::Uuid4 => NamedConfig::Uuid4,
            NamedType::Uuid7 => NamedConfig::Uuid7,
            _ => NamedConfig::Uuid1,
        });
    }
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
            "node" => cfg.node = Some(u64_of(e)?),
            "on_backwards" => cfg.on_backwards = text_of(e)?.parse::<OnBackwards>()?,
            "on_exhausted" => cfg.on_exhausted = text_of(e)?.parse::<OnExhausted>()?,
            "sequence_start" => cfg.sequence_start = text_of(e)?.parse::<SequenceStart>()?,
            "seed" => cfg.seed = u64_of(e)?,
            "fence_ms" => cfg.fence_ms = Some(u64_of(e)?),
            _ => {}
        }
    }
    Packing::new(&cfg)?;
    Ok(NamedConfig::Snowflake(cfg))
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
    let text = text_of(e)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use crate::{ErrorKind, Parts};
    use proptest::prelude::*;
    use std::string::ToString;
    use std::vec;

    const T0: u64 = 1_700_000_000_000;

    fn no_random(_: &mut [u8]) -> Result<()> {
        Ok(())
    }

    fn counting() -> impl FnMut(&mut [u8]) -> Result<()> {
        let mut n = 0u8;
        move |buf: &mut [u8]| {
            for b in buf {
                *b = n;
                n = n.wrapping_add(1);
            }
            Ok(())
        }
    }

    fn spec_at(s: &str) -> (usize, &'static str) {
        match NamedConfig::parse(s) {
            Err(Error::InvalidSpec { at, reason }) => (at, reason),
            other => panic!("{s}: expected InvalidSpec, got {other:?}"),
        }
    }

    #[test]
    fn compact_round_trips() {
        for s in [
            "type=snowflake,layout=twitter,node=5,on_backwards=wait:1000,on_exhausted=borrow:16,sequence_start=vibrate:1,seed=42",
            "type=snowflake,layout=(time=41@1ms,worker=10,seq=12,epoch=2020-01-01),node=1023,on_backwards=logical:500,on_exhausted=wait,sequence_start=random,seed=18446744073709551615,fence_ms=1700000000000",
            "type=snowflake,layout=(time=40@1ms,rollback=2,worker=8,seq=13,epoch=2010-11-04T01:42:54.657Z),node=0,on_backwards=rollback_counter,on_exhausted=fail,sequence_start=zero",
            "type=snowflake,layout=sonyflake,node=65535,on_backwards=ring:64,on_exhausted=wait,sequence_start=zero",
            "type=uuid4",
            "type=uuid7",
            "type=uuid1",
        ] {
            let c = NamedConfig::parse(s).unwrap();
            assert_eq!(c.to_string(), s);
            assert_eq!(NamedConfig::parse(&c.to_string()).unwrap(), c);
        }
    }

    #[test]
    fn defaults_and_spacing() {
        assert_eq!(
            NamedConfig::parse("type=snowflake,layout=twitter"),
            Err(Error::NodeRequired)
        );
        let c = NamedConfig::parse("  layout = ( twitter ) ,type= snowflake, node=0 ").unwrap();
        assert_eq!(
            c.to_string(),
            "type=snowflake,layout=twitter,node=0,on_backwards=wait:1000,on_exhausted=wait,sequence_start=zero"
        );
        let cfg = c.snowflake_config().unwrap();
        assert_eq!(cfg.layout().preset_name(), Some("twitter"));
        assert_eq!(cfg.fence(), None);
        let c = NamedConfig::parse("type=snowflake,layout=leaf,node=0,on_backwards=logical,sequence_start=vibrate,on_exhausted=borrow,seed=0").unwrap();
        assert_eq!(
            c.to_string(),
            "type=snowflake,layout=leaf,node=0,on_backwards=logical:1000,on_exhausted=borrow:16,sequence_start=vibrate:1"
        );
    }

    #[test]
    fn json_form_equals_compact_form() {
        let j = r#" { "type" : "snowflake", "layout": "time=41@1ms,worker=10,seq=12,epoch=2020-01-01",
            "node": 5, "on_backwards": "logical:500", "seed": "18446744073709551615", "fence_ms": 0 } "#;
        let c = NamedConfig::parse(j).unwrap();
        assert_eq!(
            c.to_string(),
            "type=snowflake,layout=(time=41@1ms,worker=10,seq=12,epoch=2020-01-01),node=5,on_backwards=logical:500,on_exhausted=wait,sequence_start=zero,seed=18446744073709551615,fence_ms=0"
        );
        assert_eq!(NamedConfig::parse(&c.to_string()).unwrap(), c);
        assert_eq!(
            NamedConfig::parse(r#"{"type":"uuid7"}"#).unwrap(),
            NamedConfig::Uuid7
        );
        // Escapes are decoded.
        assert_eq!(
            NamedConfig::parse(r#"{"type":"uuid\u0037"}"#).unwrap(),
            NamedConfig::Uuid7
        );
        assert_eq!(
            NamedConfig::parse(r#"{"type":"snowflake","layout":"twitt\u0065r","node":3}"#)
                .unwrap()
                .to_string(),
            "type=snowflake,layout=twitter,node=3,on_backwards=wait:1000,on_exhausted=wait,sequence_start=zero"
        );
    }

    #[test]
    fn compact_errors_point_at_the_problem() {
        assert_eq!(spec_at("").0, 0);
        assert_eq!(spec_at("   ").0, 0);
        assert_eq!(spec_at("type").0, 0);
        assert_eq!(spec_at("type=uuid4,").0, 10);
        assert_eq!(spec_at("type=uuid4,,").0, 11);
        assert_eq!(spec_at("=uuid4"), (0, "missing key before '='"));
        assert_eq!(spec_at("type="), (5, "missing value after '='"));
        assert_eq!(spec_at("type=uuid4,color=red"), (11, KEYS_REASON));
        assert_eq!(spec_at("type=uuid4,type=uuid7"), (11, "key given twice"));
        assert_eq!(spec_at("type=uuid9").0, 5);
        assert_eq!(
            spec_at("type=segment"),
            (5, "type segment is not available yet")
        );
        assert_eq!(
            spec_at("type=uuid4,node=1"),
            (11, "this key applies to type snowflake only")
        );
        assert_eq!(spec_at("node=1").0, 6); // missing type: end of input
        assert_eq!(spec_at("type=snowflake").0, 14); // missing layout
        assert_eq!(spec_at("type=snowflake,layout=(twitter").0, 22);
        assert_eq!(spec_at("type=snowflake,layout=(twitter) x").0, 32);
        assert_eq!(spec_at("type=snowflake,layout=((twitter))").0, 23);
        assert_eq!(spec_at("type=snowflake,layout=twi(tter").0, 25);
        // An unparenthesised spec gets a helpful message at the value.
        assert_eq!(
            spec_at("type=snowflake,layout=time=41@1ms,worker=10,seq=12,epoch=0").0,
            22
        );
        // Layout spec errors are re-based to the whole string.
        let s = "type=snowflake,layout=( time=41@1xs,seq=12,epoch=0)";
        assert_eq!(spec_at(s), (32, "tick unit must be ms, s, m or h"));
        assert_eq!(&s[32..35], "1xs");
        assert_eq!(spec_at("type=snowflake,layout=twitter,node=x").0, 35);
        assert_eq!(
            spec_at("type=snowflake,layout=twitter,seed=99999999999999999999"),
            (35, "number does not fit 64 bits")
        );
    }

    #[test]
    fn semantic_errors_keep_their_variants() {
        let e = |s: &str| NamedConfig::parse(s).unwrap_err();
        assert_eq!(
            e("type=snowflake,layout=twitter,on_backwards=sideways").kind(),
            ErrorKind::InvalidConfig
        );
        assert!(matches!(
            e("type=snowflake,layout=twitter,node=1024"),
            Error::FieldOverflow {
                value: 1024,
                max: 1023,
                ..
            }
        ));
        assert!(matches!(
            e("type=snowflake,layout=twitter,on_backwards=rollback_counter"),
            Error::InvalidConfig { .. }
        ));
        assert!(matches!(
            e("type=snowflake,layout=twitter,on_backwards=ring:8,on_exhausted=borrow:2"),
            Error::InvalidConfig { .. }
        ));
        assert!(matches!(
            e("type=snowflake,layout=nope"),
            Error::InvalidSpec { at: 22, .. }
        ));
        assert!(matches!(
            e("type=snowflake,layout=(time=60@1ms,worker=10,seq=12,epoch=0)"),
            Error::InvalidLayout { .. }
        ));
    }

    #[test]
    fn json_errors_point_at_the_problem() {
        assert_eq!(spec_at("{").0, 1);
        assert_eq!(spec_at("{}").0, 2); // missing type
        assert_eq!(spec_at(r#"{"type":"uuid4"} x"#).0, 17);
        assert_eq!(spec_at(r#"{"type":"uuid4",}"#).0, 16);
        assert_eq!(spec_at(r#"{"type" "uuid4"}"#).0, 8);
        assert_eq!(spec_at(r#"{"type":"uuid4""#).0, 15);
        assert_eq!(spec_at(r#"{"type":"uuid4"#).0, 14);
        assert_eq!(spec_at(r#"{"type":null}"#).0, 8);
        assert_eq!(spec_at(r#"{"type":["uuid4"]}"#).0, 8);
        assert_eq!(spec_at(r#"{"type":true}"#), (8, "expected a string value"));
        assert_eq!(spec_at(r#"{"type":5}"#), (8, "expected a string value"));
        assert_eq!(spec_at(r#"{"type":"uuid4","type":"uuid4"}"#).0, 16);
        let base = r#"{"type":"snowflake","layout":"twitter","node":"#;
        let n = base.len();
        assert_eq!(spec_at(&[base, "-1}"].concat()).0, n);
        assert_eq!(spec_at(&[base, "01}"].concat()).0, n);
        assert_eq!(spec_at(&[base, "1.5}"].concat()).0, n + 1);
        assert_eq!(spec_at(&[base, "1e3}"].concat()).0, n + 1);
        assert_eq!(spec_at(&[base, "true}"].concat()).0, n);
        assert_eq!(spec_at(&[base, "\"0x1\"}"].concat()).0, n);
        assert_eq!(spec_at(&[base, "18446744073709551616}"].concat()).0, n);
        assert_eq!(spec_at(r#"{"type":"uu\x"}"#).0, 11);
        assert_eq!(spec_at(r#"{"type":"uu\u12"}"#).0, 11);
        assert_eq!(spec_at(r#"{"type":"\ud800"}"#).0, 9);
        assert_eq!(spec_at("{\"type\":\"uu\u{1}\"}").0, 11);
        // Layout errors inside a verbatim string are re-based; with escapes they point at it.
        let s = r#"{"type":"snowflake","layout":"time=41@1xs,seq=12,epoch=0"}"#;
        let (at, _) = spec_at(s);
        assert_eq!(&s[at..at + 3], "1xs");
        let s = r#"{"type":"snowflake","layout":"tim\u0065=41@1xs,seq=12,epoch=0"}"#;
        assert_eq!(spec_at(s).0, 29);
        // Surrogate pairs decode.
        assert_eq!(
            spec_at(r#"{"type":"\ud83d\ude00"}"#),
            (8, "unknown type (snowflake, uuid4, uuid7, uuid1)")
        );
    }

    #[test]
    fn snowflake_generator_matches_local() {
        let c = NamedConfig::parse(
            "type=snowflake,layout=(time=41@1ms,worker=10,seq=2,epoch=2020-01-01),node=3,on_exhausted=borrow:1",
        )
        .unwrap();
        let mut g = c.build().unwrap();
        assert_eq!(g.kind(), NamedType::Snowflake);
        let mut l = LocalSnowflake::new(*c.snowflake_config().unwrap()).unwrap();
        for now in [T0, T0, T0, T0, T0, T0, T0, T0, T0, T0 + 5] {
            let a = g.next_at(now, no_random).map(|i| i.as_u64());
            let b = l.next_id_at(now).map(Some);
            assert_eq!(a, b);
        }
        let layout = *c.snowflake_config().unwrap().layout();
        let id = GeneratedId::U64(
            layout
                .compose(&Parts {
                    time: 1,
                    node: 3,
                    sequence: 0,
                    rollback: 0,
                })
                .unwrap(),
        );
        assert_eq!(id.to_string(), ((1u64 << 12) | (3 << 2)).to_string());
    }

    #[test]
    fn uuid_generators() {
        let mut r = counting();
        let mut g4 = NamedConfig::Uuid4.build().unwrap();
        let u = g4.next_at(T0, &mut r).unwrap();
        assert_eq!(u.to_string(), "00010203-0405-4607-8809-0a0b0c0d0e0f");

        let mut g7 = NamedConfig::parse("type=uuid7").unwrap().build().unwrap();
        let a = g7.next_at(T0, &mut r).unwrap();
        let b = g7.next_at(T0 - 5, &mut r).unwrap();
        assert!(b > a);
        assert_eq!(uuids::inspect(b.as_uuid().unwrap()).unix_ms, Some(T0));

        let mut g1 = NamedConfig::parse("type=uuid1").unwrap().build().unwrap();
        let mut calls = 0;
        let mut ids = vec![];
        for now in [T0, T0, T0 - 1, T0 + 1] {
            let id = g1
                .next_at(now, |b: &mut [u8]| {
                    calls += 1;
                    b.fill(0xab);
                    Ok(())
                })
                .unwrap();
            ids.push(*id.as_uuid().unwrap());
        }
        assert_eq!(calls, 1);
        for u in &ids {
            assert_eq!(u.get_version_num(), 1);
            assert_eq!(u.get_node_id().unwrap(), [0xab; 6]);
        }
        let ts: std::vec::Vec<u64> = ids
            .iter()
            .map(|u| u.get_timestamp().unwrap().to_gregorian().0)
            .collect();
        assert!(ts.windows(2).all(|w| w[0] < w[1]), "{ts:?}");
        assert_eq!(uuids::inspect(&ids[2]).unix_ms, Some(T0));
        assert_eq!(uuids::inspect(&ids[3]).unix_ms, Some(T0 + 1));
    }

    #[test]
    fn uuid1_carries_into_the_next_millisecond() {
        let mut g = Uuid1Generator::new();
        let fill = |b: &mut [u8]| {
            b.fill(0);
            Ok(())
        };
        let mut last = 0;
        for i in 0..10_001u64 {
            let u = g.next_at(T0, fill).unwrap();
            let t = u.get_timestamp().unwrap().to_gregorian().0;
            assert!(i == 0 || t > last);
            last = t;
        }
        assert_eq!(g.last_unix_ms(), Some(T0 + 1));
    }

    #[test]
    fn random_source_errors_pass_through() {
        let fail = |_: &mut [u8]| Err(Error::RandomSource);
        for c in [NamedConfig::Uuid4, NamedConfig::Uuid7, NamedConfig::Uuid1] {
            let mut g = c.build().unwrap();
            assert_eq!(g.next_at(T0, fail), Err(Error::RandomSource));
            assert_eq!(g.kind(), c.kind());
            assert!(c.kind().random_bytes() > 0);
        }
        let mut g = NamedConfig::parse("type=snowflake,layout=leaf,node=1")
            .unwrap()
            .build()
            .unwrap();
        assert!(g.next_at(T0, fail).is_ok());
    }

    #[test]
    fn types_by_name() {
        for t in NamedType::ALL {
            assert_eq!(NamedType::from_name(t.name()), Some(t));
            assert_eq!(t.to_string(), t.name());
        }
        assert_eq!(NamedType::from_name("UUID7"), None);
    }

    proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,80}") {
            let _ = NamedConfig::parse(&s);
        }

        #[test]
        fn never_panics_on_config_alphabet(s in "[{}\\[\\]\":,=() a-z0-9@._\\\\u-]{0,80}") {
            if let Ok(c) = NamedConfig::parse(&s) {
                prop_assert_eq!(NamedConfig::parse(&c.to_string()).unwrap(), c);
            }
        }

        #[test]
        fn json_prefix_never_panics(s in "\\{[\"a-z0-9:,\\\\u{}\\[\\] .-]{0,60}") {
            let _ = NamedConfig::parse(&s);
        }
    }
}
