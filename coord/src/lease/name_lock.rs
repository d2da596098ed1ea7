//! A second lock per node that no file-system operation can take away: a Linux *abstract* unix
//! socket bound to a name derived from the store directory, the namespace and the node.
//!
//! The file store's `flock` lives on an inode. When a temp cleaner (or an operator) removes the
//! lock directory while a holder is live, the holder keeps its lock on the unlinked inode, and
//! a second process that re-creates the directory locks a *new* inode for the same node: both
//! would mint on one node. An abstract socket name is not a file: nothing can unlink it, and the
//! kernel frees it when the last descriptor of the socket closes — when its holder releases or
//! dies, exactly like a `flock`. Binding the name is the second lock: a bind that finds the name
//! taken means a live holder of the node exists, even if its directory is gone.
//!
//! Names are per network namespace: processes in different network namespaces (containers
//! with their own network) sharing one lock directory are still excluded by the `flock`, but
//! not protected against the directory being removed under them. Other systems than Linux have
//! no abstract sockets; there the file lock alone applies.

use std::io;
use std::os::fd::OwnedFd;

/// The held name (the bound socket); dropping it frees the name.
#[derive(Debug)]
pub(crate) struct NameLock {
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    fd: Option<OwnedFd>,
}

impl NameLock {
    /// The socket's descriptor, to hand over to the fork handler (`None` where names are not
    /// supported).
    pub(crate) fn raw_fd(&self) -> Option<i32> {
        use std::os::fd::AsRawFd;
        self.fd.as_ref().map(|f| f.as_raw_fd())
    }
}

/// FNV-1a, 64 bits: a stable hash (std's hasher may change between Rust releases, and two
/// builds of idmint must derive the same name for the same node).
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in *part {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        // Separate the parts, so ("ab", "c") and ("a", "bc") differ.
        h ^= 0xff;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The abstract name for `node` of namespace `ns` in the store at `dir` (its canonical path).
pub(crate) fn name(dir: &[u8], ns: &str, node: u64) -> String {
    format!("idmint-lease/{:016x}/{node}", fnv1a(&[dir, ns.as_bytes()]))
}

/// Binds `name`: `Ok(None)` when a live socket holds it already.
#[cfg(target_os = "linux")]
pub(crate) fn try_lock(name: &str) -> io::Result<Option<NameLock>> {
    use std::os::fd::FromRawFd;
    // SAFETY: plain socket(2) call; the descriptor is owned below.
    let fd = unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a fresh descriptor nobody else owns.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: sockaddr_un is plain data; all-zero is a valid value.
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    let bytes = name.as_bytes();
    // sun_path[0] stays 0: an abstract name. The name must fit after it.
    if bytes.len() + 1 > addr.sun_path.len() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "lock name too long",
        ));
    }
    for (dst, &src) in addr.sun_path[1..].iter_mut().zip(bytes) {
        *dst = src as libc::c_char;
    }
    let len = std::mem::size_of::<libc::sa_family_t>() + 1 + bytes.len();
    // SAFETY: `addr` is a valid sockaddr_un and `len` covers the family and the used path bytes.
    let rc = unsafe {
        libc::bind(
            fd,
            (&addr as *const libc::sockaddr_un).cast(),
            len as libc::socklen_t,
        )
    };
    if rc == 0 {
        return Ok(Some(NameLock { fd: Some(owned) }));
    }
    let e = io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EADDRINUSE) {
        Ok(None)
    } else {
        Err(e)
    }
}

/// No abstract names here: the file lock alone applies.
#[cfg(not(target_os = "linux"))]
pub(crate) fn try_lock(_name: &str) -> io::Result<Option<NameLock>> {
    Ok(Some(NameLock { fd: None }))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_held_until_dropped() {
        let n = name(b"/tmp/x", &format!("t{}", std::process::id()), 3);
        let a = try_lock(&n).unwrap().expect("free");
        assert!(try_lock(&n).unwrap().is_none());
        drop(a);
        assert!(try_lock(&n).unwrap().is_some());
    }

    #[test]
    fn names_differ_by_dir_namespace_and_node() {
        let a = name(b"/a", "ns", 1);
        assert_ne!(a, name(b"/b", "ns", 1));
        assert_ne!(a, name(b"/a", "nt", 1));
        assert_ne!(a, name(b"/a", "ns", 2));
        assert_ne!(name(b"/ab", "c", 1), name(b"/a", "bc", 1));
        assert!(a.len() < 100);
    }
}
