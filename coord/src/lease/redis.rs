//! Node leases on Redis. Every operation is one Lua script, so its check-and-set is atomic.
//!
//! Keys of namespace `NS` (the braces are a Redis Cluster hash tag: one namespace's keys live
//! in one slot, as scripts need):
//!
//! | key | type | content |
//! |---|---|---|
//! | `idmint:{NS}:lease:N` | string, expires (`PX ttl`) | `TOKEN HOLDER` while node N is leased |
//! | `idmint:{NS}:token:N` | string, persistent | the fencing-token counter (`INCR` per grant) |
//! | `idmint:{NS}:bound:N` | string, persistent | the node's last-issued bound, ms |
//! | `idmint:{NS}:queue` | sorted set | every node, scored by when it was last granted or released |
//! | `idmint:{NS}:clock`, `idmint:{NS}:queued` | strings | the queue's logical clock; how many nodes are queued |
//!
//! Acquire walks the queue from its front (O(nodes) in one script at worst; 1,024 nodes take
//! about a millisecond). The bounds must outlive a Redis restart for the time fence to hold
//! across one: run Redis with persistence (`appendonly yes`) for that; a lost bound leaves the
//! fence to the clock alone.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use idmint::{Error, Result};

use crate::reason::Reason;
use redis::{Client, Connection, Script};

use super::{url, Lease, LeaseSpec, LeaseStore};

const STORE: &str = "redis";

const ACQUIRE: &str = r#"
local p, n, now, ttl, holder, avoid = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5], tonumber(ARGV[6])
local q = p .. 'queue'
local queued = tonumber(redis.call('GET', p .. 'queued') or '0')
if queued < n then
  for i = queued, n - 1 do redis.call('ZADD', q, 'NX', 0, i) end
  redis.call('SET', p .. 'queued', n)
end
local pick, pick_bound, ahead, ahead_bound, ahead_n = nil, '', nil, '', nil
for _, m in ipairs(redis.call('ZRANGE', q, 0, -1)) do
  local node = tonumber(m)
  if node < n and node ~= avoid and redis.call('EXISTS', p .. 'lease:' .. m) == 0 then
    local b = redis.call('GET', p .. 'bound:' .. m)
    if (not b) or tonumber(b) <= now then
      pick, pick_bound = m, (b or '')
      break
    end
    if ahead == nil or tonumber(b) < ahead_n then ahead, ahead_bound, ahead_n = m, b, tonumber(b) end
  end
end
if pick == nil then pick, pick_bound = ahead, ahead_bound end
if pick == nil then return {-1, 0, ''} end
local token = redis.call('INCR', p .. 'token:' .. pick)
redis.call('SET', p .. 'lease:' .. pick, token .. ' ' .. holder, 'PX', ttl)
redis.call('ZADD', q, redis.call('INCR', p .. 'clock'), pick)
return {tonumber(pick), token, pick_bound}
"#;

/// Returns 1 if the lease (ARGV[3] = token) still owns node ARGV[2] — its key holds the token,
/// or the key expired and nobody was granted the node since — after re-arming the key.
const OWNS: &str = r#"
local function owns(p, node, token, ttl, holder)
  local lk = p .. 'lease:' .. node
  local v = redis.call('GET', lk)
  if v then
    if string.match(v, '^(%d+)') ~= token then return false end
    redis.call('PEXPIRE', lk, ttl)
  else
    if redis.call('GET', p .. 'token:' .. node) ~= token then return false end
    redis.call('SET', lk, token .. ' ' .. holder, 'PX', ttl)
  end
  return true
end
"#;

const RENEW: &str = r#"
local p, node, token, ttl, up_to, holder = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
if not owns(p, node, token, ttl, holder) then return 0 end
local bk = p .. 'bound:' .. node
local b = redis.call('GET', bk)
if (not b) or tonumber(b) < tonumber(up_to) then redis.call('SET', bk, up_to) end
return 1
"#;

const RELEASE: &str = r#"
local p, node, token, ttl, final, holder = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
if not owns(p, node, token, ttl, holder) then return 0 end
redis.call('SET', p .. 'bound:' .. node, final)
redis.call('DEL', p .. 'lease:' .. node)
redis.call('ZADD', p .. 'queue', redis.call('INCR', p .. 'clock'), node)
return 1
"#;

