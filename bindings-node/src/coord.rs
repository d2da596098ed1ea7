//! The coordination crate (`idmint-coord`): `LeasedSnowflake`, a Snowflake generator whose node
//! is leased from a store (`local`, `file:DIR`, `redis://...`, `postgres://...`) or given by a fixed
//! node source (`static:N`, `env:NAME`, `ip`, `random`), and `SegmentAllocator`, IDs per key
//! from ranges of a segment store (`sqlite:PATH`, `postgres://...`, `redis://...`).
//!
//! The calls are synchronous, like the rest of the package: the constructors and `close()` make
//! a store round trip (bounded by the store's timeout), and a call waits only where the Rust
//! API does (a policy wait; a segment key whose two buffers are empty). Lease renewal and
//! segment prefetching run on the crate's own background threads, never on the JavaScript
//! thread. A closed object throws an `Error` with code `ERR_CLOSED`.

use std::time::{Duration, Instant};

use idmint::segment::SegmentConfig;
use idmint_coord::leased::{LeaseOptions, LeasedSnowflake as CoreLeased};
use idmint_coord::segment::{open_store, SegmentAllocator as CoreAllocator, SegmentStore};
use napi::bindgen_prelude::Unknown;
use napi::{Env, ValueType};
use napi_derive::napi;

use crate::convert::{
    batch_arg, bounded_arg, expect_object, get, id_arg, is_nullish, only_keys, opt_string_arg,
    string_arg, type_of, u64_arg, unwrap_tagged,
};
use crate::errors::{throw, type_error, Class, OrThrow};
use crate::generator::{biguint64_array, config_from_object, Stats, OPTION_KEYS};
use crate::layout::{decompose, Layout, Parts};
use crate::obfuscate::Obfuscator;

/// Code of calls on a `LeasedSnowflake` or `SegmentAllocator` after `close()`.
const ERR_CLOSED: &str = "ERR_CLOSED";

fn closed(env: &Env, what: &str) -> napi::Error {
    throw(
        env,
        Class::Error,
        ERR_CLOSED,
        &format!("{what} is closed"),
        &[],
    )
}

/// An optional `u64` option (`undefined` / `null`: absent).
fn opt_u64(
    env: &Env,
    o: &Unknown<'_>,
    key: &std::ffi::CStr,
    what: &str,
) -> napi::Result<Option<u64>> {
    let v = get(env, o, key)?;
    if is_nullish(&v)? {
        return Ok(None);
    }
    u64_arg(env, &v, what).map(Some)
}

/// Options of `new LeasedSnowflake(source, options)`: the generator's (as for `Snowflake`,
/// without `node`, which the source decides) and the lease's. Every key is optional.
#[napi(object, object_from_js = false, object_to_js = false)]
#[allow(dead_code)] // describes the argument for index.d.ts; the binding reads it key by key
pub struct LeasedSnowflakeOptions {
    /// A `Layout`, a preset name or a text spec. Default `"twitter"`.
    #[napi(ts_type = "Layout | string")]
    pub layout: Option<String>,
    /// When the clock steps back (also behind the node's time fence): `fail`, `wait:MS`,
    /// `logical:MS`, `rollback_counter`, `ring:TICKS`. Default `wait:1000`.
    pub on_backwards: Option<String>,
    /// When a tick's sequence runs out: `wait`, `borrow:TICKS`, `fail`. Default `wait`.
    pub on_exhausted: Option<String>,
    /// Where each tick's sequence starts: `zero`, `random`, `vibrate:K`. Default `zero`.
    pub sequence_start: Option<String>,
    /// Seed of `random` sequence starts (drawn from the OS when 0 or absent).
    #[napi(ts_type = "bigint | number")]
    pub seed: Option<u64>,
    /// An extra time fence (Unix ms), on top of the node's recorded one.
    #[napi(ts_type = "bigint | number")]
    pub fence_ms: Option<u64>,
    /// Separates unrelated node spaces in one store (`[A-Za-z0-9_.-]`, 1 to 64 bytes).
    /// Default `"default"`.
    pub namespace: Option<String>,
    /// Lease lifetime without renewal, in ms; minting stops (`ERR_LEASE_LOST`) before a lease
    /// that could not be renewed could expire. Default 10000.
    #[napi(ts_type = "bigint | number")]
    pub ttl_ms: Option<u64>,
    /// How often the background thread renews, in ms. Default `ttlMs / 3`.
    #[napi(ts_type = "bigint | number")]
    pub renew_every_ms: Option<u64>,
    /// How soon a failed renewal is retried, in ms. Default `ttlMs / 20` (5 to 250).
    #[napi(ts_type = "bigint | number")]
    pub retry_every_ms: Option<u64>,
    /// How long before the lease could expire minting stops, in ms. Default `ttlMs / 10`.
    #[napi(ts_type = "bigint | number")]
    pub safety_margin_ms: Option<u64>,
    /// How far ahead of now each renewal records the node's bound, in ms. Default `ttlMs`.
    #[napi(ts_type = "bigint | number")]
    pub reserve_ms: Option<u64>,
    /// Take another node when the clock is found behind the last issued time by more than
    /// this many ms (instead of waiting or failing). Default: never.
    #[napi(ts_type = "bigint | number")]
    pub swap_after_ms: Option<u64>,
    /// Lease only nodes `0 .. nodes - 1`. Default: the layout's whole node space.
    #[napi(ts_type = "bigint | number")]
    pub nodes: Option<u64>,
    /// The holder name recorded in the store. Default `host:pid:random`.
    pub holder: Option<String>,
}

