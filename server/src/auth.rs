//! Who sent a request.

/// Who sent a request, as the edge established it.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The peer's IP address.
    pub peer: std::net::IpAddr,
    /// The name of the token it presented (never the secret); None when anonymous.
    pub token: Option<std::sync::Arc<str>>,
}
