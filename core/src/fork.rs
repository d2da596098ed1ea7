//! Fork detection: a child process inherits a generator's state, so parent and child would
//! mint the same IDs. A `pthread_atfork` child handler bumps a process-wide generation; a
//! generator remembers the generation it was built in and refuses to mint in another one.
//! Checking costs one relaxed load per call (no `getpid` syscall).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Once;

static GENERATION: AtomicU64 = AtomicU64::new(0);
static INSTALL: Once = Once::new();

#[cfg(unix)]
extern "C" fn after_fork_in_child() {
    GENERATION.fetch_add(1, Relaxed);
}

/// Installs the fork handler once per process and returns the current generation.
pub(crate) fn generation() -> u64 {
    INSTALL.call_once(|| {
        #[cfg(unix)]
        // SAFETY: registers a handler that only touches an atomic, which is async-signal-safe
        // and valid in the child right after fork.
        unsafe {
            libc::pthread_atfork(None, None, Some(after_fork_in_child));
        }
    });
    GENERATION.load(Relaxed)
}

/// The current generation without installing anything (hot path).
#[inline]
pub(crate) fn current() -> u64 {
    GENERATION.load(Relaxed)
}
