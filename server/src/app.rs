//! The router: every route, and the layers every request passes (edge checks, CORS, bearer
//! tokens and scopes, metrics, request deadline, body limit, JSON errors, and a last-resort
//! panic catcher).
//!
//! [`router`] holds the routes and the two layers that need the matched route or the state
//! (metrics, tokens: [`auth::authorize`]); [`service`] wraps it once in the others. Layers
//! added with `Router::layer` wrap every route separately, each in a box, and axum clones a
//! route's whole stack for every request it serves: the routing-independent layers sit outside
//! instead, where a request pays for them once (fallbacks included).

use std::any::Any;
use std::net::SocketAddr;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::Body;
use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use tower::util::{Either, MapResponse};
use tower::{Layer, Service, ServiceBuilder};
use tower_http::catch_panic::{CatchPanic, CatchPanicLayer, ResponseForPanic};
use tower_http::classify::{ServerErrorsAsFailures, SharedClassifier};
use tower_http::cors::{AllowOrigin, Cors, CorsLayer};
use tower_http::limit::{RequestBodyLimit, RequestBodyLimitLayer};
use tower_http::trace::{DefaultOnFailure, Trace, TraceLayer};

use crate::auth::{self, Gate};
use crate::deadline::{RequestDeadline, RequestDeadlineLayer};
use crate::edge::{Edge, Rules};
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
/// catcher, tracing, CORS (only with `--cors-origins`), the edge checks ([`crate::edge`]:
/// Host, per-address rate, JSON-only POSTs), JSON errors, the body limit and the deadline.
pub type Http = CatchPanic<
    Trace<Either<Cors<Checked>, Checked>, SharedClassifier<ServerErrorsAsFailures>>,
    PanicResponse,
>;

/// The edge checks around the rest.
type Checked = Edge<Limit>;

/// The body limit and the deadline around the router, answering axum's body type again (CORS
/// needs a body type with a default, for its preflight answers), every error as JSON.
type Limit =
    MapResponse<RequestBodyLimit<RequestDeadline<Router>>, fn(LimitedResponse) -> Response>;
type LimitedResponse = Response<tower_http::limit::ResponseBody<Body>>;

/// An error answered by a layer rather than a handler (the body limit's 413, the deadline's
/// 408, an extractor's rejection) as the JSON `{"code","message"}` every error is.
fn json_errors(r: LimitedResponse) -> Response {
    let r = r.map(Body::new);
    let status = r.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return r;
    }
    let json = r
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if json {
        return r;
    }
    let (code, message) = match status {
        StatusCode::REQUEST_TIMEOUT => (
            "ERR_TIMEOUT",
            "the request took longer than the service allows (--request-timeout-ms)",
        ),
        StatusCode::PAYLOAD_TOO_LARGE => (
            "ERR_LIMIT_EXCEEDED",
            "the request body is larger than the service accepts (--max-body-bytes)",
        ),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => (
            "ERR_UNSUPPORTED_MEDIA_TYPE",
            "a POST must have Content-Type: application/json",
        ),
        StatusCode::NOT_FOUND => ("ERR_NOT_FOUND", "no such endpoint"),
        StatusCode::METHOD_NOT_ALLOWED => (
            "ERR_METHOD_NOT_ALLOWED",
            "this endpoint does not take that method",
        ),
        s if s.is_server_error() => ("ERR_INTERNAL", "internal error"),
        _ => ("ERR_INVALID_ARGUMENT", "the request is malformed"),
    };
    let (parts, _) = r.into_parts();
    let mut out = ApiError::new(status, code, message).into_response();
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            out.headers_mut()
                .entry(name)
                .or_insert_with(|| value.clone());
        }
    }
    out
}

/// CORS for the configured origins.
fn cors(origins: &[String]) -> CorsLayer {
    CorsLayer::new()
        .allow_methods([Method::GET, Method::POST])
        .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE])
        .expose_headers([header::RETRY_AFTER])
        // A page renews every third of its TTL: without a cached preflight each renewal
        // would cost two round trips.
        .max_age(std::time::Duration::from_secs(600))
        .allow_origin(if origins.iter().any(|o| o == "*") {
            AllowOrigin::any()
        } else {
            AllowOrigin::list(origins.iter().filter_map(|o| HeaderValue::from_str(o).ok()))
        })
}

