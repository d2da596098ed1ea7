//! Node leases on MySQL and MariaDB, in two modes, with the guarantees of
//! [`PgStore`](super::PgStore).
//!
//! **Lease mode** (`mysql://…`, the default): table `idmint_lease`, one row per (namespace,
//! node) ever granted, and table `idmint_lease_epoch`, one row per namespace plus one for the
//! store (namespace `''`):
//!
//! | `idmint_lease` column | meaning |
//! |---|---|
//! | `holder` | who holds it (`NULL` when free) |
//! | `token` | fencing token, bumped by every grant |
//! | `owner` | the grant's random owner nonce ([`Lease::owner`]), drawn by the client |
//! | `version` | bumped by every grant, renewal and release (see *counts* below) |
//! | `expires_at` | server time (UTC) the lease ends unless renewed |
//! | `last_issued_ms` | the node's last-issued bound (the next holder's time fence) |
//! | `released_at` | when it was last released or granted: its place in the queue |
//! | `horizon_ms` | the grant's [`LeaseSpec::horizon`] |
//!
//! Renew and release are one statement each that matches the row's token **and** owner and the
//! namespace's current epoch, and bumps the row's `version` and the epoch row's `writes`
//! together: a holder whose row was granted again — also by a store that lost its tokens and
//! handed out the same token once more — gets [`Error::LeaseLost`].
//!
//! Acquire is one transaction that locks the namespace's epoch row (`FOR UPDATE`), checks that
//! the store's records are whole (below), and grants: a never-used node from the namespace's
//! counter `next_node` (the row is created by the grant), or else the best free or expired row
//! in queue order (bound not ahead of the caller's clock first, then released longest ago) with
//! `FOR UPDATE SKIP LOCKED` (MariaDB 10.6+, MySQL 8.0+). Acquires of one namespace therefore
//! take turns; renewals and releases wait for an acquire in progress (they update the epoch
//! row), never the other way round, so they cannot deadlock. No row exists for a node never
//! granted: an acquire's work grows with the nodes ever used, not with the node space (a
//! 32-bit node field is fine).
//!
//! **Boot mode** (`mysql://…?mode=boot`): Baidu UidGenerator's worker-id assigner on Baidu's
//! own table, so an existing UidGenerator database works unchanged and both can share it:
//!
//! ```sql
//! CREATE TABLE WORKER_NODE (
//!   ID BIGINT NOT NULL AUTO_INCREMENT, HOST_NAME VARCHAR(64) NOT NULL, PORT VARCHAR(64) NOT NULL,
//!   TYPE INT NOT NULL, LAUNCH_DATE DATE NOT NULL, MODIFIED TIMESTAMP NOT NULL,
//!   CREATED TIMESTAMP NOT NULL, PRIMARY KEY(ID)) ENGINE = INNODB
//! ```
//!
//! (with Baidu's column comments; created only when missing). Every acquire inserts a row —
//! `HOST_NAME` the host name, `PORT` `pid-owner` (unique per boot, as Baidu's
//! `timestamp-random`), `TYPE` 2 (Baidu's `ACTUAL`) — and the new `ID` is the node. Nodes are
//! never reused, so no time fence and no renewal are needed and a store outage after start-up
//! cannot stop minting; but each boot consumes a node for good, and an `ID` at or past the
//! node space is [`Error::NoFreeNode`] (Baidu sizes its worker field at 22 bits for that
//! reason). Node 0 is never granted (`AUTO_INCREMENT` starts at 1, as Baidu's worker ids do).
//! The table has no namespace column: every namespace draws from the one counter, so nodes
//! are distinct across namespaces too, and across a UidGenerator sharing the table. Release
//! stamps `MODIFIED`. Boot mode has no defence against lost data: a `TRUNCATE` resets the
//! counter and nodes are handed out again.
//!
//! # Isolation level
//!
//! Every session runs at `READ COMMITTED`. Each decision is made on rows the statement itself
//! locks (`FOR UPDATE`, `UPDATE`), which InnoDB reads at their latest committed version at any
//! level; the checks' plain `SELECT`s run after the namespace row is locked, and at
//! `READ COMMITTED` each statement reads a fresh snapshot, so they see everything committed
//! before the lock was granted (at `REPEATABLE READ` a snapshot taken by an earlier read in
//! the transaction would hide it). `READ COMMITTED` also takes no gap locks: a scan of free
//! rows does not block the insert of a new node's row, and `SKIP LOCKED` skips exactly the
//! rows that are locked.
//!
//! # When the tables go back in time
//!
//! As on PostgreSQL: a `TRUNCATE`, or a restore from an older backup, can make a node a live
//! holder mints on look free with an old, low fence. The store keeps a random **epoch** per
//! namespace that every renewal must name, and checks at every acquire, under the namespace's
//! lock, that its records are whole. When they may not be, it starts a new epoch whose grants
//! are all fenced past `now + H` (`now` the acquirer's clock, `H` the longest
//! [`LeaseSpec::horizon`] ever asked for in the namespace or the store): Consul's lock delay,
//! returned as [`Lease::not_before_ms`] and folded into [`Lease::fence_ms`]. Holders of the old
//! epoch fail their next renewal.
//!
//! What counts as "may not be whole":
//!
//! - **Counts.** The epoch row counts the nodes created (`next_node`) and every write to the
//!   namespace's rows (`writes`: each grant, renewal and release bumps one row's `version` and
//!   `writes` in one statement). The rows must number exactly `next_node`, none at or above it,
//!   and their versions must add up to `writes`. Deleted rows break the count; rows restored
//!   older than the epoch row (or the other way round) break the sum — as soon as one renewal
//!   happened since the backup, which a live holder's renewals guarantee.
//! - **Missing rows.** A namespace with rows but no epoch row; a store without its store row
//!   (written right after the tables are first created, so only a lost or emptied epoch table
//!   lacks it). A namespace with neither is new: it gets the store's lock delay if one is
//!   running.
//! - **Missing tables.** A store object that saw the tables and finds them gone (the database
//!   dropped, the server's data wiped) makes them again without the store row, so the next
//!   acquire starts the lock delay. Tables missing when first seen are a new store (no lock
//!   delay): a database wiped while no running store object had seen it is not caught.
//! - **The fingerprint** (as far as the server shows it): the tables' `CREATE_TIME` (a `DROP`
//!   and re-create, as a `mysqldump` restore does, changes it), their InnoDB table ids where
//!   the user may read them (`information_schema.INNODB_SYS_TABLES` on MariaDB,
//!   `INNODB_TABLES` on MySQL, both needing the `PROCESS` privilege: a `TRUNCATE` gives a new
//!   id), and the server's `@@server_uid` (MariaDB: derived from the host's hardware address
//!   and the port) or `@@server_uuid` (MySQL: kept in the data directory).
//!
//! Caught: `TRUNCATE` of either table or both; `DELETE` of rows; either table restored from an
//! older copy, by `DROP` and re-create or by `TRUNCATE` and `INSERT` (once a renewal happened
//! since the copy); a dump restored into another server. **Not caught**: both tables taken
//! back together, consistently, from one backup into the same tables (nothing of the old state
//! survives to compare with, unless the `PROCESS` privilege shows the new table ids or the
//! tables were dropped); a point-in-time recovery or a failover to a replica that lagged, on a
//! server with the same identity (MariaDB shows no timeline); rows edited by hand. A
//! `TRUNCATE`-and-`INSERT` restore of one table with no renewal since the copy, without the
//! `PROCESS` privilege, is not caught either — grant `PROCESS` to the store's user where that
//! matters. `OPTIMIZE TABLE` or an `ALTER TABLE` that rebuilds these tables, and moving the
//! server to another host or port (MariaDB's `server_uid` changes), are taken for a loss:
//! harmless, but every holder loses its lease once and the next grants wait out the lock
//! delay. Clock assumption as on PostgreSQL: holders' clocks within a small part of the
//! horizon of each other.
//!
//! # Calls and deadlines
//!
//! See the crate's `mysql_conn` module (`coord/src/mysql_conn.rs`) and its README's
//! MySQL/MariaDB section: `timeout_ms` bounds the TCP connect, every socket
//! read and write, and each call as a whole (checked before each statement), so a call against
//! a stopped server fails within about two timeouts. A failed call drops its connection; the
//! server rolls back what it had not committed. Acquires and renewals on a pooled connection
//! that turns out dead run once more on a new one (an acquire committed but unanswered leaves
//! a grant nobody holds, which expires after its TTL); releases do not.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use idmint::{Error, Result};
use mysql::prelude::Queryable;
use mysql::{Conn, Params, Value};

