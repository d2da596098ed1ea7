//! The reference replay of idmint's shared test vectors.
//!
//! 1. Staleness: the committed `vectors/*.json` must equal what the generator produces now.
//! 2. Replay: every JSON file is read with serde_json and its inputs drive the core API
//!    directly, independently of the generator code; outputs must match exactly. The
//!    Python, Node, C and wasm replays mirror this file.

use std::collections::{BTreeSet, HashSet};
use std::fs;

use serde_json::Value;

use idmint::codec::{parse_id, Codec};
use idmint::formats::uuid::{self, Uuid, Uuid7Generator};
use idmint::named::{GeneratedId, NamedConfig};
use idmint::obfuscate::{Obfuscator, SortableObfuscator};
use idmint::{
    AnyId, AtomicSnowflake, Config, Error, FieldKind, Layout, LocalSnowflake, OnBackwards,
    OnExhausted, Parts, Run, SequenceStart, Stats,
};

// ------------------------------------------------------------------------------------------
// Staleness
// ------------------------------------------------------------------------------------------

#[test]
fn committed_vectors_are_current() {
    let dir = idmint_vectors::dir();
    let mut stale = Vec::new();
    let mut expected = BTreeSet::new();
    for (name, value) in idmint_vectors::generate() {
        expected.insert(name.to_string());
        let want = idmint_vectors::render(&value);
        match fs::read_to_string(dir.join(name)) {
            Ok(have) if have == want => {}
            Ok(_) => stale.push(format!("{name} differs")),
            Err(e) => stale.push(format!("{name} is missing ({e})")),
        }
    }
    let on_disk: BTreeSet<String> = fs::read_dir(&dir)
        .expect("vectors dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    for extra in on_disk.difference(&expected) {
        stale.push(format!(
            "{extra} is not produced by the generator (delete it)"
        ));
    }
    assert!(
        stale.is_empty(),
        "the committed test vectors are stale: {}.\nRun `{}` and commit the result.",
        stale.join("; "),
        idmint_vectors::REGENERATE
    );
}

// ------------------------------------------------------------------------------------------
// Reading helpers
// ------------------------------------------------------------------------------------------

fn load(name: &str) -> Value {
    let path = idmint_vectors::dir().join(name);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(text.ends_with('\n'), "{name}: no trailing newline");
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(v["_comment"].is_string(), "{name}: no _comment");
    v
}

fn arr<'a>(v: &'a Value, key: &str) -> &'a Vec<Value> {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("`{key}` is not an array in {v}"))
}

fn st<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("`{key}` is not a string in {v}"))
}

/// A u64 written as a decimal string.
fn u(v: &Value, key: &str) -> u64 {
    st(v, key)
        .parse()
        .unwrap_or_else(|_| panic!("`{key}` is not a decimal u64 string in {v}"))
}

fn opt_u(v: &Value, key: &str) -> Option<u64> {
    if v[key].is_null() {
        None
    } else {
        Some(u(v, key))
    }
}

fn num(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("`{key}` is not a JSON integer in {v}"))
}

fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len() % 2 == 0, "odd hex length: {s}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn fixed<const N: usize>(s: &str) -> [u8; N] {
    unhex(s).try_into().expect("byte length")
}

