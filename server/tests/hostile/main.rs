//! Clients that try to hold the service: connections that never read, sit idle or come in
//! crowds from one address, requests that outlive their deadline, and the TLS listener.

#[path = "../common/mod.rs"]
mod common;

mod conn;
