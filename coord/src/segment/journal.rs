//! The remainder journal: a local file that carries a key's unused values across a restart, so
//! a restart resumes them instead of burning them (Meituan Leaf issue #15: every restart of a
//! Leaf server throws away the rest of both buffers of every key).
//!
//! # What it holds
//!
//! Per key, at most two ranges of values that this process was handed by its store and has not
//! served. The [`SegmentAllocator`](super::allocator::SegmentAllocator) writes it on a clean
//! shutdown (everything unserved) and, as an option, at checkpoints while it runs (everything
//! beyond a reserve of the next values; see below). On start it resumes what it finds.
//!
//! # Why it never causes a duplicate
//!
//! The journal may only ever contain values that no process has served and that no process
//! will serve unless they were first removed from the file, durably. Each step keeps that true:
//!
//! 1. **One owner.** [`Journal::open`] takes an exclusive `flock` on `PATH.lock` (a separate
//!    file, because the journal itself is replaced by rename) and holds it for the journal's
//!    lifetime; a second process gets [`Error::InvalidConfig`] instead of a second copy of the
//!    same values. The kernel drops the lock when the owner dies.
//! 2. **Atomic, durable writes.** Every write goes to `PATH.tmp`, is `fsync`ed, renamed over
//!    `PATH`, and the directory is `fsync`ed. After a crash at any point the file is either the
//!    old version or the new one, complete (a trailer line also catches a torn file).
//! 3. **Consumed before served.** `open` reads the entries and durably replaces the file by an
//!    empty journal *before* returning them. A crash before that replacement leaves the entries
//!    on disk and nothing of them served; a crash after it loses them (they exist only in
//!    memory), which burns values but never repeats one.
//! 4. **A clean shutdown records only what it stopped serving.** The allocator drains every
//!    buffer (after which nothing is served from it) and then writes what it drained.
//! 5. **Checkpoints are fenced.** While running, a checkpoint records the values that lie above
//!    a reserve of the next ones. Before the write, each buffer lowers its fence to the
//!    smallest value about to be recorded and serves nothing at or above the fence; only after
//!    the new file is durable does the fence move up to the new record's smallest value. Every
//!    version of the file that can survive a crash — the old one, the one being written — only
//!    holds values at or above the fence in force, so none of them was served. If a write
//!    fails, the fence stays low: the buffer may stall (callers get
//!    [`Error::StoreUnavailable`] with store `journal` after their wait timeout) but never
//!    serves a recorded value.
//! 6. **The store does the rest.** Values in the journal came from the store, which never
//!    hands them out again; resumed values are therefore unique across processes too.
//!
//! # What a crash loses
//!
//! Without checkpoints: the unserved part of both buffers of every key (at most two ranges per
//! key) plus anything resumed from the journal at start. With checkpoints: the reserve (one
//! step's worth of values per key) plus any range fetched since the last checkpoint — at most
//! about one range per key. Either way, lost values are gaps, never duplicates.
//!
//! # File format
//!
//! Text, one range per line, between a header and a trailer that counts the lines:
//!
//! ```text
//! # idmint segment journal v1
//! 1201 2001 orders
//! 5001 6001 orders
//! 17 101 user%20ids
//! # end 3
//! ```
//!
//! Each line is `START END KEY` (a half-open range); bytes of the key outside printable ASCII,
//! and `%`, are written as `%XX`. A file that does not parse is refused with
//! [`Error::InvalidConfig`]; delete it to start over (its values are then burned, which is
//! safe).

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind as IoErrorKind, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use crate::reason::Reason;
use idmint::segment::Range;
use idmint::{Error, Result};

const HEADER: &str = "# idmint segment journal v1";
const TRAILER: &str = "# end ";

/// One key's recorded ranges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalEntry {
    /// The key (`biz_tag`).
    pub key: String,
    /// Its unserved ranges, in the order they are to be served (at most two, disjoint).
    pub ranges: Vec<Range>,
}

