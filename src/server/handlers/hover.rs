//! Hover on a mention or bare URI: what `prepare` would take from it.

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::*;

use super::{blocking, markdown};
use crate::reference::json;
use crate::reference::mention::{self, Mention};
use crate::reference::prepare::retain_snapshot;
use crate::reference::uri::DecodeError;
use crate::server::backend::Backend;
use crate::server::position;

pub async fn hover(backend: &Backend, params: HoverParams) -> Result<Option<Hover>> {
    let uri = params.text_document_position_params.text_document.uri;
    let Some(doc) = backend.documents.snapshot(&uri) else {
        return Ok(None);
    };
    let encoding = backend.encoding();
    let offset = position::offset(
        &doc.rope,
        params.text_document_position_params.position,
        encoding,
    );
    let text = doc.rope.to_string();
    let mentions = mention::scan(&text);
    let Some(hovered) = mentions
        .iter()
        .find(|m| m.span.start <= offset && offset < m.span.end)
    else {
        return Ok(None);
    };
    let range = Some(position::range(&doc.rope, hovered.span.clone(), encoding));
    let id = match hovered.decode() {
        Ok(id) => id,
        Err(DecodeError::Malformed) => {
            return Ok(Some(markdown_hover(
                format!("Invalid session reference URI {}", code(hovered.uri)),
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
    // Like `prepare`: the label of the id's first mention.
    let label = first_label(&mentions, &id);
    let view = backend.sessions().await;
    let Some(session) = view.get(&id).cloned() else {
        let value = format!(
            "Session {} is not in the store",
            code(&json::stringify(&id))
        );
        return Ok(Some(markdown_hover(value, range)));
    };
    let budget = backend.settings().limits.max_reference_bytes;
    let reader = backend.clone();
    let read_session = session.clone();
    let retained = blocking("hover", move |cancelled| {
        let snapshot = reader
            .cache
            .read(&read_session, &label, Some(budget), cancelled)?;
        retain_snapshot(snapshot, &label, budget)
    })
    .await?;
    let value = match retained {
        Ok(source) => markdown::hover(&session, &source, backend.target_cwd(&uri).as_deref()),
        Err(e) => format!("{}\n\n{}", code(&id), markdown::escape(&e.message)),
    };
    Ok(Some(markdown_hover(value, range)))
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

fn code(text: &str) -> String {
    format!("`{}`", text.replace('`', "'"))
}
