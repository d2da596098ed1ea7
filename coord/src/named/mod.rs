//! Generators by name, with the types that need a store: one config string builds the same
//! generator on every surface (Rust, C, Python, Node), like ShardingSphere's key generators
//! chosen by type name.
//!
//! The core's named configs ([`idmint::named`]) are sans-IO; this module reads the same two
//! text forms (compact `key=value,…` and one flat JSON object), hands every config the core
//! knows to [`NamedConfig::from_entries`] — so those keep the core's errors at the same byte
//! offsets — and adds:
//!
//! | config | generator | keys besides `type` |
//! |---|---|---|
//! | `type=snowflake,layout=…,node=N` and `type=uuid4\|uuid7\|uuid6\|uuid1` | the core's ([`idmint::named`]) on the system clock and OS randomness | as the core documents them |
//! | `type=segment,store=URL,key=KEY` | IDs of `KEY` from ranges of the segment store `URL` (any URL [`segment::open_store`](crate::segment::open_store) takes), served by a [`SegmentAllocator`] | `store`, `key` (both required) and the segment options of [`SEGMENT_KEYS`]: `step`, `max_step`, `refill_at_percent`, `max_gap`, `gap_seed`, `journal`, `checkpoint_every_ms`, `wait_timeout_ms` |
//! | `type=snowflake,layout=…,lease=URL` | a [`LeasedSnowflake`] on a node leased from `URL` (any URL [`lease::open`] takes: `local`, `file:DIR`, `redis://…`, `postgres://…`) instead of `node=` | the core's Snowflake keys but `node`, `lease`, and the lease options of [`LEASE_KEYS`]: `namespace`, `ttl_ms`, `renew_every_ms`, `retry_every_ms`, `safety_margin_ms`, `reserve_ms`, `swap_after_ms`, `nodes`, `holder` |
//! | `type=counter,store=URL,key=KEY` | one value of `KEY`'s counter in the segment store `URL` per ID: Redis `INCR`, a database sequence (a round trip per ID) | `store`, `key` |
//! | `type=autoinc,stores=(URL\|URL\|…),key=KEY` | auto-increment with offset and step over `N` instances ([`AutoIncStore`](crate::segment::autoinc::AutoIncStore)): instance `k` gives `k+1`, `k+1+N`, … | `stores` (in order), `key` |
//! | `type=redis_compose,store=redis://…,layout=SPEC,shard=N,namespace=NS` | Redis milliseconds + shard + a per-millisecond sequence ([`RedisCompose`](crate::redis_compose::RedisCompose), `redis` feature) | all four |
//! | a type [`register`]ed by the program | whatever its factory builds | the factory's |
//!
//! Keys are snake_case and given at most once; a URL with commas is wrapped in parentheses
//! (`store=(…)`), like a layout spec. Integer options take a JSON integer or decimal text.
//! Errors in the text are [`Error::InvalidSpec`] with the byte offset of the problem (a missing
//! key: the end of the text); an option's value outside its range keeps the option's own
//! error, and opening the store its store errors ([`Error::StoreUnavailable`],
//! [`Error::NoFreeNode`], …).
//!
//! What is built is a [`NamedSource`]: thread-safe, minting [`GeneratedId`]s one at a time or
//! by batch. [`resolve`] instead leaves a core type as its [`NamedConfig`], for surfaces that
//! build their own native generator for those (Python's `from_config` returns its `Snowflake`).
//!
//! # Examples
//! ```
//! use idmint_coord::named;
//!
//! let dir = std::env::temp_dir().join(format!("idmint-named-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let orders = named::build(&format!(
//!     "type=segment,store=sqlite:{},key=orders,step=100",
//!     dir.join("ids.db").display()
//! ))?;
//! let a = orders.next_id()?.as_u64().unwrap();
//! let b = orders.next_id()?.as_u64().unwrap();
//! assert!(b > a);
//!
//! let leased = named::build(&format!(
//!     "type=snowflake,layout=twitter,lease=file:{},namespace=orders",
//!     dir.join("leases").display()
//! ))?;
//! let mut batch = [0u64; 1000];
//! leased.fill_u64(&mut batch)?;
//! assert!(batch.windows(2).all(|w| w[0] < w[1]));
//! leased.close()?; // releases the node, recording its last issued time
//! orders.close()?;
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), idmint::Error>(())
//! ```
//!
//! [`Error::InvalidSpec`]: idmint::Error::InvalidSpec
//! [`Error::StoreUnavailable`]: idmint::Error::StoreUnavailable
//! [`Error::NoFreeNode`]: idmint::Error::NoFreeNode
//! [`SegmentAllocator`]: crate::segment::SegmentAllocator
//! [`LeasedSnowflake`]: crate::lease::LeasedSnowflake
//! [`lease::open`]: crate::lease::open
//! [`SEGMENT_KEYS`]: crate::options::SEGMENT_KEYS
//! [`LEASE_KEYS`]: crate::options::LEASE_KEYS

mod builtin;
mod naive;
mod registry;
mod source;
mod spec;

use idmint::named::{parse_entries, NamedConfig, NamedType};
use idmint::Result;

pub use idmint::named::GeneratedId;
pub use registry::{register, registered, Factory};
pub use source::NamedSource;
pub use spec::NamedSpec;

/// Builds a store-backed type from its config.
type Builder = fn(&NamedSpec<'_>) -> Result<Box<dyn NamedSource>>;

/// What a config names: a core type, left for the surface to build natively, or a source built
/// here (see [`resolve`]).
// Made once per config and matched at once: boxing the config would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Named {
    /// A type of the sans-IO core (`type=snowflake` with `node=`, `type=uuid7`, …).
    Core(NamedConfig),
    /// A store-backed or registered type, built and ready.
    Source(Box<dyn NamedSource>),
}

/// Builds the generator `config` names (see the [module docs](self)), whatever its type.
///
/// Core types mint through one lock on the core's sans-IO generator, so
/// [`NamedSource::next_at`] replays exactly what the core does; store-backed types make their
/// store round trips here (opening the store, acquiring a lease) and in later calls.
pub fn build(config: &str) -> Result<Box<dyn NamedSource>> {
    match resolve(config)? {
        Named::Core(cfg) => Ok(Box::new(builtin::CoreSource::new(cfg)?)),
        Named::Source(s) => Ok(s),
    }
}

/// Like [`build`], but a core type comes back as its [`NamedConfig`] unbuilt, for surfaces
/// with a native generator of their own for those types.
pub fn resolve(config: &str) -> Result<Named> {
    let entries = parse_entries(config)?;
    let spec = NamedSpec::new(config, &entries);
    // A `type` that is not text is the core's error to report.
    let name = spec.type_name().unwrap_or("");
    let store_backed: Option<Builder> = match name {
        builtin::SEGMENT => Some(builtin::segment),
        naive::COUNTER => Some(naive::counter),
        naive::AUTOINC => Some(naive::autoinc),
        naive::REDIS_COMPOSE => Some(naive::redis_compose),
        _ => None,
    };
    if let Some(build) = store_backed {
        return build(&spec).map(Named::Source);
    }
    if name == NamedType::Snowflake.name() {
        if spec.get("lease").is_some() {
            return builtin::leased(&spec).map(Named::Source);
        }
        builtin::refuse_lease_keys(&spec)?;
    }
    if NamedType::from_name(name).is_none() {
        if let Some(factory) = registry::lookup(name) {
            return factory(&spec).map(Named::Source);
        }
    }
    NamedConfig::from_entries(config, &entries).map(Named::Core)
}

#[cfg(test)]
mod tests;
