//! Randomness from `crypto.getRandomValues` (Web Crypto: windows, workers and Node ≥ 19), for
//! random nodes, random sequence-start seeds, UUID v1/v4/v7 and anything else the core takes
//! random bytes for. No fallback: without Web Crypto these calls throw `ERR_RANDOM_SOURCE`.
//!
//! Small requests are served from a pool of 256 bytes filled by one `getRandomValues` call
//! (each byte handed out once), as the `uuid` npm package does: a call into Web Crypto costs
//! about a microsecond in Chromium, more than a whole UUID otherwise.

use std::cell::RefCell;

use idmint::Error;
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
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues, catch)]
    fn get_random_values(buf: &mut [u8]) -> Result<JsValue, JsValue>;
}

/// Fills `buf` with cryptographically secure random bytes.
pub(crate) fn fill(buf: &mut [u8]) -> Result<(), Error> {
    if buf.len() > POOL / 4 {
        return fill_direct(buf);
    }
    POOLED.with(|p| {
        let mut p = p.borrow_mut();
        if POOL - p.used < buf.len() {
            fill_direct(&mut p.bytes)?;
            p.used = 0;
        }
        let start = p.used;
        buf.copy_from_slice(&p.bytes[start..start + buf.len()]);
        // Handed-out bytes are not kept.
        p.bytes[start..start + buf.len()].fill(0);
        p.used += buf.len();
        Ok(())
    })
}

/// Fills `buf` straight from `crypto.getRandomValues`.
fn fill_direct(buf: &mut [u8]) -> Result<(), Error> {
    // getRandomValues takes at most 65,536 bytes per call.
    for chunk in buf.chunks_mut(65_536) {
        get_random_values(chunk).map_err(|_| Error::RandomSource)?;
    }
    Ok(())
}

/// A random `u64`.
pub(crate) fn u64() -> Result<u64, Error> {
    let mut b = [0u8; 8];
    fill(&mut b)?;
    Ok(u64::from_le_bytes(b))
}
