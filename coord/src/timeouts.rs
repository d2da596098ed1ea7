//! The default deadline of one store call, shared by every store client below the lease and
//! segment modules (which re-export it as [`lease::DEFAULT_STORE_TIMEOUT`](crate::lease::DEFAULT_STORE_TIMEOUT)).

use std::time::Duration;

/// Default timeout of one Redis, PostgreSQL, MySQL, etcd or ZooKeeper call (connect, read, statement).
pub const DEFAULT_STORE_TIMEOUT: Duration = Duration::from_millis(1000);
