//! The wall clock steps while a process mints: under libfaketime (`FAKETIME_TIMESTAMP_FILE`,
//! re-read at every clock reading; the monotonic clock stays real) a child process mints with
//! the std `Snowflake` on the system clock while this test writes `+0`, then a step back or
//! forward, into the file. The child records, for every call, a monotonic reading taken before
//! (coarse) and after (precise) it and what it returned; the test then checks that:
//!
//! - every call that started one re-anchoring period ([`REANCHOR_MS`]) after the step saw it,
//!   and handled it as its `on_backwards` policy says;
//! - no ID repeats, and IDs only decrease where the policy says they may.
//!
//! The UUID runs do the same with the process-wide UUID, TypeID and ULID front doors
//! (`uuid_step_child`): no value repeats, the ordered kinds keep increasing, and their time
//! fields hold across a step back and follow a step forward.
//!
//! `step_child` and `uuid_step_child` are not tests of their own: they are the child halves,
//! run by re-executing this binary, and do nothing without `IDMINT_STEP_POLICY` or
//! `IDMINT_UUID_STEP_OUT`.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use idmint::clock::REANCHOR_MS;
use idmint::{Config, Error, Layout, OnBackwards, Snowflake};

const LIBFAKETIME: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
const MS: i64 = 1_000_000;

/// 1 ms ticks, 64 IDs per tick, and a rollback field with room for a 16 s step back.
fn layout() -> Layout {
    Layout::parse("time=40@1ms,rollback=2,worker=10,seq=6,epoch=2020-01-01").unwrap()
}

fn clock_ns(id: libc::clockid_t) -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

fn mono() -> i64 {
    clock_ns(libc::CLOCK_MONOTONIC)
}

/// What the child returned for one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Id(u64),
    Backwards,
    Other(u64),
}

/// One call: monotonic ns before (coarse: never later than the generator's own reading) and
/// after (precise), and its outcome.
#[derive(Debug, Clone, Copy)]
struct Rec {
    pre: i64,
    post: i64,
    out: Outcome,
}

const REC: usize = 32;

fn encode(r: &Rec) -> [u8; REC] {
    let (tag, v) = match r.out {
        Outcome::Id(id) => (0u64, id),
        Outcome::Backwards => (1, 0),
        Outcome::Other(k) => (2, k),
    };
    let mut b = [0u8; REC];
    b[..8].copy_from_slice(&r.pre.to_le_bytes());
    b[8..16].copy_from_slice(&r.post.to_le_bytes());
    b[16..24].copy_from_slice(&tag.to_le_bytes());
    b[24..].copy_from_slice(&v.to_le_bytes());
    b
}

fn decode(b: &[u8]) -> Rec {
    let n = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    Rec {
        pre: n(0) as i64,
        post: n(8) as i64,
        out: match n(16) {
            0 => Outcome::Id(n(24)),
            1 => Outcome::Backwards,
            _ => Outcome::Other(n(24)),
        },
    }
}

/// The child half: mints with `IDMINT_STEP_POLICY` in bursts of 10 calls every 2 ms until its
/// stdin closes, appending a record per call to `IDMINT_STEP_OUT`; prints its rollback count.
#[test]
fn step_child() {
    let Ok(policy) = std::env::var("IDMINT_STEP_POLICY") else {
        return;
    };
    let cfg = Config::new(layout())
        .node(1)
        .on_backwards(policy.parse().unwrap());
    let g = Snowflake::new(cfg).unwrap();
    let mut out = std::fs::File::create(std::env::var("IDMINT_STEP_OUT").unwrap()).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    std::thread::spawn(move || {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        s.store(true, Relaxed);
    });
    let mut buf = Vec::new();
    while !stop.load(Relaxed) {
        buf.clear();
        for _ in 0..10 {
            let pre = clock_ns(libc::CLOCK_MONOTONIC_COARSE);
            let r = g.next_id();
            let post = mono();
            let out = match r {
                Ok(id) => Outcome::Id(id),
                Err(Error::ClockBackwards { .. }) => Outcome::Backwards,
                Err(e) => Outcome::Other(e.kind() as u64),
            };
            buf.extend_from_slice(&encode(&Rec { pre, post, out }));
        }
        out.write_all(&buf).unwrap();
        std::thread::sleep(Duration::from_millis(2));
    }
    println!("\n@@STATS {}", g.stats().rollbacks);
}

