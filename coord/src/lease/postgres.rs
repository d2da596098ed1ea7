//! Node leases on PostgreSQL, in two modes.
//!
//! **Lease mode** (`postgres://...`): table `idmint_lease`, one row per (namespace, node),
//! created with the table on first use:
//!
//! | column | meaning |
//! |---|---|
//! | `holder` | who holds it (`NULL` when free) |
//! | `token` | fencing token, bumped by every grant |
//! | `expires_at` | server time the lease ends unless renewed |
//! | `last_issued_ms` | the node's last-issued bound (the next holder's time fence) |
//! | `released_at` | when it was last released or granted: its place in the queue |
//!
//! Acquire is one statement: `SELECT ... FOR UPDATE SKIP LOCKED` picks a free or expired row
//! in queue order (bound not ahead of the caller's clock first, then released longest ago)
//! and the surrounding `UPDATE` bumps its token. Concurrent acquirers skip each other's rows
//! instead of waiting on them. Renew and release match on the token.
//!
//! **Boot mode** (`postgres://...?mode=boot`, Baidu UidGenerator's worker-id assigner): every
//! acquire inserts a row into `idmint_boot` (namespace, node, host, pid, holder, started_at)
//! under the next value of a per-namespace counter, and that value is the node. Nodes are
//! never reused, so no time fence and no renewal are needed and a store outage after start-up
//! cannot stop minting — but each boot consumes a node for good: once the counter passes the
//! node space, acquire fails with [`Error::NoFreeNode`] (Baidu sizes its worker field at 22
//! bits, ~4 million boots, for that reason). Release only stamps `stopped_at`.
//!
//! Every call has the store's timeout as connect timeout, TCP user timeout and
//! `statement_timeout`; a failed call drops the connection and the next one reconnects.

use std::str::FromStr;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use idmint::{Error, Result};

use crate::reason::Reason;
use postgres::{Client, Config, NoTls};

use super::{url, Lease, LeaseSpec, LeaseStore};

const STORE: &str = "postgres";

/// Serialises concurrent `CREATE TABLE IF NOT EXISTS` (which can race on the catalog).
const SCHEMA_LOCK: i64 = 0x01d6_d171_ea5e;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS idmint_lease (
    namespace      text        NOT NULL,
    node           bigint      NOT NULL,
    holder         text,
    token          bigint      NOT NULL DEFAULT 0,
    expires_at     timestamptz,
    last_issued_ms bigint,
    released_at    timestamptz,
    PRIMARY KEY (namespace, node)
);
CREATE TABLE IF NOT EXISTS idmint_boot_seq (
    namespace text   PRIMARY KEY,
    next_node bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS idmint_boot (
    namespace      text        NOT NULL,
    node           bigint      NOT NULL,
    host           text        NOT NULL,
    pid            bigint      NOT NULL,
    holder         text        NOT NULL,
    started_at     timestamptz NOT NULL DEFAULT now(),
    stopped_at     timestamptz,
    last_issued_ms bigint,
    PRIMARY KEY (namespace, node)
);";

const FILL: &str = "INSERT INTO idmint_lease (namespace, node)
    SELECT $1, g FROM generate_series(0::bigint, $2::bigint - 1) AS g
    ON CONFLICT DO NOTHING";

const ACQUIRE: &str = "UPDATE idmint_lease AS l
    SET token = l.token + 1, holder = $4,
        expires_at = now() + $5::bigint * interval '1 millisecond', released_at = now()
    FROM (SELECT node FROM idmint_lease
          WHERE namespace = $1 AND node < $2 AND node <> $3
            AND (holder IS NULL OR expires_at <= now())
          ORDER BY COALESCE(last_issued_ms, -1) > $6,
                   CASE WHEN COALESCE(last_issued_ms, -1) > $6 THEN last_issued_ms ELSE 0 END,
                   released_at NULLS FIRST, node
          LIMIT 1
          FOR UPDATE SKIP LOCKED) AS c
    WHERE l.namespace = $1 AND l.node = c.node
    RETURNING l.node, l.token, l.last_issued_ms";

/// Whether any node is free or expired, ignoring row locks (after `ACQUIRE` found none it
/// could lock).
const ANY_FREE: &str = "SELECT EXISTS (SELECT 1 FROM idmint_lease
    WHERE namespace = $1 AND node < $2 AND node <> $3
      AND (holder IS NULL OR expires_at <= now()))";

/// How many times `acquire` tries again while free rows exist but are all locked for the
/// moment (about a second in all).
const ACQUIRE_RETRIES: u64 = 60;

