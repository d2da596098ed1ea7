//! `Snowflake` (clocked by the page's clock, see [`crate::clock`]) and
//! `AtomicSnowflake` (sans-IO, for replays and callers that bring their own clock), with the
//! `Stats` and `Run` objects they return, and `randomNode`. Same members and types as
//! the Node package's generators.
//!
//! Both wrap the core's `AtomicSnowflake` (`no_std`; on wasm32 without threads its atomics are
//! plain loads and stores). A page and each of its workers has its own memory, so a generator
//! is never shared between them: give each its own node (see the README).

use idmint::named::NamedConfig;
use idmint::{
    preset, AtomicSnowflake, Config, Error, Layout, OnBackwards, OnExhausted, Run, SequenceStart,
};
use js_sys::BigUint64Array;
use wasm_bindgen::prelude::*;

use crate::clock::Clock;
use crate::convert::{
    batch_arg, expect_object, get, id_arg, is_nullish, layout_arg, node_arg, object, only_keys,
    opt_string_arg, string_arg, u64_arg,
};
use crate::errors::{make, range_error, stash, Class, OrThrow, Prop, ERR_NOT_JS_SAFE};
use crate::layout::{decompose, JsLayout};
use crate::random;

/// IDs minted into wasm memory per copy into the result array: batches of any size grow the
/// module's memory (which never shrinks) by at most this many × 8 bytes.
const CHUNK: usize = 8192;

/// A clocked call retries at most this many times after waiting before it gives up with the
/// last error (each wait is bounded by `MAX_SPIN_MS`; this only guards against a clock that
/// never reaches the time the core asked for).
const MAX_RETRIES: u32 = 64;

#[wasm_bindgen(typescript_custom_section)]
const TS_GENERATOR: &str = r#"
/** Options of `new Snowflake(...)` and `new AtomicSnowflake(...)`. Only `node` is required. */
export interface SnowflakeOptions {
  /** A `Layout`, a preset name or a text spec. Default `"twitter"`. */
  layout?: Layout | string
  /**
   * The whole node value, or the node sub-fields by name (`{ datacenter: 1, worker: 2 }`).
   * Required: without it the constructor throws `ERR_NODE_REQUIRED`. Give every page, worker
   * and server process its own node: lease one from your server, or draw one with
   * `randomNode(layout)` (probabilistic uniqueness, see the README).
   */
  node?: bigint | number | Record<string, bigint | number>
  /**
   * When the clock steps back: `fail`, `wait:MS`, `logical:MS`, `rollback_counter`,
   * `ring:TICKS`. Default `wait:1000`.
   */
  onBackwards?: string
  /** When a tick's sequence runs out: `wait`, `borrow:TICKS`, `fail`. Default `wait`. */
  onExhausted?: string
  /** Where each tick's sequence starts: `zero`, `random`, `vibrate:K`. Default `zero`. */
  sequenceStart?: string
  /** Seed of `random` sequence starts (drawn from `crypto.getRandomValues` when 0 or absent, for `Snowflake`). */
  seed?: bigint | number
  /** Time fence: the last time (Unix ms) a previous holder of this node may have issued. */
  fenceMs?: bigint | number
}

/** A generator's counters (all `bigint`). */
export interface Stats {
  /** Calls that found the clock behind the last issued tick. */
  rollbacks: bigint
  /** Total waiting asked of callers, in ms. */
  waitMs: bigint
  /** Furthest the generator has run ahead of the clock (borrow, logical), in ms. */
  maxAheadMs: bigint
  /** Times a tick's sequence ran out. */
  exhaustions: bigint
}

/** A run of IDs reserved with one swap: `first`, `first + stride`, ... (`count` of them). */
export interface Run {
  /** The first ID. */
  first: bigint
  /** How many IDs the run holds (at least 1). */
  count: number
  /** Distance between consecutive IDs. */
  stride: bigint
}
"#;

const OPTION_KEYS: &[&str] = &[
    "layout",
    "node",
    "onBackwards",
    "onExhausted",
    "sequenceStart",
    "seed",
    "fenceMs",
];

