//! What a [`SegmentAllocator`](super::SegmentAllocator)'s callers and its refill and checkpoint
//! threads share: the keys and their buffers, the refill queue, and the journal.

use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError, RwLock};
use std::time::{Duration, Instant};

use idmint::segment::{
    Fetch, Range, Sealed, SegmentBuffer, SegmentConfig, SegmentCursor, Stall, Take,
};
use idmint::{Clock, Error, ForkGuard, Result};

use crate::segment::contract::{SegmentStore, MAX_KEYS};
use crate::segment::counter;
use crate::segment::journal::{Journal, JournalEntry};

pub(super) struct Shared<S, C> {
    /// Buffered ranges would be served twice by a forked child: it refuses instead.
    pub(super) fork: ForkGuard,
    /// This allocator's number in the per-thread key cache.
    pub(super) id: u64,
    pub(super) store: S,
    pub(super) clock: C,
    pub(super) cfg: SegmentConfig,
    pub(super) wait: Duration,
    pub(super) keys: RwLock<HashMap<String, Arc<Key>>>,
    pub(super) jobs: Mutex<Jobs>,
    pub(super) jobs_cv: Condvar,
    pub(super) journal: Option<Journaling>,
}

pub(super) struct Jobs {
    pub(super) queue: VecDeque<(Arc<Key>, Fetch)>,
    pub(super) stop: bool,
}

pub(super) struct Journaling {
    pub(super) journal: Journal,
    /// The store's identity, recorded with the values: known before any value is buffered
    /// (checked at open, or asked for before the first fetch).
    pub(super) store: OnceLock<u64>,
    /// `Some` when checkpoints run while the allocator does.
    pub(super) every: Option<Duration>,
    pub(super) requested: AtomicBool,
    pub(super) stop: Mutex<bool>,
    pub(super) wake: Condvar,
    /// Checkpoints must not overlap: a fence may only rise to the record that is on disk.
    pub(super) serial: Mutex<()>,
}

pub(super) struct Key {
    /// The buffer's quiet run, claimable without the lock (see [`Key::locked`]).
    pub(super) cursor: SegmentCursor,
    pub(super) name: String,
    pub(super) state: Mutex<KeyState>,
    pub(super) cv: Condvar,
}

pub(super) struct KeyState {
    pub(super) buf: SegmentBuffer,
    pub(super) error: Option<Error>,
}

/// How a round of [`Shared::fill`] ended.
pub(super) enum Filled {
    Done(Result<()>),
    Wait(Duration),
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics while holding these locks (store calls run outside them), so a poisoned
    // lock still guards consistent state.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Key {
    /// Runs `f` on the key's state under its lock, with the cursor sealed: taking the lock
    /// moves the buffer past the values claimed from the cursor, so `f` sees the buffer exact
    /// and nothing is claimed while it runs; afterwards the buffer's next quiet values are
    /// published in the cursor.
    pub(super) fn locked<R>(&self, f: impl FnOnce(&mut KeyState) -> R) -> R {
        let mut st = lock(&self.state);
        let sealed = self.settle(&mut st);
        let r = f(&mut st);
        self.publish(sealed, &st);
        r
    }

    /// Seals the cursor and moves the buffer past what was claimed. The caller holds the lock.
    pub(super) fn settle(&self, st: &mut KeyState) -> Sealed {
        let sealed = self.cursor.seal();
        if let Err(e) = st.buf.consume_quiet(sealed.claimed()) {
            // Cannot happen (claims are a prefix of the window, which is a prefix of the quiet
            // run, and only the lock holder changes the buffer). Were it to, burn what is
            // buffered rather than risk serving a claimed value again.
            let _ = st.buf.drain();
            st.error = Some(e);
        }
        sealed
    }

    /// Publishes the buffer's next quiet values. The caller holds the lock.
    pub(super) fn publish(&self, sealed: Sealed, st: &KeyState) {
        self.cursor.publish(sealed, window(&st.buf));
    }
}

