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

pub mod anchor;
pub mod any_id;
mod atomic;
pub mod clock;
mod clocked;
pub mod codec;
mod crockford128;
mod error;
mod field_name;
#[cfg(feature = "std")]
mod fork;
mod generator;
pub mod host_random;
pub mod ksuid;
pub mod layout;
pub mod lease_window;
pub mod limits;
mod local;
#[cfg(feature = "alloc")]
pub mod named;
pub mod obfuscate;
pub mod options;
pub mod policy;
pub mod preset;
#[cfg(feature = "std")]
mod random;
pub mod segment;
#[cfg(feature = "std")]
mod snowflake;
mod spec;
mod state;
mod stats;
mod time;
pub mod typeid;
pub mod ulid;
/// The clocked UUID front door under its former path: [`uuids::clocked`].
#[cfg(feature = "std")]
pub mod uuid_clock {
    pub use crate::uuids::clocked::*;
}
pub mod uuids;

pub use any_id::AnyId;
pub use atomic::AtomicSnowflake;
#[cfg(feature = "std")]
pub use clock::SystemClock;
pub use clock::{Clock, ManualClock, Retry};
pub use clocked::Clocked;
pub use error::{Error, ErrorField, ErrorFields, ErrorKind, FieldValue, Result};
pub use field_name::Name;
#[cfg(feature = "std")]
pub use fork::ForkGuard;
pub use generator::Generator;
pub use layout::{Field, FieldKind, Layout, LayoutBuilder, Parts};
pub use lease_window::LeaseWindow;
pub use local::LocalSnowflake;
#[cfg(feature = "alloc")]
pub use named::{GeneratedId, NamedConfig, NamedGenerator};
pub use options::{OptionValue, Options};
pub use policy::{Config, OnBackwards, OnExhausted, SequenceStart};
#[cfg(feature = "std")]
pub use random::{os_random_fill, os_random_u64};
#[cfg(feature = "std")]
pub use snowflake::{Snowflake, ThreadSnowflake};
pub use state::Run;
pub use stats::Stats;
pub use time::Rfc3339;
#[cfg(feature = "std")]
pub use uuids::clocked::UuidGenerator;

// Text codecs, obfuscation and UUIDs.
pub use codec::{decode_any, Codec, SliceWriter};
pub use ksuid::{Ksuid, KsuidGenerator};
pub use obfuscate::{Obfuscator, SortableObfuscator};
pub use typeid::{TypeId, TypeIdGenerator};
pub use ulid::{Ulid, UlidGenerator};
pub use uuids::{Uuid, UuidInfo, V7Generator, V7Method};
