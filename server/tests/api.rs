//! The service over real HTTP on loopback: every endpoint, limits, tokens, client leases and a
//! restart.

mod common;

use std::collections::HashSet;
use std::thread;

use common::{call, config, get, post, start, temp_dir};
use idmint::codec::Codec;
use idmint::Layout;
use idmint_server::config::ServeConfig;

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// Hex IDs carry their `0x` (as the CLI prints them) and `/v1/decode` reads them back, honours
/// `?codec=`, and reads the UUIDs, TypeIDs and ULIDs that `idmint decode` reads.
#[test]
fn hex_ids_round_trip_and_decode_reads_what_the_cli_reads() {
    let dir = temp_dir("hexdecode");
    let svc = start(config(&dir));
    let a = svc.addr();

    let v = get(a, "/v1/snowflake?count=3&format=hex").json();
    for s in v["ids"].as_array().unwrap() {
        let s = s.as_str().unwrap();
        assert!(s.starts_with("0x"), "{s}");
        let d = get(a, &format!("/v1/decode/{s}"));
        assert_eq!(d.status, 200, "{}", d.body);
        let want = u64::from_str_radix(&s[2..], 16).unwrap();
        assert_eq!(d.json()["id"], want.to_string());
        // The same digits without the prefix, with the codec named.
        let bare = get(a, &format!("/v1/decode/{}?codec=hex", &s[2..]));
        assert_eq!(bare.status, 200, "{}", bare.body);
        assert_eq!(bare.json()["id"], want.to_string());
    }
    // Bare hex without a codec: refused at its first character, saying how to read it.
    let bare = get(a, "/v1/decode/1d83a82428800000");
    assert_eq!(bare.status, 400);
    let e = bare.json();
    assert_eq!(e["code"], "ERR_INVALID_ENCODING");
    let msg = e["message"].as_str().unwrap();
    assert!(msg.contains("at character 0"), "{msg}");
    assert!(msg.contains("0x prefix"), "{msg}");
    // `codec` wins over the shape: all-digit text read as base62.
    let d = get(a, "/v1/decode/00000000010?codec=base62&layout=twitter").json();
    assert_eq!(d["id"], "62");
    let e = get(a, "/v1/decode/42?codec=rot13");
    assert_eq!(e.status, 400);

    // 128-bit IDs, as `idmint decode` reads them.
    let u = get(a, "/v1/decode/01890a5d-ac96-774b-bcce-b302099a8057").json();
    assert_eq!(u["kind"], "uuid");
    assert_eq!(u["version"], 7);
    assert_eq!(u["timestamp_ms"], 1_688_096_058_518u64);
    let t = get(a, "/v1/decode/user_01h455vb4pex5vsknk084sn02q").json();
    assert_eq!(t["kind"], "typeid");
    assert_eq!(t["prefix"], "user");
    assert_eq!(t["uuid"], "01890a5d-ac96-774b-bcce-b302099a8057");
    let l = get(a, "/v1/decode/01ARZ3NDEKTSV4RRFFQ69G5FAV").json();
    assert_eq!(l["kind"], "ulid");
    assert_eq!(l["timestamp_ms"], 1_469_922_850_259u64);
    // A KSUID (segmentio/ksuid's README example); 27 characters are a KSUID, even all digits.
    let k = get(a, "/v1/decode/0ujtsYcgvSTl8PAuAdqWYSMnLOv").json();
    assert_eq!(k["kind"], "ksuid");
    assert_eq!(k["timestamp"], 107_608_047u64);
    assert_eq!(k["payload"], "b5a1cd34b5f99d1154fb6853345c9735");
    assert_eq!(k["time"], "2017-10-10T04:00:47.000Z");
    let z = get(a, "/v1/decode/000000000000000000000000042").json();
    assert_eq!(z["kind"], "ksuid");
    assert_eq!(get(a, "/v1/decode/aWgEPTl1tmebfsQzFP4bxwgy80W").status, 400);
}

