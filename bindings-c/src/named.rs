//! Generators by name: one config string (`type=snowflake,layout=twitter,node=5`, `type=uuid7`,
//! `type=segment,store=…,key=…`, `type=snowflake,…,lease=…`, or the same as a JSON object) that
//! builds the same generator on every idmint surface. Here it is whatever
//! `idmint_coord::named::build` builds: the core's sans-IO generator behind a lock for the
//! core's types, a segment allocator or a leased generator for the store-backed ones.

use std::ffi::c_char;
use std::sync::{PoisonError, RwLock};

use idmint_coord::named::{self, NamedSource};
use idmint_core::named::{GeneratedId, NamedType};
use idmint_core::{named::clocked, Error};

use crate::error::{guard, idmint_status, Fail};
use crate::ffi::write_text;
use crate::ffi::{arg, array_out, batch, c_str, create, free, opt_out, out, report_until, slice};
use crate::uuid::idmint_uuid;

/// @brief The type of generator a named config builds (`type=...`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum idmint_named_type {
    /// `type=snowflake`: 64-bit Snowflake IDs.
    IDMINT_NAMED_SNOWFLAKE = 0,
    /// `type=uuid4`: random version 4 UUIDs (16 random bytes per ID).
    IDMINT_NAMED_UUID4 = 1,
    /// `type=uuid7`: monotonic version 7 UUIDs (10 random bytes per ID).
    IDMINT_NAMED_UUID7 = 2,
    /// `type=uuid1`: version 1 UUIDs with a random node (8 random bytes on the first call only).
    IDMINT_NAMED_UUID1 = 3,
    /// `type=uuid6`: increasing version 6 UUIDs with a random node (8 random bytes on the first
    /// call only).
    IDMINT_NAMED_UUID6 = 4,
    /// `type=segment`: 64-bit IDs of one key from ranges of a segment store.
    IDMINT_NAMED_SEGMENT = 5,
    /// `type=counter`: one value of a key's counter in a segment store per ID (Redis `INCR`, a
    /// database sequence).
    IDMINT_NAMED_COUNTER = 6,
    /// `type=autoinc`: auto-increment with offset and step over several segment stores.
    IDMINT_NAMED_AUTOINC = 7,
    /// `type=redis_compose`: Redis milliseconds + shard + a per-millisecond sequence.
    IDMINT_NAMED_REDIS_COMPOSE = 8,
}

/// @brief One ID from #idmint_named_generator_next_at: a 64-bit integer or a UUID.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct idmint_generated_id {
    /// Whether the ID is the UUID in `uuid` (UUID types) rather than the integer in `id`
    /// (`type=snowflake`).
    pub is_uuid: bool,
    /// The 64-bit ID; 0 for a UUID.
    pub id: u64,
    /// The UUID; all zero for a 64-bit ID.
    pub uuid: idmint_uuid,
}

impl From<GeneratedId> for idmint_generated_id {
    fn from(g: GeneratedId) -> Self {
        let (is_uuid, id, uuid) = match g {
            GeneratedId::U64(id) => (false, id, idmint_uuid::default()),
            GeneratedId::Uuid(u) => (true, 0, u.into()),
        };
        idmint_generated_id { is_uuid, id, uuid }
    }
}

/// @brief A generator built from a named config (opaque). Thread-safe.
///
/// #idmint_named_generator_next_id mints on the system clock and OS randomness (and the store, for
/// the store-backed types). For the core's types (`snowflake` with `node=`, the UUID types)
/// #idmint_named_generator_next_at is the sans-IO call: it takes the time and the random
/// bytes, so the same config, times and bytes give the same IDs on every idmint surface; both
/// calls share one state, serialised by a lock. In a child process after `fork()` every type
/// returns `IDMINT_FORKED` (the child holds a copy of the parent's state): make a new one there
/// (and for `type=snowflake` give it its own node). Close it with
/// #idmint_named_generator_close (to release a lease or record a journal and see whether that
/// worked) and free it with #idmint_named_generator_free.
pub struct idmint_named_generator(RwLock<Option<Box<dyn NamedSource>>>);

