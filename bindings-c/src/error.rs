//! Statuses, the per-thread last-error message, and the guard every entry point runs in.
//!
//! Statuses 1 to [`IDMINT_CORE_STATUS_MAX`] are the core's `idmint::ErrorKind` discriminants,
//! checked at compile time so a new core kind cannot go unmapped; 100 and up are failures only
//! the C boundary has. The last failure's text is kept per thread in a fixed buffer, so
//! recording it never allocates nor needs a thread-exit destructor.

use std::cell::RefCell;
use std::ffi::c_char;
use std::fmt::{self, Write};
use std::panic::{self, AssertUnwindSafe};

use idmint_core::{Error, ErrorKind};

/// @brief Status returned by every fallible idmint function.
///
/// `IDMINT_OK` (0) is success. 1 to #IDMINT_CORE_STATUS_MAX are the core's error kinds, numbered
/// alike on every idmint surface; 100 and up come from the C binding itself.
/// `idmint_status_message()` describes a status; `idmint_last_error_message()` gives the full
/// message of the calling thread's last failure.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum idmint_status {
    /// Success.
    IDMINT_OK = 0,
    /// A layout or spec is invalid (unknown preset, bad spec text, inconsistent fields).
    IDMINT_INVALID_LAYOUT = 1,
    /// The layout's time field cannot represent the current time any more.
    IDMINT_LAYOUT_EXPIRED = 2,
    /// A time before the layout's epoch.
    IDMINT_BEFORE_EPOCH = 3,
    /// A value does not fit its field (compose, node values, IDs above the layout's maximum).
    IDMINT_OUT_OF_RANGE = 4,
    /// The clock went back further than the generator's `on_backwards` policy allows.
    IDMINT_CLOCK_BACKWARDS = 5,
    /// A tick's sequence ran out and the `on_exhausted` policy is `fail`.
    IDMINT_SEQUENCE_EXHAUSTED = 6,
    /// Not a failure: no ID before a later time; call again then (sans-IO calls report when).
    IDMINT_WOULD_BLOCK = 7,
    /// The generator was inherited across `fork()`; give the child its own node first.
    IDMINT_FORKED = 8,
    /// A generator config or policy text is invalid, or an unknown codec name.
    IDMINT_INVALID_CONFIG = 9,
    /// Text could not be decoded (codecs, UUIDs).
    IDMINT_INVALID_ENCODING = 10,
    /// An output buffer is too small; the message says how many bytes are needed.
    IDMINT_BUFFER_TOO_SMALL = 11,
    /// The operating system's random source failed.
    IDMINT_RANDOM_SOURCE = 12,
    /// A lease or segment store could not be reached or answered with an error; nothing was
    /// issued on the strength of the failed call. Retrying later may succeed.
    IDMINT_STORE_UNAVAILABLE = 13,
    /// The node lease was lost (not renewed in time, or taken over): the generator stopped
    /// minting. Make a new generator to lease a node again.
    IDMINT_LEASE_LOST = 14,
    /// Every node of the node space is leased by a live holder.
    IDMINT_NO_FREE_NODE = 15,
    /// No node was given (`has_node` is 0): two processes on one node mint the same IDs, so
    /// there is no default. Set `node` and `has_node`, or lease a node.
    IDMINT_NODE_REQUIRED = 16,
    /// A journal or shard set does not match the store it was recorded with; resuming would
    /// repeat values.
    IDMINT_STORE_MISMATCH = 17,
    /// A request is larger than idmint does in one call; the message names the limit.
    IDMINT_LIMIT_EXCEEDED = 18,
    /// An argument names something that does not exist or leaves out something required (an
    /// unknown option key; an unknown, missing or repeated node sub-field). Code
    /// `"ERR_INVALID_ARGUMENT"`, as on every idmint surface.
    IDMINT_INVALID_ARGUMENT = 19,
    /// The object was closed (`idmint_named_generator_close`, `idmint_segment_allocator_close`, ...):
    /// only its free function may follow. Code `"ERR_CLOSED"`, as on every idmint surface.
    IDMINT_CLOSED = 20,
    /// A pointer argument that must not be NULL was NULL.
    IDMINT_NULL_POINTER = 100,
    /// An argument is invalid at the C boundary: a string that is not UTF-8, a misaligned
    /// pointer, a length or constant out of range.
    IDMINT_BAD_C_ARGUMENT = 101,
    /// A bug: idmint panicked. The panic was caught and did not unwind into C.
    IDMINT_PANIC = 102,
    /// An error kind newer than this binding (never returned by a matching core).
    IDMINT_UNKNOWN_ERROR = 199,
}