/// A run of the child around one step of its wall clock.
struct Run {
    recs: Vec<Rec>,
    /// Monotonic ns right after the step was written.
    step_at: i64,
    /// Wall − monotonic ns before the step (the child's clock starts at `+0`).
    offset: i64,
    /// The child's rollback count.
    rollbacks: u64,
}

impl Run {
    /// Calls that started a full re-anchoring period after the step.
    fn seen(&self) -> impl Iterator<Item = &Rec> {
        let from = self.step_at + REANCHOR_MS as i64 * MS;
        self.recs.iter().filter(move |r| r.pre >= from)
    }

    fn before(&self) -> impl Iterator<Item = &Rec> {
        self.recs.iter().filter(move |r| r.post < self.step_at)
    }

    fn ids(&self) -> Vec<u64> {
        self.recs
            .iter()
            .filter_map(|r| match r.out {
                Outcome::Id(id) => Some(id),
                _ => None,
            })
            .collect()
    }

    fn no_duplicates(&self) {
        let ids = self.ids();
        let set: HashSet<_> = ids.iter().collect();
        assert_eq!(set.len(), ids.len(), "duplicate IDs");
    }

    fn increasing(&self) {
        let ids = self.ids();
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "IDs went down under a policy that keeps them increasing"
        );
    }

    /// Asserts that `r`'s ID carries the wall time of its call on a clock `shift_ms` off the
    /// one before the step: between its two monotonic readings (1 ms of slack for truncation
    /// and for the child's own offset measurement).
    fn at_wall_time(&self, r: &Rec, shift_ms: i64) {
        let Outcome::Id(id) = r.out else {
            panic!("expected an ID, got {r:?}");
        };
        let t = layout().timestamp_ms(id) as i64;
        let lo = (r.pre + self.offset) / MS + shift_ms - 1;
        let hi = (r.post + self.offset) / MS + shift_ms + 1;
        assert!(
            (lo..=hi).contains(&t),
            "ID time {t} outside [{lo}, {hi}] (clock shifted by {shift_ms} ms): {r:?}"
        );
    }
}

/// Writes `text` into the timestamp file atomically (libfaketime re-reads it at every clock read).
fn write_step(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, format!("{text}\n")).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

fn read_recs(path: &Path) -> Vec<Rec> {
    let b = std::fs::read(path).unwrap_or_default();
    b.chunks_exact(REC).map(decode).collect()
}

fn temp(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("idmint-clock-steps-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn wait_until(what: &str, child: &mut Child, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !cond() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the child exited ({status}) while waiting for {what}");
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs the child under `policy`, steps its clock by `step` (libfaketime offset text) once it
/// minted, and stops it once it made calls `settle_ms` past one re-anchoring period after the
/// step (for policies that bridge the step first, the time to catch up).
fn run(name: &str, policy: &str, step: &str, settle_ms: i64) -> Run {
    let dir = temp(name);
    let ft = dir.join("faketime");
    let out = dir.join("records");
    write_step(&ft, "+0");
    let offset = {
        let a = mono();
        let w = clock_ns(libc::CLOCK_REALTIME);
        let b = mono();
        w - (a + (b - a) / 2)
    };
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "step_child", "--nocapture", "--test-threads=1"])
        .env("LD_PRELOAD", LIBFAKETIME)
        .env("FAKETIME_TIMESTAMP_FILE", &ft)
        .env("FAKETIME_NO_CACHE", "1")
        .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
        .env("IDMINT_STEP_POLICY", policy)
        .env("IDMINT_STEP_OUT", &out)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the child");
    wait_until("the first IDs", &mut child, || {
        read_recs(&out)
            .iter()
            .filter(|r| matches!(r.out, Outcome::Id(_)))
            .count()
            >= 200
    });
    write_step(&ft, step);
    let step_at = mono();
    let until = step_at + (REANCHOR_MS as i64 + settle_ms) * MS;
    wait_until("calls after the step", &mut child, || {
        read_recs(&out).iter().filter(|r| r.pre >= until).count() >= 50
    });
    drop(child.stdin.take());
    let mut said = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut said)
        .unwrap();
    assert!(child.wait().unwrap().success(), "the child failed: {said}");
    let rollbacks = said
        .lines()
        .find_map(|l| l.strip_prefix("@@STATS "))
        .expect("the child's stats")
        .trim()
        .parse()
        .unwrap();
    let recs = read_recs(&out);
    let _ = std::fs::remove_dir_all(&dir);
    let run = Run {
        recs,
        step_at,
        offset,
        rollbacks,
    };
    // Before the step every call minted at the wall time of its call.
    let before: Vec<Rec> = run.before().copied().collect();
    assert!(before.len() >= 200);
    for r in &before {
        run.at_wall_time(r, 0);
    }
    run.no_duplicates();
    run
}

