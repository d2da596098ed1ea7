//! The remainder journal: a local file that carries a key's unused values across a restart, so
//! a restart resumes them instead of burning them (Meituan Leaf issue #15: every restart of a
//! Leaf server throws away the rest of both buffers of every key).
//!
//! # What it holds
//!
//! Per key, at most two ranges of values that this process was handed by its store and has not
//! served, and the [identity](super::SegmentStore::identity) of that store. The
//! [`SegmentAllocator`](super::allocator::SegmentAllocator) writes it on a clean shutdown
//! (everything unserved) and, as an option, at checkpoints while it runs (everything beyond a
//! reserve of the next values; see below). On start it resumes what it finds.
//!
//! # Why it never causes a duplicate
//!
//! The journal may only ever contain values that no process has served and that no process
//! will serve unless they were first removed from the file, durably. Each step keeps that true:
//!
//! 1. **One owner.** [`Journal::open`] takes an exclusive `flock` on `PATH.lock` (a separate
//!    file, because the journal itself is replaced by rename) and holds it for the journal's
//!    lifetime; a second process gets [`Error::InvalidConfig`] instead of a second copy of the
//!    same values. The kernel drops the lock when the owner dies. The owner lets go of it
//!    explicitly when done, so a child process another thread forked at that moment (which
//!    shares it until it runs its program) does not keep it; a lock another owner lets go of
//!    within 250 ms is waited for.
//! 2. **Atomic, durable writes.** Every write goes to a new, uniquely named temporary file
//!    `PATH.tmp.PID.NONCE` (created with `O_EXCL | O_NOFOLLOW`, so a symbolic link planted
//!    there cannot redirect the write), is `fsync`ed, renamed over `PATH`, and the directory is
//!    `fsync`ed. After a crash at any point the file is either the old version or the new one,
//!    complete (a trailer line also catches a torn file); the owner removes temporaries a
//!    crash left behind (`PATH.tmp` of older versions is no longer used, and left alone). The journal and its lock file are opened with `O_NOFOLLOW`: a symbolic
//!    link at either path (which could point at another process's journal, whose values that
//!    process serves) is refused with [`Error::InvalidConfig`], and so is anything at `PATH`
//!    that is not a regular file.
//! 3. **Only on its own store.** The journal records the identity of the store its values came
//!    from; `open` resumes them only if the store it is given has that identity. Another
//!    store — another database, another Redis, another shard layout, or the same store after
//!    it lost its data (which gives it a new identity) — may hand those values out again, so
//!    `open` refuses with [`Error::StoreMismatch`] and leaves the file as it is: point the
//!    allocator at the right store, or delete the journal (its values are then burned, which is
//!    safe). A journal of format v1 (idmint before store identities) does not say which store
//!    it belongs to; nothing shows that resuming it cannot repeat values (a v1 journal reused
//!    with another store did), so one that holds values is refused the same way — delete it.
//!    An empty one is accepted.
//! 4. **Consumed before served.** `open` reads the entries and durably replaces the file by an
//!    empty journal *before* returning them. A crash before that replacement leaves the entries
//!    on disk and nothing of them served; a crash after it loses them (they exist only in
//!    memory), which burns values but never repeats one.
//! 5. **A clean shutdown records only what it stopped serving.** The allocator drains every
//!    buffer (after which nothing is served from it) and then writes what it drained.
//! 6. **Checkpoints are fenced.** While running, a checkpoint records the values that lie above
//!    a reserve of the next ones. Before the write, each buffer lowers its fence to the
//!    smallest value about to be recorded and serves nothing at or above the fence; only after
//!    the new file is durable does the fence move up to the new record's smallest value. Every
//!    version of the file that can survive a crash — the old one, the one being written — only
//!    holds values at or above the fence in force, so none of them was served. If a write
//!    fails, the fence stays low: the buffer may stall (callers get
//!    [`Error::StoreUnavailable`] with store `journal` after their wait timeout) but never
//!    serves a recorded value.
//! 7. **The store does the rest.** Values in the journal came from the store, which never
//!    hands them out again; resumed values are therefore unique across processes too.
//!
//! Limits: a store restored from a backup keeps its identity but goes back, and hands out
//! values again whether or not a journal is involved; the identity cannot tell. The identity
//! is read once per allocator: a store that lost its data while the allocator ran gets its
//! journal refused at the next start (values burned), which is safe.
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
//! Text, one range per line, between a header (format version, then the store's identity in
//! hex, or `none` in a journal without values) and a trailer that counts the range lines:
//!
//! ```text
//! # idmint segment journal v2
//! # store 5f0c1e9a77d3b214
//! 1201 2001 orders
//! 5001 6001 orders
//! 17 101 user%20ids
//! # end 3
//! ```
//!
//! Each line is `START END KEY` (a half-open range); bytes of the key outside printable ASCII,
//! and `%`, are written as `%XX`. Keys are 1 to 200 bytes, lines at most [`MAX_LINE_BYTES`],
//! and a journal holds at most two ranges for each of [`MAX_KEYS`] keys; the
//! file is read line by line within those bounds (a larger one is
//! [`Error::LimitExceeded`], whatever its size on disk). Format v1 is the same without the
//! `# store` line. A file that does not parse is refused with [`Error::InvalidConfig`]; delete
//! it to start over (its values are then burned, which is safe).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use idmint::segment::Range;
use idmint::{Error, Result};

