//! Node leases on Redis. Every operation is one Lua script, so its checks and writes are atomic.
//!
//! # What the store guarantees, and what it assumes
//!
//! Redis can lose what it acknowledged: `FLUSHALL`, a restart without persistence, a crash
//! under `appendfsync everysec` (the last second), a failover to a replica that lagged. A
//! holder whose records vanished does not stop at once — it mints until its next renewal, and
//! up to the bound it recorded — so a store that simply granted the node again would let two
//! holders mint on one node. Three defences keep that from happening:
//!
//! - **Holder identity.** Every grant draws a random 64-bit owner (client-side) and the lease
//!   key holds it with the fencing token; renew and release check both. A store that lost its
//!   counters hands out token 1 again, but never the same owner.
//! - **A store epoch.** Each namespace has a random epoch, created on first use and replaced
//!   whenever the store may have lost records. Leases carry the epoch they were granted under,
//!   and a renewal or release under another epoch (or none) is [`Error::LeaseLost`]:
//!   "the store lost its records".
//! - **A lock delay.** A grant under a new epoch is fenced past anything a holder of the lost
//!   records could still mint: `not_before_ms = now + the longest horizon`
//!   ([`LeaseSpec::horizon`]; the largest ever asked for in the namespace is recorded, and the
//!   larger of it and the asking spec's is used). Every node granted before that moment gets the
//!   same fence, not only the first. A namespace's very first grant cannot be told from the
//!   first grant after a wipe, so it pays the lock delay too (once).
//!
//! **How a loss is detected.** A wipe (`FLUSHALL`, restart without persistence) removes the
//! epoch. A crash under `appendfsync everysec` or a failover to a lagging replica may keep the
//! epoch but lose the last grants and bounds, so the epoch record also holds the server's
//! `run_id`, and a changed `run_id` — any restart or failover — counts as a possible loss:
//! leases granted before it are lost, and the next grant is fenced. The scripts read the
//! `run_id` themselves (`INFO server`), so it is that of the server running the check; a value
//! read by the client could come from another server behind a proxy or before a failover. A restart therefore costs a pause of the lock delay
//! (default twice the TTL); a duplicate ID is never an acceptable price. Deployments where a
//! restart loses nothing — `appendonly yes`, `appendfsync always`, and no failover to a replica —
//! may say so with **`restart=durable`** in the URL: a changed `run_id` is then accepted, and
//! leases survive restarts. Wrongly claimed, it brings back duplicates after a crash; and every
//! client of a namespace must say it or none (one trusting client accepts the new `run_id` for
//! all).
//!
//! **Assumptions.** The lock delay and every fence are in the *holders'* clock (the caller's
//! `now_ms`), because that is what IDs carry: holders' clocks must agree to within about a
//! TTL (the horizon's margin over the reserve an old holder minted into). A namespace whose records were wiped forgets its recorded horizon, so after a wipe
//! the fence uses the asking holder's horizon: give a namespace's holders the same TTL. A server
//! that comes back with an old copy of its own data under the same `run_id` (a partitioned
//! primary promoted again without resynchronising) is not detected. Scripts need the `INFO`
//! command (and `TIME`); a `rename-command`ed `INFO` makes every call fail.
//!
//! # Keys
//!
//! Keys of namespace `NS` (the braces are a Redis Cluster hash tag: one namespace's keys live
//! in one slot, as scripts need):
//!
//! | key | type | content |
//! |---|---|---|
//! | `idmint:{NS}:epoch` | hash | `epoch`, `run_id`, `horizon` (largest, ms), `lost_at` and `fence` (the lock delay, holders' ms), `next` (the next never-used node) |
//! | `idmint:{NS}:lease:N` | string, expires (`PX ttl`) | `EPOCH TOKEN OWNER HOLDER` while node N is leased |
//! | `idmint:{NS}:node:N` | hash, persistent | `token` (fencing-token counter), `owner` and `holder` of the last grant, `bound` (last-issued bound, ms) |
//! | `idmint:{NS}:free` | sorted set | nodes released or found expired, scored by when (server ms) |
//! | `idmint:{NS}:held` | sorted set | granted nodes, scored by when their lease expires (server ms) |
//!
//! Of the records of earlier versions of this store only the bounds (`bound:N`) are read, when
//! a node has none of its own; their leases are not (the first grant after an upgrade pays the
//! lock delay like a namespace's first use, which also fences their live holders).
//!
//! # Work per call
//!
//! Never-used nodes come from the `next` counter, so nothing is filled in advance. An acquire
//! looks at a page of [`PAGE`] entries from the front of `held` (leases that expired, or belong
//! to an older epoch, without a release move to `free`) and, when no never-used node is left, a
//! page from the front of `free`: the first node whose bound is not ahead of `now`, else the
//! nearest bound in the page. Released nodes go to the back of `free`. The work is a few
//! hundred commands at most, whatever the node space; node spaces up to 2^53 nodes work (the
//! scripts' numbers are doubles), larger ones are [`Error::LimitExceeded`]. Renew and release
//! touch one node.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use idmint::{Error, Result};

