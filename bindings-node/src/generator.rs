//! `Snowflake` (the clocked, fork-detecting front door) and `AtomicSnowflake` (sans-IO, for
//! replays and callers that bring their own clock), with the `Stats` and `Run` objects they return.
//!
//! Both wrap the core's lock-free generator. A JavaScript object lives in one thread (one
//! isolate), so a generator is never shared between `worker_threads`: each worker builds its
//! own, and must be given its own node — see the README.

use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;

use idmint::named::NamedConfig;
use idmint::{
    preset, AtomicSnowflake as CoreAtomicSnowflake, Config, Layout as CoreLayout, OnBackwards,
    OnExhausted, Run as CoreRun, SequenceStart, Snowflake as CoreSnowflake,
};
use napi::bindgen_prelude::{JavaScriptClassExt, This, Unknown};
use napi::{sys, Env, JsValue};
use napi_derive::napi;

use crate::convert::{
    batch_arg, expect_object, get, id_arg, is_nullish, layout_arg, node_arg, only_keys,
    opt_string_arg, string_arg, u64_arg,
};
use crate::errors::{range_error, throw, Class, OrThrow, Prop, ERR_NOT_JS_SAFE};
use crate::fast;
use crate::layout::{decompose, Layout, Parts};

/// Options of `new Snowflake(...)` and `new AtomicSnowflake(...)`. Every key is optional.
#[napi(object, object_from_js = false, object_to_js = false)]
#[allow(dead_code)] // describes the argument for index.d.ts; the binding reads it key by key
pub struct SnowflakeOptions {
    /// A `Layout`, a preset name or a text spec. Default `"twitter"`.
    #[napi(ts_type = "Layout | string")]
    pub layout: Option<String>,
    /// The whole node value, or the node sub-fields by name (`{ datacenter: 1, worker: 2 }`).
    /// Required: without it the constructor throws `ERR_NODE_REQUIRED` (two processes on one
    /// node mint the same IDs). Give every process and every worker thread its own node, or
    /// lease one with `new LeasedSnowflake('local')`.
    #[napi(ts_type = "bigint | number | Record<string, bigint | number>")]
    pub node: Option<u64>,
    /// When the clock steps back: `fail`, `wait:MS`, `logical:MS`, `rollback_counter`,
    /// `ring:TICKS`. Default `wait:1000`.
    pub on_backwards: Option<String>,
    /// When a tick's sequence runs out: `wait`, `borrow:TICKS`, `fail`. Default `wait`.
    pub on_exhausted: Option<String>,
    /// Where each tick's sequence starts: `zero`, `random`, `vibrate:K`. Default `zero`.
    pub sequence_start: Option<String>,
    /// Seed of `random` sequence starts (drawn from the OS when 0 or absent, for `Snowflake`).
    #[napi(ts_type = "bigint | number")]
    pub seed: Option<u64>,
    /// Time fence: the last time (Unix ms) a previous holder of this node may have issued.
    #[napi(ts_type = "bigint | number")]
    pub fence_ms: Option<u64>,
}

pub(crate) const OPTION_KEYS: &[&str] = &[
    "layout",
    "node",
    "onBackwards",
    "onExhausted",
    "sequenceStart",
    "seed",
    "fenceMs",
];

/// Reads the options object into a core `Config` (validated later by the generator).
pub(crate) fn config_from_options(env: &Env, options: Option<Unknown<'_>>) -> napi::Result<Config> {
    let Some(o) = options else {
        return Ok(Config::new(preset::twitter()));
    };
    if is_nullish(&o)? {
        return Ok(Config::new(preset::twitter()));
    }
    expect_object(env, &o, "options")?;
    only_keys(env, &o, "options", OPTION_KEYS)?;
    config_from_object(env, &o)
}