/// Checks an error against its JSON form: code, message and every field of the variant, and
/// that the JSON has no other keys.
fn check_error(exp: &Value, e: &Error, ctx: &str) {
    assert_eq!(st(exp, "error"), e.code(), "{ctx}: code; got {e:?}");
    assert_eq!(st(exp, "message"), e.to_string(), "{ctx}: message");
    let mut keys = vec!["error", "message"];
    match *e {
        Error::InvalidLayout { reason } | Error::InvalidConfig { reason } => {
            assert_eq!(st(exp, "reason"), reason, "{ctx}");
            keys.push("reason");
        }
        Error::InvalidSpec { at, reason } => {
            assert_eq!(num(exp, "at"), at as u64, "{ctx}: at");
            assert_eq!(st(exp, "reason"), reason, "{ctx}");
            keys.extend(["at", "reason"]);
        }
        Error::LayoutExpired { end_ms } => {
            assert_eq!(u(exp, "end_ms"), end_ms, "{ctx}");
            keys.push("end_ms");
        }
        Error::BeforeEpoch { now_ms, epoch_ms } => {
            assert_eq!(u(exp, "now_ms"), now_ms, "{ctx}");
            assert_eq!(u(exp, "epoch_ms"), epoch_ms, "{ctx}");
            keys.extend(["now_ms", "epoch_ms"]);
        }
        Error::OutOfRange { field, value, max } => {
            assert_eq!(st(exp, "field"), field.as_str(), "{ctx}");
            assert_eq!(u(exp, "value"), value, "{ctx}");
            assert_eq!(u(exp, "max"), max, "{ctx}");
            keys.extend(["field", "value", "max"]);
        }
        Error::ClockBackwards { by_ms, last_ms } => {
            assert_eq!(u(exp, "by_ms"), by_ms, "{ctx}");
            assert_eq!(u(exp, "last_ms"), last_ms, "{ctx}");
            keys.extend(["by_ms", "last_ms"]);
        }
        Error::SequenceExhausted { tick_ms } => {
            assert_eq!(u(exp, "tick_ms"), tick_ms, "{ctx}");
            keys.push("tick_ms");
        }
        Error::WouldBlock { until_ms } => {
            assert_eq!(u(exp, "until_ms"), until_ms, "{ctx}");
            keys.push("until_ms");
        }
        Error::InvalidEncoding { codec, at, reason } => {
            assert_eq!(st(exp, "codec"), codec, "{ctx}");
            assert_eq!(num(exp, "at"), at as u64, "{ctx}: at");
            assert_eq!(st(exp, "reason"), reason, "{ctx}");
            keys.extend(["codec", "at", "reason"]);
        }
        Error::BufferTooSmall { needed } => {
            assert_eq!(num(exp, "needed"), needed as u64, "{ctx}");
            keys.push("needed");
        }
        Error::InvalidArgument { argument, reason } => {
            assert_eq!(st(exp, "argument"), argument.as_str(), "{ctx}");
            assert_eq!(st(exp, "reason"), reason, "{ctx}");
            keys.extend(["argument", "reason"]);
        }
        _ => {}
    }
    let have: BTreeSet<&str> = exp
        .as_object()
        .expect("error object")
        .keys()
        .map(|k| k.as_str())
        .collect();
    let want: BTreeSet<&str> = keys.into_iter().collect();
    assert_eq!(have, want, "{ctx}: error keys");
}

/// Checks `r` against `exp`: an error object (has `error`) or the success fields.
fn check<T>(exp: &Value, r: Result<T, Error>, ctx: &str, ok: impl FnOnce(T)) {
    match (exp.get("error"), r) {
        (Some(_), Err(e)) => check_error(exp, &e, ctx),
        (Some(_), Ok(_)) => panic!("{ctx}: expected {exp}, got success"),
        (None, Err(e)) => panic!("{ctx}: expected {exp}, got {e:?}"),
        (None, Ok(v)) => ok(v),
    }
}

// ------------------------------------------------------------------------------------------
// layouts.json
// ------------------------------------------------------------------------------------------

fn parts_of(v: &Value) -> Parts {
    Parts {
        time: u(v, "time"),
        node: u(v, "node"),
        sequence: u(v, "sequence"),
        rollback: u(v, "rollback"),
    }
}

