//! The settings of a face started from the command line (the CLI's
//! commands, `mcp`): the flags as given, and what they mean once
//! validated. Each face parses its own flags into [`Requested`]; the
//! meaning is decided here, once.

use std::path::PathBuf;

use super::spill::{self, SpillDir};
use super::{paths, StoreEntry};
use crate::model::StoreNote;
use crate::reference::budget::BudgetSetting;
use crate::reference::settings::{check_limit, Limits, DEFAULT_SPILL_MAX_BYTES};
use crate::reference::ReferenceError;
use crate::store::{FsStore, Scan, StoreSpec};

/// `--max-reference-bytes` as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetRequest {
    Auto,
    Bytes(u64),
}

/// The store and limit flags as given, not yet validated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requested {
    /// Each `--store` with the format given right after it.
    pub stores: Vec<StoreEntry>,
    pub self_id: Option<String>,
    pub max_references: Option<u64>,
    pub max_reference_bytes: Option<BudgetRequest>,
}

/// The spill flags as given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpillRequest {
    pub dir: Option<PathBuf>,
    pub disabled: bool,
    pub max_bytes: Option<u64>,
}

/// Validated settings: the store list and the limits.
#[derive(Debug, Clone)]
pub struct Settings {
    pub stores: Vec<StoreSpec>,
    /// The stores the person named (`--store`, or an environment variable
    /// for a default store), as the store notes name them: only their
    /// problems are worth a warning.
    pub named: Vec<String>,
    pub self_id: Option<String>,
    pub limits: Limits,
}

/// Where truncated sources are spilled, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpillSetting {
    pub dir: SpillDir,
    pub max_bytes: u64,
}

impl Requested {
    /// Validates the limits and resolves the store list (relative paths
    /// against the current directory).
    pub fn resolve(&self) -> Result<Settings, ReferenceError> {
        let mut limits = Limits::default();
        if let Some(n) = self.max_references {
            limits.max_references = check_limit("maxReferences", n)?;
        }
        if let Some(BudgetRequest::Bytes(n)) = self.max_reference_bytes {
            limits.max_reference_bytes = BudgetSetting::Fixed(check_limit("maxReferenceBytes", n)?);
        }
        let (stores, named) = if self.stores.is_empty() {
            let defaults = super::default_store_list();
            let named = defaults
                .iter()
                .filter(|d| d.named)
                .map(|d| d.spec.path.display().to_string())
                .collect();
            (defaults.into_iter().map(|d| d.spec).collect(), named)
        } else {
            let stores = super::resolve_stores(&self.stores, &paths::current_dir())?;
            let named = stores
                .iter()
                .map(|s| s.path.display().to_string())
                .collect();
            (stores, named)
        };
        Ok(Settings {
            stores,
            named,
            // In an agent's external-editor route the edited session is `self`.
            self_id: self
                .self_id
                .clone()
                .or_else(super::editor_session::launching_session),
            limits,
        })
    }
}

impl SpillRequest {
    /// The spill setting: `--no-spill` wins over `--spill-dir`; the cap is
    /// validated even when spilling is off.
    pub fn resolve(&self) -> Result<SpillSetting, ReferenceError> {
        let max_bytes = match self.max_bytes {
            Some(n) => check_limit("spillMaxBytes", n)? as u64,
            None => DEFAULT_SPILL_MAX_BYTES,
        };
        let dir = if self.disabled {
            SpillDir::Disabled
        } else {
            match &self.dir {
                Some(dir) => spill::configured_dir(&dir.to_string_lossy(), &paths::current_dir()),
                None => spill::default_dir(),
            }
        };
        Ok(SpillSetting { dir, max_bytes })
    }
}

