//! Shared pieces of the idmint benchmarks: the generator configs every bench uses, and the
//! sustained-rate ("saturation") measurement behind `benches/saturation.rs`.
//!
//! See `BENCHMARKS.md` at the workspace root for what is measured and how to reproduce it.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Barrier;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use idmint::{Config, Layout, OnExhausted};

/// Node value every idmint generator in the benches uses.
pub const NODE: u64 = 1;

/// How far (in ticks) the `borrow` configs may run ahead of the clock: 10^9 ms ≈ 11.6 days,
/// so a benchmark that mints flat out never has to wait. (`u64::MAX` is not used: see
/// BENCHMARKS.md, "Findings".)
pub const BORROW_TICKS: u64 = 1_000_000_000;

/// The small layout of the saturation run: 8 sequence bits, so 256 IDs per ms = 256,000/s.
pub const SMALL_SPEC: &str = "time=41@1ms,worker=10,seq=8,epoch=2020-01-01";

/// The Twitter layout (41-bit ms time, 10-bit worker, 12-bit sequence: 4,096,000 IDs/s).
pub fn twitter() -> Layout {
    Layout::preset("twitter").expect("twitter preset")
}

/// The small, 256-IDs-per-ms layout ([`SMALL_SPEC`]).
pub fn small() -> Layout {
    Layout::parse(SMALL_SPEC).expect("small layout spec")
}

/// `layout` with node [`NODE`] and the default policies (`on_exhausted = wait`).
pub fn wait_cfg(layout: Layout) -> Config {
    Config::new(layout).node(NODE)
}

/// `layout` with node [`NODE`] and `on_exhausted = borrow:`[`BORROW_TICKS`]: never waits
/// in a benchmark, at the price of IDs whose time field runs ahead of the clock.
pub fn borrow_cfg(layout: Layout) -> Config {
    wait_cfg(layout).on_exhausted(OnExhausted::Borrow {
        max_ticks: BORROW_TICKS,
    })
}

/// Wall-clock Unix milliseconds, for the sans-IO generators' fixed `now`.
pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_millis() as u64
}

/// What one flat-out run of a generator achieved.
#[derive(Debug, Clone)]
pub struct Saturation {
    /// What ran.
    pub label: String,
    /// The layout's ceiling in IDs per second.
    pub cap_per_s: u64,
    /// IDs minted.
    pub ids: u64,
    /// Wall time taken.
    pub elapsed: Duration,
    /// Distinct ticks (time-field values) the IDs carried.
    pub ticks_seen: u64,
    /// Ticks strictly between the first and the last tick seen (the fully covered ones).
    pub inner_ticks: u64,
    /// IDs carrying one of the inner ticks.
    pub inner_ids: u64,
    /// Inner ticks that did not get all `per_tick` IDs (including ticks with none).
    pub short_ticks: u64,
    /// Inner ticks that got no ID at all.
    pub empty_ticks: u64,
    /// Times an ID was not strictly greater than the one before (must be 0).
    pub order_violations: u64,
    /// Involuntary context switches of the minting thread during the run.
    pub preempted: i64,
}

impl Saturation {
    /// Achieved IDs per second of wall time.
    pub fn rate(&self) -> f64 {
        self.ids as f64 / self.elapsed.as_secs_f64()
    }

    /// Achieved rate as a fraction of the layout's cap (may exceed 1 by up to one tick's
    /// worth over the run: the first tick is claimed whole however late in it the run starts).
    pub fn of_cap(&self) -> f64 {
        self.rate() / self.cap_per_s as f64
    }

    /// Like [`inner_fill`](Self::inner_fill) but over the inner ticks that got at least one
    /// ID: how full the ms were in which the thread was on a CPU at all. On a shared machine a
    /// preempted thread loses whole ticks (counted in `empty_ticks`); this separates that loss
    /// from the generator's own.
    pub fn nonempty_fill(&self, per_tick: u64) -> f64 {
        let n = self.inner_ticks - self.empty_ticks;
        if n == 0 {
            return f64::NAN;
        }
        self.inner_ids as f64 / (n * per_tick) as f64
    }

