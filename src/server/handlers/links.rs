//! Document links: each valid mention of a known session opens its log.

use crate::server::error::Result;
use lsp_types::*;

use super::{blocking, files};
use crate::proto::position;
use crate::reference::mention;
use crate::server::request_view::RequestView;

pub async fn document_link(
    request: &RequestView,
    params: DocumentLinkParams,
) -> Result<Option<Vec<DocumentLink>>> {
    let Some(doc) = request.document(&params.text_document.uri) else {
        return Ok(None);
    };
    let encoding = request.encoding;
    let cwd = request.target_cwd(&params.text_document.uri);
    let rope = doc.rope.clone();
    // Off the async workers, and the scan stops on a cancel (see `blocking`).
    let found = blocking("document links", move |cancelled| {
        let text = super::text_of(&rope, cancelled).unwrap_or_default();
        let mentions = mention::scan_cancellable(&text, cancelled).map(|found| {
            found
                .into_iter()
                .filter_map(|m| m.decode().ok().map(|id| (m.span, id)))
                .collect::<Vec<_>>()
        });
        let file_links = files::links(
            &rope,
            &text,
            cwd.as_deref().map(std::path::Path::new),
            encoding,
        );
        (mentions, file_links)
    })
    .await?;
    let (Ok(mentions), mut file_links) = found else {
        return Ok(None);
    };
    if mentions.is_empty() {
        return Ok(Some(file_links));
    }
    let view = request.sessions().await;
    let mut links: Vec<DocumentLink> = mentions
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
    links.append(&mut file_links);
    links.sort_by_key(|l| (l.range.start.line, l.range.start.character));
    Ok(Some(links))
}