#[test]
fn replay_layouts() {
    let v = load("layouts.json");
    let mut presets = HashSet::new();
    for c in arr(&v, "layouts") {
        let spec = st(c, "spec");
        let ctx = format!("layout {spec:?}");
        let l = Layout::parse(spec).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        if let Some(p) = c["preset"].as_str() {
            presets.insert(p.to_string());
        }
        assert_eq!(l.preset_name(), c["preset"].as_str(), "{ctx}");
        assert_eq!(l.to_string(), st(c, "canonical"), "{ctx}");
        let again = Layout::parse(st(c, "canonical")).expect("canonical parses");
        assert_eq!(again.to_string(), l.to_string(), "{ctx}");
        assert_eq!(again.fields(), l.fields(), "{ctx}");
        assert_eq!(u64::from(l.width()), num(c, "width"), "{ctx}");
        assert_eq!(l.epoch_ms(), u(c, "epoch_ms"), "{ctx}");
        assert_eq!(l.tick_ms(), u(c, "tick_ms"), "{ctx}");
        assert_eq!(l.lifetime_end_ms(), u(c, "lifetime_end_ms"), "{ctx}");
        assert_eq!(
            l.capacity_per_second(),
            u(c, "capacity_per_second"),
            "{ctx}"
        );
        assert_eq!(Some(l.is_js_safe()), c["is_js_safe"].as_bool(), "{ctx}");
        assert_eq!(l.max_id(), u(c, "max_id"), "{ctx}");
        assert_eq!(l.max_node(), u(c, "max_node"), "{ctx}");
        assert_eq!(l.max_sequence(), u(c, "max_sequence"), "{ctx}");
        assert_eq!(l.max_time(), u(c, "max_time"), "{ctx}");
        let fields = arr(c, "fields");
        assert_eq!(fields.len(), l.fields().len(), "{ctx}");
        for (f, jf) in l.fields().iter().zip(fields) {
            let kind = match f.kind {
                FieldKind::Time => "time",
                FieldKind::Node => "node",
                FieldKind::Sequence => "sequence",
                FieldKind::Rollback => "rollback",
            };
            assert_eq!(f.name.as_str(), st(jf, "name"), "{ctx}");
            assert_eq!(kind, st(jf, "kind"), "{ctx}");
            assert_eq!(u64::from(f.bits), num(jf, "bits"), "{ctx}");
            assert_eq!(u64::from(f.shift), num(jf, "shift"), "{ctx}");
        }
        for k in arr(c, "compose") {
            let parts = parts_of(&k["parts"]);
            let exp = &k["expect"];
            let ctx = format!("{ctx} compose {parts:?}");
            check(exp, l.compose(&parts), &ctx, |id| {
                assert_eq!(id, u(exp, "id"), "{ctx}");
                assert_eq!(l.timestamp_ms(id), u(exp, "timestamp_ms"), "{ctx}");
                assert_eq!(l.decompose(id).expect("round trip"), parts, "{ctx}");
                let split: Vec<(String, u64)> = l
                    .split_node(parts.node)
                    .map(|(n, v)| (n.as_str().to_string(), v))
                    .collect();
                let want: Vec<(String, u64)> = arr(exp, "node_fields")
                    .iter()
                    .map(|f| (st(f, "name").to_string(), u(f, "value")))
                    .collect();
                assert_eq!(split, want, "{ctx}");
                let values: Vec<u64> = split.iter().map(|x| x.1).collect();
                assert_eq!(l.join_node(&values), Ok(parts.node), "{ctx}");
            });
        }
        for k in arr(c, "decompose") {
            let id = u(k, "id");
            let exp = &k["expect"];
            let ctx = format!("{ctx} decompose {id}");
            check(exp, l.decompose(id), &ctx, |p| {
                assert_eq!(p, parts_of(exp), "{ctx}");
                assert_eq!(l.compose(&p), Ok(id), "{ctx}");
            });
        }
        for k in arr(c, "tick_at") {
            let now = u(k, "now_ms");
            let exp = &k["expect"];
            let ctx = format!("{ctx} tick_at {now}");
            check(exp, l.tick_at(now), &ctx, |t| {
                assert_eq!(t, u(exp, "tick"), "{ctx}");
            });
        }
    }
    let all: HashSet<String> = idmint::snowflake::preset::NAMES
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(presets, all, "every preset has vectors");
    for c in arr(&v, "invalid") {
        let spec = st(c, "spec");
        check(
            &c["expect"],
            Layout::parse(spec),
            &format!("invalid {spec:?}"),
            |l| panic!("{spec:?} parsed to {l:?}"),
        );
    }
}

// ------------------------------------------------------------------------------------------
// generators.json
// ------------------------------------------------------------------------------------------

fn config_of(c: &Value) -> Config {
    let layout = Layout::parse(st(c, "layout")).expect("case layout");
    let mut cfg = Config::new(layout)
        .node(u(c, "node"))
        .on_backwards(st(c, "on_backwards").parse().expect("on_backwards"))
        .on_exhausted(st(c, "on_exhausted").parse().expect("on_exhausted"))
        .sequence_start(st(c, "sequence_start").parse().expect("sequence_start"))
        .seed(u(c, "seed"));
    if let Some(f) = opt_u(c, "fence_ms") {
        cfg = cfg.fence_ms(f);
    }
    cfg
}

/// One step's outcome, in the same shape for both generator forms.
#[derive(Debug, PartialEq)]
enum Out {
    Id(u64),
    Run(Run),
    Ids(Vec<u64>),
}

fn stats_of(v: &Value) -> Stats {
    Stats {
        rollbacks: u(v, "rollbacks"),
        wait_ms: u(v, "wait_ms"),
        max_ahead_ms: u(v, "max_ahead_ms"),
        exhaustions: u(v, "exhaustions"),
    }
}

fn check_step(step: &Value, r: Result<Out, Error>, ctx: &str) -> Vec<u64> {
    let exp = &step["expect"];
    let mut ids = Vec::new();
    check(exp, r, ctx, |out| match out {
        Out::Id(id) => {
            assert_eq!(id, u(exp, "id"), "{ctx}");
            ids.push(id);
        }
        Out::Run(run) => {
            assert_eq!(run.first, u(exp, "first"), "{ctx}");
            assert_eq!(run.count, u(exp, "count"), "{ctx}");
            assert_eq!(run.stride, u(exp, "stride"), "{ctx}");
            ids.extend(run.iter());
        }
        Out::Ids(got) => {
            let want: Vec<u64> = arr(exp, "ids")
                .iter()
                .map(|x| x.as_str().expect("id string").parse().expect("u64"))
                .collect();
            assert_eq!(got, want, "{ctx}");
            ids = got;
        }
    });
    ids
}