/// What a key's cursor may serve: the buffer's quiet run, except that with a checkpoint fence
/// it stops where the values left before the fence fall below half a step, so the call that
/// crosses that line takes the lock and asks for a checkpoint ([`Shared::watch_headroom`]).
pub(super) fn window(buf: &SegmentBuffer) -> Range {
    let mut run = buf.quiet_range();
    if buf.fence().is_some() {
        let keep = buf.step() / 2;
        let headroom = buf.headroom();
        if headroom > keep {
            run.end = run.end.min(run.start.saturating_add(headroom - keep));
        }
    }
    run
}

impl Key {
    pub(super) fn new(name: String, buf: SegmentBuffer) -> Key {
        Key {
            cursor: SegmentCursor::new(),
            name,
            state: Mutex::new(KeyState { buf, error: None }),
            cv: Condvar::new(),
        }
    }
}

pub(super) fn too_many_keys() -> Error {
    Error::LimitExceeded {
        what: "keys of a segment allocator",
        limit: MAX_KEYS as u64,
    }
}

impl<S: SegmentStore, C: Clock> Shared<S, C> {
    /// `key`'s entry, created on first use.
    pub(super) fn key(&self, key: &str) -> Result<Arc<Key>> {
        {
            let map = self.keys.read().unwrap_or_else(PoisonError::into_inner);
            if let Some(k) = map.get(key) {
                return Ok(Arc::clone(k));
            }
        }
        counter::check_key(key)?;
        let buf = SegmentBuffer::for_key(self.cfg, key)?;
        let mut map = self.keys.write().unwrap_or_else(PoisonError::into_inner);
        if map.len() >= MAX_KEYS && !map.contains_key(key) {
            return Err(too_many_keys());
        }
        let k = map
            .entry(key.to_owned())
            .or_insert_with(|| Arc::new(Key::new(key.to_owned(), buf)));
        Ok(Arc::clone(k))
    }

    /// The next ID of `k` once its cursor had none: under the key's lock, and waiting (up to
    /// the wait timeout) if the buffers are empty.
    #[cold]
    #[inline(never)]
    pub(super) fn next_locked(&self, k: &Arc<Key>) -> Result<u64> {
        if let Some(v) = self.next_cached(k)? {
            return Ok(v);
        }
        let mut one = [0u64];
        self.fill(k, &mut one)?;
        Ok(one[0])
    }

    /// The next ID of `k` when its buffer can serve it without waiting (queueing a prefetch
    /// if the core asks for one); `None` when the caller must [`fill`](Self::fill) and wait.
    pub(super) fn next_cached(&self, k: &Arc<Key>) -> Result<Option<u64>> {
        if let Some(v) = k.cursor.claim() {
            return Ok(Some(v));
        }
        k.locked(|st| {
            if let Some(v) = st.buf.next_if_quiet() {
                self.watch_headroom(&st.buf);
                return Ok(Some(v));
            }
            let now = self.clock.coarse_ms();
            match st.buf.next(now)? {
                Take::Id(v) => {
                    self.watch_headroom(&st.buf);
                    Ok(Some(v))
                }
                Take::IdAndFetch(v, f) => {
                    self.submit(k, f);
                    Ok(Some(v))
                }
                Take::Fetch(f) => {
                    self.submit(k, f);
                    Ok(None)
                }
                Take::Stall(_) => Ok(None),
            }
        })
    }

    /// [`fill`](Self::fill), claiming from `k`'s cursor first.
    pub(super) fn fill_claiming(&self, k: &Arc<Key>, out: &mut [u64]) -> Result<()> {
        let filled = claim_into(&k.cursor, out);
        match out.get_mut(filled..) {
            Some(rest) if !rest.is_empty() => self.fill(k, rest),
            _ => Ok(()),
        }
    }

