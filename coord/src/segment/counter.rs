//! The convention every counter store (SQLite, PostgreSQL, Redis) follows, kept in one place so
//! the engines agree and a key can move between them.
//!
//! A key's counter holds the **last value handed out** (0 before the first take, like a fresh
//! Redis key). A take of `step` moves it from `c` to `c + step` in one atomic statement and
//! hands out `[c + 1, c + step + 1)`. Value 0 is therefore never issued — many schemas read 0 as
//! "no id" — and the first range of a key starts at 1, as Leaf's does. Counters live in the
//! engines' signed 64-bit integers, so values stop at `i64::MAX`.

#[cfg(any(feature = "sqlite", feature = "postgres", feature = "redis"))]
use idmint::segment::Range;
use idmint::{Error, Name, Result};

/// Longest key (`biz_tag`) the stores accept, in bytes. Keys are names, not payloads; the bound
/// keeps Redis key names and SQL index entries small.
pub(crate) const MAX_KEY_LEN: usize = 200;

/// The field name reported when a key's counter would pass `i64::MAX`.
const COUNTER: Name = match Name::new("max_id") {
    Some(n) => n,
    None => panic!("valid literal"),
};

/// Checks a key (`biz_tag`): 1 to [`MAX_KEY_LEN`] bytes.
pub(crate) fn check_key(key: &str) -> Result<()> {
    if key.is_empty() || key.len() > MAX_KEY_LEN {
        return Err(Error::InvalidConfig {
            reason: "segment key must be 1 to 200 bytes",
        });
    }
    Ok(())
}

/// Checks a take's arguments; returns the step as the engines' integer type.
pub(crate) fn check_take(key: &str, step: u64) -> Result<i64> {
    check_key(key)?;
    match i64::try_from(step) {
        Ok(s) if s > 0 => Ok(s),
        _ => Err(Error::InvalidConfig {
            reason: "segment step must be between 1 and 2^63 - 1",
        }),
    }
}

#[cfg(any(feature = "sqlite", feature = "postgres", feature = "redis"))]
/// The range a take of `step` handed out when it moved the counter to `last`.
pub(crate) fn range_ending_at(store: &'static str, last: i64, step: i64) -> Result<Range> {
    // A counter below the step means the row was edited by hand or by something else; do not
    // hand out values at or below 0 on its strength.
    if last < step {
        return Err(unavailable(
            store,
            "counter below the step (edited by hand?)",
        ));
    }
    Ok(Range {
        start: (last - step) as u64 + 1,
        end: last as u64 + 1,
    })
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
/// What a SQL store's take statement did to a key's counter.
pub(crate) enum Moved {
    /// Moved it to this value (the last value of the range handed out).
    To(i64),
    /// Left it at this value: one more step would pass `i64::MAX`.
    Full(i64),
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
impl Moved {
    /// The range handed out by a take of `step`, or why there is none.
    pub(crate) fn range(self, store: &'static str, step: i64) -> Result<Range> {
        match self {
            Moved::To(last) => range_ending_at(store, last, step),
            Moved::Full(current) => Err(exhausted(current, step)),
        }
    }
}

/// The error for a key whose counter (now at `current`) cannot advance by `step` without
/// passing `i64::MAX`.
pub(crate) fn exhausted(current: i64, step: i64) -> Error {
    Error::OutOfRange {
        field: COUNTER,
        value: (current.max(0) as u64).saturating_add(step as u64),
        max: i64::MAX as u64,
    }
}

/// The store-failure error of `take`.
pub(crate) fn unavailable(store: &'static str, reason: &'static str) -> Error {
    Error::StoreUnavailable {
        store,
        op: "take",
        reason,
    }
}

#[cfg(feature = "sqlite")]
/// Milliseconds since the Unix epoch, for `updated_at` columns (informational only).
pub(crate) fn unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(all(test, any(feature = "sqlite", feature = "postgres", feature = "redis")))]
mod tests {
    use super::*;

    #[test]
    fn ranges_start_at_one_and_end_past_the_counter() {
        assert_eq!(
            range_ending_at("x", 10, 10).unwrap(),
            Range { start: 1, end: 11 }
        );
        assert_eq!(
            range_ending_at("x", 25, 5).unwrap(),
            Range { start: 21, end: 26 }
        );
        assert!(range_ending_at("x", 4, 5).is_err());
    }

    #[test]
    fn bad_arguments_are_config_errors() {
        assert!(matches!(
            check_take("", 1),
            Err(Error::InvalidConfig { .. })
        ));
        assert!(matches!(
            check_take("k", 0),
            Err(Error::InvalidConfig { .. })
        ));
        assert!(matches!(
            check_take("k", u64::MAX),
            Err(Error::InvalidConfig { .. })
        ));
        assert!(matches!(
            check_take(&"k".repeat(201), 1),
            Err(Error::InvalidConfig { .. })
        ));
        assert_eq!(check_take("k", 7).unwrap(), 7);
    }
}
