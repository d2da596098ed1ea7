//! A leased holder whose wall clock steps while it mints (libfaketime reading its offset from a
//! file at every clock read; the monotonic clock, which lease deadlines run on, stays real).
//!
//! `fault_child` is not a test of its own: it is the child half, run by re-executing this
//! binary, and does nothing without `IDMINT_MINTER_URL`.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use idmint::{Clock, Config, Layout, SystemClock};
use idmint_coord::lease::{LeaseOptions, LeasedSnowflake};
use support::minter::{assert_no_duplicates, Faketime, Minter, MinterSpec};
use support::TempDir;

/// The child half of the process tests (see `support::minter`).
#[test]
fn fault_child() {
    support::minter::child_main();
}

/// Writes `text` into the timestamp file atomically (libfaketime re-reads it at every read).
fn write_offset(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, format!("{text}\n")).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

fn ids_in(path: &Path) -> Vec<u64> {
    std::fs::read(path)
        .unwrap_or_default()
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The holder's wall clock jumps 10 s forward, past the bound its last renewal recorded (TTL
/// 2 s). It must see the step within a re-anchoring period, renew on the spot to record a new
/// bound, and keep minting, without an error, at the new time; the next holder of the node is
/// fenced above every ID it minted. Zero duplicates.
#[test]
fn clock_stepped_forward_under_a_leased_holder_keeps_minting_at_the_new_time() {
    let dir = TempDir(support::temp_dir("clock-forward"));
    let outs = TempDir(support::temp_dir("clock-forward-out"));
    let url = format!("file:{}", dir.0.display());
    let ft = outs.0.join("faketime");
    write_offset(&ft, "+0");
    let out = outs.0.join("a");
    let spec = MinterSpec::new(&url, "steps", 1, 2_000).faketime(Faketime::File(ft.clone()));
    let mut m = Minter::start(&spec, &out);
    m.wait_for("HOLD");
    m.wait_minted(20_000);
    let l = Layout::preset("twitter").unwrap();
    let real = SystemClock::precise();
    write_offset(&ft, "+10s");
    // Wait for an ID at least 5 s ahead of the real time it was minted by (at most the time
    // the file was read): only a clock that followed the step can mint it.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !{
        let ids = ids_in(&out);
        let read_by = real.now_ms();
        ids.iter().any(|&id| l.timestamp_ms(id) > read_by + 5_000)
    } {
        assert!(
            Instant::now() < deadline,
            "no ID carries the stepped time; the child said {:?}",
            m.seen
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    m.wait_minted(20_000);
    let (ids, said) = m.finish();
    assert!(
        !said.iter().any(|l| l.starts_with("ERROR")),
        "the holder failed: {said:?}"
    );
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "IDs went down");
    assert_no_duplicates(&[&ids]);
    // The node's next holder, on the real clock 10 s behind, starts above all of them.
    let cfg = Config::new(l).on_backwards("logical:30000".parse().unwrap());
    let opts = LeaseOptions::new().namespace("steps").nodes(1);
    let next = LeasedSnowflake::from_source(&url, cfg, opts).unwrap();
    let first = next.next_id().unwrap();
    assert!(first > *ids.last().unwrap());
    next.release().unwrap();
}
