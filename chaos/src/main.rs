//! `idmint-chaos`: proves a deployed idmint cluster the way Jepsen would. It builds a network
//! of namespaces (instances, store members, clients), runs `idmint serve` instances on a real
//! store with their own clocks, drives clients at them, injects faults on a seeded schedule,
//! and checks every acknowledged ID: unique, inside its node's window, and the cluster failing
//! closed and coming back as promised. See README.md.

mod browser_js;
mod checker;
mod clients;
mod cluster;
mod history;
mod http;
mod nemesis;
mod netns;
mod procs;
mod report;
mod rng;
mod schedule;
mod store;
mod workload;

use clap::Parser;
use idmint::Layout;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The service's layout in every scenario: 2 node bits, so 3 instances and their restarts
/// share 4 nodes and a node changes hands often (the fences are what keeps that safe).
const SERVICE_LAYOUT: &str = "time=41@1ms,worker=2,seq=20,epoch=2020-01-01";
/// The browser clients' layout (the service's default for client leases).
const BROWSER_LAYOUT: &str = "js53";

/// The bounded scenarios the test command runs: one per store, each with its seed, length and
/// the faults it draws from (together they cover every kind; `--bounded --plan` prints them).
/// A seed that once found a bug stays here as a regression scenario: postgres seed 9 restarts
/// an instance with its clock 2.7 s behind, then wipes the store — the schedule on which the
/// PostgreSQL store repeated IDs (6 duplicates) before a store object took vanished tables for
/// a loss (found by `--store postgres --minutes 10 --seed 2026`).
const BOUNDED: &[(&str, u64, u64, &str)] = &[
    ("etcd", 1, 45, "split-majority,split-store,store-kill"),
    ("postgres", 9, 35, "kill,store-wipe"),
    ("redis", 4, 40, "isolate,store-kill"),
    ("mariadb", 4, 35, "pause,clock-jump"),
    ("zookeeper", 5, 35, "store-kill,kill"),
];

/// Fault-injection harness for a deployed idmint cluster (needs root: network namespaces).
#[derive(Parser, Debug)]
#[command(name = "idmint-chaos", version)]
struct Args {
    /// The store: etcd, postgres, redis, mariadb, zookeeper, or all (one run each).
    #[arg(long, default_value = "etcd")]
    store: String,
    /// Length of each run, minutes.
    #[arg(long)]
    minutes: Option<f64>,
    /// Length of each run, seconds (instead of --minutes).
    #[arg(long)]
    seconds: Option<u64>,
    /// The schedule's seed (printed; the same seed replays the same schedule). Default: random.
    #[arg(long)]
    seed: Option<u64>,
    /// Fault kinds to draw from, comma-separated (default: all the store can have):
    /// isolate, split-majority, split-store, pause, kill, store-kill, store-wipe, clock-jump.
    #[arg(long, value_delimiter = ',')]
    faults: Vec<String>,
    /// Number of `idmint serve` instances.
    #[arg(long, default_value_t = 3)]
    instances: usize,
    /// The instances' lease TTL, ms (also the browser clients' lease TTL).
    #[arg(long, default_value_t = 3000)]
    lease_ttl_ms: u64,
    /// Browser-style clients (client leases minted locally).
    #[arg(long, default_value_t = 2)]
    browsers: usize,
    /// The browser package's Node.js build (e.g. bindings-wasm/pkg/node/idmint.js): browser
    /// clients then run its `LeasedSnowflake` in Node.js. Without it they replay the package's
    /// protocol in Rust over the same core `LeaseWindow`.
    #[arg(long)]
    browser_js: Option<PathBuf>,
    /// Where reports go (each run's `STORE.json` and `STORE.svg`, replaced by the next).
    #[arg(long, default_value = "target/chaos")]
    out: PathBuf,
    /// The `idmint` binary [default: `idmint` next to this one].
    #[arg(long)]
    idmint: Option<PathBuf>,
    /// scripts/services.sh [default: the one of the source tree this was built from].
    #[arg(long)]
    services: Option<PathBuf>,
    /// Run the test command's bounded scenarios (one short run per store) and fail on any
    /// duplicate or availability miss.
    #[arg(long)]
    bounded: bool,
    /// Keep the servers' data and logs (under /tmp/idmint-chaos) after a passing run too.
    #[arg(long)]
    keep: bool,
    /// Print each scenario's schedule and exit (nothing is started; no root needed).
    #[arg(long)]
    plan: bool,
}

