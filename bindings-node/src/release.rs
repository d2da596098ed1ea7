//! What a store-backed object (`LeasedSnowflake`, `SegmentAllocator`, `NamedGenerator`)
//! collected without `close()` holds is shut down off the JavaScript thread, and finished
//! before the environment (the process or a worker) goes away.

use std::cell::{Cell, RefCell};
use std::thread::JoinHandle;

use idmint_coord::segment::is_held_elsewhere;
use napi::Env;

thread_local! {
    /// This JavaScript thread's environment is shutting down (see [`watch_teardown`]).
    static TEARING_DOWN: Cell<bool> = const { Cell::new(false) };
    /// The release threads [`drop_off_thread`] started from this JavaScript thread.
    static RELEASING: RefCell<Vec<JoinHandle<()>>> = const { RefCell::new(Vec::new()) };
}

/// Shuts down what an object dropped open (collected without `close()`) holds, on a thread
/// of its own: releasing a lease or recording a journal may wait for a store (up to its
/// timeouts, longer than ever when the store has stopped answering), and finalizers run on
/// the JavaScript thread, whose event loop must not wait with it. While the environment shuts
/// down (the process or worker exits) it is dropped here instead, as before the exit, so that
/// the release is done. Should no thread start, it is dropped here too.
pub(crate) fn drop_off_thread<T: Send + 'static>(held: Option<T>) {
    let Some(v) = held else { return };
    if TEARING_DOWN.with(Cell::get) {
        return drop(v);
    }
    let spawned = std::thread::Builder::new()
        .name("idmint-release".into())
        .spawn(move || drop(v));
    if let Ok(thread) = spawned {
        RELEASING.with(|r| {
            let mut r = r.borrow_mut();
            r.retain(|t| !t.is_finished());
            r.push(thread);
        });
    }
}

/// Opens a store-backed object with `open`. Should that fail for want of what an object
/// collected without `close()` may still hold — its node (`NoFreeNode`) or its segment journal
/// (held elsewhere) — while such a release started from this thread was still running, it waits
/// for the releases and tries once more: a generator that was collected is released for the
/// next one, as if its release had run in the finalizer. (A release that had finished before
/// `open` began freed what it held already: no retry for it.)
pub(crate) fn open_after_releases<T>(open: impl Fn() -> idmint::Result<T>) -> idmint::Result<T> {
    let releasing = RELEASING.with(|r| r.borrow().iter().any(|t| !t.is_finished()));
    match open() {
        Err(e)
            if releasing
                && (matches!(e, idmint::Error::NoFreeNode { .. }) || is_held_elsewhere(&e)) =>
        {
            finish_releases();
            open()
        }
        r => r,
    }
}

/// Joins the release threads started from this JavaScript thread.
fn finish_releases() {
    for thread in RELEASING.with(RefCell::take) {
        let _ = thread.join();
    }
}

/// Registers the hook that marks this environment's shutdown and waits for the releases still
/// running. Node runs environment cleanup hooks in reverse order of registration, so this one
/// runs before Node-API finalizes the objects still alive.
pub(crate) fn watch_teardown(env: &Env) -> napi::Result<()> {
    env.add_env_cleanup_hook((), |()| {
        TEARING_DOWN.with(|t| t.set(true));
        finish_releases();
    })?;
    Ok(())
}