use crate::reason::Reason;
use redis::{Client, Connection, Script};

use super::contract::{Lease, LeaseSpec, LeaseStore};
use super::url;

const STORE: &str = "redis";

/// How many entries of `held` and of `free` one acquire looks at.
pub const PAGE: u64 = 64;

/// The largest node space, and the largest millisecond value sent to the scripts: Lua numbers
/// are doubles, exact to 2^53.
const MAX_EXACT: u64 = 1 << 53;

/// The largest TTL or horizon: about 35 years, far from both Redis's and Lua's limits.
const MAX_SPAN_MS: u64 = 1 << 40;

/// Functions every script starts with.
const COMMON: &str = r#"
if redis.replicate_commands then redis.replicate_commands() end
local function num(x) return string.format('%.0f', x) end
local function server_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function run_id()
  local id = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
  if not id then error('idmint: INFO server shows no run_id') end
  return id
end
"#;

/// Returns 0 if the lease (epoch, token, owner) still owns its node — its key holds them, or
/// the key expired and nobody was granted the node since — after re-arming the key; else why
/// not: 1 another grant, 2 the epoch is gone or replaced, 3 the server restarted.
const OWNS: &str = r#"
local function owns(p, node, epoch, token, owner, ttl, holder, trust)
  local e = redis.call('HMGET', p .. 'epoch', 'epoch', 'run_id')
  if (not e[1]) or e[1] ~= epoch then return 2 end
  if trust ~= '1' and e[2] ~= run_id() then return 3 end
  local lk = p .. 'lease:' .. node
  local mine = epoch .. ' ' .. token .. ' ' .. owner .. ' '
  local v = redis.call('GET', lk)
  if v then
    if string.sub(v, 1, #mine) ~= mine then return 1 end
    redis.call('PEXPIRE', lk, ttl)
  else
    local n = redis.call('HMGET', p .. 'node:' .. node, 'token', 'owner')
    if n[1] ~= token or n[2] ~= owner then return 1 end
    redis.call('SET', lk, mine .. holder, 'PX', ttl)
    redis.call('ZREM', p .. 'free', node)
  end
  redis.call('ZADD', p .. 'held', server_ms() + tonumber(ttl), node)
  return 0
end
"#;

const ACQUIRE: &str = r#"
local p, n, now, ttl, holder, avoid = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6])
local new_epoch, trust, hz, owner, page = ARGV[7], ARGV[8], tonumber(ARGV[9]), ARGV[10], tonumber(ARGV[11])
local tnow, rid = server_ms(), run_id()
local ek, fk, hk = p .. 'epoch', p .. 'free', p .. 'held'
local e = redis.call('HMGET', ek, 'epoch', 'run_id', 'horizon', 'fence', 'lost_at', 'next')
local epoch, recorded = e[1], tonumber(e[3] or '0')
local fence, lost_at, nxt = tonumber(e[4] or '0'), tonumber(e[5] or '0'), tonumber(e[6] or '0')
local horizon = math.max(recorded, hz)
if (not epoch) or (trust ~= '1' and e[2] ~= rid) then
  -- The records may be lost: a new epoch, fenced past what holders of the old one can mint.
  epoch, lost_at, fence = new_epoch, now, now + horizon
  redis.call('HSET', ek, 'epoch', epoch, 'run_id', rid, 'horizon', num(horizon),
    'lost_at', num(lost_at), 'fence', num(fence), 'next', num(nxt))
