//! UUIDs (RFC 9562): v4, v6 and v7 from the OS, sans-IO v4/v7/v1/v6/v8 from given bytes,
//! name-based v3/v5, v1<->v6 conversions, Nil and Max, monotonic v7 generators (three methods),
//! parsing, formatting and inspection.
//!
//! The clocked parts are the core's `idmint::named::clocked`: its process-wide v7 generator, its
//! `UuidGenerator` and its per-thread OS-seeded random streams, all restarted in a forked child.

use std::ffi::c_char;

use idmint_core::formats::uuid::{self, Uuid, Uuid7Method};
use idmint_core::named::clocked;
use idmint_core::named::NamedConfig;
use idmint_core::{Error, Name, UuidGenerator};

use crate::error::{guard, idmint_status, Fail};
use crate::ffi::{array_out, batch, c_str, call, create, fixed, free, put, read, slice, text};

/// Size of a UUID's hyphenated text plus its NUL (36 + 1).
pub const IDMINT_UUID_STR_SIZE: usize = 37;

/// @brief A UUID: 16 bytes in network (big-endian) order, as RFC 9562 lays them out.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct idmint_uuid {
    /// The bytes, most significant first.
    pub bytes: [u8; 16],
}

/// @brief The variant field of a UUID.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum idmint_uuid_variant {
    /// Reserved, NCS backward compatibility (includes the nil UUID).
    IDMINT_UUID_VARIANT_NCS = 0,
    /// The RFC 9562 (RFC 4122) variant of every standard UUID version.
    IDMINT_UUID_VARIANT_RFC9562 = 1,
    /// Reserved, Microsoft backward compatibility.
    IDMINT_UUID_VARIANT_MICROSOFT = 2,
    /// Reserved for the future (includes the max UUID).
    IDMINT_UUID_VARIANT_FUTURE = 3,
}

/// @brief What a UUID says about itself, from #idmint_uuid_inspect.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct idmint_uuid_info {
    /// The version nibble, 0 to 15 (1 to 8 are defined for the RFC 9562 variant).
    pub version: u32,
    /// The variant.
    pub variant: idmint_uuid_variant,
    /// The variant's name: `"ncs"`, `"rfc9562"`, `"microsoft"` or `"future"` (static string).
    pub variant_name: *const c_char,
    /// Whether `unix_ms` holds a time: RFC 9562 versions 1, 6 and 7 (and v1/v6 not before 1970).
    pub has_unix_ms: bool,
    /// Creation time, ms since the Unix epoch (rounded down); 0 when `has_unix_ms` is false.
    pub unix_ms: u64,
}

/// @brief How a v7 generator keeps the UUIDs of one millisecond increasing (RFC 9562 section
/// 6.2): one of the `IDMINT_UUID7_*` constants.
///
/// A plain integer rather than an enum, so that any value a C caller passes is checked
/// (`IDMINT_BAD_C_ARGUMENT`) instead of being undefined behaviour.
pub type idmint_uuid7_method = u32;

/// Method 1 (`"counter"`, the default): a 42-bit counter seeded randomly each millisecond.
pub const IDMINT_UUID7_COUNTER: idmint_uuid7_method = 0;
/// Method 2 (`"random_increment"`): the 74 random bits grow by a random step of 1 to 2^32.
pub const IDMINT_UUID7_RANDOM_INCREMENT: idmint_uuid7_method = 1;
/// Method 3 (`"sub_millisecond"`): `rand_a` holds the fraction of the millisecond in 1/4096
/// steps (see #idmint_uuid7_generator_next_at_precise).
pub const IDMINT_UUID7_SUB_MILLISECOND: idmint_uuid7_method = 2;

/// @brief The three custom fields of a version 8 UUID (RFC 9562 section 5.8).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct idmint_uuid8_custom {
    /// `custom_a`, 48 bits.
    pub custom_a: u64,
    /// `custom_b`, 12 bits.
    pub custom_b: u16,
    /// `custom_c`, 62 bits.
    pub custom_c: u64,
}

