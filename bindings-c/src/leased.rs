//! `idmint_leased_snowflake`: a Snowflake generator whose node is leased from a store
//! (`idmint-coord`'s `LeasedSnowflake`): a directory of lock files by default, so processes on
//! one host get distinct nodes without configuration, or any lease store URL
//! (`idmint_coord::lease::open`: `redis://…`, `postgres://…`, …) for many hosts. A node's next
//! holder never mints at or before the last time its previous holder used (the time fence).
//! Its options go through `idmint_coord::options::LeasedSnowflakeOptions`, by key, like every other
//! surface's.

use std::ffi::c_char;
use std::sync::Arc;

use idmint_coord::lease::LeasedSnowflake;
use idmint_coord::lease::{self, local_dir, FileStore, LeaseStore};
use idmint_coord::options::LeasedSnowflakeOptions;
use idmint_core::OptionValue;

use crate::error::{idmint_status, Fail};
use crate::ffi::{arg, call, create, fill, free, opt_c_str, read};
use crate::snowflake::{idmint_config, set_config};

/// @brief How an #idmint_leased_snowflake holds its lease. Zero-initialise it
/// (`idmint_lease_options opts = {0};`) for the defaults, then set what you need; or pass NULL.
///
/// Strings are NUL-terminated UTF-8, read only during #idmint_leased_snowflake_new.
///
/// ABI: `url`, the last field, is newer than the other fields: a program compiled against a
/// header without it passes a shorter struct, so rebuild it against this header before linking
/// this library. Fields are only ever added at the end.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct idmint_lease_options {
    /// Separates unrelated node spaces in one directory (`[A-Za-z0-9_.-]`, 1 to 64 bytes).
    /// NULL: `"default"`.
    pub namespace_name: *const c_char,
    /// Lease lifetime without renewal, in ms; minting stops (`IDMINT_LEASE_LOST`) if the lease
    /// could not be renewed for this long. 0: 10000.
    pub ttl_ms: u64,
    /// Lease only nodes `0 .. nodes - 1`. 0: the layout's whole node space.
    pub nodes: u64,
    /// With `has_swap_after`: when the clock is found behind the last issued time by more than
    /// `swap_after_ms`, take another node instead of waiting or failing (at least 1).
    pub swap_after_ms: u64,
    /// Whether `swap_after_ms` applies (0: no, any other value: yes).
    pub has_swap_after: u8,
    /// The holder name written into the lease record, for humans. NULL: `host:pid:random`.
    pub holder: *const c_char,
    /// The lease store, as a URL: `local` (this host's lock directory), `file:DIR`,
    /// `redis://HOST:PORT/[DB]`, `rediss://…`, `postgres://…` — any URL the coordination
    /// crate's `lease::open` takes, with its parameters (`timeout_ms=N`, the deadline of every
    /// call to a network store, default 1000), or `@env:NAME` / `@PATH` holding one. NULL: the
    /// `dir` argument of #idmint_leased_snowflake_new decides (give one or the other).
    pub url: *const c_char,
}

/// @brief A Snowflake generator on a node leased from a store (opaque): a directory of lock
/// files, Redis, PostgreSQL, ...
///
/// Thread-safe like #idmint_snowflake. A background thread renews the lease; the node's
/// last issued time is recorded in the store, and the next holder of the node starts after
/// it. In a directory the lock is the kernel's (`flock`), so a crashed process's node frees
/// itself; in a network store the lease expires after its TTL. In a child
/// process after `fork()` every minting call returns `IDMINT_FORKED`: make a new generator
/// there. Freed (and its node released) by #idmint_leased_snowflake_free.
pub struct idmint_leased_snowflake(LeasedSnowflake);

