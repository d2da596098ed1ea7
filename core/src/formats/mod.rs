//! Text ID formats of 128 bits: [`uuid`] (RFC 9562), [`typeid`] and [`ulid`] (both written
//! in Crockford base32), and [`any_id`], which tells which of them — or which Snowflake
//! [`Codec`](crate::Codec) — a piece of text holds.

pub mod any_id;
mod crockford;
pub mod typeid;
pub mod ulid;
pub mod uuid;