/// Reads the options object into a core `Config` (validated later by the generator).
pub(crate) fn config_from_options(options: &JsValue) -> Result<Config, JsValue> {
    if is_nullish(options) {
        return Ok(Config::new(preset::twitter()));
    }
    let o = options;
    expect_object(o, "options")?;
    only_keys(o, "options", OPTION_KEYS)?;
    let v = get(o, "layout")?;
    let layout: Layout = if is_nullish(&v) {
        preset::twitter()
    } else {
        layout_arg(&v, "options.layout")?
    };
    let mut cfg = Config::new(layout);
    let v = get(o, "node")?;
    if !is_nullish(&v) {
        cfg = cfg.node(node_arg(&v, &layout, "options.node")?);
    }
    if let Some(s) = opt_string_arg(&get(o, "onBackwards")?, "options.onBackwards")? {
        cfg = cfg.on_backwards(s.parse::<OnBackwards>().or_throw()?);
    }
    if let Some(s) = opt_string_arg(&get(o, "onExhausted")?, "options.onExhausted")? {
        cfg = cfg.on_exhausted(s.parse::<OnExhausted>().or_throw()?);
    }
    if let Some(s) = opt_string_arg(&get(o, "sequenceStart")?, "options.sequenceStart")? {
        cfg = cfg.sequence_start(s.parse::<SequenceStart>().or_throw()?);
    }
    let v = get(o, "seed")?;
    if !is_nullish(&v) {
        cfg = cfg.seed(u64_arg(&v, "options.seed")?);
    }
    let v = get(o, "fenceMs")?;
    if !is_nullish(&v) {
        cfg = cfg.fence_ms(u64_arg(&v, "options.fenceMs")?);
    }
    Ok(cfg)
}

/// The Snowflake config of a named config string, or `ERR_INVALID_CONFIG` for another type.
pub(crate) fn snowflake_config(config: &JsValue, class: &str) -> Result<Config, JsValue> {
    let text = string_arg(config, "config")?;
    let named = NamedConfig::parse(&text).or_throw()?;
    match named.snowflake_config() {
        Some(c) => Ok(*c),
        None => Err(make(
            Class::Error,
            "ERR_INVALID_CONFIG",
            &format!(
                "{class}.fromConfig needs type=snowflake, not type={}; use fromConfig() for any type",
                named.kind()
            ),
            &[],
        )),
    }
}

fn stats_object(s: idmint::Stats) -> JsValue {
    object(&[
        ("rollbacks", JsValue::from(s.rollbacks)),
        ("waitMs", JsValue::from(s.wait_ms)),
        ("maxAheadMs", JsValue::from(s.max_ahead_ms)),
        ("exhaustions", JsValue::from(s.exhaustions)),
    ])
}

fn run_object(r: Run) -> JsValue {
    object(&[
        ("first", JsValue::from(r.first)),
        ("count", JsValue::from_f64(r.count as f64)),
        ("stride", JsValue::from(r.stride)),
    ])
}

/// `id` as a decimal JavaScript string.
fn decimal(id: u64) -> JsValue {
    js_sys::BigInt::from(id)
        .to_string(10)
        .map_or(JsValue::UNDEFINED, JsValue::from)
}

fn not_js_safe(layout: &Layout) -> JsValue {
    make(
        Class::RangeError,
        ERR_NOT_JS_SAFE,
        &format!(
            "nextIdNumber() needs a layout of at most 53 bits (isJsSafe), such as js53; this layout is {} bits wide, so its IDs may exceed Number.MAX_SAFE_INTEGER: use nextId() (a bigint) or nextIdString()",
            layout.width()
        ),
        &[("width", Prop::Num(usize::from(layout.width())))],
    )
}

