//! Every rule of the `cline` format that agent-logs-files-3.md marks \[U\],
//! in one place (docs/agent-logs.md says what was verified on what):
//!
//! - the surface is `ui_messages.json`, what the person saw and typed, not
//!   the API history (`api_conversation_history.json` is never read);
//! - `ask` `followup` and `ask` `plan_mode_respond` are the agent's turns,
//!   shown as the `question` / `response` of their JSON text
//!   ([`asked_text`]);
//! - Roo Code's `say` `condense_context` with a summary is a compact
//!   checkpoint shadowing every earlier element, though Roo keeps them on
//!   screen ([`condensed_summary`]); Cline's own `say` `compaction` divider
//!   is ignored (its text was not checked);
//! - a sub-task (a non-empty `parentTaskId`) keeps its own id and has no
//!   display title (the parent's `newTask` message names a mode, not a
//!   title): nothing to do here, the header's label stays empty;
//! - the editor forks' folders (VSCodium, Cursor, Windsurf) as default
//!   stores: `defaults.rs`.

use serde_json::{Map, Value};

/// The text shown for an `ask` element of kind `ask`, when it is one of
/// the agent's turns: a follow-up question's `question`, a plan-mode
/// answer's `response`, each the member of `text` parsed as a JSON object,
/// else the raw `text`.
pub fn asked_text<'a>(ask: &str, text: &'a str) -> Option<std::borrow::Cow<'a, str>> {
    let key = match ask {
        "followup" => "question",
        "plan_mode_respond" => "response",
        _ => return None,
    };
    let parsed = serde_json::from_str::<Map<String, Value>>(text)
        .ok()
        .and_then(|mut o| match o.remove(key) {
            Some(Value::String(s)) => Some(s),
            _ => None,
        });
    Some(parsed.map_or(std::borrow::Cow::Borrowed(text), std::borrow::Cow::Owned))
}

/// The summary of a `say` `condense_context` element: its
/// `contextCondense.summary`, when a non-empty string.
pub fn condensed_summary(element: &Map<String, Value>) -> Option<&str> {
    element
        .get("contextCondense")?
        .get("summary")?
        .as_str()
        .filter(|s| !s.trim().is_empty())
}
