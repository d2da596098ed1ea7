//! `idmint inspect` (one layout in detail, with a picture of its bits) and `idmint layouts`
//! (a table of the presets).

use std::io::Write;

use clap::Args;
use idmint::{FieldKind, Layout};

use crate::common::{date, human_span, now_ms, parse_layout, short_time, thousands, tick, Status};
use crate::error::CliResult;
use crate::json::Json;

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// A preset name (see `idmint layouts`) or a spec such as
    /// `time=41@1ms,worker=10,seq=12,epoch=2020-01-01`.
    #[arg(value_name = "PRESET|SPEC")]
    pub layout: String,

    /// Print JSON instead of the picture and table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct LayoutsArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Widest the bit picture gets, in characters.
const PICTURE_WIDTH: usize = 78;

/// One box of the picture: a label and the bits it covers.
struct Cell {
    label: String,
    hi: u32,
    lo: u32,
}

/// Draws the fields of a layout as boxes, most significant bit on the left, with a ruler of
/// bit positions (each box's highest and lowest bit) above. Bits above the layout's width are
/// drawn as one box labelled `0`.
pub fn picture(layout: &Layout) -> String {
    let mut cells = Vec::new();
    let unused = 64 - u32::from(layout.width());
    if unused > 0 {
        cells.push(Cell {
            label: if unused == 1 {
                "0".into()
            } else {
                format!("0 ({unused})")
            },
            hi: 63,
            lo: 64 - unused,
        });
    }
    for f in layout.fields() {
        let lo = u32::from(f.shift);
        cells.push(Cell {
            label: format!("{} ({})", f.name, f.bits),
            hi: lo + u32::from(f.bits) - 1,
            lo,
        });
    }
    // Smallest widths that hold the label (with a space each side) and the ruler numbers.
    let min: Vec<usize> = cells
        .iter()
        .map(|c| {
            let ruler = if c.hi == c.lo {
                c.hi.to_string().len()
            } else {
                c.hi.to_string().len() + 1 + c.lo.to_string().len()
            };
            (c.label.len() + 2).max(ruler)
        })
        .collect();
    // Widths in proportion to the bits where that leaves room for the label; the cells that
    // need more than their share get their minimum and the rest share what is left.
    let budget = PICTURE_WIDTH.saturating_sub(cells.len() + 1);
    let bits: Vec<usize> = cells.iter().map(|c| (c.hi - c.lo + 1) as usize).collect();
    let mut fixed = vec![false; cells.len()];
    loop {
        let room =
            budget.saturating_sub((0..cells.len()).filter(|&i| fixed[i]).map(|i| min[i]).sum());
        let free_bits: usize = (0..cells.len())
            .filter(|&i| !fixed[i])
            .map(|i| bits[i])
            .sum();
        let mut changed = false;
        for i in 0..cells.len() {
            if !fixed[i] && room * bits[i] < min[i] * free_bits.max(1) {
                fixed[i] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let room = budget.saturating_sub((0..cells.len()).filter(|&i| fixed[i]).map(|i| min[i]).sum());
    let free_bits: usize = (0..cells.len())
        .filter(|&i| !fixed[i])
        .map(|i| bits[i])
        .sum();
    let mut widths: Vec<usize> = (0..cells.len())
        .map(|i| {
            if fixed[i] {
                min[i]
            } else {
                room * bits[i] / free_bits.max(1)
            }
        })
        .collect();
    // Hand out the rounding leftovers (fewer than one per cell) to the widest fields first.
    let left = budget.saturating_sub(widths.iter().sum());
    let mut order: Vec<usize> = (0..cells.len()).filter(|&i| !fixed[i]).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(bits[i]));
    for &i in order.iter().take(left) {
        widths[i] += 1;
    }

    let mut ruler = String::from(" ");
    let mut border = String::from("+");
    let mut boxes = String::from("|");
    for (c, &w) in cells.iter().zip(&widths) {
        let hi = c.hi.to_string();
        if c.hi == c.lo {
            ruler.push_str(&format!("{hi:<w$}"));
        } else {
            let lo = c.lo.to_string();
            let gap = w - hi.len();
            ruler.push_str(&format!("{hi}{lo:>gap$}"));
        }
        ruler.push(' ');
        border.push_str(&"-".repeat(w));
        border.push('+');
        boxes.push_str(&format!("{:^w$}", c.label));
        boxes.push('|');
    }
    format!("{}\n{border}\n{boxes}\n{border}\n", ruler.trim_end())
}

fn name_or_custom(layout: &Layout) -> &'static str {
    layout.preset_name().unwrap_or("(custom)")
}

fn integer_types(max_id: u64) -> [(&'static str, bool); 4] {
    [
        ("int32", max_id <= i32::MAX as u64),
        ("JS safe number (<= 2^53-1)", max_id < (1u64 << 53)),
        ("int64", max_id <= i64::MAX as u64),
        ("uint64", true),
    ]
}

pub fn run_inspect(args: &InspectArgs, out: &mut impl Write) -> CliResult {
    let layout = parse_layout(&args.layout)?;
    let now = now_ms();
    let status = Status::of(&layout, now);
    let end = layout.lifetime_end_ms();
    let nodes = layout.max_node() + 1;
    if args.json {
        return inspect_json(&layout, now)
            .write_pretty(out)
            .map_err(Into::into);
    }
    if status == Status::Expired {
        writeln!(
            out,
            "*** EXPIRED on {}: this layout's time field ran out {} ago; generators refuse to mint with it ***\n",
            short_time(end),
            human_span(now - end)
        )?;
    }
    writeln!(out, "layout  {}", name_or_custom(&layout))?;
    writeln!(out, "spec    {layout}")?;
    writeln!(
        out,
        "width   {} bits{}\n",
        layout.width(),
        match 64 - layout.width() {
            0 => String::new(),
            1 => " (the top bit is always 0)".to_owned(),
            n => format!(" (the top {n} bits are always 0)"),
        }
    )?;
    out.write_all(picture(&layout).as_bytes())?;
    writeln!(out)?;
    let mut rows: Vec<(&str, String)> = Vec::new();
    rows.push((
        "epoch",
        format!(
            "{} ({} ms)",
            short_time(layout.epoch_ms()),
            layout.epoch_ms()
        ),
    ));
    rows.push((
        "tick",
        format!(
            "{} ({} bits of time: {} ticks)",
            tick(layout.tick_ms()),
            layout.time_field().bits,
            thousands(layout.max_time().saturating_add(1))
        ),
    ));
    let status_text = match status {
        Status::Expired => format!("EXPIRED on {}", short_time(end)),
        Status::NotStarted => format!(
            "NOT STARTED: the epoch is {} in the future",
            human_span(layout.epoch_ms() - now)
        ),
        Status::Ok => format!("ok, {} left", human_span(end - now)),
    };
    rows.push(("lifetime end", short_time(end)));
    rows.push(("status", status_text));
    rows.push((
        "capacity",
        format!(
            "{} IDs/s per node ({} per {} tick)",
            thousands(layout.capacity_per_second()),
            thousands(layout.max_sequence() + 1),
            tick(layout.tick_ms())
        ),
    ));
    let node_detail: Vec<String> = layout
        .node_fields()
        .map(|f| format!("{} 0..={}", f.name, f.max()))
        .collect();
    rows.push((
        "max nodes",
        if node_detail.is_empty() {
            "1 (no node field)".to_owned()
        } else {
            format!("{} ({})", thousands(nodes), node_detail.join(", "))
        },
    ));
    if let Some(r) = layout.rollback_field() {
        rows.push((
            "rollback",
            format!("{} bits (counter for the rollback_counter policy)", r.bits),
        ));
    }
    rows.push((
        "largest ID",
        format!("{} (0x{:x})", layout.max_id(), layout.max_id()),
    ));
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in &rows {
        writeln!(out, "{k:<width$}  {v}")?;
    }
    writeln!(out, "fits in")?;
    for (ty, ok) in integer_types(layout.max_id()) {
        writeln!(out, "  {ty:<28}{}", if ok { "yes" } else { "no" })?;
    }
    Ok(())
}

fn inspect_json(layout: &Layout, now: u64) -> Json {
    let status = Status::of(layout, now);
    let fields: Vec<Json> = layout
        .fields()
        .iter()
        .map(|f| {
            Json::obj()
                .with("name", f.name.as_str())
                .with(
                    "kind",
                    match f.kind {
                        FieldKind::Time => "time",
                        FieldKind::Node => "node",
                        FieldKind::Sequence => "sequence",
                        FieldKind::Rollback => "rollback",
                    },
                )
                .with("bits", f.bits)
                .with("shift", f.shift)
                .with("max", f.max())
        })
        .collect();
    let mut fits = Json::obj();
    for (key, (_, ok)) in ["int32", "js_safe", "int64", "uint64"]
        .iter()
        .zip(integer_types(layout.max_id()))
    {
        fits.push(key, ok);
    }
    Json::obj()
        .with("preset", layout.preset_name())
        .with("spec", layout.to_string())
        .with("width", layout.width())
        .with("fields", fields)
        .with("epoch_ms", layout.epoch_ms())
        .with("epoch", short_time(layout.epoch_ms()))
        .with("tick_ms", layout.tick_ms())
        .with("lifetime_end_ms", layout.lifetime_end_ms())
        .with("lifetime_end", short_time(layout.lifetime_end_ms()))
        .with("expired", status == Status::Expired)
        .with("status", status.word())
        .with("capacity_per_second", layout.capacity_per_second())
        .with("max_nodes", layout.max_node() + 1)
        .with("max_id", layout.max_id().to_string())
        .with("fits", fits)
}

pub fn run_layouts(args: &LayoutsArgs, out: &mut impl Write) -> CliResult {
    let now = now_ms();
    let mut layouts = Vec::new();
    for name in idmint::snowflake::preset::NAMES {
        layouts.push(parse_layout(name)?);
    }
    if args.json {
        let items: Vec<Json> = layouts.iter().map(|l| inspect_json(l, now)).collect();
        return Json::Arr(items).write_pretty(out).map_err(Into::into);
    }
    let header = [
        "NAME", "WIDTH", "TIME", "NODE", "SEQ", "EPOCH", "ENDS", "STATUS",
    ];
    let mut rows: Vec<[String; 8]> = vec![header.map(str::to_owned)];
    for l in &layouts {
        let node: Vec<String> = l
            .node_fields()
            .map(|f| format!("{}={}", f.name, f.bits))
            .collect();
        let mut seq = l.sequence_field().bits.to_string();
        if let Some(r) = l.rollback_field() {
            seq.push_str(&format!(" +rollback={}", r.bits));
        }
        rows.push([
            name_or_custom(l).to_owned(),
            l.width().to_string(),
            format!("{}@{}", l.time_field().bits, tick(l.tick_ms())),
            if node.is_empty() {
                "-".to_owned()
            } else {
                node.join(",")
            },
            seq,
            date(l.epoch_ms()),
            date(l.lifetime_end_ms()),
            Status::of(l, now).word().to_owned(),
        ]);
    }
    let mut widths = [0usize; 8];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    for row in &rows {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<w$}  "));
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picture_lines_have_equal_width() {
        for name in idmint::snowflake::preset::NAMES {
            let l = Layout::parse(name).unwrap();
            let p = picture(&l);
            let lines: Vec<&str> = p.lines().collect();
            assert_eq!(lines.len(), 4, "{p}");
            assert_eq!(lines[1].len(), lines[2].len(), "{p}");
            assert!(lines[0].len() <= lines[1].len(), "{p}");
            assert!(lines[1].len() <= PICTURE_WIDTH, "{p}");
            assert!(lines[0].trim_start().starts_with("63"), "{p}");
            assert!(lines[0].ends_with(" 0"), "{p}");
        }
        let p = picture(&Layout::parse("twitter").unwrap());
        assert!(p.contains("| 0 |"), "{p}");
        assert!(
            p.contains("time (41)") && p.contains("datacenter (5)"),
            "{p}"
        );
        let wide = Layout::parse("time=40@1ms,rollback=2,worker=8,seq=13,epoch=2020-01-01");
        assert!(picture(&wide.unwrap()).contains("rollback (2)"));
    }
}
