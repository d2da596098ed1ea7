//! `idmint decode`: split IDs into their fields.

use std::io::{BufRead, Read, Write};

use clap::Args;
use idmint::codec::Codec;
use idmint::formats::uuid;
use idmint::{AnyId, Error, Layout, Rfc3339};

use crate::common::{parse_codec, parse_layout};
use crate::error::{CliError, CliResult};
use crate::json::Json;

#[derive(Debug, Args)]
pub struct DecodeArgs {
    /// IDs to decode, in any codec (decimal, 0x-hex, 13-character base32, 11-character base62),
    /// or a UUID (36 characters with hyphens), a TypeID (`user_01h455vb4pex5vsknk084sn02q`, or
    /// 26 lower-case characters holding a version 7 UUID) or a ULID (26 characters otherwise,
    /// in either case); `-` reads
    /// whitespace-separated IDs from standard input, decoding and printing each line as it
    /// arrives (lines of at most 1 MiB).
    #[arg(required = true, value_name = "ID")]
    pub ids: Vec<String>,

    /// The layout the IDs were minted with: a preset name or a spec.
    #[arg(short, long, default_value = "twitter", value_name = "PRESET|SPEC")]
    pub layout: String,

    /// Read the IDs with this codec instead of guessing from their shape (needed for bare hex,
    /// or for base32/base62 text made only of digits).
    #[arg(short, long, value_name = "CODEC", value_parser = parse_codec)]
    pub codec: Option<Codec>,

    /// Print JSON: an object for one ID, an array for several (or when reading stdin).
    /// IDs are strings; node sub-fields appear by name next to `node`, the whole node value.
    #[arg(long)]
    pub json: bool,
}

/// The keys every decoded object has; a node sub-field with one of these names is printed as
/// `field_<name>` instead.
const FIXED_KEYS: [&str; 6] = ["id", "timestamp_ms", "time", "sequence", "rollback", "node"];

/// Longest line `decode -` reads from standard input, in bytes without the newline: 1 MiB,
/// room for about 50,000 IDs on one line. Input is read one line at a time, so memory stays
/// bounded by this however much is piped in; a longer line is refused (exit 2) naming it.
pub const MAX_LINE: u64 = 1 << 20;

pub fn run(args: &DecodeArgs, stdin: &mut impl BufRead, out: &mut impl Write) -> CliResult {
    let layout = parse_layout(&args.layout)?;
    // The IDs on the command line are all checked first, so a bad one leaves no half-printed
    // output behind; IDs from standard input are decoded and printed as they arrive (a bad one
    // there stops the output at that line).
    let mut given = Vec::with_capacity(args.ids.len());
    for text in &args.ids {
        given.push(if text == "-" {
            None
        } else {
            Some(decode_checked(&layout, text, args.codec)?)
        });
    }
    let from_stdin = given.iter().any(Option::is_none);
    let single = args.json && !from_stdin && given.len() == 1;
    let mut printer = Printer {
        layout: &layout,
        json: args.json && !single,
        printed: 0,
    };
    if single {
        if let Some(Some(id)) = given.first() {
            id.to_json(&layout).write_pretty(out)?;
        }
        return Ok(());
    }
    let mut stdin_read = false;
    for id in given {
        match id {
            Some(id) => printer.print(id, out)?,
            // `-` given twice reads standard input once.
            None if !stdin_read => {
                stdin_read = true;
                for_each_stdin_word(stdin, |line, text| {
                    let id = decode_checked(&layout, text, args.codec)
                        .map_err(|e| e.context(format!("standard input line {line}")))?;
                    printer.print(id, out)
                })?;
            }
            None => {}
        }
    }
    printer.finish(out)
}

/// One decoded ID: a Snowflake-family ID, or one of the 128-bit formats, told apart by the
/// core's [`AnyId::parse`] (which the service's `/v1/decode` uses too).
type Decoded = AnyId;

/// Printing forms of a decoded ID.
trait Print {
    fn to_json(self, layout: &Layout) -> Json;
    fn write_human(self, layout: &Layout, out: &mut impl Write) -> CliResult;
}

