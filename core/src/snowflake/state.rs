//! The Snowflake state machine as a pure function over one packed `u64`.
//!
//! Both generator forms run this same code: [`LocalSnowflake`](crate::LocalSnowflake) stores the
//! word in a plain field, [`AtomicSnowflake`](crate::AtomicSnowflake) in an `AtomicU64` updated
//! by compare-and-swap. That is what makes their results identical.
//!
//! State word, least significant first: `seq | phase | counter | mark | tick+1`.
//! `tick+1 == 0` means nothing was issued yet. `phase` is the vibration offset, `counter` the
//! rollback counter, `mark` where the previous rollback epoch's high-water tick lies relative to
//! the current tick (biased by `B`, clamped at 0 which is the conservative side).

use crate::error::{Error, Result};
use crate::snowflake::layout::mask;
use crate::snowflake::policy::{Config, OnBackwards, OnExhausted, SequenceStart};

/// A run of IDs reserved in one step: `first`, `first + stride`, ..., `count` of them.
///
/// The stride is `1 << (sequence field shift)`: 1 when the sequence is the lowest field, larger
/// for layouts like Sonyflake's that put the machine id below the sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Run {
    /// The first ID of the run.
    pub first: u64,
    /// How many IDs the run holds (at least 1).
    pub count: u64,
    /// Distance between consecutive IDs of the run.
    pub stride: u64,
}

impl Run {
    /// The `i`-th ID of the run (`i < count`).
    pub const fn get(&self, i: u64) -> u64 {
        self.first + i * self.stride
    }

    /// The last ID of the run.
    pub const fn last(&self) -> u64 {
        self.get(self.count - 1)
    }

    /// Iterates the run's IDs in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.count).map(move |i| self.get(i))
    }
}

/// Fills `out` from successive reservations of at most the remaining length. Stops at the first
/// error and returns how many were written with that error, so each caller decides whether a
/// partial batch is a success (the sans-IO forms) or not (the waiting front door).
pub(crate) fn fill_from_runs(
    out: &mut [u64],
    mut reserve: impl FnMut(u64) -> Result<Run>,
) -> (usize, Option<Error>) {
    let mut filled = 0;
    while filled < out.len() {
        match reserve((out.len() - filled) as u64) {
            Ok(run) => {
                // A plain loop, not a zip over `run.iter()`: at `opt-level = "z"` (the wasm
                // build) the zip stays an out-of-line `next` call per ID, several times slower.
                let end = filled + run.count as usize;
                let mut id = run.first;
                for slot in &mut out[filled..end] {
                    *slot = id;
                    id = id.wrapping_add(run.stride);
                }
                filled = end;
            }
            Err(e) => return (filled, Some(e)),
        }
    }
    (filled, None)
}

/// The sans-IO batch contract: a partial batch is a success; an error only if nothing was written.
pub(crate) fn partial_ok((filled, err): (usize, Option<Error>)) -> Result<usize> {
    match err {
        Some(e) if filled == 0 => Err(e),
        _ => Ok(filled),
    }
}

/// What a step observed, for the generator's counters.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Notes {
    pub rollback: bool,
    pub exhausted: bool,
    pub ahead_ticks: u64,
}

#[derive(Debug, Clone, Copy)]
struct St {
    tick1: u64,
    seq: u64,
    phase: u64,
    counter: u64,
    mark: u64,
}

/// Layout- and policy-derived constants for [`Packing::step`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Packing {
    epoch_ms: u64,
    tick_ms: u64,
    max_time: u64,
    end_ms: u64,
    max_seq: u64,
    time_shift: u8,
    seq_shift: u8,
    rb_shift: u8,
    node_placed: u64,
    seq_bits: u8,
    phase_shift: u8,
    phase_mask: u64,
    counter_shift: u8,
    counter_mask: u64,
    mark_shift: u8,
    mark_mask: u64,
    mark_bias: u64,
    tick_shift: u8,
    on_backwards: OnBackwards,
    on_exhausted: OnExhausted,
    start: SequenceStart,
    seed: u64,
    absorb: u64,
    initial: u64,
    fence_tick1: u64,
}

