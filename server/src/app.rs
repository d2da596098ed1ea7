//! The router: every route, and the layers every request passes (CORS, bearer tokens,
//! metrics, request deadline, body limit, and a last-resort panic catcher).

use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::{DefaultOnFailure, TraceLayer};

use crate::config::AuthScope;
use crate::error::ApiError;
use crate::metrics::RouteLabels;
use crate::{ids, leases, lookup, probes, Shared};

/// The whole HTTP API on `svc`.
pub fn router(svc: Shared) -> Router {
    let s = &svc.settings;
    let cors = CorsLayer::new()
        .allow_methods([Method::GET, Method::POST])
        .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE])
        .expose_headers([header::RETRY_AFTER])
        // A page renews every third of its TTL: without a cached preflight each renewal
        // would cost two round trips.
        .max_age(std::time::Duration::from_secs(600))
        .allow_origin(if s.cors_origins.iter().any(|o| o == "*") {
            AllowOrigin::any()
        } else {
            AllowOrigin::list(
                s.cors_origins
                    .iter()
                    .filter_map(|o| HeaderValue::from_str(o).ok()),
            )
        });
    Router::new()
        .route("/v1/snowflake", get(ids::snowflake))
        .route("/v1/segments/{key}", get(ids::segment))
        .route("/v1/segments/{key}/ranges", post(ids::range))
        .route("/v1/store", get(ids::store))
        .route("/v1/leases", post(leases::grant))
        .route("/v1/leases/renew", post(leases::renew))
        .route("/v1/leases/release", post(leases::release))
        .route("/v1/decode/{id}", get(lookup::decode))
        .route("/v1/layouts", get(lookup::layouts))
        .route("/v1/monitor", get(probes::monitor_json))
        .route("/api/segment/get/{key}", get(ids::leaf_segment))
        .route("/api/snowflake/get/{key}", get(ids::leaf_snowflake))
        .route("/api/decodeSnowflakeId", get(lookup::leaf_decode))
        .route("/cache", get(probes::monitor_page))
        .route("/metrics", get(probes::metrics))
        .route("/healthz", get(probes::healthz))
        .route("/readyz", get(probes::readyz))
        .fallback(|| async { ApiError::not_found("no such endpoint") })
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "ERR_METHOD_NOT_ALLOWED",
                "this endpoint does not take that method",
            )
        })
        .layer(middleware::from_fn_with_state(svc.clone(), authorize))
        .layer(middleware::from_fn_with_state(svc.clone(), measure))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            s.request_timeout,
        ))
        .layer(RequestBodyLimitLayer::new(s.max_body_bytes))
        .layer(cors)
        // A 503 is the service telling a client to retry, not a fault of the service: warn.
        .layer(
            TraceLayer::new_for_http()
                .on_failure(DefaultOnFailure::new().level(tracing::Level::WARN)),
        )
        .layer(CatchPanicLayer::custom(|_| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "ERR_PANIC",
                "internal error (a bug in idmint-server)",
            )
            .into_response()
        }))
        .with_state(svc)
}

/// Records each request's latency under its route pattern (not its path: keys and IDs would
/// make unbounded label sets).
async fn measure(State(svc): State<Shared>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |m| m.as_str())
        .to_owned();
    let t = Instant::now();
    let res = next.run(req).await;
    let status = match res.status().as_u16() {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    };
    svc.metrics
        .requests
        .get_or_create(&RouteLabels { route, status })
        .observe(t.elapsed().as_secs_f64());
    res
}

/// Whether a path is one of the probes, which stay open so orchestrators need no token.
fn is_probe(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz")
}

/// Compares without stopping at the first differing byte.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn authorize(State(svc): State<Shared>, req: Request, next: Next) -> Response {
    let s = &svc.settings;
    let guarded = !s.tokens.is_empty()
        && !is_probe(req.uri().path())
        && (s.auth == AuthScope::All || req.method() == Method::POST);
    if guarded {
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim);
        let ok = given.is_some_and(|g| s.tokens.iter().any(|t| same(t.as_bytes(), g.as_bytes())));
        if !ok {
            return ApiError::unauthorized().into_response();
        }
    }
    next.run(req).await
}
