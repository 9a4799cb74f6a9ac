//! Hover on a mention or bare URI: what `prepare` would take from it.

use crate::server::error::Result;
use lsp_types::*;

use super::markdown::code;
use super::{blocking, files, markdown, retained_source};
use crate::proto::position;
use crate::reference::json;
use crate::reference::mention::{self, Mention};
use crate::reference::pin::split_pin;
use crate::reference::uri::DecodeError;
use crate::server::request_view::RequestView;

pub async fn hover(request: &RequestView, params: HoverParams) -> Result<Option<Hover>> {
    let uri = params.text_document_position_params.text_document.uri;
    let Some(doc) = request.document(&uri) else {
        return Ok(None);
    };
    let encoding = request.encoding;
    let position = params.text_document_position_params.position;
    let cwd = request.target_cwd(&uri);
    // The scan is linear, but a document may be megabytes: it runs off the
    // async workers and stops when the request is cancelled.
    let found = blocking("hover", move |cancelled| {
        find_hovered(&doc.rope, position, encoding, cwd.as_deref(), cancelled)
    })
    .await?;
    let Hovered {
        range,
        uri: hovered_uri,
        decoded,
        label,
    } = match found {
        Found::Mention(hovered) => hovered,
        Found::File(hover) => return Ok(hover),
        Found::Nothing => return Ok(None),
    };
    let range = Some(range);
    let id = match decoded {
        Ok(id) => id,
        Err(DecodeError::Malformed) => {
            return Ok(Some(markdown_hover(
                format!("Invalid session reference URI {}", code(&hovered_uri)),
                range,
            )))
        }
        Err(DecodeError::Noncanonical {
            session_id,
            canonical,
        }) => {
            let value = format!(
                "Noncanonical URI for session {}; canonical form: {}",
                code(&session_id),
                code(&canonical)
            );
            return Ok(Some(markdown_hover(value, range)));
        }
    };
    let view = request.sessions().await;
    let Some(session) = view.get(&id) else {
        let value = format!(
            "Session {} is not in the store",
            code(&json::stringify(&id))
        );
        return Ok(Some(markdown_hover(value, range)));
    };
    // The candidates' rank-0 test: both cwds known and equal.
    let same_workspace =
        session.header.cwd.is_some() && session.header.cwd == request.target_cwd(&uri);
    // A team store's session: which version (the listing's manifests,
    // held by the reader; no network).
    let published = view
        .reader
        .as_ref()
        .and_then(|r| r.published(&session))
        .map(|p| markdown::version(&p, split_pin(&id).is_some()))
        .unwrap_or_default();
    let retained = retained_source(request, view.clone(), &session, &label, "hover").await?;
    let value = match retained {
        Ok((source, budget)) => {
            markdown::hover(&session, &source, same_workspace, &budget, &published)
        }
        Err(e) => {
            // A blank line ends the version's list before the message.
            let gap = if published.is_empty() { "" } else { "\n" };
            format!(
                "{}\n\n{published}{gap}{}",
                code(&id),
                markdown::escape(&e.message)
            )
        }
    };
    Ok(Some(markdown_hover(value, range)))
}

/// What is under the cursor.
enum Found {
    Mention(Hovered),
    /// A file mention's hover (or none).
    File(Option<Hover>),
    /// Nothing, or the request was cancelled.
    Nothing,
}

/// The mention under the cursor, decoded, with the label `prepare` would
/// give its session.
struct Hovered {
    range: Range,
    uri: String,
    decoded: std::result::Result<String, DecodeError>,
    /// The label of the id's first mention, like `prepare` (valid ids only).
    label: String,
}

/// Finds the session mention at `position`, else the file mention there.
fn find_hovered(
    rope: &ropey::Rope,
    position: Position,
    encoding: position::Encoding,
    cwd: Option<&str>,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Found {
    let offset = position::offset(rope, position, encoding);
    let Some(text) = super::text_of(rope, cancelled) else {
        return Found::Nothing;
    };
    let Ok(mentions) = mention::scan_cancellable(&text, cancelled) else {
        return Found::Nothing;
    };
    let Some(hovered) = mentions
        .iter()
        .find(|m| m.span.start <= offset && offset < m.span.end)
    else {
        // A file mention, perhaps.
        let found = files::hover(&text, offset, cwd.map(std::path::Path::new));
        return Found::File(found.map(|(span, value)| {
            markdown_hover(value, Some(position::range(rope, span, encoding)))
        }));
    };
    let decoded = hovered.decode();
    let label = match &decoded {
        Ok(id) => first_label(&mentions, id),
        Err(_) => String::new(),
    };
    Found::Mention(Hovered {
        range: position::range(rope, hovered.span.clone(), encoding),
        uri: hovered.uri.to_string(),
        decoded,
        label,
    })
}

/// The label of the first valid mention of `id` (the id for a bare URI).
pub fn first_label(mentions: &[Mention<'_>], id: &str) -> String {
    mentions
        .iter()
        .find(|m| m.decode().is_ok_and(|d| d == id))
        .and_then(Mention::label)
        .unwrap_or_else(|| id.to_string())
}

fn markdown_hover(value: String, range: Option<Range>) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range,
    }
}