const fn bits_for(v: u64) -> u8 {
    (64 - v.leading_zeros()) as u8
}

/// SplitMix64's finalizer: a fast, well-mixed function of (seed, tick) for random starts.
pub(crate) const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

// Defined here rather than in `policy`, so that the policies do not depend on the packing
// that implements them.
impl Config {
    /// The deepest step back (in ticks) `rollback_counter` can bridge with this layout, or
    /// `None` for other policies or when the generator state does not fit.
    pub fn max_rollback_ticks(&self) -> Option<u64> {
        match self.on_backwards {
            OnBackwards::RollbackCounter => Packing::new(self).ok().map(|p| p.rollback_depth()),
            _ => None,
        }
    }
}

impl Packing {
    /// Validates `cfg` and computes the packing; fails if the state does not fit 64 bits.
    pub(crate) fn new(cfg: &Config) -> Result<Packing> {
        let l = &cfg.layout;
        let bad = |reason| Err(Error::InvalidConfig { reason });
        let time = l.time_field();
        let seq = l.sequence_field();
        let max_seq = seq.max();
        let phase_bits = match cfg.sequence_start {
            SequenceStart::Vibrate { max_offset } => {
                if max_offset == 0 || u64::from(max_offset) > max_seq {
                    return bad("vibrate offset must be 1..=255 and below the sequence range");
                }
                bits_for(u64::from(max_offset) + 1)
            }
            _ => 0,
        };
        let rb_field = l.rollback_field();
        let counter_bits = match (cfg.on_backwards, rb_field) {
            (OnBackwards::RollbackCounter, Some(f)) => f.bits,
            (OnBackwards::RollbackCounter, None) => {
                return bad("rollback_counter needs a layout with a rollback field (e.g. rollback=2 in the spec)")
            }
            _ => 0,
        };
        match cfg.on_backwards {
            OnBackwards::Ring { ticks } => {
                if !(2..=65_536).contains(&ticks) {
                    return bad("ring size must be 2..=65536 ticks");
                }
                if !cfg!(feature = "alloc") {
                    return bad("the ring policy needs the alloc feature");
                }
                if matches!(cfg.sequence_start, SequenceStart::Vibrate { .. }) {
                    return bad(
                        "the ring policy keeps no vibration state; use zero or random starts",
                    );
                }
                if matches!(cfg.on_exhausted, OnExhausted::Borrow { .. }) {
                    return bad("the ring policy cannot borrow future ticks (their slots would collide); use wait or fail");
                }
            }
            OnBackwards::Wait { max_ms } | OnBackwards::Logical { max_ms } if max_ms == 0 => {
                return bad("wait and logical bounds must be at least 1 ms");
            }
            _ => {}
        }
        if let OnExhausted::Borrow { max_ticks } = cfg.on_exhausted {
            if max_ticks == 0 {
                return bad("borrow bound must be at least 1 tick");
            }
        }
        let used = u32::from(time.bits)
            + 1
            + u32::from(seq.bits)
            + u32::from(phase_bits)
            + u32::from(counter_bits);
        if used > 64 {
            return bad("layout leaves no room for the generator state (time bits + sequence bits must be at most 63)");
        }
        let mark_bits = if counter_bits > 0 {
            let spare = 64 - used;
            if spare < 2 {
                return bad("rollback_counter needs at least 2 spare state bits; use fewer time or sequence bits");
            }
            spare.min(40) as u8
        } else {
            0
        };
        // Checked last, so a config's own mistakes are reported before the missing node.
        let node_placed = l.node_to_bits(cfg.node.ok_or(Error::NodeRequired)?)?;
        let phase_shift = seq.bits;
        let counter_shift = phase_shift + phase_bits;
        let mark_shift = counter_shift + counter_bits;
        let tick_shift = mark_shift + mark_bits;
        let mut p = Packing {
            epoch_ms: l.epoch_ms(),
            tick_ms: l.tick_ms(),
            max_time: time.max(),
            end_ms: l.lifetime_end_ms(),
            max_seq,
            time_shift: time.shift,
            seq_shift: seq.shift,
            rb_shift: rb_field.map_or(0, |f| f.shift),
            node_placed,
            seq_bits: seq.bits,
            phase_shift,
            phase_mask: mask(phase_bits),
            counter_shift,
            counter_mask: mask(counter_bits),
            mark_shift,
            mark_mask: mask(mark_bits),
            mark_bias: if mark_bits > 0 {
                1 << (mark_bits - 1)
            } else {
                0
            },
            tick_shift,
            on_backwards: cfg.on_backwards,
            on_exhausted: cfg.on_exhausted,
            start: cfg.sequence_start,
            seed: cfg.seed,
            absorb: match cfg.on_exhausted {
                OnExhausted::Borrow { max_ticks } => max_ticks,
                _ => 0,
            },
            initial: 0,
            fence_tick1: 0,
        };
        if let Some(f) = cfg.fence_ms {
            if f >= p.epoch_ms {
                let t = ((f - p.epoch_ms) / p.tick_ms).min(p.max_time);
                p.fence_tick1 = t + 1;
                // mark = B puts the previous epochs' high-water mark at the fence itself, so
                // rollback_counter cannot open an epoch at or below it either.
                p.initial = p.pack(St {
                    tick1: t + 1,
                    seq: max_seq,
                    phase: 0,
                    counter: 0,
                    mark: p.mark_bias,
                });
            }
        }
        Ok(p)
    }

