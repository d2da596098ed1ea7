//! The browser's time source, and how the clocked generators "wait" where nothing may block.
//!
//! **The clock** is `performance.timeOrigin + performance.now()`: Unix milliseconds carried on
//! the monotonic clock the page started with, re-anchored to the wall clock (`Date.now()`) once
//! every [`PERIOD_MS`] of monotonic time by the core's [`Anchor`] (the same rules as the
//! std `SystemClock`): a step of the wall clock is followed, forward or back, so a generator
//! finds a clock set back behind its last tick and applies its `onBackwards` policy. Where
//! `performance` is missing, `Date.now()` is the clock itself (a wall clock, whose steps are
//! seen at once). `std::time::SystemTime` is never used: it panics on `wasm32-unknown-unknown`.
//!
//! **Bounds.** `Date.now()` counts whole milliseconds and browsers coarsen `performance.now()`
//! (to 5 µs–1 ms), so a difference of up to [`MIN_STEP_MS`] ms plus half a millisecond is taken
//! for noise and not followed. A larger step is seen by the first reading at least
//! [`PERIOD_MS`] (1 s) of monotonic time after the previous re-anchoring: until then IDs carry
//! the time of the clock before the step (behind the wall clock by the step after a forward
//! one; ahead of it after a step back, which the policy then meets). The monotonic clock also
//! drifts from the wall clock on some systems and, in some browsers, stops while the device
//! sleeps; both show up at the next re-anchoring as a step.
//!
//! **Reading it cheaply.** `performance.now()` is slow in Chromium (about 300 ns a call on the
//! benchmark machine: Blink clamps and jitters every reading), fifteen times an empty call into
//! the module; `Date.now()` costs about 60 ns; an ID costs about 20 ns besides. So a clock
//! reads as little as it can while keeping a stated bound:
//!
//! 1. It keeps the last `performance` reading together with the `Date.now()` value seen just
//!    before it. A call that reads `Date.now()` and finds the same millisecond knows that less
//!    than 1 ms has passed since that reading and returns it again; otherwise it reads
//!    `performance` anew.
//! 2. Within one task (one synchronous run of script, up to the next microtask checkpoint),
//!    the last reading is returned again for up to [`CALLS_PER_READ`] calls without reading
//!    `Date.now()` at all. The end of the task is noticed through `queueMicrotask` (scheduled
//!    once per task), so a reading is never reused across tasks: an event handler, a message
//!    or a timer callback always starts from a fresh reading.
//!
//! So between steps of the wall clock the time a generator sees never goes backwards, is never
//! later than the true time, and lags it by less than 1 ms plus the time the caller's own code
//! spent in at most `CALLS_PER_READ - 1` preceding calls of the same task (nothing, in a minting
//! loop): an ID's time field is at most one tick early for 1 ms ticks in practice. The
//! re-anchoring check rides on the `performance` readings (one compare each); the wall clock is
//! read for it once a period.
//!
//! **Waiting**: the core's generators answer `WouldBlock { until_ms }` when a tick's sequence
//! is used up (`onExhausted: "wait"`) or the clock is a little behind (`onBackwards:
//! "wait:MS"`), and the core's `Clocked` then asks the clock to wait
//! ([`Clock::wait_or_retry`]). A page cannot sleep, so this clock spins when the wait is at
//! most [`MAX_SPIN_MS`] (a tick of a millisecond layout is 1 ms) and otherwise answers
//! [`Retry`], which `Clocked` hands back as `WouldBlock`: the call throws `ERR_WOULD_BLOCK`
//! with `untilMs` at once, for the caller to retry later (`setTimeout`).

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use idmint::clock::anchor::{Anchor, NS_PER_MS, PERIOD_MS};
use idmint::{Clock, Retry};

/// Differences between the anchored time and `Date.now()` up to this many ms (plus half a
/// millisecond for `Date.now()`'s resolution) are taken for noise, not for a step.
pub(crate) const MIN_STEP_MS: i64 = 2;

