//! Browser clients run by the browser package itself: each is a Node.js process running
//! `browser-client.mjs` over idmint-web's `LeasedSnowflake` (the package's `leased.js` and the
//! core's `LeaseWindow` in wasm), in the clients' namespace like every other client. The
//! process reports its leases and mints as JSON lines; this module turns them into the same
//! [`Op`]s and [`Tenure`]s the checker reads from every client.

use crate::clients::{Recorded, Shared};
use crate::history::{Group, Op, Tenure};
use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The client script, written next to the run's files when the run starts.
const SCRIPT: &str = include_str!("../browser-client.mjs");

/// How long a stopping client may take to release its lease and exit.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// Checks that Node.js runs and the package is there, and writes the client script into
/// `dir`: the harness fails before the run (exit 2), not with clients that never started.
pub fn prepare(pkg: &Path, dir: &Path) -> Result<PathBuf, String> {
    if !pkg.is_file() {
        return Err(format!(
            "--browser-js {}: no such file (build the browser package: bash bindings-wasm/test.sh, or bindings-wasm/scripts/build.sh)",
            pkg.display()
        ));
    }
    let node = Command::new("node")
        .arg("--version")
        .output()
        .map_err(|e| format!("--browser-js needs Node.js (`node`): {e}"))?;
    if !node.status.success() {
        return Err("--browser-js needs Node.js: `node --version` failed".into());
    }
    let script = dir.join("browser-client.mjs");
    std::fs::write(&script, SCRIPT).map_err(|e| format!("{}: {e}", script.display()))?;
    Ok(script)
}

/// Runs browser client `id` until `sh` stops, then closes its stdin (it releases its lease and
/// exits) and returns what it reported.
pub fn run(sh: Shared, id: usize, script: PathBuf, pkg: PathBuf) -> Recorded {
    let mut rec = Recorded::default();
    let mut cmd = Command::new("node");
    cmd.arg(&script)
        .arg(&pkg)
        .arg(id.to_string())
        .arg(sh.ttl_ms.to_string())
        .arg(sh.now().to_string());
    cmd.args(sh.instances.iter().map(|(url, _)| url));
    let log = script.with_file_name(format!("browser-{id}.log"));
    let stderr = std::fs::File::create(&log).map_or(Stdio::null(), Stdio::from);
    let mut child = match cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            rec.ops.push(failed_start(&sh, id, &e.to_string()));
            return rec;
        }
    };
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().expect("piped stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut reader = Reader {
        sh: &sh,
        id,
        rec,
        leases: HashMap::new(),
    };
    let mut stop_deadline: Option<Instant> = None;
    loop {
        if stop_deadline.is_none() && sh.stopped() {
            // Closing stdin asks the client to stop minting, release and exit.
            drop(child.stdin.take());
            stop_deadline = Some(Instant::now() + STOP_GRACE);
        }
        if stop_deadline.is_some_and(|d| Instant::now() > d) {
            break;
        }
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(line) => reader.line(&line),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    end(&mut child);
    if let Some(Ok(status)) = child.try_wait().transpose() {
        if !status.success() && stop_deadline.is_none() {
            let why = format!(
                "browser client exited early ({status}); see {}",
                log.display()
            );
            reader.rec.ops.push(failed_start(&sh, id, &why));
        }
    }
    reader.rec
}

/// Kills the client if it is still running, and reaps it.
fn end(child: &mut Child) {
    if let Ok(None) = child.try_wait() {
        let _ = child.kill();
    }
    let _ = child.wait();
}

/// A client that could not run, recorded as one failed request (the report shows it).
fn failed_start(sh: &Shared, id: usize, why: &str) -> Op {
    let now = sh.now();
    Op {
        group: Group::Browser,
        instance: id % sh.instances.len().max(1),
        incarnation: 0,
        client: id,
        key: String::new(),
        tenure: None,
        start_ms: now,
        end_ms: now,
        ok: false,
        error: format!("ERR_CLIENT: {why}"),
        ids: Vec::new(),
    }
}

/// Turns one client's report lines into ops and tenures.
struct Reader<'a> {
    sh: &'a Shared,
    id: usize,
    rec: Recorded,
    /// The client's lease count `k` → its index in `rec.tenures`.
    leases: HashMap<u64, usize>,
}

fn num(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| v.as_str()?.parse().ok())
}

impl Reader<'_> {
    fn line(&mut self, line: &str) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            return;
        };
        if let Some(l) = v.get("lease") {
            self.lease(l);
        } else if let Some(s) = v.get("seen") {
            let (Some(k), Some(bound), Some(at)) = (num(&s["k"]), num(&s["bound"]), num(&s["at"]))
            else {
                return;
            };
            if let Some(&t) = self.leases.get(&k) {
                let t = &mut self.rec.tenures[t];
                t.bound_ms = t.bound_ms.max(bound);
                t.last_seen_ms = t.last_seen_ms.max(at);
            }
        } else if let Some(o) = v.get("op") {
            self.op(o);
        }
    }

    fn lease(&mut self, l: &Value) {
        let (Some(k), Some(node), Some(bound), Some(at)) = (
            num(&l["k"]),
            num(&l["node"]),
            num(&l["bound"]),
            num(&l["at"]),
        ) else {
            return;
        };
        self.rec.tenures.push(Tenure {
            holder: format!("b{}#{k}", self.id),
            owner: self.id,
            incarnation: 0,
            browser: true,
            node,
            token: k,
            fence_ms: num(&l["fence"]),
            bound_ms: bound,
            first_seen_ms: at,
            last_seen_ms: at,
        });
        self.leases.insert(k, self.rec.tenures.len() - 1);
    }

    fn op(&mut self, o: &Value) {
        let (Some(instance), Some(start), Some(end)) =
            (num(&o["instance"]), num(&o["start"]), num(&o["end"]))
        else {
            return;
        };
        let ids: Vec<u64> = o["ids"]
            .as_array()
            .map(|a| a.iter().filter_map(num).collect())
            .unwrap_or_default();
        self.rec.ops.push(Op {
            group: Group::Browser,
            instance: (instance as usize).min(self.sh.instances.len().saturating_sub(1)),
            incarnation: 0,
            client: self.id,
            key: String::new(),
            tenure: num(&o["k"]).and_then(|k| self.leases.get(&k).copied()),
            start_ms: start,
            end_ms: end,
            ok: o["ok"].as_bool() == Some(true),
            error: o["error"].as_str().unwrap_or("").to_string(),
            ids,
        });
    }
}
