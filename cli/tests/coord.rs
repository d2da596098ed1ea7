//! End-to-end tests of `idmint gen --lease` and `idmint segment` against real stores: a lease
//! directory, SQLite, and private Redis and PostgreSQL servers on loopback.

use std::collections::HashSet;
use std::process::{Command, Output, Stdio};

#[path = "../../coord/tests/support/mod.rs"]
mod support;

use support::{temp_dir, Kind, Server};

const BIN: &str = env!("CARGO_BIN_EXE_idmint");

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("run the idmint binary")
}

fn ids(o: &Output) -> Vec<u64> {
    assert!(
        o.status.success(),
        "idmint failed with {:?}: {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| l.parse().expect("a decimal ID"))
        .collect()
}

/// The Leaf preset's worker field (10 bits above a 12-bit sequence).
fn leaf_worker(id: u64) -> u64 {
    (id >> 12) & 1023
}

fn spawn(args: &[&str]) -> std::process::Child {
    Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn idmint")
}

fn all_unique(runs: &[Vec<u64>]) -> usize {
    let mut seen = HashSet::new();
    for id in runs.iter().flatten() {
        assert!(seen.insert(*id), "duplicate ID {id}");
    }
    seen.len()
}

#[test]
fn concurrent_processes_on_one_lease_dir_get_distinct_nodes() {
    let dir = temp_dir("cli-lease");
    let src = format!("file:{}", dir.join("leases").display());
    let children: Vec<_> = (0..6)
        .map(|_| spawn(&["gen", "--layout", "leaf", "--lease", &src, "-n", "50000"]))
        .collect();
    let runs: Vec<Vec<u64>> = children
        .into_iter()
        .map(|c| ids(&c.wait_with_output().unwrap()))
        .collect();
    let nodes: HashSet<u64> = runs.iter().map(|r| leaf_worker(r[0])).collect();
    assert_eq!(
        nodes.len(),
        6,
        "each process leases its own node: {nodes:?}"
    );
    for r in &runs {
        assert!(r.iter().all(|&id| leaf_worker(id) == leaf_worker(r[0])));
    }
    assert_eq!(all_unique(&runs), 300_000);
}

#[test]
fn a_restart_with_the_clock_set_back_never_reissues() {
    // One node only, so the second process must take the node the first one used.
    let dir = temp_dir("cli-fence");
    let src = format!("file:{}", dir.join("leases").display());
    let base = [
        "gen",
        "--layout",
        "leaf",
        "--lease",
        &src,
        "--lease-nodes",
        "1",
    ];
    let first = ids(&run(Command::new(BIN).args(base).args(["-n", "20000"])));
    let last = *first.iter().max().unwrap();

    // 30 s in the past (libfaketime shifts the real-time and monotonic clocks of the process).
    let faked = |policy: &str| {
        run(
            support::minter::faketime_offset(&mut Command::new(BIN), "-30s")
                .args(base)
                .args(["--on-backwards", policy, "-n", "20000"]),
        )
    };
    // The node's record keeps the first run's last renewal (a TTL, 10 s, ahead of its clock):
    // 40 s ahead of this clock is more than an honest holder can have put it (TTL + reserve,
    // 20 s), so this host's clock is behind: a typed refusal at once, nothing minted. (It used
    // to say "clock moved backwards"; no clock moved in this process.)
    let refused = faked("wait:1000");
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(refused.stdout.is_empty());
    let msg = String::from_utf8_lossy(&refused.stderr);
    assert!(msg.contains("node 0 is fenced until"), "{msg}");
    assert!(msg.contains("fix the clock"), "{msg}");
    assert!(!msg.contains("waiting"), "{msg}");

    // A logical clock continues above the fence: every new ID is above every old one.
    let second = ids(&faked("logical:60000"));
    assert_eq!(second.len(), 20_000);
    assert!(second.iter().all(|&id| id > last));
    assert!(second.windows(2).all(|w| w[0] < w[1]));
}

/// Bug 2 end to end on Redis: a restart with the clock 1 s back finds the node fenced by the
/// first run's last renewal (a TTL ahead of its clock): ready in about 3 s, longer than the
/// 2 s TTL. It prints one line, waits while renewing its lease, and mints above every earlier
/// ID. Under `--on-backwards fail` it refuses at once instead.
#[test]
fn a_restart_on_redis_waits_for_the_fence_and_keeps_its_lease() {
    let server = Server::start(Kind::Redis);
    let url = server.url();
    let base = [
        "gen",
        "--layout",
        "leaf",
        "--lease",
        &url,
        "--lease-nodes",
        "1",
        "--lease-ttl-ms",
        "2000",
    ];
    let first = ids(&run(Command::new(BIN).args(base).args(["-n", "1000"])));
    let last = *first.iter().max().unwrap();
    let faked = |policy: &str| {
        run(
            support::minter::faketime_offset(&mut Command::new(BIN), "-1s")
                .args(base)
                .args(["--on-backwards", policy, "-n", "1000"]),
        )
    };
    let refused = faked("fail");
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(refused.stdout.is_empty());
    let msg = String::from_utf8_lossy(&refused.stderr);
    assert!(msg.contains("node 0 is fenced until"), "{msg}");
    assert!(!msg.contains("waiting"), "{msg}");

    let waited = faked("wait:1000");
    let msg = String::from_utf8_lossy(&waited.stderr).to_string();
    let second = ids(&waited);
    assert_eq!(second.len(), 1000);
    assert!(second.iter().all(|&id| id > last));
    let lines: Vec<&str> = msg.lines().collect();
    assert_eq!(lines.len(), 1, "one line before the wait: {msg}");
    assert!(
        lines[0].starts_with("idmint: node 0 of lease namespace default is fenced until 20")
            && lines[0].contains("(its previous holder's recorded bound); waiting "),
        "{msg}"
    );
}

#[test]
fn segment_processes_share_a_sqlite_store_without_duplicates() {
    let dir = temp_dir("cli-seg");
    let store = format!("sqlite:{}", dir.join("segments.db").display());
    let children: Vec<_> = (0..4)
        .map(|_| {
            spawn(&[
                "segment", "--store", &store, "--key", "orders", "--step", "500", "-n", "20000",
            ])
        })
        .collect();
    let runs: Vec<Vec<u64>> = children
        .into_iter()
        .map(|c| ids(&c.wait_with_output().unwrap()))
        .collect();
    assert_eq!(all_unique(&runs), 80_000);
    for r in &runs {
        assert!(r.windows(2).all(|w| w[0] < w[1]));
    }
}

#[test]
fn segment_journal_resumes_the_remainder() {
    let dir = temp_dir("cli-journal");
    let store = format!("sqlite:{}", dir.join("segments.db").display());
    let journal = dir.join("segments.journal");
    let journal = journal.to_str().unwrap();
    let args = [
        "segment",
        "--store",
        &store,
        "--key",
        "k",
        "--step",
        "100",
        "--journal",
        journal,
    ];
    let a = ids(&run(Command::new(BIN).args(args).args(["-n", "3"])));
    let b = ids(&run(Command::new(BIN).args(args).args(["-n", "3"])));
    assert_eq!(a, [1, 2, 3]);
    assert_eq!(b, [4, 5, 6], "the second run resumes the first run's range");
    // Without the journal, a run starts on a fresh range.
    let c = ids(&run(Command::new(BIN).args(&args[..7]).args(["-n", "1"])));
    assert_eq!(c, [101]);
}

#[test]
fn lease_and_segment_on_redis_and_postgres() {
    for kind in [Kind::Redis, Kind::Postgres] {
        let server = Server::start(kind);
        let url = server.url();
        let a =
            ids(&run(Command::new(BIN).args([
                "gen", "--layout", "leaf", "--lease", &url, "-n", "1000",
            ])));
        let b =
            ids(&run(Command::new(BIN).args([
                "gen", "--layout", "leaf", "--lease", &url, "-n", "1000",
            ])));
        assert_eq!(all_unique(&[a.clone(), b.clone()]), 2000, "{kind:?}");
        let s1 = ids(&run(Command::new(BIN).args([
            "segment", "--store", &url, "--key", "orders", "--step", "10", "-n", "25",
        ])));
        let s2 = ids(&run(Command::new(BIN).args([
            "segment", "--store", &url, "--key", "orders", "--step", "10", "-n", "25",
        ])));
        assert_eq!(all_unique(&[s1, s2]), 50, "{kind:?}");
    }
}

#[test]
fn bad_sources_and_stores_fail_cleanly() {
    for args in [
        &["gen", "--lease", "nosuch:x"][..],
        &["gen", "--lease", "static:99999", "--layout", "leaf"],
        &["segment", "--store", "nosuch:x", "--key", "k"],
    ] {
        let o = run(Command::new(BIN).args(args));
        assert!(!o.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
    }
    // A store that is not there: a runtime failure naming the store, not a hang or a panic.
    let o = run(Command::new(BIN).args([
        "segment",
        "--store",
        "redis://127.0.0.1:1/",
        "--key",
        "k",
        "--wait-timeout-ms",
        "500",
    ]));
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("redis store unavailable"));
}
