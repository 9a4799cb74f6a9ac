//! The server's settings (server.md "Settings"): parsed from
//! `initializationOptions` or `workspace/didChangeConfiguration`, flat or
//! under `hydraSession`, validated as a whole before any is applied.

use serde_json::{Map, Value};

use crate::config::stores::format_choice;
use crate::config::StoreEntry;
use crate::reference::budget::BudgetSetting;
use crate::reference::settings::{check_limit, Limits};
use crate::reference::ReferenceError;

/// The configuration section the client stores our settings under.
pub const SECTION: &str = "hydraSession";

const LOG_LEVELS: [&str; 5] = ["error", "warn", "info", "debug", "trace"];

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// The `store` setting as given (resolved by `config::resolve_stores`);
    /// empty means the default stores.
    pub store: Vec<StoreEntry>,
    pub target_session_id: Option<String>,
    pub limits: Limits,
    pub log_level: Option<String>,
    /// `spillDir` as given: `None` is the default directory, `""` disables
    /// spilling (resolved by `config::spill`).
    pub spill_dir: Option<String>,
    /// `searchIndex: false`: no full-text index, on disk or in memory
    /// (docs/search.md "Turning it off").
    pub no_search_index: bool,
    /// `completionFiltering`: who has the last word on which sessions a
    /// completion list shows.
    pub completion_filtering: CompletionFiltering,
    /// `publisher`: the name `sessionReference/publish` publishes as when
    /// the request names none (else the login name).
    pub publisher: Option<String>,
}

/// Whether the client filters the server's completion list again
/// (`"client"`, the default and server.md's contract) or keeps it as the
/// server filtered it (`"server"`, an opt-in for clients whose own filter
/// is a case-sensitive prefix match on `filterText` that re-asks only for
/// an incomplete list, as Neovim 0.11's `vim.lsp.completion`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CompletionFiltering {
    /// Each item's `filterText` holds every field the query may match, and
    /// a list is incomplete only when the limit cut it.
    #[default]
    Client,
    /// Every list of sessions is incomplete (the client asks again as the
    /// query grows) and each item's `filterText` is the typed `@query`, so
    /// a prefix filter keeps the whole answer in the server's order.
    Server,
}

impl Settings {
    /// `self` with the keys of `update` applied; keys left out keep their
    /// values, `null` restores a key's default. Any invalid value rejects the
    /// whole update (the caller keeps `self`).
    pub fn updated(&self, update: &Value) -> Result<Settings, ReferenceError> {
        let Some(keys) = section(update)? else {
            return Ok(self.clone());
        };
        let mut next = self.clone();
        for (key, value) in keys {
            match key.as_str() {
                "store" => next.store = store_entries(value)?,
                "targetSessionId" => next.target_session_id = optional_string(key, value)?,
                "maxReferences" => {
                    next.limits.max_references =
                        limit(key, value, Limits::default().max_references)?
                }
                "candidateLimit" => {
                    next.limits.candidate_limit =
                        limit(key, value, Limits::default().candidate_limit)?
                }
                "maxReferenceBytes" => {
                    next.limits.max_reference_bytes = match value {
                        Value::Null => BudgetSetting::Auto,
                        Value::String(s) if s == "auto" => BudgetSetting::Auto,
                        Value::String(_) => {
                            return Err(invalid(format!(
                                "{key} must be a positive safe integer or \"auto\""
                            )))
                        }
                        other => BudgetSetting::Fixed(limit(key, other, 0)?),
                    }
                }
                "spillMaxBytes" => {
                    next.limits.spill_max_bytes = match value {
                        Value::Null => Limits::default().spill_max_bytes,
                        other => limit(key, other, 0)? as u64,
                    }
                }
                "spillDir" => {
                    next.spill_dir = match value {
                        Value::Null => None,
                        Value::String(s) => Some(s.clone()),
                        _ => return Err(invalid(format!("{key} must be a string"))),
                    }
                }
                "logLevel" => next.log_level = log_level(value)?,
                "searchIndex" => {
                    next.no_search_index = match value {
                        Value::Null => false,
                        Value::Bool(on) => !on,
                        _ => return Err(invalid(format!("{key} must be a boolean"))),
                    }
                }
                "completionFiltering" => next.completion_filtering = completion_filtering(value)?,
                "publisher" => next.publisher = optional_string(key, value)?,
                // Unknown keys (other extensions' settings, editor-only
                // keys such as `serverPath`) are not ours to judge.
                _ => {}
            }
        }
        Ok(next)
    }
}

