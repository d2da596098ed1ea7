//! Small local files that one process owns and replaces atomically: what the remainder
//! [journal](super::journal) and the [section sequencer's record](super::sections) share.
//!
//! * **One owner.** [`OwnedFile::lock`] takes an exclusive `flock` on `PATH.lock` (a separate
//!   file, because `PATH` itself is replaced by rename) and holds it for the owner's lifetime;
//!   the kernel drops it when the owner dies. The owner lets go of it explicitly when done
//!   (`LOCK_UN`): a child process that another thread forked at that moment shares it through
//!   its copy of the descriptor until it runs its program, so closing the descriptor alone
//!   would leave the file locked until then. A lock let go within [`LOCK_WAIT`] (another
//!   process's owner closing) is waited for.
//! * **Atomic, durable writes.** [`OwnedFile::replace`] writes a new, uniquely named temporary
//!   `PATH.tmp.PID.NONCE` (created with `O_EXCL | O_NOFOLLOW`, so a symbolic link planted there
//!   cannot redirect the write), `fsync`s it, renames it over `PATH` and `fsync`s the
//!   directory: after a crash the file is the old version or the new one, complete. The owner
//!   removes temporaries a crash left behind.
//! * **No links followed.** `PATH` and `PATH.lock` are opened with `O_NOFOLLOW`; a symbolic
//!   link or anything but a regular file at either is refused.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind as IoErrorKind, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use crate::reason::Reason;
use idmint::{Error, Result};

/// How long [`OwnedFile::lock`] waits for a lock that is held, before answering that the file
/// is in use.
pub(crate) const LOCK_WAIT: std::time::Duration = std::time::Duration::from_millis(250);

/// Entries of a file's directory looked at when removing stale temporaries.
const MAX_DIR_ENTRIES: usize = 100_000;

/// How one kind of owned file names itself in errors.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Labels {
    /// The `store` of its [`Error::StoreUnavailable`] (`journal`, ...).
    pub(crate) store: &'static str,
    /// A symbolic link or special file stands at the path or its lock file's.
    pub(crate) linked: Error,
    /// Another process holds the lock.
    pub(crate) in_use: Error,
    /// The path does not name a file.
    pub(crate) unnamed: Error,
}

impl Labels {
    /// An I/O failure during `op`.
    pub(crate) fn io(&self, op: &'static str, e: std::io::Error) -> Error {
        Error::StoreUnavailable {
            store: self.store,
            op,
            reason: e.reason(),
        }
    }
}

/// A file this process owns (its lock held); see the [module docs](self).
#[derive(Debug)]
pub(crate) struct OwnedFile {
    path: PathBuf,
    dir: PathBuf,
    /// The file's name, which temporaries extend.
    name: OsString,
    labels: Labels,
    /// Open and `flock`ed for the owner's lifetime.
    lock: File,
    /// The process that took the lock: only it lets go of it (see `Drop`).
    born: idmint::ForkGuard,
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Opens `path` for reading without following a symbolic link; `Ok(None)` if absent.
pub(crate) fn open_nofollow(
    path: &Path,
    op: &'static str,
    labels: &Labels,
) -> Result<Option<File>> {
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path);
    let f = match opened {
        Ok(f) => f,
        Err(e) if e.kind() == IoErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(labels.linked),
        Err(e) => return Err(labels.io(op, e)),
    };
    if !f.metadata().map_err(|e| labels.io(op, e))?.is_file() {
        return Err(labels.linked);
    }
    Ok(Some(f))
}

/// Lets go of the lock explicitly rather than by closing the descriptor: a child process that
/// another thread forked a moment ago shares the lock through its copy of the descriptor until
/// it runs its program, and closing ours alone would leave the file locked until then. In a
/// forked child nothing is let go: the lock is the parent's.
impl Drop for OwnedFile {
    fn drop(&mut self) {
        if self.born.is_original() {
            // SAFETY: flock on a descriptor we own; no memory is involved.
            unsafe { libc::flock(self.lock.as_raw_fd(), libc::LOCK_UN) };
        }
    }
}

