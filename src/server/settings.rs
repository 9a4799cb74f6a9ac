//! The server's settings (server.md "Settings"): parsed from
//! `initializationOptions` or `workspace/didChangeConfiguration`, flat or
//! under `hydraSession`, validated as a whole before any is applied.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::reference::settings::{check_limit, Limits};
use crate::reference::ReferenceError;

/// The configuration section the client stores our settings under.
pub const SECTION: &str = "hydraSession";

const LOG_LEVELS: [&str; 5] = ["error", "warn", "info", "debug", "trace"];

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// The `store` setting as given (resolved by [`store_path`]).
    pub store: Option<String>,
    pub target_session_id: Option<String>,
    pub limits: Limits,
    pub log_level: Option<String>,
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
                "store" => next.store = optional_string(key, value)?,
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
                    next.limits.max_reference_bytes =
                        limit(key, value, Limits::default().max_reference_bytes)?
                }
                "logLevel" => next.log_level = log_level(value)?,
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

/// The store directory: the `store` setting (`~/` under the home directory,
/// a relative path against the first workspace folder), else
/// `HYDRA_SESSION_STORE`, else `$HYDRA_HOME/sessions`, else
/// `~/.hydra/sessions`.
pub fn store_path(setting: Option<&str>, first_folder: Option<&Path>) -> PathBuf {
    let home = || {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
    };
    if let Some(store) = setting {
        if store == "~" {
            return home().unwrap_or_else(|| PathBuf::from(store));
        }
        if let Some(rest) = store.strip_prefix("~/") {
            if let Some(home) = home() {
                return home.join(rest);
            }
        }
        let path = PathBuf::from(store);
        if path.is_relative() {
            if let Some(folder) = first_folder {
                return folder.join(path);
            }
        }
        return path;
    }
    if let Some(store) = std::env::var_os("HYDRA_SESSION_STORE").filter(|s| !s.is_empty()) {
        return PathBuf::from(store);
    }
    if let Some(hydra) = std::env::var_os("HYDRA_HOME").filter(|s| !s.is_empty()) {
        return PathBuf::from(hydra).join("sessions");
    }
    home().unwrap_or_default().join(".hydra").join("sessions")
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
        assert_eq!(s.store.as_deref(), Some("/s"));
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
    fn null_restores_defaults() {
        let s = Settings::default()
            .updated(&json!({"maxReferences": 1, "targetSessionId": "a"}))
            .unwrap();
        let s = s
            .updated(&json!({"maxReferences": null, "targetSessionId": null}))
            .unwrap();
        assert_eq!(s, Settings::default());
    }

    #[test]
    fn store_paths() {
        let folder = Path::new("/w");
        assert_eq!(
            store_path(Some("/abs"), Some(folder)),
            PathBuf::from("/abs")
        );
        assert_eq!(
            store_path(Some("rel/s"), Some(folder)),
            PathBuf::from("/w/rel/s")
        );
        if let Some(home) = std::env::var_os("HOME") {
            assert_eq!(store_path(Some("~/x"), None), PathBuf::from(home).join("x"));
        }
    }
}
