//! End-to-end tests of the `idmint` binary.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_idmint");

fn idmint(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("run the idmint binary")
}

fn idmint_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn idmint");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

/// Runs a command that must succeed and returns its stdout.
fn ok(args: &[&str]) -> String {
    let o = idmint(args);
    assert!(
        o.status.success(),
        "idmint {args:?} failed with {:?}: {}",
        o.status,
        stderr(&o)
    );
    stdout(&o)
}

fn json(args: &[&str]) -> Value {
    let text = ok(args);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("idmint {args:?}: {e}: {text}"))
}

/// Runs a command that must fail with `error:` and the given exit code; returns its stderr.
fn fails(args: &[&str], code: i32) -> String {
    let o = idmint(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(code), "idmint {args:?}: {err}");
    assert!(err.starts_with("error:"), "idmint {args:?}: {err}");
    assert!(!err.contains("panicked"), "idmint {args:?}: {err}");
    err
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[test]
fn gen_prints_count_increasing_decimal_ids() {
    let out = ok(&["gen", "-n", "5"]);
    let ids: Vec<u64> = out.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(ids.len(), 5);
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    assert_eq!(ok(&["gen"]).lines().count(), 1);
    assert_eq!(ok(&["gen", "-n", "0"]), "");
}

#[test]
fn gen_formats() {
    let hex = ok(&["gen", "-n", "3", "--format", "hex"]);
    for line in hex.lines() {
        let digits = line.strip_prefix("0x").expect("hex has a 0x prefix");
        u64::from_str_radix(digits, 16).unwrap();
    }
    for (format, len) in [("base32", 13), ("base62", 11)] {
        let out = ok(&["gen", "-n", "3", "--format", format]);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines.iter().all(|l| l.len() == len), "{format}: {out}");
        // Fixed-width codecs sort as text like the numbers do.
        assert!(lines.windows(2).all(|w| w[0] < w[1]), "{format}: {out}");
    }
}

#[test]
fn gen_json_is_an_array_of_strings() {
    let v = json(&["gen", "-n", "4", "--json"]);
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), 4);
    let ids: Vec<u64> = arr
        .iter()
        .map(|s| s.as_str().expect("IDs are strings").parse().unwrap())
        .collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    let v = json(&["gen", "-n", "2", "--json", "--format", "base62"]);
    assert!(v
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s.as_str().unwrap().len() == 11));
    assert_eq!(json(&["gen", "-n", "0", "--json"]), Value::Array(vec![]));
}

#[test]
fn gen_many_is_fast_and_unique() {
    let out = ok(&["gen", "-n", "100000", "--layout", "leaf", "--node", "7"]);
    let ids: Vec<u64> = out.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(ids.len(), 100_000);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn decode_round_trips_gen_output_in_every_format() {
    for format in ["dec", "hex", "base32", "base62"] {
        let before = now_ms();
        let id_text = ok(&[
            "gen",
            "--format",
            format,
            "--node",
            "datacenter=3,worker=17",
        ]);
        let id_text = id_text.trim();
        let dec = ok(&["decode", "--codec", format, id_text]);
        let id: u64 = dec
            .lines()
            .find_map(|l| l.strip_prefix("id"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // Auto-detection, unless the text happens to be all digits (then it reads as decimal).
        let mut args = vec!["decode", id_text, "--json"];
        if format != "dec" && id_text.bytes().all(|b| b.is_ascii_digit()) {
            args.extend(["--codec", format]);
        }
        let v = json(&args);
        assert_eq!(v["id"], id.to_string(), "{format}");
        let ts = v["timestamp_ms"].as_u64().unwrap();
        // The generator's coarse clock may lag a few ms behind.
        assert!(
            ts + 50 >= before && ts <= now_ms(),
            "{format}: {ts} vs {before}"
        );
        assert_eq!(v["datacenter"], 3, "{format}");
        assert_eq!(v["worker"], 17, "{format}");
        assert_eq!(v["node"], 3 * 32 + 17, "{format}");
        assert!(v["sequence"].is_u64());
        assert!(v["time"].as_str().unwrap().ends_with('Z'));
    }
}

#[test]
fn decode_known_twitter_id() {
    // 123456789 ms after the Twitter epoch, datacenter 17, worker 9, sequence 42.
    let id: u64 = (123_456_789 << 22) | (17 << 17) | (9 << 12) | 42;
    assert_eq!(id, 517_815_306_194_986);
    let v = json(&["decode", &id.to_string(), "--json"]);
    assert_eq!(v["id"], "517815306194986");
    assert_eq!(v["timestamp_ms"], 1_288_834_974_657u64 + 123_456_789);
    assert_eq!(v["time"], "2010-11-05T12:00:31.446Z");
    assert_eq!(v["datacenter"], 17);
    assert_eq!(v["worker"], 9);
    assert_eq!(v["node"], 17 * 32 + 9);
    assert_eq!(v["sequence"], 42);
    assert!(v.get("rollback").is_none());

    let human = ok(&["decode", "517815306194986"]);
    for line in [
        "id            517815306194986",
        "timestamp_ms  1288958431446",
        "time          2010-11-05T12:00:31.446Z",
        "datacenter    17",
        "worker        9",
        "sequence      42",
    ] {
        assert!(human.contains(line), "{line:?} missing in:\n{human}");
    }
    // The same ID in the other codecs decodes the same.
    let hex = format!("0x{id:x}");
    assert_eq!(json(&["decode", &hex, "--json"])["sequence"], 42);
    assert_eq!(
        json(&["decode", "--codec", "hex", &format!("{id:x}"), "--json"])["worker"],
        9
    );
}

#[test]
fn decode_several_ids_and_stdin() {
    let v = json(&["decode", "4194304", "0x400000", "--json"]);
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), 2);
    assert_eq!(arr[0], arr[1]);
    assert_eq!(arr[0]["timestamp_ms"], 1_288_834_974_658u64);

    let ids = ok(&["gen", "-n", "3", "--layout", "js53", "--node", "5"]);
    let o = idmint_stdin(&["decode", "-", "--layout", "js53", "--json"], &ids);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), 3);
    for item in arr {
        // js53's only node field is called `node`.
        assert_eq!(item["node"], 5);
    }
    let human = idmint_stdin(&["decode", "-"], "4194304\n4194305\n");
    assert!(human.status.success());
    assert_eq!(stdout(&human).matches("timestamp_ms").count(), 2);
}