/// Reads the generator keys of an options object (already checked to be an object with known
/// keys only) into a core `Config`.
pub(crate) fn config_from_object(env: &Env, o: &Unknown<'_>) -> napi::Result<Config> {
    let o = *o;
    let v = get(env, &o, c"layout")?;
    let layout: CoreLayout = if is_nullish(&v)? {
        preset::twitter()
    } else {
        layout_arg(env, &v, "options.layout")?
    };
    let mut cfg = Config::new(layout);
    let v = get(env, &o, c"node")?;
    if !is_nullish(&v)? {
        cfg = cfg.node(node_arg(env, &v, &layout, "options.node")?);
    }
    if let Some(s) = opt_string_arg(
        env,
        Some(&get(env, &o, c"onBackwards")?),
        "options.onBackwards",
    )? {
        cfg = cfg.on_backwards(s.parse::<OnBackwards>().or_throw(env)?);
    }
    if let Some(s) = opt_string_arg(
        env,
        Some(&get(env, &o, c"onExhausted")?),
        "options.onExhausted",
    )? {
        cfg = cfg.on_exhausted(s.parse::<OnExhausted>().or_throw(env)?);
    }
    if let Some(s) = opt_string_arg(
        env,
        Some(&get(env, &o, c"sequenceStart")?),
        "options.sequenceStart",
    )? {
        cfg = cfg.sequence_start(s.parse::<SequenceStart>().or_throw(env)?);
    }
    let v = get(env, &o, c"seed")?;
    if !is_nullish(&v)? {
        cfg = cfg.seed(u64_arg(env, &v, "options.seed")?);
    }
    let v = get(env, &o, c"fenceMs")?;
    if !is_nullish(&v)? {
        cfg = cfg.fence_ms(u64_arg(env, &v, "options.fenceMs")?);
    }
    Ok(cfg)
}