impl Settings {
    /// Indexes the stores, saying nothing (the notes are the caller's).
    /// Titles cost a read of every log: only what lists candidates needs
    /// them.
    pub fn index(&self, scan: Scan) -> FsStore {
        // A full scan reads every log: the index cache spares that.
        match paths::index_cache_dir().filter(|_| scan == Scan::Full) {
            Some(dir) => FsStore::open_cached(&self.stores, scan, &dir),
            None => FsStore::open(&self.stores, scan),
        }
    }

    /// Whether a note is worth a warning: a store the person named is
    /// missing or cannot be read. Every other note (a file that is not a
    /// session, a duplicate id, a default store that does not exist) is
    /// for `status`.
    pub fn is_warning(&self, note: &StoreNote) -> bool {
        match note {
            StoreNote::Missing { store }
            | StoreNote::Unreadable { store, .. }
            | StoreNote::FolderUnreadable { store, .. } => self.named.contains(store),
            StoreNote::NotASession { .. }
            | StoreNote::AllSkipped { .. }
            | StoreNote::Duplicate { .. } => false,
        }
    }
}

/// The arguments that repeat `requested` on a command line, store paths
/// made absolute (an agent runs the command in the project's folder):
/// what `--print-config` snippets append. `--self` is left out: an
/// installed command serves every session.
pub fn command_args(requested: &Requested) -> Vec<String> {
    let mut args = Vec::new();
    let base = paths::current_dir();
    for store in &requested.stores {
        let path = paths::resolve(std::path::Path::new(&store.path), &base);
        args.push("--store".into());
        args.push(path.to_string_lossy().into_owned());
        if let Some(format) = &store.format {
            args.push("--store-format".into());
            args.push(format.clone());
        }
    }
    if let Some(n) = requested.max_references {
        args.push("--max-references".into());
        args.push(n.to_string());
    }
    match requested.max_reference_bytes {
        Some(BudgetRequest::Bytes(n)) => {
            args.push("--max-reference-bytes".into());
            args.push(n.to_string());
        }
        Some(BudgetRequest::Auto) => {
            args.push("--max-reference-bytes".into());
            args.push("auto".into());
        }
        None => {}
    }
    args
}

/// The arguments that repeat a spill request (the directory made absolute).
pub fn spill_args(spill: &SpillRequest) -> Vec<String> {
    let mut args = Vec::new();
    if let Some(dir) = &spill.dir {
        args.push("--spill-dir".into());
        let dir = paths::resolve(dir, &paths::current_dir());
        args.push(dir.to_string_lossy().into_owned());
    }
    if spill.disabled {
        args.push("--no-spill".into());
    }
    if let Some(n) = spill.max_bytes {
        args.push("--spill-max-bytes".into());
        args.push(n.to_string());
    }
    args
}

/// `words` as one `sh -c` command line.
pub fn shell_line<S: AsRef<str>>(words: &[S]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| shell_word(w.as_ref())).collect();
    quoted.join(" ")
}

/// `word` as one word for `sh -c` (agents run hook commands in a shell).
pub fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./:=@%+,-".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(
            shell_word("/home/ana/.hydra/sessions"),
            "/home/ana/.hydra/sessions"
        );
        assert_eq!(shell_word("/My Sessions/it's"), r"'/My Sessions/it'\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
    }

    #[test]
    fn flags_repeat_the_request_with_absolute_stores() {
        let requested = Requested {
            stores: vec![StoreEntry {
                path: "/s p".into(),
                format: Some("codex".into()),
            }],
            self_id: None,
            max_references: Some(2),
            max_reference_bytes: Some(BudgetRequest::Auto),
        };
        assert_eq!(
            shell_line(&command_args(&requested)),
            "--store '/s p' --store-format codex --max-references 2 --max-reference-bytes auto"
        );
    }

    #[test]
    fn limits_are_validated() {
        let bad = Requested {
            max_references: Some(4),
            ..Requested::default()
        };
        assert!(bad.resolve().is_err());
        let spill = SpillRequest {
            disabled: true,
            max_bytes: Some(0),
            ..SpillRequest::default()
        };
        assert!(spill.resolve().is_err());
    }
}
