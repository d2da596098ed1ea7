//! [`LeaseWindow`]: what a node lease from a lease service lets its holder mint, checked on
//! every ID — the sans-IO half of a leased generator whose requests someone else makes (the
//! browser package's `LeasedSnowflake`, which talks to `idmint serve` with `fetch`).
//!
//! A service grants a node with three limits, and the holder keeps to all of them:
//!
//! - **The time fence** (`fence_ms`): the node's last recorded issued time. No ID at or before
//!   it, or the holder could repeat an ID of the node's previous holder.
//! - **The recorded bound** (`bound_ms`): the service wrote it down for the node, and the next
//!   holder's fence will be at least that. No ID after it: such an ID could also be minted by
//!   the next holder — even if this one stalls (a sleeping laptop) and never learns that its
//!   lease ran out.
//! - **The deadline**: the service frees the node a TTL after it *received* the last grant or
//!   renewal. The holder counts from when it *sent* that request (earlier), on its monotonic
//!   clock (which wall-clock steps cannot move), and stops a safety margin before
//!   ([`LeaseWindow::safety_margin_ms`]: clock rates differ).
//!
//! The holder mints with a generator fenced at `fence_ms`, then asks [`LeaseWindow::admit`]
//! about each ID's time with a monotonic reading taken *after* minting; a refused ID is
//! discarded, never handed out. Times are ms since the Unix epoch; monotonic readings are ms
//! on whatever monotonic clock the holder has (`performance.now()` in a browser), the same one
//! for every call.
//!
//! # Examples
//! ```
//! use idmint::LeaseWindow;
//!
//! let sent = 50_000; // monotonic ms when the grant request went out
//! let mut w = LeaseWindow::new(5, Some(1_000), 40_000, sent, 30_000, Some(10_000))?;
//! assert!(w.admit(2_000, sent + 5).is_ok());
//! assert!(w.admit(40_001, sent + 5).is_err()); // past the recorded bound
//! assert_eq!(w.deadline(), Some(sent + 29_000)); // TTL 30 s less the 1 s margin
//! w.renewed(70_000, sent + 10_000, 30_000, Some(10_000))?;
//! assert!(w.admit(60_000, sent + 35_000).is_ok());
//! w.lose();
//! assert_eq!(w.admit(60_001, sent + 35_000).unwrap_err().code(), "ERR_LEASE_LOST");
//! # Ok::<(), idmint::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::snowflake::layout::Layout;

/// What a node lease permits: fence, recorded bound, deadline; see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaseWindow {
    node: u64,
    fence_ms: Option<u64>,
    bound_ms: u64,
    ttl_ms: u64,
    /// Monotonic ms from which IDs are refused.
    deadline: u64,
    /// Monotonic ms from which a renewal is due.
    renew_at: u64,
    /// The latest time admitted (put in an ID handed out).
    issued_ms: Option<u64>,
    lost: bool,
    /// How far ahead of the service's own clock the fence was when it granted (a store's lock
    /// delay); 0 when unknown. See [`service_time`](Self::service_time).
    fence_lead_ms: u64,
}

impl LeaseWindow {
    /// The largest safety margin: a second covers any sane clock-rate difference over a TTL.
    pub const MAX_MARGIN_MS: u64 = 1_000;

    /// The shortest wait before a renewal or a retry, so a service answering "renew now" (or
    /// failing at once) is not asked in a tight loop.
    pub const MIN_WAIT_MS: u64 = 50;

    /// Shortest and longest TTL a lease service grants a client, ms: a TTL asked for outside
    /// is brought within, at the grant and at every renewal.
    pub const TTL_RANGE_MS: (u64, u64) = (1_000, 300_000);

    /// The TTL of a lease whose client asks for none, ms.
    pub const DEFAULT_TTL_MS: u64 = 30_000;

