//! Secrets given by reference, never as literal command-line text (which `ps` shows):
//! `@PATH` reads a file, `@env:NAME` an environment variable.

use idmint::{Error, Result};

/// The bytes `spec` names (`@PATH` or `@env:NAME`); `what` names the setting in errors.
pub fn read(spec: &str, what: &'static str) -> Result<Vec<u8>> {
    let _ = what;
    if let Some(name) = spec.strip_prefix("@env:") {
        return match std::env::var_os(name) {
            Some(v) if !v.is_empty() => {
                Ok(std::os::unix::ffi::OsStrExt::as_bytes(v.as_os_str()).to_vec())
            }
            _ => Err(Error::InvalidConfig {
                reason: "the environment variable a secret names (@env:NAME) is not set",
            }),
        };
    }
    if let Some(path) = spec.strip_prefix('@') {
        return std::fs::read(path).map_err(|_| Error::InvalidConfig {
            reason: "the file a secret names (@PATH) cannot be read",
        });
    }
    Err(Error::InvalidConfig {
        reason: "secrets are given as @PATH or @env:NAME, never as literal text (ps shows it)",
    })
}
