//! The built-in types: the core's (on the system clock), `type=segment` and the leased
//! `type=snowflake,lease=…`. Their options go through [`SegmentAllocatorOptions`] and [`LeasedSnowflakeOptions`],
//! the same key-by-key path every surface's own constructors take.

use std::sync::{Arc, Mutex, PoisonError};

use idmint::host_random::draw_outside;
use idmint::named::clocked::random_fill;
use idmint::named::{GeneratedId, NamedConfig, NamedEntry, NamedGenerator};
use idmint::snowflake::options::Takes;
use idmint::{Clock, Error, ForkGuard, OptionValue, Result, SystemClock};

use super::source::batch;
use super::source::NamedSource;
use super::spec::{entry_text, written, NamedSpec};
use crate::lease::{self, LeasedSnowflake};
use crate::options::{LeasedSnowflakeOptions, SegmentAllocatorOptions, LEASE_KEYS, SEGMENT_KEYS};
use crate::segment::{SegmentAllocator, SegmentStore};

/// The segment type's name.
pub(super) const SEGMENT: &str = "segment";

/// The store-backed types built here, besides the core's: a program cannot register these names.
pub(super) const BUILT_IN: [&str; 4] = [
    SEGMENT,
    super::naive::COUNTER,
    super::naive::AUTOINC,
    super::naive::REDIS_COMPOSE,
];

// ---------------------------------------------------------------------------------------------
// Core types

/// A core type on the system clock: one lock around the core's sans-IO generator, so the
/// clocked and the sans-IO calls share one state and `next_at` is exactly the core's. In a
/// forked child every call refuses with [`Error::Forked`], as the store-backed types do: the
/// child holds a copy of the parent's state (a Snowflake node and its last tick, a v1 node
/// and clock sequence), so both would mint the same IDs.
pub(super) struct CoreSource {
    config: NamedConfig,
    gen: Mutex<NamedGenerator>,
    clock: SystemClock,
    born: ForkGuard,
}

impl CoreSource {
    pub(super) fn new(config: NamedConfig) -> Result<CoreSource> {
        Ok(CoreSource {
            gen: Mutex::new(config.build()?),
            config,
            clock: SystemClock::new(),
            born: ForkGuard::new(),
        })
    }

