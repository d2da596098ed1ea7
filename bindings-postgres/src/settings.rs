//! The extension's settings (GUCs). All are read once by the postmaster when it starts (the
//! generator lives in shared memory), so all are `postmaster` context: change them in
//! `postgresql.conf` and restart.
//!
//! - `idmint.layout`: a preset name or a layout spec (default `twitter`).
//! - `idmint.node`: this database's node value (a number, or `name=value,...` sub-fields).
//! - `idmint.lease`: a lease store URL (`postgres://...`): a background worker leases the node.
//! - `idmint.lease_namespace`, `idmint.lease_ttl_ms`: the lease's namespace and time to live.
//! - `idmint.on_backwards`: the core's clock-step policy (`wait:MS`, `logical:MS`, `fail`).
//!
//! With neither a node nor a lease, minting refuses (there is no default node).

use std::ffi::CString;

use idmint::{Config, Layout, OnBackwards};
use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};

static LAYOUT: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(Some(c"twitter"));
static NODE: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
static LEASE: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
static NAMESPACE: GucSetting<Option<CString>> =
    GucSetting::<Option<CString>>::new(Some(c"default"));
static TTL_MS: GucSetting<i32> = GucSetting::<i32>::new(10_000);
static ON_BACKWARDS: GucSetting<Option<CString>> =
    GucSetting::<Option<CString>>::new(Some(c"wait:1000"));

/// Registers the settings (every process that loads the library does).
pub fn define() {
    GucRegistry::define_string_guc(
        c"idmint.layout",
        c"Layout of idmint.next_id(): a preset name (twitter, leaf, ...) or a layout spec.",
        c"Read at server start.",
        &LAYOUT,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"idmint.node",
        c"Node value of idmint.next_id(); no other generator may use it.",
        c"A number, or sub-fields as name=value,... Leave empty to lease one (idmint.lease).",
        &NODE,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"idmint.lease",
        c"Lease store URL the node is leased from (postgres://...).",
        c"A background worker takes a node from the store's lease table and renews it.",
        &LEASE,
        GucContext::Postmaster,
        GucFlags::SUPERUSER_ONLY,
    );
    GucRegistry::define_string_guc(
        c"idmint.lease_namespace",
        c"Lease namespace (separate node spaces in one store).",
        c"",
        &NAMESPACE,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"idmint.lease_ttl_ms",
        c"Lease time to live in ms (renewed every third of it).",
        c"",
        &TTL_MS,
        100,
        3_600_000,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"idmint.on_backwards",
        c"What minting does when the clock is behind the last issued time: wait:MS, logical:MS or fail.",
        c"",
        &ON_BACKWARDS,
        GucContext::Postmaster,
        GucFlags::default(),
    );
}

fn text(setting: &GucSetting<Option<CString>>) -> Option<String> {
    setting
        .get()
        .map(|c| c.to_string_lossy().trim().to_string())
        .filter(|s| !s.is_empty())
}

/// Whether `idmint.lease` names a store (checked in `_PG_init`, before shared memory exists).
pub fn lease_configured() -> bool {
    text(&LEASE).is_some()
}

/// Where the node comes from.
#[derive(Debug, Clone)]
pub enum NodeSource {
    /// Neither `idmint.node` nor `idmint.lease`: minting refuses.
    Unset,
    /// `idmint.node`.
    Static(u64),
    /// `idmint.lease`.
    Lease {
        /// The store URL.
        url: String,
        /// The lease namespace.
        namespace: String,
        /// The lease TTL in ms.
        ttl_ms: u64,
    },
}

/// The settings, checked.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The layout.
    pub layout: Layout,
    /// The clock-step policy.
    pub on_backwards: OnBackwards,
    /// Where the node comes from.
    pub node: NodeSource,
}

impl Settings {
    /// The generator config for `node`, fenced at `fence_ms`.
    pub fn config(&self, node: u64, fence_ms: Option<u64>) -> Config {
        let cfg = Config::new(self.layout)
            .node(node)
            .on_backwards(self.on_backwards);
        match fence_ms {
            Some(f) => cfg.fence_ms(f),
            None => cfg,
        }
    }
}

/// The layout setting alone (for `decode` and `layout_info` without an argument).
pub fn layout() -> Result<Layout, String> {
    let spec = text(&LAYOUT).unwrap_or_else(|| "twitter".to_string());
    Layout::parse(&spec).map_err(|e| format!("idmint.layout = '{spec}': {} ({})", e, e.code()))
}

/// Reads and checks every setting; the error names the setting and what is wrong with it.
pub fn read() -> Result<Settings, String> {
    let layout = layout()?;
    let policy_text = text(&ON_BACKWARDS).unwrap_or_else(|| "wait:1000".to_string());
    let on_backwards: OnBackwards = policy_text.parse().map_err(|e: idmint::Error| {
        format!("idmint.on_backwards = '{policy_text}': {e} ({})", e.code())
    })?;
    if matches!(on_backwards, OnBackwards::Ring { .. }) {
        return Err(format!(
            "idmint.on_backwards = '{policy_text}': the ring policy keeps per-process memory and cannot be shared between backends; use wait:MS, logical:MS or fail"
        ));
    }
    let node = text(&NODE);
    let lease = text(&LEASE);
    let node = match (node, lease) {
        (Some(_), Some(_)) => {
            return Err(
                "idmint.node and idmint.lease are both set: give one (a fixed node, or a lease store to take one from)"
                    .to_string(),
            )
        }
        (Some(n), None) => {
            let value = layout.parse_node(&n).map_err(|e| {
                format!("idmint.node = '{n}': {e} ({}) for layout {layout}", e.code())
            })?;
            NodeSource::Static(value)
        }
        (None, Some(url)) => {
            let namespace = text(&NAMESPACE).unwrap_or_else(|| "default".to_string());
            let ttl_ms = u64::try_from(TTL_MS.get()).unwrap_or(10_000);
            NodeSource::Lease {
                url,
                namespace,
                ttl_ms,
            }
        }
        (None, None) => NodeSource::Unset,
    };
    let settings = Settings {
        layout,
        on_backwards,
        node,
    };
    // Let the core check the whole config once (policy against layout) before any backend mints.
    if let NodeSource::Static(n) = settings.node {
        idmint::AtomicSnowflake::new(settings.config(n, None))
            .map_err(|e| format!("idmint settings: {e} ({})", e.code()))?;
    }
    Ok(settings)
}
