//! Secrets (bearer tokens, signing keys) named by where they are, never given as text: a
//! command line is visible to every user of the machine (`ps`, `/proc/PID/cmdline`), a file or
//! an environment variable is not.
//!
//! A source is `@PATH` (the whole file) or `@env:NAME` (the variable's value). Anything else is
//! refused, and the refusal never repeats it: it may be the secret itself.

use std::fmt;

/// Why a secret could not be read. Its message names the setting and the source (a path, a
/// variable name), never the secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretError {
    message: String,
}

impl fmt::Display for SecretError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SecretError {}

fn fail(message: String) -> SecretError {
    SecretError { message }
}

/// The bytes of the secret `spec` names: `@PATH` or `@env:NAME`. `what` names the setting in
/// errors (`"--tokens"`, `"--lease-key"`). Literal text is refused with a message saying how to
/// pass it instead.
pub fn read(spec: &str, what: &str) -> Result<Vec<u8>, SecretError> {
    let Some(source) = spec.strip_prefix('@') else {
        return Err(fail(format!(
            "{what} takes a file (@PATH) or an environment variable (@env:NAME), not the secret \
             itself: a command line is visible to every user of the machine (ps)"
        )));
    };
    if let Some(name) = source.strip_prefix("env:") {
        if name.is_empty() || name.contains('=') || name.contains('\0') {
            return Err(fail(format!(
                "{what}: @env: needs a variable name, as in @env:IDMINT_SECRET"
            )));
        }
        return match std::env::var_os(name) {
            Some(v) => Ok(v.into_encoded_bytes()),
            None => Err(fail(format!(
                "{what}: the environment variable {name} is not set"
            ))),
        };
    }
    if source.is_empty() {
        return Err(fail(format!(
            "{what}: @ needs a file name, as in @/etc/idmint/secret"
        )));
    }
    std::fs::read(source).map_err(|e| fail(format!("{what}: cannot read {source}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_variables_are_read_and_literal_text_is_refused_without_an_echo() {
        let path = std::env::temp_dir().join(format!("idmint-secret-{}", std::process::id()));
        std::fs::write(&path, b"from-a-file\n").unwrap();
        let spec = format!("@{}", path.display());
        assert_eq!(read(&spec, "--tokens").unwrap(), b"from-a-file\n");
        std::fs::remove_file(&path).unwrap();
        let gone = read(&spec, "--tokens").unwrap_err().to_string();
        assert!(gone.starts_with("--tokens: cannot read "), "{gone}");

        let var = format!("IDMINT_SECRET_TEST_{}", std::process::id());
        std::env::set_var(&var, "from-a-variable");
        assert_eq!(
            read(&format!("@env:{var}"), "--lease-key").unwrap(),
            b"from-a-variable"
        );
        std::env::remove_var(&var);
        let unset = read(&format!("@env:{var}"), "--lease-key").unwrap_err();
        assert!(unset.to_string().contains("is not set"), "{unset}");

        for literal in ["hunter2-very-secret", "", "env:X"] {
            let e = read(literal, "--tokens").unwrap_err().to_string();
            assert!(e.contains("@PATH") && e.contains("@env:NAME"), "{e}");
            assert!(literal.is_empty() || !e.contains(literal), "echoed: {e}");
        }
        assert!(read("@", "--tokens").is_err());
        assert!(read("@env:", "--tokens").is_err());
    }
}