/// Longest single wait a clocked call spins through on the calling thread, in ms: well under
/// one 60 Hz frame (16.7 ms). Longer waits (a 1 s tick's sequence used up, a clock step back)
/// throw `ERR_WOULD_BLOCK` instead.
pub(crate) const MAX_SPIN_MS: u64 = 10;

#[wasm_bindgen]
extern "C" {
    /// `performance.now()`: ms since `performance.timeOrigin`, monotonic.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    pub(crate) fn performance_now() -> f64;

    /// `Date.now()`: the wall clock in ms since the Unix epoch.
    #[wasm_bindgen(js_namespace = Date, js_name = now)]
    fn js_date_now() -> f64;

    type Global;

    /// `globalThis.performance`, `undefined` where the host has none.
    #[wasm_bindgen(method, getter, structural)]
    fn performance(this: &Global) -> JsValue;

    type Performance;

    #[wasm_bindgen(method, getter, structural, js_name = timeOrigin)]
    fn time_origin(this: &Performance) -> JsValue;
}

/// `Date.now()`; in tests, shifted by [`shift_date_for_test`] to play a step of the wall clock.
#[inline]
fn date_now() -> f64 {
    #[cfg(test)]
    return js_date_now() + DATE_SHIFT_MS.with(Cell::get);
    #[cfg(not(test))]
    js_date_now()
}

#[cfg(test)]
thread_local! {
    static DATE_SHIFT_MS: Cell<f64> = const { Cell::new(0.0) };
}

/// Moves this thread's `Date.now()` by `ms` from the real one (tests only).
#[cfg(test)]
pub(crate) fn shift_date_for_test(ms: f64) {
    DATE_SHIFT_MS.with(|s| s.set(ms));
}

/// ms (a JavaScript time) to ns; `as` saturates, NaN gives 0.
fn ns(ms: f64) -> i64 {
    (ms * NS_PER_MS as f64) as i64
}

/// A Unix-millisecond clock: `performance.timeOrigin + performance.now()` re-anchored to
/// `Date.now()`, or `Date.now()` alone, read through the `Date.now()` cache described in the
/// [module docs](self). It is the core's [`Clock`], so the core's [`Clocked`](idmint::Clocked)
/// drives the generators on it. Its state is atomics (`Clock` is `Send + Sync`): on wasm32
/// without threads, relaxed atomics are plain loads and stores.
#[derive(Debug)]
pub(crate) struct PageClock {
    /// Wall time on `performance.now()` (ns), or `None` to use `Date.now()` alone.
    anchor: Option<Anchor>,
    /// The bits of `Date.now()` just before the last precise reading (NaN: none yet).
    seen_date: AtomicU64,
    /// The last precise reading, ms since the Unix epoch.
    seen_ms: AtomicU64,
    /// The task (see [`task`]) of the last `Date.now()` reading.
    read_in: AtomicU32,
    /// Calls left that may reuse `seen_ms` without reading `Date.now()`, within task `read_in`.
    budget: AtomicU32,
}

impl PageClock {
    /// Picks the best time source this global scope (window, worker, Node) offers.
    pub(crate) fn new() -> PageClock {
        PageClock::with_period(PERIOD_MS)
    }

    /// [`new`](Self::new), re-anchoring every `period_ms`.
    pub(crate) fn with_period(period_ms: u64) -> PageClock {
        let global: Global = js_sys::global().unchecked_into();
        let perf = global.performance();
        let origin = if perf.is_object() {
            let has_now = js_sys::Reflect::get(&perf, &JsValue::from_str("now"))
                .map(|f| f.is_function())
                .unwrap_or(false);
            perf.unchecked_ref::<Performance>()
                .time_origin()
                .as_f64()
                .filter(|o| has_now && o.is_finite() && *o > 0.0)
        } else {
            None
        };
        PageClock::with_origin(origin, period_ms)
    }

