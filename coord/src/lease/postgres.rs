//! Node leases on PostgreSQL, in two modes.
//!
//! **Lease mode** (`postgres://...`): table `idmint_lease`, one row per (namespace, node) ever
//! granted, and table `idmint_lease_epoch`, one row per namespace plus one for the store:
//!
//! | `idmint_lease` column | meaning |
//! |---|---|
//! | `holder` | who holds it (`NULL` when free) |
//! | `token` | fencing token, bumped by every grant |
//! | `owner` | the grant's random owner nonce ([`Lease::owner`]), drawn by the client |
//! | `expires_at` | server time the lease ends unless renewed |
//! | `last_issued_ms` | the node's last-issued bound (the next holder's time fence) |
//! | `released_at` | when it was last released or granted: its place in the queue |
//! | `horizon_ms` | the grant's [`LeaseSpec::horizon`] |
//!
//! Renew and release match the row's token **and** owner, and the namespace's current epoch
//! (below): a holder whose row was granted again — also by a store that lost its tokens and
//! handed out the same token once more — gets [`Error::LeaseLost`].
//!
//! Acquire is two statements. The first checks, in one snapshot, that the store's records are
//! whole (below). The second grants: a never-used node from the namespace's counter
//! `next_node` (the row is created by the grant), or else the best free or expired row in queue
//! order (bound not ahead of the caller's clock first, then released longest ago) with
//! `FOR UPDATE SKIP LOCKED`; it also bumps the namespace's grant count, on condition that the
//! epoch and the fingerprint are still those the check saw, so the namespace's row is locked
//! only for that one statement. Only when the check fails does a repair transaction run under
//! the namespace row's lock. No row exists for a node never granted, so an acquire's work grows
//! with the nodes ever used in the namespace, not with the size of the node space (a 32-bit
//! node field is fine).
//!
//! **Boot mode** (`postgres://...?mode=boot`, Baidu UidGenerator's worker-id assigner): every
//! acquire inserts a row into `idmint_boot` (namespace, node, host, pid, holder, started_at)
//! under the next value of a per-namespace counter, and that value is the node. Nodes are
//! never reused, so no time fence and no renewal are needed and a store outage after start-up
//! cannot stop minting — but each boot consumes a node for good: once the counter passes the
//! node space, acquire fails with [`Error::NoFreeNode`] (Baidu sizes its worker field at 22
//! bits, ~4 million boots, for that reason). Release only stamps `stopped_at`. Boot mode has no
//! defence against lost data: if both of its tables are emptied, nodes are handed out again.
//!
//! # When the table goes back in time
//!
//! A `TRUNCATE`, or a restore from an older backup, can take rows back to a state older than
//! what live holders saw: a node that a live holder mints on then looks free (or expired), with
//! an old, low fence, and a new grant of it would repeat the holder's IDs. The store therefore
//! keeps, per namespace, an **epoch** (a random value; every renewal must name it, so leases
//! granted before a change of epoch are lost) and checks at every acquire that its records are
//! whole. When they may not be, it starts a new epoch whose grants are all fenced past
//! `now + H` (`now` the acquirer's clock, `H` the longest [`LeaseSpec::horizon`] ever asked for
//! in the namespace or the store): Consul's lock delay, returned as [`Lease::not_before_ms`]
//! and folded into [`Lease::fence_ms`]. A holder of the old epoch issues no ID past its
//! recorded bound, which is at most its clock at its last successful renewal plus its reserve,
//! and it renewed for the last time before the new epoch began — so its IDs all lie below the
//! new epoch's fence. Missing rows are created again at that moment, with no bound of their own.
//!
//! What counts as "may not be whole", checked at each acquire (and the fingerprint at each
//! renewal too):
//!
//! - **The fingerprint**: the epoch rows record the OIDs and relfilenodes of both tables, the
//!   cluster's `system_identifier` (`pg_control_system()`) and its timeline (from
//!   `pg_walfile_name(pg_current_wal_lsn())`, else `pg_control_checkpoint()`). A `TRUNCATE`
//!   gives a table a new relfilenode; `DROP` and re-create (a logical restore with `--clean`) a
//!   new OID; a restore into another cluster another system identifier; a point-in-time
//!   recovery or the promotion of a replica a new timeline. Both identifiers are readable by any
//!   role on stock PostgreSQL 15; where a provider revokes them, that part of the fingerprint
//!   is skipped (then PITR and another cluster are caught only by the checks below).
//! - **Counts**: the namespace row counts the nodes created (`next_node`) and the grants made
//!   (`grants`); the rows must number exactly `next_node` and their tokens must add up to
//!   `grants`. Rows restored older than the epoch row (or the other way round) break the sum,
//!   since every grant bumps both; deleted rows break the count.
//! - **Missing rows**: a namespace with rows but no epoch row; a store without its store row
//!   (it is written when the tables are first created, in the same transaction, so only a lost
//!   or emptied epoch table lacks it). A namespace with neither rows nor epoch row is new: it
//!   gets the store's own lock delay if one is still running.
//! - **Missing tables**: a store object that saw the schema and finds it gone (the database
//!   dropped, or replaced by an empty cluster) creates the tables without the store row, so the
//!   next acquire starts the store-wide lock delay. Tables missing when first seen are taken
//!   for a new store (no lock delay): a database wiped while no running store object had seen
//!   it is not caught.
//!
//! Caught: `TRUNCATE` of either table or both; `DELETE` of rows; the table (or both) restored in
//! the same cluster by truncate-and-insert, `COPY` into an emptied table or `pg_restore --clean`;
//! a restore into a new cluster; PITR and failover to a lagging replica (timeline). **Not
//! caught**: both tables taken back together, consistently, by `DELETE` and `INSERT` in the same
//! cluster and timeline (nothing of the old state survives to compare with); a physical copy of
//! the data directory started again on the same timeline; rows edited by hand; and, without
//! the privilege to read the control functions, a restore into a new cluster whose tables happen
//! to get the same OIDs. The counts are read by the acquire's check, not by its grant (which
//! re-checks only epoch and fingerprint, to keep the namespace's row locked briefly): a restore
//! by `DELETE` and `INSERT` landing between the two statements of one acquire goes unseen by
//! that acquire. `VACUUM FULL`, `CLUSTER` or `pg_repack` of these tables, and a
//! failover without data loss, are taken for a loss too: harmless, but every holder then loses
//! its lease once and the next grants wait out the lock delay.
//!
//! Clock assumption: the lock delay is `now + H` on the acquirer's clock. Holders whose clocks
//! run ahead of the acquirer's by `d` may have issued IDs up to `d` past it, so the holders of
//! a namespace must keep their clocks within a small part of the horizon of each other (NTP).
//!
//! # Calls and deadlines
//!
//! `timeout_ms` (default [`DEFAULT_STORE_TIMEOUT`](super::DEFAULT_STORE_TIMEOUT)) bounds each
//! call on the client: connecting when there is no connection (TCP, TLS, authentication, the
//! schema check) within twice `timeout_ms` — a busy server starts backends slowly —, the
//! call's statements within one more, so a call ends within three times the timeout whatever
//! the server does, also when it is stopped and the kernel still acknowledges packets. The
//! server also gets it as `statement_timeout` and `lock_timeout`. A failed call drops the
//! connection and the next one reconnects. A
//! [`LeasedSnowflake`](crate::lease::LeasedSnowflake) on this store is closed (dropped or
//! released) within about two calls, six timeouts, while the server does not answer: the
//! renewal in flight, and the release. TLS: `sslmode` and `sslrootcert` as in libpq; see the
//! `pg` module of this crate (`coord/src/pg.rs`) for exactly what each mode checks.
//!
//! Tables of an older version of this store are migrated in place (`ALTER TABLE ... ADD COLUMN
//! IF NOT EXISTS`); their first acquire finds no epoch row and counts it as a loss, once.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use idmint::{Error, Result};
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::Client;

