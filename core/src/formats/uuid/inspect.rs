//! What a UUID says about itself: version, variant, embedded time.

use uuid::{Uuid, Variant};

use super::v1::GREGORIAN_TO_UNIX_TICKS;

/// What a UUID says about itself, from [`inspect`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UuidInfo {
    /// The version nibble (0-15; 1-8 are defined by RFC 9562 for the `rfc9562` variant).
    pub version: u8,
    /// The variant: `ncs` (which includes the nil UUID), `rfc9562`, `microsoft` or `future`
    /// (which includes the max UUID).
    pub variant: &'static str,
    /// Creation time in ms since the Unix epoch (rounded down), for RFC 9562 versions 1, 6 and
    /// 7; `None` for other versions and for v1/v6 times before 1970.
    pub unix_ms: Option<u64>,
}

/// Reads version, variant and (for v1, v6 and v7) the embedded time of a UUID.
///
/// # Examples
/// ```
/// use idmint::formats::uuid::{inspect, parse};
/// let info = inspect(&parse("018bcfe5-6800-7000-8000-000000000000")?);
/// assert_eq!((info.version, info.variant, info.unix_ms), (7, "rfc9562", Some(1_700_000_000_000)));
/// assert_eq!(inspect(&idmint::formats::uuid::Uuid::nil()).unix_ms, None);
/// # Ok::<(), idmint::Error>(())
/// ```
pub fn inspect(uuid: &Uuid) -> UuidInfo {
    let variant = match uuid.get_variant() {
        Variant::NCS => "ncs",
        Variant::RFC4122 => "rfc9562",
        Variant::Microsoft => "microsoft",
        _ => "future",
    };
    let version = uuid.get_version_num() as u8;
    let unix_ms = if variant == "rfc9562" {
        timestamp_ms(uuid, version)
    } else {
        None
    };
    UuidInfo {
        version,
        variant,
        unix_ms,
    }
}

fn timestamp_ms(uuid: &Uuid, version: u8) -> Option<u64> {
    let ts = uuid.get_timestamp()?;
    match version {
        // The Gregorian tick count is exact, unlike the Unix conversion, which wraps before 1970.
        1 | 6 => ts
            .to_gregorian()
            .0
            .checked_sub(GREGORIAN_TO_UNIX_TICKS)
            .map(|t| t / 10_000),
        7 => {
            let (secs, nanos) = ts.to_unix();
            secs.checked_mul(1000)?
                .checked_add(u64::from(nanos / 1_000_000))
        }
        _ => None,
    }
}