    /// The node bits to OR into every run (`Run::first` from [`step`](Self::step) has none).
    pub(crate) const fn node_placed(&self) -> u64 {
        self.node_placed
    }

    /// The latest tick any ID issued from state `s` carries, fence included (`None`: nothing
    /// issued and no fence). With `rollback_counter` an earlier epoch may lie above the current
    /// tick; `mark` remembers where.
    pub(crate) fn high_water_tick(&self, s: u64) -> Option<u64> {
        let st = self.unpack(s);
        let last = st.tick1.checked_sub(1)?;
        Some(last + st.mark.saturating_sub(self.mark_bias))
    }

    /// The state a new generator starts from (empty, or fenced).
    pub(crate) const fn initial(&self) -> u64 {
        self.initial
    }

    /// Deepest step back `rollback_counter` can bridge, in ticks.
    pub(crate) const fn rollback_depth(&self) -> u64 {
        self.mark_bias.saturating_sub(1)
    }

    pub(crate) const fn stride(&self) -> u64 {
        1 << self.seq_shift
    }

    pub(crate) const fn tick_start(&self, tick: u64) -> u64 {
        self.epoch_ms
            .saturating_add(tick.saturating_mul(self.tick_ms))
    }

    #[inline]
    pub(crate) fn tick(&self, now_ms: u64) -> Result<u64> {
        if now_ms < self.epoch_ms {
            return Err(Error::BeforeEpoch {
                now_ms,
                epoch_ms: self.epoch_ms,
            });
        }
        let d = now_ms - self.epoch_ms;
        let t = if self.tick_ms == 1 {
            d
        } else {
            d / self.tick_ms
        };
        if t > self.max_time {
            return Err(Error::LayoutExpired {
                end_ms: self.end_ms,
            });
        }
        Ok(t)
    }

    #[inline]
    fn unpack(&self, s: u64) -> St {
        St {
            seq: s & mask(self.seq_bits),
            phase: (s >> self.phase_shift) & self.phase_mask,
            counter: (s >> self.counter_shift) & self.counter_mask,
            mark: (s >> self.mark_shift) & self.mark_mask,
            tick1: if self.tick_shift >= 64 {
                0
            } else {
                s >> self.tick_shift
            },
        }
    }

