//! The embedded default lease store: one `flock`ed file per node in a directory.
//!
//! `DIR/NAMESPACE/node-N.lock` is the lock: a holder keeps it open with `flock(LOCK_EX)`.
//! The kernel drops the lock when the holder's process dies, so a crashed process's node frees
//! itself, with no TTL to wait out. `flock` locks belong to an open file description, and each
//! acquire opens the file anew, so two holders inside one process exclude each other too.
//!
//! `DIR/NAMESPACE/node-N.rec` is the node's durable record — fencing token, the grant's owner
//! nonce, last-issued bound (WeChat seqsvr's "persist the max, not every value", applied to
//! time), the time the node was last released or granted (its place in the queue) and the
//! holder. Only the lock's holder writes it, through a uniquely named temporary file (created
//! with `O_EXCL | O_NOFOLLOW`, so a planted symbolic link cannot redirect the write), `fsync`,
//! `rename` and an `fsync` of the directory, so a crash leaves either the old or the new record,
//! never a torn one.
//!
//! # When the directory is removed under a live holder
//!
//! A temp cleaner or an operator may delete the directory while a holder mints. The holder's
//! `flock` then sits on an unlinked inode, and a newcomer who re-creates the directory could
//! lock a new inode for the same node. Two defences keep the node single-held:
//!
//! - **A second lock by name** (the `name_lock` module): every holder also binds an
//!   abstract unix socket named after the directory, namespace and node. Names are not files;
//!   nothing removes them, and the kernel frees them with the holder. A newcomer whose bind
//!   fails skips the node although its lock file was free.
//! - **Renewals check the ground**: each renewal verifies that the file it has locked is still
//!   the file at the lock path (device and inode) and that the record there still carries its
//!   token and owner. If not, the lease is lost: the generator stops minting and leases again.
//!
//! A removed directory also loses the records of *released* nodes, and with them their time
//! fences. A node without a record is therefore granted with a fence at the caller's current
//! time: its new holder mints only from the next tick on, above anything a previous holder could
//! have issued up to its release (which happened in the past of this host's clock).
//!
//! # fork()
//!
//! A forked child inherits the lock descriptors. It lets go of them at fork
//! (the `inherited` module), and [`FileStore::renew`]/[`FileStore::release`] called in
//! a child answer [`Error::Forked`] without touching the parent's lock or record. The files are
//! opened close-on-exec, so an exec'd program does not inherit them either.
//!
//! # Work per acquire
//!
//! An acquire lists the namespace directory once and reads the records that exist. A released
//! node whose bound is not ahead of the caller's clock is reused before a never-used one is
//! taken (never-used nodes are tried from the lowest number up without reading anything), so the
//! directory holds about as many nodes as ever ran at once, and the work grows with that, not
//! with the size of the node space (a 32-bit node field is fine). A namespace directory with
//! more than [`MAX_DIR_ENTRIES`] files is refused with [`Error::LimitExceeded`].

use std::collections::{HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind as IoKind, Read as _, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use idmint::{Error, Result};

use crate::reason::Reason;

use super::contract::{Lease, LeaseSpec, LeaseStore};
use super::inherited;
use super::name_lock::{self, NameLock};

const STORE: &str = "file";
const MAGIC_V1: &str = "idmint-lease/1";
const MAGIC: &str = "idmint-lease/2";

/// The most files a namespace directory may hold before an acquire refuses to scan it.
pub const MAX_DIR_ENTRIES: u64 = 1 << 20;

/// How long an acquire keeps scanning when every node looked busy (see `acquire`).
const ACQUIRE_PATIENCE: std::time::Duration = std::time::Duration::from_millis(200);

/// The largest record file read (records are one short line).
const MAX_RECORD_BYTES: u64 = 4096;

/// Node leases on `flock`ed files in a directory; see the [module docs](self).
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use idmint_coord::lease::{FileStore, LeaseSpec, LeaseStore};
/// let dir = std::env::temp_dir().join(format!("idmint-doc-file-{}", std::process::id()));
/// let store = FileStore::open(&dir)?;
/// let spec = LeaseSpec::new("doc", 2, Duration::from_secs(5));
/// let a = store.acquire(&spec, 1_700_000_000_000, None)?;
/// let b = store.acquire(&spec, 1_700_000_000_000, None)?;
/// assert_ne!(a.node, b.node);
/// assert!(matches!(store.acquire(&spec, 0, None), Err(idmint::Error::NoFreeNode { nodes: 2 })));
/// store.release(&a, 1_700_000_000_500)?;
/// let c = store.acquire(&spec, 1_700_000_001_000, None)?;
/// assert_eq!((c.node, c.fence_ms), (a.node, Some(1_700_000_000_500)));
/// # store.release(&b, 0)?; store.release(&c, 0)?;
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug)]
pub struct FileStore {
    dir: PathBuf,
    /// The canonical directory path, the base of the nodes' lock names.
    canonical: Vec<u8>,
    held: Mutex<HashMap<(String, u64), Held>>,
}

