//! Python keyword arguments as the core's options: each given keyword becomes one
//! `set(name, value)` call on the core's `SnowflakeOptions`, `LeasedSnowflakeOptions` or `SegmentAllocatorOptions`, which
//! own the keys, their defaults and their checks.

use idmint::named::NamedConfig;
use idmint::snowflake::options::{OptionValue, SnowflakeOptions, KEYS};
use idmint::Config;
use pyo3::prelude::*;

use crate::error::IntoPyResult;
use crate::layout::{LayoutArg, NodeArg};

/// The core's default of a generator key, as text (`on_backwards` → `wait:1000`).
pub fn default(key: &str) -> &'static str {
    KEYS.iter()
        .find(|k| k.name == key)
        .and_then(|k| k.default)
        .unwrap_or("")
}

/// One keyword argument: its name and its value, `None` when not given.
pub type Keyword<'a> = (&'static str, Option<OptionValue<'a>>);

/// Sets the given keywords in order with the core's `set(key, value)` (which checks each value
/// as it is set).
pub fn set_all<'a, S>(mut set: S, items: impl IntoIterator<Item = Keyword<'a>>) -> PyResult<()>
where
    S: FnMut(&str, OptionValue<'a>) -> idmint::Result<()>,
{
    items
        .into_iter()
        .try_for_each(|(key, value)| value.map_or(Ok(()), |v| set(key, v)))
        .py()
}

/// The generator keywords of every generator class, in signature order (`policies`:
/// on_backwards, on_exhausted, sequence_start).
pub fn generator_keywords<'a>(
    layout: &LayoutArg,
    policies: [&'a str; 3],
    seed: Option<u64>,
    fence_ms: Option<u64>,
) -> [Keyword<'a>; 6] {
    let [b, e, s] = policies.map(|p| Some(OptionValue::Text(p)));
    let int = |v: Option<u64>| v.map(OptionValue::Int);
    let layout = Some(OptionValue::Layout(layout.0));
    [
        ("layout", layout),
        ("on_backwards", b),
        ("on_exhausted", e),
        ("sequence_start", s),
        ("seed", int(seed)),
        ("fence_ms", int(fence_ms)),
    ]
}

/// The config of a `Snowflake` or `AtomicSnowflake` built from keyword arguments.
pub fn generator(
    layout: LayoutArg,
    node: Option<NodeArg>,
    policies: [&str; 3],
    seed: Option<u64>,
    fence_ms: Option<u64>,
) -> PyResult<Config> {
    let mut o = SnowflakeOptions::new();
    let keywords = generator_keywords(&layout, policies, seed, fence_ms);
    set_all(|k, v| o.set(k, v), keywords)?;
    if let Some(node) = node {
        node.set_on(&mut o)?;
    }
    o.config().py()
}

/// The Snowflake config a named-generator config string holds (the core refuses other types).
pub fn named_snowflake(config: &str) -> PyResult<Config> {
    NamedConfig::parse_snowflake(config).py()
}
