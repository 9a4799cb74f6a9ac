//! Creation times as people read them: UTC, to the minute.

/// `YYYY-MM-DD HH:MM` (UTC) from Unix epoch milliseconds.
pub fn minutes(ms: u64) -> String {
    let secs = ms / 1000;
    let rem = secs % 86_400;
    format!("{} {:02}:{:02}", date(ms), rem / 3600, rem % 3600 / 60)
}

/// `YYYY-MM-DD HH:MM UTC` from Unix epoch milliseconds.
pub fn timestamp(ms: u64) -> String {
    minutes(ms) + " UTC"
}

/// `YYYY-MM-DDTHH:MM:SSZ` (RFC 3339, UTC) from Unix epoch milliseconds.
pub fn rfc3339(ms: u64) -> String {
    let secs = ms / 1000;
    let rem = secs % 86_400;
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        date(ms),
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// `YYYY-MM-DD` from Unix epoch milliseconds.
pub fn date(ms: u64) -> String {
    let (y, m, d) = civil_from_days((ms / 1000 / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (UTC) → Unix epoch milliseconds of
/// the start of that year, month or day; `None` for anything else or a day
/// the month does not have.
pub fn parse_date(text: &str) -> Option<u64> {
    let mut parts = text.split('-');
    let number = |p: Option<&str>, len: usize| -> Option<Option<u32>> {
        match p {
            None => Some(None),
            Some(p) if p.len() == len && p.bytes().all(|b| b.is_ascii_digit()) => {
                p.parse().ok().map(Some)
            }
            Some(_) => None,
        }
    };
    let year = number(parts.next(), 4)??;
    let month = number(parts.next(), 2)?.unwrap_or(1);
    let day = number(parts.next(), 2)?.unwrap_or(1);
    if parts.next().is_some() || !(1..=12).contains(&month) || day == 0 {
        return None;
    }
    let days = days_from_civil(i64::from(year), month, day);
    // A day past the month's end comes back as another date.
    if civil_from_days(days) != (i64::from(year), month, day) || days < 0 {
        return None;
    }
    Some(days as u64 * 86_400_000)
}

/// (year, month, day) → days since 1970-01-01, the inverse of
/// [`civil_from_days`] (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from(if m > 2 { m - 3 } else { m + 9 });
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian
/// (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(timestamp(0), "1970-01-01 00:00 UTC");
        assert_eq!(timestamp(1_764_400_000_000), "2025-11-29 07:06 UTC");
        assert_eq!(minutes(1_764_400_000_000), "2025-11-29 07:06");
        assert_eq!(rfc3339(1_764_400_021_000), "2025-11-29T07:07:01Z");
        assert_eq!(date(951_782_400_000), "2000-02-29");
    }

    #[test]
    fn dates_are_parsed_back() {
        assert_eq!(parse_date("2000-02-29"), Some(951_782_400_000));
        assert_eq!(parse_date("1970"), Some(0));
        assert_eq!(date(parse_date("2025-11").unwrap()), "2025-11-01");
        for bad in [
            "",
            "2025-13",
            "2025-02-30",
            "25-01-01",
            "2025-1-1",
            "2025-01-01-01",
            "soon",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }
}
