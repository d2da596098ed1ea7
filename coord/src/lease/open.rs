//! Each lease store's opener, by the store a URL names in the [scheme registry](crate::scheme).

use idmint::{Error, Result};

use super::{local_dir, url, FileStore, LeaseStore};
use crate::scheme::Store;

/// Opens the lease store `store` at `url` (the registry has found `url` to name it, in a build
/// with its feature).
pub(super) fn open(store: Store, url: &str) -> Result<Box<dyn LeaseStore>> {
    Ok(match store {
        Store::Local => Box::new(FileStore::open(local_dir()?)?),
        Store::File => {
            let path = url.strip_prefix("file:").unwrap_or(url);
            Box::new(FileStore::open(url::file_path(path)?)?)
        }
        #[cfg(feature = "redis")]
        Store::Redis => Box::new(super::RedisStore::open(url)?),
        #[cfg(feature = "postgres")]
        Store::Postgres => Box::new(super::PgStore::open(url)?),
        #[cfg(feature = "mysql")]
        Store::Mysql => Box::new(super::MysqlStore::open(url)?),
        #[cfg(feature = "etcd")]
        Store::Etcd => Box::new(super::EtcdStore::open(url)?),
        #[cfg(feature = "zookeeper")]
        Store::Zookeeper => Box::new(super::ZkStore::open(url)?),
        #[allow(unreachable_patterns)] // with every feature, only the segment stores are left
        _ => {
            return Err(Error::InvalidConfig {
                reason: "this store holds no node leases",
            })
        }
    })
}