const RENEW: &str = "UPDATE idmint_lease
    SET expires_at = now() + $4::bigint * interval '1 millisecond',
        last_issued_ms = GREATEST(COALESCE(last_issued_ms, 0), $5)
    WHERE namespace = $1 AND node = $2 AND token = $3 AND holder IS NOT NULL";

const RELEASE: &str = "UPDATE idmint_lease
    SET holder = NULL, expires_at = NULL, last_issued_ms = $4, released_at = now()
    WHERE namespace = $1 AND node = $2 AND token = $3 AND holder IS NOT NULL";

const BOOT_NEXT: &str = "INSERT INTO idmint_boot_seq (namespace, next_node) VALUES ($1, 1)
    ON CONFLICT (namespace) DO UPDATE SET next_node = idmint_boot_seq.next_node + 1
    RETURNING next_node - 1";

const BOOT_ROW: &str = "INSERT INTO idmint_boot (namespace, node, host, pid, holder)
    VALUES ($1, $2, $3, $4, $5)";

const BOOT_STOP: &str = "UPDATE idmint_boot SET stopped_at = now(), last_issued_ms = $3
    WHERE namespace = $1 AND node = $2";

/// Node leases on PostgreSQL; see the [module docs](self).
pub struct PgStore {
    config: Config,
    boot: bool,
    timeout: Duration,
    conn: Mutex<Conn>,
}

#[derive(Default)]
struct Conn {
    client: Option<Client>,
    /// Namespaces whose rows exist (per node-space size), so acquire skips the fill.
    filled: Vec<(String, u64)>,
    schema: bool,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("boot", &self.boot)
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

fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl PgStore {
    /// Opens a store for `postgres://...` or `postgresql://...`, with `mode=boot` for the
    /// new-row-per-boot mode and `timeout_ms=N` for the call timeout (no connection yet).
    pub fn open(url: &str) -> Result<PgStore> {
        let split = url::split_params(url)?;
        let boot = match split.mode.as_deref() {
            None | Some("lease") => false,
            Some("boot") => true,
            Some(_) => {
                return Err(Error::InvalidConfig {
                    reason: "PostgreSQL lease store mode must be `lease` or `boot`",
                })
            }
        };
        let mut config = Config::from_str(&split.url).map_err(|_| Error::InvalidConfig {
            reason: "invalid PostgreSQL URL",
        })?;
        let ms = split.timeout.as_millis();
        let options = format!(
            "{} -c statement_timeout={ms} -c lock_timeout={ms} -c idle_in_transaction_session_timeout={}",
            config.get_options().unwrap_or(""),
            ms.saturating_mul(10)
        );
        config
            .options(options.trim())
            .connect_timeout(split.timeout)
            .tcp_user_timeout(split.timeout)
            .keepalives(true)
            .keepalives_idle(Duration::from_secs(1))
            .keepalives_interval(Duration::from_secs(1))
            .keepalives_retries(3);
        if config.get_application_name().is_none() {
            config.application_name("idmint-lease");
        }
        Ok(PgStore {
            config,
            boot,
            timeout: split.timeout,
            conn: Mutex::new(Conn::default()),
        })
    }

    /// Whether this store runs in new-row-per-boot mode.
    pub fn is_boot_mode(&self) -> bool {
        self.boot
    }

    /// Runs `f` with a connected client whose schema exists; any failure drops the
    /// connection and becomes `StoreUnavailable { op }`.
    fn with<T>(
        &self,
        op: &'static str,
        f: impl FnOnce(&mut Client, &mut Vec<(String, u64)>) -> std::result::Result<T, postgres::Error>,
    ) -> Result<T> {
        let mut guard: MutexGuard<'_, Conn> = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let conn = &mut *guard;
        if conn.client.is_none() {
            conn.client = Some(
                self.config
                    .connect(NoTls)
                    .map_err(|e| unavailable(op, e.reason()))?,
            );
        }
        let Some(client) = conn.client.as_mut() else {
            return Err(unavailable(op, "not connected"));
        };
        let run = || -> std::result::Result<T, postgres::Error> {
            if !conn.schema {
                let mut tx = client.transaction()?;
                tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])?;
                tx.batch_execute(SCHEMA)?;
                tx.commit()?;
                conn.schema = true;
            }
            f(client, &mut conn.filled)
        };
        match run() {
            Ok(v) => Ok(v),
            Err(e) => {
                conn.client = None;
                Err(unavailable(op, e.reason()))
            }
        }
    }

    fn acquire_boot(&self, spec: &LeaseSpec) -> Result<Lease> {
        let holder = spec.holder_clean();
        let host = super::hostname();
        let pid = i64::from(std::process::id());
        let ns = spec.namespace.as_str();
        let node: Option<i64> = self.with("acquire", |client, _| {
            let mut tx = client.transaction()?;
            let node: i64 = tx.query_one(BOOT_NEXT, &[&ns])?.get(0);
            if node < 0 || node as u64 >= spec.nodes {
                tx.rollback()?;
                return Ok(None);
            }
            tx.execute(BOOT_ROW, &[&ns, &node, &host, &pid, &holder])?;
            tx.commit()?;
            Ok(Some(node))
        })?;
        let Some(node) = node else {
            return Err(Error::NoFreeNode { nodes: spec.nodes });
        };
        Ok(Lease {
            namespace: spec.namespace.clone(),
            node: node as u64,
            token: 1,
            fence_ms: None,
            ttl: spec.ttl,
            holder,
            owner: super::random_nonzero()?,
            epoch: 0,
            not_before_ms: None,
        })
    }
}