    fn with_origin(origin: Option<f64>, period_ms: u64) -> PageClock {
        let anchor = origin.map(|o| {
            let a = Anchor::new(
                ns(o),
                ns(performance_now()),
                period_ms,
                MIN_STEP_MS * NS_PER_MS,
            );
            // The page may have run for long: its time origin is not the wall clock now.
            observe(&a);
            a
        });
        PageClock {
            anchor,
            seen_date: AtomicU64::new(f64::NAN.to_bits()),
            seen_ms: AtomicU64::new(0),
            read_in: AtomicU32::new(0),
            budget: AtomicU32::new(0),
        }
    }

    /// A clock on `Date.now()` only, as where `performance` is missing.
    #[cfg(test)]
    pub(crate) fn date_only() -> PageClock {
        PageClock::with_origin(None, PERIOD_MS)
    }

    #[inline(never)]
    fn read(&self) -> u64 {
        let d = date_now();
        let ms = if d == f64::from_bits(self.seen_date.load(Relaxed)) {
            self.seen_ms.load(Relaxed)
        } else {
            self.refresh(d)
        };
        if let Some(t) = task_scheduled() {
            self.read_in.store(t, Relaxed);
            self.budget.store(CALLS_PER_READ - 1, Relaxed);
        }
        ms
    }

    /// Takes a precise reading and remembers it with `date`, the `Date.now()` read just before.
    #[inline(never)]
    fn refresh(&self, date: f64) -> u64 {
        let ms = self.precise_ms();
        self.seen_date.store(date.to_bits(), Relaxed);
        self.seen_ms.store(ms, Relaxed);
        ms
    }

    /// A precise reading, remembered for [`now_ms`](Clock::now_ms).
    fn refresh_now(&self) -> u64 {
        self.refresh(date_now())
    }

    /// A fresh reading of the precise clock, ms since the Unix epoch (fractions dropped),
    /// re-anchoring first when that is due.
    pub(crate) fn precise_ms(&self) -> u64 {
        self.precise().0
    }

    /// A fresh reading of the precise clock: ms since the Unix epoch and the ns into that
    /// millisecond (as fine as the browser lets `performance.now()` be; 0 on the `Date.now()`
    /// fallback), re-anchoring first when that is due.
    fn precise(&self) -> (u64, u32) {
        match &self.anchor {
            Some(a) => {
                let mono = ns(performance_now());
                if a.is_due(mono) {
                    reanchor(a, mono);
                }
                let wall = mono.saturating_add(a.offset()).max(0) as u64;
                (wall / NS_PER_MS as u64, (wall % NS_PER_MS as u64) as u32)
            }
            // `as` saturates: NaN or a negative time would give 0, which the layout refuses
            // (ERR_BEFORE_EPOCH) rather than minting at a wrong time.
            None => (date_now() as u64, 0),
        }
    }

    /// Which source the clock reads: `"performance"` or `"Date"`.
    pub(crate) fn source(&self) -> &'static str {
        if self.anchor.is_some() {
            "performance"
        } else {
            "Date"
        }
    }
}

impl Clock for PageClock {
    /// The current time in ms since the Unix epoch, as the module docs describe: the last
    /// reading again for up to [`CALLS_PER_READ`] calls within one task, else one `Date.now()`
    /// call, plus a precise reading when `Date.now()` has moved on since the last one.
    #[inline]
    fn now_ms(&self) -> u64 {
        let b = self.budget.load(Relaxed);
        if b > 0 && self.read_in.load(Relaxed) == task() {
            self.budget.store(b - 1, Relaxed);
            return self.seen_ms.load(Relaxed);
        }
        self.read()
    }

    /// One precise reading with its sub-millisecond part (UUID v7's sub-millisecond method).
    fn now_ms_nanos(&self) -> (u64, u32) {
        self.precise()
    }

