//! Document links: each valid mention of a known session opens its log.

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::*;

use super::{blocking, files};
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
    let cwd = backend.target_cwd(&params.text_document.uri);
    let (rope, file_text) = (doc.rope.clone(), text.clone());
    let mut file_links = blocking("file links", move |_| {
        files::links(
            &rope,
            &file_text,
            cwd.as_deref().map(std::path::Path::new),
            encoding,
        )
    })
    .await?;
    if mentions.is_empty() {
        return Ok(Some(file_links));
    }
    let view = backend.sessions().await;
    let mut links: Vec<DocumentLink> = mentions
        .into_iter()
        .filter_map(|(span, id)| {
            let session = view.get(&id)?;
            let target = view.reader.as_ref()?.link_target(session)?;
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
    links.append(&mut file_links);
    links.sort_by_key(|l| (l.range.start.line, l.range.start.character));
    Ok(Some(links))
}