use crate::pg::{self, Conn, Pg};
use crate::reason::Reason;

use super::contract::{Lease, LeaseSpec};
use super::sql::{self, to_i64, Ask, Grant, HolderOp, Matched, NsRepair, Seen, SqlDialect, Step};
use super::url;

type PgError = tokio_postgres::Error;

const STORE: &str = "postgres";

/// Serialises concurrent schema set-up (`CREATE TABLE IF NOT EXISTS` can race on the catalog).
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
    owner          bigint,
    horizon_ms     bigint,
    PRIMARY KEY (namespace, node)
);
CREATE TABLE IF NOT EXISTS idmint_lease_epoch (
    namespace     text        PRIMARY KEY,
    epoch         bigint      NOT NULL,
    next_node     bigint      NOT NULL DEFAULT 0,
    grants        bigint      NOT NULL DEFAULT 0,
    horizon_ms    bigint      NOT NULL DEFAULT 0,
    not_before_ms bigint,
    lease_rel     oid,
    lease_file    oid,
    epoch_rel     oid,
    epoch_file    oid,
    system_id     bigint,
    timeline      bigint,
    changed_at    timestamptz NOT NULL DEFAULT now()
);
CREATE SEQUENCE IF NOT EXISTS idmint_lease_installed;
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

/// Which of the store's objects exist before set-up. The sequence is a marker that survives
/// `DROP TABLE` and `TRUNCATE`: only a database that never had the store lacks all three.
const EXISTING: &str = "SELECT to_regclass('idmint_lease') IS NULL,
    to_regclass('idmint_lease_epoch') IS NULL, to_regclass('idmint_lease_installed') IS NULL";

/// Columns added after the first version of the table.
const MISSING_COLUMNS: &str = "SELECT count(*) FROM pg_attribute
    WHERE attrelid = 'idmint_lease'::regclass AND attname IN ('owner', 'horizon_ms')
      AND NOT attisdropped";

