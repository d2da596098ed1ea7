//! # idmint C API
//!
//! `libidmint` (static and shared) and its header `include/idmint.h`, generated from this crate
//! by cbindgen (`bash bindings-c/gen-header.sh`). The binding only converts: C arguments are
//! checked (NULL, alignment, UTF-8, lengths) in [`ffi`], core errors become an
//! [`idmint_status`](status::idmint_status) with the same numbers as `idmint::ErrorKind`, and
//! every entry point runs inside [`guard`](status::guard), which catches panics so none unwinds
//! into C. All ID logic lives in the `idmint` core (and the file lease in `idmint-coord`).
//!
//! Conventions of every function:
//! - Fallible functions return `idmint_status`; results go through out-pointers.
//! - Handles are opaque, made by `idmint_X_new` (or another constructor) and freed by
//!   `idmint_X_free`, which ignores NULL.
//! - Text goes into caller buffers with explicit lengths and is always NUL-terminated;
//!   `IDMINT_BUFFER_TOO_SMALL` says so when it does not fit.
//! - The last failure's full message is kept per thread: `idmint_last_error_message()`.
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]
// The exported names are C names (`idmint_layout`, `IDMINT_OK`).
#![allow(non_camel_case_types)]

// Every entry point catches panics so none unwinds into C; with `panic = "abort"` there would be
// nothing to catch and a bug would abort the host process instead of returning IDMINT_PANIC.
#[cfg(panic = "abort")]
compile_error!("idmint-c must be built with panic = \"unwind\" (its guards catch panics)");

// Declared in the order the header lists them (cbindgen follows the source order).
mod status;

mod layout;

mod generator;

mod codec;

mod uuid;

mod named;

mod obfuscate;

mod leased;

mod ffi;

pub use codec::*;
pub use generator::*;
pub use layout::*;
pub use leased::*;
pub use named::*;
pub use obfuscate::*;
pub use status::*;
pub use uuid::*;