/// An open, locked journal file; see the [module docs](self).
///
/// # Examples
/// ```
/// use idmint::segment::Range;
/// use idmint_coord::segment::journal::{Journal, JournalEntry};
///
/// let dir = std::env::temp_dir().join(format!("idmint-journal-doc-{}", std::process::id()));
/// let path = dir.join("segments.journal");
/// let (journal, resumed) = Journal::open(&path)?;
/// assert!(resumed.is_empty());
/// journal.write(&[JournalEntry { key: "orders".into(), ranges: vec![Range { start: 5, end: 9 }] }])?;
/// assert!(Journal::open(&path).is_err()); // locked: one owner at a time
/// drop(journal);
///
/// let (_journal, resumed) = Journal::open(&path)?; // consumed: the file is empty again
/// assert_eq!(resumed[0].ranges, [Range { start: 5, end: 9 }]);
/// assert!(Journal::read(&path)?.is_empty());
/// # drop(_journal);
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    tmp: PathBuf,
    dir: PathBuf,
    /// Open and `flock`ed for the journal's lifetime.
    _lock: File,
}

fn io_error(op: &'static str, e: std::io::Error) -> Error {
    Error::StoreUnavailable {
        store: "journal",
        op,
        reason: e.reason(),
    }
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

impl Journal {
    /// Locks the journal at `path` (creating its directory if needed), reads it, and consumes
    /// it: the returned entries are durably removed from the file before this returns, so they
    /// are the caller's alone to serve or to record again.
    ///
    /// Errors: [`Error::InvalidConfig`] when another process holds the journal or the file is
    /// corrupt; [`Error::StoreUnavailable`] (store `journal`) on I/O failures.
    pub fn open(path: impl AsRef<Path>) -> Result<(Journal, Vec<JournalEntry>)> {
        let path = path.as_ref().to_path_buf();
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&dir).map_err(|e| io_error("open", e))?;
        let lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(with_suffix(&path, ".lock"))
            .map_err(|e| io_error("lock", e))?;
        // SAFETY: flock on a descriptor we own; no memory is involved.
        let rc = unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc != 0 {
            let err = std::io::Error::last_os_error();
            return Err(if err.kind() == IoErrorKind::WouldBlock {
                Error::InvalidConfig {
                    reason: "the segment journal is in use by another process",
                }
            } else {
                io_error("lock", err)
            });
        }
        let journal = Journal {
            tmp: with_suffix(&path, ".tmp"),
            path,
            dir,
            _lock: lock,
        };
        let entries = Journal::read(&journal.path)?;
        if !entries.is_empty() {
            journal.write(&[])?;
        }
        Ok((journal, entries))
    }

    /// Reads the journal at `path` without locking or changing it (an absent file reads as
    /// empty). For inspection; a process that means to serve the values uses [`open`](Self::open).
    pub fn read(path: impl AsRef<Path>) -> Result<Vec<JournalEntry>> {
        match fs::read(path.as_ref()) {
            Ok(bytes) => parse(&bytes),
            Err(e) if e.kind() == IoErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(io_error("read", e)),
        }
    }

    /// The journal file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replaces the journal's content with `entries`, atomically and durably (temp file,
    /// `fsync`, rename, directory `fsync`). Keys without ranges are left out.
    pub fn write(&self, entries: &[JournalEntry]) -> Result<()> {
        let text = render(entries);
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&self.tmp)
            .map_err(|e| io_error("write", e))?;
        f.write_all(text.as_bytes())
            .and_then(|()| f.sync_all())
            .map_err(|e| io_error("write", e))?;
        drop(f);
        fs::rename(&self.tmp, &self.path).map_err(|e| io_error("write", e))?;
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| io_error("write", e))
    }
}

fn render(entries: &[JournalEntry]) -> String {
    let mut out = String::from(HEADER);
    out.push('\n');
    let mut lines = 0usize;
    for e in entries {
        let key = escape(&e.key);
        for r in e.ranges.iter().filter(|r| !r.is_empty()) {
            out.push_str(&format!("{} {} {}\n", r.start, r.end, key));
            lines += 1;
        }
    }
    out.push_str(&format!("{TRAILER}{lines}\n"));
    out
}

