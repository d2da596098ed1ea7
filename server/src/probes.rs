//! What operators and orchestrators look at: `/healthz`, `/readyz`, `/metrics`, and the
//! monitor page `/cache` (Leaf's name) with its JSON twin `/v1/monitor`.

use std::fmt::Write;
use std::time::Instant;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use idmint::Rfc3339;
use serde_json::{json, Value};

use crate::clock::now_ms;
use crate::rates::{Interval, INTERVAL};
use crate::Shared;

/// `GET /healthz`: the process is up.
pub async fn healthz() -> Response {
    axum::Json(json!({ "status": "ok" })).into_response()
}

/// `GET /readyz`: 200 when the segment store answered its last check, every pre-registered
/// key has values buffered, the node lease is held and its fence has passed (a node whose
/// previous holder's bound is still ahead would make requests wait), and no shutdown has
/// begun; else 503.
pub async fn readyz(State(svc): State<Shared>) -> Response {
    let checks = svc.readiness();
    let ready = checks.iter().all(|c| c.1);
    let list: Vec<Value> = checks
        .iter()
        .map(|(name, ok, detail)| json!({ "name": name, "ok": ok, "detail": detail }))
        .collect();
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (
        status,
        axum::Json(json!({ "ready": ready, "checks": list })),
    )
        .into_response()
}

/// `GET /metrics`: Prometheus text format.
pub async fn metrics(State(svc): State<Shared>) -> Response {
    svc.refresh_metrics();
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        svc.metrics.encode(),
    )
        .into_response()
}

/// Most segment keys the monitor lists (the first by name); the rest are counted.
pub const MONITOR_MAX_KEYS: usize = 200;

/// The page's Content-Security-Policy: nothing loads, nothing runs; only the page's own
/// inline style applies (the chart is inline SVG with presentation attributes).
pub const MONITOR_CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// A duration for a human: `850 ms`, `2.5 s`, `3 min`, `1.5 h`, `12 days`, `64 years` (one
/// decimal below 10, none from 10 up).
pub fn human_duration(ms: u64) -> String {
    const UNITS: [(u64, &str); 5] = [
        (31_557_600_000, "years"),
        (86_400_000, "days"),
        (3_600_000, "h"),
        (60_000, "min"),
        (1_000, "s"),
    ];
    for (size, unit) in UNITS {
        if ms >= size {
            let v = ms as f64 / size as f64;
            return if v < 9.95 {
                let text = format!("{v:.1}");
                format!("{} {unit}", text.strip_suffix(".0").unwrap_or(&text))
            } else {
                format!("{v:.0} {unit}")
            };
        }
    }
    format!("{ms} ms")
}

/// Unix milliseconds as a UTC ISO-8601 date.
fn date(ms: u64) -> String {
    Rfc3339(ms).to_string()
}

fn interval_json(i: &Interval) -> Value {
    json!({
        "start": date(i.start_unix_ms),
        "elapsed_ms": i.elapsed_ms,
        "requests": i.requests,
        "ids": i.ids,
    })
}

