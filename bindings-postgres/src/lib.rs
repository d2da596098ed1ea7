//! The idmint PostgreSQL extension: the core's Snowflake IDs, UUIDv7, TypeIDs and ULIDs minted
//! inside PostgreSQL (`CREATE EXTENSION idmint;`, functions in schema `idmint`).
//!
//! Backends are forked processes, so the Snowflake generator lives in shared memory: the core's
//! lock-free [`idmint::AtomicSnowflake`] (its whole state is one packed `u64`) placed in a
//! segment every backend maps, so concurrent sessions never repeat an ID. The node comes from
//! `idmint.node`, or from a lease (`idmint.lease`) that a background worker takes and renews in
//! the same lease table as idmint-coord's PostgreSQL store. A restart with the clock set back is
//! fenced by the lease record or by the bound this extension writes ahead into its state file.
//! Minting needs `shared_preload_libraries = 'idmint'`; the codecs and UUID/TypeID/ULID
//! functions work without it.

use pgrx::prelude::*;

mod clock;
mod error;
mod functions;
mod lease_worker;
mod message;
mod mint;
mod settings;
mod shared;
mod state_file;

pgrx::pg_module_magic!();

/// Registers the settings, and when loaded by `shared_preload_libraries`, the shared memory
/// and (with `idmint.lease`) the lease worker.
#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    // SAFETY: a flag PostgreSQL sets while it loads the preloaded libraries (main thread).
    if unsafe { pg_sys::process_shared_preload_libraries_in_progress } {
        // Postmaster-context settings can only be created while preloading (PostgreSQL
        // refuses them later with FATAL); loaded later, the library mints nothing anyway.
        settings::define();
        shared::install_hooks();
        if settings::lease_configured() {
            lease_worker::register();
        }
    }
}

/// pgrx's in-database test hook (the extension's tests start their own cluster instead).
#[cfg(test)]
pub mod pg_test {
    /// No per-test setup.
    pub fn setup(_options: Vec<&str>) {}

    /// The preload the generator needs.
    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec!["shared_preload_libraries = 'idmint'", "idmint.node = '1'"]
    }
}