#[test]
fn ids_in_every_form_and_ranges_never_overlap_served_ids() {
    let dir = temp_dir("forms");
    let svc = start(config(&dir));
    let a = svc.addr();

    let ids = get(a, "/v1/snowflake?count=1000").ids();
    assert_eq!(ids.len(), 1000);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    for codec in [Codec::Hex, Codec::Base32, Codec::Base62] {
        let r = get(a, &format!("/v1/snowflake?count=3&format={}", codec.name()));
        let v = r.json();
        for s in v["ids"].as_array().unwrap() {
            let id = codec.decode(s.as_str().unwrap()).unwrap();
            assert!(id > ids[999], "{codec:?}");
        }
    }
    // A Snowflake ID decodes to now, on the service's node.
    let leaf = Layout::preset("leaf").unwrap();
    let one = get(a, "/api/snowflake/get/anything");
    assert_eq!(one.status, 200);
    assert!(one
        .header("content-type")
        .unwrap()
        .starts_with("text/plain"));
    let id: u64 = one.body.parse().unwrap();
    assert!(leaf.timestamp_ms(id).abs_diff(now_ms()) < 5_000);
    let d = get(a, &format!("/v1/decode/{id}")).json();
    assert_eq!(d["id"], id.to_string());
    assert_eq!(d["layout"], "leaf");
    let node = d["node"].as_u64().unwrap();
    let ld = get(a, &format!("/api/decodeSnowflakeId?snowflakeId={id}")).json();
    assert_eq!(ld["workerId"], node.to_string());
    assert!(ld["timestamp"]
        .as_str()
        .unwrap()
        .starts_with(&leaf.timestamp_ms(id).to_string()));
    let monitor = get(a, "/v1/monitor").json();
    assert_eq!(monitor["snowflake"]["node"], node);
    // The lease's time fence and recorded bound: the window its IDs lie in (the chaos checker
    // reads them). A node never used before has no fence.
    let lease = monitor["snowflake"].as_object().unwrap();
    let fence = &lease["fence_ms"];
    assert!(fence.is_null() || fence.as_u64().is_some_and(|f| f < leaf.timestamp_ms(id)));
    assert!(monitor["snowflake"]["bound_ms"].as_u64().unwrap() >= leaf.timestamp_ms(id));
    let hex = get(a, &format!("/v1/decode/0x{id:x}?layout=leaf")).json();
    assert_eq!(hex["id"], id.to_string());

    // Segment IDs from 8 threads, mixing single IDs, batches, ranges and the Leaf path: no value
    // is handed out twice.
    let seen: Vec<Vec<u64>> = (0..8)
        .map(|t| {
            thread::spawn(move || {
                let mut got = Vec::new();
                for i in 0..30 {
                    match (t + i) % 4 {
                        0 => got.extend(get(a, "/v1/segments/orders").ids()),
                        1 => got.extend(get(a, "/v1/segments/orders?count=100").ids()),
                        2 => {
                            let r = post(a, "/v1/segments/orders/ranges?count=100", "");
                            assert_eq!(r.status, 200, "{}", r.body);
                            let v = r.json();
                            let s: u64 = v["start"].as_str().unwrap().parse().unwrap();
                            let e: u64 = v["end"].as_str().unwrap().parse().unwrap();
                            assert!(s < e && e - s <= 100);
                            got.extend(s..e);
                        }
                        _ => {
                            let r = get(a, "/api/segment/get/orders");
                            assert_eq!(r.status, 200, "{}", r.body);
                            got.push(r.body.parse().unwrap());
                        }
                    }
                }
                got
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect();
    let mut all = HashSet::new();
    let total: usize = seen.iter().map(Vec::len).sum();
    for v in &seen {
        all.extend(v.iter().copied());
    }
    assert_eq!(all.len(), total, "a segment value was handed out twice");
    let store = get(a, "/v1/store").json();
    assert_eq!(store["kind"], "sqlite");
    assert_ne!(store["identity"], "0");
    svc.stop().unwrap();
}

#[test]
fn bad_input_gets_a_typed_answer() {
    let dir = temp_dir("bad");
    let svc = start(ServeConfig {
        max_count: Some(50),
        ..config(&dir)
    });
    let a = svc.addr();
    let expect = |method: &str, path: &str, body: Option<&str>, status: u16, code: &str| {
        let r = call(a, method, path, body, &[]);
        assert_eq!(
            (r.status, r.json()["code"].as_str().unwrap()),
            (status, code),
            "{method} {path}: {}",
            r.body
        );
        r
    };
    expect(
        "GET",
        "/v1/snowflake?count=0",
        None,
        400,
        "ERR_INVALID_ARGUMENT",
    );
    expect(
        "GET",
        "/v1/snowflake?count=51",
        None,
        400,
        "ERR_LIMIT_EXCEEDED",
    );
    expect(
        "GET",
        "/v1/snowflake?count=x",
        None,
        400,
        "ERR_INVALID_ARGUMENT",
    );
    expect(
        "GET",
        "/v1/snowflake?format=rot13",
        None,
        400,
        "ERR_INVALID_CONFIG",
    );
    expect(
        "GET",
        "/v1/segments/k?count=51",
        None,
        400,
        "ERR_LIMIT_EXCEEDED",
    );
    expect(
        "GET",
        "/v1/decode/123?layout=twiter",
        None,
        400,
        "ERR_INVALID_LAYOUT",
    );
    expect(
        "GET",
        "/v1/decode/18446744073709551615",
        None,
        400,
        "ERR_OUT_OF_RANGE",
    );
    expect(
        "GET",
        "/v1/decode/not-an-id!",
        None,
        400,
        "ERR_INVALID_ENCODING",
    );
    expect(
        "GET",
        "/api/decodeSnowflakeId",
        None,
        400,
        "ERR_INVALID_ARGUMENT",
    );
    expect("GET", "/nothing/here", None, 404, "ERR_NOT_FOUND");
    expect(
        "DELETE",
        "/v1/snowflake",
        None,
        405,
        "ERR_METHOD_NOT_ALLOWED",
    );
    expect(
        "POST",
        "/v1/leases",
        Some("{not json"),
        400,
        "ERR_INVALID_ARGUMENT",
    );
    expect(
        "POST",
        "/v1/leases",
        Some(r#"{"nodes": 3}"#),
        400,
        "ERR_INVALID_ARGUMENT",
    );
    expect(
        "POST",
        "/v1/leases",
        Some(r#"{"layout": "twiter"}"#),
        400,
        "ERR_INVALID_LAYOUT",
    );
    expect(
        "POST",
        "/v1/leases",
        Some(r#"{"namespace": "a b"}"#),
        400,
        "ERR_INVALID_ARGUMENT",
    );
    expect(
        "POST",
        "/v1/leases/renew",
        Some(r#"{"lease": "forged"}"#),
        400,
        "ERR_INVALID_ARGUMENT",
    );
    expect(
        "POST",
        "/v1/leases/renew",
        Some("{}"),
        400,
        "ERR_INVALID_ARGUMENT",
    );
    let long = "x".repeat(201);
    expect(
        "GET",
        &format!("/v1/segments/{long}"),
        None,
        400,
        "ERR_INVALID_ARGUMENT",
    );
    // A body over the limit is refused before it is read.
    let big = format!("{{\"namespace\":\"{}\"}}", "a".repeat(20_000));
    assert_eq!(call(a, "POST", "/v1/leases", Some(&big), &[]).status, 413);
    // Still serving.
    assert_eq!(get(a, "/v1/snowflake").ids().len(), 1);
    svc.stop().unwrap();
}

#[test]
fn only_registered_keys_unless_auto_keys() {
    let dir = temp_dir("keys");
    let svc = start(ServeConfig {
        keys: Some(vec!["a".into()]),
        ..config(&dir)
    });
    let a = svc.addr();
    assert_eq!(get(a, "/v1/segments/a").ids().len(), 1);
    for (m, p) in [
        ("GET", "/v1/segments/b"),
        ("GET", "/api/segment/get/b"),
        ("POST", "/v1/segments/b/ranges"),
    ] {
        let r = call(a, m, p, Some(""), &[]);
        assert_eq!(
            (r.status, r.json()["code"].clone()),
            (404, "ERR_NOT_FOUND".into()),
            "{p}"
        );
    }
    let ready = get(a, "/readyz");
    assert_eq!(ready.status, 200, "{}", ready.body);
    svc.stop().unwrap();

    let svc = start(ServeConfig {
        keys: Some(vec!["a".into()]),
        auto_keys: Some(true),
        ..config(&dir)
    });
    assert_eq!(get(svc.addr(), "/v1/segments/b").ids().len(), 1);
    svc.stop().unwrap();
}

#[test]
fn bearer_tokens_guard_every_route_by_scope() {
    let dir = temp_dir("auth");
    let file = dir.join("tokens");
    std::fs::write(
        &file,
        "# NAME TOKEN SCOPES\nall s3cret-s3cret-s3cret all\nranger other-other-other-1 range\n",
    )
    .unwrap();
    let svc = start(ServeConfig {
        tokens_file: Some(file),
        ..config(&dir)
    });
    let a = svc.addr();
    let auth = [("Authorization", "Bearer s3cret-s3cret-s3cret")];
    assert_eq!(get(a, "/v1/snowflake").status, 401);
    assert_eq!(get(a, "/v1/snowflake").json()["code"], "ERR_UNAUTHORIZED");
    assert_eq!(
        call(
            a,
            "GET",
            "/v1/snowflake",
            None,
            &[("Authorization", "Bearer s3cret-s3cret-s3cre")]
        )
        .status,
        401
    );
    assert_eq!(call(a, "GET", "/v1/snowflake", None, &auth).status, 200);
    assert_eq!(call(a, "GET", "/metrics", None, &auth).status, 200);
    assert_eq!(call(a, "GET", "/metrics", None, &[]).status, 401);
    assert_eq!(get(a, "/healthz").status, 200, "probes stay open");
    assert_eq!(get(a, "/readyz").status, 200, "probes stay open");
    let ranger = [("Authorization", "Bearer other-other-other-1")];
    assert_eq!(
        call(a, "POST", "/v1/segments/k/ranges", Some(""), &ranger).status,
        200
    );
    let r = call(a, "GET", "/v1/snowflake", None, &ranger);
    assert_eq!(
        (r.status, r.json()["code"].as_str()),
        (403, Some("ERR_FORBIDDEN"))
    );
    svc.stop().unwrap();
}

fn grant(a: std::net::SocketAddr, body: &str) -> common::Answer {
    post(a, "/v1/leases", body)
}

#[test]
fn client_leases_are_distinct_fenced_and_lost_when_superseded() {
    let dir = temp_dir("leases");
    // Two nodes in this layout.
    let layout = "time=41@1ms,node=1,seq=12,epoch=2020-01-01";
    let svc = start(common::open_to_clients(config(&dir), "t", layout));
    let a = svc.addr();
    let body = format!(r#"{{"namespace":"t","layout":"{layout}","ttl_ms":5000}}"#);
    let g1 = grant(a, &body);
    let g2 = grant(a, &body);
    assert_eq!(
        (g1.status, g2.status),
        (201, 201),
        "{} {}",
        g1.body,
        g2.body
    );
    let (g1, g2) = (g1.json(), g2.json());
    assert_ne!(g1["node"], g2["node"]);
    assert_eq!(g1["ttl_ms"], 5000);
    let bound1 = g1["bound_ms"].as_u64().unwrap();
    assert!(
        bound1 >= now_ms() + 4_000,
        "the bound covers the lease's life"
    );
    if let Some(f) = g1["fence_ms"].as_u64() {
        assert!(bound1 > f);
    }
    let full = grant(a, &body);
    assert_eq!(
        (full.status, full.json()["code"].clone()),
        (503, "ERR_NO_FREE_NODE".into()),
        "every node held is a passing state"
    );
    assert!(full.header("retry-after").is_some());

    // The monitor page shows both.
    let m = get(a, "/v1/monitor").json();
    let shown: Vec<_> = m["client_leases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["namespace"] == "t")
        .collect();
    assert_eq!(shown.len(), 2);
    let page = get(a, "/cache");
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    assert!(page.body.contains("Client leases") && page.body.contains("<td>t</td>"));

    // Renewal raises the bound; it covers what the client says it issued, up to the bound it
    // was granted: a claim beyond is capped there.
    let token1 = g1["lease"].as_str().unwrap().to_owned();
    let r = post(
        a,
        "/v1/leases/renew",
        &format!(
            r#"{{"lease":"{token1}","issued_up_to_ms":{}}}"#,
            bound1 + 20_000
        ),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let bound2 = r.json()["bound_ms"].as_u64().unwrap();
    assert!(
        bound2 >= bound1 && bound2 < bound1 + 20_000,
        "{bound1} {bound2}"
    );

    // Release records the final bound; the next holder of that node is fenced past it.
    let missing = post(
        a,
        "/v1/leases/release",
        &format!(r#"{{"lease":"{token1}"}}"#),
    );
    assert_eq!(missing.status, 400);
    let rel = post(
        a,
        "/v1/leases/release",
        &format!(r#"{{"lease":"{token1}","issued_up_to_ms":{bound2}}}"#),
    );
    assert_eq!(rel.status, 204, "{}", rel.body);
    let g3 = grant(a, &body);
    assert_eq!(g3.status, 201, "{}", g3.body);
    let g3 = g3.json();
    assert_eq!(g3["node"], g1["node"]);
    assert!(
        g3["fence_ms"].as_u64().unwrap() >= bound2,
        "the new holder is fenced"
    );
    // The released token is dead for good.
    let dead = post(a, "/v1/leases/renew", &format!(r#"{{"lease":"{token1}"}}"#));
    assert_eq!(
        (dead.status, dead.json()["code"].clone()),
        (409, "ERR_LEASE_LOST".into())
    );

    // The service's own namespace, and layouts not on the list, are not open to clients.
    for body in [r#"{"namespace":"default"}"#, r#"{"layout":"leaf"}"#] {
        let r = grant(a, body);
        assert_eq!(
            (r.status, r.json()["code"].clone()),
            (400, "ERR_INVALID_ARGUMENT".into()),
            "{body}: {}",
            r.body
        );
    }
    svc.stop().unwrap();
}

#[test]
fn a_fixed_node_source_grants_no_leases() {
    let dir = temp_dir("fixed");
    let svc = start(ServeConfig {
        lease: Some("static:5".into()),
        ..config(&dir)
    });
    let a = svc.addr();
    let r = grant(a, "");
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (501, "ERR_INVALID_CONFIG".into())
    );
    let id = get(a, "/v1/snowflake").ids()[0];
    assert_eq!(get(a, &format!("/v1/decode/{id}")).json()["node"], 5);
    svc.stop().unwrap();
}

#[test]
fn a_restart_resumes_above_everything_served() {
    let dir = temp_dir("restart");
    let svc = start(config(&dir));
    let a = svc.addr();
    let seg1 = get(a, "/v1/segments/orders?count=1000").ids();
    let snow1 = get(a, "/v1/snowflake?count=1000").ids();
    svc.stop().unwrap();
    assert!(dir.join("segments.journal").exists());

    let svc = start(config(&dir));
    let a = svc.addr();
    let seg2 = get(a, "/v1/segments/orders?count=1000").ids();
    let snow2 = get(a, "/v1/snowflake?count=1000").ids();
    assert!(
        seg2[0] > *seg1.last().unwrap(),
        "segment values resume above those served"
    );
    assert!(
        snow2[0] > *snow1.last().unwrap(),
        "the re-leased node is fenced past its last IDs"
    );
    svc.stop().unwrap();
}

#[test]
fn two_services_on_one_data_dir_are_refused() {
    let dir = temp_dir("twice");
    let svc = start(config(&dir));
    let second =
        idmint_server::start(idmint_server::config::Settings::resolve(config(&dir)).unwrap());
    let err = second
        .err()
        .expect("a second service on the same data dir must not start");
    let msg = err.to_string();
    let shown = dir.display().to_string();
    assert!(msg.contains(&format!("data directory {shown} ")), "{msg}");
    assert!(msg.contains("another `idmint serve`"), "{msg}");
    assert!(msg.contains("--data-dir"), "{msg}");
    svc.stop().unwrap();
}

#[test]
fn the_example_config_is_valid() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/server/idmint.toml");
    let cfg = ServeConfig::from_file(&path).unwrap();
    let s = idmint_server::config::Settings::resolve(cfg).unwrap();
    assert_eq!(s.keys, ["orders", "users"]);
    assert_eq!(s.listen.port(), 7600);
}

#[test]
fn slow_and_oversized_clients_cannot_hold_the_service() {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::{Duration, Instant};

    let dir = temp_dir("slow");
    let svc = start(ServeConfig {
        header_timeout_ms: Some(300),
        max_connections: Some(2),
        ..config(&dir)
    });
    let a = svc.addr();
    // Two clients take every connection slot and never finish their request heads.
    let mut slow: Vec<TcpStream> = (0..2)
        .map(|_| {
            let mut s = TcpStream::connect(a).unwrap();
            s.write_all(b"GET /v1/snowflake HTTP/1.1\r\nHost: x\r\n")
                .unwrap();
            s
        })
        .collect();
    // A third is served once the header deadline has closed them.
    let t = Instant::now();
    assert_eq!(get(a, "/v1/snowflake").ids().len(), 1);
    assert!(t.elapsed() < Duration::from_secs(10));
    for s in &mut slow {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut buf = Vec::new();
        // Closed by the service (possibly after a 408): the read ends.
        let _ = s.read_to_end(&mut buf);
        let text = String::from_utf8_lossy(&buf);
        assert!(
            text.is_empty() || text.starts_with("HTTP/1.1 408"),
            "{text}"
        );
    }
    // A request head over the limit is refused, and the service carries on.
    let big = "a".repeat(64 * 1024);
    let r = call(a, "GET", "/v1/snowflake", None, &[("X-Big", &big)]);
    assert_eq!(r.status, 431);
    assert_eq!(get(a, "/v1/snowflake").ids().len(), 1);
    svc.stop().unwrap();
}

#[test]
fn a_release_never_lowers_the_record_below_the_grants_fence() {
    let dir = temp_dir("fence");
    let svc = start(common::open_to_clients(
        config(&dir),
        common::FENCE_NAMESPACE,
        common::FENCE_LAYOUT,
    ));
    common::release_keeps_the_fence(&svc);
    svc.stop().unwrap();
}

/// Waits (bounded) until `/readyz` answers 200.
fn wait_ready(a: std::net::SocketAddr) {
    for _ in 0..1000 {
        if get(a, "/readyz").status == 200 {
            return;
        }
        thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("not ready: {}", get(a, "/readyz").body);
}

/// Warming a pre-registered key fills its buffers without taking a value: on a fresh data
/// directory the first ID is 1, and a range starts after the service's first buffer (the root
/// README's example).
#[test]
fn a_fresh_service_serves_the_first_value_of_a_pre_registered_key() {
    let dir = temp_dir("warm");
    let svc = start(ServeConfig {
        keys: Some(vec!["orders".into()]),
        ..config(&dir)
    });
    let a = svc.addr();
    wait_ready(a);
    let first = get(a, "/api/segment/get/orders");
    assert_eq!((first.status, first.body.as_str()), (200, "1"));
    let r = post(a, "/v1/segments/orders/ranges?count=1000", "").json();
    assert_eq!(
        (r["start"].as_str(), r["end"].as_str()),
        (Some("1001"), Some("2001")),
        "{r}"
    );
    svc.stop().unwrap();
}

/// Whether `s` holds a UTC ISO-8601 date with milliseconds (`2026-01-02T03:04:05.678Z`).
fn has_iso_date(s: &str) -> bool {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd:dd.dddZ";
    s.as_bytes().windows(SHAPE.len()).any(|w| {
        w.iter().zip(SHAPE).all(|(c, p)| {
            if *p == b'd' {
                c.is_ascii_digit()
            } else {
                c == p
            }
        })
    })
}

/// Runs headless Chromium on `url` with `args` (bounded: killed after a minute); its stdout.
fn chromium(url: &str, args: &[&str]) -> String {
    use std::process::{Command, Stdio};
    let profile = temp_dir("chromium-profile");
    let mut child = Command::new("/usr/bin/chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1200,900",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("Chromium (/usr/bin/chromium) is needed for the monitor page test");
    let mut out = String::new();
    let mut stdout = child.stdout.take().unwrap();
    let reader = thread::spawn(move || {
        use std::io::Read;
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    for _ in 0..600 {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        thread::sleep(std::time::Duration::from_millis(100));
    }
    if child.try_wait().unwrap().is_none() {
        let _ = child.kill();
        let _ = child.wait();
        panic!("Chromium did not finish within a minute");
    }
    out.push_str(&reader.join().unwrap());
    let _ = std::fs::remove_dir_all(profile);
    out
}

/// The monitor page in a real browser: a rate chart in inline SVG, dates and human durations,
/// the layout's end, client leases against their quota, nothing from input unescaped, and a
/// CSP that lets nothing load or run. The screenshot is kept in `target/tmp/monitor.png`.
#[test]
fn the_monitor_page_renders_in_a_browser() {
    let dir = temp_dir("monitor");
    let svc = start(common::open_to_clients(
        ServeConfig {
            keys: Some(vec!["orders".into()]),
            auto_keys: Some(true),
            ..config(&dir)
        },
        "web",
        "js53",
    ));
    let a = svc.addr();
    for i in 0..20 {
        assert_eq!(get(a, "/v1/segments/orders?count=50").ids().len(), 50);
        assert_eq!(
            get(a, &format!("/v1/snowflake?count={}", i + 1))
                .ids()
                .len(),
            i + 1
        );
    }
    let lease = post(a, "/v1/leases", r#"{"namespace":"web","layout":"js53"}"#);
    assert_eq!(lease.status, 201, "{}", lease.body);

    let page = get(a, "/cache");
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-security-policy").as_deref(),
        Some(idmint_server::probes::MONITOR_CSP)
    );
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));

    let url = format!("http://{a}/cache");
    let dom = chromium(&url, &["--dump-dom"]);
    for needle in [
        "<svg id=\"rate-requests\"",
        "<svg id=\"rate-ids\"",
        "IDs per second",
        "IDs run out at (UTC)",
        "years",
        "Client leases per namespace",
        "<td>web</td><td>1 / 16</td>",
        "<td>orders</td>",
    ] {
        assert!(dom.contains(needle), "{needle:?} not in the page:\n{dom}");
    }
    assert!(
        dom.contains("<rect") && dom.contains("/s</title>"),
        "no bars:\n{dom}"
    );
    assert!(has_iso_date(&dom), "no UTC date:\n{dom}");
    assert!(!dom.contains("_ms"), "raw milliseconds on the page:\n{dom}");
    // Expiries as human durations: "29 s", "9.5 s", ...
    assert!(
        dom.contains(" s</td>"),
        "no human duration in the page:\n{dom}"
    );

    let shot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("monitor.png");
    let _ = std::fs::remove_file(&shot);
    chromium(&url, &[&format!("--screenshot={}", shot.display())]);
    let png = std::fs::read(&shot).expect("Chromium wrote no screenshot");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(png.len() > 10_000, "an empty page? {} bytes", png.len());
    svc.stop().unwrap();
}
