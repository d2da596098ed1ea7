//! The report: a JSON summary (seed, schedule, counts, availability per phase, failures) and
//! an SVG timeline — one row per instance and client group, successes (green) and errors
//! (red) per half second, fault bands shaded over the rows they hit.

use crate::checker::Verdict;
use crate::history::{Group, History};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The summary.
pub fn summary(
    store: &str,
    seed: u64,
    schedule: Value,
    h: &History,
    v: &Verdict,
    replay: &str,
) -> Value {
    let applied: Vec<Value> = h
        .applied
        .iter()
        .map(|a| {
            let hit: Vec<String> = a
                .effects
                .iter()
                .enumerate()
                .filter_map(|(i, e)| e.map(|e| format!("n{i}:{e:?}")))
                .collect();
            json!({"id": a.id, "kind": a.kind, "what": a.what, "start_ms": a.start_ms,
                   "heal_started_ms": a.heal_started_ms, "end_ms": a.end_ms, "instances": hit})
        })
        .collect();
    // Errors by group and code; one message of each as an example.
    let mut errors: BTreeMap<String, (u64, String)> = BTreeMap::new();
    for op in h.ops.iter().filter(|o| !o.ok) {
        let code = op.error.split(':').next().unwrap_or("");
        let e = errors
            .entry(format!("{} {code}", op.group.name()))
            .or_default();
        e.0 += 1;
        if e.1.is_empty() {
            e.1 = op.error.clone();
        }
    }
    let errors: BTreeMap<String, Value> = errors
        .into_iter()
        .map(|(k, (n, example))| (k, json!({"count": n, "example": example})))
        .collect();
    json!({
        "store": store,
        "seed": seed,
        "replay": replay,
        "duration_ms": h.duration_ms,
        "schedule": schedule,
        "applied": applied,
        "errors": errors,
        "verdict": v.to_json(),
    })
}

/// A timeline row: its label and which requests it shows.
type Row = (String, Box<dyn Fn(&crate::history::Op) -> bool>);

/// Bin width of the timeline, ms.
const BIN_MS: u64 = 500;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The timeline.
pub fn timeline(title: &str, h: &History, instances: usize) -> String {
    // Rows: per instance its Snowflake (single and batch) and segment clients, then browsers.
    let mut rows: Vec<Row> = Vec::new();
    for i in 0..instances {
        rows.push((
            format!("n{i} snowflake"),
            Box::new(move |o| {
                o.instance == i && matches!(o.group, Group::Snowflake | Group::Batch)
            }),
        ));
        rows.push((
            format!("n{i} segment"),
            Box::new(move |o| o.instance == i && o.group == Group::Segment),
        ));
    }
    let clients: Vec<usize> = {
        let mut c: Vec<usize> = h
            .ops
            .iter()
            .filter(|o| o.group == Group::Browser)
            .map(|o| o.client)
            .collect();
        c.sort_unstable();
        c.dedup();
        c
    };
    for b in clients {
        rows.push((
            format!("browser b{b}"),
            Box::new(move |o| o.group == Group::Browser && o.client == b),
        ));
    }
    let bins = (h.duration_ms / BIN_MS + 1) as usize;
    let (left, top, row_h, width) = (120.0, 60.0, 34.0, 1100.0);
    let px = width / bins as f64;
    let height = top + row_h * rows.len() as f64 + 40.0;
    let total_w = left + width + 20.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="8" y="18" font-size="14" font-weight="bold">{}</text>"#,
        esc(title)
    );
    let _ = writeln!(
        s,
        r#"<text x="8" y="36">green: answered with IDs, red: errors (per {BIN_MS} ms, bar height = share); shaded: faults (darker on the instances they hit)</text>"#
    );
    let x_of = |ms: u64| left + ms as f64 / BIN_MS as f64 * px;
    // Fault bands: light over every row, darker over the instances hit.
    for a in &h.applied {
        let (x0, x1) = (x_of(a.start_ms), x_of(a.end_ms).max(x_of(a.start_ms) + 2.0));
        let _ = writeln!(
            s,
            r##"<rect x="{x0:.1}" y="{top}" width="{:.1}" height="{:.1}" fill="#f5c542" opacity="0.18"><title>{}</title></rect>"##,
            x1 - x0,
            row_h * rows.len() as f64,
            esc(&a.what)
        );
        for (i, e) in a.effects.iter().enumerate() {
            if e.is_some() {
                let y = top + row_h * (2 * i) as f64;
                let _ = writeln!(
                    s,
                    r##"<rect x="{x0:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="#e8a317" opacity="0.35"/>"##,
                    x1 - x0,
                    row_h * 2.0
                );
            }
        }
        let _ = writeln!(
            s,
            r#"<text x="{x0:.1}" y="{:.1}" font-size="9">#{} {}</text>"#,
            top - 4.0,
            a.id,
            esc(&a.kind)
        );
    }
    for (r, (name, pick)) in rows.iter().enumerate() {
        let y = top + row_h * r as f64;
        let _ = writeln!(
            s,
            r#"<text x="8" y="{:.1}">{}</text>"#,
            y + row_h / 2.0 + 4.0,
            esc(name)
        );
        let _ = writeln!(
            s,
            r##"<line x1="{left}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="#ddd"/>"##,
            left + width,
            y + row_h,
            y + row_h
        );
        let mut ok = vec![0u32; bins];
        let mut err = vec![0u32; bins];
        for o in h.ops.iter().filter(|o| pick(o)) {
            let b = ((o.start_ms / BIN_MS) as usize).min(bins - 1);
            if o.ok {
                ok[b] += 1;
            } else {
                err[b] += 1;
            }
        }
        for b in 0..bins {
            let n = ok[b] + err[b];
            if n == 0 {
                continue;
            }
            let x = left + b as f64 * px;
            let full = row_h - 6.0;
            let g = full * ok[b] as f64 / n as f64;
            if ok[b] > 0 {
                let _ = write!(
                    s,
                    r##"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{g:.1}" fill="#2e9d4a"/>"##,
                    y + 3.0 + (full - g),
                    px.max(1.0)
                );
            }
            if err[b] > 0 {
                let _ = write!(
                    s,
                    r##"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#d93030"/>"##,
                    y + 3.0,
                    px.max(1.0),
                    full - g
                );
            }
        }
        s.push('\n');
    }
    // Time axis: a tick every 10 s (every minute for long runs).
    let step = if h.duration_ms > 300_000 {
        60_000
    } else {
        10_000
    };
    let axis_y = top + row_h * rows.len() as f64;
    let mut t = 0;
    while t <= h.duration_ms {
        let x = x_of(t);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{axis_y:.1}" y2="{:.1}" stroke="#999"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}s</text>"##,
            axis_y + 5.0,
            axis_y + 18.0,
            t / 1000
        );
        t += step;
    }
    s.push_str("</svg>\n");
    s
}