use super::contract::{SegmentStore, MAX_KEYS};
use super::counter::MAX_KEY_LEN;
use super::durable::{self, Labels, OwnedFile};

const HEADER_V1: &str = "# idmint segment journal v1";
const HEADER: &str = "# idmint segment journal v2";
const STORE: &str = "# store ";
const NO_STORE: &str = "none";
const TRAILER: &str = "# end ";

/// The longest line a journal holds: two 20-digit numbers and a key of 200 bytes, each written
/// as `%XX`, with room to spare.
pub const MAX_LINE_BYTES: usize = 1024;

/// The most range lines a journal holds: two per key.
const MAX_LINES: usize = 2 * MAX_KEYS;

/// One key's recorded ranges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalEntry {
    /// The key (`biz_tag`).
    pub key: String,
    /// Its unserved ranges, in the order they are to be served (at most two, disjoint).
    pub ranges: Vec<Range>,
}

/// A journal file's content, as [`Journal::inspect`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The format version (1 or 2).
    pub version: u8,
    /// The identity of the store the values came from; `None` in a v1 journal, and in a v2
    /// journal written without values.
    pub store: Option<u64>,
    /// The recorded ranges.
    pub entries: Vec<JournalEntry>,
}

/// An open, locked journal file; see the [module docs](self).
///
/// # Examples
/// ```
/// use idmint::segment::Range;
/// use idmint_coord::segment::journal::{Journal, JournalEntry};
/// use idmint_coord::segment::{MemoryStore, SegmentStore};
///
/// let dir = std::env::temp_dir().join(format!("idmint-journal-doc-{}", std::process::id()));
/// let path = dir.join("segments.journal");
/// let store = MemoryStore::new();
/// let (journal, resumed) = Journal::open(&path, &store)?;
/// assert!(resumed.is_empty());
/// let entry = JournalEntry { key: "orders".into(), ranges: vec![Range { start: 5, end: 9 }] };
/// journal.write(Some(store.identity()?), &[entry])?;
/// assert!(Journal::open(&path, &store).is_err()); // locked: one owner at a time
/// drop(journal);
///
/// // Another store (here a new in-memory one) could hand out 5..9 again: refused.
/// let err = Journal::open(&path, &MemoryStore::new()).unwrap_err();
/// assert_eq!(err.kind(), idmint::ErrorKind::StoreMismatch);
///
/// let (_journal, resumed) = Journal::open(&path, &store)?; // consumed: the file is empty again
/// assert_eq!(resumed[0].ranges, [Range { start: 5, end: 9 }]);
/// assert!(Journal::read(&path)?.is_empty());
/// # drop(_journal);
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug)]
pub struct Journal {
    /// The file, locked for the journal's lifetime.
    file: OwnedFile,
    /// The store identity checked at open, when the journal held values.
    store: Option<u64>,
}

fn io_error(op: &'static str, e: std::io::Error) -> Error {
    LABELS.io(op, e)
}

const LINKED: Error = Error::InvalidConfig {
    reason: "a symbolic link or another special file stands at the segment journal's path or \
             its lock file's; remove it",
};

const FOREIGN: Error = Error::StoreMismatch {
    store: "segment journal",
    reason: "its values came from another store, or from this one before it lost its data, \
             which may hand them out again; point it at its store, or delete the journal \
             (its values are then skipped, never repeated)",
};

const UNIDENTIFIED: Error = Error::StoreMismatch {
    store: "segment journal",
    reason: "it was written by an older idmint (format v1) and does not say which store its \
             values came from; delete it (its values are then skipped, never repeated)",
};