    #[inline]
    fn pack(&self, st: St) -> u64 {
        st.seq
            | (st.phase << self.phase_shift)
            | (st.counter << self.counter_shift)
            | (st.mark << self.mark_shift)
            | (st.tick1 << self.tick_shift)
    }

    #[inline]
    fn id(&self, tick: u64, seq: u64, counter: u64) -> u64 {
        (tick << self.time_shift) | (seq << self.seq_shift) | (counter << self.rb_shift)
    }

    #[inline]
    fn run(&self, tick: u64, seq: u64, count: u64, counter: u64) -> Run {
        Run {
            first: self.id(tick, seq, counter),
            count,
            stride: self.stride(),
        }
    }

    /// Opens `tick` as a new tick: picks its sequence start and takes up to `want` values.
    fn open(&self, mut st: St, tick: u64, want: u64) -> Result<(u64, Run)> {
        if tick > self.max_time {
            return Err(Error::LayoutExpired {
                end_ms: self.end_ms,
            });
        }
        let seq0 = match self.start {
            SequenceStart::Zero => 0,
            SequenceStart::Random => {
                let range = self.max_seq.div_ceil(2);
                if range <= 1 {
                    0
                } else {
                    mix64(self.seed ^ tick.wrapping_mul(0x9E37_79B9_7F4A_7C15)) % range
                }
            }
            SequenceStart::Vibrate { max_offset } => {
                // phase stores last offset + 1 (0 = none yet), so the first tick starts at 0.
                let offset = if st.phase == 0 || st.phase > u64::from(max_offset) {
                    0
                } else {
                    st.phase
                };
                st.phase = offset + 1;
                offset
            }
        };
        let count = want.min(self.max_seq - seq0 + 1);
        st.tick1 = tick + 1;
        st.seq = seq0 + count - 1;
        Ok((self.pack(st), self.run(tick, seq0, count, st.counter)))
    }

    /// The common case, kept small enough to inline into every caller's loop: still in the last
    /// tick (or a coarse clock lagging it by at most `lag_ticks`, or a tick borrowed within the
    /// `borrow` bound) with sequence values left.
    /// The sequence is the lowest field of the state word, so taking `count` values is adding
    /// `count`; no other field changes. `None` means: take the full [`step`](Self::step).
    #[inline(always)]
    pub(crate) fn fast(&self, s: u64, t: u64, lag_ticks: u64, want: u64) -> Option<(u64, Run)> {
        let tick1 = s >> self.tick_shift;
        let seq = s & mask(self.seq_bits);
        if tick1 > t && tick1 - 1 - t <= lag_ticks.saturating_add(self.absorb) && seq < self.max_seq
        {
            let count = want.min(self.max_seq - seq);
            let counter = (s >> self.counter_shift) & self.counter_mask;
            return Some((s + count, self.run(tick1 - 1, seq + 1, count, counter)));
        }
        None
    }

    /// [`fast`](Self::fast) for a single ID: the next state and the ID without node bits.
    #[inline(always)]
    pub(crate) fn fast_one(&self, s: u64, t: u64, lag_ticks: u64) -> Option<(u64, u64)> {
        self.fast(s, t, lag_ticks, 1)
            .map(|(next, run)| (next, run.first))
    }

    /// The tick of `now_ms` when it is inside the layout's range (the fast path's precondition).
    #[inline(always)]
    pub(crate) fn tick_fast(&self, now_ms: u64) -> Option<u64> {
        self.tick(now_ms).ok()
    }