/// `fail`, clock set back 30 s: once seen, every call fails with ClockBackwards (the clock
/// is far from catching up); IDs stay unique and increasing.
#[test]
fn step_back_under_fail_errors_once_seen() {
    let run = run("fail", "fail", "-30s", 200);
    run.increasing();
    let seen: Vec<&Rec> = run.seen().collect();
    assert!(seen.len() >= 50);
    for r in seen {
        assert_eq!(r.out, Outcome::Backwards, "{r:?}");
    }
    assert!(run.rollbacks > 0);
}

/// `wait:1000`, clock set back 30 s (beyond the bound): once seen, every call fails at once.
#[test]
fn step_back_beyond_the_wait_bound_errors_once_seen() {
    let run = run("wait-beyond", "wait:1000", "-30s", 200);
    run.increasing();
    for r in run.seen() {
        assert_eq!(r.out, Outcome::Backwards, "{r:?}");
    }
}

/// `wait:5000`, clock set back 2 s (within the bound): the call that sees it waits for the clock
/// to catch up; no call fails, IDs stay increasing, and calls after the catch-up mint at the
/// new wall time.
#[test]
fn step_back_within_the_wait_bound_is_waited_out() {
    let run = run("wait-within", "wait:5000", "-2s", 2500);
    run.increasing();
    assert!(run.recs.iter().all(|r| matches!(r.out, Outcome::Id(_))));
    let after = run.step_at + (REANCHOR_MS as i64 + 2500) * MS;
    for r in run.recs.iter().filter(|r| r.pre >= after) {
        run.at_wall_time(r, -2000);
    }
    assert!(run.rollbacks > 0);
}

/// `logical:10000`, clock set back 2 s: minting goes on above the last ID without a pause or an
/// error, and once the clock has caught up IDs carry the new wall time again.
#[test]
fn step_back_under_logical_keeps_minting_above_the_last_id() {
    let run = run("logical", "logical:10000", "-2s", 3000);
    run.increasing();
    assert!(run.recs.iter().all(|r| matches!(r.out, Outcome::Id(_))));
    let after = run.step_at + (REANCHOR_MS as i64 + 3000) * MS;
    for r in run.recs.iter().filter(|r| r.pre >= after) {
        run.at_wall_time(r, -2000);
    }
    assert!(run.rollbacks > 0);
}

/// `rollback_counter`, clock set back 5 s (within the layout's depth): once seen, IDs carry the
/// new wall time and the bumped rollback field, and none repeats an earlier one.
#[test]
fn step_back_under_rollback_counter_bumps_the_counter() {
    let cfg = Config::new(layout())
        .node(1)
        .on_backwards(OnBackwards::RollbackCounter);
    assert!(cfg.max_rollback_ticks().unwrap() > 6000);
    let run = run("rollback-counter", "rollback_counter", "-5s", 200);
    for r in run.before() {
        let Outcome::Id(id) = r.out else { continue };
        assert_eq!(layout().decompose(id).unwrap().rollback, 0);
    }
    let seen: Vec<&Rec> = run.seen().collect();
    assert!(seen.len() >= 50);
    for r in seen {
        run.at_wall_time(r, -5000);
        let Outcome::Id(id) = r.out else {
            unreachable!()
        };
        assert_eq!(layout().decompose(id).unwrap().rollback, 1, "{r:?}");
    }
    assert!(run.rollbacks > 0);
}

