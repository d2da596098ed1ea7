//! The MySQL/MariaDB segment store, on Meituan Leaf's own table: an existing Leaf database
//! works unchanged, and Leaf servers and idmint allocators can share it.
//!
//! # The table
//!
//! `leaf_alloc`, exactly as Leaf creates it, and created so (`CREATE TABLE IF NOT EXISTS`) only
//! when missing:
//!
//! ```sql
//! CREATE TABLE leaf_alloc (
//!   biz_tag     VARCHAR(128) NOT NULL DEFAULT '',
//!   max_id      BIGINT(20)   NOT NULL DEFAULT '1',
//!   step        INT(11)      NOT NULL,
//!   description VARCHAR(256) DEFAULT NULL,
//!   update_time TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
//!   PRIMARY KEY (biz_tag)
//! ) ENGINE=InnoDB
//! ```
//!
//! A key (`biz_tag`) is at most 128 characters here (the column's width). A tag missing is
//! created on first use as a Leaf administrator would: `max_id = 1`, `step` = the step of the
//! take that created it (the allocator's initial step, 1,000 by default, at most `i32::MAX`),
//! `description = 'created by idmint'`. A tag that exists keeps its row as it is; idmint never
//! writes `step`.
//!
//! # A take
//!
//! Leaf's own transaction, at `READ COMMITTED`:
//!
//! ```sql
//! START TRANSACTION;
//! UPDATE leaf_alloc SET max_id = max_id + GREATEST(step, ?) WHERE biz_tag = ? AND …no wrap…;
//! SELECT biz_tag, max_id, step FROM leaf_alloc WHERE biz_tag = ?;
//! COMMIT;
//! ```
//!
//! The row's `step` is the least a take hands out, and the step asked (by the allocator's
//! adaptive step, or a large batch) is used when it is larger — what Leaf's own dynamic step
//! does (`max_id = max_id + nextStep`, never below the row's step, the column left alone). So a
//! take may return *more* values than asked: [`SegmentStore::take`] allows it, and the
//! allocator serves whatever range it gets.
//!
//! # Which values, and why Leaf and idmint never overlap
//!
//! `max_id` is the first value not handed out yet (Leaf's convention; idmint's other stores
//! keep the last one handed out instead). A take that moves it from `m` to `m + s` hands out
//! `m ..= m + s - 1`, i.e. the range `[max_id - s, max_id)` read back after the update —
//! exactly the values Leaf's segment serves (its `value` runs from `max_id - step` while it is
//! below `max_id`). Value 0 (a row set to `max_id = 0` by hand) is skipped.
//!
//! Every taker, Leaf or idmint, moves `max_id` up by its `s` under the row's lock, in a
//! transaction, and hands out exactly the values it moved past. The row lock orders the takes:
//! each starts where the previous one ended, so the ranges `[m₀, m₁), [m₁, m₂), …` are
//! disjoint whoever took them. (`coord/tests/mysql_stores.rs` plays Leaf's SQL next to idmint
//! allocators on one table.)
//!
//! A take that would carry `max_id` past `i64::MAX` changes nothing and fails with
//! [`Error::OutOfRange`] (`max_id`).
//!
//! # Identity, failures
//!
//! The database's [identity](SegmentStore::identity) is kept in a one-row table
//! `idmint_segment_identity` (as on PostgreSQL and SQLite): a journal resumes only on the same
//! database, and a database whose identity table was emptied or dropped gets a new identity.
//! Emptying `leaf_alloc` alone is not seen by the identity; an allocator already running
//! refuses the ranges that go back ([`SegmentStore::ascending`]).
//!
//! Calls run under the deadline of the URL's `timeout_ms` (the crate's `mysql_conn` module,
//! `coord/src/mysql_conn.rs`, describes it and the TLS options `ssl-mode` and `ca_file`; default
//! [`DEFAULT_STORE_TIMEOUT`](crate::lease::DEFAULT_STORE_TIMEOUT)). A take whose pooled
//! connection turns out dead runs once more on a new connection; when the first attempt had
//! reached the server its range is skipped, never handed out twice.

