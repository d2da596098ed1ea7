//! Version 5: name-based, SHA-1.

use uuid::Uuid;

/// A version 5 (SHA-1, name-based) UUID: the same namespace and name always give the same UUID,
/// so independent systems agree on an ID without talking to each other.
///
/// # Examples
/// ```
/// use idmint::formats::uuid::{v5, NAMESPACE_DNS};
/// assert_eq!(v5(&NAMESPACE_DNS, b"python.org").to_string(), "886313e1-3b8a-5372-9b90-0c9aee199e5d");
/// ```
pub fn v5(namespace: &Uuid, name: &[u8]) -> Uuid {
    Uuid::new_v5(namespace, name)
}
