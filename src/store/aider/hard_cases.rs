//! Hand-written expectations of Aider's hardest cases (issue 27), each
//! from agent-logs-files-3.md "Aider" (rule named per test), not pasted
//! from the reader's output: a history file in a store made here, since
//! one file holds a session per run.

use crate::formats::toolkit::hard_case::{expect, store_surface};
use crate::store::FsStore;

/// 2026-01-01T00:00:00Z in ms.
const T0: u64 = 1_767_225_600_000;

/// Two runs with the same stamp, as Aider writes them, then an append in
/// progress.
const HISTORY: &str = "stray line before any run\n\
\n# aider chat started at 2026-01-01 00:00:05\n\n\
> Aider v0.86.2  \n> Model: sonnet  \n\n\
#### /add src/a.rs  \n\n\
> Added src/a.rs to the chat  \n\n\
#### Fix the   \n#### off-by-one  \n\n\
Here is the fix:\n\n# Heading in the reply\nmore text\n\n\
> Applied edit to src/a.rs  \n\n\
#### <blank>  \n\n\
\n# aider chat started at 2026-01-01 00:00:05\n\n\
#### /help  \n\n\
Commands are listed above.\n\n\
#### half-writ";

/// "id: `aider:<path … relative to the store root>#<stamp>`; the k-th run
/// … with the same stamp adds `~k`". "createdAt: the stamp read as UTC";
/// "cwd: the absolute path of the directory holding the file".
/// "Messages": consecutive `#### ` lines are one user message (trailing
/// spaces removed, joined with "\n"); assistant lines with the blank
/// lines between them one message, a `# ` heading in a reply included; a
/// `> ` tool line ends a message and never shows; `<blank>` is no
/// message. "Title: the first user message of the run that does not
/// start with `/`, cut to 80; else none." Bytes after the last `\n` are
/// ignored; lines before the first header belong to no run.
#[test]
fn each_run_is_a_session_with_its_own_id_and_title() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("proj");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join(".aider.chat.history.md"), HISTORY).unwrap();
    let store = FsStore::scan(tmp.path());
    let cwd = project.to_str().unwrap();
    let first = "aider:proj/.aider.chat.history.md#2026-01-01T00:00:05";
    assert_eq!(
        store_surface(&store, first),
        expect(
            first,
            T0 + 5_000,
            Some(cwd),
            Some("Fix the off-by-one"),
            None,
            &[
                ("user", "/add src/a.rs"),
                ("user", "Fix the\noff-by-one"),
                (
                    "assistant",
                    "Here is the fix:\n\n# Heading in the reply\nmore text"
                ),
            ],
        )
    );
    let second = format!("{first}~2");
    assert_eq!(
        store_surface(&store, &second),
        expect(
            &second,
            T0 + 5_000,
            Some(cwd),
            None,
            None,
            &[
                ("user", "/help"),
                ("assistant", "Commands are listed above.")
            ],
        )
    );
}

/// "Reading: the file is split into lines at `\n` (one `\r` before it
/// dropped)"; a run with no user message but a reply still is a session
/// with no title; "a markdown heading `# …` in a reply is assistant text"
/// but a run header must match exactly (`# aider chat started at` with a
/// stamp), so a header-like line with a bad stamp is reply text.
#[test]
fn crlf_lines_and_header_lookalikes_stay_in_their_run() {
    let tmp = tempfile::tempdir().unwrap();
    let history = "\r\n# aider chat started at 2026-01-01 00:00:09\r\n\r\n\
                   #### Explain\r\n#### the loop  \r\n\r\n\
                   It counts down.\r\n# aider chat started at yesterday\r\n\r\n";
    std::fs::write(tmp.path().join(".aider.chat.history.md"), history).unwrap();
    let store = FsStore::scan(tmp.path());
    let id = "aider:.aider.chat.history.md#2026-01-01T00:00:09";
    assert_eq!(
        store_surface(&store, id),
        expect(
            id,
            T0 + 9_000,
            Some(tmp.path().to_str().unwrap()),
            Some("Explain the loop"),
            None,
            &[
                ("user", "Explain\nthe loop"),
                (
                    "assistant",
                    "It counts down.\n# aider chat started at yesterday"
                ),
            ],
        )
    );
}
