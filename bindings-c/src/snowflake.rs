//! Snowflake generators: the clocked, thread-safe, fork-aware `idmint_snowflake` (the core's
//! `Snowflake`) and the sans-IO `idmint_atomic_snowflake` (the core's `AtomicSnowflake`), built
//! from one `idmint_config` through the core's options by key.

use std::ffi::c_char;

use idmint_core::snowflake::options::{OptionValue, SnowflakeOptions};
use idmint_core::{AtomicSnowflake, Error, Run, Snowflake, Stats};

use crate::error::{guard, idmint_status, Fail};
use crate::ffi::{
    act, arg, batch, c_str, call, call_until, create, fill, free, opt_c_str, opt_out, out, read,
    report_until, u64_out, write_text,
};
use crate::layout::idmint_layout;

/// @brief What a generator is built from. Zero-initialise it (`idmint_config cfg = {0};`) for
/// the defaults, then set what you need — at least the node (`has_node`), which has no default.
///
/// Strings are NUL-terminated UTF-8 in the text forms shared by every idmint surface; NULL means
/// the default. They are read only while a generator is built. The `has_*` flags are bytes: 0
/// is false, any other value true.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct idmint_config {
    /// Preset name or layout spec (see #idmint_layout_new). NULL: `"twitter"`.
    pub layout: *const c_char,
    /// Whether `node` applies. There is no default node: with `has_node` 0 the generator
    /// constructors return `IDMINT_NODE_REQUIRED`, because two processes on one node mint the
    /// same IDs. Set `has_node = 1` and `node` (one no other live process uses; 0 is fine when
    /// chosen on purpose), or lease a node with #idmint_leased_snowflake_new.
    pub has_node: u8,
    /// With `has_node`: the whole node value (all node sub-fields; see
    /// #idmint_layout_join_node).
    pub node: u64,
    /// When the clock steps back: `fail`, `wait[:MS]`, `logical[:MS]`, `rollback_counter`,
    /// `ring[:TICKS]`. NULL: `"wait:1000"`.
    pub on_backwards: *const c_char,
    /// When a tick's sequence runs out: `wait`, `borrow[:TICKS]`, `fail`. NULL: `"wait"`.
    pub on_exhausted: *const c_char,
    /// Where each tick's sequence starts: `zero`, `random`, `vibrate[:MAX_OFFSET]`.
    /// NULL: `"zero"`.
    pub sequence_start: *const c_char,
    /// Seed for `random` sequence starts. 0 with `random`: #idmint_snowflake_new draws one from
    /// the OS (the sans-IO #idmint_atomic_snowflake_new uses 0 as given).
    pub seed: u64,
    /// Whether `fence_ms` applies (0: no, any other value: yes).
    pub has_fence: u8,
    /// With `has_fence`: the last time (ms since the Unix epoch) a previous holder of this node
    /// may have issued; the generator issues nothing at or before that tick.
    pub fence_ms: u64,
}

/// @brief A generator's counters, from #idmint_snowflake_stats and
/// #idmint_atomic_snowflake_stats.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct idmint_stats {
    /// Calls that found the clock behind the last issued tick.
    pub rollbacks: u64,
    /// Total waiting asked of callers, in ms.
    pub wait_ms: u64,
    /// Furthest the generator ran ahead of the clock (borrow, logical), in ms.
    pub max_ahead_ms: u64,
    /// Times a tick's sequence ran out.
    pub exhaustions: u64,
}

impl From<Stats> for idmint_stats {
    fn from(s: Stats) -> Self {
        let Stats {
            rollbacks,
            wait_ms,
            max_ahead_ms,
            exhaustions,
            ..
        } = s;
        idmint_stats {
            rollbacks,
            wait_ms,
            max_ahead_ms,
            exhaustions,
        }
    }
}

/// @brief A run of IDs reserved in one step: `first`, `first + stride`, ..., `count` of them
/// (ID number `i` is `first + i * stride`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct idmint_run {
    /// The first ID.
    pub first: u64,
    /// How many IDs (at least 1).
    pub count: u64,
    /// Distance between consecutive IDs: 1, or more for layouts with the node below the
    /// sequence (sonyflake).
    pub stride: u64,
}

impl From<Run> for idmint_run {
    fn from(r: Run) -> Self {
        let Run {
            first,
            count,
            stride,
            ..
        } = r;
        idmint_run {
            first,
            count,
            stride,
        }
    }
}

