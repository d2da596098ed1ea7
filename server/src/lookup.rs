//! Reading IDs and layouts: `GET /v1/decode/{id}`, `GET /v1/layouts`, and Leaf's
//! `GET /api/decodeSnowflakeId`.

use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse, Response};
use idmint::codec::Codec;
use idmint::formats::uuid;
use idmint::{AnyId, Layout, Rfc3339};
use serde_json::{json, Map, Value};

use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::Shared;

/// An ID split by its layout: time, node (and its sub-fields), sequence.
fn decoded(layout: &Layout, id: u64) -> ApiResult<Value> {
    let parts = layout.decompose(id)?;
    let ts = layout.timestamp_ms(id);
    let mut fields = Map::new();
    for f in layout.node_fields() {
        fields.insert(f.name.as_str().to_owned(), f.get(id).into());
    }
    let mut v = json!({
        "id": id.to_string(),
        "layout": layout_name(layout),
        "timestamp_ms": ts,
        "time": Rfc3339(ts).to_string(),
        "node": parts.node,
        "node_fields": fields,
        "sequence": parts.sequence,
    });
    if layout.rollback_field().is_some() {
        v["rollback"] = parts.rollback.into();
    }
    Ok(v)
}

fn layout_name(l: &Layout) -> String {
    l.preset_name().map_or_else(|| l.to_string(), str::to_owned)
}

/// A 128-bit ID (UUID, TypeID, ULID) or a KSUID described with the keys `idmint decode --json`
/// prints.
fn decoded_wide(id: &AnyId) -> Value {
    if let AnyId::Ksuid(k) = id {
        return json!({
            "kind": "ksuid",
            "id": k.to_string(),
            "timestamp": k.timestamp(),
            "payload": format!("{:032x}", k.payload_u128()),
            "timestamp_ms": k.unix_ms(),
            "time": Rfc3339(k.unix_ms()).to_string(),
        });
    }
    let Some(u) = id.uuid() else {
        return Value::Null;
    };
    let info = uuid::inspect(&u);
    let text = match id {
        AnyId::TypeId(t) => t.to_string(),
        AnyId::Ulid(x) => x.to_string(),
        _ => u.to_string(),
    };
    let mut v = json!({ "kind": id.kind(), "id": text });
    if let AnyId::TypeId(t) = id {
        v["prefix"] = t.prefix().into();
    }
    v["uuid"] = u.to_string().into();
    if !matches!(id, AnyId::Ulid(_)) {
        v["version"] = info.version.into();
        v["variant"] = info.variant.into();
    }
    let ms = id.unix_ms();
    v["timestamp_ms"] = ms.into();
    v["time"] = ms.map(|ms| Rfc3339(ms).to_string()).into();
    v
}

/// `GET /v1/decode/{id}?layout=…&codec=…`: whatever `idmint decode` reads — a 64-bit ID in any
/// idmint text form (decimal, `0x` hex, base32, base62; or in the codec named by `codec`), split
/// by `layout` (the service's when none is given), or a UUID, TypeID or ULID, told apart by the
/// core's [`AnyId::parse`].
pub async fn decode(
    State(svc): State<Shared>,
    id: Result<Path<String>, axum::extract::rejection::PathRejection>,
    RawQuery(q): RawQuery,
) -> ApiResult<Response> {
    let Ok(Path(id)) = id else {
        return Err(ApiError::bad_arg(
            "the ID is not valid UTF-8 percent-encoding",
        ));
    };
    let p = Params::parse(q.as_deref())?;
    let layout = match p.get("layout") {
        Some(l) => Layout::parse(l)?,
        None => svc.settings.layout,
    };
    let codec = p.get("codec").map(Codec::parse).transpose()?;
    match AnyId::parse(&id, codec)? {
        AnyId::Snowflake(id) => Ok(axum::Json(decoded(&layout, id)?).into_response()),
        wide => Ok(axum::Json(decoded_wide(&wide)).into_response()),
    }
}

/// `GET /v1/layouts`: every preset, and the service's own layout.
pub async fn layouts(State(svc): State<Shared>) -> Response {
    let describe = |l: &Layout| {
        json!({
            "name": layout_name(l),
            "spec": l.to_string(),
            "width": l.width(),
            "epoch_ms": l.epoch_ms(),
            "tick_ms": l.tick_ms(),
            "node_bits": l.node_bits(),
            "max_node": l.max_node(),
            "max_sequence": l.max_sequence(),
            "lifetime_end": Rfc3339(l.lifetime_end_ms()).to_string(),
            "capacity_per_second": l.capacity_per_second(),
            "js_safe": l.is_js_safe(),
        })
    };
    let presets: Vec<Value> = idmint::snowflake::preset::NAMES
        .iter()
        .filter_map(|n| Layout::preset(n).ok())
        .map(|l| describe(&l))
        .collect();
    axum::Json(json!({ "service": describe(&svc.settings.layout), "presets": presets }))
        .into_response()
}

/// Leaf: `GET /api/decodeSnowflakeId?snowflakeId=N` → `{"timestamp": "MS(TIME)", "workerId",
/// "sequenceId"}` as strings, read with the service's layout.
pub async fn leaf_decode(State(svc): State<Shared>, RawQuery(q): RawQuery) -> ApiResult<Response> {
    let p = Params::parse(q.as_deref())?;
    let text = p
        .get("snowflakeId")
        .ok_or_else(|| ApiError::bad_arg("`snowflakeId` is required"))?;
    let id: u64 = text
        .trim()
        .parse()
        .map_err(|_| ApiError::bad_arg("`snowflakeId` must be a decimal ID"))?;
    let layout = svc.settings.layout;
    let parts = layout.decompose(id)?;
    let ts = layout.timestamp_ms(id);
    Ok(axum::Json(json!({
        "timestamp": format!("{ts}({})", Rfc3339(ts)),
        "workerId": parts.node.to_string(),
        "sequenceId": parts.sequence.to_string(),
    }))
    .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_is_the_layouts_inverse() {
        let l = Layout::preset("twitter").unwrap();
        let id = l
            .compose(&idmint::Parts {
                time: 1000,
                node: 0b00011_00101,
                sequence: 7,
                rollback: 0,
            })
            .unwrap();
        let v = decoded(&l, id).unwrap();
        assert_eq!(v["sequence"], 7);
        assert_eq!(v["node"], 0b00011_00101);
        assert_eq!(v["node_fields"]["datacenter"], 3);
        assert_eq!(v["node_fields"]["worker"], 5);
        assert_eq!(v["timestamp_ms"], l.epoch_ms() + 1000);
        assert_eq!(decoded(&l, u64::MAX).unwrap_err().code, "ERR_OUT_OF_RANGE");
    }
}
