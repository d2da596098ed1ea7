//! The lease worker: a background worker that takes this server's node from a lease store
//! (`idmint.lease`, any URL idmint-coord's `lease::open` takes: `postgres://...` is the same
//! lease table application servers' `LeasedSnowflake`s use, in this database or another), and
//! renews it with the same rules as coord's leased generator — the generator fenced at the
//! node's recorded bound, a bound recorded a reserve (the TTL) ahead before IDs reach it,
//! minting stopped a safety margin before the lease could expire (the core's `LeaseWindow`).
//! So this database and the application servers leasing from that table never hold one node.

use std::sync::atomic::Ordering;
use std::time::Duration;

use idmint::{AtomicSnowflake, Error, LeaseWindow, OnBackwards};
use idmint_coord::lease::{self, Lease, LeaseSpec, LeaseStore};
use pgrx::bgworkers::{
    BackgroundWorker, BackgroundWorkerBuilder, BgWorkerStartTime, SignalWakeFlags,
};
use pgrx::pg_sys;
use pgrx::prelude::*;

use crate::clock::{mono_ms, wall_ms};
use crate::settings::{self, NodeSource, Settings};
use crate::shared::{self, Shared};

/// Registers the worker (from `_PG_init` while preloading).
pub fn register() {
    BackgroundWorkerBuilder::new("idmint lease worker")
        .set_type("idmint lease worker")
        .set_function("idmint_lease_worker")
        .set_library("idmint")
        .enable_shmem_access(None)
        .set_start_time(BgWorkerStartTime::PostmasterStart)
        .set_restart_time(Some(Duration::from_secs(1)))
        .load();
}

/// Runs `f` with every signal blocked in this thread, so that threads the store's client
/// starts (its tokio runtime) never take PostgreSQL's signals.
fn quiet<T>(f: impl FnOnce() -> T) -> T {
    // SAFETY: plain signal mask calls on this thread with valid sigset pointers.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, &mut old);
        let r = f();
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        r
    }
}

/// Sleeps up to `ms` or until woken; `false` when the server is stopping.
fn pause(ms: u64) -> bool {
    BackgroundWorker::wait_latch(Some(Duration::from_millis(ms.max(1))))
}

struct Plan {
    settings: Settings,
    spec: LeaseSpec,
    ttl_ms: u64,
    reserve_ms: u64,
}

/// The worker's entry point.
#[pg_guard]
#[no_mangle]
pub extern "C-unwind" fn idmint_lease_worker(_arg: pg_sys::Datum) {
    BackgroundWorker::attach_signal_handlers(SignalWakeFlags::SIGHUP | SignalWakeFlags::SIGTERM);
    let Some(sh) = shared::get() else { return };
    // SAFETY: MyLatch is this process's latch in its PGPROC, in shared memory.
    sh.worker_latch
        .store(unsafe { pg_sys::MyLatch } as usize, Ordering::Release);
    let Some(plan) = plan(sh) else {
        // Settings are invalid: the postmaster recorded why; nothing to lease.
        while pause(60_000) {}
        return;
    };
    let url = match &plan.settings.node {
        NodeSource::Lease { url, .. } => url.clone(),
        _ => return,
    };
    let store = loop {
        match quiet(|| lease::open(&url)) {
            Ok(s) => break s,
            Err(e) => {
                sh.message
                    .set(&format!("{}: cannot open the lease store: {e}", e.code()));
                if !pause(1_000) {
                    return;
                }
            }
        }
    };
    loop {
        match acquire(sh, &plan, &*store) {
            Ok((held, window)) => {
                if !hold(sh, &plan, &*store, held, window) {
                    return;
                }
            }
            Err(e) => {
                sh.message
                    .set(&format!("{}: cannot lease a node: {e}", e.code()));
                if !pause(1_000) {
                    return;
                }
            }
        }
    }
}

fn plan(sh: &Shared) -> Option<Plan> {
    let settings = settings::read().ok()?;
    let (namespace, ttl_ms) = match &settings.node {
        NodeSource::Lease {
            namespace, ttl_ms, ..
        } => (namespace.clone(), *ttl_ms),
        _ => return None,
    };
    let reserve_ms = ttl_ms;
    let ahead_ms = match settings.on_backwards {
        OnBackwards::Logical { max_ms } => max_ms,
        _ => 0,
    };
    let ttl = Duration::from_millis(ttl_ms);
    let horizon_ms = ttl_ms + reserve_ms + ahead_ms;
    let spec = LeaseSpec::new(
        &namespace,
        settings.layout.max_node().saturating_add(1),
        ttl,
    )
    .holder(&format!("postgresql:{}", lease::default_holder()))
    .horizon(Duration::from_millis(horizon_ms));
    if let Err(e) = spec.validate() {
        sh.message
            .set(&format!("{}: idmint.lease_namespace: {e}", e.code()));
        return None;
    }
    sh.horizon_ms.store(horizon_ms, Ordering::Relaxed);
    Some(Plan {
        settings,
        spec,
        ttl_ms,
        reserve_ms,
    })
}