#[test]
fn replay_generators() {
    let v = load("generators.json");
    let cases = arr(&v, "cases");
    assert!(cases.len() >= 20);
    for c in cases {
        let name = st(c, "name");
        let cfg = config_of(c);
        let named = NamedConfig::parse(st(c, "named_config")).expect("named_config parses");
        assert_eq!(named.snowflake_config(), Some(&cfg), "{name}: named_config");
        assert_eq!(
            cfg.max_rollback_ticks(),
            opt_u(c, "max_rollback_ticks"),
            "{name}: max_rollback_ticks"
        );
        let mut local = LocalSnowflake::new(cfg).expect("config");
        let shared = AtomicSnowflake::new(cfg).expect("config");
        let mut issued: Vec<u64> = Vec::new();
        for (i, step) in arr(c, "steps").iter().enumerate() {
            let now = u(step, "now_ms");
            let ctx = format!("{name} step {i} (now_ms {now})");
            let (a, b) = if step.get("reserve").is_some() {
                let k = u(step, "reserve");
                (
                    local.reserve_at(now, k).map(Out::Run),
                    shared.reserve_at(now, k).map(Out::Run),
                )
            } else if step.get("next_ids").is_some() {
                let k = u(step, "next_ids") as usize;
                let (mut x, mut y) = (vec![0u64; k], vec![0u64; k]);
                let a = local
                    .next_ids_at(now, &mut x)
                    .map(|n| Out::Ids(x[..n].to_vec()));
                let b = shared
                    .next_ids_at(now, &mut y)
                    .map(|n| Out::Ids(y[..n].to_vec()));
                (a, b)
            } else {
                (
                    local.next_id_at(now).map(Out::Id),
                    shared.next_id_at(now).map(Out::Id),
                )
            };
            assert_eq!(a, b, "{ctx}: LocalSnowflake and AtomicSnowflake differ");
            issued.extend(check_step(step, a, &ctx));
        }
        let stats = stats_of(&c["stats"]);
        assert_eq!(local.stats(), stats, "{name}: LocalSnowflake stats");
        assert_eq!(shared.stats(), stats, "{name}: AtomicSnowflake stats");

        // The guarantees of the policy table (policy.rs), over the whole script.
        let unique: HashSet<u64> = issued.iter().copied().collect();
        assert_eq!(unique.len(), issued.len(), "{name}: duplicate IDs");
        let layout = cfg.layout();
        for &id in &issued {
            assert!(id <= layout.max_id(), "{name}: {id} exceeds the layout");
            let parts = layout.decompose(id).expect("decomposes");
            assert_eq!(Some(parts.node), cfg.node_value(), "{name}: node of {id}");
        }
        match cfg.on_backwards_policy() {
            OnBackwards::Fail | OnBackwards::Wait { .. } | OnBackwards::Logical { .. } => {
                assert!(
                    issued.windows(2).all(|w| w[0] < w[1]),
                    "{name}: IDs not strictly increasing: {issued:?}"
                );
            }
            OnBackwards::RollbackCounter | OnBackwards::Ring { .. } => {}
        }
        // Config::fence_ms: nothing at or before the fenced tick, whatever the policy.
        if let Some(f) = cfg.fence() {
            if f >= layout.epoch_ms() {
                for &id in &issued {
                    assert!(
                        layout.timestamp_ms(id) > f - (f - layout.epoch_ms()) % layout.tick_ms(),
                        "{name}: {id} at or before the fenced tick"
                    );
                }
            }
        }
    }
    for t in arr(&v, "policy_texts") {
        let text = st(t, "text");
        let ctx = format!("policy {text:?}");
        let exp = &t["expect"];
        let r = match st(t, "policy") {
            "on_backwards" => text.parse::<OnBackwards>().map(|p| p.to_string()),
            "on_exhausted" => text.parse::<OnExhausted>().map(|p| p.to_string()),
            "sequence_start" => text.parse::<SequenceStart>().map(|p| p.to_string()),
            other => panic!("unknown policy kind {other}"),
        };
        check(exp, r, &ctx, |c| {
            assert_eq!(c, st(exp, "canonical"), "{ctx}")
        });
    }
    for c in arr(&v, "invalid_configs") {
        let ctx = format!("invalid config {c}");
        let r = (|| {
            let cfg = Config::new(Layout::parse(st(c, "layout"))?)
                .node(u(c, "node"))
                .on_backwards(st(c, "on_backwards").parse()?)
                .on_exhausted(st(c, "on_exhausted").parse()?)
                .sequence_start(st(c, "sequence_start").parse()?);
            let a = LocalSnowflake::new(cfg).map(|_| ());
            let b = AtomicSnowflake::new(cfg).map(|_| ());
            assert_eq!(a, b, "{ctx}: forms disagree");
            a
        })();
        check(&c["expect"], r, &ctx, |()| panic!("{ctx}: accepted"));
    }
}

// ------------------------------------------------------------------------------------------
// codecs.json
// ------------------------------------------------------------------------------------------