impl LeaseStore for PgStore {
    fn kind(&self) -> &'static str {
        STORE
    }

    fn acquire(&self, spec: &LeaseSpec, now_ms: u64, avoid: Option<u64>) -> Result<Lease> {
        spec.validate()?;
        if spec.nodes > 1 << 24 {
            return Err(Error::InvalidConfig {
                reason: "the PostgreSQL lease store handles node spaces of at most 2^24 nodes",
            });
        }
        if self.boot {
            return self.acquire_boot(spec);
        }
        let holder = spec.holder_clean();
        let ns = spec.namespace.as_str();
        let nodes = to_i64(spec.nodes);
        let avoid = avoid.map_or(-1, to_i64);
        let ttl = to_i64(spec.ttl_ms());
        let now = to_i64(now_ms);
        // `SKIP LOCKED` also skips a free row that another session has locked for a moment
        // (a release committing, another acquirer that will settle on a different row). So
        // "no row" is only believed once no free row is visible at all; otherwise try again.
        let mut attempt = 0u64;
        let (node, token, bound) = loop {
            let row = self.with("acquire", |client, filled| {
                if !filled.iter().any(|(n, k)| n == ns && *k >= spec.nodes) {
                    client.execute(FILL, &[&ns, &nodes])?;
                    filled.push((ns.to_string(), spec.nodes));
                }
                let row = client.query_opt(ACQUIRE, &[&ns, &nodes, &avoid, &holder, &ttl, &now])?;
                if let Some(r) = row {
                    let node: i64 = r.get(0);
                    let token: i64 = r.get(1);
                    let bound: Option<i64> = r.get(2);
                    return Ok(Ok((node, token, bound)));
                }
                let free: bool = client.query_one(ANY_FREE, &[&ns, &nodes, &avoid])?.get(0);
                Ok(Err(free))
            })?;
            match row {
                Ok(got) => break got,
                Err(true) if attempt < ACQUIRE_RETRIES => {
                    attempt += 1;
                    std::thread::sleep(Duration::from_millis(attempt.min(20)));
                }
                Err(_) => return Err(Error::NoFreeNode { nodes: spec.nodes }),
            }
        };
        Ok(Lease {
            namespace: spec.namespace.clone(),
            node: node as u64,
            token: token as u64,
            fence_ms: bound.map(|b| b.max(0) as u64),
            ttl: spec.ttl,
            holder,
            owner: super::random_nonzero()?,
            epoch: 0,
            not_before_ms: None,
        })
    }

    fn renew(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
        if self.boot {
            // A boot node is never granted again: nothing to extend or fence.
            return Ok(());
        }
        let ns = lease.namespace.as_str();
        let (node, token) = (to_i64(lease.node), to_i64(lease.token));
        let ttl = to_i64(u64::try_from(lease.ttl.as_millis()).unwrap_or(u64::MAX));
        let up_to = to_i64(issued_up_to_ms);
        let n = self.with("renew", |client, _| {
            client.execute(RENEW, &[&ns, &node, &token, &ttl, &up_to])
        })?;
        if n == 1 {
            Ok(())
        } else {
            Err(Error::LeaseLost {
                node: lease.node,
                reason: "fencing token superseded",
            })
        }
    }

    fn release(&self, lease: &Lease, issued_up_to_ms: u64) -> Result<()> {
        let ns = lease.namespace.as_str();
        let (node, token) = (to_i64(lease.node), to_i64(lease.token));
        let last = to_i64(lease.final_bound(issued_up_to_ms));
        if self.boot {
            self.with("release", |client, _| {
                client.execute(BOOT_STOP, &[&ns, &node, &last])
            })?;
            return Ok(());
        }
        let n = self.with("release", |client, _| {
            client.execute(RELEASE, &[&ns, &node, &token, &last])
        })?;
        if n == 1 {
            Ok(())
        } else {
            Err(Error::LeaseLost {
                node: lease.node,
                reason: "fencing token superseded",
            })
        }
    }
}
