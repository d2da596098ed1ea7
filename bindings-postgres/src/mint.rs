//! Minting in a backend: the shared generator, then the checks every ID passes before it is
//! handed out — its time at most the recorded bound (raised first when it would pass it), the
//! lease alive, the generator still the published one.

use std::sync::atomic::Ordering;

use idmint::Error;
use pgrx::pg_sys;

use crate::clock::{mono_ms, wall_ms};
use crate::error::Refusal;
use crate::shared::{self, Mode, Shared};
use crate::state_file;

/// The longest a backend waits for the lease worker to record a later bound.
const RENEW_WAIT_MS: u64 = 2_000;

/// Sleeps `ms` (at most 100 at a time), answering cancel requests meanwhile.
fn sleep_ms(ms: u64) {
    let ms = ms.clamp(1, 100);
    // SAFETY: plain PostgreSQL calls from a backend's main thread.
    unsafe {
        pg_sys::pg_usleep((ms * 1000) as std::ffi::c_long);
        pg_sys::check_for_interrupts!();
    }
}

fn ready(sh: &'static Shared) -> Result<(), Refusal> {
    match sh.mode() {
        Mode::Static | Mode::Lease => Ok(()),
        Mode::Unset => Err(Refusal::Core(Error::NodeRequired)),
        Mode::Invalid => Err(Refusal::Config(sh.message.get())),
    }
}

/// The shared segment, or why minting is not possible in this server.
pub fn shared() -> Result<&'static Shared, Refusal> {
    let sh = shared::get().ok_or_else(|| {
        Refusal::NotReady(
            "ERR_INVALID_CONFIG: idmint is not preloaded: add idmint to shared_preload_libraries in postgresql.conf (the generator lives in shared memory) and restart the server".to_string(),
        )
    })?;
    ready(sh)?;
    // A standby copies its primary's postgresql.conf, and with it a fixed idmint.node: minting
    // there would repeat the primary's IDs. (A leased node is the standby's own.)
    // SAFETY: a plain PostgreSQL call from a backend (cheap once recovery has ended).
    if sh.mode() == Mode::Static && unsafe { pg_sys::RecoveryInProgress() } {
        return Err(Refusal::NotReady(
            "ERR_INVALID_CONFIG: this server is in recovery (a standby) and idmint.node is fixed: its primary mints on the same node; give the standby idmint.lease, or mint on the primary".to_string(),
        ));
    }
    Ok(sh)
}

/// Fills `out` with IDs, all checked.
pub fn fill(out: &mut [u64]) -> Result<(), Refusal> {
    let sh = shared()?;
    let lease = sh.mode() == Mode::Lease;
    let mut filled = 0;
    let mut waited_ms = 0u64;
    while filled < out.len() {
        let Some((slot, generation)) = sh.current() else {
            // A lease not taken yet, or lost and not taken again.
            if waited_ms >= RENEW_WAIT_MS {
                return Err(Refusal::NotReady(format!(
                    "ERR_LEASE_LOST: no node leased yet: {}",
                    sh.message.get()
                )));
            }
            sleep_ms(10);
            waited_ms += 10;
            continue;
        };
        let now = wall_ms();
        let ready_at = sh.ready_at_ms.load(Ordering::Relaxed);
        if now < ready_at && ready_at - now <= sh.horizon_ms.load(Ordering::Relaxed) {
            // The fence is ahead of the clock by less than the horizon: the node's last
            // recorded bound (a reserve ahead of its last minting), not a clock step. Wait.
            sleep_ms(ready_at - now);
            continue;
        }
        let bound = sh.bound_ms.load(Ordering::Acquire);
        if !lease && now.saturating_add(state_file::RESERVE_MS / 2) > bound {
            // Raise the written-ahead bound before minting reaches it.
            raise_file_bound(sh, now)?;
        }
        let gen = slot.generator();
        let chunk = &mut out[filled..];
        // One ID takes the generator's single-ID fast path (one load, one compare-and-swap).
        let minted = if chunk.len() == 1 {
            gen.next_id_at(now).map(|id| {
                chunk[0] = id;
                1
            })
        } else {
            gen.next_ids_at(now, chunk)
        };
        let n = match minted {
            Ok(n) => n,
            Err(Error::WouldBlock { until_ms }) => {
                sleep_ms(until_ms.saturating_sub(now));
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let layout = slot.layout();
        let latest = chunk[..n]
            .iter()
            .map(|&id| layout.timestamp_ms(id))
            .max()
            .unwrap_or(0);
        if sh.generation.load(Ordering::Acquire) != generation {
            continue; // minted on a generator that was replaced meanwhile: discarded
        }
        if lease {
            let node = sh.lease_node.load(Ordering::Relaxed);
            if sh.lost.load(Ordering::Acquire)
                || mono_ms() >= sh.deadline_mono.load(Ordering::Acquire)
            {
                return Err(Error::LeaseLost {
                    node,
                    reason: "the lease worker could not renew it before its deadline",
                }
                .into());
            }
        }
        if latest > sh.bound_ms.load(Ordering::Acquire) {
            // Past the recorded bound (the clock jumped ahead of the last write or renewal):
            // these IDs are discarded and the bound raised first.
            if lease {
                wait_for_renewal(sh, latest)?;
            } else {
                raise_file_bound(sh, latest)?;
            }
            continue;
        }
        filled += n;
    }
    Ok(())
}

/// Writes a bound a reserve past `at_ms` into the state file (one backend at a time; the
/// others wait for it), then lets minting use it.
fn raise_file_bound(sh: &'static Shared, at_ms: u64) -> Result<(), Refusal> {
    loop {
        if sh.bound_ms.load(Ordering::Acquire) >= at_ms.saturating_add(state_file::RESERVE_MS / 2) {
            return Ok(());
        }
        if sh
            .writing
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            let bound = at_ms.max(wall_ms()).saturating_add(state_file::RESERVE_MS);
            let written = state_file::write(bound);
            if written.is_ok() {
                sh.bound_ms.fetch_max(bound, Ordering::AcqRel);
            }
            sh.writing.store(false, Ordering::Release);
            return written.map_err(Refusal::Config);
        }
        sleep_ms(1);
    }
}

/// Asks the lease worker to renew now, and waits until the recorded bound covers `at_ms`.
fn wait_for_renewal(sh: &'static Shared, at_ms: u64) -> Result<(), Refusal> {
    sh.renew_requested.store(true, Ordering::Release);
    let latch = sh.worker_latch.load(Ordering::Acquire);
    if latch != 0 {
        // SAFETY: the worker's latch is in shared memory (its PGPROC) for the worker's life.
        unsafe { pg_sys::SetLatch(latch as *mut pg_sys::Latch) };
    }
    let mut waited = 0;
    while sh.bound_ms.load(Ordering::Acquire) < at_ms {
        if waited >= RENEW_WAIT_MS {
            return Err(Error::LeaseLost {
                node: sh.lease_node.load(Ordering::Relaxed),
                reason: "the recorded bound could not be advanced",
            }
            .into());
        }
        sleep_ms(5);
        waited += 5;
    }
    Ok(())
}
