//! [`NamedSpec`]: a parsed config as a type's factory reads it — its entries with their byte
//! offsets, and helpers whose errors point into the text as the core's do.

use idmint::named::NamedEntry;
use idmint::{Error, Result};

use crate::url_ref::redact;

/// A named config's entries, as the factory of its type reads them (see
/// [`register`](super::register)).
///
/// Every error these helpers return is [`Error::InvalidSpec`] with a byte offset into the whole
/// config text: at the key or value at fault, or at the end of the text for a missing key.
///
/// # Examples
/// ```
/// use idmint_coord::named::NamedSpec;
/// use idmint::named::parse_entries;
///
/// let text = "type=counter,start=5,name=(a,b)";
/// let entries = parse_entries(text)?;
/// let spec = NamedSpec::new(text, &entries);
/// spec.check_keys(&["type", "start", "name"], "unknown key (type, start, name)")?;
/// assert_eq!(spec.type_name(), Some("counter"));
/// assert_eq!(spec.u64("start")?, Some(5));
/// assert_eq!(spec.require_text("name", "needs name=")?, "a,b");
/// assert!(spec.require_text("step", "needs step=").is_err());
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct NamedSpec<'a> {
    input: &'a str,
    entries: &'a [NamedEntry],
}

impl<'a> NamedSpec<'a> {
    /// The spec of `entries`, parsed from `input` by [`idmint::named::parse_entries`].
    pub fn new(input: &'a str, entries: &'a [NamedEntry]) -> NamedSpec<'a> {
        NamedSpec { input, entries }
    }

    /// The whole config text.
    pub fn input(&self) -> &'a str {
        self.input
    }

    /// Every entry, in the order written.
    pub fn entries(&self) -> &'a [NamedEntry] {
        self.entries
    }

    /// The value of the first `type` key, if it is text.
    pub fn type_name(&self) -> Option<&'a str> {
        self.get("type").and_then(|e| e.text().ok())
    }

    /// The first entry with key `key`.
    pub fn get(&self, key: &str) -> Option<&'a NamedEntry> {
        self.entries.iter().find(|e| e.key() == key)
    }

    /// The text value of `key`, if given.
    pub fn text(&self, key: &str) -> Result<Option<&'a str>> {
        self.get(key).map(|e| e.text()).transpose()
    }

    /// The integer value of `key` (a JSON integer or decimal text), if given.
    pub fn u64(&self, key: &str) -> Result<Option<u64>> {
        self.get(key).map(|e| e.u64()).transpose()
    }

    /// The text value of `key`; `missing` (at the end of the text) if it is not given.
    pub fn require_text(&self, key: &str, missing: &'static str) -> Result<&'a str> {
        self.text(key)?.ok_or(Error::InvalidSpec {
            at: self.input.len(),
            reason: missing,
        })
    }

    /// Checks, in the order written, that every key is one of `known` (`unknown` at the key
    /// otherwise) and that none is given twice.
    pub fn check_keys(&self, known: &[&str], unknown: &'static str) -> Result<()> {
        for (i, e) in self.entries.iter().enumerate() {
            if !known.contains(&e.key()) {
                return Err(Error::InvalidSpec {
                    at: e.key_at(),
                    reason: unknown,
                });
            }
            if self.entries[..i].iter().any(|p| p.key() == e.key()) {
                return Err(Error::InvalidSpec {
                    at: e.key_at(),
                    reason: "key given twice",
                });
            }
        }
        Ok(())
    }
}

/// `key=value` as written, the value parenthesised when it holds a separator and, for a URL,
/// with any password hidden.
pub(super) fn entry_text(e: &NamedEntry, url: bool) -> String {
    let v = match (e.text(), e.u64()) {
        (Ok(t), _) => t.to_owned(),
        (_, Ok(n)) => n.to_string(),
        _ => String::new(),
    };
    let v = if url { redact(&v) } else { v };
    if v.contains([',', '(']) || v.trim() != v {
        format!("{}=({v})", e.key())
    } else {
        format!("{}={v}", e.key())
    }
}

/// The whole config as written, in the compact form, with the passwords of the keys in `urls`
/// hidden.
pub(super) fn written(spec: &NamedSpec<'_>, urls: &[&str]) -> String {
    let parts: Vec<String> = spec
        .entries()
        .iter()
        .map(|e| entry_text(e, urls.contains(&e.key())))
        .collect();
    parts.join(",")
}