    /// Spins until `until_ms` when that is at most [`MAX_SPIN_MS`] away, else answers
    /// [`Retry`] at once (the clocked call then throws `ERR_WOULD_BLOCK` with `untilMs`).
    #[inline(never)]
    fn wait_or_retry(&self, until_ms: u64) -> Result<(), Retry> {
        let now = self.refresh_now();
        if until_ms.saturating_sub(now) > MAX_SPIN_MS {
            return Err(Retry { until_ms });
        }
        // Spin until the wait is over; stop early if a wall clock (Date.now fallback) steps
        // back, and let the generator's policy judge the new time. Every reading refreshes the
        // cache, so the retry sees the time the wait ended at.
        loop {
            let t = self.refresh_now();
            if t >= until_ms || t < now {
                return Ok(());
            }
            core::hint::spin_loop();
        }
    }
}

/// The re-anchoring due at monotonic time `mono` (ns), if this reading claims it.
#[cold]
#[inline(never)]
fn reanchor(a: &Anchor, mono: i64) {
    if a.claim(mono) {
        observe(a);
    }
}

/// Compares `Date.now()` with the anchored time and follows a step: `Date.now()` is taken as
/// the middle of its millisecond, at the middle of two `performance.now()` readings around it.
fn observe(a: &Anchor) {
    let before = performance_now();
    let date = date_now();
    let after = performance_now();
    if !date.is_finite() {
        return;
    }
    let mono = ns(before + (after - before) / 2.0);
    let uncertainty = NS_PER_MS / 2 + ns((after - before) / 2.0);
    a.observe(ns(date) + NS_PER_MS / 2, mono, uncertainty);
}

/// Calls within one task that may reuse a reading before `Date.now()` is read again.
pub(crate) const CALLS_PER_READ: u32 = 8;

#[wasm_bindgen]
extern "C" {
    /// `queueMicrotask(f)`; throws where the host has none.
    #[wasm_bindgen(js_name = queueMicrotask, catch)]
    fn queue_microtask(f: &js_sys::Function) -> Result<(), JsValue>;
}

thread_local! {
    /// The current task: counts the ends of tasks (event-loop turns) that read the clock.
    static TASK: Cell<u32> = const { Cell::new(1) };
    /// Whether the end of the current task is already being waited for.
    static SCHEDULED: Cell<bool> = const { Cell::new(false) };
    /// The microtask that marks the end of a task, once made (`None`: no `queueMicrotask`).
    static TASK_END: std::cell::OnceCell<Option<Closure<dyn FnMut()>>> = const { std::cell::OnceCell::new() };
}

/// The current task's number.
#[inline]
pub(crate) fn task() -> u32 {
    TASK.with(Cell::get)
}

/// Makes sure the end of the current task will be noticed (a microtask runs as soon as the
/// script that is running returns to the event loop) and returns the current task's number, or
/// `None` where microtasks are not available, so that readings are never reused.
fn task_scheduled() -> Option<u32> {
    if !SCHEDULED.with(Cell::get) {
        let queued = TASK_END.with(|end| {
            let end = end.get_or_init(|| {
                Some(Closure::new(|| {
                    TASK.with(|t| t.set(t.get().wrapping_add(1)));
                    SCHEDULED.with(|s| s.set(false));
                }))
            });
            end.as_ref()
                .is_some_and(|f| queue_microtask(f.as_ref().unchecked_ref()).is_ok())
        });
        if !queued {
            return None;
        }
        SCHEDULED.with(|s| s.set(true));
    }
    Some(task())
}

thread_local! {
    /// The module's own clock, for the calls that belong to no generator (`uuid7()`, `uuid1()`).
    static CLOCK: PageClock = PageClock::new();
}

/// The current time in ms since the Unix epoch, from the module's clock.
pub(crate) fn now_ms() -> u64 {
    CLOCK.with(Clock::now_ms)
}

/// The module's clock, for a generator to read as its config asks
/// ([`NamedConfig::now_from`](idmint::named::NamedConfig::now_from)).
pub(crate) fn with_clock<T>(f: impl FnOnce(&PageClock) -> T) -> T {
    CLOCK.with(f)
}

