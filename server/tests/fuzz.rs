//! Requests made up from pieces of real paths, query strings and bodies, sent through the
//! router: none may panic the service or get a 500.

mod common;

use std::sync::Arc;

use axum::body::Body;
use axum::http::Request;
use common::{config, temp_dir};
use idmint_server::config::Settings;
use idmint_server::service::Service;
use proptest::prelude::*;
use tower::ServiceExt;

fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("v1".to_owned()),
        Just("api".to_owned()),
        Just("snowflake".to_owned()),
        Just("segments".to_owned()),
        Just("segment".to_owned()),
        Just("get".to_owned()),
        Just("ranges".to_owned()),
        Just("leases".to_owned()),
        Just("renew".to_owned()),
        Just("release".to_owned()),
        Just("decode".to_owned()),
        Just("layouts".to_owned()),
        Just("store".to_owned()),
        Just("decodeSnowflakeId".to_owned()),
        Just("cache".to_owned()),
        Just("metrics".to_owned()),
        Just("readyz".to_owned()),
        Just("%ff%fe".to_owned()),
        Just("%00".to_owned()),
        Just("..".to_owned()),
        Just("18446744073709551616".to_owned()),
        Just("0x".to_owned()),
        "[a-zA-Z0-9_.~-]{0,12}",
        "[\\x21-\\x7e&&[^/?#%]]{0,8}",
    ]
}

fn query() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        Just("count"),
        Just("format"),
        Just("layout"),
        Just("snowflakeId"),
        Just("x"),
    ];
    let value = prop_oneof![
        Just("1".to_owned()),
        Just("0".to_owned()),
        Just("-1".to_owned()),
        Just("100000".to_owned()),
        Just("100001".to_owned()),
        Just("99999999999999999999999".to_owned()),
        Just("base62".to_owned()),
        Just("twitter".to_owned()),
        Just("time%3D1%401ms%2Cseq%3D1".to_owned()),
        Just("%zz".to_owned()),
        "[a-z0-9=,@%]{0,10}",
    ];
    prop::collection::vec((key, value), 0..3).prop_map(|kv| {
        kv.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    })
}

fn body() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("{}".to_owned()),
        Just("null".to_owned()),
        Just("[]".to_owned()),
        Just(r#"{"layout":"js53","ttl_ms":1}"#.to_owned()),
        Just(r#"{"layout":"time=40@1ms,node=23,seq=0"}"#.to_owned()),
        Just(r#"{"ttl_ms":18446744073709551615,"client_time_ms":18446744073709551615}"#.to_owned()),
        Just(
            r#"{"lease":"l1~default~0~1~1~1~1~","issued_up_to_ms":18446744073709551615}"#
                .to_owned()
        ),
        Just(r#"{"namespace":"../../etc"}"#.to_owned()),
        "\\PC{0,40}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn no_request_gets_a_500(
        parts in prop::collection::vec(segment(), 0..5),
        q in query(),
        b in body(),
        post in any::<bool>(),
    ) {
        let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        let svc = service();
        let app = idmint_server::app::service(svc);
        let uri = format!("/{}?{q}", parts.join("/"));
        let Ok(req) = Request::builder()
            .method(if post { "POST" } else { "GET" })
            .uri(&uri)
            .body(Body::from(b.clone())) else {
            // Not a URI at all: hyper would have refused it before the router.
            return Ok(());
        };
        let res = rt.block_on(app.oneshot(req)).unwrap();
        prop_assert!(res.status().as_u16() < 500 || res.status().as_u16() == 503,
            "{} {uri} {b:?} -> {}", if post { "POST" } else { "GET" }, res.status());
    }
}

/// One service for every case (starting one per case would take minutes).
fn service() -> Arc<Service> {
    use std::sync::OnceLock;
    static SVC: OnceLock<Arc<Service>> = OnceLock::new();
    SVC.get_or_init(|| {
        let dir = temp_dir("fuzz");
        Arc::new(Service::open(Settings::resolve(config(&dir)).unwrap()).unwrap())
    })
    .clone()
}