/// @brief A thread-safe Snowflake generator on the system clock (opaque).
///
/// Lock-free: any number of threads may call it at once. It carries the wall clock on the
/// monotonic clock and re-reads it once a second, following its steps (a step back meets the
/// `on_backwards` policy), waits when a policy asks, and refuses to mint in a child process
/// after `fork()` (`IDMINT_FORKED`) until #idmint_snowflake_set_node gives the child its own
/// node. Freed by #idmint_snowflake_free.
pub struct idmint_snowflake(Snowflake);

/// @brief A thread-safe, sans-IO Snowflake generator (opaque): it never reads a clock nor
/// waits. Every call takes the time (`now_ms`) and answers with IDs, or with
/// `IDMINT_WOULD_BLOCK` and the time to call again. For replays, tests and callers with their
/// own clock. No fork detection. Freed by #idmint_atomic_snowflake_free.
pub struct idmint_atomic_snowflake(AtomicSnowflake);

/// Feeds the C config into the core's options by key (`set` is `SnowflakeOptions::set` or the leased
/// generator's), which check each value; the node only `with_node`.
/// Safety: `config` must be NULL or valid; its strings NULL or NUL-terminated.
pub(crate) unsafe fn set_config(
    config: *const idmint_config,
    with_node: bool,
    mut set: impl FnMut(&str, OptionValue<'_>) -> Result<(), Error>,
) -> Result<(), Fail> {
    // SAFETY: the caller's contract.
    let c = unsafe { arg(config, "config") }?;
    let texts = [
        ("layout", c.layout, "config->layout"),
        ("on_backwards", c.on_backwards, "config->on_backwards"),
        ("on_exhausted", c.on_exhausted, "config->on_exhausted"),
        ("sequence_start", c.sequence_start, "config->sequence_start"),
    ];
    for (key, p, name) in texts {
        // SAFETY: the caller's contract.
        if let Some(s) = unsafe { opt_c_str(p, name) }? {
            set(key, OptionValue::Text(s))?;
        }
    }
    set("seed", OptionValue::Int(c.seed))?;
    if c.has_fence != 0 {
        set("fence_ms", OptionValue::Int(c.fence_ms))?;
    }
    if with_node && c.has_node != 0 {
        set("node", OptionValue::Int(c.node))?;
    }
    Ok(())
}

/// The core config of a C config.
unsafe fn options(config: *const idmint_config) -> Result<idmint_core::Config, Fail> {
    let mut o = SnowflakeOptions::new();
    // SAFETY: the caller's contract.
    unsafe { set_config(config, true, |k, v| o.set(k, v)) }?;
    Ok(o.config()?)
}

/// @brief Most IDs one batch call (#idmint_snowflake_next_ids, #idmint_atomic_snowflake_next_ids_at,
/// #idmint_leased_snowflake_next_ids) fills: 2^24 (the core's limit, the same on every surface).
/// More is `IDMINT_LIMIT_EXCEEDED`.
pub const IDMINT_MAX_BATCH: u64 = 16_777_216;
const _: () = assert!(IDMINT_MAX_BATCH == idmint_core::limits::MAX_BATCH);

/// @brief Parses a policy text and writes its canonical form (`"wait"` gives `"wait:1000"`), to
/// validate or log a config before building a generator.
///
/// @param policy Which policy: `"on_backwards"`, `"on_exhausted"` or `"sequence_start"`. Must
///        not be NULL.
/// @param text The policy text, as in #idmint_config.
/// @param buf Output buffer of `buf_len` bytes (32 hold every canonical policy text); rules as
///        #idmint_layout_spec.
/// @return `IDMINT_OK`; `IDMINT_INVALID_CONFIG` for a bad policy text (the message lists the
///         forms); `IDMINT_BAD_C_ARGUMENT` for an unknown `policy` or text that is not UTF-8;
///         `IDMINT_BUFFER_TOO_SMALL`; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_policy_normalize(
    policy: *const c_char,
    text: *const c_char,
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
) -> idmint_status {
    use idmint_core::{OnBackwards, OnExhausted, SequenceStart};
    guard(|| {
        // SAFETY: the caller's contract.
        let (policy, text) = unsafe { (c_str(policy, "policy")?, c_str(text, "text")?) };
        let canonical = match policy {
            "on_backwards" => text.parse::<OnBackwards>()?.to_string(),
            "on_exhausted" => text.parse::<OnExhausted>()?.to_string(),
            "sequence_start" => text.parse::<SequenceStart>()?.to_string(),
            _ => {
                return Err(Fail::Arg(
                    "policy is on_backwards, on_exhausted or sequence_start",
                ))
            }
        };
        // SAFETY: the caller's contract.
        unsafe { write_text(&canonical, buf, buf_len, out_len) }
    })
}