#[test]
fn decode_sonyflake_and_rollback_layouts() {
    // Sonyflake puts the sequence above the machine id.
    let id: u64 = (5 << 24) | (3 << 16) | 7;
    let v = json(&["decode", &id.to_string(), "--layout", "sonyflake", "--json"]);
    assert_eq!(v["timestamp_ms"], 1_409_529_600_000u64 + 50);
    assert_eq!(v["sequence"], 3);
    assert_eq!(v["machine"], 7);
    let spec = "time=40@1ms,rollback=2,worker=8,seq=13,epoch=2020-01-01";
    let id: u64 = (1 << 23) | (2 << 21) | (4 << 13) | 1;
    let v = json(&["decode", &id.to_string(), "--layout", spec, "--json"]);
    assert_eq!(v["rollback"], 2);
    assert_eq!(v["worker"], 4);
    assert_eq!(v["sequence"], 1);
}

#[test]
fn inspect_twitter_and_baidu() {
    let t = ok(&["inspect", "twitter"]);
    assert!(!t.contains("EXPIRED"), "{t}");
    for needle in [
        "time=41@1ms,datacenter=5,worker=5,seq=12,epoch=2010-11-04T01:42:54.657Z",
        "| 0 |",
        "time (41)",
        "datacenter (5)",
        "worker (5)",
        "seq (12)",
        "2010-11-04T01:42:54.657Z",
        "4,096,000 IDs/s per node",
        "1,024",
        "9223372036854775807",
    ] {
        assert!(t.contains(needle), "{needle:?} missing in:\n{t}");
    }
    let fits: Vec<&str> = t.lines().skip_while(|l| *l != "fits in").collect();
    assert!(
        fits[1].starts_with("  int32") && fits[1].ends_with("no"),
        "{t}"
    );
    assert!(
        fits[2].starts_with("  JS safe") && fits[2].ends_with("no"),
        "{t}"
    );
    assert!(
        fits[3].starts_with("  int64") && fits[3].ends_with("yes"),
        "{t}"
    );
    assert!(
        fits[4].starts_with("  uint64") && fits[4].ends_with("yes"),
        "{t}"
    );

    let b = ok(&["inspect", "baidu"]);
    assert!(b.contains("EXPIRED on 2024-11-20T21:24:16Z"), "{b}");
    assert!(b.starts_with("*** EXPIRED"), "{b}");

    let js = ok(&["inspect", "js53"]);
    assert!(js.contains("0 (12)"), "{js}");
    let fits: Vec<&str> = js.lines().skip_while(|l| *l != "fits in").collect();
    assert!(fits[2].ends_with("yes"), "{js}");
}

