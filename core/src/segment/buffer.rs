//! [`SegmentBuffer`]: the double buffer of one key, sans-IO.

#[cfg(doc)]
use super::SegmentCursor;
use super::{
    key_seed, Batch, Checkpoint, Fetch, Range, Remainder, SegmentConfig, Stall, Take, GOLDEN, NONE,
};
use crate::error::{Error, Result};
use crate::snowflake::state::mix64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct InFlight {
    ticket: u64,
    /// The adapted step (without a batch's boost), adopted when the fetch succeeds.
    step: u64,
    requested_ms: u64,
}

enum Pop {
    Value(u64),
    Empty,
    Fenced,
}

/// The double buffer of one key; see the [module docs](super).
///
/// # Examples
/// ```
/// use idmint::segment::{Range, SegmentBuffer, SegmentConfig, Stall, Take};
///
/// let cfg = SegmentConfig::new().fixed_step(10).refill_at_percent(20);
/// let mut buf = SegmentBuffer::new(cfg)?;
/// let t = 0;
/// let Take::Fetch(f) = buf.next(t)? else { panic!("an empty buffer asks for a range") };
/// assert_eq!(buf.next(t)?, Take::Stall(Stall::InFlight)); // one fetch at a time
/// buf.supply(f, Range { start: 100, end: 110 }, t)?;
/// assert_eq!(buf.next(t)?, Take::Id(100));
/// // The second ID uses 20% of the range: the answer asks for the next one.
/// let Take::IdAndFetch(101, f) = buf.next(t)? else { panic!() };
/// buf.supply(f, Range { start: 500, end: 510 }, t)?;
/// let rest: Vec<u64> = (0..9).map(|_| match buf.next(t) {
///     Ok(Take::Id(v) | Take::IdAndFetch(v, _)) => v,
///     other => panic!("{other:?}"),
/// }).collect();
/// assert_eq!(rest, [102, 103, 104, 105, 106, 107, 108, 109, 500]);
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SegmentBuffer {
    cfg: SegmentConfig,
    /// Next unserved position of the current range `[cursor, end)`.
    cursor: u64,
    end: u64,
    /// Position in the current range at which the next fetch is due.
    mark: u64,
    standby: Range,
    /// Nothing at or above it is served (journal checkpoint); `u64::MAX` when unfenced.
    fence: u64,
    /// End of the highest range accepted; ranges starting below it are refused when ordered.
    floor: u64,
    step: u64,
    /// Request time of the last fetch that succeeded.
    last_request_ms: Option<u64>,
    in_flight: Option<InFlight>,
    next_ticket: u64,
    failures: u32,
    retry_at_ms: u64,
    rng: u64,
    /// Fast path bound: while `cursor < quiet`, the next value is `cursor` itself (no gap, no
    /// obfuscation, inside the current range, below the fence) and serving it asks for no
    /// fetch. Recomputed after every slow-path change.
    quiet: u64,
}

impl SegmentBuffer {
    /// An empty buffer for `cfg` (validated); the first call asks for a range.
    pub fn new(cfg: SegmentConfig) -> Result<SegmentBuffer> {
        cfg.validate()?;
        Ok(SegmentBuffer::build(cfg, cfg.seed))
    }

    /// Like [`new`](Self::new), with the gap seed mixed with `key`, so keys sharing one config
    /// get unrelated gap sequences.
    pub fn for_key(cfg: SegmentConfig, key: &str) -> Result<SegmentBuffer> {
        cfg.validate()?;
        Ok(SegmentBuffer::build(cfg, key_seed(cfg.seed, key)))
    }

    pub(super) fn build(cfg: SegmentConfig, seed: u64) -> SegmentBuffer {
        SegmentBuffer {
            cfg,
            cursor: 0,
            end: 0,
            mark: 0,
            standby: NONE,
            fence: u64::MAX,
            floor: 0,
            step: cfg.step,
            last_request_ms: None,
            in_flight: None,
            next_ticket: mix64(seed ^ 0x7365_676d_656e_7473),
            failures: 0,
            retry_at_ms: 0,
            rng: seed,
            quiet: 0,
        }
    }

    /// The config.
    pub const fn config(&self) -> &SegmentConfig {
        &self.cfg
    }

    /// The current step: what the next fetch asks for before adaptation.
    pub const fn step(&self) -> u64 {
        self.step
    }

    /// Whether a fetch is in flight.
    pub const fn fetching(&self) -> bool {
        self.in_flight.is_some()
    }

