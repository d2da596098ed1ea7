//! `idmint uuid`: make or inspect UUIDs (RFC 9562).

use std::io::Write;

use clap::Args;
use idmint::formats::uuid::{
    self, Uuid, Uuid1Generator, Uuid6Generator, Uuid7Generator, Uuid7Method,
};
use idmint::{os_random_fill, Rfc3339};

use crate::common::now_ms;
use crate::error::{CliError, CliResult};
use crate::json::Json;

#[derive(Debug, Args)]
#[command(disable_version_flag = true)]
pub struct UuidArgs {
    /// UUID version: 7 (time-ordered, for database keys), 4 (random), 5 or 3 (derived from
    /// --namespace and --name), 6 (v1's fields reordered to sort by time), 1 (time-based, with
    /// a random node instead of a MAC address), 8 (custom: --bytes, or SHA-256 of --namespace
    /// and --name as in RFC 9562 appendix B.2).
    #[arg(long, default_value_t = 7, value_name = "1|3|4|5|6|7|8", value_parser = parse_version)]
    pub version: u8,

    /// Version 7 only: how UUIDs of one millisecond keep increasing (RFC 9562 section 6.2):
    /// counter, random_increment or sub_millisecond.
    #[arg(long, value_name = "METHOD", default_value = "counter")]
    pub method: String,

    /// Version 8 only: the 16 bytes, as 32 hex digits (version and variant bits are set).
    #[arg(long, value_name = "HEX", conflicts_with_all = ["namespace", "name"])]
    pub bytes: Option<String>,

    /// How many UUIDs to make (v1, v4, v7; v3 and v5 always give the same one).
    #[arg(short = 'n', long, default_value_t = 1, value_name = "N")]
    pub count: u64,

    /// Namespace for v3/v5: dns, url, oid, x500, or a UUID.
    #[arg(long, value_name = "dns|url|oid|x500|UUID")]
    pub namespace: Option<String>,

    /// Name for v3/v5 (hashed as its UTF-8 bytes).
    #[arg(long, value_name = "TEXT")]
    pub name: Option<String>,

    /// Print what a UUID says about itself (version, variant, embedded time) instead.
    #[arg(long, value_name = "UUID", conflicts_with_all = ["version", "count", "namespace", "name"])]
    pub inspect: Option<String>,

    /// Print JSON: an array of strings, or an object with --inspect.
    #[arg(long)]
    pub json: bool,
}

fn parse_version(s: &str) -> Result<u8, String> {
    match s.trim() {
        "1" => Ok(1),
        "3" => Ok(3),
        "4" => Ok(4),
        "5" => Ok(5),
        "6" => Ok(6),
        "7" => Ok(7),
        "8" => Ok(8),
        _ => Err("supported versions are 1, 3, 4, 5, 6, 7 and 8".to_owned()),
    }
}

fn namespace(text: &str) -> CliResult<Uuid> {
    Ok(match text.to_ascii_lowercase().as_str() {
        "dns" => uuid::NAMESPACE_DNS,
        "url" => uuid::NAMESPACE_URL,
        "oid" => uuid::NAMESPACE_OID,
        "x500" => uuid::NAMESPACE_X500,
        _ => uuid::parse(text).map_err(|e| {
            CliError::from(e)
                .context("--namespace")
                .note("hint: use dns, url, oid, x500 or a UUID")
        })?,
    })
}

/// Random bytes drawn from the OS a few kilobytes at a time.
struct Pool {
    buf: Vec<u8>,
    pos: usize,
}

impl Pool {
    fn new() -> Pool {
        Pool {
            buf: vec![0; 4096],
            pos: 4096,
        }
    }

    fn take<const N: usize>(&mut self) -> CliResult<[u8; N]> {
        if self.pos + N > self.buf.len() {
            os_random_fill(&mut self.buf)?;
            self.pos = 0;
        }
        let mut out = [0u8; N];
        out.copy_from_slice(&self.buf[self.pos..self.pos + N]);
        self.pos += N;
        Ok(out)
    }
}

