//! Randomness from `crypto.getRandomValues` (Web Crypto: windows, workers and Node ≥ 19), for
//! random nodes, random sequence-start seeds, UUID v1/v4/v7 and anything else the core takes
//! random bytes for. No fallback: without Web Crypto these calls throw `ERR_RANDOM_SOURCE`.
//!
//! Small requests are served from a pool of 256 bytes filled by one `getRandomValues` call
//! (each byte handed out once), as the `uuid` npm package does: a call into Web Crypto costs
//! about a microsecond in Chromium, more than a whole UUID otherwise.

use std::cell::RefCell;

use idmint::Error;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

const POOL: usize = 256;

struct Pool {
    bytes: [u8; POOL],
    /// Bytes before `used` have been handed out.
    used: usize,
}

thread_local! {
    static POOLED: RefCell<Pool> = const { RefCell::new(Pool { bytes: [0; POOL], used: POOL }) };
}

#[wasm_bindgen]
extern "C" {
    /// `crypto.getRandomValues(buf)`; throws where Web Crypto is missing.
    ///
    /// It fills an array of its own, never a view of this module's memory: page code may
    /// replace `getRandomValues` with a function that calls back into the module, and should
    /// that call grow the memory, a view taken before it would be detached, left unfilled,
    /// and its zeros handed out as random bytes.
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues, catch)]
    fn get_random_values(buf: &Uint8Array) -> Result<JsValue, JsValue>;
}

/// Fills `buf` with cryptographically secure random bytes.
///
/// `crypto.getRandomValues` is called with the pool not borrowed: page code may replace it with
/// a function that calls back into this module, which then finds the pool free.
pub(crate) fn fill(buf: &mut [u8]) -> Result<(), Error> {
    if buf.len() > POOL / 4 {
        return fill_direct(buf);
    }
    if POOLED.with(|p| p.borrow_mut().take(buf)) {
        return Ok(());
    }
    let mut fresh = [0u8; POOL];
    fill_direct(&mut fresh)?;
    POOLED.with(|p| {
        let mut p = p.borrow_mut();
        p.bytes = fresh;
        p.used = 0;
        p.take(buf);
    });
    Ok(())
}

impl Pool {
    /// Hands out `buf.len()` bytes, or answers false when fewer are left.
    fn take(&mut self, buf: &mut [u8]) -> bool {
        let start = self.used;
        let Some(src) = self.bytes.get_mut(start..start + buf.len()) else {
            return false;
        };
        buf.copy_from_slice(src);
        // Handed-out bytes are not kept.
        src.fill(0);
        self.used += buf.len();
        true
    }
}

/// Fills `buf` straight from `crypto.getRandomValues`.
fn fill_direct(buf: &mut [u8]) -> Result<(), Error> {
    // getRandomValues takes at most 65,536 bytes per call.
    for chunk in buf.chunks_mut(65_536) {
        let own = Uint8Array::new_with_length(chunk.len() as u32);
        get_random_values(&own).map_err(|_| Error::RandomSource)?;
        own.copy_to(chunk);
    }
    Ok(())
}

/// A random `u64`.
pub(crate) fn u64() -> Result<u64, Error> {
    let mut b = [0u8; 8];
    fill(&mut b)?;
    Ok(u64::from_le_bytes(b))
}