const MIGRATE: &str = "ALTER TABLE idmint_lease
    ADD COLUMN IF NOT EXISTS owner bigint, ADD COLUMN IF NOT EXISTS horizon_ms bigint";

/// The live fingerprint's relation part, as four values.
const LIVE: &str = "'idmint_lease'::regclass::oid, pg_relation_filenode('idmint_lease'),
    'idmint_lease_epoch'::regclass::oid, pg_relation_filenode('idmint_lease_epoch')";

/// The store row (namespace `''`, which no valid namespace equals), written with the tables.
const STORE_ROW_FIRST: &str = "INSERT INTO idmint_lease_epoch
    (namespace, epoch, lease_rel, lease_file, epoch_rel, epoch_file, system_id, timeline)
    SELECT '', 0, {LIVE}, $1::bigint, $2::bigint ON CONFLICT DO NOTHING";

/// Whether epoch row `a` matches the live fingerprint; `$sys`/`$tl` are this connection's
/// system identifier and timeline (`NULL` when unreadable, and then not compared).
fn fp_ok(a: &str, sys: u8, tl: u8) -> String {
    format!(
        "COALESCE({a}.lease_rel = 'idmint_lease'::regclass::oid
            AND {a}.lease_file = pg_relation_filenode('idmint_lease')
            AND {a}.epoch_rel = 'idmint_lease_epoch'::regclass::oid
            AND {a}.epoch_file = pg_relation_filenode('idmint_lease_epoch')
            AND ({a}.system_id IS NULL OR ${sys}::bigint IS NULL OR {a}.system_id = ${sys}::bigint)
            AND ({a}.timeline IS NULL OR ${tl}::bigint IS NULL OR {a}.timeline = ${tl}::bigint),
        false)"
    )
}

/// The statements that embed the fingerprint check, built once.
#[derive(Debug)]
struct Sql {
    check: String,
    lock_ns: String,
    store_first: String,
    heal_store: String,
    new_ns: String,
    reset_ns: String,
    grant_new: String,
    grant_free: String,
    renew: String,
    release: String,
}