/// The Snowflake config of a named config string, or `ERR_INVALID_CONFIG` for another type.
pub(crate) fn snowflake_config(
    env: &Env,
    config: &Unknown<'_>,
    class: &str,
) -> napi::Result<Config> {
    let text = string_arg(env, config, "config")?;
    let named = NamedConfig::parse(&text).or_throw(env)?;
    match named.snowflake_config() {
        Some(c) => Ok(*c),
        None => Err(throw(
            env,
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

/// A generator's counters (all `bigint`).
#[napi(object, object_from_js = false)]
pub struct Stats {
    /// Calls that found the clock behind the last issued tick.
    pub rollbacks: u64,
    /// Total waiting asked of callers, in ms.
    pub wait_ms: u64,
    /// Furthest the generator has run ahead of the clock (borrow, logical), in ms.
    pub max_ahead_ms: u64,
    /// Times a tick's sequence ran out.
    pub exhaustions: u64,
}

impl From<idmint::Stats> for Stats {
    fn from(s: idmint::Stats) -> Self {
        Stats {
            rollbacks: s.rollbacks,
            wait_ms: s.wait_ms,
            max_ahead_ms: s.max_ahead_ms,
            exhaustions: s.exhaustions,
        }
    }
}

/// A run of IDs reserved with one swap: `first`, `first + stride`, ... (`count` of them).
#[napi(object, object_from_js = false)]
pub struct Run {
    /// The first ID.
    pub first: u64,
    /// How many IDs the run holds (at least 1).
    pub count: f64,
    /// Distance between consecutive IDs.
    pub stride: u64,
}

impl From<CoreRun> for Run {
    fn from(r: CoreRun) -> Self {
        Run {
            first: r.first,
            count: r.count as f64,
            stride: r.stride,
        }
    }
}

/// A `BigUint64Array` of `n` slots filled by `fill`, which returns how many it wrote (the
/// array has that length). The IDs are written straight into the array's memory: no per-ID
/// JavaScript objects.
pub(crate) fn biguint64_array<'e>(
    env: &'e Env,
    n: usize,
    fill: impl FnOnce(&mut [u64]) -> napi::Result<usize>,
) -> napi::Result<Unknown<'e>> {
    let raw = env.raw();
    let mut data: *mut c_void = ptr::null_mut();
    let mut buffer = ptr::null_mut();
    // SAFETY: valid out pointers; the size cannot overflow (n <= MAX_BATCH, 2^24).
    let st = unsafe { sys::napi_create_arraybuffer(raw, n * 8, &mut data, &mut buffer) };
    if st != sys::Status::napi_ok {
        let mut pending = ptr::null_mut();
        // SAFETY: clears the engine's own allocation error, if any, to throw ours instead.
        unsafe { sys::napi_get_and_clear_last_exception(raw, &mut pending) };
        return Err(range_error(
            env,
            &format!("cannot allocate an array of {n} IDs"),
        ));
    }
    let written = if n == 0 || data.is_null() {
        fill(&mut [])?
    } else if data.cast::<u64>().is_aligned() {
        // SAFETY: the buffer holds n * 8 bytes, suitably aligned, and nothing else refers to
        // its memory until the typed array below is created.
        let slots = unsafe { std::slice::from_raw_parts_mut(data.cast::<u64>(), n) };
        fill(slots)?
    } else {
        let mut v = vec![0u64; n];
        let k = fill(&mut v)?;
        // SAFETY: the buffer holds n * 8 bytes; `v` as many.
        unsafe { ptr::copy_nonoverlapping(v.as_ptr().cast::<u8>(), data.cast::<u8>(), n * 8) };
        k
    };
    let mut array = ptr::null_mut();
    // SAFETY: `buffer` holds at least `written` (<= n) u64s from offset 0.
    let st = unsafe {
        sys::napi_create_typedarray(
            raw,
            sys::TypedarrayType::biguint64_array,
            written.min(n),
            buffer,
            0,
            &mut array,
        )
    };
    if st != sys::Status::napi_ok {
        return Err(range_error(
            env,
            &format!("cannot create an array of {n} IDs"),
        ));
    }
    // SAFETY: `array` is a value of this env.
    Ok(unsafe { Unknown::from_raw_unchecked(raw, array) })
}

pub(crate) fn not_js_safe(env: &Env, layout: &CoreLayout) -> napi::Error {
    throw(
        env,
        Class::RangeError,
        ERR_NOT_JS_SAFE,
        &format!(
            "nextIdNumber() needs a layout of at most 53 bits (isJsSafe), such as js53; this layout is {} bits wide, so its IDs may exceed Number.MAX_SAFE_INTEGER: use nextId() (a bigint) or nextIdString()",
            layout.width()
        ),
        &[(c"width", Prop::Num(usize::from(layout.width())))],
    )
}

/// A Snowflake generator on the system clock: unique, roughly time-ordered 64-bit IDs as
/// `bigint`s.
///
/// It carries the wall clock on the monotonic clock and re-reads it once a second, following its
/// steps (a step back meets the `onBackwards` policy within a second). When a policy asks
/// to wait (a tick's sequence ran out with `onExhausted: "wait"`, or a short clock step back
/// with `onBackwards: "wait:MS"`), `nextId` and `nextIds` sleep on the calling thread — at most
/// one tick for exhaustion; use `tryNextId` to get `ERR_WOULD_BLOCK` instead.
///
/// Processes and worker threads do not share generators: give each its own node, or two of
/// them will mint the same IDs.
#[napi]
pub struct Snowflake {
    /// Shared with the instance's own fast-path functions (see [`crate::fast`]).
    pub(crate) inner: Arc<CoreSnowflake>,
}

#[napi]
impl Snowflake {
    /// Builds a generator on `options.node`, which has no default (default layout `twitter`,
    /// `wait:1000`, `wait`, `zero`). Throws `ERR_NODE_REQUIRED` without a node (the message
    /// says how to choose one), `ERR_INVALID_LAYOUT`, `ERR_INVALID_CONFIG`, `ERR_OUT_OF_RANGE`
    /// (node too large), `ERR_BEFORE_EPOCH` (epoch in the future) or `ERR_LAYOUT_EXPIRED`.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: &Env,
        this: This<'_>,
        #[napi(ts_arg_type = "SnowflakeOptions")] options: Option<Unknown<'_>>,
    ) -> napi::Result<Self> {
        let cfg = config_from_options(env, options)?;
        let inner = Arc::new(CoreSnowflake::new(cfg).or_throw(env)?);
        fast::adopt(env, this.object.raw(), &inner)?;
        Ok(Snowflake { inner })
    }

    /// Builds a generator from a named config (`type=snowflake,layout=twitter,node=5,...` or
    /// its JSON form).
    #[napi(catch_unwind, ts_return_type = "Snowflake")]
    pub fn from_config<'e>(
        env: &'e Env,
        #[napi(ts_arg_type = "string")] config: Unknown<'_>,
    ) -> napi::Result<Unknown<'e>> {
        let cfg = snowflake_config(env, &config, "Snowflake")?;
        Snowflake::instance(env, cfg)
    }

    /// A new JavaScript `Snowflake` for `cfg`, with its fast paths (for factories, which do not
    /// run the constructor).
    pub(crate) fn instance(env: &Env, cfg: Config) -> napi::Result<Unknown<'_>> {
        let inner = Arc::new(CoreSnowflake::new(cfg).or_throw(env)?);
        let obj = Snowflake {
            inner: Arc::clone(&inner),
        }
        .into_instance(env)?;
        fast::adopt(env, obj.value, &inner)?;
        // SAFETY: `obj.value` is the object just created in this env.
        Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), obj.value) })
    }

    // `nextId`, `nextIdString`, `nextIdNumber` and `tryNextId` below declare the methods for
    // index.d.ts; at load, `crate::fast` replaces them with plain Node-API callbacks (napi-rs's
    // generated glue costs ~400 ns per call), which call the same core methods.

    /// The next ID, as a `bigint`.
    #[napi(catch_unwind)]
    pub fn next_id(&self, env: &Env) -> napi::Result<u64> {
        self.inner.next_id().or_throw(env)
    }

    /// The next ID as a decimal string, for JSON and other places that lose digits of numbers.
    #[napi(catch_unwind)]
    pub fn next_id_string(&self, env: &Env) -> napi::Result<String> {
        self.inner.next_id().or_throw(env).map(|id| id.to_string())
    }

    /// The next ID as a `number`, for JS-safe layouts (width ≤ 53, such as `js53`) only; throws
    /// a `RangeError` with code `ERR_NOT_JS_SAFE` on any other layout, before minting.
    #[napi(catch_unwind)]
    pub fn next_id_number(&self, env: &Env) -> napi::Result<f64> {
        let layout = self.inner.config().layout();
        if !layout.is_js_safe() {
            return Err(not_js_safe(env, layout));
        }
        // Below 2^53: exact as an f64.
        self.inner.next_id().or_throw(env).map(|id| id as f64)
    }

    /// The next ID without waiting: throws `ERR_WOULD_BLOCK` (with `untilMs`) where `nextId`
    /// would sleep.
    #[napi(catch_unwind)]
    pub fn try_next_id(&self, env: &Env) -> napi::Result<u64> {
        self.inner.try_next_id().or_throw(env)
    }

    /// `n` fresh IDs in a `BigUint64Array`, filled in Rust one tick at a time (waiting between
    /// ticks as needed). `n` is at most 2^24 (`ERR_LIMIT_EXCEEDED` beyond).
    #[napi(catch_unwind, ts_return_type = "BigUint64Array")]
    pub fn next_ids<'e>(
        &self,
        env: &'e Env,
        #[napi(ts_arg_type = "number")] n: Unknown<'_>,
    ) -> napi::Result<Unknown<'e>> {
        let n = batch_arg(env, &n)?;
        biguint64_array(env, n, |out| {
            self.inner.next_ids(out).or_throw(env).map(|()| out.len())
        })
    }

    /// Reserves a run of up to `max` IDs from one tick with a single swap (waiting if needed).
    #[napi(catch_unwind)]
    pub fn reserve(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "number")] max: Unknown<'_>,
    ) -> napi::Result<Run> {
        let max = u64_arg(env, &max, "max")?;
        self.inner.reserve(max).or_throw(env).map(Run::from)
    }

    /// The sans-IO call: mints at `nowMs` as given (for replays and tests), never waits;
    /// throws `ERR_WOULD_BLOCK` with `untilMs` when no ID can be issued before then.
    #[napi(catch_unwind)]
    pub fn next_id_at(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number")] now_ms: Unknown<'_>,
    ) -> napi::Result<u64> {
        let now = u64_arg(env, &now_ms, "nowMs")?;
        self.inner.next_id_at(now).or_throw(env)
    }

    /// Splits an ID of this generator's layout into its fields.
    #[napi(catch_unwind)]
    pub fn decode(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number | string")] id: Unknown<'_>,
    ) -> napi::Result<Parts> {
        let id = id_arg(env, &id, "id")?;
        decompose(env, self.inner.config().layout(), id)
    }

    /// The generator's counters.
    #[napi(catch_unwind)]
    pub fn stats(&self) -> Stats {
        self.inner.stats().into()
    }

    /// Gives the generator another node (a number/bigint, or the sub-fields by name).
    #[napi(catch_unwind)]
    pub fn set_node(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number | Record<string, bigint | number>")] node: Unknown<
            '_,
        >,
    ) -> napi::Result<()> {
        let node = node_arg(env, &node, self.inner.config().layout(), "node")?;
        self.inner.set_node(node).or_throw(env)
    }

    /// The current node value.
    #[napi(getter, catch_unwind)]
    pub fn node(&self) -> u64 {
        self.inner.node()
    }

    /// The layout.
    #[napi(getter, catch_unwind)]
    pub fn layout(&self) -> Layout {
        Layout {
            inner: *self.inner.config().layout(),
        }
    }

    /// The canonical named config this generator was built from (with its first node).
    #[napi(getter, catch_unwind)]
    pub fn config(&self) -> String {
        NamedConfig::Snowflake(*self.inner.config()).to_string()
    }

    /// The deepest step back (in ticks) `rollback_counter` can bridge, or `null`.
    #[napi(getter, catch_unwind)]
    pub fn max_rollback_ticks(&self) -> Option<u64> {
        self.inner.config().max_rollback_ticks()
    }
}

