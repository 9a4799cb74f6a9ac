//! `sessionReference/search`: the full-text search of docs/search.md over
//! the request's view of the stores. The search itself is
//! [`crate::search`]; a malformed query is −32602 with its reason, and
//! search turned off is RequestFailed (`SESSION_REFERENCE_INVALID_CONFIG`)
//! saying so.

use super::place::age;
use crate::reference::candidates::check_limit;
use crate::reference::one_line::one_line;
use crate::search::{self, SessionHit};
use crate::server::error::{self, Result};
use crate::server::lsp_ext::{self, Request};
use crate::server::request_view::RequestView;

/// Sessions listed when the request names no limit.
const DEFAULT_LIMIT: u64 = 10;

pub async fn search(
    request: &RequestView,
    params: <lsp_ext::Search as Request>::Params,
) -> Result<<lsp_ext::Search as Request>::Result> {
    let limit = check_limit(params.limit.unwrap_or(DEFAULT_LIMIT))
        .map_err(|e| error::invalid_params(e.message))?;
    let cwd = params
        .text_document
        .as_ref()
        .and_then(|d| request.target_cwd(&d.uri));
    let hits = super::search_run::run(request, &params.query, limit, cwd).await?;
    // The typed `@query` a chosen mention replaces (as pickCandidates').
    let range = match (&params.text_document, params.position) {
        (Some(doc), Some(at)) => {
            let text = super::custom::document_text(request, &doc.uri)
                .await
                .unwrap_or_default();
            let rope = ropey::Rope::from_str(&text);
            super::custom::typed_query(&rope, at, request.encoding).map(|(r, _)| r)
        }
        _ => None,
    };
    let now = search::now_ms();
    Ok(hits
        .into_iter()
        .map(|hit| {
            let detail = detail(&hit, now);
            lsp_ext::PickerSearchHit::new(hit, detail, range)
        })
        .collect())
}

/// What a picker shows under the title: `agent · cwd · age`, the age as
/// completion's detail says it.
fn detail(hit: &SessionHit, now_ms: u64) -> String {
    format!(
        "{} · {} · {}",
        hit.agent,
        one_line(hit.cwd.as_deref().unwrap_or("no cwd")),
        age(hit.created_at, now_ms)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(cwd: Option<&str>) -> SessionHit {
        SessionHit {
            session_id: "s".into(),
            title: Some("Fix\nthe tests".into()),
            display_title: None,
            agent: "codex".into(),
            cwd: cwd.map(str::to_string),
            created_at: 1_000_000,
            mention: "@[Fix\nthe tests](hydra-session:InMi)".into(),
            score: 1.0,
            snippets: Vec::new(),
        }
    }

    #[test]
    fn the_detail_is_agent_cwd_and_age_on_one_line() {
        let hour = 3_600_000;
        assert_eq!(
            detail(&hit(Some("/w/a\nb")), 1_000_000 + 2 * hour),
            "codex · /w/a b · 2 h ago"
        );
        assert_eq!(detail(&hit(None), 1_000_000), "codex · no cwd · just now");
    }

    #[test]
    fn a_picker_hit_carries_the_one_line_title_and_mention() {
        let picked = lsp_ext::PickerSearchHit::new(hit(None), String::new(), None);
        assert_eq!(picked.label, "Fix the tests");
        assert_eq!(picked.insert_text, "@[Fix the tests](hydra-session:InMi)");
        // The canonical mention is kept as the core made it.
        assert_eq!(picked.hit.mention, "@[Fix\nthe tests](hydra-session:InMi)");
    }
}