impl Sql {
    fn new() -> Sql {
        Sql {
            // One snapshot of everything the acquire checks: the namespace's epoch row, the store
            // row, and the namespace's rows against the epoch row's counts.
            check: format!(
                "SELECT e.epoch, e.next_node, e.not_before_ms, e.horizon_ms, {e_ok},
                        s.ok, s.not_before_ms, s.horizon_ms,
                        r.n, r.above, r.tokens_ok, r.after, r.horizon
                 FROM (SELECT count(*) AS n,
                              count(*) FILTER (WHERE node >= (SELECT next_node
                                  FROM idmint_lease_epoch WHERE namespace = $1)) AS above,
                              COALESCE(sum(token), 0) = (SELECT grants FROM idmint_lease_epoch
                                  WHERE namespace = $1) AS tokens_ok,
                              COALESCE(max(node) + 1, 0) AS after,
                              COALESCE(max(horizon_ms), 0) AS horizon
                       FROM idmint_lease WHERE namespace = $1) AS r
                 LEFT JOIN idmint_lease_epoch AS e ON e.namespace = $1
                 LEFT JOIN LATERAL (SELECT {s_ok} AS ok, s.not_before_ms, s.horizon_ms
                       FROM idmint_lease_epoch AS s WHERE s.namespace = '') AS s ON true",
                e_ok = fp_ok("e", 2, 3),
                s_ok = fp_ok("s", 2, 3),
            ),
            lock_ns: "SELECT 1 FROM idmint_lease_epoch WHERE namespace = $1 FOR UPDATE".to_string(),
            store_first: STORE_ROW_FIRST.replace("{LIVE}", LIVE),
            heal_store: format!(
                "INSERT INTO idmint_lease_epoch AS s (namespace, epoch, horizon_ms, not_before_ms,
                    lease_rel, lease_file, epoch_rel, epoch_file, system_id, timeline)
                 SELECT '', 0, $2::bigint, $1::bigint, {LIVE}, $3::bigint, $4::bigint
                 ON CONFLICT (namespace) DO UPDATE SET
                    horizon_ms = GREATEST(s.horizon_ms, EXCLUDED.horizon_ms),
                    not_before_ms = GREATEST(s.not_before_ms, EXCLUDED.not_before_ms),
                    lease_rel = EXCLUDED.lease_rel, lease_file = EXCLUDED.lease_file,
                    epoch_rel = EXCLUDED.epoch_rel, epoch_file = EXCLUDED.epoch_file,
                    system_id = COALESCE(EXCLUDED.system_id, s.system_id),
                    timeline = COALESCE(EXCLUDED.timeline, s.timeline), changed_at = now()"
            ),
            new_ns: format!(
                "INSERT INTO idmint_lease_epoch (namespace, epoch, next_node, grants, horizon_ms,
                    not_before_ms, lease_rel, lease_file, epoch_rel, epoch_file, system_id,
                    timeline)
                 SELECT $1::text, $2::bigint, $3::bigint, 0, $4::bigint, $5::bigint, {LIVE},
                    $6::bigint, $7::bigint
                 ON CONFLICT (namespace) DO NOTHING"
            ),
            reset_ns: "UPDATE idmint_lease_epoch SET epoch = $2, next_node = $3,
                    horizon_ms = GREATEST(horizon_ms, $4), not_before_ms = $5,
                    lease_rel = 'idmint_lease'::regclass::oid,
                    lease_file = pg_relation_filenode('idmint_lease'),
                    epoch_rel = 'idmint_lease_epoch'::regclass::oid,
                    epoch_file = pg_relation_filenode('idmint_lease_epoch'),
                    system_id = COALESCE($6::bigint, system_id),
                    timeline = COALESCE($7::bigint, timeline), changed_at = now()
                 WHERE namespace = $1"
                .to_string(),
            // A never-used node from the counter; its row is created by the grant. The epoch row
            // is locked for this one statement only.
            grant_new: format!(
                "WITH e AS (
                    UPDATE idmint_lease_epoch AS x
                    SET next_node = next_node + 1, grants = grants + 1,
                        horizon_ms = GREATEST(horizon_ms, $7)
                    WHERE namespace = $1 AND epoch = $2 AND next_node < $3 AND {}
                    RETURNING next_node - 1 AS node, not_before_ms
                 ), i AS (
                    INSERT INTO idmint_lease (namespace, node, holder, token, owner, expires_at,
                        released_at, horizon_ms)
                    SELECT $1::text, node, $4::text, 1, $5::bigint,
                        now() + $6::bigint * interval '1 millisecond', now(), $7::bigint
                    FROM e
                    RETURNING node, token, last_issued_ms
                 )
                 SELECT i.node, i.token, i.last_issued_ms, e.not_before_ms FROM i, e",
                fp_ok("x", 8, 9)
            ),
            // The best free or expired row in queue order (bound not ahead of the caller's
            // clock first, then released longest ago), counted in the epoch row.
            grant_free: format!(
                "WITH c AS (
                    SELECT node FROM idmint_lease
                    WHERE namespace = $1 AND node < $2 AND node <> $3
                      AND (holder IS NULL OR expires_at <= now())
                    ORDER BY COALESCE(last_issued_ms, -1) > $6,
                             CASE WHEN COALESCE(last_issued_ms, -1) > $6
                                  THEN last_issued_ms ELSE 0 END,
                             released_at NULLS FIRST, node
                    LIMIT 1
                    FOR UPDATE SKIP LOCKED
                 ), e AS (
                    UPDATE idmint_lease_epoch AS x
                    SET grants = grants + 1, horizon_ms = GREATEST(horizon_ms, $8)
                    WHERE namespace = $1 AND epoch = $9 AND {} AND EXISTS (SELECT 1 FROM c)
                    RETURNING not_before_ms
                 ), g AS (
                    UPDATE idmint_lease AS l
                    SET token = l.token + 1, holder = $4, owner = $7, horizon_ms = $8,
                        expires_at = now() + $5::bigint * interval '1 millisecond', released_at = now()
                    FROM c, e
                    WHERE l.namespace = $1 AND l.node = c.node
                    RETURNING l.node, l.token, l.last_issued_ms
                 )
                 SELECT g.node, g.token, g.last_issued_ms, e.not_before_ms FROM g, e",
                fp_ok("x", 10, 11)
            ),
            renew: format!(
                "WITH e AS (
                    SELECT e.epoch = $5 AND {} AS ok FROM idmint_lease_epoch e
                    WHERE e.namespace = $1
                 ), u AS (
                    UPDATE idmint_lease
                    SET expires_at = now() + $8 * interval '1 millisecond',
                        last_issued_ms = GREATEST(COALESCE(last_issued_ms, 0), $9)
                    WHERE namespace = $1 AND node = $2 AND token = $3 AND owner = $4
                      AND holder IS NOT NULL AND COALESCE((SELECT ok FROM e), false)
                    RETURNING 1
                 )
                 SELECT (SELECT count(*) FROM u), COALESCE((SELECT ok FROM e), false)",
                fp_ok("e", 6, 7)
            ),
            release: format!(
                "WITH e AS (
                    SELECT e.epoch = $5 AND {} AS ok FROM idmint_lease_epoch e
                    WHERE e.namespace = $1
                 ), u AS (
                    UPDATE idmint_lease
                    SET holder = NULL, expires_at = NULL,
                        last_issued_ms = GREATEST(COALESCE(last_issued_ms, 0), $8),
                        released_at = now()
                    WHERE namespace = $1 AND node = $2 AND token = $3 AND owner = $4
                      AND holder IS NOT NULL AND COALESCE((SELECT ok FROM e), false)
                    RETURNING 1
                 )
                 SELECT (SELECT count(*) FROM u), COALESCE((SELECT ok FROM e), false)",
                fp_ok("e", 6, 7)
            ),
        }
    }
}

