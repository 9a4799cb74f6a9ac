//! Every Cursor rule that agent-logs-more.md marks unverified ([U]), in one
//! place. Cursor is closed source and no real transcript of it was found:
//! these rules rest on third-party readers' tests and on choices made here
//! (docs/agent-logs.md "Cursor" says what was verified and on what). When a
//! real transcript contradicts one, this file is what changes.
//!
//! [U] Also: Cursor records no compaction and no context capacity in these
//! files, so a transcript has no checkpoint and no capacity (the reader
//! has no code for either).

use std::path::{Path, PathBuf};

use crate::formats::text;

/// [U list] The elements whose text is Cursor's, not the person's, in a
/// prompt without `<user_query>`: a text block that is entirely such
/// elements is dropped.
pub const WRAPPERS: &[&str] = &[
    "timestamp",
    "user_info",
    "system_reminder",
    "system-reminder",
];

/// [U] A sub-agent's id is `<parent id>/<own id>`, as Claude Code's: Cursor
/// is not known to resume a sub-agent's transcript by itself.
pub fn sub_agent_id(parent: &str, own: &str) -> String {
    format!("{parent}/{own}")
}

/// [U: a format seen in readers' tests only] The time in a prompt's
/// `<timestamp>` element, `Thursday, Aug 20, 2026, 9:15 AM (UTC+2)`, as Unix
/// epoch milliseconds: to the minute in that offset. The weekday must be an
/// English one but is not checked against the date; the day must be valid
/// for the month; `12 AM` is 0:00.
pub fn prompt_time(element: &str) -> Option<u64> {
    let (weekday, rest) = element.trim().split_once(", ")?;
    if !WEEKDAYS.contains(&weekday) {
        return None;
    }
    let (month, rest) = rest.split_once(' ')?;
    let month = MONTHS.iter().position(|m| *m == month)? + 1;
    let (day, rest) = rest.split_once(", ")?;
    let (year, rest) = rest.split_once(", ")?;
    let (clock, rest) = rest.split_once(' ')?;
    let (half, zone) = rest.split_once(' ')?;
    let (hour, minute) = clock.split_once(':')?;
    let day = digits(day, 1, 2)?;
    let year = digits(year, 4, 4)?;
    let hour = digits(hour, 1, 2).filter(|h| (1..=12).contains(h))?;
    let minute = digits(minute, 2, 2)?;
    let hour = match half {
        "AM" => hour % 12,
        "PM" => hour % 12 + 12,
        _ => return None,
    };
    let offset = utc_offset(zone)?;
    // RFC 3339 checks the day against the month and the clock's ranges.
    text::parse_timestamp(&format!(
        "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:00{offset}"
    ))
}

