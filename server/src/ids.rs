//! The endpoints that hand out IDs: Snowflake IDs, segment IDs, whole ranges, and Leaf's
//! plain-text paths. IDs are always strings in JSON (JavaScript keeps every digit).

use axum::extract::{Path, RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use idmint::codec::{self, Codec};
use idmint::Error;

use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::segment_keys::{check_key_name, KEY_RULE};
use crate::{batch, blocking, Shared};

/// Default size of a `ranges` request.
pub const DEFAULT_RANGE: u64 = 1000;

/// `{"ids":[…]}` or `{"key":…,"ids":[…]}`, written straight into one buffer (a 100,000-ID
/// answer should not build 100,000 JSON values first).
fn ids_json(key: Option<&str>, ids: &[u64], codec: Codec) -> Response {
    let mut out = Vec::with_capacity(
        16 + key.map_or(0, |k| k.len() + 10) + ids.len() * (codec.max_len() + 3),
    );
    out.push(b'{');
    if let Some(k) = key {
        out.extend_from_slice(b"\"key\":");
        out.extend_from_slice(serde_json::to_string(k).unwrap_or_default().as_bytes());
        out.push(b',');
    }
    out.extend_from_slice(b"\"ids\":[");
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'"');
        match codec {
            Codec::Decimal => push_decimal(&mut out, *id),
            _ => out.extend_from_slice(codec.format(*id).as_bytes()),
        }
        out.push(b'"');
    }
    out.extend_from_slice(b"]}");
    ([(header::CONTENT_TYPE, "application/json")], out).into_response()
}

/// Appends `v` in decimal (the core's [`codec::decimal_into`]): the fixed 20-byte block is
/// appended whole and then cut to length, since a fixed-size copy compiles to a few moves and
/// a variable one to a `memcpy` call.
fn push_decimal(out: &mut Vec<u8>, v: u64) {
    let mut buf = [0u8; codec::DECIMAL_MAX_LEN];
    let end = out.len() + codec::decimal_into(v, &mut buf);
    out.extend_from_slice(&buf);
    out.truncate(end);
}

fn text(id: u64) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        id.to_string(),
    )
        .into_response()
}

/// `n` Snowflake IDs: one without leaving the async worker when no wait is needed, batches
/// (which wait for the sequence of later ticks) on the blocking pool.
async fn snowflake_ids(svc: &Shared, n: u64) -> ApiResult<Vec<u64>> {
    if n == 1 {
        match svc.snowflake.try_next_id() {
            Err(Error::WouldBlock { .. }) => {}
            r => {
                let id = r.map_err(ApiError::own)?;
                svc.metrics.issued("snowflake", "", 1);
                return Ok(vec![id]);
            }
        }
    }
    let ids = batch(svc, move |s, stop| {
        let mut v = vec![0u64; n as usize];
        s.snowflakes(&mut v, stop).map(|()| v)
    })
    .await?;
    svc.metrics.issued("snowflake", "", n);
    Ok(ids)
}

/// `n` IDs of `key`: inline when the key's buffers hold them, else on the blocking pool (the
/// caller may wait for a fetch).
async fn segment_ids(svc: &Shared, key: String, n: u64) -> ApiResult<Vec<u64>> {
    svc.admit_key(&key)?;
    let buffered = svc.segments.stats(&key).map_or(0, |s| s.buffered);
    let ids = if n == 1 && buffered > 1 {
        vec![svc.segments.next_id(&key)?]
    } else {
        let k = key.clone();
        batch(svc, move |s, stop| {
            let mut v = vec![0u64; n as usize];
            stop.fill_in_chunks(&mut v, |c| s.segments.next_ids(&k, c))
                .map(|()| v)
        })
        .await?
    };
    svc.metrics.issued("segment", &key, n);
    Ok(ids)
}

/// The key of a path, its name checked ([`check_key_name`]).
fn path_key(p: Result<Path<String>, axum::extract::rejection::PathRejection>) -> ApiResult<String> {
    match p {
        Ok(Path(k)) => check_key_name(&k).map(|()| k),
        Err(_) => Err(ApiError::bad_arg(format!(
            "the key is not valid UTF-8 percent-encoding: a key is {KEY_RULE}"
        ))),
    }
}

