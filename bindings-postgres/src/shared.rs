//! The generator's shared memory: one segment, created by the postmaster before it forks any
//! backend, holding the core's [`AtomicSnowflake`] (its whole minting state is one atomic word,
//! advanced by compare-and-swap, so concurrent backends never repeat an ID) and what each ID
//! is checked against before it is handed out (the recorded bound, the lease deadline).
//!
//! Two generator slots: a new lease (a new node, a new fence) is built in the idle slot and
//! published by switching `active` and bumping `generation`; a backend that minted on the old
//! slot sees the generation change and discards that ID. `AtomicSnowflake` holds no pointer
//! (its config is `Copy`; the ring policy, which allocates, is refused), so it is valid in
//! every process that maps the segment.

use std::mem::MaybeUninit;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};

use idmint::{AtomicSnowflake, Layout};
use pgrx::pg_sys;
use pgrx::prelude::*;

use crate::message::Message;
use crate::settings::{self, NodeSource};
use crate::state_file;

/// How the node is chosen, as the postmaster found the settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Mode {
    /// Neither `idmint.node` nor `idmint.lease`: minting refuses.
    Unset = 0,
    /// `idmint.node`, fenced by the state file.
    Static = 1,
    /// `idmint.lease`, fenced by the lease record.
    Lease = 2,
    /// A setting is invalid: minting refuses with the message.
    Invalid = 3,
}

/// One generator and the layout it mints in.
#[repr(C)]
pub struct Slot {
    layout: MaybeUninit<Layout>,
    generator: MaybeUninit<AtomicSnowflake>,
}

impl Slot {
    /// The generator. Only for a published slot (`active` names it).
    pub fn generator(&self) -> &AtomicSnowflake {
        // SAFETY: published slots were written by `publish` before `active` named them.
        unsafe { self.generator.assume_init_ref() }
    }

    /// The slot's layout. Only for a published slot.
    pub fn layout(&self) -> &Layout {
        // SAFETY: as `generator`.
        unsafe { self.layout.assume_init_ref() }
    }
}

/// Everything the backends and the lease worker share.
#[repr(C)]
pub struct Shared {
    mode: AtomicU32,
    /// 0: no generator yet; 1 or 2: the slot minting.
    pub active: AtomicU32,
    /// Bumped with every publication; a mint that saw another generation is discarded.
    pub generation: AtomicU64,
    slots: [Slot; 2],
    /// No ID whose time is past this may be handed out (ms since the Unix epoch): the state
    /// file's bound, or the lease record's.
    pub bound_ms: AtomicU64,
    /// Monotonic ms from which the lease may have expired: minting stops (`u64::MAX`: no lease).
    pub deadline_mono: AtomicU64,
    /// The fence the generator was built with: before it, minting waits (within the horizon).
    pub ready_at_ms: AtomicU64,
    /// How far ahead of the clock a fence is waited for rather than refused.
    pub horizon_ms: AtomicU64,
    /// The lease was lost and no new one is published yet.
    pub lost: AtomicBool,
    /// One backend at a time writes the state file.
    pub writing: AtomicBool,
    /// A backend asks the lease worker to renew now (an ID's time passed the bound).
    pub renew_requested: AtomicBool,
    /// The lease worker's latch (`*mut pg_sys::Latch`), to wake it.
    pub worker_latch: AtomicUsize,
    /// The leased node and its fencing token (`u64::MAX`: none).
    pub lease_node: AtomicU64,
    /// The lease's fencing token.
    pub lease_token: AtomicU64,
    /// Why minting refuses: the invalid setting, or the lease worker's last failure.
    pub message: Message,
}

static mut SHARED: *mut Shared = ptr::null_mut();
static mut PREV_REQUEST: Option<unsafe extern "C-unwind" fn()> = None;
static mut PREV_STARTUP: Option<unsafe extern "C-unwind" fn()> = None;

/// The shared segment, or `None` when the library was not preloaded.
pub fn get() -> Option<&'static Shared> {
    // SAFETY: set once by the postmaster's startup hook, before backends fork; read-only after.
    unsafe { SHARED.as_ref() }
}

impl Shared {
    /// The mode the postmaster found.
    pub fn mode(&self) -> Mode {
        match self.mode.load(Ordering::Acquire) {
            1 => Mode::Static,
            2 => Mode::Lease,
            3 => Mode::Invalid,
            _ => Mode::Unset,
        }
    }

    /// The published slot and its generation, if any.
    pub fn current(&self) -> Option<(&Slot, u64)> {
        let generation = self.generation.load(Ordering::Acquire);
        match self.active.load(Ordering::Acquire) {
            i @ (1 | 2) => Some((&self.slots[i as usize - 1], generation)),
            _ => None,
        }
    }