#[test]
fn inspect_json() {
    let v = json(&["inspect", "baidu", "--json"]);
    assert_eq!(v["preset"], "baidu");
    assert_eq!(v["expired"], true);
    assert_eq!(v["lifetime_end_ms"], 1_732_137_856_000u64);
    assert_eq!(v["lifetime_end"], "2024-11-20T21:24:16Z");
    let v = json(&["inspect", "time=30@1ms,seq=1,epoch=2020-01-01", "--json"]);
    assert_eq!(v["preset"], Value::Null);
    assert_eq!(v["width"], 31);
    assert_eq!(v["max_id"], "2147483647");
    assert_eq!(v["fits"]["int32"], true);
    assert_eq!(v["fields"][0]["name"], "time");
    assert_eq!(v["fields"][0]["shift"], 1);
    let v = json(&["inspect", "discord", "--json"]);
    assert_eq!(v["expired"], false);
    assert_eq!(v["fits"]["int64"], false);
    assert_eq!(v["fits"]["uint64"], true);
}

#[test]
fn gen_baidu_fails_with_the_expiry_date() {
    let err = fails(&["gen", "--layout", "baidu"], 1);
    assert!(err.contains("2024-11-20"), "{err}");
    assert!(err.contains("expired"), "{err}");
}

#[test]
fn bad_inputs_fail_cleanly() {
    let err = fails(
        &[
            "gen",
            "--layout",
            "time=41@1ms,worker=10,seq=x,epoch=2020-01-01",
        ],
        2,
    );
    assert!(err.contains("at byte 26"), "{err}");
    assert!(err.contains(&format!("\n  {}^", " ".repeat(26))), "{err}");
    let err = fails(&["inspect", "nope"], 2);
    assert!(err.contains("twitter"), "{err}");
    fails(&["decode", "1", "--layout", "time=41@1ms,seq=12"], 2);

    let err = fails(&["gen", "--node", "1024"], 2);
    assert!(err.contains("1023"), "{err}");
    let err = fails(&["gen", "--node", "worker=32"], 2);
    assert!(err.contains("worker"), "{err}");
    fails(&["gen", "--node", "shard=1"], 2);
    fails(&["gen", "--node", "-3"], 2);
    fails(&["gen", "--node", "datacenter=1,datacenter=2"], 2);

    let err = fails(&["decode", "12ab!"], 2);
    assert!(err.contains("12ab!"), "{err}");
    fails(&["decode", "--codec", "base62", "abc$defghij"], 2);
    fails(&["decode", "99999999999999999999999"], 2);
    fails(&["decode", "18446744073709551615"], 2); // above twitter's 63 bits
    fails(&["decode", ""], 2);
    let err = fails(&["decode", "1d7c69a8c7c00000"], 2);
    assert!(err.contains("0x"), "{err}");

    let err = fails(&["gen", "--format", "base64"], 2);
    assert!(err.contains("unknown codec"), "{err}");
    fails(&["decode", "--codec", "rot13", "1"], 2);
    fails(&["gen", "--on-backwards", "sometimes"], 2);
    fails(&["gen", "--on-exhausted", "borrow:x"], 2);
    fails(&["gen", "--sequence-start", "vibrate:300"], 2);
    fails(&["gen", "-n", "-1"], 2);
    fails(&["gen", "-n", "lots"], 2);
    fails(&["bench", "--seconds", "0"], 2);
    fails(&["bench", "--seconds", "NaN"], 2);
    fails(&["bench", "--threads", "0"], 2);
    fails(&["uuid", "--version", "2"], 2);
    fails(&["uuid", "--version", "5"], 2);
    fails(&["uuid", "--version", "4", "--name", "x"], 2);
    fails(
        &[
            "uuid",
            "--version",
            "5",
            "--name",
            "x",
            "--namespace",
            "nope",
        ],
        2,
    );
    fails(&["uuid", "--inspect", "not-a-uuid"], 2);
    fails(&["frobnicate"], 2);
    // No command: clap prints the help to stderr and exits 2.
    let o = idmint(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Usage:"));
}

#[test]
fn broken_pipe_exits_quietly() {
    for json in [false, true] {
        let mut args = vec!["gen", "-n", "1000000"];
        if json {
            args.push("--json");
        }
        let mut child = Command::new(BIN)
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        assert!(!line.is_empty());
        drop(reader);
        let o = child.wait_with_output().unwrap();
        let err = stderr(&o);
        assert!(o.status.success(), "{:?}: {err}", o.status);
        assert!(err.is_empty(), "{err}");
    }
}

#[test]
fn layouts_lists_every_preset() {
    let out = ok(&["layouts"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 9, "{out}");
    assert!(lines[0].starts_with("NAME"));
    for name in [
        "twitter",
        "discord",
        "instagram",
        "sonyflake",
        "baidu",
        "shardingsphere",
        "leaf",
        "js53",
    ] {
        let row = lines
            .iter()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} missing:\n{out}"));
        let expired = name == "baidu";
        assert_eq!(row.ends_with("EXPIRED"), expired, "{row}");
        assert_eq!(row.ends_with(" ok"), !expired, "{row}");
    }
    assert!(out.contains("41@1ms") && out.contains("39@10ms") && out.contains("28@1s"));
    let v = json(&["layouts", "--json"]);
    assert_eq!(v.as_array().unwrap().len(), 8);
}

#[test]
fn uuids() {
    assert_eq!(
        ok(&[
            "uuid",
            "--version",
            "5",
            "--namespace",
            "dns",
            "--name",
            "python.org"
        ]),
        "886313e1-3b8a-5372-9b90-0c9aee199e5d\n"
    );
    assert_eq!(
        ok(&["uuid", "--version", "3", "--name", "python.org"]),
        "6fa459ea-ee8a-3ca4-894e-db77e160355e\n"
    );
    let ns = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"; // the DNS namespace, spelled out
    assert_eq!(
        ok(&[
            "uuid",
            "--version",
            "5",
            "--namespace",
            ns,
            "--name",
            "python.org"
        ]),
        "886313e1-3b8a-5372-9b90-0c9aee199e5d\n"
    );

    let before = now_ms();
    let v7 = ok(&["uuid", "-n", "50"]);
    let lines: Vec<&str> = v7.lines().collect();
    assert_eq!(lines.len(), 50);
    assert!(lines.windows(2).all(|w| w[0] < w[1]), "v7 increases");
    assert!(lines.iter().all(|u| u.len() == 36 && &u[14..15] == "7"));
    let info = json(&["uuid", "--inspect", lines[0], "--json"]);
    assert_eq!(info["version"], 7);
    assert_eq!(info["variant"], "rfc9562");
    let ms = info["unix_ms"].as_u64().unwrap();
    assert!(ms >= before && ms <= now_ms());

    for (version, digit) in [("1", "1"), ("4", "4")] {
        let out = ok(&["uuid", "--version", version, "-n", "20"]);
        let mut lines: Vec<&str> = out.lines().collect();
        assert!(lines.iter().all(|u| &u[14..15] == digit), "{out}");
        lines.sort_unstable();
        lines.dedup();
        assert_eq!(lines.len(), 20);
    }
    let v1 = ok(&["uuid", "--version", "1"]);
    let human = ok(&["uuid", "--inspect", v1.trim()]);
    assert!(human.contains("version  1"), "{human}");
    assert!(human.contains("variant  rfc9562"), "{human}");

    let human = ok(&["uuid", "--inspect", "886313E1-3B8A-5372-9B90-0C9AEE199E5D"]);
    assert!(human.contains("version  5"), "{human}");
    assert!(human.contains("no embedded time"), "{human}");
    let arr = json(&["uuid", "--version", "4", "-n", "3", "--json"]);
    assert_eq!(arr.as_array().unwrap().len(), 3);
}

#[test]
fn bench_runs_briefly() {
    let out = ok(&["bench", "--seconds", "0.2"]);
    assert!(out.contains("IDs/s") && out.contains("ns/ID"), "{out}");
    let out = ok(&["bench", "--seconds", "0.2", "--threads", "2", "--batch"]);
    assert!(
        out.contains("2 threads") && out.contains("next_ids"),
        "{out}"
    );
    let err = fails(&["bench", "--layout", "baidu", "--seconds", "0.1"], 1);
    assert!(err.contains("2024-11-20"), "{err}");
}

#[test]
fn help_mentions_every_command() {
    let out = ok(&["--help"]);
    for cmd in ["gen", "decode", "inspect", "layouts", "uuid", "bench"] {
        assert!(out.contains(cmd), "{cmd} missing in:\n{out}");
    }
    let bench = ok(&["bench", "--help"]);
    assert!(bench.contains("not a rigorous benchmark"), "{bench}");
}

#[test]
fn completions_for_every_shell_name_every_subcommand() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = idmint(&["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        for sub in [
            "gen",
            "decode",
            "uuid",
            "typeid",
            "ulid",
            "ksuid",
            "serve",
            "completions",
        ] {
            assert!(text.contains(sub), "{shell} completions lack {sub}");
        }
    }
    let out = idmint(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn man_page_is_roff_with_a_section_per_subcommand() {
    let out = idmint(&["man"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(".TH idmint 1"), "not a man page");
    for section in [
        "IDMINT GEN",
        "IDMINT DECODE",
        "IDMINT SERVE",
        "\\-\\-layout",
    ] {
        assert!(text.contains(section), "the man page lacks {section}");
    }
    // Rendered by man(1) when it is installed, without warnings.
    if std::path::Path::new("/usr/bin/man").exists() {
        let path = std::env::temp_dir().join(format!("idmint-{}.1", std::process::id()));
        std::fs::write(&path, &text).unwrap();
        let r = std::process::Command::new("man")
            .args(["--warnings", "-l"])
            .arg(&path)
            .env("MANWIDTH", "80")
            .output()
            .unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(r.status.success());
        assert!(String::from_utf8_lossy(&r.stdout).contains("Mint IDs with the system clock"));
    }
}