const LEASE_KEYS: &[&str] = &[
    "namespace",
    "ttlMs",
    "renewEveryMs",
    "retryEveryMs",
    "safetyMarginMs",
    "reserveMs",
    "swapAfterMs",
    "nodes",
    "holder",
];

/// The lease a `LeasedSnowflake` mints under.
#[napi(object, object_from_js = false)]
pub struct LeaseInfo {
    /// The store: `file`, `redis` or `postgres`.
    pub store: String,
    /// The namespace the node was granted in.
    pub namespace: String,
    /// The leased node.
    pub node: u64,
    /// Fencing token: grows with every grant of this node.
    pub token: u64,
    /// The node's recorded last issued time (Unix ms) when it was granted, or `null` for a
    /// node never used: no ID of this lease is at or before its tick.
    pub fence_ms: Option<u64>,
    /// The lease's time to live, in ms.
    pub ttl_ms: u64,
    /// The holder name recorded in the store.
    pub holder: String,
    /// The bound (Unix ms) the last renewal recorded: no ID's time passes it.
    pub bound_ms: u64,
    /// Milliseconds until minting stops unless a renewal succeeds first (0 if that time has
    /// passed), or `null` once the lease is lost.
    pub expires_in_ms: Option<f64>,
}

/// Counters of a `LeasedSnowflake`.
#[napi(object, object_from_js = false)]
pub struct LeaseStats {
    /// The generators' counters, summed over every node this generator used.
    pub generator: Stats,
    /// Successful renewals.
    pub renewals: u64,
    /// Failed renewal attempts (store unavailable).
    pub renew_failures: u64,
    /// Times the lease was found superseded.
    pub lost: u64,
    /// Node swaps after a clock rollback (`swapAfterMs`).
    pub swaps: u64,
    /// New leases taken after losing one.
    pub reacquires: u64,
}

/// A Snowflake generator whose node comes from a node source: a lease from a store
/// (`local` — this host's per-user lock directory —, `file:DIR`, `redis://...`,
/// `postgres://...`) — a node no live holder has, renewed in the
/// background, fenced after the node's last issued time — or a fixed source (`static:N`,
/// `env:NAME`, `ip`, `ip:A.B.C.D`, `random`). IDs are `bigint`s, as from `Snowflake`.
///
/// Build it once at startup (the constructor makes a store round trip) and `close()` it on
/// shutdown to release the node with its exact last issued time (otherwise the node is
/// released when the object is garbage-collected, or by the store when the process exits).
#[napi]
pub struct LeasedSnowflake {
    inner: Option<CoreLeased>,
}

impl LeasedSnowflake {
    fn gen(&self, env: &Env) -> napi::Result<&CoreLeased> {
        self.inner
            .as_ref()
            .ok_or_else(|| closed(env, "LeasedSnowflake"))
    }
}

