//! A generator whose time and sequence come from Redis: one Lua script reads the server's
//! `TIME`, turns it into a tick of the [`Layout`], and `INCRBY`s a per-tick counter; the client
//! composes `time | shard | sequence` with [`Layout::compose`]. Every client that shares the
//! server and namespace draws from the same counters, so they need no worker ids of their own;
//! the shard field tells Redis servers apart when there are several (each server and namespace
//! gets its own shard number).
//!
//! Keys (the `{ns}` braces are a Redis Cluster hash tag, so both live in one slot):
//! - `idmint:{ns}:hw` — the **high-water tick**: the latest tick the script ever issued in. No
//!   expiry. The script never issues below it, so a server clock that steps back does not
//!   repeat IDs: issuing continues on the high-water tick (a logical clock) until the server
//!   clock passes it again.
//! - `idmint:{ns}:seq:TICK` — the sequence counter of one tick, expiring a short while after
//!   its last use (default [`DEFAULT_SEQ_TTL`]).
//!
//! Rules the script follows, each needed for uniqueness:
//! 1. The tick is `max(server tick, high-water)`.
//! 2. A tick's counter is trusted only while its key exists. If the high-water tick's counter
//!    has expired (the clock stayed behind longer than the TTL), what it issued is unknown and
//!    the tick is never used again: the script moves to the next tick.
//! 3. When a tick's sequence is used up, the script moves to the next tick at once (the time
//!    field may then run ahead of the server clock, like a logical clock, and is caught up by
//!    it when load drops). It never waits or fails for exhaustion.
//!
//! Like every Redis counter, this relies on Redis keeping what it acknowledged: a server that
//! restarts without its data forgets the high-water, and IDs stay unique only if its clock did
//! not step back across the restart. Run it with `appendonly yes` / `appendfsync always` for
//! the full guarantee.
//!
//! When to use it: many short-lived clients (serverless functions, scripts) that cannot hold
//! worker leases, already next to a Redis, at one round trip per call (or per batch from
//! [`RedisCompose::next_ids`]). A leased [`idmint::Snowflake`] mints without any round trip.

use std::time::Duration;

use idmint::{Error, Layout, Parts, Result};

use crate::segment::redis::RedisPool;

/// How long a tick's sequence counter outlives its last use by default.
pub const DEFAULT_SEQ_TTL: Duration = Duration::from_secs(5);

/// Largest tick the script computes with: Redis Lua numbers are doubles, exact to 2^53.
const LUA_EXACT: u64 = 1 << 53;

const SCRIPT: &str = r"
-- KEYS[1] high-water tick; KEYS[2] prefix of the per-tick counters
-- ARGV: epoch_ms, tick_ms, max_tick, max_seq, count, ttl_ms
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local epoch = tonumber(ARGV[1])
local tick_ms = tonumber(ARGV[2])
local max_tick = tonumber(ARGV[3])
local max_seq = tonumber(ARGV[4])
local count = tonumber(ARGV[5])
local ttl = tonumber(ARGV[6])
if now_ms < epoch then return {-1, now_ms} end
local tick = math.floor((now_ms - epoch) / tick_ms)
local hw = tonumber(redis.call('GET', KEYS[1]) or '-1')
local reused = false
if tick <= hw then
  tick = hw
  reused = true
end
while true do
  if tick > max_tick then return {-2, now_ms} end
  local key = KEYS[2] .. tick
  local last = redis.call('INCRBY', key, count)
  redis.call('PEXPIRE', key, ttl)
  local first = last - count
  if not (reused and first == 0) and first <= max_seq then
    if tick > hw then redis.call('SET', KEYS[1], tick) end
    local hi = last - 1
    if hi > max_seq then hi = max_seq end
    return {tick, first, hi, now_ms}
  end
  tick = tick + 1
  reused = false
end
";

/// Seed 000's Redis composition generator. See the [module docs](self).
///
/// # Examples
/// ```no_run
/// use idmint::Layout;
/// use idmint_coord::redis_compose::RedisCompose;
///
/// let layout = Layout::parse("time=41@1ms,shard=12,seq=10,epoch=2020-01-01")?;
/// let ids = RedisCompose::new("redis://127.0.0.1:6379/", layout, "orders", 99)?;
/// let id = ids.next_id()?;
/// assert_eq!(layout.decompose(id)?.node, 99);
/// # Ok::<(), idmint::Error>(())
/// ```
pub struct RedisCompose {
    pool: RedisPool,
    layout: Layout,
    shard: u64,
    hw_key: String,
    seq_prefix: String,
    seq_ttl_ms: u64,
    script: redis::Script,
}

impl std::fmt::Debug for RedisCompose {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisCompose")
            .field("layout", &self.layout.to_string())
            .field("shard", &self.shard)
            .field("hw_key", &self.hw_key)
            .finish_non_exhaustive()
    }
}

