//! The embedded default lease store: one `flock`ed file per node in a directory.
//!
//! `DIR/NAMESPACE/node-N.lock` is the lock: a holder keeps it open with `flock(LOCK_EX)`.
//! The kernel drops the lock when the holder's process dies, so a crashed process's node frees
//! itself, with no TTL to wait out. `flock` locks belong to an open file description, and each
//! acquire opens the file anew, so two holders inside one process exclude each other too.
//!
//! `DIR/NAMESPACE/node-N.rec` is the node's durable record — fencing token, last-issued bound
//! (WeChat seqsvr's "persist the max, not every value", applied to time), the time the node
//! was last released or granted (its place in the queue) and the holder. Only the lock's holder
//! writes it, through a temporary file, `fsync`, `rename` and an `fsync` of the directory, so a
//! crash leaves either the old or the new record, never a torn one.
//!
//! A process that forks keeps its lock in the child too (the descriptor is shared) until both
//! close it; the files are opened close-on-exec, so an exec'd program does not inherit it.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind as IoKind, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use idmint::{Error, Result};

use crate::reason::Reason;

use super::{Lease, LeaseSpec, LeaseStore};

const STORE: &str = "file";
const MAGIC: &str = "idmint-lease/1";

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
    held: Mutex<HashMap<(String, u64), Held>>,
}

#[derive(Debug)]
struct Held {
    /// Open and `flock`ed for as long as the lease is held; closing it frees the node.
    lock: File,
    rec: Record,
}

/// One node's durable record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Record {
    token: u64,
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
            "{MAGIC} token={} last_issued_ms={last} queued_ms={} holder={}\n",
            self.token, self.queued_ms, self.holder
        )
    }

    fn decode(text: &str) -> Option<Record> {
        let line = text.strip_suffix('\n')?;
        let mut parts = line.split(' ');
        if parts.next()? != MAGIC {
            return None;
        }
        let mut field = |name: &str| -> Option<String> {
            let p = parts.next()?;
            Some(p.strip_prefix(name)?.strip_prefix('=')?.to_string())
        };
        let token = field("token")?.parse().ok()?;
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
    Error::StoreUnavailable {
        store: STORE,
        op,
        reason,
    }
}

/// What reading a record found.
enum Read {
    Missing,
    Corrupt,
    Found(Record),
}

