//! [`SegmentCursor`]: serves a window of a [`SegmentBuffer`](super::SegmentBuffer)'s quiet run
//! to any number of threads without a lock.

#[cfg(not(loom))]
use core::sync::atomic::{
    AtomicU64,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};
#[cfg(loom)]
use loom::sync::atomic::{
    AtomicU64,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};

use super::Range;

const OFFSET_BITS: u32 = 24;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;
const SEALED: u64 = 1 << OFFSET_BITS;
const GENERATION_SHIFT: u32 = OFFSET_BITS + 1;
const GENERATION_MASK: u64 = u64::MAX >> GENERATION_SHIFT;

/// The most values one window holds: a longer quiet run is published a window at a time.
pub const MAX_CURSOR_WINDOW: u64 = OFFSET_MASK;

/// Lock-free claims from a published window of values.
///
/// A driver that shares one buffer between threads keeps it behind a lock, and every ID costs a
/// lock and an unlock — and, with several threads on one key, the lock's cache line moving
/// between cores. Most IDs need no decision, though: the buffer's
/// [quiet run](super::SegmentBuffer::quiet_range) is the next values it would hand out as they
/// are, without a fetch, a fence, a gap or an obfuscation. The driver *publishes* (a prefix of)
/// that run in a cursor, and threads *claim* values from it with one compare-and-swap each. The
/// lock is needed only when the window runs out: the lock holder *seals* the cursor (no claim
/// succeeds after that), tells the buffer which values were claimed
/// ([`consume_quiet`](super::SegmentBuffer::consume_quiet)), does whatever the buffer asks, and
/// publishes the next window.
///
/// # Why no value is served twice, and none is lost
///
/// The cursor is one word — `generation | sealed | offset` — plus the window's `base` and
/// `len`. A claim reads the word, then `base` and `len`, and swaps the word for `offset + 1`.
///
/// * **Each offset once.** Claims move the word by compare-and-swap, so every successful claim
///   gets an offset no other claim got.
/// * **Only from the window that was read.** The owner seals (a read-modify-write of the word)
///   *before* it writes a new `base` and `len`, and publishes the new window by storing a word
///   with the next generation *after* them. A claimant that read a new `base` or `len` (acquire)
///   therefore sees the seal in its swap, which fails; a swap that succeeds proves that `base`
///   and `len` belonged to the generation it read. The generation makes a word of an old window
///   differ from every word of a newer one (it takes 2^39 windows for a generation to come
///   back, which a thread would have to sleep through between two instructions).
/// * **Exactly what was claimed.** The seal returns the word as it was: its offset is the number
///   of values claimed, each of them below `len`. The owner hands that count to the buffer,
///   which moves past exactly those values — the rest of the window stays unserved, for the
///   next window or the journal.
///
/// The seal and the publish are the owner's: call them from one thread at a time (under the
/// driver's lock), alternately, starting with a seal.
///
/// Aligned to a cache line: the word every claim swaps shares its line only with the window it
/// describes, which a claim reads anyway.
///
/// # Examples
/// ```
/// use idmint::segment::{Range, SegmentCursor};
///
/// let cursor = SegmentCursor::new();
/// assert_eq!(cursor.claim(), None); // nothing published yet
/// let sealed = cursor.seal();
/// cursor.publish(sealed, Range { start: 100, end: 103 });
/// assert_eq!(cursor.claim(), Some(100));
/// assert_eq!(cursor.claim_run(5), Some(Range { start: 101, end: 103 }));
/// assert_eq!(cursor.claim(), None); // used up: the owner's turn
/// let sealed = cursor.seal();
/// assert_eq!(sealed.claimed(), Range { start: 100, end: 103 });
/// ```
#[repr(align(64))]
pub struct SegmentCursor {
    /// `generation << 25 | sealed << 24 | offset`.
    state: AtomicU64,
    base: AtomicU64,
    len: AtomicU64,
}

