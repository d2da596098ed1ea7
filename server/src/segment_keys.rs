//! Segment key names and which keys the service serves.
//!
//! A key comes from a URL path, so after percent-decoding it could hold quotes, braces,
//! newlines or control characters that end up in metrics, logs, the monitor page and the
//! store. [`check_key_name`] is the one rule every route and `--keys` apply:
//! `[A-Za-z0-9._:-]{1,128}`.
//!
//! [`KeyRegistry`] decides whether a request may use a key: a pre-registered one always; an
//! unknown one only with auto-keys on, and only while the auto-created keys stay under their
//! cap. The auto-created keys are recorded in a file in the data directory (one per line, with
//! the keys the journal resumed), so a restart does not reset the cap.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock};

use axum::http::StatusCode;

use crate::error::ApiError;

/// Longest key name, in bytes (every allowed character is one byte).
pub const MAX_KEY_LEN: usize = 128;

/// The rule, as error messages show it.
pub const KEY_RULE: &str = "1 to 128 characters of A-Z a-z 0-9 . _ : - ([A-Za-z0-9._:-]{1,128})";

/// The name of the file in the data directory that records the auto-created keys.
pub const REGISTRY_FILE: &str = "auto-keys";

fn allowed(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-')
}

/// Whether `key` is a valid segment key name: `[A-Za-z0-9._:-]{1,128}`.
pub fn is_valid_key_name(key: &str) -> bool {
    (1..=MAX_KEY_LEN).contains(&key.len()) && key.bytes().all(allowed)
}

