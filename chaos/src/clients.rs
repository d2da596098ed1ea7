//! What every client thread shares (the run's clock, the stop flag, the instances, the browser
//! clients' terms) and what each records, for the Rust clients (`workload`) and the browser
//! package's own clients run in Node.js (`browser_js`) alike.

use crate::history::{Op, Tenure};
use idmint::Layout;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// What the client threads share.
#[derive(Clone)]
pub struct Shared {
    /// The run's start: every time recorded is ms after it.
    pub t0: Instant,
    /// Set to stop every thread.
    pub stop: Arc<AtomicBool>,
    /// Per instance: base URL and current incarnation.
    pub instances: Vec<(String, Arc<AtomicU32>)>,
    /// The lease TTL browser clients ask for, ms.
    pub ttl_ms: u64,
    /// The browser clients' layout.
    pub browser_layout: Layout,
    /// The browser package's Node build and the client script that drives it, when browser
    /// clients run the package itself ([`crate::browser_js`]); else they replay its protocol
    /// in Rust.
    pub browser_js: Option<(PathBuf, PathBuf)>,
}

impl Shared {
    /// Ms since the run's start.
    pub fn now(&self) -> u64 {
        self.t0.elapsed().as_millis() as u64
    }

    /// Whether the clients are to stop.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// What one thread recorded.
#[derive(Default)]
pub struct Recorded {
    /// Its requests.
    pub ops: Vec<Op>,
    /// The node holdings it saw (browser leases, instance leases).
    pub tenures: Vec<Tenure>,
}
