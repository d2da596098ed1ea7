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

pub mod clock;
pub mod codec;
mod error;
mod field_name;
#[cfg(feature = "std")]
mod fork;
pub mod formats;
pub mod host_random;
pub mod limits;
#[cfg(feature = "alloc")]
pub mod named;
pub mod obfuscate;
#[cfg(feature = "std")]
mod random;
pub mod segment;
pub mod snowflake;
mod time;

#[cfg(feature = "std")]
pub use clock::SystemClock;
pub use clock::{Clock, ManualClock, Retry};
pub use error::{Error, ErrorField, ErrorFields, ErrorKind, FieldValue, Result};
pub use field_name::Name;
#[cfg(feature = "std")]
pub use fork::ForkGuard;
#[cfg(feature = "std")]
pub use named::clocked::UuidGenerator;
#[cfg(feature = "alloc")]
pub use named::{GeneratedId, NamedConfig, NamedGenerator};
#[cfg(feature = "std")]
pub use random::{os_random_fill, os_random_u64};
pub use snowflake::options::{OptionValue, SnowflakeOptions};
pub use snowflake::{
    AtomicSnowflake, Clocked, Config, Field, FieldKind, Generator, Layout, LayoutBuilder,
    LeaseWindow, LocalSnowflake, OnBackwards, OnExhausted, Parts, Run, SequenceStart, Stats,
};
#[cfg(feature = "std")]
pub use snowflake::{Snowflake, ThreadSnowflake};
pub use time::Rfc3339;

// Text codecs, obfuscation and the 128-bit formats.
pub use codec::{parse_id, Codec, SliceWriter};
pub use formats::any_id::AnyId;
pub use formats::ksuid::{Ksuid, KsuidGenerator};
pub use formats::typeid::{TypeId, TypeIdGenerator};
pub use formats::ulid::{Ulid, UlidGenerator};
pub use formats::uuid::{Uuid, Uuid7Generator, Uuid7Method, UuidInfo};
pub use obfuscate::{Obfuscator, SortableObfuscator};
