//! KSUIDs: 32-bit seconds since the KSUID epoch (2014-05-13T16:53:20Z) and a 128-bit random
//! payload, written as 27 base62 characters. Minted on the core's process-wide generator
//! (`idmint::named::clocked::ksuid`), or sans-IO by `idmint::formats::ksuid::KsuidGenerator`.

use std::ffi::c_char;
use std::sync::Mutex;

use idmint_core::formats::ksuid::{self, Ksuid, KsuidGenerator};
use idmint_core::named::clocked;

use crate::error::{idmint_status, Fail};
use crate::ffi::{call_until_with, create, fixed, free, lock, parse_timed, put, read, text};

/// Characters in a KSUID's text.
pub const IDMINT_KSUID_LEN: usize = 27;
/// Size of a KSUID's text plus its NUL (27 + 1).
pub const IDMINT_KSUID_STR_SIZE: usize = 28;

const _: () = assert!(IDMINT_KSUID_LEN == ksuid::LEN && IDMINT_KSUID_STR_SIZE == ksuid::LEN + 1);

/// @brief A KSUID: 20 bytes, most significant first (4 bytes of seconds since the KSUID epoch,
/// big-endian, then the 16-byte payload), the binary form of segmentio/ksuid.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct idmint_ksuid {
    /// The bytes, most significant first.
    pub bytes: [u8; 20],
}

impl From<Ksuid> for idmint_ksuid {
    fn from(k: Ksuid) -> Self {
        idmint_ksuid { bytes: k.0 }
    }
}

const KSUID_BYTES: &str = "a KSUID takes exactly 16 payload bytes";

/// @brief A sans-IO KSUID generator (opaque): on a new second a fresh random payload; within
/// the last KSUID's second (or when the clock has stepped back) the last KSUID plus one.
/// Thread-safe (calls are serialised by a lock). No fork detection: in a child process after
/// `fork()` make a new one. Freed by #idmint_ksuid_generator_free.
pub struct idmint_ksuid_generator(Mutex<KsuidGenerator>);

/// @brief A new KSUID from the system clock and the OS random source, from one process-wide
/// generator: within one second each is the last plus one (if the payload runs out, the call
/// waits for the next second); a child process after `fork()` starts afresh.
///
/// @param out_ksuid Receives the KSUID.
/// @return `IDMINT_OK`; `IDMINT_RANDOM_SOURCE`; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_ksuid_generate(out_ksuid: *mut idmint_ksuid) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { put(out_ksuid, "out_ksuid", clocked::ksuid) }
}

/// @brief The KSUID of the second holding a given time and 16 given payload bytes (sans-IO).
///
/// @param unix_ms Milliseconds since the Unix epoch.
/// @param payload Exactly 16 bytes (`payload_len` must be 16).
/// @return `IDMINT_OK`; `IDMINT_BEFORE_EPOCH` before 2014-05-13T16:53:20Z; `IDMINT_OUT_OF_RANGE`
///         past the 32-bit seconds; `IDMINT_BAD_C_ARGUMENT` for another length;
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_ksuid_at(
    unix_ms: u64,
    payload: *const u8,
    payload_len: usize,
    out_ksuid: *mut idmint_ksuid,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        put(out_ksuid, "out_ksuid", || {
            let p = fixed(payload, payload_len, "payload", KSUID_BYTES)?;
            Ksuid::from_unix_ms(unix_ms, p).map_err(Fail::Core)
        })
    }
}

/// @brief Parses the 27-character base62 text of a KSUID (`0-9A-Za-z`, at most
/// `aWgEPTl1tmebfsQzFP4bxwgy80V`).
///
/// @param text NUL-terminated UTF-8.
/// @param out_ksuid Receives the KSUID.
/// @param out_unix_ms If not NULL, receives its time, ms since the Unix epoch (a whole second).
/// @return `IDMINT_OK`; `IDMINT_INVALID_ENCODING` (the message names the character index and
///         why); `IDMINT_BAD_C_ARGUMENT` (not UTF-8); `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_ksuid_parse(
    text: *const c_char,
    out_ksuid: *mut idmint_ksuid,
    out_unix_ms: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        parse_timed(
            text,
            out_ksuid,
            "out_ksuid",
            out_unix_ms,
            "out_unix_ms",
            Ksuid::parse,
            Ksuid::unix_ms,
        )
    }
}

/// @brief Writes the text (27 characters and a NUL).
///
/// @param buf Output buffer of `buf_len` bytes.
/// @param buf_len At least `IDMINT_KSUID_STR_SIZE` (28).
/// @return `IDMINT_OK`; `IDMINT_BUFFER_TOO_SMALL` (then `buf` holds `""` if `buf_len` > 0);
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_ksuid_format(
    ksuid: *const idmint_ksuid,
    buf: *mut c_char,
    buf_len: usize,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        text(ksuid, "ksuid", buf, buf_len, std::ptr::null_mut(), |k| {
            Ksuid(k.bytes).to_string()
        })
    }
}

/// @brief The time of a KSUID, ms since the Unix epoch (a whole second).
///
/// @return `IDMINT_OK` or `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_ksuid_unix_ms(
    ksuid: *const idmint_ksuid,
    out_ms: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        read(ksuid, "ksuid", out_ms, "out_ms", |k| {
            Ksuid(k.bytes).unix_ms()
        })
    }
}

/// @brief Makes a sans-IO KSUID generator.
///
/// @param out_gen Receives the generator (free it with #idmint_ksuid_generator_free).
/// @return `IDMINT_OK` or `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_ksuid_generator_new(
    out_gen: *mut *mut idmint_ksuid_generator,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        create(out_gen, "out_gen", || {
            Ok(idmint_ksuid_generator(Mutex::new(KsuidGenerator::new())))
        })
    }
}

/// @brief Frees a KSUID generator (NULL is ignored); it must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn idmint_ksuid_generator_free(gen: *mut idmint_ksuid_generator) {
    // SAFETY: the caller's contract.
    unsafe { free(gen) }
}

/// @brief The next KSUID at a given time with 16 given random bytes (sans-IO).
///
/// @param unix_ms Milliseconds since the Unix epoch.
/// @param random Exactly 16 bytes (`random_len` must be 16); used only on a new second.
/// @param out_ksuid Receives the KSUID.
/// @param out_until_ms If not NULL, receives the time to call again on `IDMINT_WOULD_BLOCK`
///        (0 otherwise).
/// @return `IDMINT_OK`; `IDMINT_WOULD_BLOCK` when the payload cannot grow within the second
///         (the generator is left as it was); `IDMINT_BEFORE_EPOCH` / `IDMINT_OUT_OF_RANGE` for a
///         new second outside the KSUID range; `IDMINT_BAD_C_ARGUMENT` for another length;
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_ksuid_generator_next_at(
    gen: *const idmint_ksuid_generator,
    unix_ms: u64,
    random: *const u8,
    random_len: usize,
    out_ksuid: *mut idmint_ksuid,
    out_until_ms: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        call_until_with(
            gen,
            out_ksuid,
            "out_ksuid",
            out_until_ms,
            || fixed(random, random_len, "random", KSUID_BYTES),
            |g: &idmint_ksuid_generator, r| lock(&g.0).next_at(unix_ms, r),
        )
    }
}