pub fn run(args: &UuidArgs, out: &mut impl Write) -> CliResult {
    if let Some(text) = &args.inspect {
        return inspect(text, args.json, out);
    }
    let v = args.version;
    let method = Uuid7Method::parse(&args.method)?;
    if v != 7 && method != Uuid7Method::Counter {
        return Err(CliError::usage("--method is for version 7"));
    }
    if args.bytes.is_some() && v != 8 {
        return Err(CliError::usage("--bytes is for version 8"));
    }
    if v == 8 && args.bytes.is_none() && args.name.is_none() {
        return Err(CliError::usage(
            "version 8 is custom: give --bytes HEX, or --name (and --namespace) for SHA-256",
        ));
    }
    let named = matches!(v, 3 | 5) || (v == 8 && args.bytes.is_none());
    if named && args.name.is_none() {
        return Err(CliError::usage(format!(
            "UUID version {v} is derived from a name: give --name (and --namespace, default dns)"
        )));
    }
    if !named && (args.name.is_some() || args.namespace.is_some()) {
        return Err(CliError::usage(format!(
            "--name and --namespace are for versions 3 and 5, not {v}"
        )));
    }
    if named && args.count != 1 {
        return Err(CliError::usage(format!(
            "version {v} UUIDs are the same for the same name: -n must be 1"
        )));
    }
    let mut pool = Pool::new();
    let mut v7 = Uuid7Generator::with_method(method);
    let mut v6 = Uuid6Generator::new();
    let mut v1 = Uuid1Generator::new();
    let name_based = match (&args.name, named) {
        (Some(name), true) => {
            let ns = namespace(args.namespace.as_deref().unwrap_or("dns"))?;
            Some(match v {
                3 => uuid::v3(&ns, name.as_bytes()),
                5 => uuid::v5(&ns, name.as_bytes()),
                _ => uuid::v8_sha256(&ns, name.as_bytes()),
            })
        }
        _ => match &args.bytes {
            Some(hex) => Some(uuid::v8(parse_hex16(hex)?)),
            None => None,
        },
    };
    if name_based.is_some() && args.count != 1 {
        return Err(CliError::usage(format!(
            "version {v} UUIDs from the same input are the same: -n must be 1"
        )));
    }
    if args.json {
        out.write_all(if args.count == 0 { b"[" } else { b"[\n" })?;
    }
    for i in 0..args.count {
        let u = match (name_based, v) {
            (Some(u), _) => u,
            (None, 4) => uuid::v4(pool.take()?),
            (None, 1) => {
                let mut first = || pool.take::<8>();
                v1.next_at(now_ms(), |b: &mut [u8]| {
                    b.copy_from_slice(&first().map_err(|_| idmint::Error::RandomSource)?);
                    Ok(())
                })?
            }
            (None, 6) => {
                let mut first = || pool.take::<8>();
                v6.next_at(now_ms(), |b: &mut [u8]| {
                    b.copy_from_slice(&first().map_err(|_| idmint::Error::RandomSource)?);
                    Ok(())
                })?
            }
            (None, 7) if method == Uuid7Method::SubMillisecond => {
                let (ms, ns) = crate::common::now_ms_ns();
                v7.next_at_precise(ms, ns, pool.take()?)
            }
            _ => v7.next_at(now_ms(), pool.take()?),
        };
        if args.json {
            if i > 0 {
                out.write_all(b",\n")?;
            }
            write!(out, "  \"{u}\"")?;
        } else {
            writeln!(out, "{u}")?;
        }
    }
    if args.json {
        out.write_all(if args.count == 0 { b"]\n" } else { b"\n]\n" })?;
    }
    Ok(())
}

fn parse_hex16(text: &str) -> CliResult<[u8; 16]> {
    let t = text.trim().replace('-', "");
    let bad = || CliError::usage(format!("--bytes {text:?}: give 32 hex digits (16 bytes)"));
    if t.len() != 32 || !t.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let v = u128::from_str_radix(&t, 16).map_err(|_| bad())?;
    Ok(v.to_be_bytes())
}

fn describe(version: u8) -> &'static str {
    match version {
        1 => "time-based (Gregorian time, clock sequence, node)",
        2 => "DCE security",
        3 => "name-based (MD5)",
        4 => "random",
        5 => "name-based (SHA-1)",
        6 => "time-based, reordered for sorting",
        7 => "Unix-time-ordered",
        8 => "custom",
        _ => "not defined by RFC 9562",
    }
}

fn inspect(text: &str, json: bool, out: &mut impl Write) -> CliResult {
    let u = uuid::parse(text.trim()).map_err(|e| CliError::from(e).context(format!("{text:?}")))?;
    let info = uuid::inspect(&u);
    let kind = if u.is_nil() {
        "nil UUID"
    } else if u.is_max() {
        "max UUID"
    } else if info.variant == "rfc9562" {
        describe(info.version)
    } else {
        "not an RFC 9562 UUID; the version nibble means nothing here"
    };
    if json {
        let mut obj = Json::obj()
            .with("uuid", u.to_string())
            .with("version", info.version)
            .with("variant", info.variant)
            .with("kind", kind)
            .with("unix_ms", info.unix_ms);
        obj.push("time", info.unix_ms.map(|ms| Rfc3339(ms).to_string()));
        obj.write_pretty(out)?;
        return Ok(());
    }
    writeln!(out, "uuid     {u}")?;
    writeln!(out, "version  {}, {kind}", info.version)?;
    writeln!(out, "variant  {}", info.variant)?;
    match info.unix_ms {
        Some(ms) => writeln!(out, "time     {} ({ms} ms)", Rfc3339(ms))?,
        None => writeln!(out, "time     - (no embedded time)")?,
    }
    Ok(())
}
