//! Counters a generator keeps for observability. They are touched only on the rare paths
//! (rollback, exhaustion, waiting), never on the hot path.

use crate::error::Error;
use crate::snowflake::state::Notes;

#[cfg(not(loom))]
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};
#[cfg(loom)]
use loom::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// A snapshot of a generator's counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Stats {
    /// Calls that found the clock behind the last issued tick (beyond any borrow allowance).
    pub rollbacks: u64,
    /// Total waiting asked of callers through [`Error::WouldBlock`], in ms.
    pub wait_ms: u64,
    /// Furthest the generator's tick has run ahead of the clock (borrow, logical), in ms.
    pub max_ahead_ms: u64,
    /// Times a tick's sequence ran out.
    pub exhaustions: u64,
}

impl Stats {
    pub(crate) fn record<T>(
        &mut self,
        notes: &Notes,
        result: &Result<T, Error>,
        now_ms: u64,
        tick_ms: u64,
    ) {
        self.rollbacks += u64::from(notes.rollback);
        self.exhaustions += u64::from(notes.exhausted);
        self.max_ahead_ms = self
            .max_ahead_ms
            .max(notes.ahead_ticks.saturating_mul(tick_ms));
        if let Err(Error::WouldBlock { until_ms }) = result {
            self.wait_ms = self.wait_ms.saturating_add(until_ms.saturating_sub(now_ms));
        }
    }
}

/// [`Stats`] shared between threads.
#[derive(Debug, Default)]
pub(crate) struct AtomicStats {
    rollbacks: AtomicU64,
    wait_ms: AtomicU64,
    max_ahead_ms: AtomicU64,
    exhaustions: AtomicU64,
}

impl AtomicStats {
    #[inline]
    pub(crate) fn record<T>(
        &self,
        notes: &Notes,
        result: &Result<T, Error>,
        now_ms: u64,
        tick_ms: u64,
    ) {
        if notes.rollback {
            self.rollbacks.fetch_add(1, Relaxed);
        }
        if notes.exhausted {
            self.exhaustions.fetch_add(1, Relaxed);
        }
        if notes.ahead_ticks > 0 {
            self.max_ahead_ms
                .fetch_max(notes.ahead_ticks.saturating_mul(tick_ms), Relaxed);
        }
        if let Err(Error::WouldBlock { until_ms }) = result {
            self.wait_ms
                .fetch_add(until_ms.saturating_sub(now_ms), Relaxed);
        }
    }

    pub(crate) fn snapshot(&self) -> Stats {
        Stats {
            rollbacks: self.rollbacks.load(Relaxed),
            wait_ms: self.wait_ms.load(Relaxed),
            max_ahead_ms: self.max_ahead_ms.load(Relaxed),
            exhaustions: self.exhaustions.load(Relaxed),
        }
    }
}