/// @brief A monotonic version 7 UUID generator (opaque; RFC 9562 section 6.2): every UUID it
/// issues is greater than the one before, even within one millisecond or when the clock steps
/// back. Thread-safe (calls are serialised by a lock), and it starts afresh in a child process
/// after `fork()`. Freed by #idmint_uuid7_generator_free.
pub struct idmint_uuid7_generator(UuidGenerator);

impl From<Uuid> for idmint_uuid {
    fn from(u: Uuid) -> Self {
        idmint_uuid {
            bytes: *u.as_bytes(),
        }
    }
}

fn get(u: &idmint_uuid) -> Uuid {
    Uuid::from_bytes(u.bytes)
}

const V7_BYTES: &str = "v7 takes exactly 10 random bytes";
const V1_NODE: &str = "v1 takes a node of exactly 6 bytes";
const V6_NODE: &str = "v6 takes a node of exactly 6 bytes";

/// @brief A version 4 (random) UUID from the operating system's random source.
///
/// @param out_uuid Receives the UUID.
/// @return `IDMINT_OK`; `IDMINT_RANDOM_SOURCE`; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid4(out_uuid: *mut idmint_uuid) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { put(out_uuid, "out_uuid", clocked::uuid4) }
}

/// @brief A version 4 UUID from 16 given random bytes (6 bits become version and variant).
///
/// @param random Exactly 16 bytes (`random_len` must be 16).
/// @return `IDMINT_OK`; `IDMINT_BAD_C_ARGUMENT` for another length; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid4_from_bytes(
    random: *const u8,
    random_len: usize,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    let why = "v4 takes exactly 16 random bytes";
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        put(out_uuid, "out_uuid", || {
            Ok::<_, Fail>(uuid::v4(fixed(random, random_len, "random", why)?))
        })
    }
}

/// @brief A version 7 (Unix-time-ordered) UUID from the system clock and the OS random source,
/// from one process-wide monotonic generator: the UUIDs of a process are strictly increasing,
/// across threads too, even within one millisecond or when the clock steps back; a child
/// process after `fork()` starts afresh.
///
/// @param out_uuid Receives the UUID.
/// @return `IDMINT_OK`; `IDMINT_RANDOM_SOURCE`; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid7(out_uuid: *mut idmint_uuid) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { put(out_uuid, "out_uuid", clocked::uuid7) }
}

/// @brief A version 7 UUID from a given time and 10 given random bytes (sans-IO).
///
/// @param unix_ms Milliseconds since the Unix epoch (clamped to 48 bits).
/// @param random Exactly 10 bytes (`random_len` must be 10).
/// @return `IDMINT_OK`; `IDMINT_BAD_C_ARGUMENT` for another length; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid7_at(
    unix_ms: u64,
    random: *const u8,
    random_len: usize,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        put(out_uuid, "out_uuid", || {
            Ok::<_, Fail>(uuid::v7(
                unix_ms,
                fixed(random, random_len, "random", V7_BYTES)?,
            ))
        })
    }
}

/// @brief A version 1 UUID from a count of 100 ns intervals since 1582-10-15 00:00 UTC (the
/// Gregorian reform), a clock sequence and a random node (sans-IO).
///
/// The node must come from a random source, never from a network card (a MAC address in every
/// ID tells which machine made it); its multicast bit is forced on (RFC 9562 section 6.10).
///
/// @param ticks 100 ns intervals since 1582-10-15 (clamped to 60 bits, the year 5236).
/// @param clock_seq The clock sequence; bits above the low 14 are ignored.
/// @param node Exactly 6 random bytes (`node_len` must be 6).
/// @param out_uuid Receives the UUID.
/// @return `IDMINT_OK`; `IDMINT_BAD_C_ARGUMENT` for another length; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid1_at(
    ticks: u64,
    clock_seq: u16,
    node: *const u8,
    node_len: usize,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        put(out_uuid, "out_uuid", || {
            Ok::<_, Fail>(uuid::v1(
                ticks,
                clock_seq,
                fixed(node, node_len, "node", V1_NODE)?,
            ))
        })
    }
}

