//! `Snowflake` (the core's `Clocked` generator on the page's clock, see [`crate::clock`]) and
//! `AtomicSnowflake` (sans-IO, for replays and callers that bring their own clock), and
//! `randomNode`. Both wrap the core's `AtomicSnowflake` (`no_std`; on wasm32 without threads
//! its atomics are plain loads and stores); the waiting and retrying is the core's. A page and each of its workers has its own memory, so a generator is
//! never shared between them: give each its own node (see the README).

use idmint::{AtomicSnowflake, Clocked, Config};
use idmint_js::convert::{batch_arg, layout_arg, u64_arg};
use idmint_js::error::{not_js_safe, range_error};
use idmint_js::options::snowflake_config;
use idmint_js::values;
use js_sys::BigUint64Array;
use wasm_bindgen::prelude::*;

use crate::clock::PageClock;
use crate::convert::{js_str, wasm_members, OrThrow, Web};
use crate::error::stash;
use crate::random;

/// IDs minted into wasm memory per copy into the result array: batches of any size grow the
/// module's memory (which never shrinks) by at most this many × 8 bytes.
const CHUNK: usize = 8192;

/// A clocked call waits at most this many times before it gives up with the last
/// `WouldBlock` (each wait is bounded by `MAX_SPIN_MS`; this only guards against a clock that
/// never reaches the time the core asked for).
const MAX_WAITS: u32 = 64;

/// `id` as a decimal JavaScript string.
fn decimal(id: u64) -> JsValue {
    js_sys::BigInt::from(id)
        .to_string(10)
        .map_or(JsValue::UNDEFINED, JsValue::from)
}

/// A `BigUint64Array` of up to `n` IDs, minted `CHUNK` at a time by `fill` into wasm memory and
/// copied into the array. `fill(buf)` writes a prefix of `buf` and returns its length (0 only
/// with an error); the array is cut to what was written when `fill` stops early.
fn biguint64_array(
    n: usize,
    mut fill: impl FnMut(&mut [u64]) -> Result<usize, JsValue>,
    stop_early: bool,
) -> Result<BigUint64Array, JsValue> {
    // `new BigUint64Array(n)` throws a RangeError when the engine cannot allocate it.
    // (Through Reflect, which catches, so no exception unwinds through this frame.)
    let ctor = js_sys::Reflect::get(&js_sys::global(), &js_str("BigUint64Array"))?;
    let out = js_sys::Reflect::construct(
        wasm_bindgen::JsCast::unchecked_ref::<js_sys::Function>(&ctor),
        &js_sys::Array::of1(&JsValue::from_f64(n as f64)),
    )
    .map_err(|_| range_error(&Web, &format!("cannot allocate an array of {n} IDs")))?;
    let out: BigUint64Array = wasm_bindgen::JsCast::unchecked_into(out);
    let mut buf = vec![0u64; n.min(CHUNK)];
    let mut filled = 0usize;
    while filled < n {
        let want = (n - filled).min(CHUNK);
        let k = fill(&mut buf[..want])?;
        // SAFETY: the view is used only by `set`, which copies it before anything can
        // allocate (and so move or grow wasm memory).
        unsafe { out.set(&BigUint64Array::view(&buf[..k]), filled as u32) };
        filled += k;
        if stop_early && k < want {
            return Ok(out.subarray(0, filled as u32));
        }
    }
    Ok(out)
}

#[wasm_bindgen(js_name = Snowflake)]
pub struct JsSnowflake {
    inner: Clocked<AtomicSnowflake, PageClock>,
}

impl JsSnowflake {
    /// The core's clocked Snowflake for `cfg` on the page clock, seeded from
    /// `crypto.getRandomValues` when a `random` sequence start needs a seed.
    pub(crate) fn from_core(cfg: Config) -> Result<JsSnowflake, JsValue> {
        let inner = Clocked::snowflake(cfg, PageClock::new(), random::u64).or_throw(&Web)?;
        Ok(JsSnowflake {
            inner: inner.max_waits(MAX_WAITS),
        })
    }

    #[inline(always)]
    pub(crate) fn gen(&self) -> &AtomicSnowflake {
        self.inner.generator()
    }

    /// One ID: the core's fast path inline, its waiting path out of line.
    #[inline]
    fn mint(&self) -> Result<u64, JsValue> {
        match self.inner.shared_fast_id() {
            Some(id) => Ok(id),
            None => self.mint_slow(),
        }
    }

    #[cold]
    #[inline(never)]
    fn mint_slow(&self) -> Result<u64, JsValue> {
        self.inner.by_ref().next_id().or_throw(&Web)
    }
}

// The getters and methods both classes share are listed once, for both packages, in bindings-js.
idmint_js::snowflake_api!(wasm_members, Snowflake => JsSnowflake.gen());
idmint_js::snowflake_api!(wasm_members, AtomicSnowflake => JsAtomicSnowflake);

#[wasm_bindgen(js_class = Snowflake)]
impl JsSnowflake {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsSnowflake, JsValue> {
        JsSnowflake::from_core(snowflake_config(&Web, Some(&options))?)
    }