impl FileStore {
    /// Uses `dir` (created if missing) for the lock and record files.
    pub fn open(dir: impl AsRef<Path>) -> Result<FileStore> {
        let dir = dir.as_ref().to_path_buf();
        fs::create_dir_all(&dir).map_err(|e| unavailable("open", e.reason()))?;
        Ok(FileStore {
            dir,
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

    fn read_record(&self, ns: &str, node: u64) -> Result<Read> {
        match fs::read_to_string(self.rec_path(ns, node)) {
            Ok(text) => Ok(match Record::decode(&text) {
                Some(r) => Read::Found(r),
                None => Read::Corrupt,
            }),
            Err(e) if e.kind() == IoKind::NotFound => Ok(Read::Missing),
            Err(e) if e.kind() == IoKind::InvalidData => Ok(Read::Corrupt),
            Err(e) => Err(unavailable("acquire", e.reason())),
        }
    }

    /// Replaces the record atomically and durably (temp file, fsync, rename, fsync dir).
    /// Only the holder of the node's lock calls this, so the temp name cannot clash.
    fn write_record(&self, ns: &str, node: u64, rec: &Record, op: &'static str) -> Result<()> {
        let path = self.rec_path(ns, node);
        let tmp = self.ns_dir(ns).join(format!("node-{node}.rec.tmp"));
        let write = || -> std::io::Result<()> {
            let mut f = File::create(&tmp)?;
            f.write_all(rec.encode().as_bytes())?;
            f.sync_all()?;
            drop(f);
            fs::rename(&tmp, &path)?;
            File::open(self.ns_dir(ns))?.sync_all()
        };
        write().map_err(|e| unavailable(op, e.reason()))
    }

    /// Opens and tries to lock node `node`'s lock file: `Ok(None)` if someone holds it.
    fn try_lock(&self, ns: &str, node: u64) -> Result<Option<File>> {
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(self.lock_path(ns, node))
            .map_err(|e| unavailable("acquire", e.reason()))?;
        loop {
            // SAFETY: flock on a descriptor we own; no memory is involved.
            let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if rc == 0 {
                return Ok(Some(f));
            }
            let e = std::io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EWOULDBLOCK) => return Ok(None),
                Some(libc::EINTR) => continue,
                _ => return Err(unavailable("acquire", e.reason())),
            }
        }
    }

    /// One scan over the node space: the first node it could lock, in queue order.
    fn acquire_pass(
        &self,
        spec: &LeaseSpec,
        now_ms: u64,
        avoid: Option<u64>,
        corrupt: &mut bool,
    ) -> Result<Option<Lease>> {
        let ns = spec.namespace.as_str();
        // Rank every node from its record, read without the lock (a hint; re-read under it):
        // bound not ahead of now first, then released longest ago; ahead ones by nearest bound.
        let mut ranked = Vec::new();
        for node in 0..spec.nodes {
            if Some(node) == avoid {
                continue;
            }
            let rec = match self.read_record(ns, node)? {
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
        for (_, _, node) in ranked {
            let Some(lock) = self.try_lock(ns, node)? else {
                continue;
            };
            let mut rec = match self.read_record(ns, node)? {
                Read::Missing => Record::default(),
                Read::Found(r) => r,
                Read::Corrupt => {
                    *corrupt = true;
                    continue; // dropping `lock` frees the node again
                }
            };
            rec.token += 1;
            rec.queued_ms = wall_ms();
            rec.holder = spec.holder_clean();
            self.write_record(ns, node, &rec, "acquire")?;
            let lease = Lease {
                namespace: spec.namespace.clone(),
                node,
                token: rec.token,
                fence_ms: rec.last_issued_ms,
                ttl: spec.ttl,
                holder: rec.holder.clone(),
                owner: super::random_nonzero()?,
                epoch: 0,
                not_before_ms: None,
            };
            self.held()
                .insert((spec.namespace.clone(), node), Held { lock, rec });
            return Ok(Some(lease));
        }
        Ok(None)
    }
}

impl LeaseStore for FileStore {
    fn kind(&self) -> &'static str {
        STORE
    }

    fn acquire(&self, spec: &LeaseSpec, now_ms: u64, avoid: Option<u64>) -> Result<Lease> {
        spec.validate()?;
        let ns = spec.namespace.as_str();
        fs::create_dir_all(self.ns_dir(ns)).map_err(|e| unavailable("acquire", e.reason()))?;
        // Holders come and go while we scan, so a pass can find every node busy at the moment
        // it tried it although one was free at all times: scan a few times before giving up.
        let mut corrupt = false;
        for _ in 0..3 {
            if let Some(lease) = self.acquire_pass(spec, now_ms, avoid, &mut corrupt)? {
                return Ok(lease);
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
        let key = (lease.namespace.clone(), lease.node);
        let Some(h) = held.get_mut(&key).filter(|h| h.rec.token == lease.token) else {
            return Err(Error::LeaseLost {
                node: lease.node,
                reason: "lease not held by this store",
            });
        };
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
            match held.get(&key) {
                Some(h) if h.rec.token == lease.token => held.remove(&key),
                _ => None,
            }
        };
        let Some(h) = h else {
            return Err(Error::LeaseLost {
                node: lease.node,
                reason: "lease not held by this store",
            });
        };
        let mut rec = h.rec.clone();
        rec.last_issued_ms = Some(lease.final_bound(issued_up_to_ms));
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
            last_issued_ms: Some(1_700_000_000_123),
            queued_ms: 99,
            holder: "h:1:ab".into(),
        };
        assert_eq!(Record::decode(&r.encode()), Some(r.clone()));
        let fresh = Record::default();
        assert_eq!(Record::decode(&fresh.encode()), Some(fresh));
        assert_eq!(Record::decode("idmint-lease/1 token=7"), None);
        assert_eq!(Record::decode(&r.encode()[..20]), None);
        assert_eq!(Record::decode("garbage\n"), None);
    }
}
