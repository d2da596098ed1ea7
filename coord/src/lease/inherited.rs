//! What a forked child does with the file store's lock descriptors it inherits: lets go of
//! them.
//!
//! A `flock` belongs to an open file description, and a bound socket name to its socket; a child
//! created by `fork()` shares both with its parent. If the child kept them, the parent's node
//! would stay locked after the parent released it or died, for as long as the child lives (a
//! pre-fork worker pool lives for days). And the child must never *unlock* them either — that
//! would unlock the parent's node under the parent.
//!
//! So a `pthread_atfork` child handler points each registered descriptor at `/dev/null`
//! (`dup3` onto the same number): the child's references to the lock file and the socket are
//! gone, the parent's are untouched, and the child's own bookkeeping can still close the
//! descriptor number later without harm. The handler only calls async-signal-safe functions and
//! never blocks: if another thread held the registry's mutex at the moment of the fork, it does
//! nothing (the child then keeps the references, and the node stays locked until it exits).

use std::sync::{Mutex, Once};

static FDS: Mutex<Vec<i32>> = Mutex::new(Vec::new());
static HANDLER: Once = Once::new();

/// Registers `fd` as a lock descriptor a forked child must let go of.
pub(crate) fn register(fd: i32) {
    HANDLER.call_once(|| {
        // SAFETY: registers a plain function; called once per process.
        unsafe { libc::pthread_atfork(None, None, Some(in_child)) };
    });
    FDS.lock().unwrap_or_else(|p| p.into_inner()).push(fd);
}

/// Forgets `fd` (its lock was released by this process).
pub(crate) fn unregister(fd: i32) {
    let mut v = FDS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(i) = v.iter().position(|&f| f == fd) {
        v.swap_remove(i);
    }
}

extern "C" fn in_child() {
    let Ok(mut fds) = FDS.try_lock() else {
        return;
    };
    // SAFETY: open/dup3/close are async-signal-safe; the path is a NUL-terminated literal.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if null < 0 {
            return;
        }
        for &fd in fds.iter() {
            libc::dup3(null, fd, libc::O_CLOEXEC);
        }
        libc::close(null);
    }
    // Vec::clear frees nothing, so it is safe here too.
    fds.clear();
}
