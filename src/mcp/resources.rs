//! Sessions as MCP resources: one per session, named for people.

use rmcp::model::{ReadResourceResult, Resource, ResourceContents};

use super::sessions::{Listed, Sessions};
use super::uri::{self, Named};
use crate::live::View;
use crate::reference::one_line::one_line;
use crate::reference::prepare::Cancelled;
use crate::reference::time;

pub const MIME_TYPE: &str = "text/markdown";

/// The resource of a listed session. `name` (and `title`, the same words)
/// is what Claude Code's `@` menu shows; `description` repeats it first because it is the only readable
/// column there (cut at about 60 characters).
pub fn resource(listed: &Listed) -> Resource {
    let c = &listed.candidate;
    let name = one_line(c.display_title.as_deref().unwrap_or(&c.label));
    let mut description = format!("{name} — {}", listed.agent);
    if let Some(folder) = c.cwd.as_deref().and_then(last_component) {
        description.push_str(" · ");
        description.push_str(folder);
    }
    description.push_str(" · ");
    description.push_str(&time::minutes(c.created_at));
    Resource::new(listed.uri.clone(), name.clone())
        .with_title(name)
        .with_description(one_line(&description))
        .with_mime_type(MIME_TYPE)
}

/// The last component of a cwd (`/home/ana/shop/` → `shop`).
fn last_component(cwd: &str) -> Option<&str> {
    cwd.trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .filter(|c| !c.is_empty())
}

/// What `resources/read` answers for `text`: the session's context, or a
/// short text saying why there is none (Claude Code drops a read error
/// without a word). `Err` only for a URI that names no session at all.
pub fn read(
    sessions: &Sessions,
    view: &View,
    text: &str,
    cancelled: Cancelled<'_>,
) -> Result<ReadResourceResult, String> {
    let id = match uri::parse(text) {
        Named::Session(id) => id,
        Named::Malformed(why) => return Err(why),
    };
    let body = match sessions.context(view, &id, cancelled) {
        Ok(context) => context,
        Err(e) => format!(
            "This session cannot be read ({}): {}\n",
            e.code.as_str(),
            super::text::short(&e.message)
        ),
    };
    Ok(ReadResourceResult::new(vec![
        ResourceContents::TextResourceContents {
            uri: text.to_string(),
            mime_type: Some(MIME_TYPE.into()),
            text: body,
            meta: None,
        },
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::candidates::Candidate;

    fn listed(display: Option<&str>, cwd: Option<&str>) -> Listed {
        Listed {
            candidate: Candidate {
                session_id: "0b5e7c1a-9a8e-4c52-9d1e-3f6f1f2b9c11".into(),
                label: "Plan the\ninventory refactor".into(),
                display_title: display.map(String::from),
                cwd: cwd.map(String::from),
                same_workspace: false,
                created_at: 1_796_112_660_000,
                mention: String::new(),
                format: "claude-code",
            },
            agent: "claude-code",
            uri: uri::resource_uri(
                &uri::slug(display.unwrap_or("Plan the inventory refactor")),
                "0b5e7c1a-9a8e-4c52-9d1e-3f6f1f2b9c11",
            ),
        }
    }

    #[test]
    fn names_and_descriptions_follow_the_issue() {
        let r = resource(&listed(None, Some("/home/ana/shop")));
        assert_eq!(r.name, "Plan the inventory refactor");
        assert_eq!(r.title.as_deref(), Some("Plan the inventory refactor"));
        assert_eq!(
            r.description.as_deref(),
            Some("Plan the inventory refactor — claude-code · shop · 2026-12-01 08:11")
        );
        assert_eq!(r.mime_type.as_deref(), Some(MIME_TYPE));
        assert_eq!(
            r.uri,
            "session:plan-the-inventory-refactor/0b5e7c1a-9a8e-4c52-9d1e-3f6f1f2b9c11"
        );
        let r = resource(&listed(Some("Review \u{202E}cart"), None));
        assert_eq!(r.name, "Review cart");
        assert_eq!(
            r.description.as_deref(),
            Some("Review cart — claude-code · 2026-12-01 08:11")
        );
        assert!(r.uri.starts_with("session:review-cart/"), "{}", r.uri);
    }
}