fn escape(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for b in key.bytes() {
        if (0x21..=0x7e).contains(&b) && b != b'%' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn unescape(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = *b.get(i)?;
        if c == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else if (0x21..=0x7e).contains(&c) {
            out.push(c);
            i += 1;
        } else {
            return None;
        }
    }
    String::from_utf8(out).ok()
}

fn parse(bytes: &[u8]) -> Result<Vec<JournalEntry>> {
    let corrupt = Error::InvalidConfig {
        reason: "the segment journal is corrupt (delete it to burn its ranges)",
    };
    let text = std::str::from_utf8(bytes).map_err(|_| corrupt)?;
    let mut lines: Vec<&str> = text.lines().collect();
    if lines.first() != Some(&HEADER) {
        return Err(corrupt);
    }
    let count: usize = lines
        .pop()
        .and_then(|l| l.strip_prefix(TRAILER))
        .and_then(|n| n.parse().ok())
        .ok_or(corrupt)?;
    let body = lines.get(1..).unwrap_or(&[]);
    if body.len() != count {
        return Err(corrupt);
    }
    let mut entries: Vec<JournalEntry> = Vec::new();
    for line in body {
        let mut parts = line.splitn(3, ' ');
        let (Some(start), Some(end), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(corrupt);
        };
        let range = match (start.parse(), end.parse()) {
            (Ok(start), Ok(end)) if start < end => Range { start, end },
            _ => return Err(corrupt),
        };
        let key = unescape(key).ok_or(corrupt)?;
        match entries.iter_mut().find(|e| e.key == key) {
            Some(e) => {
                let overlaps = e
                    .ranges
                    .iter()
                    .any(|p| range.start < p.end && p.start < range.end);
                if overlaps || e.ranges.len() >= 2 {
                    return Err(corrupt);
                }
                e.ranges.push(range);
            }
            None => entries.push(JournalEntry {
                key,
                ranges: vec![range],
            }),
        }
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(key: &str, ranges: &[(u64, u64)]) -> JournalEntry {
        JournalEntry {
            key: key.into(),
            ranges: ranges
                .iter()
                .map(|&(start, end)| Range { start, end })
                .collect(),
        }
    }

    #[test]
    fn round_trips_odd_keys() {
        let entries = vec![
            e("orders", &[(5, 9), (100, 200)]),
            e("", &[(1, 2)]),
            e("a b%c\nd é", &[(u64::MAX - 1, u64::MAX)]),
            e("k", &[(7, 8), (1, 3)]),
        ];
        let text = render(&entries);
        assert!(text.starts_with("# idmint segment journal v1\n5 9 orders\n"));
        assert!(text.contains("a%20b%25c%0Ad%20%C3%A9"));
        assert!(text.ends_with("# end 6\n"));
        assert_eq!(parse(text.as_bytes()).unwrap(), entries);
        // Empty ranges and empty keys' range lists are left out.
        let text = render(&[e("x", &[(3, 3)]), e("y", &[])]);
        assert_eq!(text, "# idmint segment journal v1\n# end 0\n");
        assert!(parse(text.as_bytes()).unwrap().is_empty());
    }

    #[test]
    fn refuses_damaged_files() {
        let good = render(&[e("orders", &[(5, 9), (10, 20)])]);
        parse(good.as_bytes()).unwrap();
        let bad = [
            String::new(),
            good.replace("v1", "v2"),
            good.replace("# end 2\n", ""),      // torn: no trailer
            good.replace("# end 2", "# end 3"), // torn: a line missing
            good.replace("5 9", "9 5"),
            good.replace("5 9", "5 x"),
            good.replace("10 20", "8 20"), // overlap
            good.replace("5 9 orders", "5 9 or%2"),
            good.replace("5 9 orders", "5 9"),
            format!("{}1 2 orders\n# end 3\n", good.replace("# end 2\n", "")), // three ranges
        ];
        for text in bad {
            assert_eq!(
                parse(text.as_bytes()).unwrap_err().kind(),
                idmint::ErrorKind::InvalidConfig,
                "{text:?}"
            );
        }
        assert!(parse(&[0xff, 0xfe]).is_err());
    }
}
