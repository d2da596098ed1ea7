//! `LeasedSnowflake`: a Snowflake generator whose node comes from a node source of the coord
//! crate — a lease from a store (`local`, `file:DIR`, `redis://...`, `postgres://...`), renewed
//! on the crate's background thread, or a fixed source (`static:N`, `env:NAME`, `ip`,
//! `random`). Its options object becomes the coord crate's `LeasedSnowflakeOptions` key by key. The
//! constructor and `close()` make a store round trip; a closed object throws `ERR_CLOSED`.

use std::time::Instant;

use idmint_coord::lease::LeasedSnowflake as CoreLeased;
use idmint_coord::options::LeasedSnowflakeOptions;
use idmint_js::convert::{batch_arg, string_arg};
use idmint_js::{options, values, Host, Out};
use napi::bindgen_prelude::Unknown;
use napi::{Env, JsValue};
use napi_derive::napi;

use crate::convert::{unknown, Js, Layout, OrThrow};
use crate::release::{drop_off_thread, open_after_releases};
use crate::snowflake::biguint64_array;

/// The core's `Closed` error (`ERR_CLOSED`) of a call after `close()`.
pub(crate) fn closed(h: &Js<'_>, what: &'static str) -> napi::Error {
    idmint_js::error::core(h, idmint::Error::Closed { what })
}

#[napi]
pub struct LeasedSnowflake {
    inner: Option<CoreLeased>,
}

impl Drop for LeasedSnowflake {
    fn drop(&mut self) {
        drop_off_thread(self.inner.take());
    }
}

impl LeasedSnowflake {
    fn gen(&self, h: &Js<'_>) -> napi::Result<&CoreLeased> {
        self.inner
            .as_ref()
            .ok_or_else(|| closed(h, "LeasedSnowflake"))
    }
}

#[napi]
impl LeasedSnowflake {
    #[napi(constructor, catch_unwind)]
    pub fn new(env: &Env, source: Unknown<'_>, options: Option<Unknown<'_>>) -> napi::Result<Self> {
        let h = Js(env);
        let source = string_arg(&h, &source.raw(), "source")?;
        let mut o = LeasedSnowflakeOptions::new();
        options::read(&h, options.map(|o| o.raw()).as_ref(), &mut o, None)?;
        Ok(LeasedSnowflake {
            inner: Some(open_after_releases(|| o.open(&source)).or_throw(&h)?),
        })
    }

    #[napi(catch_unwind)]
    pub fn next_id(&self, env: &Env) -> napi::Result<u64> {
        let h = Js(env);
        self.gen(&h)?.next_id().or_throw(&h)
    }

    #[napi(catch_unwind)]
    pub fn next_id_string(&self, env: &Env) -> napi::Result<String> {
        self.next_id(env).map(|id| id.to_string())
    }

    #[napi(catch_unwind)]
    pub fn try_next_id(&self, env: &Env) -> napi::Result<u64> {
        let h = Js(env);
        self.gen(&h)?.try_next_id().or_throw(&h)
    }

    #[napi(catch_unwind)]
    pub fn next_ids<'e>(&self, env: &'e Env, n: Unknown<'_>) -> napi::Result<Unknown<'e>> {
        let h = Js(env);
        let (n, g) = (batch_arg(&h, &n.raw())?, self.gen(&h)?);
        biguint64_array(env, n, |out| {
            g.next_ids(out).or_throw(&h).map(|()| out.len())
        })
    }

    #[napi(catch_unwind)]
    pub fn decode<'e>(&self, env: &'e Env, id: Unknown<'_>) -> napi::Result<Unknown<'e>> {
        let h = Js(env);
        unknown(
            env,
            values::decompose(&h, self.gen(&h)?.config().layout(), &id.raw()),
        )
    }

    #[napi(getter, catch_unwind)]
    pub fn node(&self, env: &Env) -> napi::Result<u64> {
        Ok(self.gen(&Js(env))?.node())
    }

    #[napi(getter, catch_unwind)]
    pub fn lease<'e>(&self, env: &'e Env) -> napi::Result<Unknown<'e>> {
        let (h, now) = (Js(env), Instant::now());
        let Some(i) = self.gen(&h)?.lease_info() else {
            return unknown(env, h.value(Out::Null));
        };
        let expires = i.deadline.map_or(Out::Null, |d| {
            Out::Num(d.saturating_duration_since(now).as_millis() as f64)
        });
        let store = i.store.to_string();
        unknown(
            env,
            h.object(&[
                ("store", Out::Str(&store)),
                ("namespace", Out::Str(&i.lease.namespace)),
                ("node", Out::Big(i.lease.node)),
                ("token", Out::Big(i.lease.token)),
                ("fenceMs", i.lease.fence_ms.map_or(Out::Null, Out::Big)),
                (
                    "ttlMs",
                    Out::Big(u64::try_from(i.lease.ttl.as_millis()).unwrap_or(u64::MAX)),
                ),
                ("holder", Out::Str(&i.lease.holder)),
                ("boundMs", Out::Big(i.bound_ms)),
                ("expiresInMs", expires),
            ]),
        )
    }

    #[napi(getter, catch_unwind)]
    pub fn high_water_ms(&self, env: &Env) -> napi::Result<Option<u64>> {
        Ok(self.gen(&Js(env))?.high_water_ms())
    }

    #[napi(getter, catch_unwind)]
    pub fn fence_ms(&self, env: &Env) -> napi::Result<Option<u64>> {
        Ok(self.gen(&Js(env))?.config().fence())
    }

    #[napi(getter, catch_unwind)]
    pub fn layout(&self, env: &Env) -> napi::Result<Layout> {
        Ok(Layout::of(self.gen(&Js(env))?.config().layout()))
    }

    #[napi(catch_unwind)]
    pub fn stats<'e>(&self, env: &'e Env) -> napi::Result<Unknown<'e>> {
        let h = Js(env);
        let s = self.gen(&h)?.stats();
        let generator = values::stats(&h, s.generator)?;
        unknown(
            env,
            h.object(&[
                ("generator", Out::Val(generator)),
                ("renewals", Out::Big(s.renewals)),
                ("renewFailures", Out::Big(s.renew_failures)),
                ("lost", Out::Big(s.lost)),
                ("swaps", Out::Big(s.swaps)),
                ("reacquires", Out::Big(s.reacquires)),
            ]),
        )
    }

    #[napi(getter, catch_unwind)]
    pub fn closed(&self) -> bool {
        self.inner.is_none()
    }

    #[napi(catch_unwind)]
    pub fn close(&mut self, env: &Env) -> napi::Result<()> {
        self.inner
            .take()
            .map_or(Ok(()), |g| g.release().or_throw(&Js(env)))
    }
}
