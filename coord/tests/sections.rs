//! The section sequencer (WeChat seqsvr): strictly increasing sequences per key across threads,
//! across restarts on the same SQLite file — clean, and after a SIGKILL mid-run — checked over
//! 120,000 keys; a store that lost its data, another store, another writer, a changed layout
//! and bad input refused with typed errors.

mod support;

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use idmint::segment::Range;
use idmint::{Error, ErrorKind};
use idmint_coord::segment::sections::{MAX_SECTIONS, MAX_SECTION_SIZE, MAX_STEP};
use idmint_coord::segment::sqlite::SqliteStore;
use idmint_coord::segment::{MemoryStore, SectionSequencer, SegmentStore};
use support::temp_dir;

/// Keys the restart checks cover: more than a section of the default size.
const KEYS: u64 = 120_000;

fn sqlite(dir: &Path) -> SqliteStore {
    SqliteStore::open(dir.join("sections.db")).unwrap()
}

fn sequencer(dir: &Path, step: u64) -> idmint::Result<SectionSequencer<SqliteStore>> {
    SectionSequencer::builder(sqlite(dir))
        .step(step)
        .record(dir.join("sections.record"))
        .build()
}

#[test]
fn per_key_sequences_strictly_increase_across_threads() {
    let dir = temp_dir("sections-threads");
    let store = Arc::new(MemoryStore::new());
    // Small sections and steps: raises all the time, several sections, hot keys shared.
    let seq = SectionSequencer::builder(Arc::clone(&store))
        .section_size(1_000)
        .step(50)
        .record(dir.join("r"))
        .build()
        .unwrap();
    let per_thread: Vec<Vec<(u64, u64)>> = thread::scope(|s| {
        let hs: Vec<_> = (0..8u64)
            .map(|t| {
                let seq = &seq;
                s.spawn(move || {
                    let mut got = Vec::with_capacity(40_000);
                    let mut keys = [0u64; 5];
                    let mut out = [0u64; 5];
                    for i in 0..6_000u64 {
                        let hot = i % 16;
                        got.push((hot, seq.next(hot).unwrap()));
                        let spread = (i * 7_919 + t * 131) % 5_000;
                        got.push((spread, seq.next(spread).unwrap()));
                        if i % 3 == t % 3 {
                            for (j, k) in keys.iter_mut().enumerate() {
                                *k = (i + j as u64 * 1_001) % 5_000;
                            }
                            keys[4] = hot; // and a key listed with the others
                            seq.next_many(&keys, &mut out).unwrap();
                            got.extend(keys.iter().copied().zip(out));
                        }
                    }
                    got
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut by_key: HashMap<u64, Vec<u64>> = HashMap::new();
    for got in &per_thread {
        let mut last: HashMap<u64, u64> = HashMap::new();
        for &(k, v) in got {
            let before = last.insert(k, v).unwrap_or(0);
            assert!(v > before, "key {k}: {v} after {before} in one thread");
            by_key.entry(k).or_default().push(v);
        }
    }
    for (k, vs) in &mut by_key {
        let n = vs.len();
        vs.sort_unstable();
        vs.dedup();
        assert_eq!(vs.len(), n, "key {k}: a sequence served twice");
        // Every later call, on any thread, is above everything served before it.
        assert!(seq.next(*k).unwrap() > *vs.last().unwrap());
        assert!(seq.current(*k).unwrap() >= *vs.last().unwrap());
    }
    assert_eq!(seq.sections(), 5);
    assert!(store.takes() > 50, "raises ran: {}", store.takes());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_restart_on_the_same_sqlite_file_resumes_above_every_key() {
    let dir = temp_dir("sections-restart");
    let mut last = vec![0u64; KEYS as usize];
    let keys: Vec<u64> = (0..KEYS).collect();
    let mut out = vec![0u64; keys.len()];
    for (run, step) in [(0u64, 1_000), (1, 1_000), (2, 37)] {
        let seq = sequencer(&dir, step).unwrap();
        for key in 0..KEYS {
            let s = seq.current(key).unwrap();
            assert!(s >= last[key as usize], "run {run} key {key}");
        }
        // Some keys once, some a few times, all of them in one batch too.
        for key in 0..KEYS {
            for _ in 0..=(key + run) % 3 {
                let s = seq.next(key).unwrap();
                assert!(s > last[key as usize], "run {run} key {key}: {s}");
                last[key as usize] = s;
            }
        }
        seq.next_many(&keys, &mut out).unwrap();
        for (key, s) in keys.iter().zip(&out) {
            assert!(*s > last[*key as usize], "run {run} key {key}: {s}");
            last[*key as usize] = *s;
        }
        assert_eq!(seq.sections(), 2);
        assert!(seq.memory_bytes() >= 2 * 100_000 * 8);
    }
    fs::remove_dir_all(&dir).unwrap();
}

const CHILD_ENV: &str = "IDMINT_SECTIONS_CHILD";
/// A key every batch of the child serves many times, so its section raises all the time.
const HOT: u64 = 7;

/// The child half of [`a_sequencer_killed_mid_run_never_goes_back`], not a test of its own:
/// without the environment variable it returns at once. With it, it serves every key of
/// `0..KEYS` over and over (and one hot key 50 times a batch) until killed, appending each
/// batch's `key seq` lines to the output file once they were handed out.
#[test]
fn child_serves_until_killed() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    let dir = PathBuf::from(dir);
    let seq = sequencer(&dir, 64).unwrap();
    let mut out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("served"))
        .unwrap();
    let mut keys = Vec::with_capacity(1_050);
    let mut seqs = vec![0u64; 1_050];
    loop {
        for chunk in (0..KEYS).collect::<Vec<_>>().chunks(1_000) {
            keys.clear();
            keys.extend_from_slice(chunk);
            keys.extend(std::iter::repeat(HOT).take(50));
            seq.next_many(&keys, &mut seqs[..keys.len()]).unwrap();
            let text: String = keys
                .iter()
                .zip(&seqs)
                .map(|(k, s)| format!("{k} {s}\n"))
                .collect();
            out.write_all(text.as_bytes()).unwrap();
        }
    }
}

/// The highest sequence per key in the child's output (a line cut by the kill is skipped), and
/// how many lines there were.
fn highest_served(path: &Path) -> (HashMap<u64, u64>, usize) {
    let mut high = HashMap::new();
    let mut lines = 0;
    if let Ok(f) = File::open(path) {
        for line in BufReader::new(f).lines().map_while(|l| l.ok()) {
            let mut parts = line.split(' ');
            let (Some(k), Some(s), None) = (parts.next(), parts.next(), parts.next()) else {
                continue;
            };
            if let (Ok(k), Ok(s)) = (k.parse::<u64>(), s.parse::<u64>()) {
                let h = high.entry(k).or_insert(0);
                *h = s.max(*h);
                lines += 1;
            }
        }
    }
    (high, lines)
}

fn line_count(path: &Path) -> usize {
    fs::read(path)
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
}

#[test]
fn a_sequencer_killed_mid_run_never_goes_back() {
    let dir = temp_dir("sections-kill");
    let served = dir.join("served");
    let exe = std::env::current_exe().unwrap();
    for kill in 0..2 {
        let before = line_count(&served);
        let mut child = Command::new(&exe)
            .args(["--exact", "child_serves_until_killed", "--nocapture"])
            .args(["--test-threads=1"])
            .env(CHILD_ENV, &dir)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        // More than one pass over every key, then a kill at whatever it is doing (with a
        // step of 64 and the hot key, a raise is in flight much of the time).
        let start = Instant::now();
        while line_count(&served) < before + 160_000 {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "child served too little"
            );
            if let Some(status) = child.try_wait().unwrap() {
                panic!("child exited early: {status}");
            }
            thread::sleep(Duration::from_millis(20));
        }
        child.kill().unwrap(); // SIGKILL: nothing runs after it
        child.wait().unwrap();
        // Restart in this process on the same file and record (the kernel released the dead
        // child's lock): every key resumes above everything the child served.
        let (high, lines) = highest_served(&served);
        assert!(lines > 160_000, "kill {kill}: {lines} lines");
        let seq = sequencer(&dir, 64).unwrap();
        let mut checked = 0;
        for key in 0..KEYS {
            let s = seq.next(key).unwrap();
            if let Some(&h) = high.get(&key) {
                assert!(
                    s > h,
                    "kill {kill}: key {key} resumed at {s}, served {h} before"
                );
                checked += 1;
            }
        }
        assert!(checked >= 100_000, "kill {kill}: {checked} keys checked");
        assert!(seq.next(HOT).unwrap() > high[&HOT]);
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// A store that can lose everything (its counters and identity), as a flushed Redis does.
struct Wipeable {
    inner: Mutex<MemoryStore>,
}

impl Wipeable {
    fn wipe(&self) {
        *self.inner.lock().unwrap() = MemoryStore::new();
    }
}

impl SegmentStore for Wipeable {
    fn kind(&self) -> &'static str {
        "wipeable"
    }
    fn take(&self, key: &str, step: u64) -> idmint::Result<Range> {
        self.inner.lock().unwrap().take(key, step)
    }
    fn identity(&self) -> idmint::Result<u64> {
        self.inner.lock().unwrap().identity()
    }
}

fn mismatch(e: Error) {
    assert_eq!(e.kind(), ErrorKind::StoreMismatch, "{e}");
}

#[test]
fn a_lost_or_another_store_and_a_changed_layout_are_refused() {
    let dir = temp_dir("sections-lost");
    let record = dir.join("sections.record");
    {
        let seq = sequencer(&dir, 100).unwrap();
        assert_eq!(seq.next(5).unwrap(), 1);
        // One owner per record.
        let e = sequencer(&dir, 100).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidConfig, "{e}");
    }
    // Another SQLite file under the same record: refused.
    let other = temp_dir("sections-other");
    let e = SectionSequencer::builder(sqlite(&other))
        .record(&record)
        .build()
        .unwrap_err();
    mismatch(e);
    // A changed section size or prefix: refused.
    mismatch(
        SectionSequencer::builder(sqlite(&dir))
            .section_size(1_000)
            .record(&record)
            .build()
            .unwrap_err(),
    );
    mismatch(
        SectionSequencer::builder(sqlite(&dir))
            .prefix("seq/")
            .record(&record)
            .build()
            .unwrap_err(),
    );
    // The store loses its data (its file is gone and made again): refused.
    for f in ["sections.db", "sections.db-wal", "sections.db-shm"] {
        let _ = fs::remove_file(dir.join(f));
    }
    mismatch(sequencer(&dir, 100).unwrap_err());
    // A damaged record is refused, not guessed at.
    fs::write(&record, "# idmint section sequencer v1\nstore zz\n").unwrap();
    let e = sequencer(&dir, 100).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidConfig, "{e}");
    fs::remove_dir_all(&dir).unwrap();
    fs::remove_dir_all(&other).unwrap();

    // The store loses its data while the sequencer runs.
    let dir = temp_dir("sections-wiped");
    let store = Arc::new(Wipeable {
        inner: Mutex::new(MemoryStore::new()),
    });
    let seq = SectionSequencer::builder(Arc::clone(&store))
        .section_size(100)
        .step(10)
        .record(dir.join("r"))
        .build()
        .unwrap();
    let mut last = 0;
    for _ in 0..25 {
        last = seq.next(1).unwrap();
    }
    store.wipe();
    // A section first used after the loss would start at 1 again: refused.
    mismatch(seq.next(150).unwrap_err());
    // Section 0 serves what its counter still covers (above everything before), then its
    // raise meets a counter that went back: stopped, for good.
    let e = loop {
        match seq.next(1) {
            Ok(s) => {
                assert!(s > last);
                last = s;
            }
            Err(e) => break e,
        }
    };
    mismatch(e);
    mismatch(seq.next(1).unwrap_err());
    mismatch(seq.next(2).unwrap_err());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn another_writer_on_the_same_counters_stops_the_section() {
    let store = Arc::new(MemoryStore::new());
    let build = || {
        SectionSequencer::builder(Arc::clone(&store))
            .section_size(100)
            .step(10)
            .without_record()
            .build()
            .unwrap()
    };
    let a = build();
    let b = build();
    assert_eq!(a.next(3).unwrap(), 1);
    assert_eq!(b.next(3).unwrap(), 11, "b resumes above a's step");
    let e = (0..20).find_map(|_| a.next(3).err()).unwrap();
    mismatch(e);
}

/// Ranges that interleave by design: no section maximum can live there.
struct Interleaving;

impl SegmentStore for Interleaving {
    fn kind(&self) -> &'static str {
        "interleaving"
    }
    fn take(&self, _: &str, step: u64) -> idmint::Result<Range> {
        Ok(Range {
            start: 1,
            end: 1 + step,
        })
    }
    fn ascending(&self) -> bool {
        false
    }
    fn identity(&self) -> idmint::Result<u64> {
        Ok(1)
    }
}

#[test]
fn bad_input_is_refused_with_typed_errors() {
    let b = || SectionSequencer::builder(MemoryStore::new()).without_record();
    let kind = |r: idmint::Result<SectionSequencer<MemoryStore>>| r.unwrap_err().kind();
    assert_eq!(kind(b().section_size(0).build()), ErrorKind::InvalidConfig);
    assert_eq!(
        kind(b().section_size(MAX_SECTION_SIZE + 1).build()),
        ErrorKind::LimitExceeded
    );
    assert_eq!(
        kind(b().section_size(u64::MAX).build()),
        ErrorKind::LimitExceeded
    );
    assert_eq!(kind(b().step(0).build()), ErrorKind::InvalidConfig);
    assert_eq!(
        kind(b().step(MAX_STEP + 1).build()),
        ErrorKind::LimitExceeded
    );
    assert_eq!(kind(b().max_sections(0).build()), ErrorKind::InvalidConfig);
    assert_eq!(
        kind(b().max_sections(MAX_SECTIONS + 1).build()),
        ErrorKind::LimitExceeded
    );
    assert_eq!(
        kind(b().max_sections(usize::MAX).build()),
        ErrorKind::LimitExceeded
    );
    for prefix in ["", "has space", "ünïcode", &"p".repeat(101)] {
        assert_eq!(
            kind(b().prefix(prefix).build()),
            ErrorKind::InvalidConfig,
            "{prefix:?}"
        );
    }
    let e = SectionSequencer::builder(MemoryStore::new())
        .build()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidConfig, "no record chosen: {e}");
    let e = SectionSequencer::builder(Interleaving)
        .without_record()
        .build()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidConfig, "{e}");

    // Keys beyond the sections allowed; a batch without room for its sequences.
    let seq = b().section_size(10).max_sections(2).build().unwrap();
    assert_eq!(seq.next(0).unwrap(), 1);
    assert_eq!(seq.next(19).unwrap(), 1);
    for key in [20, u64::MAX] {
        assert_eq!(seq.next(key).unwrap_err().kind(), ErrorKind::LimitExceeded);
    }
    let mut out = [0u64; 1];
    assert_eq!(
        seq.next_many(&[1, 2], &mut out).unwrap_err().kind(),
        ErrorKind::InvalidConfig
    );
    seq.next_many(&[], &mut []).unwrap();
    // The largest key of a section that fits is served.
    let wide = b().section_size(MAX_SECTION_SIZE).build().unwrap();
    assert_eq!(wide.next(MAX_SECTION_SIZE - 1).unwrap(), 1);
}

/// After fork() the child would serve its parent's sequences again: it refuses.
#[test]
fn a_forked_child_refuses_to_serve() {
    let seq = SectionSequencer::builder(MemoryStore::new())
        .without_record()
        .build()
        .unwrap();
    assert_eq!(seq.next(1).unwrap(), 1);
    // SAFETY: the child only touches atomics and makes syscalls before _exit; its refusals
    // return before any lock or allocation.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let mut code = 0;
        if seq.next(1) != Err(Error::Forked) {
            code |= 1;
        }
        if seq.next_many(&[1], &mut [0]) != Err(Error::Forked) {
            code |= 2;
        }
        // SAFETY: ends the child without running destructors or atexit handlers.
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    // SAFETY: waits for the child we just forked.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    assert_eq!(seq.next(1).unwrap(), 2);
}
