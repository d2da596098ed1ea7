//! What a run records: every request and its answer, the windows nodes were held in, and when
//! each fault was really applied and healed. Times are ms after the run's start, on the
//! harness's monotonic clock.

/// Which client made a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    /// `GET /v1/snowflake` (one ID).
    Snowflake,
    /// `GET /v1/snowflake?count=N`.
    Batch,
    /// `GET /v1/segments/{key}`.
    Segment,
    /// A browser-style client minting locally on a client lease.
    Browser,
}

impl Group {
    /// The group's name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Group::Snowflake => "snowflake",
            Group::Batch => "batch",
            Group::Segment => "segment",
            Group::Browser => "browser",
        }
    }
}

/// One request (or, for a browser client, one local mint) and its outcome.
#[derive(Debug, Clone)]
pub struct Op {
    /// The client group.
    pub group: Group,
    /// The instance asked (for a browser client: the one that granted its lease).
    pub instance: usize,
    /// Which run of that instance's process was asked (it grows at each restart).
    pub incarnation: u32,
    /// The browser client, for [`Group::Browser`].
    pub client: usize,
    /// The segment key, for [`Group::Segment`].
    pub key: String,
    /// The browser client's lease (its index in [`History::tenures`]).
    pub tenure: Option<usize>,
    /// When it was sent.
    pub start_ms: u64,
    /// When the answer (or the failure) came.
    pub end_ms: u64,
    /// Whether IDs were acknowledged.
    pub ok: bool,
    /// The error code or reason when not.
    pub error: String,
    /// The IDs acknowledged.
    pub ids: Vec<u64>,
}

/// A node held by one holder, as the harness saw it: an instance's own lease (from its
/// `/v1/monitor`) or a browser client's lease (from the grant and renewals).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tenure {
    /// `n1#2` (instance 1, second process) or `b0#3` (browser client 0, fourth lease).
    pub holder: String,
    /// The instance (or the browser client) holding it.
    pub owner: usize,
    /// The instance's process run (0 for browser clients).
    pub incarnation: u32,
    /// Whether a browser client holds it.
    pub browser: bool,
    /// The node.
    pub node: u64,
    /// The fencing token.
    pub token: u64,
    /// The time fence of the grant: no ID at or before it.
    pub fence_ms: Option<u64>,
    /// The highest recorded bound seen: no ID after it.
    pub bound_ms: u64,
    /// When the harness first saw it.
    pub first_seen_ms: u64,
    /// When the harness last saw it (an ID acknowledged after this is not checked against
    /// the bound: a later renewal may have raised it unseen).
    pub last_seen_ms: u64,
}

/// What each fault did to an instance, for judging its availability.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Cut off from its store (network, store down): must stop minting Snowflake IDs within
    /// the TTL (fail closed).
    Cut,
    /// Paused or killed: nothing is asked of it while the fault lasts.
    Down,
    /// Its clock jumped: no availability asked while it lasts.
    Disturbed,
}

/// A fault as applied: the real times, and its effect on each instance (none: on the
/// majority side, so it must keep serving).
#[derive(Debug, Clone)]
pub struct Applied {
    /// The schedule's fault id.
    pub id: usize,
    /// The fault kind's name.
    pub kind: String,
    /// Its description.
    pub what: String,
    /// When it was applied.
    pub start_ms: u64,
    /// When healing began (a restart can serve before the harness sees it ready).
    pub heal_started_ms: u64,
    /// When it was healed (the process restarted, the route restored, the store ready).
    pub end_ms: u64,
    /// Per instance, its effect.
    pub effects: Vec<Option<Effect>>,
    /// Whether recovery after the heal may take the store's lock delay (two TTLs) more than
    /// two TTLs: after data loss, or a restart the store cannot tell from one, it fences
    /// every new grant past now + the lock delay.
    pub slow_recovery: bool,
}

/// A whole run's record.
#[derive(Debug, Clone, Default)]
pub struct History {
    /// Every request.
    pub ops: Vec<Op>,
    /// Every node holding seen.
    pub tenures: Vec<Tenure>,
    /// Every fault as applied.
    pub applied: Vec<Applied>,
    /// Run length, ms.
    pub duration_ms: u64,
}
