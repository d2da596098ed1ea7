//! The SQL functions, in the extension's schema `idmint`. Names and meanings are the core's,
//! as on every other surface (`encode`/`parse_id` as in Python).
//!
//! IDs are `bigint`: a 64-bit layout's IDs at or above 2^63 come back negative (the same bits;
//! `encode` and `decode` read them as unsigned again).

use idmint::codec::Codec;
use idmint::Layout;
use pgrx::prelude::*;
use pgrx::{JsonB, Uuid};
use serde_json::{json, Map, Value};

use crate::error::{check, raise, Refusal};
use crate::{mint, settings, shared};

/// Microseconds from the Unix epoch to PostgreSQL's (2000-01-01).
const PG_EPOCH_OFFSET_MS: i64 = 946_684_800_000;

fn layout_of(spec: Option<&str>) -> Layout {
    match spec {
        Some(s) => check(Layout::parse(s)),
        None => match settings::layout() {
            Ok(l) => l,
            Err(m) => raise(Refusal::Config(m)),
        },
    }
}

/// The next ID of the configured layout and node (`idmint.layout`, `idmint.node` or
/// `idmint.lease`). Never the same twice in this server, across every session.
#[pg_extern(volatile, parallel_safe)]
fn next_id() -> i64 {
    let mut one = [0u64; 1];
    check(mint::fill(&mut one));
    one[0] as i64
}

/// `n` IDs at once (0 to 1,000,000), in increasing order.
#[pg_extern(volatile, parallel_safe)]
fn next_ids(n: i32) -> SetOfIterator<'static, i64> {
    if !(0..=1_000_000).contains(&n) {
        raise(Refusal::Core(idmint::Error::InvalidArgument {
            argument: idmint::Name::lossy("n"),
            reason: "n must be 0 to 1000000",
        }));
    }
    let mut ids = vec![0u64; n as usize];
    check(mint::fill(&mut ids));
    SetOfIterator::new(ids.into_iter().map(|id| id as i64))
}

/// A version 7 UUID (RFC 9562, time-ordered, a counter within the millisecond).
#[pg_extern(volatile, parallel_safe)]
fn uuid7() -> Uuid {
    Uuid::from_bytes(*check(idmint::named::clocked::uuid7()).as_bytes())
}

/// A TypeID (`prefix_` and 26 base32 characters of a version 7 UUID).
#[pg_extern(volatile, parallel_safe)]
fn typeid(prefix: &str) -> String {
    check(idmint::named::clocked::typeid(prefix)).to_string()
}

/// A ULID (26 Crockford base32 characters, monotonic within the millisecond in this backend).
#[pg_extern(volatile, parallel_safe)]
fn ulid() -> String {
    check(idmint::named::clocked::ulid()).to_string()
}

/// A KSUID (27 base62 characters: seconds since 2014-05-13T16:53:20Z and a random payload; the
/// last plus one within the second in this backend).
#[pg_extern(volatile, parallel_safe)]
fn ksuid() -> String {
    check(idmint::named::clocked::ksuid()).to_string()
}

/// An ID's parts in `layout` (default `idmint.layout`): its time (the start of its tick), the
/// whole node value, the node's sub-fields by name, and the sequence. `stable`, not
/// `immutable`: without `layout` it reads `idmint.layout`.
#[pg_extern(stable, parallel_safe)]
#[allow(clippy::type_complexity)]
fn decode(
    id: i64,
    layout: default!(Option<&str>, "NULL"),
) -> TableIterator<
    'static,
    (
        name!(time, TimestampWithTimeZone),
        name!(node, i64),
        name!(fields, JsonB),
        name!(sequence, i64),
    ),
> {
    let l = layout_of(layout);
    let id = id as u64;
    let parts = check(l.decompose(id));
    let ms = l.timestamp_ms(id);
    let pg_us = (ms as i64 - PG_EPOCH_OFFSET_MS).saturating_mul(1000);
    let time = match TimestampWithTimeZone::try_from(pg_us) {
        Ok(t) => t,
        Err(_) => raise(Refusal::Core(idmint::Error::InvalidArgument {
            argument: idmint::Name::lossy("id"),
            reason: "the ID's time is outside PostgreSQL's timestamp range",
        })),
    };
    let mut fields = Map::new();
    for (name, value) in l.split_node(parts.node) {
        fields.insert(name.to_string(), json!(value));
    }
    if l.rollback_field().is_some() {
        fields.insert("rollback".to_string(), json!(parts.rollback));
    }
    TableIterator::once((
        time,
        parts.node as i64,
        JsonB(Value::Object(fields)),
        parts.sequence as i64,
    ))
}

/// A layout's description (default `idmint.layout`): the canonical spec, preset, width,
/// epoch, tick, lifetime, capacity, maxima and fields (most significant first).
#[pg_extern(stable, parallel_safe)]
fn layout_info(layout: default!(Option<&str>, "NULL")) -> JsonB {
    let l = layout_of(layout);
    let fields: Vec<Value> = l
        .fields()
        .iter()
        .map(|f| json!({"name": f.name.to_string(), "kind": f.kind.name(), "bits": f.bits, "shift": f.shift}))
        .collect();
    JsonB(json!({
        "canonical": l.to_string(),
        "preset": l.preset_name(),
        "width": l.width(),
        "epoch_ms": l.epoch_ms(),
        "tick_ms": l.tick_ms(),
        "lifetime_end_ms": l.lifetime_end_ms(),
        "capacity_per_second": l.capacity_per_second(),
        "is_js_safe": l.is_js_safe(),
        "max_id": l.max_id(),
        "max_node": l.max_node(),
        "max_sequence": l.max_sequence(),
        "max_time": l.max_time(),
        "fields": fields,
    }))
}

/// An ID as text: `decimal` (default), `hex`, `base32` (13 Crockford characters, sortable) or
/// `base62` (11 characters, sortable). The bigint's 64 bits are read as unsigned.
#[pg_extern(immutable, parallel_safe, strict)]
fn encode(id: i64, codec: default!(&str, "'decimal'")) -> String {
    check(Codec::parse(codec)).encode(id as u64)
}

/// Text back to an ID: with `codec` NULL (or `auto`) the codec is guessed from the shape
/// (digits: decimal, `0x`: hex, 13 characters: base32, 11: base62).
#[pg_extern(immutable, parallel_safe)]
fn parse_id(text: &str, codec: default!(Option<&str>, "NULL")) -> i64 {
    let codec = codec.and_then(|c| check(Codec::parse_or_auto(c)));
    let id = match codec {
        None => check(idmint::codec::parse_id(text)),
        Some(c) => check(c.decode(text)),
    };
    id as i64
}

/// What the server's generator is doing: its mode (`static`, `lease`, `unset`, `invalid`),
/// node, the recorded bound, and the lease worker's last message.
#[pg_extern(volatile, parallel_safe)]
fn status() -> JsonB {
    use std::sync::atomic::Ordering::Acquire;
    let Some(sh) = shared::get() else {
        return JsonB(json!({"mode": "not_preloaded"}));
    };
    let mode = match sh.mode() {
        shared::Mode::Unset => "unset",
        shared::Mode::Static => "static",
        shared::Mode::Lease => "lease",
        shared::Mode::Invalid => "invalid",
    };
    let node = sh.current().map(|(slot, _)| slot.generator().node());
    let token = sh.lease_token.load(Acquire);
    JsonB(json!({
        "mode": mode,
        "node": node,
        "lease_token": if mode == "lease" && node.is_some() { Some(token) } else { None },
        "bound_ms": sh.bound_ms.load(Acquire),
        "message": sh.message.get(),
    }))
}