/// The highest status that is a core error kind: statuses 1 to this are `idmint::ErrorKind`.
pub const IDMINT_CORE_STATUS_MAX: i32 = 20;

use idmint_status::*;

// Every core kind has the status of its number, and they are 1..=IDMINT_CORE_STATUS_MAX: a kind
// the core adds fails this build until the enum above has it.
const _: () = {
    assert!(ErrorKind::ALL.len() == IDMINT_CORE_STATUS_MAX as usize);
    let mut i = 0;
    while i < ErrorKind::ALL.len() {
        let n = ErrorKind::ALL[i] as u8 as i32;
        assert!(n == i as i32 + 1 && idmint_status::from_i32(n).is_some());
        i += 1;
    }
};

/// The core kinds' `ERR_...` codes, NUL-terminated, at index status - 1.
static CORE_CODES: [[u8; 32]; ErrorKind::ALL.len()] = {
    let mut t = [[0; 32]; ErrorKind::ALL.len()];
    let mut i = 0;
    while i < t.len() {
        let code = ErrorKind::ALL[i].code().as_bytes();
        assert!(code.len() < 32);
        let mut j = 0;
        while j < code.len() {
            t[i][j] = code[j];
            j += 1;
        }
        i += 1;
    }
    t
};

impl idmint_status {
    /// Every status, in numeric order.
    pub(crate) const ALL: [idmint_status; 25] = [
        IDMINT_OK,
        IDMINT_INVALID_LAYOUT,
        IDMINT_LAYOUT_EXPIRED,
        IDMINT_BEFORE_EPOCH,
        IDMINT_OUT_OF_RANGE,
        IDMINT_CLOCK_BACKWARDS,
        IDMINT_SEQUENCE_EXHAUSTED,
        IDMINT_WOULD_BLOCK,
        IDMINT_FORKED,
        IDMINT_INVALID_CONFIG,
        IDMINT_INVALID_ENCODING,
        IDMINT_BUFFER_TOO_SMALL,
        IDMINT_RANDOM_SOURCE,
        IDMINT_STORE_UNAVAILABLE,
        IDMINT_LEASE_LOST,
        IDMINT_NO_FREE_NODE,
        IDMINT_NODE_REQUIRED,
        IDMINT_STORE_MISMATCH,
        IDMINT_LIMIT_EXCEEDED,
        IDMINT_INVALID_ARGUMENT,
        IDMINT_CLOSED,
        IDMINT_NULL_POINTER,
        IDMINT_BAD_C_ARGUMENT,
        IDMINT_PANIC,
        IDMINT_UNKNOWN_ERROR,
    ];

    const fn from_i32(n: i32) -> Option<idmint_status> {
        let mut i = 0;
        while i < Self::ALL.len() {
            if Self::ALL[i] as i32 == n {
                return Some(Self::ALL[i]);
            }
            i += 1;
        }
        None
    }

    /// The status of a core error kind: the same number (see the check above).
    pub(crate) fn from_kind(kind: ErrorKind) -> idmint_status {
        Self::from_i32(i32::from(kind as u8)).unwrap_or(IDMINT_UNKNOWN_ERROR)
    }

