//! The extension in a real server: concurrent sessions, a restart with the clock set back,
//! the lease worker next to an application's leased generator on the same lease table, bad
//! settings, and the shared vector files replayed through SQL.

mod support;

use std::collections::HashSet;
use std::thread;
use std::time::Duration;

use idmint::{Config, Layout};
use idmint_coord::lease::{LeaseOptions, LeasedSnowflake};
use serde_json::Value;
use support::{sql_error, vectors, Cluster};

fn duplicates(client: &mut postgres::Client, table: &str) -> i64 {
    client
        .query_one(
            &format!("SELECT count(*) - count(DISTINCT id) FROM {table}"),
            &[],
        )
        .unwrap()
        .get(0)
}

/// Inserts `rows` rows with `DEFAULT idmint.next_id()` from each of `sessions` sessions at
/// once, in statements of `batch` rows.
fn insert_concurrently(c: &Cluster, table: &str, sessions: usize, rows: usize, batch: usize) {
    thread::scope(|s| {
        for k in 0..sessions {
            s.spawn(move || {
                let mut client = c.client();
                for b in 0..rows / batch {
                    client
                        .execute(
                            &format!(
                                "INSERT INTO {table} (session) SELECT $1 FROM generate_series(1, {batch}) WHERE $2 >= 0"
                            ),
                            &[&(k as i32), &(b as i32)],
                        )
                        .expect("insert");
                }
            });
        }
    });
}

