//! The Rust half of `LeasedSnowflake`, a `Snowflake` whose node is leased from a lease service
//! (`idmint serve`) and renewed over `fetch`. The class users see is JavaScript (`leased.js`,
//! appended to the glue by scripts/glue.mjs): it makes the requests, runs the timers and holds
//! the promises. Every check is here or further down: the options object and the service's
//! grant and renewal answers are read by the shared crate (`idmint_js::client_lease`, with the
//! option machinery and error texts of every other argument), and the lease's window is the
//! core's `LeaseWindow` (fence, recorded bound, deadline on `performance.now()`), which checks
//! every ID before it goes out and says when to renew or retry. Internal exports:
//! `__idmintLeaseRequest` (`lease()`'s arguments checked, what the request sends),
//! `__idmintLeaseGrant` (a grant's generator and window) and the class `__idmintLeaseWindow`.

use idmint::{Layout, LeaseWindow};
use idmint_js::client_lease;
use wasm_bindgen::prelude::*;

use crate::clock::performance_now;
use crate::convert::{OrThrow, Web};
use crate::snowflake::JsSnowflake;

/// `performance.now()` after minting, rounded up: a later reading meets the deadline sooner.
/// (Send times come from JavaScript's `performance.now()` and are rounded down by `as`, which
/// saturates, NaN to 0: an earlier send time gives an earlier deadline.)
fn mono_now() -> u64 {
    performance_now().ceil() as u64
}

/// Internal, not part of the API: `lease()`'s arguments checked before any request
/// (`service_url` a string: the JavaScript turns a `URL` into its text; `options` a snapshot
/// of the caller's, see [`lease_grant`]): `[namespace, layout, ttlMs, token, fetch,
/// timeoutMs]`, `null` for each not given (`layout` as the request sends it); `timeoutMs` is
/// how long the grant request may take (a third of the TTL the service will grant).
#[wasm_bindgen(js_name = "__idmintLeaseRequest", skip_typescript)]
pub fn lease_request(service_url: JsValue, options: JsValue) -> Result<js_sys::Array, JsValue> {
    client_lease::service_url(&Web, &service_url)?;
    let o = client_lease::lease_options(&Web, Some(&options))?;
    let text = |s: Option<String>| s.map_or(JsValue::NULL, JsValue::from);
    let ttl = o
        .ttl_ms
        .map_or(JsValue::NULL, |t| JsValue::from_f64(t as f64));
    let fetch = o.fetch.unwrap_or(JsValue::NULL);
    let out = js_sys::Array::of3(&text(o.namespace), &text(o.layout), &ttl);
    out.push(&text(o.token));
    out.push(&fetch);
    let timeout = LeaseWindow::third_of_ttl_ms(LeaseWindow::granted_ttl_ms(o.ttl_ms));
    out.push(&JsValue::from_f64(timeout as f64));
    Ok(out)
}

/// Internal, not part of the API: the generator of `grant` (the parsed answer of
/// `POST /v1/leases`, sent at `performance.now()` reading `sent_at`) under `lease()`'s
/// `options`, read again (the snapshot [`lease_request`] checked: two reads of one copy cost
/// less `.wasm` than a class holding the first, about 350 B gzipped): `[window, snowflake, ms until the first
/// renewal]`, or the error of a grant that is malformed or permits no ID.
#[wasm_bindgen(js_name = "__idmintLeaseGrant", skip_typescript)]
pub fn lease_grant(
    options: JsValue,
    grant: JsValue,
    sent_at: f64,
) -> Result<js_sys::Array, JsValue> {
    let o = client_lease::lease_options(&Web, Some(&options))?;
    let g = client_lease::grant(&Web, &grant)?;
    let snowflake = JsSnowflake::from_core(g.config(&Web, &o)?)?;
    let window = JsLeaseWindow {
        window: g.window(&Web, sent_at as u64)?,
        layout: *snowflake.gen().config().layout(),
    };
    let renew_in = window.window.renew_in(mono_now()) as f64;
    Ok(js_sys::Array::of3(
        &window.into(),
        &snowflake.into(),
        &JsValue::from_f64(renew_in),
    ))
}

