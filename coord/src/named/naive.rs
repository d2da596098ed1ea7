//! The naive generators of the classic designs, as named types so every surface gets them from
//! one config string: `type=counter` (one store round trip per ID: Redis `INCR`, a database
//! sequence), `type=autoinc` (MySQL-style auto-increment with offset and step over `N`
//! instances) and `type=redis_compose` (Redis milliseconds + shard + a per-millisecond
//! sequence).
//!
//! They exist for compatibility with systems built that way; each costs a store round trip per
//! ID (or per batch, for `redis_compose`). For new systems a `type=segment` allocator (a range
//! per round trip) or a leased Snowflake (no round trip per ID) is faster and as safe.

use idmint::named::GeneratedId;
use idmint::{Error, Result};

use super::source::batch;
use super::source::NamedSource;
use super::spec::{written, NamedSpec};
use crate::segment::autoinc::AutoIncStore;
use crate::segment::counter::check_key;
use crate::segment::{self, SegmentStore};
use crate::url_ref::redact;

/// `type=counter`'s name.
pub(super) const COUNTER: &str = "counter";
/// `type=autoinc`'s name.
pub(super) const AUTOINC: &str = "autoinc";
/// `type=redis_compose`'s name.
pub(super) const REDIS_COMPOSE: &str = "redis_compose";

/// Separates the instance URLs of `type=autoinc`'s `stores` (a URL has no unescaped `|`).
const STORE_SEPARATOR: char = '|';

/// A key-counting store read one value at a time: the store's own counter per ID.
struct CounterSource {
    kind: &'static str,
    store: Box<dyn SegmentStore>,
    key: String,
    config: String,
}

impl NamedSource for CounterSource {
    fn kind(&self) -> &str {
        self.kind
    }

    fn config(&self) -> String {
        self.config.clone()
    }

    fn next_id(&self) -> Result<GeneratedId> {
        self.store
            .take(&self.key, 1)
            .map(|r| GeneratedId::U64(r.start))
    }

    fn fill_u64(&self, out: &mut [u64]) -> Result<()> {
        batch(out.len())?;
        for slot in out.iter_mut() {
            *slot = self.store.take(&self.key, 1)?.start;
        }
        Ok(())
    }
}

/// `type=counter,store=URL,key=KEY`: each ID is the next value of `KEY`'s counter in the segment
/// store `URL` (`redis://…` is one `INCRBY`, the SQL stores one `UPDATE … RETURNING`).
pub(super) fn counter(spec: &NamedSpec<'_>) -> Result<Box<dyn NamedSource>> {
    spec.check_keys(
        &["type", "store", "key"],
        "unknown key for type counter (type, store, key)",
    )?;
    let url = spec.require_text(
        "store",
        "type counter needs store=URL (redis://…, postgres://…, mysql://…, sqlite:PATH)",
    )?;
    let key = key(
        spec,
        "type counter needs key=NAME, the counter its IDs come from",
    )?;
    let store = segment::open_store(url)?;
    check_key(key)?;
    Ok(Box::new(CounterSource {
        kind: COUNTER,
        store,
        key: key.to_owned(),
        config: written(spec, &["store"]),
    }))
}

/// `type=autoinc,stores=(URL|URL|…),key=KEY`: instance `k` of `N` gives `k+1`, `k+1+N`, … (see
/// [`AutoIncStore`]); a failed instance is skipped for the next.
pub(super) fn autoinc(spec: &NamedSpec<'_>) -> Result<Box<dyn NamedSource>> {
    spec.check_keys(
        &["type", "stores", "key"],
        "unknown key for type autoinc (type, stores, key)",
    )?;
    let urls = spec.require_text(
        "stores",
        "type autoinc needs stores=(URL|URL|…), one segment store URL per instance, in order",
    )?;
    let key = key(
        spec,
        "type autoinc needs key=NAME, the counter its IDs come from",
    )?;
    let mut instances = Vec::new();
    for url in urls.split(STORE_SEPARATOR) {
        instances.push(segment::open_store(url.trim())?);
    }
    let store = AutoIncStore::new(instances)?;
    check_key(key)?;
    let shown: Vec<String> = urls
        .split(STORE_SEPARATOR)
        .map(|u| redact(u.trim()))
        .collect();
    Ok(Box::new(CounterSource {
        kind: AUTOINC,
        store: Box::new(store),
        key: key.to_owned(),
        config: format!("type=autoinc,stores=({}),key={key}", shown.join("|")),
    }))
}

/// The `key` of a counter-like type.
fn key<'a>(spec: &NamedSpec<'a>, missing: &'static str) -> Result<&'a str> {
    spec.require_text("key", missing)
}

/// `type=redis_compose,store=redis://…,layout=SPEC,shard=N,namespace=NS`.
#[cfg(feature = "redis")]
pub(super) fn redis_compose(spec: &NamedSpec<'_>) -> Result<Box<dyn NamedSource>> {
    use crate::redis_compose::RedisCompose;
    use idmint::Layout;
    spec.check_keys(
        &["type", "store", "layout", "shard", "namespace"],
        "unknown key for type redis_compose (type, store, layout, shard, namespace)",
    )?;
    let url = spec.require_text("store", "type redis_compose needs store=redis://…")?;
    let layout_text = spec.require_text(
        "layout",
        "type redis_compose needs layout=SPEC (a preset or time=…,shard=…,seq=…)",
    )?;
    let layout = Layout::parse(layout_text)?;
    let shard = spec.u64("shard")?.ok_or(Error::InvalidSpec {
        at: spec.input().len(),
        reason: "type redis_compose needs shard=N, this instance's value of the node field",
    })?;
    let ns = spec.require_text(
        "namespace",
        "type redis_compose needs namespace=NAME, the counters' namespace shared by its instances",
    )?;
    let gen = RedisCompose::new(url, layout, ns, shard)?;
    Ok(Box::new(ComposeSource {
        gen,
        config: written(spec, &["store"]),
    }))
}

/// Without the `redis` feature the type is known but cannot be built.
#[cfg(not(feature = "redis"))]
pub(super) fn redis_compose(_: &NamedSpec<'_>) -> Result<Box<dyn NamedSource>> {
    Err(Error::InvalidConfig {
        reason: "type redis_compose needs idmint-coord's `redis` feature, which this build lacks",
    })
}

#[cfg(feature = "redis")]
struct ComposeSource {
    gen: crate::redis_compose::RedisCompose,
    config: String,
}

#[cfg(feature = "redis")]
impl NamedSource for ComposeSource {
    fn kind(&self) -> &str {
        REDIS_COMPOSE
    }

    fn config(&self) -> String {
        self.config.clone()
    }

    fn next_id(&self) -> Result<GeneratedId> {
        self.gen.next_id().map(GeneratedId::U64)
    }

    fn fill_u64(&self, out: &mut [u64]) -> Result<()> {
        batch(out.len())?;
        let ids = self.gen.next_ids(out.len())?;
        for (slot, id) in out.iter_mut().zip(ids) {
            *slot = id;
        }
        Ok(())
    }
}