/// The lock-free, sans-IO generator: pass `nowMs` to every call. No clock, no waiting, no fork
/// check — `ERR_WOULD_BLOCK` tells when to call again. Same results as the core's generators,
/// so it replays the shared test vectors exactly.
#[napi]
pub struct AtomicSnowflake {
    inner: CoreAtomicSnowflake,
}

#[napi]
impl AtomicSnowflake {
    /// Builds a generator from the same options as `Snowflake` (`node` required).
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: &Env,
        #[napi(ts_arg_type = "SnowflakeOptions")] options: Option<Unknown<'_>>,
    ) -> napi::Result<Self> {
        let cfg = config_from_options(env, options)?;
        Ok(AtomicSnowflake {
            inner: CoreAtomicSnowflake::new(cfg).or_throw(env)?,
        })
    }

    /// Builds a generator from a named config (`type=snowflake,...`).
    #[napi(factory, catch_unwind)]
    pub fn from_config(
        env: &Env,
        #[napi(ts_arg_type = "string")] config: Unknown<'_>,
    ) -> napi::Result<Self> {
        let cfg = snowflake_config(env, &config, "AtomicSnowflake")?;
        Ok(AtomicSnowflake {
            inner: CoreAtomicSnowflake::new(cfg).or_throw(env)?,
        })
    }

    /// Mints one ID at `nowMs`, or throws `ERR_WOULD_BLOCK` (with `untilMs`) or why not.
    #[napi(catch_unwind)]
    pub fn next_id_at(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number")] now_ms: Unknown<'_>,
    ) -> napi::Result<u64> {
        let now = u64_arg(env, &now_ms, "nowMs")?;
        self.inner.next_id_at(now).or_throw(env)
    }

    /// Reserves a run of up to `max` IDs from one tick at `nowMs`.
    #[napi(catch_unwind)]
    pub fn reserve_at(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number")] now_ms: Unknown<'_>,
        #[napi(ts_arg_type = "number")] max: Unknown<'_>,
    ) -> napi::Result<Run> {
        let now = u64_arg(env, &now_ms, "nowMs")?;
        let max = u64_arg(env, &max, "max")?;
        self.inner.reserve_at(now, max).or_throw(env).map(Run::from)
    }

    /// Up to `n` IDs at `nowMs` (fewer when the policy asks to wait); throws only if not even
    /// one could be issued.
    #[napi(catch_unwind, ts_return_type = "BigUint64Array")]
    pub fn next_ids_at<'e>(
        &self,
        env: &'e Env,
        #[napi(ts_arg_type = "bigint | number")] now_ms: Unknown<'_>,
        #[napi(ts_arg_type = "number")] n: Unknown<'_>,
    ) -> napi::Result<Unknown<'e>> {
        let now = u64_arg(env, &now_ms, "nowMs")?;
        let n = batch_arg(env, &n)?;
        biguint64_array(env, n, |out| self.inner.next_ids_at(now, out).or_throw(env))
    }

    /// Splits an ID of this generator's layout into its fields.
    #[napi(catch_unwind)]
    pub fn decode(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number | string")] id: Unknown<'_>,
    ) -> napi::Result<Parts> {
        let id = id_arg(env, &id, "id")?;
        decompose(env, self.inner.config().layout(), id)
    }

    /// The generator's counters.
    #[napi(catch_unwind)]
    pub fn stats(&self) -> Stats {
        self.inner.stats().into()
    }

    /// Gives the generator another node.
    #[napi(catch_unwind)]
    pub fn set_node(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number | Record<string, bigint | number>")] node: Unknown<
            '_,
        >,
    ) -> napi::Result<()> {
        let node = node_arg(env, &node, self.inner.config().layout(), "node")?;
        self.inner.set_node(node).or_throw(env)
    }

    /// The current node value.
    #[napi(getter, catch_unwind)]
    pub fn node(&self) -> u64 {
        self.inner.node()
    }

    /// The layout.
    #[napi(getter, catch_unwind)]
    pub fn layout(&self) -> Layout {
        Layout {
            inner: *self.inner.config().layout(),
        }
    }

    /// The canonical named config this generator was built from (with its first node).
    #[napi(getter, catch_unwind)]
    pub fn config(&self) -> String {
        NamedConfig::Snowflake(*self.inner.config()).to_string()
    }

    /// The deepest step back (in ticks) `rollback_counter` can bridge, or `null`.
    #[napi(getter, catch_unwind)]
    pub fn max_rollback_ticks(&self) -> Option<u64> {
        self.inner.config().max_rollback_ticks()
    }
}