use crate::mysql_conn::{self, CallError, CallResult, Deadline, My, MyConn};

use super::contract::{Lease, LeaseSpec};
use super::sql::{self, to_i64, Ask, Grant, HolderOp, Matched, NsRepair, Seen, SqlDialect, Step};

const STORE: &str = "mysql";

const LEASE_TABLE: &str = "CREATE TABLE IF NOT EXISTS idmint_lease (
  namespace      VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  node           BIGINT       NOT NULL,
  holder         VARCHAR(255),
  token          BIGINT       NOT NULL DEFAULT 0,
  owner          BIGINT,
  version        BIGINT       NOT NULL DEFAULT 0,
  expires_at     DATETIME(3),
  last_issued_ms BIGINT,
  released_at    DATETIME(3),
  horizon_ms     BIGINT,
  PRIMARY KEY (namespace, node)
) ENGINE=InnoDB";

const EPOCH_TABLE: &str = "CREATE TABLE IF NOT EXISTS idmint_lease_epoch (
  namespace      VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  epoch          BIGINT      NOT NULL,
  next_node      BIGINT      NOT NULL DEFAULT 0,
  writes         BIGINT      NOT NULL DEFAULT 0,
  horizon_ms     BIGINT      NOT NULL DEFAULT 0,
  not_before_ms  BIGINT,
  lease_created  BIGINT,
  epoch_created  BIGINT,
  lease_table_id BIGINT,
  epoch_table_id BIGINT,
  server_id      VARCHAR(128),
  changed_at     DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
) ENGINE=InnoDB";