    /// The stable code string: the core's `ERR_...` code for core kinds.
    fn code(self) -> &'static [u8] {
        match self {
            IDMINT_OK => b"OK\0",
            IDMINT_NULL_POINTER => b"ERR_NULL_POINTER\0",
            IDMINT_BAD_C_ARGUMENT => b"ERR_INVALID_ARGUMENT\0",
            IDMINT_PANIC => b"ERR_PANIC\0",
            IDMINT_UNKNOWN_ERROR => b"ERR_UNKNOWN\0",
            kind => &CORE_CODES[kind as usize - 1],
        }
    }

    fn message(self) -> &'static [u8] {
        match self {
            IDMINT_OK => b"success\0",
            IDMINT_INVALID_LAYOUT => b"invalid layout or layout spec\0",
            IDMINT_LAYOUT_EXPIRED => b"layout expired: its time field has overflowed\0",
            IDMINT_BEFORE_EPOCH => b"time is before the layout epoch\0",
            IDMINT_OUT_OF_RANGE => b"value does not fit its field\0",
            IDMINT_CLOCK_BACKWARDS => b"clock moved backwards beyond what the policy allows\0",
            IDMINT_SEQUENCE_EXHAUSTED => b"sequence exhausted in the current tick\0",
            IDMINT_WOULD_BLOCK => b"would block: call again at the time given\0",
            IDMINT_FORKED => {
                b"generator was inherited across fork(); give the child its own node\0"
            }
            IDMINT_INVALID_CONFIG => b"invalid generator config\0",
            IDMINT_INVALID_ENCODING => b"text cannot be decoded\0",
            IDMINT_BUFFER_TOO_SMALL => b"output buffer too small\0",
            IDMINT_RANDOM_SOURCE => b"random source failed\0",
            IDMINT_STORE_UNAVAILABLE => b"lease or segment store unavailable\0",
            IDMINT_LEASE_LOST => b"node lease lost; the generator stopped minting\0",
            IDMINT_NO_FREE_NODE => b"no free node: every node is leased\0",
            IDMINT_NODE_REQUIRED => b"no node chosen: set has_node and node, or lease one (idmint_leased_snowflake_new)\0",
            IDMINT_STORE_MISMATCH => b"store does not match its record; refusing to continue\0",
            IDMINT_LIMIT_EXCEEDED => b"request exceeds a limit\0",
            IDMINT_INVALID_ARGUMENT => {
                b"argument names something unknown or leaves out something required\0"
            }
            IDMINT_CLOSED => b"the object is closed: only its free function may follow\0",
            IDMINT_NULL_POINTER => b"NULL pointer argument\0",
            IDMINT_BAD_C_ARGUMENT => b"invalid argument\0",
            IDMINT_PANIC => b"internal error (panic caught inside idmint)\0",
            IDMINT_UNKNOWN_ERROR => b"unknown error kind\0",
        }
    }
}

/// What the core's `NodeRequired` text says, in this library's spelling.
const NODE_REQUIRED_HINT: &str = " (in C: set config.has_node = 1 and config.node; idmint_leased_snowflake_new(NULL, ...) leases a node from this host's lock directory)";

/// Why a call failed: a core error, or something only the C boundary can get wrong.
#[derive(Debug)]
pub(crate) enum Fail {
    /// An error from the core, reported with its own kind and text.
    Core(Error),
    /// A required pointer argument was NULL.
    Null(&'static str),
    /// A pointer argument is not aligned for its type.
    Misaligned(&'static str),
    /// A string argument is not valid UTF-8.
    Utf8 { arg: &'static str, at: usize },
    /// Any other invalid argument; the text is the whole explanation.
    Arg(&'static str),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        Fail::Core(e)
    }
}

impl Fail {
    fn status(&self) -> idmint_status {
        match self {
            Fail::Core(e) => idmint_status::from_kind(e.kind()),
            Fail::Null(_) => IDMINT_NULL_POINTER,
            Fail::Misaligned(_) | Fail::Utf8 { .. } | Fail::Arg(_) => IDMINT_BAD_C_ARGUMENT,
        }
    }
}

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fail::Core(e @ Error::NodeRequired) => write!(f, "{e}{NODE_REQUIRED_HINT}"),
            Fail::Core(e) => write!(f, "{e}"),
            Fail::Null(arg) => write!(f, "null pointer: `{arg}` must not be NULL"),
            Fail::Misaligned(arg) => {
                write!(f, "invalid argument: `{arg}` is not aligned for its type")
            }
            Fail::Utf8 { arg, at } => {
                write!(
                    f,
                    "invalid argument: `{arg}` is not valid UTF-8 (at byte {at})"
                )
            }
            Fail::Arg(why) => write!(f, "invalid argument: {why}"),
        }
    }
}

