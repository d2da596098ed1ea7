//! `idmint segment`: serve IDs from ranges taken from a segment store (Leaf's segment mode).

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use idmint::codec::Codec;
use idmint::segment::SegmentConfig;
use idmint_coord::segment::{open_store, SegmentAllocator};

use crate::common::parse_codec;
use crate::error::CliResult;
use crate::gen::write_ids;

/// `--store`'s help: the segment stores of coord's scheme registry.
fn store_help() -> String {
    format!(
        "The store: {} (options as query parameters, e.g. `postgres://.../db?shards=4`)",
        idmint_coord::scheme::segment_forms()
    )
}

#[derive(Debug, Args)]
pub struct SegmentArgs {
    /// The segment store URL (options as query parameters, e.g. `postgres://.../db?shards=4`).
    #[arg(long, value_name = "URL", help = store_help())]
    pub store: String,

    /// The key (Leaf's `biz_tag`): each key is its own sequence.
    #[arg(long, value_name = "KEY")]
    pub key: String,

    /// How many IDs to serve.
    #[arg(short = 'n', long, default_value_t = 1, value_name = "N")]
    pub count: u64,

    /// Values per store round trip. Without it the step adapts between 1,000 and 1,000,000
    /// to keep refills 15 to 30 minutes apart.
    #[arg(long, value_name = "N")]
    pub step: Option<u64>,

    /// Remainder journal: the unused part of the ranges is recorded here at exit and served
    /// first by the next run, instead of being lost.
    #[arg(long, value_name = "PATH")]
    pub journal: Option<PathBuf>,

    /// How long to wait for the store when both buffers are empty, in ms.
    #[arg(long, value_name = "MS", default_value_t = 5_000)]
    pub wait_timeout_ms: u64,

    /// Text form: dec, hex, base32 or base62.
    #[arg(short, long, default_value = "dec", value_name = "CODEC", value_parser = parse_codec)]
    pub format: Codec,

    /// Print a JSON array of strings.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &SegmentArgs, out: &mut impl Write) -> CliResult {
    let store = open_store(&args.store)?;
    let mut cfg = SegmentConfig::new();
    if let Some(step) = args.step {
        cfg = cfg.fixed_step(step);
    }
    let mut builder = SegmentAllocator::builder(store, cfg)
        .wait_timeout(Duration::from_millis(args.wait_timeout_ms));
    if let Some(path) = &args.journal {
        builder = builder.journal(path);
    }
    let alloc = builder.build()?;
    write_ids(out, args.count, args.format, args.json, |chunk| {
        Ok(alloc.next_ids(&args.key, chunk)?)
    })?;
    alloc.close()?;
    Ok(())
}