/// @brief Builds a clocked generator.
///
/// @param config Zero-initialised means all defaults, and no node: set `has_node` and `node`.
/// @param out_gen Receives the generator (free it with #idmint_snowflake_free), or NULL on
///        failure.
/// @return `IDMINT_OK`; `IDMINT_NODE_REQUIRED` (`has_node` is 0; the message says how to
///         choose a node); `IDMINT_INVALID_LAYOUT`; `IDMINT_INVALID_CONFIG` (bad policy text or
///         combination); `IDMINT_OUT_OF_RANGE` (node too large); `IDMINT_LAYOUT_EXPIRED` or
///         `IDMINT_BEFORE_EPOCH` (the layout cannot represent the current time);
///         `IDMINT_RANDOM_SOURCE`; `IDMINT_BAD_C_ARGUMENT` (a string that is not UTF-8);
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_snowflake_new(
    config: *const idmint_config,
    out_gen: *mut *mut idmint_snowflake,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        create(out_gen, "out_gen", || {
            Ok(idmint_snowflake(Snowflake::new(options(config)?)?))
        })
    }
}

/// @brief Frees a generator (NULL is ignored); no thread may use it afterwards.
#[no_mangle]
pub unsafe extern "C" fn idmint_snowflake_free(gen: *mut idmint_snowflake) {
    // SAFETY: the caller's contract.
    unsafe { free(gen) }
}

/// @brief Mints one ID, waiting (sleeping) if the policy asks: for the next tick when a tick's
/// sequence is used up (`on_exhausted = wait`), or for a short clock step back
/// (`on_backwards = wait:MS`).
///
/// @param out_id Receives the ID.
/// @return `IDMINT_OK`; `IDMINT_FORKED` in a child process until #idmint_snowflake_set_node;
///         `IDMINT_CLOCK_BACKWARDS`; `IDMINT_SEQUENCE_EXHAUSTED` (`on_exhausted = fail`);
///         `IDMINT_LAYOUT_EXPIRED`; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_snowflake_next_id(
    gen: *const idmint_snowflake,
    out_id: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { call(gen, "gen", out_id, "out_id", |g| g.0.next_id()) }
}

/// @brief Mints one ID without waiting: returns `IDMINT_WOULD_BLOCK` where #idmint_snowflake_next_id
/// would wait.
///
/// @param out_id Receives the ID.
/// @param out_until_ms If not NULL, receives the time (ms since the Unix epoch) worth trying
///        again on `IDMINT_WOULD_BLOCK`, 0 otherwise.
#[no_mangle]
pub unsafe extern "C" fn idmint_snowflake_try_next_id(
    gen: *const idmint_snowflake,
    out_id: *mut u64,
    out_until_ms: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { call_until(gen, out_id, "out_id", out_until_ms, |g| g.0.try_next_id()) }
}

/// @brief Fills `out_ids` with `n` fresh, strictly increasing IDs (waiting between ticks as the
/// policy asks), one atomic step per tick rather than per ID.
///
/// @param out_ids Array of `n` IDs. May be NULL only if `n` is 0.
/// @param n How many IDs: at most #IDMINT_MAX_BATCH.
/// @return As #idmint_snowflake_next_id; `IDMINT_LIMIT_EXCEEDED` for more than #IDMINT_MAX_BATCH
///         IDs (nothing written); on failure the array's contents are unspecified.
#[no_mangle]
pub unsafe extern "C" fn idmint_snowflake_next_ids(
    gen: *const idmint_snowflake,
    out_ids: *mut u64,
    n: usize,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { fill(gen, out_ids, n, |g, ids| g.0.next_ids(ids)) }
}