/// Room for the last error message, NUL included. Core messages are well under 300 bytes;
/// longer texts (only panic messages can be) are cut at a character boundary.
const MSG_CAP: usize = 512;

thread_local! {
    static LAST: RefCell<[u8; MSG_CAP]> = const { RefCell::new([0; MSG_CAP]) };
}

/// Writes into a fixed buffer, dropping what does not fit (whole characters only) and always
/// leaving room for the terminating NUL.
struct Truncating<'a> {
    buf: &'a mut [u8; MSG_CAP],
    len: usize,
}

impl Write for Truncating<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let mut n = s.len().min(MSG_CAP - 1 - self.len);
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// Records `msg` as this thread's last error.
fn set_last(msg: fmt::Arguments<'_>) {
    LAST.with(|cell| {
        // A failed borrow would mean re-entry while recording, which cannot happen; then the
        // older message simply stays.
        if let Ok(mut buf) = cell.try_borrow_mut() {
            let mut w = Truncating {
                buf: &mut buf,
                len: 0,
            };
            let _ = w.write_fmt(msg);
            let end = w.len;
            buf[end] = 0;
        }
    });
}

#[cold]
#[inline(never)]
fn failed(e: Fail) -> idmint_status {
    set_last(format_args!("{e}"));
    e.status()
}

#[cold]
#[inline(never)]
fn panicked(payload: Box<dyn std::any::Any + Send>) -> idmint_status {
    let what = if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.as_str()
    } else {
        "(no message)"
    };
    set_last(format_args!("panic inside idmint: {what}"));
    IDMINT_PANIC
}

/// Runs the body of an entry point: turns its error into a status (recording the message) and
/// catches any panic so that none unwinds into C.
#[inline(always)]
pub(crate) fn guard(body: impl FnOnce() -> Result<(), Fail>) -> idmint_status {
    match panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => IDMINT_OK,
        Ok(Err(e)) => failed(e),
        Err(payload) => panicked(payload),
    }
}

/// Like [`guard`] for entry points that return a value rather than a status: `fallback` if the
/// body panics.
#[inline(always)]
fn guard_value<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    panic::catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        panicked(payload);
        fallback
    })
}

fn static_str(bytes: &'static [u8]) -> *const c_char {
    bytes.as_ptr().cast()
}

/// @brief The library version, `"MAJOR.MINOR.PATCH"` (equal to `IDMINT_VERSION` of a matching
/// header).
///
/// @return A static NUL-terminated string; never NULL, never freed.
#[no_mangle]
pub extern "C" fn idmint_version() -> *const c_char {
    static_str(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes())
}

/// @brief A fixed, human-readable description of a status.
///
/// @param status A value of #idmint_status (any integer is accepted).
/// @return A static NUL-terminated string; `"unknown status"` for numbers that are not a
///         status. Never NULL, never freed.
#[no_mangle]
pub extern "C" fn idmint_status_message(status: i32) -> *const c_char {
    const UNKNOWN: &[u8] = b"unknown status\0";
    guard_value(static_str(UNKNOWN), || {
        static_str(idmint_status::from_i32(status).map_or(UNKNOWN, |s| s.message()))
    })
}

