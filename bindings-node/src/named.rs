//! Generators by name (`idmint_coord::named`): `fromConfig(config)` builds the core's types as
//! this package's own `Snowflake` or `UuidGenerator`, and everything else — the store-backed
//! types (`type=segment,store=…,key=…`, `type=snowflake,…,lease=…`) — as a `NamedGenerator`,
//! which also takes any config itself: `nextId()` on the clock and the store, `nextAt()` (the
//! sans-IO call of the core's types, which replays the shared vectors), `close()`. A closed
//! generator throws `ERR_CLOSED`.

use std::cell::RefCell;

use idmint::named::clocked::random_fill;
use idmint_coord::named::{self, Named, NamedSource};
use idmint_js::convert::{batch_arg, string_arg, u64_arg, with_random};
use napi::bindgen_prelude::{Either3, Unknown};
use napi::{Env, JsValue};
use napi_derive::napi;

use crate::convert::{Js, OrThrow};
use crate::leased::closed;
use crate::release::{drop_off_thread, open_after_releases};
use crate::snowflake::{biguint64_array, Snowflake};
use crate::uuid::{generated, UuidGenerator};

#[napi(catch_unwind)]
pub fn from_config<'e>(
    env: &'e Env,
    config: Unknown<'_>,
) -> napi::Result<Either3<Unknown<'e>, UuidGenerator, NamedGenerator>> {
    let h = Js(env);
    let config = string_arg(&h, &config.raw(), "config")?;
    match open_after_releases(|| named::resolve(&config)).or_throw(&h)? {
        Named::Core(named) => match named.snowflake_config() {
            Some(cfg) => Snowflake::instance(env, *cfg).map(Either3::A),
            None => UuidGenerator::from_named(&h, named).map(Either3::B),
        },
        Named::Source(source) => Ok(Either3::C(NamedGenerator::wrap(source))),
    }
}

/// The source sits in a `RefCell` borrowed only while Rust code runs, never while JavaScript
/// does (`nextAt` draws its callback's bytes with it released), so that callback may call
/// `nextAt` or `close()` on the same generator.
#[napi]
pub struct NamedGenerator {
    inner: RefCell<Option<Box<dyn NamedSource>>>,
    kind: String,
}

impl Drop for NamedGenerator {
    fn drop(&mut self) {
        drop_off_thread(self.inner.get_mut().take());
    }
}

impl NamedGenerator {
    fn wrap(source: Box<dyn NamedSource>) -> Self {
        NamedGenerator {
            kind: source.kind().to_owned(),
            inner: RefCell::new(Some(source)),
        }
    }

    /// Runs `f` on the source, or throws `ERR_CLOSED`.
    fn with<R>(
        &self,
        h: &Js<'_>,
        f: impl FnOnce(&dyn NamedSource) -> napi::Result<R>,
    ) -> napi::Result<R> {
        match self.inner.borrow().as_deref() {
            Some(s) => f(s),
            None => Err(closed(h, "NamedGenerator")),
        }
    }
}

#[napi]
impl NamedGenerator {
    #[napi(constructor, catch_unwind)]
    pub fn new(env: &Env, config: Unknown<'_>) -> napi::Result<Self> {
        let h = Js(env);
        let config = string_arg(&h, &config.raw(), "config")?;
        Ok(NamedGenerator::wrap(
            open_after_releases(|| named::build(&config)).or_throw(&h)?,
        ))
    }

    #[napi(getter, catch_unwind)]
    pub fn kind(&self) -> String {
        self.kind.clone()
    }

    #[napi(getter, catch_unwind)]
    pub fn config(&self, env: &Env) -> napi::Result<String> {
        self.with(&Js(env), |s| Ok(s.config()))
    }

    #[napi(catch_unwind)]
    pub fn next_id<'e>(&self, env: &'e Env) -> napi::Result<Unknown<'e>> {
        let h = Js(env);
        generated(env, self.with(&h, |s| s.next_id().or_throw(&h))?)
    }

    #[napi(catch_unwind)]
    pub fn next_ids<'e>(&self, env: &'e Env, n: Unknown<'_>) -> napi::Result<Unknown<'e>> {
        let h = Js(env);
        let n = batch_arg(&h, &n.raw())?;
        self.with(&h, |s| {
            biguint64_array(env, n, |out| {
                s.fill_u64(out).or_throw(&h).map(|()| out.len())
            })
        })
    }

    #[napi(catch_unwind)]
    pub fn next_at<'e>(
        &self,
        env: &'e Env,
        now_ms: Unknown<'_>,
        random: Option<Unknown<'_>>,
    ) -> napi::Result<Unknown<'e>> {
        let h = Js(env);
        let now = u64_arg(&h, &now_ms.raw(), "nowMs")?;
        let random = random.map(|r| r.raw());
        // Borrowed afresh by each try: `with_random` runs the callback between them.
        let id = with_random(&h, random.as_ref(), random_fill, |fill| {
            match self.inner.borrow().as_deref() {
                Some(s) => s.next_at(now, fill).map(Some),
                None => Ok(None),
            }
        })?;
        generated(env, id.ok_or_else(|| closed(&h, "NamedGenerator"))?)
    }

    #[napi(getter, catch_unwind)]
    pub fn closed(&self) -> bool {
        self.inner.borrow().is_none()
    }

    #[napi(catch_unwind)]
    pub fn close(&self, env: &Env) -> napi::Result<()> {
        let source = self.inner.borrow_mut().take();
        source.map_or(Ok(()), |s| s.close().or_throw(&Js(env)))
    }
}
