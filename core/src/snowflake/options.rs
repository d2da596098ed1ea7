//! Generator options by key: the one place that names them, gives their defaults and checks
//! them. CLI flags, Python keywords, JavaScript option objects and the C struct all convert
//! into [`SnowflakeOptions`], so every surface accepts the same keys with the same rules and answers a
//! mistake with the same error.
//!
//! A binding only turns each host value into an [`OptionValue`] and calls [`SnowflakeOptions::set`] (or
//! [`SnowflakeOptions::set_node_part`] for a node given by sub-field names); [`SnowflakeOptions::config`] then
//! resolves the layout first and the node under it, whatever order the keys came in.
//!
//! # Examples
//! ```
//! use idmint::snowflake::options::{OptionValue, SnowflakeOptions};
//! let mut o = SnowflakeOptions::new();
//! o.set_node_part("worker", 5)?; // before the layout: resolved at the end
//! o.set_node_part("datacenter", 1)?;
//! o.set("layout", OptionValue::Text("twitter"))?;
//! o.set("onBackwards", OptionValue::Text("logical:500"))?;
//! let cfg = o.config()?;
//! assert_eq!(cfg.node_value(), Some(37));
//! # Ok::<(), idmint::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::field_name::Name;
use crate::snowflake::layout::{Layout, MAX_FIELDS};
use crate::snowflake::policy::{Config, OnBackwards, OnExhausted, SequenceStart};
use crate::snowflake::preset;

/// What an option key takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    /// A layout object, a preset name or a text spec.
    Layout,
    /// A whole node value, or node sub-fields by name.
    Node,
    /// A policy word (`wait:1000`, `borrow:16`, ...).
    Text,
    /// An unsigned 64-bit integer.
    Int,
}

/// One generator option: its names in each spelling, what it takes and its default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionKey {
    /// The snake_case name (Rust, Python, C, the CLI's `--on-backwards` without dashes).
    pub name: &'static str,
    /// The camelCase name (JavaScript).
    pub camel: &'static str,
    /// What the key takes.
    pub takes: Takes,
    /// The default, as the text a user would write; `None` when there is none (`node`).
    pub default: Option<&'static str>,
}

const fn key(
    name: &'static str,
    camel: &'static str,
    takes: Takes,
    default: Option<&'static str>,
) -> OptionKey {
    OptionKey {
        name,
        camel,
        takes,
        default,
    }
}

/// Every generator option, in the order the documentation lists them.
pub const KEYS: &[OptionKey] = &[
    key("layout", "layout", Takes::Layout, Some("twitter")),
    key("node", "node", Takes::Node, None),
    key(
        "on_backwards",
        "onBackwards",
        Takes::Text,
        Some("wait:1000"),
    ),
    key("on_exhausted", "onExhausted", Takes::Text, Some("wait")),
    key("sequence_start", "sequenceStart", Takes::Text, Some("zero")),
    key("seed", "seed", Takes::Int, Some("0")),
    key("fence_ms", "fenceMs", Takes::Int, None),
];

const UNKNOWN_KEY: &str =
    "is not an option (layout, node, on_backwards, on_exhausted, sequence_start, seed, fence_ms)";

/// The option named `name` in either spelling (`on_backwards` or `onBackwards`).
pub fn find_key(name: &str) -> Result<&'static OptionKey> {
    find_in(KEYS, name, UNKNOWN_KEY)
}

/// The key of `keys` named `name` in either spelling, or [`Error::InvalidArgument`] with
/// `unknown` (the sentence that lists the keys): the lookup of every options-by-key table,
/// the core's and `idmint-coord`'s.
pub fn find_in(
    keys: &'static [OptionKey],
    name: &str,
    unknown: &'static str,
) -> Result<&'static OptionKey> {
    keys.iter()
        .find(|k| k.name == name || k.camel == name)
        .ok_or(Error::InvalidArgument {
            argument: Name::lossy(name),
            reason: unknown,
        })
}

/// A value a host language gave for an option key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionValue<'a> {
    /// Text: a preset name or layout spec, a policy word.
    Text(&'a str),
    /// An unsigned integer: a whole node value, a seed, a time in ms.
    Int(u64),
    /// A layout object of the host language.
    Layout(Layout),
}

/// Generator options gathered key by key; [`config`](SnowflakeOptions::config) checks and resolves them.
#[derive(Debug, Clone, Copy)]
pub struct SnowflakeOptions {
    layout: Option<Layout>,
    node: Option<u64>,
    parts: [(Name, u64); MAX_FIELDS],
    n_parts: usize,
    on_backwards: Option<OnBackwards>,
    on_exhausted: Option<OnExhausted>,
    sequence_start: Option<SequenceStart>,
    seed: Option<u64>,
    fence_ms: Option<u64>,
}

impl Default for SnowflakeOptions {
    fn default() -> SnowflakeOptions {
        SnowflakeOptions {
            layout: None,
            node: None,
            parts: [(Name::lit("node"), 0); MAX_FIELDS],
            n_parts: 0,
            on_backwards: None,
            on_exhausted: None,
            sequence_start: None,
            seed: None,
            fence_ms: None,
        }
    }
}

impl SnowflakeOptions {
    /// No option given: every key at its default, and no node.
    pub fn new() -> SnowflakeOptions {
        SnowflakeOptions::default()
    }