/// The whole HTTP API on `svc`: [`router`] in the layers that need no route.
pub fn service(svc: Shared) -> Http {
    let s = &svc.settings;
    let limited: Limit = ServiceBuilder::new()
        .map_response(json_errors as fn(LimitedResponse) -> Response)
        .layer(RequestBodyLimitLayer::new(s.max_body_bytes))
        .layer(RequestDeadlineLayer::new(s.request_timeout))
        .service(router(svc.clone()));
    let checked = Edge::new(
        limited,
        Arc::new(Rules::new(s.allowed_hosts.clone(), s.rate_limit)),
    );
    // No origins: no CORS layer at all, so no answer carries a CORS header.
    let browsers = if s.cors_origins.is_empty() {
        Either::Right(checked)
    } else {
        Either::Left(cors(&s.cors_origins).layer(checked))
    };
    ServiceBuilder::new()
        .layer(CatchPanicLayer::custom(PanicResponse))
        // A 503 is the service telling a client to retry, not a fault of the service: warn.
        .layer(
            TraceLayer::new_for_http()
                .on_failure(DefaultOnFailure::new().level(tracing::Level::WARN)),
        )
        .service(browsers)
}

/// [`Http`] for one connection: records its peer address ([`ConnectInfo`]) in every request,
/// for the rate limits and the [`auth::Caller`].
#[derive(Clone)]
pub struct FromPeer {
    app: Http,
    peer: SocketAddr,
}

impl FromPeer {
    /// `app` serving a connection from `peer`.
    pub fn new(app: Http, peer: SocketAddr) -> FromPeer {
        FromPeer { app, peer }
    }
}

impl<B> Service<axum::http::Request<B>> for FromPeer
where
    Http: Service<axum::http::Request<B>>,
{
    type Response = <Http as Service<axum::http::Request<B>>>::Response;
    type Error = <Http as Service<axum::http::Request<B>>>::Error;
    type Future = <Http as Service<axum::http::Request<B>>>::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.app.poll_ready(cx)
    }

    fn call(&mut self, mut req: axum::http::Request<B>) -> Self::Future {
        req.extensions_mut().insert(ConnectInfo(self.peer));
        self.app.call(req)
    }
}

/// Every route and its handlers. What each needs is in [`auth::ROUTES`]; a test checks that
/// both list the same patterns.
fn endpoints() -> Vec<(&'static str, MethodRouter<Shared>)> {
    vec![
        ("/v1/snowflake", get(ids::snowflake)),
        ("/v1/segments/{key}", get(ids::segment)),
        ("/v1/segments/{key}/ranges", post(ids::range)),
        ("/v1/store", get(ids::store)),
        ("/v1/leases", post(leases::grant)),
        ("/v1/leases/renew", post(leases::renew)),
        ("/v1/leases/release", post(leases::release)),
        ("/v1/decode/{id}", get(lookup::decode)),
        ("/v1/layouts", get(lookup::layouts)),
        ("/v1/monitor", get(probes::monitor_json)),
        ("/api/segment/get/{key}", get(ids::leaf_segment)),
        ("/api/snowflake/get/{key}", get(ids::leaf_snowflake)),
        ("/api/decodeSnowflakeId", get(lookup::leaf_decode)),
        ("/cache", get(probes::monitor_page)),
        ("/metrics", get(probes::metrics)),
        ("/healthz", get(probes::healthz)),
        ("/readyz", get(probes::readyz)),
    ]
}