/// The monitor's data: the layout, segment keys, the service's node lease, client leases and
/// the recent rates. Times are UTC ISO-8601 dates and durations human text, each next to its
/// number for programs.
pub fn monitor_data(svc: &Shared) -> Value {
    let now_unix = now_ms();
    let mut keys: Vec<String> = svc.segments.keys();
    keys.sort_unstable();
    let total_keys = keys.len();
    let segs: Vec<Value> = keys
        .iter()
        .take(MONITOR_MAX_KEYS)
        .filter_map(|k| {
            let s = svc.segments.stats(k)?;
            Some(json!({
                "key": k,
                "step": s.step,
                "buffered": s.buffered,
                "fetching": s.fetching,
                "last_error": s.last_error.map(|e| e.to_string()),
            }))
        })
        .collect();
    let now = Instant::now();
    let node = match svc.snowflake.lease_info() {
        None => json!({ "node": svc.snowflake.node(), "source": "fixed" }),
        Some(i) => {
            let left = i
                .deadline
                .map(|d| d.saturating_duration_since(now).as_millis() as u64);
            json!({
                "node": i.lease.node,
                "source": i.store,
                "namespace": i.lease.namespace,
                "token": i.lease.token,
                "fence_ms": i.lease.fence_ms,
                "bound_ms": i.bound_ms,
                "bound": date(i.bound_ms),
                "expires_in_ms": left,
                "expires_in": left.map(human_duration),
            })
        }
    };
    let clients: Vec<Value> = svc
        .clients
        .as_ref()
        .map(|c| c.live())
        .unwrap_or_default()
        .iter()
        .map(|t| {
            let left = t.expires.saturating_duration_since(now).as_millis() as u64;
            json!({
                "namespace": t.lease.namespace,
                "node": t.lease.node,
                "token": t.lease.token,
                "holder": t.lease.holder,
                "bound_ms": t.bound_ms,
                "bound": date(t.bound_ms),
                "expires_in_ms": left,
                "expires_in": human_duration(left),
            })
        })
        .collect();
    // A namespace's quota is its node space (the largest of the layouts open to clients): no
    // more leases can be live in it at once.
    let per_namespace: Vec<Value> = svc
        .clients
        .as_ref()
        .map(|c| c.per_namespace())
        .unwrap_or_default()
        .into_iter()
        .map(|(ns, held, nodes)| {
            json!({
                "namespace": ns,
                "held": held,
                "quota": nodes,
                "held_of_quota": format!("{held} / {nodes}"),
            })
        })
        .collect();
    let layout = &svc.settings.layout;
    let end = layout.lifetime_end_ms();
    let layouts = vec![json!({
        "name": layout.preset_name().map_or_else(|| layout.to_string(), str::to_owned),
        "spec": layout.to_string(),
        "lifetime_end_ms": end,
        "lifetime_end": date(end),
        "lifetime_left": if end > now_unix { human_duration(end - now_unix) } else { "ended".to_owned() },
    })];
    let rates: Vec<Value> = svc
        .metrics
        .rates
        .recent()
        .iter()
        .map(interval_json)
        .collect();
    json!({
        "generated": date(now_unix),
        "layout": layout.to_string(),
        "layouts": layouts,
        "snowflake": node,
        "segment_keys": {
            "known": total_keys,
            "shown": segs.len(),
            "configured": svc.settings.keys.len(),
            "auto_keys": svc.keys.auto(),
            "auto_created": svc.keys.created(),
            "auto_limit": svc.keys.limit(),
        },
        "segments": segs,
        "client_leases": clients,
        "client_leases_per_namespace": per_namespace,
        "rates": {
            "interval_s": INTERVAL.as_secs(),
            "intervals": rates,
        },
    })
}

/// `GET /v1/monitor`.
pub async fn monitor_json(State(svc): State<Shared>) -> Response {
    axum::Json(monitor_data(&svc)).into_response()
}

/// Text for HTML (element content and quoted attribute values).
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => esc(s),
        Value::Null => "—".into(),
        other => esc(&other.to_string()),
    }
}