/// Re-creates the rows of nodes below `$2` that are missing (after a loss).
const REFILL: &str = "INSERT INTO idmint_lease (namespace, node)
    SELECT $1::text, g FROM generate_series(0::bigint, $2::bigint - 1) AS g ON CONFLICT DO NOTHING";

const RECOUNT: &str = "UPDATE idmint_lease_epoch SET grants =
    (SELECT COALESCE(sum(token), 0)::bigint FROM idmint_lease WHERE namespace = $1)
    WHERE namespace = $1";

const STORE_HORIZON: &str =
    "UPDATE idmint_lease_epoch SET horizon_ms = $1 WHERE namespace = '' AND horizon_ms < $1";

/// Whether any node is free or expired, ignoring row locks (after a grant found none it could
/// lock).
const ANY_FREE: &str = "SELECT EXISTS (SELECT 1 FROM idmint_lease
    WHERE namespace = $1 AND node < $2 AND node <> $3
      AND (holder IS NULL OR expires_at <= now()))";

const BOOT_NEXT: &str = "INSERT INTO idmint_boot_seq (namespace, next_node) VALUES ($1, 1)
    ON CONFLICT (namespace) DO UPDATE SET next_node = idmint_boot_seq.next_node + 1
    RETURNING next_node - 1";

const BOOT_ROW: &str = "INSERT INTO idmint_boot (namespace, node, host, pid, holder)
    VALUES ($1, $2, $3, $4, $5)";

const BOOT_STOP: &str = "UPDATE idmint_boot
    SET stopped_at = now(), last_issued_ms = GREATEST(COALESCE(last_issued_ms, 0), $3)
    WHERE namespace = $1 AND node = $2";

/// Node leases on PostgreSQL; see the [module docs](self).
pub struct PgStore {
    pg: Pg,
    boot: bool,
    timeout: Duration,
    sql: Sql,
    conn: Mutex<Option<LeaseConn>>,
    /// Whether a connection of this store object found (or made) the schema: tables missing
    /// after that were lost, not new.
    seen_schema: AtomicBool,
}

/// A connection, with what was learnt about its server.
struct LeaseConn {
    conn: Conn,
    ident: Ident,
}

/// The cluster's identity as this connection sees it (`None` where not readable).
#[derive(Debug, Clone, Copy)]
struct Ident {
    system_id: Option<i64>,
    timeline: Option<i64>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("server", &self.pg)
            .field("boot", &self.boot)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

fn unavailable(op: &'static str, reason: &'static str) -> Error {
    super::contract::unavailable(STORE, op, reason)
}

/// Whether the schema is complete, and which identity functions this role may call (one
/// round trip; no lock, so new connections do not queue behind each other).
const READY: &str = "SELECT
    to_regclass('idmint_lease') IS NOT NULL AND to_regclass('idmint_lease_epoch') IS NOT NULL
      AND to_regclass('idmint_lease_installed') IS NOT NULL
      AND to_regclass('idmint_boot') IS NOT NULL AND to_regclass('idmint_boot_seq') IS NOT NULL
      AND (SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass('idmint_lease')
           AND attname IN ('owner', 'horizon_ms') AND NOT attisdropped) = 2,
    has_function_privilege('pg_control_system()', 'EXECUTE'),
    has_function_privilege('pg_walfile_name(pg_lsn)', 'EXECUTE')
      AND has_function_privilege('pg_current_wal_lsn()', 'EXECUTE') AND NOT pg_is_in_recovery(),
    has_function_privilege('pg_control_checkpoint()', 'EXECUTE')";

/// Reads whether the schema is ready and the cluster's identity: its system identifier and
/// its insert timeline (the control file's checkpoint timeline lags behind a promotion), each
/// `None` where this role may not read it.
async fn probe(c: &Client) -> std::result::Result<(Ident, bool), PgError> {
    let r = c.query_typed(READY, &[]).await?;
    let Some(r) = r.first() else {
        return Ok((
            Ident {
                system_id: None,
                timeline: None,
            },
            false,
        ));
    };
    let ready: bool = r.try_get(0)?;
    let (sys, wal, checkpoint): (bool, bool, bool) = (r.try_get(1)?, r.try_get(2)?, r.try_get(3)?);
    let sys = if sys {
        "(SELECT system_identifier FROM pg_control_system())"
    } else {
        "NULL::bigint"
    };
    let tl = if wal {
        "('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint"
    } else if checkpoint {
        "(SELECT timeline_id::bigint FROM pg_control_checkpoint())"
    } else {
        "NULL::bigint"
    };
    let rows = c.query_typed(&format!("SELECT {sys}, {tl}"), &[]).await?;
    let (system_id, timeline) = match rows.first() {
        Some(r) => (r.try_get(0)?, r.try_get(1)?),
        None => (None, None),
    };
    Ok((
        Ident {
            system_id,
            timeline,
        },
        ready,
    ))
}

/// Creates or migrates the tables; a database that never had them gets its store row too.
/// Creates what is missing of the schema. `fresh` says whether missing tables may be a new
/// store: the store row, written with the tables, then marks them whole without a lock delay.
/// A store object that already saw the schema passes `false` — its tables vanished (the
/// database was dropped, or replaced by an empty cluster), so the first acquire finds no store
/// row and starts the lock delay, as after any other loss.
async fn ensure_schema(
    c: &mut Client,
    sql: &Sql,
    id: Ident,
    fresh: bool,
) -> std::result::Result<(), PgError> {
    let tx = c.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])
        .await?;
    let r = tx.query_one(EXISTING, &[]).await?;
    let (no_lease, no_epoch, no_marker): (bool, bool, bool) =
        (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?);
    let ready: bool = match tx.query_typed(READY, &[]).await?.first() {
        Some(r) => r.try_get(0)?,
        None => false,
    };
    if ready {
        // Set up by another session while this one waited for the lock.
        return tx.commit().await;
    }
    tx.batch_execute(SCHEMA).await?;
    if !no_lease {
        let have: i64 = tx.query_one(MISSING_COLUMNS, &[]).await?.try_get(0)?;
        if have < 2 {
            tx.batch_execute(MIGRATE).await?;
        }
    }
    if no_lease && no_epoch && no_marker && fresh {
        tx.execute(&sql.store_first, &[&id.system_id, &id.timeline])
            .await?;
    }
    tx.commit().await
}

