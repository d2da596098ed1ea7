//! [`open`]: a lease store by URL, each store's opener found by the store the URL names in the
//! [scheme registry](crate::scheme).

use idmint::{Error, Result};

use super::contract::LeaseStore;
use super::file::FileStore;
use super::local::local_dir;
use super::url;
use crate::scheme::Store;

/// Opens a lease store from a URL (see the [module docs](super) for the forms).
///
/// Opening does not contact a network store yet; the first call does (and reconnects after
/// a failure).
///
/// # Examples
/// ```
/// use idmint_coord::lease;
/// let dir = std::env::temp_dir().join(format!("idmint-doc-open-{}", std::process::id()));
/// let store = lease::open(&format!("file:{}", dir.display()))?;
/// assert_eq!(store.kind(), "file");
/// assert!(lease::open("memcached://x").is_err());
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), idmint::Error>(())
/// ```
pub fn open(url: &str) -> Result<Box<dyn LeaseStore>> {
    let url = crate::url_ref::resolve(url)?;
    let url = url.as_str();
    let scheme = crate::scheme::find(url, crate::scheme::Role::Lease)?;
    open_store(scheme.store, url)
}

/// Opens the lease store `store` at `url` (the registry has found `url` to name it, in a build
/// with its feature).
fn open_store(store: Store, url: &str) -> Result<Box<dyn LeaseStore>> {
    Ok(match store {
        Store::Local => Box::new(FileStore::open(local_dir()?)?),
        Store::File => {
            let path = url.strip_prefix("file:").unwrap_or(url);
            Box::new(FileStore::open(url::file_path(path)?)?)
        }
        #[cfg(feature = "redis")]
        Store::Redis => Box::new(super::redis::RedisStore::open(url)?),
        #[cfg(feature = "postgres")]
        Store::Postgres => Box::new(super::postgres::PgStore::open(url)?),
        #[cfg(feature = "mysql")]
        Store::Mysql => Box::new(super::mysql::MysqlStore::open(url)?),
        #[cfg(feature = "etcd")]
        Store::Etcd => Box::new(super::etcd::EtcdStore::open(url)?),
        #[cfg(feature = "zookeeper")]
        Store::Zookeeper => Box::new(super::zookeeper::ZkStore::open(url)?),
        #[allow(unreachable_patterns)] // with every feature, only the segment stores are left
        _ => {
            return Err(Error::InvalidConfig {
                reason: "this store holds no node leases",
            })
        }
    })
}