/// A table of `rows` with the columns `cols` (JSON field, heading).
fn table(out: &mut String, title: &str, rows: &[Value], cols: &[(&str, &str)]) {
    let _ = write!(out, "<h2>{}</h2>", esc(title));
    if rows.is_empty() {
        out.push_str("<p>none</p>");
        return;
    }
    out.push_str("<table><tr>");
    for (_, heading) in cols {
        let _ = write!(out, "<th>{}</th>", esc(heading));
    }
    out.push_str("</tr>");
    for r in rows {
        out.push_str("<tr>");
        for (field, _) in cols {
            let _ = write!(out, "<td>{}</td>", cell(&r[*field]));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
}

/// Numbers for a human: `1234567` → `1,234,567`, `2.5`.
fn human_rate(v: f64) -> String {
    if v < 10.0 {
        let t = format!("{v:.1}");
        return t.strip_suffix(".0").map(str::to_owned).unwrap_or(t);
    }
    let digits = format!("{v:.0}");
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One rate as an inline SVG bar chart: the last intervals, per second, oldest on the left;
/// the interval in progress is drawn lighter. Every text is escaped; no script, no external
/// resource, only presentation attributes (no inline style), so the page's CSP holds.
fn rate_chart(
    out: &mut String,
    title: &str,
    id: &str,
    intervals: &[Interval],
    value: fn(&Interval) -> u64,
) {
    const W: f64 = 560.0;
    const H: f64 = 120.0;
    const LEFT: f64 = 56.0;
    const TOP: f64 = 8.0;
    const BOTTOM: f64 = 22.0;
    let slots = crate::rates::SHOWN + 1;
    let per_s = |i: &Interval| value(i) as f64 * 1000.0 / i.elapsed_ms.max(1000) as f64;
    let rates: Vec<f64> = intervals.iter().map(per_s).collect();
    let max = rates.iter().copied().fold(0.0f64, f64::max);
    let top = if max > 0.0 { max } else { 1.0 };
    let last = rates.last().copied().unwrap_or(0.0);
    let plot_w = W - LEFT - 4.0;
    let plot_h = H - TOP - BOTTOM;
    let bar = plot_w / slots as f64;
    let label = format!(
        "{title}: peak {}/s, now {}/s ({} s intervals; the light bar is the one in progress)",
        human_rate(max),
        human_rate(last),
        INTERVAL.as_secs()
    );
    let _ = write!(
        out,
        "<figure><figcaption>{}</figcaption><svg id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" \
         width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"{}\" \
         font-family=\"sans-serif\" font-size=\"11\">",
        esc(&label),
        esc(id),
        esc(&label)
    );
    let _ = write!(
        out,
        "<rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{plot_w}\" height=\"{plot_h}\" fill=\"#f6f8fa\" stroke=\"#d0d7de\"/>"
    );
    for (frac, text) in [
        (1.0, human_rate(top)),
        (0.5, human_rate(top / 2.0)),
        (0.0, "0".to_owned()),
    ] {
        let y = TOP + plot_h * (1.0 - frac);
        let _ = write!(
            out,
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#d0d7de\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#57606a\">{}/s</text>",
            LEFT + plot_w,
            LEFT - 4.0,
            y + 4.0,
            esc(&text)
        );
    }
    let offset = slots.saturating_sub(intervals.len());
    for (n, (i, r)) in intervals.iter().zip(&rates).enumerate() {
        if *r <= 0.0 {
            continue;
        }
        let h = (r / top * plot_h).max(1.0);
        let x = LEFT + (offset + n) as f64 * bar;
        let current = n + 1 == intervals.len();
        let _ = write!(
            out,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"{}\">\
             <title>{}: {}/s</title></rect>",
            TOP + plot_h - h,
            (bar - 1.0).max(1.0),
            if current { "#9cc7f0" } else { "#2f81f7" },
            esc(&date(i.start_unix_ms)),
            esc(&human_rate(*r))
        );
    }
    let span = INTERVAL.as_millis() as u64 * (slots as u64 - 1);
    let end = intervals.last().map_or_else(now_ms, |i| i.start_unix_ms);
    for (x, anchor, ms) in [
        (LEFT, "start", end.saturating_sub(span)),
        (LEFT + plot_w, "end", end),
    ] {
        // HH:MM:SS of the UTC date.
        let d = date(ms);
        let hms = d.get(11..19).unwrap_or(&d);
        let _ = write!(
            out,
            "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\" fill=\"#57606a\">{} UTC</text>",
            H - 6.0,
            esc(hms)
        );
    }
    out.push_str("</svg></figure>");
}

/// `GET /cache`: the monitor page (refreshes itself every 5 s). Served with a
/// Content-Security-Policy that lets nothing load or run ([`MONITOR_CSP`]).
pub async fn monitor_page(State(svc): State<Shared>) -> Response {
    let d = monitor_data(&svc);
    let mut out = String::from(
        "<!doctype html><html lang=en><head><meta charset=utf-8><meta http-equiv=refresh content=5>\
         <title>idmint service</title><style>body{font:14px system-ui,sans-serif;margin:2em;color:#1f2328}\
         table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.3em .6em;\
         text-align:left}th{background:#f6f8fa}figure{display:inline-block;margin:0 2em 1em 0}\
         figcaption{font-weight:600;margin-bottom:.3em}.note{color:#57606a}</style></head><body>\
         <h1>idmint service</h1>",
    );
    let _ = write!(
        out,
        "<p class=note>As of <time>{}</time>; refreshes every 5 s.</p>",
        cell(&d["generated"])
    );
    out.push_str("<h2>Rates</h2>");
    let intervals = svc.metrics.rates.recent();
    rate_chart(
        &mut out,
        "ID requests per second",
        "rate-requests",
        &intervals,
        |i| i.requests,
    );
    rate_chart(&mut out, "IDs per second", "rate-ids", &intervals, |i| {
        i.ids
    });
    let rows = |k: &str| d[k].as_array().cloned().unwrap_or_default();
    table(
        &mut out,
        "Layout",
        &rows("layouts"),
        &[
            ("name", "layout"),
            ("spec", "spec"),
            ("lifetime_end", "IDs run out at (UTC)"),
            ("lifetime_left", "time left"),
        ],
    );
    table(
        &mut out,
        "Snowflake node",
        std::slice::from_ref(&d["snowflake"]),
        &[
            ("node", "node"),
            ("source", "source"),
            ("namespace", "namespace"),
            ("token", "fencing token"),
            ("bound", "bound (UTC)"),
            ("expires_in", "expires in"),
        ],
    );
    let k = &d["segment_keys"];
    let _ = write!(
        out,
        "<h2>Segment keys</h2><p class=note>{} pre-registered; auto-keys {}, {} of at most {} \
         auto-created.{}</p>",
        cell(&k["configured"]),
        if k["auto_keys"] == true { "on" } else { "off" },
        cell(&k["auto_created"]),
        cell(&k["auto_limit"]),
        if k["known"] != k["shown"] {
            format!(
                " Showing the first {} of {} keys.",
                cell(&k["shown"]),
                cell(&k["known"])
            )
        } else {
            String::new()
        }
    );
    let mut segs = String::new();
    table(
        &mut segs,
        "",
        &rows("segments"),
        &[
            ("key", "key"),
            ("step", "step"),
            ("buffered", "buffered"),
            ("fetching", "fetching"),
            ("last_error", "last error"),
        ],
    );
    out.push_str(segs.trim_start_matches("<h2></h2>"));
    table(
        &mut out,
        "Client leases per namespace",
        &rows("client_leases_per_namespace"),
        &[
            ("namespace", "namespace"),
            ("held_of_quota", "held / nodes"),
        ],
    );
    table(
        &mut out,
        "Client leases",
        &rows("client_leases"),
        &[
            ("namespace", "namespace"),
            ("node", "node"),
            ("token", "fencing token"),
            ("holder", "holder"),
            ("bound", "bound (UTC)"),
            ("expires_in", "expires in"),
        ],
    );
    out.push_str(
        "<p><a href=\"/metrics\">metrics</a> · <a href=\"/v1/monitor\">JSON</a></p></body></html>",
    );
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, MONITOR_CSP),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
        ],
        out,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_text() {
        let cases = [
            (0, "0 ms"),
            (850, "850 ms"),
            (1_000, "1 s"),
            (2_500, "2.5 s"),
            (59_000, "59 s"),
            (90_000, "1.5 min"),
            (180_000, "3 min"),
            (5_400_000, "1.5 h"),
            (86_400_000 * 12, "12 days"),
            (31_557_600_000 * 64, "64 years"),
        ];
        for (ms, text) in cases {
            assert_eq!(human_duration(ms), text, "{ms}");
        }
        assert_eq!(human_rate(1_234_567.0), "1,234,567");
        assert_eq!(human_rate(2.5), "2.5");
        assert_eq!(human_rate(3.0), "3");
    }

    #[test]
    fn chart_text_is_escaped() {
        let mut out = String::new();
        let i = Interval {
            start_unix_ms: 1_700_000_000_000,
            elapsed_ms: 10_000,
            requests: 20,
            ids: 40,
        };
        rate_chart(&mut out, "<b>\"x\"", "c", &[i], |i| i.ids);
        assert!(out.contains("&lt;b&gt;&quot;x&quot;"), "{out}");
        assert!(!out.contains("<b>"), "{out}");
        assert!(out.contains("4/s"), "{out}");
        assert_eq!(out.matches("<svg").count(), 1);
    }
}
