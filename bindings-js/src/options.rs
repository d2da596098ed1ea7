//! Option objects into the core's options by key ([`idmint::snowflake::options`], and the coord crate's
//! `LeasedSnowflakeOptions` / `SegmentAllocatorOptions`), and node arguments into [`Layout::node_from_parts`]'s
//! rule. The core names the keys, says what each takes, gives the defaults and answers unknown
//! keys and sub-fields (`ERR_INVALID_ARGUMENT`); this module only converts each value by what
//! its key takes. `undefined` and `null` values count as absent.

use idmint::snowflake::options::{find_key, OptionValue, SnowflakeOptions, Takes};
use idmint::{Config, Error, Layout, Name, Parts};

use crate::convert::{expect_object, is_nullish, layout_arg, string_arg, u64_arg, wrong};
use crate::error::OrThrow;
use crate::{Class, Host, JsType, Out};

/// Options set key by key: the core's `SnowflakeOptions` or coord's `LeasedSnowflakeOptions` or
/// `SegmentAllocatorOptions`.
pub trait KeyedOptions {
    /// What `key` takes, or `None` when it is no key of these options.
    fn takes(key: &str) -> Option<Takes>;
    /// Sets `key` (the core checks it, and answers an unknown key).
    fn set(&mut self, key: &str, v: OptionValue<'_>) -> idmint::Result<()>;
    /// Sets one node sub-field by name.
    fn set_node_part(&mut self, name: &str, v: u64) -> idmint::Result<()>;
    /// The keys in their JavaScript (camelCase) spelling, in documentation order, for the error
    /// that answers an unknown key (the core's lists the snake_case names).
    fn camel_keys() -> Vec<&'static str>;
}

impl KeyedOptions for SnowflakeOptions {
    fn takes(key: &str) -> Option<Takes> {
        find_key(key).ok().map(|k| k.takes)
    }
    fn set(&mut self, key: &str, v: OptionValue<'_>) -> idmint::Result<()> {
        SnowflakeOptions::set(self, key, v)
    }
    fn set_node_part(&mut self, name: &str, v: u64) -> idmint::Result<()> {
        SnowflakeOptions::set_node_part(self, name, v)
    }
    fn camel_keys() -> Vec<&'static str> {
        idmint::snowflake::options::KEYS
            .iter()
            .map(|k| k.camel)
            .collect()
    }
}

#[cfg(feature = "coord")]
impl KeyedOptions for idmint_coord::options::LeasedSnowflakeOptions {
    fn takes(key: &str) -> Option<Takes> {
        Self::takes(key)
    }
    fn set(&mut self, key: &str, v: OptionValue<'_>) -> idmint::Result<()> {
        Self::set(self, key, v)
    }
    fn set_node_part(&mut self, name: &str, v: u64) -> idmint::Result<()> {
        Self::set_node_part(self, name, v)
    }
    fn camel_keys() -> Vec<&'static str> {
        let generator = idmint::snowflake::options::KEYS.iter();
        let lease = idmint_coord::options::LEASE_KEYS.iter();
        generator.chain(lease).map(|k| k.camel).collect()
    }
}

#[cfg(feature = "coord")]
impl KeyedOptions for idmint_coord::options::SegmentAllocatorOptions {
    fn takes(key: &str) -> Option<Takes> {
        Self::takes(key)
    }
    fn set(&mut self, key: &str, v: OptionValue<'_>) -> idmint::Result<()> {
        Self::set(self, key, v)
    }
    fn set_node_part(&mut self, _: &str, v: u64) -> idmint::Result<()> {
        // Segment allocators take no node: the core answers the key as unknown.
        Self::set(self, "node", OptionValue::Int(v))
    }
    fn camel_keys() -> Vec<&'static str> {
        let keys = idmint_coord::options::SEGMENT_KEYS.iter().map(|k| k.camel);
        keys.chain(["obfuscator"]).collect()
    }
}

/// A hook of [`read`] that takes a key before the options do: `(key, value)` → whether it did.
pub type SpecialKeys<'a, H> =
    dyn FnMut(&str, &<H as Host>::Value) -> Result<bool, <H as Host>::Error> + 'a;

