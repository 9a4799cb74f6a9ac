//! Resource URIs: `session:<slug>/<key>`.
//!
//! Claude Code attaches an `@` mention only when the URI equals one it
//! listed, strips trailing punctuation from what was typed, and quotes a
//! URI that holds a space: so a URI here never holds a space and always
//! ends in a letter or digit. The slug is for people (and is ignored when
//! reading); the key finds the session.

use crate::reference::uri;

pub const SCHEME: &str = "session:";
/// The key of an id that cannot be written as it is.
const ENCODED: &str = "b64.";
const MAX_SLUG: usize = 40;

/// The resource URI of a session with its slug ([`slug`]).
pub fn resource_uri(slug: &str, session_id: &str) -> String {
    format!("{SCHEME}{slug}/{}", key(session_id))
}

/// ASCII `[a-z0-9-]`, 1 to 40 characters: letters and digits lower-cased,
/// every other run of characters one `-`, none at either end.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if out.len() >= MAX_SLUG {
            break;
        }
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.truncate(out.trim_end_matches('-').len());
    if out.is_empty() {
        out.push_str("session");
    }
    out
}

/// The id itself when it is plain (ASCII letters, digits, `.`, `_`, `-`,
/// ending in a letter or digit: agents' UUIDs are), else `b64.` and the
/// canonical URI's payload.
pub fn key(session_id: &str) -> String {
    if is_plain(session_id) {
        return session_id.to_string();
    }
    let canonical = uri::encode(session_id);
    let payload = canonical.strip_prefix(uri::SCHEME).unwrap_or(&canonical);
    format!("{ENCODED}{payload}")
}

fn is_plain(id: &str) -> bool {
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"._-".contains(&b);
    // `b64.…` is the encoded form: such an id is encoded too.
    !id.starts_with(ENCODED)
        && id.bytes().all(plain)
        && id.bytes().last().is_some_and(|b| b.is_ascii_alphanumeric())
}

/// What a URI given to `resources/read` names.
#[derive(Debug, PartialEq, Eq)]
pub enum Named {
    /// A session id (the session may or may not exist).
    Session(String),
    /// Not a session URI of any accepted form: why.
    Malformed(String),
}

/// Reads `session:<slug>/<key>`, and the canonical `hydra-session:<b64>`
/// and `session://<agent>/<id>` forms (accepted, never listed).
pub fn parse(text: &str) -> Named {
    if text.starts_with(uri::SCHEME) {
        return match uri::decode(text) {
            Ok(id) => Named::Session(id),
            Err(_) => Named::Malformed("not a canonical hydra-session: URI".into()),
        };
    }
    if let Some(rest) = text.strip_prefix("session://") {
        return match rest.split_once('/') {
            Some((agent, id)) if !agent.is_empty() && !id.is_empty() => {
                Named::Session(percent_decoded(id))
            }
            _ => Named::Malformed("expected session://<agent>/<id>".into()),
        };
    }
    let Some(rest) = text.strip_prefix(SCHEME) else {
        return Named::Malformed("not a session URI".into());
    };
    let Some((_slug, key)) = rest.split_once('/') else {
        return Named::Malformed("expected session:<slug>/<key>".into());
    };
    if let Some(payload) = key.strip_prefix(ENCODED) {
        return match uri::decode(&format!("{}{payload}", uri::SCHEME)) {
            Ok(id) => Named::Session(id),
            Err(_) => Named::Malformed("the key's payload is not canonical".into()),
        };
    }
    if is_plain(key) {
        Named::Session(key.to_string())
    } else {
        Named::Malformed("the key is neither a plain id nor b64.<payload>".into())
    }
}

/// `%XX` escapes decoded (as URI paths carry them); anything that does not
/// decode to UTF-8 stays as written.
fn percent_decoded(text: &str) -> String {
    if !text.contains('%') {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_short_lower_case_ascii() {
        assert_eq!(
            slug("Plan the inventory refactor!"),
            "plan-the-inventory-refactor"
        );
        assert_eq!(slug("  Ünïcode — only  "), "n-code-only");
        assert_eq!(slug("日本語"), "session");
        assert_eq!(slug(""), "session");
        let long = slug(&"abc def ".repeat(20));
        assert!(long.len() <= 40 && !long.ends_with('-'), "{long}");
    }

    #[test]
    fn keys_are_plain_ids_or_encoded() {
        let uuid = "0b5e7c1a-9a8e-4c52-9d1e-3f6f1f2b9c11";
        assert_eq!(key(uuid), uuid);
        assert_eq!(key("a b"), "b64.ImEgYiI");
        assert!(key("ends-with-dash-").starts_with("b64."));
        assert!(key("b64.looks-encoded").starts_with("b64."));
        assert!(key("").starts_with("b64."));
        for id in [uuid, "a b", "x/y", "ends.", "é", "", "b64.x"] {
            let uri = resource_uri(&slug("Some title"), id);
            assert!(!uri.contains(' '), "{uri}");
            assert!(
                uri.bytes()
                    .last()
                    .is_some_and(|b| b.is_ascii_alphanumeric()),
                "{uri}"
            );
            assert_eq!(parse(&uri), Named::Session(id.to_string()), "{uri}");
        }
    }

    #[test]
    fn canonical_forms_are_read_too() {
        assert_eq!(parse("hydra-session:ImEi"), Named::Session("a".into()));
        assert_eq!(
            parse("session://claude-code/a%20b"),
            Named::Session("a b".into())
        );
        for bad in [
            "file:///etc/passwd",
            "session:",
            "session:slug",
            "session:slug/",
            "session:slug/a b",
            "session:slug/b64.!!",
            "hydra-session:ImEiIA",
            "session://codex/",
        ] {
            assert!(matches!(parse(bad), Named::Malformed(_)), "{bad}");
        }
    }
}
