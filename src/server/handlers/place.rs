//! Where a session is and how old, as completion items say it in their
//! detail (the candidates' and the body matches' alike).

use super::markdown;
use crate::reference::one_line::one_line;

/// Where a session is and how old: an item's detail.
pub fn describe(cwd: Option<&str>, same_workspace: bool, created_ms: u64, now: u64) -> String {
    let place = match (cwd.map(one_line), same_workspace) {
        (None, _) => "no cwd".to_string(),
        (Some(cwd), true) => format!("{cwd} · same workspace"),
        (Some(cwd), false) => format!("{cwd} · other workspace"),
    };
    format!("{place} · {}", age(created_ms, now))
}

/// A short age: minutes, hours or days, else the date. A time in the
/// future (a wrong clock, or a log that says so) is shown as its date,
/// never as "just now".
pub fn age(created_ms: u64, now_ms: u64) -> String {
    let Some(elapsed) = now_ms.checked_sub(created_ms) else {
        return markdown::date(created_ms);
    };
    match elapsed / 1000 {
        0..=59 => "just now".to_string(),
        secs @ 60..=3_599 => format!("{} min ago", secs / 60),
        secs @ 3_600..=86_399 => format!("{} h ago", secs / 3600),
        secs @ 86_400..=2_591_999 => format!("{} d ago", secs / 86_400),
        _ => markdown::date(created_ms),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages() {
        let day = 86_400_000;
        assert_eq!(age(10 * day, 10 * day + 5_000), "just now");
        assert_eq!(age(10 * day, 10 * day + 120_000), "2 min ago");
        assert_eq!(age(10 * day, 12 * day), "2 d ago");
        assert_eq!(age(0, 100 * day), "1970-01-01");
        // Issue 18 item 19: 400 days ahead is a date, not "just now".
        assert_eq!(age(400 * day, 0), "1971-02-05");
        assert_eq!(age(10 * day + 1, 10 * day), "1970-01-11");
    }
}
