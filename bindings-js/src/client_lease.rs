//! The browser's lease client (`LeasedSnowflake.lease(serviceUrl, options)` of bindings-wasm,
//! on an idmint lease service's client leases: `idmint serve`, "Node leases"): its options
//! object, and the service's answers — the grant of `POST /v1/leases` and the renewal of
//! `POST /v1/leases/renew` — read and checked here, with the rules and error texts of every
//! other argument, so the package's JavaScript keeps only the requests, timers and promises.
//!
//! The options go through the same [`options::read`] as every options object (the Node
//! package's `LeasedSnowflakeOptions` included): the request's keys (`namespace`, `token`,
//! `ttlMs`, `fetch`, `layout`) are taken first, `node` and `fenceMs` are refused (they come from
//! the lease), and every other key is the generator's, checked at once by the core on node 0.
//! An answer's fields are the service's JSON names (`bound_ms`, `fence_ms`, ...) and are named
//! so in messages (`grant.node must not be negative; received -1`).

use idmint::snowflake::options::{OptionValue, SnowflakeOptions};
use idmint::{Config, Error, Layout, LeaseWindow, Name};

use crate::convert::{
    expect_object, function_arg, is_nullish, layout_arg, string_arg, u64_arg, wrong,
};
use crate::error::OrThrow;
use crate::options;
use crate::{Host, JsType};

/// The checked options of one `lease()` call: what the request sends, and the generator's
/// policies for the node the grant brings.
pub struct ClientLeaseOptions<V> {
    /// `namespace`: the namespace to lease a node in.
    pub namespace: Option<String>,
    /// `layout`: the layout to ask for, as the request sends it (a spec string as given, or a
    /// `Layout`'s spec).
    pub layout: Option<String>,
    /// `ttlMs`: the lease's time to live asked for.
    pub ttl_ms: Option<u64>,
    /// `token`: the service's bearer token.
    pub token: Option<String>,
    /// `fetch`: the function to make the requests with.
    pub fetch: Option<V>,
    /// Every other key: the generator's (without layout, node and fence: the grant's).
    generator: SnowflakeOptions,
}

/// Checks `lease(serviceUrl, options)`'s first argument: a string (the package turns a `URL`
/// into its text first).
pub fn service_url<H: Host>(h: &H, v: &H::Value) -> Result<(), H::Error> {
    if h.type_of(v) != JsType::String {
        return Err(wrong(h, v, "serviceUrl", "a string or a URL"));
    }
    Ok(())
}

/// Reads `lease(serviceUrl, options)`'s options object `v` (absent, `undefined` or `null`:
/// every default).
pub fn lease_options<H: Host>(
    h: &H,
    v: Option<&H::Value>,
) -> Result<ClientLeaseOptions<H::Value>, H::Error> {
    let mut o = ClientLeaseOptions {
        namespace: None,
        layout: None,
        ttl_ms: None,
        token: None,
        fetch: None,
        generator: SnowflakeOptions::new(),
    };
    let mut asked = None;
    let mut generator = SnowflakeOptions::new();
    options::read(
        h,
        v,
        &mut generator,
        Some(&mut |key, x| {
            let what = format!("options.{key}");
            match key {
                "namespace" => o.namespace = Some(string_arg(h, x, &what)?),
                "token" => o.token = Some(string_arg(h, x, &what)?),
                "ttlMs" => o.ttl_ms = Some(u64_arg(h, x, &what)?),
                "fetch" => {
                    function_arg(h, x, &what)?;
                    o.fetch = Some(x.clone());
                }
                "layout" => {
                    let layout = layout_arg(h, x, &what)?;
                    o.layout = Some(match h.type_of(x) {
                        JsType::String => h.string(x)?,
                        _ => layout.to_string(),
                    });
                    asked = Some(layout);
                }
                "node" | "fenceMs" | "fence_ms" => {
                    let argument = Name::lossy(key);
                    let reason = "comes from the lease";
                    return Err(Error::InvalidArgument { argument, reason }).or_throw(h);
                }
                _ => return Ok(false),
            }
            Ok(true)
        }),
    )?;
    o.generator = generator;
    // The policies are checked now, before any request: on the layout asked for and node 0.
    let mut check = generator;
    if let Some(layout) = asked {
        check
            .set("layout", OptionValue::Layout(layout))
            .or_throw(h)?;
    }
    check.set("node", OptionValue::Int(0)).or_throw(h)?;
    check.config().or_throw(h)?;
    Ok(o)
}