/// Node leases on Redis; see the [module docs](self).
///
/// Holds one connection, opened on first use with the store's timeout for connect, read and
/// write, and dropped after any failure so the next call reconnects.
pub struct RedisStore {
    client: Client,
    timeout: Duration,
    con: Mutex<Option<Connection>>,
    acquire: Script,
    renew: Script,
    release: Script,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

fn unavailable(op: &'static str, reason: &'static str) -> Error {
    Error::StoreUnavailable {
        store: STORE,
        op,
        reason,
    }
}

fn prefix(ns: &str) -> String {
    format!("idmint:{{{ns}}}:")
}

impl RedisStore {
    /// Opens a store for `redis://HOST:PORT/[DB][?timeout_ms=N]` (no connection yet).
    pub fn open(url: &str) -> Result<RedisStore> {
        let split = url::split_params(url)?;
        if split.mode.is_some() {
            return Err(Error::InvalidConfig {
                reason: "the Redis lease store has no `mode` parameter",
            });
        }
        let client = Client::open(split.url.as_str()).map_err(|_| Error::InvalidConfig {
            reason: "invalid Redis URL",
        })?;
        Ok(RedisStore {
            client,
            timeout: split.timeout,
            con: Mutex::new(None),
            acquire: Script::new(ACQUIRE),
            renew: Script::new(&format!("{OWNS}{RENEW}")),
            release: Script::new(&format!("{OWNS}{RELEASE}")),
        })
    }

    /// The timeout of each call.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    fn connect(&self) -> redis::RedisResult<Connection> {
        let con = self.client.get_connection_with_timeout(self.timeout)?;
        con.set_read_timeout(Some(self.timeout))?;
        con.set_write_timeout(Some(self.timeout))?;
        Ok(con)
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
            *guard = Some(self.connect().map_err(|e| unavailable(op, e.reason()))?);
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

    fn owned_call(
        &self,
        script: &Script,
        op: &'static str,
        lease: &Lease,
        value: u64,
    ) -> Result<()> {
        let ttl = u64::try_from(lease.ttl.as_millis())
            .unwrap_or(u64::MAX)
            .max(1);
        let ok: i64 = self.with(op, |con| {
            script
                .arg(prefix(&lease.namespace))
                .arg(lease.node)
                .arg(lease.token)
                .arg(ttl)
                .arg(value)
                .arg(lease.holder.as_str())
                .invoke(con)
        })?;
        if ok == 1 {
            Ok(())
        } else {
            Err(Error::LeaseLost {
                node: lease.node,
                reason: "fencing token superseded",
            })
        }
    }
}

impl LeaseStore for RedisStore {
    fn kind(&self) -> &'static str {
        STORE
    }

    fn acquire(&self, spec: &LeaseSpec, now_ms: u64, avoid: Option<u64>) -> Result<Lease> {
        spec.validate()?;
        if spec.nodes > 1 << 20 {
            return Err(Error::InvalidConfig {
                reason: "the Redis lease store handles node spaces of at most 2^20 nodes",
            });
        }
        let avoid = avoid.map_or(-1, |a| i64::try_from(a).unwrap_or(-1));
        let holder = spec.holder_clean();
        let (node, token, bound): (i64, i64, String) = self.with("acquire", |con| {
            self.acquire
                .arg(prefix(&spec.namespace))
                .arg(spec.nodes)
                .arg(now_ms)
                .arg(spec.ttl_ms())
                .arg(holder.as_str())
                .arg(avoid)
                .invoke(con)
        })?;
        if node < 0 {
            return Err(Error::NoFreeNode { nodes: spec.nodes });
        }
        let fence_ms = if bound.is_empty() {
            None
        } else {
            Some(
                bound
                    .parse()
                    .map_err(|_| unavailable("acquire", "corrupt record"))?,
            )
        };
        Ok(Lease {
            namespace: spec.namespace.clone(),
            node: node as u64,
            token: token as u64,
            fence_ms,
            ttl: spec.ttl,
            holder,
            owner: super::random_nonzero()?,
            epoch: 0,
            not_before_ms: None,
        })
    }

    fn renew(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
        self.owned_call(&self.renew, "renew", lease, issued_up_to_ms)
    }

    fn release(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
        self.owned_call(
            &self.release,
            "release",
            lease,
            lease.final_bound(issued_up_to_ms),
        )
    }
}