    /// Sets option `key` (snake_case or camelCase) to `value`, checking the value's type and
    /// text now; the node is checked against the layout in [`config`](Self::config).
    pub fn set(&mut self, key: &str, value: OptionValue<'_>) -> Result<()> {
        let k = find_key(key)?;
        let wrong = || Error::InvalidArgument {
            argument: Name::lossy(k.name),
            reason: match k.takes {
                Takes::Layout => "takes a layout, a preset name or a spec",
                Takes::Node => "takes a node number or node sub-fields by name",
                Takes::Text => "takes a policy text",
                Takes::Int => "takes an unsigned integer",
            },
        };
        match (k.name, value) {
            ("layout", OptionValue::Layout(l)) => self.layout = Some(l),
            ("layout", OptionValue::Text(s)) => self.layout = Some(Layout::parse(s)?),
            ("node", OptionValue::Int(n)) => {
                self.node = Some(n);
                self.n_parts = 0;
            }
            ("on_backwards", OptionValue::Text(s)) => self.on_backwards = Some(s.parse()?),
            ("on_exhausted", OptionValue::Text(s)) => self.on_exhausted = Some(s.parse()?),
            ("sequence_start", OptionValue::Text(s)) => self.sequence_start = Some(s.parse()?),
            ("seed", OptionValue::Int(n)) => self.seed = Some(n),
            ("fence_ms", OptionValue::Int(n)) => self.fence_ms = Some(n),
            _ => return Err(wrong()),
        }
        Ok(())
    }

    /// Sets one node sub-field by name (`datacenter`, `worker`, ...). The node is then joined
    /// from the sub-fields under the layout by [`Layout::node_from_parts`]'s rule: every
    /// sub-field given exactly once, no unknown name.
    pub fn set_node_part(&mut self, name: &str, value: u64) -> Result<()> {
        if self.n_parts == MAX_FIELDS {
            return Err(Error::InvalidArgument {
                argument: Name::lossy(name),
                reason: "is one node sub-field too many",
            });
        }
        self.parts[self.n_parts] = (Name::lossy(name), value);
        self.n_parts += 1;
        self.node = None;
        Ok(())
    }

    /// The layout given, or the default (`twitter`).
    pub fn layout(&self) -> Layout {
        self.layout.unwrap_or_else(preset::twitter)
    }

    /// The checked generator config: the layout (default `twitter`), the node (whole or joined
    /// from sub-fields; none when not given) and the policies.
    pub fn config(&self) -> Result<Config> {
        let layout = self.layout();
        let mut cfg = Config::new(layout);
        if let Some(n) = self.node {
            layout.node_to_bits(n)?;
            cfg = cfg.node(n);
        } else if self.n_parts > 0 {
            let mut parts = [("", 0u64); MAX_FIELDS];
            for (slot, (name, v)) in parts.iter_mut().zip(&self.parts[..self.n_parts]) {
                *slot = (name.as_str(), *v);
            }
            cfg = cfg.node(layout.node_from_parts(&parts[..self.n_parts])?);
        }
        if let Some(p) = self.on_backwards {
            cfg = cfg.on_backwards(p);
        }
        if let Some(p) = self.on_exhausted {
            cfg = cfg.on_exhausted(p);
        }
        if let Some(p) = self.sequence_start {
            cfg = cfg.sequence_start(p);
        }
        if let Some(s) = self.seed {
            cfg = cfg.seed(s);
        }
        if let Some(f) = self.fence_ms {
            cfg = cfg.fence_ms(f);
        }
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn keys_in_either_spelling_and_unknown_keys() {
        let mut o = SnowflakeOptions::new();
        o.set("on_exhausted", OptionValue::Text("fail")).unwrap();
        o.set("sequenceStart", OptionValue::Text("random")).unwrap();
        o.set("fenceMs", OptionValue::Int(9)).unwrap();
        let e = o.set("onBackward", OptionValue::Text("fail")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(e
            .to_string()
            .starts_with("invalid argument `onBackward`: is not an option"));
        let e = o.set("seed", OptionValue::Text("1")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid argument `seed`: takes an unsigned integer"
        );
        let cfg = o.config().unwrap();
        assert_eq!(cfg.node_value(), None);
        assert_eq!(
            cfg.on_exhausted_policy(),
            crate::snowflake::policy::OnExhausted::Fail
        );
    }

    #[test]
    fn node_parts_resolve_after_the_layout() {
        let mut o = SnowflakeOptions::new();
        o.set_node_part("worker", 3).unwrap();
        o.set("layout", OptionValue::Text("discord")).unwrap();
        let e = o.config().unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid argument `process`: is a node sub-field of the layout and missing"
        );
        o.set_node_part("process", 2).unwrap();
        assert_eq!(o.config().unwrap().node_value(), Some(3 << 5 | 2));
        let mut o = SnowflakeOptions::new();
        o.set_node_part("worker", 3).unwrap();
        let mut o = SnowflakeOptions::new();
        o.set_node_part("worker", 3).unwrap();
        let e = o.config().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert_eq!(
            e.to_string(),
            "invalid argument `datacenter`: is a node sub-field of the layout and missing"
        );
        o.set("node", OptionValue::Int(1 << 10)).unwrap();
        assert_eq!(o.config().unwrap_err().kind(), ErrorKind::OutOfRange);
    }
}
