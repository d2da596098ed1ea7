//! What a [`LeasedSnowflake`](super::LeasedSnowflake) and its renewal thread share: the
//! node slots, the lease's renewal, swap and re-acquisition, and the mint that keeps to the
//! recorded bound and the deadline.

use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use idmint::{Clock, Config, Error, OnBackwards, Result, Snowflake};

use super::options::{LeaseWait, Resolved, WaitCause};
use crate::lease::contract::{Lease, LeaseStore};
use crate::lease::mono;

const RELAXED: Ordering = Ordering::Relaxed;

/// One node's generator and lease state. Never freed before the [`Shared`] that owns it, so
/// references handed out by [`Shared::slot`] stay valid after a swap retires it.
pub(super) struct Slot<C: Clock> {
    pub(super) gen: Snowflake<Arc<C>>,
    pub(super) lease: Option<Lease>,
    /// Highest tick an ID may carry (the recorded bound's tick; `u64::MAX` without a lease).
    pub(super) bound_tick: AtomicU64,
    pub(super) bound_ms: AtomicU64,
    /// Coarse monotonic ms from which minting is refused (`u64::MAX` without a lease,
    /// 0 once retired or lost).
    pub(super) deadline: AtomicU64,
    /// The store said the lease was superseded: take a new one.
    pub(super) lost: AtomicBool,
    /// A wait for this lease's fence was reported (see [`LeaseOptions::on_wait`]).
    pub(super) announced: AtomicBool,
}

impl<C: Clock> Slot<C> {
    pub(super) fn node(&self) -> u64 {
        self.gen.node()
    }
}

#[derive(Default)]
pub(super) struct Counters {
    pub(super) renewals: AtomicU64,
    pub(super) renew_failures: AtomicU64,
    pub(super) lost: AtomicU64,
    pub(super) swaps: AtomicU64,
    pub(super) reacquires: AtomicU64,
}

pub(super) struct Shared<C: Clock> {
    pub(super) current: AtomicPtr<Slot<C>>,
    pub(super) time_shift: u32,
    pub(super) time_mask: u64,
    pub(super) clock: Arc<C>,
    pub(super) cfg: Config,
    pub(super) store: Option<Arc<dyn LeaseStore>>,
    pub(super) opts: Option<Resolved>,
    /// Every slot ever used (the current one included); see [`Slot`]. Boxed so a slot's
    /// address survives the vector growing: `current` and minting threads point at it.
    #[allow(clippy::vec_box)]
    pub(super) slots: Mutex<Vec<Box<Slot<C>>>>,
    /// Serialises renewals, swaps and re-acquisitions.
    pub(super) lease_lock: Mutex<()>,
    pub(super) stop: Mutex<bool>,
    pub(super) stop_cv: Condvar,
    /// Monotonic ms before which a failed swap is not tried again.
    pub(super) swap_retry_at: AtomicU64,
    pub(super) counters: Counters,
    /// The coarse monotonic clock's largest lag, ms.
    pub(super) lag_ms: u64,
}

/// A node that can be minted on from a known time (see [`Shared::not_ready`]).
pub(super) struct NotReady {
    pub(super) cause: WaitCause,
    /// The store's fence: IDs must come after it.
    pub(super) fence_ms: u64,
    /// `fence_ms + 1`, the first ms an ID can carry.
    pub(super) until_ms: u64,
    /// The clock when this was found.
    pub(super) now_ms: u64,
}

