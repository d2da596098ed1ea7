//! Processes started inside a namespace (`ip netns exec`, which execs the program: the pid we
//! hold is the program's), with their output appended to a log, and a per-process wall clock
//! under libfaketime driven by a file (`FAKETIME_TIMESTAMP_FILE`, re-read on every call with
//! `FAKETIME_NO_CACHE=1`): writing the file moves the running process's clock.

use std::fs::OpenOptions;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// Where Debian's libfaketime lives.
pub const LIBFAKETIME: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

/// A program to run in a namespace.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The namespace.
    pub ns: String,
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Extra environment.
    pub env: Vec<(String, String)>,
    /// Its log (stdout and stderr, appended).
    pub log: PathBuf,
    /// The faketime offset file, if its clock is to be steered.
    pub clock: Option<PathBuf>,
}

/// Starts `spec`, in its own process group (a Ctrl-C of the harness reaches only the harness,
/// which then stops everything in order).
pub fn spawn(spec: &Spec) -> Result<Child, String> {
    let log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&spec.log)
        .map_err(|e| format!("{}: {e}", spec.log.display()))?;
    let err = log.try_clone().map_err(|e| e.to_string())?;
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", &spec.ns])
        .arg(&spec.program)
        .args(&spec.args)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(err)
        .process_group(0);
    if let Some(file) = &spec.clock {
        cmd.env("LD_PRELOAD", LIBFAKETIME)
            .env("FAKETIME_TIMESTAMP_FILE", file)
            .env("FAKETIME_NO_CACHE", "1")
            // Only the wall clock moves: deadlines and timeouts run on the monotonic clock.
            .env("FAKETIME_DONT_FAKE_MONOTONIC", "1");
    }
    cmd.spawn()
        .map_err(|e| format!("start {}: {e}", spec.program.display()))
}

/// Sends `sig` to `child` (nothing if it is gone).
pub fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on our own child's pid; no memory is touched.
    unsafe {
        libc::kill(child.id() as i32, sig);
    }
}

/// SIGKILLs `child` (resuming it first, if stopped) and reaps it.
pub fn kill(mut child: Child) {
    signal(&child, libc::SIGCONT);
    let _ = child.kill();
    let _ = child.wait();
}

/// Writes a clock offset for libfaketime: `+1.250` is 1.25 s ahead of true time.
pub fn set_offset(file: &Path, offset_ms: i64) -> Result<(), String> {
    std::fs::write(file, format!("{}\n", faketime_offset(offset_ms)))
        .map_err(|e| format!("{}: {e}", file.display()))
}

/// libfaketime's text for an offset of `ms` (seconds with a fraction and a sign).
pub fn faketime_offset(ms: i64) -> String {
    let sign = if ms < 0 { '-' } else { '+' };
    let a = ms.unsigned_abs();
    format!("{sign}{}.{:03}", a / 1000, a % 1000)
}

/// Runs a command to completion, failing with its output.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout).trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_in_libfaketimes_text() {
        assert_eq!(faketime_offset(0), "+0.000");
        assert_eq!(faketime_offset(1_250), "+1.250");
        assert_eq!(faketime_offset(-3_005), "-3.005");
    }
}
