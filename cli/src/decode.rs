//! `idmint decode`: split IDs into their fields.

use std::io::{Read, Write};

use clap::Args;
use idmint::codec::{decode_any, Codec};
use idmint::{Layout, Rfc3339};

use crate::common::{parse_codec, parse_layout};
use crate::error::{CliError, CliResult};
use crate::json::Json;

#[derive(Debug, Args)]
pub struct DecodeArgs {
    /// IDs to decode, in any codec (decimal, 0x-hex, 13-character base32, 11-character base62);
    /// `-` reads whitespace-separated IDs from standard input.
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

pub fn run(args: &DecodeArgs, stdin: &mut impl Read, out: &mut impl Write) -> CliResult {
    let layout = parse_layout(&args.layout)?;
    let mut inputs: Vec<String> = Vec::new();
    let mut from_stdin = false;
    for arg in &args.ids {
        if arg == "-" {
            if !from_stdin {
                from_stdin = true;
                let mut text = String::new();
                stdin.read_to_string(&mut text).map_err(|e| {
                    CliError::usage(format!("cannot read IDs from standard input: {e}"))
                })?;
                inputs.extend(text.split_whitespace().map(str::to_owned));
            }
        } else {
            inputs.push(arg.clone());
        }
    }
    // Decode everything first, so a bad ID leaves no half-printed output behind.
    let mut ids = Vec::with_capacity(inputs.len());
    for text in &inputs {
        let id = decode_text(text, args.codec).map_err(|e| e.context(format!("{text:?}")))?;
        layout.decompose(id).map_err(|e| {
            CliError::from(e).context(format!("{text:?}")).note(format!(
                "hint: IDs of layout {} are at most {} ({} bits)",
                layout_label(&layout),
                layout.max_id(),
                layout.width()
            ))
        })?;
        ids.push(id);
    }
    if args.json {
        let items: Vec<Json> = ids.iter().map(|&id| to_json(&layout, id)).collect();
        let value = if items.len() == 1 && !from_stdin && args.ids.len() == 1 {
            items.into_iter().next().unwrap_or(Json::Null)
        } else {
            Json::Arr(items)
        };
        value.write_pretty(out)?;
    } else {
        for (i, &id) in ids.iter().enumerate() {
            if i > 0 {
                out.write_all(b"\n")?;
            }
            write_human(&layout, id, out)?;
        }
    }
    Ok(())
}

fn layout_label(layout: &Layout) -> String {
    match layout.preset_name() {
        Some(name) => name.to_owned(),
        None => layout.to_string(),
    }
}

/// Decodes one ID with the given codec or by its shape.
pub fn decode_text(text: &str, codec: Option<Codec>) -> CliResult<u64> {
    match codec {
        Some(c) => Ok(c.decode(text)?),
        None => decode_any(text).map_err(|e| {
            let err = CliError::from(e);
            let bare_hex =
                !text.is_empty() && text.len() <= 16 && text.bytes().all(|b| b.is_ascii_hexdigit());
            if bare_hex {
                err.note("hint: for bare hex, add a 0x prefix or pass --codec hex")
            } else {
                err
            }
        }),
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
