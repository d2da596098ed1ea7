//! `idmint_segment_allocator`: IDs per key from ranges of consecutive values taken from a segment store
//! (`idmint-coord`'s `SegmentAllocator`), one store round trip per range, the next range fetched
//! in the background before the current one runs out. Its options go through
//! `idmint_coord::options::SegmentAllocatorOptions`, by key, like every other surface's.

use std::ffi::c_char;
use std::sync::{PoisonError, RwLock};

use idmint_coord::options::SegmentAllocatorOptions;
use idmint_coord::segment::{SegmentAllocator, SegmentStore};
use idmint_core::{Error, OptionValue};

use crate::error::{guard, idmint_status, Fail};
use crate::ffi::{arg, batch, c_str, create, free, opt_c_str, out, u64_out};

type Allocator = SegmentAllocator<Box<dyn SegmentStore>>;

/// @brief How an #idmint_segment_allocator allocator takes and keeps its ranges. Zero-initialise it
/// (`idmint_segment_allocator_options opts = {0};`) for the defaults, then set what you need; or pass NULL.
///
/// Strings are NUL-terminated UTF-8, read only during #idmint_segment_allocator_new.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct idmint_segment_allocator_options {
    /// Values per range asked of the store at first; the step then adapts to the load (up to a
    /// million). 0: 1000.
    pub step: u64,
    /// A journal file: #idmint_segment_allocator_close records the unserved values of every key there,
    /// and the next allocator on the same store serves them first instead of skipping them.
    /// NULL: no journal (a restart skips what was taken and not served; never repeats it).
    pub journal: *const c_char,
    /// How long a call waits for a range when both of its key's buffers are empty, in ms,
    /// before failing with the store's error. 0: 2000.
    pub wait_timeout_ms: u64,
    /// With `journal`: also write a checkpoint this often (ms), so a process that is killed
    /// resumes from it too. 0: only at #idmint_segment_allocator_close.
    pub checkpoint_every_ms: u64,
}

/// @brief IDs per key from ranges of a segment store (opaque).
///
/// Thread-safe: any number of threads may call #idmint_segment_allocator_next_id and #idmint_segment_allocator_next_ids
/// at once, on one key or many. Values of one key increase and are never served twice, across
/// threads, processes and restarts. A call waits only when both buffers of its key are empty
/// (the first call for a key, or a store outage longer than the buffers last). In a child
/// process after `fork()` every call returns `IDMINT_FORKED`: make a new allocator there.
/// Close it with #idmint_segment_allocator_close (to record the journal and see whether that worked),
/// then free it with #idmint_segment_allocator_free.
pub struct idmint_segment_allocator(RwLock<Option<Allocator>>);

impl idmint_segment_allocator {
    /// Runs `f` on the allocator, unless it was closed. Calls hold the read lock, so a close
    /// waits for them.
    fn with<R>(&self, f: impl FnOnce(&Allocator) -> Result<R, Error>) -> Result<R, Fail> {
        let a = self.0.read().unwrap_or_else(PoisonError::into_inner);
        match a.as_ref() {
            Some(a) => Ok(f(a)?),
            None => Err(Fail::Core(Error::Closed {
                what: "the segment allocator",
            })),
        }
    }
}

/// The segment options by key (a zero or NULL field keeps the default).
unsafe fn options(
    o: *const idmint_segment_allocator_options,
) -> Result<SegmentAllocatorOptions, Fail> {
    let mut opts = SegmentAllocatorOptions::new();
    if o.is_null() {
        return Ok(opts);
    }
    // SAFETY: the caller's contract (here and below).
    let o = unsafe { arg(o, "options") }?;
    for (key, value) in [
        ("step", o.step),
        ("wait_timeout_ms", o.wait_timeout_ms),
        ("checkpoint_every_ms", o.checkpoint_every_ms),
    ] {
        if value != 0 {
            opts.set(key, OptionValue::Int(value))?;
        }
    }
    // SAFETY: as above.
    match unsafe { opt_c_str(o.journal, "options->journal") }? {
        Some("") => return Err(Fail::Arg("options->journal must not be empty")),
        Some(path) => opts.set("journal", OptionValue::Text(path))?,
        None => {}
    }
    Ok(opts)
}