/// Reads the options object `v` (absent, `undefined` or `null`: every default) into `o`.
/// `special(key, value)`, if given, may take a key first (a segment allocator's `obfuscator`
/// object, the browser lease client's request keys) and answers whether it did. (A `dyn`
/// function, so that every caller shares one copy of this function per options type; `None`
/// rather than a function that takes nothing, so that a build whose callers all pass `None`
/// (the browser's Snowflake entry) keeps no call through it.)
pub fn read<H: Host, O: KeyedOptions>(
    h: &H,
    v: Option<&H::Value>,
    o: &mut O,
    mut special: Option<&mut SpecialKeys<'_, H>>,
) -> Result<(), H::Error> {
    let Some(v) = v.filter(|v| !is_nullish(h, v)) else {
        return Ok(());
    };
    expect_object(h, v, "options")?;
    for key in h.own_keys(v)? {
        let x = h.get(v, &key)?;
        if is_nullish(h, &x) {
            continue;
        }
        if let Some(take) = special.as_mut() {
            if take(&key, &x)? {
                continue;
            }
        }
        let what = format!("options.{key}");
        let text;
        let value = match O::takes(&key) {
            Some(Takes::Layout) => OptionValue::Layout(layout_arg(h, &x, &what)?),
            Some(Takes::Text) => {
                text = string_arg(h, &x, &what)?;
                OptionValue::Text(&text)
            }
            Some(Takes::Int) => OptionValue::Int(u64_arg(h, &x, &what)?),
            Some(Takes::Node) if h.type_of(&x) == JsType::Object => {
                for (name, n) in node_parts(h, &x, &what)? {
                    o.set_node_part(&name, n).or_throw(h)?;
                }
                continue;
            }
            Some(Takes::Node) => OptionValue::Int(node_number(h, &x, &what)?),
            None => return Err(unknown_key::<H, O>(h, &key)),
        };
        o.set(&key, value).or_throw(h)?;
    }
    Ok(())
}

/// The core's `ERR_INVALID_ARGUMENT` for a key these options do not have, listing the keys as
/// JavaScript spells them.
fn unknown_key<H: Host, O: KeyedOptions>(h: &H, key: &str) -> H::Error {
    let argument = Name::lossy(key);
    let reason = format!("is not an option ({})", O::camel_keys().join(", "));
    let e = Error::InvalidArgument {
        argument,
        reason: "",
    };
    let message = format!("invalid argument `{argument}`: {reason}");
    h.throw(
        Class::TypeError,
        e.code(),
        &message,
        &[
            ("argument", Out::Str(argument.as_str())),
            ("reason", Out::Str(&reason)),
        ],
    )
}

/// The generator config of a `Snowflake` / `AtomicSnowflake` options object.
pub fn snowflake_config<H: Host>(h: &H, v: Option<&H::Value>) -> Result<Config, H::Error> {
    let mut o = SnowflakeOptions::new();
    read(h, v, &mut o, None)?;
    o.config().or_throw(h)
}

/// A whole node value given as a number or bigint.
fn node_number<H: Host>(h: &H, v: &H::Value, what: &str) -> Result<u64, H::Error> {
    match h.type_of(v) {
        JsType::Number | JsType::BigInt => u64_arg(h, v, what),
        _ => Err(wrong(
            h,
            v,
            what,
            "a bigint, an integer number or an object of node sub-field values",
        )),
    }
}

/// The sub-field values of a node object, by name (`undefined`/`null` values left out).
fn node_parts<H: Host>(h: &H, v: &H::Value, what: &str) -> Result<Vec<(String, u64)>, H::Error> {
    let mut parts = Vec::new();
    for name in h.own_keys(v)? {
        let x = h.get(v, &name)?;
        if !is_nullish(h, &x) {
            let n = u64_arg(h, &x, &format!("{what}.{name}"))?;
            parts.push((name, n));
        }
    }
    Ok(parts)
}

/// A node argument under `layout`: a whole value, or sub-field values by name joined by the
/// core's rule ([`Layout::node_from_parts`]: each sub-field exactly once, no other name).
pub fn node_arg<H: Host>(
    h: &H,
    v: &H::Value,
    layout: &Layout,
    what: &str,
) -> Result<u64, H::Error> {
    if h.type_of(v) != JsType::Object {
        return node_number(h, v, what);
    }
    let parts = node_parts(h, v, what)?;
    let parts: Vec<(&str, u64)> = parts.iter().map(|(k, n)| (k.as_str(), *n)).collect();
    layout.node_from_parts(&parts).or_throw(h)
}

/// The `Parts` `Layout.compose` takes: every value defaults to 0, `node` may give the
/// sub-fields by name, and a `Parts` object from `decompose` composes back (its `nodeFields`
/// and `timestampMs` are ignored).
pub fn compose_parts<H: Host>(h: &H, v: &H::Value, layout: &Layout) -> Result<Parts, H::Error> {
    expect_object(h, v, "parts")?;
    let mut p = Parts {
        time: 0,
        node: 0,
        sequence: 0,
        rollback: 0,
    };
    for key in h.own_keys(v)? {
        let x = h.get(v, &key)?;
        let what = format!("parts.{key}");
        let slot = match key.as_str() {
            "time" => &mut p.time,
            "node" => &mut p.node,
            "sequence" => &mut p.sequence,
            "rollback" => &mut p.rollback,
            "nodeFields" | "timestampMs" => continue,
            _ => {
                let reason = "is not a part (time, node, sequence, rollback)";
                return Err(Error::InvalidArgument {
                    argument: Name::lossy(&key),
                    reason,
                })
                .or_throw(h);
            }
        };
        if is_nullish(h, &x) {
            continue;
        }
        *slot = if key == "node" {
            node_arg(h, &x, layout, &what)?
        } else {
            u64_arg(h, &x, &what)?
        };
    }
    Ok(p)
}
