//! Which ID a piece of text holds: a 64-bit Snowflake-family ID in one of the [`Codec`]s, or
//! a UUID, TypeID, ULID or KSUID — told apart by shape, so the CLI's `idmint decode` and the service's
//! `GET /v1/decode/{id}` read exactly the same texts.
//!
//! # Examples
//! ```
//! use idmint::formats::any_id::AnyId;
//!
//! assert!(matches!(AnyId::parse("0x2a", None)?, AnyId::Snowflake(42)));
//! assert!(matches!(AnyId::parse("2a", Some(idmint::Codec::Hex))?, AnyId::Snowflake(42)));
//! let u = AnyId::parse("01890a5d-ac96-774b-bcce-b302099a8057", None)?;
//! assert!(matches!(u, AnyId::Uuid(_)));
//! assert_eq!(u.unix_ms(), Some(1_688_096_058_518));
//! # Ok::<(), idmint::Error>(())
//! ```

use crate::codec::{parse_id, Codec};
use crate::error::Result;
use crate::formats::ksuid::Ksuid;
use crate::formats::typeid::TypeId;
use crate::formats::ulid::Ulid;
use crate::formats::uuid::{self, Uuid};

/// One ID read from text.
#[derive(Debug, Clone, Copy)]
pub enum AnyId {
    /// A 64-bit ID in one of the [`Codec`]s (its layout is the caller's to know).
    Snowflake(u64),
    /// A UUID: 36 characters with hyphens, `{braced}` or `urn:uuid:`-prefixed.
    Uuid(Uuid),
    /// A TypeID: `prefix_` and 26 lower-case characters, or 26 lower-case characters holding a
    /// version 7 UUID.
    TypeId(TypeId),
    /// A ULID: 26 Crockford characters that are not a prefix-less TypeID.
    Ulid(Ulid),
    /// A KSUID: 27 base62 characters (all-digit ones too: no 64-bit decimal is 27 digits long
    /// without leading zeros).
    Ksuid(Ksuid),
}

impl AnyId {
    /// Reads `text`. With `codec`, the text is a 64-bit ID in that codec and nothing else. Without,
    /// the shape decides, in this order:
    /// 1. 36 characters hyphenated 8-4-4-4-12, or `urn:uuid:…`, or `{…}` → UUID;
    /// 2. an `_` → TypeID;
    /// 3. 26 characters → a TypeID without prefix if all lower-case and holding a version 7 UUID,
    ///    else a ULID (either case), so that its time is read as a ULID's;
    /// 4. 27 characters → KSUID;
    /// 5. anything else → a 64-bit ID by [`parse_id`] (digits: decimal, `0x`: hex, 13
    ///    characters: base32, 11: base62).
    ///
    /// Errors are [`Error::InvalidEncoding`](crate::Error::InvalidEncoding) from the format the
    /// shape chose.
    pub fn parse(text: &str, codec: Option<Codec>) -> Result<AnyId> {
        if let Some(c) = codec {
            return c.decode(text).map(AnyId::Snowflake);
        }
        let b = text.as_bytes();
        let hyphenated = b.len() == 36 && [8, 13, 18, 23].iter().all(|&i| b.get(i) == Some(&b'-'));
        if hyphenated || text.starts_with("urn:uuid:") || text.starts_with('{') {
            return uuid::parse(text).map(AnyId::Uuid);
        }
        if text.contains('_') {
            return TypeId::parse(text).map(AnyId::TypeId);
        }
        if b.len() == crate::formats::ksuid::LEN {
            return Ksuid::parse(text).map(AnyId::Ksuid);
        }
        if b.len() != 26 {
            return parse_id(text).map(AnyId::Snowflake);
        }
        let lower = b.iter().any(u8::is_ascii_lowercase);
        if lower && !b.iter().any(u8::is_ascii_uppercase) {
            if let Ok(t) = TypeId::parse(text) {
                let info = uuid::inspect(&t.uuid());
                if info.variant == "rfc9562" && info.version == 7 {
                    return Ok(AnyId::TypeId(t));
                }
            }
        }
        Ulid::parse(text).map(AnyId::Ulid)
    }