impl idmint_named_generator {
    /// Runs `f` on the source, unless it was closed. Calls hold the read lock, so a close waits
    /// for them.
    fn with<R>(&self, f: impl FnOnce(&dyn NamedSource) -> Result<R, Fail>) -> Result<R, Fail> {
        let s = self.0.read().unwrap_or_else(PoisonError::into_inner);
        match s.as_deref() {
            Some(s) => f(s),
            None => Err(Fail::Core(Error::Closed {
                what: "the named generator",
            })),
        }
    }
}

const SHORT_RANDOM: &str = "`random` holds fewer bytes than this call draws \
                            (uuid4: 16, uuid7: 10, uuid1 and uuid6: 8 on their first call)";

/// @brief Parses a named config and builds its generator.
///
/// The config is the compact form, comma-separated `key=value` pairs such as
/// `"type=snowflake,layout=twitter,node=5,on_backwards=wait:1000"` (a value with commas in
/// parentheses: `layout=(time=41@1ms,worker=10,seq=12,epoch=2020-01-01)`), or one flat JSON
/// object such as `{"type":"uuid7"}`. Types and their keys:
/// - `type=snowflake`: `layout`, `node` (required), `on_backwards`, `on_exhausted`,
///   `sequence_start`, `seed`, `fence_ms`, in the text forms of #idmint_config;
/// - `type=snowflake` with `lease=URL` instead of `node`: a node leased from a store (as
///   `options->url` of #idmint_leased_snowflake_new), with the lease options `namespace`,
///   `ttl_ms`, `renew_every_ms`, `retry_every_ms`, `safety_margin_ms`, `reserve_ms`,
///   `swap_after_ms`, `nodes`, `holder`;
/// - `type=uuid4`, `uuid7`, `uuid6`, `uuid1`: no other key;
/// - `type=segment`: `store` (a store URL, as #idmint_segment_allocator_new takes) and `key` (both
///   required), and the options `step`, `max_step`, `refill_at_percent`, `max_gap`, `gap_seed`,
///   `journal`, `checkpoint_every_ms`, `wait_timeout_ms`.
///
/// A store-backed type opens its store here (and a leased one acquires its node).
///
/// @param config NUL-terminated UTF-8.
/// @param out_gen Receives the generator (free it with #idmint_named_generator_free), or NULL on
///        failure.
/// @return `IDMINT_OK`; `IDMINT_INVALID_LAYOUT` for syntax, unknown, repeated or missing keys
///         and bad layouts (the message names the byte offset into `config`);
///         `IDMINT_INVALID_CONFIG` (bad policy text or combination, a URL of no known store);
///         `IDMINT_NODE_REQUIRED` (a snowflake config without `node` or `lease`);
///         `IDMINT_OUT_OF_RANGE` (node too large, an option out of its range);
///         `IDMINT_STORE_UNAVAILABLE`, `IDMINT_NO_FREE_NODE`, `IDMINT_STORE_MISMATCH` (as
///         #idmint_leased_snowflake_new and #idmint_segment_allocator_new); `IDMINT_BAD_C_ARGUMENT`
///         (not UTF-8); `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_named_generator_new(
    config: *const c_char,
    out_gen: *mut *mut idmint_named_generator,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        create(out_gen, "out_gen", || {
            crate::stores::name_the_full_library();
            let source = named::build(c_str(config, "config")?)?;
            Ok(idmint_named_generator(RwLock::new(Some(source))))
        })
    }
}

/// @brief Releases what the generator holds and says how that went: a leased node is released
/// with its exact last issued time, a segment allocator records its journal (the core's types
/// hold nothing). Waits for calls in progress; later calls return `IDMINT_BAD_C_ARGUMENT`;
/// closing again does nothing. The handle stays allocated until #idmint_named_generator_free.
///
/// @return `IDMINT_OK`; `IDMINT_STORE_UNAVAILABLE` (the store or the journal could not be
///         written); `IDMINT_LEASE_LOST` (the lease had been taken over: its record is the new
///         holder's); `IDMINT_FORKED` in a child process; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_named_generator_close(
    gen: *const idmint_named_generator,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let g = unsafe { arg(gen, "gen") }?;
        let taken = g.0.write().unwrap_or_else(PoisonError::into_inner).take();
        taken.map_or(Ok(()), |s| s.close())?;
        Ok(())
    })
}