/// @brief A version 1 UUID at a Unix time in ms plus 100 ns ticks within that millisecond, with
/// a clock sequence and a random node (sans-IO; see #idmint_uuid1_at for the node).
///
/// @param unix_ms Milliseconds since the Unix epoch.
/// @param ticks_100ns_extra 100 ns ticks within the millisecond, clamped to 9999 so they never
///        spill into the next one: a sub-millisecond counter keeps v1 UUIDs of one millisecond
///        distinct.
/// @param clock_seq The clock sequence; bits above the low 14 are ignored.
/// @param node Exactly 6 random bytes (`node_len` must be 6).
/// @param out_uuid Receives the UUID.
/// @return `IDMINT_OK`; `IDMINT_BAD_C_ARGUMENT` for another length; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid1_random_node(
    unix_ms: u64,
    ticks_100ns_extra: u16,
    clock_seq: u16,
    node: *const u8,
    node_len: usize,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        put(out_uuid, "out_uuid", || {
            let n = fixed(node, node_len, "node", V1_NODE)?;
            Ok::<_, Fail>(uuid::v1_random_node(
                unix_ms,
                ticks_100ns_extra,
                clock_seq,
                n,
            ))
        })
    }
}

/// @brief A version 1 UUID from the system clock and the OS random source, from one
/// process-wide generator (a random multicast node, never a MAC address; RFC 9562's clock
/// sequence): no two v1 UUIDs of a process are equal; a child process after `fork()` starts
/// afresh with a new node.
///
/// @param out_uuid Receives the UUID.
/// @return `IDMINT_OK`; `IDMINT_RANDOM_SOURCE`; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid1(out_uuid: *mut idmint_uuid) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { put(out_uuid, "out_uuid", clocked::uuid1) }
}

/// @brief A version 6 UUID from the system clock and the OS random source, from one
/// process-wide generator (v1's fields reordered so UUIDs sort by creation time; a random
/// multicast node, never a MAC address): the v6 UUIDs of a process are strictly increasing; a
/// child process after `fork()` starts afresh.
///
/// @param out_uuid Receives the UUID.
/// @return `IDMINT_OK`; `IDMINT_RANDOM_SOURCE`; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid6(out_uuid: *mut idmint_uuid) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { put(out_uuid, "out_uuid", clocked::uuid6) }
}

/// @brief A version 6 UUID from a count of 100 ns intervals since 1582-10-15, a clock sequence
/// and a random node (sans-IO; arguments as #idmint_uuid1_at, whose UUID this is with the
/// time fields reordered).
///
/// @return `IDMINT_OK`; `IDMINT_BAD_C_ARGUMENT` for another node length;
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid6_at(
    ticks: u64,
    clock_seq: u16,
    node: *const u8,
    node_len: usize,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        put(out_uuid, "out_uuid", || {
            Ok::<_, Fail>(uuid::v6(
                ticks,
                clock_seq,
                fixed(node, node_len, "node", V6_NODE)?,
            ))
        })
    }
}

/// @brief The version 6 UUID holding the same time, clock sequence and node as a version 1
/// UUID (RFC 9562 section 5.6).
///
/// @return `IDMINT_OK`; `IDMINT_INVALID_ARGUMENT` if `uuid` is not an RFC 9562 version 1 UUID;
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid1_to_uuid6(
    uuid: *const idmint_uuid,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        call(uuid, "uuid", out_uuid, "out_uuid", |u| {
            uuid::v1_to_v6(&get(u))
        })
    }
}

/// @brief The version 1 UUID holding the same time, clock sequence and node as a version 6
/// UUID.
///
/// @return `IDMINT_OK`; `IDMINT_INVALID_ARGUMENT` if `uuid` is not an RFC 9562 version 6 UUID;
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid6_to_uuid1(
    uuid: *const idmint_uuid,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        call(uuid, "uuid", out_uuid, "out_uuid", |u| {
            uuid::v6_to_v1(&get(u))
        })
    }
}