/// One run: a store, a seed, a length, the faults to draw from.
#[derive(Debug, Clone)]
struct Scenario {
    store: store::Kind,
    seed: u64,
    duration_ms: u64,
    faults: Vec<String>,
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

fn stopped() -> bool {
    STOP.load(Ordering::SeqCst)
}

fn main() {
    let args = Args::parse();
    // SAFETY: installs a handler that only stores to an atomic.
    unsafe {
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::signal(sig, on_signal as *const () as libc::sighandler_t);
        }
    }
    match run(&args) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("idmint-chaos: {e}");
            std::process::exit(2);
        }
    }
}

fn scenarios(args: &Args) -> Result<Vec<Scenario>, String> {
    if args.bounded {
        return Ok(BOUNDED
            .iter()
            .map(|&(s, seed, secs, faults)| Scenario {
                store: store::Kind::parse(s).expect("known store"),
                seed,
                duration_ms: secs * 1000,
                faults: faults.split(',').map(str::to_string).collect(),
            })
            .collect());
    }
    let kinds: Vec<store::Kind> = if args.store == "all" {
        store::Kind::ALL.to_vec()
    } else {
        vec![store::Kind::parse(&args.store)
            .ok_or_else(|| format!("unknown store {}", args.store))?]
    };
    for f in &args.faults {
        if !schedule::KINDS.contains(&f.as_str()) {
            return Err(format!(
                "unknown fault {f} (one of {})",
                schedule::KINDS.join(", ")
            ));
        }
    }
    let duration_ms = match (args.seconds, args.minutes) {
        (Some(s), _) => s * 1000,
        (None, Some(m)) => (m * 60_000.0) as u64,
        (None, None) => 60_000,
    };
    let seed = args.seed.unwrap_or_else(|| {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        rng::Rng::new(t.as_nanos() as u64 ^ u64::from(std::process::id())).next_u64()
            % 1_000_000_000
    });
    let faults = if args.faults.is_empty() {
        schedule::KINDS.iter().map(|s| s.to_string()).collect()
    } else {
        args.faults.clone()
    };
    Ok(kinds
        .into_iter()
        .map(|store| Scenario {
            store,
            seed,
            duration_ms,
            faults: faults.clone(),
        })
        .collect())
}

/// Each scenario's schedule, from its seed.
fn plan_of(args: &Args, sc: &Scenario) -> Vec<schedule::Fault> {
    schedule::Plan {
        seed: sc.seed,
        duration_ms: sc.duration_ms,
        ttl_ms: args.lease_ttl_ms,
        instances: args.instances,
        members: sc.store.members(),
        kinds: sc.faults.clone(),
    }
    .schedule()
}

fn run(args: &Args) -> Result<bool, String> {
    if args.plan {
        for sc in scenarios(args)? {
            println!(
                "{} seed {} ({} s):",
                sc.store.name(),
                sc.seed,
                sc.duration_ms / 1000
            );
            for f in plan_of(args, &sc) {
                println!(
                    "  {:>7} ms  #{} {} ({} ms)",
                    f.start_ms,
                    f.id,
                    f.kind.describe(),
                    f.end_ms - f.start_ms
                );
            }
        }
        return Ok(true);
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err("needs root (it creates network namespaces)".into());
    }
    let list = scenarios(args)?;
    let idmint = match &args.idmint {
        Some(p) => p.clone(),
        None => std::env::current_exe()
            .map_err(|e| e.to_string())?
            .with_file_name("idmint"),
    };
    if !idmint.exists() {
        return Err(format!(
            "{} not found (cargo build -p idmint-cli, or --idmint)",
            idmint.display()
        ));
    }
    let services = args
        .services
        .clone()
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/services.sh"));
    let _lock = lock()?;
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let mut all_passed = true;
    let started = Instant::now();
    for sc in &list {
        if stopped() {
            break;
        }
        let passed = run_scenario(args, sc, &idmint, &services)?;
        all_passed &= passed;
    }
    eprintln!(
        "chaos: {} in {:.0} s",
        if all_passed {
            "all scenarios passed"
        } else {
            "FAILED"
        },
        started.elapsed().as_secs_f64()
    );
    Ok(all_passed && !stopped())
}

