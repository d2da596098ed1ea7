//! Segment keys from hostile clients: names that would corrupt `/metrics` or a page, GETs
//! that would make the service write, new keys past the cap, and many keys in the metrics.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use idmint_server::config::{ServeConfig, Settings};
use idmint_server::metrics::Metrics;
use serde_json::Value;

use crate::common::{call, config, get, post, start, temp_dir};

/// Key names no route may accept: as a client sends them in a path, and decoded.
fn hostile_keys() -> Vec<(String, String)> {
    let mut keys: Vec<(String, String)> = [
        ("a%22b", "a\"b"),
        ("a%7Db", "a}b"),
        ("a%0Ab", "a\nb"),
        ("a%0D%0Ab", "a\r\nb"),
        ("a%5C%22b", "a\\\"b"),
        ("a%20b", "a b"),
        ("%C3%A9", "é"),
        ("a%2Fb", "a/b"),
        ("%3Cscript%3E", "<script>"),
    ]
    .iter()
    .map(|(e, d)| (e.to_string(), d.to_string()))
    .collect();
    keys.push(("x".repeat(129), "x".repeat(129)));
    keys
}

/// The keys the SQLite segment store of `dir` holds.
fn store_keys(dir: &Path) -> BTreeSet<String> {
    let db = rusqlite::Connection::open(dir.join("segments.db")).unwrap();
    let mut q = db.prepare("SELECT biz_tag FROM idmint_segment").unwrap();
    let rows = q.query_map([], |r| r.get::<_, String>(0)).unwrap();
    rows.map(Result::unwrap).collect()
}