#[test]
fn replay_codecs() {
    let v = load("codecs.json");
    for c in arr(&v, "encode") {
        let id = u(c, "id");
        let obj = c.as_object().expect("object");
        assert_eq!(obj.len(), 1 + Codec::ALL.len(), "every codec for {id}");
        for (name, text) in obj.iter().filter(|(k, _)| k.as_str() != "id") {
            let codec = Codec::parse(name).expect("codec name");
            let text = text.as_str().expect("string");
            assert_eq!(codec.format(id).as_str(), text, "{name} {id}");
            assert_eq!(codec.decode(text), Ok(id), "{name} {text}");
        }
    }
    for c in arr(&v, "decode") {
        let text = st(c, "text");
        let decoder = st(c, "decoder");
        let r = match decoder {
            "auto" => parse_id(text),
            name => Codec::parse(name).and_then(|k| k.decode(text)),
        };
        let ctx = format!("{decoder} {text:?}");
        let exp = &c["expect"];
        check(exp, r, &ctx, |id| assert_eq!(id, u(exp, "id"), "{ctx}"));
    }
}

// ------------------------------------------------------------------------------------------
// obfuscation.json
// ------------------------------------------------------------------------------------------

fn key(c: &Value) -> u128 {
    u128::from_str_radix(st(c, "key_hex"), 16).expect("key hex")
}

#[test]
fn replay_obfuscation() {
    let v = load("obfuscation.json");
    for c in arr(&v, "full") {
        let bits = num(c, "bits") as u8;
        let ob = Obfuscator::new(key(c), bits).expect("valid");
        for k in arr(c, "cases") {
            let x = u(k, "input");
            let exp = &k["expect"];
            let ctx = format!("full {} bits {bits} input {x}", st(c, "key_hex"));
            check(exp, ob.encode(x), &ctx, |y| {
                assert_eq!(y, u(exp, "output"), "{ctx}");
                assert_eq!(ob.decode(y), Ok(x), "{ctx}: decode");
            });
            if exp.get("error").is_some() {
                check(exp, ob.decode(x), &ctx, |_| {
                    panic!("{ctx}: decode accepted")
                });
            }
        }
    }
    for c in arr(&v, "sortable") {
        let layout = Layout::parse(st(c, "layout")).expect("layout");
        let ob = SortableObfuscator::new(key(c), &layout).expect("valid");
        assert_eq!(u64::from(ob.low_bits()), num(c, "low_bits"));
        for k in arr(c, "cases") {
            let x = u(k, "input");
            let exp = &k["expect"];
            let ctx = format!(
                "sortable {} {} input {x}",
                st(c, "key_hex"),
                st(c, "layout")
            );
            check(exp, ob.encode(x), &ctx, |y| {
                assert_eq!(y, u(exp, "output"), "{ctx}");
                assert_eq!(ob.decode(y), Ok(x), "{ctx}: decode");
                assert_eq!(x >> ob.low_bits(), y >> ob.low_bits(), "{ctx}: time kept");
            });
            if exp.get("error").is_some() {
                check(exp, ob.decode(x), &ctx, |_| {
                    panic!("{ctx}: decode accepted")
                });
            }
        }
    }
    for c in arr(&v, "invalid") {
        let ctx = format!("invalid {c}");
        let r = match st(c, "kind") {
            "full" => Obfuscator::new(key(c), num(c, "bits") as u8).map(|_| ()),
            _ => {
                let l = Layout::parse(st(c, "layout")).expect("layout");
                SortableObfuscator::new(key(c), &l).map(|_| ())
            }
        };
        check(&c["expect"], r, &ctx, |()| panic!("{ctx}: accepted"));
    }
}

// ------------------------------------------------------------------------------------------
// uuids.json
// ------------------------------------------------------------------------------------------

fn check_uuid(exp: &Value, got: &Uuid, ctx: &str) {
    assert_eq!(got.hyphenated().to_string(), st(exp, "uuid"), "{ctx}");
    let info = uuid::inspect(got);
    let i = &exp["inspect"];
    assert_eq!(u64::from(info.version), num(i, "version"), "{ctx}: version");
    assert_eq!(info.variant, st(i, "variant"), "{ctx}: variant");
    assert_eq!(info.unix_ms, opt_u(i, "unix_ms"), "{ctx}: unix_ms");
}