impl RedisCompose {
    /// A generator on the Redis server at `url` (not connected until the first call; `rediss://`
    /// for TLS, with `ca_file=PATH` for a private CA, and `timeout_ms=N` bounding every connect
    /// and call, as for the [segment store](crate::segment::redis)), minting
    /// IDs of `layout` with node field `shard` from the counters of namespace `ns` (1 to 64
    /// bytes, no `{` or `}`). Fails with [`Error::InvalidConfig`] for a bad URL or namespace
    /// and [`Error::OutOfRange`] when `shard` does not fit the layout's node field.
    pub fn new(url: &str, layout: Layout, ns: &str, shard: u64) -> Result<Self> {
        if ns.is_empty() || ns.len() > 64 || ns.contains(['{', '}']) {
            return Err(Error::InvalidConfig {
                reason: "namespace must be 1 to 64 bytes without braces",
            });
        }
        layout.node_to_bits(shard)?;
        Ok(RedisCompose {
            pool: RedisPool::new(url)?,
            layout,
            shard,
            hw_key: format!("idmint:{{{ns}}}:hw"),
            seq_prefix: format!("idmint:{{{ns}}}:seq:"),
            seq_ttl_ms: DEFAULT_SEQ_TTL.as_millis() as u64,
            script: redis::Script::new(SCRIPT),
        })
    }

    /// Keeps each tick's counter for `ttl` after its last use instead of
    /// [`DEFAULT_SEQ_TTL`]; at least two ticks, so a counter cannot expire within its own
    /// tick. Shorter means less memory, longer means fewer skipped ticks while the server
    /// clock is behind the high-water mark.
    pub fn with_seq_ttl(mut self, ttl: Duration) -> Self {
        let floor = self.layout.tick_ms().saturating_mul(2);
        self.seq_ttl_ms = (ttl.as_millis().min(u128::from(u64::MAX)) as u64).max(floor);
        self
    }

    /// Bounds one connection attempt by `connect` and one script call by `io`.
    pub fn with_timeouts(mut self, connect: Duration, io: Duration) -> Self {
        self.pool.set_timeouts(connect, io);
        self
    }

    /// The layout IDs are composed with.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The Redis key of the high-water tick (for operators and tests).
    pub fn high_water_key(&self) -> &str {
        &self.hw_key
    }

    /// The Redis key of `tick`'s sequence counter.
    pub fn sequence_key(&self, tick: u64) -> String {
        format!("{}{tick}", self.seq_prefix)
    }

    /// One ID: one script call.
    pub fn next_id(&self) -> Result<u64> {
        let (tick, first, _) = self.call(1)?;
        self.compose(tick, first)
    }

    /// `n` IDs, ascending, with one script call per tick they span (a tick holds up to
    /// `max_sequence + 1` of them).
    pub fn next_ids(&self, n: usize) -> Result<Vec<u64>> {
        let mut out = Vec::with_capacity(n);
        let per_tick = self.layout.max_sequence().saturating_add(1);
        while out.len() < n {
            let want = ((n - out.len()) as u64).min(per_tick);
            let (tick, first, last) = self.call(want)?;
            for seq in first..=last {
                out.push(self.compose(tick, seq)?);
            }
        }
        Ok(out)
    }

    fn compose(&self, tick: u64, sequence: u64) -> Result<u64> {
        self.layout.compose(&Parts {
            time: tick,
            node: self.shard,
            sequence,
            rollback: 0,
        })
    }

    /// Runs the script for `count` sequence values; returns (tick, first, last).
    fn call(&self, count: u64) -> Result<(u64, u64, u64)> {
        let max_tick = self.layout.max_time().min(LUA_EXACT);
        let reply = self.pool.run(|con| {
            self.script
                .key(&self.hw_key)
                .key(&self.seq_prefix)
                .arg(self.layout.epoch_ms())
                .arg(self.layout.tick_ms())
                .arg(max_tick)
                .arg(self.layout.max_sequence().min(LUA_EXACT))
                .arg(count)
                .arg(self.seq_ttl_ms)
                .invoke::<Vec<i64>>(con)
        });
        let v = match reply {
            Ok(v) => v,
            Err(f) => {
                return Err(Error::StoreUnavailable {
                    store: "redis",
                    op: "compose",
                    reason: f.reason(),
                })
            }
        };
        match v.as_slice() {
            [-1, now, ..] => Err(Error::BeforeEpoch {
                now_ms: u64::try_from(*now).unwrap_or(0),
                epoch_ms: self.layout.epoch_ms(),
            }),
            [-2, ..] => Err(Error::LayoutExpired {
                end_ms: self.layout.lifetime_end_ms(),
            }),
            [tick, first, last, _] if *tick >= 0 && 0 <= *first && first <= last => {
                Ok((*tick as u64, *first as u64, *last as u64))
            }
            _ => Err(Error::StoreUnavailable {
                store: "redis",
                op: "compose",
                reason: "unexpected reply",
            }),
        }
    }
}
