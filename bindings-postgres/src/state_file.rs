//! The last-issued bound, written ahead into a small file in the data directory
//! (`idmint_state`), so that a restart with the clock set back cannot repeat an ID minted on a
//! fixed node: like the core's checkpoint idea, the file always holds a time at or past every
//! ID handed out, and the generator built at startup is fenced at it.
//!
//! Every PostgreSQL process runs in the data directory, so the path is relative. A write goes
//! to a temporary file, is flushed to disk, and renamed over the old one (then the directory is
//! flushed), so a crash leaves the old bound or the new one, never a torn file.

use std::fs::{self, File, OpenOptions};
use std::io::Write;

/// The file's name in the data directory.
pub const FILE: &str = "idmint_state";
const TMP: &str = "idmint_state.tmp";
const HEADER: &str = "idmint-state v1";

/// How far ahead of the clock each write puts the bound: a write per this much minting time,
/// and the longest a restart on an unchanged clock waits for its own fence.
pub const RESERVE_MS: u64 = 2_000;

/// Reads the recorded bound: `Ok(None)` when there is no file (a new data directory).
pub fn read() -> Result<Option<u64>, String> {
    let text = match fs::read_to_string(FILE) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {FILE} in the data directory: {e}")),
    };
    let mut lines = text.lines();
    let bound = match (lines.next(), lines.next()) {
        (Some(HEADER), Some(line)) => line
            .strip_prefix("bound_ms=")
            .and_then(|v| v.parse::<u64>().ok()),
        _ => None,
    };
    bound.map(Some).ok_or_else(|| {
        format!(
            "{FILE} in the data directory is not an idmint state file; minting is refused because the last issued time is unknown (remove the file only if no ID of this node can be ahead of the clock)"
        )
    })
}

/// Records `bound_ms`, durably, before any ID up to it is handed out.
pub fn write(bound_ms: u64) -> Result<(), String> {
    let fail =
        |what: &str, e: std::io::Error| format!("cannot {what} {TMP} in the data directory: {e}");
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(TMP)
        .map_err(|e| fail("create", e))?;
    f.write_all(format!("{HEADER}\nbound_ms={bound_ms}\n").as_bytes())
        .map_err(|e| fail("write", e))?;
    f.sync_all().map_err(|e| fail("flush", e))?;
    drop(f);
    fs::rename(TMP, FILE).map_err(|e| fail("rename", e))?;
    File::open(".")
        .and_then(|d| d.sync_all())
        .map_err(|e| format!("cannot flush the data directory after writing {FILE}: {e}"))
}