/// One run at a time on a machine: the namespaces and addresses are fixed.
fn lock() -> Result<File, String> {
    let f = File::create("/run/idmint-chaos.lock")
        .map_err(|e| format!("/run/idmint-chaos.lock: {e}"))?;
    // SAFETY: flock(2) on a descriptor we own.
    if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        eprintln!("chaos: another run holds /run/idmint-chaos.lock; waiting");
        // SAFETY: as above.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err("cannot lock /run/idmint-chaos.lock".into());
        }
    }
    Ok(f)
}

/// Puts the calling thread back into the network namespace it started in, when dropped.
struct BackHome(File);

impl Drop for BackHome {
    fn drop(&mut self) {
        // SAFETY: setns(2) on a descriptor we own.
        unsafe {
            libc::setns(self.0.as_raw_fd(), libc::CLONE_NEWNET);
        }
    }
}

fn run_scenario(
    args: &Args,
    sc: &Scenario,
    idmint: &Path,
    services: &Path,
) -> Result<bool, String> {
    let name = sc.store.name();
    let replay = format!(
        "idmint-chaos --store {name} --seconds {} --seed {} --faults {} --instances {} --lease-ttl-ms {} --browsers {}",
        sc.duration_ms / 1000,
        sc.seed,
        sc.faults.join(","),
        args.instances,
        args.lease_ttl_ms,
        args.browsers
    ) + &args
        .browser_js
        .as_ref()
        .map_or(String::new(), |p| format!(" --browser-js {}", p.display()));
    eprintln!(
        "\nchaos: {name}: seed {} ({} s)\nchaos: replay: {replay}",
        sc.seed,
        sc.duration_ms / 1000
    );
    let faults = plan_of(args, sc);
    for f in &faults {
        eprintln!(
            "chaos: plan {:>7} ms  #{} {} ({} ms)",
            f.start_ms,
            f.id,
            f.kind.describe(),
            f.end_ms - f.start_ms
        );
    }
    let dir = PathBuf::from("/tmp/idmint-chaos").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let browser_js = match &args.browser_js {
        Some(pkg) => {
            let pkg = std::path::absolute(pkg).map_err(|e| format!("{}: {e}", pkg.display()))?;
            let script = browser_js::prepare(&pkg, &dir)?;
            Some((pkg, script))
        }
        None => None,
    };

    let mut names = vec!["c".to_string()];
    names.extend((0..sc.store.members()).map(|m| format!("s{m}")));
    names.extend((0..args.instances).map(|i| format!("n{i}")));
    let topo = netns::Topology::build(&names)?;
    let home = BackHome(File::open("/proc/thread-self/ns/net").map_err(|e| e.to_string())?);
    netns::enter(&topo.hosts()[0].ns)?;

    let members: Vec<netns::Host> = topo.hosts()[1..=sc.store.members()].to_vec();
    let store = store::Store::start(sc.store, members, &dir.join("store"), services)?;
    let key = dir.join("lease.key");
    let mut keygen = rng::Rng::new(sc.seed ^ 0x5eed);
    let secret: String = (0..4)
        .map(|_| format!("{:016x}", keygen.next_u64()))
        .collect();
    std::fs::write(&key, secret).map_err(|e| e.to_string())?;
    let settings = cluster::Settings {
        idmint: idmint.to_path_buf(),
        lease_url: store.lease_url(),
        ttl_ms: args.lease_ttl_ms,
        layout: SERVICE_LAYOUT.to_string(),
        client_layout: BROWSER_LAYOUT.to_string(),
        lease_key: key,
    };
    let mut instances = Vec::new();
    for i in 0..args.instances {
        let host = topo.hosts()[1 + sc.store.members() + i].clone();
        let mut inst = cluster::Instance::new(i, host, &dir.join(format!("n{i}")))?;
        inst.start(&settings)?;
        instances.push(inst);
    }
    for inst in &instances {
        inst.wait_ready(Duration::from_secs(30))?;
    }
    let mut c = nemesis::Cluster {
        topo,
        store,
        instances,
        settings,
    };

    let t0 = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let shared = clients::Shared {
        t0,
        stop: stop.clone(),
        instances: c
            .instances
            .iter()
            .map(|i| (i.url(), i.incarnation.clone()))
            .collect(),
        ttl_ms: args.lease_ttl_ms,
        browser_layout: Layout::parse(BROWSER_LAYOUT).map_err(|e| e.to_string())?,
        browser_js,
    };
    let threads = workload::start(&shared, args.browsers);
    let applied = nemesis::play(&mut c, &faults, t0, &stopped);
    let end = Duration::from_millis(sc.duration_ms);
    while t0.elapsed() < end && !stopped() {
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::SeqCst);
    let (ops, tenures) = workload::join(threads);
    let duration_ms = t0.elapsed().as_millis() as u64;
    drop(c);
    drop(home);

    let history = history::History {
        ops,
        tenures,
        applied,
        duration_ms,
    };
    let rules = checker::Rules {
        ttl_ms: args.lease_ttl_ms,
        service_layout: Layout::parse(SERVICE_LAYOUT).map_err(|e| e.to_string())?,
        browser_layout: Layout::parse(BROWSER_LAYOUT).map_err(|e| e.to_string())?,
        shared_segments: false,
        instances: args.instances,
        min_availability: 0.99,
        slack_ms: 200,
    };
    let verdict = checker::check(&history, &rules);
    let summary = report::summary(
        name,
        sc.seed,
        schedule::to_json(&faults),
        &history,
        &verdict,
        &replay,
    );
    let json_path = args.out.join(format!("{name}.json"));
    let svg_path = args.out.join(format!("{name}.svg"));
    let pretty = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
    std::fs::write(&json_path, pretty).map_err(|e| format!("{}: {e}", json_path.display()))?;
    let title = format!(
        "idmint-chaos: {name}, seed {}, {} s",
        sc.seed,
        duration_ms / 1000
    );
    std::fs::write(
        &svg_path,
        report::timeline(&title, &history, args.instances),
    )
    .map_err(|e| format!("{}: {e}", svg_path.display()))?;

    // A failed run keeps every request, one JSON line each, for a closer look.
    let ops_path = args.out.join(format!("{name}-ops.jsonl"));
    let _ = std::fs::remove_file(&ops_path);
    if !verdict.passed() {
        std::fs::write(&ops_path, report::ops_lines(&history))
            .map_err(|e| format!("{}: {e}", ops_path.display()))?;
        eprintln!("chaos: {name}: every request in {}", ops_path.display());
    }
    let acked: u64 = verdict.acknowledged.values().sum();
    let attempted: u64 = verdict.attempted.values().sum();
    let ids: u64 = verdict.ids.values().sum();
    let dups: u64 = verdict.duplicated.values().sum();
    eprintln!(
        "chaos: {name}: {attempted} requests, {acked} acknowledged, {ids} IDs, {dups} duplicated, {} checked against windows ({} unattributed)",
        verdict.windows_checked, verdict.unattributed
    );
    for (f, i, ms) in &verdict.recoveries {
        eprintln!(
            "chaos: {name}: fault #{f}: n{i} served again {} after the heal",
            ms.map_or("never".into(), |m| format!("{m} ms"))
        );
    }
    for f in &verdict.failures {
        eprintln!("chaos: {name}: FAIL: {f}");
    }
    eprintln!(
        "chaos: {name}: {} — report {} and {}",
        if verdict.passed() { "passed" } else { "FAILED" },
        json_path.display(),
        svg_path.display()
    );
    if verdict.passed() && !args.keep {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        eprintln!(
            "chaos: {name}: servers' data and logs kept in {}",
            dir.display()
        );
    }
    Ok(verdict.passed())
}