/// `GET /v1/snowflake?count=N&format=dec|hex|base32|base62`
pub async fn snowflake(State(svc): State<Shared>, RawQuery(q): RawQuery) -> ApiResult<Response> {
    let p = Params::parse(q.as_deref())?;
    let n = p.count(1, svc.settings.max_count)?;
    let codec = p.codec()?;
    let ids = snowflake_ids(&svc, n).await?;
    Ok(ids_json(None, &ids, codec))
}

/// `GET /v1/segments/{key}?count=N&format=…`
pub async fn segment(
    State(svc): State<Shared>,
    key: Result<Path<String>, axum::extract::rejection::PathRejection>,
    RawQuery(q): RawQuery,
) -> ApiResult<Response> {
    let key = path_key(key)?;
    let p = Params::parse(q.as_deref())?;
    let n = p.count(1, svc.settings.max_count)?;
    let codec = p.codec()?;
    let ids = segment_ids(&svc, key.clone(), n).await?;
    Ok(ids_json(Some(&key), &ids, codec))
}

/// `POST /v1/segments/{key}/ranges?count=N`: a whole range, straight from the store, for a
/// client that buffers locally (seqsvr's split; coord's `idmint+http://` store).
pub async fn range(
    State(svc): State<Shared>,
    key: Result<Path<String>, axum::extract::rejection::PathRejection>,
    RawQuery(q): RawQuery,
) -> ApiResult<Response> {
    let key = path_key(key)?;
    let n = Params::parse(q.as_deref())?.count(DEFAULT_RANGE, svc.settings.max_range)?;
    // After the count is checked: a refused request creates no key.
    svc.admit_key(&key)?;
    let k = key.clone();
    let r = blocking(&svc, move |s| s.store.take_range(&k, n)).await?;
    svc.metrics.issued("range", &key, r.len());
    let body = serde_json::json!({
        "key": key,
        "start": r.start.to_string(),
        "end": r.end.to_string(),
    });
    Ok(axum::Json(body).into_response())
}

/// `GET /v1/store`: the segment store's kind and identity (what a client's journal records).
pub async fn store(State(svc): State<Shared>) -> ApiResult<Response> {
    let identity = blocking(&svc, |s| s.store.identity()).await?;
    use idmint_coord::segment::SegmentStore;
    Ok(axum::Json(serde_json::json!({
        "kind": svc.store.kind(),
        "identity": identity.to_string(),
        "ascending": svc.store.ascending(),
    }))
    .into_response())
}

/// Leaf: `GET /api/segment/get/{key}`, the ID as plain text.
pub async fn leaf_segment(
    State(svc): State<Shared>,
    key: Result<Path<String>, axum::extract::rejection::PathRejection>,
) -> ApiResult<Response> {
    let key = path_key(key)?;
    Ok(text(segment_ids(&svc, key, 1).await?[0]))
}

/// Leaf: `GET /api/snowflake/get/{key}`, the ID as plain text (the key is ignored, as Leaf
/// does).
pub async fn leaf_snowflake(State(svc): State<Shared>) -> ApiResult<Response> {
    Ok(text(snowflake_ids(&svc, 1).await?[0]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_is_rusts_decimal() {
        let mut cases = vec![0, 1, 9, 10, 99, 100, 101, 999, 1000, u64::MAX, u64::MAX - 1];
        cases.extend((0..20).map(|p| 10u64.pow(p)));
        cases.extend((1..20).map(|p| 10u64.pow(p) - 1));
        cases.extend((0..64).map(|b| 1u64 << b));
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            cases.push(x >> (x % 64));
        }
        for v in cases {
            let mut out = Vec::new();
            push_decimal(&mut out, v);
            out.push(b',');
            push_decimal(&mut out, v);
            assert_eq!(out, format!("{v},{v}").as_bytes(), "{v}");
        }
    }
}