pub(crate) const LABELS: Labels = Labels {
    store: "journal",
    linked: LINKED,
    in_use: Error::InvalidConfig {
        reason: "the segment journal is in use by another allocator (in this process or another)",
    },
    unnamed: Error::InvalidConfig {
        reason: "the segment journal path must name a file",
    },
};

impl Journal {
    /// Locks the journal at `path` (creating its directory if needed), reads it, checks that
    /// its values came from `store` (asking `store` for its identity only when there are
    /// values), and consumes it: the returned entries are durably removed from the file before
    /// this returns, so they are the caller's alone to serve or to record again.
    ///
    /// Errors, all leaving the file as it was: [`Error::InvalidConfig`] when another process
    /// holds the journal (still after 250 ms), the file is corrupt, or a symbolic link stands
    /// at the path;
    /// [`Error::StoreMismatch`] when the values came from another store (or a v1 journal does
    /// not say which); [`Error::LimitExceeded`] for a journal larger than any idmint writes;
    /// [`Error::StoreUnavailable`] (store `journal`) on I/O failures, or from `store`.
    pub fn open<S: SegmentStore + ?Sized>(
        path: impl AsRef<Path>,
        store: &S,
    ) -> Result<(Journal, Vec<JournalEntry>)> {
        let mut journal = Journal {
            file: OwnedFile::lock(path.as_ref(), LABELS)?,
            store: None,
        };
        let recorded = Journal::inspect(journal.file.path())?;
        if recorded.entries.is_empty() {
            return Ok((journal, Vec::new()));
        }
        let Some(recorded_store) = recorded.store else {
            return Err(UNIDENTIFIED);
        };
        if store.identity()? != recorded_store {
            return Err(FOREIGN);
        }
        journal.store = Some(recorded_store);
        journal.write(Some(recorded_store), &[])?;
        Ok((journal, recorded.entries))
    }

    /// Reads the entries of the journal at `path` without locking or changing it (an absent
    /// file reads as empty). For inspection; a process that means to serve the values uses
    /// [`open`](Self::open).
    pub fn read(path: impl AsRef<Path>) -> Result<Vec<JournalEntry>> {
        Ok(Journal::inspect(path)?.entries)
    }

    /// Reads the journal at `path` — version, store identity and entries — without locking or
    /// changing it (an absent file reads as an empty v2 journal).
    pub fn inspect(path: impl AsRef<Path>) -> Result<Recorded> {
        match durable::open_nofollow(path.as_ref(), "read", &LABELS)? {
            Some(f) => parse(BufReader::new(f)),
            None => Ok(Recorded {
                version: 2,
                store: None,
                entries: Vec::new(),
            }),
        }
    }

    /// The journal file's path.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// The identity of the store checked at [`open`](Self::open), when the journal held
    /// values (`None` otherwise: nothing needed checking).
    pub fn store_identity(&self) -> Option<u64> {
        self.store
    }

    /// Replaces the journal's content with `entries` from the store with identity `store`,
    /// atomically and durably (a new temporary file, `fsync`, rename, directory `fsync`). Keys
    /// without ranges are left out. Ranges without a store identity, or a key that is not 1 to
    /// 200 bytes, are [`Error::InvalidConfig`] (nothing is written).
    pub fn write(&self, store: Option<u64>, entries: &[JournalEntry]) -> Result<()> {
        let text = render(store, entries)?;
        self.file.replace(&text)
    }
}

