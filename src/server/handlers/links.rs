//! Document links: each valid mention of a known session opens its log.

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::*;

use crate::proto::position;
use crate::reference::mention;
use crate::server::backend::Backend;

pub async fn document_link(
    backend: &Backend,
    params: DocumentLinkParams,
) -> Result<Option<Vec<DocumentLink>>> {
    let Some(doc) = backend.documents.snapshot(&params.text_document.uri) else {
        return Ok(None);
    };
    let encoding = backend.encoding();
    let text = doc.rope.to_string();
    let mentions: Vec<_> = mention::scan(&text)
        .into_iter()
        .filter_map(|m| m.decode().ok().map(|id| (m.span, id)))
        .collect();
    if mentions.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let view = backend.sessions().await;
    let links = mentions
        .into_iter()
        .filter_map(|(span, id)| {
            let session = view.get(&id)?;
            let target = view.reader.as_ref()?.link_target(&session)?;
            Some(DocumentLink {
                range: position::range(&doc.rope, span, encoding),
                target: Url::parse(&target).ok(),
                tooltip: Some(format!(
                    "Open the session log {}",
                    session.locator.display()
                )),
                data: None,
            })
        })
        .collect();
    Ok(Some(links))
}