impl Print for Decoded {
    fn to_json(self, layout: &Layout) -> Json {
        let Some(u) = self.uuid() else {
            return match self {
                Decoded::Snowflake(id) => to_json(layout, id),
                Decoded::Ksuid(k) => Json::obj()
                    .with("kind", "ksuid")
                    .with("id", k.to_string())
                    .with("timestamp", u64::from(k.timestamp()))
                    .with("payload", format!("{:032x}", k.payload_u128()))
                    .with("timestamp_ms", k.unix_ms())
                    .with("time", Rfc3339(k.unix_ms()).to_string()),
                _ => Json::Null,
            };
        };
        let info = uuid::inspect(&u);
        let (kind, text) = match self {
            Decoded::TypeId(t) => ("typeid", t.to_string()),
            Decoded::Ulid(x) => ("ulid", x.to_string()),
            _ => ("uuid", u.to_string()),
        };
        let mut obj = Json::obj().with("kind", kind).with("id", text);
        if let Decoded::TypeId(t) = self {
            obj.push("prefix", t.prefix());
        }
        obj.push("uuid", u.to_string());
        if !matches!(self, Decoded::Ulid(_)) {
            obj.push("version", info.version);
            obj.push("variant", info.variant);
        }
        let ms = self.unix_ms();
        obj.push("timestamp_ms", ms);
        obj.push("time", ms.map(|ms| Rfc3339(ms).to_string()));
        obj
    }

    fn write_human(self, layout: &Layout, out: &mut impl Write) -> CliResult {
        let Some(u) = self.uuid() else {
            return match self {
                Decoded::Snowflake(id) => write_human(layout, id, out),
                Decoded::Ksuid(k) => {
                    writeln!(out, "ksuid         {k}")?;
                    writeln!(
                        out,
                        "timestamp     {} (s since 2014-05-13T16:53:20Z)",
                        k.timestamp()
                    )?;
                    writeln!(out, "payload       {:032x}", k.payload_u128())?;
                    writeln!(out, "timestamp_ms  {}", k.unix_ms())?;
                    writeln!(out, "time          {}", Rfc3339(k.unix_ms()))?;
                    Ok(())
                }
                _ => Ok(()),
            };
        };
        let info = uuid::inspect(&u);
        match self {
            Decoded::TypeId(t) => {
                writeln!(out, "typeid        {t}")?;
                writeln!(out, "prefix        {}", t.prefix())?;
            }
            Decoded::Ulid(x) => writeln!(out, "ulid          {x}")?,
            _ => {}
        }
        writeln!(out, "uuid          {u}")?;
        if !matches!(self, Decoded::Ulid(_)) {
            let variant = if u.is_nil() {
                "nil UUID"
            } else if u.is_max() {
                "max UUID"
            } else {
                info.variant
            };
            writeln!(out, "version       {} ({variant})", info.version)?;
        }
        match self.unix_ms() {
            Some(ms) => {
                writeln!(out, "timestamp_ms  {ms}")?;
                writeln!(out, "time          {}", Rfc3339(ms))?;
            }
            None => writeln!(out, "time          - (no embedded time)")?,
        }
        Ok(())
    }
}

/// Decodes one ID: a 128-bit format by its shape (unless a codec is given), else a
/// Snowflake-family ID checked against the layout.
fn decode_checked(layout: &Layout, text: &str, codec: Option<Codec>) -> CliResult<Decoded> {
    let decoded = AnyId::parse(text, codec).map_err(|e| {
        let err = CliError::from(e);
        let bare_hex =
            !text.is_empty() && text.len() <= 16 && text.bytes().all(|b| b.is_ascii_hexdigit());
        let err = if codec.is_none() && bare_hex {
            err.note("hint: for bare hex, add a 0x prefix or pass --codec hex")
        } else {
            err
        };
        err.context(format!("{text:?}"))
    })?;
    if let AnyId::Snowflake(id) = decoded {
        layout.decompose(id).map_err(|e| {
            CliError::from(e).context(format!("{text:?}")).note(format!(
                "hint: IDs of layout {} are at most {} ({} bits)",
                layout_label(layout),
                layout.max_id(),
                layout.width()
            ))
        })?;
    }
    Ok(decoded)
}