#[test]
fn replay_uuids() {
    let v = load("uuids.json");
    for c in arr(&v, "name_based") {
        let ns = uuid::parse(st(c, "namespace")).expect("namespace");
        let name = st(c, "name").as_bytes();
        let got = match num(c, "version") {
            3 => uuid::v3(&ns, name),
            5 => uuid::v5(&ns, name),
            n => panic!("version {n}"),
        };
        check_uuid(&c["expect"], &got, &format!("name-based {c}"));
    }
    for c in arr(&v, "v4") {
        let got = uuid::v4(fixed(st(c, "random")));
        check_uuid(&c["expect"], &got, &format!("v4 {c}"));
    }
    for c in arr(&v, "v7") {
        let got = uuid::v7(u(c, "unix_ms"), fixed(st(c, "random")));
        check_uuid(&c["expect"], &got, &format!("v7 {c}"));
    }
    for c in arr(&v, "v1") {
        let clock_seq = num(c, "clock_seq") as u16;
        let node = fixed(st(c, "node"));
        let got = if c.get("unix_ms").is_some() {
            let extra = num(c, "ticks_100ns_extra") as u16;
            uuid::v1_random_node(u(c, "unix_ms"), extra, clock_seq, node)
        } else {
            uuid::v1(u(c, "ticks"), clock_seq, node)
        };
        check_uuid(&c["expect"], &got, &format!("v1 {c}"));
    }
    for c in arr(&v, "v7_generator") {
        let mut g = Uuid7Generator::new();
        let mut prev: Option<Uuid> = None;
        for (i, s) in arr(c, "steps").iter().enumerate() {
            let ctx = format!("v7_generator {} step {i}", st(c, "name"));
            let got = g.next_at(u(s, "unix_ms"), fixed(st(s, "random")));
            let exp = &s["expect"];
            check_uuid(exp, &got, &ctx);
            assert_eq!(g.last_unix_ms(), opt_u(exp, "last_unix_ms"), "{ctx}");
            if let Some(p) = prev {
                // Monotonic except when the 48-bit time field is saturated (documented).
                if g.last_unix_ms() < Some((1 << 48) - 1) {
                    assert!(got > p, "{ctx}: not increasing");
                }
            }
            prev = Some(got);
        }
    }
    for c in arr(&v, "parse") {
        let text = st(c, "text");
        let exp = &c["expect"];
        let ctx = format!("parse {text:?}");
        check(exp, uuid::parse(text), &ctx, |u| {
            assert_eq!(u.hyphenated().to_string(), st(exp, "uuid"), "{ctx}");
        });
    }
    for c in arr(&v, "inspect") {
        let u = uuid::parse(st(c, "uuid")).expect("uuid");
        check_uuid(c, &u, &format!("inspect {c}"));
    }
}

// ------------------------------------------------------------------------------------------
// named.json
// ------------------------------------------------------------------------------------------

#[test]
fn replay_named() {
    let v = load("named.json");
    for c in arr(&v, "configs") {
        let text = st(c, "config");
        let ctx = format!("named {text:?}");
        let cfg = NamedConfig::parse(text).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert_eq!(cfg.to_string(), st(c, "canonical"), "{ctx}");
        assert_eq!(
            NamedConfig::parse(st(c, "canonical")),
            Ok(cfg),
            "{ctx}: canonical"
        );
        assert_eq!(cfg.kind().name(), st(c, "type"), "{ctx}");
        let stream = unhex(st(c, "random_hex"));
        let mut used = 0usize;
        let mut g = cfg.build().expect("build");
        for (i, s) in arr(c, "steps").iter().enumerate() {
            let now = u(s, "now_ms");
            let ctx = format!("{ctx} step {i}");
            let r = g.next_at(now, |buf: &mut [u8]| {
                let end = used + buf.len();
                buf.copy_from_slice(stream.get(used..end).expect("random stream too short"));
                used = end;
                Ok(())
            });
            let exp = &s["expect"];
            check(exp, r, &ctx, |id| match id {
                GeneratedId::U64(n) => assert_eq!(n, u(exp, "id"), "{ctx}"),
                GeneratedId::Uuid(x) => {
                    assert_eq!(x.hyphenated().to_string(), st(exp, "id"), "{ctx}")
                }
            });
        }
        assert_eq!(
            used as u64,
            num(c, "random_used"),
            "{ctx}: random bytes used"
        );
    }
    for c in arr(&v, "invalid") {
        let text = st(c, "config");
        let ctx = format!("invalid named {text:?}");
        check(&c["expect"], NamedConfig::parse(text), &ctx, |x| {
            panic!("{ctx}: parsed to {x:?}")
        });
        // The single-type front doors: their own answer where the vector gives one.
        let door = |key: &str| c.get(key).unwrap_or(&c["expect"]);
        check(
            door("expect_snowflake"),
            NamedConfig::parse_snowflake(text),
            &ctx,
            |x| panic!("{ctx}: parse_snowflake gave {x:?}"),
        );
        check(
            door("expect_uuid"),
            NamedConfig::parse_uuid(text),
            &ctx,
            |x| panic!("{ctx}: parse_uuid gave {x:?}"),
        );
    }
}

// ------------------------------------------------------------------------------------------
// formats.json
// ------------------------------------------------------------------------------------------

fn uuid_is(exp: &Value, got: &Uuid, ctx: &str) {
    assert_eq!(got.hyphenated().to_string(), st(exp, "uuid"), "{ctx}");
    if exp.get("version").is_some() {
        assert_eq!(
            got.get_version_num() as u64,
            num(exp, "version"),
            "{ctx}: version"
        );
    }
}