/// A marker that survives `TRUNCATE` of the other two: only a database that never had the
/// store lacks all three, and only then is the store row written without a loss. It is created
/// last, after the store row, so that finding all three tables means finding the store row.
const MARKER_TABLE: &str =
    "CREATE TABLE IF NOT EXISTS idmint_lease_installed (one TINYINT PRIMARY KEY) ENGINE=InnoDB";

/// Baidu UidGenerator's DDL, verbatim but for `IF NOT EXISTS`.
const WORKER_NODE_TABLE: &str = "CREATE TABLE IF NOT EXISTS WORKER_NODE
(
ID BIGINT NOT NULL AUTO_INCREMENT COMMENT 'auto increment id',
HOST_NAME VARCHAR(64) NOT NULL COMMENT 'host name',
PORT VARCHAR(64) NOT NULL COMMENT 'port',
TYPE INT NOT NULL COMMENT 'node type: ACTUAL or CONTAINER',
LAUNCH_DATE DATE NOT NULL COMMENT 'launch date',
MODIFIED TIMESTAMP NOT NULL COMMENT 'modified time',
CREATED TIMESTAMP NOT NULL COMMENT 'created time',
PRIMARY KEY(ID)
)
 COMMENT='DB WorkerID Assigner for UID Generator',ENGINE = INNODB";

const TABLES_PRESENT: &str = "SELECT COUNT(*) FROM information_schema.TABLES
    WHERE TABLE_SCHEMA = DATABASE()
      AND TABLE_NAME IN ('idmint_lease', 'idmint_lease_epoch', 'idmint_lease_installed')";

const EPOCH_COLUMNS: &str = "epoch, next_node, writes, horizon_ms, not_before_ms, lease_created,
    epoch_created, lease_table_id, epoch_table_id, server_id";