/// What a [`SegmentCursor::seal`] found: the values claimed from the window it closed. Hand it
/// back to [`SegmentCursor::publish`] to open the next window.
#[must_use = "tell the buffer what was claimed, then publish the next window with this token"]
#[derive(Debug, PartialEq, Eq)]
pub struct Sealed {
    claimed: Range,
    generation: u64,
}

impl Sealed {
    /// The values claimed from the closed window: a prefix of it, in order (empty when none).
    pub const fn claimed(&self) -> Range {
        self.claimed
    }
}

impl Default for SegmentCursor {
    fn default() -> Self {
        SegmentCursor::new()
    }
}

impl core::fmt::Debug for SegmentCursor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let s = self.state.load(Relaxed);
        f.debug_struct("SegmentCursor")
            .field("generation", &(s >> GENERATION_SHIFT))
            .field("sealed", &(s & SEALED != 0))
            .field("claimed", &(s & OFFSET_MASK))
            .field("base", &self.base.load(Relaxed))
            .field("len", &self.len.load(Relaxed))
            .finish()
    }
}

impl SegmentCursor {
    /// A cursor with an empty window: every claim fails until the owner publishes one.
    #[cfg(not(loom))]
    pub const fn new() -> SegmentCursor {
        SegmentCursor {
            state: AtomicU64::new(0),
            base: AtomicU64::new(0),
            len: AtomicU64::new(0),
        }
    }

    /// A cursor with an empty window (loom's atomics are not `const`).
    #[cfg(loom)]
    pub fn new() -> SegmentCursor {
        SegmentCursor {
            state: AtomicU64::new(0),
            base: AtomicU64::new(0),
            len: AtomicU64::new(0),
        }
    }

    /// The next value of the window, or `None` when it is used up or sealed (take the driver's
    /// lock and let the buffer decide).
    #[inline]
    pub fn claim(&self) -> Option<u64> {
        self.claim_run(1).map(|r| r.start)
    }

    /// Up to `max` consecutive values of the window in one swap, or `None` when it is used up
    /// or sealed (or `max` is 0).
    #[inline]
    pub fn claim_run(&self, max: u64) -> Option<Range> {
        if max == 0 {
            return None;
        }
        let mut s = self.state.load(Acquire);
        loop {
            if s & SEALED != 0 {
                return None;
            }
            // Acquire: a base or len written after a seal makes the swap below see that seal.
            let base = self.base.load(Acquire);
            let len = self.len.load(Acquire);
            let offset = s & OFFSET_MASK;
            if offset >= len {
                return None;
            }
            let n = max.min(len - offset);
            match self.state.compare_exchange_weak(s, s + n, AcqRel, Acquire) {
                Ok(_) => {
                    let start = base + offset;
                    return Some(Range {
                        start,
                        end: start + n,
                    });
                }
                Err(now) => s = now,
            }
        }
    }

    /// Closes the window: no claim succeeds until [`publish`](Self::publish). Returns what was
    /// claimed from it. The owner's call (see the [type docs](SegmentCursor)); sealing a sealed cursor
    /// again (an owner that did not publish) reports nothing claimed, since nothing could be.
    pub fn seal(&self) -> Sealed {
        let old = self.state.fetch_or(SEALED, AcqRel);
        // The owner wrote base itself; no other thread writes it.
        let base = self.base.load(Relaxed);
        let claimed = if old & SEALED != 0 {
            0
        } else {
            old & OFFSET_MASK
        };
        Sealed {
            claimed: Range {
                start: base,
                end: base + claimed,
            },
            generation: old >> GENERATION_SHIFT,
        }
    }

    /// Opens a new window over `run` (its first [`MAX_CURSOR_WINDOW`] values), ending the seal that
    /// `sealed` came from. An empty `run` publishes an empty window (every claim fails). The
    /// owner's call.
    pub fn publish(&self, sealed: Sealed, run: Range) {
        let len = run.len().min(MAX_CURSOR_WINDOW);
        self.base.store(run.start, Release);
        self.len.store(len, Release);
        let generation = sealed.generation.wrapping_add(1) & GENERATION_MASK;
        self.state.store(generation << GENERATION_SHIFT, Release);
    }
}