/// Parses the Prometheus text with the Python client's parser (`prometheus_client`, not
/// written here): every sample as `[name, {labels}, value]`. Panics when python3 or the
/// package is missing (`scripts/setup.sh servers` installs it) or the text does not parse.
fn parse_with_prometheus_client(text: &str) -> Vec<(String, serde_json::Map<String, Value>, f64)> {
    const SCRIPT: &str = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = []
for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        out.append([s.name, s.labels, s.value])
print(json.dumps(out))
"#;
    let mut child = Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 is needed to check /metrics (scripts/setup.sh servers)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "prometheus_client could not parse the metrics (is it installed? scripts/setup.sh \
         servers): {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    let samples: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    samples
        .into_iter()
        .map(|s| {
            (
                s[0].as_str().unwrap().to_owned(),
                s[1].as_object().unwrap().clone(),
                s[2].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn hostile_key_names_are_refused_on_every_route_and_create_nothing() {
    let dir = temp_dir("hostile-names");
    // Auto-keys on: any valid key would be created, so only the name rule refuses these.
    let svc = start(ServeConfig {
        auto_keys: Some(true),
        ..config(&dir)
    });
    let a = svc.addr();
    for (key, decoded) in hostile_keys() {
        for (method, path) in [
            ("GET", format!("/v1/segments/{key}")),
            ("GET", format!("/api/segment/get/{key}")),
            ("POST", format!("/v1/segments/{key}/ranges?count=10")),
        ] {
            let r = call(a, method, &path, Some(""), &[]);
            assert_eq!(r.status, 400, "{method} {path}: {}", r.body);
            let v = r.json();
            assert_eq!(v["code"], "ERR_INVALID_ARGUMENT", "{path}");
            let msg = v["message"].as_str().unwrap();
            assert!(msg.contains("[A-Za-z0-9._:-]{1,128}"), "{path}: {msg}");
            assert!(!msg.chars().any(char::is_control), "{path}: {msg:?}");
            assert!(
                !msg.contains(&decoded),
                "shown escaped, not raw: {path}: {msg}"
            );
        }
    }
    // An empty key matches no route at all.
    for (method, path) in [
        ("GET", "/v1/segments/"),
        ("GET", "/api/segment/get/"),
        ("POST", "/v1/segments//ranges"),
    ] {
        let r = call(a, method, path, Some(""), &[]);
        assert!((400..500).contains(&r.status), "{path}: {}", r.status);
        assert!(
            r.json()["code"].as_str().unwrap().starts_with("ERR_"),
            "{path}"
        );
    }
    // The longest valid name and every allowed character still work.
    let longest = "k".repeat(128);
    assert_eq!(get(a, &format!("/v1/segments/{longest}")).ids().len(), 1);
    assert_eq!(get(a, "/v1/segments/Az09._:-").ids().len(), 1);
    let monitor = get(a, "/v1/monitor").json();
    let keys: Vec<&str> = monitor["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["Az09._:-", longest.as_str()]);
    svc.stop().unwrap();
    let expected: BTreeSet<String> = ["Az09._:-".to_owned(), longest].into();
    assert_eq!(store_keys(&dir), expected);

    // --keys are checked the same way, before anything starts.
    for bad in ["a\"b", "a}b", "a\nb", &"x".repeat(129)] {
        let e = Settings::resolve(ServeConfig {
            keys: Some(vec!["orders".into(), bad.into()]),
            ..config(&dir)
        })
        .unwrap_err();
        assert!(e.to_string().contains("[A-Za-z0-9._:-]{1,128}"), "{e}");
    }
}

#[test]
fn a_get_beyond_loopback_creates_no_key_unless_auto_keys() {
    let dir = temp_dir("hostile-get");
    // A service listening on every interface does not create keys on a GET by default...
    let mut settings = Settings::resolve(ServeConfig {
        listen: Some("0.0.0.0:7600".into()),
        allow_anonymous: Some(true),
        ..config(&dir)
    })
    .unwrap();
    assert!(!settings.auto_keys);
    // ...(the test serves it on loopback, with the settings it resolved to).
    settings.listen = "127.0.0.1:0".parse().unwrap();
    let svc = idmint_server::start(settings).unwrap();
    let a = svc.addr();
    for (method, path) in [
        ("GET", "/v1/segments/fresh"),
        ("GET", "/v1/segments/fresh?count=5"),
        ("GET", "/api/segment/get/fresh"),
        ("POST", "/v1/segments/fresh/ranges?count=10"),
    ] {
        let r = call(a, method, path, Some(""), &[]);
        assert_eq!(r.status, 404, "{path}: {}", r.body);
        assert_eq!(r.json()["code"], "ERR_NOT_FOUND", "{path}");
    }
    svc.stop().unwrap();
    assert!(
        store_keys(&dir).is_empty(),
        "the store holds no row: {:?}",
        store_keys(&dir)
    );
    assert!(
        std::fs::read_to_string(dir.join("auto-keys"))
            .unwrap_or_default()
            .is_empty(),
        "no key was recorded"
    );

    // Turned on, a GET creates the key.
    let svc = start(ServeConfig {
        listen: Some("127.0.0.1:0".into()),
        auto_keys: Some(true),
        ..config(&dir)
    });
    assert_eq!(get(svc.addr(), "/v1/segments/fresh").ids().len(), 1);
    svc.stop().unwrap();
    assert_eq!(store_keys(&dir), ["fresh".to_owned()].into());
}

#[test]
fn ranges_count_against_the_auto_key_cap_and_a_restart_keeps_it() {
    let dir = temp_dir("hostile-cap");
    let capped = || ServeConfig {
        auto_keys: Some(true),
        max_auto_keys: Some(3),
        keys: Some(vec!["orders".into()]),
        ..config(&dir)
    };
    let svc = start(capped());
    let a = svc.addr();
    for key in ["r1", "r2"] {
        let r = post(a, &format!("/v1/segments/{key}/ranges?count=10"), "");
        assert_eq!(r.status, 200, "{}", r.body);
    }
    assert_eq!(get(a, "/v1/segments/g1").ids().len(), 1);
    let over = |a, method: &str, path: &str| {
        let r = call(a, method, path, Some(""), &[]);
        assert_eq!(r.status, 409, "{path}: {}", r.body);
        assert_eq!(r.json()["code"], "ERR_LIMIT_EXCEEDED", "{path}");
    };
    over(a, "GET", "/v1/segments/g2");
    over(a, "GET", "/api/segment/get/g2");
    over(a, "POST", "/v1/segments/r3/ranges");
    // Keys already created, and the pre-registered one (not counted), still serve.
    assert_eq!(get(a, "/v1/segments/r1").ids().len(), 1);
    assert_eq!(get(a, "/v1/segments/orders").ids().len(), 1);
    assert_eq!(post(a, "/v1/segments/g1/ranges", "").status, 200);
    let monitor = get(a, "/v1/monitor").json();
    assert_eq!(monitor["segment_keys"]["auto_created"], 3);
    assert_eq!(monitor["segment_keys"]["auto_limit"], 3);
    svc.stop().unwrap();

    // A restart does not reset the cap.
    let svc = start(capped());
    let a = svc.addr();
    over(a, "GET", "/v1/segments/g2");
    over(a, "POST", "/v1/segments/r3/ranges");
    assert_eq!(post(a, "/v1/segments/r2/ranges", "").status, 200);
    svc.stop().unwrap();
    let expected: BTreeSet<String> = ["g1", "orders", "r1", "r2"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(store_keys(&dir), expected);
}

#[test]
fn metrics_stay_parseable_after_hostile_and_many_keys_with_capped_key_series() {
    let dir = temp_dir("hostile-metrics");
    let svc = start(ServeConfig {
        auto_keys: Some(true),
        metrics_max_keys: Some(5),
        ..config(&dir)
    });
    let a = svc.addr();
    for (key, _) in hostile_keys() {
        call(a, "GET", &format!("/v1/segments/{key}"), None, &[]);
        call(
            a,
            "POST",
            &format!("/v1/segments/{key}/ranges"),
            Some(""),
            &[],
        );
    }
    let mut issued = 0u64;
    for i in 0..40 {
        assert_eq!(get(a, &format!("/v1/segments/k{i}?count=2")).ids().len(), 2);
        let r = post(a, &format!("/v1/segments/k{i}/ranges?count=3"), "");
        assert_eq!(r.status, 200, "{}", r.body);
        issued += 5;
    }
    let m = get(a, "/metrics");
    assert_eq!(m.status, 200);
    let samples = parse_with_prometheus_client(&m.body);
    let keys_of = |name: &str| -> BTreeSet<String> {
        samples
            .iter()
            .filter(|(n, l, _)| n == name && l.contains_key("key"))
            .map(|(_, l, _)| l["key"].as_str().unwrap().to_owned())
            .filter(|k| !k.is_empty())
            .collect()
    };
    let ids = keys_of("idmint_ids_issued_total");
    assert!(ids.len() <= 6, "at most 5 keys and `other`: {ids:?}");
    assert!(ids.contains("other"), "{ids:?}");
    let buffered = keys_of("idmint_segment_buffered_values");
    assert!(buffered.len() <= 6, "{buffered:?}");
    assert!(buffered.contains("other"), "{buffered:?}");
    // Nothing is lost: the series sum to every ID issued for a key.
    let total: f64 = samples
        .iter()
        .filter(|(n, l, _)| n == "idmint_ids_issued_total" && l["key"] != "")
        .map(|(_, _, v)| v)
        .sum();
    assert_eq!(total, issued as f64);
    svc.stop().unwrap();
}

#[test]
fn label_values_that_would_break_the_format_are_escaped() {
    // Keys can no longer hold these, but any label value from input is escaped anyway.
    let m = Metrics::new(10);
    let nasty = "a\"b}\nc\\d{e=\"f\"}";
    m.issued("segment", nasty, 3);
    m.issued("segment", "plain", 4);
    let samples = parse_with_prometheus_client(&m.encode());
    let got: Vec<(String, f64)> = samples
        .iter()
        .filter(|(n, _, _)| n == "idmint_ids_issued_total")
        .map(|(_, l, v)| (l["key"].as_str().unwrap().to_owned(), *v))
        .collect();
    assert!(got.contains(&(nasty.to_owned(), 3.0)), "{got:?}");
    assert!(got.contains(&("plain".to_owned(), 4.0)), "{got:?}");
}
