//! Pieces shared by the subcommands: reading layouts, nodes and codecs from arguments, the
//! clock, and number and time formatting.

use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args;
use idmint::codec::Codec;
use idmint::{Config, Error, Layout, OptionValue, Rfc3339, SnowflakeOptions};

use crate::error::{CliError, CliResult};

/// The generator options `gen` and `bench` share.
#[derive(Debug, Clone, Args)]
pub struct GenOpts {
    /// Layout: a preset name (see `idmint layouts`) or a spec such as
    /// `time=41@1ms,worker=10,seq=12,epoch=2020-01-01`.
    #[arg(short, long, default_value = "twitter", value_name = "PRESET|SPEC")]
    pub layout: String,

    /// Node: the whole node value (`--node 37`), or node sub-fields by name
    /// (`--node datacenter=1,worker=5`, every sub-field given). It must be a node no other
    /// running generator uses. Without it (and without `--lease`), `gen` leases a node from
    /// the per-user local lock directory ($IDMINT_LEASE_DIR, else $XDG_STATE_HOME/idmint/leases,
    /// else ~/.local/state/idmint/leases, else /tmp/idmint-UID/leases), so concurrent runs never
    /// share one; `bench` runs on node 0, since it counts its IDs and throws them away.
    #[arg(long, value_name = "N|NAME=N,...")]
    pub node: Option<String>,

    /// What to do when the clock steps back: fail, wait[:MS], logical[:MS],
    /// rollback_counter, ring[:TICKS].
    #[arg(long, value_name = "POLICY")]
    pub on_backwards: Option<String>,

    /// What to do when a tick's sequence runs out: wait, borrow[:TICKS], fail.
    #[arg(long, value_name = "POLICY")]
    pub on_exhausted: Option<String>,

    /// Where each tick's sequence starts: zero, random, vibrate[:MAX_OFFSET].
    #[arg(long, value_name = "POLICY")]
    pub sequence_start: Option<String>,
}

impl GenOpts {
    /// The layout and the generator config these options describe (with no node unless
    /// `--node` was given), built by the core's options-by-key like every other surface.
    pub fn config(&self) -> CliResult<(Layout, Config)> {
        let layout = parse_layout(&self.layout)?;
        let mut opts = SnowflakeOptions::new();
        opts.set("layout", OptionValue::Layout(layout))?;
        if let Some(text) = &self.node {
            opts.set("node", OptionValue::Int(parse_node(&layout, text)?))?;
        }
        for (key, value) in [
            ("on_backwards", &self.on_backwards),
            ("on_exhausted", &self.on_exhausted),
            ("sequence_start", &self.sequence_start),
        ] {
            if let Some(text) = value {
                opts.set(key, OptionValue::Text(text)).map_err(|e| {
                    CliError::from(e).note(format!("in --{}", key.replace('_', "-")))
                })?;
            }
        }
        Ok((layout, opts.config()?))
    }
}

/// clap value parser for codec names (`dec`, `decimal`, `hex`, `base32`, `base62`).
pub fn parse_codec(s: &str) -> Result<Codec, String> {
    Codec::parse(s).map_err(|e| e.to_string())
}

/// Parses a preset name or spec; a spec error gets the spec echoed with a caret under the
/// offending byte.
pub fn parse_layout(spec: &str) -> CliResult<Layout> {
    Layout::parse(spec).map_err(|e| {
        let err = CliError::from(e);
        match e {
            Error::InvalidSpec { at, .. } if !spec.trim().is_empty() => {
                // Column in characters, for specs with non-ASCII text before the problem.
                let col = spec.get(..at).map_or(at, |s| s.chars().count());
                err.note(spec.to_owned())
                    .note(format!("{}^", " ".repeat(col)))
            }
            _ => err,
        }
    })
}

/// Parses `--node`: a whole node value, or `name=value` pairs naming every node sub-field,
/// by the core's one rule ([`Layout::parse_node`]); a node that does not fit gets a hint.
pub fn parse_node(layout: &Layout, text: &str) -> CliResult<u64> {
    layout.parse_node(text).map_err(|e| {
        let err = CliError::from(e);
        if layout.node_fields().count() < 2 {
            return err;
        }
        let parts: Vec<String> = layout
            .node_fields()
            .map(|f| format!("{}=0..{}", f.name, f.max()))
            .collect();
        err.note(format!(
            "hint: give every node sub-field: --node {}",
            parts.join(",")
        ))
    })
}

