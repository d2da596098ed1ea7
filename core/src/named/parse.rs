//! Reading a config's text: the JSON form when it starts with `{`, the compact form otherwise,
//! both into the same entries ([`NamedEntry`]).

use alloc::vec::Vec;

use super::compact::parse_compact;
use super::entry::NamedEntry;
use super::json::parse_json;
use crate::error::Result;

/// Parses either text form (see the [module docs](super)) into its entries, checking the syntax
/// only: which keys exist, repeat or belong to a type is for the interpreter
/// ([`NamedConfig::from_entries`](super::NamedConfig::from_entries), or a layer's own).
///
/// # Examples
/// ```
/// use idmint::named::parse_entries;
/// let e = parse_entries("type=segment, store=(sqlite:/tmp/ids.db), key=orders")?;
/// assert_eq!(e[1].key(), "store");
/// assert_eq!(e[1].text()?, "sqlite:/tmp/ids.db");
/// assert_eq!(e[2].value_at(), 46);
/// let json = parse_entries(r#"{"type":"segment","step":"500"}"#)?;
/// assert_eq!(json[1].u64()?, 500);
/// # Ok::<(), idmint::Error>(())
/// ```
pub fn parse_entries(s: &str) -> Result<Vec<NamedEntry>> {
    if s.trim_start().starts_with('{') {
        parse_json(s)
    } else {
        parse_compact(s)
    }
}
