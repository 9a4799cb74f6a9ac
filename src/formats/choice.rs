//! Which format a store's logs are in: one fixed format, each file's own
//! (told by its first line), or a store whose sessions are not line logs.

use std::path::Path;

use super::LogFormat;

/// Which format a store's logs are in.
#[derive(Debug, Clone, Copy)]
pub enum FormatChoice {
    /// Decided per file from its first line.
    Auto,
    Fixed(&'static dyn LogFormat),
    /// OpenCode's data folder: sessions are rows of its database (or
    /// files of its older `storage/` tree), listed and read by a store of
    /// their own (`store::opencode`), not by a line-log format. Named in
    /// settings like a format, so `--store-format opencode` and a store
    /// entry's `format` choose it.
    Opencode,
    /// Aider's chat histories (`.aider.chat.history.md`): one file holds
    /// many sessions, one per run, so they are listed beside a catalog's
    /// line logs (`store::aider`), not by a line-log format.
    Aider,
    /// An agent database store of the generic kind (`store::database`):
    /// `kilo`, `goose`, `crush`, `zed`, by name.
    Database(&'static str),
    /// A team store at a URL (`s3://`, `gs://`, `az://`, `file://`; issue
    /// 26): published snapshots listed and read by `store::team`. Chosen by
    /// the URL, never by a format name.
    Team,
}

/// The name of [`FormatChoice::Team`] (status, locators).
pub const TEAM: &str = "team";

impl FormatChoice {
    pub fn name(self) -> &'static str {
        match self {
            FormatChoice::Auto => "auto",
            FormatChoice::Fixed(f) => f.name(),
            FormatChoice::Opencode => super::opencode::NAME,
            FormatChoice::Aider => super::aider::NAME,
            FormatChoice::Database(name) => name,
            FormatChoice::Team => TEAM,
        }
    }

    pub fn is_log_name(self, rel: &[u8]) -> bool {
        match self {
            FormatChoice::Auto => {
                super::all().iter().any(|f| f.is_log_name(rel))
                    || super::aider::is_history_name(rel)
            }
            FormatChoice::Fixed(f) => f.is_log_name(rel),
            FormatChoice::Opencode | FormatChoice::Database(_) | FormatChoice::Team => false,
            FormatChoice::Aider => super::aider::is_history_name(rel),
        }
    }

    /// Whether the file at `rel` below the store `root` may hold a session:
    /// [`Self::is_log_name`], or for a `.json` the same of `rel` under the
    /// root's own folder name, so that a rule naming the folder a document
    /// is directly in (Continue's `sessions`, Copilot Chat's
    /// `chatSessions`) holds when the store is that folder itself.
    pub fn is_log_name_in(self, root: &Path, rel: &[u8]) -> bool {
        if self.is_log_name(rel) {
            return true;
        }
        let Some(folder) = root.file_name() else {
            return false;
        };
        rel.ends_with(b".json")
            && self.is_log_name(&[folder.as_encoded_bytes(), b"/", rel].concat())
    }

    /// Whether a store of this choice reads Aider's chat histories
    /// (agent-logs-files-3.md "Files read": `aider`, and `auto` by name).
    pub fn reads_aider(self) -> bool {
        matches!(self, FormatChoice::Auto | FormatChoice::Aider)
    }

    /// The side file names of a log called `log_name` (see
    /// [`LogFormat::side_files`]); in an `auto` store, any format's.
    pub fn side_files_of(self, log_name: &[u8]) -> impl Iterator<Item = &'static str> + '_ {
        self.formats()
            .flat_map(|f| f.side_files().iter())
            .filter(move |(log, _)| log.as_bytes() == log_name)
            .map(|(_, side)| *side)
    }

    /// The log names whose side file is called `side_name`.
    pub fn logs_of_side_file(self, side_name: &[u8]) -> impl Iterator<Item = &'static str> + '_ {
        self.formats()
            .flat_map(|f| f.side_files().iter())
            .filter(move |(_, side)| side.as_bytes() == side_name)
            .map(|(log, _)| *log)
    }

    /// The document format of the log at `path`, when its store hands the
    /// whole file to the scanner ([`LogFormat::is_document`]): the store's
    /// fixed format, or under `auto` the one the name decides.
    pub fn document_format(self, path: &Path) -> Option<&'static dyn LogFormat> {
        match self {
            FormatChoice::Auto => super::claimed_by_name(path.as_os_str().as_encoded_bytes()),
            FormatChoice::Fixed(f) => Some(f),
            FormatChoice::Opencode
            | FormatChoice::Aider
            | FormatChoice::Database(_)
            | FormatChoice::Team => None,
        }
        .filter(|f| f.is_document())
    }