/// What the check statement saw.
struct Facts {
    /// The namespace's epoch row: epoch, next_node, not_before_ms, horizon_ms, fingerprint ok.
    ns: Option<(i64, i64, Option<i64>, i64, bool)>,
    /// The store row: fingerprint ok, not_before_ms, horizon_ms.
    store: Option<(bool, Option<i64>, i64)>,
    rows: i64,
    above: i64,
    tokens_ok: bool,
    after: i64,
    rows_horizon: i64,
}

impl Facts {
    fn store_ok(&self) -> bool {
        matches!(self.store, Some((true, ..)))
    }

    /// Whether the namespace's records are whole (its epoch row present and consistent).
    fn ns_ok(&self) -> bool {
        matches!(self.ns, Some((_, next, _, _, true))
            if self.rows == next && self.above == 0 && self.tokens_ok)
    }

    /// What the shared repair decides on.
    fn seen(&self) -> Seen {
        Seen {
            store_ok: self.store_ok(),
            ns_ok: self.ns_ok(),
            store_horizon: self.store.map_or(0, |s| s.2),
            store_not_before: self.store.and_then(|s| s.1),
            ns: self.ns.map(|n| (n.1, n.3, n.2)),
            rows: self.rows,
            after: self.after,
            rows_horizon: self.rows_horizon,
        }
    }
}