    /// The 128 bits as a UUID; `None` for a 64-bit ID and a KSUID (160 bits).
    pub fn uuid(&self) -> Option<Uuid> {
        match self {
            AnyId::Snowflake(_) | AnyId::Ksuid(_) => None,
            AnyId::Uuid(u) => Some(*u),
            AnyId::TypeId(t) => Some(t.uuid()),
            AnyId::Ulid(u) => Some(u.to_uuid()),
        }
    }

    /// The time a 128-bit ID carries (ms since the Unix epoch): a ULID's own, else what its
    /// UUID's version says; a KSUID's second. `None` for a 64-bit ID, whose time needs its layout.
    pub fn unix_ms(&self) -> Option<u64> {
        match self {
            AnyId::Ulid(u) => Some(u.timestamp_ms()),
            AnyId::Ksuid(k) => Some(k.unix_ms()),
            other => other.uuid().and_then(|u| uuid::inspect(&u).unix_ms),
        }
    }

    /// What kind of ID this is: `snowflake`, `uuid`, `typeid`, `ulid` or `ksuid`.
    pub const fn kind(&self) -> &'static str {
        match self {
            AnyId::Snowflake(_) => "snowflake",
            AnyId::Uuid(_) => "uuid",
            AnyId::TypeId(_) => "typeid",
            AnyId::Ulid(_) => "ulid",
            AnyId::Ksuid(_) => "ksuid",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn shapes_pick_the_format() {
        let uuid = "01890a5d-ac96-774b-bcce-b302099a8057";
        assert!(matches!(AnyId::parse(uuid, None), Ok(AnyId::Uuid(_))));
        let braced = "{01890a5d-ac96-774b-bcce-b302099a8057}";
        assert!(matches!(AnyId::parse(braced, None), Ok(AnyId::Uuid(_))));
        let t = AnyId::parse("user_01h455vb4pex5vsknk084sn02q", None).unwrap();
        assert_eq!(t.kind(), "typeid");
        // Lower-case, version 7 inside: a TypeID without prefix; upper-case: a ULID.
        assert_eq!(
            AnyId::parse("01h455vb4pex5vsknk084sn02q", None)
                .unwrap()
                .kind(),
            "typeid"
        );
        let ulid = AnyId::parse("01ARZ3NDEKTSV4RRFFQ69G5FAV", None).unwrap();
        assert_eq!(ulid.kind(), "ulid");
        assert_eq!(ulid.unix_ms(), Some(1_469_922_850_259));
        assert!(matches!(AnyId::parse("42", None), Ok(AnyId::Snowflake(42))));
        assert!(matches!(
            AnyId::parse("0x2a", None),
            Ok(AnyId::Snowflake(42))
        ));
        assert_eq!(AnyId::parse("42", None).unwrap().unix_ms(), None);
        let k = AnyId::parse("0ujtsYcgvSTl8PAuAdqWYSMnLOv", None).unwrap();
        assert_eq!((k.kind(), k.unix_ms()), ("ksuid", Some(1_507_608_047_000)));
        // 27 digits: a KSUID (timestamp 0, payload 4 * 62 + 2), not the decimal 42.
        let z = AnyId::parse("000000000000000000000000042", None).unwrap();
        assert!(matches!(z, AnyId::Ksuid(k) if k.payload_u128() == 250));
    }

    #[test]
    fn a_codec_reads_only_that_codec() {
        assert!(matches!(
            AnyId::parse("1d83a82428800000", Some(Codec::Hex)),
            Ok(AnyId::Snowflake(0x1d83_a824_2880_0000))
        ));
        // 26 characters, but the codec says hex: no ULID guess.
        assert!(matches!(
            AnyId::parse("01ARZ3NDEKTSV4RRFFQ69G5FAV", Some(Codec::Hex)),
            Err(Error::InvalidEncoding { codec: "hex", .. })
        ));
    }

    #[test]
    fn bad_text_names_the_format_chosen() {
        assert!(matches!(
            AnyId::parse("01890a5d-ac96-774b-bcce-b302099a805g", None),
            Err(Error::InvalidEncoding { codec: "uuid", .. })
        ));
        assert!(matches!(
            AnyId::parse("01ARZ3NDEKTSV4RRFFQ69G5FAU", None),
            Err(Error::InvalidEncoding { codec: "ulid", .. })
        ));
        assert!(matches!(
            AnyId::parse("ééééé", None),
            Err(Error::InvalidEncoding {
                codec: "auto",
                at: 0,
                ..
            })
        ));
    }
}