/// Takes a node, records its first bound and publishes a generator fenced at its record.
fn acquire(
    sh: &Shared,
    plan: &Plan,
    store: &dyn LeaseStore,
) -> Result<(Lease, LeaseWindow), Error> {
    let held = quiet(|| store.acquire(&plan.spec, wall_ms(), None))?;
    let fence = held.fence_ms;
    let sent = mono_ms();
    let bound = wall_ms().max(fence.unwrap_or(0)) + plan.reserve_ms;
    if let Err(e) = quiet(|| store.renew(&held, bound)) {
        let _ = quiet(|| store.release(&held, fence.unwrap_or(0)));
        return Err(e);
    }
    let window = LeaseWindow::new(
        held.node,
        fence,
        bound,
        sent,
        plan.ttl_ms,
        Some(plan.ttl_ms / 3),
    )?;
    let generator = match AtomicSnowflake::new(plan.settings.config(held.node, fence)) {
        Ok(g) => g,
        Err(e) => {
            let _ = quiet(|| store.release(&held, bound));
            return Err(e);
        }
    };
    sh.bound_ms.store(bound, Ordering::Release);
    sh.deadline_mono
        .store(window.deadline().unwrap_or(0), Ordering::Release);
    sh.ready_at_ms.store(fence.unwrap_or(0), Ordering::Release);
    sh.lease_node.store(held.node, Ordering::Release);
    sh.lease_token.store(held.token, Ordering::Release);
    sh.publish(plan.settings.layout, generator);
    sh.lost.store(false, Ordering::Release);
    sh.message.set("");
    pgrx::log!(
        "idmint: leased node {} (token {}, fence {:?}) from the {} store",
        held.node,
        held.token,
        fence,
        store.kind()
    );
    Ok((held, window))
}

/// Renews until the lease is lost (`true`: lease again) or the server stops (`false`).
fn hold(
    sh: &Shared,
    plan: &Plan,
    store: &dyn LeaseStore,
    held: Lease,
    mut window: LeaseWindow,
) -> bool {
    let mut wait = window.renew_in(mono_ms());
    loop {
        if wait > 0 && !sh.renew_requested.load(Ordering::Acquire) {
            if !pause(wait) {
                let last = sh.bound_ms.load(Ordering::Acquire);
                sh.withdraw();
                let _ = quiet(|| store.release(&held, last));
                return false;
            }
            wait = window.renew_in(mono_ms());
            continue;
        }
        sh.renew_requested.store(false, Ordering::Release);
        let sent = mono_ms();
        let high = sh
            .current()
            .and_then(|(slot, _)| slot.generator().high_water_ms())
            .unwrap_or(0);
        let bound = wall_ms()
            .max(high)
            .max(held.fence_ms.unwrap_or(0))
            .saturating_add(plan.reserve_ms);
        match quiet(|| store.renew(&held, bound)) {
            Ok(()) => {
                if let Err(e) = window.renewed(bound, sent, plan.ttl_ms, Some(plan.ttl_ms / 3)) {
                    sh.message.set(&format!("{}: {e}", e.code()));
                }
                sh.bound_ms.fetch_max(bound, Ordering::AcqRel);
                sh.deadline_mono
                    .store(window.deadline().unwrap_or(0), Ordering::Release);
                sh.message.set("");
                wait = window.renew_in(mono_ms());
            }
            Err(Error::LeaseLost { node, reason }) => {
                sh.lost.store(true, Ordering::Release);
                sh.withdraw();
                window.lose();
                sh.message.set(&format!(
                    "ERR_LEASE_LOST: lease on node {node} lost: {reason}; leasing again"
                ));
                pgrx::warning!("idmint: lease on node {node} lost: {reason}; leasing again");
                return true;
            }
            Err(e) => {
                sh.message
                    .set(&format!("{}: renewing the lease failed: {e}", e.code()));
                wait = window.retry_in(mono_ms(), None);
            }
        }
    }
}
