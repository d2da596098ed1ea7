//! Calendar arithmetic on Unix milliseconds, without std: layout epochs are written as dates,
//! and decoded IDs and errors print RFC 3339 UTC times.

use core::fmt;

const MS_PER_DAY: u64 = 86_400_000;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
pub(crate) const fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month, day) of a day count since 1970-01-01.
pub(crate) const fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

const fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Parses `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM:SSZ` or `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC) into Unix ms.
/// Returns the byte offset and reason on failure.
pub(crate) fn parse_date_ms(s: &str) -> Result<u64, (usize, &'static str)> {
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Result<u64, (usize, &'static str)> {
        if b.len() < from + len {
            return Err((
                b.len(),
                "date ended early; expected YYYY-MM-DD[THH:MM:SS[.mmm]Z]",
            ));
        }
        let mut v = 0u64;
        for (i, &c) in b[from..from + len].iter().enumerate() {
            if !c.is_ascii_digit() {
                return Err((from + i, "expected a digit"));
            }
            v = v * 10 + u64::from(c - b'0');
        }
        Ok(v)
    };
    let sep = |at: usize, c: u8, what: &'static str| -> Result<(), (usize, &'static str)> {
        match b.get(at) {
            Some(&x) if x == c => Ok(()),
            _ => Err((at, what)),
        }
    };
    let y = num(0, 4)?;
    sep(4, b'-', "expected '-' after the year")?;
    let m = num(5, 2)? as u32;
    sep(7, b'-', "expected '-' after the month")?;
    let d = num(8, 2)? as u32;
    if y < 1970 {
        return Err((0, "year before 1970"));
    }
    if !(1..=12).contains(&m) {
        return Err((5, "month out of range 01..12"));
    }
    if d == 0 || d > days_in_month(y as i64, m) {
        return Err((8, "day out of range for the month"));
    }
    let mut ms = days_from_civil(y as i64, m, d) as u64 * MS_PER_DAY;
    if b.len() == 10 {
        return Ok(ms);
    }
    sep(10, b'T', "expected 'T' before the time of day")?;
    let hh = num(11, 2)?;
    sep(13, b':', "expected ':' after the hour")?;
    let mm = num(14, 2)?;
    sep(16, b':', "expected ':' after the minutes")?;
    let ss = num(17, 2)?;
    if hh > 23 {
        return Err((11, "hour out of range 00..23"));
    }
    if mm > 59 {
        return Err((14, "minutes out of range 00..59"));
    }
    if ss > 59 {
        return Err((17, "seconds out of range 00..59"));
    }
    ms += ((hh * 60 + mm) * 60 + ss) * 1000;
    let mut at = 19;
    if b.get(at) == Some(&b'.') {
        ms += num(20, 3)?;
        at = 23;
    }
    sep(at, b'Z', "expected 'Z' (times are UTC)")?;
    if b.len() != at + 1 {
        return Err((at + 1, "unexpected text after the date"));
    }
    Ok(ms)
}

/// Displays Unix milliseconds as RFC 3339 UTC: `2024-11-20T21:24:16.000Z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rfc3339(pub u64);

impl fmt::Display for Rfc3339 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = (self.0 / MS_PER_DAY) as i64;
        let rem = self.0 % MS_PER_DAY;
        let (y, m, d) = civil_from_days(days);
        let (h, rem) = (rem / 3_600_000, rem % 3_600_000);
        let (mi, rem) = (rem / 60_000, rem % 60_000);
        let (s, ms) = (rem / 1000, rem % 1000);
        write!(f, "{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{ms:03}Z")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(parse_date_ms("1970-01-01"), Ok(0));
        assert_eq!(parse_date_ms("2014-09-01"), Ok(1_409_529_600_000));
        assert_eq!(
            parse_date_ms("2010-11-04T01:42:54.657Z"),
            Ok(1_288_834_974_657)
        );
        assert_eq!(parse_date_ms("2016-05-20T00:00:00Z"), Ok(1_463_702_400_000));
        assert!(parse_date_ms("2023-02-29").is_err());
        assert_eq!(
            parse_date_ms("2024-13-01"),
            Err((5, "month out of range 01..12"))
        );
    }

    #[test]
    fn display_round_trip() {
        extern crate std;
        use std::string::ToString;
        for ms in [
            0u64,
            1_288_834_974_657,
            1_732_137_856_000,
            4_102_444_800_999,
        ] {
            let s = Rfc3339(ms).to_string();
            assert_eq!(parse_date_ms(&s), Ok(ms), "{s}");
        }
        assert_eq!(
            Rfc3339(1_732_137_856_000).to_string(),
            "2024-11-20T21:24:16.000Z"
        );
    }
}