/// `ring:8192` (8 s of 1 ms ticks), clock set back 5 s: once seen, IDs carry the new wall time,
/// continuing each earlier tick's own sequence, and none repeats an earlier one.
#[test]
fn step_back_under_ring_continues_the_earlier_ticks() {
    let run = run("ring", "ring:8192", "-5s", 200);
    let seen: Vec<&Rec> = run.seen().collect();
    assert!(seen.len() >= 50);
    for r in seen {
        run.at_wall_time(r, -5000);
    }
    assert!(run.rollbacks > 0);
}

/// Clock set forward 10 s (default policy): once seen, IDs carry the new wall time, still
/// increasing; nothing counts as a rollback.
#[test]
fn step_forward_shows_in_the_ids_time() {
    let run = run("forward", "wait:1000", "+10s", 200);
    run.increasing();
    let seen: Vec<&Rec> = run.seen().collect();
    assert!(seen.len() >= 50);
    for r in seen {
        run.at_wall_time(r, 10_000);
    }
    assert_eq!(run.rollbacks, 0);
}

/// The kinds of UUID-like IDs `uuid_step_child` mints, in its order.
const UUID_KINDS: [&str; 6] = ["uuid7", "ulid", "typeid", "uuid6", "uuid1", "uuid4"];
const UREC: usize = 40;

