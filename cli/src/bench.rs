//! `idmint bench`: a quick throughput check of the std generator.

use std::hint::black_box;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Args;
use idmint::{Error, Snowflake};

use crate::common::{thousands, GenOpts};
use crate::error::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(flatten)]
    pub opts: GenOpts,

    /// How long to run, in seconds.
    #[arg(short, long, default_value_t = 2.0, value_name = "S")]
    pub seconds: f64,

    /// Threads sharing one generator.
    #[arg(short, long, default_value_t = 1, value_name = "T")]
    pub threads: usize,

    /// Mint with `next_ids` in batches of SIZE (default 4096) instead of one `next_id` call
    /// per ID.
    #[arg(long, value_name = "SIZE", num_args = 0..=1, default_missing_value = "4096")]
    pub batch: Option<usize>,
}

/// IDs a thread mints between updates of the shared counter.
const REPORT_EVERY: u64 = 1024;

pub fn run(args: &BenchArgs, out: &mut impl Write, err: &mut impl Write) -> CliResult {
    if !(args.seconds.is_finite() && args.seconds > 0.0 && args.seconds <= 3600.0) {
        return Err(CliError::usage(format!(
            "--seconds must be more than 0 and at most 3600, not {}",
            args.seconds
        )));
    }
    if !(1..=1024).contains(&args.threads) {
        return Err(CliError::usage(format!(
            "--threads must be 1..=1024, not {}",
            args.threads
        )));
    }
    if let Some(b) = args.batch {
        if !(1..=1 << 20).contains(&b) {
            return Err(CliError::usage(format!(
                "--batch must be 1..=1048576, not {b}"
            )));
        }
    }
    let (layout, mut cfg) = args.opts.config()?;
    if cfg.node_value().is_none() {
        // The IDs a benchmark mints are counted and thrown away: no node needs to be unique.
        cfg = cfg.node(0);
    }
    let gen = Snowflake::new(cfg)?;
    let total = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let duration = Duration::from_secs_f64(args.seconds);
    let mode = match args.batch {
        Some(b) => format!("next_ids, batches of {b}"),
        None => "next_id".to_owned(),
    };

    let start = Instant::now();
    let result: CliResult = std::thread::scope(|s| {
        let workers: Vec<_> = (0..args.threads)
            .map(|_| s.spawn(|| worker(&gen, args.batch, &total, &stop)))
            .collect();
        // Progress on stderr when it is a terminal, rewritten in place; failures to write it
        // are not worth stopping for.
        let progress = std::io::stderr().is_terminal();
        loop {
            let elapsed = start.elapsed();
            if elapsed >= duration || stop.load(Ordering::Relaxed) {
                break;
            }
            std::thread::sleep((duration - elapsed).min(Duration::from_millis(200)));
            if !progress {
                continue;
            }
            let n = total.load(Ordering::Relaxed);
            let secs = start.elapsed().as_secs_f64();
            let _ = write!(
                err,
                "\r{secs:5.1} s  {:>14} IDs  {:>8.2} M IDs/s ",
                thousands(n),
                n as f64 / secs / 1e6
            );
            let _ = err.flush();
        }
        stop.store(true, Ordering::Relaxed);
        let mut result = Ok(());
        for w in workers {
            match w.join() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => result = Err(CliError::from(e)),
                Err(_) => result = Err(CliError::runtime("a benchmark thread panicked")),
            }
        }
        result
    });
    if std::io::stderr().is_terminal() {
        let _ = writeln!(err);
    }
    let elapsed = start.elapsed().as_secs_f64();
    result?;
    let n = total.load(Ordering::Relaxed);
    let threads = if args.threads == 1 {
        "1 thread".to_owned()
    } else {
        format!("{} threads", args.threads)
    };
    let name = layout.preset_name().unwrap_or("custom layout");
    writeln!(
        out,
        "{name}: {} IDs in {elapsed:.2} s, {threads}, {mode}: {:.2} M IDs/s, {:.1} ns/ID",
        thousands(n),
        n as f64 / elapsed / 1e6,
        if n == 0 {
            0.0
        } else {
            elapsed * 1e9 / n as f64
        }
    )?;
    let stats = gen.stats();
    if stats.exhaustions > 0 {
        writeln!(
            out,
            "note: the sequence ran out {} times: the layout allows {} IDs/s per node, so the \
             generator waited {} ms for the next tick and the rate above is bounded by the \
             layout (try --on-exhausted borrow:16, or a layout with more sequence bits)",
            thousands(stats.exhaustions),
            thousands(layout.capacity_per_second()),
            thousands(stats.wait_ms)
        )?;
    }
    Ok(())
}

fn worker(
    gen: &Snowflake,
    batch: Option<usize>,
    total: &AtomicU64,
    stop: &AtomicBool,
) -> Result<(), Error> {
    let mut buf = vec![0u64; batch.unwrap_or(0)];
    let mut pending = 0u64;
    let result = loop {
        if stop.load(Ordering::Relaxed) {
            break Ok(());
        }
        let step = match batch {
            Some(_) => gen.next_ids(&mut buf).map(|()| {
                black_box(&buf);
                buf.len() as u64
            }),
            None => (0..REPORT_EVERY)
                .try_for_each(|_| {
                    gen.next_id().map(|id| {
                        black_box(id);
                    })
                })
                .map(|()| REPORT_EVERY),
        };
        match step {
            Ok(n) => pending += n,
            Err(e) => break Err(e),
        }
        if pending >= REPORT_EVERY {
            total.fetch_add(pending, Ordering::Relaxed);
            pending = 0;
        }
    };
    total.fetch_add(pending, Ordering::Relaxed);
    if result.is_err() {
        stop.store(true, Ordering::Relaxed);
    }
    result
}