/// The tables' creation times, in one statement.
const CREATED: &str = "SELECT
    (SELECT CAST(UNIX_TIMESTAMP(CREATE_TIME) AS SIGNED) FROM information_schema.TABLES
     WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idmint_lease'),
    (SELECT CAST(UNIX_TIMESTAMP(CREATE_TIME) AS SIGNED) FROM information_schema.TABLES
     WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idmint_lease_epoch')";

/// The namespace's rows, summed up (with the epoch row's `next_node` as the parameter).
const ROWS: &str = "SELECT COUNT(*), CAST(COALESCE(SUM(node >= ?), 0) AS SIGNED),
    CAST(COALESCE(SUM(version), 0) AS SIGNED), COALESCE(MAX(node) + 1, 0),
    COALESCE(MAX(horizon_ms), 0)
    FROM idmint_lease WHERE namespace = ?";

const GRANT_NEW_COUNT: &str = "UPDATE idmint_lease_epoch
    SET next_node = next_node + 1, writes = writes + 1, horizon_ms = GREATEST(horizon_ms, ?)
    WHERE namespace = ?";

const GRANT_NEW_ROW: &str = "INSERT INTO idmint_lease
    (namespace, node, holder, token, owner, version, expires_at, released_at, horizon_ms)
    VALUES (?, ?, ?, 1, ?, 1, NOW(3) + INTERVAL ? MICROSECOND, NOW(3), ?)";

/// The best free or expired row in queue order: bound not ahead of the caller's clock first,
/// then released longest ago (never released first).
const PICK_FREE: &str = "SELECT node, token, last_issued_ms FROM idmint_lease
    WHERE namespace = ? AND node < ? AND node <> ?
      AND (holder IS NULL OR expires_at <= NOW(3))
    ORDER BY COALESCE(last_issued_ms, -1) > ?,
             CASE WHEN COALESCE(last_issued_ms, -1) > ? THEN last_issued_ms ELSE 0 END,
             released_at, node
    LIMIT 1
    FOR UPDATE SKIP LOCKED";

const GRANT_FREE_ROW: &str = "UPDATE idmint_lease
    SET token = token + 1, version = version + 1, holder = ?, owner = ?, horizon_ms = ?,
        expires_at = NOW(3) + INTERVAL ? MICROSECOND, released_at = NOW(3)
    WHERE namespace = ? AND node = ?";

const GRANT_FREE_COUNT: &str = "UPDATE idmint_lease_epoch
    SET writes = writes + 1, horizon_ms = GREATEST(horizon_ms, ?) WHERE namespace = ?";

/// Whether any node is free or expired, ignoring row locks (after the pick found none it could
/// lock).
const ANY_FREE: &str = "SELECT EXISTS (SELECT 1 FROM idmint_lease
    WHERE namespace = ? AND node < ? AND node <> ? AND (holder IS NULL OR expires_at <= NOW(3)))";

const STORE_HORIZON: &str =
    "UPDATE idmint_lease_epoch SET horizon_ms = ? WHERE namespace = '' AND horizon_ms < ?";

const RENEW: &str = "UPDATE idmint_lease l JOIN idmint_lease_epoch e ON e.namespace = l.namespace
    SET l.expires_at = NOW(3) + INTERVAL ? MICROSECOND,
        l.last_issued_ms = GREATEST(COALESCE(l.last_issued_ms, 0), ?),
        l.version = l.version + 1, e.writes = e.writes + 1
    WHERE l.namespace = ? AND l.node = ? AND l.token = ? AND l.owner = ?
      AND l.holder IS NOT NULL AND e.epoch = ?";

const RELEASE: &str = "UPDATE idmint_lease l JOIN idmint_lease_epoch e ON e.namespace = l.namespace
    SET l.holder = NULL, l.expires_at = NULL,
        l.last_issued_ms = GREATEST(COALESCE(l.last_issued_ms, 0), ?), l.released_at = NOW(3),
        l.version = l.version + 1, e.writes = e.writes + 1
    WHERE l.namespace = ? AND l.node = ? AND l.token = ? AND l.owner = ?
      AND l.holder IS NOT NULL AND e.epoch = ?";

const BOOT_ROW: &str = "INSERT INTO WORKER_NODE
    (HOST_NAME, PORT, TYPE, LAUNCH_DATE, MODIFIED, CREATED)
    VALUES (?, ?, 2, CURDATE(), NOW(), NOW())";

const BOOT_STOP: &str = "UPDATE WORKER_NODE SET MODIFIED = NOW() WHERE ID = ?";

/// Node leases on MySQL or MariaDB; see the [module docs](self).
#[derive(Debug)]
pub struct MysqlStore {
    my: My,
    boot: bool,
    /// Whether a connection of this store object found (or made) the tables: tables missing
    /// after that were lost (the database dropped, or the server's data wiped), not new, so
    /// they are made again without the store row and the next acquire starts the lock delay.
    seen_schema: AtomicBool,
}

/// A table's identity as the server shows it (`None` where not shown).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Fingerprint {
    lease_created: Option<i64>,
    epoch_created: Option<i64>,
    lease_table_id: Option<i64>,
    epoch_table_id: Option<i64>,
    server_id: Option<String>,
}

impl Fingerprint {
    /// Whether a recorded fingerprint matches the live one: every part both sides know must
    /// be equal.
    fn matches(&self, live: &Fingerprint) -> bool {
        fn same<T: PartialEq>(a: &Option<T>, b: &Option<T>) -> bool {
            match (a, b) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
        }
        same(&self.lease_created, &live.lease_created)
            && same(&self.epoch_created, &live.epoch_created)
            && same(&self.lease_table_id, &live.lease_table_id)
            && same(&self.epoch_table_id, &live.epoch_table_id)
            && same(&self.server_id, &live.server_id)
    }

    fn values(&self) -> [Value; 5] {
        [
            self.lease_created.into(),
            self.epoch_created.into(),
            self.lease_table_id.into(),
            self.epoch_table_id.into(),
            self.server_id.clone().into(),
        ]
    }
}

/// An epoch row.
#[derive(Debug, Clone)]
struct EpochRow {
    epoch: i64,
    next_node: i64,
    writes: i64,
    horizon_ms: i64,
    not_before_ms: Option<i64>,
    fp: Fingerprint,
}

type EpochTuple = (
    i64,
    i64,
    i64,
    i64,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<String>,
);

impl From<EpochTuple> for EpochRow {
    fn from(t: EpochTuple) -> EpochRow {
        EpochRow {
            epoch: t.0,
            next_node: t.1,
            writes: t.2,
            horizon_ms: t.3,
            not_before_ms: t.4,
            fp: Fingerprint {
                lease_created: t.5,
                epoch_created: t.6,
                lease_table_id: t.7,
                epoch_table_id: t.8,
                server_id: t.9,
            },
        }
    }
}

/// What the check under the namespace's lock saw.
struct Facts {
    ns: Option<EpochRow>,
    store: Option<EpochRow>,
    live: Fingerprint,
    rows: i64,
    above: i64,
    versions: i64,
    after: i64,
    rows_horizon: i64,
}

impl Facts {
    fn store_ok(&self) -> bool {
        self.store
            .as_ref()
            .is_some_and(|s| s.fp.matches(&self.live))
    }