#[napi]
impl LeasedSnowflake {
    /// Leases a node from `source` (or resolves a fixed one) and builds the generator. Throws
    /// `ERR_NO_FREE_NODE` (every node is held), `ERR_STORE_UNAVAILABLE` (with `store`, `op`, `reason`),
    /// `ERR_INVALID_CONFIG` (a bad source or option), `ERR_INVALID_LAYOUT`, `ERR_OUT_OF_RANGE`.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: &Env,
        #[napi(ts_arg_type = "string")] source: Unknown<'_>,
        #[napi(ts_arg_type = "LeasedSnowflakeOptions")] options: Option<Unknown<'_>>,
    ) -> napi::Result<Self> {
        let source = string_arg(env, &source, "source")?;
        let mut opts = LeaseOptions::new();
        let cfg = match options {
            Some(o) if !is_nullish(&o)? => {
                expect_object(env, &o, "options")?;
                let keys: Vec<&str> = OPTION_KEYS
                    .iter()
                    .filter(|k| **k != "node")
                    .chain(LEASE_KEYS)
                    .copied()
                    .collect();
                only_keys(env, &o, "options", &keys)?;
                let cfg = config_from_object(env, &o)?;
                let ms = Duration::from_millis;
                if let Some(ns) =
                    opt_string_arg(env, Some(&get(env, &o, c"namespace")?), "options.namespace")?
                {
                    opts = opts.namespace(&ns);
                }
                if let Some(v) = opt_u64(env, &o, c"ttlMs", "options.ttlMs")? {
                    opts = opts.ttl(ms(v));
                }
                if let Some(v) = opt_u64(env, &o, c"renewEveryMs", "options.renewEveryMs")? {
                    opts = opts.renew_every(ms(v));
                }
                if let Some(v) = opt_u64(env, &o, c"retryEveryMs", "options.retryEveryMs")? {
                    opts = opts.retry_every(ms(v));
                }
                if let Some(v) = opt_u64(env, &o, c"safetyMarginMs", "options.safetyMarginMs")? {
                    opts = opts.safety_margin(ms(v));
                }
                if let Some(v) = opt_u64(env, &o, c"reserveMs", "options.reserveMs")? {
                    opts = opts.reserve(ms(v));
                }
                if let Some(v) = opt_u64(env, &o, c"swapAfterMs", "options.swapAfterMs")? {
                    opts = opts.swap_after_ms(v);
                }
                if let Some(v) = opt_u64(env, &o, c"nodes", "options.nodes")? {
                    opts = opts.nodes(v);
                }
                if let Some(h) =
                    opt_string_arg(env, Some(&get(env, &o, c"holder")?), "options.holder")?
                {
                    opts = opts.holder(&h);
                }
                cfg
            }
            _ => idmint::Config::new(idmint::preset::twitter()),
        };
        Ok(LeasedSnowflake {
            inner: Some(CoreLeased::from_source(&source, cfg, opts).or_throw(env)?),
        })
    }

    /// The next ID, as a `bigint`. Throws `ERR_LEASE_LOST` (with `node`, `reason`) once the
    /// lease could not be kept; minting resumes by itself when the store is back.
    #[napi(catch_unwind)]
    pub fn next_id(&self, env: &Env) -> napi::Result<u64> {
        self.gen(env)?.next_id().or_throw(env)
    }

    /// The next ID as a decimal string, for JSON.
    #[napi(catch_unwind)]
    pub fn next_id_string(&self, env: &Env) -> napi::Result<String> {
        self.next_id(env).map(|id| id.to_string())
    }

    /// The next ID without waiting on the clock: throws `ERR_WOULD_BLOCK` (with `untilMs`)
    /// where `nextId` would sleep.
    #[napi(catch_unwind)]
    pub fn try_next_id(&self, env: &Env) -> napi::Result<u64> {
        self.gen(env)?.try_next_id().or_throw(env)
    }

    /// `n` fresh IDs in a `BigUint64Array`, one reservation per tick. `n` is at most 2^24 (`ERR_LIMIT_EXCEEDED` beyond).
    #[napi(catch_unwind, ts_return_type = "BigUint64Array")]
    pub fn next_ids<'e>(
        &self,
        env: &'e Env,
        #[napi(ts_arg_type = "number")] n: Unknown<'_>,
    ) -> napi::Result<Unknown<'e>> {
        let n = batch_arg(env, &n)?;
        let g = self.gen(env)?;
        biguint64_array(env, n, |out| {
            g.next_ids(out).or_throw(env).map(|()| out.len())
        })
    }

    /// Splits an ID of this generator's layout into its fields.
    #[napi(catch_unwind)]
    pub fn decode(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "bigint | number | string")] id: Unknown<'_>,
    ) -> napi::Result<Parts> {
        let id = id_arg(env, &id, "id")?;
        decompose(env, self.gen(env)?.config().layout(), id)
    }

    /// The node IDs are minted with now (it changes after a swap, or after a lost lease is
    /// replaced).
    #[napi(getter, catch_unwind)]
    pub fn node(&self, env: &Env) -> napi::Result<u64> {
        Ok(self.gen(env)?.node())
    }

    /// The lease minted under now, or `null` for a fixed node source.
    #[napi(getter, catch_unwind)]
    pub fn lease(&self, env: &Env) -> napi::Result<Option<LeaseInfo>> {
        let now = Instant::now();
        Ok(self.gen(env)?.lease_info().map(|i| LeaseInfo {
            store: i.store.to_string(),
            namespace: i.lease.namespace,
            node: i.lease.node,
            token: i.lease.token,
            fence_ms: i.lease.fence_ms,
            ttl_ms: u64::try_from(i.lease.ttl.as_millis()).unwrap_or(u64::MAX),
            holder: i.lease.holder,
            bound_ms: i.bound_ms,
            expires_in_ms: i
                .deadline
                .map(|d| d.saturating_duration_since(now).as_millis() as f64),
        }))
    }

    /// The current generator's high-water mark (Unix ms: start of the latest tick issued, or
    /// the fence), or `null` before the first ID.
    #[napi(getter, catch_unwind)]
    pub fn high_water_ms(&self, env: &Env) -> napi::Result<Option<u64>> {
        Ok(self.gen(env)?.high_water_ms())
    }

    /// The time fence IDs are minted after now (the lease's, or the one given), if any.
    #[napi(getter, catch_unwind)]
    pub fn fence_ms(&self, env: &Env) -> napi::Result<Option<u64>> {
        Ok(self.gen(env)?.config().fence())
    }

    /// The layout.
    #[napi(getter, catch_unwind)]
    pub fn layout(&self, env: &Env) -> napi::Result<Layout> {
        Ok(Layout {
            inner: *self.gen(env)?.config().layout(),
        })
    }

    /// Counters of the generators and the lease.
    #[napi(catch_unwind)]
    pub fn stats(&self, env: &Env) -> napi::Result<LeaseStats> {
        let s = self.gen(env)?.stats();
        Ok(LeaseStats {
            generator: s.generator.into(),
            renewals: s.renewals,
            renew_failures: s.renew_failures,
            lost: s.lost,
            swaps: s.swaps,
            reacquires: s.reacquires,
        })
    }

    /// Whether `close()` was called.
    #[napi(getter, catch_unwind)]
    pub fn closed(&self) -> bool {
        self.inner.is_none()
    }

    /// Stops the renewal thread and releases the node, recording its exact last issued time
    /// for the next holder. Later calls do nothing; other calls then throw `ERR_CLOSED`.
    #[napi(catch_unwind)]
    pub fn close(&mut self, env: &Env) -> napi::Result<()> {
        match self.inner.take() {
            Some(g) => g.release().or_throw(env),
            None => Ok(()),
        }
    }
}

