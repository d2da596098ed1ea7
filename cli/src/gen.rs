//! `idmint gen`: mint IDs.

use std::io::Write;

use std::time::Duration;

use clap::Args;
use idmint::codec::Codec;
use idmint::Snowflake;
use idmint_coord::lease::{LeaseOptions, LeasedSnowflake};

use crate::common::{parse_codec, GenOpts};
use crate::error::CliResult;

/// IDs minted per `next_ids` call, which also bounds the buffer.
const CHUNK: usize = 16 * 1024;

/// `--lease`'s help: the lease stores come from coord's scheme registry.
fn lease_help() -> String {
    format!(
        "Take the node from a source instead of `--node`: a lease store ({}; default `local`, \
         the per-user lock directory) held while minting and released at exit, whose recorded \
         last-issued time fences the new IDs; or `static:N`, `env:VAR`, `ip` (the low bits of \
         the host's private IPv4 address), `ip:ADDR` (of the address given, e.g. \
         `ip:10.0.3.7`, for a host without a private one), `random`. A store URL can also come \
         from a file or the environment (`@PATH`, `@env:NAME`), so that a password does not \
         appear on the command line",
        idmint_coord::scheme::lease_forms()
    )
}

#[derive(Debug, Args)]
pub struct GenArgs {
    /// How many IDs to mint.
    #[arg(short = 'n', long, default_value_t = 1, value_name = "N")]
    pub count: u64,

    #[command(flatten)]
    pub opts: GenOpts,

    /// Text form: dec (decimal), hex (with its 0x prefix, as every idmint surface writes it, so
    /// `idmint decode` recognises it), base32 (13 Crockford characters, sortable) or base62 (11 characters, sortable).
    #[arg(short, long, default_value = "dec", value_name = "CODEC", value_parser = parse_codec)]
    pub format: Codec,

    /// Print a JSON array of strings (IDs as strings, so JavaScript keeps every digit).
    #[arg(long)]
    pub json: bool,

    /// Take the node from a source instead of `--node` (a lease store, `static:N`, `env:VAR`,
    /// `ip`, `ip:ADDR`, `random`).
    #[arg(long, value_name = "SOURCE", conflicts_with = "node", help = lease_help())]
    pub lease: Option<String>,

    /// Lease time to live, in ms (renewed every third of it while minting).
    #[arg(
        long,
        value_name = "MS",
        default_value_t = 10_000,
        conflicts_with = "node"
    )]
    pub lease_ttl_ms: u64,

    /// Lease only nodes 0..N-1 instead of the layout's whole node space.
    #[arg(long, value_name = "N", conflicts_with = "node")]
    pub lease_nodes: Option<u64>,

    /// Lease namespace: separate node spaces in one store.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "default",
        conflicts_with = "node"
    )]
    pub lease_namespace: String,

    /// On a clock step back of more than MS, switch to another free node instead of waiting
    /// or failing (the old node goes to the back of the queue).
    #[arg(long, value_name = "MS", conflicts_with = "node")]
    pub swap_after_ms: Option<u64>,
}

pub fn run(args: &GenArgs, out: &mut impl Write) -> CliResult {
    let (_, cfg) = args.opts.config()?;
    if cfg.node_value().is_some() {
        let gen = Snowflake::new(cfg)?;
        return write_ids(out, args.count, args.format, args.json, |chunk| {
            Ok(gen.next_ids(chunk)?)
        });
    }
    // No node given: lease one, by default from the per-user lock directory, so concurrent
    // runs on this host never share a node.
    let source = args.lease.as_deref().unwrap_or("local");
    let mut opts = LeaseOptions::new()
        .ttl(Duration::from_millis(args.lease_ttl_ms))
        .namespace(&args.lease_namespace)
        .on_wait(|w| eprintln!("idmint: {w}"));
    if let Some(ms) = args.swap_after_ms {
        opts = opts.swap_after_ms(ms);
    }
    if let Some(n) = args.lease_nodes {
        opts = opts.nodes(n);
    }
    let gen = LeasedSnowflake::from_source(source, cfg, opts)?;
    write_ids(out, args.count, args.format, args.json, |chunk| {
        Ok(gen.next_ids(chunk)?)
    })?;
    // Records the exact last-issued time for the node's next holder.
    gen.release()?;
    Ok(())
}

/// Writes `count` IDs obtained `CHUNK` at a time from `fill`, one per line or as a JSON array
/// of strings, in `format`. Shared by `gen` and `segment`.
pub fn write_ids(
    out: &mut impl Write,
    count: u64,
    format: Codec,
    json: bool,
    mut fill: impl FnMut(&mut [u64]) -> CliResult,
) -> CliResult {
    let mut buf = vec![0u64; CHUNK.min(usize::try_from(count).unwrap_or(CHUNK))];
    let mut left = count;
    let mut first = true;
    if json {
        out.write_all(if count == 0 { b"[" } else { b"[\n" })?;
    }
    while left > 0 {
        let n = usize::try_from(left).map_or(buf.len(), |l| l.min(buf.len()));
        let chunk = &mut buf[..n];
        fill(chunk)?;
        for &id in chunk.iter() {
            let text = format.format(id);
            if json {
                if !first {
                    out.write_all(b",\n")?;
                }
                out.write_all(b"  \"")?;
                out.write_all(text.as_bytes())?;
                out.write_all(b"\"")?;
            } else {
                out.write_all(text.as_bytes())?;
                out.write_all(b"\n")?;
            }
            first = false;
        }
        left -= n as u64;
    }
    if json {
        out.write_all(if count == 0 { b"]\n" } else { b"\n]\n" })?;
    }
    Ok(())
}
