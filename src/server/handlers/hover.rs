//! Hover on a mention or bare URI: what `prepare` would take from it.

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::*;

use super::{blocking, files, markdown, retained_source};
use crate::proto::position;
use crate::reference::json;
use crate::reference::mention::{self, Mention};
use crate::reference::uri::DecodeError;
use crate::server::backend::Backend;

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
        // A file mention, perhaps: looked at off the async workers.
        let cwd = backend.target_cwd(&uri);
        let found = blocking("file hover", move |_| {
            files::hover(&text, offset, cwd.as_deref().map(std::path::Path::new))
        })
        .await?;
        return Ok(found.map(|(span, value)| {
            markdown_hover(value, Some(position::range(&doc.rope, span, encoding)))
        }));
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
    // The candidates' rank-0 test: both cwds known and equal.
    let same_workspace =
        session.header.cwd.is_some() && session.header.cwd == backend.target_cwd(&uri);
    let retained = retained_source(backend, &session, &label, "hover").await?;
    let value = match retained {
        Ok((source, budget)) => markdown::hover(&session, &source, same_workspace, &budget),
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
