//! The per-user local lease directory: where the CLI and `local` node sources lease nodes when
//! nothing else is configured, so that concurrent runs on one host never share a node.
//!
//! | where | when |
//! |---|---|
//! | `$IDMINT_LEASE_DIR` | set and not empty |
//! | `$XDG_STATE_HOME/idmint/leases` | `XDG_STATE_HOME` is an absolute path |
//! | `$HOME/.local/state/idmint/leases` | `HOME` is an absolute path |
//! | `/tmp/idmint-UID/leases` | otherwise; the `idmint-UID` directory must be a real directory owned by this user and closed to others, or it is refused |
//!
//! A state directory rather than `/tmp` or `$XDG_RUNTIME_DIR`, because the records carry the
//! time fences that keep a restart after a clock step back from reissuing IDs: they should
//! outlive a reboot and a temp cleaner. (A cleaner that removes the directory anyway cannot
//! make two live holders share a node; see [`file`](super::file).) Directories it creates are
//! private to the user (mode 0700).

use std::fs::{self, DirBuilder};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

use idmint::{Error, Result};

/// The per-user local lease directory (see the [module docs](self)); created if missing.
pub fn local_dir() -> Result<PathBuf> {
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let dir = if let Some(d) = env("IDMINT_LEASE_DIR") {
        PathBuf::from(d)
    } else if let Some(d) = env("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
    {
        d.join("idmint").join("leases")
    } else if let Some(h) = env("HOME").map(PathBuf::from).filter(|p| p.is_absolute()) {
        h.join(".local").join("state").join("idmint").join("leases")
    } else {
        // SAFETY: getuid has no preconditions and cannot fail.
        let uid = unsafe { libc::getuid() };
        let base = std::env::temp_dir().join(format!("idmint-{uid}"));
        private_dir(&base, uid)?;
        base.join("leases")
    };
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .map_err(|_| unavailable("cannot create the local lease directory"))?;
    Ok(dir)
}

fn unavailable(reason: &'static str) -> Error {
    Error::StoreUnavailable {
        store: "file",
        op: "open",
        reason,
    }
}

/// Creates `dir` private to `uid`, or checks an existing one is: a directory (not a link),
/// owned by `uid`, with no access for group or others. In a shared temp directory anyone could
/// have made it first.
fn private_dir(dir: &Path, uid: u32) -> Result<()> {
    match DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(_) => return Err(unavailable("cannot create the local lease directory")),
    }
    let m = fs::symlink_metadata(dir)
        .map_err(|_| unavailable("cannot read the local lease directory"))?;
    if !m.file_type().is_dir() || m.uid() != uid || m.mode() & 0o077 != 0 {
        return Err(unavailable(
            "the local lease directory in the temp directory is not a private directory of this user",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_of_someone_else_is_refused() {
        let base = std::env::temp_dir().join(format!("idmint-local-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        // SAFETY: as above.
        let uid = unsafe { libc::getuid() };
        private_dir(&base, uid).unwrap();
        assert_eq!(fs::metadata(&base).unwrap().mode() & 0o777, 0o700);
        // Open to others: refused.
        fs::set_permissions(&base, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        assert!(private_dir(&base, uid).is_err());
        // A symbolic link: refused.
        fs::remove_dir_all(&base).unwrap();
        std::os::unix::fs::symlink("/", &base).unwrap();
        assert!(private_dir(&base, uid).is_err());
        fs::remove_file(&base).unwrap();
    }
}