    /// The TTL a service grants a client that asks for `asked` ms (`None`: none asked).
    ///
    /// ```
    /// use idmint::LeaseWindow;
    /// assert_eq!(LeaseWindow::granted_ttl_ms(None), 30_000);
    /// assert_eq!(LeaseWindow::granted_ttl_ms(Some(10)), 1_000);
    /// assert_eq!(LeaseWindow::granted_ttl_ms(Some(u64::MAX)), 300_000);
    /// ```
    pub const fn granted_ttl_ms(asked: Option<u64>) -> u64 {
        let ms = match asked {
            Some(ms) => ms,
            None => Self::DEFAULT_TTL_MS,
        };
        if ms < Self::TTL_RANGE_MS.0 {
            Self::TTL_RANGE_MS.0
        } else if ms > Self::TTL_RANGE_MS.1 {
            Self::TTL_RANGE_MS.1
        } else {
            ms
        }
    }

    /// A third of the TTL: when a service asks for a renewal unless it says otherwise, and how
    /// long one request of a holder may take (a renewal that timed out then leaves time for
    /// another before the lease ends).
    pub const fn third_of_ttl_ms(ttl_ms: u64) -> u64 {
        ttl_ms / 3
    }

    /// A holder built from a grant for `node`: the node's `fence_ms` (if it was used before),
    /// the `bound_ms` the service recorded, the monotonic time the request was `sent_at`, the
    /// lease's `ttl_ms` and when the service asks for a renewal (`renew_after_ms`, default a
    /// third of the TTL). [`Error::InvalidConfig`] when the grant permits no ID (the bound is
    /// not after the fence) or the TTL is 0.
    pub fn new(
        node: u64,
        fence_ms: Option<u64>,
        bound_ms: u64,
        sent_at: u64,
        ttl_ms: u64,
        renew_after_ms: Option<u64>,
    ) -> Result<LeaseWindow> {
        let mut w = LeaseWindow {
            node,
            fence_ms,
            bound_ms: 0,
            ttl_ms: 0,
            deadline: 0,
            renew_at: 0,
            issued_ms: None,
            lost: false,
            fence_lead_ms: 0,
        };
        w.renewed(bound_ms, sent_at, ttl_ms, renew_after_ms)?;
        Ok(w)
    }

    /// The service's clock when it granted (`server_time_ms`). A fence ahead of the service's
    /// own clock — a store that lost its records fences every node past its lock delay, which
    /// can be many TTLs — is a wait the service vouches for, however long; only how far this
    /// host's clock lags behind on top of it counts against the limit of
    /// [`fence_wait_ms`](Self::fence_wait_ms).
    pub const fn service_time(mut self, server_time_ms: u64) -> LeaseWindow {
        if let Some(f) = self.fence_ms {
            self.fence_lead_ms = f.saturating_sub(server_time_ms);
        }
        self
    }

    /// How long before the lease could expire minting stops: a tenth of the TTL, at most
    /// [`MAX_MARGIN_MS`](Self::MAX_MARGIN_MS).
    pub const fn safety_margin_ms(ttl_ms: u64) -> u64 {
        let m = ttl_ms / 10;
        if m < Self::MAX_MARGIN_MS {
            m
        } else {
            Self::MAX_MARGIN_MS
        }
    }

    /// Whether an ID whose time is `id_time_ms` may be handed out at monotonic time
    /// `mono_now` (read after minting it); records its time as issued when it may.
    /// [`Error::LeaseLost`] once the lease is lost, from the deadline on, and for a time past
    /// the recorded bound (until a renewal records a later one); [`Error::ClockBackwards`]
    /// for a time at or before the fence (a generator not fenced as the lease says).
    #[inline]
    pub fn admit(&mut self, id_time_ms: u64, mono_now: u64) -> Result<()> {
        if self.lost || mono_now >= self.deadline || id_time_ms > self.bound_ms {
            return Err(self.refusal(id_time_ms));
        }
        if let Some(f) = self.fence_ms.filter(|&f| id_time_ms <= f) {
            return Err(Error::ClockBackwards {
                by_ms: f - id_time_ms,
                last_ms: f,
            });
        }
        self.issued_ms = Some(self.issued_ms.map_or(id_time_ms, |i| i.max(id_time_ms)));
        Ok(())
    }

    #[cold]
    fn refusal(&self, id_time_ms: u64) -> Error {
        let reason = if self.lost {
            "the service reported it superseded or expired"
        } else if id_time_ms > self.bound_ms {
            "the ID's time is past the bound the service recorded; waiting for a renewal"
        } else {
            "not renewed before its deadline"
        };
        Error::LeaseLost {
            node: self.node,
            reason,
        }
    }

