//! The service against clients that lie, and web pages that send what they should not: every
//! way a client tried to break a promise of the service, as a test that failed before the
//! service stopped trusting it (DESIGN.md, "A network client may lie"). One module per edge:
//! `conn` (connections that never read, sit idle or come in crowds from one address, requests
//! that outlive their deadline, the TLS listener), `edge` (tokens and scopes, Host, content
//! types, CORS, rate limits), `keys` (key names that would corrupt metrics or pages, GETs meant
//! to make it write, floods of new keys), `lease` (client lease tokens, bounds and quotas).

#[path = "../common/mod.rs"]
mod common;

mod conn;
mod edge;
mod keys;
mod lease;