/// @brief A version 8 UUID from 16 given bytes: the version and variant bits are set, the other
/// 122 bits kept (RFC 9562 section 5.8). For a name-based v8, pass the first 16 bytes of a hash
/// of namespace and name (appendix B.2 uses SHA-256).
///
/// @param bytes Exactly 16 bytes (`bytes_len` must be 16).
/// @return `IDMINT_OK`; `IDMINT_BAD_C_ARGUMENT` for another length; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid8(
    bytes: *const u8,
    bytes_len: usize,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    let why = "v8 takes exactly 16 bytes";
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        put(out_uuid, "out_uuid", || {
            Ok::<_, Fail>(uuid::v8(fixed(bytes, bytes_len, "bytes", why)?))
        })
    }
}

/// @brief A version 8 UUID from its three custom fields (RFC 9562 appendix B.1).
///
/// @param custom_a 48 bits.
/// @param custom_b 12 bits.
/// @param custom_c 62 bits.
/// @return `IDMINT_OK`; `IDMINT_OUT_OF_RANGE` if a value does not fit its field (the message
///         names it); `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid8_from_fields(
    custom_a: u64,
    custom_b: u16,
    custom_c: u64,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        put(out_uuid, "out_uuid", || {
            uuid::v8_from_fields(custom_a, u64::from(custom_b), custom_c)
        })
    }
}

/// @brief The three custom fields of a version 8 UUID, the inverse of
/// #idmint_uuid8_from_fields.
///
/// @return `IDMINT_OK`; `IDMINT_INVALID_ARGUMENT` if `uuid` is not an RFC 9562 version 8 UUID;
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid8_fields(
    uuid: *const idmint_uuid,
    out_fields: *mut idmint_uuid8_custom,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        call(uuid, "uuid", out_fields, "out_fields", |u| {
            let (custom_a, custom_b, custom_c) =
                uuid::v8_fields(&get(u)).ok_or(Error::InvalidArgument {
                    argument: Name::lossy("uuid"),
                    reason: "not a version 8 UUID",
                })?;
            Ok::<_, Fail>(idmint_uuid8_custom {
                custom_a,
                custom_b,
                custom_c,
            })
        })
    }
}

/// @brief The Nil UUID, all 128 bits zero (RFC 9562 section 5.9).
#[no_mangle]
pub extern "C" fn idmint_uuid_nil() -> idmint_uuid {
    uuid::NIL.into()
}

/// @brief The Max UUID, all 128 bits one (RFC 9562 section 5.10).
#[no_mangle]
pub extern "C" fn idmint_uuid_max() -> idmint_uuid {
    uuid::MAX.into()
}

/// @brief Fills an array with version 7 UUIDs from the process-wide generator of
/// #idmint_uuid7, in increasing order, under one lock and one reading of the clock: the batch
/// form of #idmint_uuid7.
///
/// @param out_uuids Receives `n` UUIDs (Nil UUIDs if the call fails after checking its
///        arguments). May be NULL only if `n` is 0.
/// @param n How many: at most #IDMINT_MAX_BATCH.
/// @return `IDMINT_OK`; `IDMINT_LIMIT_EXCEEDED` for a larger `n`; `IDMINT_RANDOM_SOURCE`;
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid7s(out_uuids: *mut idmint_uuid, n: usize) -> idmint_status {
    guard(|| {
        batch(n)?;
        // SAFETY: the caller's contract.
        let dst = unsafe { array_out(out_uuids, n, "out_uuids", idmint_uuid::default()) }?;
        if n == 0 {
            return Ok(());
        }
        let mut got = vec![Uuid::nil(); n];
        clocked::uuid7_fill(&mut got)?;
        for (d, u) in dst.iter_mut().zip(got) {
            *d = u.into();
        }
        Ok(())
    })
}

