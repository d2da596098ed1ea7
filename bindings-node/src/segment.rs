//! `SegmentAllocator`: IDs per key from ranges of a segment store of the coord crate
//! (`sqlite:PATH`, `postgres://...`, `redis://...`), the next range fetched in the background.
//! Its options object becomes the coord crate's `SegmentAllocatorOptions` key by key (and an
//! `Obfuscator` object). A closed allocator throws `ERR_CLOSED`.

use std::cell::{Ref, RefCell};
use std::rc::{Rc, Weak};

use idmint_coord::options::SegmentAllocatorOptions;
use idmint_coord::segment::{SegmentAllocator as CoreAllocator, SegmentStore};
use idmint_js::convert::{batch_arg, string_arg};
use idmint_js::error::type_error;
use idmint_js::{options, Host, Out};
use napi::bindgen_prelude::Unknown;
use napi::{Env, JsValue};
use napi_derive::napi;

use crate::convert::{unknown, Js, OrThrow};
use crate::leased::closed;
use crate::obfuscate::Obfuscator;
use crate::release::{drop_off_thread, open_after_releases};
use crate::snowflake::biguint64_array;

type Allocator = CoreAllocator<Box<dyn SegmentStore>>;

/// An allocator shared by its JavaScript object and [`OPEN`]: `None` once closed.
type Slot = Rc<RefCell<Option<Allocator>>>;

thread_local! {
    /// The allocators opened on this JavaScript thread, held weakly, for [`close_open_allocators`].
    static OPEN: RefCell<Vec<Weak<RefCell<Option<Allocator>>>>> = const { RefCell::new(Vec::new()) };
}

/// `_closeOpenAllocators()`: closes every allocator of this JavaScript thread still open,
/// journaling its remainder. index.js calls it from `process.on('exit')`, which runs (and
/// runs synchronously) on `process.exit()` and uncaught exceptions, where Node finalizes no
/// native object. Errors are written to standard error: the process is exiting.
#[napi(js_name = "_closeOpenAllocators", catch_unwind)]
pub fn close_open_allocators() {
    for slot in OPEN.with(RefCell::take).iter().filter_map(Weak::upgrade) {
        let Some(a) = slot.borrow_mut().take() else {
            continue;
        };
        if let Err(e) = a.close() {
            eprintln!("idmint: a SegmentAllocator open at exit could not be closed: {e}");
        }
    }
}

#[napi]
pub struct SegmentAllocator {
    inner: Slot,
    store: &'static str,
}

impl Drop for SegmentAllocator {
    fn drop(&mut self) {
        drop_off_thread(self.inner.borrow_mut().take());
    }
}

impl SegmentAllocator {
    fn alloc(&self, h: &Js<'_>) -> napi::Result<Ref<'_, Allocator>> {
        Ref::filter_map(self.inner.borrow(), Option::as_ref)
            .map_err(|_| closed(h, "SegmentAllocator"))
    }
}

#[napi]
impl SegmentAllocator {
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: &Env,
        store_url: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Self> {
        let h = Js(env);
        let url = string_arg(&h, &store_url.raw(), "storeUrl")?;
        let mut o = SegmentAllocatorOptions::new();
        let mut obfuscator = None;
        options::read(
            &h,
            options.map(|o| o.raw()).as_ref(),
            &mut o,
            Some(&mut |key, v| {
                if key != "obfuscator" {
                    return Ok(false);
                }
                obfuscator =
                    Some(h.unwrap::<Obfuscator, _>(*v, |o| o.inner).ok_or_else(|| {
                        type_error(&h, "options.obfuscator must be an Obfuscator")
                    })?);
                Ok(true)
            }),
        )?;
        if let Some(ob) = obfuscator {
            o.obfuscate(ob);
        }
        let inner = open_after_releases(|| o.open(&url)).or_throw(&h)?;
        let store = inner.store().kind();
        let inner = Rc::new(RefCell::new(Some(inner)));
        OPEN.with(|open| {
            let mut open = open.borrow_mut();
            open.retain(|w| w.strong_count() > 0);
            open.push(Rc::downgrade(&inner));
        });
        Ok(SegmentAllocator { store, inner })
    }

    #[napi(catch_unwind)]
    pub fn next_id(&self, env: &Env, key: Unknown<'_>) -> napi::Result<u64> {
        let h = Js(env);
        let key = string_arg(&h, &key.raw(), "key")?;
        self.alloc(&h)?.next_id(&key).or_throw(&h)
    }

    #[napi(catch_unwind)]
    pub fn next_ids<'e>(
        &self,
        env: &'e Env,
        key: Unknown<'_>,
        n: Unknown<'_>,
    ) -> napi::Result<Unknown<'e>> {
        let h = Js(env);
        let (key, n) = (string_arg(&h, &key.raw(), "key")?, batch_arg(&h, &n.raw())?);
        let a = self.alloc(&h)?;
        biguint64_array(env, n, |out| {
            a.next_ids(&key, out).or_throw(&h).map(|()| out.len())
        })
    }

    #[napi(catch_unwind)]
    pub fn stats<'e>(&self, env: &'e Env, key: Unknown<'_>) -> napi::Result<Unknown<'e>> {
        let h = Js(env);
        let key = string_arg(&h, &key.raw(), "key")?;
        let Some(s) = self.alloc(&h)?.stats(&key) else {
            return unknown(env, h.value(Out::Null));
        };
        let message = s.last_error.map(|e| e.to_string());
        unknown(
            env,
            h.object(&[
                ("step", Out::Big(s.step)),
                ("buffered", Out::Big(s.buffered)),
                ("fetching", Out::Bool(s.fetching)),
                ("fence", s.fence.map_or(Out::Null, Out::Big)),
                (
                    "lastErrorCode",
                    s.last_error.map_or(Out::Null, |e| Out::Str(e.code())),
                ),
                (
                    "lastErrorMessage",
                    message.as_deref().map_or(Out::Null, Out::Str),
                ),
            ]),
        )
    }

    #[napi(catch_unwind)]
    pub fn keys(&self, env: &Env) -> napi::Result<Vec<String>> {
        let mut k = self.alloc(&Js(env))?.keys();
        k.sort();
        Ok(k)
    }

    #[napi(catch_unwind)]
    pub fn checkpoint(&self, env: &Env) -> napi::Result<()> {
        let h = Js(env);
        self.alloc(&h)?.checkpoint().or_throw(&h)
    }

    #[napi(getter, catch_unwind)]
    pub fn store(&self) -> &'static str {
        self.store
    }

    #[napi(getter, catch_unwind)]
    pub fn closed(&self) -> bool {
        self.inner.borrow().is_none()
    }

    #[napi(catch_unwind)]
    pub fn close(&mut self, env: &Env) -> napi::Result<()> {
        let taken = self.inner.borrow_mut().take();
        taken.map_or(Ok(()), |a| a.close().or_throw(&Js(env)))
    }
}
