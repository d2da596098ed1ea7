//! Request and ID rates over the last minutes, for the monitor page's chart: a ring of
//! per-interval counts updated with a few relaxed atomics on the request path (no lock).
//!
//! Each slot holds the number of the interval it counts; the first request of a new interval
//! claims the slot (compare-and-swap) and clears it. A request racing that claim may land in
//! the count just before it is cleared, so the counts can miss a few requests at interval
//! boundaries: fine for a chart, and the Prometheus counters stay exact.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Length of one interval.
pub const INTERVAL: Duration = Duration::from_secs(10);
/// Complete intervals shown (10 minutes).
pub const SHOWN: usize = 60;
/// One more slot than shown, for the interval in progress.
const SLOTS: usize = SHOWN + 1;

#[derive(Default)]
struct Slot {
    /// The interval this slot counts, plus one (0: never used).
    interval: AtomicU64,
    requests: AtomicU64,
    ids: AtomicU64,
}

/// The counts of one interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    /// Its start, ms since the Unix epoch.
    pub start_unix_ms: u64,
    /// How much of it has passed, ms: [`INTERVAL`] for a complete one.
    pub elapsed_ms: u64,
    /// Requests that issued IDs.
    pub requests: u64,
    /// IDs issued.
    pub ids: u64,
}

/// The ring of recent intervals.
pub struct Rates {
    start: Instant,
    start_unix_ms: u64,
    slots: [Slot; SLOTS],
}

impl Default for Rates {
    fn default() -> Self {
        Rates::new()
    }
}

impl Rates {
    /// An empty ring starting now.
    pub fn new() -> Rates {
        Rates {
            start: Instant::now(),
            start_unix_ms: crate::clock::now_ms(),
            slots: std::array::from_fn(|_| Slot::default()),
        }
    }

    fn interval_at(&self, at: Instant) -> u64 {
        (at.saturating_duration_since(self.start).as_millis() / INTERVAL.as_millis()) as u64
    }

    /// Counts one request that issued `ids` IDs.
    #[inline]
    pub fn record(&self, ids: u64) {
        self.record_at(Instant::now(), ids);
    }

    #[inline]
    fn record_at(&self, at: Instant, ids: u64) {
        let n = self.interval_at(at);
        let slot = &self.slots[(n % SLOTS as u64) as usize];
        let tag = n + 1;
        let seen = slot.interval.load(Ordering::Relaxed);
        if seen != tag
            && slot
                .interval
                .compare_exchange(seen, tag, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        {
            slot.requests.store(0, Ordering::Relaxed);
            slot.ids.store(0, Ordering::Relaxed);
        }
        slot.requests.fetch_add(1, Ordering::Relaxed);
        slot.ids.fetch_add(ids, Ordering::Relaxed);
    }

    /// The last [`SHOWN`] complete intervals, oldest first (those before the service started
    /// are left out), then the one in progress.
    pub fn recent(&self) -> Vec<Interval> {
        self.recent_at(Instant::now())
    }

    fn recent_at(&self, at: Instant) -> Vec<Interval> {
        let now = self.interval_at(at);
        let first = now.saturating_sub(SHOWN as u64);
        let interval_ms = INTERVAL.as_millis() as u64;
        let into_now = (at.saturating_duration_since(self.start).as_millis() as u64) % interval_ms;
        (first..=now)
            .map(|n| {
                let slot = &self.slots[(n % SLOTS as u64) as usize];
                let (requests, ids) = if slot.interval.load(Ordering::Acquire) == n + 1 {
                    (
                        slot.requests.load(Ordering::Relaxed),
                        slot.ids.load(Ordering::Relaxed),
                    )
                } else {
                    (0, 0)
                };
                Interval {
                    start_unix_ms: self.start_unix_ms + n * interval_ms,
                    elapsed_ms: if n == now { into_now } else { interval_ms },
                    requests,
                    ids,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_land_in_their_interval_and_a_reused_slot_starts_from_zero() {
        let r = Rates::new();
        let at = |n: u32| r.start + INTERVAL * n + Duration::from_millis(1);
        r.record_at(at(0), 5);
        r.record_at(at(0), 1);
        let now = r.recent_at(at(0));
        assert_eq!(now.len(), 1, "only the interval in progress");
        assert_eq!((now[0].requests, now[0].ids, now[0].elapsed_ms), (2, 6, 1));
        r.record_at(at(2), 7);
        let shown = r.recent_at(at(3));
        let counts: Vec<(u64, u64)> = shown.iter().map(|i| (i.requests, i.ids)).collect();
        assert_eq!(counts, [(2, 6), (0, 0), (1, 7), (0, 0)]);
        assert_eq!(shown[1].start_unix_ms, r.start_unix_ms + 10_000);
        assert_eq!(shown[1].elapsed_ms, 10_000);
        // The slot of interval 0 serves interval SLOTS next: it starts from zero, and
        // interval 0 is no longer shown.
        let later = SLOTS as u32;
        r.record_at(at(later), 1);
        let shown = r.recent_at(at(later + 1));
        assert_eq!(shown.len(), SHOWN + 1);
        assert_eq!((shown[SHOWN - 1].requests, shown[SHOWN - 1].ids), (1, 1));
        assert_eq!((shown[0].requests, shown[0].ids), (1, 7), "interval 2");
        assert!(
            shown[1..SHOWN - 1].iter().all(|i| i.requests == 0),
            "{shown:?}"
        );
    }
}