    pub(super) fn submit(&self, k: &Arc<Key>, f: Fetch) {
        lock(&self.jobs).queue.push_back((Arc::clone(k), f));
        self.jobs_cv.notify_one();
    }

    /// Serves `out` from `k`'s buffer under its lock, waiting for ranges as needed (up to the
    /// wait timeout). The cursor is sealed while the lock is held and published again before
    /// each wait and at the end (see [`Key::locked`]).
    pub(super) fn fill(&self, k: &Arc<Key>, out: &mut [u64]) -> Result<()> {
        let mut filled = 0usize;
        let mut deadline: Option<Instant> = None;
        let mut st = lock(&k.state);
        loop {
            let sealed = k.settle(&mut st);
            let step = self.fill_step(k, &mut st, out, &mut filled, &mut deadline);
            k.publish(sealed, &st);
            match step {
                Filled::Done(r) => return r,
                Filled::Wait(timeout) => {
                    st =
                        k.cv.wait_timeout(st, timeout)
                            .unwrap_or_else(PoisonError::into_inner)
                            .0;
                }
            }
        }
    }

    /// One round of [`fill`](Self::fill), under the lock with the cursor sealed.
    pub(super) fn fill_step(
        &self,
        k: &Arc<Key>,
        st: &mut KeyState,
        out: &mut [u64],
        filled: &mut usize,
        deadline: &mut Option<Instant>,
    ) -> Filled {
        let now = self.clock.coarse_ms();
        let rest = out.get_mut(*filled..).unwrap_or(&mut []);
        let b = match st.buf.take_into(rest, now) {
            Ok(b) => b,
            Err(e) => return Filled::Done(Err(e)),
        };
        *filled += b.filled;
        if let Some(f) = b.fetch {
            self.submit(k, f);
        }
        self.watch_headroom(&st.buf);
        let Some(stall) = b.stall else {
            return Filled::Done(Ok(()));
        };
        let started = Instant::now();
        let deadline = *deadline.get_or_insert_with(|| {
            // A wait too long to represent is as good as forever.
            started
                .checked_add(self.wait)
                .unwrap_or(started + Duration::from_secs(1 << 32))
        });
        if started >= deadline {
            return Filled::Done(Err(self.stall_error(st, stall)));
        }
        let mut timeout = deadline - started;
        match stall {
            Stall::RetryAt { until_ms } => {
                let ms = until_ms.saturating_sub(self.clock.now_ms());
                timeout = timeout.min(Duration::from_millis(ms.max(1)));
            }
            Stall::Fenced => self.request_checkpoint(),
            Stall::InFlight => {}
        }
        Filled::Wait(timeout)
    }

    pub(super) fn stall_error(&self, st: &KeyState, stall: Stall) -> Error {
        match (stall, st.error) {
            (Stall::Fenced, _) => Error::StoreUnavailable {
                store: "journal",
                op: "write",
                reason: "checkpoint not written in time",
            },
            (_, Some(e)) => e,
            (_, None) => Error::StoreUnavailable {
                store: self.store.kind(),
                op: "take",
                reason: "timed out waiting for a range",
            },
        }
    }

    /// With checkpoints on: asks for a checkpoint when the values servable before the fence
    /// fall below half a step, so callers do not reach the fence.
    pub(super) fn watch_headroom(&self, buf: &SegmentBuffer) {
        if buf.fence().is_some() && buf.headroom() < buf.step() / 2 {
            self.request_checkpoint();
        }
    }

    pub(super) fn request_checkpoint(&self) {
        if let Some(j) = &self.journal {
            if j.every.is_some() && !j.requested.swap(true, Ordering::AcqRel) {
                let _stop = lock(&j.stop);
                j.wake.notify_all();
            }
        }
    }