/// Internal, not part of the API: the window of one `LeasedSnowflake`.
#[wasm_bindgen(js_name = "__idmintLeaseWindow", skip_typescript)]
pub struct JsLeaseWindow {
    window: LeaseWindow,
    /// The generator's layout, to read each ID's time.
    layout: Layout,
}

#[wasm_bindgen(js_class = "__idmintLeaseWindow")]
impl JsLeaseWindow {
    /// Whether `id`, minted just now, may go out: nothing, or the refusal.
    pub fn admit(&mut self, id: u64) -> Result<(), JsValue> {
        let t = self.layout.timestamp_ms(id);
        self.window.admit(t, mono_now()).or_throw(&Web)
    }

    /// A chunk of a batch minted just now: its earliest time against the fence, its latest
    /// against the bound, with one reading of the deadline.
    #[wasm_bindgen(js_name = admitIds)]
    pub fn admit_ids(&mut self, ids: &js_sys::BigUint64Array) -> Result<(), JsValue> {
        let ids = ids.to_vec();
        if ids.is_empty() {
            return Ok(());
        }
        let times = ids.iter().map(|&id| self.layout.timestamp_ms(id));
        let (lo, hi) = times.fold((u64::MAX, 0), |(lo, hi), t| (lo.min(t), hi.max(t)));
        let now = mono_now();
        self.window.admit(lo, now).or_throw(&Web)?;
        self.window.admit(hi, now).or_throw(&Web)
    }

    /// A renewal's answer (parsed JSON), for the request sent at `sent_at`: ms until the next
    /// is due, or the error of an answer that is malformed or permits no ID.
    pub fn renewed(&mut self, answer: JsValue, sent_at: f64) -> Result<f64, JsValue> {
        let terms = client_lease::terms(&Web, &answer, "renewal")?;
        terms.renew(&Web, &mut self.window, sent_at as u64)?;
        Ok(self.window.renew_in(mono_now()) as f64)
    }

    /// A failed renewal: ms until it is tried again (`hint_ms`: the service's `Retry-After`).
    #[wasm_bindgen(js_name = retryIn)]
    pub fn retry_in(&self, hint_ms: Option<f64>) -> f64 {
        let hint = hint_ms.map(|h| h as u64);
        self.window.retry_in(mono_now(), hint) as f64
    }

    /// ms to wait before the first ID when the node's fence is ahead of the page's clock (the
    /// one generators read): until the first tick after the fence's; 0 when ready; the
    /// core's `NodeFenced` error (`ERR_CLOCK_BACKWARDS`) when the fence is further ahead than
    /// an honest previous holder can have put it.
    #[wasm_bindgen(js_name = fenceWait)]
    pub fn fence_wait(&self) -> Result<f64, JsValue> {
        let now = crate::clock::now_ms();
        let wait = self
            .window
            .fence_wait_ms(now, &self.layout)
            .or_throw(&Web)?;
        Ok(wait as f64)
    }

    /// The service answered that the lease is gone.
    pub fn lose(&mut self) {
        self.window.lose();
    }

    /// How long one request about this lease may take: a third of its TTL (the TTL of the
    /// last grant or renewal).
    #[wasm_bindgen(getter, js_name = requestTimeoutMs)]
    pub fn request_timeout_ms(&self) -> f64 {
        LeaseWindow::third_of_ttl_ms(self.window.ttl_ms()) as f64
    }

    /// What the release reports as issued: the latest time admitted, else the fence, else 0.
    #[wasm_bindgen(getter, js_name = releaseUpToMs)]
    pub fn release_up_to_ms(&self) -> f64 {
        self.window.release_up_to_ms() as f64
    }

    /// The window's part of `LeasedSnowflake.lease`, as numbers for the JavaScript to dress:
    /// `[fenceMs, ttlMs, boundMs, expiresInMs, issuedMs]`, NaN where there is none (the times
    /// are far below 2^53, so exact).
    #[wasm_bindgen(getter)]
    pub fn info(&self) -> Vec<f64> {
        let w = &self.window;
        let num = |v: Option<u64>| v.map_or(f64::NAN, |v| v as f64);
        vec![
            num(w.fence_ms()),
            w.ttl_ms() as f64,
            w.bound_ms() as f64,
            num(w.expires_in(mono_now())),
            num(w.issued_ms()),
        ]
    }
}