#[test]
fn replay_formats() {
    use idmint::formats::typeid::{TypeId, TypeIdGenerator};
    use idmint::formats::ulid::{Ulid, UlidGenerator};
    use idmint::formats::uuid::Uuid7Method;

    let v = load("formats.json");
    for c in arr(&v, "rfc9562") {
        let ctx = format!("rfc9562 {}", st(c, "appendix"));
        let uuid_of = |key: &str| uuid::parse(st(c, key)).expect("uuid");
        let r = match st(c, "method") {
            "v1" => Ok(uuid::v1(
                u(c, "ticks"),
                num(c, "clock_seq") as u16,
                fixed(st(c, "node")),
            )),
            "v6" => Ok(uuid::v6(
                u(c, "ticks"),
                num(c, "clock_seq") as u16,
                fixed(st(c, "node")),
            )),
            "v3" => Ok(uuid::v3(&uuid_of("namespace"), st(c, "name").as_bytes())),
            "v5" => Ok(uuid::v5(&uuid_of("namespace"), st(c, "name").as_bytes())),
            "v4" => Ok(uuid::v4(fixed(st(c, "random")))),
            "v7" => Ok(uuid::v7(u(c, "unix_ms"), fixed(st(c, "random")))),
            "v8" => Ok(uuid::v8(fixed(st(c, "bytes")))),
            "v8_sha256" => Ok(uuid::v8_sha256(
                &uuid_of("namespace"),
                st(c, "name").as_bytes(),
            )),
            "v8_fields" => {
                uuid::v8_from_fields(u(c, "custom_a"), u(c, "custom_b"), u(c, "custom_c"))
            }
            "v1_to_v6" => uuid::v1_to_v6(&uuid_of("uuid")),
            "v6_to_v1" => uuid::v6_to_v1(&uuid_of("uuid")),
            m => panic!("{ctx}: method {m}"),
        };
        check(&c["expect"], r, &ctx, |got| {
            uuid_is(&c["expect"], &got, &ctx)
        });
    }
    let special = &v["special"];
    assert_eq!(uuid::NIL.hyphenated().to_string(), st(special, "nil"));
    assert_eq!(uuid::MAX.hyphenated().to_string(), st(special, "max"));
    for c in arr(&v, "convert_errors") {
        let x = uuid::parse(st(c, "uuid")).expect("uuid");
        let r = match st(c, "method") {
            "v1_to_v6" => uuid::v1_to_v6(&x),
            _ => uuid::v6_to_v1(&x),
        };
        check(&c["expect"], r, "convert_errors", |_| panic!("must fail"));
    }
    for c in arr(&v, "v8_field_errors") {
        let r = uuid::v8_from_fields(u(c, "custom_a"), u(c, "custom_b"), u(c, "custom_c"));
        check(&c["expect"], r, "v8_field_errors", |_| panic!("must fail"));
    }
    for c in arr(&v, "v6_generator") {
        let first = unhex(st(c, "random"));
        let mut g = uuid::Uuid6Generator::new();
        for s in arr(c, "steps") {
            let got = g
                .next_at(u(s, "unix_ms"), |b: &mut [u8]| {
                    b.copy_from_slice(&first);
                    Ok(())
                })
                .expect("v6");
            uuid_is(&s["expect"], &got, "v6_generator");
        }
    }
    for c in arr(&v, "v7_methods") {
        let method = Uuid7Method::parse(st(c, "method")).expect("method");
        let mut g = uuid::Uuid7Generator::with_method(method);
        let mut prev = None;
        for s in arr(c, "steps") {
            let got = g.next_at_precise(
                u(s, "unix_ms"),
                num(s, "sub_ms_nanos") as u32,
                fixed(st(s, "random")),
            );
            uuid_is(&s["expect"], &got, &format!("v7 {method:?}"));
            assert!(prev.map_or(true, |p| got > p), "{method:?}: not increasing");
            prev = Some(got);
        }
    }
    for c in arr(&v, "typeid_valid") {
        let t = TypeId::parse(st(c, "typeid")).unwrap_or_else(|e| panic!("{}: {e}", st(c, "name")));
        assert_eq!(t.prefix(), st(&c["expect"], "prefix"));
        assert_eq!(t.uuid().hyphenated().to_string(), st(&c["expect"], "uuid"));
        assert_eq!(t.to_string(), st(c, "typeid"), "round trip");
    }
    for c in arr(&v, "typeid_invalid") {
        check(
            &c["expect"],
            TypeId::parse(st(c, "typeid")),
            st(c, "name"),
            |_| panic!("must fail"),
        );
    }
    for c in arr(&v, "typeid_encode") {
        let x = uuid::parse(st(c, "uuid")).expect("uuid");
        check(
            &c["expect"],
            TypeId::new(st(c, "prefix"), x),
            "typeid_encode",
            |t| {
                assert_eq!(t.to_string(), st(&c["expect"], "typeid"));
            },
        );
    }
    for c in arr(&v, "typeid_generator") {
        let mut g = TypeIdGenerator::new(st(c, "prefix")).expect("prefix");
        for s in arr(c, "steps") {
            let t = g.next_at(u(s, "unix_ms"), fixed(st(s, "random")));
            assert_eq!(t.to_string(), st(&s["expect"], "typeid"));
        }
    }
    for c in arr(&v, "ulid_decode") {
        let exp = &c["expect"];
        check(exp, Ulid::parse(st(c, "text")), st(c, "text"), |x| {
            assert_eq!(x.to_string(), st(exp, "ulid"));
            assert_eq!(x.timestamp_ms(), u(exp, "timestamp_ms"));
            assert_eq!(
                unhex(st(exp, "random_hex")),
                x.random().to_be_bytes()[6..].to_vec()
            );
            assert_eq!(x.to_uuid().hyphenated().to_string(), st(exp, "uuid"));
        });
    }
    for c in arr(&v, "ulid_encode") {
        let x = Ulid::from_bytes_at(u(c, "timestamp_ms"), fixed(st(c, "random")));
        assert_eq!(x.to_string(), st(&c["expect"], "ulid"));
    }
    for c in arr(&v, "ulid_generator") {
        let mut g = UlidGenerator::new();
        for s in arr(c, "steps") {
            let exp = &s["expect"];
            check(
                exp,
                g.next_at(u(s, "unix_ms"), fixed(st(s, "random"))),
                "ulid_generator",
                |x| {
                    assert_eq!(x.to_string(), st(exp, "ulid"));
                },
            );
        }
    }
    replay_ksuids(&v);
}

