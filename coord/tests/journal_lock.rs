//! A journal closed at the moment another thread forks a child process is still locked
//! through the child's copy of the lock's descriptor, until the child runs its program (or
//! exits). Reopening it right away must wait for that, not answer "in use"; a journal held for
//! longer than the wait is still refused.
//!
//! Alone in its own test binary: the forked child holds a copy of *every* descriptor of the
//! process, so it would hold other tests' journals too.

use std::time::{Duration, Instant};

use idmint_coord::segment::{is_held_elsewhere, Journal, MemoryStore};

/// Forks a child that holds every descriptor of this process for `ms`, then exits.
fn hold_for(ms: i64) -> libc::pid_t {
    // SAFETY: the child calls only nanosleep and _exit, both async-signal-safe, so forking a
    // process with other threads is sound.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let t = libc::timespec {
            tv_sec: ms / 1_000,
            tv_nsec: ms % 1_000 * 1_000_000,
        };
        // SAFETY: as above.
        unsafe {
            libc::nanosleep(&t, std::ptr::null_mut());
            libc::_exit(0);
        }
    }
    pid
}

fn reap(pid: libc::pid_t) {
    let mut status = 0;
    // SAFETY: waits for our own child.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
}

#[test]
fn a_lock_a_forked_child_holds_for_a_moment_is_waited_for() {
    let dir = std::env::temp_dir().join(format!("idmint-journal-fork-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store = MemoryStore::new();
    let (first, _) = Journal::open(dir.join("j"), &store).unwrap();

    // Held 80 ms past the close: the open waits and succeeds.
    let child = hold_for(80);
    drop(first);
    let t = Instant::now();
    let (again, _) = Journal::open(dir.join("j"), &store).unwrap();
    assert!(
        t.elapsed() >= Duration::from_millis(40),
        "the child held it meanwhile"
    );
    reap(child);

    // Held far longer than the wait: refused as in use, and open again once it is let go.
    let child = hold_for(3_000);
    drop(again);
    let t = Instant::now();
    let refused = Journal::open(dir.join("j"), &store)
        .map(|_| ())
        .unwrap_err();
    assert!(is_held_elsewhere(&refused), "{refused}");
    assert!(
        t.elapsed() < Duration::from_millis(2_000),
        "the wait is bounded"
    );
    reap(child);
    let (last, _) = Journal::open(dir.join("j"), &store).unwrap();
    drop(last);
    std::fs::remove_dir_all(&dir).unwrap();
}
