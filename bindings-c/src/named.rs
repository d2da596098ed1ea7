//! Generators by name: one config string (`type=snowflake,layout=twitter,node=5`, `type=uuid7`,
//! or the same as a JSON object) that builds the same generator on every idmint surface. Here
//! it is the core's sans-IO `idmint::named::NamedGenerator`, behind a lock.

use std::ffi::c_char;
use std::sync::{Mutex, PoisonError};

use idmint_core::named::{GeneratedId, NamedConfig, NamedGenerator, NamedType};
use idmint_core::{uuid_clock, Error};

use crate::error::{guard, idmint_status, Fail};
use crate::ffi::{arg, c_str, call, create, free, opt_out, out, report_until, slice, text};
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

/// @brief A generator built from a named config (opaque), sans-IO: every call takes the time
/// and the random bytes, so the same config, times and bytes give the same IDs on every idmint
/// surface. Thread-safe (calls are serialised by a lock). No fork detection: in a child process
/// after `fork()` make a new one (and for `type=snowflake` give it its own node). Freed by
/// #idmint_named_generator_free.
pub struct idmint_named_generator {
    config: NamedConfig,
    gen: Mutex<NamedGenerator>,
}

const SHORT_RANDOM: &str = "`random` holds fewer bytes than this call draws \
                            (uuid4: 16, uuid7: 10, uuid1 and uuid6: 8 on their first call)";

/// @brief Parses a named config and builds its generator.
///
/// The config is the compact form, comma-separated `key=value` pairs such as
/// `"type=snowflake,layout=twitter,node=5,on_backwards=wait:1000"` (a layout spec in
/// parentheses: `layout=(time=41@1ms,worker=10,seq=12,epoch=2020-01-01)`), or one flat JSON
/// object such as `{"type":"uuid7"}`. Keys: `type` (`snowflake`, `uuid4`, `uuid7`, `uuid6`, `uuid1`) and,
/// for snowflake only, `layout`, `node` (required), `on_backwards`, `on_exhausted`,
/// `sequence_start`, `seed`, `fence_ms`, in the text forms of #idmint_config.
///
/// @param config NUL-terminated UTF-8.
/// @param out_gen Receives the generator (free it with #idmint_named_generator_free), or NULL on
///        failure.
/// @return `IDMINT_OK`; `IDMINT_INVALID_LAYOUT` for syntax, unknown or repeated keys and bad
///         layouts (the message names the byte offset into `config`); `IDMINT_INVALID_CONFIG`
///         (bad policy text or combination); `IDMINT_NODE_REQUIRED` (a snowflake config without
///         `node`); `IDMINT_OUT_OF_RANGE` (node too large); `IDMINT_INVALID_ARGUMENT` (not
///         UTF-8); `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_named_generator_new(
    config: *const c_char,
    out_gen: *mut *mut idmint_named_generator,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        create(out_gen, "out_gen", || {
            let config = NamedConfig::parse(c_str(config, "config")?)?;
            let gen = Mutex::new(config.build()?);
            Ok(idmint_named_generator { config, gen })
        })
    }
}

/// @brief Frees a named generator (NULL is ignored); it must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn idmint_named_generator_free(gen: *mut idmint_named_generator) {
    // SAFETY: the caller's contract.
    unsafe { free(gen) }
}

/// @brief The type of generator (`type=...` of its config).
///
/// @return `IDMINT_OK` or `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_named_generator_kind(
    gen: *const idmint_named_generator,
    out_kind: *mut idmint_named_type,
) -> idmint_status {
    use idmint_named_type::*;
    // SAFETY: the caller's contract.
    unsafe {
        call(gen, "gen", out_kind, "out_kind", |g| {
            match g.config.kind() {
                NamedType::Snowflake => Ok(IDMINT_NAMED_SNOWFLAKE),
                NamedType::Uuid4 => Ok(IDMINT_NAMED_UUID4),
                NamedType::Uuid7 => Ok(IDMINT_NAMED_UUID7),
                NamedType::Uuid1 => Ok(IDMINT_NAMED_UUID1),
                NamedType::Uuid6 => Ok(IDMINT_NAMED_UUID6),
                _ => Err(Fail::Arg("a generator type newer than this library")),
            }
        })
    }
}

/// @brief Writes the canonical compact form of the generator's config (keys in a fixed order,
/// policies in canonical text, defaults filled in), which builds an equal generator. Buffer
/// rules as #idmint_layout_spec.
#[no_mangle]
pub unsafe extern "C" fn idmint_named_generator_config(
    gen: *const idmint_named_generator,
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { text(gen, "gen", buf, buf_len, out_len, |g| g.config.to_string()) }
}

/// @brief The next ID at a given time (sans-IO), with random bytes from the caller or the OS.
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
///         (snowflake, as #idmint_atomic_snowflake_next_at); `IDMINT_INVALID_ARGUMENT` when
///         `random` holds fewer bytes than the call draws (the generator is left as it was);
///         `IDMINT_RANDOM_SOURCE` (OS randomness); `IDMINT_NULL_POINTER`.
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
        let fill = |buf: &mut [u8]| match given {
            None => uuid_clock::random_fill(buf),
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
        // A panic inside the lock would be a bug, reported as IDMINT_PANIC by the call that hit
        // it; the generator is plain data, so later calls carry on with it.
        let r = g
            .gen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .next_at(now_ms, fill);
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
