//! Limits every surface shares, so a request is refused with the same typed error
//! ([`Error::LimitExceeded`]) and the same number in Rust, Python, Node, the browser, C and the
//! CLI, instead of an allocation the host cannot make (or a crash).

use crate::error::{Error, Result};

/// Most IDs one batch call returns or fills (`next_ids(n)`, `nextIds(n)`,
/// `idmint_snowflake_next_ids`, ... in every binding): 2^24 = 16,777,216 IDs, a 128 MiB
/// array. Larger requests get [`Error::LimitExceeded`]; ask in several calls instead (a
/// generator mints a few million IDs per second per node, so one call already spans seconds).
pub const MAX_BATCH: u64 = 1 << 24;

/// `n` as a `usize` when it is at most [`MAX_BATCH`], else [`Error::LimitExceeded`].
///
/// # Examples
/// ```
/// use idmint::limits::{batch_len, MAX_BATCH};
/// assert_eq!(batch_len(1000)?, 1000);
/// assert!(batch_len(MAX_BATCH + 1).is_err());
/// # Ok::<(), idmint::Error>(())
/// ```
pub const fn batch_len(n: u64) -> Result<usize> {
    if n > MAX_BATCH {
        return Err(Error::LimitExceeded {
            what: "IDs in one call",
            limit: MAX_BATCH,
        });
    }
    // MAX_BATCH fits every usize of 32 bits or more.
    Ok(n as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::string::ToString;

    #[test]
    fn the_limit_is_inclusive() {
        assert_eq!(batch_len(0), Ok(0));
        assert_eq!(batch_len(MAX_BATCH), Ok(MAX_BATCH as usize));
        let e = batch_len(MAX_BATCH + 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "IDs in one call exceeds the limit of 16777216"
        );
        assert_eq!(batch_len(u64::MAX), Err(e));
    }
}
