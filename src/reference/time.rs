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
}