    /// Whether the namespace's records are whole (its epoch row present and consistent).
    fn ns_ok(&self) -> bool {
        self.ns.as_ref().is_some_and(|n| {
            n.fp.matches(&self.live)
                && self.rows == n.next_node
                && self.above == 0
                && self.versions == n.writes
        })
    }

    /// What the shared repair decides on.
    fn seen(&self) -> Seen {
        Seen {
            store_ok: self.store_ok(),
            ns_ok: self.ns_ok(),
            store_horizon: self.store.as_ref().map_or(0, |s| s.horizon_ms),
            store_not_before: self.store.as_ref().and_then(|s| s.not_before_ms),
            ns: self
                .ns
                .as_ref()
                .map(|n| (n.next_node, n.horizon_ms, n.not_before_ms)),
            rows: self.rows,
            after: self.after,
            rows_horizon: self.rows_horizon,
        }
    }
}

/// A duration in whole microseconds (MySQL's `INTERVAL … MICROSECOND`).
fn us(d: Duration) -> i64 {
    to_i64(u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

fn params(v: Vec<Value>) -> Params {
    Params::Positional(v)
}

/// The live fingerprint, read inside the acquire's transaction.
fn live_fingerprint(c: &mut MyConn, d: Deadline) -> CallResult<Fingerprint> {
    d.check()?;
    let (lease_created, epoch_created): (Option<i64>, Option<i64>) =
        mysql_conn::query_first(&mut c.conn, CREATED)?.unwrap_or((None, None));
    let (mut lease_table_id, mut epoch_table_id) = (None, None);
    if let Some(t) = c.innodb_tables {
        d.check()?;
        let sql = format!(
            "SELECT (SELECT TABLE_ID FROM information_schema.{t}
                     WHERE NAME = CONCAT(DATABASE(), '/idmint_lease')),
                    (SELECT TABLE_ID FROM information_schema.{t}
                     WHERE NAME = CONCAT(DATABASE(), '/idmint_lease_epoch'))"
        );
        // Unreadable after all (a privilege revoked meanwhile): that part is skipped.
        if let Ok(Some((a, b))) =
            mysql_conn::query_first::<(Option<i64>, Option<i64>)>(&mut c.conn, &sql)
        {
            (lease_table_id, epoch_table_id) = (a, b);
        }
    }
    Ok(Fingerprint {
        lease_created,
        epoch_created,
        lease_table_id,
        epoch_table_id,
        server_id: c.server_id.clone(),
    })
}

fn epoch_row(c: &mut Conn, ns: &str, lock: bool) -> CallResult<Option<EpochRow>> {
    let sql = format!(
        "SELECT {EPOCH_COLUMNS} FROM idmint_lease_epoch WHERE namespace = ?{}",
        if lock { " FOR UPDATE" } else { "" }
    );
    Ok(mysql_conn::exec_first::<EpochTuple>(c, &sql, (ns,))?.map(EpochRow::from))
}

/// Reads everything the acquire checks; the namespace's row is locked first.
fn check(c: &mut MyConn, d: Deadline, ns: &str) -> CallResult<Facts> {
    d.check()?;
    let ns_row = epoch_row(&mut c.conn, ns, true)?;
    d.check()?;
    let store = epoch_row(&mut c.conn, "", false)?;
    let live = live_fingerprint(c, d)?;
    d.check()?;
    let next = ns_row.as_ref().map_or(0, |n| n.next_node);
    let (rows, above, versions, after, rows_horizon): (i64, i64, i64, i64, i64) =
        mysql_conn::exec_first(&mut c.conn, ROWS, (next, ns))?.ok_or(CallError::Unexpected)?;
    Ok(Facts {
        ns: ns_row,
        store,
        live,
        rows,
        above,
        versions,
        after,
        rows_horizon,
    })
}

/// One acquire attempt, in one transaction: the check under the namespace's lock, then a
/// grant if the records are whole, or a repair if not (see the module docs).
fn attempt(c: &mut MyConn, d: Deadline, a: &Ask<'_>) -> CallResult<Step> {
    d.check()?;
    c.conn.query_drop("START TRANSACTION")?;
    let facts = check(c, d, a.ns)?;
    let ns = match &facts.ns {
        Some(n) if facts.store_ok() && facts.ns_ok() => n.clone(),
        _ => {
            repair(c, d, a, &facts)?;
            d.check()?;
            c.conn.query_drop("COMMIT")?;
            return Ok(Step::Again);
        }
    };
    let grant = if ns.next_node < a.nodes {
        d.check()?;
        c.conn.exec_drop(GRANT_NEW_COUNT, (a.horizon, a.ns))?;
        d.check()?;
        c.conn.exec_drop(
            GRANT_NEW_ROW,
            params(vec![
                a.ns.into(),
                ns.next_node.into(),
                a.holder.into(),
                a.owner.into(),
                us(a.ttl).into(),
                a.horizon.into(),
            ]),
        )?;
        Grant {
            node: ns.next_node,
            token: 1,
            bound: None,
            epoch: ns.epoch,
            not_before: ns.not_before_ms,
        }
    } else {
        d.check()?;
        let picked: Option<(i64, i64, Option<i64>)> = mysql_conn::exec_first(
            &mut c.conn,
            PICK_FREE,
            params(vec![
                a.ns.into(),
                a.nodes.into(),
                a.avoid.into(),
                a.now.into(),
                a.now.into(),
            ]),
        )?;
        let Some((node, token, bound)) = picked else {
            d.check()?;
            c.conn.query_drop("ROLLBACK")?;
            d.check()?;
            let free: Option<i64> =
                mysql_conn::exec_first(&mut c.conn, ANY_FREE, (a.ns, a.nodes, a.avoid))?;
            return Ok(if free == Some(1) {
                Step::Again
            } else {
                Step::NoFree
            });
        };
        d.check()?;
        c.conn.exec_drop(
            GRANT_FREE_ROW,
            params(vec![
                a.holder.into(),
                a.owner.into(),
                a.horizon.into(),
                us(a.ttl).into(),
                a.ns.into(),
                node.into(),
            ]),
        )?;
        d.check()?;
        c.conn.exec_drop(GRANT_FREE_COUNT, (a.horizon, a.ns))?;
        Grant {
            node,
            token: token + 1,
            bound,
            epoch: ns.epoch,
            not_before: ns.not_before_ms,
        }
    };
    if a.horizon > facts.store.as_ref().map_or(0, |s| s.horizon_ms) {
        d.check()?;
        c.conn.exec_drop(STORE_HORIZON, (a.horizon, a.horizon))?;
    }
    d.check()?;
    c.conn.query_drop("COMMIT")?;
    Ok(Step::Granted(grant))
}

/// Under the namespace's lock (taken by the check): where the records are not whole, starts a
/// new epoch fenced past the lock delay, re-creates missing rows and recounts; creates the
/// epoch row of a new namespace. The caller commits.
fn repair(c: &mut MyConn, d: Deadline, a: &Ask<'_>, f: &Facts) -> CallResult<()> {
    let plan = sql::plan_repair(a, &f.seen());
    let live = f.live.values();
    if let Some((delay, h)) = plan.heal_store {
        d.check()?;
        let mut v: Vec<Value> = vec![h.into(), delay.into()];
        v.extend(live.iter().cloned());
        c.conn.exec_drop(
            "INSERT INTO idmint_lease_epoch (namespace, epoch, horizon_ms, not_before_ms,
                lease_created, epoch_created, lease_table_id, epoch_table_id, server_id)
             VALUES ('', 0, ?, ?, ?, ?, ?, ?, ?)
             ON DUPLICATE KEY UPDATE
                horizon_ms = GREATEST(horizon_ms, VALUES(horizon_ms)),
                not_before_ms = GREATEST(COALESCE(not_before_ms, 0), VALUES(not_before_ms)),
                lease_created = VALUES(lease_created), epoch_created = VALUES(epoch_created),
                lease_table_id = VALUES(lease_table_id), epoch_table_id = VALUES(epoch_table_id),
                server_id = VALUES(server_id), changed_at = NOW(3)",
            params(v),
        )?;
    }
    let (exists, next, h, nb) = match plan.ns {
        NsRepair::Nothing => return Ok(()),
        NsRepair::Create {
            horizon,
            not_before,
        } => return insert_ns(c, d, a, 0, horizon, not_before, &live),
        NsRepair::NewEpoch {
            exists,
            next,
            horizon,
            not_before,
        } => (exists, next, horizon, not_before),
    };
    if exists {
        d.check()?;
        let mut v: Vec<Value> = vec![a.fresh_epoch.into(), next.into(), h.into(), nb.into()];
        v.extend(live.iter().cloned());
        v.push(a.ns.into());
        c.conn.exec_drop(
            "UPDATE idmint_lease_epoch SET epoch = ?, next_node = ?,
                horizon_ms = GREATEST(horizon_ms, ?), not_before_ms = ?,
                lease_created = ?, epoch_created = ?, lease_table_id = ?, epoch_table_id = ?,
                server_id = ?, changed_at = NOW(3)
             WHERE namespace = ?",
            params(v),
        )?;
    } else {
        insert_ns(c, d, a, next, h, nb, &live)?;
    }
    refill(c, d, a.ns, next)?;
    d.check()?;
    c.conn.exec_drop(
        "UPDATE idmint_lease_epoch SET writes = (SELECT CAST(COALESCE(SUM(version), 0) AS SIGNED)
            FROM idmint_lease WHERE namespace = ?) WHERE namespace = ?",
        (a.ns, a.ns),
    )?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn insert_ns(
    c: &mut MyConn,
    d: Deadline,
    a: &Ask<'_>,
    next: i64,
    horizon: i64,
    not_before: Option<i64>,
    live: &[Value; 5],
) -> CallResult<()> {
    d.check()?;
    let mut v: Vec<Value> = vec![
        a.ns.into(),
        a.fresh_epoch.into(),
        next.into(),
        horizon.into(),
        not_before.into(),
    ];
    v.extend(live.iter().cloned());
    // Another session may have created it meanwhile: then this changes nothing, and the next
    // attempt reads that one.
    c.conn.exec_drop(
        "INSERT INTO idmint_lease_epoch (namespace, epoch, next_node, writes, horizon_ms,
            not_before_ms, lease_created, epoch_created, lease_table_id, epoch_table_id,
            server_id)
         VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE namespace = namespace",
        params(v),
    )?;
    Ok(())
}

