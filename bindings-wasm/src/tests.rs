//! Unit tests of the browser-specific pieces: the time source, bounded waiting, randomness,
//! error objects and argument conversion. They run under `wasm-bindgen-test-runner` in Node
//! (default), in headless Chromium (`WASM_BINDGEN_USE_BROWSER=1`) and in a dedicated Web
//! Worker (`WASM_BINDGEN_USE_DEDICATED_WORKER=1`); see test.sh. The shared JavaScript suite
//! (bindings-node/tests) covers the API itself against the built package.

use idmint::{Clock, Error, Retry};
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;

use crate::clock::{PageClock, CALLS_PER_READ, MAX_SPIN_MS};
use crate::convert::JsLayout;
use crate::error::{take_error, Sentinel};
use crate::snowflake::{random_node, JsAtomicSnowflake, JsSnowflake};
use crate::uuid::{uuid4, uuid7};

fn options(props: &[(&str, JsValue)]) -> JsValue {
    crate::convert::object(props)
}

fn prop(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

fn code(e: &JsValue) -> String {
    prop(e, "code").as_string().unwrap_or_default()
}

fn big(v: &JsValue) -> u64 {
    u64::try_from(v.clone()).expect("a bigint")
}

/// What the glue makes of a per-ID method's plain return value: the value, or the exception
/// parked for it (see `error::stash`).
fn checked<T: Sentinel + PartialEq>(v: T) -> Result<T, JsValue> {
    if v == T::SENTINEL {
        let e = take_error();
        if !e.is_undefined() {
            return Err(e);
        }
    }
    Ok(v)
}

/// A clocked generator with these options, on node 1 unless they name a node (a generator
/// needs one: see `a_generator_without_a_node_throws_node_required`).
fn snowflake(props: &[(&str, JsValue)]) -> JsSnowflake {
    let mut props = props.to_vec();
    if !props.iter().any(|(k, _)| *k == "node") {
        props.push(("node", JsValue::from(1u32)));
    }
    JsSnowflake::new(options(&props)).unwrap_or_else(|e| panic!("{:?}", e.as_string()))
}

/// Without a node, neither generator is built: the typed error says how to choose one in the
/// browser (a node from your server, or `randomNode`); node 0 given on purpose works.
#[wasm_bindgen_test]
fn a_generator_without_a_node_throws_node_required() {
    for opts in [
        JsValue::UNDEFINED,
        JsValue::NULL,
        options(&[]),
        options(&[("layout", "discord".into())]),
    ] {
        for e in [
            JsSnowflake::new(opts.clone()).err().unwrap(),
            JsAtomicSnowflake::new(opts.clone()).err().unwrap(),
        ] {
            assert_eq!(code(&e), "ERR_NODE_REQUIRED");
            let message = prop(&e, "message").as_string().unwrap();
            for hint in [
                "explicit node",
                "in the browser",
                "randomNode(layout)",
                "k*k/(2N)",
            ] {
                assert!(message.contains(hint), "{hint}: {message}");
            }
        }
    }
    let g = JsSnowflake::new(options(&[("node", JsValue::from(0u32))])).unwrap();
    let id = checked(g.next_id()).unwrap();
    assert_eq!(big(&prop(&g.decode(JsValue::from(id)).unwrap(), "node")), 0);
}

/// A batch larger than the core's MAX_BATCH is refused before anything is allocated.
#[wasm_bindgen_test]
fn batches_above_max_batch_throw_limit_exceeded() {
    let g = snowflake(&[]);
    let a = JsAtomicSnowflake::new(options(&[("node", JsValue::from(2u32))])).unwrap();
    let n = JsValue::from(idmint::limits::MAX_BATCH + 1);
    for e in [
        g.next_ids(n.clone()).err().unwrap(),
        a.next_ids_at(JsValue::from(1_700_000_000_000u64), n.clone())
            .err()
            .unwrap(),
    ] {
        assert!(e.is_instance_of::<js_sys::RangeError>());
        assert_eq!(code(&e), "ERR_LIMIT_EXCEEDED");
        assert_eq!(big(&prop(&e, "limit")), idmint::limits::MAX_BATCH);
    }
}

#[wasm_bindgen_test]
fn time_source_is_the_monotonic_performance_clock() {
    let c = PageClock::new();
    assert_eq!(c.source(), "performance");
    let a = c.now_ms();
    let date = js_sys::Date::now() as u64;
    // timeOrigin + now() and Date.now() are different clocks; they agree to well within a second.
    assert!(a.abs_diff(date) < 1000, "performance {a}, Date {date}");
    let mut last = a;
    for _ in 0..10_000 {
        let t = c.now_ms();
        assert!(t >= last, "went back from {last} to {t}");
        last = t;
    }
}

#[wasm_bindgen_test]
async fn readings_are_reused_within_one_task_only() {
    let c = PageClock::new();
    let t = crate::clock::task();
    let first = c.now_ms();
    let mut last = first;
    for _ in 0..10 * CALLS_PER_READ {
        let now = c.now_ms();
        assert!(now >= last);
        last = now;
    }
    assert_eq!(crate::clock::task(), t, "still the same task");
    // Back to the event loop: the end of the task is noticed, and the next call reads again.
    wasm_bindgen_futures::JsFuture::from(js_sys::Promise::resolve(&JsValue::NULL))
        .await
        .unwrap();
    assert_ne!(crate::clock::task(), t);
    let spin_until = c.precise_ms() + 2;
    while c.precise_ms() < spin_until {}
    // A reading reused in a new task would be at least 2 ms old.
    assert!(
        c.now_ms() >= spin_until,
        "a stale reading crossed a task boundary"
    );
}

#[wasm_bindgen_test]
fn date_now_fallback() {
    let c = PageClock::date_only();
    assert_eq!(c.source(), "Date");
    assert!(c.now_ms().abs_diff(PageClock::new().now_ms()) < 1000);
}

#[wasm_bindgen_test]
fn ids_carry_the_current_time_and_node() {
    let g = snowflake(&[("node", JsValue::from(5u32))]);
    assert_eq!(g.time_source(), "performance");
    let before = PageClock::new().now_ms();
    let id = checked(g.next_id()).unwrap();
    let after = PageClock::new().now_ms();
    let parts = g.decode(JsValue::from(id)).unwrap();
    let ts = big(&prop(&parts, "timestampMs"));
    // The generator's cached reading may lag a fresh one by less than 1 ms (clock.rs docs),
    // which can show as one millisecond early.
    assert!(
        before - 1 <= ts && ts <= after,
        "{before} - 1 <= {ts} <= {after}"
    );
    assert_eq!(big(&prop(&parts, "node")), 5);
    let mut last = id;
    for _ in 0..10_000 {
        let id = checked(g.next_id()).unwrap();
        assert!(id > last);
        last = id;
    }
}

#[wasm_bindgen_test]
fn short_waits_spin_and_continue() {
    // 4 IDs per ms: a tick's sequence runs out whenever five calls fall in one millisecond,
    // and each such call waits (at most 1 ms) and goes on. Minted until ten exhaustions were
    // met (however slow the machine, a tight loop puts five calls in one millisecond often).
    let g = snowflake(&[("layout", "time=41@1ms,node=4,seq=2,epoch=2020-01-01".into())]);
    let exhaustions = || big(&prop(&g.stats().unwrap(), "exhaustions"));
    let mut ids = Vec::new();
    while exhaustions() < 10 && ids.len() < 100_000 {
        ids.push(checked(g.next_id()).unwrap());
    }
    assert!(exhaustions() >= 10, "{} IDs", ids.len());
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    let batch: Vec<u64> = g.next_ids(JsValue::from(40u32)).unwrap().to_vec();
    assert_eq!(batch.len(), 40);
    assert!(batch[0] > ids[ids.len() - 1] && batch.windows(2).all(|w| w[0] < w[1]));
}

#[wasm_bindgen_test]
fn long_waits_throw_would_block_at_once() {
    // 4 IDs per hour: the fifth must wait for the next hour, far beyond the spin limit.
    let g = snowflake(&[("layout", "time=20@1h,node=4,seq=2,epoch=2020-01-01".into())]);
    for _ in 0..4 {
        checked(g.next_id()).unwrap();
    }
    let start = PageClock::new().now_ms();
    let e = checked(g.next_id()).unwrap_err();
    assert!(
        PageClock::new().now_ms() - start < MAX_SPIN_MS + 50,
        "it waited"
    );
    assert!(e.is_instance_of::<js_sys::Error>());
    assert_eq!(code(&e), "ERR_WOULD_BLOCK");
    let until = big(&prop(&e, "untilMs"));
    assert!(until > start && until - start <= 3_600_000);
    assert_eq!(until % 3_600_000, 1_577_836_800_000 % 3_600_000);
    assert_eq!(
        code(&checked(g.try_next_id()).unwrap_err()),
        "ERR_WOULD_BLOCK"
    );
    assert_eq!(
        code(&g.next_ids(JsValue::from(1u32)).unwrap_err()),
        "ERR_WOULD_BLOCK"
    );
    assert!(take_error().is_undefined(), "nothing stays parked");
    assert!(big(&prop(&g.stats().unwrap(), "waitMs")) > 0);
}

#[wasm_bindgen_test]
fn wait_or_retry_bounds() {
    let c = PageClock::new();
    let now = c.now_ms();
    assert_eq!(c.wait_or_retry(now), Ok(()));
    let far = now + MAX_SPIN_MS + 1000;
    assert_eq!(c.wait_or_retry(far), Err(Retry { until_ms: far }));
    // What the core's Clocked makes of it: WouldBlock, which throws ERR_WOULD_BLOCK.
    assert_eq!(
        Error::from(Retry { until_ms: far }),
        Error::WouldBlock { until_ms: far }
    );
    c.wait_or_retry(now + 2).unwrap();
    assert!(c.now_ms() >= now + 2);
}

#[wasm_bindgen_test]
fn batches_larger_than_a_chunk() {
    let g = snowflake(&[("onExhausted", "borrow:1000".into())]);
    let ids = g.next_ids(JsValue::from(20_000u32)).unwrap().to_vec();
    assert_eq!(ids.len(), 20_000);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(g.next_ids(JsValue::from(0u32)).unwrap().length(), 0);
    assert_eq!(
        code(&g.next_ids(JsValue::from(-1)).unwrap_err()),
        "ERR_OUT_OF_RANGE"
    );
}

#[wasm_bindgen_test]
fn sans_io_batches_stop_where_the_policy_waits() {
    let g = JsAtomicSnowflake::new(options(&[
        ("layout", "time=41@1ms,node=4,seq=2,epoch=2020-01-01".into()),
        ("node", JsValue::from(1u32)),
    ]))
    .unwrap();
    let now = JsValue::from(1_700_000_000_000u64);
    assert_eq!(
        g.next_ids_at(now.clone(), JsValue::from(10_000u32))
            .unwrap()
            .length(),
        4
    );
    let e = g.next_ids_at(now, JsValue::from(1u32)).unwrap_err();
    assert_eq!(code(&e), "ERR_WOULD_BLOCK");
    assert_eq!(big(&prop(&e, "untilMs")), 1_700_000_000_001);
}

#[wasm_bindgen_test]
fn random_nodes_cover_the_node_field() {
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..64 {
        let n = random_node(JsValue::from_str("leaf")).unwrap();
        assert!(n < 1024);
        seen.insert(n);
    }
    // 64 draws from 1024 values: all equal has probability 1024^-63.
    assert!(seen.len() > 32, "{seen:?}");
    assert_eq!(
        random_node(JsValue::from_str("time=41@1ms,seq=12,epoch=2020-01-01")).unwrap(),
        0
    );
}

#[wasm_bindgen_test]
fn random_sequence_starts_draw_a_seed() {
    let g = snowflake(&[("sequenceStart", "random".into())]);
    assert!(g.config().contains(",seed="), "{}", g.config());
    let fixed = snowflake(&[
        ("sequenceStart", "random".into()),
        ("seed", JsValue::from(7u32)),
    ]);
    assert!(fixed.config().ends_with(",seed=7"), "{}", fixed.config());
}

#[wasm_bindgen_test]
fn uuids_use_web_crypto() {
    let a = uuid4(JsValue::UNDEFINED).unwrap().as_string().unwrap();
    let b = uuid4(JsValue::UNDEFINED).unwrap().as_string().unwrap();
    assert_ne!(a, b);
    assert_eq!(&a[14..15], "4");
    // More than one pool of random bytes.
    let mut last = uuid7().unwrap().as_string().unwrap();
    for _ in 0..1000 {
        let u = uuid7().unwrap().as_string().unwrap();
        assert!(u > last);
        last = u;
    }
}

#[wasm_bindgen_test]
fn layouts_pass_by_value_not_by_move() {
    let js53 = JsValue::from(JsLayout::preset(JsValue::from_str("js53")).unwrap());
    let g = snowflake(&[("layout", js53.clone())]);
    assert_eq!(g.layout().preset_name(), JsValue::from_str("js53"));
    // The Layout object is still usable afterwards.
    let again = snowflake(&[("layout", js53)]);
    assert!(checked(again.next_id_number()).unwrap() > 0.0);
    // An object that only looks like a Layout is refused.
    let fake = Object::new();
    let post = Closure::<dyn Fn()>::new(|| {});
    Reflect::set(&fake, &"__idmintPostLayout".into(), post.as_ref()).unwrap();
    let e = JsSnowflake::new(options(&[("layout", fake.into())]))
        .err()
        .unwrap();
    assert!(e.is_instance_of::<js_sys::TypeError>());
    assert_eq!(code(&e), "ERR_INVALID_ARG_TYPE");
}

#[wasm_bindgen_test]
fn errors_are_typed_and_coded() {
    let e = JsLayout::new(JsValue::from_str("time=41@1ms,seq=x,epoch=0"))
        .err()
        .unwrap();
    assert!(e.is_instance_of::<js_sys::Error>());
    assert_eq!(code(&e), "ERR_INVALID_LAYOUT");
    assert_eq!(prop(&e, "at").as_f64(), Some(16.0));
    assert_eq!(
        prop(&e, "message").as_string().unwrap(),
        "invalid spec at byte 16: expected a number of bits"
    );
    let e = JsLayout::new(JsValue::from(5u32)).err().unwrap();
    assert!(e.is_instance_of::<js_sys::TypeError>());
    assert_eq!(code(&e), "ERR_INVALID_ARG_TYPE");
    let tw = JsLayout::preset(JsValue::from_str("twitter")).unwrap();
    for bad in [
        JsValue::from(-1),
        JsValue::from(1.5),
        JsValue::from(2f64.powi(60)),
    ] {
        let e = tw.decompose(bad).unwrap_err();
        assert!(e.is_instance_of::<js_sys::RangeError>());
        assert_eq!(code(&e), "ERR_OUT_OF_RANGE");
    }
    let over = tw.decompose(JsValue::from(1u64 << 63)).unwrap_err();
    assert!(over.is_instance_of::<js_sys::RangeError>());
    assert_eq!(big(&prop(&over, "value")), 1 << 63);
    let g = snowflake(&[]);
    let e = checked(g.next_id_number()).unwrap_err();
    assert!(e.dyn_ref::<js_sys::RangeError>().is_some());
    assert_eq!(code(&e), "ERR_NOT_JS_SAFE");
}

/// The store and lease kinds (raised by the coordinated generators of the Node and Python
/// packages; the browser has no store) still map like every other core error.
#[wasm_bindgen_test]
fn store_and_lease_errors_carry_their_fields() {
    let e = idmint_js::error::core(
        &crate::convert::Web,
        Error::StoreUnavailable {
            store: "redis",
            op: "renew",
            reason: "connection refused",
        },
    );
    assert!(e.is_instance_of::<js_sys::Error>());
    assert_eq!(code(&e), "ERR_STORE_UNAVAILABLE");
    assert_eq!(prop(&e, "store").as_string().unwrap(), "redis");
    assert_eq!(prop(&e, "op").as_string().unwrap(), "renew");
    assert_eq!(
        prop(&e, "reason").as_string().unwrap(),
        "connection refused"
    );
    assert_eq!(
        prop(&e, "message").as_string().unwrap(),
        "redis store unavailable during renew: connection refused"
    );
    let e = idmint_js::error::core(
        &crate::convert::Web,
        Error::LeaseLost {
            node: 1 << 60,
            reason: "fencing token superseded",
        },
    );
    assert_eq!(code(&e), "ERR_LEASE_LOST");
    assert_eq!(big(&prop(&e, "node")), 1 << 60);
    assert_eq!(
        prop(&e, "reason").as_string().unwrap(),
        "fencing token superseded"
    );
    let e = idmint_js::error::core(&crate::convert::Web, Error::NoFreeNode { nodes: 1024 });
    assert_eq!(code(&e), "ERR_NO_FREE_NODE");
    assert_eq!(big(&prop(&e, "nodes")), 1024);
    assert_eq!(
        prop(&e, "message").as_string().unwrap(),
        "no free node: all 1024 nodes are leased"
    );
}

#[wasm_bindgen_test]
fn strings_are_made_by_javascript() {
    let g = snowflake(&[("node", JsValue::from(3u32))]);
    let s = checked(g.next_id_string()).unwrap().as_string().unwrap();
    let id: u64 = s.parse().unwrap();
    assert_eq!(big(&prop(&g.decode(JsValue::from(id)).unwrap(), "node")), 3);
}

#[wasm_bindgen_test]
fn bench_floor() {
    assert_eq!(crate::bench_floor(), 0x0123_4567_89ab_cdef);
}

/// A renewal's answer is read by bindings-js (`client_lease::terms`, what
/// `__idmintLeaseWindow.renewed` calls): each field with the type and range rules, codes and
/// messages of every other argument; the package retries a renewal refused so.
#[wasm_bindgen_test]
fn malformed_renewals_are_refused_field_by_field() {
    let web = &crate::convert::Web;
    let good = [
        ("bound_ms", JsValue::from(5000u32)),
        ("ttl_ms", JsValue::from(1500u32)),
        ("renew_after_ms", JsValue::from(500u32)),
    ];
    let t = idmint_js::client_lease::terms(web, &options(&good), "renewal").unwrap();
    assert_eq!(
        (t.bound_ms, t.ttl_ms, t.renew_after_ms),
        (5000, 1500, Some(500))
    );
    let t = idmint_js::client_lease::terms(web, &options(&good[..2]), "renewal").unwrap();
    assert_eq!(t.renew_after_ms, None);

    let unsafe_ms = 2f64.powi(53);
    for (i, (key, _)) in good.iter().enumerate() {
        let mut cases = vec![
            (JsValue::from_str("5"), "ERR_INVALID_ARG_TYPE", format!("renewal.{key} must be a bigint or an integer number; received type string ('5')")),
            (JsValue::from(-1), "ERR_OUT_OF_RANGE", format!("renewal.{key} must not be negative; received -1")),
            (JsValue::from(1.5), "ERR_OUT_OF_RANGE", format!("renewal.{key} must be an integer; received 1.5")),
            (JsValue::from(unsafe_ms), "ERR_OUT_OF_RANGE", format!("renewal.{key} as a number must be at most Number.MAX_SAFE_INTEGER; received 9007199254740992 (pass a bigint for larger values)")),
        ];
        if *key != "renew_after_ms" {
            cases.push((
                JsValue::UNDEFINED,
                "ERR_INVALID_ARG_TYPE",
                format!("renewal.{key} must be a bigint or an integer number; received undefined"),
            ));
        }
        for (bad, want_code, want_message) in cases {
            let mut answer = good.to_vec();
            answer[i].1 = bad;
            let e = idmint_js::client_lease::terms(web, &options(&answer), "renewal").unwrap_err();
            assert_eq!(code(&e), want_code);
            assert_eq!(prop(&e, "message").as_string().unwrap(), want_message);
        }
    }
    let e = idmint_js::client_lease::terms(web, &JsValue::NULL, "renewal").unwrap_err();
    assert!(e.is_instance_of::<js_sys::TypeError>());
    assert_eq!(
        prop(&e, "message").as_string().unwrap(),
        "renewal must be an object; received null"
    );
}
