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
//! | `type`           | all       | `snowflake`, `uuid4`, `uuid7` (monotonic), `uuid6` or `uuid1`  | required   |
//! | `layout`         | snowflake | a preset name, or a layout spec (parenthesised in compact form)| required   |
//! | `node`           | snowflake | the whole node value (all node sub-fields), an integer        | required ([`Error::NodeRequired`]) |
//! | `on_backwards`   | snowflake | [`OnBackwards`] text form (`fail`, `wait:MS`, `logical:MS`, `rollback_counter`, `ring:TICKS`) | `wait:1000` |
//! | `on_exhausted`   | snowflake | [`OnExhausted`] text form (`wait`, `borrow:TICKS`, `fail`)     | `wait`     |
//! | `sequence_start` | snowflake | [`SequenceStart`] text form (`zero`, `random`, `vibrate:K`)    | `zero`     |
//! | `seed`           | snowflake | seed of random sequence starts ([`Config::seed`]), an integer  | `0`        |
//! | `fence_ms`       | snowflake | time fence ([`Config::fence_ms`]), Unix ms                     | none       |
//! | `method`         | uuid7     | RFC 9562's monotonic method ([`Uuid7Method`](crate::formats::uuid::Uuid7Method)): `counter`, `random_increment`, `sub_millisecond` | `counter` |
//!
//! Types backed by a store are not sans-IO, so they live in `idmint-coord` (`idmint_coord::named`),
//! which reads the same two text forms ([`parse_entries`]), hands every config above to
//! [`NamedConfig::from_entries`] (same errors, same offsets) and adds:
//!
//! | config                                                   | generator                                              |
//! |----------------------------------------------------------|--------------------------------------------------------|
//! | `type=segment,store=URL,key=KEY[,step=N,journal=PATH,…]` | IDs of `KEY` from ranges of a segment store (`sqlite:PATH`, `postgres://…`, `redis://…`, `idmint+http://…`) |
//! | `type=snowflake,layout=…,lease=URL[,namespace=…,ttl_ms=…]` | a Snowflake generator on a node leased from `URL` (`local`, `file:DIR`, `redis://…`, `postgres://…`) instead of `node=` |
//! | a type registered by the program (`idmint_coord::named::register`) | whatever its factory builds                 |
//!
//! Here, in the core, `type=segment` is [`Error::InvalidSpec`] at its value and `lease` an
//! unknown key.
//!
//! `Display` prints the canonical compact form: keys in the order of this table, policies in
//! their canonical text (`wait` → `wait:1000`), a preset layout by name and any other layout as
//! its canonical spec in parentheses, `seed` only when not 0, `fence_ms` only when set and
//! `method` only when not `counter`.
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
//!
//! [`Error::NodeRequired`]: crate::Error::NodeRequired
//! [`Error::InvalidSpec`]: crate::Error::InvalidSpec
//! [`Error::InvalidConfig`]: crate::Error::InvalidConfig
//! [`OnBackwards`]: crate::OnBackwards
//! [`OnExhausted`]: crate::OnExhausted
//! [`SequenceStart`]: crate::SequenceStart
//! [`Config::seed`]: crate::Config::seed
//! [`Config::fence_ms`]: crate::Config::fence_ms
//! [`LocalSnowflake::new`]: crate::LocalSnowflake::new

#[cfg(feature = "std")]
pub mod clocked;
mod compact;
mod config;
mod entry;
mod generator;
mod json;
mod parse;
#[cfg(test)]
mod tests;

/// Version 1 UUIDs for `type=uuid1`; they live with the other UUID generators in
/// [`crate::formats::uuid`].
pub use crate::formats::uuid::Uuid1Generator;
pub use config::{NamedConfig, NamedType};
pub use entry::NamedEntry;
pub use generator::{GeneratedId, NamedGenerator};
pub use parse::parse_entries;