/// The generator and lease options by key (a zero or NULL field keeps the default), and the
/// store URL if the options give one.
unsafe fn options<'a>(
    c: *const idmint_config,
    o: *const idmint_lease_options,
) -> Result<(LeasedSnowflakeOptions, Option<&'a str>), Fail> {
    let mut opts = LeasedSnowflakeOptions::new();
    // SAFETY: the caller's contract (here and below).
    unsafe { set_config(c, false, |k, v| opts.set(k, v)) }?;
    if o.is_null() {
        return Ok((opts, None));
    }
    // SAFETY: as above.
    let o = unsafe { arg(o, "options") }?;
    // SAFETY: as above.
    if let Some(ns) = unsafe { opt_c_str(o.namespace_name, "options->namespace_name") }? {
        opts.set("namespace", OptionValue::Text(ns))?;
    }
    for (key, value, given) in [
        ("ttl_ms", o.ttl_ms, o.ttl_ms != 0),
        ("nodes", o.nodes, o.nodes != 0),
        ("swap_after_ms", o.swap_after_ms, o.has_swap_after != 0),
    ] {
        if given {
            opts.set(key, OptionValue::Int(value))?;
        }
    }
    // SAFETY: as above.
    if let Some(h) = unsafe { opt_c_str(o.holder, "options->holder") }? {
        opts.set("holder", OptionValue::Text(h))?;
    }
    // SAFETY: as above.
    let url = unsafe { opt_c_str(o.url, "options->url") }?;
    Ok((opts, url))
}

/// The store `dir` or `url` names (at most one of them), else the local lock directory.
fn open_store(dir: Option<&str>, url: Option<&str>) -> Result<Arc<dyn LeaseStore>, Fail> {
    Ok(match (dir, url) {
        (Some(_), Some(_)) => {
            return Err(Fail::Arg(
                "give the lease directory (dir) or a store URL (options->url), not both",
            ))
        }
        (Some(""), None) => return Err(Fail::Arg("dir must not be empty")),
        (None, Some("")) => return Err(Fail::Arg("options->url must not be empty")),
        (Some(dir), None) => Arc::new(FileStore::open(dir)?),
        (None, Some(url)) => {
            crate::stores::name_the_full_library();
            Arc::from(lease::open(url)?)
        }
        (None, None) => Arc::new(FileStore::open(local_dir()?)?),
    })
}

/// @brief Leases a node from a store and builds a generator on it: by default from the lock
/// files in `dir` (created if missing), the way to give every process of a host a node of its
/// own; with `options->url`, from any lease store (Redis, PostgreSQL, ...) for many hosts.
///
/// @param dir The lease directory, shared by every process that must get distinct nodes; NULL
///        for `options->url`, or without one for the per-user local directory
///        (`$IDMINT_LEASE_DIR`, else `$XDG_STATE_HOME/idmint/leases`, else
///        `$HOME/.local/state/idmint/leases`, else `/tmp/idmint-UID/leases`), the same
///        directory the CLI and the `local` source of the other packages use.
/// @param config The generator config, as for #idmint_snowflake_new; its `has_node` and `node`
///        are ignored (the lease decides) and its `fence_ms`, if any, adds to the node's
///        recorded one.
/// @param options NULL for the defaults (and the `dir` store).
/// @param out_gen Receives the generator (free it with #idmint_leased_snowflake_free), or NULL
///        on failure.
/// @return `IDMINT_OK`; `IDMINT_NO_FREE_NODE` when every node is held by a live holder;
///         `IDMINT_STORE_UNAVAILABLE` when the directory or its files cannot be created or
///         written, or a network store does not answer within its timeout (or answers with an
///         error); `IDMINT_INVALID_CONFIG` (a URL of no known store, bad namespace, TTL too
///         short, node count larger than the layout's node space, bad policy text);
///         `IDMINT_INVALID_LAYOUT`; `IDMINT_BAD_C_ARGUMENT` (a string that is not UTF-8, an
///         empty `dir` or URL, both `dir` and `options->url`); `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_leased_snowflake_new(
    dir: *const c_char,
    config: *const idmint_config,
    options: *const idmint_lease_options,
    out_gen: *mut *mut idmint_leased_snowflake,
) -> idmint_status {
    // SAFETY: the caller's contract (here and inside).
    unsafe {
        create(out_gen, "out_gen", || {
            let dir = opt_c_str(dir, "dir")?;
            let (opts, url) = self::options(config, options)?;
            let cfg = opts.config()?;
            let store = open_store(dir, url)?;
            let gen = LeasedSnowflake::new(store, cfg, opts.lease().clone());
            Ok(idmint_leased_snowflake(gen?))
        })
    }
}