    /// How many unserved values the buffer holds (current rest plus standby), fenced or not.
    pub fn buffered(&self) -> u64 {
        self.end
            .saturating_sub(self.cursor)
            .saturating_add(self.standby.len())
    }

    /// The checkpoint fence, if a checkpoint recorded some of the buffered values.
    pub const fn fence(&self) -> Option<u64> {
        if self.fence == u64::MAX {
            None
        } else {
            Some(self.fence)
        }
    }

    /// How many buffered values can be served, in order, before the fence stops the buffer
    /// (all of them when unfenced): how soon a newer checkpoint is needed.
    pub fn headroom(&self) -> u64 {
        let current = Range {
            start: self.cursor,
            end: self.end,
        };
        let mut n = 0u64;
        for r in [current, self.standby] {
            if r.is_empty() {
                continue;
            }
            if r.start >= self.fence {
                break;
            }
            let stop = r.end.min(self.fence);
            n = n.saturating_add(stop - r.start);
            if stop < r.end {
                break;
            }
        }
        n
    }

    fn install(&mut self, r: Range) {
        self.cursor = r.start;
        self.end = r.end;
        let share = (u128::from(r.len()) * u128::from(self.cfg.refill_percent)).div_ceil(100);
        self.mark = r.start.saturating_add(share as u64);
    }

    fn gap(&mut self) -> u64 {
        if self.cfg.max_gap == 0 {
            return 0;
        }
        self.rng = self.rng.wrapping_add(GOLDEN);
        mix64(self.rng) % (self.cfg.max_gap + 1)
    }

    fn output(&self, v: u64) -> Result<u64> {
        match &self.cfg.obfuscator {
            Some(ob) => ob.encode(v),
            None => Ok(v),
        }
    }

    /// Takes the next value (gap applied, promoting the standby when the current runs out).
    /// An error leaves the cursor where it was.
    fn pop(&mut self) -> Result<Pop> {
        loop {
            if self.cursor < self.end {
                let v = self.cursor.saturating_add(self.gap());
                if v < self.end {
                    if v >= self.fence {
                        return Ok(Pop::Fenced);
                    }
                    let out = self.output(v)?;
                    self.cursor = v + 1;
                    return Ok(Pop::Value(out));
                }
                // The gap skipped past the end: the rest of this range is burned.
                self.cursor = self.end;
            }
            if self.standby.is_empty() {
                return Ok(Pop::Empty);
            }
            let next = self.standby;
            self.standby = NONE;
            self.install(next);
        }
    }

    fn refresh_quiet(&mut self) {
        self.quiet = if self.cfg.max_gap != 0 || self.cfg.obfuscator.is_some() {
            0
        } else if self.in_flight.is_none() && self.standby.is_empty() {
            // Serving `v` makes the cursor `v + 1`; a fetch may become due once it reaches
            // the mark.
            self.end.min(self.fence).min(self.mark.saturating_sub(1))
        } else {
            self.end.min(self.fence)
        };
    }

    fn fetch_due(&self, now_ms: u64) -> bool {
        self.in_flight.is_none()
            && self.standby.is_empty()
            && self.cursor >= self.mark
            && now_ms >= self.retry_at_ms
    }

    /// Opens a fetch: adapts the step to the time since the last successful request and asks
    /// for at least `want` values (within the bounds).
    fn request(&mut self, now_ms: u64, want: u64) -> Fetch {
        let mut step = self.step;
        if let Some(prev) = self.last_request_ms {
            if now_ms >= prev {
                let lasted = now_ms - prev;
                if lasted < self.cfg.fast_ms {
                    step = step.saturating_mul(2).min(self.cfg.max_step);
                } else if lasted > self.cfg.slow_ms {
                    step = (step / 2).max(self.cfg.min_step);
                }
            }
        }
        let ask = step.max(want.min(self.cfg.max_step));
        let ticket = self.next_ticket;
        self.next_ticket = self.next_ticket.wrapping_add(1);
        self.in_flight = Some(InFlight {
            ticket,
            step,
            requested_ms: now_ms,
        });
        Fetch { step: ask, ticket }
    }

    fn stall(&self) -> Stall {
        if self.in_flight.is_some() {
            Stall::InFlight
        } else {
            Stall::RetryAt {
                until_ms: self.retry_at_ms,
            }
        }
    }

    /// The next ID at `now_ms`, with a fetch to start when the refill threshold is crossed or
    /// the buffer is empty. Errors: [`Error::OutOfRange`] when the next value lies outside
    /// the obfuscator's domain (nothing is consumed).
    #[inline]
    pub fn next(&mut self, now_ms: u64) -> Result<Take> {
        let v = self.cursor;
        if v < self.quiet {
            self.cursor = v + 1;
            return Ok(Take::Id(v));
        }
        let r = self.next_slow(now_ms);
        self.refresh_quiet();
        r
    }

