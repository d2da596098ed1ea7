//! Store URLs given by reference, so that a URL with a password need not appear on a command
//! line (where every user of the host can read it in `/proc/PID/cmdline`) or in a config file
//! checked into version control.
//!
//! | text | the URL is |
//! |---|---|
//! | `@env:NAME` | the value of environment variable `NAME` |
//! | `@PATH` | the first line of the file at `PATH` (keep it readable by its owner only) |
//! | anything else | the text itself |
//!
//! Every place that takes a store URL accepts these: `--lease` and `--store` in the CLI,
//! [`lease::open`](crate::lease::open), [`segment::open_store`](crate::segment::open_store),
//! node sources, and the bindings that pass URLs through.

use idmint::{Error, Result};

/// The longest URL file read.
const MAX_URL_FILE_BYTES: u64 = 64 * 1024;

fn invalid(reason: &'static str) -> Error {
    Error::InvalidConfig { reason }
}

/// Resolves a URL reference (see the [module docs](self)); plain URLs come back unchanged.
///
/// # Examples
/// ```
/// use idmint_coord::url_ref::resolve;
/// assert_eq!(resolve("redis://127.0.0.1/")?, "redis://127.0.0.1/");
/// std::env::set_var("IDMINT_DOC_URL", "postgres://u:secret@db/ids");
/// assert_eq!(resolve("@env:IDMINT_DOC_URL")?, "postgres://u:secret@db/ids");
/// assert!(resolve("@env:IDMINT_DOC_UNSET").is_err());
/// # Ok::<(), idmint::Error>(())
/// ```
pub fn resolve(text: &str) -> Result<String> {
    let text = text.trim();
    let Some(reference) = text.strip_prefix('@') else {
        return Ok(text.to_string());
    };
    let url = if let Some(name) = reference.strip_prefix("env:") {
        if name.is_empty() || name.contains(['=', '\0']) {
            return Err(invalid(
                "@env: needs a variable name (@env:IDMINT_STORE_URL)",
            ));
        }
        std::env::var(name).map_err(|e| match e {
            std::env::VarError::NotPresent => {
                invalid("the store URL's environment variable is not set")
            }
            std::env::VarError::NotUnicode(_) => {
                invalid("the store URL's environment variable is not valid text")
            }
        })?
    } else {
        if reference.is_empty() {
            return Err(invalid("@ needs a file path (@/run/secrets/idmint-store)"));
        }
        use std::io::Read;
        let mut text = String::new();
        std::fs::File::open(reference)
            .and_then(|f| f.take(MAX_URL_FILE_BYTES).read_to_string(&mut text))
            .map_err(|_| invalid("the store URL file could not be read"))?;
        text.lines().next().unwrap_or("").to_string()
    };
    let url = url.trim();
    if url.is_empty() {
        return Err(invalid("the store URL reference is empty"));
    }
    if url.starts_with('@') {
        return Err(invalid(
            "a store URL reference cannot point at another reference",
        ));
    }
    Ok(url.to_string())
}

/// `url` with any password replaced by `***`, for messages and `Display`.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (auth, tail) = rest.split_at(auth_end);
    match auth.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}{tail}"),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

/// Decodes `%XX` escapes of a URL query value; `None` for a malformed escape or text that is
/// not UTF-8 once decoded. One rule for every store URL.
#[cfg(any(
    feature = "redis",
    feature = "postgres",
    feature = "http",
    feature = "mysql"
))]
pub(crate) fn percent_decode(v: &str) -> Option<String> {
    let b = v.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let byte = b
                .get(i + 1..i + 3)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())?;
            out.push(byte);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_give_their_first_line() {
        let p = std::env::temp_dir().join(format!("idmint-url-ref-{}", std::process::id()));
        std::fs::write(&p, "redis://:pw@h:1/\nignored\n").unwrap();
        assert_eq!(
            resolve(&format!("@{}", p.display())).unwrap(),
            "redis://:pw@h:1/"
        );
        std::fs::write(&p, "@env:X\n").unwrap();
        assert!(resolve(&format!("@{}", p.display())).is_err());
        std::fs::write(&p, "\n").unwrap();
        assert!(resolve(&format!("@{}", p.display())).is_err());
        std::fs::remove_file(&p).unwrap();
        assert!(resolve(&format!("@{}", p.display())).is_err());
        assert!(resolve("@").is_err());
        assert!(resolve("@env:").is_err());
    }

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact("postgres://u:secret@db:5432/ids?sslmode=require"),
            "postgres://u:***@db:5432/ids?sslmode=require"
        );
        assert_eq!(redact("redis://:pw@h/0"), "redis://:***@h/0");
        assert_eq!(redact("redis://h/0"), "redis://h/0");
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(redact("file:/x"), "file:/x");
    }
}