/// Why a minted ID was not handed out.
pub(super) enum Refusal {
    /// The slot was retired by a swap or re-acquisition: mint on the current one.
    Retired,
    /// The ID's time is past the recorded bound (the wall clock ran ahead of the last renewal).
    PastBound,
    /// The lease's deadline passed or it was superseded.
    Expired(&'static str),
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl<C: Clock + 'static> Shared<C> {
    #[inline(always)]
    pub(super) fn slot(&self) -> &Slot<C> {
        // SAFETY: `current` always points into a Box owned by `self.slots`, which only grows
        // and is dropped with `self`; it is set before the Shared is shared.
        unsafe { &*self.current.load(Ordering::Acquire) }
    }

    /// The hot-path check on a minted ID: time at most the recorded bound, lease alive.
    #[inline(always)]
    pub(super) fn admits(&self, s: &Slot<C>, id: u64) -> bool {
        ((id >> self.time_shift) & self.time_mask) <= s.bound_tick.load(RELAXED) && {
            let d = s.deadline.load(RELAXED);
            d == u64::MAX || mono::coarse_ms() < d
        }
    }

    #[cold]
    pub(super) fn refusal(&self, s: &Slot<C>, id: u64) -> Refusal {
        if !ptr::eq(s, self.slot()) {
            return Refusal::Retired;
        }
        if s.lost.load(RELAXED) {
            return Refusal::Expired("fencing token superseded");
        }
        let d = s.deadline.load(RELAXED);
        if d != u64::MAX && mono::coarse_ms() >= d {
            return Refusal::Expired("renewal failed before the deadline");
        }
        if ((id >> self.time_shift) & self.time_mask) > s.bound_tick.load(RELAXED) {
            return Refusal::PastBound;
        }
        // The deadline passed between the two checks' clock readings.
        Refusal::Expired("renewal failed before the deadline")
    }

    pub(super) fn tick_of(&self, ms: u64) -> u64 {
        let l = self.cfg.layout();
        if ms < l.epoch_ms() {
            return 0;
        }
        ((ms - l.epoch_ms()) / l.tick_ms()).min(l.max_time())
    }

    pub(super) fn opts(&self) -> Result<&Resolved> {
        self.opts.as_ref().ok_or(Error::InvalidConfig {
            reason: "this generator has no lease",
        })
    }

    pub(super) fn store(&self) -> Result<&Arc<dyn LeaseStore>> {
        self.store.as_ref().ok_or(Error::InvalidConfig {
            reason: "this generator has no lease",
        })
    }

    /// Records a new bound for `s` and extends its deadline. Caller holds `lease_lock`.
    pub(super) fn renew_slot(&self, s: &Slot<C>) -> Result<()> {
        let (Some(lease), Some(opts)) = (s.lease.as_ref(), self.opts.as_ref()) else {
            return Ok(());
        };
        let store = self.store()?;
        let sent = mono::now_ms();
        let now = self.clock.now_ms();
        let hw = s.gen.high_water_ms().unwrap_or(0);
        // While the node is not ready (its fence ahead of the clock), nothing can be minted:
        // renew at the fence only, so a holder that waits, or starts and is refused, does not
        // push the node's record (which never goes down) a reserve further each time. The
        // first ID after the wait passes the bound and renews with the reserve on the spot.
        let up_to = match self.not_ready(s) {
            Some(r) => r.fence_ms,
            None => hw.max(now).saturating_add(opts.reserve_ms),
        };
        match store.renew(lease, up_to) {
            Ok(()) => {
                s.bound_ms.fetch_max(up_to, RELAXED);
                s.bound_tick.fetch_max(self.tick_of(up_to), RELAXED);
                s.deadline
                    .fetch_max(sent.saturating_add(opts.live_ms), RELAXED);
                self.counters.renewals.fetch_add(1, RELAXED);
                Ok(())
            }
            Err(e @ Error::LeaseLost { .. }) => {
                s.lost.store(true, RELAXED);
                s.deadline.store(0, RELAXED);
                self.counters.lost.fetch_add(1, RELAXED);
                // Minting on this lease has stopped: let the store free what this process still
                // holds of it (the file store keeps a lost lease's locks until then, so nobody
                // takes the node while a mint is in flight). It records nothing for a lost lease.
                let _ = store.release(lease, s.bound_ms.load(RELAXED));
                Err(e)
            }
            Err(e) => {
                self.counters.renew_failures.fetch_add(1, RELAXED);
                Err(e)
            }
        }
    }

    /// A generator for `lease`, fenced and with its first bound recorded (so it can mint).
    /// On failure the lease is released again (best effort).
    pub(super) fn build_slot(&self, lease: Lease) -> Result<Box<Slot<C>>> {
        let store = self.store()?;
        // Our own earlier slots on the same node: their IDs are fenced off too (a store that
        // lost its data, such as a Redis without persistence, cannot do that for us).
        let own_hw = lock(&self.slots)
            .iter()
            .filter(|s| s.lease.is_some() && s.node() == lease.node)
            .filter_map(|s| s.gen.high_water_ms())
            .max();
        let fence = [
            lease.fence_ms,
            lease.not_before_ms,
            own_hw,
            self.cfg.fence(),
        ]
        .into_iter()
        .flatten()
        .max();
        let mut cfg = self.cfg.node(lease.node);
        if let Some(f) = fence {
            cfg = cfg.fence_ms(f);
        }
        let gen = match Snowflake::with_clock(cfg, self.clock.clone()) {
            Ok(g) => g,
            Err(e) => {
                let _ = store.release(&lease, fence.unwrap_or(0));
                return Err(e);
            }
        };
        let slot = Box::new(Slot {
            gen,
            lease: Some(lease),
            bound_tick: AtomicU64::new(0),
            bound_ms: AtomicU64::new(0),
            deadline: AtomicU64::new(0),
            lost: AtomicBool::new(false),
            announced: AtomicBool::new(false),
        });
        if let Err(e) = self.renew_slot(&slot) {
            if let Some(l) = slot.lease.as_ref() {
                let _ = store.release(l, fence.unwrap_or(0));
            }
            return Err(e);
        }
        Ok(slot)
    }

    /// Makes `slot` current and retires `old`. Caller holds `lease_lock` (or is the constructor).
    pub(super) fn publish(&self, slot: Box<Slot<C>>, old: Option<&Slot<C>>) {
        let p = &*slot as *const Slot<C> as *mut Slot<C>;
        lock(&self.slots).push(slot);
        self.current.store(p, Ordering::Release);
        if let Some(old) = old {
            old.deadline.store(0, RELAXED);
        }
    }

    /// A new lease after the current one was superseded. Caller holds `lease_lock`.
    pub(super) fn reacquire(&self, old: &Slot<C>) -> Result<()> {
        let opts = self.opts()?;
        let lease = self
            .store()?
            .acquire(&opts.spec, self.clock.now_ms(), None)?;
        let slot = self.build_slot(lease)?;
        self.publish(slot, Some(old));
        self.counters.reacquires.fetch_add(1, RELAXED);
        Ok(())
    }

    /// Renews right now, from a minting thread, when an ID's time passed the recorded bound.
    pub(super) fn renew_now(&self, s: &Slot<C>) -> Result<()> {
        let _g = lock(&self.lease_lock);
        if !ptr::eq(s, self.slot()) {
            return Ok(()); // swapped meanwhile: the caller retries on the new slot
        }
        let node = s.node();
        self.renew_slot(s).map_err(|e| match e {
            Error::LeaseLost { .. } => e,
            _ => Error::LeaseLost {
                node,
                reason: "the recorded bound could not be advanced",
            },
        })
    }

    /// Swaps to another node if the clock is behind `s`'s high-water mark by more than
    /// `swap_after_ms`. `true` when the caller should mint again (on the new slot).
    pub(super) fn maybe_swap(&self, s: &Slot<C>) -> bool {
        let Some(after) = self.opts.as_ref().and_then(|o| o.swap_after_ms) else {
            return false;
        };
        if s.lease.is_none() {
            return false;
        }
        let now = self.clock.now_ms();
        let hw = s.gen.high_water_ms().unwrap_or(0);
        if now.saturating_add(after) >= hw {
            return false;
        }
        let m = mono::now_ms();
        if m < self.swap_retry_at.load(RELAXED) {
            return false;
        }
        let _g = lock(&self.lease_lock);
        if !ptr::eq(s, self.slot()) {
            return true;
        }
        match self.swap(s, now, after) {
            Ok(()) => true,
            Err(_) => {
                let retry = self.opts.as_ref().map_or(1000, |o| o.renew_ms);
                self.swap_retry_at.store(m.saturating_add(retry), RELAXED);
                false
            }
        }
    }

    pub(super) fn swap(&self, old: &Slot<C>, now: u64, after: u64) -> Result<()> {
        let opts = self.opts()?;
        let store = self.store()?;
        let Some(old_lease) = old.lease.as_ref() else {
            return Ok(());
        };
        let new = store.acquire(&opts.spec, now, Some(old_lease.node))?;
        if new.fence_ms.is_some_and(|f| f > now.saturating_add(after)) {
            // No better than the node we have: give it back.
            let _ = store.release(&new, new.fence_ms.unwrap_or(0));
            return Err(Error::NoFreeNode {
                nodes: opts.spec.nodes,
            });
        }
        let slot = self.build_slot(new)?;
        self.publish(slot, Some(old));
        // Threads may still be finishing a mint on the old node: its recorded bound covers
        // every ID they can hand out, its exact high-water mark might not.
        let _ = store.release(old_lease, old.bound_ms.load(RELAXED));
        self.counters.swaps.fetch_add(1, RELAXED);
        Ok(())
    }

    /// When `s`'s node is not ready yet because of what the store fenced it at (the recorded
    /// bound of its previous holder, the lock delay), not because of IDs minted here: the
    /// clock is at or before that fence and nothing was minted above it.
    pub(super) fn not_ready(&self, s: &Slot<C>) -> Option<NotReady> {
        let lease = s.lease.as_ref()?;
        let delay = lease.not_before_ms.unwrap_or(0);
        let fence = lease.fence_ms.unwrap_or(0).max(delay);
        let now = self.clock.now_ms();
        // A fence in the current tick is the generator's ordinary wait for the next tick.
        if self.tick_of(fence) <= self.tick_of(now) || s.gen.high_water_ms().unwrap_or(0) > fence {
            return None;
        }
        // The lock delay also covers the record when it is the later of the two.
        let cause = if lease.fence_ms.unwrap_or(0) > delay {
            WaitCause::Fence
        } else {
            WaitCause::LockDelay
        };
        Some(NotReady {
            cause,
            fence_ms: fence,
            until_ms: fence.saturating_add(1),
            now_ms: now,
        })
    }

    /// Refuses at once to wait for a fence an honest previous holder cannot have recorded
    /// (this host's clock is behind), or any fence under `on_backwards = fail`. The store's
    /// lock delay is always waited for.
    pub(super) fn check_ready(&self, s: &Slot<C>, ready: &NotReady) -> Result<()> {
        if ready.cause != WaitCause::Fence {
            return Ok(());
        }
        let limit = self.opts()?.max_fence_wait_ms;
        let ahead = ready.fence_ms - ready.now_ms;
        if ahead > limit || self.cfg.on_backwards_policy() == OnBackwards::Fail {
            return Err(Error::NodeFenced {
                node: s.node(),
                by_ms: ahead,
                fence_ms: ready.fence_ms,
            });
        }
        Ok(())
    }

    /// Reports a wait for `s`'s node to [`LeaseOptions::on_wait`](super::LeaseOptions::on_wait), once per lease.
    pub(super) fn announce_wait(&self, s: &Slot<C>, ready: &NotReady) {
        if s.announced.swap(true, RELAXED) {
            return;
        }
        let Ok(opts) = self.opts() else { return };
        if let (Some(hook), Some(lease)) = (opts.on_wait.as_ref(), s.lease.as_ref()) {
            (hook.0)(&LeaseWait {
                namespace: lease.namespace.clone(),
                node: s.node(),
                cause: ready.cause,
                until_ms: ready.until_ms,
                wait_ms: ready.until_ms - ready.now_ms,
            });
        }
    }

    /// Waits until `ready.until_ms`, renewing the lease from this thread on the way so a wait
    /// longer than the TTL never loses it. Reports the wait first (once per lease).
    pub(super) fn wait_ready(&self, s: &Slot<C>, ready: &NotReady) -> Result<()> {
        let opts = self.opts()?;
        self.announce_wait(s, ready);
        loop {
            let now = self.clock.now_ms();
            if now >= ready.until_ms {
                return Ok(());
            }
            let step = (ready.until_ms - now).min(opts.renew_ms);
            self.clock.wait_until(now.saturating_add(step));
            let _g = lock(&self.lease_lock);
            if !ptr::eq(s, self.slot()) {
                return Ok(()); // swapped or re-acquired meanwhile: mint on the new slot
            }
            // A store hiccup is left to the renewal thread's retries (and to the deadline
            // the minting checks enforce); a lost lease ends the wait.
            if let Err(e @ Error::LeaseLost { .. }) = self.renew_slot(s) {
                return Err(e);
            }
        }
    }

    /// Waits up to `d` for the stop signal; `true` when stopping.
    pub(super) fn wait_stop(&self, d: Duration) -> bool {
        let g = lock(&self.stop);
        if *g {
            return true;
        }
        let (g, _) = self
            .stop_cv
            .wait_timeout_while(g, d, |stop| !*stop)
            .unwrap_or_else(|p| p.into_inner());
        *g
    }

    pub(super) fn renewer(self: Arc<Self>) {
        let Some(opts) = self.opts.clone() else {
            return;
        };
        let mut ok = true;
        loop {
            let wait = if ok { opts.renew_ms } else { opts.retry_ms };
            if self.wait_stop(Duration::from_millis(wait)) {
                return;
            }
            let _g = lock(&self.lease_lock);
            let s = self.slot();
            ok = if s.lost.load(RELAXED) {
                self.reacquire(s).is_ok()
            } else {
                self.renew_slot(s).is_ok()
            };
        }
    }

    /// The common minting loop: `attempt` mints on a slot and returns the value with the
    /// largest ID it minted; that ID is checked before the value is handed out.
    pub(super) fn mint<T>(
        &self,
        wait: bool,
        mut attempt: impl FnMut(&Slot<C>) -> Result<(T, u64)>,
    ) -> Result<T> {
        // Waiting is bounded by the policy; slot changes and on-the-spot renewals are not,
        // so they are counted.
        let mut changes = 0;
        while changes < 64 {
            let s = self.slot();
            match attempt(s) {
                Ok((v, id)) => {
                    if self.admits(s, id) {
                        return Ok(v);
                    }
                    changes += 1;
                    match self.refusal(s, id) {
                        Refusal::Retired => continue,
                        Refusal::PastBound => self.renew_now(s)?,
                        Refusal::Expired(reason) => {
                            return Err(Error::LeaseLost {
                                node: s.node(),
                                reason,
                            })
                        }
                    }
                }
                Err(Error::WouldBlock { .. } | Error::ClockBackwards { .. })
                    if self.not_ready(s).is_some() =>
                {
                    // The node's fence (its previous holder's bound, or the store's lock
                    // delay) is ahead of the clock: the node is ready at a known time. Not a
                    // clock step in this process, so not the `on_backwards` budget's business.
                    let Some(ready) = self.not_ready(s) else {
                        continue;
                    };
                    if ready.cause == WaitCause::Fence && self.maybe_swap(s) {
                        changes += 1;
                        continue;
                    }
                    self.check_ready(s, &ready)?;
                    if !wait {
                        self.announce_wait(s, &ready);
                        return Err(Error::WouldBlock {
                            until_ms: ready.until_ms,
                        });
                    }
                    self.wait_ready(s, &ready)?;
                }
                Err(Error::WouldBlock { until_ms }) => {
                    if self.maybe_swap(s) {
                        changes += 1;
                        continue;
                    }
                    if !wait {
                        return Err(Error::WouldBlock { until_ms });
                    }
                    self.clock.wait_until(until_ms);
                }
                Err(e @ Error::ClockBackwards { .. }) => {
                    if self.maybe_swap(s) {
                        changes += 1;
                        continue;
                    }
                    return Err(e);
                }
                Err(e) => return Err(e),
            }
        }
        let s = self.slot();
        Err(Error::LeaseLost {
            node: s.node(),
            reason: "the lease kept changing while minting",
        })
    }

    /// Stops minting on the current slot and releases its lease with the exact high-water
    /// mark. Only called with no minting thread left (drop, `release(self)`).
    pub(super) fn release_current(&self) -> Result<()> {
        let _g = lock(&self.lease_lock);
        let s = self.slot();
        let Some(lease) = s.lease.as_ref() else {
            return Ok(());
        };
        if s.lost.load(RELAXED) {
            return Ok(());
        }
        s.deadline.store(0, RELAXED);
        let hw = s.gen.high_water_ms().unwrap_or(0);
        self.store()?.release(lease, hw)
    }
}

impl<C: Clock + 'static> Shared<C> {
    pub(super) fn new(
        cfg: Config,
        clock: Arc<C>,
        store: Option<Arc<dyn LeaseStore>>,
        opts: Option<Resolved>,
    ) -> Shared<C> {
        let time = cfg.layout().time_field();
        Shared {
            current: AtomicPtr::new(ptr::null_mut()),
            time_shift: u32::from(time.shift),
            time_mask: time.max(),
            clock,
            cfg,
            store,
            opts,
            slots: Mutex::new(Vec::new()),
            lease_lock: Mutex::new(()),
            stop: Mutex::new(false),
            stop_cv: Condvar::new(),
            swap_retry_at: AtomicU64::new(0),
            counters: Counters::default(),
            lag_ms: mono::coarse_lag_ms(),
        }
    }
}