const WEEKDAYS: &[&str] = &[
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

const MONTHS: &[&str] = &[
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `(UTC)`, `(UTC+2)`, `(UTC-5:30)` as an RFC 3339 offset (`+00:00`).
fn utc_offset(zone: &str) -> Option<String> {
    let inner = zone.strip_prefix("(UTC")?.strip_suffix(')')?;
    if inner.is_empty() {
        return Some("+00:00".into());
    }
    let sign = inner.chars().next().filter(|c| matches!(c, '+' | '-'))?;
    let (hours, minutes) = match inner[1..].split_once(':') {
        Some((h, m)) => (digits(h, 1, 2)?, digits(m, 2, 2)?),
        None => (digits(&inner[1..], 1, 2)?, 0),
    };
    Some(format!("{sign}{hours:02}:{minutes:02}"))
}

/// `text` as a number when it is `min` to `max` ASCII digits.
fn digits(text: &str, min: usize, max: usize) -> Option<u32> {
    let ok = (min..=max).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit());
    ok.then(|| text.parse().ok()).flatten()
}

/// How deep the slug walk goes ([`decode_slug`]).
const SLUG_MAX_DEPTH: u32 = 32;

/// [U, a choice made here] How many directories one slug walk may look
/// at: a slug of many `-` under folders of many matching names would
/// otherwise cost a number of looks that grows with every `-`.
const SLUG_MAX_LOOKS: u32 = 4096;

/// [U] The cwd a project folder's name (the slug) stands for, decoded
/// against the directories below `root` (`/` for a real install). The slug
/// is the absolute path with its leading `/` dropped and every `/` turned
/// into `-` (`.`, `_` and spaces perhaps too), so it is ambiguous: from
/// `root`, if `<base>/<rest>` is a directory, that is the cwd; else for
/// each `-` in `rest`, left to right, with a non-empty prefix that is a
/// directory in `base`, the walk goes on there with the text after the `-`
/// (at most 32 levels); the first answer wins. None: once more with one
/// leading `-` removed; still none: no cwd, never a guess.
pub fn decode_slug(root: &Path, slug: &str) -> Option<PathBuf> {
    let mut looks = 0;
    walk(root, slug, 0, &mut looks).or_else(|| {
        let rest = slug.strip_prefix('-')?;
        walk(root, rest, 0, &mut looks)
    })
}

fn walk(base: &Path, rest: &str, depth: u32, looks: &mut u32) -> Option<PathBuf> {
    let is_dir = |name: &str, looks: &mut u32| -> Option<PathBuf> {
        // A slug names folders, never `.` or `..` (nor the base itself).
        if name.is_empty() || name == "." || name == ".." || *looks >= SLUG_MAX_LOOKS {
            return None;
        }
        *looks += 1;
        let path = base.join(name);
        path.is_dir().then_some(path)
    };
    if let Some(whole) = is_dir(rest, looks) {
        return Some(whole);
    }
    if depth + 1 >= SLUG_MAX_DEPTH {
        return None;
    }
    for (at, _) in rest.match_indices('-') {
        if let Some(next) = is_dir(&rest[..at], looks) {
            if let Some(found) = walk(&next, &rest[at + 1..], depth + 1, looks) {
                return Some(found);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_times_to_the_minute_in_their_offset() {
        // 9:15 at UTC+2 is 7:15 UTC.
        assert_eq!(
            prompt_time("Thursday, Aug 20, 2026, 9:15 AM (UTC+2)"),
            text::parse_timestamp("2026-08-20T07:15:00Z")
        );
        assert_eq!(
            prompt_time(" Monday, Feb 29, 2028, 12:05 AM (UTC) "),
            text::parse_timestamp("2028-02-29T00:05:00Z")
        );
        assert_eq!(
            prompt_time("Sunday, Dec 1, 2024, 12:30 PM (UTC-5:30)"),
            text::parse_timestamp("2024-12-01T18:00:00Z")
        );
        // The weekday is not checked against the date.
        assert_eq!(
            prompt_time("Friday, Jan 1, 2021, 1:00 PM (UTC)"),
            text::parse_timestamp("2021-01-01T13:00:00Z")
        );
        for bad in [
            "",
            "Thu, Aug 20, 2026, 9:15 AM (UTC+2)",
            "Thursday, August 20, 2026, 9:15 AM (UTC+2)",
            "Thursday, Feb 30, 2026, 9:15 AM (UTC)",
            "Thursday, Aug 20, 2026, 13:15 PM (UTC)",
            "Thursday, Aug 20, 2026, 0:15 AM (UTC)",
            "Thursday, Aug 20, 2026, 9:5 AM (UTC)",
            "Thursday, Aug 20, 2026, 9:15 am (UTC)",
            "Thursday, Aug 20, 2026, 9:15 AM (GMT+2)",
            "Thursday, Aug 20, 2026, 9:15 AM (UTC+2",
            "Thursday, Aug 20, 26, 9:15 AM (UTC)",
            "Thursday, Aug 20, 2026, 9:15 AM (UTC+24)",
            "Thursday, Aug 20, 2026, 9:15 AM",
        ] {
            assert_eq!(prompt_time(bad), None, "{bad}");
        }
    }

    #[test]
    fn slugs_are_decoded_against_the_real_directories() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        for dir in ["home/ana/my-app", "home/ana/my/app", "srv/a-b-c", "srv/a"] {
            std::fs::create_dir_all(r.join(dir)).unwrap();
        }
        let decode = |slug: &str| decode_slug(r, slug);
        // `-` may be `/` or `-`: a whole rest that is a directory is
        // looked at before any split, so `my-app` wins over `my/app`.
        assert_eq!(decode("home-ana-my-app"), Some(r.join("home/ana/my-app")));
        std::fs::remove_dir_all(r.join("home/ana/my-app")).unwrap();
        assert_eq!(decode("home-ana-my-app"), Some(r.join("home/ana/my/app")));
        // Splits go left to right: `a` before `a-b`.
        std::fs::create_dir_all(r.join("srv/a/b-c/d")).unwrap();
        std::fs::create_dir_all(r.join("srv/a-b/c/d")).unwrap();
        assert_eq!(decode("srv-a-b-c-d"), Some(r.join("srv/a/b-c/d")));
        // A whole rest that is a directory wins before any split.
        assert_eq!(decode("srv-a-b-c"), Some(r.join("srv/a-b-c")));
        // One leading `-` is dropped when nothing else is found.
        assert_eq!(decode("-home-ana-my-app"), Some(r.join("home/ana/my/app")));
        // Missing directories: no cwd.
        for none in [
            "home-bob-x",
            "nothing",
            "",
            "-",
            "home-",
            "home--ana",
            "..-home",
        ] {
            assert_eq!(decode(none), None, "{none}");
        }
        // A `.` in the real name is not recovered from a `-`.
        std::fs::create_dir_all(r.join("home/ana/site.io")).unwrap();
        assert_eq!(decode("home-ana-site-io"), None);
    }

    #[test]
    fn a_slug_walk_stops_at_its_depth() {
        let root = tempfile::tempdir().unwrap();
        let deep: Vec<String> = (0..40).map(|i| format!("d{i}")).collect();
        std::fs::create_dir_all(root.path().join(deep.join("/"))).unwrap();
        let within = deep[..SLUG_MAX_DEPTH as usize].join("-");
        assert!(decode_slug(root.path(), &within).is_some());
        let beyond = deep[..SLUG_MAX_DEPTH as usize + 1].join("-");
        assert_eq!(decode_slug(root.path(), &beyond), None);
    }

    #[test]
    fn sub_agents_are_named_under_their_parent() {
        assert_eq!(sub_agent_id("p", "c"), "p/c");
    }
}