/// @brief Frees a named generator (NULL is ignored), closing it first if
/// #idmint_named_generator_close was not called (without reporting a failure); it must not be
/// used afterwards.
#[no_mangle]
pub unsafe extern "C" fn idmint_named_generator_free(gen: *mut idmint_named_generator) {
    // SAFETY: the caller's contract.
    unsafe { free(gen) }
}

/// @brief The type of generator (`type=...` of its config; a leased Snowflake is
/// `IDMINT_NAMED_SNOWFLAKE`).
///
/// @return `IDMINT_OK`; `IDMINT_CLOSED` (a closed generator); `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_named_generator_kind(
    gen: *const idmint_named_generator,
    out_kind: *mut idmint_named_type,
) -> idmint_status {
    use idmint_named_type::*;
    guard(|| {
        // SAFETY: the caller's contract.
        let (g, dst) = unsafe { (arg(gen, "gen")?, out(out_kind, "out_kind")?) };
        let kind = g.with(|s| match s.kind() {
            "segment" => Ok(IDMINT_NAMED_SEGMENT),
            "counter" => Ok(IDMINT_NAMED_COUNTER),
            "autoinc" => Ok(IDMINT_NAMED_AUTOINC),
            "redis_compose" => Ok(IDMINT_NAMED_REDIS_COMPOSE),
            name => match NamedType::from_name(name) {
                Some(NamedType::Snowflake) => Ok(IDMINT_NAMED_SNOWFLAKE),
                Some(NamedType::Uuid4) => Ok(IDMINT_NAMED_UUID4),
                Some(NamedType::Uuid7) => Ok(IDMINT_NAMED_UUID7),
                Some(NamedType::Uuid1) => Ok(IDMINT_NAMED_UUID1),
                Some(NamedType::Uuid6) => Ok(IDMINT_NAMED_UUID6),
                _ => Err(Fail::Arg("a generator type newer than this library")),
            },
        })?;
        dst.write(kind);
        Ok(())
    })
}

/// @brief Writes the generator's config in the compact form, which builds an equal generator:
/// for the core's types the canonical form (keys in a fixed order, policies in canonical text,
/// defaults filled in); for the store-backed types the keys as given, with any password in a
/// store URL replaced by `***`. Buffer rules as #idmint_layout_spec.
#[no_mangle]
pub unsafe extern "C" fn idmint_named_generator_config(
    gen: *const idmint_named_generator,
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let g = unsafe { arg(gen, "gen") }?;
        let config = g.with(|s| Ok(s.config()))?;
        // SAFETY: the caller's contract.
        unsafe { write_text(&config, buf, buf_len, out_len) }
    })
}

/// @brief The next ID, on the system clock and OS randomness (and the store, for the
/// store-backed types), waiting where the type's policy asks.
///
/// @param out_id Receives the ID.
/// @return `IDMINT_OK`; as #idmint_snowflake_next_id for `type=snowflake`, as
///         #idmint_leased_snowflake_next_id for a leased one, as #idmint_segment_allocator_next_id for
///         `type=segment`; `IDMINT_RANDOM_SOURCE` (UUID types); `IDMINT_FORKED` in a child
///         process; `IDMINT_CLOSED` (a closed generator); `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_named_generator_next_id(
    gen: *const idmint_named_generator,
    out_id: *mut idmint_generated_id,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (g, dst) = unsafe { (arg(gen, "gen")?, out(out_id, "out_id")?) };
        dst.write(g.with(|s| Ok(s.next_id()?))?.into());
        Ok(())
    })
}