/// Re-creates the rows of nodes below `next` that are missing (after a loss), free and with no
/// bound of their own: the new epoch's lock delay fences them.
fn refill(c: &mut MyConn, d: Deadline, ns: &str, next: i64) -> CallResult<()> {
    d.check()?;
    let present: Vec<i64> = c
        .conn
        .exec_opt::<i64, _, _>(
            "SELECT node FROM idmint_lease WHERE namespace = ? AND node < ? ORDER BY node",
            (ns, next),
        )?
        .into_iter()
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| CallError::Unexpected)?;
    let mut have = present.into_iter().peekable();
    let mut missing = Vec::new();
    for node in 0..next {
        if have.next_if_eq(&node).is_none() {
            missing.push(node);
        }
    }
    for chunk in missing.chunks(500) {
        d.check()?;
        let rows = vec!["(?, ?)"; chunk.len()].join(", ");
        let mut v: Vec<Value> = Vec::with_capacity(chunk.len() * 2);
        for &node in chunk {
            v.push(ns.into());
            v.push(node.into());
        }
        c.conn.exec_drop(
            format!(
                "INSERT INTO idmint_lease (namespace, node) VALUES {rows}
                 ON DUPLICATE KEY UPDATE node = node"
            ),
            params(v),
        )?;
    }
    Ok(())
}