/// The core's `AtomicSnowflake::next_ids_at`: fills `out` from successive runs reserved at
/// `now_ms` and returns how many were written, failing only if not even one could be issued.
///
/// Only the expansion of each run into IDs is written out here, as a plain loop: the core's
/// version iterates a `zip` of a `map`, which at this crate's `opt-level = "z"` stays an
/// out-of-line `Zip::next` call per ID (about 6 ns per ID in Chromium against under 1 ns).
fn ids_at(gen: &AtomicSnowflake, now_ms: u64, out: &mut [u64]) -> Result<usize, Error> {
    let mut filled = 0;
    while filled < out.len() {
        let run = match gen.reserve_at(now_ms, (out.len() - filled) as u64) {
            Ok(run) => run,
            Err(e) if filled == 0 => return Err(e),
            Err(_) => break,
        };
        let (count, mut id) = (run.count as usize, run.first);
        let mut i = filled;
        while i < filled + count {
            out[i] = id;
            id = id.wrapping_add(run.stride);
            i += 1;
        }
        filled += count;
    }
    Ok(filled)
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
    let ctor = js_sys::Reflect::get(&js_sys::global(), &crate::convert::js_str("BigUint64Array"))?;
    let out = js_sys::Reflect::construct(
        wasm_bindgen::JsCast::unchecked_ref::<js_sys::Function>(&ctor),
        &js_sys::Array::of1(&JsValue::from_f64(n as f64)),
    )
    .map_err(|_| range_error(&format!("cannot allocate an array of {n} IDs")))?;
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

/// A Snowflake generator on the page's clock (`performance.timeOrigin + performance.now()`,
/// re-anchored to `Date.now()` once a second so that steps of the wall clock are followed, or
/// `Date.now()` where `performance` is missing): unique, roughly time-ordered 64-bit IDs as
/// `bigint`s.
///
/// Waiting: when a policy asks to wait (a tick's sequence ran out with `onExhausted: "wait"`),
/// `nextId`, `nextIds` and `reserve` spin on the clock if the wait is at most 10 ms (one tick
/// of a millisecond layout is 1 ms) and otherwise throw `ERR_WOULD_BLOCK` with `untilMs`
/// without waiting; `tryNextId` never waits. A page cannot sleep, so nothing here blocks for
/// long.
///
/// Pages, workers and server processes do not share generators: give each its own node, or two
/// of them will mint the same IDs.
#[wasm_bindgen(js_name = Snowflake)]
pub struct JsSnowflake {
    gen: AtomicSnowflake,
    clock: Clock,
}

impl JsSnowflake {
    /// Builds the clocked generator for `cfg`: draws the seed of `random` sequence starts when
    /// none is given and checks that the layout covers the current time, as the core's std
    /// `Snowflake::with_clock` does.
    pub(crate) fn from_core(mut cfg: Config) -> Result<JsSnowflake, JsValue> {
        let clock = Clock::new();
        if cfg.sequence_start_policy() == SequenceStart::Random && cfg.seed_value() == 0 {
            cfg = cfg.seed(random::u64().or_throw()?);
        }
        cfg.layout().tick_at(clock.now_ms()).or_throw()?;
        Ok(JsSnowflake {
            gen: AtomicSnowflake::new(cfg).or_throw()?,
            clock,
        })
    }

    /// The waiting path of `nextId`: wait (bounded) and try again.
    #[cold]
    #[inline(never)]
    fn next_id_slow(&self, mut e: Error) -> Result<u64, JsValue> {
        for _ in 0..MAX_RETRIES {
            self.clock.wait_or_fail(e).or_throw()?;
            match self.gen.next_id_at(self.clock.now_ms()) {
                Err(again) => e = again,
                ok => return ok.or_throw(),
            }
        }
        Err(e).or_throw()
    }

    /// Core `Snowflake::reserve`: a run of up to `max` IDs, waiting (bounded) if asked.
    fn reserve_run(&self, max: u64) -> Result<Run, Error> {
        let mut last = None;
        for _ in 0..MAX_RETRIES {
            if let Some(e) = last.take() {
                self.clock.wait_or_fail(e)?;
            }
            match self.gen.reserve_at(self.clock.now_ms(), max) {
                Err(e @ Error::WouldBlock { .. }) => last = Some(e),
                r => return r,
            }
        }
        Err(last.unwrap_or(Error::WouldBlock { until_ms: u64::MAX }))
    }

    #[inline]
    fn mint(&self) -> Result<u64, JsValue> {
        match self.gen.next_id_at(self.clock.now_ms()) {
            Ok(id) => Ok(id),
            Err(e) => self.next_id_slow(e),
        }
    }
}

#[wasm_bindgen(js_class = Snowflake)]
impl JsSnowflake {
    /// Builds a generator on `options.node`, which has no default (default layout `twitter`,
    /// `wait:1000`, `wait`, `zero`). Throws `ERR_NODE_REQUIRED` without a node (the message
    /// says how to choose one), `ERR_INVALID_LAYOUT`, `ERR_INVALID_CONFIG`, `ERR_OUT_OF_RANGE`
    /// (node too large), `ERR_BEFORE_EPOCH` (epoch in the future) or `ERR_LAYOUT_EXPIRED`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "SnowflakeOptions")] options: JsValue,
    ) -> Result<JsSnowflake, JsValue> {
        JsSnowflake::from_core(config_from_options(&options)?)
    }

    /// Builds a generator from a named config (`type=snowflake,layout=twitter,node=5,...` or
    /// its JSON form).
    #[wasm_bindgen(js_name = fromConfig)]
    pub fn from_config(
        #[wasm_bindgen(unchecked_param_type = "string")] config: JsValue,
    ) -> Result<JsSnowflake, JsValue> {
        JsSnowflake::from_core(snowflake_config(&config, "Snowflake")?)
    }

    /// The next ID, as a `bigint`.
    #[wasm_bindgen(js_name = nextId)]
    pub fn next_id(&self) -> u64 {
        // Per-ID methods return plain values (see `crate::errors::stash`): a `Result` would
        // come back to JavaScript as a multi-value array, about 25 ns of a 100 ns call.
        self.mint().unwrap_or_else(stash)
    }

    /// The next ID as a decimal string, for JSON and other places that lose digits of numbers.
    #[wasm_bindgen(js_name = nextIdString, unchecked_return_type = "string")]
    pub fn next_id_string(&self) -> JsValue {
        // Formatted by JavaScript (`bigint.toString()`): a string made in Rust would cross
        // through a TextDecoder, which costs about a microsecond in Chromium.
        match self.mint() {
            Ok(id) => decimal(id),
            Err(e) => stash(e),
        }
    }

    /// The next ID as a `number`, for JS-safe layouts (width ≤ 53, such as `js53`) only; throws
    /// a `RangeError` with code `ERR_NOT_JS_SAFE` on any other layout, before minting.
    #[wasm_bindgen(js_name = nextIdNumber)]
    pub fn next_id_number(&self) -> f64 {
        let layout = self.gen.config().layout();
        if !layout.is_js_safe() {
            return stash(not_js_safe(layout));
        }
        // Below 2^53: exact as an f64.
        self.mint().map(|id| id as f64).unwrap_or_else(stash)
    }

    /// The next ID without waiting: throws `ERR_WOULD_BLOCK` (with `untilMs`) where `nextId`
    /// would wait.
    #[wasm_bindgen(js_name = tryNextId)]
    pub fn try_next_id(&self) -> u64 {
        self.gen
            .next_id_at(self.clock.now_ms())
            .or_throw()
            .unwrap_or_else(stash)
    }

    /// `n` fresh IDs in a `BigUint64Array`, filled in Rust one tick at a time (waiting between
    /// ticks as `nextId` does). `n` is at most 2^24 (`ERR_LIMIT_EXCEEDED` beyond).
    #[wasm_bindgen(js_name = nextIds)]
    pub fn next_ids(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] n: JsValue,
    ) -> Result<BigUint64Array, JsValue> {
        let n = batch_arg(&n)?;
        biguint64_array(
            n,
            |out| {
                let mut last = None;
                for _ in 0..MAX_RETRIES {
                    if let Some(e) = last.take() {
                        self.clock.wait_or_fail(e).or_throw()?;
                    }
                    match ids_at(&self.gen, self.clock.now_ms(), out) {
                        Err(e @ Error::WouldBlock { .. }) => last = Some(e),
                        r => return r.or_throw(),
                    }
                }
                Err(last.unwrap_or(Error::WouldBlock { until_ms: u64::MAX })).or_throw()
            },
            false,
        )
    }

    /// Reserves a run of up to `max` IDs from one tick with a single swap (waiting if needed).
    pub fn reserve(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] max: JsValue,
    ) -> Result<JsValue, JsValue> {
        let max = u64_arg(&max, "max")?;
        self.reserve_run(max).or_throw().map(run_object)
    }

    /// The sans-IO call: mints at `nowMs` as given (for replays and tests), never waits;
    /// throws `ERR_WOULD_BLOCK` with `untilMs` when no ID can be issued before then.
    #[wasm_bindgen(js_name = nextIdAt)]
    pub fn next_id_at(
        &self,
        #[wasm_bindgen(js_name = nowMs, unchecked_param_type = "bigint | number")] now_ms: JsValue,
    ) -> Result<u64, JsValue> {
        let now = u64_arg(&now_ms, "nowMs")?;
        self.gen.next_id_at(now).or_throw()
    }

    /// Splits an ID of this generator's layout into its fields.
    #[wasm_bindgen(unchecked_return_type = "Parts")]
    pub fn decode(
        &self,
        #[wasm_bindgen(unchecked_param_type = "bigint | number | string")] id: JsValue,
    ) -> Result<JsValue, JsValue> {
        let id = id_arg(&id, "id")?;
        decompose(self.gen.config().layout(), id)
    }

    /// The generator's counters.
    #[wasm_bindgen(unchecked_return_type = "Stats")]
    pub fn stats(&self) -> JsValue {
        stats_object(self.gen.stats())
    }

    /// Gives the generator another node (a number/bigint, or the sub-fields by name).
    #[wasm_bindgen(js_name = setNode)]
    pub fn set_node(
        &self,
        #[wasm_bindgen(unchecked_param_type = "bigint | number | Record<string, bigint | number>")]
        node: JsValue,
    ) -> Result<(), JsValue> {
        let node = node_arg(&node, self.gen.config().layout(), "node")?;
        self.gen.set_node(node).or_throw()
    }

    /// The current node value.
    #[wasm_bindgen(getter)]
    pub fn node(&self) -> u64 {
        self.gen.node()
    }

    /// The layout.
    #[wasm_bindgen(getter)]
    pub fn layout(&self) -> JsLayout {
        JsLayout {
            inner: *self.gen.config().layout(),
        }
    }

    /// The canonical named config this generator was built from (with its first node).
    #[wasm_bindgen(getter)]
    pub fn config(&self) -> String {
        NamedConfig::Snowflake(*self.gen.config()).to_string()
    }

    /// The deepest step back (in ticks) `rollback_counter` can bridge, or `null`.
    #[wasm_bindgen(getter, js_name = maxRollbackTicks, unchecked_return_type = "bigint | null")]
    pub fn max_rollback_ticks(&self) -> JsValue {
        self.gen
            .config()
            .max_rollback_ticks()
            .map_or(JsValue::NULL, JsValue::from)
    }

    /// Internal: which time source this generator reads (`"performance"` or `"Date"`).
    #[wasm_bindgen(getter, js_name = "__timeSource", skip_typescript)]
    pub fn time_source(&self) -> String {
        self.clock.source().to_owned()
    }
}

