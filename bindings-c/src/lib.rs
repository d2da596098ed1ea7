//! # idmint C API
//!
//! `libidmint` (static and shared) and its header `include/idmint.h`, generated from this crate
//! by cbindgen (`bash bindings-c/gen-header.sh`). The binding only converts: C arguments are
//! checked (NULL, alignment, UTF-8, lengths) in [`ffi`], core errors become an
//! [`idmint_status`](error::idmint_status) with the same numbers as `idmint::ErrorKind`, and
//! every entry point runs inside [`guard`](error::guard), which catches panics so none unwinds
//! into C. All ID logic lives in the `idmint` core, and leases, segments and the named
//! generators' store-backed types in `idmint-coord`.
//!
//! Conventions of every function:
//! - Fallible functions return `idmint_status`; results go through out-pointers.
//! - Handles are opaque, made by `idmint_X_new` (or another constructor) and freed by
//!   `idmint_X_free`, which ignores NULL.
//! - Text goes into caller buffers with explicit lengths and is always NUL-terminated;
//!   `IDMINT_BUFFER_TOO_SMALL` says so when it does not fit.
//! - The last failure's full message is kept per thread: `idmint_last_error_message()`.
//! - Every pointer is NULL or valid for its stated use (arrays for their stated length) for
//!   the whole call: the one contract no function can check, stated once in the header.
//!
//! Each entry point names its core call and hands it to a generic body in [`ffi`] (`call`,
//! `read`, `create`, `fill`, ...), which checks the pointers, converts and runs it in the guard.
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]
// The exported names are C names (`idmint_layout`, `IDMINT_OK`).
#![allow(non_camel_case_types)]
// The safety contract of every `extern "C"` function is the one above (and in the header's
// conventions), not repeated on each.
#![allow(clippy::missing_safety_doc)]

// Every entry point catches panics so none unwinds into C; with `panic = "abort"` there would be
// nothing to catch and a bug would abort the host process instead of returning IDMINT_PANIC.
#[cfg(panic = "abort")]
compile_error!("idmint-c must be built with panic = \"unwind\" (its guards catch panics)");

// Declared in the order the header lists them (cbindgen follows the source order).
mod error;

mod layout;

mod snowflake;

mod codec;

mod uuid;

mod typeid;

mod ulid;

mod ksuid;

mod any_id;

mod named;

mod obfuscate;

mod leased;

mod segment;

mod ffi;

mod stores;

pub use any_id::*;
pub use codec::*;
pub use error::*;
pub use ksuid::*;
pub use layout::*;
pub use leased::*;
pub use named::*;
pub use obfuscate::*;
pub use segment::*;
pub use snowflake::*;
pub use typeid::*;
pub use ulid::*;
pub use uuid::*;