/// `key` shown safely in a message: its first 40 characters, every one outside the allowed
/// set written as `\u{…}` (so no control character, quote or markup is echoed raw).
fn shown(key: &str) -> String {
    let mut out = String::new();
    for c in key.chars().take(40) {
        if c.is_ascii() && allowed(c as u8) {
            out.push(c);
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    if key.chars().nth(40).is_some() {
        out.push('…');
    }
    out
}

/// Checks a segment key name; the error is a 400 `ERR_INVALID_ARGUMENT` that shows the
/// allowed form. The one check every route and `--keys` use.
pub fn check_key_name(key: &str) -> Result<(), ApiError> {
    if is_valid_key_name(key) {
        return Ok(());
    }
    let what = if key.is_empty() {
        "an empty segment key".to_owned()
    } else if key.len() > MAX_KEY_LEN {
        format!("a segment key of {} bytes", key.len())
    } else {
        format!("segment key \"{}\"", shown(key))
    };
    Err(ApiError::bad_arg(format!(
        "{what} is not allowed: a key is {KEY_RULE}"
    )))
}

/// Which keys the service serves: the pre-registered ones, and with auto-keys the ones
/// created on first use, at most `limit` of them (counting those recorded by earlier runs).
pub struct KeyRegistry {
    configured: HashSet<String>,
    auto: bool,
    limit: usize,
    created: RwLock<HashSet<String>>,
    record: Mutex<Option<File>>,
    path: PathBuf,
}

impl KeyRegistry {
    /// The registry of a data directory: `configured` keys, auto-keys on or off, at most
    /// `limit` auto-created keys. Reads the keys recorded by earlier runs, and records
    /// `resumed` (keys the journal brought back) that are neither configured nor recorded.
    pub fn open(
        data_dir: &Path,
        configured: &[String],
        auto: bool,
        limit: usize,
        resumed: &[String],
    ) -> idmint::Result<KeyRegistry> {
        let path = data_dir.join(REGISTRY_FILE);
        let configured: HashSet<String> = configured.iter().cloned().collect();
        let mut created = HashSet::new();
        match File::open(&path) {
            Ok(f) => {
                for line in BufReader::new(f).lines() {
                    let line = line.map_err(|_| registry_error("read"))?;
                    if is_valid_key_name(&line) && !configured.contains(&line) {
                        created.insert(line);
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return Err(registry_error("open")),
        }
        let reg = KeyRegistry {
            configured,
            auto,
            limit,
            created: RwLock::new(created),
            record: Mutex::new(None),
            path,
        };
        for k in resumed {
            if is_valid_key_name(k) && !reg.configured.contains(k) {
                let mut set = reg.created.write().unwrap_or_else(|p| p.into_inner());
                if set.insert(k.clone()) {
                    reg.append(k).map_err(|_| registry_error("write"))?;
                }
            }
        }
        Ok(reg)
    }

    /// Whether unknown keys are created on first use.
    pub fn auto(&self) -> bool {
        self.auto
    }

    /// Most auto-created keys.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// How many auto-created keys are known (this run's and earlier runs').
    pub fn created(&self) -> usize {
        self.created.read().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether `key` is pre-registered.
    pub fn is_configured(&self, key: &str) -> bool {
        self.configured.contains(key)
    }

    /// Admits `key` for a request: a valid name, and pre-registered, or (with auto-keys)
    /// already created or created now within the cap. A new key is recorded before it is
    /// used, so the store never holds a key the cap did not count.
    pub fn admit(&self, key: &str) -> Result<(), ApiError> {
        check_key_name(key)?;
        if self.configured.contains(key) {
            return Ok(());
        }
        if !self.auto {
            return Err(ApiError::not_found(format!(
                "unknown segment key \"{key}\" (this service serves only its configured keys)"
            )));
        }
        if self
            .created
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .contains(key)
        {
            return Ok(());
        }
        let mut set = self.created.write().unwrap_or_else(|p| p.into_inner());
        if set.contains(key) {
            return Ok(());
        }
        if set.len() >= self.limit {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "ERR_LIMIT_EXCEEDED",
                format!(
                    "this service already created {} segment keys, its limit (--max-auto-keys); \
                     use an existing key or pre-register it with --keys",
                    self.limit
                ),
            ));
        }
        self.append(key).map_err(|_| {
            ApiError::unavailable(
                "ERR_STORE_UNAVAILABLE",
                "cannot record a new segment key in the data directory",
            )
        })?;
        set.insert(key.to_owned());
        Ok(())
    }

    /// Appends `key` to the record (opened on first use). A crash of the process loses
    /// nothing written; a crash of the machine may lose the last keys, which then count
    /// again when next used.
    fn append(&self, key: &str) -> std::io::Result<()> {
        let mut f = self.record.lock().unwrap_or_else(|p| p.into_inner());
        if f.is_none() {
            *f = Some(
                OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&self.path)?,
            );
        }
        match f.as_mut() {
            Some(file) => file.write_all(format!("{key}\n").as_bytes()),
            None => Err(std::io::Error::other("not open")),
        }
    }
}

fn registry_error(op: &'static str) -> idmint::Error {
    idmint::Error::StoreUnavailable {
        store: "file",
        op: match op {
            "read" => "read the auto-created keys",
            "open" => "open the auto-created keys",
            _ => "record the auto-created keys",
        },
        reason: "I/O error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_rule() {
        for ok in ["a", "orders", "A.b_c:d-9", &"x".repeat(128)] {
            assert!(is_valid_key_name(ok), "{ok}");
        }
        for bad in [
            "",
            "a\"b",
            "a}b",
            "a\nb",
            "a b",
            "é",
            "a/b",
            &"x".repeat(129),
        ] {
            assert!(!is_valid_key_name(bad), "{bad:?}");
            let e = check_key_name(bad).unwrap_err();
            assert_eq!(e.code, "ERR_INVALID_ARGUMENT");
            assert!(
                e.message.contains("[A-Za-z0-9._:-]{1,128}"),
                "{}",
                e.message
            );
            assert!(!e.message.chars().any(char::is_control), "{:?}", e.message);
            assert!(!e.message[..e.message.find(" is not").unwrap()].contains("a\"b"));
        }
    }
}