    /// A successful renewal: the service recorded `bound_ms` and restarted the TTL (`ttl_ms`,
    /// as it answered) from when it received the request, which went out at monotonic time
    /// `sent_at`. The new bound and deadline replace the old ones, even if earlier: they are
    /// what the service holds now. Errors as [`new`](Self::new), and [`Error::LeaseLost`] for
    /// a lost lease, which nothing revives.
    pub fn renewed(
        &mut self,
        bound_ms: u64,
        sent_at: u64,
        ttl_ms: u64,
        renew_after_ms: Option<u64>,
    ) -> Result<()> {
        if self.lost {
            return Err(self.refusal(0));
        }
        if ttl_ms == 0 {
            return Err(Error::InvalidConfig {
                reason: "lease ttl must be at least 1 ms",
            });
        }
        if self.fence_ms.is_some_and(|f| bound_ms <= f) {
            return Err(Error::InvalidConfig {
                reason: "lease bound must be after its fence",
            });
        }
        let live = ttl_ms - Self::safety_margin_ms(ttl_ms);
        // Renew while at least half the lease is left, so a failed renewal has time for
        // retries; never in a tight loop.
        let half = live / 2;
        let wait = renew_after_ms
            .unwrap_or(Self::third_of_ttl_ms(ttl_ms))
            .clamp(Self::MIN_WAIT_MS.min(half), half);
        self.bound_ms = bound_ms;
        self.ttl_ms = ttl_ms;
        self.deadline = sent_at.saturating_add(live);
        self.renew_at = sent_at.saturating_add(wait);
        Ok(())
    }

    /// The service answered that the lease is gone (superseded or expired): every later ID is
    /// refused, for good.
    pub fn lose(&mut self) {
        self.lost = true;
    }

    /// How long after monotonic time `mono_now` the next renewal is due (0: now).
    pub fn renew_in(&self, mono_now: u64) -> u64 {
        self.renew_at.saturating_sub(mono_now)
    }

    /// How long after monotonic time `mono_now` to retry a renewal that failed: after the
    /// service's `hint_ms` (its `Retry-After`) or a tenth of the TTL — but while minting goes
    /// on, within half of what is left before the deadline, so another attempt lands before
    /// minting stops. At least [`MIN_WAIT_MS`](Self::MIN_WAIT_MS).
    pub fn retry_in(&self, mono_now: u64, hint_ms: Option<u64>) -> u64 {
        let wait = hint_ms.unwrap_or(self.ttl_ms / 10);
        match self.expires_in(mono_now) {
            Some(left) if left > 0 => wait.min(left / 2),
            _ => wait,
        }
        .max(Self::MIN_WAIT_MS)
    }

    /// The node the lease is for.
    pub const fn node(&self) -> u64 {
        self.node
    }

    /// The time fence: no ID at or before it.
    pub const fn fence_ms(&self) -> Option<u64> {
        self.fence_ms
    }

    /// The bound the service recorded last: no ID after it.
    pub const fn bound_ms(&self) -> u64 {
        self.bound_ms
    }

    /// The TTL the service answered last.
    pub const fn ttl_ms(&self) -> u64 {
        self.ttl_ms
    }

    /// The latest time admitted so far (what a renewal or the release reports as issued).
    pub const fn issued_ms(&self) -> Option<u64> {
        self.issued_ms
    }

    /// What a release reports as issued (`issued_up_to_ms`): the latest time admitted, else the
    /// fence (nothing issued: the node's record stays as it was), else 0 (a node never used).
    /// The service never lowers a record, so this can only keep or raise it.
    pub const fn release_up_to_ms(&self) -> u64 {
        match (self.issued_ms, self.fence_ms) {
            (Some(t), _) | (None, Some(t)) => t,
            (None, None) => 0,
        }
    }

    /// Whether the service answered that the lease is gone.
    pub const fn is_lost(&self) -> bool {
        self.lost
    }

    /// The monotonic time from which IDs are refused unless a renewal succeeds first;
    /// `None` once the lease is lost.
    pub const fn deadline(&self) -> Option<u64> {
        if self.lost {
            None
        } else {
            Some(self.deadline)
        }
    }

