//! `idmint gen`: mint IDs.

use std::io::Write;

use clap::Args;
use idmint::codec::Codec;
use idmint::Snowflake;

use crate::common::{parse_codec, GenOpts};
use crate::error::CliResult;

/// IDs minted per `next_ids` call, which also bounds the buffer.
const CHUNK: usize = 16 * 1024;

#[derive(Debug, Args)]
pub struct GenArgs {
    /// How many IDs to mint.
    #[arg(short = 'n', long, default_value_t = 1, value_name = "N")]
    pub count: u64,

    #[command(flatten)]
    pub opts: GenOpts,

    /// Text form: dec (decimal), hex (printed with a 0x prefix, so `idmint decode` recognises
    /// it), base32 (13 Crockford characters, sortable) or base62 (11 characters, sortable).
    #[arg(short, long, default_value = "dec", value_name = "CODEC", value_parser = parse_codec)]
    pub format: Codec,

    /// Print a JSON array of strings (IDs as strings, so JavaScript keeps every digit).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &GenArgs, out: &mut impl Write) -> CliResult {
    let (_, cfg) = args.opts.config()?;
    let gen = Snowflake::new(cfg)?;
    let prefix: &[u8] = if args.format == Codec::Hex {
        b"0x"
    } else {
        b""
    };
    let mut buf = vec![0u64; CHUNK.min(usize::try_from(args.count).unwrap_or(CHUNK))];
    let mut left = args.count;
    let mut first = true;
    if args.json {
        out.write_all(if args.count == 0 { b"[" } else { b"[\n" })?;
    }
    while left > 0 {
        let n = usize::try_from(left).map_or(buf.len(), |l| l.min(buf.len()));
        let chunk = &mut buf[..n];
        gen.next_ids(chunk)?;
        for &id in chunk.iter() {
            let text = args.format.format(id);
            if args.json {
                if !first {
                    out.write_all(b",\n")?;
                }
                out.write_all(b"  \"")?;
                out.write_all(prefix)?;
                out.write_all(text.as_bytes())?;
                out.write_all(b"\"")?;
            } else {
                out.write_all(prefix)?;
                out.write_all(text.as_bytes())?;
                out.write_all(b"\n")?;
            }
            first = false;
        }
        left -= n as u64;
    }
    if args.json {
        out.write_all(if args.count == 0 { b"]\n" } else { b"\n]\n" })?;
    }
    Ok(())
}
