//! Client leases against a client that edits its token, claims what it never issued, or takes
//! more than its share: the service checks everything against what it signed and recorded,
//! so a liar can waste its own IDs but never make two honest clients repeat one.

use std::collections::HashSet;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use idmint::{Config, Layout, LeaseWindow, Snowflake};
use idmint_server::config::ServeConfig;
use idmint_server::lease_token::{TokenKey, KEY_FILE};
use proptest::prelude::*;

use crate::common::{self, call_from, config, get, post, start, temp_dir, Answer};

/// A two-node layout: with one node held throughout, every grant gets the other.
const TWO: &str = "time=41@1ms,node=1,seq=12,epoch=2020-01-01";
const NS: &str = "web";

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn open(dir: &std::path::Path, layout: &str) -> ServeConfig {
    common::open_to_clients(config(dir), NS, layout)
}

fn grant(a: SocketAddr, layout: &str, ttl: u64) -> serde_json::Value {
    let r = post(
        a,
        "/v1/leases",
        &format!(r#"{{"layout":"{layout}","ttl_ms":{ttl}}}"#),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()
}

fn renew(a: SocketAddr, token: &str, issued: u64) -> Answer {
    post(
        a,
        "/v1/leases/renew",
        &format!(r#"{{"lease":"{token}","issued_up_to_ms":{issued}}}"#),
    )
}

fn release(a: SocketAddr, token: &str, issued: u64) -> Answer {
    post(
        a,
        "/v1/leases/release",
        &format!(r#"{{"lease":"{token}","issued_up_to_ms":{issued}}}"#),
    )
}

fn refused(r: &Answer, what: &str) {
    assert_eq!(
        (r.status, r.json()["code"].as_str().unwrap_or("")),
        (400, "ERR_INVALID_ARGUMENT"),
        "{what}: {}",
        r.body
    );
}

/// The token's fields, in order: namespace, node, fencing token, owner, epoch, TTL, fence,
/// holder, peer, token name.
fn fields(token: &str) -> (Vec<String>, String) {
    let mut parts = token.split('.');
    assert_eq!(parts.next(), Some("v3"));
    let payload = B64.decode(parts.next().unwrap()).unwrap();
    let mac = parts.next().unwrap().to_owned();
    let text = String::from_utf8(payload).unwrap();
    (text.split('~').map(str::to_owned).collect(), mac)
}

/// `token` with field `i` replaced by `value`, its MAC kept: what a client that edits its
/// token sends.
fn edited(token: &str, i: usize, value: &str) -> String {
    let (mut f, mac) = fields(token);
    f[i] = value.to_owned();
    format!("v3.{}.{mac}", B64.encode(f.join("~")))
}

/// The issue's attack: B releases the node at its bound; A gets the node, rewrites its token's
/// fence to none and releases saying it issued nothing; C must still be fenced past B.
#[test]
fn an_edited_token_cannot_lower_a_nodes_fence() {
    let dir = temp_dir("hostile-fence");
    let svc = start(open(&dir, TWO));
    let a = svc.addr();
    let _held = grant(a, TWO, 5_000);
    let b = grant(a, TWO, 5_000);
    let b_token = b["lease"].as_str().unwrap();
    let b_bound = renew(a, b_token, now_ms()).json()["bound_ms"]
        .as_u64()
        .unwrap();
    assert_eq!(release(a, b_token, b_bound).status, 204);

    let liar = grant(a, TWO, 5_000);
    assert_eq!(liar["node"], b["node"]);
    assert!(liar["fence_ms"].as_u64().unwrap() >= b_bound);
    let token = liar["lease"].as_str().unwrap();
    for (i, value, what) in [
        (6, "-", "no fence"),
        (6, "0", "fence 0"),
        (5, "10000000000", "a TTL of 115 days"),
        (1, "0", "another node"),
        (2, "1", "another fencing token"),
    ] {
        let forged = edited(token, i, value);
        refused(&release(a, &forged, 0), what);
        refused(&renew(a, &forged, 0), what);
    }
    // Its own token, honestly signed, saying it issued nothing: the record stays.
    assert_eq!(release(a, token, 0).status, 204);
    let c = grant(a, TWO, 5_000);
    assert_eq!(c["node"], b["node"]);
    let fence = c["fence_ms"].as_u64().unwrap();
    assert!(
        fence >= b_bound,
        "C fenced at {fence}, B issued up to {b_bound}"
    );
    svc.stop().unwrap();
}

/// A TTL is kept within 1–300 s at the grant and at every renewal: asking for decades or
/// editing the token's TTL gets nothing beyond.
#[test]
fn no_client_holds_a_node_for_decades() {
    let dir = temp_dir("hostile-ttl");
    let svc = start(open(&dir, TWO));
    let a = svc.addr();
    let g = grant(a, TWO, 10_000_000_000);
    assert_eq!(g["ttl_ms"], 300_000);
    let token = g["lease"].as_str().unwrap();
    let r = renew(a, token, 0);
    assert_eq!(r.status, 200, "{}", r.body);
    let w = r.json();
    assert_eq!(w["ttl_ms"], 300_000);
    // The bound runs at most the skew allowance (60 s) and one TTL ahead.
    assert!(w["bound_ms"].as_u64().unwrap() <= now_ms() + 60_000 + 300_000);
    refused(
        &renew(a, &edited(token, 5, "10000000000"), 0),
        "an edited TTL",
    );
    svc.stop().unwrap();
}

/// What a client claims to have issued is capped at the bound the service granted it: one
/// request cannot fence a node 52 million days ahead, by renewal or by release.
#[test]
fn one_request_cannot_poison_a_node() {
    let dir = temp_dir("hostile-poison");
    let svc = start(open(&dir, TWO));
    let a = svc.addr();
    let _held = grant(a, TWO, 2_000);
    let g = grant(a, TWO, 2_000);
    let token = g["lease"].as_str().unwrap();
    let granted = g["bound_ms"].as_u64().unwrap();
    let r = renew(a, token, 1 << 52).json();
    let bound = r["bound_ms"].as_u64().unwrap();
    assert!(
        bound <= granted.max(now_ms() + 2_000 + 60_000),
        "renewal bound {bound}"
    );
    assert_eq!(release(a, token, 1 << 52).status, 204);
    let next = grant(a, TWO, 2_000);
    assert_eq!(next["node"], g["node"]);
    let fence = next["fence_ms"].as_u64().unwrap();
    assert!(
        fence <= bound,
        "the next holder is fenced at the last granted bound {bound}, not at {fence}"
    );
    svc.stop().unwrap();
    // Nor after a restart: the record is what the store kept.
    let svc = start(open(&dir, TWO));
    let a = svc.addr();
    let again = grant(a, TWO, 2_000);
    assert!(again["fence_ms"].as_u64().unwrap_or(0) <= bound);
    svc.stop().unwrap();
}

fn peer(last: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, last))
}

fn grant_from(from: IpAddr, a: SocketAddr, body: &str) -> Answer {
    call_from(from, a, "POST", "/v1/leases", Some(body), &[])
}

/// Each address holds at most its quota (4 by default); when every node of the client space
/// is held, a grant is a 503 with `Retry-After`; the service's own node lives in another
/// namespace, so it keeps minting and stays ready, also across a restart.
#[test]
fn quotas_and_exhaustion_leave_the_service_its_node() {
    let dir = temp_dir("hostile-quota");
    let svc = start(config(&dir));
    let a = svc.addr();
    // js53, the default client layout, has 16 nodes: four addresses take four each.
    let mut held = Vec::new();
    for p in 0..4u8 {
        for _ in 0..4 {
            let r = grant_from(peer(10 + p), a, r#"{"ttl_ms":1000}"#);
            assert_eq!(r.status, 201, "{}", r.body);
            assert_eq!(r.json()["namespace"], "clients");
            held.push(r.json());
        }
        let over = grant_from(peer(10 + p), a, "{}");
        assert_eq!(
            (over.status, over.json()["code"].clone()),
            (429, "ERR_LIMIT_EXCEEDED".into()),
            "{}",
            over.body
        );
        assert!(over.header("retry-after").is_some());
    }
    let full = grant_from(peer(20), a, "{}");
    assert_eq!(
        (full.status, full.json()["code"].clone()),
        (503, "ERR_NO_FREE_NODE".into()),
        "{}",
        full.body
    );
    assert!(full.header("retry-after").is_some());
    assert_eq!(get(a, "/v1/snowflake").ids().len(), 1);
    assert_eq!(get(a, "/readyz").status, 200);
    // A released lease keeps its place in the quota until the bound recorded for it passes
    // (its node stays fenced until then), and frees it after.
    let t = held[0]["lease"].as_str().unwrap();
    let r = call_from(
        peer(10),
        a,
        "POST",
        "/v1/leases/release",
        Some(&format!(r#"{{"lease":"{t}","issued_up_to_ms":0}}"#)),
        &[],
    );
    assert_eq!(r.status, 204, "{}", r.body);
    let bound = held[0]["bound_ms"].as_u64().unwrap();
    let again = grant_from(peer(10), a, r#"{"ttl_ms":1000}"#);
    if now_ms() < bound {
        assert_eq!(again.status, 429, "{}", again.body);
        let t = Instant::now();
        while grant_from(peer(10), a, r#"{"ttl_ms":1000}"#).status != 201 {
            assert!(
                t.elapsed() < Duration::from_secs(30),
                "the quota place never came back"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    } else {
        assert_eq!(again.status, 201, "{}", again.body);
    }
    svc.stop().unwrap();
    let svc = start(config(&dir));
    assert_eq!(get(svc.addr(), "/readyz").status, 200);
    assert_eq!(get(svc.addr(), "/v1/snowflake").ids().len(), 1);
    svc.stop().unwrap();
}

#[test]
fn the_services_own_namespace_is_never_open_to_clients() {
    let dir = temp_dir("hostile-own-ns");
    let err = idmint_server::config::Settings::resolve(ServeConfig {
        client_namespaces: Some(vec!["default".into()]),
        ..config(&dir)
    })
    .unwrap_err();
    assert!(err.to_string().contains("own"), "{err}");
    let err = idmint_server::config::Settings::resolve(ServeConfig {
        lease_key: Some("not-a-reference".into()),
        ..config(&dir)
    })
    .unwrap_err();
    assert!(err.to_string().contains("@env:"), "{err}");
}

/// The key that signs tokens, as the service on `dir` uses it.
fn key(dir: &std::path::Path) -> TokenKey {
    let _ = KEY_FILE;
    TokenKey::generated(dir).unwrap()
}

/// Every byte of a token replaced, removed or doubled, and every field edited: the service
/// refuses each, unless the text still means exactly the honest token (then it acts as for
/// it); the honest token keeps working throughout.
#[test]
fn every_mutation_of_a_token_is_refused_or_harmless() {
    let dir = temp_dir("hostile-mutate");
    let svc = start(open(&dir, TWO));
    let a = svc.addr();
    let g = grant(a, TWO, 30_000);
    let token = g["lease"].as_str().unwrap().to_owned();
    let key = key(&dir);
    let honest = key.verify(&token).unwrap();
    let check = |t: &str, what: &str| {
        let same = key.verify(t).ok() == Some(honest.clone());
        let r = renew(a, t, 0);
        if same {
            assert_eq!(r.status, 200, "{what}: {}", r.body);
        } else {
            refused(&r, what);
            refused(&release(a, t, 0), what);
        }
    };
    let bytes = token.as_bytes();
    for i in 0..bytes.len() {
        for sub in [b'A', b'_', b'.', b'~', b'0'] {
            if bytes[i] != sub {
                let mut m = bytes.to_vec();
                m[i] = sub;
                check(&String::from_utf8(m).unwrap(), &format!("byte {i} = {sub}"));
            }
        }
        let mut cut = bytes.to_vec();
        cut.remove(i);
        check(
            &String::from_utf8(cut).unwrap(),
            &format!("byte {i} removed"),
        );
        let mut twice = bytes.to_vec();
        twice.insert(i, bytes[i]);
        check(
            &String::from_utf8(twice).unwrap(),
            &format!("byte {i} doubled"),
        );
    }
    let (f, _) = fields(&token);
    for (i, field) in f.iter().enumerate() {
        for value in [
            "",
            "-",
            "0",
            "1",
            "ffffffffffffffff",
            "18446744073709551616",
        ] {
            if field != value {
                check(&edited(&token, i, value), &format!("field {i} = {value:?}"));
            }
        }
    }
    // Still the client's lease.
    assert_eq!(renew(a, &token, 0).status, 200);
    assert_eq!(release(a, &token, 0).status, 204);
    svc.stop().unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random edits of several bytes at once.
    #[test]
    fn random_token_edits_are_refused_or_harmless(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), 0x21u8..0x7f), 1..6)
    ) {
        use std::sync::OnceLock;
        static SVC: OnceLock<(Mutex<idmint_server::Running>, std::path::PathBuf, String)> =
            OnceLock::new();
        let (svc, dir, token) = SVC.get_or_init(|| {
            let dir = temp_dir("hostile-proptest");
            let svc = start(open(&dir, TWO));
            let token = grant(svc.addr(), TWO, 300_000)["lease"].as_str().unwrap().to_owned();
            (Mutex::new(svc), dir, token)
        });
        let a = svc.lock().unwrap().addr();
        let mut m = token.as_bytes().to_vec();
        for (at, b) in edits {
            let i = at.index(m.len());
            m[i] = b;
        }
        let t = String::from_utf8(m).unwrap();
        let key = key(dir);
        let same = key.verify(&t).ok() == key.verify(token).ok();
        let r = renew(a, &t, 0);
        if same {
            prop_assert_eq!(r.status, 200);
        } else {
            prop_assert_eq!(r.status, 400, "{}", r.body);
        }
    }
}

/// What one honest client did: the IDs it handed out, and how many leases it got.
#[derive(Default)]
struct Served {
    ids: Vec<u64>,
    leases: u32,
}

fn mono(start: Instant) -> u64 {
    start.elapsed().as_millis() as u64
}

fn u(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap()
}

/// An honest browser-style client, as the browser package behaves: lease, mint only inside
/// the window (after the fence, up to the bound, before the deadline), renew when due, release
/// with the latest time issued; again and again until `until`, and on until it was served
/// (minted at least one ID), up to `last`.
fn honest(a: SocketAddr, from: IpAddr, until: Instant, last: Instant, start: Instant) -> Served {
    let layout = Layout::parse("js53").unwrap();
    let mut out = Served::default();
    let going = |out: &Served| {
        let now = Instant::now();
        now < until || (out.ids.is_empty() && now < last)
    };
    while going(&out) {
        let sent = mono(start);
        let r = grant_from(from, a, r#"{"ttl_ms":1500}"#);
        if r.status != 201 {
            assert!(
                [429, 503].contains(&r.status),
                "an honest grant refused: {}",
                r.body
            );
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        out.leases += 1;
        let g = r.json();
        let token = g["lease"].as_str().unwrap().to_owned();
        let fence = g["fence_ms"].as_u64();
        let mut w = LeaseWindow::new(
            u(&g["node"]),
            fence,
            u(&g["bound_ms"]),
            sent,
            u(&g["ttl_ms"]),
            g["renew_after_ms"].as_u64(),
        )
        .unwrap();
        let mut cfg = Config::new(layout).node(u(&g["node"]));
        if let Some(f) = fence {
            cfg = cfg.fence_ms(f);
        }
        let gen = Snowflake::new(cfg).unwrap();
        let hold = Instant::now() + Duration::from_millis(800 + (u(&g["node"]) % 4) * 400);
        let mut lost = false;
        let minted_before = out.ids.len();
        // Hold for a while, and until the fence has passed and this lease minted something.
        while going(&out) && (Instant::now() < hold || out.ids.len() == minted_before) {
            if w.renew_in(mono(start)) == 0 {
                let sent = mono(start);
                let body = match w.issued_ms() {
                    Some(i) => format!(r#"{{"lease":"{token}","issued_up_to_ms":{i}}}"#),
                    None => format!(r#"{{"lease":"{token}"}}"#),
                };
                let r = call_from(from, a, "POST", "/v1/leases/renew", Some(&body), &[]);
                match r.status {
                    200 => {
                        let v = r.json();
                        w.renewed(
                            u(&v["bound_ms"]),
                            sent,
                            u(&v["ttl_ms"]),
                            v["renew_after_ms"].as_u64(),
                        )
                        .unwrap();
                    }
                    409 => {
                        lost = true;
                        break;
                    }
                    _ => {}
                }
            }
            for _ in 0..64 {
                let Ok(id) = gen.try_next_id() else { break };
                if w.admit(layout.timestamp_ms(id), mono(start)).is_ok() {
                    out.ids.push(id);
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if !lost {
            let upto = w.issued_ms().or(fence).unwrap_or(0);
            let body = format!(r#"{{"lease":"{token}","issued_up_to_ms":{upto}}}"#);
            let _ = call_from(from, a, "POST", "/v1/leases/release", Some(&body), &[]);
        }
        // A page closed, another opened a moment later.
        std::thread::sleep(Duration::from_millis(100));
    }
    out
}

/// A liar on its own address: takes leases (up to its quota) and then edits tokens, claims it
/// issued nothing or everything, pushes its clock far ahead, replays released tokens, asks for
/// absurd TTLs, and abandons leases.
fn liar(a: SocketAddr, from: IpAddr, until: Instant, seed: u64) -> (u32, u32) {
    let mut rng = seed;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    // Tokens held, with whether their TTL is the shortest (so abandoning one frees the quota
    // soon: the liar keeps attacking instead of waiting out 300 s leases).
    let mut held: Vec<(String, bool)> = Vec::new();
    let mut dead: Vec<String> = Vec::new();
    let (mut attacks, mut leases) = (0, 0);
    let send = |path: &str, body: String| call_from(from, a, "POST", path, Some(&body), &[]);
    while Instant::now() < until {
        if held.len() < 4 {
            let ttl = [1_000u64, 300_000, 10_000_000_000][(next() % 3) as usize];
            let client = [0u64, now_ms() + 10_000_000, u64::MAX][(next() % 3) as usize];
            let r = send(
                "/v1/leases",
                format!(r#"{{"ttl_ms":{ttl},"client_time_ms":{client}}}"#),
            );
            if r.status == 201 {
                leases += 1;
                held.push((r.json()["lease"].as_str().unwrap().to_owned(), ttl == 1_000));
            }
        }
        if held.is_empty() {
            // Nothing held: replay and edit tokens of leases it gave up.
            if let Some(d) = dead.get((next() % dead.len().max(1) as u64) as usize) {
                let forged = edited(d, 6, "-");
                for t in [d, &forged] {
                    drop(send(
                        "/v1/leases/release",
                        format!(r#"{{"lease":"{t}","issued_up_to_ms":0}}"#),
                    ));
                }
                attacks += 1;
            }
            std::thread::sleep(Duration::from_millis(10));
            continue;
        }
        let i = (next() % held.len() as u64) as usize;
        let (t, short) = held[i].clone();
        let claim = [0u64, 1, 1 << 52, u64::MAX, now_ms() - 100_000][(next() % 5) as usize];
        let client = [0u64, now_ms() + 10_000_000, u64::MAX][(next() % 3) as usize];
        match next() % 8 {
            0 => drop(send(
                "/v1/leases/release",
                format!(
                    r#"{{"lease":"{}","issued_up_to_ms":0}}"#,
                    edited(&t, 6, "-")
                ),
            )),
            1 => drop(send(
                "/v1/leases/renew",
                format!(
                    r#"{{"lease":"{}","issued_up_to_ms":{claim}}}"#,
                    edited(&t, 5, "99999999999")
                ),
            )),
            2 => drop(send(
                "/v1/leases/renew",
                format!(r#"{{"lease":"{t}","issued_up_to_ms":{claim},"client_time_ms":{client}}}"#),
            )),
            3 => {
                drop(send(
                    "/v1/leases/release",
                    format!(r#"{{"lease":"{t}","issued_up_to_ms":{claim}}}"#),
                ));
                dead.push(held.swap_remove(i).0);
            }
            4 => {
                drop(send(
                    "/v1/leases/release",
                    format!(r#"{{"lease":"{t}","issued_up_to_ms":0}}"#),
                ));
                dead.push(held.swap_remove(i).0);
            }
            5 => {
                for d in dead.iter().rev().take(4) {
                    drop(send(
                        "/v1/leases/release",
                        format!(r#"{{"lease":"{d}","issued_up_to_ms":0}}"#),
                    ));
                    drop(send(
                        "/v1/leases/renew",
                        format!(r#"{{"lease":"{d}","issued_up_to_ms":{claim}}}"#),
                    ));
                }
            }
            6 => drop(send(
                "/v1/leases/renew",
                format!(
                    r#"{{"lease":"{}","issued_up_to_ms":{claim}}}"#,
                    edited(&t, 1, "0")
                ),
            )),
            // Abandoned: never renewed again, never released.
            _ if short => drop(held.swap_remove(i)),
            _ => {}
        }
        attacks += 1;
        std::thread::sleep(Duration::from_millis(5));
    }
    (attacks, leases)
}

/// Sixteen honest browser clients and one liar share the 16 nodes of `js53`: no honest ID
/// repeats, and every honest client is served.
#[test]
fn sixteen_honest_clients_and_a_liar_never_repeat_an_id() {
    let dir = temp_dir("hostile-sim");
    let svc = start(config(&dir));
    let a = svc.addr();
    let start_at = Instant::now();
    let until = start_at + Duration::from_secs(8);
    // A client that drew fenced nodes all along goes on until it is served, up to this.
    let last = start_at + Duration::from_secs(60);
    let seed = now_ms() | 1;
    eprintln!("liar seed {seed}");
    let served: Arc<Mutex<Vec<Served>>> = Arc::default();
    let mut threads = Vec::new();
    for i in 0..16u8 {
        let served = served.clone();
        threads.push(std::thread::spawn(move || {
            let s = honest(a, peer(100 + i), until, last, start_at);
            served.lock().unwrap().push(s);
        }));
    }
    let liar = std::thread::spawn(move || liar(a, peer(66), until, seed));
    for t in threads {
        t.join().unwrap();
    }
    let (attacks, liar_leases) = liar.join().unwrap();
    let served = served.lock().unwrap();
    let mut seen = HashSet::new();
    let mut total = 0;
    for s in served.iter() {
        assert!(
            s.leases > 0 && !s.ids.is_empty(),
            "an honest client was not served"
        );
        for &id in &s.ids {
            assert!(
                seen.insert(id),
                "duplicate honest ID {id} (liar seed {seed})"
            );
            total += 1;
        }
    }
    assert!(attacks > 0 && liar_leases > 0, "the liar never got to lie");
    eprintln!("{total} honest IDs; the liar took {liar_leases} leases and made {attacks} attacks; 0 duplicates");
    svc.stop().unwrap();
}

/// The browser example's service config opens exactly what its page asks for: namespace
/// `example` and the layout of `examples/browser/layout.js`.
#[test]
fn the_browser_examples_config_opens_what_its_page_asks_for() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let cfg = ServeConfig::from_file(&root.join("examples/browser/idmint.toml")).unwrap();
    let s = idmint_server::config::Settings::resolve(cfg).unwrap();
    let js = std::fs::read_to_string(root.join("examples/browser/layout.js")).unwrap();
    let spec = js
        .lines()
        .find_map(|l| {
            l.strip_prefix("export const LAYOUT = '")?
                .strip_suffix('\'')
        })
        .unwrap();
    assert_eq!(s.clients.namespaces, ["example"]);
    assert_eq!(s.clients.layouts, [Layout::parse(spec).unwrap()]);
    let main = std::fs::read_to_string(root.join("examples/browser/main.js")).unwrap();
    assert!(main.contains("namespace: 'example'"));
}

/// A client that claims a clock far ahead and releases leaves its node fenced far ahead: the
/// service does not hand that node to the next client (503 `ERR_NO_FREE_NODE` with
/// `Retry-After` saying when one is ready), and the liar's quota place stays taken until the
/// node's bound passes — one client can keep at most its quota of nodes out of use.
#[test]
fn a_node_fenced_far_ahead_is_not_handed_out_and_counts_against_its_fencer() {
    let dir = temp_dir("hostile-fenced-far");
    let svc = start(ServeConfig {
        client_leases_per_address: Some(1),
        ..open(&dir, TWO)
    });
    let a = svc.addr();
    let body = format!(r#"{{"layout":"{TWO}","ttl_ms":1000}}"#);
    let held = call_from(peer(40), a, "POST", "/v1/leases", Some(&body), &[]);
    assert_eq!(held.status, 201, "{}", held.body);
    let g = call_from(peer(41), a, "POST", "/v1/leases", Some(&body), &[]).json();
    let t = g["lease"].as_str().unwrap();
    let far = format!(r#"{{"lease":"{t}","client_time_ms":{}}}"#, u64::MAX);
    let r = call_from(peer(41), a, "POST", "/v1/leases/renew", Some(&far), &[]).json();
    let bound = r["bound_ms"].as_u64().unwrap();
    assert!(bound > now_ms() + 30_000, "{r}");
    let rel = format!(r#"{{"lease":"{t}","issued_up_to_ms":0}}"#);
    let rel = call_from(peer(41), a, "POST", "/v1/leases/release", Some(&rel), &[]);
    assert_eq!(rel.status, 204);
    // The next client is not given the node fenced a minute ahead.
    let next = call_from(peer(42), a, "POST", "/v1/leases", Some(&body), &[]);
    assert_eq!(
        (next.status, next.json()["code"].clone()),
        (503, "ERR_NO_FREE_NODE".into()),
        "{}",
        next.body
    );
    let retry: u64 = next.header("retry-after").unwrap().parse().unwrap();
    assert!(retry >= 30, "ready in about a minute, not {retry} s");
    // The liar's place stays taken while its node is fenced.
    let liar = call_from(peer(41), a, "POST", "/v1/leases", Some(&body), &[]);
    assert_eq!(liar.status, 429, "{}", liar.body);
    svc.stop().unwrap();
}

/// A bearer token holds at most its quota of leases, from whatever addresses it comes: the
/// token a page ships cannot take the whole node space either.
#[test]
fn a_token_holds_at_most_its_quota_from_any_address() {
    let dir = temp_dir("hostile-token-quota");
    let tokens = dir.join("tokens");
    std::fs::write(&tokens, "page page-token-0123456789 lease\n").unwrap();
    let svc = start(ServeConfig {
        tokens_file: Some(tokens),
        client_leases_per_token: Some(2),
        client_leases_per_address: Some(0),
        ..config(&dir)
    });
    let a = svc.addr();
    let auth = [("Authorization", "Bearer page-token-0123456789")];
    let from = |last: u8| call_from(peer(last), a, "POST", "/v1/leases", Some("{}"), &auth);
    assert_eq!(from(30).status, 201);
    assert_eq!(from(31).status, 201);
    let over = from(32);
    assert_eq!(
        (over.status, over.json()["code"].clone()),
        (429, "ERR_LIMIT_EXCEEDED".into()),
        "{}",
        over.body
    );
    assert!(over.json()["message"].as_str().unwrap().contains("token"));
    assert!(over.header("retry-after").is_some());
    svc.stop().unwrap();
}