/// The object holding our keys: `settings.hydraSession` when present, else
/// `settings` itself; `None` for `null`.
fn section(update: &Value) -> Result<Option<&Map<String, Value>>, ReferenceError> {
    match update {
        Value::Null => Ok(None),
        Value::Object(map) => match map.get(SECTION) {
            Some(Value::Object(inner)) => Ok(Some(inner)),
            Some(Value::Null) => Ok(None),
            Some(_) => Err(invalid(format!("{SECTION} must be an object"))),
            None => Ok(Some(map)),
        },
        _ => Err(invalid("settings must be an object")),
    }
}

fn invalid(message: impl Into<String>) -> ReferenceError {
    ReferenceError::invalid_config(format!("session-reference: {}", message.into()))
}

fn optional_string(key: &str, value: &Value) -> Result<Option<String>, ReferenceError> {
    match value {
        Value::Null => Ok(None),
        Value::String(s) if s.is_empty() => Ok(None),
        Value::String(s) => Ok(Some(s.clone())),
        _ => Err(invalid(format!("{key} must be a string"))),
    }
}

/// A JSON integer (no fraction, no exponent) that is a positive safe
/// integer; `null` is the default.
fn limit(key: &str, value: &Value, default: usize) -> Result<usize, ReferenceError> {
    match value {
        Value::Null => Ok(default),
        Value::Number(n) => match n.as_u64() {
            Some(v) => check_limit(key, v),
            None => Err(invalid(format!("{key} must be a positive safe integer"))),
        },
        _ => Err(invalid(format!("{key} must be a positive safe integer"))),
    }
}

fn log_level(value: &Value) -> Result<Option<String>, ReferenceError> {
    match value {
        Value::Null => Ok(None),
        Value::String(s) => {
            let level = s.to_ascii_lowercase();
            let level = if level == "warning" {
                "warn".to_string()
            } else {
                level
            };
            if LOG_LEVELS.contains(&level.as_str()) {
                Ok(Some(level))
            } else {
                Err(invalid(format!(
                    "logLevel must be one of {}",
                    LOG_LEVELS.join(", ")
                )))
            }
        }
        _ => Err(invalid("logLevel must be a string")),
    }
}

fn completion_filtering(value: &Value) -> Result<CompletionFiltering, ReferenceError> {
    match value {
        Value::Null => Ok(CompletionFiltering::default()),
        Value::String(s) if s == "client" => Ok(CompletionFiltering::Client),
        Value::String(s) if s == "server" => Ok(CompletionFiltering::Server),
        _ => Err(invalid(
            "completionFiltering must be \"client\" or \"server\"",
        )),
    }
}