/// @brief Fills `out_ids` with the next `n` IDs, in the order minted (as
/// #idmint_named_generator_next_id; a segment or leased type takes them in one batch).
///
/// @param out_ids Array of `n` IDs. May be NULL only if `n` is 0.
/// @param n How many IDs: at most #IDMINT_MAX_BATCH.
/// @return As #idmint_named_generator_next_id; `IDMINT_LIMIT_EXCEEDED` for more than
///         #IDMINT_MAX_BATCH IDs. On failure the array's contents are unspecified.
#[no_mangle]
pub unsafe extern "C" fn idmint_named_generator_next_ids(
    gen: *const idmint_named_generator,
    out_ids: *mut idmint_generated_id,
    n: usize,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let g = unsafe { arg(gen, "gen") }?;
        batch(n)?;
        let zero = idmint_generated_id::from(GeneratedId::U64(0));
        // SAFETY: the caller's contract.
        let dst = unsafe { array_out(out_ids, n, "out_ids", zero) }?;
        let mut ids = vec![GeneratedId::U64(0); n];
        g.with(|s| Ok(s.fill(&mut ids)?))?;
        for (d, id) in dst.iter_mut().zip(ids) {
            *d = id.into();
        }
        Ok(())
    })
}

/// @brief The next ID at a given time (sans-IO), with random bytes from the caller or the OS:
/// the core's types only (a store-backed type returns `IDMINT_INVALID_CONFIG`; use
/// #idmint_named_generator_next_id).
///
/// UUID types draw their randomness from the front of `random`: 16 bytes per call for
/// `uuid4`, 10 for `uuid7`, 8 on the first call only for `uuid1` and `uuid6`; `snowflake` draws none. A
/// caller replaying a stream of bytes advances it by `*out_random_used`.
///
/// @param now_ms The time, ms since the Unix epoch.
/// @param random Random bytes for this call, or NULL to draw them from the OS random source
///        (`random_len` is then ignored).
/// @param random_len Length of `random`.
/// @param out_id Receives the ID.
/// @param out_random_used If not NULL, receives how many bytes of `random` the call used (0
///        when `random` is NULL or on failure).
/// @param out_until_ms If not NULL, receives the time (ms since the Unix epoch) worth calling
///        again on `IDMINT_WOULD_BLOCK`, 0 otherwise.
/// @return `IDMINT_OK`; `IDMINT_WOULD_BLOCK`, `IDMINT_CLOCK_BACKWARDS`,
///         `IDMINT_SEQUENCE_EXHAUSTED`, `IDMINT_BEFORE_EPOCH`, `IDMINT_LAYOUT_EXPIRED`
///         (snowflake, as #idmint_atomic_snowflake_next_id_at); `IDMINT_BAD_C_ARGUMENT` when
///         `random` holds fewer bytes than the call draws (the generator is left as it was);
///         `IDMINT_CLOSED` (a closed generator); `IDMINT_RANDOM_SOURCE` (OS randomness);
///         `IDMINT_INVALID_CONFIG` (a store-backed type); `IDMINT_NULL_POINTER`.
///
#[no_mangle]
pub unsafe extern "C" fn idmint_named_generator_next_at(
    gen: *const idmint_named_generator,
    now_ms: u64,
    random: *const u8,
    random_len: usize,
    out_id: *mut idmint_generated_id,
    out_random_used: *mut usize,
    out_until_ms: *mut u64,
) -> idmint_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (g, dst, used, until) = unsafe {
            (
                arg(gen, "gen")?,
                out(out_id, "out_id")?,
                opt_out(out_random_used, "out_random_used")?,
                opt_out(out_until_ms, "out_until_ms")?,
            )
        };
        let given = if random.is_null() {
            None
        } else {
            // SAFETY: the caller's contract.
            Some(unsafe { slice(random, random_len, "random") }?)
        };
        let (mut taken, mut short) = (0, false);
        let mut fill = |buf: &mut [u8]| match given {
            None => clocked::random_fill(buf),
            Some(b) => match b.get(taken..taken + buf.len()) {
                Some(src) => {
                    buf.copy_from_slice(src);
                    taken += buf.len();
                    Ok(())
                }
                None => {
                    short = true;
                    Err(Error::RandomSource)
                }
            },
        };
        let r = g.with(|s| Ok(s.next_at(now_ms, &mut fill)))?;
        if let Some(u) = used {
            u.write(if r.is_ok() { taken } else { 0 });
        }
        let r = report_until(r, until);
        if short {
            return Err(Fail::Arg(SHORT_RANDOM));
        }
        dst.write(r?.into());
        Ok(())
    })
}