/// @brief The stable code string of a status, the same on every idmint surface: `"OK"`,
/// `"ERR_CLOCK_BACKWARDS"`, ..., and `"ERR_NULL_POINTER"`, `"ERR_INVALID_ARGUMENT"`,
/// `"ERR_PANIC"` for the C-only statuses.
///
/// @param status A value of #idmint_status (any integer is accepted).
/// @return A static NUL-terminated string; `"ERR_UNKNOWN"` for numbers that are not a status.
#[no_mangle]
pub extern "C" fn idmint_status_code(status: i32) -> *const c_char {
    let unknown = IDMINT_UNKNOWN_ERROR.code();
    guard_value(static_str(unknown), || {
        static_str(idmint_status::from_i32(status).map_or(unknown, |s| s.code()))
    })
}

/// @brief The full message of the last failure on the calling thread.
///
/// Every call that returns a status other than `IDMINT_OK` records its message here, for
/// example `"invalid spec at byte 26: expected a number of bits"` or `"would block until
/// 1700000000004 ms"`. Successful calls leave it unchanged (like `errno`).
///
/// @return A NUL-terminated string owned by the library, valid on this thread until its next
///         failing idmint call; `""` before the first failure. Never NULL, never freed.
#[no_mangle]
pub extern "C" fn idmint_last_error_message() -> *const c_char {
    guard_value(static_str(b"\0"), || {
        LAST.with(|cell| cell.as_ptr().cast::<c_char>().cast_const())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn text(p: *const c_char) -> String {
        // SAFETY: the functions under test return NUL-terminated strings that live long enough.
        unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned()
    }

    fn last() -> String {
        text(idmint_last_error_message())
    }

    #[test]
    fn every_status_has_its_number_code_and_message() {
        for kind in ErrorKind::ALL {
            let s = idmint_status::from_kind(kind);
            assert_eq!(s as i32, i32::from(kind as u8), "{kind:?}");
            assert_eq!(text(idmint_status_code(s as i32)), kind.code());
        }
        for s in idmint_status::ALL {
            assert_eq!(idmint_status::from_i32(s as i32), Some(s));
            assert!(s.message().ends_with(b"\0") && s.message().len() > 1);
            assert!(s.code().ends_with(b"\0") && s.code().len() > 2);
        }
        assert_eq!(
            text(idmint_status_code(IDMINT_CORE_STATUS_MAX + 1)),
            "ERR_UNKNOWN"
        );
    }

    #[test]
    fn panics_become_a_status() {
        let s = guard(|| panic!("boom {}", 42));
        assert_eq!(s, IDMINT_PANIC);
        assert_eq!(last(), "panic inside idmint: boom 42");
        assert_eq!(guard_value(7, || panic!("static")), 7);
        assert_eq!(last(), "panic inside idmint: static");
    }

    #[test]
    fn long_messages_are_cut_at_a_char_boundary() {
        let long = "é".repeat(MSG_CAP);
        set_last(format_args!("{long}"));
        let got = last();
        assert!(got.len() < MSG_CAP && got.len() >= MSG_CAP - 3);
        assert!(got.chars().all(|c| c == 'é'));
    }

    #[test]
    fn errors_record_their_display() {
        let s = guard(|| Err(Error::WouldBlock { until_ms: 5 }.into()));
        assert_eq!(s, IDMINT_WOULD_BLOCK);
        assert_eq!(last(), "would block until 5 ms");
        assert_eq!(guard(|| Ok(())), IDMINT_OK);
        assert_eq!(last(), "would block until 5 ms");
        let s = guard(|| Err(Fail::Utf8 { arg: "spec", at: 3 }));
        assert_eq!(s, IDMINT_BAD_C_ARGUMENT);
        assert_eq!(
            last(),
            "invalid argument: `spec` is not valid UTF-8 (at byte 3)"
        );
    }
}