    /// Builds a generator in the idle slot and makes it the one minting. Only one process
    /// publishes at a time (the postmaster at startup, or the lease worker).
    pub fn publish(&self, layout: Layout, generator: AtomicSnowflake) {
        let idle = match self.active.load(Ordering::Acquire) {
            1 => 1,
            _ => 0,
        };
        let slot = &self.slots[idle] as *const Slot as *mut Slot;
        // SAFETY: the idle slot is not minted on (a backend still finishing a mint on it from
        // two publications ago sees the generation change and discards its ID).
        unsafe {
            ptr::write(ptr::addr_of_mut!((*slot).layout), MaybeUninit::new(layout));
            ptr::write(
                ptr::addr_of_mut!((*slot).generator),
                MaybeUninit::new(generator),
            );
        }
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.active.store(idle as u32 + 1, Ordering::Release);
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// Stops minting until the next publication (a lost lease).
    pub fn withdraw(&self) {
        self.active.store(0, Ordering::Release);
        self.generation.fetch_add(1, Ordering::AcqRel);
    }
}

/// Installs the shared memory hooks (from `_PG_init` while preloading).
pub fn install_hooks() {
    // SAFETY: `_PG_init` runs in the postmaster's main thread; the hooks chain to the previous.
    unsafe {
        PREV_REQUEST = pg_sys::shmem_request_hook;
        pg_sys::shmem_request_hook = Some(request);
        PREV_STARTUP = pg_sys::shmem_startup_hook;
        pg_sys::shmem_startup_hook = Some(startup);
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn request() {
    // SAFETY: called by the postmaster in its shared memory request phase.
    unsafe {
        if let Some(prev) = PREV_REQUEST {
            prev();
        }
        pg_sys::RequestAddinShmemSpace(std::mem::size_of::<Shared>());
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn startup() {
    // SAFETY: called by the postmaster (and again after a crash reinitializes shared memory),
    // under AddinShmemInitLock as PostgreSQL requires for ShmemInitStruct.
    unsafe {
        if let Some(prev) = PREV_STARTUP {
            prev();
        }
        // AddinShmemInitLock is MainLWLockArray[21] (lwlocknames.h), as pgrx's own shmem uses it.
        let init_lock = &raw mut (*pg_sys::MainLWLockArray.add(21)).lock;
        pg_sys::LWLockAcquire(init_lock, pg_sys::LWLockMode::LW_EXCLUSIVE);
        let mut found = false;
        let p = pg_sys::ShmemInitStruct(
            c"idmint".as_ptr(),
            std::mem::size_of::<Shared>(),
            &mut found,
        ) as *mut Shared;
        if !found {
            // All-zero is a valid empty `Shared` (no slot published, empty messages).
            ptr::write_bytes(p as *mut u8, 0, std::mem::size_of::<Shared>());
            init(&*p);
        }
        SHARED = p;
        pg_sys::LWLockRelease(init_lock);
    }
}

fn init(sh: &Shared) {
    sh.deadline_mono.store(u64::MAX, Ordering::Relaxed);
    sh.lease_node.store(u64::MAX, Ordering::Relaxed);
    let invalid = |m: String| {
        pgrx::warning!("idmint: {m}; idmint.next_id() refuses until this is fixed");
        sh.message.set(&m);
        sh.mode.store(Mode::Invalid as u32, Ordering::Release);
    };
    let settings = match settings::read() {
        Ok(s) => s,
        Err(m) => return invalid(m),
    };
    match settings.node {
        NodeSource::Unset => sh.mode.store(Mode::Unset as u32, Ordering::Release),
        NodeSource::Lease { .. } => {
            sh.message
                .set("idmint: waiting for the lease worker to take a node");
            sh.mode.store(Mode::Lease as u32, Ordering::Release);
        }
        NodeSource::Static(node) => {
            let fence = match state_file::read() {
                Ok(f) => f,
                Err(m) => return invalid(m),
            };
            let generator = match AtomicSnowflake::new(settings.config(node, fence)) {
                Ok(g) => g,
                Err(e) => return invalid(format!("idmint settings: {e} ({})", e.code())),
            };
            sh.bound_ms.store(fence.unwrap_or(0), Ordering::Relaxed);
            sh.ready_at_ms.store(fence.unwrap_or(0), Ordering::Relaxed);
            sh.horizon_ms
                .store(state_file::RESERVE_MS + 1_000, Ordering::Relaxed);
            sh.publish(settings.layout, generator);
            sh.mode.store(Mode::Static as u32, Ordering::Release);
        }
    }
}