/// A duration in whole milliseconds, for a `bigint` column.
fn ms(d: Duration) -> i64 {
    to_i64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

async fn check<C: tokio_postgres::GenericClient + Sync>(
    c: &C,
    sql: &Sql,
    id: Ident,
    ns: &str,
) -> std::result::Result<Facts, PgError> {
    let r = c
        .query_one(sql.check.as_str(), &[&ns, &id.system_id, &id.timeline])
        .await?;
    let epoch: Option<i64> = r.try_get(0)?;
    let ns_row = match epoch {
        Some(e) => Some((
            e,
            r.try_get(1)?,
            r.try_get(2)?,
            r.try_get(3)?,
            r.try_get(4)?,
        )),
        None => None,
    };
    let store_ok: Option<bool> = r.try_get(5)?;
    let store = match store_ok {
        Some(ok) => Some((ok, r.try_get(6)?, r.try_get(7)?)),
        None => None,
    };
    Ok(Facts {
        ns: ns_row,
        store,
        rows: r.try_get(8)?,
        above: r.try_get(9)?,
        tokens_ok: r.try_get::<_, Option<bool>>(10)? == Some(true),
        after: r.try_get(11)?,
        rows_horizon: r.try_get(12)?,
    })
}

/// One acquire attempt: a check, then a one-statement grant if the records are whole, or a
/// repair under the namespace's lock if not (see the module docs).
async fn grant(
    c: &mut Client,
    sql: &Sql,
    id: Ident,
    a: &Ask<'_>,
) -> std::result::Result<Step, PgError> {
    let facts = check(&*c, sql, id, a.ns).await?;
    let Some((epoch, next, ..)) = facts.ns.filter(|_| facts.store_ok() && facts.ns_ok()) else {
        repair(c, sql, id, a).await?;
        return Ok(Step::Again);
    };
    let (sys, tl) = (&id.system_id, &id.timeline);
    let ttl = ms(a.ttl);
    let row = if next < a.nodes {
        c.query_opt(
            sql.grant_new.as_str(),
            &[
                &a.ns, &epoch, &a.nodes, &a.holder, &a.owner, &ttl, &a.horizon, sys, tl,
            ],
        )
        .await?
    } else {
        c.query_opt(
            sql.grant_free.as_str(),
            &[
                &a.ns, &a.nodes, &a.avoid, &a.holder, &ttl, &a.now, &a.owner, &a.horizon, &epoch,
                sys, tl,
            ],
        )
        .await?
    };
    let Some(r) = row else {
        if next < a.nodes {
            return Ok(Step::Again); // the counter or the epoch moved meanwhile
        }
        let free: bool = c
            .query_one(ANY_FREE, &[&a.ns, &a.nodes, &a.avoid])
            .await?
            .try_get(0)?;
        return Ok(if free { Step::Again } else { Step::NoFree });
    };
    if a.horizon > facts.store.map_or(0, |s| s.2) {
        c.execute(STORE_HORIZON, &[&a.horizon]).await?;
    }
    Ok(Step::Granted(Grant {
        node: r.try_get(0)?,
        token: r.try_get(1)?,
        bound: r.try_get(2)?,
        epoch,
        not_before: r.try_get(3)?,
    }))
}

/// Under the namespace's lock, checks again and, where the records are not whole, starts a
/// new epoch fenced past the lock delay, re-creates missing rows and recounts; creates the
/// epoch row of a new namespace.
async fn repair(
    c: &mut Client,
    sql: &Sql,
    id: Ident,
    a: &Ask<'_>,
) -> std::result::Result<(), PgError> {
    let tx = c.transaction().await?;
    let (sys, tl) = (&id.system_id, &id.timeline);
    tx.execute(sql.lock_ns.as_str(), &[&a.ns]).await?;
    let f = check(&tx, sql, id, a.ns).await?;
    let plan = sql::plan_repair(a, &f.seen());
    if let Some((delay, h)) = plan.heal_store {
        tx.execute(sql.heal_store.as_str(), &[&delay, &h, sys, tl])
            .await?;
    }
    match plan.ns {
        NsRepair::Nothing => {}
        NsRepair::Create {
            horizon,
            not_before,
        } => {
            let zero = 0i64;
            tx.execute(
                sql.new_ns.as_str(),
                &[&a.ns, &a.fresh_epoch, &zero, &horizon, &not_before, sys, tl],
            )
            .await?;
        }
        NsRepair::NewEpoch {
            exists,
            next,
            horizon,
            not_before,
        } => {
            let stmt = if exists {
                sql.reset_ns.as_str()
            } else {
                sql.new_ns.as_str()
            };
            tx.execute(
                stmt,
                &[&a.ns, &a.fresh_epoch, &next, &horizon, &not_before, sys, tl],
            )
            .await?;
            tx.execute(REFILL, &[&a.ns, &next]).await?;
            tx.execute(RECOUNT, &[&a.ns]).await?;
        }
    }
    tx.commit().await
}

impl PgStore {
    /// Opens a store for `postgres://...` or `postgresql://...`, with `mode=boot` for the
    /// new-row-per-boot mode, `timeout_ms=N` for the call timeout and libpq's `sslmode` and
    /// `sslrootcert` (no connection yet).
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
        let mut target = pg::parse(&split.url)?;
        let config = &mut target.config;
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
            pg: Pg::new(target)?,
            boot,
            timeout: split.timeout,
            sql: Sql::new(),
            conn: Mutex::new(None),
            seen_schema: AtomicBool::new(false),
        })
    }

    /// Whether this store runs in new-row-per-boot mode.
    pub fn is_boot_mode(&self) -> bool {
        self.boot
    }

    /// How long opening a connection may take: TCP, TLS, authentication, the schema check.
    /// Twice the call timeout, since a busy server starts new backends slowly.
    fn connect_limit(&self) -> Duration {
        self.timeout.saturating_mul(2)
    }

    /// Runs `f` on a connection whose schema exists, connecting first if needed (within
    /// [`connect_limit`](Self::connect_limit), then `f` within the timeout). Any failure drops the connection and becomes `StoreUnavailable { op }`.
    fn with<T, F, Fut>(&self, op: &'static str, f: F) -> Result<T>
    where
        T: Send,
        F: FnOnce(LeaseConn) -> Fut + Send,
        Fut: Future<Output = (LeaseConn, std::result::Result<T, PgError>)> + Send,
    {
        let mut slot = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let lc = match slot.take() {
            Some(lc) => lc,
            None => {
                let (pg, sql) = (&self.pg, &self.sql);
                let fresh = !self.seen_schema.load(Ordering::Relaxed);
                let opened = self.pg.block(self.connect_limit(), async move {
                    let mut conn = pg.connect().await?;
                    let (ident, ready) = probe(&conn.client).await?;
                    if !ready {
                        ensure_schema(&mut conn.client, sql, ident, fresh).await?;
                    }
                    Ok::<_, PgError>(LeaseConn { conn, ident })
                });
                if let Some(Ok(_)) = &opened {
                    self.seen_schema.store(true, Ordering::Relaxed);
                }
                match opened {
                    None => return Err(unavailable(op, pg::TIMED_OUT)),
                    Some(Err(e)) => return Err(unavailable(op, e.reason())),
                    Some(Ok(lc)) => lc,
                }
            }
        };
        match self.pg.block(self.timeout, f(lc)) {
            None => Err(unavailable(op, pg::TIMED_OUT)),
            Some((lc, Ok(v))) => {
                *slot = Some(lc);
                Ok(v)
            }
            Some((_, Err(e))) => Err(unavailable(op, e.reason())),
        }
    }

    fn boot_node(&self, spec: &LeaseSpec) -> Result<Lease> {
        let holder = spec.holder_clean();
        let host = super::contract::hostname();
        let pid = i64::from(std::process::id());
        let ns = spec.namespace.as_str();
        let nodes = spec.nodes;
        let (h, host_ref) = (&holder, &host);
        let node: Option<i64> = self.with("acquire", |mut lc| async move {
            let r = async {
                let tx = lc.conn.client.transaction().await?;
                let node: i64 = tx.query_one(BOOT_NEXT, &[&ns]).await?.try_get(0)?;
                if node < 0 || node as u64 >= nodes {
                    tx.rollback().await?;
                    return Ok(None);
                }
                tx.execute(BOOT_ROW, &[&ns, &node, host_ref, &pid, h])
                    .await?;
                tx.commit().await?;
                Ok(Some(node))
            }
            .await;
            (lc, r)
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
            owner: super::contract::random_nonzero()?,
            epoch: 0,
            not_before_ms: None,
        })
    }
}

