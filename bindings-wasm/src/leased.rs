//! The Rust half of `LeasedSnowflake`, a `Snowflake` whose node is leased from a lease service
//! (`idmint serve`) and renewed over `fetch`: an internal class holding the lease's window (the
//! core's `LeaseWindow`: fence, recorded bound, deadline on `performance.now()`), which checks
//! every ID before it goes out and says when to renew or retry. The class users see is
//! JavaScript (`leased.js`, appended to the glue by scripts/glue.mjs): it mints with an
//! ordinary `Snowflake`, passes each ID through this window, reads the service's JSON and
//! makes the requests. This side takes plain numbers the JavaScript has checked (safe
//! integers), so it adds few exports and no parsing to the `.wasm` (README.md, "Size").

use idmint::{Layout, LeaseWindow};
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

/// Internal, not part of the API: the window of one `LeasedSnowflake`.
#[wasm_bindgen(js_name = "__idmintLeaseWindow", skip_typescript)]
pub struct JsLeaseWindow {
    window: LeaseWindow,
    /// The generator's layout, to read each ID's time.
    layout: Layout,
}

#[wasm_bindgen(js_class = "__idmintLeaseWindow")]
impl JsLeaseWindow {
    /// The window of a grant for `snowflake` (built on the grant's layout, node and fence),
    /// for a request sent at `performance.now()` reading `sent_at`: `ERR_INVALID_CONFIG` when
    /// it permits no ID. The node and layout are the generator's own, so they cannot differ.
    #[wasm_bindgen(constructor)]
    pub fn new(
        snowflake: &JsSnowflake,
        fence_ms: Option<f64>,
        bound_ms: f64,
        sent_at: f64,
        ttl_ms: f64,
        renew_after_ms: Option<f64>,
    ) -> Result<JsLeaseWindow, JsValue> {
        let ms = |v: f64| v as u64;
        let gen = snowflake.gen();
        let window = LeaseWindow::new(
            gen.node(),
            fence_ms.map(ms),
            ms(bound_ms),
            ms(sent_at),
            ms(ttl_ms),
            renew_after_ms.map(ms),
        )
        .or_throw(&Web)?;
        Ok(JsLeaseWindow {
            window,
            layout: *gen.config().layout(),
        })
    }

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

    /// A successful renewal (or the grant itself), sent at `sent_at`: ms until the next is due.
    pub fn renewed(
        &mut self,
        bound_ms: f64,
        sent_at: f64,
        ttl_ms: f64,
        renew_after_ms: Option<f64>,
    ) -> Result<f64, JsValue> {
        let ms = |v: f64| v as u64;
        let after = renew_after_ms.map(ms);
        self.window
            .renewed(ms(bound_ms), ms(sent_at), ms(ttl_ms), after)
            .or_throw(&Web)?;
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
