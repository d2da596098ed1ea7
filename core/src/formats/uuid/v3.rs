//! Version 3: name-based, MD5.

use uuid::Uuid;

/// A version 3 (MD5, name-based) UUID: the same namespace and name always give the same UUID.
/// Prefer [`v5`](super::v5) unless you must match existing v3 IDs.
///
/// # Examples
/// ```
/// use idmint::formats::uuid::{v3, NAMESPACE_DNS};
/// assert_eq!(v3(&NAMESPACE_DNS, b"python.org").to_string(), "6fa459ea-ee8a-3ca4-894e-db77e160355e");
/// ```
pub fn v3(namespace: &Uuid, name: &[u8]) -> Uuid {
    Uuid::new_v3(namespace, name)
}