/// Every route, with the layers that need the matched route (metrics) or the state (tokens
/// and scopes, the per-token rate); [`service`] adds the rest.
pub fn router(svc: Shared) -> Router {
    let gate = Gate::new(svc.clone(), svc.settings.rate_limit);
    endpoints()
        .into_iter()
        .fold(Router::new(), |r, (path, handler)| r.route(path, handler))
        .fallback(|| async { ApiError::not_found("no such endpoint") })
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "ERR_METHOD_NOT_ALLOWED",
                "this endpoint does not take that method",
            )
        })
        .layer(middleware::from_fn_with_state(gate, auth::authorize))
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

    /// A service on a fresh directory; `tokens` (a token list) goes to a file there.
    fn service_with(tokens: Option<&str>, cors: Option<&str>) -> (Http, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!(
            "idmint-app-test-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let tokens_file = tokens.map(|t| {
            let path = dir.join("tokens");
            std::fs::write(&path, t).unwrap();
            path
        });
        let settings = Settings::resolve(ServeConfig {
            listen: Some("127.0.0.1:0".into()),
            data_dir: Some(dir.clone()),
            keys: Some(vec!["k".into()]),
            tokens_file,
            cors_origins: cors.map(|c| vec![c.to_owned()]),
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
        let (app, dir) = service_with(None, Some("https://example.test"));
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
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::empty())
                .unwrap();
            let (st, _, body) = call(&app, post).await;
            assert_eq!(st, StatusCode::METHOD_NOT_ALLOWED);
            assert!(body.contains("ERR_METHOD_NOT_ALLOWED"), "{body}");

            // CORS (for the configured origin), on answers and on the fallback's.
            for uri in ["/v1/snowflake", "/nowhere"] {
                let req = HttpRequest::get(uri)
                    .header(header::ORIGIN, "https://example.test")
                    .body(Body::empty())
                    .unwrap();
                let (_, headers, _) = call(&app, req).await;
                assert_eq!(
                    headers[header::ACCESS_CONTROL_ALLOW_ORIGIN],
                    "https://example.test",
                    "{uri}"
                );
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
                .header(header::CONTENT_TYPE, "application/json")
                .header(header::CONTENT_LENGTH, "65")
                .body(Body::from(vec![b' '; 65]))
                .unwrap();
            let (st, _, body) = call(&app, big).await;
            assert_eq!(st, StatusCode::PAYLOAD_TOO_LARGE);
            assert!(body.contains(r#""code":"ERR_LIMIT_EXCEEDED""#), "{body}");

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
        let (app, dir) = service_with(Some("minter s3cret-s3cret-s3cret mint\n"), None);
        rt.block_on(async {
            let (st, _, body) = call(&app, get("/v1/snowflake")).await;
            assert_eq!(st, StatusCode::UNAUTHORIZED);
            assert!(body.contains("ERR_UNAUTHORIZED"), "{body}");
            let (st, _, _) = call(&app, get("/healthz")).await;
            assert_eq!(st, StatusCode::OK);
            let with_token = |uri: &str| {
                HttpRequest::get(uri)
                    .header(header::AUTHORIZATION, "Bearer s3cret-s3cret-s3cret")
                    .body(Body::empty())
                    .unwrap()
            };
            let (st, _, _) = call(&app, with_token("/v1/snowflake")).await;
            assert_eq!(st, StatusCode::OK);
            let (st, _, body) = call(&app, with_token("/metrics")).await;
            assert_eq!(st, StatusCode::FORBIDDEN, "mint is not admin");
            assert!(body.contains("`admin`"), "{body}");
        });
        drop(app);
        let _ = std::fs::remove_dir_all(dir);
    }

    /// Every route of [`router`] has its entry in the one table of what routes need, and the
    /// table names no route that does not exist.
    #[test]
    fn every_route_has_a_scope_or_is_a_probe() {
        let routed: Vec<&str> = endpoints().into_iter().map(|(p, _)| p).collect();
        for path in &routed {
            let entry = auth::ROUTES.iter().find(|(p, _)| p == path);
            assert!(entry.is_some(), "{path} has no scope in auth::ROUTES");
            if let Some((_, auth::Access::Open)) = entry {
                assert!(
                    matches!(*path, "/healthz" | "/readyz"),
                    "{path} is open but not a probe"
                );
            }
        }
        for (p, _) in auth::ROUTES {
            assert!(
                routed.contains(p),
                "auth::ROUTES names {p}, which is not routed"
            );
        }
    }
}
