//! Text rules of agent-logs.md: wrapper elements, titles cut to 80, the
//! first line of a prompt, RFC 3339 timestamps.

/// The elements whose text is the client's, not the person's (agent-logs.md
/// "Claude Code", Messages).
const WRAPPERS: &[&str] = &[
    "command-name",
    "command-message",
    "command-args",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "bash-input",
    "bash-stdout",
    "bash-stderr",
    "task-notification",
    "system-reminder",
];

/// Whether `text`, trimmed, is one or more `<T …>…</T>` wrapper elements
/// separated only by white space. An empty text is not.
pub fn is_wrapper_only(text: &str) -> bool {
    let mut rest = text.trim();
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let Some(after) = skip_element(rest) else {
            return false;
        };
        rest = after.trim_start();
    }
    true
}

/// After one wrapper element at the start of `text`, the rest; `None` when
/// `text` does not start with one.
fn skip_element(text: &str) -> Option<&str> {
    let open = text.strip_prefix('<')?;
    let name = WRAPPERS.iter().find(|name| {
        open.strip_prefix(**name)
            .is_some_and(|after| after.starts_with('>') || after.starts_with(char::is_whitespace))
    })?;
    let after_name = &open[name.len()..];
    // `<T attr="…">`: the open tag ends at the first `>`.
    let body = &after_name[after_name.find('>')? + 1..];
    let close = format!("</{name}>");
    let end = body.find(&close)?;
    Some(&body[end + close.len()..])
}

/// A title cut to 80 (agent-logs.md "Titles cut to 80"); `None` when
/// nothing but white space is left.
pub fn cut_title(text: &str) -> Option<String> {
    const MAX: usize = 80;
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.is_empty() {
        return None;
    }
    let Some((cut_at, _)) = collapsed.char_indices().nth(MAX) else {
        return Some(collapsed);
    };
    let head = &collapsed[..cut_at];
    Some(match head.rfind(' ') {
        Some(space) => head[..space].to_string(),
        None => head.to_string(),
    })
}

/// A name the agent or person gave, used as written, trimmed, when not
/// empty.
pub fn given_title(text: &str) -> Option<String> {
    let trimmed = text.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

/// The first line of a prompt: the text before the first `\n`, `\r` or
/// U+2028, trimmed; when that is empty, the first non-empty line.
pub fn first_line(text: &str) -> Option<String> {
    text.split(['\n', '\r', '\u{2028}'])
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// An RFC 3339 date-time as Unix epoch milliseconds (finer digits
/// truncated); `None` when it does not parse or is before 1970.
pub fn parse_timestamp(text: &str) -> Option<u64> {
    let b = text.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let digits = b.get(range)?;
        digits.iter().try_fold(0i64, |acc, &d| {
            d.is_ascii_digit().then(|| acc * 10 + i64::from(d - b'0'))
        })
    };
    let year = num(0..4)?;
    let month = num(5..7)?;
    let day = num(8..10)?;
    let hour = num(11..13)?;
    let minute = num(14..16)?;
    let second = num(17..19)?;
    let seps_ok = b.get(4) == Some(&b'-')
        && b.get(7) == Some(&b'-')
        && matches!(b.get(10), Some(b'T' | b't' | b' '))
        && b.get(13) == Some(&b':')
        && b.get(16) == Some(&b':');
    if !seps_ok
        || !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut i = 19;
    let mut millis = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            if i - start < 3 {
                millis = millis * 10 + i64::from(b[i] - b'0');
            }
            i += 1;
        }
        match i - start {
            0 => return None,
            1 => millis *= 100,
            2 => millis *= 10,
            _ => {}
        }
    }
    let offset_minutes = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) if i + 6 == b.len() && b.get(i + 3) == Some(&b':') => {
            let (h, m) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            if h > 23 || m > 59 {
                return None;
            }
            let total = h * 60 + m;
            if sign == b'+' {
                total
            } else {
                -total
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
    u64::try_from(seconds * 1000 + millis).ok()
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrappers() {
        assert!(is_wrapper_only(
            "<command-name>/mcp</command-name>\n            <command-message>mcp</command-message>\n            <command-args></command-args>"
        ));
        assert!(is_wrapper_only(
            "  <local-command-stdout>Reconnected to tidewave.</local-command-stdout>\n"
        ));
        assert!(is_wrapper_only(
            "<system-reminder a=\"1\">x</system-reminder>"
        ));
        assert!(!is_wrapper_only(
            "<command-name>/mcp</command-name> and more"
        ));
        assert!(!is_wrapper_only("<command-names>x</command-names>"));
        assert!(!is_wrapper_only("<other>x</other>"));
        assert!(!is_wrapper_only("<command-name>unclosed"));
        assert!(!is_wrapper_only("   "));
        assert!(!is_wrapper_only("[Request interrupted by user]"));
    }

    #[test]
    fn titles() {
        assert_eq!(cut_title("  a \n\t b  ").as_deref(), Some("a b"));
        assert_eq!(cut_title(" \n "), None);
        let long = "word ".repeat(30);
        let cut = cut_title(&long).unwrap_or_default();
        assert_eq!(cut, "word ".repeat(16).trim_end());
        assert_eq!(cut_title(&"x".repeat(100)), Some("x".repeat(80)));
        // Scalar values, not bytes.
        let accents = "é".repeat(79) + " tail";
        assert_eq!(cut_title(&accents), Some("é".repeat(79)));
        assert_eq!(cut_title(&"é".repeat(80)), Some("é".repeat(80)));
        assert_eq!(
            first_line("\n  \r\n first \u{2028} second").as_deref(),
            Some("first")
        );
        assert_eq!(given_title("  "), None);
    }

    #[test]
    fn timestamps() {
        assert_eq!(parse_timestamp("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_timestamp("2025-12-10T19:37:45.343Z"),
            Some(1_765_395_465_343)
        );
        assert_eq!(
            parse_timestamp("2025-12-10T20:37:45.3439999+01:00"),
            Some(1_765_395_465_343)
        );
        assert_eq!(
            parse_timestamp("2025-12-10t19:37:45.3z"),
            Some(1_765_395_465_300)
        );
        assert_eq!(
            parse_timestamp("2024-02-29T00:00:00Z"),
            Some(1_709_164_800_000)
        );
        for bad in [
            "",
            "2025-12-10",
            "2025-13-10T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2025-12-10T24:00:00Z",
            "2025-12-10T19:37:45",
            "2025-12-10T19:37:45.Z",
            "2025-12-10T19:37:45Zjunk",
            "1969-12-31T23:59:59Z",
            "２０２５-12-10T19:37:45Z",
        ] {
            assert_eq!(parse_timestamp(bad), None, "{bad}");
        }
    }
}
