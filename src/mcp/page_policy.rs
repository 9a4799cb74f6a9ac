//! Which sessions `resources/list` offers, and in what pages: a bounded,
//! useful set — this workspace's sessions (the client's first root, else
//! the server's cwd), then the newest — at most `--limit` (500), in pages
//! sized so that 20 pages hold them all. Claude Code reads at most 20
//! pages and shows every listed resource in its `@` menu; OpenCode shows
//! every one unfiltered; a store of 10,000 sessions must not flood either.
//!
//! The ranking is the live index's own (candidates, reference.md §7): a
//! page is a slice of it, read from the one view the request took. The
//! cursor is the offset of the next page, opaque to the client; a list
//! that changed between two pages is announced by `list_changed` (or the
//! 2026-07-28 subscription), after which a client lists again.

/// The pages one list spans at most: what Claude Code reads.
pub const MAX_PAGES: u64 = 20;

/// The cursor's prefix: a cursor is this and the offset of its page.
const CURSOR_PREFIX: &str = "at:";

/// One page of a list of at most `limit` sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// The rank of its first session.
    pub offset: u64,
    /// At most this many sessions.
    pub size: u64,
}

impl Page {
    /// The page `cursor` names (the first without one) in a list of at
    /// most `limit` sessions; `Err` for a cursor this server never gave.
    pub fn of(limit: u64, cursor: Option<&str>) -> Result<Page, String> {
        let size = page_size(limit);
        let offset = match cursor {
            None => 0,
            Some(cursor) => cursor
                .strip_prefix(CURSOR_PREFIX)
                .and_then(|n| n.parse::<u64>().ok())
                .filter(|n| *n < limit && n % size == 0)
                .ok_or_else(|| {
                    format!(
                        "Invalid params: unknown cursor {:?}",
                        super::text::short(cursor)
                    )
                })?,
        };
        Ok(Page {
            offset,
            size: size.min(limit - offset.min(limit)),
        })
    }

    /// How many ranked sessions the page needs read: those before it too.
    pub fn end(&self) -> u64 {
        self.offset + self.size
    }

    /// The cursor of the page after this one, when `ranked` (the sessions
    /// ranked up to [`Page::end`]) filled this one and the bound `limit`
    /// allows another.
    pub fn next_cursor(&self, ranked: usize, limit: u64) -> Option<String> {
        let full = ranked as u64 >= self.end();
        (full && self.end() < limit).then(|| format!("{CURSOR_PREFIX}{}", self.end()))
    }
}

/// Sessions per page: `limit` spread over [`MAX_PAGES`], at least one.
pub fn page_size(limit: u64) -> u64 {
    limit.div_ceil(MAX_PAGES).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twenty_pages_hold_the_bound() {
        assert_eq!(page_size(500), 25);
        assert_eq!(page_size(1), 1);
        assert_eq!(page_size(21), 2);
        let mut cursor = None;
        let mut pages = 0;
        let mut listed = 0;
        loop {
            let page = Page::of(500, cursor.as_deref()).unwrap();
            pages += 1;
            listed += page.size;
            // A store of 10,000 sessions fills every page.
            cursor = page.next_cursor(page.end() as usize, 500);
            if cursor.is_none() {
                break;
            }
        }
        assert_eq!((pages, listed), (20, 500));
    }

    #[test]
    fn a_short_list_is_one_page_and_bad_cursors_are_refused() {
        let first = Page::of(500, None).unwrap();
        assert_eq!(
            first,
            Page {
                offset: 0,
                size: 25
            }
        );
        assert_eq!(first.next_cursor(4, 500), None);
        assert_eq!(first.next_cursor(25, 500).as_deref(), Some("at:25"));
        let past = Page::of(30, Some("at:30")).unwrap_err();
        assert!(past.contains("cursor"), "{past}");
        let last = Page::of(30, Some("at:28")).unwrap();
        assert_eq!(
            last,
            Page {
                offset: 28,
                size: 2
            }
        );
        assert_eq!(last.next_cursor(30, 30), None);
        // A page the ranking did not fill is the last.
        assert_eq!(Page::of(30, Some("at:2")).unwrap().next_cursor(3, 30), None);
        for bad in ["", "at:", "at:x", "at:3", "at:500", "25"] {
            assert!(Page::of(500, Some(bad)).is_err(), "{bad}");
        }
    }
}
