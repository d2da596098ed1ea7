//! The wall clock as the service reads it: ms since the Unix epoch. One place, so the client
//! leases, the monitor page and the rate chart agree on what "now" is.

/// The wall clock, ms since the Unix epoch (0 before it).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
