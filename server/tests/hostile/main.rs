//! The service against clients that lie: every way a client (or a web page, or a slow reader)
//! tried to break a promise of the service, as a test that failed before the service stopped
//! trusting it. One module per edge: `lease` (client lease tokens, bounds and quotas).

#[path = "../common/mod.rs"]
mod common;

mod lease;