/// @brief Reserves a run of up to `max` IDs from one tick (waiting if needed): the cheapest way
/// to take many IDs at once.
///
/// @param max Most IDs wanted (at least 1).
/// @param out_run Receives the run.
/// @return As #idmint_snowflake_next_id; `IDMINT_INVALID_CONFIG` if `max` is 0.
#[no_mangle]
pub unsafe extern "C" fn idmint_snowflake_reserve(
    gen: *const idmint_snowflake,
    max: u64,
    out_run: *mut idmint_run,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { call(gen, "gen", out_run, "out_run", |g| g.0.reserve(max)) }
}

/// @brief The sans-IO call on a clocked generator: mints at `now_ms` as given (for replays and
/// tests) and never waits.
///
/// @param now_ms The time, ms since the Unix epoch.
/// @param out_id Receives the ID.
/// @param out_until_ms If not NULL, receives the time to call again on `IDMINT_WOULD_BLOCK`, 0
///        otherwise.
/// @return `IDMINT_OK`; `IDMINT_WOULD_BLOCK` (not a failure: call again at `*out_until_ms`);
///         `IDMINT_CLOCK_BACKWARDS`; `IDMINT_SEQUENCE_EXHAUSTED`; `IDMINT_BEFORE_EPOCH`;
///         `IDMINT_LAYOUT_EXPIRED`; `IDMINT_FORKED`; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_snowflake_next_id_at(
    gen: *const idmint_snowflake,
    now_ms: u64,
    out_id: *mut u64,
    out_until_ms: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        call_until(gen, out_id, "out_id", out_until_ms, |g| {
            g.0.next_id_at(now_ms)
        })
    }
}

/// @brief Switches the generator to another node, and re-arms it after `fork()`: call this in a
/// child process with a node no other process uses.
///
/// @return `IDMINT_OK`; `IDMINT_OUT_OF_RANGE` if `node` does not fit the layout;
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_snowflake_set_node(
    gen: *const idmint_snowflake,
    node: u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { act(gen, |g| g.0.set_node(node)) }
}

/// @brief The generator's current node value.
#[no_mangle]
pub unsafe extern "C" fn idmint_snowflake_node(
    gen: *const idmint_snowflake,
    out_node: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { read(gen, "gen", out_node, "out_node", |g| g.0.node()) }
}

/// @brief A snapshot of the generator's counters.
#[no_mangle]
pub unsafe extern "C" fn idmint_snowflake_stats(
    gen: *const idmint_snowflake,
    out_stats: *mut idmint_stats,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { read(gen, "gen", out_stats, "out_stats", |g| g.0.stats()) }
}

/// @brief A new handle to the generator's layout, for decoding its IDs.
///
/// @param out_layout Receives a new layout (free it with #idmint_layout_free).
#[no_mangle]
pub unsafe extern "C" fn idmint_snowflake_layout(
    gen: *const idmint_snowflake,
    out_layout: *mut *mut idmint_layout,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        create(out_layout, "out_layout", || {
            Ok(idmint_layout(*arg(gen, "gen")?.0.config().layout()))
        })
    }
}

/// @brief Re-reads the wall clock now. The generator does so by itself once a second (of
/// monotonic time), so an NTP step goes unseen for at most that long; this call makes it seen at
/// once. If the wall clock moved back, the `on_backwards` policy applies.
#[no_mangle]
pub unsafe extern "C" fn idmint_snowflake_resync_clock(
    gen: *const idmint_snowflake,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        act(gen, |g| {
            g.0.clock().resync();
            Ok(())
        })
    }
}

/// @brief Builds a sans-IO generator (see #idmint_atomic_snowflake). Unlike
/// #idmint_snowflake_new it does not check the layout against the current time and uses a seed
/// of 0 as given.
///
/// @param out_gen Receives the generator (free it with #idmint_atomic_snowflake_free), or NULL
///        on failure.
/// @return As #idmint_snowflake_new.
#[no_mangle]
pub unsafe extern "C" fn idmint_atomic_snowflake_new(
    config: *const idmint_config,
    out_gen: *mut *mut idmint_atomic_snowflake,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        create(out_gen, "out_gen", || {
            Ok(idmint_atomic_snowflake(AtomicSnowflake::new(options(
                config,
            )?)?))
        })
    }
}

/// @brief Frees a sans-IO generator (NULL is ignored); no thread may use it afterwards.
#[no_mangle]
pub unsafe extern "C" fn idmint_atomic_snowflake_free(gen: *mut idmint_atomic_snowflake) {
    // SAFETY: the caller's contract.
    unsafe { free(gen) }
}