    #[wasm_bindgen(js_name = fromConfig)]
    pub fn from_config(config: JsValue) -> Result<JsSnowflake, JsValue> {
        JsSnowflake::from_core(values::named_snowflake(&Web, &config)?)
    }

    // The per-ID methods return plain values (see `crate::error::stash`): a `Result` would
    // come back to JavaScript as a multi-value array, about 25 ns of a 100 ns call.

    #[wasm_bindgen(js_name = nextId)]
    pub fn next_id(&self) -> u64 {
        self.mint().unwrap_or_else(stash)
    }

    /// Formatted by JavaScript (`bigint.toString()`): a string made in Rust would cross
    /// through a TextDecoder, which costs about a microsecond in Chromium.
    #[wasm_bindgen(js_name = nextIdString)]
    pub fn next_id_string(&self) -> JsValue {
        match self.mint() {
            Ok(id) => decimal(id),
            Err(e) => stash(e),
        }
    }

    #[wasm_bindgen(js_name = nextIdNumber)]
    pub fn next_id_number(&self) -> f64 {
        let layout = self.gen().config().layout();
        if !layout.is_js_safe() {
            return stash(not_js_safe(&Web, layout));
        }
        // Below 2^53: exact as an f64.
        self.mint().map(|id| id as f64).unwrap_or_else(stash)
    }

    #[wasm_bindgen(js_name = tryNextId)]
    pub fn try_next_id(&self) -> u64 {
        self.inner
            .by_ref()
            .try_next_id()
            .or_throw(&Web)
            .unwrap_or_else(stash)
    }

    #[wasm_bindgen(js_name = nextIds)]
    pub fn next_ids(&self, n: JsValue) -> Result<BigUint64Array, JsValue> {
        let n = batch_arg(&Web, &n)?;
        let fill = |out: &mut [u64]| {
            self.inner.by_ref().next_ids(out).or_throw(&Web)?;
            Ok(out.len())
        };
        biguint64_array(n, fill, false)
    }

    pub fn reserve(&self, max: JsValue) -> Result<JsValue, JsValue> {
        let max = u64_arg(&Web, &max, "max")?;
        values::run(&Web, self.inner.by_ref().reserve(max).or_throw(&Web)?)
    }

    /// Internal: which time source this generator reads (`"performance"` or `"Date"`).
    #[wasm_bindgen(getter, js_name = "__timeSource", skip_typescript)]
    pub fn time_source(&self) -> String {
        self.inner.clock().source().to_owned()
    }
}

#[wasm_bindgen(js_name = AtomicSnowflake)]
pub struct JsAtomicSnowflake {
    inner: AtomicSnowflake,
}

#[wasm_bindgen(js_class = AtomicSnowflake)]
impl JsAtomicSnowflake {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsAtomicSnowflake, JsValue> {
        let cfg = snowflake_config(&Web, Some(&options))?;
        Ok(JsAtomicSnowflake {
            inner: AtomicSnowflake::new(cfg).or_throw(&Web)?,
        })
    }

    #[wasm_bindgen(js_name = fromConfig)]
    pub fn from_config(config: JsValue) -> Result<JsAtomicSnowflake, JsValue> {
        let cfg = values::named_snowflake(&Web, &config)?;
        Ok(JsAtomicSnowflake {
            inner: AtomicSnowflake::new(cfg).or_throw(&Web)?,
        })
    }

    #[wasm_bindgen(js_name = reserveAt)]
    pub fn reserve_at(&self, now_ms: JsValue, max: JsValue) -> Result<JsValue, JsValue> {
        let (now, max) = (
            u64_arg(&Web, &now_ms, "nowMs")?,
            u64_arg(&Web, &max, "max")?,
        );
        values::run(&Web, self.inner.reserve_at(now, max).or_throw(&Web)?)
    }

    #[wasm_bindgen(js_name = nextIdsAt)]
    pub fn next_ids_at(&self, now_ms: JsValue, n: JsValue) -> Result<BigUint64Array, JsValue> {
        let (now, n) = (u64_arg(&Web, &now_ms, "nowMs")?, batch_arg(&Web, &n)?);
        let mut first = true;
        let fill = |out: &mut [u64]| {
            // Only the first chunk may fail; later ones end the batch quietly.
            let first_chunk = std::mem::replace(&mut first, false);
            match self.inner.next_ids_at(now, out) {
                Ok(k) => Ok(k),
                Err(e) if first_chunk => Err(e).or_throw(&Web),
                Err(_) => Ok(0),
            }
        };
        biguint64_array(n, fill, true)
    }
}

/// A node value drawn uniformly from `0..=layout.maxNode` with `crypto.getRandomValues`.
#[wasm_bindgen(js_name = randomNode)]
pub fn random_node(layout: JsValue) -> Result<u64, JsValue> {
    let layout = layout_arg(&Web, &layout, "layout")?;
    Ok(random::u64().or_throw(&Web)? & layout.max_node())
}