/// Options of `new SegmentAllocator(storeUrl, options)`. Every key is optional.
#[napi(object, object_from_js = false, object_to_js = false)]
#[allow(dead_code)] // describes the argument for index.d.ts; the binding reads it key by key
pub struct SegmentAllocatorOptions {
    /// Values per range of the first fetch, and the least the step adapts down to.
    /// Default 1000.
    #[napi(ts_type = "bigint | number")]
    pub step: Option<u64>,
    /// The most the step adapts up to. Default 1000000 (or `step`, if larger).
    #[napi(ts_type = "bigint | number")]
    pub max_step: Option<u64>,
    /// Fetch the next range once this share (0 to 100) of the current one is used. Default 10.
    pub refill_at_percent: Option<u32>,
    /// Skip a random 0..=maxGap values before each ID (below the step). Default 0: no gaps.
    #[napi(ts_type = "bigint | number")]
    pub max_gap: Option<u64>,
    /// Seed of the gaps (they replay exactly). Default 0.
    #[napi(ts_type = "bigint | number")]
    pub gap_seed: Option<u64>,
    /// Pass every value through this keyed permutation, so IDs look irregular.
    #[napi(ts_type = "Obfuscator")]
    pub obfuscator: Option<String>,
    /// A journal file: `close()` records the unserved values and the next allocator on it
    /// resumes them.
    pub journal: Option<String>,
    /// Also write a fenced checkpoint of the journal this often (ms), so a crash loses at most
    /// about one step per key. Needs `journal`.
    #[napi(ts_type = "bigint | number")]
    pub checkpoint_every_ms: Option<u64>,
    /// How long a call waits when both buffers of its key are empty before it throws the
    /// store's error (ms). Default 2000.
    #[napi(ts_type = "bigint | number")]
    pub wait_timeout_ms: Option<u64>,
}

