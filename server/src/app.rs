//! The router: every route, and the layers every request passes (CORS, bearer tokens,
//! metrics, request deadline, body limit, and a last-resort panic catcher).
//!
//! [`router`] holds the routes and the two layers that need the matched route or the state
//! (metrics, bearer tokens); [`service`] wraps it once in the others. Layers added with
//! `Router::layer` wrap every route separately, each in a box, and axum clones a route's whole
//! stack for every request it serves: the routing-independent layers sit outside instead,
//! where a request pays for them once (same order, same behaviour, fallbacks included).

use std::any::Any;
use std::time::Instant;

use axum::body::Body;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tower::util::MapResponse;
use tower::ServiceBuilder;
use tower_http::catch_panic::{CatchPanic, CatchPanicLayer, ResponseForPanic};
use tower_http::classify::{ServerErrorsAsFailures, SharedClassifier};
use tower_http::cors::{AllowOrigin, Cors, CorsLayer};
use tower_http::limit::{RequestBodyLimit, RequestBodyLimitLayer};
use tower_http::trace::{DefaultOnFailure, Trace, TraceLayer};

use crate::config::AuthScope;
use crate::deadline::{RequestDeadline, RequestDeadlineLayer};
use crate::error::ApiError;
use crate::metrics::RouteLabels;
use crate::{ids, leases, lookup, probes, Shared};

/// What answers a panic in a handler: a 500 `ERR_PANIC`.
#[derive(Debug, Clone, Copy)]
pub struct PanicResponse;

impl ResponseForPanic for PanicResponse {
    type ResponseBody = Body;

    fn response_for_panic(&mut self, _: Box<dyn Any + Send + 'static>) -> Response {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "ERR_PANIC",
            "internal error (a bug in idmint-server)",
        )
        .into_response()
    }
}

/// The whole HTTP API, as hyper serves it: [`router`] inside, from the outside in, a panic
/// catcher, tracing, CORS, the body limit and the request deadline.
pub type Http =
    CatchPanic<Trace<Cors<Limit>, SharedClassifier<ServerErrorsAsFailures>>, PanicResponse>;

/// The body limit and the deadline around the router, answering axum's body type again (CORS
/// needs a body type with a default, for its preflight answers).
type Limit =
    MapResponse<RequestBodyLimit<RequestDeadline<Router>>, fn(LimitedResponse) -> Response>;
type LimitedResponse = Response<tower_http::limit::ResponseBody<Body>>;

fn unlimited(r: LimitedResponse) -> Response {
    r.map(Body::new)
}

/// The whole HTTP API on `svc`: [`router`] in the layers that need no route.
pub fn service(svc: Shared) -> Http {
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
    ServiceBuilder::new()
        .layer(CatchPanicLayer::custom(PanicResponse))
        // A 503 is the service telling a client to retry, not a fault of the service: warn.
        .layer(
            TraceLayer::new_for_http()
                .on_failure(DefaultOnFailure::new().level(tracing::Level::WARN)),
        )
        .layer(cors)
        .map_response(unlimited as fn(LimitedResponse) -> Response)
        .layer(RequestBodyLimitLayer::new(s.max_body_bytes))
        .layer(RequestDeadlineLayer::new(s.request_timeout))
        .service(router(svc.clone()))
}