/// @brief Mints one ID at `now_ms`.
///
/// @param now_ms The time, ms since the Unix epoch.
/// @param out_id Receives the ID.
/// @param out_until_ms If not NULL, receives the time to call again on `IDMINT_WOULD_BLOCK`, 0
///        otherwise.
/// @return `IDMINT_OK`; `IDMINT_WOULD_BLOCK` (not a failure); `IDMINT_CLOCK_BACKWARDS`;
///         `IDMINT_SEQUENCE_EXHAUSTED`; `IDMINT_BEFORE_EPOCH`; `IDMINT_LAYOUT_EXPIRED`;
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_atomic_snowflake_next_id_at(
    gen: *const idmint_atomic_snowflake,
    now_ms: u64,
    out_id: *mut u64,
    out_until_ms: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        call_until(gen, out_id, "out_id", out_until_ms, |g| {
            g.0.next_id_at(now_ms)
        })
    }
}

/// @brief Reserves a run of up to `max` IDs from one tick at `now_ms`, in one atomic step.
///
/// @param max Most IDs wanted (at least 1).
/// @param out_run Receives the run.
/// @param out_until_ms As #idmint_atomic_snowflake_next_id_at.
/// @return As #idmint_atomic_snowflake_next_id_at; `IDMINT_INVALID_CONFIG` if `max` is 0.
#[no_mangle]
pub unsafe extern "C" fn idmint_atomic_snowflake_reserve_at(
    gen: *const idmint_atomic_snowflake,
    now_ms: u64,
    max: u64,
    out_run: *mut idmint_run,
    out_until_ms: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        call_until(gen, out_run, "out_run", out_until_ms, |g| {
            g.0.reserve_at(now_ms, max)
        })
    }
}

/// @brief Fills up to `n` IDs at `now_ms`; fewer when the policy would have to wait.
///
/// @param out_ids Array of `n` IDs. May be NULL only if `n` is 0.
/// @param n Room in `out_ids`: at most #IDMINT_MAX_BATCH.
/// @param out_written Receives how many IDs were written (0 on failure).
/// @param out_until_ms As #idmint_atomic_snowflake_next_id_at (set only when not even one ID could
///        be issued).
/// @return `IDMINT_OK` if at least one ID was written (or `n` is 0); `IDMINT_LIMIT_EXCEEDED`
///         for more than #IDMINT_MAX_BATCH; otherwise why not, as
///         #idmint_atomic_snowflake_next_id_at.
#[no_mangle]
pub unsafe extern "C" fn idmint_atomic_snowflake_next_ids_at(
    gen: *const idmint_atomic_snowflake,
    now_ms: u64,
    out_ids: *mut u64,
    n: usize,
    out_written: *mut usize,
    out_until_ms: *mut u64,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract (here and for `out_ids` below).
        let (g, written, until) = unsafe {
            (
                arg(gen, "gen")?,
                out(out_written, "out_written")?,
                opt_out(out_until_ms, "out_until_ms")?,
            )
        };
        let r = batch(n).and_then(|()| {
            // SAFETY: as above.
            let ids = unsafe { u64_out(out_ids, n, "out_ids") }?;
            report_until(g.0.next_ids_at(now_ms, ids), until)
        });
        written.write(*r.as_ref().unwrap_or(&0));
        r.map(drop)
    })
}

/// @brief Switches the sans-IO generator to another node.
///
/// @return `IDMINT_OK`; `IDMINT_OUT_OF_RANGE`; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_atomic_snowflake_set_node(
    gen: *const idmint_atomic_snowflake,
    node: u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { act(gen, |g| g.0.set_node(node)) }
}

/// @brief The sans-IO generator's current node value.
#[no_mangle]
pub unsafe extern "C" fn idmint_atomic_snowflake_node(
    gen: *const idmint_atomic_snowflake,
    out_node: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { read(gen, "gen", out_node, "out_node", |g| g.0.node()) }
}

/// @brief A snapshot of the sans-IO generator's counters.
#[no_mangle]
pub unsafe extern "C" fn idmint_atomic_snowflake_stats(
    gen: *const idmint_atomic_snowflake,
    out_stats: *mut idmint_stats,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { read(gen, "gen", out_stats, "out_stats", |g| g.0.stats()) }
}