else
  if e[2] ~= rid then redis.call('HSET', ek, 'run_id', rid) end
  if horizon > recorded then
    fence = math.max(fence, lost_at + horizon)
    redis.call('HSET', ek, 'horizon', num(horizon), 'fence', num(fence))
  end
end
local prefix = epoch .. ' '
local function lease_ms(m)
  -- ms left on a lease of this epoch on node m, or nil if it has none
  local lk = p .. 'lease:' .. m
  local v = redis.call('GET', lk)
  if v and string.sub(v, 1, #prefix) == prefix then return redis.call('PTTL', lk) end
  return nil
end
-- Leases that expired, or belong to an older epoch, without a release: their nodes are free.
local h = redis.call('ZRANGE', hk, 0, page - 1, 'WITHSCORES')
for i = 1, #h, 2 do
  local m, at = h[i], tonumber(h[i + 1])
  if not lease_ms(m) then
    redis.call('ZREM', hk, m)
    redis.call('ZADD', fk, math.min(at, tnow), m)
  end
end
local pick, bound = nil, nil
-- Never-used nodes first, from the counter.
local start = nxt
while pick == nil and nxt < n do
  local m = num(nxt)
  nxt = nxt + 1
  local left = lease_ms(m)
  if left then
    redis.call('ZADD', hk, tnow + left, m)
  elseif nxt - 1 == avoid then
    redis.call('ZADD', fk, 0, m)
  else
    pick = m
  end
end
if nxt ~= start then redis.call('HSET', ek, 'next', num(nxt)) end
if pick then
  bound = redis.call('HGET', p .. 'node:' .. pick, 'bound')
else
  -- Free nodes from the front of the queue: the first whose bound is not ahead of now,
  -- else the nearest bound among those looked at.
  local near, near_b = nil, nil
  for _, m in ipairs(redis.call('ZRANGE', fk, 0, page - 1)) do
    local node = tonumber(m)
    if node < n and node ~= avoid then
      local left = lease_ms(m)
      if left then
        redis.call('ZREM', fk, m)
        redis.call('ZADD', hk, tnow + left, m)
      else
        local b = redis.call('HGET', p .. 'node:' .. m, 'bound')
        if (not b) or tonumber(b) <= now then
          pick, bound = m, b
          break
        end
        if near == nil or tonumber(b) < tonumber(near_b) then near, near_b = m, b end
      end
    end
  end
  if pick == nil then pick, bound = near, near_b end
end
if pick == nil then return {-1, 0, '', '', -1} end
local nk = p .. 'node:' .. pick
-- A bound recorded by an earlier version of this store.
if not bound then bound = redis.call('GET', p .. 'bound:' .. pick) end
local token = redis.call('HINCRBY', nk, 'token', 1)
redis.call('HSET', nk, 'owner', owner, 'holder', holder)
redis.call('SET', p .. 'lease:' .. pick, prefix .. token .. ' ' .. owner .. ' ' .. holder, 'PX', ttl)
redis.call('ZREM', fk, pick)
redis.call('ZADD', hk, tnow + ttl, pick)
local delay = -1
if now <= fence then delay = fence end
return {tonumber(pick), token, bound or '', epoch, delay}
"#;

const RENEW: &str = r#"
local p, node, epoch, token, owner, ttl, up_to, holder, trust = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9]
local c = owns(p, node, epoch, token, owner, ttl, holder, trust)
if c ~= 0 then return c end
local nk = p .. 'node:' .. node
local b = redis.call('HGET', nk, 'bound')
if (not b) or tonumber(b) < tonumber(up_to) then redis.call('HSET', nk, 'bound', up_to) end
return 0
"#;

