//! # idmint
//!
//! Unique, roughly time-ordered 64-bit IDs for distributed systems (the Snowflake family),
//! plus UUIDs, sortable string codecs and keyed obfuscation — from a `no_std`, sans-IO core.
//!
//! The core never reads a clock, sleeps or draws randomness by itself: generators take
//! `now_ms` and answer with an ID, with [`Error::WouldBlock`] (call again at `until_ms`), or
//! with a typed error. With the `std` feature (default), [`Snowflake`] brings a monotonic
//! wall clock, waiting, OS randomness and fork detection.
//!
//! # Examples
//! ```
//! use idmint::{Config, Layout, LocalSnowflake};
//!
//! let layout = Layout::preset("twitter")?;
//! let mut gen = LocalSnowflake::new(Config::new(layout).node(7))?;
//! let now = 1_700_000_000_000; // ms since the Unix epoch, from your clock
//! let a = gen.next_id_at(now)?;
//! let b = gen.next_id_at(now)?;
//! assert!(b > a);
//! assert_eq!(layout.timestamp_ms(a), now);
//! assert_eq!(layout.decompose(b)?.sequence, 1);
//! # Ok::<(), idmint::Error>(())
//! ```
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]
#![forbid(unsafe_op_in_unsafe_fn)]

#[cfg(feature = "alloc")]
extern crate alloc;

pub mod codec;
mod error;
pub mod layout;
mod name;
pub mod obfuscate;
pub mod preset;
mod time;
pub mod uuids;

pub use error::{Error, ErrorKind, Result};
pub use layout::{Field, FieldKind, Layout, LayoutBuilder, Parts};
pub use name::Name;
pub use time::Rfc3339;