    // The generator is plain data, so a panic while it was locked leaves nothing half done.
    fn lock(&self) -> std::sync::MutexGuard<'_, NamedGenerator> {
        self.gen.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl NamedSource for CoreSource {
    fn kind(&self) -> &str {
        self.config.kind().name()
    }

    fn config(&self) -> String {
        self.config.to_string()
    }

    fn next_id(&self) -> Result<GeneratedId> {
        self.born.check()?;
        loop {
            let (now, nanos) = self.config.now_from(&self.clock);
            // The lock is let go before waiting.
            let r = self.lock().next_at_precise(now, nanos, random_fill);
            match r {
                Err(Error::WouldBlock { until_ms }) => self.clock.wait_until(until_ms),
                r => return r,
            }
        }
    }

    fn next_at(
        &self,
        now_ms: u64,
        random: &mut dyn FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<GeneratedId> {
        self.born.check()?;
        // `random` may be the host's code calling this source again: it runs unlocked.
        draw_outside(|fill| self.lock().next_at(now_ms, fill), random)?
    }
}

// ---------------------------------------------------------------------------------------------
// Segments

pub(super) const SEGMENT_UNKNOWN: &str = "unknown key for type segment (type, store, key, step, max_step, refill_at_percent, max_gap, gap_seed, journal, checkpoint_every_ms, wait_timeout_ms)";

/// `type=segment,store=URL,key=KEY[,…]`: a segment allocator serving one key.
pub(super) fn segment(spec: &NamedSpec<'_>) -> Result<Box<dyn NamedSource>> {
    let mut known = vec!["type", "store", "key"];
    known.extend(SEGMENT_KEYS.iter().map(|k| k.name));
    spec.check_keys(&known, SEGMENT_UNKNOWN)?;
    let store = spec.require_text(
        "store",
        "type segment needs store=URL (sqlite:PATH, postgres://…, redis://…, idmint+http://…)",
    )?;
    let key = spec.require_text(
        "key",
        "type segment needs key=NAME, the key its IDs are counted under",
    )?;
    let mut opts = SegmentAllocatorOptions::new();
    for e in spec.entries() {
        if let Some(takes) = SegmentAllocatorOptions::takes(e.key()) {
            opts.set(e.key(), value(e, takes)?)?;
        }
    }
    let alloc = opts.open(store)?;
    // Checks the key (length, characters) before the first call would.
    alloc.key(key)?;
    Ok(Box::new(SegmentSource {
        key: key.to_owned(),
        config: written(spec, &["store"]),
        alloc,
    }))
}

struct SegmentSource {
    alloc: SegmentAllocator<Box<dyn SegmentStore>>,
    key: String,
    config: String,
}

impl NamedSource for SegmentSource {
    fn kind(&self) -> &str {
        SEGMENT
    }

    fn config(&self) -> String {
        self.config.clone()
    }

    fn next_id(&self) -> Result<GeneratedId> {
        self.alloc.next_id(&self.key).map(GeneratedId::U64)
    }

    fn fill(&self, out: &mut [GeneratedId]) -> Result<()> {
        batch(out.len())?;
        let mut ids = vec![0u64; out.len()];
        self.fill_u64(&mut ids)?;
        for (slot, id) in out.iter_mut().zip(ids) {
            *slot = GeneratedId::U64(id);
        }
        Ok(())
    }

    fn fill_u64(&self, out: &mut [u64]) -> Result<()> {
        batch(out.len())?;
        self.alloc.next_ids(&self.key, out)
    }

    fn close(self: Box<Self>) -> Result<()> {
        self.alloc.close()
    }
}

// ---------------------------------------------------------------------------------------------
// Leased Snowflakes

/// The keys of a leased Snowflake that the core does not read.
fn is_lease_key(key: &str) -> bool {
    key == "lease" || LEASE_KEYS.iter().any(|k| k.name == key)
}

/// A `type=snowflake` config without `lease` may not take lease options: they would do nothing.
pub(super) fn refuse_lease_keys(spec: &NamedSpec<'_>) -> Result<()> {
    match spec.entries().iter().find(|e| is_lease_key(e.key())) {
        Some(e) => Err(Error::InvalidSpec {
            at: e.key_at(),
            reason: "this key applies to a leased snowflake only (lease=URL)",
        }),
        None => Ok(()),
    }
}

/// `type=snowflake,…,lease=URL[,namespace=…,ttl_ms=…]`: a Snowflake generator on a leased node.
pub(super) fn leased(spec: &NamedSpec<'_>) -> Result<Box<dyn NamedSource>> {
    let (lease_entries, rest): (Vec<&NamedEntry>, Vec<&NamedEntry>) =
        spec.entries().iter().partition(|e| is_lease_key(e.key()));
    for (i, e) in lease_entries.iter().enumerate() {
        if lease_entries[..i].iter().any(|p| p.key() == e.key()) {
            return Err(Error::InvalidSpec {
                at: e.key_at(),
                reason: "key given twice",
            });
        }
    }
    let rest: Vec<NamedEntry> = rest.into_iter().cloned().collect();
    // The generator config first (no I/O), with the core's errors.
    let cfg = NamedConfig::snowflake_without_node(spec.input(), &rest)?;
    let mut opts = LeasedSnowflakeOptions::new();
    for e in &lease_entries {
        if let Some(takes) = LeasedSnowflakeOptions::takes(e.key()).filter(|_| e.key() != "lease") {
            opts.set(e.key(), value(e, takes)?)?;
        }
    }
    let url = spec.require_text("lease", "type snowflake needs lease=URL or node=N")?;
    let store: Arc<dyn lease::LeaseStore> = Arc::from(lease::open(url)?);
    let gen = LeasedSnowflake::new(store, cfg, opts.lease().clone())?;
    let mut config = NamedConfig::Snowflake(cfg).to_string();
    for e in lease_entries {
        config.push(',');
        config.push_str(&entry_text(e, e.key() == "lease"));
    }
    Ok(Box::new(LeasedSource { gen, config }))
}

struct LeasedSource {
    gen: LeasedSnowflake,
    config: String,
}

impl NamedSource for LeasedSource {
    fn kind(&self) -> &str {
        "snowflake"
    }

    fn config(&self) -> String {
        self.config.clone()
    }

    fn next_id(&self) -> Result<GeneratedId> {
        self.gen.next_id().map(GeneratedId::U64)
    }

    fn fill_u64(&self, out: &mut [u64]) -> Result<()> {
        batch(out.len())?;
        self.gen.next_ids(out)
    }

    fn close(self: Box<Self>) -> Result<()> {
        self.gen.release()
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers

/// An option's value as the option takes it.
fn value(e: &NamedEntry, takes: Takes) -> Result<OptionValue<'_>> {
    match takes {
        Takes::Int => e.u64().map(OptionValue::Int),
        _ => e.text().map(OptionValue::Text),
    }
}
