//! Leased-generator and segment-allocator options by key, in the core's manner
//! ([`idmint::snowflake::options`]): every surface converts its keywords, option objects or flags into
//! [`LeasedSnowflakeOptions`] or [`SegmentAllocatorOptions`], so the keys, defaults and checks exist once.
//!
//! # Examples
//! ```
//! use idmint::OptionValue;
//! use idmint_coord::options::LeasedSnowflakeOptions;
//! let mut o = LeasedSnowflakeOptions::new();
//! o.set("layout", OptionValue::Text("leaf"))?;
//! o.set("ttlMs", OptionValue::Int(6_000))?; // camelCase or snake_case
//! o.set("namespace", OptionValue::Text("orders"))?;
//! assert_eq!(o.lease().renew_period().as_millis(), 2_000);
//! assert!(o.set("ttl", OptionValue::Int(1)).is_err());
//! assert!(o.set("node", OptionValue::Int(1)).is_err()); // the lease picks the node
//! assert!(o.set_node_part("worker", 1).is_err());
//! # Ok::<(), idmint::Error>(())
//! ```

use std::path::PathBuf;
use std::time::Duration;

use idmint::segment::SegmentConfig;
use idmint::snowflake::options::{self as core_options, OptionKey, Takes};
use idmint::{Config, Error, Name, Obfuscator, OptionValue, Result, SnowflakeOptions};

use crate::lease::{LeaseOptions, LeasedSnowflake};
use crate::segment::{open_store, SegmentAllocator, SegmentStore};

const fn key(name: &'static str, camel: &'static str, takes: Takes) -> OptionKey {
    OptionKey {
        name,
        camel,
        takes,
        default: None,
    }
}

/// The lease keys a leased generator takes besides the generator keys
/// ([`idmint::snowflake::options::KEYS`]); defaults as [`LeaseOptions::new`] documents them.
pub const LEASE_KEYS: &[OptionKey] = &[
    key("namespace", "namespace", Takes::Text),
    key("ttl_ms", "ttlMs", Takes::Int),
    key("renew_every_ms", "renewEveryMs", Takes::Int),
    key("retry_every_ms", "retryEveryMs", Takes::Int),
    key("safety_margin_ms", "safetyMarginMs", Takes::Int),
    key("reserve_ms", "reserveMs", Takes::Int),
    key("swap_after_ms", "swapAfterMs", Takes::Int),
    key("nodes", "nodes", Takes::Int),
    key("holder", "holder", Takes::Text),
];

/// The keys a segment allocator takes (besides an obfuscator object, set with
/// [`SegmentAllocatorOptions::obfuscate`]).
pub const SEGMENT_KEYS: &[OptionKey] = &[
    key("step", "step", Takes::Int),
    key("max_step", "maxStep", Takes::Int),
    key("refill_at_percent", "refillAtPercent", Takes::Int),
    key("max_gap", "maxGap", Takes::Int),
    key("gap_seed", "gapSeed", Takes::Int),
    key("journal", "journal", Takes::Text),
    key("checkpoint_every_ms", "checkpointEveryMs", Takes::Int),
    key("wait_timeout_ms", "waitTimeoutMs", Takes::Int),
];

fn int(k: &OptionKey, v: OptionValue<'_>) -> Result<u64> {
    match v {
        OptionValue::Int(n) => Ok(n),
        _ => Err(Error::InvalidArgument {
            argument: Name::lossy(k.name),
            reason: "takes an unsigned integer",
        }),
    }
}

fn text<'a>(k: &OptionKey, v: OptionValue<'a>) -> Result<&'a str> {
    match v {
        OptionValue::Text(s) => Ok(s),
        _ => Err(Error::InvalidArgument {
            argument: Name::lossy(k.name),
            reason: "takes text",
        }),
    }
}

/// A leased generator takes its node from the lease source, never from an option.
fn node_from_lease() -> Error {
    Error::InvalidArgument {
        argument: Name::lossy("node"),
        reason: "is chosen by the lease source",
    }
}

/// Options of a leased generator: the generator keys (but `node`) plus [`LEASE_KEYS`].
#[derive(Debug, Clone, Default)]
pub struct LeasedSnowflakeOptions {
    generator: SnowflakeOptions,
    lease: LeaseOptions,
}

impl LeasedSnowflakeOptions {
    /// Every key at its default.
    pub fn new() -> LeasedSnowflakeOptions {
        LeasedSnowflakeOptions::default()
    }