/// Shared body of the name-based versions (3, 5 and 8 with SHA-256).
unsafe fn name_based(
    f: fn(&Uuid, &[u8]) -> Uuid,
    ns: *const idmint_uuid,
    name: *const u8,
    name_len: usize,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    // SAFETY: forwarded contract (here and inside).
    unsafe {
        call(ns, "ns", out_uuid, "out_uuid", |ns| {
            Ok::<_, Fail>(f(&get(ns), slice(name, name_len, "name")?))
        })
    }
}

/// @brief A version 3 (MD5, name-based) UUID: the same namespace and name always give the same
/// UUID. Prefer v5 for new designs.
///
/// @param ns The namespace UUID (see #idmint_uuid_namespace).
/// @param name The name's bytes (usually UTF-8). May be NULL only if `name_len` is 0.
/// @param name_len Length of `name` in bytes.
/// @param out_uuid Receives the UUID.
/// @return `IDMINT_OK` or `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid3(
    ns: *const idmint_uuid,
    name: *const u8,
    name_len: usize,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { name_based(uuid::v3, ns, name, name_len, out_uuid) }
}

/// @brief A version 5 (SHA-1, name-based) UUID: the same namespace and name always give the
/// same UUID, so independent systems agree on an ID without talking to each other. Arguments
/// and results as #idmint_uuid3.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid5(
    ns: *const idmint_uuid,
    name: *const u8,
    name_len: usize,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { name_based(uuid::v5, ns, name, name_len, out_uuid) }
}

/// @brief A name-based version 8 UUID: the first 16 bytes of SHA-256 over the namespace's bytes
/// and the name (RFC 9562 appendix B.2), the same UUID every idmint surface gives. Arguments and
/// results as #idmint_uuid3.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid8_sha256(
    ns: *const idmint_uuid,
    name: *const u8,
    name_len: usize,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { name_based(uuid::v8_sha256, ns, name, name_len, out_uuid) }
}

/// @brief A standard namespace UUID for v3/v5 by name: `"dns"`, `"url"`, `"oid"` or `"x500"`.
///
/// @return `IDMINT_OK`; `IDMINT_BAD_C_ARGUMENT` for another name; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid_namespace(
    name: *const c_char,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        put(out_uuid, "out_uuid", || match c_str(name, "name")? {
            "dns" => Ok(uuid::NAMESPACE_DNS),
            "url" => Ok(uuid::NAMESPACE_URL),
            "oid" => Ok(uuid::NAMESPACE_OID),
            "x500" => Ok(uuid::NAMESPACE_X500),
            _ => Err(Fail::Arg("namespace is dns, url, oid or x500")),
        })
    }
}

/// @brief Parses a UUID: hyphenated, 32 bare hex digits, `{braced}` or `urn:uuid:`-prefixed,
/// in either case.
///
/// @param text NUL-terminated UTF-8.
/// @param out_uuid Receives the UUID.
/// @return `IDMINT_OK`; `IDMINT_INVALID_ENCODING` (the message names the character index);
///         `IDMINT_BAD_C_ARGUMENT` (not UTF-8); `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid_parse(
    text: *const c_char,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        put(out_uuid, "out_uuid", || {
            Ok::<_, Fail>(uuid::parse(c_str(text, "text")?)?)
        })
    }
}

/// @brief Writes the lower-case hyphenated form (36 characters and a NUL).
///
/// @param buf Output buffer of `buf_len` bytes.
/// @param buf_len At least `IDMINT_UUID_STR_SIZE` (37).
/// @return `IDMINT_OK`; `IDMINT_BUFFER_TOO_SMALL` (then `buf` holds `""` if `buf_len` > 0);
///         `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid_format(
    uuid: *const idmint_uuid,
    buf: *mut c_char,
    buf_len: usize,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        text(uuid, "uuid", buf, buf_len, std::ptr::null_mut(), |u| {
            get(u).to_string()
        })
    }
}

