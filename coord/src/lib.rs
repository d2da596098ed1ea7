//! # idmint-coord
//!
//! Coordination for idmint generators across processes and hosts:
//!
//! - **Worker leases** ([`lease`]): a node value held under a lease in a store (file locks in a
//!   directory, Redis, PostgreSQL), renewed in the background, carrying the node's last issued
//!   time so the next holder never mints before it (the time fence).
//! - **Segments** ([`segment`]): ranges of consecutive values taken from a store (SQLite,
//!   PostgreSQL, Redis) one round trip per range, served from a double buffer.

pub mod lease;
pub mod segment;
