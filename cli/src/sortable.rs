//! `idmint typeid`, `idmint ulid` and `idmint ksuid`: the text formats that sort by time.

use std::io::Write;

use clap::Args;
use idmint::formats::ksuid::KsuidGenerator;
use idmint::formats::typeid::TypeIdGenerator;
use idmint::formats::ulid::UlidGenerator;
use idmint::formats::uuid::Uuid7Method;
use idmint::{os_random_fill, Error};

use crate::common::now_ms;
use crate::error::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct TypeIdArgs {
    /// The type prefix: up to 63 of a-z and _, starting and ending with a letter (may be
    /// empty: "").
    #[arg(value_name = "PREFIX")]
    pub prefix: String,

    /// How many TypeIDs to make (increasing, on monotonic UUID v7).
    #[arg(short = 'n', long, default_value_t = 1, value_name = "N")]
    pub count: u64,

    /// How UUIDs of one millisecond keep increasing: counter, random_increment,
    /// sub_millisecond.
    #[arg(long, value_name = "METHOD", default_value = "counter")]
    pub method: String,
}

#[derive(Debug, Args)]
pub struct UlidArgs {
    /// How many ULIDs to make (increasing: within a millisecond each is the last plus one).
    #[arg(short = 'n', long, default_value_t = 1, value_name = "N")]
    pub count: u64,
}

#[derive(Debug, Args)]
pub struct KsuidArgs {
    /// How many KSUIDs to make (increasing: within a second each is the last plus one).
    #[arg(short = 'n', long, default_value_t = 1, value_name = "N")]
    pub count: u64,
}

fn random10() -> CliResult<[u8; 10]> {
    let mut b = [0u8; 10];
    os_random_fill(&mut b)?;
    Ok(b)
}

pub fn run_typeid(args: &TypeIdArgs, out: &mut impl Write) -> CliResult {
    let method = Uuid7Method::parse(&args.method)?;
    let mut g = TypeIdGenerator::with_method(&args.prefix, method)
        .map_err(|e| CliError::from(e).context(format!("prefix {:?}", args.prefix)))?;
    for _ in 0..args.count {
        writeln!(out, "{}", g.next_at(now_ms(), random10()?))?;
    }
    Ok(())
}

pub fn run_ulid(args: &UlidArgs, out: &mut impl Write) -> CliResult {
    let mut g = UlidGenerator::new();
    for _ in 0..args.count {
        let u = loop {
            match g.next_at(now_ms(), random10()?) {
                // 2^80 in one millisecond: wait for the next one.
                Err(Error::WouldBlock { until_ms }) => {
                    while now_ms() < until_ms {
                        std::thread::yield_now();
                    }
                }
                r => break r?,
            }
        };
        writeln!(out, "{u}")?;
    }
    Ok(())
}

pub fn run_ksuid(args: &KsuidArgs, out: &mut impl Write) -> CliResult {
    let mut g = KsuidGenerator::new();
    for _ in 0..args.count {
        let k = loop {
            match g.next_at_with(now_ms(), |b| os_random_fill(b)) {
                // 2^128 in one second: wait for the next one.
                Err(Error::WouldBlock { until_ms }) => {
                    let left = until_ms.saturating_sub(now_ms());
                    std::thread::sleep(std::time::Duration::from_millis(left));
                }
                r => break r?,
            }
        };
        writeln!(out, "{k}")?;
    }
    Ok(())
}
