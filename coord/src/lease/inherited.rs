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
//! never blocks: the registry is an array of atomic slots, so another thread registering or
//! releasing a lease at the moment of the fork cannot make the child skip it. (A descriptor
//! registered in the instant between its lock being taken and its slot being written, or one
//! beyond the first 1,024 while another thread holds the overflow list, stays in the child,
//! which then keeps the node locked until it exits: never two holders, only a late release.)

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, Once};

/// Registered descriptors, lock-free so the fork handler never finds the registry busy
/// because another thread was registering at the moment of the fork. -1 is a free slot.
static SLOTS: [AtomicI32; SLOTS_LEN] = [const { AtomicI32::new(-1) }; SLOTS_LEN];
const SLOTS_LEN: usize = 1024;
/// Descriptors beyond the slots (a process holding more than 1,024 leases): the handler only
/// reaches them if no other thread holds this mutex at the fork.
static OVERFLOW: Mutex<Vec<i32>> = Mutex::new(Vec::new());
static HANDLER: Once = Once::new();

/// Registers `fd` as a lock descriptor a forked child must let go of.
pub(crate) fn register(fd: i32) {
    HANDLER.call_once(|| {
        // SAFETY: registers a plain function; called once per process.
        unsafe { libc::pthread_atfork(None, None, Some(in_child)) };
    });
    for slot in &SLOTS {
        if slot
            .compare_exchange(-1, fd, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            return;
        }
    }
    OVERFLOW.lock().unwrap_or_else(|p| p.into_inner()).push(fd);
}

/// Forgets `fd` (its lock is being released by this process).
pub(crate) fn unregister(fd: i32) {
    for slot in &SLOTS {
        if slot
            .compare_exchange(fd, -1, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            return;
        }
    }
    let mut v = OVERFLOW.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(i) = v.iter().position(|&f| f == fd) {
        v.swap_remove(i);
    }
}

extern "C" fn in_child() {
    // SAFETY: open/dup3/close are async-signal-safe; the path is a NUL-terminated literal.
    let null = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    if null < 0 {
        return;
    }
    let let_go = |fd: i32| {
        // SAFETY: as above; `fd` is a descriptor number of this (child) process.
        unsafe { libc::dup3(null, fd, libc::O_CLOEXEC) };
    };
    for slot in &SLOTS {
        let fd = slot.swap(-1, Ordering::AcqRel);
        if fd >= 0 {
            let_go(fd);
        }
    }
    if let Ok(mut v) = OVERFLOW.try_lock() {
        for &fd in v.iter() {
            let_go(fd);
        }
        // Vec::clear frees nothing, so it is safe here too.
        v.clear();
    }
    // SAFETY: closing our own descriptor.
    unsafe { libc::close(null) };
}