    /// The next ID if serving it needs no decision — no fetch becomes due, nothing is fenced,
    /// skipped or obfuscated — else `None` (call [`next`](Self::next)). Lets a driver skip
    /// reading its clock on the hot path.
    #[inline]
    pub fn next_if_quiet(&mut self) -> Option<u64> {
        let v = self.cursor;
        if v < self.quiet {
            self.cursor = v + 1;
            Some(v)
        } else {
            None
        }
    }

    /// The values the buffer would serve next without any decision — no fetch becomes due,
    /// nothing is fenced, skipped or obfuscated: `[cursor, quiet)`, empty when the next value
    /// needs [`next`](Self::next). A driver may hand them out through a [`SegmentCursor`]
    /// window, then report what was taken with [`consume_quiet`](Self::consume_quiet) before
    /// it calls anything else on the buffer.
    ///
    /// # Examples
    /// ```
    /// use idmint::segment::{Range, SegmentBuffer, SegmentConfig, Take};
    ///
    /// let mut buf = SegmentBuffer::new(SegmentConfig::new().fixed_step(100).refill_at_percent(50))?;
    /// let Take::Fetch(f) = buf.next(0)? else { panic!() };
    /// buf.supply(f, Range { start: 1, end: 101 }, 0)?;
    /// // Serving 50 makes the next fetch due (the refill mark is 51): 1..=49 need no decision.
    /// assert_eq!(buf.quiet_range(), Range { start: 1, end: 50 });
    /// buf.consume_quiet(Range { start: 1, end: 11 })?; // ten of them were handed out
    /// assert_eq!(buf.next(0)?, Take::Id(11));
    /// # Ok::<(), idmint::Error>(())
    /// ```
    pub fn quiet_range(&self) -> Range {
        Range {
            start: self.cursor,
            end: self.quiet.max(self.cursor),
        }
    }

    /// Marks `served` as handed out: it must be a prefix of [`quiet_range`](Self::quiet_range)
    /// (an empty range is always accepted). Anything else is [`Error::InvalidConfig`] and
    /// changes nothing.
    pub fn consume_quiet(&mut self, served: Range) -> Result<()> {
        if served.is_empty() {
            return Ok(());
        }
        if served.start != self.cursor || served.end > self.quiet {
            return Err(Error::InvalidConfig {
                reason: "consumed values are not a prefix of the segment buffer's quiet run",
            });
        }
        self.cursor = served.end;
        Ok(())
    }

    fn next_slow(&mut self, now_ms: u64) -> Result<Take> {
        let pop = self.pop()?;
        let fetch = if self.fetch_due(now_ms) {
            Some(self.request(now_ms, 1))
        } else {
            None
        };
        Ok(match (pop, fetch) {
            (Pop::Value(v), None) => Take::Id(v),
            (Pop::Value(v), Some(f)) => Take::IdAndFetch(v, f),
            (_, Some(f)) => Take::Fetch(f),
            (Pop::Fenced, None) => Take::Stall(Stall::Fenced),
            (Pop::Empty, None) => Take::Stall(self.stall()),
        })
    }

    /// Fills `out` with as many IDs as the buffers hold (in order), then asks for a fetch if
    /// one is due; a fetch asked because the buffers ran dry asks for at least the shortfall
    /// (within the step bounds), so a batch of 100,000 needs few round trips.
    ///
    /// Errors like [`next`](Self::next); on an error the values already written to `out` are
    /// consumed and never served again.
    pub fn take_into(&mut self, out: &mut [u64], now_ms: u64) -> Result<Batch> {
        let r = self.take_into_inner(out, now_ms);
        self.refresh_quiet();
        r
    }