    /// IDs in the inner ticks as a fraction of their capacity: the fill of every tick the run
    /// fully covered, independent of where in a tick the run started and stopped.
    pub fn inner_fill(&self, per_tick: u64) -> f64 {
        if self.inner_ticks == 0 {
            return f64::NAN;
        }
        self.inner_ids as f64 / (self.inner_ticks * per_tick) as f64
    }
}

/// Flat-out minting before [`saturate`] starts counting.
pub const WARM_UP: Duration = Duration::from_millis(20);

/// Calls `next` flat out on the current thread for [`WARM_UP`], then for `dur` while tallying
/// the IDs per tick.
///
/// `time_shift` is the bit position of the ID's time field (the tick is `id >> time_shift`);
/// `per_tick` the most IDs a tick can hold; `cap_per_s` the layout's ceiling.
pub fn saturate(
    label: &str,
    mut next: impl FnMut() -> u64,
    dur: Duration,
    time_shift: u32,
    per_tick: u64,
    cap_per_s: u64,
) -> Saturation {
    // (tick, IDs in it), one entry per distinct tick, in order.
    let mut ticks: Vec<(u64, u64)> = Vec::with_capacity(dur.as_millis() as usize * 2 + 16);
    let mut ids = 0u64;
    let mut violations = 0u64;
    let mut prev = 0u64;
    let mut cur_tick = u64::MAX;
    let mut cur_count = 0u64;
    // Warm up into the steady state before tallying: a new `Snowflake`'s first call reads the
    // coarse clock (lagging by up to several ms) and opens a tick in the past; its first
    // exhaustion then jumps to the true time, leaving a gap of never-used ticks that would
    // count as "empty" and a past tick that would count as extra capacity.
    let warm = Instant::now();
    while warm.elapsed() < WARM_UP {
        for _ in 0..64 {
            prev = black_box(next());
        }
    }
    let (_, cs0) = thread_usage();
    let start = Instant::now();
    let elapsed = loop {
        for _ in 0..64 {
            let id = black_box(next());
            violations += u64::from(id <= prev);
            prev = id;
            let t = id >> time_shift;
            if t == cur_tick {
                cur_count += 1;
            } else {
                if cur_count > 0 {
                    ticks.push((cur_tick, cur_count));
                }
                cur_tick = t;
                cur_count = 1;
            }
        }
        ids += 64;
        let e = start.elapsed();
        if e >= dur {
            break e;
        }
    };
    ticks.push((cur_tick, cur_count));
    let (_, cs1) = thread_usage();

    let first = ticks.first().map_or(0, |t| t.0);
    let last = ticks.last().map_or(0, |t| t.0);
    let inner_ticks = last.saturating_sub(first).saturating_sub(1);
    let inner: Vec<_> = ticks
        .iter()
        .filter(|(t, _)| *t > first && *t < last)
        .collect();
    let inner_ids = inner.iter().map(|(_, n)| n).sum();
    let full_inner = inner.iter().filter(|(_, n)| *n >= per_tick).count() as u64;
    Saturation {
        label: label.to_string(),
        cap_per_s,
        ids,
        elapsed,
        ticks_seen: ticks.len() as u64,
        inner_ticks,
        inner_ids,
        short_ticks: inner_ticks - full_inner,
        empty_ticks: inner_ticks - inner.len() as u64,
        order_violations: violations,
        preempted: cs1 - cs0,
    }
}

/// What several threads calling one shared generator flat out achieved.
#[derive(Debug, Clone)]
pub struct Contention {
    /// What ran.
    pub label: String,
    /// IDs each thread minted.
    pub ids: Vec<u64>,
    /// CPU time each thread used (user + system).
    pub cpu: Vec<Duration>,
    /// Involuntary context switches each thread suffered.
    pub preempted: Vec<i64>,
    /// Wall time from the common start to the stop signal being seen by all.
    pub elapsed: Duration,
}

impl Contention {
    /// IDs per second, all threads together.
    pub fn rate(&self) -> f64 {
        self.ids.iter().sum::<u64>() as f64 / self.elapsed.as_secs_f64()
    }

    /// Wall time per call as each thread saw it, averaged over threads (ns): what a caller
    /// waits per ID while the other threads compete.
    pub fn ns_per_call(&self) -> f64 {
        let n = self.ids.len() as f64;
        self.elapsed.as_nanos() as f64 * n / self.ids.iter().sum::<u64>() as f64
    }