/// Takes an exclusive `flock` on `file`, trying again for up to `wait` while another open
/// description holds it (every 1 ms, then doubling up to 32 ms between tries).
fn flock_within(file: &File, wait: std::time::Duration) -> std::io::Result<()> {
    let deadline = std::time::Instant::now() + wait;
    let mut pause = std::time::Duration::from_millis(1);
    loop {
        // SAFETY: flock on a descriptor we own; no memory is involved.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        let now = std::time::Instant::now();
        if err.kind() != IoErrorKind::WouldBlock || now >= deadline {
            return Err(err);
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(std::time::Duration::from_millis(32));
    }
}

impl OwnedFile {
    /// Locks the file at `path` (creating its directory if needed; the file itself need not
    /// exist) and removes temporaries a crash left next to it.
    pub(crate) fn lock(path: &Path, labels: Labels) -> Result<OwnedFile> {
        let name = path.file_name().ok_or(labels.unnamed)?.to_owned();
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&dir).map_err(|e| labels.io("open", e))?;
        let lock = match OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(with_suffix(path, ".lock"))
        {
            Ok(f) => f,
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(labels.linked),
            Err(e) => return Err(labels.io("lock", e)),
        };
        if !lock.metadata().map_err(|e| labels.io("lock", e))?.is_file() {
            return Err(labels.linked);
        }
        flock_within(&lock, LOCK_WAIT).map_err(|err| {
            if err.kind() == IoErrorKind::WouldBlock {
                labels.in_use
            } else {
                labels.io("lock", err)
            }
        })?;
        let owned = OwnedFile {
            path: path.to_path_buf(),
            dir,
            name,
            labels,
            lock,
            born: idmint::ForkGuard::new(),
        };
        owned.remove_stale_temps();
        Ok(owned)
    }

    /// The file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Replaces the file's content with `text`, atomically and durably.
    pub(crate) fn replace(&self, text: &str) -> Result<()> {
        let nonce = idmint::os_random_u64()?;
        let mut tmp_name = self.name.clone();
        tmp_name.push(format!(".tmp.{}.{nonce:016x}", std::process::id()));
        let tmp = self.dir.join(tmp_name);
        let write = || -> std::io::Result<()> {
            let mut f = OpenOptions::new()
                .write(true)
                .create_new(true)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
            drop(f);
            fs::rename(&tmp, &self.path)?;
            File::open(&self.dir)?.sync_all()
        };
        let written = write();
        if written.is_err() {
            // unlink never follows a link: at worst it removes what we created.
            let _ = fs::remove_file(&tmp);
        }
        written.map_err(|e| self.labels.io("write", e))
    }

    /// Removes temporaries a crash left next to the file: exactly `NAME.tmp.PID.NONCE`,
    /// nothing else (other files' may share the directory). Only the lock's holder calls this.
    fn remove_stale_temps(&self) {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return;
        };
        let mut prefix = self.name.as_bytes().to_vec();
        prefix.extend_from_slice(b".tmp.");
        let ours = |rest: &[u8]| match rest.iter().position(|&c| c == b'.') {
            Some(dot) => {
                let (pid, nonce) = (&rest[..dot], &rest[dot + 1..]);
                !pid.is_empty()
                    && pid.iter().all(u8::is_ascii_digit)
                    && nonce.len() == 16
                    && nonce.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
            }
            None => false,
        };
        for e in entries.flatten().take(MAX_DIR_ENTRIES) {
            let name = e.file_name();
            if name.as_bytes().strip_prefix(&prefix[..]).is_some_and(ours) {
                // unlink never follows a link: at worst it removes the link itself.
                let _ = fs::remove_file(e.path());
            }
        }
    }
}