fn render(store: Option<u64>, entries: &[JournalEntry]) -> Result<String> {
    let mut out = format!("{HEADER}\n{STORE}");
    match store {
        Some(id) => out.push_str(&format!("{id:016x}\n")),
        None => {
            out.push_str(NO_STORE);
            out.push('\n');
        }
    }
    let mut lines = 0usize;
    for e in entries {
        let mut ranges = e.ranges.iter().filter(|r| !r.is_empty()).peekable();
        if ranges.peek().is_none() {
            continue;
        }
        super::counter::check_key(&e.key)?;
        if store.is_none() {
            return Err(Error::InvalidConfig {
                reason: "segment journal values need their store's identity",
            });
        }
        let key = escape(&e.key);
        for r in ranges {
            out.push_str(&format!("{} {} {}\n", r.start, r.end, key));
            lines += 1;
        }
    }
    out.push_str(&format!("{TRAILER}{lines}\n"));
    Ok(out)
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

const CORRUPT: Error = Error::InvalidConfig {
    reason: "the segment journal is corrupt (delete it to burn its ranges)",
};

/// Reads one line (without its `\n`) into `buf`, at most [`MAX_LINE_BYTES`]; `false` at the
/// end of the file.
fn read_line(r: &mut impl BufRead, buf: &mut Vec<u8>) -> Result<bool> {
    buf.clear();
    let n = r
        .by_ref()
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', buf)
        .map_err(|e| io_error("read", e))?;
    if n == 0 {
        return Ok(false);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    }
    if buf.len() > MAX_LINE_BYTES {
        return Err(CORRUPT);
    }
    Ok(true)
}

fn parse(mut r: impl BufRead) -> Result<Recorded> {
    let mut buf = Vec::new();
    let mut line = |r: &mut _| -> Result<Option<String>> {
        if !read_line(r, &mut buf)? {
            return Ok(None);
        }
        String::from_utf8(std::mem::take(&mut buf))
            .map(Some)
            .map_err(|_| CORRUPT)
    };
    let version = match line(&mut r)?.as_deref() {
        Some(HEADER_V1) => 1,
        Some(HEADER) => 2,
        _ => return Err(CORRUPT),
    };
    let store = if version == 1 {
        None
    } else {
        let l = line(&mut r)?.ok_or(CORRUPT)?;
        match l.strip_prefix(STORE).ok_or(CORRUPT)? {
            NO_STORE => None,
            hex => {
                let id = u64::from_str_radix(hex, 16).map_err(|_| CORRUPT)?;
                if id == 0 || format!("{id:016x}") != hex {
                    return Err(CORRUPT);
                }
                Some(id)
            }
        }
    };
    let mut entries: Vec<JournalEntry> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut count = 0usize;
    loop {
        let l = line(&mut r)?.ok_or(CORRUPT)?; // no trailer: torn
        if let Some(n) = l.strip_prefix(TRAILER) {
            if n.parse::<usize>().ok() != Some(count) || line(&mut r)?.is_some() {
                return Err(CORRUPT);
            }
            break;
        }
        count += 1;
        if count > MAX_LINES {
            return Err(Error::LimitExceeded {
                what: "ranges in a segment journal",
                limit: MAX_LINES as u64,
            });
        }
        let mut parts = l.splitn(3, ' ');
        let (Some(start), Some(end), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(CORRUPT);
        };
        let range = match (start.parse(), end.parse()) {
            (Ok(start), Ok(end)) if start < end => Range { start, end },
            _ => return Err(CORRUPT),
        };
        let key = unescape(key)
            .filter(|k| !k.is_empty() && k.len() <= MAX_KEY_LEN)
            .ok_or(CORRUPT)?;
        match index.get(&key) {
            Some(&i) => {
                let e = &mut entries[i];
                let overlaps = e
                    .ranges
                    .iter()
                    .any(|p| range.start < p.end && p.start < range.end);
                if overlaps || e.ranges.len() >= 2 {
                    return Err(CORRUPT);
                }
                e.ranges.push(range);
            }
            None => {
                if entries.len() >= MAX_KEYS {
                    return Err(Error::LimitExceeded {
                        what: "keys in a segment journal",
                        limit: MAX_KEYS as u64,
                    });
                }
                index.insert(key.clone(), entries.len());
                entries.push(JournalEntry {
                    key,
                    ranges: vec![range],
                });
            }
        }
    }
    if store.is_none() && version == 2 && !entries.is_empty() {
        return Err(CORRUPT);
    }
    Ok(Recorded {
        version,
        store,
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn e(key: &str, ranges: &[(u64, u64)]) -> JournalEntry {
        JournalEntry {
            key: key.into(),
            ranges: ranges
                .iter()
                .map(|&(start, end)| Range { start, end })
                .collect(),
        }
    }

    fn parse_str(text: &str) -> Result<Recorded> {
        parse(text.as_bytes())
    }

    #[test]
    fn round_trips_odd_keys() {
        let entries = vec![
            e("orders", &[(5, 9), (100, 200)]),
            e("a b%c\nd é", &[(u64::MAX - 1, u64::MAX)]),
            e("k", &[(7, 8), (1, 3)]),
            e(&"x".repeat(MAX_KEY_LEN), &[(1, 2)]),
        ];
        let text = render(Some(0xabc), &entries).unwrap();
        assert!(
            text.starts_with("# idmint segment journal v2\n# store 0000000000000abc\n5 9 orders\n")
        );
        assert!(text.contains("a%20b%25c%0Ad%20%C3%A9"));
        assert!(text.ends_with("# end 6\n"));
        let back = parse_str(&text).unwrap();
        assert_eq!((back.version, back.store), (2, Some(0xabc)));
        assert_eq!(back.entries, entries);
        // Empty ranges and empty keys' range lists are left out.
        let text = render(None, &[e("x", &[(3, 3)]), e("y", &[])]).unwrap();
        assert_eq!(text, "# idmint segment journal v2\n# store none\n# end 0\n");
        assert!(parse_str(&text).unwrap().entries.is_empty());
    }

    #[test]
    fn refuses_to_write_what_it_could_not_read_back() {
        assert!(render(None, &[e("k", &[(1, 2)])]).is_err());
        assert!(render(Some(1), &[e("", &[(1, 2)])]).is_err());
        assert!(render(Some(1), &[e(&"x".repeat(MAX_KEY_LEN + 1), &[(1, 2)])]).is_err());
    }

    #[test]
    fn reads_v1_without_a_store() {
        let v1 = "# idmint segment journal v1\n5 9 orders\n# end 1\n";
        let r = parse_str(v1).unwrap();
        assert_eq!((r.version, r.store), (1, None));
        assert_eq!(r.entries, [e("orders", &[(5, 9)])]);
    }

    #[test]
    fn refuses_damaged_files() {
        let good = render(Some(0x1234), &[e("orders", &[(5, 9), (10, 20)])]).unwrap();
        parse_str(&good).unwrap();
        let bad = [
            String::new(),
            good.replace("v2", "v3"),
            good.replace("# end 2\n", ""),      // torn: no trailer
            good.replace("# end 2", "# end 3"), // torn: a line missing
            good.replace("5 9", "9 5"),
            good.replace("5 9", "5 x"),
            good.replace("10 20", "8 20"), // overlap
            good.replace("5 9 orders", "5 9 or%2"),
            good.replace("5 9 orders", "5 9"),
            good.replace("5 9 orders", "5 9 "),
            format!("{}1 2 orders\n# end 3\n", good.replace("# end 2\n", "")), // three ranges
            format!("{good}5 6 x\n"),                                          // after the trailer
            good.replace("0000000000001234", "1234"),
            good.replace("0000000000001234", "0000000000000000"),
            good.replace("0000000000001234", "none"), // values without a store
            good.replace("# store 0000000000001234\n", ""),
            good.replace("orders", &"o".repeat(MAX_LINE_BYTES)),
        ];
        for text in bad {
            assert_eq!(
                parse_str(&text).unwrap_err().kind(),
                idmint::ErrorKind::InvalidConfig,
                "{text:?}"
            );
        }
        assert!(parse(&[0xff, 0xfe][..]).is_err());
    }

    #[test]
    fn open_removes_its_own_stale_temporaries_only() {
        let dir = std::env::temp_dir().join(format!("idmint-journal-temps-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let stale = dir.join("j.tmp.123.0123456789abcdef");
        let others = [
            "j.tmp",
            "j.tmp.lock",
            "j.tmp.x.0123456789abcdef",
            "k.tmp.1.0123456789abcdef",
        ];
        for name in others.iter().copied().chain(["j.tmp.123.0123456789abcdef"]) {
            fs::write(dir.join(name), "x").unwrap();
        }
        let (_j, _) = Journal::open(dir.join("j"), &super::super::MemoryStore::new()).unwrap();
        assert!(!stale.exists());
        for name in others {
            assert!(dir.join(name).exists(), "{name}");
        }
        drop(_j);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A second open of a journal in one process is refused as held elsewhere (the lock is
    /// per open file, not per process), and the journal opens again once the first is dropped.
    #[test]
    fn a_journal_open_twice_in_one_process_is_held_elsewhere() {
        let dir = std::env::temp_dir().join(format!("idmint-journal-twice-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let store = super::super::MemoryStore::new();
        let (first, _) = Journal::open(dir.join("j"), &store).unwrap();
        let refused = Journal::open(dir.join("j"), &store)
            .map(|_| ())
            .unwrap_err();
        assert!(super::super::is_held_elsewhere(&refused), "{refused}");
        assert!(!super::super::is_held_elsewhere(&Error::InvalidConfig {
            reason: "something else"
        }));
        drop(first);
        let (again, _) = Journal::open(dir.join("j"), &store).unwrap();
        drop(again);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn more_ranges_than_any_journal_holds_are_refused() {
        let mut text = String::from("# idmint segment journal v2\n# store 0000000000000001\n");
        for i in 0..=MAX_LINES as u64 {
            text.push_str(&format!("{} {} k{}\n", 2 * i + 1, 2 * i + 2, i / 2));
        }
        text.push_str(&format!("# end {}\n", MAX_LINES + 1));
        assert!(matches!(parse_str(&text), Err(Error::LimitExceeded { .. })));
    }
}