    /// Each thread's CPU time over the wall time, lowest of the threads: near 1 when the
    /// threads really ran at the same time, lower when they had to share a core.
    pub fn overlap(&self) -> f64 {
        self.cpu
            .iter()
            .map(|c| c.as_secs_f64() / self.elapsed.as_secs_f64())
            .fold(f64::INFINITY, f64::min)
    }
}

fn thread_usage() -> (Duration, i64) {
    // SAFETY: an all-zero rusage is a valid value; getrusage only writes into it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    (tv(ru.ru_utime) + tv(ru.ru_stime), ru.ru_nivcsw)
}

/// Runs `next` flat out on `threads` threads at once for about `dur`.
pub fn contend(
    label: &str,
    threads: usize,
    next: impl Fn() -> u64 + Sync,
    dur: Duration,
) -> Contention {
    let stop = AtomicBool::new(false);
    let start_line = Barrier::new(threads + 1);
    let end_line = Barrier::new(threads + 1);
    let mut out = Contention {
        label: label.to_string(),
        ids: Vec::new(),
        cpu: Vec::new(),
        preempted: Vec::new(),
        elapsed: Duration::ZERO,
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    start_line.wait();
                    let (cpu0, cs0) = thread_usage();
                    let mut n = 0u64;
                    while !stop.load(Relaxed) {
                        for _ in 0..256 {
                            black_box(next());
                        }
                        n += 256;
                    }
                    let (cpu1, cs1) = thread_usage();
                    end_line.wait();
                    (n, cpu1 - cpu0, cs1 - cs0)
                })
            })
            .collect();
        start_line.wait();
        let t0 = Instant::now();
        std::thread::sleep(dur);
        stop.store(true, Relaxed);
        end_line.wait();
        out.elapsed = t0.elapsed();
        for h in handles {
            let (n, cpu, cs) = h.join().expect("bench thread");
            out.ids.push(n);
            out.cpu.push(cpu);
            out.preempted.push(cs);
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use idmint::{AtomicSnowflake, Snowflake};

    #[test]
    fn configs_build() {
        assert_eq!(twitter().capacity_per_second(), 4_096_000);
        assert_eq!(small().capacity_per_second(), 256_000);
        for l in [twitter(), small()] {
            Snowflake::new(wait_cfg(l)).unwrap();
            Snowflake::new(borrow_cfg(l)).unwrap();
        }
    }

    #[test]
    fn borrow_never_blocks_at_a_fixed_now() {
        let g = AtomicSnowflake::new(borrow_cfg(twitter())).unwrap();
        let now = unix_ms();
        let mut prev = 0;
        for _ in 0..3 * 4096 {
            let id = g.next_id_at(now).unwrap();
            assert!(id > prev);
            prev = id;
        }
        // 3 full ticks used: the generator now stands 2 ticks ahead of `now`.
        assert_eq!(twitter().timestamp_ms(prev), now + 2);
    }

    #[test]
    fn saturation_of_the_small_layout_is_capped_and_ordered() {
        let layout = small();
        let g = Snowflake::new(wait_cfg(layout)).unwrap();
        let s = saturate(
            "small",
            || g.next_id().unwrap(),
            Duration::from_millis(60),
            u32::from(layout.time_field().shift),
            layout.max_sequence() + 1,
            layout.capacity_per_second(),
        );
        assert_eq!(s.order_violations, 0);
        // Never more than the cap allows over the ticks the run touched (partial first and
        // last ms, with one of slack).
        let ms = s.elapsed.as_millis() as u64 + 3;
        assert!(s.ids <= ms * 256, "{} IDs in {:?}", s.ids, s.elapsed);
        assert!(s.inner_ticks > 0 && s.inner_ids <= s.inner_ticks * 256);
    }

    #[test]
    fn contention_counts_every_thread() {
        let g = Snowflake::new(borrow_cfg(twitter())).unwrap();
        let c = contend("t", 2, || g.next_id().unwrap(), Duration::from_millis(30));
        assert_eq!(c.ids.len(), 2);
        assert!(c.ids.iter().all(|&n| n > 0));
        assert!(c.rate() > 0.0 && c.ns_per_call() > 0.0);
    }
}