/// A precise reading of the module's clock (benchmarks compare it with [`now_ms`]).
pub(crate) fn precise_ms() -> u64 {
    CLOCK.with(PageClock::precise_ms)
}

/// One `Date.now()` reading, truncated to ms (benchmarks compare it with [`now_ms`]).
pub(crate) fn date_ms() -> u64 {
    date_now() as u64
}

#[cfg(test)]
mod tests {
    use idmint::{AtomicSnowflake, Config, Error, Layout, OnBackwards};
    use wasm_bindgen_test::wasm_bindgen_test;

    use super::*;

    /// Resets the shifted `Date.now()` when a test ends.
    struct Shift;

    impl Shift {
        fn to(ms: f64) -> Shift {
            shift_date_for_test(ms);
            Shift
        }
    }

    impl Drop for Shift {
        fn drop(&mut self) {
            shift_date_for_test(0.0);
        }
    }

    /// Spins until `performance.now()` has moved `ms` on.
    fn spin(ms: f64) {
        let until = performance_now() + ms;
        while performance_now() < until {
            core::hint::spin_loop();
        }
    }

    /// `Date.now()` steps 10 s forward and then back again while a clock re-anchoring every
    /// 20 ms is read: a period later its readings follow each step, the second one backwards.
    #[wasm_bindgen_test]
    fn wall_clock_steps_are_followed_a_period_later() {
        let c = PageClock::with_period(20);
        assert_eq!(c.source(), "performance");
        let start = c.precise_ms();
        let shift = Shift::to(10_000.0);
        spin(30.0);
        let ahead = c.precise_ms();
        assert!(
            (ahead as f64 - date_now()).abs() < 50.0,
            "{ahead} does not follow Date.now() {} forward",
            date_now()
        );
        assert!(ahead >= start + 10_000);
        drop(shift);
        spin(30.0);
        let back = c.precise_ms();
        assert!(
            (back as f64 - date_now()).abs() < 50.0,
            "{back} does not follow Date.now() {} back",
            date_now()
        );
        assert!(back + 9_000 < ahead, "the clock did not go back");
    }

    /// Without a step, re-anchoring every 5 ms never moves the clock back: the noise of
    /// comparing `Date.now()` (whole ms) with `performance.now()` is not taken for a step.
    #[wasm_bindgen_test]
    fn reanchoring_noise_is_not_a_step_back() {
        let c = PageClock::with_period(5);
        let mut last = c.precise_ms();
        let until = performance_now() + 300.0;
        while performance_now() < until {
            let t = c.precise_ms();
            assert!(t >= last, "went back from {last} to {t}");
            last = t;
        }
    }

    /// A generator on this clock with `onBackwards: "fail"` meets a 5 s step back of
    /// `Date.now()` within a re-anchoring period: ClockBackwards, and no ID repeats.
    #[wasm_bindgen_test]
    fn step_back_reaches_the_policy() {
        let l = Layout::parse("time=41@1ms,worker=10,seq=12,epoch=2020-01-01").unwrap();
        let g =
            AtomicSnowflake::new(Config::new(l).node(1).on_backwards(OnBackwards::Fail)).unwrap();
        let c = PageClock::with_period(20);
        let mut ids = Vec::new();
        ids.push(g.next_id_at(c.now_ms()).unwrap());
        let _shift = Shift::to(-5_000.0);
        let deadline = performance_now() + 10_000.0;
        let e = loop {
            match g.next_id_at(c.now_ms()) {
                Ok(id) => ids.push(id),
                Err(Error::WouldBlock { .. }) => {}
                Err(e) => break e,
            }
            assert!(performance_now() < deadline, "the step was never seen");
        };
        assert!(matches!(e, Error::ClockBackwards { by_ms, .. } if by_ms >= 4_900));
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
    }
}