/// Every route, with the layers that need the matched route (metrics) or the state (bearer
/// tokens); [`service`] adds the rest.
pub fn router(svc: Shared) -> Router {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ServeConfig, Settings};
    use crate::service::Service;
    use axum::body::Body;
    use axum::http::Request as HttpRequest;
    use http_body_util::BodyExt;
    use std::sync::Arc;
    use tower::ServiceExt;

    fn service_with(tokens: Option<Vec<String>>) -> (Http, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!(
            "idmint-app-test-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        let settings = Settings::resolve(ServeConfig {
            listen: Some("127.0.0.1:0".into()),
            data_dir: Some(dir.clone()),
            keys: Some(vec!["k".into()]),
            tokens,
            max_body_bytes: Some(64),
            ..ServeConfig::default()
        })
        .unwrap();
        (service(Arc::new(Service::open(settings).unwrap())), dir)
    }

    async fn call(
        app: &Http,
        req: HttpRequest<Body>,
    ) -> (StatusCode, axum::http::HeaderMap, String) {
        let res = app.clone().oneshot(req).await.unwrap();
        let (parts, body) = res.into_parts();
        let body = body.collect().await.unwrap().to_bytes();
        (
            parts.status,
            parts.headers,
            String::from_utf8(body.to_vec()).unwrap(),
        )
    }

    fn get(uri: &str) -> HttpRequest<Body> {
        HttpRequest::get(uri).body(Body::empty()).unwrap()
    }

    /// The layers moved out of the router (`service`) still apply to every route and the
    /// fallbacks, in the same order; the router's own (metrics, tokens) still see the route.
    #[test]
    fn every_layer_still_applies() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (app, dir) = service_with(None);
        rt.block_on(async {
            let (st, _, body) = call(&app, get("/healthz")).await;
            assert_eq!((st, body.as_str()), (StatusCode::OK, r#"{"status":"ok"}"#));

            let (st, _, body) = call(&app, get("/v1/segments/k?count=3")).await;
            assert_eq!(st, StatusCode::OK);
            assert!(body.starts_with(r#"{"key":"k","ids":[""#), "{body}");
            assert_eq!(body.matches(',').count(), 3, "{body}");

            let (st, _, body) = call(&app, get("/nowhere")).await;
            assert_eq!(st, StatusCode::NOT_FOUND);
            assert!(body.contains("ERR_NOT_FOUND"), "{body}");

            let post = HttpRequest::post("/v1/snowflake")
                .body(Body::empty())
                .unwrap();
            let (st, _, body) = call(&app, post).await;
            assert_eq!(st, StatusCode::METHOD_NOT_ALLOWED);
            assert!(body.contains("ERR_METHOD_NOT_ALLOWED"), "{body}");

            // CORS, on answers and on the fallback's.
            for uri in ["/v1/snowflake", "/nowhere"] {
                let req = HttpRequest::get(uri)
                    .header(header::ORIGIN, "https://example.test")
                    .body(Body::empty())
                    .unwrap();
                let (_, headers, _) = call(&app, req).await;
                assert_eq!(headers[header::ACCESS_CONTROL_ALLOW_ORIGIN], "*", "{uri}");
            }
            let preflight = HttpRequest::options("/v1/leases")
                .header(header::ORIGIN, "https://example.test")
                .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
                .body(Body::empty())
                .unwrap();
            let (st, headers, _) = call(&app, preflight).await;
            assert_eq!(st, StatusCode::OK);
            assert!(headers.contains_key(header::ACCESS_CONTROL_ALLOW_METHODS));

            // The body limit (64 bytes here).
            let big = HttpRequest::post("/v1/leases")
                .header(header::CONTENT_LENGTH, "65")
                .body(Body::from(vec![b' '; 65]))
                .unwrap();
            let (st, _, _) = call(&app, big).await;
            assert_eq!(st, StatusCode::PAYLOAD_TOO_LARGE);

            // Metrics still see the matched route.
            let (_, _, text) = call(&app, get("/metrics")).await;
            assert!(
                text.contains(r#"route="/v1/segments/{key}",status="2xx""#),
                "{text}"
            );
        });
        drop(app);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn tokens_guard_all_but_the_probes() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (app, dir) = service_with(Some(vec!["s3cret".into()]));
        rt.block_on(async {
            let (st, _, body) = call(&app, get("/v1/snowflake")).await;
            assert_eq!(st, StatusCode::UNAUTHORIZED);
            assert!(body.contains("ERR_UNAUTHORIZED"), "{body}");
            let (st, _, _) = call(&app, get("/healthz")).await;
            assert_eq!(st, StatusCode::OK);
            let req = HttpRequest::get("/v1/snowflake")
                .header(header::AUTHORIZATION, "Bearer s3cret")
                .body(Body::empty())
                .unwrap();
            let (st, _, _) = call(&app, req).await;
            assert_eq!(st, StatusCode::OK);
        });
        drop(app);
        let _ = std::fs::remove_dir_all(dir);
    }
}