use std::sync::atomic::{AtomicBool, Ordering};

use idmint::segment::Range;
use idmint::{Error, Result};
use mysql::prelude::Queryable;

use super::contract::SegmentStore;
use super::counter;
use crate::mysql_conn::{self, CallResult, My};

const KIND: &str = "mysql";

/// Leaf's DDL, verbatim but for `IF NOT EXISTS`.
const LEAF_TABLE: &str = "CREATE TABLE IF NOT EXISTS `leaf_alloc` (
  `biz_tag` varchar(128) NOT NULL DEFAULT '',
  `max_id` bigint(20) NOT NULL DEFAULT '1',
  `step` int(11) NOT NULL,
  `description` varchar(256) DEFAULT NULL,
  `update_time` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  PRIMARY KEY (`biz_tag`)
) ENGINE=InnoDB";

const IDENTITY_TABLE: &str = "CREATE TABLE IF NOT EXISTS idmint_segment_identity (
  one        TINYINT   NOT NULL PRIMARY KEY CHECK (one = 1),
  identity   BIGINT    NOT NULL,
  created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
) ENGINE=InnoDB";

/// Leaf's update, with the step floor and the wrap guard: matches no row when the tag is
/// missing or one more step would pass `i64::MAX`.
const TAKE: &str = "UPDATE leaf_alloc SET max_id = max_id + GREATEST(step, ?)
    WHERE biz_tag = ? AND max_id <= 9223372036854775807 - GREATEST(step, ?)";

const READ_BACK: &str = "SELECT max_id, step FROM leaf_alloc WHERE biz_tag = ?";

const CREATE_TAG: &str = "INSERT INTO leaf_alloc (biz_tag, max_id, step, description)
    VALUES (?, 1, ?, 'created by idmint') ON DUPLICATE KEY UPDATE biz_tag = biz_tag";

/// Longest `biz_tag`, in characters (Leaf's column).
pub const MAX_TAG_CHARS: usize = 128;

/// A [`SegmentStore`] on MySQL or MariaDB, on Leaf's `leaf_alloc` table. See the
/// [module docs](self).
///
/// # Examples
/// ```no_run
/// use idmint_coord::segment::{mysql::MysqlStore, SegmentStore};
///
/// let store = MysqlStore::new("mysql://leaf@db.internal:3306/leaf?timeout_ms=2000")?;
/// let r = store.take("orders", 1_000)?;
/// assert!(r.len() >= 1_000); // or the row's own step, if larger
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug)]
pub struct MysqlStore {
    my: My,
    schema_ready: AtomicBool,
}

/// What a take's transaction found.
enum Took {
    /// `max_id` after the update, and the row's step.
    Moved { max_id: i64, step: i64 },
    /// The tag has no row.
    Missing,
    /// One more step would pass `i64::MAX`: `max_id` and the step it would have taken.
    Full { max_id: i64, step: i64 },
}

impl MysqlStore {
    /// A store for a `mysql://` or `mariadb://` URL (options `timeout_ms`, `ssl-mode`,
    /// `ca_file`; see the crate's README). Does not connect: the first call does.
    pub fn new(url: &str) -> Result<MysqlStore> {
        let target = mysql_conn::parse(url)?;
        if target.mode.is_some() {
            return Err(Error::InvalidConfig {
                reason: "`mode=` is an option of the MySQL lease store only",
            });
        }
        Ok(MysqlStore {
            my: My::new(KIND, target),
            schema_ready: AtomicBool::new(false),
        })
    }

    fn schema(&self, c: &mut mysql::Conn) -> CallResult<()> {
        if !self.schema_ready.load(Ordering::Acquire) {
            c.query_drop(LEAF_TABLE)?;
            c.query_drop(IDENTITY_TABLE)?;
            self.schema_ready.store(true, Ordering::Release);
        }
        Ok(())
    }

