//! What operators and orchestrators look at: `/healthz`, `/readyz`, `/metrics`, and the
//! monitor page `/cache` (Leaf's name) with its JSON twin `/v1/monitor`.

use std::fmt::Write;
use std::time::Instant;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use crate::Shared;

/// `GET /healthz`: the process is up.
pub async fn healthz() -> Response {
    axum::Json(json!({ "status": "ok" })).into_response()
}

/// `GET /readyz`: 200 when the segment store answered its last check, every pre-registered
/// key has values buffered, the node lease is held and no shutdown has begun; else 503.
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

/// The monitor's data: segment keys, the service's node lease, client leases.
pub fn monitor_data(svc: &Shared) -> Value {
    let mut keys: Vec<String> = svc.segments.keys();
    keys.sort();
    let segs: Vec<Value> = keys
        .iter()
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
        Some(i) => json!({
            "node": i.lease.node,
            "source": i.store,
            "namespace": i.lease.namespace,
            "token": i.lease.token,
            "bound_ms": i.bound_ms,
            "expires_in_ms": i.deadline.map(|d| d.saturating_duration_since(now).as_millis() as u64),
        }),
    };
    let clients: Vec<Value> = svc
        .clients
        .as_ref()
        .map(|c| c.live())
        .unwrap_or_default()
        .iter()
        .map(|t| {
            json!({
                "namespace": t.lease.namespace,
                "node": t.lease.node,
                "token": t.lease.token,
                "holder": t.lease.holder,
                "bound_ms": t.bound_ms,
                "expires_in_ms": t.expires.saturating_duration_since(now).as_millis() as u64,
            })
        })
        .collect();
    json!({
        "layout": svc.settings.layout.to_string(),
        "snowflake": node,
        "segments": segs,
        "client_leases": clients,
    })
}

/// `GET /v1/monitor`.
pub async fn monitor_json(State(svc): State<Shared>) -> Response {
    axum::Json(monitor_data(&svc)).into_response()
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => esc(s),
        Value::Null => "—".into(),
        other => esc(&other.to_string()),
    }
}

fn table(out: &mut String, title: &str, rows: &[Value], cols: &[&str]) {
    let _ = write!(out, "<h2>{}</h2>", esc(title));
    if rows.is_empty() {
        out.push_str("<p>none</p>");
        return;
    }
    out.push_str("<table><tr>");
    for c in cols {
        let _ = write!(out, "<th>{c}</th>");
    }
    out.push_str("</tr>");
    for r in rows {
        out.push_str("<tr>");
        for c in cols {
            let _ = write!(out, "<td>{}</td>", cell(&r[*c]));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
}

/// `GET /cache`: the monitor page (refreshes itself every 5 s).
pub async fn monitor_page(State(svc): State<Shared>) -> Response {
    let d = monitor_data(&svc);
    let mut out = String::from(
        "<!doctype html><html><head><meta charset=utf-8><meta http-equiv=refresh content=5>\
         <title>idmint service</title><style>body{font:14px system-ui,sans-serif;margin:2em}\
         table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;\
         text-align:left}</style></head><body><h1>idmint service</h1>",
    );
    let _ = write!(out, "<p>Layout <code>{}</code></p>", cell(&d["layout"]));
    table(
        &mut out,
        "Snowflake node",
        std::slice::from_ref(&d["snowflake"]),
        &[
            "node",
            "source",
            "namespace",
            "token",
            "bound_ms",
            "expires_in_ms",
        ],
    );
    let rows = |k: &str| d[k].as_array().cloned().unwrap_or_default();
    table(
        &mut out,
        "Segment keys",
        &rows("segments"),
        &["key", "step", "buffered", "fetching", "last_error"],
    );
    table(
        &mut out,
        "Client leases",
        &rows("client_leases"),
        &[
            "namespace",
            "node",
            "token",
            "holder",
            "bound_ms",
            "expires_in_ms",
        ],
    );
    out.push_str(
        "<p><a href=\"/metrics\">metrics</a> · <a href=\"/v1/monitor\">JSON</a></p></body></html>",
    );
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], out).into_response()
}
