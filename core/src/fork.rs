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

/// A spin lock that a forked child can take over. `std::sync::Mutex` held by another thread at
/// the moment of `fork()` stays locked forever in the child (that thread does not exist there);
/// this lock records the fork generation of its holder, so a child sees a holder from an
/// earlier generation as gone and takes the lock. The data may then be half-updated: callers
/// reset it in a new generation (as the UUID pool and generators do). Critical sections are
/// short and never block on other locks.
pub(crate) struct ForkLock<T> {
    /// 0 = free; otherwise the holder's generation + 1.
    word: AtomicU64,
    cell: core::cell::UnsafeCell<T>,
}

// SAFETY: access to `cell` is serialised by `word` (see `lock`), so sharing is sound for `T: Send`.
unsafe impl<T: Send> Sync for ForkLock<T> {}

impl<T> ForkLock<T> {
    pub(crate) const fn new(value: T) -> ForkLock<T> {
        ForkLock {
            word: AtomicU64::new(0),
            cell: core::cell::UnsafeCell::new(value),
        }
    }

    pub(crate) fn lock(&self) -> ForkLockGuard<'_, T> {
        use std::sync::atomic::Ordering::{Acquire, Relaxed as R};
        let mine = generation() + 1;
        let mut spins = 0u32;
        loop {
            let cur = self.word.load(R);
            if (cur == 0 || cur != mine)
                && self
                    .word
                    .compare_exchange_weak(cur, mine, Acquire, R)
                    .is_ok()
            {
                return ForkLockGuard { lock: self };
            }
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// Releases a [`ForkLock`] when dropped.
pub(crate) struct ForkLockGuard<'a, T> {
    lock: &'a ForkLock<T>,
}

impl<T> core::ops::Deref for ForkLockGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard proves exclusive access (the lock word holds our generation).
        unsafe { &*self.lock.cell.get() }
    }
}

impl<T> core::ops::DerefMut for ForkLockGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as above, and `&mut self` makes this the only reference through the guard.
        unsafe { &mut *self.lock.cell.get() }
    }
}

impl<T> Drop for ForkLockGuard<'_, T> {
    fn drop(&mut self) {
        self.lock
            .word
            .store(0, std::sync::atomic::Ordering::Release);
    }
}

/// Remembers the process it was made in, so that code holding state a `fork()` would
/// duplicate (buffered ID ranges, leases, background threads) can refuse to use it in a
/// child. The check is one relaxed load, no `getpid` syscall.
///
/// # Examples
/// ```
/// let guard = idmint::ForkGuard::new();
/// assert!(guard.check().is_ok()); // in the process that made it
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForkGuard {
    born: u64,
}

impl ForkGuard {
    /// A guard for the current process (installs the fork handler on first use).
    pub fn new() -> ForkGuard {
        ForkGuard { born: generation() }
    }

    /// Whether this is still the process the guard was made in.
    #[inline]
    pub fn is_original(&self) -> bool {
        current() == self.born
    }

    /// `Ok` in the process the guard was made in, [`Error::Forked`](crate::Error::Forked) in a
    /// child forked from it.
    #[inline]
    pub fn check(&self) -> crate::error::Result<()> {
        if self.is_original() {
            Ok(())
        } else {
            Err(crate::error::Error::Forked)
        }
    }
}

impl Default for ForkGuard {
    fn default() -> ForkGuard {
        ForkGuard::new()
    }
}
