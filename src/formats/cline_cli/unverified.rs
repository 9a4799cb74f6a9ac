//! Every rule of the `cline-cli` format that the files Cline CLI 3.0.65
//! wrote here (one headless session, resumed once in its TUI; see
//! docs/agent-logs.md) do not prove, in one place:
//!
//! - the person's text is unwrapped from any `<user_input …>` element,
//!   whatever its attributes (only `mode="act"` was seen), white space
//!   around it allowed ([`person_input`]); text not wholly one such
//!   element is read as written;
//! - a message whose `content` is a string (only arrays of blocks were
//!   seen) is that one text ([`content_texts`]);
//! - a `user` message with text blocks beside its `tool_result` blocks
//!   shows the text (only tool results alone were seen, and are hidden);
//! - the title falls back to the first person's message, the cwd to
//!   `workspace_root`, the start to the earliest message `ts`, then to the
//!   file's time, when `<id>.json` lacks them or is absent (here it held
//!   all three: `place.rs`, `track.rs`);
//! - the id is the folder's name even when the document's `sessionId`
//!   says otherwise (here they were the same);
//! - a sub-agent's session (`is_subagent`, `parent_session_id`; none was
//!   written here) is listed as a session of its own, by its own id and
//!   title: nothing links it to its parent;
//! - `CLINE_DATA_DIR` counts only when absolute (`defaults.rs`): a
//!   relative one is resolved against the CLI's working directory, which
//!   is not known here.

use serde_json::Value;

const OPEN: &str = "<user_input";
const CLOSE: &str = "</user_input>";

/// The person's text in a `user` text block: the inside of the
/// `<user_input …>…</user_input>` element it is wholly made of, else the
/// text as written.
pub fn person_input(text: &str) -> &str {
    let trimmed = text.trim();
    let inner = trimmed
        .strip_prefix(OPEN)
        .filter(|rest| rest.starts_with(['>', ' ']))
        .and_then(|rest| rest.strip_suffix(CLOSE))
        .and_then(|rest| {
            // The open tag ends at its first `>` outside a quoted value.
            let mut quoted = false;
            rest.char_indices().find_map(|(at, c)| match c {
                '"' => {
                    quoted = !quoted;
                    None
                }
                '>' if !quoted => Some(&rest[at + 1..]),
                _ => None,
            })
        });
    inner.unwrap_or(text)
}

/// The texts of a message's `content`: each `text` block's (a
/// `tool_result` or `tool_use` block has none), or the string itself.
pub fn content_texts(content: &Value) -> Vec<&str> {
    match content {
        Value::String(s) => vec![s.as_str()],
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn user_input_is_unwrapped_whatever_its_mode() {
        assert_eq!(
            person_input("<user_input mode=\"act\">Hi</user_input>"),
            "Hi"
        );
        assert_eq!(
            person_input(" <user_input mode=\"plan\" x=\"a>b\">A\nB</user_input>\n"),
            "A\nB"
        );
        assert_eq!(person_input("<user_input>Hi</user_input>"), "Hi");
        assert_eq!(person_input("plain"), "plain");
        assert_eq!(
            person_input("<user_inputs>x</user_input>"),
            "<user_inputs>x</user_input>"
        );
        assert_eq!(
            person_input("<user_input mode=\"act\">x"),
            "<user_input mode=\"act\">x"
        );
    }

    #[test]
    fn texts_of_blocks_and_strings() {
        let blocks = json!([
            {"type": "text", "text": "a"},
            {"type": "tool_use", "name": "read_files"},
            {"type": "text", "text": "b"}
        ]);
        assert_eq!(content_texts(&blocks), ["a", "b"]);
        let results = json!([{"type": "tool_result", "content": [{"result": "r"}]}]);
        assert!(content_texts(&results).is_empty());
        assert_eq!(content_texts(&json!("s")), ["s"]);
        assert!(content_texts(&json!(3)).is_empty());
    }
}