const RELEASE: &str = r#"
local p, node, epoch, token, owner, ttl, final, holder, trust = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9]
local c = owns(p, node, epoch, token, owner, ttl, holder, trust)
if c ~= 0 then return c end
local nk = p .. 'node:' .. node
local b = redis.call('HGET', nk, 'bound')
if (not b) or tonumber(b) < tonumber(final) then redis.call('HSET', nk, 'bound', final) end
-- Released: a late renewal of this lease must not take the node again.
redis.call('HDEL', nk, 'owner')
redis.call('DEL', p .. 'lease:' .. node)
redis.call('ZREM', p .. 'held', node)
redis.call('ZADD', p .. 'free', server_ms(), node)
return 0
"#;

/// Node leases on Redis; see the [module docs](self).
///
/// Holds one connection, opened on first use with the store's timeout for connect, read and
/// write, and dropped after any failure so the next call reconnects.
pub struct RedisStore {
    client: Client,
    timeout: Duration,
    /// `restart=durable`: a changed server `run_id` is not taken for a loss.
    durable_restarts: bool,
    con: Mutex<Option<Connection>>,
    acquire: Script,
    renew: Script,
    release: Script,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("timeout", &self.timeout)
            .field("durable_restarts", &self.durable_restarts)
            .finish_non_exhaustive()
    }
}

fn unavailable(op: &'static str, reason: &'static str) -> Error {
    super::contract::unavailable(STORE, op, reason)
}

fn prefix(ns: &str) -> String {
    format!("idmint:{{{ns}}}:")
}

/// Refuses a millisecond value the scripts cannot compute with exactly.
fn exact(ms: u64, what: &'static str) -> Result<u64> {
    if ms > MAX_EXACT {
        return Err(Error::LimitExceeded {
            what,
            limit: MAX_EXACT,
        });
    }
    Ok(ms)
}

fn span(ms: u64, what: &'static str) -> Result<u64> {
    if ms > MAX_SPAN_MS {
        return Err(Error::LimitExceeded {
            what,
            limit: MAX_SPAN_MS,
        });
    }
    Ok(ms.max(1))
}

impl RedisStore {
    /// Opens a store for `redis://HOST:PORT/[DB]` or `rediss://...` with the parameters
    /// `timeout_ms=N`, `ca_file=PATH` (`rediss://`: a private CA) and `restart=durable`
    /// (see the [module docs](self)). Does not connect yet.
    pub fn open(url: &str) -> Result<RedisStore> {
        let split = url::split_params(url)?;
        split.no_mode("the Redis lease store has no `mode` parameter")?;
        let (rest, restart) = crate::redis_conn::take_param(&split.url, "restart")?;
        let durable_restarts = match restart.as_deref() {
            None | Some("fence") => false,
            Some("durable") => true,
            Some(_) => {
                return Err(Error::InvalidConfig {
                    reason: "restart= is `fence` (the default) or `durable`",
                })
            }
        };
        let target = crate::redis_conn::target(&rest)?;
        Ok(RedisStore {
            client: target.client,
            timeout: split.timeout,
            durable_restarts,
            con: Mutex::new(None),
            acquire: Script::new(&format!("{COMMON}{ACQUIRE}")),
            renew: Script::new(&format!("{COMMON}{OWNS}{RENEW}")),
            release: Script::new(&format!("{COMMON}{OWNS}{RELEASE}")),
        })
    }

