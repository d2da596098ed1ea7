//! [`Segments`]: one buffer per key, all with one config.

use alloc::{collections::BTreeMap, string::String, vec::Vec};

use super::{key_seed, Batch, Fetch, Range, Remainder, SegmentBuffer, SegmentConfig, Take};
use crate::error::{Error, Result};

/// One [`SegmentBuffer`] per key (Leaf's `biz_tag`), created on first use, all with one config.
///
/// # Examples
/// ```
/// use idmint::segment::{Range, SegmentConfig, Segments, Take};
/// let mut segs = Segments::new(SegmentConfig::new().fixed_step(10).refill_at_percent(50))?;
/// let Take::Fetch(f) = segs.next("orders", 0)? else { panic!() };
/// segs.supply("orders", f, Range { start: 1, end: 11 }, 0)?;
/// assert_eq!(segs.next("orders", 0)?, Take::Id(1));
/// assert!(matches!(segs.next("users", 0)?, Take::Fetch(_))); // keys are independent
/// # Ok::<(), idmint::Error>(())
/// ```
#[cfg(feature = "alloc")]
#[derive(Debug, Clone)]
pub struct Segments {
    cfg: SegmentConfig,
    keys: BTreeMap<String, SegmentBuffer>,
}

#[cfg(feature = "alloc")]
impl Segments {
    /// An empty map for `cfg` (validated).
    pub fn new(cfg: SegmentConfig) -> Result<Segments> {
        cfg.validate()?;
        Ok(Segments {
            cfg,
            keys: BTreeMap::new(),
        })
    }

    /// The config every key's buffer uses.
    pub const fn config(&self) -> &SegmentConfig {
        &self.cfg
    }

    /// The buffer of `key`, created on first use.
    pub fn buffer(&mut self, key: &str) -> &mut SegmentBuffer {
        let cfg = self.cfg;
        self.keys
            .entry(String::from(key))
            .or_insert_with(|| SegmentBuffer::build(cfg, key_seed(cfg.seed, key)))
    }

    /// The buffer of `key`, if it was used.
    pub fn get(&self, key: &str) -> Option<&SegmentBuffer> {
        self.keys.get(key)
    }

    /// [`SegmentBuffer::next`] on `key`'s buffer.
    pub fn next(&mut self, key: &str, now_ms: u64) -> Result<Take> {
        if let Some(b) = self.keys.get_mut(key) {
            return b.next(now_ms);
        }
        self.buffer(key).next(now_ms)
    }

    /// [`SegmentBuffer::take_into`] on `key`'s buffer.
    pub fn take_into(&mut self, key: &str, out: &mut [u64], now_ms: u64) -> Result<Batch> {
        if let Some(b) = self.keys.get_mut(key) {
            return b.take_into(out, now_ms);
        }
        self.buffer(key).take_into(out, now_ms)
    }

    fn used(&mut self, key: &str) -> Result<&mut SegmentBuffer> {
        self.keys.get_mut(key).ok_or(Error::InvalidConfig {
            reason: "this fetch is not the one in flight for this segment buffer",
        })
    }

    /// [`SegmentBuffer::supply`] on `key`'s buffer.
    pub fn supply(&mut self, key: &str, fetch: Fetch, range: Range, now_ms: u64) -> Result<()> {
        self.used(key)?.supply(fetch, range, now_ms)
    }

    /// [`SegmentBuffer::fail`] on `key`'s buffer.
    pub fn fail(&mut self, key: &str, fetch: Fetch, now_ms: u64) -> Result<()> {
        self.used(key)?.fail(fetch, now_ms)
    }

    /// [`SegmentBuffer::resume`] on `key`'s buffer (created if new).
    pub fn resume(&mut self, key: &str, ranges: &[Range]) -> Result<()> {
        self.buffer(key).resume(ranges)
    }

    /// [`SegmentBuffer::drain`] on every key; keys with nothing left are omitted.
    pub fn drain(&mut self) -> Vec<(String, Remainder)> {
        self.keys
            .iter_mut()
            .map(|(k, b)| (k.clone(), b.drain()))
            .filter(|(_, r)| !r.is_empty())
            .collect()
    }

    /// The keys used so far, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.keys.keys().map(String::as_str)
    }

    /// How many keys were used.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no key was used.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}