    /// Leaf's transaction: update, read back, commit.
    fn take_once(&self, key: &str, step: i64) -> Result<Took> {
        self.my.call("take", true, |c, deadline| {
            let c = &mut c.conn;
            deadline.check()?;
            self.schema(c)?;
            deadline.check()?;
            c.query_drop("START TRANSACTION")?;
            deadline.check()?;
            c.exec_drop(TAKE, (step, key, step))?;
            let moved = c.affected_rows() == 1;
            deadline.check()?;
            let row: Option<(i64, i64)> = mysql_conn::exec_first(c, READ_BACK, (key,))?;
            deadline.check()?;
            c.query_drop(if moved { "COMMIT" } else { "ROLLBACK" })?;
            Ok(match row {
                None => Took::Missing,
                Some((max_id, row_step)) => {
                    let s = row_step.max(step);
                    if moved {
                        Took::Moved { max_id, step: s }
                    } else {
                        Took::Full { max_id, step: s }
                    }
                }
            })
        })
    }

    fn create_tag(&self, key: &str, step: i64) -> Result<()> {
        let step = step.min(i64::from(i32::MAX));
        self.my.call("take", true, |c, deadline| {
            let c = &mut c.conn;
            deadline.check()?;
            self.schema(c)?;
            deadline.check()?;
            c.exec_drop(CREATE_TAG, (key, step))?;
            Ok(())
        })
    }
}

impl SegmentStore for MysqlStore {
    fn kind(&self) -> &'static str {
        KIND
    }

    /// Kept in the database (table `idmint_segment_identity`).
    fn identity(&self) -> Result<u64> {
        let fresh = super::contract::random_identity()? as i64;
        let id: Option<i64> = self.my.call("identity", true, |c, deadline| {
            let c = &mut c.conn;
            deadline.check()?;
            self.schema(c)?;
            deadline.check()?;
            c.exec_drop(
                "INSERT INTO idmint_segment_identity (one, identity) VALUES (1, ?)
                 ON DUPLICATE KEY UPDATE identity = identity",
                (fresh,),
            )?;
            deadline.check()?;
            mysql_conn::query_first(
                c,
                "SELECT identity FROM idmint_segment_identity WHERE one = 1",
            )
        })?;
        match id {
            Some(id) if id != 0 => Ok(id as u64),
            _ => Err(Error::StoreUnavailable {
                store: KIND,
                op: "identity",
                reason: "identity row missing or 0",
            }),
        }
    }

    /// Leaf's update and read-back (see the [module docs](self)): at least `step` values, more
    /// when the tag's row has a larger step.
    fn take(&self, key: &str, step: u64) -> Result<Range> {
        let step = counter::check_take(key, step)?;
        if key.chars().count() > MAX_TAG_CHARS {
            return Err(Error::InvalidConfig {
                reason: "a MySQL segment key (Leaf's biz_tag) is at most 128 characters",
            });
        }
        // Creating the tag, and a row set to max_id = 0 whose one-value range was value 0, cost
        // one more round each.
        for _ in 0..4 {
            match self.take_once(key, step)? {
                Took::Missing => self.create_tag(key, step)?,
                Took::Full { max_id, step } => return Err(counter::exhausted(max_id, step)),
                Took::Moved { max_id, step } => {
                    let first = max_id.saturating_sub(step).max(1);
                    if first < max_id {
                        return Ok(Range {
                            start: first as u64,
                            end: max_id as u64,
                        });
                    }
                    if max_id < 1 {
                        return Err(counter::unavailable(
                            KIND,
                            "max_id below 1 (edited by hand?)",
                        ));
                    }
                }
            }
        }
        Err(counter::unavailable(
            KIND,
            "the tag's row keeps disappearing",
        ))
    }
}
