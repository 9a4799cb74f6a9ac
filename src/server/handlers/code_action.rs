//! Quick fixes: a noncanonical URI made canonical (the fix rides in the
//! diagnostic's `data`, so no state is needed), and a bare URI turned into
//! a labelled mention.

use std::collections::HashMap;

use crate::server::error::Result;
use lsp_types::*;

use super::blocking;
use crate::proto::{position, to_proto};
use crate::reference::mention;
use crate::server::request_view::RequestView;

pub async fn code_action(
    request: &RequestView,
    params: CodeActionParams,
) -> Result<Option<CodeActionResponse>> {
    let uri = params.text_document.uri;
    let mut actions = CodeActionResponse::new();
    for diagnostic in &params.context.diagnostics {
        let ours = diagnostic.source.as_deref() == Some(to_proto::SOURCE);
        let canonical = diagnostic
            .data
            .as_ref()
            .and_then(|d| d.get("canonical"))
            .and_then(|c| c.as_str());
        if let (true, Some(canonical)) = (ours, canonical) {
            actions.push(fix(
                &uri,
                "Use the canonical session URI",
                diagnostic.range,
                canonical.to_string(),
                Some(diagnostic.clone()),
            ));
        }
    }
    if let Some(doc) = request.document(&uri) {
        let encoding = request.encoding;
        let from = position::offset(&doc.rope, params.range.start, encoding);
        let to = position::offset(&doc.rope, params.range.end, encoding).max(from);
        let rope = doc.rope.clone();
        // Off the async workers, and stopped by a cancel (see `blocking`).
        let bare = blocking("code actions", move |cancelled| {
            let text = super::text_of(&rope, cancelled).unwrap_or_default();
            mention::scan_cancellable(&text, cancelled).map(|found| {
                found
                    .into_iter()
                    .filter(|m| m.is_bare() && m.span.start <= to && from <= m.span.end)
                    .filter_map(|m| m.decode().ok().map(|id| (m.span, id)))
                    .collect::<Vec<_>>()
            })
        })
        .await?
        .unwrap_or_default();
        if !bare.is_empty() {
            let view = request.sessions().await;
            for (span, id) in bare {
                // `format(id, displayTitle ?? label)`, label being title ?? id.
                let label = view
                    .get(&id)
                    .map(|s| {
                        s.header
                            .label
                            .clone()
                            .unwrap_or_else(|| s.label().to_string())
                    })
                    .unwrap_or_else(|| id.clone());
                let range = position::range(&doc.rope, span, encoding);
                // The inserted mention and the action's title are under the
                // one-line rule (the label comes from a log).
                let shown = mention::one_line_label(&id, &label);
                let title = format!("Turn into a mention of \"{shown}\"");
                actions.push(fix(
                    &uri,
                    &title,
                    range,
                    mention::format(&id, Some(&shown)),
                    None,
                ));
            }
        }
    }
    Ok((!actions.is_empty()).then_some(actions))
}

fn fix(
    uri: &Url,
    title: &str,
    range: Range,
    new_text: String,
    diagnostic: Option<Diagnostic>,
) -> CodeActionOrCommand {
    let changes = HashMap::from([(uri.clone(), vec![TextEdit::new(range, new_text)])]);
    CodeActionOrCommand::CodeAction(CodeAction {
        title: title.to_string(),
        kind: Some(CodeActionKind::QUICKFIX),
        is_preferred: diagnostic.as_ref().map(|_| true),
        diagnostics: diagnostic.map(|d| vec![d]),
        edit: Some(WorkspaceEdit {
            changes: Some(changes),
            ..WorkspaceEdit::default()
        }),
        ..CodeAction::default()
    })
}