#[derive(Debug)]
struct Held {
    /// Open and `flock`ed for as long as the lease is held; closing it frees the node.
    lock: File,
    /// The node's lock by name, freed with it.
    name: NameLock,
    /// Device and inode of `lock`: renewals check the lock path still leads there.
    id: (u64, u64),
    /// The process that acquired it: only it may unlock or write.
    pid: u32,
    rec: Record,
    /// Why the lease was found lost, if it was. The locks stay held until the holder calls
    /// `release`, which it does once it has stopped minting: freeing them at discovery would
    /// let a newcomer take the node while the holder's threads finish a mint.
    lost: Option<&'static str>,
}

impl Held {
    fn fds(&self) -> impl Iterator<Item = i32> {
        std::iter::once(self.lock.as_raw_fd()).chain(self.name.raw_fd())
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        for fd in self.fds() {
            inherited::unregister(fd);
        }
    }
}

/// One node's durable record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Record {
    token: u64,
    /// The current grant's owner nonce (0 in records written before owners existed).
    owner: u64,
    last_issued_ms: Option<u64>,
    /// Wall ms of the last grant or release: the node's place in the queue (0 = never used).
    queued_ms: u64,
    holder: String,
}

impl Record {
    fn encode(&self) -> String {
        let last = match self.last_issued_ms {
            Some(v) => v.to_string(),
            None => "-".to_string(),
        };
        format!(
            "{MAGIC} token={} owner={} last_issued_ms={last} queued_ms={} holder={}\n",
            self.token, self.owner, self.queued_ms, self.holder
        )
    }

    fn decode(text: &str) -> Option<Record> {
        let line = text.strip_suffix('\n')?;
        let mut parts = line.split(' ');
        let v2 = match parts.next()? {
            MAGIC => true,
            MAGIC_V1 => false,
            _ => return None,
        };
        let mut field = |name: &str| -> Option<String> {
            let p = parts.next()?;
            Some(p.strip_prefix(name)?.strip_prefix('=')?.to_string())
        };
        let token = field("token")?.parse().ok()?;
        let owner = if v2 { field("owner")?.parse().ok()? } else { 0 };
        let last = field("last_issued_ms")?;
        let last_issued_ms = if last == "-" {
            None
        } else {
            Some(last.parse().ok()?)
        };
        let queued_ms = field("queued_ms")?.parse().ok()?;
        let holder = field("holder")?;
        Some(Record {
            token,
            owner,
            last_issued_ms,
            queued_ms,
            holder,
        })
    }
}

fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn unavailable(op: &'static str, reason: &'static str) -> Error {
    super::contract::unavailable(STORE, op, reason)
}

fn io_error(op: &'static str, e: &std::io::Error) -> Error {
    if e.raw_os_error() == Some(libc::ELOOP) {
        return unavailable(op, "refused to follow a symbolic link");
    }
    unavailable(op, e.reason())
}

fn lost(node: u64, reason: &'static str) -> Error {
    Error::LeaseLost { node, reason }
}

/// What reading a record found.
enum Read {
    Missing,
    Corrupt,
    Found(Record),
}

/// A node's two locks, just taken: the `flock`ed file (with its device and inode) and the name.
struct Locks {
    file: File,
    name: NameLock,
    id: (u64, u64),
}

/// What the lock directory holds for a namespace: nodes with a record, nodes with a lock file.
struct Listing {
    records: Vec<u64>,
    locks: HashSet<u64>,
}