impl MysqlStore {
    /// Opens a store for `mysql://…` or `mariadb://…`, with `mode=boot` for Baidu's
    /// new-row-per-boot mode, `timeout_ms=N` for the call timeout and the TLS options of
    /// the crate's `mysql_conn` module (`coord/src/mysql_conn.rs`; no connection yet).
    pub fn open(url: &str) -> Result<MysqlStore> {
        let target = mysql_conn::parse(url)?;
        let boot = match target.mode.as_deref() {
            None | Some("lease") => false,
            Some("boot") => true,
            Some(_) => {
                return Err(Error::InvalidConfig {
                    reason: "MySQL lease store mode must be `lease` or `boot`",
                })
            }
        };
        Ok(MysqlStore {
            my: My::new(STORE, target),
            boot,
            seen_schema: AtomicBool::new(false),
        })
    }

    /// Whether this store runs in Baidu's new-row-per-boot mode.
    pub fn is_boot_mode(&self) -> bool {
        self.boot
    }

    /// Creates the tables this mode needs, when missing; in lease mode a database that never
    /// had them gets its store row too. Cheap when they exist (one query).
    fn ensure_schema(&self, c: &mut MyConn, d: Deadline) -> CallResult<()> {
        if c.schema_ready {
            return Ok(());
        }
        d.check()?;
        if self.boot {
            c.conn.query_drop(WORKER_NODE_TABLE)?;
            c.schema_ready = true;
            return Ok(());
        }
        let present: Option<i64> = mysql_conn::query_first(&mut c.conn, TABLES_PRESENT)?;
        if present == Some(3) {
            c.schema_ready = true;
            self.seen_schema.store(true, Ordering::Relaxed);
            return Ok(());
        }
        // Several processes may set up a new database at once: one at a time, so that exactly
        // the first writes the store row.
        let secs = self.my.timeout().as_millis().div_ceil(1000).max(1);
        d.check()?;
        let got: Option<Option<i64>> = mysql_conn::query_first(
            &mut c.conn,
            &format!("SELECT GET_LOCK(CONCAT(DATABASE(), '.idmint_lease_schema'), {secs})"),
        )?;
        if got != Some(Some(1)) {
            return Err(CallError::Driver(mysql::Error::DriverError(
                mysql::DriverError::Timeout,
            )));
        }
        let r: CallResult<()> = (|| {
            d.check()?;
            let present: Option<i64> = mysql_conn::query_first(&mut c.conn, TABLES_PRESENT)?;
            // The marker last, after the store row: MySQL's DDL commits at once, and a process
            // that finds all three tables without taking the lock must find the store row too
            // (else it takes the new database for one that lost its records, and fences it).
            for ddl in [LEASE_TABLE, EPOCH_TABLE] {
                d.check()?;
                c.conn.query_drop(ddl)?;
            }
            if present == Some(0) && !self.seen_schema.load(Ordering::Relaxed) {
                let live = live_fingerprint(c, d)?;
                d.check()?;
                let mut v: Vec<Value> = live.values().to_vec();
                v.truncate(5);
                c.conn.exec_drop(
                    "INSERT INTO idmint_lease_epoch (namespace, epoch, lease_created,
                        epoch_created, lease_table_id, epoch_table_id, server_id)
                     VALUES ('', 0, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE namespace = namespace",
                    params(v),
                )?;
            }
            d.check()?;
            c.conn.query_drop(MARKER_TABLE)?;
            Ok(())
        })();
        d.check()?;
        c.conn
            .query_drop("SELECT RELEASE_LOCK(CONCAT(DATABASE(), '.idmint_lease_schema'))")?;
        r?;
        c.schema_ready = true;
        self.seen_schema.store(true, Ordering::Relaxed);
        Ok(())
    }