/// @brief Opens a segment store and starts an allocator on it (resuming its journal, if any).
///
/// @param store_url The store: `sqlite:PATH`, `postgres://…`, `redis://…`,
///        `idmint+http://HOST:PORT/` (an idmint service) — any URL the coordination crate's
///        `segment::open_store` takes, with its parameters (`shards=N`, `timeout_ms=N`, ...), or
///        `@env:NAME` / `@PATH` holding one.
/// @param options NULL for the defaults.
/// @param out_allocator Receives the allocator (close it with #idmint_segment_allocator_close and free it
///        with #idmint_segment_allocator_free), or NULL on failure.
/// @return `IDMINT_OK`; `IDMINT_INVALID_CONFIG` (a URL of no known store, a malformed URL
///         option); `IDMINT_STORE_UNAVAILABLE` (the store or the journal cannot be opened, or
///         the store does not answer within its timeout); `IDMINT_STORE_MISMATCH` (the journal
///         was recorded on another store, or on this one before it lost its data: resuming it
///         could repeat values); `IDMINT_LIMIT_EXCEEDED` (a count or timeout of the URL above
///         its limit); `IDMINT_BAD_C_ARGUMENT` (not UTF-8, an empty journal path);
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_segment_allocator_new(
    store_url: *const c_char,
    options: *const idmint_segment_allocator_options,
    out_allocator: *mut *mut idmint_segment_allocator,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        create(out_allocator, "out_allocator", || {
            let url = c_str(store_url, "store_url")?;
            let opts = self::options(options)?;
            if url.is_empty() {
                return Err(Fail::Arg("store_url must not be empty"));
            }
            crate::stores::name_the_full_library();
            Ok(idmint_segment_allocator(RwLock::new(Some(opts.open(url)?))))
        })
    }
}

/// @brief The next ID for `key`.
///
/// @param key The key the IDs are counted under (Leaf's `biz_tag`): 1 to 200 bytes of UTF-8.
/// @param out_id Receives the ID.
/// @return `IDMINT_OK`; `IDMINT_STORE_UNAVAILABLE` when both of the key's buffers are empty and
///         the store did not hand out a range within `wait_timeout_ms`;
///         `IDMINT_STORE_MISMATCH` when the store handed out a range below one it handed out
///         before (a counter that went back: a store restored or restarted without its data);
///         `IDMINT_INVALID_CONFIG` (an empty or too long key); `IDMINT_LIMIT_EXCEEDED` (more
///         keys than one allocator serves, 100,000); `IDMINT_FORKED` in a child process;
///         `IDMINT_BAD_C_ARGUMENT` (not UTF-8); `IDMINT_CLOSED` (a closed allocator);
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_segment_allocator_next_id(
    allocator: *const idmint_segment_allocator,
    key: *const c_char,
    out_id: *mut u64,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (s, key, dst) = unsafe {
            (
                arg(allocator, "allocator")?,
                c_str(key, "key")?,
                out(out_id, "out_id")?,
            )
        };
        dst.write(s.with(|a| a.next_id(key))?);
        Ok(())
    })
}

/// @brief Fills `out_ids` with the next `n` IDs for `key`, increasing. A batch larger than the
/// buffers hold asks the store for the shortfall at once.
///
/// @param out_ids Array of `n` IDs. May be NULL only if `n` is 0.
/// @param n How many IDs: at most #IDMINT_MAX_BATCH.
/// @return As #idmint_segment_allocator_next_id; `IDMINT_LIMIT_EXCEEDED` for more than #IDMINT_MAX_BATCH
///         IDs. On failure the array's contents are unspecified, and the values already
///         taken are skipped, never served again.
#[no_mangle]
pub unsafe extern "C" fn idmint_segment_allocator_next_ids(
    allocator: *const idmint_segment_allocator,
    key: *const c_char,
    out_ids: *mut u64,
    n: usize,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (s, key) = unsafe { (arg(allocator, "allocator")?, c_str(key, "key")?) };
        batch(n)?;
        // SAFETY: the caller's contract.
        let ids = unsafe { u64_out(out_ids, n, "out_ids") }?;
        s.with(|a| a.next_ids(key, ids))
    })
}

/// @brief Stops the allocator's background threads (after a fetch in progress lands) and records
/// every key's unserved values in the journal, if there is one. Waits for calls in progress;
/// later calls return `IDMINT_BAD_C_ARGUMENT`; closing again does nothing. The handle stays
/// allocated until #idmint_segment_allocator_free.
///
/// @return `IDMINT_OK`; `IDMINT_STORE_UNAVAILABLE` when the journal could not be written (its
///         values are then skipped by the next start, never repeated); `IDMINT_FORKED` in a
///         child process (the journal is the parent's); `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_segment_allocator_close(
    allocator: *const idmint_segment_allocator,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let s = unsafe { arg(allocator, "allocator") }?;
        let taken = s.0.write().unwrap_or_else(PoisonError::into_inner).take();
        taken.map_or(Ok(()), |a| a.close())?;
        Ok(())
    })
}

/// @brief Frees an allocator (NULL is ignored), closing it first if #idmint_segment_allocator_close was
/// not called (without reporting a failed journal write). No thread may use it afterwards.
#[no_mangle]
pub unsafe extern "C" fn idmint_segment_allocator_free(allocator: *mut idmint_segment_allocator) {
    // SAFETY: the caller's contract.
    unsafe { free(allocator) }
}
