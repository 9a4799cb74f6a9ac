//! The context of a session id, asked of the core directly: what
//! `resources/read`, the MCP tools and `prepare` of a message citing only
//! that session give, and what hover and the completion preview show. One
//! look-up in the view; no mention text is written and parsed back.

use super::cache::CachedSource;
use super::view::View;
use crate::model::Session;
use crate::reference::budget::{Budget, BudgetSetting};
use crate::reference::full_snapshot::SpillStore;
use crate::reference::mention::Reference;
use crate::reference::prepare::{
    prepare, retain_snapshot, settle_budget, unknown_session, Cancelled, PrepareOptions,
    RetainedSource,
};
use crate::reference::source::missing_among;
use crate::reference::ReferenceError;

/// The label a session's canonical mention carries: its durable display
/// title, else its title (`candidates::canonical_mention`'s).
fn canonical_label(session: &Session) -> String {
    session
        .header
        .label
        .clone()
        .unwrap_or_else(|| session.label().to_string())
}

/// The `additionalContext` text `prepare` gives a message citing only
/// session `id` by its canonical mention, spill included: the same bytes.
pub fn context_of(
    source: &CachedSource<'_>,
    id: &str,
    options: PrepareOptions<'_>,
    spill: Option<&dyn SpillStore>,
    cancelled: Cancelled<'_>,
) -> Result<String, ReferenceError> {
    let session = source
        .view
        .get(id)
        .ok_or_else(|| missing_among(&source.view.notes, id))?;
    let label = canonical_label(&session);
    let reference = Reference {
        session_id: id.to_string(),
        label: label.clone(),
    };
    let prepared = prepare(
        format!("@{label}"),
        &[reference],
        options,
        source,
        spill,
        cancelled,
    )?;
    Ok(prepared.context_text().unwrap_or_default())
}

/// What retention keeps of `session` under `label` in the budget
/// `prepare` would settle, read through the snapshot cache: what hover and
/// the completion preview show. `view` is the one the request read.
pub fn retained_of(
    source: &CachedSource<'_>,
    session: &Session,
    label: &str,
    limits: (BudgetSetting, usize),
    target: Option<&str>,
    cancelled: Cancelled<'_>,
) -> Result<(RetainedSource, Budget), ReferenceError> {
    let (max_reference_bytes, max_references) = limits;
    let budget = settle_budget(
        max_reference_bytes,
        max_references,
        target,
        source,
        cancelled,
    )?;
    let view: &View = source.view;
    let reader = view
        .reader
        .as_ref()
        .ok_or_else(|| unknown_session(session.id()))?;
    if let Some(pending) = source.fetches.and_then(|f| f.check(reader, session)) {
        return Err(pending);
    }
    let snapshot = source.cache.read(
        reader.as_ref(),
        session,
        label,
        Some(budget.bytes),
        cancelled,
    )?;
    retain_snapshot(snapshot, label, budget.bytes).map(|s| (s, budget))
}