/// The child half of the UUID runs: the process-wide front doors (`idmint::named::clocked`), one
/// of each kind per round, 10 rounds every 2 ms until stdin closes; a record per ID: kind,
/// monotonic ns before (coarse) and after, and the 128 bits.
#[test]
fn uuid_step_child() {
    use idmint::named::clocked as c;
    let Ok(path) = std::env::var("IDMINT_UUID_STEP_OUT") else {
        return;
    };
    let mut out = std::fs::File::create(path).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    std::thread::spawn(move || {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        s.store(true, Relaxed);
    });
    let mut buf = Vec::new();
    while !stop.load(Relaxed) {
        buf.clear();
        for _ in 0..10 {
            for (k, kind) in UUID_KINDS.iter().enumerate() {
                let pre = clock_ns(libc::CLOCK_MONOTONIC_COARSE);
                let v = match *kind {
                    "uuid7" => c::uuid7().unwrap().as_u128(),
                    "ulid" => c::ulid().unwrap().0,
                    "typeid" => c::typeid("user").unwrap().uuid().as_u128(),
                    "uuid6" => c::uuid6().unwrap().as_u128(),
                    "uuid1" => c::uuid1().unwrap().as_u128(),
                    _ => c::uuid4().unwrap().as_u128(),
                };
                let post = mono();
                buf.extend_from_slice(&(k as u64).to_le_bytes());
                buf.extend_from_slice(&pre.to_le_bytes());
                buf.extend_from_slice(&post.to_le_bytes());
                buf.extend_from_slice(&v.to_le_bytes());
            }
        }
        out.write_all(&buf).unwrap();
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// One UUID record: kind (index into [`UUID_KINDS`]), monotonic ns before and after, bits.
type URec = (usize, i64, i64, u128);

/// Runs `uuid_step_child`, steps its wall clock by `step` once it has minted, and returns its
/// records, the monotonic ns of the step, and wall − monotonic ns before it.
fn uuid_run(name: &str, step: &str) -> (Vec<URec>, i64, i64) {
    let dir = temp(name);
    let ft = dir.join("faketime");
    let out = dir.join("records");
    write_step(&ft, "+0");
    let offset = {
        let a = mono();
        let w = clock_ns(libc::CLOCK_REALTIME);
        let b = mono();
        w - (a + (b - a) / 2)
    };
    let read = || -> Vec<URec> {
        let b = std::fs::read(&out).unwrap_or_default();
        b.chunks_exact(UREC)
            .map(|r| {
                let n = |i: usize| u64::from_le_bytes(r[i..i + 8].try_into().unwrap());
                let v = u128::from_le_bytes(r[24..40].try_into().unwrap());
                (n(0) as usize, n(8) as i64, n(16) as i64, v)
            })
            .collect()
    };
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "uuid_step_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("LD_PRELOAD", LIBFAKETIME)
        .env("FAKETIME_TIMESTAMP_FILE", &ft)
        .env("FAKETIME_NO_CACHE", "1")
        .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
        .env("IDMINT_UUID_STEP_OUT", &out)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the child");
    wait_until("the first UUIDs", &mut child, || read().len() >= 1200);
    write_step(&ft, step);
    let step_at = mono();
    let until = step_at + (REANCHOR_MS as i64 + 200) * MS;
    wait_until("UUIDs after the step", &mut child, || {
        read().iter().filter(|r| r.1 >= until).count() >= 300
    });
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success(), "the child failed");
    let recs = read();
    let _ = std::fs::remove_dir_all(&dir);
    // No kind repeats a value, and the monotonic kinds only go up, whatever the clock did.
    for (k, kind) in UUID_KINDS.iter().enumerate() {
        let vs: Vec<u128> = recs.iter().filter(|r| r.0 == k).map(|r| r.3).collect();
        assert!(vs.len() >= 300, "{kind}: {} records", vs.len());
        let set: HashSet<_> = vs.iter().collect();
        assert_eq!(set.len(), vs.len(), "{kind}: duplicates");
        if ["uuid7", "ulid", "typeid", "uuid6"].contains(kind) {
            assert!(vs.windows(2).all(|w| w[0] < w[1]), "{kind} went down");
        }
    }
    (recs, step_at, offset)
}

/// The process-wide UUID v7, ULID, TypeID, v6, v1 and v4 front doors while the wall clock is
/// set back 30 s: no value repeats, v7/ULID/TypeID/v6 keep increasing, and once the step is seen
/// every time-carrying kind stays at the millisecond it had reached (counting on in it) instead
/// of following the clock back, while the real time moves on.
#[test]
fn uuids_stay_unique_and_increasing_across_a_step_back() {
    let (recs, step_at, offset) = uuid_run("uuids-back", "-30s");
    let seen = step_at + (REANCHOR_MS as i64 + 50) * MS;
    let at_step = (step_at + offset) / MS;
    let held: Vec<&URec> = recs.iter().filter(|r| r.1 >= seen && r.0 != 5).collect();
    assert!(held.len() >= 100);
    // Until the step is seen (at most a re-anchoring period) the IDs go on at the old time;
    // after it they stay where that left them. The run goes on 200 ms past `seen`, so the last
    // records' real time is past the upper bound: a process that missed the step fails here.
    let hold_until = at_step + REANCHOR_MS as i64 + 60;
    for r in held {
        let t = time_of(r);
        assert!(
            (at_step - 20..=hold_until).contains(&t),
            "time {t} outside [{}, {hold_until}]: {r:?}",
            at_step - 20
        );
    }
}

/// The time (ms since the Unix epoch) a record's ID carries: the top 48 bits of a v7 UUID,
/// TypeID or ULID, the 100 ns timestamp of a v1 or v6.
fn time_of(r: &URec) -> i64 {
    match UUID_KINDS[r.0] {
        "uuid6" | "uuid1" => {
            let u = idmint::Uuid::from_u128(r.3);
            idmint::formats::uuid::inspect(&u).unix_ms.unwrap() as i64
        }
        _ => (r.3 >> 80) as i64,
    }
}

/// The same front doors while the wall clock is set forward 10 s: unique and increasing, and
/// once the step is seen, every time-carrying kind carries the new wall time (never later than
/// it; v7, TypeID and ULID at most a coarse-clock lag earlier).
#[test]
fn uuids_follow_a_step_forward() {
    let (recs, step_at, offset) = uuid_run("uuids-forward", "+10s");
    let seen = step_at + (REANCHOR_MS as i64 + 50) * MS;
    let after: Vec<&URec> = recs.iter().filter(|r| r.1 >= seen && r.0 != 5).collect();
    assert!(after.len() >= 100);
    for r in after {
        let t = time_of(r);
        let lo = (r.1 + offset) / MS + 10_000 - 20;
        let hi = (r.2 + offset) / MS + 10_000 + 1;
        assert!(
            (lo..=hi).contains(&t),
            "time {t} outside [{lo}, {hi}]: {r:?}"
        );
    }
}