impl FileStore {
    /// Uses `dir` (created if missing) for the lock and record files.
    pub fn open(dir: impl AsRef<Path>) -> Result<FileStore> {
        let dir = dir.as_ref().to_path_buf();
        fs::create_dir_all(&dir).map_err(|e| io_error("open", &e))?;
        let canonical = fs::canonicalize(&dir)
            .map_err(|e| io_error("open", &e))?
            .as_os_str()
            .as_bytes()
            .to_vec();
        Ok(FileStore {
            dir,
            canonical,
            held: Mutex::new(HashMap::new()),
        })
    }

    /// The directory this store keeps its files in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn ns_dir(&self, ns: &str) -> PathBuf {
        self.dir.join(ns)
    }

    fn lock_path(&self, ns: &str, node: u64) -> PathBuf {
        self.ns_dir(ns).join(format!("node-{node}.lock"))
    }

    fn rec_path(&self, ns: &str, node: u64) -> PathBuf {
        self.ns_dir(ns).join(format!("node-{node}.rec"))
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<(String, u64), Held>> {
        // A panic while holding this lock leaves the map consistent (single inserts/removes).
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn read_record(&self, ns: &str, node: u64, op: &'static str) -> Result<Read> {
        let opened = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(self.rec_path(ns, node));
        let mut f = match opened {
            Ok(f) => f,
            Err(e) if e.kind() == IoKind::NotFound => return Ok(Read::Missing),
            // A symbolic link where a record should be is not ours: treat it as corrupt.
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Ok(Read::Corrupt),
            Err(e) => return Err(io_error(op, &e)),
        };
        let mut text = String::new();
        match std::io::Read::by_ref(&mut f)
            .take(MAX_RECORD_BYTES)
            .read_to_string(&mut text)
        {
            Ok(_) => Ok(match Record::decode(&text) {
                Some(r) => Read::Found(r),
                None => Read::Corrupt,
            }),
            Err(e) if e.kind() == IoKind::InvalidData => Ok(Read::Corrupt),
            Err(e) => Err(io_error(op, &e)),
        }
    }

    /// Replaces the record atomically and durably: a fresh temporary file (never an existing
    /// one, never through a symbolic link), fsync, rename, fsync of the directory. Only the
    /// holder of the node's lock calls this.
    fn write_record(&self, ns: &str, node: u64, rec: &Record, op: &'static str) -> Result<()> {
        let path = self.rec_path(ns, node);
        let nonce = super::contract::random_nonzero()?;
        let tmp = self.ns_dir(ns).join(format!(
            "node-{node}.rec.tmp.{}.{nonce:016x}",
            std::process::id()
        ));
        let write = || -> std::io::Result<()> {
            let mut f = OpenOptions::new()
                .write(true)
                .create_new(true)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(&tmp)?;
            f.write_all(rec.encode().as_bytes())?;
            f.sync_all()?;
            drop(f);
            fs::rename(&tmp, &path)?;
            File::open(self.ns_dir(ns))?.sync_all()
        };
        let r = write();
        if r.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        r.map_err(|e| io_error(op, &e))
    }

    /// Removes temporary record files of `node` left by a crash. Called by the node's holder.
    fn remove_stale_temps(&self, ns: &str, node: u64) {
        let prefix = format!("node-{node}.rec.tmp.");
        let Ok(entries) = fs::read_dir(self.ns_dir(ns)) else {
            return;
        };
        for e in entries.flatten().take(MAX_DIR_ENTRIES as usize) {
            if e.file_name().as_bytes().starts_with(prefix.as_bytes()) {
                // unlink never follows a link: at worst it removes the link itself.
                let _ = fs::remove_file(e.path());
            }
        }
    }

    /// Lists the namespace directory once.
    fn list(&self, ns: &str, nodes: u64) -> Result<Listing> {
        let entries = fs::read_dir(self.ns_dir(ns)).map_err(|e| io_error("acquire", &e))?;
        let mut records = Vec::new();
        let mut locks = HashSet::new();
        for (i, e) in entries.enumerate() {
            if i as u64 >= MAX_DIR_ENTRIES {
                return Err(Error::LimitExceeded {
                    what: "files in a file lease namespace directory",
                    limit: MAX_DIR_ENTRIES,
                });
            }
            let e = e.map_err(|e| io_error("acquire", &e))?;
            let name = e.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some(rest) = name.strip_prefix("node-") else {
                continue;
            };
            let (num, is_rec) = if let Some(n) = rest.strip_suffix(".rec") {
                (n, true)
            } else if let Some(n) = rest.strip_suffix(".lock") {
                (n, false)
            } else {
                continue;
            };
            let Ok(node) = num.parse::<u64>() else {
                continue;
            };
            if node >= nodes || num != node.to_string() {
                continue;
            }
            if is_rec {
                records.push(node);
            } else {
                locks.insert(node);
            }
        }
        Ok(Listing { records, locks })
    }

    /// Locks node `node` by file and by name: `Ok(None)` if a live holder has either.
    fn try_lock(&self, ns: &str, node: u64) -> Result<Option<Locks>> {
        let path = self.lock_path(ns, node);
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
            .map_err(|e| io_error("acquire", &e))?;
        loop {
            // SAFETY: flock on a descriptor we own; no memory is involved.
            let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if rc == 0 {
                break;
            }
            let e = std::io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EWOULDBLOCK) => return Ok(None),
                Some(libc::EINTR) => continue,
                _ => return Err(io_error("acquire", &e)),
            }
        }
        // The directory may have been replaced between open and flock: only a lock on the
        // file that is at the path now counts.
        let id = file_id(&f).map_err(|e| io_error("acquire", &e))?;
        if path_id(&path).ok() != Some(id) {
            return Ok(None);
        }
        let name = name_lock::name(&self.canonical, ns, node);
        let Some(name) = name_lock::try_lock(&name).map_err(|e| io_error("acquire", &e))? else {
            // A live holder whose lock file was removed with its directory.
            return Ok(None);
        };
        Ok(Some(Locks { file: f, name, id }))
    }

    /// Grants `node` after [`try_lock`](Self::try_lock) succeeded; `Ok(None)` if its record is
    /// unreadable (the locks are dropped again).
    fn grant(
        &self,
        spec: &LeaseSpec,
        now_ms: u64,
        node: u64,
        Locks {
            file: lock,
            name,
            id,
        }: Locks,
        corrupt: &mut bool,
    ) -> Result<Option<Lease>> {
        let ns = spec.namespace.as_str();
        let (mut rec, fence_ms) = match self.read_record(ns, node, "acquire")? {
            // Never used, or its record was lost with a removed directory: fence at now.
            Read::Missing => (Record::default(), Some(now_ms)),
            Read::Found(r) => {
                let fence = r.last_issued_ms;
                (r, fence)
            }
            Read::Corrupt => {
                *corrupt = true;
                return Ok(None);
            }
        };
        self.remove_stale_temps(ns, node);
        rec.token += 1;
        rec.owner = super::contract::random_nonzero()?;
        rec.queued_ms = wall_ms();
        rec.holder = spec.holder_clean();
        self.write_record(ns, node, &rec, "acquire")?;
        let lease = Lease {
            namespace: spec.namespace.clone(),
            node,
            token: rec.token,
            fence_ms,
            ttl: spec.ttl,
            holder: rec.holder.clone(),
            owner: rec.owner,
            epoch: 0,
            not_before_ms: None,
        };
        let held = Held {
            lock,
            name,
            id,
            pid: std::process::id(),
            rec,
            lost: None,
        };
        for fd in held.fds() {
            inherited::register(fd);
        }
        self.held().insert((spec.namespace.clone(), node), held);
        Ok(Some(lease))
    }

    /// One pass: released nodes whose bound is not ahead of `now_ms` (queue order), then
    /// never-used nodes from the lowest up, then the rest by nearest bound.
    fn acquire_pass(
        &self,
        spec: &LeaseSpec,
        now_ms: u64,
        avoid: Option<u64>,
        corrupt: &mut bool,
    ) -> Result<Option<Lease>> {
        let ns = spec.namespace.as_str();
        let listing = self.list(ns, spec.nodes)?;
        let recorded: HashSet<u64> = listing.records.iter().copied().collect();
        // Recorded nodes, ranked from their records read without the lock (a hint; the grant
        // re-reads under it): bound not ahead of now, released longest ago first; then those
        // whose bound is ahead, nearest bound first.
        let mut ranked = Vec::with_capacity(listing.records.len());
        for node in listing.records {
            if Some(node) == avoid {
                continue;
            }
            let rec = match self.read_record(ns, node, "acquire")? {
                Read::Missing => Record::default(),
                Read::Found(r) => r,
                Read::Corrupt => {
                    *corrupt = true;
                    continue;
                }
            };
            let ahead = rec.last_issued_ms.is_some_and(|b| b > now_ms);
            let key = if ahead {
                rec.last_issued_ms.unwrap_or(0)
            } else {
                rec.queued_ms
            };
            ranked.push((ahead, key, node));
        }
        ranked.sort_unstable();
        let (ready, ahead) = ranked.split_at(ranked.iter().take_while(|r| !r.0).count());
        // Released nodes first, so the directory holds about as many nodes as ever ran at
        // once, not one per run (a 32-bit node space would otherwise fill it).
        if let Some(l) = self.first_grantable(spec, now_ms, ready, corrupt)? {
            return Ok(Some(l));
        }
        // Never-used nodes. Only a node with a lock file can be busy (a racer creates the file
        // before locking it), so after that many busy ones plus a few, give up on this phase.
        let mut busy_budget = listing.locks.len() as u64 + 8;
        let mut node = 0u64;
        while node < spec.nodes && busy_budget > 0 {
            if !recorded.contains(&node) && Some(node) != avoid {
                match self.try_lock(ns, node)? {
                    Some(locks) => {
                        if let Some(l) = self.grant(spec, now_ms, node, locks, corrupt)? {
                            return Ok(Some(l));
                        }
                    }
                    None => busy_budget -= 1,
                }
            }
            node += 1;
        }
        self.first_grantable(spec, now_ms, ahead, corrupt)
    }

    /// Grants the first node of `ranked` that can be locked.
    fn first_grantable(
        &self,
        spec: &LeaseSpec,
        now_ms: u64,
        ranked: &[(bool, u64, u64)],
        corrupt: &mut bool,
    ) -> Result<Option<Lease>> {
        for &(_, _, node) in ranked {
            let Some(locks) = self.try_lock(&spec.namespace, node)? else {
                continue;
            };
            if let Some(l) = self.grant(spec, now_ms, node, locks, corrupt)? {
                return Ok(Some(l));
            }
        }
        Ok(None)
    }

    /// Checks that `h` still holds its node: the lock path leads to the locked file and the
    /// record there is ours. Called with the held map locked.
    fn check_ground(&self, ns: &str, node: u64, h: &Held, op: &'static str) -> Result<()> {
        match path_id(&self.lock_path(ns, node)) {
            Ok(id) if id == h.id => {}
            Ok(_) => return Err(lost(node, "the lock file was replaced")),
            Err(e) if e.kind() == IoKind::NotFound => {
                return Err(lost(node, "the lock file was removed"))
            }
            Err(e) => return Err(io_error(op, &e)),
        }
        match self.read_record(ns, node, op)? {
            Read::Found(r) if r.token == h.rec.token && r.owner == h.rec.owner => Ok(()),
            Read::Found(_) => Err(lost(node, "the record names another holder")),
            Read::Missing => Err(lost(node, "the record was removed")),
            Read::Corrupt => Err(lost(node, "the record is unreadable")),
        }
    }

    /// The held entry for `lease`, checked for this process and its ground. A lease found lost
    /// stays in the map, locks held, until [`release`](LeaseStore::release).
    fn checked<'a>(
        &self,
        held: &'a mut HashMap<(String, u64), Held>,
        lease: &Lease,
        op: &'static str,
    ) -> Result<&'a mut Held> {
        let key = (lease.namespace.clone(), lease.node);
        let Some(h) = held
            .get_mut(&key)
            .filter(|h| h.rec.token == lease.token && h.rec.owner == lease.owner)
        else {
            return Err(lost(lease.node, "lease not held by this store"));
        };
        if h.pid != std::process::id() {
            // An inherited lease: it is the parent's to renew or release.
            return Err(Error::Forked);
        }
        if let Some(reason) = h.lost {
            return Err(lost(lease.node, reason));
        }
        if let Err(e) = self.check_ground(&lease.namespace, lease.node, h, op) {
            if let Error::LeaseLost { reason, .. } = e {
                h.lost = Some(reason);
            }
            return Err(e);
        }
        Ok(h)
    }
}