/// @brief Reads a UUID's version, variant and (for v1, v6 and v7) embedded time.
///
/// @return `IDMINT_OK` or `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid_inspect(
    uuid: *const idmint_uuid,
    out_info: *mut idmint_uuid_info,
) -> idmint_status {
    use idmint_uuid_variant::*;
    // SAFETY: the caller's contract.
    unsafe {
        read(uuid, "uuid", out_info, "out_info", |u| {
            let info = uuid::inspect(&get(u));
            let (variant, name): (_, &'static [u8]) = match info.variant {
                "ncs" => (IDMINT_UUID_VARIANT_NCS, b"ncs\0"),
                "rfc9562" => (IDMINT_UUID_VARIANT_RFC9562, b"rfc9562\0"),
                "microsoft" => (IDMINT_UUID_VARIANT_MICROSOFT, b"microsoft\0"),
                _ => (IDMINT_UUID_VARIANT_FUTURE, b"future\0"),
            };
            idmint_uuid_info {
                version: u32::from(info.version),
                variant,
                variant_name: name.as_ptr().cast(),
                has_unix_ms: info.unix_ms.is_some(),
                unix_ms: info.unix_ms.unwrap_or(0),
            }
        })
    }
}

/// @brief Makes a monotonic v7 generator.
///
/// @param out_gen Receives the generator (free it with #idmint_uuid7_generator_free).
/// @return `IDMINT_OK` or `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid7_generator_new(
    out_gen: *mut *mut idmint_uuid7_generator,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        create(out_gen, "out_gen", || {
            Ok(idmint_uuid7_generator(UuidGenerator::new(7)?))
        })
    }
}

/// @brief Frees a v7 generator (NULL is ignored); it must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid7_generator_free(gen: *mut idmint_uuid7_generator) {
    // SAFETY: the caller's contract.
    unsafe { free(gen) }
}

/// @brief The next UUID, from the system clock and the OS random source.
///
/// @return `IDMINT_OK`; `IDMINT_RANDOM_SOURCE`; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid7_generator_next(
    gen: *const idmint_uuid7_generator,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { call(gen, "gen", out_uuid, "out_uuid", |g| g.0.next()) }
}

/// @brief The next UUID at a given time with 10 given random bytes (sans-IO).
///
/// @param unix_ms Milliseconds since the Unix epoch.
/// @param random Exactly 10 bytes (`random_len` must be 10).
/// @return `IDMINT_OK`; `IDMINT_BAD_C_ARGUMENT` for another length; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid7_generator_next_at(
    gen: *const idmint_uuid7_generator,
    unix_ms: u64,
    random: *const u8,
    random_len: usize,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        call(gen, "gen", out_uuid, "out_uuid", |g| {
            next_at(
                g,
                unix_ms,
                0,
                fixed(random, random_len, "random", V7_BYTES)?,
            )
        })
    }
}

/// The sans-IO step: the core's generator asks for exactly these 10 bytes.
fn next_at(
    g: &idmint_uuid7_generator,
    unix_ms: u64,
    sub_ms_nanos: u32,
    r: [u8; 10],
) -> Result<Uuid, Fail> {
    let given = |buf: &mut [u8]| {
        let fits = buf.len() == r.len();
        fits.then(|| buf.copy_from_slice(&r))
            .ok_or(Error::RandomSource)
    };
    Ok(g.0.next_at_precise(unix_ms, sub_ms_nanos, given)?)
}

// The constants are the indexes of the core's `Uuid7Method::ALL`.
const _: () = assert!(
    matches!(
        Uuid7Method::ALL[IDMINT_UUID7_COUNTER as usize],
        Uuid7Method::Counter
    ) && matches!(
        Uuid7Method::ALL[IDMINT_UUID7_RANDOM_INCREMENT as usize],
        Uuid7Method::RandomIncrement
    ) && matches!(
        Uuid7Method::ALL[IDMINT_UUID7_SUB_MILLISECOND as usize],
        Uuid7Method::SubMillisecond
    ) && Uuid7Method::ALL.len() == 3
);