    /// The timeout of each call.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Runs `f` on the connection (connecting first if needed); any failure drops the
    /// connection and becomes `StoreUnavailable { op }`.
    fn with<T>(
        &self,
        op: &'static str,
        f: impl FnOnce(&mut Connection) -> redis::RedisResult<T>,
    ) -> Result<T> {
        let mut guard: MutexGuard<'_, Option<Connection>> =
            self.con.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            let con = crate::redis_conn::connect(&self.client, self.timeout, self.timeout)
                .map_err(|e| unavailable(op, e.reason()))?;
            *guard = Some(con);
        }
        let Some(con) = guard.as_mut() else {
            return Err(unavailable(op, "not connected"));
        };
        match f(con) {
            Ok(v) => Ok(v),
            Err(e) => {
                *guard = None;
                Err(unavailable(op, e.reason()))
            }
        }
    }

    fn trust(&self) -> &'static str {
        if self.durable_restarts {
            "1"
        } else {
            "0"
        }
    }

    fn owned_call(
        &self,
        script: &Script,
        op: &'static str,
        lease: &Lease,
        value: u64,
    ) -> Result<()> {
        let ttl_ms = u64::try_from(lease.ttl.as_millis()).unwrap_or(u64::MAX);
        let ttl = span(ttl_ms, "lease ttl in ms")?;
        let value = exact(value, "ms values sent to the Redis lease store")?;
        let code: i64 = self.with(op, |con| {
            script
                .key(format!("{}epoch", prefix(&lease.namespace)))
                .arg(prefix(&lease.namespace))
                .arg(lease.node)
                .arg(lease.epoch.to_string())
                .arg(lease.token)
                .arg(lease.owner.to_string())
                .arg(ttl)
                .arg(value)
                .arg(lease.holder.as_str())
                .arg(self.trust())
                .invoke(con)
        })?;
        let reason = match code {
            0 => return Ok(()),
            2 => "the store lost its records",
            3 => "the store restarted or failed over",
            _ => "another holder has the node",
        };
        Err(Error::LeaseLost {
            node: lease.node,
            reason,
        })
    }
}

impl LeaseStore for RedisStore {
    fn kind(&self) -> &'static str {
        STORE
    }

    fn acquire(&self, spec: &LeaseSpec, now_ms: u64, avoid: Option<u64>) -> Result<Lease> {
        spec.validate()?;
        if spec.nodes > MAX_EXACT {
            return Err(Error::LimitExceeded {
                what: "nodes in a Redis lease node space",
                limit: MAX_EXACT,
            });
        }
        let now_ms = exact(now_ms, "ms values sent to the Redis lease store")?;
        let ttl_ms = span(spec.ttl_ms(), "lease ttl in ms")?;
        let horizon_ms = span(spec.horizon_ms(), "lease horizon in ms")?;
        // A node outside the space is never granted anyway.
        let avoid = avoid.filter(|&a| a < spec.nodes).map_or(-1, |a| a as i64);
        let holder = spec.holder_clean();
        let owner = super::contract::random_nonzero()?;
        let new_epoch = super::contract::random_nonzero()?;
        let ns = prefix(&spec.namespace);
        let (node, token, bound, epoch, delay): (i64, i64, String, String, i64) =
            self.with("acquire", |con| {
                self.acquire
                    .key(format!("{ns}epoch"))
                    .arg(&ns)
                    .arg(spec.nodes)
                    .arg(now_ms)
                    .arg(ttl_ms)
                    .arg(holder.as_str())
                    .arg(avoid)
                    .arg(new_epoch.to_string())
                    .arg(self.trust())
                    .arg(horizon_ms)
                    .arg(owner.to_string())
                    .arg(PAGE)
                    .invoke(con)
            })?;
        if node < 0 {
            return Err(Error::NoFreeNode { nodes: spec.nodes });
        }
        let corrupt = || unavailable("acquire", "corrupt record");
        let bound_ms: Option<u64> = if bound.is_empty() {
            None
        } else {
            Some(bound.parse().map_err(|_| corrupt())?)
        };
        let epoch: u64 = epoch.parse().map_err(|_| corrupt())?;
        let not_before_ms = u64::try_from(delay).ok();
        let fence_ms = match (bound_ms, not_before_ms) {
            (Some(b), Some(d)) => Some(b.max(d)),
            (b, d) => b.or(d),
        };
        Ok(Lease {
            namespace: spec.namespace.clone(),
            node: u64::try_from(node).map_err(|_| corrupt())?,
            token: u64::try_from(token).map_err(|_| corrupt())?,
            fence_ms,
            ttl: spec.ttl,
            holder,
            owner,
            epoch,
            not_before_ms,
        })
    }

    fn renew(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
        self.owned_call(&self.renew, "renew", lease, issued_up_to_ms)
    }

    fn release(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
        let last = lease.final_bound(issued_up_to_ms);
        self.owned_call(&self.release, "release", lease, last)
    }
}
