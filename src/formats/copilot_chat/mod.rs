//! The GitHub Copilot Chat format of VS Code (agent-logs-more.md "GitHub
//! Copilot Chat in VS Code"): `chatSessions/<id>.jsonl`, a mutation log
//! replayed to the session's final state (full state, set, append after a
//! cut, delete: an edited request is a cut then an append, so the replay
//! is the live branch), and the older whole-JSON `<id>.json`. Lenient: an
//! entry that cannot be applied is skipped and counted; only invalid
//! UTF-8 fails a read.

pub mod defaults;
pub mod mutation;
pub mod place;
pub mod reader;
pub mod surface;
pub mod thin;
pub mod track;

#[cfg(test)]
mod hard_cases;
#[cfg(test)]
mod tests;

use super::toolkit::declare::log_format;
use place::{EMPTY_WINDOW_DIR, SESSIONS_DIR};
use track::Tracker;

/// Folders VS Code keeps chat files in that are no sessions of their own:
/// hand-over copies (deleted after minutes) and an older fallback of
/// empty windows (agent-logs-more.md "Not read").
///
/// Searched for in every name an `auto` store walks, so each finder is
/// built once (building one costs more than the search).
static NOT_READ: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 2]> =
    std::sync::LazyLock::new(|| {
        [
            b"transferredChatSessions/".as_slice(),
            b"no-workspace/chatSessions/",
        ]
        .map(memchr::memmem::Finder::new)
    });

log_format! {
    /// The Copilot Chat format.
    CopilotChat = "copilot-chat",
    tracked_by: (Tracker),
    {
        /// Every `.jsonl`, and a `.json` directly in a `chatSessions` or
        /// `emptyWindowChatSessions` folder; none in the folders not read.
        fn is_log_name(&self, rel: &[u8]) -> bool {
            // The name of the folder a `.json` is directly in.
            let json_folder = rel.strip_suffix(b".json").and_then(|stem| {
                let dir = &stem[..memchr::memrchr(b'/', stem)?];
                Some(memchr::memrchr(b'/', dir).map_or(dir, |at| &dir[at + 1..]))
            });
            let ignored = NOT_READ.iter().any(|dir| dir.find(rel).is_some());
            !ignored
                && (rel.ends_with(b".jsonl")
                    || json_folder.is_some_and(|d| {
                        d == SESSIONS_DIR.as_bytes() || d == EMPTY_WINDOW_DIR.as_bytes()
                    }))
        }

        /// A `.json` in a `chatSessions` (or `emptyWindowChatSessions`)
        /// folder is Copilot Chat's by its name: a pretty-printed document's
        /// first line, `{`, tells no format (agent-logs-more.md "auto").
        fn claims_name(&self, path: &[u8]) -> bool {
            path.ends_with(b".json") && self.is_log_name(path)
        }

        /// A full-state entry, or the start of a whole document.
        fn recognizes(&self, line: &[u8]) -> bool {
            track::is_log_start(line) || track::is_document_start(line)
        }
    }
}