fn v7_method(m: idmint_uuid7_method) -> Result<Uuid7Method, Fail> {
    Uuid7Method::ALL
        .get(m as usize)
        .copied()
        .ok_or(Fail::Arg("unknown v7 method constant (use IDMINT_UUID7_*)"))
}

/// @brief Makes a monotonic v7 generator of a chosen RFC 9562 method.
///
/// Its #idmint_uuid7_generator_next reads the system clock (to the nanosecond, for
/// `IDMINT_UUID7_SUB_MILLISECOND`) and the OS random source; its `_next_at` calls are
/// sans-IO. It starts afresh in a child process after `fork()`. The same generator as the
/// config `"type=uuid7,method=NAME"` on every idmint surface.
///
/// @param method An `IDMINT_UUID7_*` constant.
/// @param out_gen Receives the generator (free it with #idmint_uuid7_generator_free), or NULL
///        on failure.
/// @return `IDMINT_OK`; `IDMINT_BAD_C_ARGUMENT` for an unknown method; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid7_generator_new_with_method(
    method: idmint_uuid7_method,
    out_gen: *mut *mut idmint_uuid7_generator,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        create(out_gen, "out_gen", || {
            let cfg = NamedConfig::Uuid7(v7_method(method)?);
            Ok(idmint_uuid7_generator(UuidGenerator::from_config(cfg)?))
        })
    }
}

/// @brief Looks a v7 method up by its name on every idmint surface: `"counter"`,
/// `"random_increment"` or `"sub_millisecond"`.
///
/// @return `IDMINT_OK`; `IDMINT_INVALID_CONFIG` for an unknown name; `IDMINT_BAD_C_ARGUMENT`
///         (not UTF-8); `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid7_method_from_name(
    name: *const c_char,
    out_method: *mut idmint_uuid7_method,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        put(out_method, "out_method", || -> Result<_, Fail> {
            let m = Uuid7Method::parse(c_str(name, "name")?)?;
            let i = Uuid7Method::ALL.iter().position(|k| *k == m);
            Ok(i.ok_or(Fail::Arg("a v7 method newer than this library"))? as idmint_uuid7_method)
        })
    }
}

/// @brief The method of a v7 generator (`IDMINT_UUID7_COUNTER` for one from
/// #idmint_uuid7_generator_new).
///
/// @return `IDMINT_OK` or `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid7_generator_method(
    gen: *const idmint_uuid7_generator,
    out_method: *mut idmint_uuid7_method,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        read(gen, "gen", out_method, "out_method", |g| {
            let m = match g.0.config() {
                NamedConfig::Uuid7(m) => *m,
                _ => Uuid7Method::Counter,
            };
            Uuid7Method::ALL.iter().position(|k| *k == m).unwrap_or(0) as idmint_uuid7_method
        })
    }
}

/// @brief The next UUID at a given time plus a fraction of its millisecond, with 10 given
/// random bytes (sans-IO). Only `IDMINT_UUID7_SUB_MILLISECOND` uses the fraction; the other
/// methods behave as #idmint_uuid7_generator_next_at.
///
/// @param unix_ms Milliseconds since the Unix epoch.
/// @param sub_ms_nanos Nanoseconds into that millisecond, 0 to 999999 (clamped).
/// @param random Exactly 10 bytes (`random_len` must be 10).
/// @return `IDMINT_OK`; `IDMINT_BAD_C_ARGUMENT` for another length; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_uuid7_generator_next_at_precise(
    gen: *const idmint_uuid7_generator,
    unix_ms: u64,
    sub_ms_nanos: u32,
    random: *const u8,
    random_len: usize,
    out_uuid: *mut idmint_uuid,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        call(gen, "gen", out_uuid, "out_uuid", |g| {
            let r = fixed(random, random_len, "random", V7_BYTES)?;
            next_at(g, unix_ms, sub_ms_nanos, r)
        })
    }
}