/// The `store` setting: a path, or a list of paths and `{"path","format"}`
/// objects; `null` or `""` is the default.
fn store_entries(value: &Value) -> Result<Vec<StoreEntry>, ReferenceError> {
    let entry = |item: &Value| -> Result<Option<StoreEntry>, ReferenceError> {
        match item {
            Value::String(s) if s.is_empty() => Ok(None),
            Value::String(s) => Ok(Some(StoreEntry::new(s.clone()))),
            Value::Object(map) => {
                let path = match map.get("path") {
                    Some(Value::String(p)) if !p.is_empty() => p.clone(),
                    _ => return Err(invalid("a store's path must be a non-empty string")),
                };
                let format = match map.get("format") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(f)) => {
                        format_choice(Some(f))?;
                        Some(f.clone())
                    }
                    Some(_) => return Err(invalid("a store's format must be a string")),
                };
                Ok(Some(StoreEntry { path, format }))
            }
            _ => Err(invalid("store must be a path or a list of stores")),
        }
    };
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items.iter().filter_map(|i| entry(i).transpose()).collect(),
        other => Ok(entry(other)?.into_iter().collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn flat_and_nested_updates_keep_omitted_keys() {
        let s = Settings::default()
            .updated(&json!({"maxReferences": 2, "store": "/s"}))
            .unwrap();
        let s = s
            .updated(&json!({"hydraSession": {"candidateLimit": 7}}))
            .unwrap();
        assert_eq!(s.limits.max_references, 2);
        assert_eq!(s.limits.candidate_limit, 7);
        assert_eq!(s.store, vec![StoreEntry::new("/s")]);
    }

    #[test]
    fn budgets_and_spills() {
        use crate::reference::budget::BudgetSetting;
        let base = Settings::default();
        assert_eq!(base.limits.max_reference_bytes, BudgetSetting::Auto);
        let fixed = base
            .updated(&json!({"maxReferenceBytes": 4096, "spillDir": "", "spillMaxBytes": 10}))
            .unwrap();
        assert_eq!(fixed.limits.max_reference_bytes, BudgetSetting::Fixed(4096));
        assert_eq!(fixed.spill_dir.as_deref(), Some(""));
        assert_eq!(fixed.limits.spill_max_bytes, 10);
        let back = fixed
            .updated(&json!({"maxReferenceBytes": "auto", "spillDir": null, "spillMaxBytes": null}))
            .unwrap();
        assert_eq!(back, base);
    }

    #[test]
    fn one_bad_value_rejects_the_whole_update() {
        let base = Settings::default();
        for bad in [
            json!({"maxReferences": 4}),
            json!({"maxReferences": 0}),
            json!({"candidateLimit": 1.5}),
            json!({"candidateLimit": -1}),
            json!({"maxReferenceBytes": 9007199254740992u64}),
            json!({"maxReferenceBytes": "10"}),
            json!({"store": 3, "maxReferences": 2}),
            json!({"logLevel": "loud"}),
            json!({"maxReferenceBytes": "Auto"}),
            json!({"spillMaxBytes": 0}),
            json!({"spillMaxBytes": "1"}),
            json!({"spillDir": 5}),
            json!({"searchIndex": "no"}),
            json!({"completionFiltering": "Server"}),
            json!({"completionFiltering": true}),
            json!([1]),
        ] {
            let error = base.updated(&bad).unwrap_err();
            assert_eq!(
                error.code.as_str(),
                "SESSION_REFERENCE_INVALID_CONFIG",
                "{bad}"
            );
        }
    }

    #[test]
    fn the_search_index_is_on_unless_turned_off() {
        let off = Settings::default()
            .updated(&json!({"searchIndex": false}))
            .unwrap();
        assert!(off.no_search_index);
        let back = off.updated(&json!({"searchIndex": null})).unwrap();
        assert_eq!(back, Settings::default());
        assert!(!back.no_search_index);
    }

    #[test]
    fn null_restores_defaults() {
        let s = Settings::default()
            .updated(&json!({"maxReferences": 1, "targetSessionId": "a", "completionFiltering": "server"}))
            .unwrap();
        assert_eq!(s.completion_filtering, CompletionFiltering::Server);
        let s = s
            .updated(&json!({"maxReferences": null, "targetSessionId": null, "completionFiltering": null}))
            .unwrap();
        assert_eq!(s, Settings::default());
    }

    #[test]
    fn stores_are_a_path_or_a_list() {
        let s = Settings::default()
            .updated(&json!({"store": ["/a", {"path": "/b", "format": "hydra"}]}))
            .unwrap();
        assert_eq!(
            s.store,
            vec![
                StoreEntry::new("/a"),
                StoreEntry {
                    path: "/b".into(),
                    format: Some("hydra".into())
                }
            ]
        );
        assert!(Settings::default()
            .updated(&json!({"store": [{"path": "/b", "format": "nope"}]}))
            .is_err());
        let s = s.updated(&json!({"store": ""})).unwrap();
        assert!(s.store.is_empty());
    }
}
