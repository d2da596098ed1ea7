//! A short text in shared memory (a configuration error, the lease worker's last failure),
//! written by one process and read by any, under a spin flag.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

const CAPACITY: usize = 480;

/// A bounded message slot; longer texts are cut at a character boundary.
#[repr(C)]
pub struct Message {
    busy: AtomicBool,
    len: AtomicUsize,
    bytes: [u8; CAPACITY],
}

impl Message {
    fn lock(&self) {
        while self
            .busy
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            std::hint::spin_loop();
        }
    }

    /// Replaces the text ("" clears it).
    pub fn set(&self, text: &str) {
        let mut end = text.len().min(CAPACITY);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.lock();
        // SAFETY: the spin flag gives this writer exclusive access to `bytes`.
        let bytes = unsafe { &mut *(self.bytes.as_ptr() as *mut [u8; CAPACITY]) };
        bytes[..end].copy_from_slice(&text.as_bytes()[..end]);
        self.len.store(end, Ordering::Relaxed);
        self.busy.store(false, Ordering::Release);
    }

    /// The current text.
    pub fn get(&self) -> String {
        self.lock();
        let len = self.len.load(Ordering::Relaxed).min(CAPACITY);
        let text = String::from_utf8_lossy(&self.bytes[..len]).into_owned();
        self.busy.store(false, Ordering::Release);
        text
    }
}
