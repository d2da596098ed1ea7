//! The browser's time source, and how the clocked generators "wait" where nothing may block.
//!
//! **The clock** is `performance.timeOrigin + performance.now()`: Unix milliseconds that never go
//! backwards within one page or worker (the monotonic clock the page started with). Where
//! `performance` is missing, `Date.now()` is the fallback (a wall clock: it can step back with
//! the system clock, which the generator's `onBackwards` policy then handles).
//! `std::time::SystemTime` is never used: it panics on `wasm32-unknown-unknown`.
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
//! So the time a generator sees never goes backwards, is never later than the true time, and
//! lags it by less than 1 ms plus the time the caller's own code spent in at most
//! `CALLS_PER_READ - 1` preceding calls of the same task (nothing, in a minting loop): an ID's
//! time field is at most one tick early for 1 ms ticks in practice. A step of the wall clock
//! only triggers a fresh `performance` reading.
//!
//! **What the monotonic clock trades**: it does not follow later corrections of the system
//! clock, and in some browsers it does not advance while the device sleeps, so after a long
//! sleep the time field of new IDs can lag the wall clock until the page is reloaded. IDs stay
//! unique and increasing either way.
//!
//! **Waiting**: the core answers `WouldBlock { until_ms }` when a tick's sequence is used up
//! (`onExhausted: "wait"`) or the clock is a little behind (`onBackwards: "wait:MS"`). A page
//! cannot sleep, so a clocked call spins on the clock when the wait is at most
//! [`MAX_SPIN_MS`] (a tick of a millisecond layout is 1 ms) and otherwise throws
//! `ERR_WOULD_BLOCK` with `untilMs` at once, for the caller to retry later (`setTimeout`).

use std::cell::Cell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use idmint::Error;

/// Longest single wait a clocked call spins through on the calling thread, in ms: well under
/// one 60 Hz frame (16.7 ms). Longer waits (a 1 s tick's sequence used up, a clock step back)
/// throw `ERR_WOULD_BLOCK` instead.
pub(crate) const MAX_SPIN_MS: u64 = 10;

#[wasm_bindgen]
extern "C" {
    /// `performance.now()`: ms since `performance.timeOrigin`, monotonic.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;

    /// `Date.now()`: the wall clock in ms since the Unix epoch.
    #[wasm_bindgen(js_namespace = Date, js_name = now)]
    fn date_now() -> f64;

    type Global;

    /// `globalThis.performance`, `undefined` where the host has none.
    #[wasm_bindgen(method, getter, structural)]
    fn performance(this: &Global) -> JsValue;

    type Performance;

    #[wasm_bindgen(method, getter, structural, js_name = timeOrigin)]
    fn time_origin(this: &Performance) -> JsValue;
}

/// A Unix-millisecond clock: `performance.timeOrigin + performance.now()`, or `Date.now()`,
/// read through the `Date.now()` cache described in the [module docs](self).
#[derive(Debug, Clone)]
pub(crate) struct Clock {
    /// `performance.timeOrigin`, or `None` to use `Date.now()` alone.
    origin: Option<f64>,
    /// `Date.now()` just before the last precise reading (NaN: none yet).
    seen_date: Cell<f64>,
    /// The last precise reading, ms since the Unix epoch.
    seen_ms: Cell<u64>,
    /// The task (see [`task`]) of the last `Date.now()` reading.
    read_in: Cell<u32>,
    /// Calls left that may reuse `seen_ms` without reading `Date.now()`, within task `read_in`.
    budget: Cell<u32>,
}

impl Clock {
    /// Picks the best time source this global scope (window, worker, Node) offers.
    pub(crate) fn new() -> Clock {
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
        Clock::with_origin(origin)
    }

    fn with_origin(origin: Option<f64>) -> Clock {
        Clock {
            origin,
            seen_date: Cell::new(f64::NAN),
            seen_ms: Cell::new(0),
            read_in: Cell::new(0),
            budget: Cell::new(0),
        }
    }

    /// A clock on `Date.now()` only, as where `performance` is missing.
    #[cfg(test)]
    pub(crate) fn date_only() -> Clock {
        Clock::with_origin(None)
    }

    /// The current time in ms since the Unix epoch, as the module docs describe: the last
    /// reading again for up to [`CALLS_PER_READ`] calls within one task, else one `Date.now()`
    /// call, plus a precise reading when `Date.now()` has moved on since the last one.
    #[inline]
    pub(crate) fn now_ms(&self) -> u64 {
        let b = self.budget.get();
        if b > 0 && self.read_in.get() == task() {
            self.budget.set(b - 1);
            return self.seen_ms.get();
        }
        self.read()
    }

    #[inline(never)]
    fn read(&self) -> u64 {
        let d = date_now();
        let ms = if d == self.seen_date.get() {
            self.seen_ms.get()
        } else {
            self.refresh(d)
        };
        if let Some(t) = task_scheduled() {
            self.read_in.set(t);
            self.budget.set(CALLS_PER_READ - 1);
        }
        ms
    }

    /// Takes a precise reading and remembers it with `date`, the `Date.now()` read just before.
    #[inline(never)]
    fn refresh(&self, date: f64) -> u64 {
        let ms = self.precise_ms();
        self.seen_date.set(date);
        self.seen_ms.set(ms);
        ms
    }

    /// A precise reading, remembered for [`now_ms`](Self::now_ms).
    fn refresh_now(&self) -> u64 {
        self.refresh(date_now())
    }

    /// A fresh reading of the precise clock, ms since the Unix epoch (fractions dropped).
    pub(crate) fn precise_ms(&self) -> u64 {
        let t = match self.origin {
            Some(origin) => origin + performance_now(),
            None => date_now(),
        };
        // `as` saturates: NaN or a negative time would give 0, which the layout refuses
        // (ERR_BEFORE_EPOCH) rather than minting at a wrong time.
        t as u64
    }

    /// Which source the clock reads: `"performance"` or `"Date"`.
    pub(crate) fn source(&self) -> &'static str {
        if self.origin.is_some() {
            "performance"
        } else {
            "Date"
        }
    }

    /// What a clocked call does with a core error: spins until `until_ms` for a short
    /// `WouldBlock` (then the caller tries again) and passes anything else on.
    #[inline(never)]
    pub(crate) fn wait_or_fail(&self, e: Error) -> Result<(), Error> {
        match e {
            Error::WouldBlock { until_ms } => {
                let now = self.refresh_now();
                if until_ms.saturating_sub(now) > MAX_SPIN_MS {
                    return Err(e);
                }
                // Spin until the wait is over; stop early if a wall clock (Date.now fallback)
                // steps back, and let the generator's policy judge the new time. Every reading
                // refreshes the cache, so the retry sees the time the wait ended at.
                loop {
                    let t = self.refresh_now();
                    if t >= until_ms || t < now {
                        return Ok(());
                    }
                    core::hint::spin_loop();
                }
            }
            other => Err(other),
        }
    }
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
    static CLOCK: Clock = Clock::new();
}

/// The current time in ms since the Unix epoch, from the module's clock.
pub(crate) fn now_ms() -> u64 {
    CLOCK.with(Clock::now_ms)
}

/// A precise reading of the module's clock (benchmarks compare it with [`now_ms`]).
pub(crate) fn precise_ms() -> u64 {
    CLOCK.with(Clock::precise_ms)
}

/// One `Date.now()` reading, truncated to ms (benchmarks compare it with [`now_ms`]).
pub(crate) fn date_ms() -> u64 {
    date_now() as u64
}
