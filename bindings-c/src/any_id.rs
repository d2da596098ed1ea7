//! Which ID a text holds: the core's `idmint::formats::any_id::AnyId::parse`, the shape rules
//! `idmint decode` and the service's `GET /v1/decode/{id}` read with, as one C struct.

use std::ffi::c_char;

use idmint_core::AnyId;

use crate::codec::{codec as codec_arg, idmint_codec};
use crate::error::{idmint_status, Fail};
use crate::ffi::{c_str, put};
use crate::ksuid::idmint_ksuid;
use crate::typeid::IDMINT_TYPEID_PREFIX_SIZE;
use crate::uuid::idmint_uuid;

/// @brief Which format #idmint_parse_any read.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum idmint_any_id_kind {
    /// A 64-bit ID in one of the codecs, in `id`.
    IDMINT_ANY_ID_SNOWFLAKE = 0,
    /// A UUID, in `uuid`.
    IDMINT_ANY_ID_UUID = 1,
    /// A TypeID: its UUID in `uuid`, its prefix in `prefix`.
    IDMINT_ANY_ID_TYPEID = 2,
    /// A ULID: its 16 bytes in `uuid` (the bytes an #idmint_ulid holds).
    IDMINT_ANY_ID_ULID = 3,
    /// A KSUID, in `ksuid`.
    IDMINT_ANY_ID_KSUID = 4,
}

/// @brief An ID read from text by #idmint_parse_any; the fields its kind does not use are zero.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct idmint_any_id {
    /// Which format the text holds.
    pub kind: idmint_any_id_kind,
    /// The 64-bit ID (`IDMINT_ANY_ID_SNOWFLAKE`).
    pub id: u64,
    /// The 128 bits of a UUID, a TypeID or a ULID.
    pub uuid: idmint_uuid,
    /// The KSUID (`IDMINT_ANY_ID_KSUID`).
    pub ksuid: idmint_ksuid,
    /// The TypeID's prefix, NUL-terminated (`""` for none and for the other kinds).
    pub prefix: [c_char; IDMINT_TYPEID_PREFIX_SIZE],
    /// Whether `unix_ms` holds the time the ID carries: a ULID's and a KSUID's always, a UUID's
    /// and a TypeID's by their UUID's version (1, 6, 7); never a 64-bit ID's (its layout has it).
    pub has_unix_ms: bool,
    /// That time, ms since the Unix epoch; 0 when `has_unix_ms` is false.
    pub unix_ms: u64,
}

impl From<AnyId> for idmint_any_id {
    fn from(a: AnyId) -> Self {
        let mut out = idmint_any_id {
            kind: idmint_any_id_kind::IDMINT_ANY_ID_SNOWFLAKE,
            id: 0,
            uuid: a.uuid().map(Into::into).unwrap_or_default(),
            ksuid: idmint_ksuid::default(),
            prefix: [0; IDMINT_TYPEID_PREFIX_SIZE],
            has_unix_ms: a.unix_ms().is_some(),
            unix_ms: a.unix_ms().unwrap_or(0),
        };
        out.kind = match a {
            AnyId::Snowflake(id) => {
                out.id = id;
                idmint_any_id_kind::IDMINT_ANY_ID_SNOWFLAKE
            }
            AnyId::Uuid(_) => idmint_any_id_kind::IDMINT_ANY_ID_UUID,
            AnyId::TypeId(t) => {
                // The core caps a prefix at 63 bytes: the NUL always fits.
                for (d, s) in out.prefix.iter_mut().zip(t.prefix().bytes()) {
                    *d = s as c_char;
                }
                idmint_any_id_kind::IDMINT_ANY_ID_TYPEID
            }
            AnyId::Ulid(_) => idmint_any_id_kind::IDMINT_ANY_ID_ULID,
            AnyId::Ksuid(k) => {
                out.ksuid = k.into();
                idmint_any_id_kind::IDMINT_ANY_ID_KSUID
            }
        };
        out
    }
}

/// @brief Reads whichever ID `text` holds, told by its shape as `idmint decode` tells it: a
/// UUID (36 characters hyphenated, `{braced}` or `urn:uuid:`), a TypeID (an `_`, or 26
/// lower-case characters holding a version 7 UUID), a ULID (26 characters otherwise), a KSUID
/// (27 characters), else a 64-bit ID as #idmint_parse_id with `IDMINT_CODEC_AUTO` reads it.
///
/// @param text NUL-terminated UTF-8.
/// @param codec `IDMINT_CODEC_AUTO` to tell by the shape; another `IDMINT_CODEC_*`: the text is
///        a 64-bit ID in that codec and nothing else.
/// @param out_any Receives the ID (only on `IDMINT_OK`).
/// @return `IDMINT_OK`; `IDMINT_INVALID_ENCODING` (the message names the format the shape
///         chose, the character index and why); `IDMINT_BAD_C_ARGUMENT` (unknown codec, text
///         not UTF-8); `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_parse_any(
    text: *const c_char,
    codec: idmint_codec,
    out_any: *mut idmint_any_id,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        put(out_any, "out_any", || -> Result<AnyId, Fail> {
            Ok(AnyId::parse(c_str(text, "text")?, codec_arg(codec)?)?)
        })
    }
}