const SEGMENT_KEYS: &[&str] = &[
    "step",
    "maxStep",
    "refillAtPercent",
    "maxGap",
    "gapSeed",
    "obfuscator",
    "journal",
    "checkpointEveryMs",
    "waitTimeoutMs",
];

/// A snapshot of one key's buffers.
#[napi(object, object_from_js = false)]
pub struct SegmentKeyStats {
    /// The current step: what the next fetch asks for before adaptation.
    pub step: u64,
    /// Unserved values held (current range plus standby).
    pub buffered: u64,
    /// Whether a fetch is in flight.
    pub fetching: bool,
    /// The checkpoint fence, if a journal checkpoint recorded some of the buffered values.
    pub fence: Option<u64>,
    /// The code of the last fetch's error (`ERR_STORE_UNAVAILABLE`, ...), if it failed.
    pub last_error_code: Option<String>,
    /// The message of the last fetch's error, if it failed.
    pub last_error_message: Option<String>,
}

type Allocator = CoreAllocator<Box<dyn SegmentStore>>;

/// IDs per key from ranges of a segment store (`sqlite:PATH`, `postgres://...`,
/// `redis://...`): one store round trip per range, the next range fetched in the background
/// before the current one runs out, the step adapting to the load. IDs are `bigint`s,
/// increasing per key.
///
/// A call blocks only when both buffers of its key are empty (the first call for a key, an
/// outage longer than the buffers last), for at most `waitTimeoutMs`; then it throws the
/// store's error (`ERR_STORE_UNAVAILABLE`).
#[napi]
pub struct SegmentAllocator {
    inner: Option<Allocator>,
    store: &'static str,
}

impl SegmentAllocator {
    fn alloc(&self, env: &Env) -> napi::Result<&Allocator> {
        self.inner
            .as_ref()
            .ok_or_else(|| closed(env, "SegmentAllocator"))
    }
}