fn replay_ksuids(v: &Value) {
    use idmint::formats::ksuid::{Ksuid, KsuidGenerator};

    for c in arr(v, "ksuid_decode") {
        let exp = &c["expect"];
        check(exp, Ksuid::parse(st(c, "text")), st(c, "text"), |k| {
            assert_eq!(k.to_string(), st(exp, "ksuid"));
            assert_eq!(u64::from(k.timestamp()), u(exp, "timestamp"));
            assert_eq!(k.unix_ms(), u(exp, "unix_ms"));
            assert_eq!(k.payload().to_vec(), unhex(st(exp, "payload_hex")));
            assert_eq!(k.to_bytes().to_vec(), unhex(st(exp, "bytes_hex")));
        });
    }
    for c in arr(v, "ksuid_encode") {
        let ts = u32::try_from(u(c, "timestamp")).expect("u32");
        let k = Ksuid::from_parts(ts, fixed(st(c, "payload")));
        assert_eq!(k.to_string(), st(&c["expect"], "ksuid"));
    }
    for c in arr(v, "ksuid_generator") {
        let mut g = KsuidGenerator::new();
        let mut prev = None;
        for s in arr(c, "steps") {
            let exp = &s["expect"];
            let got = g.next_at(u(s, "unix_ms"), fixed(st(s, "random")));
            check(exp, got, "ksuid_generator", |k| {
                assert_eq!(k.to_string(), st(exp, "ksuid"));
                assert!(
                    prev.map_or(true, |p| k > p),
                    "ksuid_generator: not increasing"
                );
                prev = Some(k);
            });
        }
    }
    for c in arr(v, "any_id_kind") {
        let exp = &c["expect"];
        let codec = c
            .get("codec")
            .map(|n| Codec::parse(n.as_str().expect("codec name")).expect("codec"));
        let ctx = format!("any_id_kind {c}");
        check(exp, AnyId::parse(st(c, "text"), codec), &ctx, |a| {
            assert_eq!(a.kind(), st(exp, "kind"), "{ctx}");
            let value = match a {
                AnyId::Snowflake(id) => id.to_string(),
                AnyId::Uuid(u) => u.hyphenated().to_string(),
                AnyId::TypeId(t) => t.to_string(),
                AnyId::Ulid(u) => u.to_string(),
                AnyId::Ksuid(k) => k.to_string(),
            };
            assert_eq!(value, st(exp, "value"), "{ctx}");
            assert_eq!(a.unix_ms(), opt_u(exp, "unix_ms"), "{ctx}: unix_ms");
            let bytes = match a {
                AnyId::Snowflake(_) => None,
                AnyId::Ksuid(k) => Some(k.to_bytes().to_vec()),
                other => other.uuid().map(|u| u.as_bytes().to_vec()),
            };
            assert_eq!(bytes, exp["bytes_hex"].as_str().map(unhex), "{ctx}: bytes");
            let prefix = if let AnyId::TypeId(t) = a {
                Some(t.prefix().to_owned())
            } else {
                None
            };
            assert_eq!(prefix.as_deref(), exp["prefix"].as_str(), "{ctx}: prefix");
        });
    }
}