#[test]
fn sixteen_sessions_insert_100000_rows_each_with_no_duplicate() {
    let c = Cluster::start(&["idmint.node = '7'"]);
    let mut client = c.with_extension();
    client
        .batch_execute(
            "CREATE TABLE t (id bigint NOT NULL DEFAULT idmint.next_id(), session int NOT NULL)",
        )
        .unwrap();
    insert_concurrently(&c, "t", 16, 100_000, 1_000);
    let n: i64 = client
        .query_one("SELECT count(*) FROM t", &[])
        .unwrap()
        .get(0);
    assert_eq!(n, 1_600_000);
    assert_eq!(duplicates(&mut client, "t"), 0);
    // Every ID carries the configured node, and each session's IDs increase in insert order.
    let nodes: i64 = client
        .query_one(
            "SELECT count(DISTINCT d.node) FROM (SELECT id FROM t TABLESAMPLE SYSTEM (1)) s, idmint.decode(s.id) d",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(nodes <= 1);
    let node: i64 = client
        .query_one("SELECT node FROM idmint.decode(idmint.next_id())", &[])
        .unwrap()
        .get(0);
    assert_eq!(node, 7);
}

#[test]
fn next_ids_gives_increasing_distinct_ids_and_bounds_n() {
    let c = Cluster::start(&["idmint.node = '3'", "idmint.layout = 'leaf'"]);
    let mut client = c.with_extension();
    let ids: Vec<i64> = client
        .query("SELECT idmint.next_ids(50000)", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(ids.len(), 50_000);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    let msg = sql_error(client.query("SELECT idmint.next_ids(-1)", &[]));
    assert!(msg.starts_with("ERR_INVALID_ARGUMENT"), "{msg}");
    let info: Value = client
        .query_one("SELECT idmint.layout_info()::text", &[])
        .map(|r| serde_json::from_str(r.get::<_, &str>(0)).unwrap())
        .unwrap();
    assert_eq!(info["preset"], "leaf");
}

#[test]
fn restart_with_the_clock_10s_back_repeats_nothing() {
    let mut c = Cluster::start(&["idmint.node = '1'"]);
    let mut client = c.with_extension();
    client
        .batch_execute(
            "CREATE TABLE t (id bigint NOT NULL DEFAULT idmint.next_id(), session int NOT NULL)",
        )
        .unwrap();
    insert_concurrently(&c, "t", 4, 50_000, 5_000);
    let before_max: i64 = client
        .query_one("SELECT max(id) FROM t", &[])
        .unwrap()
        .get(0);
    drop(client);

    // The default policy (wait:1000) refuses a clock 10 s behind the recorded bound, cleanly.
    c.restart(&["idmint.node = '1'"], Some("-10s"));
    let mut client = c.client();
    let msg = sql_error(client.query_one("SELECT idmint.next_id()", &[]));
    assert!(msg.starts_with("ERR_CLOCK_BACKWARDS"), "{msg}");
    let alive: i32 = client.query_one("SELECT 1", &[]).unwrap().get(0);
    assert_eq!(alive, 1, "the backend survives the error");
    drop(client);

    // With logical:30000 it mints above the fence at once: nothing at or below the old maximum.
    c.restart(
        &["idmint.node = '1'", "idmint.on_backwards = 'logical:30000'"],
        Some("-10s"),
    );
    let mut client = c.client();
    client.batch_execute("CREATE TABLE after (id bigint NOT NULL DEFAULT idmint.next_id(), session int NOT NULL)").unwrap();
    insert_concurrently(&c, "after", 4, 50_000, 5_000);
    let after_min: i64 = client
        .query_one("SELECT min(id) FROM after", &[])
        .unwrap()
        .get(0);
    assert!(after_min > before_max, "{after_min} <= {before_max}");
    client
        .batch_execute("INSERT INTO t SELECT * FROM after")
        .unwrap();
    let n: i64 = client
        .query_one("SELECT count(*) FROM t", &[])
        .unwrap()
        .get(0);
    assert_eq!(n, 400_000);
    assert_eq!(duplicates(&mut client, "t"), 0);
}

/// A cluster whose lease worker leases from its own database's lease table in `namespace`
/// (3 s TTL), and that table's URL.
fn leasing_cluster(namespace: &str) -> (Cluster, String) {
    let mut c = Cluster::start(&[]);
    let url = c.url();
    let settings = [
        format!("idmint.lease = '{url}'"),
        format!("idmint.lease_namespace = '{namespace}'"),
        "idmint.lease_ttl_ms = 3000".to_string(),
    ];
    let settings: Vec<&str> = settings.iter().map(|s| s.as_str()).collect();
    c.restart(&settings, None);
    (c, url)
}

/// The node the lease worker holds. The worker starts with the postmaster, before connections
/// are accepted: this waits for its node.
fn worker_node(client: &mut postgres::Client) -> u64 {
    for _ in 0..200 {
        let status: String = client
            .query_one("SELECT idmint.status()::text", &[])
            .unwrap()
            .get(0);
        let status: Value = serde_json::from_str(&status).unwrap();
        if let Some(n) = status["node"].as_u64() {
            return n;
        }
        thread::sleep(Duration::from_millis(50));
    }
    panic!("the lease worker took no node");
}

/// Python's `idmint.LeasedSnowflake` (the installed wheel: `IDMINT_TEST_PYTHON`, which
/// bindings-postgres/test.sh points at the venv bindings-python/test.sh builds) and the
/// extension's lease worker on one lease table, minting at once: distinct nodes, no ID twice.
#[test]
fn the_database_and_a_python_application_lease_from_one_table_and_never_share_a_node() {
    let python = std::env::var("IDMINT_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_idmint = std::process::Command::new(&python)
        .args(["-c", "import idmint"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        has_idmint,
        "{python} cannot import idmint: run bindings-python/test.sh first, or set IDMINT_TEST_PYTHON"
    );
    let (mut c, url) = leasing_cluster("py");
    let mut client = c.with_extension();
    let db_node = worker_node(&mut client);
    client
        .batch_execute(
            "CREATE TABLE t (id bigint NOT NULL DEFAULT idmint.next_id(), session int NOT NULL)",
        )
        .unwrap();
    const SCRIPT: &str = "\
import sys, idmint
with idmint.LeasedSnowflake(sys.argv[1], layout='twitter', namespace='py', ttl_ms=3000) as g:
    ids = []
    for _ in range(40):
        ids.extend(g.next_ids(5000))
print('\\n'.join(map(str, ids)))
";
    let out = thread::scope(|s| {
        let app = s.spawn(|| {
            std::process::Command::new(&python)
                .args(["-c", SCRIPT, &url])
                .output()
                .expect("run python")
        });
        insert_concurrently(&c, "t", 4, 50_000, 5_000);
        app.join().unwrap()
    });
    assert!(
        out.status.success(),
        "python: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let app_ids: Vec<u64> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(app_ids.len(), 200_000);
    let app_nodes: HashSet<u64> = app_ids.iter().map(|&id| (id >> 12) & 1023).collect();
    assert_eq!(app_nodes.len(), 1);
    assert!(
        !app_nodes.contains(&db_node),
        "the database and the Python application share node {db_node}"
    );
    let db_ids: Vec<i64> = client
        .query("SELECT id FROM t", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(db_ids.len(), 200_000);
    let mut all: HashSet<u64> = app_ids.iter().copied().collect();
    assert_eq!(
        all.len(),
        app_ids.len(),
        "the Python application repeated an ID"
    );
    for id in db_ids {
        assert!(all.insert(id as u64), "{id} minted by both");
    }
    c.stop();
}

#[test]
fn the_database_and_an_application_lease_from_one_table_and_never_share_a_node() {
    // The lease table lives in the same server here; any postgres:// URL works the same.
    let (mut c, url) = leasing_cluster("shared");
    let mut client = c.with_extension();
    let db_node = worker_node(&mut client);
    client
        .batch_execute(
            "CREATE TABLE t (id bigint NOT NULL DEFAULT idmint.next_id(), session int NOT NULL)",
        )
        .unwrap();

    // The application: coord's leased generator on the same table and namespace (the Python
    // LeasedSnowflake is this same generator behind pyo3).
    let app_ids = thread::scope(|s| {
        let app = s.spawn(|| {
            let cfg = Config::new(Layout::preset("twitter").unwrap());
            let gen = LeasedSnowflake::from_source(
                &url,
                cfg,
                LeaseOptions::new()
                    .namespace("shared")
                    .ttl(Duration::from_millis(3000)),
            )
            .expect("the application leases a node");
            let mut ids = Vec::with_capacity(200_000);
            for _ in 0..200_000 {
                ids.push(gen.next_id().expect("application mint"));
            }
            gen.release().expect("release");
            ids
        });
        insert_concurrently(&c, "t", 4, 50_000, 5_000);
        app.join().unwrap()
    });
    let app_nodes: HashSet<i64> = app_ids
        .iter()
        .map(|&id| ((id >> 12) & 1023) as i64)
        .collect();
    assert_eq!(app_nodes.len(), 1);
    assert!(
        !app_nodes.contains(&(db_node as i64)),
        "the database and the application share node {db_node}"
    );
    let db_nodes: Vec<i64> = client
        .query("SELECT DISTINCT (id >> 12) & 1023 FROM t", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(db_nodes, vec![db_node as i64]);
    client
        .batch_execute("CREATE TABLE app (id bigint)")
        .unwrap();
    let mut copy = client.copy_in("COPY app FROM STDIN").unwrap();
    use std::io::Write;
    for id in &app_ids {
        writeln!(copy, "{}", *id as i64).unwrap();
    }
    copy.finish().unwrap();
    let total: i64 = client
        .query_one(
            "SELECT count(*) FROM (SELECT id FROM t UNION ALL SELECT id FROM app) x",
            &[],
        )
        .unwrap()
        .get(0);
    let distinct: i64 = client
        .query_one(
            "SELECT count(DISTINCT id) FROM (SELECT id FROM t UNION ALL SELECT id FROM app) x",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(total, 400_000);
    assert_eq!(
        distinct, total,
        "duplicates between the database and the application"
    );
    // The lease row the worker holds is in coord's table.
    let held: i64 = client
        .query_one(
            "SELECT count(*) FROM idmint_lease WHERE namespace = 'shared' AND node = $1",
            &[&(db_node as i64)],
        )
        .map(|r| r.get(0))
        .unwrap_or(-1);
    assert_eq!(held, 1);
    // A clean stop releases the worker's node.
    c.stop();
}

#[test]
fn bad_settings_and_an_expired_layout_are_clear_errors() {
    let mut c = Cluster::start(&[]);
    let mut client = c.with_extension();
    let msg = sql_error(client.query_one("SELECT idmint.next_id()", &[]));
    assert!(msg.starts_with("ERR_NODE_REQUIRED"), "{msg}");
    // What needs no node works without one.
    let enc: String = client
        .query_one("SELECT idmint.encode(42, 'base62')", &[])
        .unwrap()
        .get(0);
    assert_eq!(enc, "0000000000g");
    drop(client);
    let cases: [(&[&str], &str); 6] = [
        (
            &["idmint.layout = 'bogus'", "idmint.node = '1'"],
            "idmint.layout = 'bogus'",
        ),
        (&["idmint.node = '5000'"], "idmint.node = '5000'"),
        (&["idmint.node = 'worker=x'"], "idmint.node = 'worker=x'"),
        (
            &[
                "idmint.node = '1'",
                "idmint.lease = 'postgres://127.0.0.1:1/x'",
            ],
            "both set",
        ),
        (
            &["idmint.node = '1'", "idmint.on_backwards = 'sometimes'"],
            "idmint.on_backwards = 'sometimes'",
        ),
        (
            &["idmint.node = '1'", "idmint.on_backwards = 'ring:8'"],
            "ring policy",
        ),
    ];
    for (settings, expect) in cases {
        c.restart(settings, None);
        let mut client = c.client();
        let msg = sql_error(client.query_one("SELECT idmint.next_id()", &[]));
        assert!(
            msg.starts_with("ERR_INVALID_CONFIG") && msg.contains(expect),
            "{settings:?}: {msg}"
        );
        let alive: i32 = client.query_one("SELECT 1", &[]).unwrap().get(0);
        assert_eq!(alive, 1);
    }
    c.restart(
        &[
            "idmint.layout = 'time=10@1s,node=2,seq=2,epoch=2020-01-01'",
            "idmint.node = '1'",
        ],
        None,
    );
    let mut client = c.client();
    let msg = sql_error(client.query_one("SELECT idmint.next_id()", &[]));
    assert!(msg.starts_with("ERR_LAYOUT_EXPIRED"), "{msg}");
    let msg = sql_error(client.query_one("SELECT idmint.typeid('Bad Prefix')", &[]));
    assert!(msg.starts_with("ERR_"), "{msg}");
    let msg = sql_error(client.query_one("SELECT idmint.parse_id('zz', 'decimal')", &[]));
    assert!(msg.starts_with("ERR_INVALID_ENCODING"), "{msg}");
    let msg = sql_error(client.query_one("SELECT idmint.encode(1, 'base64')", &[]));
    assert!(msg.starts_with("ERR_INVALID_CONFIG"), "{msg}");
    let msg = sql_error(client.query_one("SELECT idmint.parse_id('42', 'base64')", &[]));
    assert!(msg.starts_with("ERR_INVALID_CONFIG"), "{msg}");
    // `auto` as a codec's name, in any case, as on every surface (the core's Codec::parse_or_auto).
    let auto: i64 = client
        .query_one("SELECT idmint.parse_id('0x2A', 'AUTO')", &[])
        .unwrap()
        .get(0);
    assert_eq!(auto, 42);
    // Settings are read at server start: SET is refused by PostgreSQL itself.
    let msg = sql_error(client.batch_execute("SET idmint.node = '2'"));
    assert!(msg.contains("cannot be changed"), "{msg}");
    drop(client);
    // A lease store nobody answers on: minting waits briefly, then says why, and goes on failing
    // cleanly while the worker keeps trying.
    c.restart(
        &["idmint.lease = 'postgres://idmint@127.0.0.1:1/postgres?timeout_ms=200'"],
        None,
    );
    let mut client = c.client();
    let msg = sql_error(client.query_one("SELECT idmint.next_id()", &[]));
    assert!(
        msg.starts_with("ERR_LEASE_LOST: no node leased yet")
            && msg.contains("ERR_STORE_UNAVAILABLE"),
        "{msg}"
    );
    let status: String = client
        .query_one("SELECT idmint.status()->>'mode'", &[])
        .unwrap()
        .get(0);
    assert_eq!(status, "lease");
    assert!(!c.log().contains("PANIC"), "{}", c.log());
}

#[test]
fn without_preloading_minting_says_how_to_enable_it() {
    let mut c = Cluster::start(&["idmint.node = '1'"]);
    c.restart(&["shared_preload_libraries = ''"], None);
    let mut client = c.with_extension();
    let msg = sql_error(client.query_one("SELECT idmint.next_id()", &[]));
    assert!(msg.contains("shared_preload_libraries"), "{msg}");
    let u: String = client
        .query_one("SELECT idmint.uuid7()::text", &[])
        .unwrap()
        .get(0);
    assert_eq!(&u[14..15], "7");
    let t: String = client
        .query_one("SELECT idmint.typeid('user')", &[])
        .unwrap()
        .get(0);
    assert!(t.starts_with("user_") && t.len() == 31, "{t}");
    let l: String = client
        .query_one("SELECT idmint.ulid()", &[])
        .unwrap()
        .get(0);
    assert_eq!(l.len(), 26);
    let k: Vec<String> = client
        .query("SELECT idmint.ksuid() FROM generate_series(1, 100)", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(k.iter().all(|x| x.len() == 27), "{k:?}");
    assert!(
        k.windows(2).all(|w| w[0] < w[1]),
        "increasing in one backend"
    );
}

fn u64_of(v: &Value) -> u64 {
    v.as_str().expect("u64 as string").parse().unwrap()
}

#[test]
fn codec_vectors_replay_through_sql() {
    let c = Cluster::start(&["idmint.node = '1'"]);
    let mut client = c.with_extension();
    // The extension's version is the workspace's one version number.
    let manifest =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml")).unwrap();
    let workspace_version = manifest
        .split("[workspace.package]")
        .nth(1)
        .and_then(|t| t.lines().find_map(|l| l.strip_prefix("version = ")))
        .map(|v| v.trim_matches('"').to_string())
        .expect("[workspace.package] version");
    let extversion: String = client
        .query_one(
            "SELECT extversion FROM pg_extension WHERE extname = 'idmint'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(extversion, workspace_version);
    assert_eq!(env!("CARGO_PKG_VERSION"), workspace_version);
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(vectors("codecs.json")).unwrap()).unwrap();
    let mut checked = 0;
    for case in v["encode"].as_array().expect("encode cases") {
        let id = u64_of(&case["id"]) as i64;
        for codec in ["decimal", "hex", "base32", "base62"] {
            let Some(text) = case[codec].as_str() else {
                continue;
            };
            let got: String = client
                .query_one("SELECT idmint.encode($1, $2)", &[&id, &codec])
                .unwrap()
                .get(0);
            assert_eq!(got, text, "encode {id} {codec}");
            let back: i64 = client
                .query_one("SELECT idmint.parse_id($1, $2)", &[&text, &codec])
                .unwrap()
                .get(0);
            assert_eq!(back, id);
            checked += 1;
        }
    }
    for case in v["decode"].as_array().expect("decode cases") {
        let text = case["text"].as_str().unwrap();
        let decoder = case["decoder"].as_str().unwrap();
        let r = client.query_one("SELECT idmint.parse_id($1, $2)", &[&text, &decoder]);
        match case["expect"].get("id") {
            Some(id) => assert_eq!(r.unwrap().get::<_, i64>(0), u64_of(id) as i64, "{text}"),
            None => {
                let msg = sql_error(r);
                let code = case["expect"]["error"].as_str().unwrap();
                let message = case["expect"]["message"].as_str().unwrap();
                assert_eq!(msg, format!("{code}: {message}"), "{text}");
            }
        }
        checked += 1;
    }
    assert!(checked > 50, "{checked}");
}

#[test]
fn layout_vectors_replay_through_sql() {
    let c = Cluster::start(&["idmint.node = '1'"]);
    let mut client = c.with_extension();
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(vectors("layouts.json")).unwrap()).unwrap();
    for case in v["layouts"].as_array().unwrap() {
        let spec = case["spec"].as_str().unwrap();
        let expect = case;
        let r = client.query_one("SELECT idmint.layout_info($1)::text", &[&spec]);
        let info: Value = serde_json::from_str(r.unwrap().get::<_, &str>(0)).unwrap();
        assert_eq!(info["canonical"], expect["canonical"], "{spec}");
        assert_eq!(info["preset"], expect["preset"], "{spec}");
        for key in [
            "width",
            "epoch_ms",
            "tick_ms",
            "lifetime_end_ms",
            "capacity_per_second",
            "max_id",
            "max_node",
            "max_sequence",
            "max_time",
        ] {
            let want = expect[key].as_u64().unwrap_or_else(|| u64_of(&expect[key]));
            assert_eq!(info[key].as_u64(), Some(want), "{spec} {key}");
        }
        assert_eq!(info["is_js_safe"], expect["is_js_safe"], "{spec}");
        for compose in case["compose"].as_array().into_iter().flatten() {
            let Some(id) = compose["expect"].get("id") else {
                continue;
            };
            let id = u64_of(id) as i64;
            let row = client
                .query_one("SELECT (extract(epoch FROM time) * 1000)::bigint, node, fields::text, sequence FROM idmint.decode($1, $2)", &[&id, &spec])
                .unwrap();
            let ms: i64 = row.get(0);
            assert_eq!(
                ms as u64,
                u64_of(&compose["expect"]["timestamp_ms"]),
                "{spec} {id}"
            );
            assert_eq!(
                row.get::<_, i64>(1) as u64,
                u64_of(&compose["parts"]["node"]),
                "{spec} {id}"
            );
            assert_eq!(
                row.get::<_, i64>(3) as u64,
                u64_of(&compose["parts"]["sequence"]),
                "{spec} {id}"
            );
            let fields: Value = serde_json::from_str(row.get::<_, &str>(2)).unwrap();
            for f in compose["expect"]["node_fields"].as_array().unwrap() {
                assert_eq!(
                    fields[f["name"].as_str().unwrap()].as_u64(),
                    Some(u64_of(&f["value"])),
                    "{spec} {id}"
                );
            }
        }
    }
    for case in v["invalid"].as_array().unwrap() {
        let spec = case["spec"].as_str().unwrap();
        let msg = sql_error(client.query_one("SELECT idmint.layout_info($1)", &[&spec]));
        assert_eq!(
            msg,
            format!(
                "ERR_INVALID_LAYOUT: {}",
                case["expect"]["message"].as_str().unwrap()
            ),
            "{spec}"
        );
    }
}

#[test]
fn a_standby_with_the_primarys_fixed_node_refuses_to_mint() {
    let primary = Cluster::start(&["idmint.node = '4'"]);
    let mut client = primary.with_extension();
    let id: i64 = client
        .query_one("SELECT idmint.next_id()", &[])
        .unwrap()
        .get(0);
    assert!(id > 0);
    let standby = Cluster::standby_of(&primary, &["idmint.node = '4'"]);
    let mut client = standby.client();
    let in_recovery: bool = client
        .query_one("SELECT pg_is_in_recovery()", &[])
        .unwrap()
        .get(0);
    assert!(in_recovery);
    let msg = sql_error(client.query_one("SELECT idmint.next_id()", &[]));
    assert!(
        msg.starts_with("ERR_INVALID_CONFIG") && msg.contains("in recovery"),
        "{msg}"
    );
    // What needs no node works on the standby.
    let text: String = client
        .query_one("SELECT idmint.encode($1, 'base62')", &[&id])
        .unwrap()
        .get(0);
    assert_eq!(text.len(), 11);
}
