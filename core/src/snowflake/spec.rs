//! The text form of a layout: a preset name or a spec such as
//! `time=41@1ms,worker=10,seq=12,epoch=2020-01-01` (see the [`layout`](crate::snowflake::layout) module
//! docs). Parsing lives here, above both [`Layout`] and the [presets](crate::snowflake::preset), so each
//! of those depends on nothing that depends back on it.

use core::str::FromStr;

use crate::error::{Error, Result};
use crate::field_name::Name;
use crate::snowflake::layout::{FieldKind, Layout};
use crate::snowflake::preset;
use crate::time::parse_date_ms;

impl Layout {
    /// A preset by name (`twitter`, `discord`, `instagram`, `sonyflake`, `baidu`,
    /// `shardingsphere`, `leaf`, `js53`); see [`crate::snowflake::preset`].
    pub fn preset(name: &str) -> Result<Layout> {
        preset::by_name(name).ok_or(Error::InvalidLayout {
            reason: UNKNOWN_PRESET,
        })
    }

    /// Parses a preset name or a text spec (see the [`layout`](crate::snowflake::layout) module docs).
    ///
    /// # Examples
    /// ```
    /// use idmint::Layout;
    /// let l = Layout::parse("time=41@1ms,worker=10,seq=12,epoch=2020-01-01").unwrap();
    /// assert_eq!(l.width(), 63);
    /// let e = Layout::parse("time=41@1ms,worker=10,seq=x").unwrap_err();
    /// assert_eq!(e.to_string(), "invalid spec at byte 26: expected a number of bits");
    /// ```
    pub fn parse(spec: &str) -> Result<Layout> {
        let word = spec.trim();
        if let Some(l) = preset::by_name(word) {
            return Ok(l);
        }
        if !word.is_empty() && !word.contains(['=', ',']) {
            // One word that is no preset: most likely a misspelt preset name.
            return Err(Error::InvalidSpec {
                at: spec.len() - spec.trim_start().len(),
                reason: UNKNOWN_PRESET,
            });
        }
        parse_spec(spec)
    }
}

impl FromStr for Layout {
    type Err = Error;
    fn from_str(s: &str) -> Result<Layout> {
        Layout::parse(s)
    }
}

/// The answer to a name that is no preset, on every surface.
const UNKNOWN_PRESET: &str = "unknown preset; presets are twitter, discord, instagram, sonyflake, baidu, shardingsphere, leaf, js53, or give a spec such as time=41@1ms,worker=10,seq=12,epoch=2020-01-01";

fn parse_spec(spec: &str) -> Result<Layout> {
    let err = |at: usize, reason: &'static str| Error::InvalidSpec { at, reason };
    let mut b = Layout::builder();
    let mut have_epoch = false;
    let mut pos = 0usize;
    if spec.trim().is_empty() {
        return Err(err(
            0,
            "empty spec; give a preset name or fields like time=41@1ms,worker=10,seq=12",
        ));
    }
    for item in spec.split(',') {
        let start = pos;
        pos += item.len() + 1;
        let lead = item.len() - item.trim_start().len();
        let item = item.trim();
        let at = start + lead;
        let Some(eq) = item.find('=') else {
            return Err(err(at, "expected name=value"));
        };
        let (key, val) = (&item[..eq], &item[eq + 1..]);
        let vat = at + eq + 1;
        let bits = |v: &str, at: usize| -> Result<u32> {
            if v.is_empty() || !v.bytes().all(|c| c.is_ascii_digit()) || v.len() > 3 {
                return Err(err(at, "expected a number of bits"));
            }
            v.parse::<u32>()
                .map_err(|_| err(at, "expected a number of bits"))
        };
        match key {
            "time" => {
                let Some(atpos) = val.find('@') else {
                    return Err(err(
                        vat,
                        "time needs a tick: time=BITS@TICK, e.g. time=41@1ms",
                    ));
                };
                let n = bits(&val[..atpos], vat)?;
                let tick = parse_tick(&val[atpos + 1..]).map_err(|r| err(vat + atpos + 1, r))?;
                if b.fields[..b.len].iter().any(|f| f.0 == FieldKind::Time) {
                    return Err(err(at, "time given twice"));
                }
                b = b.time(n, tick);
            }
            "seq" | "sequence" => b = b.sequence(bits(val, vat)?),
            "rollback" => b = b.rollback(bits(val, vat)?),
            "width" => {
                let w = bits(val, vat)?;
                if w > 64 {
                    return Err(err(vat, "width is at most 64"));
                }
                b = b.width(w as u8);
            }
            "epoch" => {
                if have_epoch {
                    return Err(err(at, "epoch given twice"));
                }
                have_epoch = true;
                let ms = if !val.is_empty() && val.bytes().all(|c| c.is_ascii_digit()) {
                    val.parse::<u64>()
                        .map_err(|_| err(vat, "epoch in ms does not fit 64 bits"))?
                } else {
                    parse_date_ms(val).map_err(|(o, r)| err(vat + o, r))?
                };
                b = b.epoch_ms(ms);
            }
            _ => {
                if Name::new(key).is_none() {
                    return Err(err(
                        at,
                        "field names are 1-15 characters of [a-z0-9_] starting with a letter",
                    ));
                }
                b = b.node(key, bits(val, vat)?);
            }
        }
    }
    if !have_epoch {
        return Err(err(
            spec.len(),
            "missing epoch=DATE (e.g. epoch=2020-01-01)",
        ));
    }
    b.build()
}

fn parse_tick(s: &str) -> core::result::Result<u64, &'static str> {
    let digits = s.bytes().take_while(|c| c.is_ascii_digit()).count();
    let (n, unit) = s.split_at(digits);
    let n: u64 = n
        .parse()
        .map_err(|_| "expected a tick such as 1ms, 10ms or 1s")?;
    let mul = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return Err("tick unit must be ms, s, m or h"),
    };
    match n.checked_mul(mul) {
        Some(0) => Err("tick must be at least 1 ms"),
        Some(t) => Ok(t),
        None => Err("tick too long"),
    }
}