sql::sql_lease_store!(PgStore);

impl SqlDialect for PgStore {
    const STORE: &'static str = STORE;
    const TOO_MANY_NODES: &'static str =
        "the PostgreSQL lease store handles node spaces of at most 2^63 - 1 nodes";
    const HOLDER_MAX: usize = usize::MAX;

    fn boot(&self) -> bool {
        self.boot
    }

    fn call_timeout(&self) -> Duration {
        self.timeout
    }

    fn acquire_boot(&self, spec: &LeaseSpec) -> Result<Lease> {
        self.boot_node(spec)
    }

    fn release_boot(&self, lease: &Lease, last: i64) -> Result<()> {
        let ns = lease.namespace.as_str();
        let node = to_i64(lease.node);
        self.with("release", |lc| async move {
            let r = lc
                .conn
                .client
                .execute(BOOT_STOP, &[&ns, &node, &last])
                .await;
            (lc, r)
        })?;
        Ok(())
    }

    fn attempt(&self, ask: &Ask<'_>) -> Result<Step> {
        let sql = &self.sql;
        self.with("acquire", |mut lc| async move {
            let r = grant(&mut lc.conn.client, sql, lc.ident, ask).await;
            (lc, r)
        })
    }

    fn holder(&self, lease: &Lease, op: HolderOp) -> Result<Matched> {
        let (sql, value, extra) = match op {
            HolderOp::Renew { ttl, up_to } => (&self.sql.renew, ms(ttl), Some(up_to)),
            HolderOp::Release { last } => (&self.sql.release, last, None),
        };
        let ns = lease.namespace.as_str();
        let (node, token) = (to_i64(lease.node), to_i64(lease.token));
        let (owner, epoch) = (lease.owner as i64, lease.epoch as i64);
        let (n, epoch_ok): (i64, bool) = self.with(op.name(), |lc| async move {
            let (sys, tl) = (lc.ident.system_id, lc.ident.timeline);
            let mut params: Vec<(&(dyn ToSql + Sync), Type)> = vec![
                (&ns, Type::TEXT),
                (&node, Type::INT8),
                (&token, Type::INT8),
                (&owner, Type::INT8),
                (&epoch, Type::INT8),
                (&sys, Type::INT8),
                (&tl, Type::INT8),
                (&value, Type::INT8),
            ];
            if let Some(extra) = &extra {
                params.push((extra, Type::INT8));
            }
            let r = match lc.conn.client.query_typed(sql, &params).await {
                Ok(rows) => match rows.first() {
                    Some(row) => row
                        .try_get::<_, i64>(0)
                        .and_then(|n| Ok((n, row.try_get::<_, bool>(1)?))),
                    None => Ok((0, false)),
                },
                Err(e) => Err(e),
            };
            drop(params);
            (lc, r)
        })?;
        Ok(Matched {
            row: n == 1,
            epoch_ok,
        })
    }
}
