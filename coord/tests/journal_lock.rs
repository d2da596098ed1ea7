//! A journal's lock outlives its owner in two ways, and neither may make a reopen fail:
//! - closed at the moment another thread forks a child process, it is still shared through the
//!   child's copy of the descriptor until the child runs its program: the owner lets go of it
//!   explicitly, so a reopen succeeds at once;
//! - held by another owner that lets go a moment later: the reopen waits for it, up to a bound,
//!   and a journal held for longer is still refused.
//!
//! Alone in its own test binary: the forked child holds a copy of *every* descriptor of the
//! process, so it would hold other tests' journals too.

use std::time::{Duration, Instant};

use idmint_coord::segment::{is_held_elsewhere, Journal, MemoryStore};

/// The tests of this binary one at a time: a forked child would hold the other's locks.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

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
fn a_journal_closed_while_a_forked_child_holds_its_descriptor_reopens_at_once() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = std::env::temp_dir().join(format!("idmint-journal-fork-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store = MemoryStore::new();
    let (first, _) = Journal::open(dir.join("j"), &store).unwrap();
    let child = hold_for(1_500);
    drop(first);
    let t = Instant::now();
    let (again, _) = Journal::open(dir.join("j"), &store).unwrap();
    assert!(
        t.elapsed() < Duration::from_millis(1_000),
        "not held until the child exits"
    );
    // The child exiting does not take the reopened lock with it.
    reap(child);
    let refused = Journal::open(dir.join("j"), &store)
        .map(|_| ())
        .unwrap_err();
    assert!(is_held_elsewhere(&refused), "{refused}");
    drop(again);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Locks `PATH.lock` through a description of its own, as another process's owner would.
fn other_owner(journal: &std::path::Path) -> std::fs::File {
    use std::os::unix::io::AsRawFd;
    let mut lock = journal.as_os_str().to_owned();
    lock.push(".lock");
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(lock)
        .unwrap();
    // SAFETY: flock on a descriptor we own.
    assert_eq!(
        unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    f
}

#[test]
fn a_lock_another_owner_lets_go_of_a_moment_later_is_waited_for() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = std::env::temp_dir().join(format!("idmint-journal-wait-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = MemoryStore::new();
    let path = dir.join("j");

    // Let go of 80 ms later: the open waits and succeeds.
    let held = other_owner(&path);
    let t = Instant::now();
    let opened = std::thread::scope(|s| {
        s.spawn(move || {
            std::thread::sleep(Duration::from_millis(80));
            drop(held);
        });
        Journal::open(&path, &store).map(|(j, _)| j)
    });
    assert!(opened.is_ok(), "{:?}", opened.err());
    assert!(
        t.elapsed() >= Duration::from_millis(40),
        "it was held meanwhile"
    );
    drop(opened);

    // Held for good: refused as in use, after a bounded wait.
    let held = other_owner(&path);
    let t = Instant::now();
    let refused = Journal::open(&path, &store).map(|_| ()).unwrap_err();
    assert!(is_held_elsewhere(&refused), "{refused}");
    assert!(
        t.elapsed() < Duration::from_millis(2_000),
        "the wait is bounded"
    );
    drop(held);
    let (last, _) = Journal::open(&path, &store).unwrap();
    drop(last);
    std::fs::remove_dir_all(&dir).unwrap();
}