    fn take_into_inner(&mut self, out: &mut [u64], now_ms: u64) -> Result<Batch> {
        let mut filled = 0usize;
        let mut stall = None;
        while filled < out.len() {
            if self.cfg.max_gap == 0 && self.cursor < self.end {
                // A run without gaps: copy consecutive values.
                let limit = self.end.min(self.fence);
                if self.cursor >= limit {
                    stall = Some(Stall::Fenced);
                    break;
                }
                let room = (out.len() - filled) as u64;
                let mut n = (limit - self.cursor).min(room);
                if let Some(ob) = &self.cfg.obfuscator {
                    // Fails when the next value lies outside the domain (nothing consumed).
                    ob.encode(self.cursor)?;
                    n = n.min(ob.max() - self.cursor + 1);
                }
                let run = out.get_mut(filled..filled + n as usize).unwrap_or(&mut []);
                for (slot, v) in run.iter_mut().zip(self.cursor..) {
                    *slot = v;
                }
                if let Some(ob) = &self.cfg.obfuscator {
                    for slot in run.iter_mut() {
                        *slot = ob.encode(*slot)?;
                    }
                }
                self.cursor += n;
                filled += n as usize;
                continue;
            }
            match self.pop()? {
                Pop::Value(v) => {
                    if let Some(slot) = out.get_mut(filled) {
                        *slot = v;
                    }
                    filled += 1;
                }
                Pop::Fenced => {
                    stall = Some(Stall::Fenced);
                    break;
                }
                Pop::Empty => {
                    stall = Some(Stall::InFlight);
                    break;
                }
            }
        }
        let fetch = if self.fetch_due(now_ms) {
            let want = (out.len() - filled) as u64;
            Some(self.request(now_ms, want))
        } else {
            None
        };
        if stall == Some(Stall::InFlight) && fetch.is_none() {
            stall = Some(self.stall());
        }
        Ok(Batch {
            filled,
            fetch,
            stall,
        })
    }

    fn claim(&mut self, fetch: Fetch) -> Result<InFlight> {
        match self.in_flight {
            Some(f) if f.ticket == fetch.ticket => {
                self.in_flight = None;
                Ok(f)
            }
            _ => Err(Error::InvalidConfig {
                reason: "this fetch is not the one in flight for this segment buffer",
            }),
        }
    }

    fn note_failure(&mut self, now_ms: u64) {
        self.failures = self.failures.saturating_add(1);
        let shift = (self.failures - 1).min(63);
        let delay = self
            .cfg
            .retry_min_ms
            .checked_shl(shift)
            .filter(|d| d >> shift == self.cfg.retry_min_ms)
            .unwrap_or(u64::MAX)
            .min(self.cfg.retry_max_ms);
        self.retry_at_ms = now_ms.saturating_add(delay);
    }

    /// Settles `fetch` with the range the store returned: it becomes the standby (or the
    /// current range if that is used up). The step the fetch was sized with becomes the
    /// current step.
    ///
    /// Refused — and counted as a failed fetch — when the range is empty, or (when
    /// [ordered](SegmentConfig::ordered)) starts below the end of a range this buffer accepted
    /// before ([`Error::InvalidConfig`]: the store went back). A `fetch` that is not the one in
    /// flight is refused without changing anything.
    pub fn supply(&mut self, fetch: Fetch, range: Range, now_ms: u64) -> Result<()> {
        let r = self.supply_inner(fetch, range, now_ms);
        self.refresh_quiet();
        r
    }

    fn supply_inner(&mut self, fetch: Fetch, range: Range, now_ms: u64) -> Result<()> {
        let f = self.claim(fetch)?;
        if range.is_empty() {
            self.note_failure(now_ms);
            return Err(Error::InvalidConfig {
                reason: "the segment store returned an empty range",
            });
        }
        if self.cfg.ordered && range.start < self.floor {
            self.note_failure(now_ms);
            return Err(Error::InvalidConfig {
                reason: "the segment store returned a range below one it handed out before",
            });
        }
        self.floor = self.floor.max(range.end);
        self.step = f.step;
        self.last_request_ms = Some(f.requested_ms);
        self.failures = 0;
        self.retry_at_ms = 0;
        // A fetch is only asked while the standby is empty, and nothing else fills it while
        // the fetch is in flight, so the standby is free here.
        if self.cursor >= self.end && self.standby.is_empty() {
            self.install(range);
        } else {
            self.standby = range;
        }
        Ok(())
    }

    /// Settles `fetch` as failed: no new fetch is asked until the retry backoff has passed,
    /// then the next call asks again.
    pub fn fail(&mut self, fetch: Fetch, now_ms: u64) -> Result<()> {
        let r = self.fail_inner(fetch, now_ms);
        self.refresh_quiet();
        r
    }

    fn fail_inner(&mut self, fetch: Fetch, now_ms: u64) -> Result<()> {
        self.claim(fetch)?;
        self.note_failure(now_ms);
        Ok(())
    }

    /// The unserved values, without changing anything.
    pub fn remainder(&self) -> Remainder {
        let mut rem = Remainder::default();
        rem.push(Range {
            start: self.cursor,
            end: self.end,
        });
        rem.push(self.standby);
        rem
    }

