//! ULIDs: 48 bits of Unix milliseconds and 80 random bits, written as 26 Crockford base32
//! characters. Minted on the core's process-wide monotonic generator
//! (`idmint::named::clocked::ulid`), or sans-IO by `idmint::formats::ulid::UlidGenerator`.

use std::ffi::c_char;
use std::sync::Mutex;

use idmint_core::formats::ulid::{self, Ulid, UlidGenerator};
use idmint_core::named::clocked;

use crate::error::{idmint_status, Fail};
use crate::ffi::{call_until_with, create, fixed, free, lock, parse_timed, put, read, text};

/// Characters in a ULID's text.
pub const IDMINT_ULID_LEN: usize = 26;
/// Size of a ULID's text plus its NUL (26 + 1).
pub const IDMINT_ULID_STR_SIZE: usize = 27;

const _: () = assert!(IDMINT_ULID_LEN == ulid::LEN && IDMINT_ULID_STR_SIZE == ulid::LEN + 1);

/// @brief A ULID: 16 bytes, most significant first (6 bytes of Unix milliseconds, then 10
/// random bytes); the same 128 bits a UUID of these bytes holds.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct idmint_ulid {
    /// The bytes, most significant first.
    pub bytes: [u8; 16],
}

impl From<Ulid> for idmint_ulid {
    fn from(u: Ulid) -> Self {
        idmint_ulid {
            bytes: u.0.to_be_bytes(),
        }
    }
}

fn get(u: &idmint_ulid) -> Ulid {
    Ulid(u128::from_be_bytes(u.bytes))
}

const ULID_BYTES: &str = "a ULID takes exactly 10 random bytes";

/// @brief A sans-IO monotonic ULID generator (opaque): on a new millisecond a fresh random
/// part; within the same millisecond (or when the clock has stepped back) the last ULID plus
/// one, as the ULID spec's monotonic mode. Thread-safe (calls are serialised by a lock). No fork
/// detection: in a child process after `fork()` make a new one. Freed by
/// #idmint_ulid_generator_free.
pub struct idmint_ulid_generator(Mutex<UlidGenerator>);

/// @brief A new ULID from the system clock and the OS random source, from one process-wide
/// monotonic generator: within one millisecond each is the last plus one (if the 80-bit part
/// runs out, the call waits for the next millisecond); a child process after `fork()` starts
/// afresh.
///
/// @param out_ulid Receives the ULID.
/// @return `IDMINT_OK`; `IDMINT_RANDOM_SOURCE`; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_ulid_generate(out_ulid: *mut idmint_ulid) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { put(out_ulid, "out_ulid", clocked::ulid) }
}

/// @brief The ULID of a given time and 10 given random bytes (sans-IO).
///
/// @param timestamp_ms Milliseconds since the Unix epoch (clamped to 48 bits).
/// @param random Exactly 10 bytes (`random_len` must be 10).
/// @return `IDMINT_OK`; `IDMINT_BAD_C_ARGUMENT` for another length; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_ulid_at(
    timestamp_ms: u64,
    random: *const u8,
    random_len: usize,
    out_ulid: *mut idmint_ulid,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        put(out_ulid, "out_ulid", || {
            Ok::<_, Fail>(Ulid::from_bytes_at(
                timestamp_ms,
                fixed(random, random_len, "random", ULID_BYTES)?,
            ))
        })
    }
}

/// @brief Parses the 26-character text of a ULID, in either case (`I L O U`, hyphens and a
/// first character above `7` are refused).
///
/// @param text NUL-terminated UTF-8.
/// @param out_ulid Receives the ULID.
/// @param out_timestamp_ms If not NULL, receives its time, ms since the Unix epoch.
/// @return `IDMINT_OK`; `IDMINT_INVALID_ENCODING` (the message names the character index and
///         why); `IDMINT_BAD_C_ARGUMENT` (not UTF-8); `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_ulid_parse(
    text: *const c_char,
    out_ulid: *mut idmint_ulid,
    out_timestamp_ms: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        parse_timed(
            text,
            out_ulid,
            "out_ulid",
            out_timestamp_ms,
            "out_timestamp_ms",
            Ulid::parse,
            Ulid::timestamp_ms,
        )
    }
}

/// @brief Writes the upper-case text (26 characters and a NUL).
///
/// @param buf Output buffer of `buf_len` bytes.
/// @param buf_len At least `IDMINT_ULID_STR_SIZE` (27).
/// @return `IDMINT_OK`; `IDMINT_BUFFER_TOO_SMALL` (then `buf` holds `""` if `buf_len` > 0);
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_ulid_format(
    ulid: *const idmint_ulid,
    buf: *mut c_char,
    buf_len: usize,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        text(ulid, "ulid", buf, buf_len, std::ptr::null_mut(), |u| {
            get(u).to_string()
        })
    }
}

/// @brief The time of a ULID, ms since the Unix epoch.
///
/// @return `IDMINT_OK` or `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_ulid_timestamp_ms(
    ulid: *const idmint_ulid,
    out_ms: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { read(ulid, "ulid", out_ms, "out_ms", |u| get(u).timestamp_ms()) }
}

/// @brief Makes a sans-IO monotonic ULID generator.
///
/// @param out_gen Receives the generator (free it with #idmint_ulid_generator_free).
/// @return `IDMINT_OK` or `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_ulid_generator_new(
    out_gen: *mut *mut idmint_ulid_generator,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        create(out_gen, "out_gen", || {
            Ok(idmint_ulid_generator(Mutex::new(UlidGenerator::new())))
        })
    }
}

/// @brief Frees a ULID generator (NULL is ignored); it must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn idmint_ulid_generator_free(gen: *mut idmint_ulid_generator) {
    // SAFETY: the caller's contract.
    unsafe { free(gen) }
}

/// @brief The next ULID at a given time with 10 given random bytes (sans-IO).
///
/// @param unix_ms Milliseconds since the Unix epoch (clamped to 48 bits).
/// @param random Exactly 10 bytes (`random_len` must be 10); used only on a new millisecond.
/// @param out_ulid Receives the ULID.
/// @param out_until_ms If not NULL, receives the time to call again on `IDMINT_WOULD_BLOCK`
///        (0 otherwise).
/// @return `IDMINT_OK`; `IDMINT_WOULD_BLOCK` when the 80-bit part cannot grow within the
///         millisecond (the generator is left as it was); `IDMINT_BAD_C_ARGUMENT` for another
///         length; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_ulid_generator_next_at(
    gen: *const idmint_ulid_generator,
    unix_ms: u64,
    random: *const u8,
    random_len: usize,
    out_ulid: *mut idmint_ulid,
    out_until_ms: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        call_until_with(
            gen,
            out_ulid,
            "out_ulid",
            out_until_ms,
            || fixed(random, random_len, "random", ULID_BYTES),
            |g: &idmint_ulid_generator, r| lock(&g.0).next_at(unix_ms, r),
        )
    }
}