    /// How long after `mono_now` IDs are still admitted (0 once the deadline passed); `None`
    /// once the lease is lost.
    pub fn expires_in(&self, mono_now: u64) -> Option<u64> {
        self.deadline().map(|d| d.saturating_sub(mono_now))
    }

    /// A new holder's wait before its first ID, when the node's fence (its previous holder's
    /// recorded bound) is ahead of this host's wall clock at `now_ms`: ms until the first time
    /// a generator of `layout` can mint after the fence (the start of the tick after the
    /// fence's), or 0 when the node is ready. The node is *fenced*, no clock stepped: the holder
    /// waits (renewing, as ever), or gives the node back. [`Error::NodeFenced`] when the fence
    /// is more than twice the TTL ahead — the horizon lease stores keep by default, the
    /// furthest an honest previous holder's bound can be ahead of the clock: this host's clock
    /// is behind — beyond how far the service's own clock saw it ahead
    /// ([`service_time`](Self::service_time)). [`Error::LeaseLost`] once the lease is [lost](Self::lose): no wait is worth it,
    /// however long the fence is still ahead.
    pub fn fence_wait_ms(&self, now_ms: u64, layout: &Layout) -> Result<u64> {
        if self.lost {
            return Err(self.refusal(0));
        }
        let Some(fence) = self.fence_ms.filter(|&f| f >= now_ms) else {
            return Ok(0);
        };
        let limit = self
            .ttl_ms
            .saturating_mul(2)
            .saturating_add(self.fence_lead_ms);
        if fence - now_ms > limit {
            return Err(Error::NodeFenced {
                node: self.node,
                by_ms: fence - now_ms,
                fence_ms: fence,
            });
        }
        // The start of the tick after the fence's (1 ms after it for a 1 ms tick).
        let (epoch, tick) = (layout.epoch_ms(), layout.tick_ms());
        let ready = match fence.checked_sub(epoch) {
            Some(since) => {
                epoch.saturating_add((since / tick).saturating_add(1).saturating_mul(tick))
            }
            None => fence.saturating_add(1),
        };
        Ok(ready.saturating_sub(now_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    const SENT: u64 = 1_000;
    const FENCE: u64 = 1_700_000_000_000;
    const BOUND: u64 = FENCE + 40_000;

    /// A grant of node 5: TTL 30 s (deadline SENT + 29 s), renewal after 10 s.
    fn window() -> LeaseWindow {
        LeaseWindow::new(5, Some(FENCE), BOUND, SENT, 30_000, Some(10_000)).unwrap()
    }

    #[test]
    fn a_fence_ahead_of_the_clock_is_a_wait_up_to_twice_the_ttl() {
        let w = window();
        let ms = Layout::parse("time=41@1ms,node=10,seq=12,epoch=2020-01-01").unwrap();
        let s = Layout::parse("time=32@1s,node=10,seq=21,epoch=2020-01-01").unwrap();
        assert_eq!(w.fence_wait_ms(FENCE + 1, &ms), Ok(0));
        assert_eq!(w.fence_wait_ms(FENCE - 2_500, &ms), Ok(2_501));
        // A 1 s tick: the first ID comes from the tick after the fence's.
        assert_eq!(w.fence_wait_ms(FENCE - 2_500, &s), Ok(3_500));
        assert_eq!(w.fence_wait_ms(FENCE - 60_000, &ms), Ok(60_001));
        let e = w.fence_wait_ms(FENCE - 60_001, &ms).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ClockBackwards);
        assert!(e.to_string().contains("node 5 is fenced until"), "{e}");
        let unused = LeaseWindow::new(5, None, BOUND, SENT, 30_000, None).unwrap();
        assert_eq!(unused.fence_wait_ms(FENCE, &ms), Ok(0));
    }

    #[test]
    fn a_fence_the_service_holds_ahead_of_its_own_clock_is_waited_out() {
        let ms = Layout::parse("time=41@1ms,node=10,seq=12,epoch=2020-01-01").unwrap();
        // A store's lock delay: the fence 90 s ahead of the service's clock, whose answer said
        // so; this host's clock agrees with the service's, or lags a TTL behind it.
        let w = window().service_time(FENCE - 90_000);
        assert_eq!(w.fence_wait_ms(FENCE - 90_000, &ms), Ok(90_001));
        assert_eq!(w.fence_wait_ms(FENCE - 120_000, &ms), Ok(120_001));
        // Lagging more than twice the TTL behind the service's clock: refused, as before.
        let e = w.fence_wait_ms(FENCE - 150_001, &ms).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ClockBackwards);
        // Without the service's clock, or when it saw the fence behind it: twice the TTL.
        let w = window().service_time(FENCE + 5);
        assert!(w.fence_wait_ms(FENCE - 60_001, &ms).is_err());
        assert!(window().fence_wait_ms(FENCE - 90_000, &ms).is_err());
    }

    #[test]
    fn a_release_reports_the_latest_time_issued_else_the_fence() {
        let mut w = window();
        assert_eq!(w.release_up_to_ms(), FENCE, "nothing issued: the fence");
        w.admit(FENCE + 7, SENT + 1).unwrap();
        w.admit(FENCE + 3, SENT + 2).unwrap();
        assert_eq!(w.release_up_to_ms(), FENCE + 7, "the latest time admitted");
        let unused = LeaseWindow::new(5, None, BOUND, SENT, 30_000, None).unwrap();
        assert_eq!(unused.release_up_to_ms(), 0, "a node never used");
    }

    #[test]
    fn a_lost_lease_ends_a_fence_wait_with_its_error() {
        let mut w = window();
        let ms = Layout::parse("time=41@1ms,node=10,seq=12,epoch=2020-01-01").unwrap();
        w.lose();
        let e = w.fence_wait_ms(FENCE - 2_500, &ms).unwrap_err();
        assert_eq!(reason(e), "the service reported it superseded or expired");
        assert!(w.fence_wait_ms(FENCE + 1, &ms).is_err(), "ready, but lost");
    }

    fn reason(e: Error) -> &'static str {
        match e {
            Error::LeaseLost { node: 5, reason } => reason,
            e => panic!("not a LeaseLost of node 5: {e:?}"),
        }
    }

