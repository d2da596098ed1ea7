//! `idmint`: mint, decode and inspect Snowflake-family IDs and UUIDs from the command line.
//!
//! Errors go to stderr as `error: ...`; the exit code is 2 for bad input (clap's usage errors
//! included) and 1 for failures while running (an expired layout, the clock, I/O). A closed
//! stdout (`idmint gen -n 1000000 | head`) ends the program quietly.

mod bench;
mod common;
mod completions;
mod decode;
mod error;
mod gen;
mod inspect;
mod json;
mod segment;
mod sortable;
mod uuid;

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::error::{CliError, CliResult};

#[derive(Debug, Parser)]
#[command(
    name = "idmint",
    version,
    about = "Mint, decode and inspect unique time-ordered 64-bit IDs (Snowflake family) and UUIDs",
    after_help = "Layouts: a preset name (twitter, discord, instagram, sonyflake, baidu, \
                  shardingsphere, leaf, js53) or a spec such as \
                  time=41@1ms,datacenter=5,worker=5,seq=12,epoch=2020-01-01.\n\
                  Exit codes: 0 ok, 1 runtime failure (expired layout, clock, I/O), 2 bad input."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Mint IDs with the system clock.
    Gen(gen::GenArgs),
    /// Split IDs into time, node sub-fields and sequence.
    Decode(decode::DecodeArgs),
    /// Show a layout: a picture of its bits, epoch, lifetime, capacity and the largest ID.
    Inspect(inspect::InspectArgs),
    /// List the preset layouts.
    Layouts(inspect::LayoutsArgs),
    /// Make UUIDs (v1, v3, v4, v5, v6, v7, v8) or inspect one.
    Uuid(uuid::UuidArgs),
    /// Make TypeIDs (`user_01h455vb4pex5vsknk084sn02q`: a type prefix and a UUID v7).
    Typeid(sortable::TypeIdArgs),
    /// Make ULIDs (26 Crockford base32 characters, sortable, monotonic within a millisecond).
    Ulid(sortable::UlidArgs),
    /// Make KSUIDs (27 base62 characters: seconds since 2014-05-13 and a random payload;
    /// increasing within a second).
    Ksuid(sortable::KsuidArgs),
    /// Serve IDs from ranges taken from a store (SQLite, PostgreSQL, Redis), one round trip
    /// per range.
    Segment(segment::SegmentArgs),
    /// Run the ID service: Snowflake and segment IDs, ranges and node leases over HTTP
    /// (Leaf-compatible paths too), with metrics, probes and a monitor page.
    Serve(Box<idmint_server::config::ServeConfig>),
    /// Quick throughput check of the generator; not a rigorous benchmark (no warm-up, no
    /// statistics, and the layout's sequence capacity caps the rate).
    Bench(bench::BenchArgs),
    /// Print a completion script for a shell (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionsArgs),
    /// Print the manual page (roff), for `man -l -` or share/man/man1/idmint.1.
    Man,
}

fn run(cli: &Cli) -> CliResult {
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(64 * 1024, stdout.lock());
    match &cli.command {
        Command::Gen(args) => gen::run(args, &mut out)?,
        Command::Decode(args) => decode::run(args, &mut io::stdin().lock(), &mut out)?,
        Command::Inspect(args) => inspect::run_inspect(args, &mut out)?,
        Command::Layouts(args) => inspect::run_layouts(args, &mut out)?,
        Command::Uuid(args) => uuid::run(args, &mut out)?,
        Command::Typeid(args) => sortable::run_typeid(args, &mut out)?,
        Command::Ulid(args) => sortable::run_ulid(args, &mut out)?,
        Command::Ksuid(args) => sortable::run_ksuid(args, &mut out)?,
        Command::Segment(args) => segment::run(args, &mut out)?,
        Command::Bench(args) => bench::run(args, &mut out, &mut io::stderr())?,
        Command::Serve(cfg) => idmint_server::run((**cfg).clone()).map_err(CliError::serve)?,
        Command::Completions(args) => completions::run_completions::<Cli>(args, &mut out)?,
        Command::Man => completions::run_man::<Cli>(&mut out)?,
    }
    out.flush()?;
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::BrokenPipe) => ExitCode::SUCCESS,
        Err(e) => {
            // Nothing useful is left to do if stderr is gone too.
            let _ = writeln!(io::stderr(), "{e}");
            ExitCode::from(e.exit_code())
        }
    }
}
