//! The process-wide registry of generator types added by the program ([`register`]).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use idmint::named::NamedType;
use idmint::{Error, Result};

use super::source::NamedSource;
use super::spec::NamedSpec;

/// Builds a generator of a registered type from its config: reads its keys from the
/// [`NamedSpec`] (checking them with [`NamedSpec::check_keys`], so errors point into the text)
/// and returns the source.
pub type Factory = dyn Fn(&NamedSpec<'_>) -> Result<Box<dyn NamedSource>> + Send + Sync;

/// Most types a program may register: a registry is for a handful of types, not for names
/// taken from input.
const MAX_TYPES: usize = 1024;

fn types() -> &'static RwLock<BTreeMap<String, Arc<Factory>>> {
    static TYPES: OnceLock<RwLock<BTreeMap<String, Arc<Factory>>>> = OnceLock::new();
    TYPES.get_or_init(|| RwLock::new(BTreeMap::new()))
}

fn invalid(reason: &'static str) -> Error {
    Error::InvalidConfig { reason }
}

/// Adds the generator type `type_name` for every later [`build`](super::build) and
/// [`resolve`](super::resolve) of this process — and so for every surface built on them (the
/// C library's and the Python and Node packages' named generators, when the program that
/// registers links them).
///
/// Names are 1 to 64 bytes of `[a-z0-9_]`. The built-in types (`snowflake`, `uuid4`, `uuid7`,
/// `uuid6`, `uuid1`, `segment`, `counter`, `autoinc`, `redis_compose`) and a name already
/// registered are refused
/// ([`Error::InvalidConfig`]): a config keeps meaning one thing for the life of the process.
///
/// The factory gets the config's [`NamedSpec`], `type` included; see [`NamedSource`] for an
/// example.
pub fn register<F>(type_name: &str, factory: F) -> Result<()>
where
    F: Fn(&NamedSpec<'_>) -> Result<Box<dyn NamedSource>> + Send + Sync + 'static,
{
    let ok_name = !type_name.is_empty()
        && type_name.len() <= 64
        && type_name
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_');
    if !ok_name {
        return Err(invalid(
            "a generator type name is 1 to 64 bytes of [a-z0-9_]",
        ));
    }
    if NamedType::from_name(type_name).is_some() || super::builtin::BUILT_IN.contains(&type_name) {
        return Err(invalid(
            "a built-in generator type cannot be registered again",
        ));
    }
    let mut map = types().write().unwrap_or_else(PoisonError::into_inner);
    if map.contains_key(type_name) {
        return Err(invalid("this generator type is already registered"));
    }
    if map.len() >= MAX_TYPES {
        return Err(Error::LimitExceeded {
            what: "registered generator types",
            limit: MAX_TYPES as u64,
        });
    }
    map.insert(type_name.to_owned(), Arc::new(factory));
    Ok(())
}

/// The names of the registered types, sorted.
pub fn registered() -> Vec<String> {
    let map = types().read().unwrap_or_else(PoisonError::into_inner);
    map.keys().cloned().collect()
}

/// The factory of `type_name`, if registered. The lock is released before the factory runs,
/// so a factory may itself build named generators or register types.
pub(super) fn lookup(type_name: &str) -> Option<Arc<Factory>> {
    let map = types().read().unwrap_or_else(PoisonError::into_inner);
    map.get(type_name).cloned()
}
