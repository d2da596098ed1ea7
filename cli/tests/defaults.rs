//! The CLI's defaults never let processes share a node, and `decode -` works on endless input
//! in bounded memory.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_idmint");

/// Generous: the machine may be loaded; nothing here should take more than a few seconds.
const DEADLINE: Duration = Duration::from_secs(60);

fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "idmint-cli-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

fn ids(child: Child) -> Vec<u64> {
    let o = child.wait_with_output().expect("wait for idmint");
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

/// Twenty `idmint gen -n 1000` started at once with no node options at all (every surface's
/// default used to be node 0, and this scenario gave 4,000-5,000 duplicates of 20,000; whether
/// two runs overlap in a millisecond is up to the scheduler, so the scenario is played three
/// times): each run leases its node from the local lock directory, and a node's next holder
/// starts after its last issued time, so all 60,000 IDs are distinct.
#[test]
fn twenty_concurrent_gen_without_flags_mint_no_duplicate() {
    let dir = temp_dir("gen-defaults");
    let mut runs: Vec<Vec<u64>> = Vec::new();
    for _round in 0..3 {
        runs.extend(twenty_runs(&dir));
    }
    let mut seen = HashSet::new();
    let mut dups = 0;
    for id in runs.iter().flatten() {
        if !seen.insert(*id) {
            dups += 1;
        }
    }
    assert_eq!(runs.iter().map(Vec::len).sum::<usize>(), 60_000);
    assert_eq!(dups, 0, "duplicate IDs among concurrent runs");
    // The leases were taken in the directory the environment named.
    assert!(std::fs::read_dir(&dir).unwrap().next().is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Starts twenty `idmint gen -n 1000` at once and returns their IDs.
fn twenty_runs(dir: &std::path::Path) -> Vec<Vec<u64>> {
    let children: Vec<Child> = (0..20)
        .map(|_| {
            Command::new(BIN)
                .args(["gen", "-n", "1000"])
                .env("IDMINT_LEASE_DIR", dir)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn idmint")
        })
        .collect();
    children.into_iter().map(ids).collect()
}

/// With HOME, XDG_STATE_HOME and IDMINT_LEASE_DIR all unset (a bare service environment), `gen`
/// still leases locally: from `idmint-UID/leases` in the temp directory, created private to the
/// user; two runs at once still mint distinct IDs.
#[test]
fn gen_without_home_or_xdg_state_home_leases_from_the_temp_directory() {
    let tmp = temp_dir("no-home");
    let spawn = || {
        Command::new(BIN)
            .args(["gen", "-n", "2000"])
            .env_remove("HOME")
            .env_remove("XDG_STATE_HOME")
            .env_remove("IDMINT_LEASE_DIR")
            // std::env::temp_dir() follows TMPDIR: keeps the test out of the real /tmp.
            .env("TMPDIR", &tmp)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn idmint")
    };
    let (a, b) = (spawn(), spawn());
    let (a, b) = (ids(a), ids(b));
    let all: HashSet<u64> = a.iter().chain(&b).copied().collect();
    assert_eq!(all.len(), 4000);
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let base = tmp.join(format!("idmint-{uid}"));
    let mode = std::fs::metadata(&base).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "private to the user");
    assert!(std::fs::read_dir(base.join("leases"))
        .unwrap()
        .next()
        .is_some());
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Runs `idmint decode -` (plus `extra` args) with `chunk` written to its stdin over and over
/// (up to 256 MiB) and stdin never closed by us, so a decoder that waits for the end of its
/// input never answers. `watch` gets the child's stdout and returns once it saw what it wanted;
/// the child must then exit by itself. Returns (exit status, stderr, bytes written).
fn decode_endless(
    extra: &[&str],
    chunk: &'static [u8],
    watch: impl FnOnce(&mut dyn Read) + Send + 'static,
) -> (std::process::ExitStatus, String, u64) {
    let mut child = Command::new(BIN)
        .args(["decode", "-"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn idmint");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let stop = stop.clone();
        thread::spawn(move || {
            let mut written = 0u64;
            while !stop.load(Ordering::Relaxed) && written < 256 << 20 {
                match stdin.write_all(chunk) {
                    Ok(()) => written += chunk.len() as u64,
                    Err(_) => return written, // the reader is gone (EPIPE)
                }
            }
            // Keep stdin open (no end of input) until told to stop.
            while !stop.load(Ordering::Relaxed) {
                thread::sleep(Duration::from_millis(10));
            }
            written
        })
    };
    let (done, seen) = mpsc::channel();
    thread::spawn(move || {
        watch(&mut stdout);
        drop(stdout); // like `head` exiting
        let _ = done.send(());
    });
    let err_reader = thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let watched = seen.recv_timeout(DEADLINE).is_ok();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if start.elapsed() > DEADLINE {
            break None;
        }
        thread::sleep(Duration::from_millis(20));
    };
    stop.store(true, Ordering::Relaxed);
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    let written = writer.join().unwrap();
    let err = err_reader.join().unwrap();
    assert!(
        watched,
        "no expected output within {DEADLINE:?} while stdin stays open: {err}"
    );
    let status = status.unwrap_or_else(|| panic!("decode did not exit by itself: {err}"));
    (status, err, written)
}

/// `yes 1234 | idmint decode - | head`: decoding starts before the input ends, and when the
/// reader goes away the decoder exits quietly instead of reading on.
#[test]
fn decode_stdin_streams_endless_input_into_head() {
    let (status, err, written) = decode_endless(&[], b"1234\n", |out| {
        // `head`: the first three decoded IDs, then go away.
        let mut lines = BufReader::new(out).lines();
        let mut decoded = 0;
        while decoded < 3 {
            let line = lines.next().expect("a line").expect("read stdout");
            if line.split_whitespace().eq(["id", "1234"]) {
                decoded += 1;
            }
        }
    });
    assert!(status.success(), "{status:?}: {err}");
    assert!(
        written < 256 << 20,
        "decode read all the input: {written} bytes"
    );
}

/// The JSON form streams too: the array opens and elements follow before the input ends.
#[test]
fn decode_stdin_json_streams_elements() {
    let (status, err, _) = decode_endless(&["--json"], b"4194304 4194305\n", |out| {
        let mut lines = BufReader::new(out).lines();
        assert_eq!(lines.next().unwrap().unwrap(), "[");
        assert_eq!(lines.next().unwrap().unwrap(), "  {");
        assert_eq!(lines.next().unwrap().unwrap(), "    \"id\": \"4194304\",");
    });
    assert!(status.success(), "{status:?}: {err}");
}

/// A line with no end (`yes 1234 | tr -d '\n'`) is refused once it passes the limit, with an
/// error naming it, instead of being read into memory whole.
#[test]
fn decode_refuses_an_absurdly_long_line_naming_the_limit() {
    let (status, err, written) = decode_endless(&[], b"1234 1234 1234 1234 ", |out| {
        let mut rest = Vec::new();
        let _ = out.read_to_end(&mut rest); // ends when decode exits
    });
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(
        err.contains("bytes in one line of standard input exceeds the limit of 1048576"),
        "{err}"
    );
    assert!(err.contains("standard input line 1"), "{err}");
    assert!(
        written < 256 << 20,
        "decode read all the input: {written} bytes"
    );
}

/// A bad ID on standard input stops the output at its line, naming the line.
#[test]
fn decode_stdin_names_the_line_of_a_bad_id() {
    let mut child = Command::new(BIN)
        .args(["decode", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"4194304\n\n4194305 12ab!\n4194306\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("standard input line 3"), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout)
            .matches("timestamp_ms")
            .count(),
        2
    );
}