    #[test]
    fn admits_between_fence_and_bound_and_records_the_latest() {
        let mut w = window();
        assert_eq!(w.issued_ms(), None);
        w.admit(FENCE + 1, SENT).unwrap();
        w.admit(BOUND, SENT + 28_999).unwrap();
        w.admit(FENCE + 7, SENT).unwrap();
        assert_eq!(w.issued_ms(), Some(BOUND));
        // Without a fence (a node never used) any time up to the bound.
        let mut fresh = LeaseWindow::new(5, None, BOUND, SENT, 30_000, None).unwrap();
        fresh.admit(0, SENT).unwrap();
        assert_eq!(fresh.issued_ms(), Some(0));
    }

    #[test]
    fn refuses_at_or_before_the_fence() {
        let mut w = window();
        for (t, by) in [(FENCE, 0), (FENCE - 3, 3)] {
            assert_eq!(
                w.admit(t, SENT),
                Err(Error::ClockBackwards {
                    by_ms: by,
                    last_ms: FENCE
                })
            );
        }
        assert_eq!(w.issued_ms(), None);
    }

    #[test]
    fn refuses_past_the_bound_until_a_renewal_moves_it() {
        let mut w = window();
        let e = w.admit(BOUND + 1, SENT).unwrap_err();
        assert!(reason(e).contains("past the bound"), "{e}");
        assert_eq!(w.issued_ms(), None);
        w.renewed(BOUND + 10_000, SENT + 10_000, 30_000, None)
            .unwrap();
        w.admit(BOUND + 1, SENT + 10_000).unwrap();
    }

    #[test]
    fn refuses_from_the_deadline_on() {
        let mut w = window();
        assert_eq!(w.deadline(), Some(SENT + 29_000));
        assert_eq!(w.expires_in(SENT + 28_000), Some(1_000));
        w.admit(FENCE + 1, SENT + 28_999).unwrap();
        for now in [SENT + 29_000, SENT + 1_000_000] {
            let e = w.admit(FENCE + 2, now).unwrap_err();
            assert_eq!(reason(e), "not renewed before its deadline");
        }
        assert_eq!(w.expires_in(SENT + 30_000), Some(0));
        assert_eq!(w.issued_ms(), Some(FENCE + 1));
    }