    /// One step of the generator: from state `s` at `now_ms`, reserve up to `want` (≥ 1) IDs.
    /// The returned run carries no node bits: the caller ORs its node in.
    ///
    /// `lag_ticks` says how far `now_ms` may lag the true time (a coarse clock): a clock that
    /// far behind the last tick is treated as still being in it, and one further behind is
    /// refused without applying the `on_backwards` policy (the caller confirms with a precise
    /// reading, `lag_ticks` = 0). Use 0 for exact semantics.
    #[inline]
    pub(crate) fn step(
        &self,
        s: u64,
        now_ms: u64,
        lag_ticks: u64,
        want: u64,
        notes: &mut Notes,
    ) -> Result<(u64, Run)> {
        let t = self.tick(now_ms)?;
        if let Some(r) = self.fast(s, t, lag_ticks, want) {
            return Ok(r);
        }
        let mut st = self.unpack(s);
        if st.tick1 == 0 {
            return self.open(st, t, want);
        }
        let last = st.tick1 - 1;
        if t > last {
            st.mark = st.mark.saturating_sub(t - last);
            return self.open(st, t, want);
        }
        let behind = last - t;
        if behind <= lag_ticks.saturating_add(self.absorb) {
            let r = self.continue_tick(st, last, t, now_ms, want, None, notes);
            if behind <= lag_ticks && notes.ahead_ticks <= lag_ticks {
                // A coarse clock lagging the last tick is not the generator running ahead.
                notes.ahead_ticks = 0;
            }
            return r;
        }
        let last_ms = self.tick_start(last);
        let by_ms = last_ms.saturating_sub(now_ms);
        let backwards = Error::ClockBackwards { by_ms, last_ms };
        if lag_ticks > 0 {
            // A coarse reading further behind than it may lag: possibly only a late kernel
            // tick. The policy acts (opens a rollback epoch, runs ahead on a logical clock) only
            // on a precise reading, which the caller takes on any error.
            return Err(backwards);
        }
        notes.rollback = true;
        match self.on_backwards {
            OnBackwards::Fail | OnBackwards::Ring { .. } => Err(backwards),
            OnBackwards::Wait { max_ms } if by_ms <= max_ms => {
                Err(Error::WouldBlock { until_ms: last_ms })
            }
            OnBackwards::Wait { .. } => Err(backwards),
            OnBackwards::Logical { max_ms } if by_ms <= max_ms => {
                self.continue_tick(st, last, t, now_ms, want, Some(max_ms), notes)
            }
            OnBackwards::Logical { .. } => Err(backwards),
            OnBackwards::RollbackCounter => {
                // The previous epochs' high-water tick is last + mark - B; a new epoch may start
                // only above it, with the next counter value.
                if st.mark < self.mark_bias && behind < self.mark_bias - st.mark {
                    st.counter = (st.counter + 1) & self.counter_mask;
                    st.mark = behind + self.mark_bias;
                    self.open(st, t, want)
                } else {
                    Err(backwards)
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn continue_tick(
        &self,
        mut st: St,
        last: u64,
        t: u64,
        now_ms: u64,
        want: u64,
        logical_ms: Option<u64>,
        notes: &mut Notes,
    ) -> Result<(u64, Run)> {
        if st.seq < self.max_seq {
            let count = want.min(self.max_seq - st.seq);
            let first = st.seq + 1;
            st.seq += count;
            notes.ahead_ticks = last - t;
            return Ok((self.pack(st), self.run(last, first, count, st.counter)));
        }
        notes.exhausted = true;
        let next = last + 1;
        let next_ms = self.tick_start(next);
        match (logical_ms, self.on_exhausted) {
            (Some(max_ms), _) => {
                let ahead_ms = next_ms.saturating_sub(now_ms);
                if ahead_ms <= max_ms {
                    let r = self.open(st, next, want)?;
                    notes.ahead_ticks = next - t;
                    Ok(r)
                } else {
                    Err(Error::WouldBlock {
                        until_ms: next_ms - max_ms,
                    })
                }
            }
            (None, OnExhausted::Fail) => Err(Error::SequenceExhausted {
                tick_ms: self.tick_start(last),
            }),
            (None, OnExhausted::Wait) => Err(Error::WouldBlock { until_ms: next_ms }),
            (None, OnExhausted::Borrow { max_ticks }) => {
                if next - t <= max_ticks {
                    let r = self.open(st, next, want)?;
                    notes.ahead_ticks = next - t;
                    Ok(r)
                } else {
                    Err(Error::WouldBlock {
                        until_ms: self.tick_start(next - max_ticks),
                    })
                }
            }
        }
    }

    /// The reading a ring step should use for a coarse reading `now_ms` that may lag by up to
    /// `lag_ticks`: the latest tick issued (`high1 - 1`) when the reading lags it by at most
    /// that, `now_ms` itself when it does not lag it, and `None` (take a precise reading) when
    /// it lags further: only a precise reading may continue an earlier tick's slot. A time the
    /// layout cannot hold is its error (`BeforeEpoch`, `LayoutExpired`), not a step back.
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    pub(crate) fn ring_coarse(
        &self,
        now_ms: u64,
        lag_ticks: u64,
        high1: u64,
    ) -> Result<Option<u64>> {
        let t = self.tick(now_ms)?;
        if lag_ticks == 0 || high1 <= t + 1 {
            return Ok(Some(now_ms));
        }
        Ok((high1 - 1 - t <= lag_ticks).then(|| self.tick_start(high1 - 1)))
    }

    /// Ring policy: one step on the slot for tick(now). `slot` is `tick+1 << seq_bits | seq`
    /// (0 = empty); `high1` is the highest tick+1 issued so far (0 = none).
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    pub(crate) fn ring_step(
        &self,
        ring: u64,
        slot: u64,
        high1: u64,
        now_ms: u64,
        want: u64,
        notes: &mut Notes,
    ) -> Result<(u64, Run, u64)> {
        let t = self.tick(now_ms)?;
        let refuse = |tick1: u64| {
            let last_ms = self.tick_start(tick1 - 1);
            Error::ClockBackwards {
                by_ms: last_ms.saturating_sub(now_ms),
                last_ms,
            }
        };
        if high1 > t + 1 {
            notes.rollback = true;
            if t + ring < high1 {
                return Err(refuse(high1));
            }
        }
        if self.fence_tick1 > 0 && t < self.fence_tick1 {
            if t + 1 == self.fence_tick1 {
                // The fenced tick itself: wait for the next one, as the packed policies do.
                return Err(Error::WouldBlock {
                    until_ms: self.tick_start(t + 1),
                });
            }
            notes.rollback = true;
            return Err(refuse(self.fence_tick1));
        }
        let slot_tick1 = slot >> self.seq_bits;
        let slot_seq = slot & mask(self.seq_bits);
        if slot_tick1 > t + 1 {
            return Err(refuse(slot_tick1));
        }
        let (seq0, count) = if slot_tick1 == t + 1 {
            if slot_seq >= self.max_seq {
                notes.exhausted = true;
                return Err(match self.on_exhausted {
                    OnExhausted::Fail => Error::SequenceExhausted {
                        tick_ms: self.tick_start(t),
                    },
                    _ => Error::WouldBlock {
                        until_ms: self.tick_start(t + 1),
                    },
                });
            }
            (slot_seq + 1, want.min(self.max_seq - slot_seq))
        } else {
            let St { seq, .. } = self.unpack(self.open(self.unpack(0), t, 1)?.0);
            (seq, want.min(self.max_seq - seq + 1))
        };
        let new_slot = ((t + 1) << self.seq_bits) | (seq0 + count - 1);
        Ok((new_slot, self.run(t, seq0, count, 0), high1.max(t + 1)))
    }

    /// The state slot a ring uses for `now_ms` (tick modulo ring size).
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    pub(crate) fn ring_index(&self, now_ms: u64, ring: u64) -> Result<usize> {
        Ok((self.tick(now_ms)? % ring) as usize)
    }

    /// The initial high-water mark of a ring (the fence).
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    pub(crate) const fn ring_initial_high(&self) -> u64 {
        self.fence_tick1
    }
}