/// What a grant and a renewal both state.
#[derive(Debug, Clone, Copy)]
pub struct Terms {
    /// `bound_ms`: the time the service recorded for the node; no ID may pass it.
    pub bound_ms: u64,
    /// `ttl_ms`: the lease's time to live from the request's sending.
    pub ttl_ms: u64,
    /// `renew_after_ms`: when the service asks for the next renewal (optional).
    pub renew_after_ms: Option<u64>,
}

impl Terms {
    /// The window's next terms, for a renewal request sent at monotonic `sent_at`.
    pub fn renew<H: Host>(&self, h: &H, w: &mut LeaseWindow, sent_at: u64) -> Result<(), H::Error> {
        w.renewed(self.bound_ms, sent_at, self.ttl_ms, self.renew_after_ms)
            .or_throw(h)
    }
}

/// A service's grant, read and checked: the terms, and the node it is for. (Its `lease` and
/// `namespace` are checked to be strings and left to the package, which sends the lease back.)
#[derive(Debug, Clone, Copy)]
pub struct Grant {
    /// The terms it states.
    pub terms: Terms,
    /// `layout`: the layout of the node space.
    pub layout: Layout,
    /// `node`: the node (checked against the layout when the generator is built).
    pub node: u64,
    /// `fence_ms`: the node's previous holder's recorded time, if it had one.
    pub fence_ms: Option<u64>,
    /// `server_time_ms`: the service's clock when it answered, if it said.
    pub server_time_ms: Option<u64>,
}

impl Grant {
    /// The generator config for this grant's node under `o`'s policies: the layout, node and
    /// fence are the grant's.
    pub fn config<H: Host, V>(&self, h: &H, o: &ClientLeaseOptions<V>) -> Result<Config, H::Error> {
        let mut g = o.generator;
        g.set("layout", OptionValue::Layout(self.layout))
            .or_throw(h)?;
        g.set("node", OptionValue::Int(self.node)).or_throw(h)?;
        if let Some(fence) = self.fence_ms {
            g.set("fence_ms", OptionValue::Int(fence)).or_throw(h)?;
        }
        g.config().or_throw(h)
    }

    /// The lease's window, for the grant request sent at monotonic `sent_at`:
    /// `ERR_INVALID_CONFIG` when it permits no ID (the bound not after the fence, a TTL of 0).
    /// With the service's clock, a fence it holds ahead of that clock (a lock delay) is a wait.
    pub fn window<H: Host>(&self, h: &H, sent_at: u64) -> Result<LeaseWindow, H::Error> {
        let t = &self.terms;
        let w = LeaseWindow::new(
            self.node,
            self.fence_ms,
            t.bound_ms,
            sent_at,
            t.ttl_ms,
            t.renew_after_ms,
        )
        .or_throw(h)?;
        Ok(match self.server_time_ms {
            Some(t) => w.service_time(t),
            None => w,
        })
    }
}

/// The terms of the answer `v`, given as `what` (`grant` or `renewal`).
pub fn terms<H: Host>(h: &H, v: &H::Value, what: &str) -> Result<Terms, H::Error> {
    expect_object(h, v, what)?;
    Ok(Terms {
        bound_ms: field(h, v, what, "bound_ms", true)?.unwrap_or(0),
        ttl_ms: field(h, v, what, "ttl_ms", true)?.unwrap_or(0),
        renew_after_ms: field(h, v, what, "renew_after_ms", false)?,
    })
}

/// The grant `v` (the parsed JSON of `POST /v1/leases`).
pub fn grant<H: Host>(h: &H, v: &H::Value) -> Result<Grant, H::Error> {
    let terms = terms(h, v, "grant")?;
    let mut layout = String::new();
    for key in ["lease", "namespace", "layout"] {
        let x = h.get(v, key)?;
        if h.type_of(&x) != JsType::String {
            return Err(wrong(h, &x, &format!("grant.{key}"), "a string"));
        }
        if key == "layout" {
            layout = h.string(&x)?;
        }
    }
    Ok(Grant {
        terms,
        node: field(h, v, "grant", "node", true)?.unwrap_or(0),
        fence_ms: field(h, v, "grant", "fence_ms", false)?,
        server_time_ms: field(h, v, "grant", "server_time_ms", false)?,
        layout: Layout::parse(&layout).or_throw(h)?,
    })
}

/// The 64-bit field `key` of the answer `v`; `None` when it is absent or `null` and not
/// `required` (a required one is then refused as of the wrong type).
fn field<H: Host>(
    h: &H,
    v: &H::Value,
    what: &str,
    key: &str,
    required: bool,
) -> Result<Option<u64>, H::Error> {
    let x = h.get(v, key)?;
    if !required && is_nullish(h, &x) {
        return Ok(None);
    }
    u64_arg(h, &x, &format!("{what}.{key}")).map(Some)
}