    #[test]
    fn lost_is_for_good() {
        let mut w = window();
        w.lose();
        assert!(w.is_lost());
        assert_eq!(w.deadline(), None);
        assert_eq!(w.expires_in(SENT), None);
        let e = w.admit(FENCE + 1, SENT).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LeaseLost);
        assert!(reason(e).contains("superseded"));
        let e = w.renewed(BOUND + 1, SENT + 1, 30_000, None).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LeaseLost);
        assert!(w.admit(FENCE + 1, SENT + 2).is_err());
    }

    #[test]
    fn renewal_extends_from_its_send_time_and_replaces_the_bound() {
        let mut w = window();
        w.renewed(BOUND + 5_000, SENT + 20_000, 30_000, Some(10_000))
            .unwrap();
        assert_eq!(w.deadline(), Some(SENT + 49_000));
        assert_eq!(w.bound_ms(), BOUND + 5_000);
        w.admit(BOUND + 5_000, SENT + 48_999).unwrap();
        // The service's latest answer counts, even a shorter TTL or an earlier bound.
        w.renewed(BOUND + 1_000, SENT + 30_000, 2_000, None)
            .unwrap();
        assert_eq!((w.deadline(), w.ttl_ms()), (Some(SENT + 31_800), 2_000));
        assert!(w.admit(BOUND + 2_000, SENT + 30_000).is_err());
        assert!(w.admit(BOUND + 1_000, SENT + 31_800).is_err());
    }

    #[test]
    fn grants_that_permit_nothing_are_refused() {
        for bound in [FENCE, FENCE - 1] {
            let e = LeaseWindow::new(5, Some(FENCE), bound, SENT, 30_000, None).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidConfig);
        }
        let e = LeaseWindow::new(5, None, BOUND, SENT, 0, None).unwrap_err();
        assert_eq!(
            e,
            Error::InvalidConfig {
                reason: "lease ttl must be at least 1 ms"
            }
        );
        let mut w = window();
        assert!(w.renewed(FENCE, SENT + 1, 30_000, None).is_err());
        assert_eq!((w.bound_ms(), w.deadline()), (BOUND, Some(SENT + 29_000)));
    }

    #[test]
    fn safety_margin_is_a_tenth_up_to_a_second() {
        assert_eq!(LeaseWindow::safety_margin_ms(1_500), 150);
        assert_eq!(LeaseWindow::safety_margin_ms(10_000), 1_000);
        assert_eq!(LeaseWindow::safety_margin_ms(300_000), 1_000);
        assert_eq!(LeaseWindow::safety_margin_ms(5), 0);
    }

    #[test]
    fn renewals_are_due_when_asked_within_half_the_lease() {
        let w = window();
        assert_eq!(w.renew_in(SENT), 10_000);
        assert_eq!(w.renew_in(SENT + 4_000), 6_000);
        assert_eq!(w.renew_in(SENT + 20_000), 0);
        let at = |after| {
            LeaseWindow::new(5, None, BOUND, SENT, 30_000, after)
                .unwrap()
                .renew_in(SENT)
        };
        assert_eq!(at(None), 10_000); // a third of the TTL
        assert_eq!(at(Some(60_000)), 14_500); // half of TTL less margin
        assert_eq!(at(Some(0)), LeaseWindow::MIN_WAIT_MS);
        // A TTL too short for the floor: half the lease still wins.
        let tiny = LeaseWindow::new(5, None, BOUND, SENT, 20, Some(0)).unwrap();
        assert_eq!(tiny.renew_in(SENT), 9);
    }

    #[test]
    fn retries_come_sooner_as_the_deadline_nears() {
        let mut w = window();
        assert_eq!(w.retry_in(SENT, None), 3_000); // a tenth of the TTL
        assert_eq!(w.retry_in(SENT, Some(5_000)), 5_000); // the service's hint
        assert_eq!(w.retry_in(SENT + 27_000, Some(5_000)), 1_000); // half of the 2 s left
        assert_eq!(w.retry_in(SENT + 28_990, None), LeaseWindow::MIN_WAIT_MS);
        assert_eq!(w.retry_in(SENT + 29_000, Some(5_000)), 5_000); // stopped: no hurry
        assert_eq!(w.retry_in(SENT, Some(0)), LeaseWindow::MIN_WAIT_MS);
        w.lose();
        assert_eq!(w.retry_in(SENT, None), 3_000);
    }
}
