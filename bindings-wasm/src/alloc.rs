//! The module's memory allocator: power-of-two size classes with a free list each, carved from
//! memory grown at the end of the heap. It replaces std's dlmalloc (about 5 KB of wasm code,
//! 2 KB gzipped) for what this module allocates: short strings and vectors for arguments and
//! messages, and the `CHUNK` buffer of the batch methods (64 KB). A freed block is reused by
//! the next request of its class; memory is never handed back (wasm memory cannot shrink), so
//! the heap is bounded by the largest set of blocks alive at once, rounded up per block to a
//! power of two.
//!
//! A module instance has one thread (wasm32-unknown-unknown without the atomics feature: a
//! page and each worker have their own memory), so the state needs no lock.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;

/// Size classes: blocks of `1 << k` bytes for `k` in `MIN_CLASS..CLASSES`.
const CLASSES: usize = 32;
/// The smallest block, 8 bytes: room for the free list's link.
const MIN_CLASS: u32 = 3;
/// Blocks are aligned to their size up to this (4 KB); larger alignments are refused.
const MAX_ALIGN: usize = 4096;
const PAGE: usize = 65_536;

struct Heap {
    /// The first free block of each class (0: none); a free block holds the next one's address.
    free: [Cell<usize>; CLASSES],
    /// Where the next fresh block is carved, and the end of memory (0 before the first call).
    next: Cell<usize>,
    end: Cell<usize>,
}

// SAFETY: one thread per module instance (see the module docs).
unsafe impl Sync for Heap {}

#[global_allocator]
static HEAP: Heap = Heap {
    free: [const { Cell::new(0) }; CLASSES],
    next: Cell::new(0),
    end: Cell::new(0),
};

/// The class of a request: the smallest `k` with `1 << k >= max(size, align, 8)`.
#[inline]
fn class(layout: Layout) -> usize {
    let n = layout.size().max(layout.align()).max(1 << MIN_CLASS);
    (usize::BITS - (n - 1).leading_zeros()) as usize
}

impl Heap {
    /// A fresh block of `1 << k` bytes at the end of the heap, growing memory if needed.
    #[inline(never)]
    fn carve(&self, k: usize) -> *mut u8 {
        let size = 1usize << k;
        if self.end.get() == 0 {
            let end = core::arch::wasm32::memory_size(0) * PAGE;
            self.next.set(end);
            self.end.set(end);
        }
        let start = (self.next.get() + (size.min(MAX_ALIGN) - 1)) & !(size.min(MAX_ALIGN) - 1);
        let Some(stop) = start.checked_add(size) else {
            return core::ptr::null_mut();
        };
        if stop > self.end.get() {
            let pages = (stop - self.end.get()).div_ceil(PAGE);
            if core::arch::wasm32::memory_grow(0, pages) == usize::MAX {
                return core::ptr::null_mut();
            }
            self.end.set(self.end.get() + pages * PAGE);
        }
        self.next.set(stop);
        start as *mut u8
    }
}

unsafe impl GlobalAlloc for Heap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let k = class(layout);
        if k >= CLASSES || layout.align() > MAX_ALIGN {
            return core::ptr::null_mut();
        }
        let head = self.free[k].get();
        if head != 0 {
            // SAFETY: `head` is a free block of class k, which holds the next free one.
            self.free[k].set(unsafe { *(head as *const usize) });
            return head as *mut u8;
        }
        self.carve(k)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let k = class(layout);
        // SAFETY: the block is ours, at least 8 bytes and aligned to 8, and no longer in use.
        unsafe { *(ptr as *mut usize) = self.free[k].get() };
        self.free[k].set(ptr as usize);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY (of the layout): the caller guarantees `new_size` with this alignment is valid.
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        if class(new) == class(layout) {
            return ptr;
        }
        // SAFETY: as `GlobalAlloc::realloc`'s default: a new block, the contents, the old freed.
        unsafe {
            let p = self.alloc(new);
            if !p.is_null() {
                core::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            p
        }
    }
}