    /// Takes the unserved values out: the buffer serves nothing more until a range is supplied
    /// or resumed. For a clean shutdown — record the result in the journal.
    pub fn drain(&mut self) -> Remainder {
        let r = self.drain_inner();
        self.refresh_quiet();
        r
    }

    fn drain_inner(&mut self) -> Remainder {
        let rem = self.remainder();
        self.cursor = self.end;
        self.standby = NONE;
        rem
    }

    /// Restores values a journal recorded (at most two disjoint ranges, as
    /// [`remainder`](Self::remainder) gave them; empty ones are skipped): the first becomes
    /// current, the second the standby. The buffer must be empty with no fetch in flight, and
    /// when [ordered](SegmentConfig::ordered) the ranges must ascend, above any range it
    /// accepted before; otherwise [`Error::InvalidConfig`].
    pub fn resume(&mut self, ranges: &[Range]) -> Result<()> {
        let r = self.resume_inner(ranges);
        self.refresh_quiet();
        r
    }

    fn resume_inner(&mut self, ranges: &[Range]) -> Result<()> {
        let bad = |reason| Err(Error::InvalidConfig { reason });
        if self.in_flight.is_some() || self.cursor < self.end || !self.standby.is_empty() {
            return bad("resume needs an empty segment buffer with no fetch in flight");
        }
        let mut rem = Remainder::default();
        let mut floor = self.floor;
        for r in ranges.iter().filter(|r| !r.is_empty()) {
            if rem.len == 2 {
                return bad("a segment buffer resumes at most two ranges");
            }
            let overlaps = rem
                .ranges()
                .iter()
                .any(|p| r.start < p.end && p.start < r.end);
            if overlaps || (self.cfg.ordered && r.start < floor) {
                return bad("resumed segment ranges must be disjoint (and ascend, when ordered)");
            }
            floor = floor.max(r.end);
            rem.push(*r);
        }
        let [first, second] = rem.ranges;
        if !first.is_empty() {
            self.install(first);
        }
        self.standby = second;
        self.floor = floor;
        Ok(())
    }

    /// First phase of a journal checkpoint: keeps the next `reserve` unserved values (in
    /// serving order) servable and returns the buffered values that lie above all of them, to
    /// be recorded; the fence drops to the smallest recorded value (if it is not lower
    /// already), so nothing recorded is served while the record is written. Once the record
    /// is durable and has replaced every older one, call [`end_checkpoint`](Self::end_checkpoint);
    /// if writing fails, leave the fence where it is (safe: it only holds values back).
    ///
    /// With ascending ranges the record is exactly everything beyond the reserve. With
    /// [unordered](SegmentConfig::ordered) ranges, values beyond the reserve but below its
    /// highest value are left out of the record (a crash loses them rather than risking them).
    pub fn begin_checkpoint(&mut self, reserve: u64) -> Checkpoint {
        let r = self.begin_checkpoint_inner(reserve);
        self.refresh_quiet();
        r
    }

    fn begin_checkpoint_inner(&mut self, reserve: u64) -> Checkpoint {
        let parts = [
            Range {
                start: self.cursor,
                end: self.end,
            },
            self.standby,
        ];
        // The threshold: one above the highest reserved value (or the lowest buffered value
        // when nothing is reserved). Everything recorded lies at or above it.
        let mut left = reserve;
        let mut above_reserve: Option<u64> = None;
        let mut lowest = u64::MAX;
        for r in parts.iter().filter(|r| !r.is_empty()) {
            lowest = lowest.min(r.start);
            if left > 0 {
                let take = left.min(r.len());
                left -= take;
                above_reserve = Some(above_reserve.unwrap_or(0).max(r.start + take));
            }
        }
        let threshold = above_reserve.unwrap_or(lowest);
        let mut rem = Remainder::default();
        let mut fence = u64::MAX;
        for r in parts.iter().filter(|r| !r.is_empty()) {
            let start = r.start.max(threshold);
            if start < r.end {
                rem.push(Range { start, end: r.end });
                fence = fence.min(start);
            }
        }
        self.fence = self.fence.min(fence);
        Checkpoint {
            remainder: rem,
            fence,
        }
    }

    /// Second phase: the checkpoint's record is durable and replaced every older one, so the
    /// fence moves to the checkpoint's (values below it are free to serve).
    pub fn end_checkpoint(&mut self, checkpoint: Checkpoint) {
        self.fence = checkpoint.fence;
        self.refresh_quiet();
    }
}