/// @brief Stops the renewal thread, records the node's exact last issued time and releases the
/// node (its lock), then frees the generator. NULL is ignored; no thread may use it afterwards.
/// In a child process after `fork()` it only frees the child's copy: the lease stays the
/// parent's.
#[no_mangle]
pub unsafe extern "C" fn idmint_leased_snowflake_free(gen: *mut idmint_leased_snowflake) {
    // SAFETY: the caller's contract.
    unsafe { free(gen) }
}

/// @brief Mints one ID, waiting where the policy asks (as #idmint_snowflake_next_id).
///
/// @param out_id Receives the ID.
/// @return `IDMINT_OK`; `IDMINT_LEASE_LOST` when the lease could not be renewed in time (the
///         generator recovers by itself once the store answers again);
///         `IDMINT_FORKED` in a child process; `IDMINT_CLOCK_BACKWARDS`;
///         `IDMINT_SEQUENCE_EXHAUSTED`; `IDMINT_LAYOUT_EXPIRED`; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_leased_snowflake_next_id(
    gen: *const idmint_leased_snowflake,
    out_id: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { call(gen, "gen", out_id, "out_id", |g| g.0.next_id()) }
}

/// @brief Fills `out_ids` with `n` fresh, strictly increasing IDs.
///
/// @param out_ids Array of `n` IDs. May be NULL only if `n` is 0.
/// @param n How many IDs: at most #IDMINT_MAX_BATCH.
/// @return As #idmint_leased_snowflake_next_id; `IDMINT_LIMIT_EXCEEDED` for more than
///         #IDMINT_MAX_BATCH IDs; on failure the array's contents are unspecified.
#[no_mangle]
pub unsafe extern "C" fn idmint_leased_snowflake_next_ids(
    gen: *const idmint_leased_snowflake,
    out_ids: *mut u64,
    n: usize,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { fill(gen, out_ids, n, |g, ids| g.0.next_ids(ids)) }
}

/// @brief The node the generator mints with now (it changes after a swap, or after a lost
/// lease is replaced).
#[no_mangle]
pub unsafe extern "C" fn idmint_leased_snowflake_node(
    gen: *const idmint_leased_snowflake,
    out_node: *mut u64,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe { read(gen, "gen", out_node, "out_node", |g| g.0.node()) }
}

/// @brief The lease the generator mints under, from #idmint_leased_snowflake_lease.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct idmint_lease_info {
    /// The leased node.
    pub node: u64,
    /// Fencing token: grows with every grant of this node.
    pub token: u64,
    /// Whether the node had a recorded last issued time when it was granted.
    pub has_fence: bool,
    /// With `has_fence`: that time (ms since the Unix epoch); no ID of this generator is at or
    /// before its tick.
    pub fence_ms: u64,
    /// The bound recorded by the last renewal: no ID's time passes it.
    pub bound_ms: u64,
    /// The lease's time to live, in ms.
    pub ttl_ms: u64,
}

/// @brief The lease the generator mints under now.
///
/// @param out_info Receives the lease.
/// @return `IDMINT_OK`; `IDMINT_NULL_POINTER`.
#[no_mangle]
pub unsafe extern "C" fn idmint_leased_snowflake_lease(
    gen: *const idmint_leased_snowflake,
    out_info: *mut idmint_lease_info,
) -> idmint_status {
    // SAFETY: the caller's contract.
    unsafe {
        call(gen, "gen", out_info, "out_info", |g| {
            // A generator built here always has a lease.
            let info =
                g.0.lease_info()
                    .ok_or(Fail::Arg("the generator holds no lease"))?;
            Ok::<_, Fail>(idmint_lease_info {
                node: info.lease.node,
                token: info.lease.token,
                has_fence: info.lease.fence_ms.is_some(),
                fence_ms: info.lease.fence_ms.unwrap_or(0),
                bound_ms: info.bound_ms,
                ttl_ms: u64::try_from(info.lease.ttl.as_millis()).unwrap_or(u64::MAX),
            })
        })
    }
}