    /// Sets a generator or lease key (snake_case or camelCase).
    pub fn set(&mut self, key: &str, value: OptionValue<'_>) -> Result<()> {
        if let Ok(k) = core_options::find_key(key) {
            if k.name == "node" {
                return Err(node_from_lease());
            }
            return self.generator.set(key, value);
        }
        const UNKNOWN: &str = "is not an option (layout, node, on_backwards, on_exhausted, sequence_start, seed, fence_ms, namespace, ttl_ms, renew_every_ms, retry_every_ms, safety_margin_ms, reserve_ms, swap_after_ms, nodes, holder)";
        let k = core_options::find_in(LEASE_KEYS, key, UNKNOWN)?;
        let ms = |v| int(k, v).map(Duration::from_millis);
        let l = std::mem::take(&mut self.lease);
        self.lease = match k.name {
            "namespace" => l.namespace(text(k, value)?),
            "ttl_ms" => l.ttl(ms(value)?),
            "renew_every_ms" => l.renew_every(ms(value)?),
            "retry_every_ms" => l.retry_every(ms(value)?),
            "safety_margin_ms" => l.safety_margin(ms(value)?),
            "reserve_ms" => l.reserve(ms(value)?),
            "swap_after_ms" => l.swap_after_ms(int(k, value)?),
            "nodes" => l.nodes(int(k, value)?),
            _ => l.holder(text(k, value)?),
        };
        Ok(())
    }

    /// Refuses a node sub-field like the `node` key: the lease picks the node.
    pub fn set_node_part(&mut self, _name: &str, _value: u64) -> Result<()> {
        Err(node_from_lease())
    }

    /// What `key` takes, if it is a generator or lease key (not `node`: the lease picks it).
    pub fn takes(key: &str) -> Option<Takes> {
        let lease = core_options::find_in(LEASE_KEYS, key, "");
        lease
            .or_else(|_| core_options::find_key(key))
            .ok()
            .map(|k| k.takes)
    }

    /// The generator config, without a node: the lease picks it.
    pub fn config(&self) -> Result<Config> {
        self.generator.config()
    }

    /// The lease options.
    pub fn lease(&self) -> &LeaseOptions {
        &self.lease
    }

    /// Leases a node from `source` (`local`, `file:DIR`, `redis://…`, `postgres://…`,
    /// `etcd://…`, `zk://…`, `static:N`, `random`, …) and builds the generator.
    pub fn open(&self, source: &str) -> Result<LeasedSnowflake> {
        LeasedSnowflake::from_source(source, self.config()?, self.lease.clone())
    }
}

/// Options of a segment allocator: [`SEGMENT_KEYS`] and an obfuscator.
#[derive(Debug, Clone, Default)]
pub struct SegmentAllocatorOptions {
    config: SegmentConfig,
    max_step: Option<u64>,
    gap: (u64, u64),
    journal: Option<PathBuf>,
    checkpoint_every: Option<Duration>,
    wait_timeout: Option<Duration>,
}

impl SegmentAllocatorOptions {
    /// Every key at its default.
    pub fn new() -> SegmentAllocatorOptions {
        SegmentAllocatorOptions::default()
    }

    /// What `key` takes, if it is a segment key.
    pub fn takes(key: &str) -> Option<Takes> {
        core_options::find_in(SEGMENT_KEYS, key, "")
            .ok()
            .map(|k| k.takes)
    }

    /// Sets a segment key (snake_case or camelCase).
    pub fn set(&mut self, key: &str, value: OptionValue<'_>) -> Result<()> {
        const UNKNOWN: &str = "is not an option (step, max_step, refill_at_percent, max_gap, gap_seed, obfuscator, journal, checkpoint_every_ms, wait_timeout_ms)";
        let k = core_options::find_in(SEGMENT_KEYS, key, UNKNOWN)?;
        let c = self.config;
        match k.name {
            "step" => self.config = c.step(int(k, value)?),
            "max_step" => self.max_step = Some(int(k, value)?),
            "refill_at_percent" => {
                let p = int(k, value)?;
                let p = u8::try_from(p).map_err(|_| Error::OutOfRange {
                    field: Name::lossy("refill_at_percent"),
                    value: p,
                    max: 100,
                })?;
                self.config = c.refill_at_percent(p);
            }
            "max_gap" => self.gap.0 = int(k, value)?,
            "gap_seed" => self.gap.1 = int(k, value)?,
            "journal" => self.journal = Some(PathBuf::from(text(k, value)?)),
            "checkpoint_every_ms" => {
                self.checkpoint_every = Some(Duration::from_millis(int(k, value)?))
            }
            _ => self.wait_timeout = Some(Duration::from_millis(int(k, value)?)),
        }
        Ok(())
    }

    /// Obfuscates the values served (see [`SegmentConfig::obfuscate`]).
    pub fn obfuscate(&mut self, o: Obfuscator) {
        self.config = self.config.obfuscate(o);
    }

    /// The segment config these options give.
    pub fn config(&self) -> SegmentConfig {
        let mut c = self.config;
        if let Some(m) = self.max_step {
            c = c.step_bounds(c.min_step(), m);
        }
        if self.gap.0 > 0 {
            c = c.gaps(self.gap.0, self.gap.1);
        }
        c
    }

    /// Opens the store at `url` and builds the allocator.
    pub fn open(&self, url: &str) -> Result<SegmentAllocator<Box<dyn SegmentStore>>> {
        let mut b = SegmentAllocator::builder(open_store(url)?, self.config());
        if let Some(w) = self.wait_timeout {
            b = b.wait_timeout(w);
        }
        if let Some(p) = &self.journal {
            b = b.journal(p.clone());
        }
        if let Some(e) = self.checkpoint_every {
            b = b.checkpoint_every(e);
        }
        b.build()
    }
}