/// The lock-free, sans-IO generator: pass `nowMs` to every call. No clock, no waiting —
/// `ERR_WOULD_BLOCK` tells when to call again. Same results as the core's generators, so it
/// replays the shared test vectors exactly.
#[wasm_bindgen(js_name = AtomicSnowflake)]
pub struct JsAtomicSnowflake {
    inner: AtomicSnowflake,
}

#[wasm_bindgen(js_class = AtomicSnowflake)]
impl JsAtomicSnowflake {
    /// Builds a generator from the same options as `Snowflake` (`node` required).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "SnowflakeOptions")] options: JsValue,
    ) -> Result<JsAtomicSnowflake, JsValue> {
        let cfg = config_from_options(&options)?;
        Ok(JsAtomicSnowflake {
            inner: AtomicSnowflake::new(cfg).or_throw()?,
        })
    }

    /// Builds a generator from a named config (`type=snowflake,...`).
    #[wasm_bindgen(js_name = fromConfig)]
    pub fn from_config(
        #[wasm_bindgen(unchecked_param_type = "string")] config: JsValue,
    ) -> Result<JsAtomicSnowflake, JsValue> {
        let cfg = snowflake_config(&config, "AtomicSnowflake")?;
        Ok(JsAtomicSnowflake {
            inner: AtomicSnowflake::new(cfg).or_throw()?,
        })
    }

    /// Mints one ID at `nowMs`, or throws `ERR_WOULD_BLOCK` (with `untilMs`) or why not.
    #[wasm_bindgen(js_name = nextIdAt)]
    pub fn next_id_at(
        &self,
        #[wasm_bindgen(js_name = nowMs, unchecked_param_type = "bigint | number")] now_ms: JsValue,
    ) -> Result<u64, JsValue> {
        let now = u64_arg(&now_ms, "nowMs")?;
        self.inner.next_id_at(now).or_throw()
    }

    /// Reserves a run of up to `max` IDs from one tick at `nowMs`.
    #[wasm_bindgen(js_name = reserveAt, unchecked_return_type = "Run")]
    pub fn reserve_at(
        &self,
        #[wasm_bindgen(js_name = nowMs, unchecked_param_type = "bigint | number")] now_ms: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] max: JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = u64_arg(&now_ms, "nowMs")?;
        let max = u64_arg(&max, "max")?;
        self.inner.reserve_at(now, max).or_throw().map(run_object)
    }

    /// Up to `n` IDs at `nowMs` (fewer when the policy asks to wait); throws only if not even
    /// one could be issued.
    #[wasm_bindgen(js_name = nextIdsAt)]
    pub fn next_ids_at(
        &self,
        #[wasm_bindgen(js_name = nowMs, unchecked_param_type = "bigint | number")] now_ms: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] n: JsValue,
    ) -> Result<BigUint64Array, JsValue> {
        let now = u64_arg(&now_ms, "nowMs")?;
        let n = batch_arg(&n)?;
        let mut first = true;
        biguint64_array(
            n,
            |out| {
                // Only the first chunk may fail; later ones end the batch quietly.
                let r = ids_at(&self.inner, now, out);
                let first_chunk = std::mem::replace(&mut first, false);
                match r {
                    Ok(k) => Ok(k),
                    Err(e) if first_chunk => Err(e).or_throw(),
                    Err(_) => Ok(0),
                }
            },
            true,
        )
    }

    /// Splits an ID of this generator's layout into its fields.
    #[wasm_bindgen(unchecked_return_type = "Parts")]
    pub fn decode(
        &self,
        #[wasm_bindgen(unchecked_param_type = "bigint | number | string")] id: JsValue,
    ) -> Result<JsValue, JsValue> {
        let id = id_arg(&id, "id")?;
        decompose(self.inner.config().layout(), id)
    }

    /// The generator's counters.
    #[wasm_bindgen(unchecked_return_type = "Stats")]
    pub fn stats(&self) -> JsValue {
        stats_object(self.inner.stats())
    }

    /// Gives the generator another node.
    #[wasm_bindgen(js_name = setNode)]
    pub fn set_node(
        &self,
        #[wasm_bindgen(unchecked_param_type = "bigint | number | Record<string, bigint | number>")]
        node: JsValue,
    ) -> Result<(), JsValue> {
        let node = node_arg(&node, self.inner.config().layout(), "node")?;
        self.inner.set_node(node).or_throw()
    }

    /// The current node value.
    #[wasm_bindgen(getter)]
    pub fn node(&self) -> u64 {
        self.inner.node()
    }

    /// The layout.
    #[wasm_bindgen(getter)]
    pub fn layout(&self) -> JsLayout {
        JsLayout {
            inner: *self.inner.config().layout(),
        }
    }

    /// The canonical named config this generator was built from (with its first node).
    #[wasm_bindgen(getter)]
    pub fn config(&self) -> String {
        NamedConfig::Snowflake(*self.inner.config()).to_string()
    }

    /// The deepest step back (in ticks) `rollback_counter` can bridge, or `null`.
    #[wasm_bindgen(getter, js_name = maxRollbackTicks, unchecked_return_type = "bigint | null")]
    pub fn max_rollback_ticks(&self) -> JsValue {
        self.inner
            .config()
            .max_rollback_ticks()
            .map_or(JsValue::NULL, JsValue::from)
    }
}

/// A node value drawn uniformly from `0..=layout.maxNode` with `crypto.getRandomValues`, for
/// clients that cannot be given a node by a server. Uniqueness is then probabilistic: see the
/// README for the collision odds and for leasing nodes instead.
#[wasm_bindgen(js_name = randomNode)]
pub fn random_node(
    #[wasm_bindgen(unchecked_param_type = "Layout | string")] layout: JsValue,
) -> Result<u64, JsValue> {
    let layout = layout_arg(&layout, "layout")?;
    Ok(random::u64().or_throw()? & layout.max_node())
}