/// Milliseconds since the Unix epoch, from the system clock (0 if it reads before 1970).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The wall clock as whole ms since the Unix epoch and the ns into that millisecond.
pub fn now_ms_ns() -> (u64, u32) {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or((0, 0), |d| {
            (
                u64::try_from(d.as_millis()).unwrap_or(u64::MAX),
                d.subsec_nanos() % 1_000_000,
            )
        })
}

/// RFC 3339 UTC, without the `.000` when the time falls on a whole second.
pub fn short_time(ms: u64) -> String {
    let s = Rfc3339(ms).to_string();
    match s.strip_suffix(".000Z") {
        Some(head) => format!("{head}Z"),
        None => s,
    }
}

/// The date part (`YYYY-MM-DD`) of a time.
pub fn date(ms: u64) -> String {
    let s = Rfc3339(ms).to_string();
    match s.split_once('T') {
        Some((d, _)) => d.to_owned(),
        None => s,
    }
}

/// A tick length the way specs write it: `1ms`, `10ms`, `1s`, `2m`, `1h`.
pub fn tick(ms: u64) -> String {
    if ms % 3_600_000 == 0 {
        format!("{}h", ms / 3_600_000)
    } else if ms % 60_000 == 0 {
        format!("{}m", ms / 60_000)
    } else if ms % 1000 == 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A rough human duration: `54 years`, `3 days`, `5 hours`.
pub fn human_span(ms: u64) -> String {
    const DAY: u64 = 86_400_000;
    const YEAR: u64 = 31_556_952_000; // 365.2425 days
    let plural = |n: u64, unit: &str| {
        if n == 1 {
            format!("1 {unit}")
        } else {
            format!("{n} {unit}s")
        }
    };
    if ms >= 2 * YEAR {
        plural(ms / YEAR, "year")
    } else if ms >= 2 * DAY {
        plural(ms / DAY, "day")
    } else if ms >= 3_600_000 {
        plural(ms / 3_600_000, "hour")
    } else if ms >= 60_000 {
        plural(ms / 60_000, "minute")
    } else {
        plural(ms / 1000, "second")
    }
}

/// Whether a layout is usable now, for `inspect` and `layouts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok,
    Expired,
    NotStarted,
}

impl Status {
    pub fn of(layout: &Layout, now: u64) -> Status {
        if layout.is_expired_at(now) {
            Status::Expired
        } else if now < layout.epoch_ms() {
            Status::NotStarted
        } else {
            Status::Ok
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Expired => "EXPIRED",
            Status::NotStarted => "NOT STARTED",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatting() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(4_096_000), "4,096,000");
        assert_eq!(short_time(1_732_137_856_000), "2024-11-20T21:24:16Z");
        assert_eq!(short_time(1_288_834_974_657), "2010-11-04T01:42:54.657Z");
        assert_eq!(date(1_288_834_974_657), "2010-11-04");
        assert_eq!(tick(1), "1ms");
        assert_eq!(tick(10), "10ms");
        assert_eq!(tick(1000), "1s");
        assert_eq!(human_span(86_400_000 * 3), "3 days");
    }

    #[test]
    fn nodes() {
        let l = Layout::parse("twitter").unwrap();
        assert_eq!(parse_node(&l, "0").unwrap(), 0);
        assert_eq!(parse_node(&l, "datacenter=1,worker=3").unwrap(), 35);
        assert!(
            parse_node(&l, "worker=3").is_err(),
            "every sub-field must be given"
        );
        assert_eq!(parse_node(&l, " worker = 3 , datacenter=1").unwrap(), 35);
        assert!(parse_node(&l, "1024").is_err());
        assert!(parse_node(&l, "worker=32").is_err());
        assert!(parse_node(&l, "shard=1").is_err());
        assert!(parse_node(&l, "worker=1,worker=2").is_err());
        assert!(parse_node(&l, "-1").is_err());
        assert!(parse_node(&l, "worker").is_err());
    }
}