#[napi]
impl SegmentAllocator {
    /// Opens the store and starts the allocator (resuming the journal, if any). Throws
    /// `ERR_INVALID_CONFIG` (a bad URL or option), `ERR_STORE_UNAVAILABLE`.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: &Env,
        #[napi(ts_arg_type = "string")] store_url: Unknown<'_>,
        #[napi(ts_arg_type = "SegmentAllocatorOptions")] options: Option<Unknown<'_>>,
    ) -> napi::Result<Self> {
        let url = string_arg(env, &store_url, "storeUrl")?;
        let mut cfg = SegmentConfig::new();
        let mut journal = None;
        let mut checkpoint_every = None;
        let mut wait = None;
        if let Some(o) = options {
            if !is_nullish(&o)? {
                expect_object(env, &o, "options")?;
                only_keys(env, &o, "options", SEGMENT_KEYS)?;
                if let Some(s) = opt_u64(env, &o, c"step", "options.step")? {
                    cfg = cfg.step(s);
                }
                if let Some(m) = opt_u64(env, &o, c"maxStep", "options.maxStep")? {
                    cfg = cfg.step_bounds(cfg.min_step(), m);
                }
                let v = get(env, &o, c"refillAtPercent")?;
                if !is_nullish(&v)? {
                    let p = bounded_arg(env, &v, "options.refillAtPercent", 255)?;
                    cfg = cfg.refill_at_percent(p as u8);
                }
                let gap = opt_u64(env, &o, c"maxGap", "options.maxGap")?.unwrap_or(0);
                let seed = opt_u64(env, &o, c"gapSeed", "options.gapSeed")?.unwrap_or(0);
                if gap > 0 {
                    cfg = cfg.gaps(gap, seed);
                }
                let v = get(env, &o, c"obfuscator")?;
                if !is_nullish(&v)? {
                    let ob = if type_of(&v)? == ValueType::Object {
                        unwrap_tagged::<Obfuscator, _>(env, &v, |o| o.inner)?
                    } else {
                        None
                    };
                    match ob {
                        Some(ob) => cfg = cfg.obfuscate(ob),
                        None => {
                            return Err(type_error(env, "options.obfuscator must be an Obfuscator"))
                        }
                    }
                }
                journal = opt_string_arg(env, Some(&get(env, &o, c"journal")?), "options.journal")?;
                checkpoint_every =
                    opt_u64(env, &o, c"checkpointEveryMs", "options.checkpointEveryMs")?;
                wait = opt_u64(env, &o, c"waitTimeoutMs", "options.waitTimeoutMs")?;
            }
        }
        let store = open_store(&url).or_throw(env)?;
        let kind = store.kind();
        let mut b = CoreAllocator::builder(store, cfg);
        if let Some(w) = wait {
            b = b.wait_timeout(Duration::from_millis(w));
        }
        if let Some(path) = journal {
            b = b.journal(path);
        }
        if let Some(every) = checkpoint_every {
            b = b.checkpoint_every(Duration::from_millis(every));
        }
        Ok(SegmentAllocator {
            inner: Some(b.build().or_throw(env)?),
            store: kind,
        })
    }

    /// The next ID for `key`, as a `bigint`.
    #[napi(catch_unwind)]
    pub fn next_id(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "string")] key: Unknown<'_>,
    ) -> napi::Result<u64> {
        let key = string_arg(env, &key, "key")?;
        self.alloc(env)?.next_id(&key).or_throw(env)
    }

    /// The next `n` IDs for `key`, increasing, in a `BigUint64Array`. `n` is at most 2^24 (`ERR_LIMIT_EXCEEDED` beyond).
    #[napi(catch_unwind, ts_return_type = "BigUint64Array")]
    pub fn next_ids<'e>(
        &self,
        env: &'e Env,
        #[napi(ts_arg_type = "string")] key: Unknown<'_>,
        #[napi(ts_arg_type = "number")] n: Unknown<'_>,
    ) -> napi::Result<Unknown<'e>> {
        let key = string_arg(env, &key, "key")?;
        let n = batch_arg(env, &n)?;
        let a = self.alloc(env)?;
        biguint64_array(env, n, |out| {
            a.next_ids(&key, out).or_throw(env).map(|()| out.len())
        })
    }

    /// A snapshot of `key`'s buffers, or `null` if the key was never used (nor resumed from the
    /// journal).
    #[napi(catch_unwind)]
    pub fn stats(
        &self,
        env: &Env,
        #[napi(ts_arg_type = "string")] key: Unknown<'_>,
    ) -> napi::Result<Option<SegmentKeyStats>> {
        let key = string_arg(env, &key, "key")?;
        Ok(self.alloc(env)?.stats(&key).map(|s| SegmentKeyStats {
            step: s.step,
            buffered: s.buffered,
            fetching: s.fetching,
            fence: s.fence,
            last_error_code: s.last_error.map(|e| e.code().to_string()),
            last_error_message: s.last_error.map(|e| e.to_string()),
        }))
    }

    /// The keys used or resumed so far, sorted.
    #[napi(catch_unwind)]
    pub fn keys(&self, env: &Env) -> napi::Result<Vec<String>> {
        let mut k = self.alloc(env)?.keys();
        k.sort();
        Ok(k)
    }

    /// Writes a journal checkpoint now (needs `journal` and `checkpointEveryMs`).
    #[napi(catch_unwind)]
    pub fn checkpoint(&self, env: &Env) -> napi::Result<()> {
        self.alloc(env)?.checkpoint().or_throw(env)
    }

    /// The store: `sqlite`, `postgres`, `redis`, ...
    #[napi(getter, catch_unwind)]
    pub fn store(&self) -> &'static str {
        self.store
    }

    /// Whether `close()` was called.
    #[napi(getter, catch_unwind)]
    pub fn closed(&self) -> bool {
        self.inner.is_none()
    }

    /// Stops the background threads (after a fetch in progress lands) and records the unserved
    /// values in the journal, if any. Later calls do nothing; other calls then throw
    /// `ERR_CLOSED`.
    #[napi(catch_unwind)]
    pub fn close(&mut self, env: &Env) -> napi::Result<()> {
        match self.inner.take() {
            Some(a) => a.close().or_throw(env),
            None => Ok(()),
        }
    }
}
