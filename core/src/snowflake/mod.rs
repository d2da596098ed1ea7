//! The Snowflake family: 64-bit IDs of time, node and sequence fields.
//!
//! [`layout`] says which fields an ID has and how wide each is ([`preset`]s name the
//! well-known ones); [`policy`] what a generator does when the clock steps back or a tick's
//! sequence runs out, and [`options`] builds that [`Config`] from keys. One state machine runs
//! every generator: [`LocalSnowflake`] (`&mut self`) and [`AtomicSnowflake`] (lock-free) are
//! sans-IO, [`Clocked`] drives either from a [`Clock`](crate::Clock), and with `std` the
//! [`Snowflake`] / [`ThreadSnowflake`] front doors bring the system clock, OS randomness and
//! fork detection. [`lease_window`] is what a leased node lets its holder mint.

mod atomic;
mod clocked;
mod generator;
pub mod layout;
pub mod lease_window;
mod local;
pub mod options;
pub mod policy;
pub mod preset;
mod spec;
pub(crate) mod state;
mod stats;
#[cfg(feature = "std")]
mod system;

pub use atomic::AtomicSnowflake;
pub use clocked::Clocked;
pub use generator::Generator;
pub use layout::{Field, FieldKind, Layout, LayoutBuilder, Parts};
pub use lease_window::LeaseWindow;
pub use local::LocalSnowflake;
pub use policy::{Config, OnBackwards, OnExhausted, SequenceStart};
pub use state::Run;
pub use stats::Stats;
#[cfg(feature = "std")]
pub use system::{Snowflake, ThreadSnowflake};
