//! The service against clients that send what they like: key names that would corrupt
//! metrics or pages, GETs meant to make it write, and floods of new keys.

#[path = "../common/mod.rs"]
mod common;

mod keys;
