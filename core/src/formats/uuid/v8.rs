//! Version 8: 122 bits laid out as the application wants (RFC 9562 section 5.8), from whole
//! bytes or from the RFC's three custom fields.

use uuid::{Builder, Uuid};

use crate::error::{Error, Result};
use crate::field_name::Name;

/// A version 8 UUID from 16 caller bytes: the version and variant bits are set, the other 122
/// bits kept. For a name-based v8, pass the first 16 bytes of a hash of namespace and name
/// (RFC 9562 appendix B.2 uses SHA-256).
///
/// # Examples
/// ```
/// // RFC 9562 appendix B.2: SHA-256 of the DNS namespace and "www.example.com".
/// let digest = 0x5c146b143c524afd938a375d0df1fbf6_u128.to_be_bytes();
/// let u = idmint::formats::uuid::v8(digest);
/// assert_eq!(u.to_string(), "5c146b14-3c52-8afd-938a-375d0df1fbf6");
/// ```
pub const fn v8(bytes: [u8; 16]) -> Uuid {
    Builder::from_custom_bytes(bytes).into_uuid()
}

/// A name-based version 8 UUID: the first 16 bytes of SHA-256 over the namespace's 16 bytes
/// and `name`, as RFC 9562 appendix B.2 shows. Deterministic like [`v5`](super::v5), with a
/// modern hash; every surface gives the same UUID for the same namespace and name.
///
/// # Examples
/// ```
/// use idmint::formats::uuid::{v8_sha256, NAMESPACE_DNS};
/// let u = v8_sha256(&NAMESPACE_DNS, b"www.example.com");
/// assert_eq!(u.to_string(), "5c146b14-3c52-8afd-938a-375d0df1fbf6");
/// ```
pub fn v8_sha256(namespace: &Uuid, name: &[u8]) -> Uuid {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(namespace.as_bytes());
    h.update(name);
    let digest = h.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    v8(bytes)
}

/// A version 8 UUID from its three custom fields: `custom_a` (48 bits), `custom_b` (12 bits)
/// and `custom_c` (62 bits), as in RFC 9562 appendix B.1; [`Error::OutOfRange`] if a value
/// does not fit its field.
///
/// # Examples
/// ```
/// // RFC 9562 appendix B.1: a timestamp in 10 ns steps across custom_a and custom_b.
/// let u = idmint::formats::uuid::v8_from_fields(0x2489E9AD2EE2, 0xE00, 0x0EC932D5F69181C0)?;
/// assert_eq!(u.to_string(), "2489e9ad-2ee2-8e00-8ec9-32d5f69181c0");
/// # Ok::<(), idmint::Error>(())
/// ```
pub fn v8_from_fields(custom_a: u64, custom_b: u64, custom_c: u64) -> Result<Uuid> {
    let check = |name: &str, value: u64, bits: u32| {
        let max = (1u64 << bits) - 1;
        if value > max {
            Err(Error::OutOfRange {
                field: Name::lossy(name),
                value,
                max,
            })
        } else {
            Ok(())
        }
    };
    check("custom_a", custom_a, 48)?;
    check("custom_b", custom_b, 12)?;
    check("custom_c", custom_c, 62)?;
    let hi = (custom_a << 16) | custom_b;
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&hi.to_be_bytes());
    bytes[8..].copy_from_slice(&custom_c.to_be_bytes());
    Ok(v8(bytes))
}

/// The three custom fields of a version 8 UUID (`custom_a`, `custom_b`, `custom_c`), the
/// inverse of [`v8_from_fields`]; `None` if `uuid` is not a version 8 UUID.
pub fn v8_fields(uuid: &Uuid) -> Option<(u64, u16, u64)> {
    if uuid.get_version_num() != 8 || uuid.get_variant() != uuid::Variant::RFC4122 {
        return None;
    }
    let v = uuid.as_u128();
    let a = (v >> 80) as u64;
    let b = ((v >> 64) & 0xfff) as u16;
    let c = (v as u64) & ((1 << 62) - 1);
    Some((a, b, c))
}