    pub(super) fn fetch_loop(&self) {
        loop {
            let (k, f) = {
                let mut jobs = lock(&self.jobs);
                loop {
                    if jobs.stop {
                        return;
                    }
                    if let Some(job) = jobs.queue.pop_front() {
                        break job;
                    }
                    jobs = self
                        .jobs_cv
                        .wait(jobs)
                        .unwrap_or_else(PoisonError::into_inner);
                }
            };
            let unavailable = Error::StoreUnavailable {
                store: self.store.kind(),
                op: "take",
                reason: "the store panicked",
            };
            // A store that panics is a store that failed; the allocator keeps going.
            let result = catch_unwind(AssertUnwindSafe(|| {
                self.learn_identity()?;
                self.store.take(&k.name, f.step())
            }))
            .unwrap_or(Err(unavailable));
            let now = self.clock.now_ms();
            let supplied = k.locked(|st| {
                match result {
                    Ok(range) => match st.buf.supply(f, range, now) {
                        Ok(()) => {
                            st.error = None;
                            true
                        }
                        Err(e) => {
                            st.error = Some(e);
                            false
                        }
                    },
                    Err(e) => {
                        // Cannot fail: `f` is the fetch in flight for this key.
                        let _ = st.buf.fail(f, now);
                        st.error = Some(e);
                        false
                    }
                }
            });
            k.cv.notify_all();
            if supplied {
                self.request_checkpoint();
            }
        }
    }

    /// With a journal: asks the store for its identity before the first range is taken, so
    /// every buffered value can be recorded with it.
    pub(super) fn learn_identity(&self) -> Result<()> {
        if let Some(j) = &self.journal {
            if j.store.get().is_none() {
                let id = self.store.identity()?;
                let _ = j.store.set(id);
            }
        }
        Ok(())
    }

    pub(super) fn journal_loop(&self) {
        let Some(j) = &self.journal else { return };
        let every = j.every.unwrap_or(Duration::MAX);
        loop {
            {
                let mut stop = lock(&j.stop);
                if !*stop && !j.requested.load(Ordering::Acquire) {
                    stop = j
                        .wake
                        .wait_timeout(stop, every)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
                if *stop {
                    return;
                }
            }
            j.requested.store(false, Ordering::Release);
            // A failed write leaves the fences low: callers may wait, never duplicate. The
            // next request or period tries again.
            let _ = self.checkpoint(j);
        }
    }

    /// Records everything beyond one step per key, fenced (see the journal module docs).
    pub(super) fn checkpoint(&self, j: &Journaling) -> Result<()> {
        let _one_at_a_time = lock(&j.serial);
        let keys: Vec<Arc<Key>> = {
            let map = self.keys.read().unwrap_or_else(PoisonError::into_inner);
            map.values().cloned().collect()
        };
        let mut entries = Vec::new();
        let mut checkpoints = Vec::with_capacity(keys.len());
        for k in &keys {
            let cp = k.locked(|st| {
                let reserve = st.buf.step();
                st.buf.begin_checkpoint(reserve)
            });
            if !cp.remainder().is_empty() {
                entries.push(JournalEntry {
                    key: k.name.clone(),
                    ranges: cp.remainder().ranges().to_vec(),
                });
            }
            checkpoints.push(cp);
        }
        j.journal.write(j.store.get().copied(), &entries)?;
        for (k, cp) in keys.iter().zip(checkpoints) {
            k.locked(|st| st.buf.end_checkpoint(cp));
            k.cv.notify_all();
        }
        Ok(())
    }
}

/// Claims runs from `cursor` into `out` until it is full or the window is used up; returns how
/// many values were written.
#[inline]
pub(super) fn claim_into(cursor: &SegmentCursor, out: &mut [u64]) -> usize {
    let mut filled = 0;
    while let Some(rest) = out.get_mut(filled..).filter(|r| !r.is_empty()) {
        let Some(run) = cursor.claim_run(rest.len() as u64) else {
            break;
        };
        for (slot, v) in rest.iter_mut().zip(run.start..run.end) {
            *slot = v;
        }
        filled += run.len() as usize;
    }
    filled
}