/// Every request as one JSON line (for a failed run).
pub fn ops_lines(h: &History) -> String {
    let mut out = String::new();
    for o in &h.ops {
        let v = json!({
            "group": o.group.name(), "instance": o.instance, "incarnation": o.incarnation,
            "client": o.client, "key": o.key, "start_ms": o.start_ms, "end_ms": o.end_ms,
            "ok": o.ok, "error": o.error, "ids": o.ids.len(),
            "first_id": o.ids.first().map(|i| i.to_string()),
        });
        out.push_str(&v.to_string());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checker::Verdict;
    use crate::history::{Applied, Effect, Op};

    fn op(group: Group, instance: usize, at: u64, ok: bool) -> Op {
        Op {
            group,
            instance,
            incarnation: 0,
            client: 1,
            key: String::new(),
            tenure: None,
            start_ms: at,
            end_ms: at + 3,
            ok,
            error: if ok {
                String::new()
            } else {
                "ERR_LEASE_LOST: gone".into()
            },
            ids: if ok { vec![at] } else { Vec::new() },
        }
    }

    fn history() -> History {
        History {
            ops: vec![
                op(Group::Snowflake, 0, 100, true),
                op(Group::Snowflake, 0, 2_100, false),
                op(Group::Segment, 1, 200, true),
                op(Group::Browser, 0, 300, true),
            ],
            tenures: Vec::new(),
            applied: vec![Applied {
                id: 0,
                kind: "isolate".into(),
                what: "isolate n0 <from the store>".into(),
                start_ms: 1_000,
                heal_started_ms: 3_000,
                end_ms: 3_000,
                effects: vec![Some(Effect::Cut), None],
                slow_recovery: false,
            }],
            duration_ms: 5_000,
        }
    }

    #[test]
    fn the_timeline_has_a_row_per_instance_group_and_browser_and_the_fault_band() {
        let svg = timeline("t", &history(), 2);
        for row in [
            "n0 snowflake",
            "n0 segment",
            "n1 snowflake",
            "n1 segment",
            "browser b1",
        ] {
            assert!(svg.contains(&format!(">{row}</text>")), "{row} missing");
        }
        assert!(svg.contains("isolate n0 &lt;from the store&gt;"));
        assert!(svg.contains("#d93030") && svg.contains("#2e9d4a"));
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    }

    #[test]
    fn the_summary_counts_errors_by_group_and_code() {
        let h = history();
        let s = summary(
            "etcd",
            9,
            json!([]),
            &h,
            &Verdict::default(),
            "idmint-chaos --seed 9",
        );
        assert_eq!(s["seed"], 9);
        assert_eq!(s["errors"]["snowflake ERR_LEASE_LOST"]["count"], 1);
        assert_eq!(s["applied"][0]["instances"], json!(["n0:Cut"]));
        assert_eq!(ops_lines(&h).lines().count(), 4);
    }
}