/// Calls `f(line number, word)` for each whitespace-separated word of `input`, reading one line
/// (at most [`MAX_LINE`] bytes) at a time.
fn for_each_stdin_word(
    input: &mut impl BufRead,
    mut f: impl FnMut(u64, &str) -> CliResult,
) -> CliResult {
    let read_error =
        |e: std::io::Error| CliError::usage(format!("cannot read IDs from standard input: {e}"));
    let mut buf = Vec::new();
    let mut line = 0u64;
    loop {
        buf.clear();
        line += 1;
        // One byte more than a line may hold tells a full line from a longer one.
        let n = input
            .by_ref()
            .take(MAX_LINE + 2)
            .read_until(b'\n', &mut buf)
            .map_err(read_error)?;
        if n == 0 {
            return Ok(());
        }
        let body = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        if body.len() as u64 > MAX_LINE {
            let e = Error::LimitExceeded {
                what: "bytes in one line of standard input",
                limit: MAX_LINE,
            };
            return Err(CliError::usage(e.to_string())
                .context(format!("standard input line {line}"))
                .note("hint: put the IDs on several lines, as idmint gen prints them"));
        }
        let text = std::str::from_utf8(body).map_err(|e| {
            CliError::usage(format!(
                "standard input line {line}: not UTF-8 text (at byte {})",
                e.valid_up_to()
            ))
        })?;
        for word in text.split_whitespace() {
            f(line, word)?;
        }
    }
}

/// Prints decoded IDs one after another: human-readable blocks separated by blank lines, or the
/// elements of one JSON array.
struct Printer<'a> {
    layout: &'a Layout,
    json: bool,
    printed: u64,
}

impl Printer<'_> {
    fn print(&mut self, id: Decoded, out: &mut impl Write) -> CliResult {
        if self.json {
            out.write_all(if self.printed == 0 {
                b"[\n  "
            } else {
                b",\n  "
            })?;
            id.to_json(self.layout).write_nested(out, 1)?;
        } else {
            if self.printed > 0 {
                out.write_all(b"\n")?;
            }
            id.write_human(self.layout, out)?;
        }
        self.printed += 1;
        Ok(())
    }

    fn finish(self, out: &mut impl Write) -> CliResult {
        if self.json {
            out.write_all(if self.printed == 0 { b"[]\n" } else { b"\n]\n" })?;
        }
        Ok(())
    }
}

fn layout_label(layout: &Layout) -> String {
    match layout.preset_name() {
        Some(name) => name.to_owned(),
        None => layout.to_string(),
    }
}

fn to_json(layout: &Layout, id: u64) -> Json {
    // `run` checked that the ID fits the layout.
    let parts = layout.decompose(id).unwrap_or_default();
    let ts = layout.timestamp_ms(id);
    let mut obj = Json::obj()
        .with("id", id.to_string())
        .with("timestamp_ms", ts)
        .with("time", Rfc3339(ts).to_string())
        .with("sequence", parts.sequence);
    if layout.rollback_field().is_some() {
        obj.push("rollback", parts.rollback);
    }
    let single_named_node = {
        let mut it = layout.node_fields();
        matches!((it.next(), it.next()), (Some(f), None) if f.name.as_str() == "node")
    };
    for f in layout.node_fields() {
        let name = f.name.as_str();
        if single_named_node {
            // js53's one node field is called `node`: it is the whole node value too.
            continue;
        }
        if FIXED_KEYS.contains(&name) || obj.has(name) {
            obj.push(&format!("field_{name}"), f.get(id));
        } else {
            obj.push(name, f.get(id));
        }
    }
    obj.with("node", parts.node)
}

fn write_human(layout: &Layout, id: u64, out: &mut impl Write) -> CliResult {
    let ts = layout.timestamp_ms(id);
    let mut rows: Vec<(String, String)> = vec![
        ("id".into(), id.to_string()),
        ("timestamp_ms".into(), ts.to_string()),
        ("time".into(), Rfc3339(ts).to_string()),
    ];
    for f in layout.fields() {
        let name = match f.kind {
            idmint::FieldKind::Time => continue,
            idmint::FieldKind::Sequence => "sequence".to_owned(),
            _ => f.name.to_string(),
        };
        rows.push((name, f.get(id).to_string()));
    }
    if layout.node_fields().count() > 1 {
        let node = layout.decompose(id).unwrap_or_default().node;
        rows.push(("node".into(), format!("{node} (whole node value)")));
    }
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in rows {
        writeln!(out, "{k:<width$}  {v}")?;
    }
    Ok(())
}
