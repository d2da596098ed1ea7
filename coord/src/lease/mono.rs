//! Monotonic milliseconds for lease deadlines. Wall-clock steps (NTP, an operator, faketime's
//! offset) cannot move these readings, so they cannot extend a lease.
//!
//! The coarse reading (`CLOCK_MONOTONIC_COARSE`, a few ns through the vDSO) is what the
//! generator's hot path compares with the deadline; it lags the precise one by at most
//! [`coarse_lag_ms`], which deadlines subtract. Like every monotonic clock it does not advance
//! while the host is suspended; the recorded bound (checked against each ID's time) still keeps
//! IDs unique then.

#[cfg(target_os = "linux")]
fn read(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; clock_gettime has no other preconditions.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    #[allow(clippy::unnecessary_cast)] // the field types differ between targets
    let ms = ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000;
    ms
}

/// Precise monotonic milliseconds.
#[cfg(target_os = "linux")]
pub(crate) fn now_ms() -> u64 {
    read(libc::CLOCK_MONOTONIC)
}

/// Coarse monotonic milliseconds (never ahead of [`now_ms`], behind by at most [`coarse_lag_ms`]).
#[cfg(target_os = "linux")]
#[inline]
pub(crate) fn coarse_ms() -> u64 {
    read(libc::CLOCK_MONOTONIC_COARSE)
}

/// How far [`coarse_ms`] can lag [`now_ms`]: two coarse-clock resolutions (a busy host
/// delays the kernel's tick update).
#[cfg(target_os = "linux")]
pub(crate) fn coarse_lag_ms() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: as above.
    let rc = unsafe { libc::clock_getres(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
    if rc != 0 {
        return 20;
    }
    let ns = ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64;
    ns.div_ceil(1_000_000).max(1) * 2
}

#[cfg(not(target_os = "linux"))]
fn base() -> std::time::Instant {
    use std::sync::OnceLock;
    static BASE: OnceLock<std::time::Instant> = OnceLock::new();
    *BASE.get_or_init(std::time::Instant::now)
}

/// Precise monotonic milliseconds.
#[cfg(not(target_os = "linux"))]
pub(crate) fn now_ms() -> u64 {
    base().elapsed().as_millis() as u64 + 1
}

/// Monotonic milliseconds (no cheaper clock here).
#[cfg(not(target_os = "linux"))]
#[inline]
pub(crate) fn coarse_ms() -> u64 {
    now_ms()
}

/// No lag: [`coarse_ms`] is the precise clock here.
#[cfg(not(target_os = "linux"))]
pub(crate) fn coarse_lag_ms() -> u64 {
    0
}
