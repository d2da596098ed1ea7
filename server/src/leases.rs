//! `POST /v1/leases`, `/v1/leases/renew`, `/v1/leases/release`: node leases for browsers and
//! edge workers (see [`crate::client_lease`] for the window a client may mint in).

use std::net::{IpAddr, Ipv4Addr};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Extension;
use serde::Deserialize;

use crate::auth::Caller;
use crate::client_lease::{ClientLeases, Window};
use crate::error::{ApiError, ApiResult};
use crate::lease_token::Grantee;
use crate::params::json_body;
use crate::service::Service;
use crate::{blocking, Shared};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct GrantBody {
    namespace: Option<String>,
    layout: Option<String>,
    ttl_ms: Option<u64>,
    client_time_ms: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RenewBody {
    lease: String,
    issued_up_to_ms: Option<u64>,
    client_time_ms: Option<u64>,
}

fn desk(svc: &Service) -> ApiResult<&ClientLeases> {
    svc.clients.as_ref().ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_IMPLEMENTED,
            "ERR_INVALID_CONFIG",
            "this service takes its node from a fixed source, not a lease store: it grants no leases",
        )
    })
}

fn window_json(w: &Window) -> serde_json::Value {
    serde_json::json!({
        "bound_ms": w.bound_ms,
        "ttl_ms": w.ttl_ms,
        "renew_after_ms": w.renew_after_ms,
        "server_time_ms": w.server_time_ms,
    })
}

/// Who takes a lease: the caller the edge established (an in-process request that passed no
/// edge counts as loopback and anonymous).
fn grantee(caller: Option<Extension<Caller>>) -> Grantee {
    match caller {
        Some(Extension(c)) => Grantee {
            peer: c.peer,
            token: c.token,
        },
        None => Grantee {
            peer: IpAddr::V4(Ipv4Addr::LOCALHOST),
            token: None,
        },
    }
}

/// `POST /v1/leases` `{"namespace","layout","ttl_ms","client_time_ms"}` (all optional).
pub async fn grant(
    State(svc): State<Shared>,
    caller: Option<Extension<Caller>>,
    body: Bytes,
) -> ApiResult<Response> {
    let b: GrantBody = json_body(&body)?;
    let layout = desk(&svc)?.layout(b.layout.as_deref())?;
    let who = grantee(caller);
    let g = blocking(&svc, move |s| {
        desk(s)?.grant(
            &s.metrics,
            &who,
            b.namespace.as_deref(),
            &layout,
            b.ttl_ms,
            b.client_time_ms,
        )
    })
    .await?;
    let mut v = window_json(&g.window);
    v["lease"] = g.token.into();
    v["namespace"] = g.lease.namespace.into();
    v["node"] = g.lease.node.into();
    v["layout"] = g.layout.into();
    v["fence_ms"] = g.lease.fence_ms.into();
    Ok((StatusCode::CREATED, axum::Json(v)).into_response())
}

/// `POST /v1/leases/renew` `{"lease","issued_up_to_ms","client_time_ms"}`.
pub async fn renew(State(svc): State<Shared>, body: Bytes) -> ApiResult<Response> {
    desk(&svc)?;
    let b: RenewBody = json_body(&body)?;
    if b.lease.is_empty() {
        return Err(ApiError::bad_arg("`lease` is required"));
    }
    let w = blocking(&svc, move |s| {
        desk(s)?.renew(&s.metrics, &b.lease, b.issued_up_to_ms, b.client_time_ms)
    })
    .await?;
    Ok(axum::Json(window_json(&w)).into_response())
}

/// `POST /v1/leases/release` `{"lease","issued_up_to_ms"}`: both required, since the bound
/// recorded at release is what fences the node's next holder.
pub async fn release(State(svc): State<Shared>, body: Bytes) -> ApiResult<Response> {
    desk(&svc)?;
    let b: RenewBody = json_body(&body)?;
    let Some(issued) = b.issued_up_to_ms else {
        return Err(ApiError::bad_arg(
            "`issued_up_to_ms` is required: the highest time put in an ID under the lease",
        ));
    };
    blocking(&svc, move |s| {
        desk(s)?.release(&s.metrics, &b.lease, issued)
    })
    .await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