    /// The fingerprint of the side facts of the log at `path`, folded into
    /// its stamp (see [`LogFormat::side_facts`]).
    pub fn side_facts_of(self, path: &Path) -> Option<u64> {
        let path_name = path.as_os_str().as_encoded_bytes();
        self.formats()
            .filter(|f| f.is_log_name(path_name))
            .find_map(|f| f.side_facts(path))
    }

    /// The folders whose logs the file at `rel`, no log, holds side facts
    /// of (see [`LogFormat::side_scope`]).
    pub fn side_scopes(self, rel: &[u8]) -> impl Iterator<Item = Vec<u8>> + '_ {
        self.formats().filter_map(move |f| f.side_scope(rel))
    }

    /// The formats a log of this store may be in.
    fn formats(self) -> impl Iterator<Item = &'static dyn LogFormat> {
        // OpenCode's store has no line logs, so no side files either.
        let (fixed, any) = match self {
            FormatChoice::Auto => (None, true),
            FormatChoice::Fixed(f) => (Some(f), false),
            FormatChoice::Opencode
            | FormatChoice::Aider
            | FormatChoice::Database(_)
            | FormatChoice::Team => (None, false),
        };
        let all = any.then(|| super::all().iter().copied());
        fixed.into_iter().chain(all.into_iter().flatten())
    }

    /// The format of the log at `path` whose first complete line is
    /// `first_line`: under `auto`, the one its name decides (a `.json` a
    /// format names), else the one its first line does.
    pub fn pick(self, path: &Path, first_line: &[u8]) -> Option<&'static dyn LogFormat> {
        match self {
            FormatChoice::Auto => super::claimed_by_name(path.as_os_str().as_encoded_bytes())
                .or_else(|| super::detect(first_line)),
            FormatChoice::Fixed(f) => Some(f),
            FormatChoice::Opencode
            | FormatChoice::Aider
            | FormatChoice::Database(_)
            | FormatChoice::Team => None,
        }
    }
}

impl PartialEq for FormatChoice {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for FormatChoice {}

// `by_name` and `names` are the table's (`table.rs`): every name is a row.

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_accepted_and_gives_itself_back() {
        for name in FormatChoice::names() {
            assert_eq!(FormatChoice::by_name(name).map(|c| c.name()), Some(name));
        }
        assert!(FormatChoice::by_name("nope").is_none());
        assert!(FormatChoice::names().contains(&"opencode"));
    }

    #[test]
    fn an_auto_store_decides_a_json_by_the_format_that_claims_it() {
        let picked = |path: &str, line: &str| {
            FormatChoice::Auto
                .pick(Path::new(path), line.as_bytes())
                .map(|f| f.name())
        };
        // A pretty-printed document starts with `{` alone.
        assert_eq!(picked("w/chatSessions/a.json", "{"), Some("copilot-chat"));
        assert_eq!(picked("p/chats/session-1.json", "{"), Some("gemini"));
        // A `.jsonl` by its first line, as before.
        assert_eq!(
            picked(
                "w/chatSessions/a.jsonl",
                r#"{"kind":0,"v":{"requests":[]}}"#
            ),
            Some("copilot-chat")
        );
        // A named format is that format, whatever the name.
        let fixed = FormatChoice::by_name("gemini").unwrap();
        let f = fixed.pick(Path::new("w/chatSessions/a.json"), b"{");
        assert_eq!(f.map(|f| f.name()), Some("gemini"));
    }
}