/// Device and inode of an open file.
fn file_id(f: &File) -> std::io::Result<(u64, u64)> {
    let m = f.metadata()?;
    Ok((m.dev(), m.ino()))
}

/// Device and inode of the file at `path` (not following a final symbolic link).
fn path_id(path: &Path) -> std::io::Result<(u64, u64)> {
    let m = fs::symlink_metadata(path)?;
    Ok((m.dev(), m.ino()))
}

impl LeaseStore for FileStore {
    fn kind(&self) -> &'static str {
        STORE
    }

    fn acquire(&self, spec: &LeaseSpec, now_ms: u64, avoid: Option<u64>) -> Result<Lease> {
        spec.validate()?;
        let ns = spec.namespace.as_str();
        fs::create_dir_all(self.ns_dir(ns)).map_err(|e| io_error("acquire", &e))?;
        // Holders come and go while we scan, so a pass can find every node busy at the moment
        // it tried it although one was free at all times. And a lock stays held for a moment
        // after its holder released it when that process was starting a program just then: the
        // child shares the descriptor until it execs (the files are close-on-exec). So scan
        // again for up to ACQUIRE_PATIENCE, with short pauses, before giving up.
        let mut corrupt = false;
        let give_up = std::time::Instant::now() + ACQUIRE_PATIENCE;
        for pass in 0u64.. {
            if let Some(lease) = self.acquire_pass(spec, now_ms, avoid, &mut corrupt)? {
                return Ok(lease);
            }
            if pass >= 2 && std::time::Instant::now() >= give_up {
                break;
            }
            if pass >= 2 {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
        if corrupt {
            // Some node's record is unreadable: granting it could break its fence.
            return Err(unavailable("acquire", "corrupt record"));
        }
        Err(Error::NoFreeNode { nodes: spec.nodes })
    }

    fn renew(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
        let mut held = self.held();
        let h = self.checked(&mut held, lease, "renew")?;
        let mut rec = h.rec.clone();
        rec.last_issued_ms = Some(rec.last_issued_ms.unwrap_or(0).max(issued_up_to_ms));
        if rec != h.rec {
            self.write_record(&lease.namespace, lease.node, &rec, "renew")?;
            h.rec = rec;
        }
        Ok(())
    }

    fn release(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
        let key = (lease.namespace.clone(), lease.node);
        let h = {
            let mut held = self.held();
            if let Err(e) = self.checked(&mut held, lease, "release") {
                if matches!(e, Error::LeaseLost { .. }) {
                    // Lost: the holder has stopped minting; let go of the locks, write nothing
                    // (the path may lead to another holder's files now).
                    let ours = held
                        .get(&key)
                        .is_some_and(|h| h.rec.token == lease.token && h.rec.owner == lease.owner);
                    if ours {
                        held.remove(&key);
                    }
                }
                return Err(e);
            }
            held.remove(&key)
        };
        let Some(h) = h else {
            return Err(lost(lease.node, "lease not held by this store"));
        };
        let mut rec = h.rec.clone();
        // The record only rises: a release below what was renewed (or granted) leaves it.
        let last = lease.final_bound(issued_up_to_ms);
        rec.last_issued_ms = Some(rec.last_issued_ms.unwrap_or(0).max(last));
        rec.queued_ms = wall_ms();
        let written = self.write_record(&lease.namespace, lease.node, &rec, "release");
        // Unlock even if the record could not be written: the bound recorded by the last
        // renewal covers everything the holder was allowed to issue.
        // SAFETY: flock on a descriptor we own.
        unsafe { libc::flock(h.lock.as_raw_fd(), libc::LOCK_UN) };
        drop(h);
        written
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_reject_garbage() {
        let r = Record {
            token: 7,
            owner: 0xdead_beef,
            last_issued_ms: Some(1_700_000_000_123),
            queued_ms: 99,
            holder: "h:1:ab".into(),
        };
        assert_eq!(Record::decode(&r.encode()), Some(r.clone()));
        let fresh = Record::default();
        assert_eq!(Record::decode(&fresh.encode()), Some(fresh));
        assert_eq!(Record::decode("idmint-lease/2 token=7"), None);
        assert_eq!(Record::decode(&r.encode()[..20]), None);
        assert_eq!(Record::decode("garbage\n"), None);
    }

    #[test]
    fn records_of_the_first_format_still_read() {
        let v1 = "idmint-lease/1 token=3 last_issued_ms=1700000000000 queued_ms=5 holder=h\n";
        let r = Record::decode(v1).unwrap();
        assert_eq!(
            (r.token, r.owner, r.last_issued_ms),
            (3, 0, Some(1_700_000_000_000))
        );
    }
}
