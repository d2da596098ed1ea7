//! Text ID formats of 128 bits and more: [`uuid`] (RFC 9562), [`typeid`] and [`ulid`] (both
//! written in Crockford base32), [`ksuid`] (160 bits in base62), and [`any_id`], which tells
//! which of them — or which Snowflake [`Codec`](crate::Codec) — a piece of text holds.

pub mod any_id;
mod crockford;
pub mod ksuid;
pub mod typeid;
pub mod ulid;
pub mod uuid;
