//! The service when its store goes away: buffered keys keep serving, empty ones answer 503
//! with Retry-After, `/readyz` goes unready, and everything recovers with the store.

mod common;
#[path = "../../coord/tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use common::{config, get, post, start, temp_dir};
use idmint_server::config::ServeConfig;
use support::{Kind, Server};

fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_store_outage_is_a_503_with_retry_after_and_buffers_keep_serving() {
    let redis = Server::start(Kind::Redis);
    let dir = temp_dir("outage");
    let svc = start(ServeConfig {
        segments: Some(format!("{}?timeout_ms=300", redis.url())),
        keys: Some(vec!["warm".into(), "cold".into()]),
        ..config(&dir)
    });
    let a = svc.addr();
    wait_for("ready", || get(a, "/readyz").status == 200);
    let before = get(a, "/v1/segments/warm").ids()[0];

    redis.stop();
    // The key with values buffered keeps serving through the outage (Leaf's double buffer).
    let during = get(a, "/v1/segments/warm").ids()[0];
    assert!(during > before);
    // A batch larger than the buffers cannot be served: 503, typed, with a retry hint.
    let r = get(a, "/v1/segments/cold?count=100000");
    assert_eq!(r.status, 503, "{}", r.body);
    assert_eq!(r.json()["code"], "ERR_STORE_UNAVAILABLE");
    assert_eq!(r.header("retry-after").as_deref(), Some("1"));
    let r = post(a, "/v1/segments/cold/ranges?count=10", "");
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (503, "ERR_STORE_UNAVAILABLE".into())
    );
    let store_ok = || {
        let r = get(a, "/readyz");
        let ok = r.json()["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "segment_store")
            .unwrap()["ok"]
            .as_bool()
            .unwrap();
        (r.status, ok)
    };
    wait_for("the store check to fail", || store_ok() == (503, false));
    let metrics = get(a, "/metrics").body;
    assert!(
        metrics.contains("idmint_store_errors_total{store=\"redis\",op=\"range\",reason=\"ERR_STORE_UNAVAILABLE\"}"),
        "{metrics}"
    );
    // Snowflake IDs do not need the segment store.
    assert_eq!(get(a, "/v1/snowflake").status, 200);

    redis.resume();
    wait_for("ready again", || get(a, "/readyz").status == 200);
    let after = get(a, "/v1/segments/cold?count=100").ids();
    assert_eq!(after.len(), 100);
    svc.stop().unwrap();
}

#[test]
fn client_lease_releases_keep_the_fence_on_redis() {
    let redis = Server::start(Kind::Redis);
    let dir = temp_dir("fence-redis");
    let svc = start(common::open_to_clients(
        ServeConfig {
            lease: Some(redis.url()),
            ..config(&dir)
        },
        common::FENCE_NAMESPACE,
        common::FENCE_LAYOUT,
    ));
    common::release_keeps_the_fence(&svc);
    svc.stop().unwrap();
}
