//! A tiny JSON value that keeps object keys in insertion order (serde_json's map sorts them
//! unless its `preserve_order` feature is on, which would change it for the whole workspace),
//! printed in serde_json's pretty style. Strings are escaped by serde_json.

use std::io::{self, Write};

/// A JSON value with ordered objects.
#[derive(Debug, Clone)]
pub enum Json {
    Null,
    Bool(bool),
    U64(u64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// An empty object.
    pub fn obj() -> Json {
        Json::Obj(Vec::new())
    }

    /// Appends `key: value` to an object (no-op on other values).
    pub fn with(mut self, key: &str, value: impl Into<Json>) -> Json {
        self.push(key, value);
        self
    }

    /// Appends `key: value` to an object (no-op on other values).
    pub fn push(&mut self, key: &str, value: impl Into<Json>) {
        if let Json::Obj(items) = self {
            items.push((key.to_owned(), value.into()));
        }
    }

    /// Whether an object already has `key`.
    pub fn has(&self, key: &str) -> bool {
        match self {
            Json::Obj(items) => items.iter().any(|(k, _)| k == key),
            _ => false,
        }
    }

    /// Writes the value pretty-printed (two-space indent) followed by a newline.
    pub fn write_pretty(&self, out: &mut impl Write) -> io::Result<()> {
        self.write_at(out, 0)?;
        out.write_all(b"\n")
    }

    /// Writes the value pretty-printed as if nested `depth` levels deep (no trailing newline),
    /// for streaming the elements of an array one at a time.
    pub fn write_nested(&self, out: &mut impl Write, depth: usize) -> io::Result<()> {
        self.write_at(out, depth)
    }

    fn write_at(&self, out: &mut impl Write, depth: usize) -> io::Result<()> {
        match self {
            Json::Null => out.write_all(b"null"),
            Json::Bool(b) => write!(out, "{b}"),
            Json::U64(n) => write!(out, "{n}"),
            Json::Str(s) => write_str(out, s),
            Json::Arr(items) if items.is_empty() => out.write_all(b"[]"),
            Json::Obj(items) if items.is_empty() => out.write_all(b"{}"),
            Json::Arr(items) => {
                out.write_all(b"[\n")?;
                for (i, v) in items.iter().enumerate() {
                    indent(out, depth + 1)?;
                    v.write_at(out, depth + 1)?;
                    out.write_all(if i + 1 < items.len() { b",\n" } else { b"\n" })?;
                }
                indent(out, depth)?;
                out.write_all(b"]")
            }
            Json::Obj(items) => {
                out.write_all(b"{\n")?;
                for (i, (k, v)) in items.iter().enumerate() {
                    indent(out, depth + 1)?;
                    write_str(out, k)?;
                    out.write_all(b": ")?;
                    v.write_at(out, depth + 1)?;
                    out.write_all(if i + 1 < items.len() { b",\n" } else { b"\n" })?;
                }
                indent(out, depth)?;
                out.write_all(b"}")
            }
        }
    }
}

fn indent(out: &mut impl Write, depth: usize) -> io::Result<()> {
    for _ in 0..depth {
        out.write_all(b"  ")?;
    }
    Ok(())
}

fn write_str(out: &mut impl Write, s: &str) -> io::Result<()> {
    serde_json::to_writer(&mut *out, s).map_err(io::Error::from)
}

impl From<bool> for Json {
    fn from(b: bool) -> Json {
        Json::Bool(b)
    }
}

impl From<u64> for Json {
    fn from(n: u64) -> Json {
        Json::U64(n)
    }
}

impl From<u8> for Json {
    fn from(n: u8) -> Json {
        Json::U64(u64::from(n))
    }
}

impl From<&str> for Json {
    fn from(s: &str) -> Json {
        Json::Str(s.to_owned())
    }
}

impl From<String> for Json {
    fn from(s: String) -> Json {
        Json::Str(s)
    }
}

impl<T: Into<Json>> From<Option<T>> for Json {
    fn from(v: Option<T>) -> Json {
        v.map_or(Json::Null, Into::into)
    }
}

impl From<Vec<Json>> for Json {
    fn from(v: Vec<Json>) -> Json {
        Json::Arr(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_matches_serde_json() {
        let v = Json::obj()
            .with("id", "12\"3")
            .with("n", 5u64)
            .with("none", Option::<u64>::None)
            .with(
                "list",
                vec![Json::from(true), Json::obj(), Json::Arr(vec![])],
            )
            .with("o", Json::obj().with("a", 1u64));
        let mut buf = Vec::new();
        v.write_pretty(&mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        // Same text as serde_json's pretty printer, except that our keys keep their order.
        assert_eq!(parsed["id"], "12\"3");
        assert_eq!(parsed["o"]["a"], 1);
        assert!(text.starts_with("{\n  \"id\": \"12\\\"3\",\n  \"n\": 5,"));
    }
}