    fn boot_node(&self, spec: &LeaseSpec) -> Result<Lease> {
        let holder = spec.holder_clean();
        let owner = super::contract::random_nonzero()?;
        let host: String = super::contract::hostname().chars().take(64).collect();
        let port: String = format!("{}-{owner:016x}", std::process::id());
        let id: u64 = self.my.call("acquire", false, |c, d| {
            self.ensure_schema(c, d)?;
            d.check()?;
            c.conn.exec_drop(BOOT_ROW, (host.as_str(), port.as_str()))?;
            Ok(c.conn.last_insert_id())
        })?;
        if id == 0 || id >= spec.nodes {
            return Err(Error::NoFreeNode { nodes: spec.nodes });
        }
        Ok(Lease {
            namespace: spec.namespace.clone(),
            node: id,
            token: 1,
            fence_ms: None,
            ttl: spec.ttl,
            holder,
            owner,
            epoch: 0,
            not_before_ms: None,
        })
    }
}

sql::sql_lease_store!(MysqlStore);

impl SqlDialect for MysqlStore {
    const STORE: &'static str = STORE;
    const TOO_MANY_NODES: &'static str =
        "the MySQL lease store handles node spaces of at most 2^63 - 1 nodes";
    const HOLDER_MAX: usize = 255;

    fn boot(&self) -> bool {
        self.boot
    }

    fn call_timeout(&self) -> Duration {
        self.my.timeout()
    }

    fn acquire_boot(&self, spec: &LeaseSpec) -> Result<Lease> {
        self.boot_node(spec)
    }

    fn release_boot(&self, lease: &Lease, _last: i64) -> Result<()> {
        let node = to_i64(lease.node);
        self.my.call("release", false, |c, d| {
            self.ensure_schema(c, d)?;
            d.check()?;
            c.conn.exec_drop(BOOT_STOP, (node,))?;
            Ok(())
        })
    }

    fn attempt(&self, ask: &Ask<'_>) -> Result<Step> {
        self.my.call("acquire", true, |c, d| {
            self.ensure_schema(c, d)?;
            attempt(c, d, ask)
        })
    }

    /// On a miss, one more read says whether the epoch moved.
    fn holder(&self, lease: &Lease, op: HolderOp) -> Result<Matched> {
        let (sql, mut v): (&str, Vec<Value>) = match op {
            HolderOp::Renew { ttl, up_to } => (RENEW, vec![us(ttl).into(), up_to.into()]),
            HolderOp::Release { last } => (RELEASE, vec![last.into()]),
        };
        v.extend([
            lease.namespace.as_str().into(),
            to_i64(lease.node).into(),
            to_i64(lease.token).into(),
            (lease.owner as i64).into(),
            (lease.epoch as i64).into(),
        ]);
        let ns = lease.namespace.as_str();
        let epoch = lease.epoch as i64;
        let name = op.name();
        let (matched, epoch_now): (u64, Option<i64>) =
            self.my.call(name, name == "renew", |c, d| {
                self.ensure_schema(c, d)?;
                d.check()?;
                c.conn.exec_drop(sql, params(v.clone()))?;
                let n = c.conn.affected_rows();
                if n == 2 {
                    return Ok((n, Some(epoch)));
                }
                d.check()?;
                let e: Option<i64> = mysql_conn::exec_first(
                    &mut c.conn,
                    "SELECT epoch FROM idmint_lease_epoch WHERE namespace = ?",
                    (ns,),
                )?;
                Ok((n, e))
            })?;
        Ok(Matched {
            row: matched == 2,
            epoch_ok: epoch_now == Some(epoch),
        })
    }
}
